"""Fast prediction for ensemble members: a tree flattened into arrays, routed level by level.

An ensemble predicts with many trees on many rows, so each tree is flattened once into arrays
(``feature``, ``threshold``, ``children``, a category lookup table per categorical node) and all rows
move down one level per numpy step: the cost is ``depth`` vectorised steps, not a Python loop per row
or per node. Rows whose value is missing (NaN) at a node they reach, or that carry a category the node
never saw, need C4.5's fractional routing; only those rows are handed to :meth:`engine.tree.Tree.predict_proba`
(in chunks), so the answer is always exactly the tree's own.

Members grown on ``Dataset.with_features(A_i)`` (the per-tree feature-subset forest) have their own
schema; :class:`ColumnAdapter` turns the ensemble's encoded matrix into the member's encoding
(column selection plus a category-code translation table).
"""

from __future__ import annotations

import numpy as np

from engine.errors import DataError
from engine.tree.node import first_argmax

#: Fallback rows are predicted in chunks so that chunk x n_leaves stays below this many cells.
FALLBACK_CELLS = 4_000_000


class ColumnAdapter:
    """Maps an encoded matrix in schema ``outer`` to the encoding of schema ``inner`` (a subset)."""

    def __init__(self, outer, inner):
        self.identity = outer == inner
        self.columns = np.array([outer.index(n) for n in inner.feature_names], dtype=np.int64)
        self.tables: dict[int, np.ndarray] = {}
        for j, (name, kind) in enumerate(zip(inner.feature_names, inner.kinds)):
            outer_kind = outer.kinds[self.columns[j]]
            if kind != outer_kind:
                raise DataError(f"Feature '{name}' is {outer_kind} in the data but {kind} in a member tree.")
            if kind == "categorical":
                outer_cats = outer.categories[self.columns[j]]
                pos = {c: i for i, c in enumerate(inner.categories[j])}
                table = np.array([pos.get(c, np.nan) for c in outer_cats] + [np.nan], dtype=float)
                if not np.array_equal(table[:-1], np.arange(len(outer_cats)), equal_nan=False):
                    self.tables[j] = table

    def __call__(self, X: np.ndarray) -> np.ndarray:
        if self.identity:
            return X
        out = X[:, self.columns]
        if self.tables:
            out = out.copy()
            for j, table in self.tables.items():
                col = out[:, j]
                codes = np.where(np.isnan(col), table.size - 1, col).astype(np.int64)
                out[:, j] = table[np.clip(codes, 0, table.size - 1)]
        return out


