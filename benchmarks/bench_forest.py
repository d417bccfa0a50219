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

Memory (issue 41): ``--memory`` fits each model in a fresh process capped at 6 GB of address space
(``prlimit``), ours (random forest, bagging) and scikit-learn's (``RandomForestClassifier``,
``BaggingClassifier(DecisionTreeClassifier())``), ``n_jobs=-1``, on ``--sizes`` rows x 20 of the 2-class
problem, and prints the peak increase over the baseline after the data is loaded: "self" from
``resource.getrusage`` (this process: scikit-learn's threads, our main process), "with workers" the
process plus its worker processes sampled every 5 ms (our members grow in joblib worker processes, started
before the baseline as a server's are; scikit-learn's bagging also grows in joblib's processes, warmed the same
way), and "kept" the resident memory the fitted model holds afterwards:

    python benchmarks/bench_forest.py --memory --sizes 100000 --trees 50
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


MEMORY_CHILD = r'''
import gc, json, os, resource, sys, threading, time
sys.path[:0] = [{root!r}, {bench!r}]
os.environ["DTX_MEMORY_BUDGET_MB"] = "100000"
import numpy as np, psutil
from bench_fit import make_data
who, n, trees = {who!r}, {n!r}, {trees!r}
ds = make_data(n, n_classes=2, seed=0)
X, y = ds.X, np.asarray(ds.y)
if who.startswith("ours"):
    from engine.ensembles import fit_bagging, fit_random_forest
    from engine.grow.parallel import run_tasks
    run_tasks(abs, [(i,) for i in range(4)], n_jobs=-1)          # the server's warm worker processes
    fit = {{"ours_forest": lambda: fit_random_forest(ds, n_estimators=trees, n_jobs=-1),
           "ours_bagging": lambda: fit_bagging(ds, n_estimators=trees, n_jobs=-1)}}[who]
    predict = lambda model: model.predict_codes(ds, n_jobs=-1)
else:
    from sklearn.ensemble import BaggingClassifier, RandomForestClassifier
    from sklearn.tree import DecisionTreeClassifier
    from joblib import Parallel, delayed
    Parallel(n_jobs=-1)(delayed(abs)(i) for i in range(4))   # warm workers (BaggingClassifier uses processes)
    fit = {{"sk_forest": lambda: RandomForestClassifier(n_estimators=trees, max_features="sqrt", n_jobs=-1,
                                                       oob_score=True, random_state=0).fit(X, y),
           "sk_bagging": lambda: BaggingClassifier(DecisionTreeClassifier(), n_estimators=trees, n_jobs=-1,
                                                   oob_score=True, random_state=0).fit(X, y)}}[who]
    predict = lambda model: model.predict(X)
me = psutil.Process()
def rss():
    total = 0
    for p in [me] + me.children(recursive=True):
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total
gc.collect(); time.sleep(0.2)
base, own = rss(), me.memory_info().rss
peak, stop = [base], threading.Event()
def sample():
    while not stop.is_set():
        peak[0] = max(peak[0], rss()); time.sleep(0.005)
t = threading.Thread(target=sample, daemon=True); t.start()
t0 = time.perf_counter(); model = fit(); seconds = time.perf_counter() - t0
stop.set(); t.join(); peak[0] = max(peak[0], rss()); gc.collect()
self_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - own
kept = me.memory_info().rss - own
t0 = time.perf_counter(); predict(model); predicted = time.perf_counter() - t0
print(json.dumps({{"self": self_peak, "workers": peak[0] - base, "kept": kept, "fit": seconds, "predict": predicted}}))
'''


def memory(n: int, trees: int, who: str) -> dict:
    """One fit in a fresh process capped at 6 GB (see the module docstring): bytes and seconds."""
    import json
    import subprocess

    here = Path(__file__).resolve().parent
    code = MEMORY_CHILD.format(root=str(here.parent), bench=str(here), who=who, n=n, trees=trees)
    out = subprocess.run(["prlimit", "--as=6000000000", sys.executable, "-c", code], capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main_memory(sizes, trees: int) -> None:
    print(f"machine: {cpu_count()} cores; load average {os.getloadavg()[0]:.1f} (1 min) at the start")
    print("| model | rows | trees | self MB | with workers MB | kept MB | fit s | predict s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for n in sizes:
        for kind, count in (("forest", trees), ("bagging", max(1, trees // 2))):
            for who in (f"ours_{kind}", f"sk_{kind}"):
                r = memory(n, count, who)
                print(f"| {who} | {n:,} | {count} | {r['self'] / 2**20:,.0f} | {r['workers'] / 2**20:,.0f} | "
                      f"{r['kept'] / 2**20:,.0f} | {r['fit']:.1f} | {r['predict']:.2f} |", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f} (1 min) at the end")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000], help="rows (before the split)")
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=1, help="fits: best of this many runs per cell")
    ap.add_argument("--predict-repeat", type=int, default=5, help="predictions: best of this many rounds")
    ap.add_argument("--memory", action="store_true", help="peak memory of ours and scikit-learn's forest and "
                    "bagging (trees // 2 members), each in a fresh process")
    args = ap.parse_args(argv)
    if args.memory:
        main_memory(args.sizes, args.trees)
        return
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
