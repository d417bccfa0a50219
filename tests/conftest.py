"""Shared test set-up: import path, Hypothesis profiles, and an AppTest factory.

- The repository root is put on ``sys.path`` so ``import engine`` works from any directory.
- Hypothesis runs without deadlines (no timed assertions on a shared 2-core machine); set
  ``HYPOTHESIS_PROFILE=ci`` (done by ``.ci/run``) for a deterministic, slightly larger run.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

try:
    from hypothesis import HealthCheck, settings
except ImportError:  # pragma: no cover - hypothesis is in requirements-dev.txt
    pass
else:
    settings.register_profile("default", deadline=None)
    settings.register_profile(
        "ci", deadline=None, derandomize=True, print_blob=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

APP_PATH = ROOT / "app.py"
APP_TIMEOUT = 60  # seconds per AppTest run; generous because the machine is shared


@pytest.fixture(scope="session", autouse=True)
def _apptest_runs_the_frame_like_the_server():
    """Make AppTest run app.py (the frame) on every rerun, as the real server does.

    Streamlit switches to its old "pages directory" mode when a ``pages/`` folder sits next to
    the main script, until the first ``st.navigation`` call clears ``PagesManager.
    uses_pages_directory`` for the rest of the process. A server therefore runs app.py on every
    rerun, but AppTest resets the flag before each run, so its second run would execute the page
    script alone (no sidebar, no error net). Clearing the flag after each PagesManager is built
    restores the server's behaviour.
    """
    from streamlit.runtime.pages_manager import PagesManager

    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    PagesManager.__init__ = init
    try:
        yield
    finally:
        PagesManager.__init__ = original


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """Absolute path of the repository root."""
    return ROOT


@pytest.fixture
def app_test():
    """Factory: ``app_test()`` returns a fresh, already-run AppTest of ``app.py``.

    ``app_test("pages/data.py")`` switches to that page and runs it too. AppTest resolves relative
    script paths against the calling file, so the absolute path of app.py is used.
    """
    from streamlit.testing.v1 import AppTest

    def make(page: str | None = None) -> AppTest:
        at = AppTest.from_file(str(APP_PATH), default_timeout=APP_TIMEOUT)
        at.run()
        if page is not None:
            at.switch_page(page)
            at.run()
        return at

    return make