class CompiledTree:
    """A :class:`engine.tree.Tree` as flat arrays for fast, exact batch prediction.

    ``values(X)`` returns the leaf value of every row: class probabilities ``(n, K)`` for
    classification, ``(n, 1)`` means for regression; ``leaf_ids(X)`` the leaf id (exact routing rows
    only, -1 for rows that need fractional routing).
    """

    def __init__(self, tree, classes=None):
        self.tree = tree
        # a member grown on a re-built data set may list its classes differently: columns in ``classes`` order
        self.class_columns = None
        if classes is not None and tree.task == "classification" and tuple(classes) != tree.schema.classes:
            own = {c: i for i, c in enumerate(tree.schema.classes)}
            self.class_columns = np.array([own.get(c, -1) for c in classes], dtype=np.int64)
        if getattr(tree.nodes, "routing", None) is not None:
            self._from_routing(tree)
            return
        order = [n.id for n in tree.walk()]
        slot = {nid: i for i, nid in enumerate(order)}
        size = len(order)
        width = max([len(tree.nodes[i].children) for i in order] + [1])
        self.node_id = np.array(order, dtype=np.int64)
        self.kind = np.zeros(size, dtype=np.int8)  # 0 leaf, 1 threshold, 2 category lookup
        self.feature = np.zeros(size, dtype=np.int64)
        self.threshold = np.zeros(size)
        self.children = np.full((size, width), -1, dtype=np.int64)
        self.lookup_row = np.zeros(size, dtype=np.int64)
        lookups = [np.full(1, -1, dtype=np.int64)]
        self.values_table = self._reorder(np.array([tree.nodes[i].value for i in order], dtype=float))
        for i, nid in enumerate(order):
            node = tree.nodes[nid]
            if node.is_leaf:
                continue
            s = node.split
            self.feature[i] = s.feature_index
            self.children[i, :len(node.children)] = [slot[c] for c in node.children]
            if s.kind == "threshold":
                self.kind[i] = 1
                self.threshold[i] = s.threshold
                continue
            self.kind[i] = 2
            n_codes = len(tree.schema.categories[s.feature_index])
            table = np.full(n_codes + 1, -1 if s.kind == "multiway" else 1, dtype=np.int64)
            codes = np.asarray(s.category_codes, dtype=np.int64)
            if s.kind == "multiway":
                table[codes] = np.arange(codes.size)
            else:
                table[codes] = 0
            table[-1] = -1  # slot for missing / out-of-range codes
            self.lookup_row[i] = len(lookups)
            lookups.append(table)
        longest = max(t.size for t in lookups)
        self.lookups = np.full((len(lookups), longest), -1, dtype=np.int64)
        for r, t in enumerate(lookups):
            self.lookups[r, :t.size - 1] = t[:-1]

    def _from_routing(self, tree) -> None:
        """The tables straight from a level-wise tree's arrays (threshold splits only; slot == node id), so
        no node object is made."""
        feature, threshold, _, leaf, child, values = tree._arrays
        n = leaf.size
        self.node_id = np.arange(n, dtype=np.int64)
        self.kind = np.where(leaf, 0, 1).astype(np.int8)
        self.feature = feature
        self.threshold = threshold
        self.children = np.where(leaf[:, None], -1, child)
        self.lookup_row = np.zeros(n, dtype=np.int64)
        self.lookups = np.full((1, 1), -1, dtype=np.int64)
        self.values_table = self._reorder(values)

    def _reorder(self, values: np.ndarray) -> np.ndarray:
        if self.class_columns is None:
            return values
        padded = np.concatenate([values, np.zeros((values.shape[0], 1))], axis=1)
        return padded[:, self.class_columns]

    def _route_thresholds(self, X: np.ndarray) -> np.ndarray:
        """Leaf slot per row for a tree of threshold splits only and rows without missing values: per level,
        one gather of the tested values and one of the children."""
        n = X.shape[0]
        XT = np.ascontiguousarray(X.T).ravel()
        feature_row = self.feature * n
        children = self.children.ravel()
        inner = self.kind != 0
        cur = np.zeros(n, dtype=np.int64)
        todo = np.arange(n) if inner[0] else np.zeros(0, dtype=np.int64)
        while todo.size:
            nd = cur[todo]
            right = np.take(XT, np.take(feature_row, nd) + todo) > np.take(self.threshold, nd)
            nxt = np.take(children, 2 * nd + right)
            cur[todo] = nxt
            todo = todo[np.take(inner, nxt)]
        return cur

    def _route(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(slot of the reached leaf per row, mask of rows needing fractional routing)."""
        n = X.shape[0]
        if self.children.shape[1] == 2 and not (self.kind == 2).any() and not np.isnan(X).any():
            return self._route_thresholds(X), np.zeros(n, dtype=bool)
        cur = np.zeros(n, dtype=np.int64)
        fallback = np.zeros(n, dtype=bool)
        todo = np.arange(n)
        while todo.size:
            nd = cur[todo]
            inner = self.kind[nd] != 0
            todo, nd = todo[inner], nd[inner]
            if not todo.size:
                break
            x = X[todo, self.feature[nd]]
            miss = np.isnan(x)
            child = (x > self.threshold[nd]).astype(np.int64)
            cat = self.kind[nd] == 2
            if cat.any():
                codes = np.where(miss[cat], -1, x[cat]).astype(np.int64)
                ok = (codes >= 0) & (codes < self.lookups.shape[1])
                rows = self.lookup_row[nd[cat]]
                child[cat] = np.where(ok, self.lookups[rows, np.clip(codes, 0, self.lookups.shape[1] - 1)], -1)
            miss |= child < 0
            fallback[todo[miss]] = True
            keep = ~miss
            todo = todo[keep]
            cur[todo] = self.children[nd[keep], child[keep]]
        return cur, fallback

    def leaf_ids(self, X: np.ndarray) -> np.ndarray:
        """Leaf id per row; -1 where a missing value or unseen category splits the row's weight."""
        cur, fallback = self._route(np.asarray(X, dtype=float))
        return np.where(fallback, -1, self.node_id[cur])

    def values(self, X: np.ndarray) -> np.ndarray:
        """Leaf values per row (class probabilities, or the mean as one column), exactly as the tree."""
        X = np.asarray(X, dtype=float)
        cur, fallback = self._route(X)
        out = self.values_table[cur]
        if fallback.any():
            rows = np.flatnonzero(fallback)
            chunk = max(1, FALLBACK_CELLS // max(1, self.tree.n_leaves))
            for start in range(0, rows.size, chunk):
                part = rows[start:start + chunk]
                if self.tree.task == "classification":
                    out[part] = self._reorder(self.tree.predict_proba(X[part]))
                else:
                    out[part, 0] = self.tree.predict(X[part])
        return out

    def predict_leaves(self, leaf_ids: np.ndarray) -> np.ndarray:
        """:meth:`predict` for rows whose leaf ids (node ids) are known, e.g. the rows the tree grew on."""
        if np.array_equal(self.node_id, np.arange(self.node_id.size)):
            slots = leaf_ids
        else:
            slot = np.full(int(self.node_id.max()) + 1, -1, dtype=np.int64)
            slot[self.node_id] = np.arange(self.node_id.size)
            slots = slot[leaf_ids]
        vals = self.values_table[slots]
        return first_argmax(vals) if self.tree.task == "classification" else vals[:, 0]

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Class codes (argmax of the leaf distribution, first class on ties) or regression values."""
        vals = self.values(X)
        if self.tree.task == "classification":
            return first_argmax(vals)   # the same tie rule as Tree.predict (fractional rows mix leaves)
        return vals[:, 0]
