"""Stopping rules: why a node becomes a leaf. All rules in one place, each with its reason string.

A node is split only if none of these holds (checked in this order, the first reason is recorded):

- ``pure``: its impurity is 0;
- ``max_depth``: depth >= max_depth;
- ``min_samples_split``: fewer rows than min_samples_split;
- ``min_samples_leaf``: fewer than 2 * min_samples_leaf rows, so no split can leave enough in each child
  (with J48's ``min_split`` rule: less than 2 M case weight);
- ``no_split``: no feature has a valid split (all values equal, or children would be too small);
- ``min_gain``: the best split's own gain is below min_gain (the lecture notes' minimum gain);
- ``min_impurity_decrease``: the weighted decrease ``w_node / w_root * gain`` is below min_impurity_decrease
  (scikit-learn's rule);
- ``chi2``: the best split's chi-square test has p-value > chi2_alpha (not significant);
- ``validation``: splitting does not raise accuracy on the validation rows reaching the node;
- ``max_leaf_nodes``: the tree already has max_leaf_nodes leaves (checked by the grower).
"""

from __future__ import annotations

import numpy as np

STOP_REASONS = {
    "pure": "all rows have the same label",
    "max_depth": "the maximum depth is reached",
    "min_samples_split": "too few rows to split",
    "min_samples_leaf": "no split leaves enough rows in every child",
    "no_split": "no feature separates the rows",
    "min_gain": "the best gain is below the minimum",
    "min_impurity_decrease": "the weighted impurity decrease is below the minimum",
    "chi2": "the best split is not statistically significant",
    "validation": "splitting does not improve validation accuracy",
    "max_leaf_nodes": "the maximum number of leaves is reached",
    "collapsed": "collapsed by hand",
    "pruned": "pruned",
}

EPS = 1e-12


def pre_split_reason(node, config) -> str | None:
    """Reasons that need no split search."""
    j48 = "min_split" in (getattr(config, "c45_rules", None) or ())
    if node.impurity <= EPS or (j48 and node.weight - max(node.stats) < 1e-6):   # J48: Utils.eq(total, max)
        return "pure"
    if config.max_depth is not None and node.depth >= config.max_depth:
        return "max_depth"
    if node.n_node_samples < config.min_samples_split:
        return "min_samples_split"
    if node.n_node_samples < 2 * config.min_samples_leaf:
        return "min_samples_leaf"
    if j48 and 2 * config.min_samples_leaf - node.weight > 1e-6:
        return "min_samples_leaf"
    return None


PRE_SPLIT = ("pure", "max_depth", "min_samples_split", "min_samples_leaf")


def pre_split_codes(impurity, depth, n_samples, config):
    """:func:`pre_split_reason` for many nodes at once: per node the index into ``PRE_SPLIT`` of the first
    reason that holds, or -1 when the node may be split (the level-wise growers' vectorised check)."""
    impurity, depth, n_samples = np.asarray(impurity), np.asarray(depth), np.asarray(n_samples)
    code = np.full(impurity.shape, -1, dtype=np.int8)
    code[n_samples < 2 * config.min_samples_leaf] = 3    # later rules first: earlier ones overwrite
    code[n_samples < config.min_samples_split] = 2
    if config.max_depth is not None:
        code[depth >= config.max_depth] = 1
    code[impurity <= EPS] = 0
    return code


def post_split_reason(best, config, task, share: float = 1.0) -> str | None:
    """Reasons that need the best split (``best`` None means there is no valid split); ``share`` is the
    node's weight over the root's (scikit-learn's N_t / N)."""
    if best is None:
        return "no_split"
    if best.gain + EPS < config.min_gain:
        return "min_gain"
    if share * best.gain + EPS < config.min_impurity_decrease:
        return "min_impurity_decrease"
    if config.chi2_alpha is not None and task == "classification":
        if not (best.p_value <= config.chi2_alpha):
            return "chi2"
    return None


def validation_gain(parent_pred: int, child_preds, val_y, parent_rows, child_rows) -> float:
    """Validation accuracy gained (weighted correct rows) by replacing a leaf with its children."""
    idx, w = parent_rows
    before = float(w[val_y[idx] == parent_pred].sum())
    after = 0.0
    for pred, (cidx, cw) in zip(child_preds, child_rows):
        after += float(cw[val_y[cidx] == pred].sum())
    return after - before


def describe_reason(reason: str | None) -> str:
    return STOP_REASONS.get(reason or "", reason or "")

