"""Time engine.fit_tree against scikit-learn's trees in the same run and print the ratios.

    python benchmarks/bench_fit.py              # 10k and 100k rows x 20 numeric features
    python benchmarks/bench_fit.py --sizes 300000 --depths 8 --search histogram
    python benchmarks/bench_fit.py --sizes 200000 --depths none 8 --search compare   # exact vs histogram vs auto
    python benchmarks/bench_fit.py --c45-vs-j48 --repeat 1   # C4.5 grow + prune against Weka's J48 (bench_c45.py)

Ratio = our time / scikit-learn's time (below 1.0: we are faster). Each cell is the best of
``--repeat`` runs, which damps the noise of a shared machine. Accuracy is on the training data.
``--search compare`` times our three split searches on the same data instead (no scikit-learn) and prints
histogram / exact and auto / (the better of the two), with what "auto" chose.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402


def make_data(n: int, d: int = 20, n_classes: int = 3, seed: int = 0, regression: bool = False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).round(4)
    signal = X[:, 0] + X[:, 1] * X[:, 2] - np.abs(X[:, 3]) + 0.5 * np.sin(3 * X[:, 4])
    noise = rng.normal(scale=0.7, size=n)
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(d)])
    if regression:
        frame["y"] = signal + noise
    else:
        cuts = np.quantile(signal + noise, np.linspace(0, 1, n_classes + 1)[1:-1])
        frame["y"] = np.array([f"c{i}" for i in range(n_classes)])[np.searchsorted(cuts, signal + noise)]
    return engine.Dataset.from_frame(frame, target="y", task="regression" if regression else "classification")


def best_time(fn, repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--depths", nargs="+", default=["none", "8"])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--search", default="exact", choices=["exact", "histogram", "auto", "compare"])
    ap.add_argument("--regression", action="store_true")
    ap.add_argument("--c45-vs-j48", action="store_true",
                    help="C4.5 preset (grow + pessimistic pruning) against Weka's J48 (benchmarks/bench_c45.py)")
    args = ap.parse_args(argv)
    if args.c45_vs_j48:
        from benchmarks.bench_c45 import run
        return run(args.repeat)
    if args.search == "compare":
        return compare_searches(args)
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    print(f"machine: {os.cpu_count()} cores; numpy {np.__version__}; split_search={args.search}")
    print(f"{'task':14s} {'rows':>8s} {'depth':>5s} {'ours s':>8s} {'sklearn s':>9s} {'ratio':>6s} "
          f"{'leaves':>13s} {'train acc/R2':>16s}")
    for n in args.sizes:
        ds = make_data(n, regression=args.regression)
        X, y = ds.X, ds.y
        for depth_text in args.depths:
            depth = None if depth_text == "none" else int(depth_text)
            cfg = engine.TreeConfig(max_depth=depth, split_search=args.search)
            ours, tree = best_time(lambda: engine.fit_tree(ds, cfg), args.repeat)
            Sk = DecisionTreeRegressor if args.regression else DecisionTreeClassifier
            theirs, sk = best_time(lambda: Sk(max_depth=depth, random_state=0).fit(X, y), args.repeat)
            if args.regression:
                q1 = 1 - np.mean((tree.predict(X) - y) ** 2) / np.var(y)
                q2 = sk.score(X, y)
            else:
                q1 = float((tree.predict_codes(X) == y).mean())
                q2 = float((sk.predict(X) == y).mean())
            task = "regression" if args.regression else "classification"
            print(f"{task:14s} {n:8d} {depth_text:>5s} {ours:8.2f} {theirs:9.2f} {ours / theirs:6.2f} "
                  f"{tree.n_leaves:6d}/{sk.get_n_leaves():<6d} {q1:7.4f}/{q2:<7.4f}", flush=True)


def compare_searches(args) -> None:
    """Exact, histogram and auto split search on the same data, best of ``--repeat`` each."""
    print(f"machine: {os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} (1 min) at the start")
    print(f"{'rows':>8s} {'depth':>5s} {'exact s':>8s} {'hist s':>8s} {'auto s':>8s} {'hist/exact':>10s} "
          f"{'auto/best':>9s} {'auto chose':>10s} {'leaves exact/hist':>17s}")
    for n in args.sizes:
        ds = make_data(n, regression=args.regression)
        for depth_text in args.depths:
            depth = None if depth_text == "none" else int(depth_text)
            t, trees = {}, {}
            for search in ("exact", "histogram", "auto"):
                cfg = engine.TreeConfig(max_depth=depth, split_search=search)
                t[search], trees[search] = best_time(lambda: engine.fit_tree(ds, cfg), args.repeat)
            chose = engine.TreeConfig(max_depth=depth, split_search="auto").resolved(ds.task, len(ds)).split_search
            print(f"{n:8d} {depth_text:>5s} {t['exact']:8.2f} {t['histogram']:8.2f} {t['auto']:8.2f} "
                  f"{t['histogram'] / t['exact']:10.2f} {t['auto'] / min(t['exact'], t['histogram']):9.2f} "
                  f"{chose:>10s} {trees['exact'].n_leaves:8d}/{trees['histogram'].n_leaves:<8d}", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f} (1 min) at the end")


if __name__ == "__main__":
    main()
