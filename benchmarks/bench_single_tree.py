"""One tree, one core and all: our histogram and exact trees against LightGBM, XGBoost and scikit-learn.

    python benchmarks/bench_single_tree.py                      # both parts below, best of 2
    python benchmarks/bench_single_tree.py --part histogram --hist-rows 1000000 --repeat 3
    python benchmarks/bench_single_tree.py --part exact --exact-rows 100000

Histogram part (1M x 20, depth 8, 3 classes; the data of ``bench_fit.py``): ours with
``split_search="histogram"``; LightGBM one round (``num_leaves=256, max_depth=8, min_child_samples=1``),
XGBoost one round (``tree_method="hist", max_depth=8``) and scikit-learn's HistGradientBoosting one
iteration (``max_depth=8, max_leaf_nodes=256``). The boosters grow one tree per class in a round (3 here),
so their round does three times our tree's scans: a round is what the issue's targets compare with.

Exact part (100k x 20, full depth and depth 8): ours with ``split_search="exact"`` against scikit-learn's
DecisionTreeClassifier (one core: it has no ``n_jobs``).

COLD = from the pandas table, nothing cached: our ``Dataset.from_frame`` and binning (or presort), the
peers' conversion to a numpy matrix and their own binning. WARM = the same data again: our Dataset,
its encoded matrix and bins kept; LightGBM's constructed ``lgb.Dataset`` kept; XGBoost's ``QuantileDMatrix``
kept; scikit-learn has no cache (its warm is the same fit). Each cell is the best (and median) of
``--repeat`` runs; accuracy is on the training rows. Threads: 1 and all cores (``n_jobs``/``nthread``;
scikit-learn's OpenMP through threadpoolctl). The load average is printed with every row: other
programs share the machine, read the ratios.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("DTX_MEMORY_BUDGET_MB", "100000")  # timing the engine at size, not the app's memory budget
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_fit import make_data  # noqa: E402

import engine  # noqa: E402
from engine.grow.parallel import cpu_count  # noqa: E402


def runs(fn, repeat: int):
    """(best seconds, median seconds, last result) of ``repeat`` calls."""
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), statistics.median(times), out


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def _features(frame):
    return frame.drop(columns="y").to_numpy(dtype=np.float64)


def ours(frame, cfg, n_jobs):
    """Cold and warm fits of our tree: (cold fn, warm fn, accuracy fn)."""
    kept = engine.Dataset.from_frame(frame, target="y", task="classification")
    engine.fit_tree(kept, cfg, n_jobs=n_jobs)                 # fills the kept Dataset's caches

    def cold():
        return engine.fit_tree(engine.Dataset.from_frame(frame, target="y", task="classification"), cfg,
                               n_jobs=n_jobs)
    return cold, lambda: engine.fit_tree(kept, cfg, n_jobs=n_jobs), \
        lambda tree: float((tree.predict_codes(kept.X) == kept.y).mean())


def lightgbm(frame, y, depth, n_jobs):
    import lightgbm as lgb

    params = {"objective": "multiclass", "num_class": int(y.max()) + 1, "num_leaves": 2 ** depth, "max_depth": depth,
              "min_child_samples": 1, "num_threads": n_jobs if n_jobs > 0 else cpu_count(), "verbose": -1}
    binning = {"verbose": -1, "min_data_in_leaf": 1, "feature_pre_filter": False}
    kept = lgb.Dataset(_features(frame), y, free_raw_data=False, params=binning)
    kept.construct()

    def cold():
        return lgb.train(params, lgb.Dataset(_features(frame), y, params=binning), num_boost_round=1)
    return cold, lambda: lgb.train(params, kept, num_boost_round=1), \
        lambda b: float((b.predict(_features(frame)).argmax(axis=1) == y).mean())


def xgboost(frame, y, depth, n_jobs):
    import xgboost as xgb

    params = {"objective": "multi:softprob", "num_class": int(y.max()) + 1, "tree_method": "hist",
              "max_depth": depth, "nthread": n_jobs if n_jobs > 0 else cpu_count(), "verbosity": 0}
    kept = xgb.QuantileDMatrix(_features(frame), y, nthread=params["nthread"])

    def cold():
        return xgb.train(params, xgb.QuantileDMatrix(_features(frame), y, nthread=params["nthread"]), 1)
    return cold, lambda: xgb.train(params, kept, 1), \
        lambda b: float((b.predict(xgb.DMatrix(_features(frame))).argmax(axis=1) == y).mean())


def sklearn_hist(frame, y, depth, n_jobs):
    from sklearn.ensemble import HistGradientBoostingClassifier
    from threadpoolctl import threadpool_limits

    def fit():
        with threadpool_limits(limits=n_jobs if n_jobs > 0 else cpu_count(), user_api="openmp"):
            return HistGradientBoostingClassifier(max_iter=1, max_depth=depth, max_leaf_nodes=2 ** depth,
                                                  min_samples_leaf=1, early_stopping=False).fit(_features(frame), y)
    return fit, fit, lambda m: float((m.predict(_features(frame)) == y).mean())


def sklearn_tree(frame, y, depth, n_jobs):
    from sklearn.tree import DecisionTreeClassifier

    def fit():
        return DecisionTreeClassifier(max_depth=depth, random_state=0).fit(_features(frame), y)
    return fit, fit, lambda m: float((m.predict(_features(frame)) == y).mean())


def table(title, frame, y, learners, depth, repeat) -> dict:
    """Time every learner cold and warm with 1 and all threads; print a row each; return the best times."""
    print(f"\n{title}  ({len(frame):,} rows x {frame.shape[1] - 1}, depth {depth or 'full'}; {cpu_count()} cores)")
    print(f"{'learner':34s} {'threads':>7s} {'cold best':>9s} {'median':>7s} {'warm best':>9s} {'median':>7s} "
          f"{'train acc':>9s}  load")
    out = {}
    for name, make in learners:
        for n_jobs in (1, -1):
            cold, warm, acc = make(frame, y, depth, n_jobs)
            cb, cm, _ = runs(cold, repeat)
            wb, wm, model = runs(warm, repeat)
            out[name, n_jobs] = (cb, wb)
            print(f"{name:34s} {'1' if n_jobs == 1 else 'all':>7s} {cb:9.2f} {cm:7.2f} {wb:9.2f} {wm:7.2f} "
                  f"{acc(model):9.4f}  {load()}", flush=True)
    return out


def ratios(out: dict, pairs) -> None:
    for label, a, b in pairs:
        print(f"  {label:58s} cold {out[a][0] / out[b][0]:5.2f}x   warm {out[a][1] / out[b][1]:5.2f}x")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=["histogram", "exact", "both"], default="both")
    ap.add_argument("--hist-rows", type=int, default=1_000_000)
    ap.add_argument("--exact-rows", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--peers", nargs="+", default=["lightgbm", "xgboost", "sklearn"])
    args = ap.parse_args(argv)
    print(f"numpy {np.__version__}; {load()} at the start")
    if args.part in ("histogram", "both"):
        ds = make_data(args.hist_rows)
        frame, y = ds.frame, ds.y
        cfg = engine.TreeConfig(max_depth=8, split_search="histogram")
        learners = [("ours histogram", lambda f, y_, d, j: ours(f, cfg, j))]
        learners += [(n, fn) for key, n, fn in (("lightgbm", "LightGBM 1 round (3 trees)", lightgbm),
                                                ("xgboost", "XGBoost hist 1 round (3 trees)", xgboost),
                                                ("sklearn", "sklearn HistGradientBoosting 1 it.", sklearn_hist))
                     if key in args.peers]
        out = table("Histogram tree", frame, y, learners, 8, args.repeat)
        kept = engine.Dataset.from_frame(frame, target="y", task="classification")
        exact = engine.fit_tree(kept, engine.TreeConfig(max_depth=8, split_search="exact"))
        print(f"accuracy reference: our exact depth-8 tree on the same rows, train acc "
              f"{float((exact.predict_codes(kept.X) == kept.y).mean()):.4f}")
        pairs = [(f"ours / {n} ({'1 thread' if j == 1 else 'all threads'})", ("ours histogram", j), (n, j))
                 for n, _ in learners[1:] for j in (1, -1)]
        print("ratios (ours / theirs; target: cold, all threads, at most 0.5x LightGBM):")
        ratios(out, pairs)
    if args.part in ("exact", "both"):
        ds = make_data(args.exact_rows)
        frame, y = ds.frame, ds.y
        for depth in (None, 8):
            cfg = engine.TreeConfig(max_depth=depth, split_search="exact")
            learners = [("ours exact", lambda f, y_, d, j, c=cfg: ours(f, c, j)),
                        ("sklearn DecisionTree", sklearn_tree)]
            out = table("Exact CART", frame, y, learners, depth, args.repeat)
            print("ratios (ours / scikit-learn's one core; target at full depth: at most 0.3x):")
            ratios(out, [(f"ours ({'1 thread' if j == 1 else 'all threads'}) / sklearn", ("ours exact", j),
                          ("sklearn DecisionTree", 1)) for j in (1, -1)])
    print(f"{load()} at the end")


if __name__ == "__main__":
    main()
