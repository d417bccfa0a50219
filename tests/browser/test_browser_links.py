"""End to end in Chromium: a CSV whose labels, names and values are images and links to a local
listener is uploaded, stepped, pruned, evaluated and ensembled on every page; the listener must receive
no request (no Markdown image was fetched) and the page must hold no live link to it.

Also checks the table toolbar: st.dataframe offers no "Download as CSV" of its own (it would export
formula cells as they are); the Data page's own download neutralises them.
"""

from __future__ import annotations

import http.server
import re
import threading

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import expect


@pytest.fixture
def listener():
    """An HTTP server on a free loopback port that records every request path."""
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's name
            hits.append(self.path)
            self.send_response(204)
            self.end_headers()

        do_POST = do_HEAD = do_GET  # noqa: N815

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}", hits
    finally:
        server.shutdown()
        server.server_close()


def hostile_csv(host: str, n: int = 150) -> str:
    rng = np.random.default_rng(5)
    x, w = rng.normal(size=n).round(3), rng.normal(size=n).round(3)
    cat = rng.choice([f"![v](http://{host}/value.png)", f"<img src=http://{host}/tag.png>", f"www.{host}"], n)
    classes = np.array([f"![c](http://{host}/class.png)", f"[l](http://{host}/link)", f"see http://{host}/bare"])
    y = classes[np.where(x > 0.3, 0, np.where(w > 0, 1, 2))]
    frame = pd.DataFrame({f"![x](http://{host}/feature.png)": x, f"http://{host}/w": w,
                          f"[c](http://{host}/col)": cat, "=HYPERLINK(\"x\")": y})
    return frame.to_csv(index=False)


def _no_errors(page):
    expect(page.get_by_test_id("stException")).to_have_count(0)
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)


def _goto(page, wait_idle, name: str):
    page.get_by_test_id("stSidebar").get_by_role("link", name=name).click()
    wait_idle(page)


def _live_links(page, host: str) -> list[str]:
    return page.eval_on_selector_all(
        f"a[href*='{host}'], img[src*='{host}']", "els => els.map(e => e.outerHTML.slice(0, 200))")


def test_a_hostile_csv_fetches_nothing_on_any_page(page, wait_idle, listener, tmp_path, screenshot):
    host, hits = listener
    page.set_viewport_size({"width": 1440, "height": 2000})
    path = tmp_path / "links.csv"
    path.write_text(hostile_csv(host), encoding="utf-8")
    seen_links: list[str] = []

    def after(label: str):
        wait_idle(page)
        _no_errors(page)
        seen_links.extend(f"{label}: {h}" for h in _live_links(page, host))

    page.goto("/")
    wait_idle(page)
    _goto(page, wait_idle, "Data")
    page.locator(".st-key-_w_data_upload [data-testid='stFileUploaderDropzoneInput']").set_input_files(str(path))
    expect(page.get_by_text(re.compile(r"Loaded .*links"))).to_be_visible()
    after("data")
    # the table's own toolbar has no CSV download; the page's own (guarded) one is there
    page.get_by_test_id("stDataFrame").first.hover()
    expect(page.get_by_role("button", name="Download as CSV")).to_have_count(0)
    expect(page.get_by_role("button", name=re.compile("All cleaned rows"))).to_be_visible()
    page.get_by_role("tab", name="Target").click()
    after("data target")

    _goto(page, wait_idle, "Grow")
    for _ in range(3):
        page.locator(".st-key-_w_grow_step button").click()
        after("grow step")
    for tab in ("Inspect a node", "Step log", "Query point"):
        page.get_by_role("tab", name=tab).click()
        after(f"grow {tab}")
    screenshot(page, "links_grow")

    _goto(page, wait_idle, "Prune")
    page.get_by_test_id("stButtonGroup").get_by_role("radio", name="C4.5 pessimistic").click()
    after("prune c45")

    _goto(page, wait_idle, "Evaluate")
    after("evaluate")

    _goto(page, wait_idle, "Ensembles")
    page.get_by_role("button", name="Train").click()
    wait_idle(page, timeout=180_000)
    after("forest vote")
    page.get_by_role("tab", name="Members").click()
    after("forest members")
    page.get_by_test_id("stButtonGroup").first.get_by_text("AdaBoost", exact=True).click()
    wait_idle(page)
    page.get_by_role("button", name="Train").click()
    wait_idle(page, timeout=180_000)
    page.get_by_role("tab", name="AdaBoost rounds").click()
    after("adaboost rounds")
    screenshot(page, "links_ensembles")

    page.wait_for_timeout(1000)  # give any stray image request time to arrive
    assert hits == [], f"the browser fetched {hits} from the listener"
    assert seen_links == [], seen_links
