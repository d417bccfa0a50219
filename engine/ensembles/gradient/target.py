"""The data a boosting round's tree is grown on: the training features with the pseudo-residuals as target.

:class:`ResidualData` looks like an :class:`engine.data.Dataset` with a numeric target to the grower
(``X``, ``y``, ``schema``, ``task``, ``classes``, ``feature_names``, ``target``, ``len``, ``subset``), so the
round's tree is an ordinary regression tree grown by :class:`engine.grow.grower.Grower` with the variance
criterion, split by split if a page wants, with the usual gain tables. It shares the data set's encoded
feature matrix (no copy); only the residual column is its own. The rounds of one fit share one ``cache``
(what the grower derives from the data apart from the target: the budget's pilot tree), else each round
would grow a pilot tree on a sample, whose presort also evicts the training matrix's kept column orders
(:func:`engine.grow.roworders.presorted` keeps one matrix) so that every round sorted all features again.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np


class ResidualData:
    """The features of ``dataset`` with ``residuals`` (one float per row) as a numeric target named ``name``."""

    task = "regression"
    classes: tuple[str, ...] = ()

    def __init__(self, dataset, residuals: np.ndarray, name: str = "residual", cache: dict | None = None):
        y = np.asarray(residuals, dtype=float)
        if y.shape != (len(dataset),):
            raise ValueError("one residual per training row is needed")
        y.flags.writeable = False
        self._base, self._y, self.target = dataset, y, name
        self.schema = replace(dataset.schema, target=name, task="regression", classes=())
        self.name = getattr(dataset, "name", "data")
        # derived values (the memory budget's pilot tree, :func:`engine.grow.grower.pilot_share`): a fit passes
        # one dict to all its rounds, so the pilot is grown once per fit, not once per round
        self._cache = {} if cache is None else cache

    def __len__(self) -> int:
        return self._y.size

    def __repr__(self) -> str:
        return f"ResidualData(rows={len(self)}, features={len(self.feature_names)}, target={self.target!r})"

    @property
    def X(self) -> np.ndarray:
        return self._base.X

    @property
    def y(self) -> np.ndarray:
        return self._y

    @property
    def feature_names(self) -> tuple[str, ...]:
        return self._base.feature_names

    def subset(self, rows) -> "ResidualData":
        """The rows at these positions (the budget's pilot tree draws a sample)."""
        return ResidualData(self._base.subset(rows), self._y[rows], self.target)
