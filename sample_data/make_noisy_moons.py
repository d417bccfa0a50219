"""Generate ``noisy_moons.csv``: two interleaved half circles, Gaussian jitter, 20% flipped labels.

The same construction as scikit-learn's ``make_moons`` (written with numpy only): class 0 on the
upper half circle of radius 1 around (0, 0), class 1 on the lower one around (1, 0.5); points get
N(0, 0.15^2) noise, then 20% of the labels are flipped, so a tree that fits every training row is
fitting noise. Deterministic: ``numpy.random.default_rng(42)``.
Run from the repository root: ``python sample_data/make_noisy_moons.py``.
"""

from pathlib import Path

import numpy as np
import pandas as pd

SEED, ROWS, JITTER, FLIP = 42, 400, 0.15, 0.20


def make(rows: int = ROWS, seed: int = SEED) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    label = np.arange(rows) % 2
    angle = rng.uniform(0, np.pi, size=rows)
    x = np.where(label == 0, np.cos(angle), 1 - np.cos(angle))
    y = np.where(label == 0, np.sin(angle), 0.5 - np.sin(angle))
    x = x + rng.normal(0, JITTER, size=rows)
    y = y + rng.normal(0, JITTER, size=rows)
    flip = rng.permutation(rows)[: int(round(FLIP * rows))]
    label[flip] = 1 - label[flip]
    order = rng.permutation(rows)
    return pd.DataFrame({"x1": np.round(x[order], 4), "x2": np.round(y[order], 4),
                         "label": np.where(label[order] == 1, "B", "A")})


if __name__ == "__main__":
    make().to_csv(Path(__file__).resolve().parent / "noisy_moons.csv", index=False)
