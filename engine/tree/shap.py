"""Exact path-dependent TreeSHAP and Saabas path contributions for one tree, vectorised across rows.

Both explain ``f(x) = sum_l v_l * prod_{edges e on l's path} o_e(x)``, the tree's answer as a sum over its
leaves ``l`` of the leaf value times the share of the row that reaches the leaf: ``o_e(x)`` is 1 on the
branch the row takes and 0 on the others (a missing value goes down the branch its node sends missing
values: one-hot for imported models, the branches' training shares for C4.5 trees, so ``f`` is exactly
:meth:`engine.tree.store.Tree.predict`).

**TreeSHAP** (Lundberg et al. 2020, "From local explanations to global understanding with explainable AI
for trees", Algorithm 2). When only the features in a set ``S`` are known, the tree's expected answer is
``v(S) = sum_l v_l prod_{e on l} (o_e(x) if feature(e) in S else z_e)`` with the *zero fraction*
``z_e = cover(child) / cover(parent)`` (the training cover or hessian sum going that way: the
"cover-weighted conditional expectation"). For one leaf this is a product over the distinct features
``i`` on its path of ``(o_i if i in S else z_i)``, ``o_i``/``z_i`` the products of the fractions of that
feature's edges (a feature met twice is merged into one factor, which is what the paper's UNWIND of the
earlier occurrence and re-EXTEND does). The Shapley value of feature ``i`` in that product game is

    phi_i = v_l (o_i - z_i) sum_{s=0}^{k-1} s! (k-1-s)! / k! * [x^s] prod_{j != i} (z_j + o_j x)

with ``k`` the leaf's distinct features. The paper's EXTEND builds ``prod_j (z_j + o_j x)`` one edge at a
time (its ``pweights`` are these coefficients times the Shapley weights) and UNWIND divides one factor back
out; here the products without factor ``i`` are prefix times suffix products (no division, so a zero
fraction needs no special case), for all leaves of the tree and a chunk of rows at once: the Python loops
run over path positions, never over rows or leaves. Leaves with fewer distinct features are padded with
factors ``z = o = 1`` (a feature that changes nothing: the Shapley values of the others do not change).
The values add up: ``sum_i phi_i + E = f(x)``, ``E = v(empty set) = sum_l v_l prod z`` the expected value.

**Saabas** (path contributions, as in ``treeinterpreter`` and XGBoost's ``approx_contribs``): a node's value
is the cover-weighted mean of its leaves' values (the same covers), and each edge the row follows adds
``value(child) - value(parent)`` to the feature its parent tests; they add up to the same ``f(x) - E``.

:class:`TreePaths` holds the tree's paths as arrays (built once, the tree's Python work); its
:meth:`~TreePaths.shap` and :meth:`~TreePaths.saabas` return ``(features, values)`` per chunk of rows.
"""

from __future__ import annotations

from math import comb

import numpy as np

from engine.tree.node import first_argmax

#: cells (8 bytes each) of the working arrays one chunk of rows may use (~32 MB)
CHUNK_CELLS = 4_000_000
#: cells of a group's table of values per agreement pattern (leaves x 2^k x k) kept at most (~16 MB)
PATTERN_CELLS = 2_000_000


def shapley_weights(k: int) -> np.ndarray:
    """``c[s] = s! (k-1-s)! / k!`` for ``s = 0..k-1``: the weight of a coalition of ``s`` of the other
    ``k - 1`` players in a player's Shapley value."""
    return np.array([1.0 / (k * comb(k - 1, s)) for s in range(k)])


