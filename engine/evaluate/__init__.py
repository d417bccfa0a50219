"""Evaluating trees and settings: metrics, holdout and cross-validation, curves, instability.

``metrics`` (accuracy, F1, confusion matrices, R2, MSE), ``validation`` (holdout, k-fold
cross-validation, fitting for evaluation), ``curves`` (overfitting and learning curves) and
``stability`` (how much a tree changes when the data are resampled).
"""

from engine.evaluate.metrics import evaluate
from engine.evaluate.validation import CVResult, cross_validate, holdout

__all__ = [
    "evaluate", "CVResult", "cross_validate", "holdout",
]
