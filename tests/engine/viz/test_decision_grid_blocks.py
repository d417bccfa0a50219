"""The decision map's grid is predicted in blocks of rows (issue 40, finding 7): the same answer as one
block, and a data set of 1,000 columns never holds its 10,000 x 1,000 grid whole (the frame of Python
lists it was built as took ~300 MB and 5 s)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd

import engine
from engine.ensembles import fit_bagging
from engine.viz import ensemble_figs
from engine.viz.ensemble_figs import decision_grid


def _wide(columns: int, rows: int = 60, seed: int = 0) -> engine.Dataset:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.normal(size=(rows, columns)).round(3), columns=[f"x{i}" for i in range(columns)])
    frame["colour"] = rng.choice(["red", "blue"], size=rows)
    frame["y"] = np.where(frame["x1"] + (frame["colour"] == "red") > 0.5, "a", "b")
    return engine.Dataset.from_frame(frame, target="y")


def test_blocks_give_the_same_map(monkeypatch):
    ds = _wide(6)
    ens = fit_bagging(ds, n_estimators=5, random_state=0)
    whole = decision_grid(ens, ds.frame, "x0", "x1", resolution=30)
    monkeypatch.setattr(ensemble_figs, "GRID_BLOCK_CELLS", 50)  # blocks of 7 rows, the last one shorter
    blocks = decision_grid(ens, ds.frame, "x0", "x1", resolution=30)
    for a, b in zip(whole, blocks):
        np.testing.assert_array_equal(a, b)


def test_a_thousand_columns_stay_small():
    ds = _wide(998)
    ens = fit_bagging(ds, n_estimators=3, random_state=0)
    tracemalloc.start()
    try:
        gx, gy, win, strength = decision_grid(ens, ds.frame, "x0", "x1", resolution=100)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64e6, peak
    assert win.shape == (100, 100)
    base = ensemble_figs.typical_row(ens.schema, ds.frame)
    rows = pd.DataFrame([base] * 3)
    rows["x0"], rows["x1"] = gx[[0, 50, 99]], gy[[0, 50, 99]]
    assert list(win[[0, 50, 99], [0, 50, 99]]) == list(ens.predict_codes(rows))
