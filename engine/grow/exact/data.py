"""The training rows as the level-wise scan reads them (:mod:`engine.grow.exact.scan`).

:class:`ScanData` drops rows of weight 0 and picks what the scan reads of each row: the labels for class
counts under unit weights, labels and whole-number weights for a bootstrap's, ``y`` for a unit-weight
regression, else every stat (whole-number stats as integers, in their smallest type: :func:`compact`).
"""

from __future__ import annotations

from functools import cached_property

import numpy as np


class ScanData:
    """The training rows as the scan needs them (rows with weight 0 dropped). The transposed features
    ``XT`` and the stats ``ST`` are made when first read: histogram search on class counts needs neither."""

    def __init__(self, grower):
        self.X = grower.X
        self.idx0 = np.flatnonzero(grower.w0 > 0)
        self.every = self.idx0.size == len(grower.X)          # no row dropped: positions are rows
        self.w = grower.w0[self.idx0]
        self.m, self.d = self.idx0.size, grower.X.shape[1]
        self.grower, self.S = grower, grower.n_stats
        self.unit = unit = bool(np.all(self.w == 1.0))
        # unit weights: class counts come from the labels (no stat rows gathered); a regression node's
        # weight is its row count
        self.labels = (grower.y[self.idx0].astype(np.int64)
                       if grower.task == "classification" and unit else None)
        self.count_weight = grower.task == "regression" and unit
        # whole-number weights that are not all 1 (a bootstrap's) on classes: a class's stat is the weight
        # where the row has that class, so the scan reads two values a row (class, weight), not S stats
        self.codes = self.weights = None
        if grower.task == "classification" and not unit and np.all(self.w == np.round(self.w)) \
                and self.w.sum() < 2.0**31:
            self.codes = grower.y[self.idx0].astype(np.int64)
            self.weights = self.w.astype(np.int64)
        if self.labels is not None:       # class counts: whole numbers, read from the labels
            self.STi, self.whole_stats = {}, True
        else:
            # stats that are whole numbers (class counts and row counts under integer weights, e.g. a
            # bootstrap's) are summed in integers: a float cumsum waits ~5 ns an element on each addition,
            # an integer one ~1 ns, and below 2**53 both give exactly the same numbers
            whole = np.all(self.ST == np.round(self.ST), axis=1) & (np.abs(self.ST).sum(axis=1) < 2.0**53)
            self.STi = {k: self.ST[k].astype(np.int64) for k in np.flatnonzero(whole).tolist()}
            # every stat whole: sums are exact in any order, and each kept row weighs at least 1
            self.whole_stats = len(self.STi) == self.S
        self.columns = self._columns()

    @cached_property
    def XT(self) -> np.ndarray:
        """The kept rows' features, one contiguous row per feature (d, m)."""
        return np.ascontiguousarray((self.X if self.every else self.X[self.idx0]).T)

    @cached_property
    def ST(self) -> np.ndarray:
        """The kept rows' stats times their weights, one row per stat (S, m)."""
        if self.every and self.unit:          # every row, weight 1: the stats themselves (x 1.0 changes no bit)
            return np.ascontiguousarray(self.grower.U.T)
        return np.ascontiguousarray((self.grower.U[self.idx0] * self.w[:, None]).T)

    def column_at(self, j: int, rows: np.ndarray) -> np.ndarray:
        """Feature j's values of the kept rows ``rows``."""
        if "XT" in self.__dict__:
            return self.XT[j].take(rows)
        return self.X[rows if self.every else self.idx0.take(rows), j]

    def values_at(self, rows: np.ndarray, features: np.ndarray) -> np.ndarray:
        """Feature ``features[i]``'s value of kept row ``rows[i]``."""
        if "XT" in self.__dict__:
            return self.XT.ravel().take(features * self.m + rows)
        return self.X[rows if self.every else self.idx0.take(rows), features]

    def _columns(self) -> dict:
        """What the scan reads of each row, by name (integers in their smallest type): ``labels`` (with
        ``weights`` for whole-number weights), ``y`` for a unit-weight regression, else every stat ``k``."""
        if self.labels is not None:
            return {"labels": compact(self.labels)}
        if self.codes is not None:
            return {"labels": compact(self.codes), "weights": compact(self.weights)}
        if self.count_weight:
            return {"y": self.ST[1]}
        return {k: compact(self.STi[k]) if k in self.STi else self.ST[k] for k in range(self.S)}


def compact(a: np.ndarray) -> np.ndarray:
    """Integers in the smallest signed type that holds them (fewer bytes to read in the scan's gathers)."""
    if a.dtype.kind not in "iu" or a.size == 0:
        return a
    lo, hi = int(a.min()), int(a.max())
    for t in (np.int8, np.int16, np.int32):
        if np.iinfo(t).min <= lo and hi <= np.iinfo(t).max:
            return a.astype(t)
    return a.astype(np.int64)


__all__ = ["ScanData", "compact"]
