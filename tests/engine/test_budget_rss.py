"""The engine jobs the pages run on the 1,000-class upload, in a child process: its peak resident memory
(``ru_maxrss``) stays under the memory budget (issue 25: a default forest took the server past 6 GB)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine import budget

ROOT = Path(__file__).resolve().parents[2]

JOBS = r'''
import io
import engine
from engine.ensembles import fit_adaboost, fit_bagging, fit_random_forest
from engine.evaluate.curves import learning_curve
from engine.evaluate.metrics import evaluate
from engine.evaluate.stability import instability
from engine.evaluate.validation import cross_validate
from engine.prune.cost_complexity import ccp_cross_validate
from tests.many_classes import many_classes_csv

ds = engine.load_csv(io.BytesIO(many_classes_csv()), target="cls")
part = ds.split(test_size=0.25, seed=0)
train, test = part.train, part.test
cfg = engine.TreeConfig(algorithm="cart")
grower = engine.Grower(train, cfg)
for _ in range(5):                     # the Grow page's steps, and Evaluate's metrics of that tree
    grower.step()
for rows in (train, test):
    evaluate(grower.tree, rows)
jobs = [lambda: engine.Grower(train, cfg).grow(), lambda: fit_random_forest(train, n_estimators=50),
        lambda: fit_bagging(train, n_estimators=25), lambda: fit_adaboost(train, n_rounds=3),
        lambda: cross_validate(train, cfg, k=5), lambda: learning_curve(train, test, cfg),
        lambda: instability(train, test, cfg, runs=10), lambda: ccp_cross_validate(train, cfg)]
refused = 0
for job in jobs:
    try:
        job()
    except engine.ConfigError:
        refused += 1
import resource
# this child's own peak and its reaped workers' (kB): the pytest process's RUSAGE_CHILDREN is the largest peak
# of any child it ever reaped, so an earlier test's subprocess could fail this one (971 MB in one engine run)
print(refused, max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                   resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
'''


@pytest.mark.slow
def test_the_pages_engine_jobs_on_the_1000_class_file_stay_under_the_budget():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop(budget.BUDGET_ENV, None)
    child = subprocess.run([sys.executable, "-c", JOBS], cwd=ROOT, env=env, capture_output=True, text=True,
                           timeout=900)
    assert child.returncode == 0, child.stderr[-2000:]
    refused, peak_kb = (int(v) for v in child.stdout.split()[-2:])
    peak = peak_kb * 1024      # kB on Linux
    # all but AdaBoost's 3 stumps, the 5-fold cross-validation (its fold trees fit), the learning curve (304 MB
    # measured, 471 MB estimated) and one tree grown to the end (346 MB measured with its node objects on these
    # 3,750 rows) are refused
    assert refused == 4
    assert peak < budget.budget_bytes(), f"peak {peak / 2**20:.0f} MB"


# ------------------------------------------------------------------ the calibration (issue 36 item 4)
# (job, data, rows, classes, trees): rows of benchmarks/bench_budget.py's table whose estimate has a margin
# (measured 1.08-1.40 x, see docs/USER_GUIDE.md), so that noise in a measured peak of a loaded machine cannot
# fail them; rows whose estimate is within ~1.05 x of the peak are in the script's table only. AdaBoost on
# 75,000 rows was estimated at 1.63 x its peak before. Forests (issue 41, members kept compact): 1.20 x on 7,500
# rows and 1.28 x on the 200-class id target. Single trees with their node objects (issue 36 item 4): the
# 2-class tree on 7,500 rows was estimated at 0.85 x its peak and the 200-class one at 1.53 x (the objects were
# taken as reusing the grower's freed arrays; they come on top of them).
CALIBRATED = [("cv", "signal", 10_000, 2, 5), ("adaboost", "signal", 100_000, 2, 50), ("tree", "id", 10_000, 1000, None),
              ("forest", "signal", 10_000, 2, 50), ("forest", "id", 5_000, 200, 20),
              ("tree", "signal", 10_000, 2, None), ("tree", "id", 10_000, 200, None)]
# The 200-class id tree on 7,500 training rows left this table for a while: its peak, sampled every 5 ms, read
# 97-118 MB (1.34-1.63 x under its 158 MB estimate) as the node objects' build outran the samples. The script
# now reads this process's exact peak too (VmHWM): 121 MB in every run (1.30 x).


@pytest.mark.slow
@pytest.mark.parametrize("job, data, rows, classes, size", CALIBRATED)
def test_the_estimate_is_at_least_the_measured_peak_and_at_most_half_as_much_again(job, data, rows, classes, size):
    from benchmarks.bench_budget import measure

    # measured twice, in two fresh processes: the estimate must cover the larger peak, and be within 1.5 x of it
    runs = [measure(job, data, rows, classes, size, timeout=900) for _ in range(2)]
    estimate, measured = runs[0]["estimate"], max(r["measured"] for r in runs)
    assert all(r["estimate"] == estimate for r in runs) and measured > 0
    assert measured <= estimate <= 1.5 * measured, (job, estimate / 2**20, measured / 2**20)
