"""All the trees of an imported model flattened into one set of arrays, routed together.

Every node of every tree gets a global slot: ``feature``, ``threshold``, ``left``/``right``/``missing``
children (slots), and for a category test a row of ``goes_left`` (code -> True when that code goes
left). All rows of all trees move down one level per numpy step (a leaf points to itself), so a 500-tree model
costs ``depth`` vectorised steps per chunk of rows, not a Python loop per tree or row. The arrays are read from the
:class:`~engine.tree.store.Tree` objects, so the routing is the trees' own:

- threshold node: left iff ``x <= threshold``;
- category node: the code is the value truncated toward zero (as the libraries cast it); a code in the
  node's set goes left, any other code (negative, unseen, too large) goes right;
- a missing value (NaN) goes to the child whose ``split.child_weights`` share is 1.
"""

from __future__ import annotations

import numpy as np

#: Rows are routed in chunks so that trees x rows stays below this many cells.
CHUNK_CELLS = 2_000_000


class CompiledForest:
    """Flat routing tables of ``trees`` (see the module docstring)."""

    def __init__(self, trees):
        feature, threshold, left, right, missing, is_cat, cat_row, node_id, values = ([] for _ in range(9))
        sets, self.roots = [], []
        for tree in trees:
            order = [n.id for n in tree.walk()]
            base = len(node_id)
            slot = {nid: base + i for i, nid in enumerate(order)}
            self.roots.append(base)
            for nid in order:
                node = tree.nodes[nid]
                node_id.append(nid)
                values.append(node.value)
                s = node.split
                if s is None:
                    feature.append(0), threshold.append(0.0), is_cat.append(False), cat_row.append(0)
                    left.append(-1), right.append(-1), missing.append(-1)
                    continue
                lo, hi = slot[node.children[0]], slot[node.children[1]]
                feature.append(s.feature_index)
                left.append(lo), right.append(hi)
                missing.append(lo if s.child_weights[0] > 0 else hi)
                if s.kind == "threshold":
                    threshold.append(float(s.threshold)), is_cat.append(False), cat_row.append(0)
                else:
                    threshold.append(0.0), is_cat.append(True), cat_row.append(len(sets))
                    sets.append(s.category_codes)
        self.feature = np.asarray(feature, dtype=np.int64)
        self.threshold = np.asarray(threshold, dtype=float)
        self.left = np.asarray(left, dtype=np.int64)
        self.right = np.asarray(right, dtype=np.int64)
        self.missing = np.asarray(missing, dtype=np.int64)
        self.is_leaf = self.left < 0
        own = np.flatnonzero(self.is_leaf)              # a leaf routes every row to itself
        self.left[own] = self.right[own] = self.missing[own] = own
        self.max_depth = max((t.depth for t in trees), default=0)
        self.is_cat = np.asarray(is_cat, dtype=bool)
        self.cat_row = np.asarray(cat_row, dtype=np.int64)
        self.node_id = np.asarray(node_id, dtype=np.int64)
        self.values_table = np.asarray(values, dtype=float)
        self.roots = np.asarray(self.roots, dtype=np.int64)
        width = max((max(c, default=-1) for c in sets), default=-1) + 1
        self.goes_left = np.zeros((max(len(sets), 1), width + 1), dtype=bool)  # last column: out of range
        for r, codes in enumerate(sets):
            self.goes_left[r, list(codes)] = True

    def _route(self, X: np.ndarray) -> np.ndarray:
        """(T, n) leaf slots of each row in each tree: ``depth`` steps over every (tree, row) cell, a leaf
        pointing to itself, so no cell needs to be tracked as finished."""
        T, n = self.roots.size, X.shape[0]
        d = X.shape[1]
        flat = np.ascontiguousarray(X, dtype=float).ravel()
        cur = np.repeat(self.roots[:, None], n, axis=1).ravel()
        base = np.tile(np.arange(n, dtype=np.int64) * d, T)
        out_of_range = self.goes_left.shape[1] - 1
        has_cat = bool(self.is_cat.any())
        for _ in range(self.max_depth):
            v = flat[base + self.feature[cur]]
            nxt = np.where(v <= self.threshold[cur], self.left[cur], self.right[cur])
            if has_cat:
                cat = np.flatnonzero(self.is_cat[cur])
                if cat.size:
                    nodes = cur[cat]
                    code = np.trunc(v[cat])
                    code = np.where(~(code >= 0) | (code >= out_of_range), out_of_range, code).astype(np.int64)
                    nxt[cat] = np.where(self.goes_left[self.cat_row[nodes], code], self.left[nodes], self.right[nodes])
            nan = np.flatnonzero(np.isnan(v))
            if nan.size:
                nxt[nan] = self.missing[cur[nan]]
            cur = nxt
        return cur.reshape(T, n)

    def _chunks(self, X: np.ndarray):
        step = max(1, CHUNK_CELLS // max(self.roots.size, 1))
        for start in range(0, X.shape[0], step):
            yield slice(start, start + step), self._route(X[start:start + step])

    def values(self, X: np.ndarray) -> np.ndarray:
        """(T, n, width) the leaf value each row reaches in each tree."""
        X = np.asarray(X, dtype=float)
        out = np.empty((self.roots.size, X.shape[0], self.values_table.shape[1]))
        for rows, slots in self._chunks(X):
            out[:, rows] = self.values_table[slots]
        return out

    def leaves(self, X: np.ndarray) -> np.ndarray:
        """(T, n) the node id (the tree's own) of the leaf each row reaches in each tree."""
        X = np.asarray(X, dtype=float)
        out = np.empty((self.roots.size, X.shape[0]), dtype=np.int64)
        for rows, slots in self._chunks(X):
            out[:, rows] = self.node_id[slots]
        return out
