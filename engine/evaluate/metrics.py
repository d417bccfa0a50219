"""Scores of predictions: accuracy, the confusion matrix, per-class precision/recall/F1; MSE, MAE, R^2.

Definitions (the same as ``sklearn.metrics``, so learners meet the same numbers later):

- confusion matrix ``C[i, j]`` = rows of true class ``i`` predicted as class ``j``;
- accuracy = trace(C) / n, error = 1 - accuracy;
- precision_j = C[j, j] / sum_i C[i, j] (of the rows predicted j, the share truly j),
  recall_j = C[j, j] / sum_k C[j, k] (of the rows truly j, the share found),
  F1_j = 2 P_j R_j / (P_j + R_j); a 0/0 counts as 0 (scikit-learn's ``zero_division`` default);
  macro average = plain mean over classes, weighted average = mean weighted by support (true counts);
- MSE = mean (y - y_hat)^2, MAE = mean |y - y_hat|, R^2 = 1 - SSE / SST with
  SST = sum (y - mean y)^2 (R^2 is 1.0 for a perfect fit of a constant target, 0.0 otherwise, and
  NaN for fewer than two rows).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from engine.checks import rows as check_rows
from engine.checks import shown
from engine.errors import DataError

#: metric name -> (task, greater is better, label for people)
METRICS: dict[str, tuple[str, bool, str]] = {
    "accuracy": ("classification", True, "accuracy"),
    "error": ("classification", False, "error rate"),
    "macro_f1": ("classification", True, "macro F1"),
    "r2": ("regression", True, "R²"),
    "mse": ("regression", False, "MSE"),
    "mae": ("regression", False, "MAE"),
}


def metrics_for(task: str) -> tuple[str, ...]:
    """Names of the metrics that apply to ``task`` (the first is the default)."""
    return tuple(m for m, (t, _, _) in METRICS.items() if t == task)


def default_metric(task: str) -> str:
    """"accuracy" for classification, "r2" for regression."""
    return metrics_for(task)[0]


def metric_label(metric: str) -> str:
    """How people write the metric: "accuracy", "R²", "MSE", ..."""
    return METRICS[check_metric(metric)][2]


def greater_is_better(metric: str) -> bool:
    return METRICS[check_metric(metric)][1]


def check_metric(metric: str, task: str | None = None) -> str:
    """``metric`` if it is known (and fits ``task``); ConfigError otherwise."""
    from engine.errors import ConfigError
    if not isinstance(metric, str) or metric not in METRICS or (task is not None and METRICS[metric][0] != task):
        allowed = metrics_for(task) if task else tuple(METRICS)
        raise ConfigError(f"metric must be one of {', '.join(allowed)}; got {shown(metric)}.")
    return metric


# ------------------------------------------------------------------------------ classification
def confusion_matrix(y_true, y_pred, n_classes: int) -> np.ndarray:
    """``C[i, j]`` = number of rows with true class code ``i`` predicted as code ``j`` (int64, K x K).

    Codes outside ``0..n_classes-1`` (e.g. -1 for a label the tree never saw) are not counted.
    """
    t = np.asarray(y_true, dtype=np.int64).ravel()
    p = np.asarray(y_pred, dtype=np.int64).ravel()
    if t.shape != p.shape:
        raise DataError(f"There are {t.size} true values but {p.size} predictions.")
    ok = (t >= 0) & (t < n_classes) & (p >= 0) & (p < n_classes)
    flat = np.bincount(t[ok] * n_classes + p[ok], minlength=n_classes * n_classes)
    return flat.reshape(n_classes, n_classes)


def accuracy(y_true, y_pred) -> float:
    """Share of rows predicted correctly (NaN for no rows)."""
    t, p = np.asarray(y_true).ravel(), np.asarray(y_pred).ravel()
    return float(np.mean(t == p)) if t.size else float("nan")


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den with 0/0 -> 0 (scikit-learn's zero_division default)."""
    out = np.zeros(num.shape, dtype=float)
    np.divide(num, den, out=out, where=den > 0)
    return out


def per_class_scores(cm: np.ndarray, classes) -> pd.DataFrame:
    """Precision, recall, F1 and support per class, then "macro avg" and "weighted avg" rows.

    Columns: class, precision, recall, f1, support. ``cm`` is a confusion matrix (rows = truth).
    """
    cm = np.asarray(cm, dtype=float)
    tp = np.diag(cm)
    support = cm.sum(axis=1)
    precision = _ratio(tp, cm.sum(axis=0))
    recall = _ratio(tp, support)
    f1 = _ratio(2 * precision * recall, precision + recall)
    table = pd.DataFrame({"class": [str(c) for c in classes], "precision": precision, "recall": recall,
                          "f1": f1, "support": support.astype(np.int64)})
    total = support.sum()
    weights = support / total if total > 0 else np.zeros_like(support)
    averages = pd.DataFrame({
        "class": ["macro avg", "weighted avg"],
        "precision": [precision.mean(), weights @ precision],
        "recall": [recall.mean(), weights @ recall],
        "f1": [f1.mean(), weights @ f1],
        "support": [int(total), int(total)],
    })
    return pd.concat([table, averages], ignore_index=True)


