"""Helpers for the imported-model tests: a block on the libraries whose files the engine reads itself,
and the data the oracle models are trained on."""

from __future__ import annotations

import importlib.abc
import sys
from contextlib import contextmanager

import numpy as np
import pandas as pd
import pytest

import engine

BLOCKED = ("xgboost", "lightgbm")


class _Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"{name} is blocked: the engine must read its files without it")
        return None


@contextmanager
def libraries_blocked():
    """While inside, ``import xgboost`` / ``import lightgbm`` (and their submodules) fail, even if a test
    imported them before: their sys.modules entries are set to None and a finder refuses them."""
    saved = {k: sys.modules[k] for k in list(sys.modules) if k.split(".")[0] in BLOCKED}
    finder = _Blocker()
    for k in saved:
        sys.modules[k] = None
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for k in list(sys.modules):
            if k.split(".")[0] in BLOCKED:
                del sys.modules[k]
        sys.modules.update(saved)


def predictions_without(library: str, model, X, path, classifier: bool):
    """``(loaded, expected, got, labels, got_labels)``: the library model's answers on ``X`` (probabilities
    for a classifier, else values) and its labels, then the file at ``path`` loaded and predicted by the
    engine while ``library`` cannot be imported (which is checked first)."""
    expected = model.predict_proba(X) if classifier else model.predict(X)
    labels = model.predict(X)
    with libraries_blocked():
        with pytest.raises(ImportError):
            __import__(library)
        loaded = engine.load_model(path)
        got = loaded.predict_proba(X) if classifier else loaded.predict(X)
        got_labels = loaded.predict(X)
    return loaded, expected, got, labels, got_labels


def numeric_data(seed: int, n: int = 2000, d: int = 5, missing: float = 0.1):
    """(X with NaNs, binary y, 3-class y, regression y)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    filled = X.copy()
    X[rng.random(X.shape) < missing] = np.nan
    y2 = (filled[:, 0] + filled[:, 1] + 0.5 * rng.normal(size=n) > 0).astype(int)
    y3 = np.digitize(filled[:, 2] + 0.5 * filled[:, 0] + 0.3 * rng.normal(size=n), [-0.5, 0.5])
    yr = 3 * filled[:, 1] - 2 * np.abs(filled[:, -1]) + rng.normal(size=n)
    return X, y2, y3, yr


def categorical_frame(seed: int, n: int = 2000, missing: float = 0.08) -> tuple[pd.DataFrame, np.ndarray, np.ndarray, np.ndarray]:
    """A frame with three numeric columns and one pandas category column (NaNs in all), and targets."""
    rng = np.random.default_rng(seed)
    X, y2, y3, yr = numeric_data(seed, n, 3, missing)
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    labels = np.array(["red", "green", "blue", "amber", "violet", "teal", "grey"])
    cat = rng.choice(labels, size=n)
    df["colour"] = pd.Categorical(cat, categories=sorted(labels))
    df.loc[rng.random(n) < missing, "colour"] = np.nan
    hot = np.isin(cat, ["green", "teal", "grey"])
    y2 = (y2 ^ hot).astype(int)
    y3 = (y3 + hot) % 3
    yr = yr + 4 * hot
    return df, y2, y3, yr
