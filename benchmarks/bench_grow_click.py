"""Time a click on a big tree in Chromium, end to end: from the click until the next view has settled.

    python benchmarks/bench_grow_click.py               # 20,000 noisy rows grown to the end (~7,000 nodes)
    python benchmarks/bench_grow_click.py --rows 20000 --clicks 5

Starts ``streamlit run app.py`` on a free port, uploads a noisy CSV (four normal features, a random label of
three classes) on the Data page, grows it to the end on the Grow page (1366 x 768), then clicks node boxes of
the diagram (each a node the inspector does not show yet) and "Go to node #". A click is settled when the
script's state is back to ``notRunning`` and no Plotly chart has drawn for 600 ms; the time reported runs from
the mouse press to the last draw (or to ``notRunning``, whichever is later). The page records both in the
browser (``performance.now()``), so the polling interval does not count. Also printed: how long the page
showed ``data-test-script-state='running'`` (the server's run plus the messages' way and handling) and the
browser's long tasks (main thread busy > 50 ms: parsing and drawing). On a machine shared with other work the
wall-clock times grow with the load average (printed); ``--cpu`` records a Chromium trace around each click and
adds the CPU time the page's main thread spent (its tasks' thread time, which the load does not inflate).

Prints each click's times and the median.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, IDLE, streamlit_server  # noqa: E402
from tests.browser.test_browser_tree import DIAGRAM, boxes, click_box, noise_csv  # noqa: E402

# Records, in the page, when the script state changes and when any Plotly chart finishes a draw.
WATCH = """() => {
  if (window.__dtxWatch) return;
  window.__dtxWatch = true;
  window.__dtxPlot = 0; window.__dtxRun = []; window.__dtxPlots = 0;
  const app = () => document.querySelector("[data-testid='stApp']");
  const hook = gd => { if (gd.__dtxTimed || !gd.on) return; gd.__dtxTimed = true;
    gd.on('plotly_afterplot', () => { window.__dtxPlot = performance.now(); window.__dtxPlots++; }); };
  new MutationObserver(() => document.querySelectorAll('.js-plotly-plot').forEach(hook))
    .observe(document.body, {childList: true, subtree: true});
  new MutationObserver(() => window.__dtxRun.push([performance.now(), app().getAttribute('data-test-script-state')]))
    .observe(app(), {attributes: true, attributeFilter: ['data-test-script-state']});
  document.querySelectorAll('.js-plotly-plot').forEach(hook);
  window.__dtxLong = [];
  new PerformanceObserver(l => l.getEntries().forEach(e => window.__dtxLong.push([e.startTime, e.duration])))
    .observe({type: 'longtask'});
}"""
QUIET_MS = 600


def main_thread_cpu(path: str) -> float:
    """CPU ms of the renderer's main thread in a Chromium trace: the thread time of its top-level tasks."""
    with open(path, encoding="utf-8") as f:
        events = json.load(f)
    events = events["traceEvents"] if isinstance(events, dict) else events
    main = {(e["pid"], e["tid"]) for e in events
            if e.get("ph") == "M" and e.get("name") == "thread_name" and e["args"].get("name") == "CrRendererMain"}
    return sum(e.get("tdur", 0) for e in events if (e.get("pid"), e.get("tid")) in main and e.get("ph") == "X"
               and e.get("name") == "ThreadControllerImpl::RunTask") / 1000


