"""Tree surgery for pruning: route rows through a structure, refit its numbers, move subtrees, compare trees.

A :class:`engine.tree.Tree` is immutable; every function here returns new nodes or a new tree and keeps
node ids stable (ids removed from the tree become ``None`` entries).

- :func:`node_rows` sends rows down from a node and reports which rows (and what share of each row's
  weight) reach every node below it. A row whose value is missing at a split goes down every branch with
  its weight multiplied by the branch's share of the known training weight (C4.5), as in prediction.
- :func:`refit` recomputes each node's statistics (class counts or (w, sum wy, sum wy^2)), impurity,
  value and prediction, and each split's child statistics and gain, from data routed through the
  structure. Subtree raising needs it: the raised subtree then receives all of the node's rows.
- :func:`raise_child`, :func:`cut` and :class:`Draft` (tree edits) live in :mod:`engine.tree.edit`.
- :func:`is_subtree_of` checks that a pruned tree is the original with some subtrees cut to leaves.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from engine.errors import DataError
from engine.checks import shown
from engine.split.impurity import get_criterion
from engine.tree.build import make_node, unit_stats
from engine.tree.node import Node
from engine.tree.store import Tree
from engine.tree.edit import Draft, cut, leaf_predicting, raise_child

__all__ = ["node_rows", "refit", "refit_changes", "Draft", "cut", "raise_child", "leaf_predicting", "is_subtree_of",
           "removed_ids", "collapsed_ids", "as_xy", "target_codes"]


# ------------------------------------------------------------------------------------------ data
def target_codes(tree: Tree, y) -> np.ndarray:
    """``y`` as the tree's targets: class codes into ``tree.schema.classes`` (from codes or labels), or floats."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise DataError(f"The target must be one value per row; got an array of shape {y.shape}.")
    if tree.task == "regression":
        try:
            out = y.astype(float)
        except (TypeError, ValueError):
            raise DataError("A regression tree needs numeric target values.") from None
        if not np.all(np.isfinite(out)):
            raise DataError("The target has missing or infinite values; remove those rows first.")
        return out
    classes = tree.schema.classes
    if np.issubdtype(y.dtype, np.integer):
        if y.size and (y.min() < 0 or y.max() >= len(classes)):
            raise DataError(f"Class codes must lie between 0 and {len(classes) - 1}.")
        return y.astype(np.int64)
    lookup = {c: i for i, c in enumerate(classes)}
    labels = pd.Series(y, dtype="string").str.strip()
    unknown = sorted(set(labels.dropna()) - set(lookup))
    if unknown or labels.isna().any():
        what = f"the class {unknown[0]!r}" if unknown else "a missing class"
        raise DataError(f"The rows contain {what}, which the tree does not know.")
    return labels.map(lookup).to_numpy(dtype=np.int64)


def as_xy(tree: Tree, data) -> tuple[np.ndarray, np.ndarray]:
    """(encoded X, targets) of a Dataset, or of an ``(X, y)`` pair, in ``tree``'s encoding."""
    if isinstance(data, tuple) and len(data) == 2:
        X, y = data
        try:
            X = tree._encode(X)
            y = target_codes(tree, y)
        except (TypeError, ValueError):
            raise DataError("The rows must be numbers: an encoded X matrix and one target per row.") from None
    elif not all(hasattr(data, a) for a in ("X", "y", "schema", "frame", "target")):
        raise DataError(f"The rows must be a data set or an (X, y) pair; got {shown(data, 60)}.")
    else:
        if getattr(data, "schema", None) == tree.schema:
            X, y = data.X, data.y
        else:
            if data.target not in data.frame.columns:
                raise DataError(f"The rows have no column '{data.target}'.")
            X = tree.schema.encode(data.frame)
            y = target_codes(tree, data.frame[data.target].to_numpy())
    if X.shape[0] != y.shape[0]:
        raise DataError(f"X has {X.shape[0]} rows but y has {y.shape[0]}; give one target per row.")
    return np.asarray(X, dtype=float), y


# --------------------------------------------------------------------------------------- routing
def _child_shares(split) -> np.ndarray:
    cw = np.asarray(split.child_weights, dtype=float)
    return cw / cw.sum() if cw.sum() > 0 else np.full(cw.size, 1.0 / max(cw.size, 1))


