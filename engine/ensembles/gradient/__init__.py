"""Gradient boosting: each round's regression tree fits the pseudo-residuals of the rounds before it.

- :func:`fit_gradient_boosting` -> :class:`GradientEnsemble` (an :class:`engine.ensembles.Ensemble` whose
  prediction is F_0 + learning rate x the sum of its trees), with per-round :class:`GBRound` records,
  ``raw`` / ``staged_raw`` / ``staged_predict`` / ``contributions``; :func:`round_grower` grows a round's
  tree again split by split.
- Losses (:mod:`.losses`): squared error, log-loss (two classes), multinomial log-loss (K trees a round),
  with the leaf values and start values scikit-learn's ``GradientBoosting*`` uses.
- :class:`ResidualData` (:mod:`.target`): the training features with the residuals as numeric target, the
  data a round's tree is grown on by :class:`engine.grow.grower.Grower`.
"""

from engine.ensembles.gradient.fit import fit_gradient_boosting, round_grower
from engine.ensembles.gradient.losses import LogLoss, MultinomialLogLoss, SquaredError, make_loss
from engine.ensembles.gradient.model import GBRound, GradientEnsemble
from engine.ensembles.gradient.target import ResidualData

__all__ = ["fit_gradient_boosting", "round_grower", "GradientEnsemble", "GBRound", "ResidualData", "SquaredError",
           "LogLoss", "MultinomialLogLoss", "make_loss"]
