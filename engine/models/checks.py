"""The checks an :class:`~engine.models.model.ImportedModel` passes when it is made: the pieces a
reader gives must agree (kinds, links, outputs, member trees), each failure one sentence."""

from __future__ import annotations

import math

import numpy as np

from engine.data.schema import FeatureSchema
from engine.errors import DataError
from engine.tree.store import Tree

KINDS = ("single", "vote", "soft_vote", "additive")
LINKS = ("identity", "logistic", "softmax", "exp")

#: The most nodes a model may have over all its trees, and the deepest a tree may be.
MAX_NODES = 1_000_000
MAX_DEPTH = 10_000


def _set(model, name, value) -> None:
    object.__setattr__(model, name, value)


def check_model(model) -> None:
    """Raise DataError unless ``model``'s fields form a model that can predict; fill the defaults."""
    if not isinstance(model.schema, FeatureSchema):
        raise DataError("An imported model needs a FeatureSchema describing its input columns.")
    if model.kind not in KINDS:
        raise DataError(f"A model's kind is one of {', '.join(KINDS)}, not {model.kind!r}.")
    if model.link not in LINKS:
        raise DataError(f"A model's link is one of {', '.join(LINKS)}, not {model.link!r}.")
    trees = tuple(model.trees)
    if not trees or not all(isinstance(t, Tree) for t in trees):
        raise DataError("The model file holds no trees the explorer can read.")
    if model.kind == "single" and len(trees) != 1:
        raise DataError(f"A single-tree model has exactly one tree, not {len(trees)}.")
    _set(model, "trees", trees)
    weights = tuple(float(w) for w in (model.weights or (1.0,) * len(trees)))
    if len(weights) != len(trees) or not all(math.isfinite(w) for w in weights):
        raise DataError("The model gives a weight that is not a number, or not one weight per tree.")
    if model.kind != "additive" and (min(weights) < 0 or sum(weights) <= 0):
        raise DataError("A voting model's member weights must be non-negative and not all zero.")
    _set(model, "weights", weights)
    _set(model, "notes", tuple(model.notes))
    total = 0
    for i, tree in enumerate(trees):
        total += _check_tree(model, tree, i)
        if total > MAX_NODES:
            raise DataError(f"The model has more than {MAX_NODES:,} nodes; the explorer opens models up to that size.")
    if model.kind == "additive":
        _check_additive(model)
    elif model.link != "identity" or model.base_score or model.tree_outputs:
        raise DataError("Only boosted (additive) models have a link, base scores or per-tree outputs.")


def _check_tree(model, tree: Tree, i: int) -> int:
    s, ms = tree.schema, model.schema
    if (s.feature_names, s.kinds, s.categories) != (ms.feature_names, ms.kinds, ms.categories):
        raise DataError(f"Tree {i} of the model reads different input columns from the model itself.")
    member_task = "regression" if model.kind == "additive" else model.task
    if s.task != member_task or (member_task == "classification" and s.classes != ms.classes):
        raise DataError(f"Tree {i} of the model predicts something other than its model "
                        f"(a {s.task} tree in a {model.kind} {model.task} model).")
    flat = getattr(tree.nodes, "flat", None)
    if flat is not None:                         # node arrays (engine.models.arrays): checked on the arrays
        return _check_arrays(tree, i)
    n = 0
    for node in tree.walk():
        n += 1
        if n > MAX_NODES:
            break
        if node.depth > MAX_DEPTH:
            raise DataError(f"Tree {i} of the model is deeper than {MAX_DEPTH:,} levels.")
        if node.is_leaf:
            if not all(math.isfinite(v) for v in node.value):
                raise DataError(f"Tree {i} of the model has a leaf whose value is not a number.")
            continue
        sp = node.split
        if len(node.children) != 2 or sp.kind not in ("threshold", "subset", "equals"):
            raise DataError(f"Tree {i} of the model has a split that is not a two-way test.")
        if sp.child_weights not in ((1.0, 0.0), (0.0, 1.0)):
            raise DataError(f"Tree {i} of the model does not say which way a missing value goes at node {node.id}.")
        if sp.kind == "threshold" and (sp.threshold is None or math.isnan(sp.threshold)):
            raise DataError(f"Tree {i} of the model has a threshold that is not a number at node {node.id}.")
    return n


def _check_arrays(tree: Tree, i: int) -> int:
    """:func:`_check_tree` for a tree kept as node arrays: every node is reached and has two children or
    none, and a missing value goes one way, by construction (:func:`engine.models.build.tree_from_arrays`)."""
    nodes = tree.nodes
    leaf, depth = nodes.shape()
    if depth.size and depth.max() > MAX_DEPTH:
        raise DataError(f"Tree {i} of the model is deeper than {MAX_DEPTH:,} levels.")
    if not np.isfinite(nodes.values[leaf]).all():
        raise DataError(f"Tree {i} of the model has a leaf whose value is not a number.")
    threshold_test = ~leaf
    threshold_test[list(nodes.category_sets)] = False
    if np.isnan(nodes.threshold[threshold_test]).any():
        at = int(np.flatnonzero(threshold_test & np.isnan(nodes.threshold))[0])
        raise DataError(f"Tree {i} of the model has a threshold that is not a number at node {at}.")
    return len(nodes)


def _check_additive(model) -> None:
    base = tuple(float(b) for b in model.base_score)
    if not base or not all(math.isfinite(b) for b in base):
        raise DataError("A boosted model needs a base score (a number) for each output.")
    K = len(base)
    if model.task == "classification":
        n_cls = len(model.classes)
        if model.link == "softmax" and (K != n_cls or K < 2):
            raise DataError(f"A softmax model has one output per class; this one has {K} outputs for {n_cls} classes.")
        if model.link == "logistic" and (K != 1 or n_cls != 2):
            raise DataError("A logistic classifier has one output and two classes.")
        if model.link not in ("softmax", "logistic"):
            raise DataError("A boosted classifier needs a logistic or softmax link to give probabilities.")
    elif model.link == "softmax" or K != 1:
        raise DataError("A boosted regression model has one output and no softmax link.")
    per_round = int(model.trees_per_round)
    if per_round < 1:
        raise DataError("A boosted model adds at least one tree per round.")
    outputs = tuple(int(o) for o in (model.tree_outputs or [t % per_round for t in range(len(model.trees))]))
    if len(outputs) != len(model.trees) or (outputs and not 0 <= min(outputs) <= max(outputs) < K):
        raise DataError(f"A tree of the boosted model adds to an output that does not exist (it has {K}).")
    _set(model, "base_score", base)
    _set(model, "tree_outputs", outputs)
    _set(model, "trees_per_round", per_round)


def output_names(model) -> tuple[str, ...]:
    """A label per margin column: the class it scores (softmax), the positive class (logistic), 'value'."""
    if model.kind == "additive" and model.task == "classification":
        return tuple(model.classes) if model.link == "softmax" else (model.classes[1],)
    return tuple(model.classes) if model.task == "classification" and model.kind != "additive" else ("value",)
