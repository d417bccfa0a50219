"""Scoring a tree on fixed rows while its subtrees change, without re-predicting every row.

Bottom-up pruning changes one node at a time, and a change at node j can only change the predictions of
the rows that reach j. :class:`RowScorer` keeps, for every row, the accumulated leaf values

    P[i] = sum over leaves l reached by row i of  w_il * value_l      (w_il = share of row i at l)

(class shares for classification, the mean for regression; the shares of a row sum to 1, or less when
a branch had no training weight), the loss of the whole tree, and the rows reaching each node. For an
option at node j it computes the new P of j's rows and the change in loss; :meth:`RowScorer.apply`
commits it. Classification loss = sum of row weights of wrong predictions (argmax P != y); regression
loss = sum of row weights times (P - y)^2.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .treeops import node_rows


@dataclass(frozen=True)
class LeafCount:
    """Training rows at one leaf: their weight ``n`` and the weight ``errors`` the leaf misclassifies."""

    leaf: int
    n: float
    errors: float


@dataclass(frozen=True)
class Option:
    """A candidate for node j: its rows' new accumulated values, its leaves' counts, and its node count."""

    values: np.ndarray
    leaves: tuple[LeafCount, ...]
    n_nodes: int


class RowScorer:
    """Loss of a tree on fixed rows (X, y, row weights), updated locally as subtrees change."""

    def __init__(self, tree, X, y, sample_weight=None):
        self.X = np.asarray(X, dtype=float)
        self.y = np.asarray(y)
        self.n = self.y.size
        self.sw = np.ones(self.n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
        self.task = tree.task
        self.classes = tree.schema.classes
        self.width = len(self.classes) if self.task == "classification" else 1
        self._pos = np.zeros(self.n, dtype=np.int64)
        self.routes = node_rows(tree, self.X)
        everyone = self.routes[0]
        self.P = np.zeros((self.n, self.width))
        self.P[everyone[0]] = self.subtree(tree, 0, *everyone).values
        self.total_loss = self.loss(np.arange(self.n), self.P)

    # ----- rows --------------------------------------------------------------------------------
    def rows(self, node_id: int) -> tuple[np.ndarray, np.ndarray]:
        """(row indices, shares) of the rows reaching ``node_id`` in the tree the scorer was built on."""
        empty = (np.zeros(0, dtype=np.int64), np.zeros(0))
        return self.routes.get(node_id, empty)

    def weight(self, node_id: int) -> float:
        """Weighted number of rows reaching the node."""
        idx, w = self.rows(node_id)
        return float((w * self.sw[idx]).sum())

    # ----- options -----------------------------------------------------------------------------
    def _pred_code(self, node) -> int | float:
        if self.task == "classification":
            return int(np.argmax(node.value))
        return float(node.value[0])

    def _leaf_count(self, leaf_id: int, pred, idx, w) -> LeafCount:
        rw = w * self.sw[idx]
        n = float(rw.sum())
        if self.task == "classification":
            return LeafCount(leaf_id, n, n - float(rw[self.y[idx] == pred].sum()))
        return LeafCount(leaf_id, n, float((rw * (self.y[idx] - pred) ** 2).sum()))

    def subtree(self, tree, start: int, idx, w) -> Option:
        """Rows ``idx`` (shares ``w``) entering ``start``'s subtree of ``tree``, wherever that subtree now sits."""
        out = np.zeros((idx.size, self.width))
        leaves = []
        if idx.size:
            self._pos[idx] = np.arange(idx.size)
        for nid, (r, rw) in node_rows(tree, self.X, start=start, idx=idx, weights=w).items():
            node = tree.nodes[nid]
            if node.is_leaf:
                out[self._pos[r]] += rw[:, None] * np.asarray(node.value, dtype=float)[None, :]
                leaves.append(self._leaf_count(nid, self._pred_code(node), r, rw))
        return Option(out, tuple(leaves), sum(1 for _ in tree.walk(start)))

    def leaf(self, node_id: int, value, idx, w) -> Option:
        """Rows ``idx`` (shares ``w``) at a leaf with ``value`` (class shares, or (mean,))."""
        value = np.asarray(value, dtype=float)
        pred = int(np.argmax(value)) if self.task == "classification" else float(value[0])
        out = w[:, None] * value[None, :]
        return Option(out, (self._leaf_count(node_id, pred, idx, w),), 1)

    # ----- loss --------------------------------------------------------------------------------
    def loss(self, idx, values) -> float:
        """Weighted errors (classification) or squared errors (regression) of rows ``idx`` given their P."""
        if idx.size == 0:
            return 0.0
        if self.task == "classification":
            wrong = np.argmax(values, axis=1) != self.y[idx]
            return float((self.sw[idx] * wrong).sum())
        return float((self.sw[idx] * (values[:, 0] - self.y[idx]) ** 2).sum())

    def new_values(self, idx, w, current: Option, option: Option) -> np.ndarray:
        """P of rows ``idx`` once ``current``'s contribution is swapped for ``option``'s.

        A row that reaches the node whole (share 1) gets exactly the option's values, so rows without
        missing values carry no rounding residue.
        """
        swapped = self.P[idx] - current.values + option.values
        return np.where((w >= 1.0)[:, None], option.values, swapped)

    def loss_after(self, idx, w, current: Option, option: Option) -> float:
        """Loss of the whole tree if ``current`` (node j's rows) were replaced by ``option``."""
        if idx.size == 0:
            return self.total_loss
        new = self.new_values(idx, w, current, option)
        return self.total_loss - self.loss(idx, self.P[idx]) + self.loss(idx, new)

    def apply(self, idx, w, current: Option, option: Option) -> None:
        """Commit ``option`` for the rows ``idx`` of the changed node."""
        if idx.size == 0:
            return
        new = self.new_values(idx, w, current, option)
        self.total_loss += self.loss(idx, new) - self.loss(idx, self.P[idx])
        self.P[idx] = new
