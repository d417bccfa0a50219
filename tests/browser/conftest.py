"""End-to-end fixtures: a real ``streamlit run app.py`` server and Debian's Chromium via Playwright.

- ``app_url`` (session): starts the server on a free port from the repository root, waits for
  ``/_stcore/health`` to answer "ok", yields the URL and terminates the server afterwards;
  ``fresh_app_url`` does the same for one test (a server no browser has visited yet).
- ``browser`` (session) and ``page`` (per test): headless Chromium at /usr/bin/chromium.
- ``wait_idle(page)``: waits until the app has finished its script run.
- ``screenshot(page, name)``: saves ``test-artifacts/screenshots/<name>.png`` (gitignored).
  Both are also fixtures of the same name (returning the function), so any browser test module
  can use them without importing this file.

Missing Chromium or Playwright: the tests FAIL when ``CI`` is set (so CI cannot pass without
running them) and are skipped with the reason otherwise.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.services import unavailable

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
ARTIFACTS = ROOT / "test-artifacts"
SCREENSHOTS = ARTIFACTS / "screenshots"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync"]
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
# Every browser of these tests is on this machine: one network address, which may otherwise hold only a tenth of
# the server's live classes at once (live.limits.rooms_per_address); the tests start more than that.
SAME_ADDRESS = {"DTX_ROOMS_PER_ADDRESS": "50"}
SERVER_START_TIMEOUT = 90.0  # seconds; generous on a shared 2-core machine
ACTION_TIMEOUT_MS = 60_000


def _unavailable(reason: str):
    unavailable("Browser tests", reason)


def pytest_collection_modifyitems(config, items):
    # Every test in this folder is a browser test.
    here = Path(__file__).parent
    for item in items:
        if Path(str(item.path)).is_relative_to(here):
            item.add_marker(pytest.mark.browser)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
            return resp.status == 200 and resp.read().strip() == b"ok"
    except OSError:
        return False


@contextmanager
def streamlit_server(env: dict[str, str] | None = None):
    """Run ``streamlit run app.py`` on a free port (``env``: variables added to this process's);
    yield its URL once healthy, then stop it."""
    port = _free_port()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log_path = ARTIFACTS / f"streamlit-server-{port}.log"
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py",
           "--server.headless", "true", "--server.port", str(port),
           "--server.address", "127.0.0.1", "--server.fileWatcherType", "none",
           "--browser.gatherUsageStats", "false"]
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                env={**os.environ, **SAME_ADDRESS, **(env or {})})
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while not _healthy(url):
            if proc.poll() is not None:
                pytest.fail("The Streamlit server exited during start-up:\n"
                            + log_path.read_text(errors="replace")[-3000:], pytrace=False)
            if time.monotonic() > deadline:
                pytest.fail(f"The Streamlit server did not answer within {SERVER_START_TIMEOUT:.0f}s",
                            pytrace=False)
            time.sleep(0.25)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)


@pytest.fixture(scope="session")
def app_url():
    """URL of a Streamlit server running app.py, shared by the session's browser tests."""
    with streamlit_server() as url:
        yield url


@pytest.fixture
def fresh_app_url():
    """URL of a server of its own that no browser has visited yet (for first-request behaviour)."""
    with streamlit_server() as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    """A headless Chromium (Debian's binary) driven by Playwright."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the Python package 'playwright' is not installed")
    if not (Path(CHROMIUM).is_file() or shutil.which(CHROMIUM)):
        _unavailable(f"Chromium is not installed at {CHROMIUM}")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser, app_url):
    """A fresh browser tab (its own Streamlit session) with the app's URL as base."""
    context = browser.new_context(viewport={"width": 1440, "height": 1000}, base_url=app_url)
    context.set_default_timeout(ACTION_TIMEOUT_MS)
    tab = context.new_page()
    try:
        yield tab
    finally:
        context.close()


#: idle, no element still a loading placeholder, and a page with the screen-width probe
#: (ui.classroom.presenter.SCREEN_JS) has had the window's width. Streamlit draws a skeleton for each element
#: until its component's code has loaded: in a tab opened after other tabs had used the server, every widget of
#: Grow was a skeleton for several seconds after the run was over, and a Tab walk met no buttons (CI, stop 44).
#: The probe types the width after the first run, and that second run redraws the page.
SETTLED_WIDTH = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  if (!app || app.getAttribute("data-test-script-state") !== "notRunning") return false;
  if (document.querySelector("[data-testid='stSkeleton']")) return false;
  const box = document.querySelector(".st-key-dtx_screen_probe");
  if (!box || box.querySelector("input[disabled]")) return true;
  const known = /px=(\\d+);/.exec(box.textContent);
  return !!known && Number(known[1]) === Math.round(window.innerWidth);
}"""
WIDTH_WAIT_MS = 30_000


def wait_idle(page, timeout: float = ACTION_TIMEOUT_MS) -> None:
    """Wait until the app's script run has finished (and give a just-started rerun time to start), until no
    element is a loading skeleton and a page that asks for the window's width has it (at most WIDTH_WAIT_MS more;
    past that the test goes on as before)."""
    page.wait_for_timeout(250)
    page.wait_for_selector(IDLE, timeout=timeout)
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    try:
        page.wait_for_function(SETTLED_WIDTH, timeout=WIDTH_WAIT_MS)
    except PlaywrightTimeoutError:
        return
    page.wait_for_selector(IDLE, timeout=timeout)


def screenshot(page, name: str, *, full_page: bool = True) -> Path:
    """Save a PNG of the tab under test-artifacts/screenshots/ and return its path."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


@pytest.fixture(name="wait_idle")
def wait_idle_fixture():
    """The :func:`wait_idle` helper, as a fixture."""
    return wait_idle


@pytest.fixture(name="screenshot")
def screenshot_fixture():
    """The :func:`screenshot` helper, as a fixture."""
    return screenshot
