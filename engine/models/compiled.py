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
        parts = [_tree_parts(tree) for tree in trees]
        sizes = np.array([p[0].size for p in parts], dtype=np.int64)
        self.roots = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64) if parts else np.zeros(0, np.int64)
        join = lambda k, dtype: (np.concatenate([np.asarray(p[k], dtype=dtype) for p in parts]) if parts
                                 else np.zeros(0, dtype))
        self.node_id = join(0, np.int64)
        self.feature = join(1, np.int64)
        self.threshold = join(2, float)
        links = [join(k, np.int64) for k in (3, 4, 5)]      # slots within each tree: shift by its first slot
        offset = np.repeat(self.roots, sizes)
        self.left, self.right, self.missing = (np.where(a >= 0, a + offset, -1) for a in links)
        self.values_table = np.concatenate([p[6] for p in parts]) if parts else np.zeros((0, 1))
        self.is_leaf = self.left < 0
        own = np.flatnonzero(self.is_leaf)              # a leaf routes every row to itself
        self.left[own] = self.right[own] = self.missing[own] = own
        self.max_depth = max((t.depth for t in trees), default=0)
        sets = [codes for p in parts for codes in p[7].values()]
        slots = [int(s) + int(root) for p, root in zip(parts, self.roots) for s in p[7]]
        self.is_cat = np.zeros(self.node_id.size, dtype=bool)
        self.is_cat[slots] = True
        self.has_cat = bool(slots)
        self.cat_row = np.zeros(self.node_id.size, dtype=np.int64)
        self.cat_row[slots] = np.arange(len(slots))
        width = max((max(c, default=-1) for c in sets), default=-1) + 1
        self.goes_left = np.zeros((max(len(sets), 1), width + 1), dtype=bool)  # last column: out of range
        for r, codes in enumerate(sets):
            self.goes_left[r, list(codes)] = True

    def _route(self, X: np.ndarray) -> np.ndarray:
        """(T, n) leaf slots of each row in each tree. A leaf points to itself, so cells that reached one
        may take more steps unharmed; the set of moving cells is narrowed only once more than a fifth of it
        has finished: few narrowings for balanced trees, and deep leaf-wise trees do not drag every cell along."""
        T, n = self.roots.size, X.shape[0]
        flat = np.ascontiguousarray(X, dtype=float).ravel()
        cur = np.repeat(self.roots[:, None], n, axis=1).ravel()
        base = np.tile(np.arange(n, dtype=np.int64) * X.shape[1], T)
        moving = None                                    # None: every cell
        for _ in range(self.max_depth):
            nodes = cur if moving is None else cur[moving]
            nxt = self._step(nodes, flat[(base if moving is None else base[moving]) + self.feature[nodes]])
            if moving is None:
                cur = nxt
            else:
                cur[moving] = nxt
            done = self.is_leaf[nxt]
            if 5 * np.count_nonzero(done) > done.size:
                moving = np.flatnonzero(~done) if moving is None else moving[~done]
                if not moving.size:
                    break
        return cur.reshape(T, n)

    def _step(self, nodes: np.ndarray, v: np.ndarray) -> np.ndarray:
        """The child slot each cell at ``nodes`` with value ``v`` moves to."""
        nxt = np.where(v <= self.threshold[nodes], self.left[nodes], self.right[nodes])
        if self.has_cat:
            cat = np.flatnonzero(self.is_cat[nodes])
            if cat.size:
                at, out_of_range = nodes[cat], self.goes_left.shape[1] - 1
                code = np.trunc(v[cat])
                code = np.where(~(code >= 0) | (code >= out_of_range), out_of_range, code).astype(np.int64)
                nxt[cat] = np.where(self.goes_left[self.cat_row[at], code], self.left[at], self.right[at])
        nan = np.flatnonzero(np.isnan(v))
        if nan.size:
            nxt[nan] = self.missing[nodes[nan]]
        return nxt

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


def _tree_parts(tree):
    """One tree's routing arrays over its own slots: (node id, feature, threshold, left, right and missing
    slot (-1 at a leaf), values (n, width), {slot: codes going left}). A tree kept as node arrays
    (:mod:`engine.models.arrays`) hands them over, its slots its node ids; any other is read node by node in
    pre-order."""
    flat = getattr(tree.nodes, "flat", None)
    if flat is not None:
        feature, threshold, left, right, missing, sets, values = flat()
        return np.arange(left.size), feature, threshold, left, right, missing, values, sets
    order = [n.id for n in tree.walk()]
    slot = {nid: i for i, nid in enumerate(order)}
    m = len(order)
    feature, left, right, missing = (np.zeros(m, dtype=np.int64) for _ in range(4))
    threshold = np.zeros(m)
    values, sets = [], {}
    for k, nid in enumerate(order):
        node = tree.nodes[nid]
        values.append(node.value)
        s = node.split
        if s is None:
            left[k] = right[k] = missing[k] = -1
            continue
        lo, hi = slot[node.children[0]], slot[node.children[1]]
        feature[k], left[k], right[k] = s.feature_index, lo, hi
        missing[k] = lo if s.child_weights[0] > 0 else hi
        if s.kind == "threshold":
            threshold[k] = float(s.threshold)
        else:
            sets[k] = s.category_codes
    return np.asarray(order), feature, threshold, left, right, missing, np.asarray(values, dtype=float), sets