def node_rows(tree: Tree, X: np.ndarray, *, start: int = 0, idx=None, weights=None, skip_empty: bool = False) -> dict:
    """``{node id: (row indices, weights)}`` for every node of ``start``'s subtree.

    ``idx``/``weights`` are the rows entering ``start`` (default: all rows of ``X`` with weight 1).
    Rows keep their own weight times the branch shares taken at missing values; rows reaching a node
    with zero weight are dropped. ``skip_empty=True`` leaves out (and does not descend into) nodes no
    row reaches, so routing a few rows through a big subtree costs little.
    """
    X = np.asarray(X, dtype=float)
    idx = np.arange(X.shape[0]) if idx is None else np.asarray(idx, dtype=np.int64)
    w = np.ones(idx.size) if weights is None else np.asarray(weights, dtype=float)
    out = {}
    stack = [(start, idx, w)]
    while stack:
        nid, rows, rw = stack.pop()
        out[nid] = (rows, rw)
        node = tree.nodes[nid]
        if node.is_leaf:
            continue
        route = node.split.route(X[rows, node.split.feature_index])
        miss = route < 0
        if not miss.any():  # the common case: every row goes down exactly one branch, whole
            for c, child in enumerate(node.children):
                sel = route == c
                if skip_empty and not sel.any():
                    continue
                stack.append((child, rows[sel], rw[sel]))
            continue
        share = _child_shares(node.split)
        for c, child in enumerate(node.children):
            sel = (route == c) | miss
            cw = np.where(miss[sel], rw[sel] * share[c], rw[sel])
            keep = cw > 0
            if skip_empty and not keep.any():
                continue
            stack.append((child, rows[sel][keep], cw[keep]))
    return out


# ------------------------------------------------------------------------------------------ refit
def refit(tree: Tree, X, y, weights=None, *, start: int = 0, entering=None,
          keep_predictions: bool = False) -> Tree:
    """The same structure with every node's numbers recomputed from the rows routed through it
    (:func:`refit_changes` applied to ``tree``)."""
    return tree.replace_nodes(refit_changes(tree, X, y, weights, start=start, entering=entering,
                                            keep_predictions=keep_predictions))