class TreePaths:
    """One tree's root-to-leaf paths as arrays, ready to explain rows (see the module docstring).

    ``tree``: an engine :class:`~engine.tree.store.Tree`; ``values``: a function from the tree's (n_nodes,
    width) node value table (rows = node ids) to the values explained (leaves only are read; default: the
    leaf values); ``cover``: ``"weight"`` (the nodes' ``weight``: training cover, hessian sum or sample
    weight) or ``"count"`` (``n_node_samples``, as LightGBM's contributions use).
    """

    def __init__(self, tree, *, values=None, cover: str = "weight"):
        nodes = list(tree.walk())
        slot = {n.id: s for s, n in enumerate(nodes)}
        S = len(nodes)
        self.n_slots = S
        parent = np.full(S, -1, dtype=np.int64)
        depth = np.zeros(S, dtype=np.int64)
        feature = np.zeros(S, dtype=np.int64)           # the feature a node tests (internal nodes)
        weight = np.array([float(n.n_node_samples if cover == "count" else n.weight) for n in nodes])
        weight = np.where(np.isfinite(weight) & (weight > 0), weight, 0.0)
        zero = np.ones(S)                                # cover(child) / cover of its siblings together
        thr = []                                         # threshold nodes: slot, feature, threshold, children, shares
        other = []                                       # category tests: split, children slots, shares
        for s, n in enumerate(nodes):
            if n.is_leaf:
                continue
            kids = [slot[c] for c in n.children]
            parent[kids], depth[kids], feature[s] = s, depth[s] + 1, n.split.feature_index
            w = weight[kids]
            zero[kids] = w / w.sum() if w.sum() > 0 else 1.0 / len(kids)
            cw = np.asarray(n.split.child_weights, dtype=float)
            share = cw / cw.sum() if cw.size == len(kids) and cw.sum() > 0 else np.full(len(kids), 1.0 / len(kids))
            if n.split.kind == "threshold" and len(kids) == 2:
                thr.append((s, n.split.feature_index, n.split.threshold, kids[0], kids[1], share[0], share[1]))
            else:
                other.append((n.split, kids, share))
        self.parent, self.depth, self.node_feature, self.zero = parent, depth, feature, zero
        cols = list(zip(*thr)) if thr else [[]] * 7
        self.t_slot, self.t_feat = np.array(cols[0], np.int64), np.array(cols[1], np.int64)
        self.t_thr = np.array(cols[2], float)
        self.t_left, self.t_right = np.array(cols[3], np.int64), np.array(cols[4], np.int64)
        self.t_share = np.array([cols[5], cols[6]], float).reshape(2, -1)
        self.other = other
        table = np.array([n.value for n in nodes], dtype=float).reshape(S, -1)
        table = table if values is None else values(table)
        leaf = np.array([n.is_leaf for n in nodes])
        self.leaves = np.flatnonzero(leaf)
        self.leaf_values = table[self.leaves]            # (L, W)
        self.width = self.leaf_values.shape[1]
        self.node_values = self._node_means(weight, leaf, table)
        self._patterns: dict[int, np.ndarray] = {}
        self._paths()

    # ----------------------------------------------------------------------------- building
    def _node_means(self, weight, leaf, table) -> np.ndarray:
        """(S, W) each node's cover-weighted mean of its leaves' values (bottom-up; zero fractions as weights)."""
        vals = np.where(leaf[:, None], table, 0.0)
        for s in np.argsort(-self.depth, kind="stable"):
            if self.parent[s] >= 0:
                vals[self.parent[s]] += self.zero[s] * vals[s]
        return vals

    def _paths(self) -> None:
        """Per leaf: its edges (child slots, root first), each edge's slot among the leaf's distinct features,
        the zero fraction and the feature of each slot; padded to the longest path / most features."""
        L = self.leaves.size
        edges, slots, feats = [], [], []
        for s in self.leaves.tolist():
            path = []
            while self.parent[s] >= 0:
                path.append(s)
                s = self.parent[s]
            path.reverse()
            seen: dict[int, int] = {}
            kslot = [seen.setdefault(int(self.node_feature[self.parent[e]]), len(seen)) for e in path]
            edges.append(path), slots.append(kslot), feats.append(list(seen))
        self.n_features_max = max((len(f) for f in feats), default=0)
        self.n_used = int(max((max(f) for f in feats if f), default=-1)) + 1
        zero_of = np.ones((L, max(self.n_features_max, 1)))
        for l, (path, kslot) in enumerate(zip(edges, slots)):
            for e, k in zip(path, kslot):
                zero_of[l, k] *= self.zero[e]
        self.expected = self.leaf_values.T @ zero_of.prod(axis=1)          # (W,)
        # leaves with the same number k of distinct features form one group (no padding of short paths)
        self.groups = []
        sizes = np.array([len(f) for f in feats])
        for k in np.unique(sizes[sizes > 0]).tolist():
            ls = np.flatnonzero(sizes == k)
            P = max(len(edges[l]) for l in ls)
            edge = np.full((ls.size, P), self.n_slots, dtype=np.int64)     # padding: the row of ones
            eslot = np.zeros((ls.size, P), dtype=np.int64)
            for r, l in enumerate(ls.tolist()):
                edge[r, :len(edges[l])], eslot[r, :len(edges[l])] = edges[l], slots[l]
            self.groups.append((ls, edge, eslot, np.array([feats[l] for l in ls], dtype=np.int64),
                                zero_of[ls, :k]))

    # ----------------------------------------------------------------------------- rows
    def edge_fractions(self, X: np.ndarray) -> np.ndarray:
        """(S + 1, n) the share of each row that goes from a node's parent to the node (root and the
        padding row: 1): 1 or 0, or a missing value's branch share."""
        n = X.shape[0]
        E = np.ones((self.n_slots + 1, n))
        if self.t_slot.size:
            V = X[:, self.t_feat]                                        # (n, m)
            miss = np.isnan(V)
            with np.errstate(invalid="ignore"):
                left = V <= self.t_thr
            E[self.t_left] = np.where(miss, self.t_share[0], left).T
            E[self.t_right] = np.where(miss, self.t_share[1], ~left & ~miss).T
        for split, kids, share in self.other:
            route = split.route(X[:, split.feature_index])
            for c, k in enumerate(kids):
                E[k] = (route == c) + (route < 0) * share[c]
        return E

    def chunk_rows(self) -> int:
        """Rows per chunk so the working arrays stay near :data:`CHUNK_CELLS` cells."""
        per_row = max([g[0].size * g[3].shape[1] * (2 * g[3].shape[1] + self.width + 3) for g in self.groups],
                      default=1)
        return max(1, CHUNK_CELLS // (per_row + self.n_slots + 1))

    def shap(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(features (U,), phi (U, n, W)): the SHAP values of the features the tree tests, for the rows of
        ``X`` (encoded in the tree's own columns; one chunk: see :meth:`chunk_rows`)."""
        n = X.shape[0]
        if not self.groups:
            return np.zeros(0, dtype=np.int64), np.zeros((0, n, self.width))
        E = self.edge_fractions(X)
        exact = ((E == 0.0) | (E == 1.0)).all(axis=0)                   # rows that meet no missing value
        acc = np.zeros((self.n_used, n, self.width))
        for g, (leaves, edge, eslot, feature, zero) in enumerate(self.groups):
            contrib = self._group_shapley(g, E, exact)
            feats, summed = self._by_feature(contrib, feature, self.leaf_values[leaves])
            acc[feats] += summed
        used = np.unique(np.concatenate([g[3].ravel() for g in self.groups]))
        return used, acc[used]

    def _group_shapley(self, g: int, E: np.ndarray, exact: np.ndarray) -> np.ndarray:
        """(L, n, k) :func:`leaf_shapley` of group ``g``'s leaves for the chunk's rows. A row that meets no
        missing value (``exact``) has one fractions of 0 or 1, so its values depend only on which of a leaf's
        k features it agrees with (a k-bit code): when there are more such rows than the 2^k codes, the values
        of every code are computed once (and kept) and looked up."""
        _, edge, eslot, _, zero = self.groups[g]
        L, k = zero.shape
        n = E.shape[1]
        rows = np.flatnonzero(exact)
        table = rows.size > 2 ** k and L * 2 ** k * k <= PATTERN_CELLS
        rest = np.flatnonzero(~exact) if table else np.arange(n)
        out = np.empty((L, n, k))
        ar = np.arange(L)
        if table:
            table = self._patterns.get(g)
            if table is None:
                bits = ((np.arange(2 ** k)[:, None] >> np.arange(k)[None, :]) & 1).astype(float)   # (2^k, k)
                table = self._patterns[g] = leaf_shapley(np.broadcast_to(bits[None], (L, 2 ** k, k)), zero)
            Er = E[:, rows]
            code = np.full((L, rows.size), 2 ** k - 1, dtype=np.int64)      # every feature agrees ...
            for p in range(edge.shape[1]):                                  # ... until an edge is not taken
                code &= ~((Er[edge[:, p]] == 0.0) * (1 << eslot[:, p])[:, None])
            out[:, rows] = table[ar[:, None], code]
        if rest.size:
            one = np.ones((L, rest.size, k))                                 # o: each distinct feature's one fraction
            Es = E[:, rest]
            for p in range(edge.shape[1]):
                one[ar, :, eslot[:, p]] *= Es[edge[:, p]]
            out[:, rest] = leaf_shapley(one, zero)
        return out

    @staticmethod
    def _by_feature(contrib: np.ndarray, feature: np.ndarray, values: np.ndarray):
        """Sum ``contrib[l, :, k] * values[l]`` over the (l, k) cells of each feature (padding -1 dropped)."""
        flat = feature.ravel()
        keep = np.flatnonzero(flat >= 0)
        order = keep[np.argsort(flat[keep], kind="stable")]
        feats, starts = np.unique(flat[order], return_index=True)
        L, n, K = contrib.shape
        cells = contrib.transpose(0, 2, 1).reshape(L * K, n)[order]     # (cells, n)
        lv = values[order // K]                                         # (cells, W)
        summed = np.add.reduceat(cells[:, :, None] * lv[:, None, :], starts, axis=0)
        return feats, summed

    def saabas(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(features (U,), contributions (U, n, W)): Saabas path contributions for the rows of ``X``."""
        n = X.shape[0]
        E = self.edge_fractions(X)
        reach = np.ones((self.n_slots, n))
        for d in range(1, int(self.depth.max(initial=0)) + 1):
            at = np.flatnonzero(self.depth == d)
            reach[at] = reach[self.parent[at]] * E[at]
        kids = np.flatnonzero(self.parent >= 0)
        if kids.size == 0:
            return np.zeros(0, dtype=np.int64), np.zeros((0, n, self.width))
        step = self.node_values[kids] - self.node_values[self.parent[kids]]    # (edges, W)
        feature = self.node_feature[self.parent[kids]]
        return self._by_feature(reach[kids][:, :, None], feature[:, None], step)


def leaf_shapley(one: np.ndarray, zero: np.ndarray) -> np.ndarray:
    """(L, n, k) ``(o_i - z_i) sum_s c_s [x^s] prod_{j != i} (z_j + o_j x)`` for L leaves with k distinct
    features each, ``one`` (L, n, k) the rows' one fractions, ``zero`` (L, k) the zero fractions (the module
    docstring's formula without the leaf value)."""
    L, n, k = one.shape
    z = np.broadcast_to(zero[:, None, :], (L, n, k))
    pre = np.zeros((L, n, k, k))                                     # pre[..., i, :] = prod_{j<i} (z_j + o_j x)
    suf = np.zeros((L, n, k, k))                                     # suf[..., i, :] = prod_{j>i} (z_j + o_j x)
    pre[..., 0, 0] = suf[..., k - 1, 0] = 1.0
    for i in range(1, k):
        pre[..., i, :] = pre[..., i - 1, :] * z[..., i - 1, None]
        pre[..., i, 1:] += pre[..., i - 1, :-1] * one[..., i - 1, None]
        j = k - 1 - i
        suf[..., j, :] = suf[..., j + 1, :] * z[..., j + 1, None]
        suf[..., j, 1:] += suf[..., j + 1, :-1] * one[..., j + 1, None]
    c = shapley_weights(k)
    a = np.arange(k)
    hankel = np.where(a[:, None] + a[None, :] < k, c[np.minimum(a[:, None] + a[None, :], k - 1)], 0.0)
    weighted = np.einsum("lnib,ba->lnia", suf, hankel, optimize=False)   # sum_b suf[b] c[a + b]
    return np.einsum("lnia,lnia->lni", pre, weighted) * (one - z)


def vote_values(table: np.ndarray) -> np.ndarray:
    """Each node's class shares replaced by a one-hot vote for its first most likely class (a hard-voting
    member's leaf)."""
    out = np.zeros_like(table)
    out[np.arange(table.shape[0]), first_argmax(table)] = 1.0
    return out
