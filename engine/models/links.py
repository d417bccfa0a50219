"""Links of additive models: the function from summed leaf scores (margins) to the answer.

- ``identity``: the margin itself (regression);
- ``logistic``: :math:`p = 1 / (1 + e^{-m})` on one margin column; a classifier's probabilities are
  ``(1 - p, p)`` for its classes ``(negative, positive)``;
- ``softmax``: :math:`p_k = e^{m_k - \\max m} / \\sum_j e^{m_j - \\max m}` over K columns;
- ``exp``: :math:`e^{m}` (Poisson, Gamma and Tweedie regression, whose margin is a log).
"""

from __future__ import annotations

import numpy as np


def sigmoid(m: np.ndarray) -> np.ndarray:
    """:math:`1/(1+e^{-m})` without overflow for large negative margins."""
    m = np.asarray(m, dtype=float)
    e = np.exp(-np.abs(m))
    return np.where(m >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def softmax(m: np.ndarray) -> np.ndarray:
    z = np.exp(m - m.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


def apply_link(link: str, margin: np.ndarray, task: str) -> np.ndarray:
    """Classification: (n, K) probabilities; regression: (n,) values, from margins (n, outputs)."""
    if link == "softmax":
        return softmax(margin)
    if link == "logistic":
        p = sigmoid(margin[:, 0])
        return np.column_stack([1.0 - p, p]) if task == "classification" else p
    if link == "exp":
        with np.errstate(over="ignore"):
            return np.exp(margin[:, 0])
    return margin[:, 0]
