"""Time our random forest against scikit-learn's RandomForestClassifier in the same run, one core and all.

    python benchmarks/bench_forest.py                        # 10k and 100k rows x 20 features, 100 trees
    python benchmarks/bench_forest.py --sizes 100000 --trees 24 --repeat 2

Both grow fully grown trees on bootstrap samples with sqrt(d) features per split, first with
``n_jobs=1`` (one core each), then with ``n_jobs=-1`` (every core each: our members in joblib worker
processes, scikit-learn's in threads; both predict in threads). Ratio = our time / scikit-learn's at the same ``n_jobs`` (below
1.0: we are faster). Fit and predict are timed separately: the fit best of ``--repeat``, the prediction
best of ``--predict-repeat`` rounds, ours and scikit-learn's taking turns in each round so both meet the same
load; "ratio" compares the two best times, "med" is the median of the rounds' own ratios (each round's two
calls met about the same load), "cpu" the ratio of the best CPU times (all threads of this process), which
varies less than the wall time when other programs share the cores. Accuracy is on a
held-out quarter and the out-of-bag estimate is reported for both; "same" says whether our two forests
(one core, all cores) are identical. The load average before and after is printed: on a shared
machine, read the ratios, not the seconds. Data: the synthetic 3-class problem of ``bench_fit.py``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("DTX_MEMORY_BUDGET_MB", "100000")  # timing the engine at size, not the app's per-job memory budget
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_fit import make_data  # noqa: E402

from engine.ensembles import fit_random_forest  # noqa: E402
from engine.grow.parallel import cpu_count  # noqa: E402


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def best(fn, repeat: int):
    t_best, out = float("inf"), None
    for _ in range(repeat):
        t, out = timed(fn)
        t_best = min(t_best, t)
    return t_best, out


def timed_cpu(fn) -> tuple[float, float]:
    """(wall, CPU of every thread of this process) seconds of one call."""
    t, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - t, time.process_time() - c


def run(n: int, trees: int, seed: int, n_jobs: int, repeat: int, predict_repeat: int) -> dict:
    from sklearn.ensemble import RandomForestClassifier

    ds = make_data(n, seed=seed)
    split = ds.split(test_size=0.25, seed=seed)
    train, test = split.train, split.test
    Xtr, ytr, Xte, yte = train.X, train.y, test.X, test.y

    ours_fit, forest = best(lambda: fit_random_forest(train, n_estimators=trees, random_state=seed, n_jobs=n_jobs),
                            repeat)
    sk = RandomForestClassifier(n_estimators=trees, max_features="sqrt", n_jobs=n_jobs, oob_score=True,
                                random_state=seed)
    sk_fit, _ = best(lambda: sk.fit(Xtr, ytr), repeat)
    pred, sk_out = forest.predict_codes(test, n_jobs=n_jobs), sk.predict(Xte)     # warm-up, and the outputs
    ours, theirs = [], []
    for _ in range(predict_repeat):                  # in turns: both meet the same load
        ours.append(timed_cpu(lambda: forest.predict_codes(test, n_jobs=n_jobs)))
        theirs.append(timed_cpu(lambda: sk.predict(Xte)))
    (ours_pred, ours_cpu), (sk_pred, sk_cpu) = np.min(ours, axis=0), np.min(theirs, axis=0)
    med = float(np.median(np.array(ours)[:, 0] / np.array(theirs)[:, 0]))
    return {"n": n, "trees": trees, "n_jobs": n_jobs, "ours_fit": ours_fit, "sk_fit": sk_fit,
            "ours_pred": ours_pred, "sk_pred": sk_pred, "ours_cpu": ours_cpu, "sk_cpu": sk_cpu, "med": med,
            "ours_acc": float(np.mean(pred == yte)),
            "sk_acc": float(np.mean(sk_out == yte)), "ours_oob": forest.oob_score(), "sk_oob": float(sk.oob_score_),
            "leaves": float(np.mean([m.tree.n_leaves for m in forest.members])), "forest": forest}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000], help="rows (before the split)")
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=1, help="fits: best of this many runs per cell")
    ap.add_argument("--predict-repeat", type=int, default=5, help="predictions: best of this many rounds")
    args = ap.parse_args(argv)
    print(f"machine: {cpu_count()} cores; load average {os.getloadavg()[0]:.1f} (1 min) at the start")
    print(f"{'rows':>8} {'trees':>5} {'jobs':>4} | {'fit ours':>9} {'fit sk':>8} {'ratio':>6} | {'pred ours':>9} "
          f"{'pred sk':>8} {'ratio':>6} {'med':>5} {'cpu':>5} | {'acc ours':>8} {'acc sk':>7} | {'oob ours':>8} {'oob sk':>7} | leaves | same")
    for n in args.sizes:
        first = None
        for n_jobs in (1, -1):
            r = run(n, args.trees, args.seed, n_jobs, args.repeat, args.predict_repeat)
            same = ""
            if first is None:
                first = r["forest"]
            else:
                same = "yes" if np.array_equal(first.train_outputs, r["forest"].train_outputs) and all(
                    a.tree.fingerprint == b.tree.fingerprint for a, b in zip(first.members, r["forest"].members)) else "NO"
            print(f"{r['n']:>8} {r['trees']:>5} {n_jobs:>4} | {r['ours_fit']:>8.2f}s {r['sk_fit']:>7.2f}s "
                  f"{r['ours_fit'] / r['sk_fit']:>6.2f} | {r['ours_pred']:>8.3f}s {r['sk_pred']:>7.3f}s "
                  f"{r['ours_pred'] / r['sk_pred']:>6.2f} {r['med']:>5.2f} {r['ours_cpu'] / r['sk_cpu']:>5.2f} | "
                  f"{r['ours_acc']:>8.3f} {r['sk_acc']:>7.3f} | "
                  f"{r['ours_oob']:>8.3f} {r['sk_oob']:>7.3f} | {r['leaves']:>6.0f} | {same}", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f} (1 min) at the end")


if __name__ == "__main__":
    main()
