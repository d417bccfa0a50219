"""Histogram scanning for the level-wise builder (:func:`engine.grow.fastexact.grow_exact`): the
histograms of a whole level's big nodes from one ``bincount`` per feature, and the winners' thresholds.

Rows keep their place; per level only each row's node changes. For a feature, the key
``(node * S + class) * B + code`` turns the rows into per-node class-count histograms ``(C, S, B)``;
cumulative sums over the bins give every node's left child at every edge, and the gains of all nodes and
features are scored at once (:func:`best_edges`), with the arithmetic of
:func:`engine.split.histogram.histogram_candidates` node by node.

Classification with unit weights counts rows, so histograms are exact integers and LightGBM's
subtraction trick applies: of two siblings only the one with fewer rows is counted, the other is its
parent's histogram minus it, which halves the rows counted per level. Other stats (weights, regression)
are summed per feature with ``bincount(weights=...)`` in row order, the order the per-node search adds
them in, so every sum keeps its last bit.

The winning edge's threshold is node-local (midpoint of the largest value going left and the smallest
going right): only rows in the winning bin and in the next non-empty bin can hold those values, so only
they are read; routing by that threshold equals routing by bin code.
"""

from __future__ import annotations

import numpy as np

from engine.grow.parallel import thread_map, threads_for
from engine.grow.sorting.segments import exclusive_cumsum, padded_rows
from engine.split.search import TIE_TOL

HIST_BUDGET = 1 << 22   # largest level histogram (nodes x features x classes x bins) kept for subtraction
SPARSE_ABOVE = 1.0      # count only the (node, bin) pairs present when nodes x bins exceed this x rows
#: histogram cells (nodes x features x classes x bins) scanned together: the scan's dozens of passes then
#: stay in the core's cache (a whole deep level's arrays are tens of MB), and pieces run on the threads
SCAN_CELLS = 1 << 18


def best_edges(crit, min_leaf, cum, cnt, P, W, counts: bool = False):
    """The best edge of every histogram: cumulative stats ``cum`` (S arrays (..., B)), rows per bin ``cnt``
    (..., B), parent impurity ``P`` and weight ``W`` (...); ``counts``: the stats are class counts, so a
    side's weight is its row count. Returns (gain, bin, left stats (..., S), n_left, next non-empty bin);
    gain is -inf where no edge is valid; ties go to the first bin."""
    left = [c[..., :-1] for c in cum]
    right = [c[..., -1:] - lc for c, lc in zip(cum, left)]
    ncum = np.cumsum(cnt, axis=-1)
    n_left = ncum[..., :-1]
    n_right = ncum[..., -1:] - n_left
    nonempty = cnt > 0
    valid = nonempty[..., :-1] & (n_left >= min_leaf) & (n_right >= min_leaf)
    wl, wr = (n_left.astype(np.float64), n_right.astype(np.float64)) if counts else (None, None)
    with np.errstate(divide="ignore", invalid="ignore"):
        # with row counts as weights, both sides of a valid edge hold rows: only there are gains read
        gain = crit.weighted_cols(left, wl, read_where_positive=counts)
        gain += crit.weighted_cols(right, wr, read_where_positive=counts)
        gain /= W[..., None]
        np.subtract(P[..., None], gain, out=gain)
    np.copyto(gain, -np.inf, where=~valid)
    best = gain.max(axis=-1, initial=-np.inf)
    finite = np.isfinite(best)
    bar = np.where(finite, best - TIE_TOL * (1.0 + np.abs(np.where(finite, best, 0.0))), np.inf)
    first = np.argmax(gain >= bar[..., None], axis=-1)[..., None]
    after = np.argmax(nonempty & (np.arange(cnt.shape[-1]) > first), axis=-1)
    lstats = np.stack([np.take_along_axis(lc, first, -1)[..., 0] for lc in left], axis=-1)
    return best, first[..., 0], lstats, np.take_along_axis(n_left, first, -1)[..., 0], after


