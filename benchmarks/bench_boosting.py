"""Time our gradient boosting against scikit-learn's GradientBoosting and HistGradientBoosting in one run.

    python benchmarks/bench_boosting.py                        # 100k x 20, 200 rounds, then 500 rounds
    python benchmarks/bench_boosting.py --rows 20000 --rounds 50
    python benchmarks/bench_boosting.py --rounds 500 --models hist hgb   # the long run, histograms only

Regression (squared error) on the synthetic data of ``bench_fit.py``, depth-3 trees, learning rate 0.1, every
row each round. Our exact search is compared with ``GradientBoostingRegressor`` (exact splits too), our
histogram search (``split_search="histogram"``, 255 bins) with ``HistGradientBoostingRegressor`` (255 bins,
depth 3, no leaf-count limit, no early stopping, no L2). Printed: the fit times (wall, and CPU of all this
process's threads, steadier when other programs share the cores), their ratios (ours / theirs: below 1.0 we
are faster), the test error of each and the predictions of five test rows side by side. Our
exact model and ``GradientBoostingRegressor`` predict the training rows alike (up to ties between equal
gains); a test row exactly at a threshold can fall the other way, since scikit-learn compares float32 copies
of the values with thresholds made from float32 values (measured 5,000 rows x 20: the training predictions
equal, some test rows of these 4-decimal data off by one leaf). The histogram models bin differently, so they
agree only roughly. One run each (the fits are long); the load
average before and after is printed: on a shared machine read the ratios, not the seconds.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("DTX_MEMORY_BUDGET_MB", "100000")  # timing the engine at size, not the app's per-job budget
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_fit import make_data  # noqa: E402

from engine.config import TreeConfig  # noqa: E402
from engine.ensembles import fit_gradient_boosting  # noqa: E402


def timed(fn):
    """(wall seconds, CPU seconds of every thread of this process, result) of one call."""
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - t, time.process_time() - c, out


NAMES = {"exact": "ours exact", "gb": "sklearn GradientBoosting", "hist": "ours histogram",
         "hgb": "sklearn HistGradientBoosting"}


def run(rows: int, rounds: int, depth: int, rate: float, features: int, models=tuple(NAMES)) -> None:
    from sklearn.ensemble import GradientBoostingRegressor, HistGradientBoostingRegressor
    ds = make_data(rows + rows // 4, d=features, seed=0, regression=True)
    split = ds.split(test_size=0.2, seed=0)
    train, test = split.train, split.test
    X, y, Xt, yt = train.X, train.y, test.X, test.y
    print(f"\n{len(train):,} training rows x {features} features, {rounds} rounds of depth {depth}, rate {rate}; "
          f"load {os.getloadavg()[0]:.2f}", flush=True)
    fits = {
        "ours exact": lambda: fit_gradient_boosting(train, n_estimators=rounds, max_depth=depth, learning_rate=rate),
        "sklearn GradientBoosting": lambda: GradientBoostingRegressor(
            n_estimators=rounds, max_depth=depth, learning_rate=rate, random_state=0).fit(X, y),
        "ours histogram": lambda: fit_gradient_boosting(
            train, n_estimators=rounds, max_depth=depth, learning_rate=rate,
            tree_config=TreeConfig(split_search="histogram", max_bins=255, histogram_above_rows=0)),
        "sklearn HistGradientBoosting": lambda: HistGradientBoostingRegressor(
            max_iter=rounds, max_depth=depth, learning_rate=rate, max_bins=255, max_leaf_nodes=None,
            early_stopping=False, l2_regularization=0.0, min_samples_leaf=1, random_state=0).fit(X, y),
    }
    fits = {name: fit for name, fit in fits.items() if name in {NAMES[m] for m in models}}
    times, cpus, preds = {}, {}, {}
    for name, fit in fits.items():
        t, c, model = timed(fit)
        times[name], cpus[name] = t, c
        preds[name] = model.predict(Xt)
        mse = float(np.mean((preds[name] - yt) ** 2))
        print(f"  {name:30s} {t:8.2f} s wall {c:8.2f} s CPU   test MSE {mse:.4f}", flush=True)
    if {"ours exact", "sklearn GradientBoosting"} <= set(times):
        print(f"  ratio exact     (ours / GradientBoosting):     "
              f"{times['ours exact'] / times['sklearn GradientBoosting']:.2f} wall, "
              f"{cpus['ours exact'] / cpus['sklearn GradientBoosting']:.2f} CPU")
        diff = np.abs(preds["ours exact"] - preds["sklearn GradientBoosting"]).max()
        print(f"  largest |ours exact - GradientBoosting| on the test rows: {diff:.3g}")
    if {"ours histogram", "sklearn HistGradientBoosting"} <= set(times):
        print(f"  ratio histogram (ours / HistGradientBoosting): "
              f"{times['ours histogram'] / times['sklearn HistGradientBoosting']:.2f} wall, "
              f"{cpus['ours histogram'] / cpus['sklearn HistGradientBoosting']:.2f} CPU")
    print("  five test rows:  " + "  ".join(f"{n.split()[-1][:10]:>10s}" for n in preds))
    for i in range(5):
        print("                   " + "  ".join(f"{preds[n][i]:10.4f}" for n in preds))
    print(f"  load after {os.getloadavg()[0]:.2f}", flush=True)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--features", type=int, default=20)
    ap.add_argument("--rounds", type=int, nargs="+", default=[200, 500])
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--rate", type=float, default=0.1)
    ap.add_argument("--models", nargs="+", choices=list(NAMES), default=list(NAMES),
                    help="exact (ours), gb (GradientBoosting), hist (ours, histogram), hgb (HistGradientBoosting)")
    args = ap.parse_args(argv)
    for rounds in args.rounds:
        run(args.rows, rounds, args.depth, args.rate, args.features, args.models)


if __name__ == "__main__":
    main()
