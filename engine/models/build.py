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

from collections import deque

import numpy as np

from engine.data.schema import FeatureSchema
from engine.errors import DataError
from engine.models.checks import MAX_DEPTH, MAX_NODES
from engine.split.records import Split
from engine.tree.node import Node
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


def walk_arrays(left: np.ndarray, right: np.ndarray, root: int = 0, where: str = "a tree"):
    """Breadth-first order of the nodes reached from ``root``, with each one's parent and depth; refuses
    children out of range, nodes reached twice (cycles), one-child nodes and over-deep trees."""
    n = left.size
    if n == 0 or n > MAX_NODES:
        raise DataError(f"The model file is damaged: {where} has {n:,} nodes "
                        f"(a tree has at least 1 and the explorer opens at most {MAX_NODES:,}).")
    if not 0 <= root < n:
        raise DataError(f"The model file is damaged: {where} has no root node.")
    seen = np.zeros(n, dtype=bool)
    order, parent, depth = [], {root: -1}, {root: 0}
    queue = deque([root])
    seen[root] = True
    while queue:
        i = queue.popleft()
        order.append(i)
        lo, hi = int(left[i]), int(right[i])
        if lo < 0 and hi < 0:
            continue
        for c in (lo, hi):
            if not 0 <= c < n:
                raise DataError(f"The model file is damaged: node {i} of {where} points to a child ({c}) "
                                f"that does not exist.")
            if seen[c]:
                raise DataError(f"The model file is damaged: node {c} of {where} is reached twice "
                                f"(a cycle or a shared child).")
            seen[c] = True
            parent[c], depth[c] = i, depth[i] + 1
            if depth[c] > MAX_DEPTH:
                raise DataError(f"{where.capitalize()} is deeper than {MAX_DEPTH:,} levels; the explorer "
                                f"opens trees up to that depth.")
            queue.append(c)
    return order, parent, depth


def _fill_internal(order, left, right, values: np.ndarray, weight: np.ndarray) -> None:
    """Internal nodes without a value get the cover-weighted mean of their children's (bottom-up)."""
    for i in reversed(order):
        if left[i] < 0 or not np.isnan(values[i]).any():
            continue
        lo, hi = left[i], right[i]
        wl, wr = (weight[lo], weight[hi]) if weight[lo] + weight[hi] > 0 else (1.0, 1.0)
        values[i] = (wl * values[lo] + wr * values[hi]) / (wl + wr)


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
    """
    n = len(left) if hasattr(left, "__len__") else 0
    left = _column("left children", left, n, np.int64)
    right = _column("right children", right, n, np.int64)
    order, parent, depth = walk_arrays(left, right, int(root), where)
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
    n_feat = len(schema.feature_names)
    for i in order:
        if left[i] < 0:
            if not np.isfinite(values[i]).all():
                raise DataError(f"The model file is damaged: a leaf of {where} has a value that is not a number.")
            continue
        if not 0 <= feature[i] < n_feat:
            raise DataError(f"The model file is damaged: node {i} of {where} tests feature number "
                            f"{int(feature[i])}, but the model has {n_feat} features.")
        if i in category_sets:
            cats = schema.categories[feature[i]]
            codes = category_sets[i]
            if not schema.is_categorical(int(feature[i])) or any(not 0 <= c < len(cats) for c in codes):
                raise DataError(f"The model file is damaged: node {i} of {where} tests a category the "
                                f"feature does not have.")
        elif np.isnan(threshold[i]):
            raise DataError(f"The model file is damaged: node {i} of {where} has a threshold that is not a number.")
    weight = np.where(np.isfinite(weight), weight, 0.0)
    _fill_internal(order, left, right, values, weight)
    criterion = criterion or ("gini" if task == "classification" else "variance")
    new = {old: k for k, old in enumerate(order)}
    nodes: list[Node] = []
    splits: dict[int, Split] = {}
    for old in order:
        p = parent[old]
        branch = "" if p < 0 else splits[p].branch_labels()[0 if left[p] == old else 1]
        v = values[old]
        w = float(weight[old])
        if task == "classification":
            stats = tuple((v * w).tolist())
            prediction = schema.classes[int(np.argmax(v))]
        else:
            stats = (w, w * float(v[0]), w * float(v[0]) ** 2)
            prediction = float(v[0])
        split, children, g = None, (), None
        if left[old] >= 0:
            j = int(feature[old])
            lo, hi = int(left[old]), int(right[old])
            common = dict(feature=schema.feature_names[j], feature_index=j, gain=float(gain[old]),
                          child_weights=(1.0, 0.0) if missing_left[old] else (0.0, 1.0),
                          child_counts=(int(count[lo]), int(count[hi])), task=task)
            if old in category_sets:
                codes = tuple(sorted(int(c) for c in set(category_sets[old])))
                split = Split(kind="subset", categories=tuple(schema.categories[j][c] for c in codes),
                              category_codes=codes, **common)
            else:
                split = Split(kind="threshold", threshold=float(threshold[old]), **common)
            splits[old] = split
            children, g = (new[lo], new[hi]), float(gain[old])
        nodes.append(Node.fast(
            id=new[old], parent=None if p < 0 else new[p], depth=depth[old], branch=branch, stats=stats,
            weight=w, n_node_samples=int(count[old]), impurity=float(impurity[old]), value=tuple(v.tolist()),
            prediction=prediction, criterion=criterion, split=split, children=children, gain=g,
            stop_reason=None if children else "leaf in the model file"))
    return Tree(tuple(nodes), schema, criterion)


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
