"""A short, wide table (one typed row of a 10,000-feature model) is encoded in one copy of its number
columns, not one pandas column at a time (1.5 s for that row), with the same X as the column path."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from engine.data import schema
from engine.data.schema import FeatureSchema
from engine.errors import DataError


def _wide(n_rows: int = 3, n_numbers: int = 150, seed: int = 0) -> tuple[FeatureSchema, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.normal(size=(n_rows, n_numbers)), columns=[f"f{i}" for i in range(n_numbers)])
    frame["f3"] = rng.integers(0, 5, size=n_rows)               # ints
    frame.loc[0, "f4"] = np.inf                                  # inf -> NaN
    frame.loc[n_rows - 1, "f5"] = np.nan
    frame["f6"] = pd.Series(["1.5", "x", "-inf"][:n_rows], dtype=object)  # numbers as text: the column path
    frame["f7"] = [True, False, True][:n_rows]                   # bools: the column path
    frame["colour"] = ["red", "blue", "green"][:n_rows]
    frame["other"] = 1.0                                         # not a feature
    frame = frame[list(frame.columns[::-1])]                     # columns in another order than the schema's
    names = [f"f{i}" for i in range(n_numbers)] + ["colour"]
    fs = FeatureSchema(feature_names=tuple(names), kinds=("numeric",) * n_numbers + ("categorical",),
                       categories=((),) * n_numbers + (("blue", "red"),), target="y", task="regression",
                       classes=())
    return fs, frame


def test_the_one_copy_equals_the_column_path(monkeypatch):
    fs, frame = _wide()
    kept = frame.copy()
    fast = fs.encode(frame)
    monkeypatch.setattr(schema, "WIDE_COLUMNS", 1 << 30)
    slow = fs.encode(frame)
    np.testing.assert_array_equal(fast, slow)
    assert np.isnan(fast[0, 4]) and np.isnan(fast[2, 5]) and fast[0, 6] == 1.5 and np.isnan(fast[1, 6])
    assert fast[0, -1] == 1.0 and np.isnan(fast[2, -1])          # red = code 1, green unseen
    pd.testing.assert_frame_equal(frame, kept)                    # the caller's inf is left in its table


def test_a_wide_row_skips_the_per_column_reads(monkeypatch):
    calls = []
    real = schema.encode_numeric
    monkeypatch.setattr(schema, "encode_numeric", lambda *a, **k: calls.append(1) or real(*a, **k))
    fs, frame = _wide(n_rows=1, n_numbers=10_000)
    X = fs.encode(frame)
    assert len(calls) == 2  # the text and the bool columns; the 9,998 plain number columns in one copy
    assert X.shape == (1, 10_001) and X[0, 0] == frame["f0"].iloc[0]


def test_a_tall_table_keeps_the_column_path(monkeypatch):
    calls = []
    real = schema.encode_numeric
    monkeypatch.setattr(schema, "encode_numeric", lambda *a, **k: calls.append(1) or real(*a, **k))
    fs, frame = _wide(n_rows=3, n_numbers=150)
    big = pd.concat([frame] * (schema.WIDE_CELLS // (3 * 151) + 1), ignore_index=True)
    fs.encode(big)
    assert len(calls) == 150


def test_a_feature_named_twice_is_still_refused():
    fs, frame = _wide()
    twice = pd.concat([frame, frame[["f9"]]], axis=1)
    with pytest.raises(DataError, match="more than one column named 'f9'"):
        fs.encode(twice)
