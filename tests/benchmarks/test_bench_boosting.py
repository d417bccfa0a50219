"""benchmarks/bench_boosting.py says why our exact boosting and scikit-learn's GradientBoosting differ on test
rows, tree by tree, instead of printing one unexplained number (no timings checked)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import GradientBoostingRegressor

import engine
from engine.ensembles import fit_gradient_boosting

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bench_boosting  # noqa: E402

# three 4-decimal values a < v < b, v halfway: the engine's float64 midpoint sends v left (v <= (a+b)/2),
# scikit-learn's float32(v) is above its midpoint of float32(a) and float32(b)
A, V, B = 0.5004, 0.5005, 0.5006


def _fits(cast=None, depth=2):
    rng = np.random.default_rng(0)
    f0 = rng.normal(size=400).round(4)
    f2 = np.where(rng.random(400) < 0.5, A, B)
    frame = pd.DataFrame({"f0": f0, "f1": f0.copy(), "f2": f2})   # f1 = f0: every split on f0 ties with f1's
    if cast is not None:
        frame = frame.astype(cast).astype(float)
    frame["y"] = 3.0 * (f2 == B) + f0 + rng.normal(scale=0.1, size=400)
    ds = engine.Dataset.from_frame(frame, target="y", task="regression")
    ours = fit_gradient_boosting(ds, n_estimators=5, max_depth=2)
    sk = GradientBoostingRegressor(n_estimators=5, max_depth=depth, random_state=0).fit(ds.X, ds.y)
    return ds, ours, sk


def test_the_two_innocent_causes_are_told_apart():
    assert (V <= (A + B) / 2) and not (np.float32(V) <= float(np.float32(A)) / 2 + float(np.float32(B)) / 2)
    ds, ours, sk = _fits()
    Xt = np.array([[1.0, -1.0, A],      # f0 and f1 disagree: apart wherever scikit-learn took f1 for a tie
                   [0.3, 0.3, V],       # at f2's threshold: apart by float32 rounding only
                   [0.3, 0.3, A]])      # neither: the same everywhere
    found = bench_boosting.explain_differences(ours, sk, ds.X, Xt)
    assert found["train_max"] < 1e-12 and found["n_test"] == 3 and found["test_rows"] == 2
    assert found["causes"]["tie"] > 0 and found["causes"]["float32"] > 0 and found["causes"]["trees differ"] == 0
    row, diff, carried = found["worst"]               # its difference, shared out among the causes
    signed = ours.predict(Xt[[row]])[0] - sk.predict(Xt[[row]])[0]
    assert diff == found["test_max"] == pytest.approx(abs(signed)) and diff > 0.1
    assert sum(carried.values()) == pytest.approx(signed, abs=1e-12)
    # the same data made float32 before both fits: the threshold cases are gone, the ties stay
    ds32, ours32, sk32 = _fits(cast=np.float32)
    again = bench_boosting.explain_differences(ours32, sk32, ds32.X, Xt.astype(np.float32).astype(float))
    assert again["causes"]["float32"] == 0 and again["causes"]["tie"] > 0


def test_trees_that_differ_on_training_rows_are_not_excused():
    ds, ours, sk = _fits(depth=3)                  # another depth: a real difference between the models
    found = bench_boosting.explain_differences(ours, sk, ds.X, np.asarray(ds.X)[:50])
    assert found["train_max"] > 1e-3 and found["causes"]["trees differ"] > 0
    lines = []
    bench_boosting.print_differences(found, out=lines.append)
    assert "trees that differ on the training rows too" in "\n".join(lines)
