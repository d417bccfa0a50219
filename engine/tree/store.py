"""The tree: a passive, immutable store of nodes, with prediction.

``Tree.nodes[i]`` is the node with id ``i``; the root is node 0. ``nodes`` is a tuple, or for a tree grown
level-wise a :class:`~engine.grow.levelstore.NodeStore` that makes its node objects when first read (prediction
reads its arrays instead). A tree never changes: growth and pruning build new trees (``Tree.replace_nodes``). Prediction routes each row from the root; at a split
where the row's value is missing (or is a category the node never saw) the row goes down every branch
with its weight multiplied by that branch's share of the training weight (C4.5), and the leaf
distributions it reaches are averaged with those weights.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from engine.checks import node_id as check_node_id
from engine.errors import DataError
from engine.data.schema import FeatureSchema
from engine.tree.decode import tree_parts_from_dict
from engine.tree.node import Node, first_argmax

__all__ = ["Node", "Tree", "FeatureSchema"]


@dataclass(frozen=True, repr=False)
class Tree:
    """An immutable decision tree over ``schema``'s features."""

    nodes: tuple[Node, ...]
    schema: FeatureSchema
    criterion: str

    # ----- structure -------------------------------------------------------------------------
    @property
    def root(self) -> Node:
        return self.nodes[0]

    def node(self, node_id: int) -> Node:
        return self.nodes[check_node_id(node_id, self.nodes, where="this tree", error=DataError)]

    def walk(self, start: int = 0):
        """Nodes reachable from ``start`` in pre-order (parent before children, left to right)."""
        stack = [check_node_id(start, self.nodes, where="this tree", error=DataError)]
        while stack:
            n = self.nodes[stack.pop()]
            yield n
            stack.extend(reversed(n.children))

    @property
    def leaves(self) -> list[Node]:
        return [n for n in self.walk() if n.is_leaf]

    def _shape(self):
        """(leaf mask, depths) of a level-wise tree's node store (every node reachable), read from its
        arrays without making node objects (a 1,000-class tree's nodes hold 1,000-long tuples); else None."""
        shape = getattr(self.nodes, "shape", None)
        return None if shape is None else shape()

    @property
    def n_leaves(self) -> int:
        shape = self._shape()
        return int(shape[0].sum()) if shape is not None else len(self.leaves)

    @property
    def n_nodes(self) -> int:
        shape = self._shape()
        return int(shape[0].size) if shape is not None else sum(1 for _ in self.walk())

    @property
    def depth(self) -> int:
        shape = self._shape()
        return int(shape[1].max()) if shape is not None else max(n.depth for n in self.walk())

    @property
    def internal_nodes(self) -> list[Node]:
        return [n for n in self.walk() if not n.is_leaf]

    def subtree_ids(self, node_id: int) -> list[int]:
        return [n.id for n in self.walk(node_id)]

    def replace_nodes(self, changed: dict[int, Node]) -> "Tree":
        nodes = list(self.nodes)
        for i, n in changed.items():
            nodes[i] = n
        return Tree(tuple(nodes), self.schema, self.criterion)

    def prune_to_leaf(self, node_id: int, reason: str = "pruned") -> "Tree":
        """A new tree in which ``node_id``'s subtree is replaced by a leaf (ids stay stable)."""
        return self.replace_nodes({node_id: self.node(node_id).as_leaf(reason)})

    @property
    def task(self) -> str:
        return self.schema.task

    @cached_property
    def fingerprint(self) -> int:
        """A hash of the tree's shape and tests: equal for trees with the same splits and stop reasons (pages
        key their caches of diagrams and plots on it)."""
        return hash(tuple(
            (n.id, n.stop_reason, None if n.split is None else
             (n.split.feature_index, n.split.kind, n.split.threshold, n.split.category_codes))
            for n in self.walk()))

    # ----- prediction ------------------------------------------------------------------------
    def _encode(self, data) -> np.ndarray:
        if isinstance(data, pd.DataFrame):
            return self.schema.encode(data)
        try:
            X = np.asarray(data, dtype=float)
        except (TypeError, ValueError):
            raise DataError("Rows to predict must be a table (DataFrame) or an array of numbers.") from None
        if X.ndim == 1:
            X = X[None, :]
        if X.ndim != 2:
            raise DataError("Rows to predict must be a table (DataFrame) or a 2-D array of numbers.")
        if X.shape[1] != len(self.schema.feature_names):
            raise DataError(
                f"Expected {len(self.schema.feature_names)} feature columns, got {X.shape[1]}.")
        return X

    def leaf_weights(self, data) -> tuple[np.ndarray, np.ndarray]:
        """(leaf ids, weight matrix (n_rows, n_leaves)): how much of each row reaches each leaf.

        Dense: meant for small trees and explanations; prediction uses sparse routing instead.
        """
        X = self._encode(data)
        leaves = [n.id for n in self.leaves]
        col = {lid: i for i, lid in enumerate(leaves)}
        W = np.zeros((X.shape[0], len(leaves)))
        for nid, rows, w in self._fractional_leaves(X):
            W[rows, col[nid]] += w
        return np.array(leaves, dtype=np.int64), W

    def _fractional_leaves(self, X: np.ndarray):
        """Yield (leaf id, rows, weights): each row's weight reaching each leaf, missing values going down
        every branch with the branch's share of the training weight (C4.5)."""
        stack = [(0, np.arange(X.shape[0]), np.ones(X.shape[0]))]
        while stack:
            nid, rows, w = stack.pop()
            node = self.nodes[nid]
            if node.is_leaf:
                yield nid, rows, w
                continue
            route = node.split.route(X[rows, node.split.feature_index])
            cw = np.asarray(node.split.child_weights, dtype=float)
            share = cw / cw.sum() if cw.sum() > 0 else np.full(cw.size, 1.0 / cw.size)
            miss = route < 0
            for c, child in enumerate(node.children):
                sel = (route == c) | miss
                if sel.any():
                    stack.append((child, rows[sel], w[sel] * np.where(miss[sel], share[c], 1.0)))

    @cached_property
    def _arrays(self):
        """Per-node routing tables (index = node id) for vectorised prediction: feature, threshold, is a
        threshold split, is a leaf, children, value table. A tree grown level-wise reads them from its
        node store's arrays without making node objects."""
        routing = getattr(self.nodes, "routing", None)
        if routing is not None:
            return routing()
        n = len(self.nodes)
        feat = np.zeros(n, dtype=np.int64)
        thr = np.zeros(n)
        threshold = np.zeros(n, dtype=bool)
        leaf = np.ones(n, dtype=bool)
        child = np.zeros((n, 2), dtype=np.int64)
        width = len(self.schema.classes) if self.task == "classification" else 1
        values = np.zeros((n, width))
        for node in self.walk():
            values[node.id] = node.value
            if node.is_leaf:
                continue
            leaf[node.id] = False
            feat[node.id] = node.split.feature_index
            if node.split.kind == "threshold":
                threshold[node.id] = True
                thr[node.id] = node.split.threshold
                child[node.id] = node.children
        return feat, thr, threshold, leaf, child, values

    @cached_property
    def _rank(self) -> np.ndarray:
        """Each node's position in pre-order (ties between leaves reached with equal weight)."""
        rank = np.full(len(self.nodes), len(self.nodes), dtype=np.int64)
        for r, node in enumerate(self.walk()):
            rank[node.id] = r
        return rank

    def _route(self, X: np.ndarray):
        """Leaf of every row that meets no missing value on its path, and the mask of rows that do."""
        feat, thr, threshold, leaf, child, _ = self._arrays
        cur = np.zeros(X.shape[0], dtype=np.int64)
        frac = np.zeros(X.shape[0], dtype=bool)
        active = np.flatnonzero(~leaf[cur])
        while active.size:
            nodes = cur[active]
            is_t = threshold[nodes]
            at, nt = active[is_t], nodes[is_t]
            v = X[at, feat[nt]]
            miss = np.isnan(v)
            frac[at[miss]] = True
            ok = ~miss
            cur[at[ok]] = np.where(v[ok] <= thr[nt[ok]], child[nt[ok], 0], child[nt[ok], 1])
            ac = active[~is_t]
            for nid in np.unique(cur[ac]).tolist():
                rows = ac[cur[ac] == nid]
                node = self.nodes[nid]
                route = node.split.route(X[rows, node.split.feature_index])
                frac[rows[route < 0]] = True
                good = route >= 0
                cur[rows[good]] = np.asarray(node.children, dtype=np.int64)[route[good]]
            active = active[~frac[active] & ~leaf[cur[active]]]
        return cur, frac

    def _fractional(self, X: np.ndarray):
        """Rows meeting missing values: weighted mix of leaf values, and the leaf with the largest share
        (ties: the first leaf in pre-order)."""
        values, rank = self._arrays[5], self._rank
        out = np.zeros((X.shape[0], values.shape[1]))
        best_w = np.full(X.shape[0], -1.0)
        best_leaf = np.zeros(X.shape[0], dtype=np.int64)
        for nid, rows, w in self._fractional_leaves(X):
            out[rows] += w[:, None] * values[nid]
            cur_rank = rank[best_leaf[rows]]
            better = (w > best_w[rows] + 1e-12) | ((np.abs(w - best_w[rows]) <= 1e-12) & (rank[nid] < cur_rank))
            best_w[rows[better]] = w[better]
            best_leaf[rows[better]] = nid
        return out, best_leaf

    def _values_and_leaves(self, data):
        X = self._encode(data)
        leaf, frac = self._route(X)
        vals = self._arrays[5][leaf]
        if frac.any():
            sub = np.flatnonzero(frac)
            vals[sub], leaf[sub] = self._fractional(X[sub])
        return vals, leaf

    def predict_proba(self, data) -> np.ndarray:
        """Class probabilities (n_rows, n_classes) in ``schema.classes`` order (classification)."""
        if self.task != "classification":
            raise DataError("Class probabilities exist only for classification trees.")
        return self._values_and_leaves(data)[0]

    def predict(self, data) -> np.ndarray:
        """Predicted class labels (classification) or values (regression)."""
        vals = self._values_and_leaves(data)[0]
        if self.task == "regression":
            return vals[:, 0]
        return np.asarray(self.schema.classes, dtype=object)[first_argmax(vals)]

    def predict_codes(self, data) -> np.ndarray:
        """Predicted class indices (classification)."""
        return first_argmax(self.predict_proba(data))

    def apply(self, data) -> np.ndarray:
        """Leaf id of each row (with missing values: the leaf receiving the largest share)."""
        return self._values_and_leaves(data)[1]

    def decision_path(self, row) -> list[tuple[int, str]]:
        """Node ids from the root to the row's leaf with the test passed at each (missing: largest branch)."""
        x = self._encode(row if not isinstance(row, pd.Series) else row.to_frame().T)[0]
        path, nid = [], 0
        while True:
            node = self.nodes[nid]
            if node.is_leaf:
                path.append((nid, f"leaf: predict {node.prediction}"))
                return path
            c = int(node.split.route(x[[node.split.feature_index]])[0])
            if c < 0:
                c = int(np.argmax(node.split.child_weights))
                path.append((nid, node.split.condition(c) + " (value missing: largest branch)"))
            else:
                path.append((nid, node.split.condition(c)))
            nid = node.children[c]

    # ----- summaries ---------------------------------------------------------------------------
    @property
    def feature_importances(self) -> dict[str, float]:
        """Weighted impurity decrease per feature, normalised to sum 1 (scikit-learn's definition)."""
        imp = np.zeros(len(self.schema.feature_names))
        terms = getattr(self.nodes, "importance_terms", None)
        if terms is not None:                      # a level-wise tree: from its arrays, same sums in the same order
            total, splits = terms()
        else:
            total = self.root.weight
            splits = [(n.split.feature_index, n.weight, n.split.gain) for n in self.internal_nodes]
        for j, w, gain in splits:
            imp[j] += w / total * gain
        s = imp.sum()
        imp = imp / s if s > 0 else imp
        return dict(zip(self.schema.feature_names, imp.tolist()))

    def rules(self, by_class: bool = False):
        from engine.tree.paths import rules
        return rules(self, by_class=by_class)

    def regions(self, x: str, y: str):
        from engine.tree.paths import regions
        return regions(self, x, y)

    def to_dict(self) -> dict:
        return {"format": "decision-tree-explorer/1", "criterion": self.criterion,
                "schema": self.schema.to_dict(),
                "nodes": [None if n is None else n.to_dict() for n in self.nodes]}

    @classmethod
    def from_dict(cls, d: dict) -> "Tree":
        """The tree a ``to_dict`` made, checked field by field (a damaged dict raises ``DataError``)."""
        return cls(*tree_parts_from_dict(d))

    def __repr__(self) -> str:
        return (f"Tree(task={self.task}, criterion={self.criterion}, nodes={self.n_nodes}, "
                f"leaves={self.n_leaves}, depth={self.depth})")
