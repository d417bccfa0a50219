"""Does the server stay responsive while one session trains a big forest? (run by hand, not a test)

    python benchmarks/bench_responsive.py                         # 100k rows x 20, 30 trees
    python benchmarks/bench_responsive.py --rows 20000 --trees 10 # a quick look

1. Starts ``streamlit run app.py`` on a free loopback port (stopped at the end, whatever happens).
2. Session A uploads a synthetic CSV (``--rows`` x 20 numeric features, 3 classes) and opens Ensembles.
   Session B opens Grow on the start-up sample and presses Step (Undo when the tree is finished),
   waiting each time until the page is updated and idle: its latency with nothing else running is
   the reference.
3. For each "Cores" choice (``1 core``: the forest grows in the server's own process, as before
   issue 16; ``automatic``: joblib worker processes) A presses Train and B keeps stepping until A's
   forest is done; B's median and worst latency are reported against the reference, and A's
   progress-bar texts seen on the way (they must keep counting).
4. A presses Train once more and closes its tab after ``--leave-after`` seconds: the CPU time the
   server's worker processes use afterwards shows whether the pool stopped (a few tenths of a second
   for the member in flight, not the whole forest).

With ``--single-tree`` A grows one tree instead (Grow to end on the Grow page, Reset between rounds) for each
Cores choice: one tree's levels on threads of the server's own process (issue 26) must leave B's Steps as
quick as the forest's worker processes do.

The load average is printed at the start and the end: the machine may be shared.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from load_test import CHROMIUM, CHROMIUM_ARGS, open_data_page, streamlit_server, wait_idle  # noqa: E402


def write_csv(path: Path, n: int) -> None:
    from bench_fit import make_data

    make_data(n).frame.to_csv(path, index=False)


def children_cpu(pid: int) -> dict[int, float]:
    """CPU seconds used so far by each live child process of the server (its joblib workers)."""
    out = {}
    for child in psutil.Process(pid).children(recursive=True):
        try:
            t = child.cpu_times()
            out[child.pid] = t.user + t.system
        except psutil.Error:
            pass
    return out


def used_since(pid: int, mark: dict[int, float]) -> tuple[float, int]:
    """(CPU seconds the children used since ``mark``, counting new children from 0; how many are alive)."""
    now = children_cpu(pid)
    return sum(v - mark.get(p, 0.0) for p, v in now.items()), len(now)


class Stepper:
    """Session B: Step (or Undo once the tree is finished) and time each until the page is idle again."""

    def __init__(self, page, timeout_ms: float):
        self.page, self.timeout_ms, self.shown = page, timeout_ms, 0

    async def act(self) -> float:
        step = self.page.locator(".st-key-_w_grow_step button")
        use_undo = await step.is_disabled()
        button = self.page.locator(".st-key-_w_grow_undo button") if use_undo else step
        expected = self.shown - 1 if use_undo else self.shown + 1
        t0 = time.perf_counter()
        await button.click()
        await wait_idle(self.page, expected, self.timeout_ms)
        self.shown = expected
        return time.perf_counter() - t0


async def set_cores(page, label: str, timeout_ms: float) -> None:
    await page.get_by_test_id("stSelectbox").filter(has_text="Cores").click()
    await page.get_by_role("option", name=label, exact=True).click()
    await wait_idle(page, None, timeout_ms)


async def training_round(a_page, stepper: Stepper, timeout_ms: float) -> dict:
    await a_page.locator(".st-key-_w_ens_train button").click()
    await a_page.wait_for_function(
        "() => document.querySelector(\"[data-testid='stApp']\").getAttribute('data-test-script-state') === 'running'")
    started, latencies, texts = time.perf_counter(), [], []
    while True:
        state = await a_page.locator("[data-testid='stApp']").get_attribute("data-test-script-state")
        if state == "notRunning":
            break
        bar = a_page.get_by_text("members trained")
        if await bar.count():
            text = (await bar.first.inner_text()).strip()
            if not texts or texts[-1] != text:
                texts.append(text)
        latencies.append(await stepper.act())
    return {"seconds": time.perf_counter() - started, "latencies": latencies, "progress": texts}


async def tree_round(a_page, stepper: Stepper, timeout_ms: float) -> dict:
    """A presses Grow to end (after Reset if a tree is there); B steps until A's page is idle again."""
    reset = a_page.locator(".st-key-_w_grow_reset button")
    if not await reset.is_disabled():
        await reset.click()
        await wait_idle(a_page, None, timeout_ms)
    await a_page.locator(".st-key-_w_grow_grow button").click()
    await a_page.wait_for_function(
        "() => document.querySelector(\"[data-testid='stApp']\").getAttribute('data-test-script-state') === 'running'")
    started, latencies = time.perf_counter(), []
    while await a_page.locator("[data-testid='stApp']").get_attribute("data-test-script-state") != "notRunning":
        latencies.append(await stepper.act())
    return {"seconds": time.perf_counter() - started, "latencies": latencies, "progress": []}


