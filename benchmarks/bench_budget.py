"""The memory budget's calibration table: each job's estimate (engine.budget) against its measured peak.

    python benchmarks/bench_budget.py                          # the table of docs/USER_GUIDE.md
    python benchmarks/bench_budget.py --only forest --rows 100000 --classes 2

Every job runs in a fresh Python process (``measure``): the data set is built and the joblib worker
processes are started (idle workers, like the server's imported modules, are its fixed cost, not a
job's), the process's resident memory (its own plus its workers') is read as the baseline, then the job runs
while a thread samples the same sum every 5 ms; "measured" is the larger of that sampled peak and this
process's own exact peak (the kernel's high-water mark ``VmHWM``, reset before the job: sampling alone read a
200-class tree's peak as 97-118 MB in runs of one machine, the exact peak is 121 MB each time) minus the
baseline, "estimate" the bytes the
job reserved from the server's pool (``budget.POOL.high_water``: its estimate). The per-job budget is
lifted (``DTX_MEMORY_BUDGET_MB``) so that jobs above it still run and are measured. Worker processes are
started cold (a server's first forest pays them too). The ratio estimate / measured should lie in
[1, 1.5] (``tests/engine/test_budget_rss.py`` checks the rows of this table whose estimate has a margin, each measured twice).

Data: ``bench_fit.make_data`` (20 normal features, a noisy signal cut into classes; fully grown trees
have many leaves), or for "id" an id-like target (``row % classes``) on 2 features.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r'''
import gc, json, os, sys, threading, time
sys.path.insert(0, {root!r}); sys.path.insert(0, {bench!r})
import numpy as np, psutil
import engine
from engine import budget
from engine.ensembles import fit_adaboost, fit_bagging, fit_random_forest
from engine.evaluate.curves import learning_curve
from engine.evaluate.validation import cross_validate
from engine.prune.cost_complexity import ccp_cross_validate
spec = json.loads({spec!r})
n, k, kind = spec["rows"], spec["classes"], spec["data"]
if kind == "id":
    import pandas as pd
    x = np.random.default_rng(0).normal(size=(n, 2)).round(4)
    frame = pd.DataFrame({{"x1": x[:, 0], "x2": x[:, 1], "cls": [f"k{{i % k}}" for i in range(n)]}})
    ds = engine.Dataset.from_frame(frame, target="cls", task="classification")
else:
    from bench_fit import make_data
    ds = make_data(n, d=spec.get("features", 20), n_classes=k, seed=0)
part = ds.split(test_size=0.25, seed=0)
train, test = part.train, part.test
cfg = engine.TreeConfig(algorithm="cart")
job = spec["job"]
size = spec.get("size")
run = {{
    "tree": lambda: engine.Grower(train, cfg).grow().tree.nodes[0],    # the node objects a diagram reads
    "forest": lambda: fit_random_forest(train, n_estimators=size or 50),
    "bagging": lambda: fit_bagging(train, n_estimators=size or 25),
    "adaboost": lambda: fit_adaboost(train, n_rounds=size or 50),
    "cv": lambda: cross_validate(train, cfg, k=size or 5),
    "curve": lambda: learning_curve(train, test, cfg),
    "prune": lambda: ccp_cross_validate(train, cfg, k=size or 5),   # pruning's cross-validation
}}[job]
me = psutil.Process()
def rss():
    total = 0
    for p in [me] + me.children(recursive=True):
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total
from engine.grow.parallel import run_tasks
def idle(i):
    return i
run_tasks(idle, [(i,) for i in range(8)], n_jobs=None, rows=10**9)   # the server's warm workers
time.sleep(0.2)
gc.collect()
def status(field):
    with open("/proc/self/status") as f:
        return 1024 * int(next(line.split()[1] for line in f if line.startswith(field + ":")))
try:   # this process's exact peak (the kernel's high-water mark, reset here): sampling alone missed a
    with open("/proc/self/clear_refs", "w") as f:   # 200-class tree's node objects' peak by 0-20 MB
        f.write("5")
    own_base = status("VmRSS")
except (OSError, StopIteration):
    own_base = None
base = rss()
peak = [base]
stop = threading.Event()
def sample():
    while not stop.is_set():
        peak[0] = max(peak[0], rss())
        time.sleep(0.005)
t = threading.Thread(target=sample, daemon=True); t.start()
t0 = time.perf_counter()
out = run()
seconds = time.perf_counter() - t0
peak[0] = max(peak[0], rss())
stop.set(); t.join()
own = status("VmHWM") - own_base if own_base is not None else 0
print(json.dumps({{"measured": max(peak[0] - base, own), "estimate": budget.POOL.high_water, "seconds": seconds,
                  }}))
'''

#: (job, data, rows, classes, size): the table of docs/USER_GUIDE.md
TABLE = [
    ("tree", "signal", 10_000, 2, None), ("tree", "signal", 100_000, 2, None),
    ("tree", "signal", 100_000, 10, None), ("tree", "id", 10_000, 1000, None), ("tree", "id", 5_000, 1000, None),
    ("tree", "id", 10_000, 200, None),
    ("forest", "signal", 10_000, 2, 50), ("forest", "signal", 100_000, 2, 50), ("forest", "signal", 100_000, 10, 50),
    ("forest", "id", 5_000, 200, 20),
    ("bagging", "signal", 10_000, 2, 25), ("bagging", "signal", 100_000, 2, 25),
    ("adaboost", "signal", 10_000, 2, 50), ("adaboost", "signal", 100_000, 2, 50),
    ("adaboost", "id", 5_000, 1000, 10), ("adaboost", "id", 5_000, 1000, 30),
    ("cv", "signal", 10_000, 2, 5), ("cv", "signal", 100_000, 2, 5), ("cv", "id", 10_000, 1000, 5),
    ("curve", "signal", 10_000, 2, None), ("curve", "signal", 100_000, 2, None),
    ("prune", "id", 5_000, 1000, 5),
]

#: a million rows of 10 features (each about 100 s or more: in this table only, not in the tests)
MILLION = [("tree", "signal", 1_000_000, 2, None), ("forest", "signal", 1_000_000, 2, 5)]


def measure(job: str, data: str = "signal", rows: int = 10_000, classes: int = 2, size: int | None = None,
            *, timeout: float = 3600, features: int = 20) -> dict:
    """One job in a fresh process (``features``: of the signal data): {"measured", "estimate" (bytes), "seconds"}."""
    spec = json.dumps({"job": job, "data": data, "rows": rows, "classes": classes, "size": size,
                       "features": features})
    code = CHILD.format(root=str(ROOT), bench=str(ROOT / "benchmarks"), spec=spec)
    env = {**os.environ, "DTX_MEMORY_BUDGET_MB": "1000000", "DTX_SERVER_MEMORY_MB": "1000000"}
    child = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                           timeout=timeout)
    if child.returncode != 0:
        raise RuntimeError(child.stderr[-3000:])
    return json.loads(child.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", nargs="*", help="job kinds to run (tree forest bagging adaboost cv curve prune)")
    ap.add_argument("--rows", type=int, nargs="*", help="only these row counts")
    ap.add_argument("--classes", type=int, nargs="*", help="only these class counts")
    args = ap.parse_args(argv)
    print("| job | data | rows | classes | trees | estimate MB | measured MB | ratio | seconds |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    rows_10 = {(job, rows, size) for job, _, rows, _, size in MILLION}
    for job, data, rows, classes, size in TABLE + MILLION:
        if (args.only and job not in args.only) or (args.rows and rows not in args.rows) \
                or (args.classes and classes not in args.classes):
            continue
        r = measure(job, data, rows, classes, size, features=10 if (job, rows, size) in rows_10 else 20)
        est, got = r["estimate"] / 2**20, r["measured"] / 2**20
        print(f"| {job} | {data} | {rows:,} | {classes:,} | {size or '-'} | {est:,.0f} | {got:,.0f} | "
              f"{est / max(got, 1e-9):.2f} | {r['seconds']:.1f} |", flush=True)


if __name__ == "__main__":
    main()
