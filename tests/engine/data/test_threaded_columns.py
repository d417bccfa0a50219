"""Columns read and encoded on threads (engine.data.build.natural_table, FeatureSchema.encode) give what
one thread gives: the same kinds, notes in column order, the same X (inf and text -> NaN)."""

from __future__ import annotations

import numpy as np
import pandas as pd

import engine
from engine import threads as engine_threads
from engine.data import build, schema


def _table(seed: int = 0, n: int = 400) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    a[rng.random(n) < 0.05] = np.inf
    b = rng.normal(size=n)
    b[rng.random(n) < 0.05] = np.nan
    c = rng.integers(0, 9, size=n).astype(float)
    c[[3, 7]] = [1e308, 1e308]  # the column's sum overflows to inf with no inf in it
    text_numbers = rng.normal(size=n).round(2).astype(str).astype(object)
    text_numbers[5] = "-inf"
    return pd.DataFrame({"a": a, "b": b, "c": c, "t": text_numbers,
                         "colour": rng.choice(["red", "blue", " red"], size=n), "flag": rng.choice([True, False], size=n),
                         "y": rng.choice(["p", "q"], size=n)})


def _load(frame, monkeypatch, threaded: bool):
    with monkeypatch.context() as m:
        m.setattr(build, "THREADS_ABOVE_CELLS", 0 if threaded else 1 << 60)
        m.setattr(schema, "ENCODE_THREADS_ABOVE", 0 if threaded else 1 << 60)
        m.setattr(engine_threads, "cpu_count", lambda: 4)  # threads_for's "every core", on any machine
        ds = engine.Dataset.from_frame(frame, target="y")
        return ds, ds.X.copy(), ds.schema.encode(frame)


def test_threaded_columns_equal_one_thread(monkeypatch):
    frame = _table()
    one, X1, E1 = _load(frame, monkeypatch, threaded=False)
    many, Xn, En = _load(frame, monkeypatch, threaded=True)
    assert one.kinds == many.kinds and one.notes == many.notes
    np.testing.assert_array_equal(X1, Xn)
    np.testing.assert_array_equal(E1, En)
    j = {n: i for i, n in enumerate(one.schema.feature_names)}
    assert np.isnan(Xn[frame["a"].to_numpy() == np.inf, j["a"]]).all()
    assert not np.isinf(Xn).any() and Xn[3, j["c"]] == 1e308
    assert np.isnan(Xn[5, j["t"]])


def test_encode_numeric_writes_into_a_given_column():
    out = np.full((4, 2), 7.0, order="F")
    got = schema.encode_numeric(pd.Series([1.0, np.inf, -np.inf, np.nan]), out[:, 1])
    assert got is not None and np.array_equal(out[:, 0], [7.0] * 4)
    np.testing.assert_array_equal(out[:, 1], [1.0, np.nan, np.nan, np.nan])
