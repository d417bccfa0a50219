"""Figures for gradient boosting, one round at a time (a subfolder: engine/viz holds its dozen modules).

``figs``: the residuals a round's tree fits against one or two features, the running prediction before and
after the round along one feature, and the training and test loss against the rounds.
"""

from engine.viz.boosting.figs import loss_figure, residual_figure, running_curve, running_figure

__all__ = ["residual_figure", "running_curve", "running_figure", "loss_figure"]
