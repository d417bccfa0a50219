"""The app at scale in Chromium, as a user meets it (issue 41 item 4): ``bench_app.py --rows N`` runs this.

A CSV of N rows x 10 numeric columns and a 3-class target (``bench_fit.make_data``'s signal; 1,000,000 rows:
about 80 MB) is uploaded through the Data page's file chooser of a ``streamlit run app.py`` server at
1366 x 768, then:

- **upload to first tree**: from handing the file to the chooser until the Grow page shows the root's box and
  the page is idle (the Data page's "Loaded", a click on Grow in the sidebar, the page's first run);
- **Step**: each press of Step until the view settled (no run, no Plotly draw for 600 ms:
  ``bench_grow_click.settle``), with how long the script ran (the page's ``data-test-script-state``) and the
  server process's CPU seconds for that Step (what a quiet machine would show as its wall time);
- **box click**: a click on a node box of the diagram, until settled;
- **Grow to end** with Max depth 12 (set in the settings expander), until settled, and the server's CPU;
- **memory**: the server process's resident size after the first tree and its peak (the kernel's high-water
  mark, reset once the page is loaded) above its size before the upload, as a multiple of the table's size in
  memory (N x 11 values of 8 bytes).

Times are wall-clock on this machine (the load average is printed beside them); the server's CPU seconds do
not grow with the load. Prints one line per figure and a screenshot to test-artifacts/bench-app-rows.png.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

STEP = ".st-key-_w_grow_step button"
GROW_END = ".st-key-_w_grow_grow button"


def write_csv(path: Path, rows: int, features: int = 10) -> int:
    """The CSV of ``rows`` x ``features`` numbers and a class; returns its size in bytes."""
    from bench_fit import make_data

    ds = make_data(rows, d=features, n_classes=3, seed=0)
    ds.frame.to_csv(path, index=False)
    return path.stat().st_size


def server_process() -> psutil.Process:
    """The ``streamlit run`` child of this process."""
    for child in psutil.Process().children(recursive=True):
        try:
            if "streamlit" in " ".join(child.cmdline()):
                return child
        except psutil.Error:
            continue
    raise RuntimeError("no streamlit server among this process's children")


def _status(pid: int, field: str) -> int:
    with open(f"/proc/{pid}/status") as f:
        return 1024 * int(next(line.split()[1] for line in f if line.startswith(field + ":")))


def _say(text: str) -> None:
    print(f"  [{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def run(rows: int, steps: int = 3) -> dict:
    from playwright.sync_api import sync_playwright

    from bench_grow_click import WATCH, settle
    from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, IDLE, streamlit_server
    from tests.browser.test_browser_tree import DIAGRAM, boxes, click_box

    out: dict = {"rows": rows}
    env = {"DTX_MEMORY_BUDGET_MB": os.environ.get("DTX_MEMORY_BUDGET_MB", "")} if os.environ.get(
        "DTX_MEMORY_BUDGET_MB") else None
    with tempfile.TemporaryDirectory() as tmp, streamlit_server(env) as url, sync_playwright() as p:
        csv = Path(tmp) / f"rows{rows}.csv"
        out["csv_mb"] = write_csv(csv, rows) / 2**20
        out["table_mb"] = rows * 11 * 8 / 2**20
        server = server_process()
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_context(viewport={"width": 1366, "height": 768}, base_url=url).new_page()
        page.set_default_timeout(600_000)
        page.goto("/data")
        page.wait_for_selector(IDLE)
        page.wait_for_timeout(500)
        base = server.memory_info().rss
        try:
            with open(f"/proc/{server.pid}/clear_refs", "w") as f:
                f.write("5")
            exact_peak = True
        except OSError:
            exact_peak = False
        _say("uploading")
        t0 = time.perf_counter()
        page.locator(".st-key-_w_data_upload [data-testid='stFileUploaderDropzoneInput']").set_input_files(str(csv))
        page.get_by_text("Loaded").first.wait_for()
        page.wait_for_selector(IDLE)
        out["upload_to_loaded_s"] = time.perf_counter() - t0
        _say("loaded; opening Grow")
        page.get_by_test_id("stSidebar").get_by_role("link", name="Grow").click()
        page.locator(DIAGRAM).first.locator(".js-plotly-plot").wait_for()
        page.wait_for_timeout(200)
        page.wait_for_selector(IDLE)
        out["upload_to_first_tree_s"] = time.perf_counter() - t0
        out["rss_after_first_tree_mb"] = (server.memory_info().rss - base) / 2**20
        page.evaluate(WATCH)

        def timed(act) -> tuple[float, float, float]:
            cpu0 = sum(server.cpu_times()[:2])
            start = page.evaluate("performance.now()")
            act()
            total, ran, _busy = settle(page, start)
            return total / 1000, ran / 1000, sum(server.cpu_times()[:2]) - cpu0

        _say("first tree shown; stepping")
        out["steps"] = [timed(lambda: page.locator(STEP).click()) for _ in range(steps)]
        _say("clicking a box")
        view = boxes(page)
        nodes = [i for i, b in enumerate(view["boxes"]) if b["kind"] == 0]
        page.locator(DIAGRAM).first.scroll_into_view_if_needed()
        out["box_click"] = timed(lambda: click_box(page, nodes[min(2, len(nodes) - 1)]))
        _say("setting Max depth 12")
        settings = page.get_by_text("Settings: algorithm, impurity, stopping rules")
        settings.click()
        depth = page.locator(".st-key-_w_grow_max_depth input")
        depth.fill("12")
        depth.press("Enter")
        page.wait_for_timeout(300)
        page.wait_for_selector(IDLE)
        settings.click()
        page.wait_for_selector(IDLE)
        _say("growing to the end")
        out["grow_to_end"] = timed(lambda: page.locator(GROW_END).click())
        out["status"] = " ".join(page.get_by_text("Step ").filter(has_text="nodes").first.text_content().split())[:160]
        out["rss_end_mb"] = (server.memory_info().rss - base) / 2**20
        out["peak_mb"] = (_status(server.pid, "VmHWM") - base) / 2**20 if exact_peak else float("nan")
        out["load"] = os.getloadavg()[0]
        page.screenshot(path=str(ROOT / "test-artifacts" / "bench-app-rows.png"))
        browser.close()
    return out


def report(r: dict) -> None:
    steps = r["steps"]
    print(f"{r['rows']:,} rows x 10 features (CSV {r['csv_mb']:.0f} MB, table {r['table_mb']:.0f} MB in memory), "
          f"load average {r['load']:.1f}")
    print(f"  upload to 'Loaded': {r['upload_to_loaded_s']:.1f} s; upload to first tree: "
          f"{r['upload_to_first_tree_s']:.1f} s (target 10 s)")
    for k, (total, ran, cpu) in enumerate(steps, 1):
        print(f"  Step {k}: settled {total:.2f} s, script ran {ran:.2f} s, server CPU {cpu:.2f} s")
    print(f"  Step median (after the first): server CPU {statistics.median(c for _, _, c in steps[1:] or steps):.2f} s "
          f"(target 0.5 s)")
    total, ran, cpu = r["box_click"]
    print(f"  box click: settled {total:.2f} s (target 1 s), script ran {ran:.2f} s, server CPU {cpu:.2f} s")
    total, ran, cpu = r["grow_to_end"]
    print(f"  Grow to end (depth 12): settled {total:.2f} s (target 5 s), script ran {ran:.2f} s, server CPU {cpu:.2f} s")
    print(f"  the tree: {r['status']}")
    print(f"  server memory above its size before the upload: {r['rss_after_first_tree_mb']:.0f} MB after the first "
          f"tree, {r['rss_end_mb']:.0f} MB at the end, peak {r['peak_mb']:.0f} MB = "
          f"{r['peak_mb'] / r['table_mb']:.1f}x the table (target 3x)")
