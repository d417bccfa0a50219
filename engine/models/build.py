"""Engine trees from a model file's node arrays: the one place readers turn arrays into checked nodes.

Every format stores a tree as parallel arrays indexed by its own node numbers (left child, right child,
feature, threshold, default direction, value, cover). :func:`tree_from_arrays` walks them from the root,
refuses what cannot be a tree (a child index out of range, a node reached twice — a cycle or a shared
child —, a node with one child, a depth over 10,000, a NaN threshold (an infinite one is a real test:
LightGBM writes ``inf`` when every known value goes left), a leaf value that is not a finite number, an
unknown feature or category) with one sentence, and numbers the nodes breadth-first (root 0), the order
XGBoost and scikit-learn number them. Nodes the root does not reach are left out.
"""

from __future__ import annotations

import numpy as np

from engine.data.schema import FeatureSchema
from engine.errors import DataError
from engine.models.arrays import ArrayNodes, fill_internal, walk_levels
from engine.tree.store import Tree
from engine.tree.surgery import refit


def _column(name: str, values, n: int, dtype, default=None) -> np.ndarray:
    if values is None:
        return np.full(n, default, dtype=dtype)
    try:
        arr = np.asarray(values, dtype=dtype)
    except (TypeError, ValueError, OverflowError):
        raise DataError(f"The model file is damaged: a tree's {name} are not numbers.") from None
    if arr.shape[:1] != (n,):
        raise DataError(f"The model file is damaged: a tree lists {arr.shape[0] if arr.ndim else 1} "
                        f"{name} for {n} nodes.")
    return arr


def tree_from_arrays(*, schema: FeatureSchema, left, right, feature, threshold, missing_left, values,
                     criterion: str | None = None, weight=None, count=None, gain=None, impurity=None,
                     category_sets: dict | None = None, root: int = 0, where: str = "a tree") -> Tree:
    """A checked engine :class:`Tree` from per-node arrays in the file's own node numbering.

    ``left``/``right``: child numbers (negative on both for a leaf). ``feature``: column index in
    ``schema``. ``threshold``: the largest value that goes left (``x <= threshold``). ``missing_left``:
    True where a missing value goes left. ``values``: (n, width) leaf values (class shares in
    ``schema.classes`` order for a classification schema, else one number); an internal node's row may
    be NaN (it then gets the cover-weighted mean of its children). ``weight``: cover or sample weight
    (default: ``count`` when given, else 1); ``count``: rows (default 0: unknown); ``gain``/``impurity`` where the file has them
    (impurity default NaN: unknown). ``category_sets``: {node number: codes going left} for category
    tests (the feature must be categorical in ``schema``). ``where`` names the tree in error sentences.

    The tree's nodes are an :class:`~engine.models.arrays.ArrayNodes` store: the checks and the numbering
    run on the arrays, and a node object is made when a page reads it.
    """
    n = len(left) if hasattr(left, "__len__") else 0
    left = _column("left children", left, n, np.int64)
    right = _column("right children", right, n, np.int64)
    order, parent, levels = walk_levels(left, right, int(root), where)
    feature = _column("features", feature, n, np.int64, 0)
    threshold = _column("thresholds", threshold, n, float, 0.0)
    missing_left = _column("missing-value directions", missing_left, n, bool, True)
    count = _column("counts", count, n, np.int64, 0)
    weight = _column("covers", weight, n, float, 1.0) if weight is not None or count is None else count.astype(float)
    gain = _column("gains", gain, n, float, 0.0)
    impurity = _column("impurities", impurity, n, float, np.nan)
    values = np.array(_column("values", values, n, float), dtype=float).reshape(n, -1)
    task = schema.task
    width = len(schema.classes) if task == "classification" else 1
    if values.shape[1] != width:
        raise DataError(f"The model file is damaged: {where} has leaf values of {values.shape[1]} numbers "
                        f"where {width} are expected.")
    category_sets = category_sets or {}
    _check_nodes(schema, order, left, feature, threshold, values, category_sets, where)
    weight = np.where(np.isfinite(weight), weight, 0.0)
    fill_internal(order, levels, left, right, values, weight)
    new = np.full(n, -1, dtype=np.int64)
    new[order] = np.arange(order.size)
    inner = left[order] >= 0
    nodes = ArrayNodes(
        schema=schema, criterion=criterion or ("gini" if task == "classification" else "variance"),
        parent=np.where(parent >= 0, new[parent], -1), depth=np.repeat(np.arange(levels.size - 1), np.diff(levels)),
        left=np.where(inner, new[left[order]], -1), right=np.where(inner, new[right[order]], -1),
        feature=feature[order], threshold=threshold[order], missing_left=missing_left[order], count=count[order],
        weight=weight[order], gain=gain[order], impurity=impurity[order], values=values[order],
        category_sets={int(new[i]): tuple(sorted(int(c) for c in set(codes))) for i, codes in category_sets.items()
                       if new[i] >= 0 and left[i] >= 0})
    return Tree(nodes, schema, nodes.criterion)


