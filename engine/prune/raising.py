"""Subtree raising's branch estimates for many nodes at once (C4.5 / J48, :mod:`engine.prune.pessimistic`).

J48 asks at every internal node p: how many errors would p's largest child c make, were all of p's rows
sent down c's subtree (``getEstimatedErrorsForBranch``)? The rows of c reach c's leaves already (their
counts are the leaves' own); only the *other* children's rows move. :class:`Routes` holds the current
tree's tests as arrays, so those rows descend for all nodes of a depth together (one array step per
level of the subtrees), and each leaf they reach changes the estimate by ``est(N + f) - est(N)``.
With missing values (a row missing a node's test goes down every branch with the share of the known
weight that arrives there, as J48's ``resetDistribution`` computes it for the rows sent through),
every row of the node descends, split into fractions level by level, and the leaves' counts are summed
afresh (:meth:`Routes.full_estimates`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["Routes", "estimates", "decide_by_depth"]


def estimates(n: np.ndarray, e: np.ndarray, cf: float, z: float) -> np.ndarray:
    """Vectorised ``N * U_CF(E, N)`` (``_estimate`` of :mod:`engine.prune.pessimistic`): E + addErrs(N, E)."""
    n, e = np.asarray(n, dtype=float), np.asarray(e, dtype=float)
    out = np.zeros(n.shape)
    pos = n > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        base = n * (1.0 - cf ** (1.0 / n))
        f1 = 1.5 / n                                      # addErrs(N, 1) by the score formula (N > 1.5)
        r1 = (f1 + z * z / (2 * n) + z * np.sqrt(f1 / n - f1 * f1 / n + z * z / (4 * n * n))) / (1 + z * z / n)
        add1 = np.where(1.5 >= n, np.maximum(n - 1.0, 0.0), r1 * n - 1.0)
        f = (e + 0.5) / n
        r = (f + z * z / (2 * n) + z * np.sqrt(f / n - f * f / n + z * z / (4 * n * n))) / (1 + z * z / n)
        big = np.where(e + 0.5 >= n, np.maximum(n - e, 0.0), r * n - e)
    small = np.where(e == 0.0, base, base + e * (add1 - base))
    added = np.where(e < 1.0, small, big)
    out[pos] = e[pos] + added[pos]
    return out


class Routes:
    """The draft tree's tests as arrays (per node id: leaf?, feature, threshold, children), kept in step
    with cuts and raises, to send many rows down many subtrees at once."""

    def __init__(self, draft, X: np.ndarray):
        self.X = X
        N = len(draft.nodes)
        self.leaf = np.ones(N, dtype=bool)
        self.feat = np.zeros(N, dtype=np.int64)
        self.thr = np.zeros(N)
        self.multi = np.zeros(N, dtype=bool)
        self.kid_at = np.zeros(N, dtype=np.int64)
        self.lut_at = np.zeros(N, dtype=np.int64)
        self.n_kids = np.zeros(N, dtype=np.int64)
        self.n_values = [len(c) for c in draft.schema.categories]
        self.stats = np.zeros((N, len(draft.schema.classes)))
        self.kids = np.zeros(0, dtype=np.int64)
        self.lut = np.zeros(0, dtype=np.int64)
        self.refresh(draft, [n.id for n in draft.nodes if n is not None])

    @staticmethod
    def usable(draft) -> bool:
        """Every test is a threshold or a multiway split (the tests J48 makes)."""
        return all(n.split.kind in ("threshold", "multiway") for n in draft.nodes if n is not None and not n.is_leaf)

    @staticmethod
    def whole_rows(draft, X) -> bool:
        """No row is ever split into fractions: no missing value, every multiway test branching on every value."""
        if np.isnan(X).any():
            return False
        cats = draft.schema.categories
        return all(n.split.kind == "threshold" or len(n.split.category_codes) == len(cats[n.split.feature_index])
                   for n in draft.nodes if n is not None and not n.is_leaf)

    def refresh(self, draft, ids) -> None:
        """Take the current tests and numbers of the nodes ``ids`` (after a raise changed them)."""
        kids, lut = [], []
        n_kids, n_lut = self.kids.size, self.lut.size
        for i in ids:
            node = draft.nodes[i]
            if node is None:
                continue
            self.stats[i] = node.stats
            self.leaf[i] = node.is_leaf
            if node.is_leaf:
                continue
            s = node.split
            self.feat[i] = s.feature_index
            self.kid_at[i] = n_kids + len(kids)
            self.n_kids[i] = len(node.children)
            kids.extend(node.children)
            if s.kind == "threshold":
                self.multi[i] = False
                self.thr[i] = s.threshold
            else:
                self.multi[i] = True
                self.lut_at[i] = n_lut + len(lut)
                table = [-1] * self.n_values[s.feature_index]     # -1: a value without a branch (as missing)
                for b, code in enumerate(s.category_codes):
                    table[code] = b
                lut.extend(table)
        if kids:
            self.kids = np.concatenate([self.kids, np.asarray(kids, dtype=np.int64)])
        if lut:
            self.lut = np.concatenate([self.lut, np.asarray(lut, dtype=np.int64)])

    def descend(self, start: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The leaf each row reaches from its start node."""
        ptr = start.copy()
        act = np.flatnonzero(~self.leaf[ptr])
        while act.size:
            n = ptr[act]
            v = self.X[rows[act], self.feat[n]]
            multi = self.multi[n]
            b = (v > self.thr[n]).astype(np.int64)
            if multi.any():
                b[multi] = self.lut[self.lut_at[n[multi]] + v[multi].astype(np.int64)]
            ptr[act] = self.kids[self.kid_at[n] + b]
            act = act[~self.leaf[ptr[act]]]
        return ptr

    def branch_estimates(self, starts, owner, rows, w, y, base, cf: float, z: float) -> np.ndarray:
        """Per node (``base``: its largest child's current estimated errors): the estimate when the rows
        (``rows``, ``w``, from node ``owner`` of each, starting at ``starts``) are added to that subtree."""
        out = np.asarray(base, dtype=float).copy()
        if rows.size == 0:
            return out
        leaves = self.descend(starts, rows)
        uniq, first, inv = np.unique(leaves, return_index=True, return_inverse=True)
        K = self.stats.shape[1]
        f = np.bincount(inv * K + y[rows], weights=w, minlength=uniq.size * K).reshape(uniq.size, K)
        old = self.stats[uniq]
        new = old + f
        n_old, n_new = old.sum(axis=1), new.sum(axis=1)
        delta = estimates(n_new, n_new - new.max(axis=1), cf, z) - estimates(n_old, n_old - old.max(axis=1), cf, z)
        return out + np.bincount(owner[first], weights=delta, minlength=out.size)

    def _branches(self, n: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Branch of each value at nodes n (-1: missing, or a value the multiway test has no branch for)."""
        b = (v > self.thr[n]).astype(np.int64)
        multi = self.multi[n]
        if multi.any():
            vm = v[multi]
            ok = ~np.isnan(vm)
            bm = np.full(vm.size, -1, dtype=np.int64)
            bm[ok] = self.lut[self.lut_at[n[multi]][ok] + vm[ok].astype(np.int64)]
            b[multi] = bm
        b[np.isnan(v)] = -1
        return b

    def full_estimates(self, starts, owner, rows, w, y, n_owner: int, cf: float, z: float) -> np.ndarray:
        """Per owner: the estimated errors of its start subtree when its rows descend it (J48's
        ``getEstimatedErrorsForBranch``): at each node the rows with the test's value go down their
        branch, the others down every branch whose share of the known weight arriving there is above
        1e-6 (evenly when almost none is known), with their weight times that share."""
        K = self.stats.shape[1]
        ptr, r, ww, own = starts.copy(), rows, w, owner
        leaf_parts, row_parts, w_parts, own_parts = [], [], [], []
        while ptr.size:
            at = self.leaf[ptr]
            if at.any():
                leaf_parts.append(ptr[at])
                row_parts.append(r[at])
                w_parts.append(ww[at])
                own_parts.append(own[at])
                ptr, r, ww, own = ptr[~at], r[~at], ww[~at], own[~at]
                if not ptr.size:
                    break
            b = self._branches(ptr, self.X[r, self.feat[ptr]])
            miss = b < 0
            uq, inv = np.unique(ptr, return_inverse=True)
            nk = self.n_kids[uq]
            mb = int(nk.max())
            kw = np.bincount(inv[~miss] * mb + b[~miss], weights=ww[~miss], minlength=uq.size * mb).reshape(-1, mb)
            tot = kw.sum(axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                share = np.where(tot[:, None] > 1e-6, kw / tot[:, None], 1.0 / nk[:, None])
            share[np.arange(mb)[None, :] >= nk[:, None]] = 0.0
            kn = ~miss
            nxt = [self.kids[self.kid_at[ptr[kn]] + b[kn]]]
            nr, nw, no = [r[kn]], [ww[kn]], [own[kn]]
            if miss.any():
                mi = np.flatnonzero(miss)
                for c in range(mb):
                    sh = share[inv[mi], c]
                    sel = mi[sh > 1e-6]
                    nxt.append(self.kids[self.kid_at[ptr[sel]] + c])
                    nr.append(r[sel])
                    nw.append(ww[sel] * sh[sh > 1e-6])
                    no.append(own[sel])
            ptr, r, ww, own = np.concatenate(nxt), np.concatenate(nr), np.concatenate(nw), np.concatenate(no)
        out = np.zeros(n_owner)
        if not leaf_parts:
            return out
        leaves, lrows, lw = np.concatenate(leaf_parts), np.concatenate(row_parts), np.concatenate(w_parts)
        uq, first, inv = np.unique(leaves, return_index=True, return_inverse=True)
        counts = np.bincount(inv * K + y[lrows], weights=lw, minlength=uq.size * K).reshape(uq.size, K)
        n = counts.sum(axis=1)
        est = estimates(n, n - counts.max(axis=1), cf, z)
        return np.bincount(np.concatenate(own_parts)[first], weights=est, minlength=n_owner)


def decide_by_depth(run, z: float) -> None:
    """J48's pruning decisions (``run``: the pruning in progress of :mod:`engine.prune.pessimistic`, with its
    ``visit``, ``largest`` and ``node_by_node``), deepest nodes first, the branch estimates of a depth's
    nodes at once (:class:`Routes`); a raise prunes its new subtree node by node. ``z``: Phi^-1(1 - CF)."""
    draft, rows = run.draft, run.rows
    routes = Routes(draft, run.X)
    whole = Routes.whole_rows(draft, run.X)
    depths: dict[int, list[int]] = {}
    for node in draft.walk(0):
        if not node.is_leaf:
            depths.setdefault(node.depth, []).append(node.id)
    for depth in sorted(depths, reverse=True):
        ids = [i for i in depths[depth] if draft.nodes[i] is not None and not draft.nodes[i].is_leaf]
        if not ids:
            continue
        largest = [run.largest(i) for i in ids]
        starts, owner, idx, w = [], [], [], []
        for k, (i, b) in enumerate(zip(ids, largest)):
            kids = draft.nodes[i].children
            # whole rows: only the other branches' rows move; else every row of the node descends
            parts = [rows[kid] for c, kid in enumerate(kids) if c != b and kid in rows] if whole else \
                [rows[i]] if i in rows else []
            for r, rw in parts:
                idx.append(r)
                w.append(rw)
                owner.append(np.full(r.size, k, dtype=np.int64))
                starts.append(np.full(r.size, kids[b], dtype=np.int64))
        cat = (lambda parts, t: np.concatenate(parts) if parts else np.zeros(0, dtype=t))
        args = (cat(starts, np.int64), cat(owner, np.int64), cat(idx, np.int64), cat(w, float), run.y)
        if whole:
            base = [run.sums[draft.nodes[i].children[b]][1] for i, b in zip(ids, largest)]
            branch = routes.branch_estimates(*args, base, run.cf, z)
        else:
            branch = routes.full_estimates(*args, len(ids), run.cf, z)
        for i, b, est in zip(ids, largest, branch.tolist()):
            if run.visit(i, est, b):
                run.node_by_node(i)
                routes.refresh(draft, [n.id for n in draft.walk(i)])
            elif draft.nodes[i].is_leaf:
                routes.leaf[i] = True


