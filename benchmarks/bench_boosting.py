"""Time our gradient boosting against scikit-learn's GradientBoosting and HistGradientBoosting in one run.

    python benchmarks/bench_boosting.py                        # 100k x 20, 200 rounds, then 500 rounds
    python benchmarks/bench_boosting.py --rounds 500                       # issue 38: 100k x 20, 500 rounds
    python benchmarks/bench_boosting.py --rows 20000 --rounds 50
    python benchmarks/bench_boosting.py --rounds 500 --models hist hgb   # the long run, histograms only

Regression (squared error) on the synthetic data of ``bench_fit.py``, depth-3 trees, learning rate 0.1, every
row each round. Our exact search is compared with ``GradientBoostingRegressor`` (exact splits too), our
histogram search (``split_search="histogram"``, 255 bins) with ``HistGradientBoostingRegressor`` (255 bins,
depth 3, no leaf-count limit, no early stopping, no L2). Printed: the fit times (wall, and CPU of all this
process's threads, steadier when other programs share the cores), their ratios (ours / theirs: below 1.0 we
are faster), the test error of each and the predictions of five test rows side by side. Our exact model
and ``GradientBoostingRegressor`` predict the training rows alike; on test rows they can differ, and the run
says why, tree by tree (:func:`explain_differences`): where the two trees of a round send a test row to
different leaves, either (1) they split that node on different features that part the training rows alike
(tied gains: scikit-learn breaks ties by its random order of features, the engine takes the first column),
or (2) the same feature, with the row's value exactly at the threshold (scikit-learn compares float32(x)
with midpoints of float32 values, the engine float64 x with float64 midpoints; on these 4-decimal data a
test value can sit exactly halfway between two neighbouring training values), or (3) the trees differ on the
training rows too (a real difference; none measured). A tie can move a row by a whole leaf of a small node.
Measured on 100,000 x 20, 500 rounds: training rows equal to 5e-13, 84 of 25,000 test rows differ, 98
(row, round) partings from ties and 19 from float32 thresholds; the largest, 0.918, is a tie in round 76: a
node of 4 rows parted 1 | 3 alike by f1 <= 0.0928 (ours, the first column) and f2 <= 3.4411 (scikit-learn),
the test row has f1 = -2.4452 and f2 = 3.317, so it reaches leaves of -3.36 and +5.82 (x 0.1). Casting the
data to float32 before both fits (100 rounds) removed the 5 threshold partings and kept the 2 ties and the
0.918. The histogram models bin differently, so they agree only roughly. One run each (the fits are long);
the load average before and after is printed: on a shared machine read the ratios, not the seconds.
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


CAUSES = {"tie": "a node split on another feature, with the same training rows on each side (tied gains)",
          "float32": "the same feature, the row's value at the threshold (float32 rounding in scikit-learn)",
          "trees differ": "trees that differ on the training rows too"}


def parting(tree, sk_tree, x: np.ndarray) -> str | None:
    """Walk one row ``x`` down our tree and scikit-learn's tree of the same round side by side: None if it
    reaches the same place in both, "tie" if the trees split a node on different features, "float32" if they
    split it on the same feature and send the row to different sides (its value is at the threshold)."""
    node, k, x32 = tree.root, 0, x.astype(np.float32)
    while not node.is_leaf and sk_tree.children_left[k] != -1:
        f = node.split.feature_index
        if f != sk_tree.feature[k]:
            return "tie"
        left, sk_left = x[f] <= node.split.threshold, x32[f] <= sk_tree.threshold[k]
        if left != sk_left:
            return "float32"
        node = tree.node(node.children[0 if left else 1])
        k = sk_tree.children_left[k] if sk_left else sk_tree.children_right[k]
    return None


def explain_differences(ours, sk, X: np.ndarray, Xt: np.ndarray, tol: float = 1e-8) -> dict:
    """Where our exact boosting and a fitted ``GradientBoostingRegressor`` (same settings, single output) differ.

    Returns the largest |difference| on the training rows ``X`` and the test rows ``Xt``, how many test rows
    differ by more than ``tol``, ``causes``: for every (differing test row, round) whose two trees give the row
    different values, the cause (:func:`parting`; "trees differ" when that round's trees disagree on a training
    row, whatever the test row met), and ``worst``: the row with the largest difference, the difference and
    the part of it each cause carries (the rate times the two trees' difference, summed by cause)."""
    X, Xt = np.asarray(X, dtype=float), np.asarray(Xt, dtype=float)
    train = float(np.abs(ours.predict(X) - sk.predict(X)).max())
    d = np.abs(ours.predict(Xt) - sk.predict(Xt))
    rows = np.flatnonzero(d > tol)
    causes, worst_row = {c: 0 for c in CAUSES}, int(np.argmax(d)) if d.size else -1
    carried = {c: 0.0 for c in CAUSES}
    if rows.size:
        A, A32 = Xt[rows], Xt[rows].astype(np.float32)
        for m in range(len(ours.members)):
            tree, est = ours.members[m].tree, sk.estimators_[m, 0]
            gap = ours.learning_rate * (tree.predict(A) - est.predict(A32))
            hit = np.flatnonzero(np.abs(gap) > tol)
            if not hit.size:
                continue
            same_train = np.abs(tree.predict(X) - est.predict(X.astype(np.float32))).max() <= tol
            for j in hit:
                cause = parting(tree, est.tree_, A[j]) if same_train else "trees differ"
                cause = cause or "trees differ"
                causes[cause] += 1
                if rows[j] == worst_row:
                    carried[cause] += float(gap[j])
    return {"train_max": train, "test_max": float(d.max()) if d.size else 0.0, "test_rows": int(rows.size),
            "n_test": int(d.size), "causes": causes, "worst": (worst_row, float(d.max()) if d.size else 0.0,
                                                               {c: v for c, v in carried.items() if v})}


def print_differences(found: dict, out=print) -> None:
    out(f"  largest |ours exact - GradientBoosting|: training rows {found['train_max']:.3g}, test rows "
        f"{found['test_max']:.3g} ({found['test_rows']:,} of {found['n_test']:,} test rows differ)")
    if found["test_rows"]:
        out("  where the two trees of a round part for such a row (row, round pairs):")
        for cause, n in found["causes"].items():
            out(f"    {n:6,d}  {CAUSES[cause]}")
        row, diff, carried = found["worst"]
        out(f"  the largest, test row {row} ({diff:.3g}): " + ", ".join(
            f"{abs(v):.3g} from {c}" for c, v in carried.items()))


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
    times, cpus, preds, models = {}, {}, {}, {}
    for name, fit in fits.items():
        t, c, model = timed(fit)
        times[name], cpus[name], models[name] = t, c, model
        preds[name] = model.predict(Xt)
        mse = float(np.mean((preds[name] - yt) ** 2))
        print(f"  {name:30s} {t:8.2f} s wall {c:8.2f} s CPU   test MSE {mse:.4f}", flush=True)
    if {"ours exact", "sklearn GradientBoosting"} <= set(times):
        print(f"  ratio exact     (ours / GradientBoosting):     "
              f"{times['ours exact'] / times['sklearn GradientBoosting']:.2f} wall, "
              f"{cpus['ours exact'] / cpus['sklearn GradientBoosting']:.2f} CPU")
        print_differences(explain_differences(models["ours exact"], models["sklearn GradientBoosting"], X, Xt))
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
