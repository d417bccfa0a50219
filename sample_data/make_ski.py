"""Generate ``ski.csv``: month (1-12) x altitude (m) -> good/bad skiing, with axis-aligned regions.

Skiing is good in winter (December-March) above 1,200 m, and in the shoulder months (November,
April) only above 2,200 m; everything else is bad. About 5% of the labels are flipped (noise), so a
fully grown tree has a few small leaves to prune. Deterministic: ``numpy.random.default_rng(7)``.
Run from the repository root: ``python sample_data/make_ski.py``.
"""

from pathlib import Path

import numpy as np
import pandas as pd

SEED, ROWS, NOISE = 7, 80, 0.05


def make(rows: int = ROWS, seed: int = SEED) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    month = rng.integers(1, 13, size=rows)
    altitude = np.round(rng.uniform(200, 3200, size=rows), -1).astype(int)
    winter = (month <= 3) | (month == 12)
    shoulder = (month == 4) | (month == 11)
    good = (winter & (altitude > 1200)) | (shoulder & (altitude > 2200))
    flip = rng.random(rows) < NOISE
    good = good ^ flip
    return pd.DataFrame({"Month": month, "Altitude": altitude,
                         "Skiing": np.where(good, "good", "bad")})


if __name__ == "__main__":
    make().to_csv(Path(__file__).resolve().parent / "ski.csv", index=False)