def refit_changes(tree, X, y, weights=None, *, start: int = 0, entering=None,
                  keep_predictions: bool = False) -> dict[int, Node]:
    """``{node id: refitted node}`` for ``start``'s subtree of ``tree`` (a Tree or a Draft).

    ``weights`` are per-row sample weights (default 1). ``entering = (row indices, weights)`` are the
    rows entering ``start`` (default: every row with its sample weight; give the node's own rows, e.g.
    from :func:`node_rows`, when refitting a subtree).

    For each node of ``start``'s subtree: ``stats`` = sum of the weighted per-row stats of the rows
    reaching it, then ``weight``, ``n_node_samples``, ``impurity``,
    ``value`` (class shares or mean) and ``prediction`` (majority class or mean). Each split's numbers
    are recomputed as split search defines them: ``child_stats``/``child_weights``/``child_counts``
    of the rows with a known value, ``impurity_parent`` and ``impurity_children`` over those rows,
    ``known_fraction`` F, ``gain = F * (impurity_parent - impurity_children)``, ``split_info`` (with
    the missing rows as one more branch) and ``gain_ratio``. Rows with a missing value are routed with
    the shares of the *new* known weights (C4.5 re-distributes them the same way).

    ``keep_predictions=True`` keeps each node's ``value`` and ``prediction`` and each split's
    ``child_weights`` (the shares that send rows with a missing value down every branch), so the tree
    predicts exactly as before; the other numbers are still refreshed. A node no row reaches always
    keeps its value and prediction.
    """
    X = np.asarray(X, dtype=float)
    y = target_codes(tree, y)
    if X.shape[0] != y.size:
        raise DataError(f"X has {X.shape[0]} rows but y has {y.size}; give one target per row.")
    w_all = np.ones(y.size) if weights is None else np.asarray(weights, dtype=float)
    if w_all.shape != y.shape or np.any(~np.isfinite(w_all)) or np.any(w_all < 0):
        raise DataError("weights must hold one non-negative number per row.")
    classes = tree.schema.classes
    crit = get_criterion(tree.criterion, tree.task)
    U = unit_stats(y, tree.task, len(classes))
    if entering is None:
        entering = (np.flatnonzero(w_all > 0), w_all[w_all > 0])
    changed: dict[int, Node] = {}
    stack = [(start, np.asarray(entering[0], dtype=np.int64), np.asarray(entering[1], dtype=float))]
    while stack:
        nid, r, w = stack.pop()
        old = tree.nodes[nid]
        stats = (U[r] * w[:, None]).sum(axis=0) if r.size else np.zeros(U.shape[1])
        fresh = make_node(node_id=nid, parent=old.parent, depth=old.depth, branch=old.branch, stats=stats,
                          n_rows=int(np.count_nonzero(w > 0)), crit=crit, classes=classes)
        keep = keep_predictions or fresh.weight <= 0
        node = replace(old, stats=fresh.stats, weight=fresh.weight, n_node_samples=fresh.n_node_samples,
                       impurity=fresh.impurity, value=old.value if keep else fresh.value,
                       prediction=old.prediction if keep else fresh.prediction)
        if not old.is_leaf:
            split = old.split
            route = split.route(X[r, split.feature_index])
            miss = route < 0
            known = [(route == c) for c in range(len(old.children))]
            cstats = np.array([(U[r[k]] * w[k, None]).sum(axis=0) for k in known]).reshape(len(known), -1)
            cweights = np.asarray(crit.weight(cstats), dtype=float)
            known_w = float(cweights.sum())
            share = cweights / known_w if known_w > 0 and not keep_predictions else _child_shares(split)
            imp_parent = float(crit.from_stats(cstats.sum(axis=0)))
            imp_children = float((cweights * crit.from_stats(cstats)).sum() / known_w) if known_w > 0 else 0.0
            frac = known_w / fresh.weight if fresh.weight > 0 else 0.0
            gain = frac * (imp_parent - imp_children)
            branch_w = np.append(cweights, fresh.weight - known_w) if frac < 1 else cweights
            p = branch_w[branch_w > 0] / fresh.weight if fresh.weight > 0 else np.zeros(0)
            info = float(-(p * np.log2(p)).sum())
            split = replace(split, child_stats=tuple(tuple(s.tolist()) for s in cstats),
                            child_weights=split.child_weights if keep_predictions else tuple(cweights.tolist()),
                            child_counts=tuple(int(np.count_nonzero(w[k] > 0)) for k in known),
                            impurity_parent=imp_parent, impurity_children=imp_children, gain=gain,
                            known_fraction=frac, split_info=info, gain_ratio=gain / info if info > 0 else 0.0)
            node = replace(node, split=split, gain=split.gain)
            for c, child in enumerate(old.children):
                sel = known[c] | miss
                cw = np.where(miss[sel], w[sel] * share[c], w[sel])
                pos = cw > 0
                stack.append((child, r[sel][pos], cw[pos]))
        changed[nid] = node
    return changed


# ---------------------------------------------------------------------------------- comparisons
def is_subtree_of(pruned: Tree, original: Tree) -> bool:
    """True when ``pruned`` is ``original`` with some subtrees replaced by leaves.

    Every node of ``pruned`` must exist in ``original`` with the same id, parent and branch; an
    internal node of ``pruned`` must have the same test and the same children as in ``original``.
    """
    for n in pruned.walk():
        if n.id >= len(original.nodes) or original.nodes[n.id] is None:
            return False
        o = original.nodes[n.id]
        if (n.parent, n.branch) != (o.parent, o.branch):
            return False
        if not n.is_leaf and (o.is_leaf or n.children != o.children or not n.split.same_test(o.split)):
            return False
    return True


def removed_ids(original: Tree, pruned: Tree) -> tuple[int, ...]:
    """Ids of ``original``'s nodes that are not in ``pruned`` (sorted)."""
    kept = {n.id for n in pruned.walk()}
    return tuple(sorted(n.id for n in original.walk() if n.id not in kept))


def collapsed_ids(original: Tree, pruned: Tree) -> tuple[int, ...]:
    """Ids of nodes that are internal in ``original`` and leaves in ``pruned`` (sorted)."""
    leaves = {n.id for n in pruned.leaves}
    return tuple(sorted(n.id for n in original.internal_nodes if n.id in leaves))
