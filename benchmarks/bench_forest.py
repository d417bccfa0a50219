"""Time our random forest against scikit-learn's RandomForestClassifier(n_jobs=1) in the same run.

    python benchmarks/bench_forest.py                        # 10k and 100k rows x 20 features, 100 trees
    python benchmarks/bench_forest.py --sizes 20000 --trees 30

Both grow fully grown trees on bootstrap samples with sqrt(d) features per split. Ratio = our time /
scikit-learn's (below 1.0: we are faster). Fit and predict are timed separately; accuracy is on a
held-out quarter and the out-of-bag estimate is reported for both. Data: the same synthetic
3-class problem as ``bench_fit.py``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_fit import make_data  # noqa: E402

from engine.ensembles import fit_random_forest  # noqa: E402


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def run(n: int, trees: int, seed: int) -> dict:
    from sklearn.ensemble import RandomForestClassifier

    ds = make_data(n, seed=seed)
    split = ds.split(test_size=0.25, seed=seed)
    train, test = split.train, split.test
    Xtr, ytr, Xte, yte = train.X, train.y, test.X, test.y

    ours_fit, forest = timed(lambda: fit_random_forest(train, n_estimators=trees, random_state=seed))
    ours_pred, pred = timed(lambda: forest.predict_codes(test))
    sk = RandomForestClassifier(n_estimators=trees, max_features="sqrt", n_jobs=1, oob_score=True,
                                random_state=seed)
    sk_fit, _ = timed(lambda: sk.fit(Xtr, ytr))
    sk_pred, sk_out = timed(lambda: sk.predict(Xte))
    return {"n": n, "trees": trees, "ours_fit": ours_fit, "sk_fit": sk_fit, "ours_pred": ours_pred,
            "sk_pred": sk_pred, "ours_acc": float(np.mean(pred == yte)), "sk_acc": float(np.mean(sk_out == yte)),
            "ours_oob": forest.oob_score(), "sk_oob": float(sk.oob_score_),
            "leaves": float(np.mean([m.tree.n_leaves for m in forest.members]))}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000], help="rows (before the split)")
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    print(f"{'rows':>8} {'trees':>5} | {'fit ours':>9} {'fit sk':>8} {'ratio':>6} | {'pred ours':>9} "
          f"{'pred sk':>8} {'ratio':>6} | {'acc ours':>8} {'acc sk':>7} | {'oob ours':>8} {'oob sk':>7} | leaves")
    for n in args.sizes:
        r = run(n, args.trees, args.seed)
        print(f"{r['n']:>8} {r['trees']:>5} | {r['ours_fit']:>8.1f}s {r['sk_fit']:>7.1f}s "
              f"{r['ours_fit'] / r['sk_fit']:>6.2f} | {r['ours_pred']:>8.2f}s {r['sk_pred']:>7.2f}s "
              f"{r['ours_pred'] / r['sk_pred']:>6.2f} | {r['ours_acc']:>8.3f} {r['sk_acc']:>7.3f} | "
              f"{r['ours_oob']:>8.3f} {r['sk_oob']:>7.3f} | {r['leaves']:.0f}", flush=True)


if __name__ == "__main__":
    main()
