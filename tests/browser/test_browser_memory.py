"""Server memory on a real ``streamlit run app.py`` (its own server, session TTL 6 s so a closed tab is
let go within seconds instead of two minutes):

- uploading a gzip "bomb" (1.5 MB that unpacks to 1 GB of rows) raises the server's peak resident
  memory by less than BOMB_BOUND_MB (it used to add ~1,050 MB: the file was unpacked whole first);
- after a tab uploads 400,000 rows (59 MB), steps once and closes, the server's memory returns to
  within AFTER_CLOSE_BOUND_MB of its idle figure within a minute (it used to keep all of it: closed
  sessions, their uploaded bytes and the sort cache were never let go).

- with a third tab left open, two tabs that uploaded 400,000 rows each and closed give their memory
  back all the same (the shared upload cache used to keep up to four files until no tab was left:
  348 MB against 172 MB idle three minutes later, with 161 MB files).

Bounds, not timings: generous against the measured figures (bomb +0-10 MB; 600k rows: 536 -> 226 MB
with idle at 166 MB), tight against the old behaviour.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from benchmarks.bench_memory import free_port, gzip_bomb, reset_peak, start_server, status  # noqa: E402

BOMB_BOUND_MB = 150
AFTER_CLOSE_BOUND_MB = 100


@pytest.fixture
def server(tmp_path):
    port = free_port()
    proc = start_server(port, 6, tmp_path / "server.log")
    try:
        yield f"http://127.0.0.1:{port}", proc.pid
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _tab(browser, url):
    context = browser.new_context(base_url=url, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(240_000)
    return context, context.new_page()


def _upload(page, wait_idle, path: Path, expect_text: str):
    page.goto("/")
    wait_idle(page)
    page.get_by_test_id("stSidebar").get_by_role("link", name="Data").click()
    wait_idle(page)
    page.locator(".st-key-_w_data_upload [data-testid='stFileUploaderDropzoneInput']").set_input_files(str(path))
    expect(page.get_by_text(re.compile(expect_text)).first).to_be_visible(timeout=240_000)
    wait_idle(page, timeout=240_000)


def test_gzip_bomb_peak_and_memory_after_tabs_close(browser, server, wait_idle, tmp_path):
    from benchmarks.bench_app import write_csv

    url, pid = server
    context, page = _tab(browser, url)
    page.goto("/")
    wait_idle(page)
    context.close()
    time.sleep(8)  # the first tab's session is let go too
    idle = status(pid)["VmRSS"]

    bomb = gzip_bomb(tmp_path / "bomb.csv.gz", 1024)
    assert bomb.stat().st_size < 2 << 20
    before = status(pid)["VmRSS"]
    reset_peak(pid)
    context, page = _tab(browser, url)
    _upload(page, wait_idle, bomb, "more than")
    context.close()
    bomb_peak = status(pid)["VmHWM"] - before
    assert bomb_peak < BOMB_BOUND_MB, f"the bomb raised the peak by {bomb_peak:.0f} MB"

    csv = write_csv(400_000, tmp_path)
    context, page = _tab(browser, url)
    _upload(page, wait_idle, csv, "Loaded")
    page.get_by_test_id("stSidebar").get_by_role("link", name="Grow").click()
    wait_idle(page)
    page.locator(".st-key-_w_grow_step button").click()
    wait_idle(page)
    loaded = status(pid)["VmRSS"]
    context.close()
    deadline, now = time.monotonic() + 60, loaded
    while time.monotonic() < deadline:
        now = status(pid)["VmRSS"]
        if now < idle + AFTER_CLOSE_BOUND_MB:
            break
        time.sleep(2)
    print(f"idle {idle:.0f} MB, bomb peak +{bomb_peak:.0f} MB, loaded {loaded:.0f} MB, after close {now:.0f} MB")
    assert loaded > idle + AFTER_CLOSE_BOUND_MB, "the upload should have cost memory (else the test proves nothing)"
    assert now < idle + AFTER_CLOSE_BOUND_MB, f"idle {idle:.0f} MB, loaded {loaded:.0f}, a minute after closing {now:.0f}"


def test_closed_tabs_uploads_are_freed_while_another_tab_stays_open(browser, server, wait_idle, tmp_path):
    from benchmarks.bench_app import write_csv

    url, pid = server
    context, page = _tab(browser, url)
    page.goto("/")
    wait_idle(page)
    context.close()
    time.sleep(8)
    idle = status(pid)["VmRSS"]
    stay, stay_page = _tab(browser, url)  # the third tab: open on the Data page the whole time
    _upload(stay_page, wait_idle, write_csv(2_000, tmp_path), "Loaded")
    tabs = []
    for rows in (400_000, 400_001):  # two different files (different digests)
        folder = tmp_path / str(rows)
        folder.mkdir()
        context, page = _tab(browser, url)
        _upload(page, wait_idle, write_csv(rows, folder), "Loaded")
        tabs.append(context)
    loaded = status(pid)["VmRSS"]
    for context in tabs:
        context.close()
    deadline, now = time.monotonic() + 90, loaded
    while time.monotonic() < deadline:
        now = status(pid)["VmRSS"]
        if now < idle + AFTER_CLOSE_BOUND_MB:
            break
        time.sleep(2)
    stay_page.get_by_test_id("stSidebar").get_by_role("link", name="Grow").click()
    wait_idle(stay_page)
    expect(stay_page.get_by_test_id("stException")).to_have_count(0)  # the open tab still works
    stay.close()
    print(f"idle {idle:.0f} MB, two uploads + one open tab {loaded:.0f} MB, after two closed {now:.0f} MB")
    assert loaded > idle + 2 * AFTER_CLOSE_BOUND_MB, "the uploads should have cost memory"
    assert now < idle + AFTER_CLOSE_BOUND_MB, f"idle {idle:.0f} MB, loaded {loaded:.0f}, 90 s after closing {now:.0f}"