# ---------------------------------------------------------------------------------- regression
def r2_from_sums(sse: float, sst: float, n: int) -> float:
    """R^2 = 1 - SSE/SST; 1.0 (perfect) or 0.0 when SST = 0; NaN for n < 2 (as scikit-learn)."""
    if n < 2:
        return float("nan")
    if sst <= 0:
        return 1.0 if sse == 0 else 0.0   # scikit-learn's convention for a constant target
    return float(1.0 - sse / sst)


def regression_scores(y_true, y_pred) -> dict[str, float]:
    """{"mse", "rmse", "mae", "r2"} of predictions ``y_pred`` for targets ``y_true``."""
    t = np.asarray(y_true, dtype=float).ravel()
    p = np.asarray(y_pred, dtype=float).ravel()
    if t.shape != p.shape:
        raise DataError(f"There are {t.size} true values but {p.size} predictions.")
    if t.size == 0:
        return {"mse": float("nan"), "rmse": float("nan"), "mae": float("nan"), "r2": float("nan")}
    r = t - p
    sse = float(r @ r)
    mse = sse / t.size
    sst = float(((t - t.mean()) ** 2).sum())
    return {"mse": mse, "rmse": float(np.sqrt(mse)), "mae": float(np.abs(r).mean()),
            "r2": r2_from_sums(sse, sst, t.size)}


# ----------------------------------------------------------------------------- evaluate a tree
def true_codes(tree, dataset) -> np.ndarray:
    """The data set's target as codes into the tree's classes (-1 for a class the tree never saw)."""
    classes = tuple(tree.schema.classes)
    if tuple(dataset.classes) == classes:
        return np.asarray(dataset.y, dtype=np.int64)
    lookup = {c: i for i, c in enumerate(classes)}
    labels = np.asarray(dataset.classes, dtype=object)[dataset.y]
    return np.array([lookup.get(str(v), -1) for v in labels], dtype=np.int64)


def _check_fits(tree, dataset) -> None:
    check_rows("The rows to evaluate", dataset)
    if dataset.task != tree.task:
        raise DataError(f"The tree does {tree.task} but the rows to score have a {dataset.task} target.")
    if len(dataset) == 0:
        raise DataError("There are no rows to evaluate the tree on.")


@dataclass(frozen=True, repr=False)
class Evaluation:
    """A tree's predictions on one set of rows and their scores.

    Classification: ``y_true``/``y_pred`` are class codes into ``classes``, ``confusion`` the matrix,
    ``report`` the per-class table. Regression: target values and predictions, ``confusion``/``report``
    are None. ``scores`` maps every metric of the task (see :data:`METRICS`) to its value.
    """

    name: str
    task: str
    classes: tuple[str, ...]
    y_true: np.ndarray = field(compare=False)
    y_pred: np.ndarray = field(compare=False)
    scores: dict[str, float]
    confusion: np.ndarray | None = field(default=None, compare=False)
    report: pd.DataFrame | None = field(default=None, compare=False)

    @property
    def n(self) -> int:
        return int(self.y_true.size)

    def __repr__(self) -> str:
        main = ", ".join(f"{k}={v:.4g}" for k, v in self.scores.items())
        return f"Evaluation(set={self.name!r}, n={self.n}, {main})"


def evaluate(tree, dataset, name: str = "data") -> Evaluation:
    """Score ``tree`` on ``dataset`` (which must have the tree's features and target)."""
    _check_fits(tree, dataset)
    X = dataset.X if dataset.schema == tree.schema else tree.schema.encode(dataset.frame)
    if tree.task == "regression":
        y = np.asarray(dataset.y, dtype=float)
        pred = tree.predict(X).astype(float)
        scores = regression_scores(y, pred)
        return Evaluation(name, "regression", (), y, pred, {m: scores[m] for m in metrics_for("regression")})
    y = true_codes(tree, dataset)
    pred = tree.predict_codes(X)
    cm = confusion_matrix(y, pred, len(tree.schema.classes))
    report = per_class_scores(cm, tree.schema.classes)
    acc = accuracy(y, pred)
    scores = {"accuracy": acc, "error": 1.0 - acc, "macro_f1": float(report["f1"].iloc[-2])}
    return Evaluation(name, "classification", tuple(tree.schema.classes), y, pred, scores, cm, report)


def score(tree, dataset, metric: str | None = None) -> float:
    """One metric (default: accuracy / R^2) of ``tree`` on ``dataset``."""
    metric = check_metric(default_metric(tree.task) if metric is None else metric, tree.task)
    return evaluate(tree, dataset).scores[metric]


def scores_table(evaluations) -> pd.DataFrame:
    """Metrics (rows) by set (columns "test (100 rows)") for :class:`Evaluation` objects of one task."""
    evaluations = list(evaluations)
    if not evaluations:
        return pd.DataFrame()
    names = list(evaluations[0].scores)
    return pd.DataFrame({f"{e.name} ({e.n:,} rows)": [e.scores[m] for m in names] for e in evaluations},
                        index=[metric_label(m) for m in names])
