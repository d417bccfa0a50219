"""Held-out evaluation: train/test holdouts, k-fold cross-validation, and fitting for evaluation.

k-fold cross-validation estimates how well the *configuration* (not one tree) generalises: the rows
are cut into k folds; for each fold a tree is grown on the other k - 1 folds and scored on it. The
estimate is the mean of the k fold scores, reported with their standard deviation

    mean = (1/k) sum_i s_i,    std = sqrt((1/k) sum_i (s_i - mean)^2)

(numpy's default ``ddof=0``, as in scikit-learn's examples). Folds are stratified for classification:
each class's rows are shuffled and dealt round the folds in turn, so every fold keeps the class mix
and fold sizes differ by at most one row. All randomness comes from ``numpy.random.default_rng(seed)``.

Metric definitions are in :mod:`engine.evaluate.metrics`; curves in :mod:`engine.evaluate.curves`; resampling in
:mod:`engine.evaluate.stability`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from engine.checks import rows as check_rows
from engine.config import TreeConfig
from engine.errors import ConfigError, DataError
from engine.grow.grower import Grower
from engine.budget import check_trees, classes_text, reserving
from engine.grow.parallel import check_n_jobs, concurrency, run_tasks
from engine.data.folds import check_seed as _check_seed
from engine.data.folds import kfold_indices
from engine.evaluate.metrics import check_metric, default_metric, evaluate, metric_label, metrics_for

#: validation share carved out of a training part when the config needs validation rows.
VALIDATION_SHARE = 0.2


def holdout(train, test=None, *, test_size: float = 0.3, seed: int = 0):
    """``(train, test, borrowed)``: ``test`` when it has rows, else a held-out part of ``train``.

    Small textbook data sets train on every row, so the curves need held-out rows of their own:
    ``borrowed`` is True when the returned test rows were cut from ``train`` (stratified,
    ``test_size`` of it, seeded) and the returned train is the rest.
    """
    if check_rows("test", test, allow_none=True) is not None and len(test) > 0:
        return train, test, False
    if len(train) < 4:
        raise DataError(f"With {len(train)} training rows there is nothing to hold out; "
                        "load more rows or set a test share on the Data page.")
    part = train.split(test_size=test_size, seed=_check_seed(seed))
    return part.train, part.test, True


def fit_for_evaluation(train, config: TreeConfig, *, seed: int = 0, sample_weight=None,
                       validation=None):
    """A fully grown tree of ``config`` on ``train``.

    When the config stops splits on validation accuracy (``validation=True``) and no validation rows
    are given, ``VALIDATION_SHARE`` of ``train`` is held out for it (seeded), so every method here
    works with every configuration.
    """
    if config.validation and validation is None:
        if len(train) < 5:
            raise DataError(f"With {len(train)} training rows there are too few to keep some for "
                            "validation; switch validation off in the tree settings.")
        part = train.split(test_size=VALIDATION_SHARE, seed=_check_seed(seed))
        if sample_weight is not None:
            keep = pd.Index(train.row_ids).get_indexer(part.train.row_ids)
            sample_weight = np.asarray(sample_weight, dtype=float)[keep]
        train, validation = part.train, part.test
    grower = Grower(train, config, sample_weight=sample_weight, validation_data=validation)
    return grower.grow().tree


# --------------------------------------------------------------------------------------- folds
@dataclass(frozen=True, repr=False)
class CVResult:
    """Cross-validation of one configuration.

    ``folds``: one row per fold: fold, n_train, n_test, n_leaves, depth, then ``train_<metric>`` and
    ``test_<metric>`` for every metric of the task. ``metric`` is the main one (accuracy or R^2).
    """

    k: int
    seed: int
    task: str
    metric: str
    folds: pd.DataFrame = field(compare=False)

    def mean(self, metric: str | None = None, part: str = "test") -> float:
        return float(self.folds[f"{part}_{metric or self.metric}"].mean())

    def std(self, metric: str | None = None, part: str = "test") -> float:
        return float(self.folds[f"{part}_{metric or self.metric}"].std(ddof=0))

    def summary(self) -> pd.DataFrame:
        """Mean and standard deviation of every metric over the folds, for the train and test parts."""
        rows = []
        for m in metrics_for(self.task):
            rows.append({"metric": metric_label(m), "test mean": self.mean(m), "test std": self.std(m),
                         "train mean": self.mean(m, "train"), "train std": self.std(m, "train")})
        return pd.DataFrame(rows)

    def __repr__(self) -> str:
        return (f"CVResult(k={self.k}, {self.metric}={self.mean():.4f} ± {self.std():.4f}, "
                f"seed={self.seed})")


@reserving
def cross_validate(dataset, config: TreeConfig, *, k: int = 5, seed: int = 0, progress=None,
                   n_jobs: int | None = None, should_stop=None) -> CVResult:
    """k-fold cross-validation of ``config`` on ``dataset`` (stratified for classification).

    ``progress(done, total)`` is called after each fold (for a progress bar); ``n_jobs`` folds grow at
    once (None: all cores, see :func:`engine.grow.parallel.run_tasks`); the result does not depend on it.
    """
    if not isinstance(config, TreeConfig):
        raise ConfigError("config must be a TreeConfig.")
    seed = _check_seed(seed)
    strat = dataset.y if dataset.task == "classification" else None
    folds = kfold_indices(len(dataset), k, y=strat, seed=seed)
    n_train = len(dataset) - min(len(f) for f in folds)
    check_trees(dataset, config, what=f"Cross-validation with {len(folds)} folds of {len(dataset):,} rows"
                       f"{classes_text(dataset)}", n_trees=len(folds), n_rows=n_train, shipped_rows=len(dataset),
                       at_once=concurrency(n_jobs, len(folds), len(dataset) * (len(folds) - 1)))
    tasks = [(dataset, i, test_idx, config, seed + i) for i, test_idx in enumerate(folds)]
    records = run_tasks(fold_record, tasks, n_jobs=check_n_jobs(n_jobs), progress=progress, should_stop=should_stop,
                        rows=len(dataset) * (len(folds) - 1), shared=(dataset,))
    return CVResult(k=int(k), seed=seed, task=dataset.task, metric=default_metric(dataset.task),
                    folds=pd.DataFrame(records))


def fold_record(dataset, i: int, test_idx: np.ndarray, config: TreeConfig, seed: int) -> dict:
    """Fold ``i`` of :func:`cross_validate`: grow on the other rows, score on both parts."""
    train = dataset.subset(np.setdiff1d(np.arange(len(dataset)), test_idx, assume_unique=True))
    test = dataset.subset(test_idx)
    tree = fit_for_evaluation(train, config, seed=seed)
    rec = {"fold": i + 1, "n_train": len(train), "n_test": len(test), "n_leaves": tree.n_leaves,
           "depth": tree.depth}
    for part, rows in (("train", train), ("test", test)):
        for m, v in evaluate(tree, rows, part).scores.items():
            rec[f"{part}_{m}"] = v
    return rec


def evaluate_sets(tree, sets) -> list:
    """:func:`engine.evaluate.metrics.evaluate` for each non-empty ``(name, dataset)`` pair, in order."""
    return [evaluate(tree, ds, name) for name, ds in sets if ds is not None and len(ds) > 0]


def check_metric_for(task: str, metric: str | None) -> str:
    """The metric to use for ``task``: ``metric`` checked, or the task's default."""
    return check_metric(metric or default_metric(task), task)