async def main_async(args) -> None:
    from playwright.async_api import async_playwright

    timeout_ms = args.timeout * 1000
    with tempfile.TemporaryDirectory() as tmp, streamlit_server() as (url, pid):
        csv = Path(tmp) / f"forest_{args.rows}.csv"
        write_csv(csv, args.rows)
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            ctx_a = await browser.new_context(viewport={"width": 1280, "height": 900}, base_url=url)
            ctx_b = await browser.new_context(viewport={"width": 1280, "height": 900}, base_url=url)
            for c in (ctx_a, ctx_b):
                c.set_default_timeout(timeout_ms)
            a, b = await ctx_a.new_page(), await ctx_b.new_page()
            await open_data_page(a, timeout_ms)
            await a.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(str(csv))
            await a.get_by_text("Loaded ", exact=False).filter(has_text=csv.stem).first.wait_for(timeout=timeout_ms)
            await wait_idle(a, None, timeout_ms)
            await a.get_by_test_id("stSidebar").get_by_role("link", name="Ensembles").click()
            await wait_idle(a, None, timeout_ms)
            box = a.locator(".st-key-_w_ens_m_random_forest input")
            await box.fill(str(args.trees))
            await box.press("Enter")
            await wait_idle(a, None, timeout_ms)

            await b.goto("/")
            await wait_idle(b, None, timeout_ms)
            await b.get_by_test_id("stSidebar").get_by_role("link", name="Grow").click()
            await wait_idle(b, 0, timeout_ms)
            stepper = Stepper(b, timeout_ms)
            idle = [await stepper.act() for _ in range(args.idle_steps)]
            print(f"B's Step latency, nothing else running: median {statistics.median(idle) * 1000:.0f} ms, "
                  f"max {max(idle) * 1000:.0f} ms ({len(idle)} actions)", flush=True)
            await a.screenshot(path=str(Path(__file__).resolve().parent.parent / "test-artifacts" / "bench-responsive-a.png"))
            for label in ([] if args.only_leave else args.cores):
                await set_cores(a, label, timeout_ms)
                if args.single_tree:
                    await a.get_by_test_id("stSidebar").get_by_role("link", name="Grow").click()
                    await wait_idle(a, None, timeout_ms)
                    for _ in range(args.rounds):
                        r = await tree_round(a, stepper, timeout_ms)
                        lat = r["latencies"] or [float("nan")]
                        print(f"Cores = {label:>18s}: one tree (Grow to end) on {args.rows:,} rows in {r['seconds']:.1f} s; "
                              f"B's Step latency meanwhile: median {statistics.median(lat) * 1000:.0f} ms "
                              f"({statistics.median(lat) / statistics.median(idle):.1f}x idle), max "
                              f"{max(lat) * 1000:.0f} ms ({len(r['latencies'])} actions)", flush=True)
                    await a.get_by_test_id("stSidebar").get_by_role("link", name="Ensembles").click()
                    await wait_idle(a, None, timeout_ms)
                    continue
                r = await training_round(a, stepper, timeout_ms)
                lat = r["latencies"] or [float("nan")]
                print(f"Cores = {label:>18s}: forest of {args.trees} on {args.rows:,} rows in {r['seconds']:.1f} s; "
                      f"B's Step latency meanwhile: median {statistics.median(lat) * 1000:.0f} ms "
                      f"({statistics.median(lat) / statistics.median(idle):.1f}x idle), max {max(lat) * 1000:.0f} ms "
                      f"({len(r['latencies'])} actions); progress seen: {len(r['progress'])} texts, "
                      f"{r['progress'][:1]} .. {r['progress'][-1:]}", flush=True)
            if args.single_tree:
                await browser.close()
                return
            # leaving: train with the pool, close A's tab, watch the workers' CPU time
            await set_cores(a, args.cores[-1], timeout_ms)
            mark = children_cpu(pid)
            await a.locator(".st-key-_w_ens_train button").click()
            await asyncio.sleep(args.leave_after)
            during, alive = used_since(pid, mark)
            await ctx_a.close()
            await asyncio.sleep(2.0)
            mark = children_cpu(pid)
            await asyncio.sleep(args.watch)
            after, alive_after = used_since(pid, mark)
            print(f"Leaving: {alive} worker processes used {during:.1f} CPU s in the {args.leave_after:.0f} s before A "
                  f"closed its tab; from 2 s after closing, {alive_after} live workers used {after:.2f} CPU s in "
                  f"{args.watch:.0f} s", flush=True)
            await browser.close()


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--trees", type=int, default=30)
    ap.add_argument("--cores", nargs="+", default=["1 core", "automatic (all {n})"],
                    help="labels of the Cores choices to try, in order ({n} = this machine's cores)")
    ap.add_argument("--idle-steps", type=int, default=8)
    ap.add_argument("--leave-after", type=float, default=4.0)
    ap.add_argument("--watch", type=float, default=6.0)
    ap.add_argument("--only-leave", action="store_true", help="skip the latency rounds")
    ap.add_argument("--single-tree", action="store_true", help="A grows one tree (Grow to end), not a forest")
    ap.add_argument("--rounds", type=int, default=3, help="trees A grows per Cores choice (--single-tree)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per wait")
    args = ap.parse_args(argv)
    from engine.grow.parallel import cpu_count

    args.cores = [c.format(n=cpu_count()) for c in args.cores]
    print(f"machine: {cpu_count()} cores; load average {os.getloadavg()[0]:.1f} (1 min) at the start", flush=True)
    asyncio.run(main_async(args))
    print(f"load average {os.getloadavg()[0]:.1f} (1 min) at the end")


if __name__ == "__main__":
    main()
