"""The app on big data: load time and peak memory of a CSV upload, and server time per Step.

    python benchmarks/bench_app.py                          # everything (about 5 minutes on 2 cores)
    python benchmarks/bench_app.py --load-sizes 100000 --step-sizes 10000 --steps 3   # quick look
    python benchmarks/bench_app.py --rows 1000000           # in Chromium: upload, Step, click, Grow to end

Every figure is measured in a fresh child process (so one measurement's memory never inflates the next):

- Load: a synthetic CSV of N rows x 20 numeric columns + a 3-class target (1M rows: about 150 MB).
  ``engine``: ``engine.load_csv(path)`` then the default 75/25 split. ``page``: the Data page's upload
  handler through AppTest (the uploaded bytes, held by Streamlit, count too), then the Grow page and one
  Step (histogram search above 100k training rows). Peak = the process's high-water mark (VmHWM) minus
  its resident size just before loading (after the same steps on a 2,000-row file, so that imports
  and first-use caches are not counted as data), shown as a multiple of the file size.
- Step: AppTest of the whole app: upload on the Data page, open Grow, choose the split search, then
  press Step ``--steps`` times; each Step is one AppTest run (a full server rerun: tree step, diagram,
  region plot, inspector with gain table and threshold scan). The first Step also builds the search's
  presorted columns or bins, so it is shown apart; the median is over the later ones. The page scripts'
  bytecode is cached across runs as the server caches it (AppTest alone recompiles them every run), and
  the process's CPU time per Step is printed too: on a shared machine it is what a quiet one would show.
- Breakdown: the same pieces called directly on the same data (no Streamlit), to see where a Step goes.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("DTX_MEMORY_BUDGET_MB", "100000")  # timing the engine at size, not the app's per-job memory budget
sys.path.insert(0, str(ROOT))


def make_frame(n: int, d: int = 20, n_classes: int = 3, seed: int = 0) -> pd.DataFrame:
    """Like ``bench_fit.make_data``, with values written to 3 decimals (1M rows = about 150 MB of CSV)."""
    rng = np.random.default_rng(seed)
    X = (rng.normal(size=(n, d)) * 100).round(3)
    z = X / 100
    signal = z[:, 0] + z[:, 1] * z[:, 2] - np.abs(z[:, 3]) + 0.5 * np.sin(3 * z[:, 4])
    noisy = signal + rng.normal(scale=0.7, size=n)
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(d)])
    cuts = np.quantile(noisy, np.linspace(0, 1, n_classes + 1)[1:-1])
    frame["y"] = np.array([f"c{i}" for i in range(n_classes)])[np.searchsorted(cuts, noisy)]
    return frame


def write_csv(n: int, folder: Path) -> Path:
    path = folder / f"bench_{n}.csv"
    if not path.exists():
        make_frame(n).to_csv(path, index=False)
    return path


# ----------------------------------------------------------------------------------- children
def _rss_mb() -> tuple[float, float]:
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines())
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def _reset_peak() -> None:
    try:
        Path("/proc/self/clear_refs").write_text("5")  # VmHWM := VmRSS
    except OSError:
        pass


def _app(timeout: float = 600):
    import streamlit.testing.v1.app_test as app_test_module
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.testing.v1 import AppTest

    # AppTest builds a new ScriptCache for every run, so it compiles app.py and the page again each
    # time (~15 ms a run); the server compiles a script once and keeps the bytecode: share one cache
    shared_cache = app_test_module.ScriptCache()
    app_test_module.ScriptCache = lambda: shared_cache

    # as tests/conftest.py does: AppTest would otherwise rerun the page script alone after the first
    # run (Streamlit's old pages-folder mode), not app.py as the server does
    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    PagesManager.__init__ = init
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout).run()
    at.switch_page("pages/data.py").run()
    return at


def _upload(at, path: Path) -> None:
    from ui.data import panels as panels

    at.file_uploader(key=panels.W_UPLOAD).set_value((path.name, path.read_bytes(), "text/csv")).run()
    problems = [e.value for e in at.exception] + [e.value for e in at.error]
    if problems:
        raise SystemExit(f"upload failed: {problems}")


def _warm_up(mode: str, at, folder: Path) -> None:
    """The same path once on a small file of the same shape, so the modules it imports (parsers,
    Plotly, the Grow page's views) are resident before the baseline and only data counts."""
    import engine

    small = write_csv(2_000, folder)
    if mode == "engine":
        engine.load_csv(small).split(test_size=0.25, seed=0).train.X  # noqa: B018
        return
    _upload(at, small)
    at.switch_page("pages/grow.py").run()
    at.button(key="_w_grow_step").click().run()
    at.switch_page("pages/data.py").run()


def child_load(mode: str, path: Path) -> dict:
    import engine

    at = _app() if mode == "page" else None
    with tempfile.TemporaryDirectory() as folder:
        _warm_up(mode, at, Path(folder))
    _reset_peak()
    base = _rss_mb()[0]
    start = time.perf_counter()
    if mode == "engine":
        ds = engine.load_csv(path)
        loaded = time.perf_counter() - start
        ds.split(test_size=0.25, seed=0)
    else:
        _upload(at, path)
        loaded = time.perf_counter() - start
    total = time.perf_counter() - start
    now, peak = _rss_mb()
    # VmRSS and VmHWM are kept from per-thread counters that the kernel folds in lazily, so on tiny
    # loads the high-water mark can read a few pages below the RSS taken just after the reset: the
    # peak is at least what is resident now, and never below the baseline
    peak = max(peak, now, base)
    out = {"load_s": loaded, "total_s": total, "peak_mb": peak - base, "after_mb": now - base,
           "file_mb": path.stat().st_size / 2**20}
    if mode == "page":  # then the Grow page and one Step: the memory a session holds once it grows
        at.switch_page("pages/grow.py").run()
        out["grow_peak_mb"] = max(_rss_mb()[1], base) - base
        at.button(key="_w_grow_step").click().run()
        now, peak = _rss_mb()
        out["step_peak_mb"], out["step_after_mb"] = max(peak, now, base) - base, now - base
    return out


def child_steps(path: Path, search: str, steps: int) -> dict:
    from ui.grow import settings as gs
    from ui import state

    at = _app()
    _upload(at, path)
    at.switch_page("pages/grow.py").run()
    at.selectbox(key=gs.W_SEARCH).set_value(search).run()
    times, cpu = [], []
    for _ in range(steps):
        start, start_cpu = time.perf_counter(), time.process_time()
        at.button(key="_w_grow_step").click().run()
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        if at.exception or at.error:
            raise SystemExit(f"step failed: {[e.value for e in at.exception] + [e.value for e in at.error]}")
    grower = at.session_state[state.GROWER]
    if grower.n_steps != steps:
        raise SystemExit(f"{steps} Steps clicked but the tree has {grower.n_steps}")
    start = time.perf_counter()
    at.run()
    rerun = time.perf_counter() - start
    return {"times": times, "cpu": cpu, "rerun_s": rerun, "search": grower.config.split_search,
            "rows": len(grower.dataset), "nodes": grower.tree.n_nodes}


def child_breakdown(n: int, search: str, steps: int) -> dict:
    import engine
    from engine.split.gain import candidate_scan
    from engine.viz.dot import dot_source
    from engine.viz.figures import threshold_scan_figure
    from engine.viz.regions import region_figure

    ds = engine.Dataset.from_frame(make_frame(n), target="y")
    train = ds.split(test_size=0.25, seed=0).train
    g = engine.Grower(train, engine.TreeConfig(split_search=search))
    out: dict[str, list[float]] = {k: [] for k in ("step", "diagram", "regions", "gain_table", "scan")}

    def timed(key, fn):
        t = time.perf_counter()
        value = fn()
        out[key].append(time.perf_counter() - t)
        return value

    labels = np.asarray(train.classes, dtype=object)[train.y]
    frame = train.frame
    for _ in range(steps):
        rec = timed("step", g.step)
        tree = g.tree
        timed("diagram", lambda: dot_source(tree, highlight=rec.node_id))
        timed("regions", lambda: region_figure(tree, frame, labels, "f0", "f3", seed=0))
        node = rec.node_id if rec.node_id is not None else 0
        timed("gain_table", lambda: g.gain_table(node))
        timed("scan", lambda: threshold_scan_figure(candidate_scan(g, node, "f0")))
    return out


# ---------------------------------------------------------------------------------------- main
def run_child(*args: str) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--child", *args], capture_output=True, text=True,
                          cwd=ROOT)
    if proc.returncode != 0:
        raise SystemExit(f"child {args} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--load-sizes", type=int, nargs="*", default=[100_000, 1_000_000])
    ap.add_argument("--step-sizes", type=int, nargs="*", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--searches", nargs="+", default=["exact", "histogram"])
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--modes", nargs="+", default=["engine", "page"])
    ap.add_argument("--no-breakdown", action="store_true")
    ap.add_argument("--folder", default=None, help="where the CSV files are written (default: a temp dir)")
    ap.add_argument("--rows", type=int, default=None,
                    help="instead: the app in Chromium on an upload of ROWS x 10 (benchmarks/app_browser.py)")
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.rows:
        import app_browser

        app_browser.report(app_browser.run(args.rows, steps=max(2, min(args.steps, 5))))
        return
    if args.child:
        kind, *rest = args.child
        if kind == "load":
            result = child_load(rest[0], Path(rest[1]))
        elif kind == "steps":
            result = child_steps(Path(rest[0]), rest[1], int(rest[2]))
        else:
            result = child_breakdown(int(rest[0]), rest[1], int(rest[2]))
        print(json.dumps(result))
        return

    folder = Path(args.folder or tempfile.mkdtemp(prefix="bench_app_"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"machine: {os.cpu_count()} cores; numpy {np.__version__}; pandas {pd.__version__}; files in {folder}")
    if args.load_sizes:
        print("\nLoad (N rows x 20 numeric + target; peak = high-water mark over the RSS before loading)")
        print("(page: then the Grow page and one Step, peaks over the same baseline, as a multiple of the file)")
        print(f"{'rows':>9s} {'file MB':>8s} {'mode':>7s} {'load s':>7s} {'peak MB':>8s} {'x file':>7s} "
              f"{'after MB':>9s} {'Grow x':>7s} {'Step x':>7s} {'after x':>8s}")
        for n in args.load_sizes:
            path = write_csv(n, folder)
            for mode in args.modes:
                r = run_child("load", mode, str(path))
                grow = "".join(f" {r[k] / r['file_mb']:{w}.2f}" if k in r else f" {'-':>{w}s}"
                               for k, w in (("grow_peak_mb", 7), ("step_peak_mb", 7), ("step_after_mb", 8)))
                print(f"{n:9,d} {r['file_mb']:8.0f} {mode:>7s} {r['load_s']:7.2f} {r['peak_mb']:8.0f} "
                      f"{r['peak_mb'] / r['file_mb']:7.2f} {r['after_mb']:9.0f}{grow}", flush=True)
    if args.step_sizes:
        print(f"\nStep latency (AppTest run per Step, {args.steps} Steps; 75% of the rows train the tree)")
        print("(s = wall time of the AppTest run; cpu = the process's CPU time in it, which another job on the "
              "machine does not inflate)")
        print(f"{'rows':>9s} {'search':>10s} {'used':>10s} {'first s':>8s} {'median s':>9s} {'max s':>7s} "
              f"{'cpu s':>6s} {'rerun s':>8s}")
        for n in args.step_sizes:
            path = write_csv(n, folder)
            for search in args.searches:
                r = run_child("steps", str(path), search, str(args.steps))
                later = r["times"][1:] or r["times"]
                cpu = statistics.median(r["cpu"][1:] or r["cpu"])
                print(f"{n:9,d} {search:>10s} {r['search']:>10s} {r['times'][0]:8.3f} "
                      f"{statistics.median(later):9.3f} {max(later):7.3f} {cpu:6.3f} {r['rerun_s']:8.3f}", flush=True)
    if args.step_sizes and not args.no_breakdown:
        print("\nWhere a Step goes (direct calls, median seconds over the Steps; first Step in brackets)")
        keys = ("step", "diagram", "regions", "gain_table", "scan")
        print(f"{'rows':>9s} {'search':>10s} " + " ".join(f"{k:>17s}" for k in keys))
        for n in args.step_sizes:
            for search in args.searches:
                r = run_child("breakdown", str(n), search, str(args.steps))
                cells = [f"{statistics.median(r[k][1:] or r[k]):8.3f} ({r[k][0]:6.3f})" for k in keys]
                print(f"{n:9,d} {search:>10s} " + " ".join(cells), flush=True)


if __name__ == "__main__":
    main()