def settle(page, start: float) -> tuple[float, float, float]:
    """(ms from ``start`` to settled, ms the script ran, ms of the browser's long tasks) once idle and quiet
    for QUIET_MS."""
    page.wait_for_timeout(200)
    page.wait_for_selector(IDLE, timeout=120_000)
    page.wait_for_function(f"() => performance.now() - window.__dtxPlot > {QUIET_MS}", timeout=120_000)
    page.wait_for_selector(IDLE, timeout=120_000)
    runs, last_plot, draws, long = page.evaluate("[window.__dtxRun, window.__dtxPlot, window.__dtxPlots, window.__dtxLong]")
    busy = sum(d for t, d in long if t >= start)
    runs = [(t, s) for t, s in runs if t >= start]
    running = [t for t, s in runs if s == "running"]
    idle = [t for t, s in runs if s == "notRunning"]
    end = max([last_plot] + idle[-1:])
    if end < start:  # neither a run nor a draw after the action: say so rather than print a negative time
        print("  (no script run and no draw after this action: the click did not reach the app)")
        end = start
    ran = (idle[-1] - running[0]) if running and idle else 0.0
    return end - start, ran, busy


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rows", type=int, default=20_000)
    ap.add_argument("--clicks", type=int, default=5)
    ap.add_argument("--cpu", action="store_true", help="trace each click and print the main thread's CPU time")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    with streamlit_server() as url, sync_playwright() as p, tempfile.TemporaryDirectory() as tmp:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_context(viewport={"width": 1366, "height": 768}, base_url=url).new_page()
        page.set_default_timeout(300_000)
        page.goto("/data")
        page.wait_for_selector(IDLE)
        csv = Path(tmp) / "noise.csv"
        csv.write_text(noise_csv(args.rows), encoding="utf-8")
        page.locator(".st-key-_w_data_upload [data-testid='stFileUploaderDropzoneInput']").set_input_files(str(csv))
        page.get_by_text("Loaded").first.wait_for()
        page.wait_for_timeout(300)
        page.wait_for_selector(IDLE)
        page.get_by_test_id("stSidebar").get_by_role("link", name="Grow").click()
        page.wait_for_timeout(300)
        page.wait_for_selector(IDLE)
        page.locator(".st-key-_w_grow_grow button").click()
        page.wait_for_timeout(300)
        page.wait_for_selector(IDLE, timeout=600_000)
        page.evaluate(WATCH)
        status = page.get_by_text("finished").first.text_content()
        print(f"{args.rows:,} rows: {status.strip()}")
        trace = Path(tmp) / "trace.json"

        def timed(act) -> tuple[float, float, float, float]:
            if args.cpu:
                browser.start_tracing(page=page, path=str(trace), categories=["toplevel", "devtools.timeline"])
            start = page.evaluate("performance.now()")
            act()
            total, ran, busy = settle(page, start)
            cpu = (browser.stop_tracing(), main_thread_cpu(str(trace)))[1] if args.cpu else float("nan")
            return total, ran, busy, cpu

        def line(total, ran, busy, cpu) -> str:
            return (f"settled {total:.0f} ms, script ran {ran:.0f} ms, browser long tasks {busy:.0f} ms"
                    + (f", main thread CPU {cpu:.0f} ms" if args.cpu else "") + f" (load {os.getloadavg()[0]:.1f})")

        clicks, gotos = [], []
        for k in range(args.clicks):
            view = boxes(page)
            nodes = [i for i, b in enumerate(view["boxes"]) if b["kind"] == 0]
            i = nodes[(3 + 2 * k) % len(nodes)]
            page.locator(DIAGRAM).first.scroll_into_view_if_needed()
            clicks.append(timed(lambda: click_box(page, i)))
            print(f"box click {k + 1} (node {view['boxes'][i]['id']}): {line(*clicks[-1])}")
        goto = page.get_by_role("spinbutton", name="Go to node #")
        for k in range(args.clicks):
            goto.fill(str(1000 + 977 * k))
            gotos.append(timed(lambda: goto.press("Enter")))
            print(f"go to node {1000 + 977 * k}: {line(*gotos[-1])}")
        for name, rows in (("box click", clicks), ("go to node", gotos)):
            med = [statistics.median(r[j] for r in rows) for j in range(4)]
            print(f"{name}: median settled {med[0]:.0f} ms, median script run {med[1]:.0f} ms, "
                  f"median long tasks {med[2]:.0f} ms" + (f", median main thread CPU {med[3]:.0f} ms" if args.cpu else ""))
        page.screenshot(path=str(ROOT / "test-artifacts" / "bench-grow-click.png"))
        browser.close()


if __name__ == "__main__":
    main()
