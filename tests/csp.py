"""The proxy's Content-Security-Policy (deploy/dtx-site.inc, which deploy/nginx.conf includes) and the app's
inline scripts.

An inline ``<script>`` runs under the policy only when its body's SHA-256 is listed in ``script-src``.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

SITE_CONF = Path(__file__).resolve().parents[1] / "deploy" / "dtx-site.inc"


def script_body(script_html: str) -> str:
    """The text between ``<script>`` and ``</script>`` (the whole string must be one script)."""
    assert script_html.startswith("<script>") and script_html.endswith("</script>")
    return script_html[len("<script>"):-len("</script>")]


def proxy_allows(script_html: str) -> bool:
    """Whether the proxy's policy (deploy/dtx-site.inc) lists the script's hash."""
    digest = base64.b64encode(hashlib.sha256(script_body(script_html).encode()).digest()).decode()
    return f"'sha256-{digest}'" in SITE_CONF.read_text()