def _check_nodes(schema: FeatureSchema, order, left, feature, threshold, values, category_sets, where) -> None:
    """Refuse a reached leaf whose value is not a number, a split on a feature the model lacks, a category
    test on a category the feature does not have, a threshold that is not a number."""
    leaves, inner = order[left[order] < 0], order[left[order] >= 0]
    if not np.isfinite(values[leaves]).all():
        raise DataError(f"The model file is damaged: a leaf of {where} has a value that is not a number.")
    n_feat = len(schema.feature_names)
    bad = (feature[inner] < 0) | (feature[inner] >= n_feat)
    if bad.any():
        i = int(inner[np.argmax(bad)])
        raise DataError(f"The model file is damaged: node {i} of {where} tests feature number "
                        f"{int(feature[i])}, but the model has {n_feat} features.")
    tested = np.zeros(left.size, dtype=bool)
    tested[inner] = True
    for i, codes in category_sets.items():
        if not (0 <= i < left.size and tested[i]):
            continue
        cats = schema.categories[feature[i]]
        if not schema.is_categorical(int(feature[i])) or any(not 0 <= c < len(cats) for c in codes):
            raise DataError(f"The model file is damaged: node {i} of {where} tests a category the "
                            f"feature does not have.")
    is_cat = np.zeros(left.size, dtype=bool)
    is_cat[[i for i in category_sets if 0 <= i < left.size]] = True
    nan = np.isnan(threshold[inner]) & ~is_cat[inner]
    if nan.any():
        raise DataError(f"The model file is damaged: node {int(inner[np.argmax(nan)])} of {where} has a threshold "
                        f"that is not a number.")


def refit_inner(tree: Tree, X, y) -> Tree:
    """``tree`` with every node's rows counted from encoded rows ``X`` and targets ``y`` (``refit``, values
    and predictions kept), then each inner node's value the mean of its leaves' values weighted by the rows
    reaching them (class shares, a number or a boosted tree's score) and its prediction from that; leaves
    and splits stay as in the file, so the tree predicts as before. For files that weigh no node (ONNX),
    whose inner values are otherwise an unweighted mean. An inner node no row reaches keeps its value."""
    fitted = refit(tree, X, y, keep_predictions=True)
    values = {n.id: np.asarray(n.value, dtype=float) for n in fitted.walk()}
    weight = {n.id: float(n.weight) for n in fitted.walk()}
    changes = {}
    for node in sorted(fitted.internal_nodes, key=lambda n: -n.depth):
        w = np.array([weight[c] for c in node.children])
        if w.sum() <= 0:
            continue
        v = (w[:, None] * np.stack([values[c] for c in node.children])).sum(axis=0) / w.sum()
        values[node.id] = v
        if tree.task == "classification":
            prediction = tree.schema.classes[int(np.argmax(v))]
        else:
            prediction = float(v[0])
        changes[node.id] = node.evolve(value=tuple(v.tolist()), prediction=prediction)
    return fitted.replace_nodes(changes)


def member_schema(schema: FeatureSchema, target: str = "score") -> FeatureSchema:
    """The schema of an additive model's member trees: the model's inputs, one number out."""
    return FeatureSchema(feature_names=schema.feature_names, kinds=schema.kinds, categories=schema.categories,
                         target=target, task="regression", classes=())
