"""Page run times with many features (issue 40, finding 7): a model of N features, a data set of 1,000 columns.

    python benchmarks/bench_many_features.py              # N = 10,000 (about half a minute)
    python benchmarks/bench_many_features.py --features 300 1000 10000

Through AppTest of the whole app (as ``bench_app``: the page scripts' bytecode cached as the server caches
it): open the hand-made XGBoost JSON of ``tests/app/model/test_model_many_features.py`` (one tree testing
two of N features) on the Data page, then run each page twice and print the wall time of the first visit
and of a rerun, with the process's CPU time (on a shared machine it is what a quiet one would show), and
the widgets drawn. Then a 1,000-column CSV (``tests/app/grow/test_grow_many_columns.py``): Grow, grow the
tree, open the Query point tab. Before the tables (one number box per feature) Rules took 520 s at
N = 10,000 in AppTest and did not finish at 100,000.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_app import _app  # noqa: E402

PAGES = [("Rules", "pages/rules.py", None), ("Ensembles: one row", "pages/ensembles.py", "One row"),
         ("Ensembles: regions", "pages/ensembles.py", "Decision regions"), ("Grow", "pages/grow.py", None),
         ("Evaluate", "pages/evaluate.py", None), ("Data", "pages/data.py", None)]


def timed(at) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    at.run()
    problems = [e.value for e in at.exception] + [e.value for e in at.error]
    if problems:
        raise SystemExit(f"the page failed: {problems[:2]}")
    return time.perf_counter() - wall, time.process_time() - cpu


def widgets(at) -> str:
    return f"{len(at.number_input)} number boxes, {len(at.data_editor)} tables"


def model_pages(n: int) -> None:
    from tests.app.model.test_model_many_features import wide_xgb
    from ui.model.breakdown import W_TAB
    from ui.model.opening import W_MODEL_UPLOAD

    at = _app()
    at.file_uploader(key=W_MODEL_UPLOAD).set_value(("wide.json", wide_xgb(n), "application/json"))
    wall, cpu = timed(at)
    print(f"\n{n:,} features: open the model {wall:.2f} s (cpu {cpu:.2f} s)")
    for label, page, tab in PAGES:
        at.switch_page(page)
        if tab:
            at.session_state[W_TAB] = tab
        first = timed(at)
        again = timed(at)
        print(f"  {label:20s} first {first[0]:6.2f} s (cpu {first[1]:6.2f})  rerun {again[0]:6.2f} s "
              f"(cpu {again[1]:6.2f})  {widgets(at)}")


def grow_query(columns: int) -> None:
    from tests.app.grow.test_grow_many_columns import wide_csv
    from ui.data import panels

    at = _app()
    at.file_uploader(key=panels.W_UPLOAD).set_value(("wide.csv", wide_csv(columns - 3), "text/csv"))
    timed(at)
    at.switch_page("pages/grow.py")
    timed(at)
    at.button(key="_w_grow_grow").click()
    timed(at)
    at.session_state["_w_grow_tab"] = "Query point"
    first = timed(at)
    again = timed(at)
    print(f"\n{columns:,} columns: Grow's query point tab first {first[0]:.2f} s (cpu {first[1]:.2f}), rerun "
          f"{again[0]:.2f} s (cpu {again[1]:.2f})  {widgets(at)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--features", type=int, nargs="+", default=[10_000])
    parser.add_argument("--columns", type=int, default=1000, help="columns of the CSV for Grow's query point")
    args = parser.parse_args()
    os.environ.setdefault("DTX_MEMORY_BUDGET_MB", "100000")
    for n in args.features:
        model_pages(n)
    grow_query(args.columns)


if __name__ == "__main__":
    main()
