"""ArrayNodes: an imported tree's nodes as arrays, a read-only sequence that makes node ``i`` when it is read.

The arrays are indexed by the engine's node id (breadth-first, root 0): ``parent`` (-1 at the root),
``depth``, ``left``/``right`` (-1 at a leaf), ``feature``, ``threshold`` (left iff ``x <= threshold``),
``missing_left``, ``count``, ``weight``, ``gain``, ``impurity``, ``values`` (n, width) and the category
tests ``category_sets`` {id: sorted codes going left}. Reading ``nodes[i]`` builds the
:class:`~engine.tree.Node` (and its :class:`~engine.split.records.Split`) exactly as a reader made them all
before, and keeps it; iterating makes them all. :class:`~engine.tree.Tree` asks the store first for what it
can read from arrays (:meth:`shape`, :meth:`routing`, :meth:`importance_terms`), as it does a level-wise
grower's :class:`~engine.grow.levelstore.NodeStore`, and :class:`~engine.models.compiled.CompiledForest`
takes :meth:`flat`, so opening and predicting make no node object. It compares equal to the tuple of its nodes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine.data.schema import FeatureSchema
from engine.split.records import Split
from engine.tree.node import Node

STOP = "leaf in the model file"


class ArrayNodes(Sequence):
    """The nodes of one imported tree (see the module docstring); made by
    :func:`engine.models.build.tree_from_arrays`, which has checked the arrays."""

    def __init__(self, *, schema: FeatureSchema, criterion: str, parent, depth, left, right, feature, threshold,
                 missing_left, count, weight, gain, impurity, values, category_sets: dict):
        self.schema, self.criterion = schema, criterion
        self.parent, self.depth, self.left, self.right = parent, depth, left, right
        self.feature, self.threshold, self.missing_left = feature, threshold, missing_left
        self.count, self.weight, self.gain, self.impurity, self.values = count, weight, gain, impurity, values
        self.category_sets = category_sets
        self._nodes: dict[int, Node] = {}
        self._splits: dict[int, Split] = {}

    # ------------------------------------------------------------------------------ a node when read
    def _split(self, i: int) -> Split:
        split = self._splits.get(i)
        if split is None:
            s, j = self.schema, int(self.feature[i])
            lo, hi = int(self.left[i]), int(self.right[i])
            common = dict(feature=s.feature_names[j], feature_index=j, gain=float(self.gain[i]),
                          child_weights=(1.0, 0.0) if self.missing_left[i] else (0.0, 1.0),
                          child_counts=(int(self.count[lo]), int(self.count[hi])), task=s.task)
            codes = self.category_sets.get(i)
            if codes is not None:
                split = Split(kind="subset", categories=tuple(s.categories[j][c] for c in codes),
                              category_codes=codes, **common)
            else:
                split = Split(kind="threshold", threshold=float(self.threshold[i]), **common)
            self._splits[i] = split
        return split

    def _make(self, i: int) -> Node:
        s = self.schema
        p = int(self.parent[i])
        branch = "" if p < 0 else self._split(p).branch_labels()[0 if self.left[p] == i else 1]
        v, w = self.values[i], float(self.weight[i])
        if s.task == "classification":
            stats = tuple((v * w).tolist())
            prediction = s.classes[int(np.argmax(v))]
        else:
            stats = (w, w * float(v[0]), w * float(v[0]) ** 2)
            prediction = float(v[0])
        inner = self.left[i] >= 0
        split = self._split(i) if inner else None
        return Node.fast(
            id=i, parent=None if p < 0 else p, depth=int(self.depth[i]), branch=branch, stats=stats, weight=w,
            n_node_samples=int(self.count[i]), impurity=float(self.impurity[i]), value=tuple(v.tolist()),
            prediction=prediction, criterion=self.criterion, split=split,
            children=(int(self.left[i]), int(self.right[i])) if inner else (),
            gain=float(self.gain[i]) if inner else None, stop_reason=None if inner else STOP)

    def __len__(self) -> int:
        return int(self.left.size)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return tuple(self[k] for k in range(*i.indices(len(self))))
        i = int(i)
        if i < 0:
            i += len(self)
        node = self._nodes.get(i)
        if node is None:
            if not 0 <= i < len(self):
                raise IndexError(f"node {i} is not in this tree")
            node = self._nodes[i] = self._make(i)
        return node

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __eq__(self, other):
        if isinstance(other, (Sequence, list)) and not isinstance(other, str):
            return len(self) == len(other) and tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self):
        return hash(tuple(self))

    @property
    def made(self) -> int:
        """How many node objects have been made so far."""
        return len(self._nodes)

    def __repr__(self) -> str:
        return f"ArrayNodes({len(self)} nodes, {self.made} made)"

    # ------------------------------------------------------------------------------ read from the arrays
    def shape(self) -> tuple[np.ndarray, np.ndarray]:
        """(leaf mask, depth) per node: a tree's size and depth without node objects."""
        return self.left < 0, self.depth

    def routing(self):
        """Prediction tables as :attr:`engine.tree.Tree._arrays` builds them from nodes: feature, threshold,
        is a threshold split, is a leaf, children (n, 2), value table (category tests route by their nodes)."""
        leaf = self.left < 0
        is_cat = np.zeros(leaf.size, dtype=bool)
        is_cat[list(self.category_sets)] = True
        inner = ~leaf
        child = np.where(inner[:, None], np.column_stack([self.left, self.right]), 0)
        return (np.where(inner, self.feature, 0), np.where(inner & ~is_cat, self.threshold, 0.0), inner & ~is_cat,
                leaf, child, self.values)

    def importance_terms(self):
        """(root weight, [(feature, weight, gain)] of the split nodes in pre-order): what
        :attr:`engine.tree.Tree.feature_importances` sums."""
        left, right = self.left.tolist(), self.right.tolist()
        feat, weight, gain = self.feature.tolist(), self.weight.tolist(), self.gain.tolist()
        terms, stack = [], [0]
        while stack:
            i = stack.pop()
            if left[i] < 0:
                continue
            terms.append((feat[i], weight[i], gain[i]))
            stack.extend((right[i], left[i]))
        return weight[0], terms

    def flat(self):
        """What :class:`~engine.models.compiled.CompiledForest` needs, indexed by node id: feature,
        threshold, left, right and missing child (-1 at a leaf), and {id: codes going left}."""
        missing = np.where(self.missing_left, self.left, self.right)
        return self.feature, self.threshold, self.left, self.right, missing, self.category_sets, self.values
