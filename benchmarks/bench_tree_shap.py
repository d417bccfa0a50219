"""Time engine.tree_shap (numpy TreeSHAP) beside XGBoost's own C++ pred_contribs, rows x trees.

Run by hand (never in the test suite): ``python benchmarks/bench_tree_shap.py [--quick]``. Prints one line per
case: rows, trees, depth, the engine's seconds, XGBoost's seconds (all cores) and the largest difference.
A forest of fully grown engine trees is timed too (deep paths: the engine's worst case).
"""

from __future__ import annotations

import sys
import time

import numpy as np

import engine


def xgboost_case(n_rows: int, n_trees: int, depth: int, n_features: int = 20):
    import xgboost as xgb
    rng = np.random.default_rng(0)
    X = rng.normal(size=(max(n_rows, 2000), n_features))
    y = X[:, 0] * 2 + np.sin(X[:, 1] * 3) + X[:, 2] * X[:, 3] + rng.normal(scale=.3, size=len(X))
    model = xgb.XGBRegressor(n_estimators=n_trees, max_depth=depth).fit(X, y)
    raw = bytes(model.get_booster().save_raw("json"))
    ours = engine.load_model(raw)
    booster = xgb.Booster()
    booster.load_model(bytearray(raw))
    rows = X[:n_rows]
    t = time.perf_counter()
    phi = engine.tree_shap(ours, rows)
    mine = time.perf_counter() - t
    t = time.perf_counter()
    want = booster.predict(xgb.DMatrix(rows), pred_contribs=True)
    theirs = time.perf_counter() - t
    print(f"xgboost  rows={n_rows:>6,} trees={n_trees:>4} depth={depth}  engine {mine:7.2f} s   "
          f"xgboost {theirs:6.3f} s   max diff {np.abs(phi - want).max():.1e}", flush=True)


def forest_case(sample: str, n_trees: int, n_rows: int):
    from engine.ensembles import fit_random_forest
    ds = engine.load_sample(sample)
    ens = fit_random_forest(ds, n_estimators=n_trees)
    frame = ds.frame.iloc[np.arange(n_rows) % len(ds)]
    t = time.perf_counter()
    engine.tree_shap(ens, frame)
    mine = time.perf_counter() - t
    depth = max(m.tree.depth for m in ens.members)
    print(f"forest   {sample} rows={n_rows:>6,} trees={n_trees:>4} depth<={depth}  engine {mine:7.2f} s", flush=True)


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    for rows, trees, depth in ([(1000, 100, 6)] if quick else
                               [(1000, 100, 6), (5000, 100, 6), (2000, 500, 6), (2000, 100, 10)]):
        xgboost_case(rows, trees, depth)
    for sample, trees, rows in ([("breast_cancer", 20, 569)] if quick else
                                [("breast_cancer", 100, 569), ("diabetes", 100, 442), ("breast_cancer", 100, 2000)]):
        forest_case(sample, trees, rows)
