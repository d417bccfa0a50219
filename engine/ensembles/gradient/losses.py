"""The losses gradient boosting minimises: start value, pseudo-residuals, leaf values, loss, probabilities.

Each loss works on the model's *raw* output F (one column; K columns for multinomial log-loss):

=====================  =========================  ========================  ==================================
loss                   start F_0                  pseudo-residual r         leaf value (rows i in the leaf)
=====================  =========================  ========================  ==================================
``squared_error``      mean(y)                    y - F                     mean(r_i)  (the tree's own mean)
``log_loss`` (2)       ln(p / (1 - p)), p = P(1)  y - p(F), p = 1/(1+e^-F)  sum r_i / sum p_i (1 - p_i)
``log_loss`` (K > 2)   ln p_k - mean_j ln p_j     y_k - p_k(F), softmax     (K-1)/K sum r_ik / sum p_ik (1 - p_ik)
=====================  =========================  ========================  ==================================

The log-loss leaves are one Newton step (Friedman 2001, Algorithm 1 step 5; Friedman, Hastie and
Tibshirani 2000), exactly as scikit-learn's ``GradientBoostingClassifier`` sets them (a denominator
below 1e-150 gives 0). Sums are weighted by the row weights (0 for rows left out by ``subsample``).
Shapes: ``y`` is (n,) values or class codes; ``raw`` is (n, K) with K = 1 except for multinomial.
"""

from __future__ import annotations

import numpy as np

from engine.errors import ConfigError

#: probabilities are clipped to [EPS, 1 - EPS] before their log-odds are taken (as scikit-learn)
EPS = np.finfo(np.float64).eps


def expit(f: np.ndarray) -> np.ndarray:
    """The sigmoid 1 / (1 + e^-f), without overflow for large |f|."""
    e = np.exp(-np.abs(f))
    return np.where(f >= 0, 1 / (1 + e), e / (1 + e))


def logsumexp(f: np.ndarray, axis: int = 1, keepdims: bool = False) -> np.ndarray:
    """ln sum_k e^{f_k} along ``axis``, shifted by the largest value so nothing overflows."""
    top = f.max(axis=axis, keepdims=True)
    out = top + np.log(np.exp(f - top).sum(axis=axis, keepdims=True))
    return out if keepdims else np.squeeze(out, axis=axis)


def safe_divide(num: float, den: float) -> float:
    """num / den, or 0 when |den| < 1e-150 (every row in the leaf already certain: no Newton step)."""
    return 0.0 if abs(den) < 1e-150 else float(num) / float(den)


class SquaredError:
    """Half squared error (y - F)^2 / 2 for a numeric target; the negative gradient is the residual y - F."""

    name = "squared_error"
    task = "regression"

    def __init__(self, n_classes: int = 0):
        self.n_trees = 1

    def init_raw(self, y: np.ndarray, w: np.ndarray) -> np.ndarray:
        return np.array([np.average(y, weights=w)])

    def residuals(self, y: np.ndarray, raw: np.ndarray) -> np.ndarray:
        return (y - raw[:, 0])[:, None]

    def leaf_value(self, r: np.ndarray, p: np.ndarray, w: np.ndarray) -> float | None:
        return None                                  # the tree's weighted mean of r is already the step

    def loss(self, y: np.ndarray, raw: np.ndarray) -> float:
        """Mean squared error (the figure people read; half of it is what the gradient comes from)."""
        return float(np.mean((y - raw[:, 0]) ** 2)) if y.size else float("nan")

    def probabilities(self, raw: np.ndarray) -> np.ndarray:
        return raw


class LogLoss:
    """Log-loss -y ln p - (1 - y) ln(1 - p) with p = sigmoid(F): two classes, F the log-odds of the second."""

    name = "log_loss"
    task = "classification"

    def __init__(self, n_classes: int = 2):
        self.n_trees = 1

    def init_raw(self, y: np.ndarray, w: np.ndarray) -> np.ndarray:
        p = float(np.clip(np.average(y == 1, weights=w), EPS, 1 - EPS))
        return np.array([np.log(p / (1 - p))])

    def probabilities(self, raw: np.ndarray) -> np.ndarray:
        p1 = expit(raw[:, 0])
        return np.stack([1 - p1, p1], axis=1)

    def residuals(self, y: np.ndarray, raw: np.ndarray) -> np.ndarray:
        return ((y == 1) - expit(raw[:, 0]))[:, None]

    def leaf_value(self, r: np.ndarray, p: np.ndarray, w: np.ndarray) -> float:
        return safe_divide(np.average(r, weights=w), np.average(p * (1 - p), weights=w))

    def loss(self, y: np.ndarray, raw: np.ndarray) -> float:
        """Mean log-loss: ln(1 + e^F) - y F, computed without overflow."""
        if not y.size:
            return float("nan")
        f = raw[:, 0]
        return float(np.mean(np.logaddexp(0, f) - (y == 1) * f))


class MultinomialLogLoss:
    """Cross-entropy -ln p_y with p = softmax(F_1..F_K): one tree per class and round."""

    name = "log_loss"
    task = "classification"

    def __init__(self, n_classes: int):
        self.n_trees = self.k = int(n_classes)

    def init_raw(self, y: np.ndarray, w: np.ndarray) -> np.ndarray:
        p = np.clip(np.bincount(y, weights=w, minlength=self.k) / w.sum(), EPS, 1 - EPS)
        return np.log(p) - np.log(p).mean()          # scikit-learn's symmetric link: the same softmax

    def probabilities(self, raw: np.ndarray) -> np.ndarray:
        return np.exp(raw - logsumexp(raw, axis=1, keepdims=True))

    def residuals(self, y: np.ndarray, raw: np.ndarray) -> np.ndarray:
        return np.eye(self.k)[y] - self.probabilities(raw)

    def leaf_value(self, r: np.ndarray, p: np.ndarray, w: np.ndarray) -> float:
        num = np.average(r, weights=w) * (self.k - 1) / self.k
        return safe_divide(num, np.average(p * (1 - p), weights=w))

    def loss(self, y: np.ndarray, raw: np.ndarray) -> float:
        if not y.size:
            return float("nan")
        return float(np.mean(logsumexp(raw, axis=1) - raw[np.arange(y.size), y]))


LOSSES = {"squared_error": SquaredError, "log_loss": LogLoss}


def make_loss(name: str | None, task: str, n_classes: int):
    """The loss object for ``name`` (None: squared error for numbers, log-loss for classes)."""
    allowed = ("squared_error",) if task == "regression" else ("log_loss",)
    name = allowed[0] if name is None else name
    if name not in allowed:
        what = "a numeric target" if task == "regression" else "a class target"
        raise ConfigError(f"loss must be {' or '.join(repr(a) for a in allowed)} for {what}; got {name!r}.")
    if task == "classification" and n_classes > 2:
        return MultinomialLogLoss(n_classes)
    return LOSSES[name](n_classes)
