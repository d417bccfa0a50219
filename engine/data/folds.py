"""k folds of a data set's rows: a seeded, optionally stratified partition of ``range(n)``.

Cross-validation (:mod:`engine.evaluate.validation`) and cost-complexity pruning's cross-validation
(:mod:`engine.prune.cost_complexity`) deal the same folds for the same seed, so both take them from here.
"""

from __future__ import annotations

import numbers

import numpy as np

from engine.checks import shown, whole
from engine.errors import ConfigError, DataError

__all__ = ["kfold_indices", "check_seed", "MAX_ROWS"]

#: the most rows folds are dealt for (the loader refuses more than 2,000,000 rows anyway).
MAX_ROWS = 100_000_000


def check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ConfigError(f"seed must be a whole number 0 or larger; got {shown(seed)}.")
    return int(seed)


def kfold_indices(n: int, k: int = 5, *, y=None, seed: int = 0) -> tuple[np.ndarray, ...]:
    """Test positions of each of ``k`` folds that partition ``range(n)`` (sorted arrays).

    With ``y`` (class codes) the folds are stratified: each class's rows, shuffled, are dealt to
    folds 0, 1, ..., k-1, 0, ... continuing where the previous class stopped.
    """
    n = whole("n (the number of rows)", n, 0, MAX_ROWS)
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 2:
        raise ConfigError(f"k (the number of folds) must be a whole number of at least 2; got {shown(k)}.")
    if k > n:
        raise DataError(f"{k} folds need at least {k} rows; there are {n}. Choose fewer folds.")
    rng = np.random.default_rng(check_seed(seed))
    if y is None:
        order = rng.permutation(n)
    else:
        y = np.asarray(y)
        if y.shape != (n,):
            raise DataError(f"Expected {n} class codes for stratified folds, got {y.size}.")
        order = np.concatenate([rng.permutation(np.flatnonzero(y == c)) for c in np.unique(y)])
    fold_of = np.empty(n, dtype=np.int64)
    fold_of[order] = np.arange(n) % k
    return tuple(np.flatnonzero(fold_of == f) for f in range(k))
