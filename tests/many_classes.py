"""The hostile-probe file of issue 25: ``x1,x2,cls`` with 5,000 rows and ``cls = k{i % 1000}`` (~90 kB), an
id-like column taken as the target."""

from __future__ import annotations

import numpy as np


def many_classes_csv(n_classes: int = 1000, n_rows: int = 5000, seed: int = 0) -> bytes:
    x = np.random.default_rng(seed).normal(size=(n_rows, 2)).round(4)
    lines = ["x1,x2,cls"] + [f"{a},{b},k{i % n_classes}" for i, (a, b) in enumerate(x.tolist())]
    return ("\n".join(lines) + "\n").encode()
