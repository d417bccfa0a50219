"""Level-wise growth: the same tree as stepping a :class:`~engine.grow.grower.Grower` to the end, with Python
overhead per level instead of per node.

Used for numeric features without missing values, breadth- or depth-first order, no validation rule.
Both searches grow in :func:`engine.grow.fastexact.grow_exact`: exact search from sorted orders, histogram
search with the bin-code scans of :mod:`engine.grow.fasthist` on nodes of more than ``max_bins`` rows.
With J48's rules (the C4.5 preset) :func:`engine.grow.c45grow.grow_c45` grows instead, on any features and
missing values (breadth-first, all features at every node, no ``random_state``, no validation rule).
"""

from __future__ import annotations

import numpy as np

from engine.grow.c45grow import c45_eligible, grow_c45
from engine.grow.fastexact import grow_exact
from engine.grow.levelstore import FastResult


def fast_eligible(grower) -> bool:
    cfg = grower.config
    if cfg.c45_rules:
        return c45_eligible(grower)
    return (cfg.effective_order in ("breadth", "depth") and not cfg.validation and not cfg.c45_rules
            and all(k == "numeric" for k in grower.schema.kinds)
            and not np.isnan(grower.X).any())


def grow_levelwise(grower, threads: int = 1) -> FastResult:
    """The whole tree, level by level (:func:`engine.grow.fastexact.grow_exact`, exact or histogram search,
    each level's pieces on ``threads`` threads, the same tree for any number; with J48's rules
    :func:`engine.grow.c45grow.grow_c45`, on one thread)."""
    if grower.config.c45_rules:
        return grow_c45(grower)
    return grow_exact(grower, threads)


__all__ = ["fast_eligible", "grow_levelwise", "FastResult"]
