"""Ensembles and other learners built on the engine's tree growth.

- :func:`fit_bagging`, :func:`fit_random_forest`, :func:`fit_adaboost` -> :class:`Ensemble`
  (members, vote weights, in-bag counts, AdaBoost rounds); :func:`vote_breakdown`, :func:`size_curve`,
  :func:`error_correlation` (the variance argument), :func:`impurity_importances`,
  :func:`permutation_importances`.
- :func:`fit_gradient_boosting` -> :class:`GradientEnsemble` (gradient boosting, one round at a time; the
  subfolder :mod:`engine.ensembles.gradient`).
- :class:`DecisionListLearner` / :func:`learn_decision_list` (k-DL, DECISION-LIST-LEARNING) and
  :func:`fit_kdt` (k-DT via monomial features and the normal grower).

No second tree implementation: every tree here comes from :func:`engine.grow.grower.fit_tree` or a
:class:`engine.grow.grower.Grower`.
"""

from engine.ensembles.analysis import VarianceReport, error_correlation, error_matrix, size_curve
from engine.ensembles.bootstrap import draw_bootstrap
from engine.ensembles.bagging import fit_bagging
from engine.ensembles.decision_list import DecisionList, DecisionListLearner, DLRule, learn_decision_list
from engine.ensembles.boosting import BoostRound, StumpDraw, fit_adaboost, hypothesis_weight
from engine.ensembles.forest import (fit_random_forest, impurity_importances, node_feature_draws,
                                     permutation_importances)
from engine.ensembles.gradient import GBRound, GradientEnsemble, fit_gradient_boosting, round_grower
from engine.ensembles.kdt import KDTResult, fit_kdt
from engine.ensembles.literals import Literal, literal_matrix, make_literals
from engine.ensembles.votes import Ensemble, Member, VoteBreakdown, vote_breakdown

__all__ = [
    "Ensemble", "Member", "VoteBreakdown", "vote_breakdown", "fit_bagging", "draw_bootstrap",
    "fit_random_forest", "impurity_importances", "permutation_importances", "fit_adaboost", "BoostRound",
    "StumpDraw", "hypothesis_weight", "size_curve", "error_correlation", "error_matrix", "VarianceReport",
    "DecisionList", "DecisionListLearner", "DLRule", "learn_decision_list", "KDTResult", "fit_kdt", "Literal",
    "literal_matrix", "make_literals", "node_feature_draws", "fit_gradient_boosting", "GradientEnsemble", "GBRound",
    "round_grower",
]
