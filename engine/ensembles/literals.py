"""Boolean literals derived from any data set, for decision lists and k-DT.

A literal is a true/false test of one feature:

- categorical feature A with values v_1..v_m: ``A = v`` for every value (one-hot), and, when A has
  three or more values, also ``A != v`` (for two values ``A != v1`` is ``A = v2``, so it is left out);
- numeric feature x: thresholds t at the quantiles 1/(q+1), ..., q/(q+1) of its known values
  (``n_thresholds = q``, duplicates dropped, only cuts with rows on both sides); a feature with at
  most q+1 distinct values uses the midpoints between consecutive values instead (a 0/1 column gets
  t = 0.5). Each t gives ``x <= t`` and ``x > t``.

A literal is false on a row whose value is missing. Literals are listed in a fixed order: features in
column order; ``A = v`` by value, then ``A != v``; thresholds ascending, ``<=`` before ``>``. A
*monomial* (a test of a decision list or a k-DT node) is a conjunction of literals, at most k of them.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from engine.errors import ConfigError, DataError
from engine.split.records import format_number

OPS = ("=", "!=", "<=", ">")


@dataclass(frozen=True)
class Literal:
    """``feature op value``; ``code`` is the category code for = / != (-1 for numeric literals)."""

    feature: str
    op: str
    value: str | float
    code: int = -1

    def text(self) -> str:
        value = format_number(self.value) if isinstance(self.value, float) else self.value
        return f"{self.feature} {self.op} {value}"

    def __repr__(self) -> str:
        return f"Literal({self.text()!r})"

    def holds(self, column: np.ndarray) -> np.ndarray:
        """Boolean mask over an encoded column (False where the value is missing)."""
        col = np.asarray(column, dtype=float)
        known = ~np.isnan(col)
        safe = np.where(known, col, 0.0)
        if self.op == "=":
            out = safe == self.code
        elif self.op == "!=":
            out = safe != self.code
        elif self.op == "<=":
            out = safe <= self.value
        else:
            out = safe > self.value
        return out & known


def monomial_text(literals) -> str:
    """``A = v AND x <= 3`` (``TRUE`` for the empty conjunction)."""
    return " AND ".join(lit.text() for lit in literals) if literals else "TRUE"


def check_int(name: str, value, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not low <= value <= high:
        raise ConfigError(f"{name} must be a whole number from {low} to {high}; got {value!r}.")
    return int(value)


def numeric_thresholds(values: np.ndarray, n_thresholds: int) -> np.ndarray:
    """Cut points of one numeric column (see the module docstring)."""
    known = np.unique(values[~np.isnan(values)])
    if known.size < 2:
        return np.empty(0)
    if known.size <= n_thresholds + 1:
        return (known[:-1] + known[1:]) / 2
    qs = np.arange(1, n_thresholds + 1) / (n_thresholds + 1)
    cuts = np.unique(np.quantile(values[~np.isnan(values)], qs))
    return cuts[(cuts >= known[0]) & (cuts < known[-1])]


def make_literals(dataset, *, n_thresholds: int = 3, negations: bool = True) -> tuple[Literal, ...]:
    """Every literal of ``dataset``'s features, in the fixed order of the module docstring."""
    n_thresholds = check_int("n_thresholds", n_thresholds, 1, 50)
    if not dataset.feature_names:
        raise DataError("There is no feature to build tests from: mark at least one column numeric or categorical.")
    out: list[Literal] = []
    X, schema = dataset.X, dataset.schema
    for j, (name, kind) in enumerate(zip(schema.feature_names, schema.kinds)):
        if kind == "categorical":
            labels = schema.categories[j]
            present = np.unique(X[~np.isnan(X[:, j]), j]).astype(np.int64)
            out += [Literal(name, "=", labels[c], int(c)) for c in present]
            if negations and present.size >= 3:
                out += [Literal(name, "!=", labels[c], int(c)) for c in present]
        else:
            for t in numeric_thresholds(X[:, j], n_thresholds):
                out += [Literal(name, "<=", float(t)), Literal(name, ">", float(t))]
    if not out:
        raise DataError("Every feature has a single value, so no test can tell rows apart.")
    return tuple(out)


def literal_matrix(literals, schema, X: np.ndarray) -> np.ndarray:
    """(n_literals, n_rows) boolean: which rows satisfy which literal."""
    X = np.asarray(X, dtype=float)
    out = np.zeros((len(literals), X.shape[0]), dtype=bool)
    for i, lit in enumerate(literals):
        out[i] = lit.holds(X[:, schema.index(lit.feature)])
    return out
