"""Scoring a tree on fixed rows while its subtrees change, without re-predicting every row.

Bottom-up pruning changes one node at a time, and a change at node j can only change the predictions of
the rows that reach j. :class:`RowScorer` keeps, for every row, the accumulated leaf values

    P[i] = sum over leaves l reached by row i of  w_il * value_l      (w_il = share of row i at l)

(class shares for classification, the mean for regression; the shares of a row sum to 1, or less when
a branch had no training weight), the loss of the whole tree, and the rows reaching each node of the
tree it was built on. Classification loss = sum of row weights of wrong predictions (argmax P != y);
regression loss = sum of row weights times (P - y)^2.

An :class:`Option` is what a candidate subtree at node j does to j's rows: their share of P, the counts
of its leaves (weight n, errors, optional estimate) and its number of nodes. Options compose: in a
bottom-up walk the current subtree at j is made of the options already chosen for its children
(:meth:`RowScorer.keep`), and raising a child's subtree only routes the rows that did NOT go to that
child (:meth:`RowScorer.raised`); routing a whole subtree node by node is the slow exact fallback.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from engine.tree.node import first_argmax
from engine.tree.surgery import node_rows


@dataclass(frozen=True)
class LeafCount:
    """Rows at one leaf: their weight ``n``, the weight (regression: squared error) the leaf gets
    wrong, and ``est``, the scorer's estimate of its errors (e.g. C4.5's N·U_CF(E, N); 0 without one)."""

    leaf: int
    n: float
    errors: float
    est: float = 0.0


@dataclass(frozen=True)
class Option:
    """A candidate subtree for node j: its rows' share of P, its leaves' counts, nodes, summed estimate."""

    values: np.ndarray
    leaves: tuple[LeafCount, ...]
    n_nodes: int
    est: float = 0.0


class RowScorer:
    """Loss of a tree on fixed rows (X, y, row weights), updated locally as subtrees change.

    ``estimate(n, errors) -> float`` (optional) gives each leaf's estimated errors (``LeafCount.est``).
    """

    def __init__(self, tree, X, y, sample_weight=None, *, estimate=None):
        self.X = np.asarray(X, dtype=float)
        self.y = np.asarray(y)
        self.n = self.y.size
        self.sw = np.ones(self.n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
        self.task = tree.task
        self.width = len(tree.schema.classes) if self.task == "classification" else 1
        self.estimate = estimate
        self._pos = np.zeros(self.n, dtype=np.int64)
        self.routes = node_rows(tree, self.X)
        self.current: dict[int, Option] = {}  # option chosen at each processed node
        self.P = np.zeros((self.n, self.width))
        for n in tree.walk():
            if n.is_leaf:
                idx, w = self.routes[n.id]
                self.P[idx] += w[:, None] * np.asarray(n.value, dtype=float)[None, :]
        self.total_loss = self.loss(np.arange(self.n), self.P)

    # ----- rows --------------------------------------------------------------------------------
    def rows(self, node_id: int) -> tuple[np.ndarray, np.ndarray]:
        """(row indices, shares) of the rows reaching ``node_id`` in the tree the scorer was built on."""
        return self.routes.get(node_id, (np.zeros(0, dtype=np.int64), np.zeros(0)))

    # ----- options -----------------------------------------------------------------------------
    def _count(self, leaf_id: int, value, idx, w) -> LeafCount:
        rw = w * self.sw[idx]
        n = float(rw.sum())
        if self.task == "classification":
            errors = n - float(rw[self.y[idx] == int(value.argmax())].sum())
        else:
            errors = float((rw * (self.y[idx] - float(value[0])) ** 2).sum())
        return LeafCount(leaf_id, n, errors, self.estimate(n, errors) if self.estimate else 0.0)

    def leaf(self, node_id: int, value, idx, w) -> Option:
        """Rows ``idx`` (shares ``w``) at one leaf with ``value`` (class shares, or (mean,))."""
        value = np.asarray(value, dtype=float)
        count = self._count(node_id, value, idx, w)
        return Option(w[:, None] * value[None, :], (count,), 1, count.est)

    def subtree(self, tree, start: int, idx, w, n_nodes: int | None = None) -> Option:
        """Rows ``idx`` (shares ``w``) sent through ``start``'s current subtree of ``tree``, node by node."""
        out = np.zeros((idx.size, self.width))
        leaves = []
        if idx.size:
            self._pos[idx] = np.arange(idx.size)
        for nid, (r, rw) in node_rows(tree, self.X, start=start, idx=idx, weights=w, skip_empty=True).items():
            node = tree.nodes[nid]
            if node.is_leaf:
                value = np.asarray(node.value, dtype=float)
                out[self._pos[r]] += rw[:, None] * value[None, :]
                leaves.append(self._count(nid, value, r, rw))
        n_nodes = sum(1 for _ in tree.walk(start)) if n_nodes is None else n_nodes
        return Option(out, tuple(leaves), n_nodes, sum(c.est for c in leaves))

    def option_for(self, tree, node_id: int) -> Option:
        """The current subtree at ``node_id`` for its rows: the option chosen there, or (an untouched leaf) the leaf."""
        if node_id in self.current:
            return self.current[node_id]
        node = tree.nodes[node_id]
        if not node.is_leaf:
            raise ValueError(f"node {node_id} has not been scored yet (walk the tree bottom-up)")
        return self.leaf(node_id, node.value, *self.rows(node_id))

    def keep(self, tree, node_id: int) -> Option:
        """The current subtree at ``node_id``, composed from its children's options (all scored already)."""
        idx, _ = self.rows(node_id)
        out = np.zeros((idx.size, self.width))
        self._pos[idx] = np.arange(idx.size)
        leaves, n_nodes, est = [], 1, 0.0
        for c in tree.nodes[node_id].children:
            opt = self.option_for(tree, c)
            cidx, _ = self.rows(c)
            out[self._pos[cidx]] += opt.values
            leaves.extend(opt.leaves)
            n_nodes += opt.n_nodes
            est += opt.est
        return Option(out, tuple(leaves), n_nodes, est)

    def raised(self, tree, node_id: int, child_index: int) -> Option:
        """All of ``node_id``'s rows sent through its ``child_index``-th child's current subtree.

        Rows that went to that child already have their option; only the others are routed. A row
        with a missing value at the node is split among children, so then every row is routed.
        """
        node = tree.nodes[node_id]
        child = node.children[child_index]
        idx, w = self.rows(node_id)
        mine = self.option_for(tree, child)
        route = node.split.route(self.X[idx, node.split.feature_index])
        if (route < 0).any():
            return self.subtree(tree, child, idx, w, mine.n_nodes)
        home = route == child_index
        other = self.subtree(tree, child, idx[~home], w[~home], mine.n_nodes)
        values = np.zeros((idx.size, self.width))
        values[home], values[~home] = mine.values, other.values
        counts = {c.leaf: c for c in mine.leaves}
        est = mine.est
        for c in other.leaves:
            old = counts.get(c.leaf)
            if old is None:
                counts[c.leaf] = c
                est += c.est
            else:
                n, errors = old.n + c.n, old.errors + c.errors
                new = LeafCount(c.leaf, n, errors, self.estimate(n, errors) if self.estimate else 0.0)
                counts[c.leaf] = new
                est += new.est - old.est
        return Option(values, tuple(counts.values()), mine.n_nodes, est)

    # ----- loss --------------------------------------------------------------------------------
    def loss(self, idx, values) -> float:
        """Weighted errors (classification) or squared errors (regression) of rows ``idx`` given their P."""
        if idx.size == 0:
            return 0.0
        if self.task == "classification":
            wrong = first_argmax(values) != self.y[idx]   # ties within rounding go to the first class, as
            # Tree.predict does: P recomposed in another order must not flip a tied row
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

    def commit(self, node_id: int, current: Option, option: Option, *, moved_leaf: int | None = None) -> None:
        """Node ``node_id`` now holds ``option`` (``moved_leaf``: id of a raised leaf, now at ``node_id``)."""
        idx, w = self.rows(node_id)
        if option is not current:
            self.apply(idx, w, current, option)
        if moved_leaf is not None:
            option = replace(option, leaves=tuple(replace(c, leaf=node_id) if c.leaf == moved_leaf else c
                                                  for c in option.leaves))
        self.current[node_id] = option
