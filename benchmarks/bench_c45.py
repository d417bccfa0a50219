"""The C4.5 preset against Weka's J48 on the same ARFF file (``bench_fit.py --c45-vs-j48``).

For each data set (numeric features rounded to 3 decimals, a nonlinear label cut into classes, 4.5 % of
the labels redrawn) the training rows are written as ARFF and timed twice:

- J48: ``java -cp weka.jar weka.classifiers.trees.J48 -t train.arff -no-cv`` (``-C 0.25 -M 2``: pruning
  with subtree raising), wall time of the whole process, JVM start included;
- ours: ``engine.fit_tree`` with the C4.5 preset, then ``prune_pessimistic(subtree_raising=True)``, the
  data already loaded (a new Dataset each run, so nothing is cached), best of ``--repeat``.

Ratio = ours / J48 (below 1: faster), on wall-clock time and on CPU time (ours: the process's; J48's:
the child process's user + system time, every JVM thread included). On a busy shared machine the wall
clock mostly measures the wait for a core; the CPU ratio is the steadier figure. ``leaves`` must be
equal (J48's tree), which the script checks. The machine's load average is printed before and after.
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

import engine
from engine.prune.pessimistic import prune_pessimistic

WEKA_JAR = os.environ.get("WEKA_JAR", "/usr/share/java/weka.jar")
#: (rows, numeric features, classes, seed): the sizes of issue 26
SETS = ((20_000, 10, 3, 0), (100_000, 10, 3, 0), (100_000, 12, 4, 1))


def make_frame(n: int, d: int, k: int, seed: int, noise: float = 0.045) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).round(3)
    score = X[:, 0] + 0.8 * X[:, 1] * X[:, 2] - np.abs(X[:, 3]) + 0.5 * np.sin(3 * X[:, 4])
    y = np.searchsorted(np.quantile(score, np.linspace(0, 1, k + 1)[1:-1]), score)
    flip = rng.random(n) < noise
    y[flip] = rng.integers(0, k, size=int(flip.sum()))
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(d)])
    frame["y"] = np.array([f"c{i}" for i in range(k)])[y]
    return frame


def write_arff(frame: pd.DataFrame, path: Path) -> None:
    feats = [c for c in frame.columns if c != "y"]
    head = ["@relation bench"] + [f"@attribute {c} numeric" for c in feats]
    head += ["@attribute y {" + ",".join(sorted(frame["y"].unique())) + "}", "@data"]
    body = frame[feats].astype(float).map(repr).astype(str).agg(",".join, axis=1) + "," + frame["y"]
    path.write_text("\n".join(head) + "\n" + "\n".join(body) + "\n")


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def time_j48(path: Path) -> tuple[float, float, int]:
    t, c = time.perf_counter(), _child_cpu()
    out = subprocess.run(["java", "-cp", WEKA_JAR, "weka.classifiers.trees.J48", "-t", str(path), "-no-cv"],
                         capture_output=True, text=True, check=True).stdout
    elapsed, cpu = time.perf_counter() - t, _child_cpu() - c
    return elapsed, cpu, int(re.search(r"Number of Leaves\s*:\s*(\d+)", out).group(1))


def time_ours(frame: pd.DataFrame, repeat: int) -> tuple[float, float, float, int]:
    best = (float("inf"), 0.0, 0.0, 0)
    for _ in range(repeat):
        ds = engine.Dataset.from_frame(frame, target="y")
        t, c = time.perf_counter(), time.process_time()
        tree = engine.fit_tree(ds, engine.TreeConfig(algorithm="c45"))
        grown = time.perf_counter()
        pruned = prune_pessimistic(tree, cf=0.25, subtree_raising=True, collapse=True, train=ds).tree
        done, cpu = time.perf_counter(), time.process_time() - c
        if done - t < best[0]:
            best = (done - t, grown - t, cpu, pruned.n_leaves)
    return best


def run(repeat: int = 1) -> None:
    if shutil.which("java") is None or not os.path.exists(WEKA_JAR):
        raise SystemExit("J48 needs java and weka.jar (apt-get install weka).")
    print(f"machine: {os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} (1 min) at the start")
    print(f"{'data':>22s} {'ours s':>7s} {'(grow)':>7s} {'J48 s':>7s} {'ratio':>6s} {'ours cpu':>8s} "
          f"{'J48 cpu':>8s} {'cpu ratio':>9s} {'leaves ours/J48':>16s}")
    with tempfile.TemporaryDirectory() as tmp:
        for n, d, k, seed in SETS:
            frame = make_frame(n, d, k, seed)
            path = Path(tmp) / f"train_{n}_{d}_{k}.arff"
            write_arff(frame, path)
            j48, j48_cpu, j48_leaves = time_j48(path)
            ours, grow, cpu, leaves = time_ours(frame, repeat)
            flag = "" if leaves == j48_leaves else "  <- NOT J48's tree"
            print(f"{f'{n // 1000}k x {d}, {k} classes':>22s} {ours:7.2f} {grow:7.2f} {j48:7.2f} {ours / j48:6.2f} "
                  f"{cpu:8.2f} {j48_cpu:8.2f} {cpu / j48_cpu:9.2f} {leaves:>8d}/{j48_leaves:<7d}{flag}", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f} (1 min) at the end")
