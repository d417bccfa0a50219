"""Pruning: a grown tree in, a new smaller tree out, with one logged decision per step.

One module per method: ``reduced_error`` (and pruning by hand), ``cost_complexity`` (weakest-link path
and its cross-validation), ``pessimistic`` (C4.5/J48's confidence limit, subtree raising, whose branch
estimates ``raising`` computes for many nodes at once) and
``bottom_up`` (f(T, m) with validation error, the MDL bound of ``mdl`` or the pessimistic estimate);
``records`` holds what they all return, ``scoring`` and ``checks`` what they share, and ``methods``
runs any of them by name.
"""

from engine.prune.methods import METHODS, prune
from engine.prune.records import PruneResult, PruneStep

__all__ = [
    "METHODS", "prune", "PruneResult", "PruneStep",
]
