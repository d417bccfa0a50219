"""The Evaluate page: ``context`` decides which tree and rows are scored (and keeps results until the data,
split or settings change); ``tabs`` draws metrics, cross-validation, the overfitting and learning curves
and instability.
"""
