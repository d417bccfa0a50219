"""Impurity measures: how mixed the labels of a node are.

Every criterion works on *stats*, the sufficient statistics of a node, vectorised over the last axis:

- classification: weighted class counts ``(..., K)``;
- regression: ``(..., 3)`` holding ``(w, sum w*y, sum w*y**2)``.

Summing stats of disjoint row sets gives the stats of their union, so split search can use cumulative
sums (see :mod:`engine.split.records`). ``CRITERIA[name].from_stats(stats)`` gives the impurity of each node.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from engine.checks import real, shown
from engine.errors import ConfigError

__all__ = [
    "CRITERIA", "Criterion", "impurity", "entropy", "gini", "misclassification", "variance",
    "binary_entropy", "binary_gini", "binary_misclassification", "get_criterion",
]


def _sum_last(c: np.ndarray) -> np.ndarray:
    """Sum over the last axis, column by column (much faster than ``sum(axis=-1)`` for few classes,
    and the same left-to-right order for every array size)."""
    if c.shape[-1] > 16 or c.shape[-1] == 0:
        return c.sum(axis=-1)
    s = c[..., 0].copy()
    for k in range(1, c.shape[-1]):
        s += c[..., k]
    return s


def _sum_cols(cols) -> np.ndarray:
    """:func:`_sum_last` for stats given as one array per stat (the same additions in the same order)."""
    if len(cols) > 16 or len(cols) == 0:
        return np.stack(cols, axis=-1).sum(axis=-1)
    s = np.array(cols[0], dtype=float)
    for c in cols[1:]:
        s += c
    return s


def _entropy_cols(cols, w: np.ndarray, ok: np.ndarray, base: float) -> np.ndarray:
    ws = np.where(ok, w, 1.0)
    h = np.zeros(w.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        for c in cols:
            p = c / ws
            h -= np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0)
    return np.where(ok, h / np.log(base), 0.0) + 0.0


def _totals(counts) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    c = np.asarray(counts, dtype=float)
    w = _sum_last(c)
    return c, w, w > 0


def entropy(counts, base: float = 2.0) -> np.ndarray:
    r"""Entropy :math:`H = -\sum_k p_k \log_b p_k` (bits for b=2, nats for b=e); 0 log 0 = 0."""
    c, w, ok = _totals(counts)
    return _entropy_cols([c[..., k] for k in range(c.shape[-1])], w, ok, base)


def gini(counts) -> np.ndarray:
    r"""Gini impurity :math:`G = 1 - \sum_k p_k^2` (two classes: 2p(1-p))."""
    c, w, ok = _totals(counts)
    ws = np.where(ok, w, 1.0)
    ss = np.zeros(w.shape)
    for k in range(c.shape[-1]):
        ss += c[..., k] * c[..., k]
    with np.errstate(divide="ignore", invalid="ignore"):   # w*w may underflow to 0: handled just below
        g = 1.0 - ss / (ws * ws)
    tiny = ok & (ws < 1e-150)          # w*w underflows: take the class shares first
    if np.any(tiny):
        shares = np.zeros(w.shape)
        for k in range(c.shape[-1]):
            p = c[..., k] / ws
            shares += p * p
        g = np.where(tiny, 1.0 - shares, g)
    return np.where(ok, np.maximum(g, 0.0), 0.0)


def misclassification(counts) -> np.ndarray:
    r"""Misclassification impurity :math:`E = 1 - \max_k p_k` (two classes: min(p, 1-p))."""
    c, w, ok = _totals(counts)
    top = np.zeros(w.shape)
    for k in range(c.shape[-1]):
        top = np.maximum(top, c[..., k])
    return np.where(ok, 1.0 - top / np.where(ok, w, 1.0), 0.0)


def variance(stats) -> np.ndarray:
    r"""Weighted variance (mean squared deviation) :math:`\frac{1}{w}\sum w_i y_i^2 - \bar y^2`
    from stats ``(w, sum w*y, sum w*y^2)``; clipped at 0 against rounding."""
    stats = np.asarray(stats, dtype=float)
    w, s1, s2 = stats[..., 0], stats[..., 1], stats[..., 2]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = s1 / np.where(w > 0, w, 1.0)
        v = np.where(w > 0, s2 / np.where(w > 0, w, 1.0) - mean * mean, 0.0)  # m*m, not m**2: same bits for arrays and scalars
    return np.maximum(v, 0.0)


def binary_entropy(p) -> np.ndarray:
    r"""Two-class entropy :math:`-p\log_2 p - (1-p)\log_2(1-p)`."""
    p = np.asarray(p, dtype=float)
    return entropy(np.stack([p, 1.0 - p], axis=-1))


def binary_gini(p) -> np.ndarray:
    """Two-class Gini impurity 2p(1-p)."""
    p = np.asarray(p, dtype=float)
    return 2.0 * p * (1.0 - p)


def binary_misclassification(p) -> np.ndarray:
    """Two-class misclassification impurity min(p, 1-p)."""
    p = np.asarray(p, dtype=float)
    return np.minimum(p, 1.0 - p)


@dataclass(frozen=True)
class Criterion:
    """An impurity measure over node stats, with its formula for display."""

    name: str
    task: str
    formula: str
    _fn: Callable[..., np.ndarray]
    base: float = 2.0

    def from_stats(self, stats) -> np.ndarray:
        """Impurity of each node whose stats are on the last axis."""
        if self.name == "entropy":
            return self._fn(stats, self.base)
        return self._fn(stats)

    def weight(self, stats) -> np.ndarray:
        """Total weight of each node."""
        stats = np.asarray(stats, dtype=float)
        return stats[..., 0] if self.task == "regression" else _sum_last(stats)

    def weighted(self, stats) -> np.ndarray:
        """Weight times impurity, ``w * I``, of each node: the term children contribute to a split.

        Split search scores a split as ``I(parent) - sum_c w_c I(c) / w``; every search path (per node,
        per level) computes the children's terms with this one function, so they agree to the bit.
        """
        stats = np.asarray(stats, dtype=float)
        return self.weighted_cols([stats[..., k] for k in range(stats.shape[-1])])

    def weighted_cols(self, cols, weight=None, read_where_positive: bool = False) -> np.ndarray:
        """:meth:`weighted` for stats given as one array per stat (``cols[k]`` is stat k of every node):
        the level-wise growers keep stats this way; the arithmetic is the same, element by element.
        ``weight``: the nodes' total weights when the caller has them exactly (integer counts), which
        spares summing the class columns. ``read_where_positive``: the caller reads the result only where
        the weight is positive, so the guards for empty nodes are skipped (same bits there; elsewhere
        the value is undefined)."""
        if weight is not None:
            w = weight
        else:
            w = np.asarray(cols[0], dtype=float) if self.task == "regression" else _sum_cols(cols)
        if read_where_positive and self.name in ("gini", "variance"):
            if self.name == "gini":                  # 0 + c0^2 is c0^2: the same sums as below
                out = cols[0] * cols[0]
                for c in cols[1:]:
                    out += c * c
                out /= w
                np.subtract(w, out, out=out)
            else:
                out = cols[1] * cols[1]
                out /= w
                np.subtract(cols[2], out, out=out)
            return np.maximum(out, 0.0, out=out)
        ok = w > 0
        ws = np.where(ok, w, 1.0)
        if self.name == "gini":                      # w - sum_k c_k^2 / w
            ss = np.zeros(w.shape)
            for c in cols:
                ss += c * c
            return np.where(ok, np.maximum(w - ss / ws, 0.0), 0.0)
        if self.name == "misclassification":         # w - max_k c_k
            top = np.zeros(w.shape)
            for c in cols:
                top = np.maximum(top, c)
            return np.where(ok, w - top, 0.0)
        if self.name == "variance":                  # sum w y^2 - (sum w y)^2 / w
            return np.where(ok, np.maximum(cols[2] - cols[1] * cols[1] / ws, 0.0), 0.0)
        return w * _entropy_cols(cols, w, ok, self.base)

    def with_base(self, base: float) -> "Criterion":
        return Criterion(self.name, self.task, self.formula, self._fn, float(base))

    def __repr__(self) -> str:
        return f"Criterion({self.name!r})"


CRITERIA: dict[str, Criterion] = {
    "entropy": Criterion("entropy", "classification", r"H = -\sum_k p_k \log_2 p_k", entropy),
    "gini": Criterion("gini", "classification", r"G = 1 - \sum_k p_k^2", gini),
    "misclassification": Criterion(
        "misclassification", "classification", r"E = 1 - \max_k p_k", misclassification),
    "variance": Criterion("variance", "regression", r"V = \frac{1}{n}\sum_i (y_i - \bar y)^2", variance),
}


def get_criterion(name: str, task: str | None = None, base: float = 2.0) -> Criterion:
    """Look a criterion up by name, checking it fits the task."""
    if not isinstance(name, str) or name not in CRITERIA:  # never hash lists or truth-test arrays
        raise ConfigError(
            f"criterion must be one of {', '.join(CRITERIA)}; got {shown(name)}.")
    crit = CRITERIA[name]
    if task is not None and crit.task != task:
        allowed = [n for n, c in CRITERIA.items() if c.task == task]
        raise ConfigError(
            f"criterion {name!r} does not apply to {task}; use {' or '.join(allowed)}.")
    return crit.with_base(base) if name == "entropy" else crit


def impurity(counts, criterion: str = "entropy", *, base: float = 2.0) -> float:
    """Impurity of one node.

    ``counts`` are (weighted) class counts, e.g. ``impurity([9, 5], "entropy") == 0.940``;
    for ``"variance"`` pass the target values themselves.
    """
    base = real("base", base, 1.0, low_open=True)
    crit = get_criterion(criterion, base=base)
    try:
        values = np.asarray(counts, dtype=float)
    except (TypeError, ValueError):
        raise ConfigError(f"counts must be a list of numbers, e.g. [9, 5]; got {shown(counts)}.") from None
    if crit.task == "regression":
        stats = np.array([values.size, values.sum(), (values ** 2).sum()])
        return float(crit.from_stats(stats))
    if values.ndim != 1 or np.any(values < 0):
        raise ConfigError("counts must be a list of non-negative class counts, e.g. [9, 5].")
    return float(crit.from_stats(values))
