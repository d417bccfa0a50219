"""The join page's follower script is allowed by its hash in deploy/nginx.conf's Content-Security-Policy, asks
the stage route, and reads the marker the page ends with."""

from __future__ import annotations

from live.stage_route import PATH
from tests.csp import proxy_allows, script_body
from ui.classroom.live_watchdog import (DRAWN_KEY, POLL_SECONDS, W_WAKE, WATCHDOG_BUSY_SECONDS, WATCHDOG_JS,
                                        WATCHDOG_KEY, WATCHDOG_LOST_SECONDS, WATCHDOG_SECONDS)


def test_the_proxys_policy_allows_the_watchdog_by_its_hash():
    assert proxy_allows(WATCHDOG_JS)
    body = script_body(WATCHDOG_JS)
    assert f".st-key-{W_WAKE} button" in body and str(WATCHDOG_SECONDS * 1000) in body
    assert f".st-key-{DRAWN_KEY}" in body and f"W.fetch('{PATH}?room=" in body
    assert f"?{WATCHDOG_LOST_SECONDS * 1000:d}:{WATCHDOG_BUSY_SECONDS * 1000:d}*k" in body
    assert body.endswith(f"}},{POLL_SECONDS * 1000:d});}})();")


def test_the_join_pages_css_hides_the_watchdogs_marker_and_frame():
    from ui.classroom.live_student import STUDENT_CSS

    hidden = next(line for line in STUDENT_CSS.splitlines() if "display: none" in line and ".st-key-join" in line)
    selectors = {x.strip() for x in hidden.split("{")[0].split(",")}
    assert {f".st-key-{k}" for k in (DRAWN_KEY, WATCHDOG_KEY)} <= selectors
