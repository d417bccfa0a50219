"""Helpers for engine tests: small data sets built from frames."""

import numpy as np
import pandas as pd
import pytest

import engine


def frame_dataset(df: pd.DataFrame, target: str = "y", task=None) -> engine.Dataset:
    return engine.Dataset.from_frame(df, target=target, task=task)


def random_dataset(seed: int, n=None, d=None, categorical=False, regression=False, missing=0.0, int_values=False,
                   n_classes=None):
    rng = np.random.default_rng(seed)
    n = n or int(rng.integers(8, 200))
    d = d or int(rng.integers(1, 5))
    cols = {}
    for j in range(d):
        if categorical and j % 2 == 1:
            cols[f"c{j}"] = rng.choice(list("abcde")[: int(rng.integers(2, 6))], size=n).astype(object)
        elif int_values:
            cols[f"x{j}"] = rng.integers(0, 6, size=n).astype(float)
        else:
            cols[f"x{j}"] = np.round(rng.normal(size=n), 3)
    df = pd.DataFrame(cols)
    if missing:
        for c in df.columns:
            df.loc[rng.random(n) < missing, c] = np.nan
    if regression:
        df["y"] = rng.integers(0, 50, size=n).astype(float) + 0.5
    else:
        k = int(rng.integers(2, 4)) if n_classes is None else n_classes
        df["y"] = np.array(list("pqrstuvw"))[rng.integers(0, k, size=n)]
    return frame_dataset(df, task="regression" if regression else "classification")


@pytest.fixture
def tennis():
    return engine.load_sample("play_tennis")