class LevelHistograms:
    """Histogram search state of :func:`engine.grow.fastexact.grow_exact` (one per growth).

    Per level: :meth:`totals` (stats per candidate node), :meth:`scan` (best edge per node and feature),
    :meth:`thresholds` (node-local thresholds of the winners), :meth:`remember` (keep the histograms
    for the children's subtraction).
    """

    def __init__(self, grower, idx0, ScT, labels, draw: bool, threads: int = 1):
        """``ScT``: stats per row (S, m) (None with ``labels``, the class of every row, for unit weights);
        ``threads``: features counted at once (:func:`engine.grow.parallel.thread_map`)."""
        self.threads = threads
        codes = grower.bins.codes.T                               # (d, n) contiguous
        self.codes = codes if idx0.size == codes.shape[1] else np.ascontiguousarray(codes[:, idx0])
        self.n_bins = [e.size + 1 for e in grower.bins.edges]
        self.B = max(self.n_bins)
        self.X, self.idx0, self.ScT, self.labels = grower.X, idx0, ScT, labels
        # a unit-weight regression's first stat is 1 a row: its sums are the row counts, counted without
        # weights (the same numbers, below 2**53 rows) instead of one more weighted bincount per feature
        self.ones_first = (labels is None and grower.task == "regression" and ScT.shape[0] > 0
                           and bool(np.all(ScT[0] == 1.0)))
        self.S = len(grower.dataset.classes) if labels is not None else ScT.shape[0]
        self.crit, self.min_leaf = grower.crit, grower.config.min_samples_leaf
        self.subtract = labels is not None and not draw           # exact integer counts, every feature
        self.prev = None      # (hist of the last level's candidates, parent cand and "counted" of level nodes)
        self.rowpos = None
        # weighted classes (a bootstrap's counts): one bincount of (cell, class) with the weights gives
        # every class's sums at once, the same sums as one bincount per stat (the others add zeros)
        self.wlab = self.w = None
        if labels is None and grower.task == "classification":
            self.wlab, self.w = grower.y[idx0].astype(np.int64), grower.w0[idx0]

    # ----- per level ----------------------------------------------------------------------------------
    def totals(self, node_of, key, cand, n_level: int, ranges):
        """Stats of each candidate node (C, S) (``cand``: their positions among the level's ``n_level``
        nodes, ``node_of``: level node of every row or -1, ``key``: candidate of every row, -1 if none;
        ``ranges``: (perm, lo, cnt), candidate c's rows are ``perm[lo[c]:lo[c] + cnt[c]]``, ascending)."""
        C = len(cand)
        self.ranges = ranges
        self.C, self.L, self.cand, self.node_of = C, n_level, np.asarray(cand), node_of
        self.act = None if key.min() >= 0 else np.flatnonzero(key >= 0)
        self.kk = key if self.act is None else key[self.act]
        self.kkB = self.kk * self.B        # cell of bin 0 of every row's candidate, for features of B bins
        S, d = self.S, self.codes.shape[0]
        self.hist = None
        if self.subtract and C * d * S * self.B <= HIST_BUDGET:
            self.hist = self._count_histograms()             # (C, d, S, B); feature 0 counts every row
            return self.hist[:, 0].sum(axis=-1).astype(np.float64)
        if self.labels is not None:   # counts: exact in any order
            lab = self.labels if self.act is None else self.labels[self.act]
            return np.bincount(self.kk * S + lab, minlength=C * S).reshape(C, S).astype(np.float64)
        # summed node by node over ascending rows, as stepping sums them (bincount adds in row order)
        return np.stack(self._stat_sums(self.kk, self.act, C), axis=1)

    def scan(self, P, W, allowed):
        """Best edge per candidate node and feature: (gain, bin, left stats, n_left), each (C, d, ...)."""
        d, C, S = self.codes.shape[0], self.C, self.S
        H = self.hist
        if H is not None:
            G, LEFT = np.empty((C, d)), np.empty((C, d, S))
            BIN, NL, NEXT = (np.empty((C, d), dtype=np.int64) for _ in range(3))

            def piece(ab) -> None:               # nodes a:b, each node's cells on its own: the same numbers
                a, b = ab
                Hp = H[a:b]
                cum = np.cumsum(Hp, axis=3).astype(np.float64)
                G[a:b], BIN[a:b], LEFT[a:b], NL[a:b], NEXT[a:b] = best_edges(
                    self.crit, self.min_leaf, [cum[:, :, k] for k in range(S)], Hp.sum(axis=2),
                    P[a:b, None], W[a:b, None], counts=True)
            step = max(1, SCAN_CELLS // (d * S * self.B))
            bounds = list(range(0, C, step)) + [C]
            pieces = list(zip(bounds[:-1], bounds[1:]))
            thread_map(piece, pieces, threads_for(H.size, self.threads))
        else:
            G = np.full((C, d), -np.inf)
            BIN, NL, NEXT = (np.zeros((C, d), dtype=np.int64) for _ in range(3))
            LEFT = np.zeros((C, d, S))

            def feature(j: int) -> None:         # each feature's column of the results on its own
                segs = np.arange(C) if allowed is None else np.flatnonzero(allowed[:, j])
                if segs.size:
                    G[segs, j], BIN[segs, j], LEFT[segs, j], NL[segs, j], NEXT[segs, j] = \
                        self._scan_feature(j, segs, P[segs], W[segs])
            thread_map(feature, range(d), threads_for(self.codes.size, self.threads))
        self.bin, self.next = BIN.astype(self.codes.dtype), NEXT.astype(self.codes.dtype)
        return G, BIN, LEFT, NL

    def _count_histograms(self):
        """(C, d, S, B) class counts of the candidates: siblings counted directly when they have fewer
        rows, else the parent's histogram minus the sibling's."""
        node_of, d, S, B, L = self.node_of, self.codes.shape[0], self.S, self.B, self.L
        level_of_cand = self.cand
        is_cand = np.zeros(L, dtype=bool)
        is_cand[level_of_cand] = True
        prev = self.prev
        if prev is not None and prev[1].size == L:
            sib = np.arange(L) ^ 1
            direct = prev[2] & (is_cand | is_cand[sib])
        else:
            prev, direct = None, is_cand
        dpos = np.cumsum(direct) - 1
        nD = int(dpos[-1]) + 1
        table = np.append(direct, False)                  # node_of == -1 reads the last entry
        sel = None if (direct.all() and node_of.min() >= 0) else np.flatnonzero(table[node_of])
        nsel = node_of if sel is None else node_of[sel]
        lab = self.labels if sel is None else self.labels[sel]
        base = (dpos[nsel] * S + lab) * B
        Hd = np.empty((nD, d, S, B), dtype=np.int64)

        def count(j: int) -> None:
            key = np.add(base, self.codes[j] if sel is None else self.codes[j].take(sel), dtype=np.intp)
            Hd[:, j] = np.bincount(key, minlength=nD * S * B).reshape(nD, S, B)
        thread_map(count, range(d), threads_for(base.size * d, self.threads))
        own = direct[level_of_cand]
        H = np.empty((self.C, d, S, B), dtype=np.int64)
        H[own] = Hd[dpos[level_of_cand[own]]]
        if prev is not None and not own.all():
            k = level_of_cand[~own]
            H[~own] = prev[0][prev[1][k]] - Hd[dpos[k ^ 1]]
        return H

    def _scan_feature(self, j, segs, P, W):
        """Best edge of feature j at the candidates ``segs`` (weights, regression, feature draws, levels too
        big to keep)."""
        C, S, B = self.C, self.S, self.n_bins[j]
        act, kk, kkB = self.act, self.kk, (self.kkB if B == self.B else None)
        n = segs.size
        if n < C:           # only the rows of the nodes that drew feature j (numbered 0..n-1), node by node
            perm, lo, cnt = self.ranges
            ln = cnt[segs]
            act = perm[np.repeat(lo[segs] - exclusive_cumsum(ln), ln) + np.arange(int(ln.sum()))]
            kk, kkB = np.repeat(np.arange(n), ln), None
        code = self.codes[j] if act is None else self.codes[j][act]
        key = (kk * B if kkB is None else kkB) + code
        if n * B > SPARSE_ABOVE * key.size:
            return self._scan_pairs(key, B, act, np.arange(n), P, W)
        if self.labels is not None:
            lab = self.labels if act is None else self.labels[act]
            counts = np.bincount(key * S + lab, minlength=n * B * S).reshape(n, B, S)
            cum = [np.cumsum(counts[:, :, k], axis=1, dtype=np.float64) for k in range(S)]
            return best_edges(self.crit, self.min_leaf, cum, counts.sum(axis=2), P, W, counts=True)
        if self.wlab is not None:
            sums = self._class_sums(key, act, n * B).reshape(n, B, S)
            cum = [np.cumsum(sums[:, :, k], axis=1) for k in range(S)]
        else:
            rows = np.bincount(key, minlength=n * B)
            cum = [np.cumsum(sums.reshape(n, B), axis=1) for sums in self._stat_sums(key, act, n * B, rows)]
            return best_edges(self.crit, self.min_leaf, cum, rows.reshape(n, B), P, W)
        return best_edges(self.crit, self.min_leaf, cum, np.bincount(key, minlength=n * B).reshape(n, B), P, W)

    def _stat_sums(self, key, act, cells: int, rows=None) -> list:
        """Each stat's sums over the rows ``act`` (all if None) by cell ``key`` (S arrays (cells,)), summed in
        row order; ``rows``: the rows per cell if already counted."""
        out = []
        for k in range(self.S):
            if k == 0 and self.ones_first:
                out.append((np.bincount(key, minlength=cells) if rows is None else rows).astype(np.float64))
            else:
                out.append(np.bincount(key, weights=self.ScT[k] if act is None else self.ScT[k][act],
                                       minlength=cells))
        return out

    def _class_sums(self, key, act, cells: int) -> np.ndarray:
        """(cells, S) weighted class sums of the rows ``act`` (all if None) by ``key``."""
        lab = self.wlab if act is None else self.wlab[act]
        w = self.w if act is None else self.w[act]
        return np.bincount(key * self.S + lab, weights=w, minlength=cells * self.S).reshape(cells, self.S)

    def _scan_pairs(self, key, B, act, segs, P, W):
        """:meth:`_scan_feature` on deep levels (more node x bin cells than rows): only the (node, bin)
        pairs that hold rows get a cell, node by node in bin order, in grids as wide as the next power of
        two of each node's pair count. Sums per pair are the dense bins' sums; cumulative sums then skip
        only empty bins, whose zeros change no sum, and empty bins are never valid edges: the same edges,
        ties and gains as the dense histograms."""
        S, n = self.S, segs.size
        pairs, inv = np.unique(key, return_inverse=True)
        node = pairs // B
        starts = np.flatnonzero(np.r_[True, node[1:] != node[:-1]])
        lengths = np.diff(np.r_[starts, pairs.size])
        at = np.searchsorted(segs, node[starts])                         # each node's place in segs
        if self.labels is not None:
            lab = self.labels if act is None else self.labels[act]
            st = np.bincount(inv * S + lab, minlength=pairs.size * S).reshape(pairs.size, S)
            cnt = st.sum(axis=1)
        else:
            cnt = np.bincount(inv, minlength=pairs.size)
            st = (self._class_sums(inv, act, pairs.size) if self.wlab is not None else
                  np.stack(self._stat_sums(inv, act, pairs.size, cnt), axis=1))
        G, LEFT = np.full(n, -np.inf), np.zeros((n, S))
        BIN, NL, NEXT = (np.zeros(n, dtype=np.int64) for _ in range(3))
        for group, w, row, pos, pair in padded_rows(starts, lengths, min_width=2):
            s0 = starts[group]
            grid_cnt = np.zeros((group.size, w), dtype=np.int64)
            grid_cnt[row, pos] = cnt[pair]
            cum = []
            for k in range(S):
                grid = np.zeros((group.size, w), dtype=st.dtype)
                grid[row, pos] = st[pair, k]
                cum.append(np.cumsum(grid, axis=1, dtype=np.float64))
            g, first, left, n_left, after = best_edges(self.crit, self.min_leaf, cum, grid_cnt, P[at[group]],
                                                       W[at[group]], counts=self.labels is not None)
            a = at[group]
            G[a], LEFT[a], NL[a] = g, left, n_left
            BIN[a] = pairs[s0 + first] % B
            NEXT[a] = pairs[np.minimum(s0 + after, pairs.size - 1)] % B
        return G, BIN, LEFT, NL, NEXT

    def thresholds(self, jstar) -> np.ndarray:
        """Node-local threshold of each candidate's winning edge on feature ``jstar[c]`` (0.0 if none):
        the midpoint of the largest value in the winning bin and the smallest in the next non-empty bin
        (as the exact search), so routing by threshold equals routing by bin."""
        C, m = self.C, self.codes.shape[1]
        ci = np.arange(C)
        b, nb = self.bin[ci, jstar], self.next[ci, jstar]
        act, kk = self.act, self.kk
        if act is None and self.rowpos is None:
            self.rowpos = np.arange(m)
        flat = np.multiply(jstar, m).take(kk)                    # where each row's feature starts in the codes
        flat += self.rowpos if act is None else act
        self.code_star = self.codes.reshape(-1).take(flat)       # each row's code on its node's feature
        del flat
        edges = np.stack([b, nb], axis=1).take(kk, axis=0)       # each row's winning and next bin: one pass
        self.b_row = edges[:, 0]
        lo, hi = np.full(C, -np.inf), np.full(C, np.inf)
        for which, at, out in ((np.maximum, self.b_row, lo), (np.minimum, edges[:, 1], hi)):
            r = np.flatnonzero(self.code_star == at)
            rows = r if act is None else act[r]
            kr = kk[r]
            which.at(out, kr, self.X[self.idx0[rows], jstar.take(kr)])
        with np.errstate(invalid="ignore"):
            t = (lo + hi) / 2.0
        ok = np.isfinite(lo) & np.isfinite(hi)
        return np.where(ok, np.where(t >= hi, lo, t), 0.0)

    def sides(self) -> np.ndarray:
        """After :meth:`thresholds`: whether each row goes right at its candidate's winning edge, by row
        (False for rows of no candidate)."""
        right = self.code_star > self.b_row
        if self.act is None:
            return right
        out = np.zeros(self.codes.shape[1], dtype=bool)
        out[self.act] = right
        return out

    def remember(self, child_of_cand, sizes) -> None:
        """Keep this level's histograms for the next level's subtraction: ``child_of_cand[c]`` is the
        next-level position of candidate c's first child (-1: no split), ``sizes`` the rows of each
        next-level node. Of two siblings the one with fewer rows (left on ties) is counted directly."""
        n_next = sizes.size
        if self.subtract and self.hist is not None:
            parent = np.full(n_next, -1)
            split = np.flatnonzero(child_of_cand >= 0)
            parent[child_of_cand[split]] = split
            parent[child_of_cand[split] + 1] = split
            counted = np.empty(n_next, dtype=bool)
            counted[0::2] = sizes[0::2] <= sizes[1::2]
            counted[1::2] = ~counted[0::2]
            self.prev = (self.hist, parent, counted)
        else:
            self.prev = None
        self.hist = None
