"""Level-wise exact growth: the tree stepping a :class:`~engine.grow.grower.Grower` to the end would give,
with the Python work per level instead of per node (SLIQ/SPRINT style).

Each feature's row order is sorted once; a level's open nodes get their rows sorted by value per
feature from there (:mod:`engine.grow.roworders`: partitioned orders, or for forests that draw few features
per node, the drawn pairs sorted on demand). Every (feature, node) pair the level may use is scanned at
once, as one flat array: cumulative stats minus each pair's offset give the left child at every
threshold, :meth:`~engine.split.impurity.Criterion.weighted_cols` every gain, and a segmented maximum each
pair's best threshold, first on ties as in :mod:`engine.split.search`. Nodes and splits are recorded as arrays
(:mod:`engine.grow.levelstore`) and become objects only when first read.

With ``split_search="histogram"`` a level's nodes of more than ``max_bins`` rows are scanned by bin
counts (:class:`~engine.grow.fasthist.LevelHistograms`, no sorted orders needed) and the smaller ones by
the exact scan (:func:`engine.split.histogram.searched_exactly`, the rule stepping follows too); a small
node's orders are made from its own rows when it is first handed over (``HandedOver*Orders`` of
:mod:`engine.grow.roworders`), never from a sort of the whole data. While every node of a level is binned
(and no feature is drawn), rows are not moved into their children's ranges: each notes the deepest node it
reached, and the permutation is made once, when first read (:func:`~engine.grow.exact.rows.settled`).

Each level's pieces (chunks of pairs, histogram counts per feature, groups of split nodes) run on
``threads`` threads (:func:`engine.grow.parallel.thread_map`); the chunks follow the data alone, so the tree
is the same for every number of threads.

Results equal the step-by-step search exactly for integer weights and integer-valued regression
targets (every partial sum is exact); with fractional values the sums may differ in the last bits, which
can only matter for candidates whose gains tie to ~1e-12.

This module holds the loop over levels; its pieces are in :mod:`engine.grow.exact`: what the scan reads of
each row (``data``), the scan itself (``scan``), the rows' moves (``rows``) and the result (``result``).
"""

from __future__ import annotations

import numpy as np

from engine.grow.exact.data import ScanData
from engine.grow.exact.result import level_result
from engine.grow.exact.rows import settled, split_ranges
from engine.grow.exact.scan import chunk_bounds, feature_choice, node_totals, scan_pairs, segment_best  # noqa: F401
from engine.grow.fasthist import LevelHistograms
from engine.grow.featuredraw import child_keys, feature_ranks
from engine.grow.parallel import thread_map
from engine.grow.levelstore import CHI2, MIN_DECREASE, MIN_GAIN, NO_SPLIT, split_numbers
from engine.grow.roworders import (HandedOverPackedOrders, HandedOverSortedOrders, PackedOrders, PartitionedOrders,
                                   SortedOrders, use_sorted_orders)
from engine.grow.sorting.kept import presorted
from engine.grow.sorting.segments import exclusive_cumsum
from engine.split.significance import chi2_test
from engine.grow.stopping import EPS, pre_split_codes


def _orders(grower, data: ScanData, perm: np.ndarray, by_pair: bool, index_type, hist: bool, threads: int):
    """The rows sorted by value within each node (:mod:`engine.grow.roworders`): per drawn pair
    (``by_pair``; packed keys for class targets with whole-number weights) or partitioned; with histogram
    search (``hist``) only for the nodes it hands over, from their own rows."""
    labels, weights = data.columns.get("labels"), data.columns.get("weights")
    packed = labels is not None and PackedOrders.fits(grower.X, weights, data.S)
    if hist:
        return (HandedOverPackedOrders(data.column_at, data.d, perm, labels, weights, data.S, threads) if packed
                else HandedOverSortedOrders(data.column_at, data.d, perm, index_type, threads))
    if by_pair and packed:
        return PackedOrders(grower.X, data.idx0, perm, labels, weights, data.S)
    O = presorted(grower.X, grower.w0 > 0, index_type, threads)
    return SortedOrders(O, perm, data.XT) if by_pair else PartitionedOrders(O, threads)


def grow_exact(grower, threads: int = 1):
    """The whole tree, level by level (see the module docstring), the pieces of a level on ``threads``
    threads: a ``FastResult`` for ``Grower._install``."""

    cfg, crit, task = grower.config, grower.crit, grower.task
    data = ScanData(grower)
    d, m, S = data.d, data.m, data.S
    msl = cfg.min_samples_leaf
    k_draw = cfg.n_features_to_draw(d)
    draw = k_draw < d
    seed = cfg.random_state or 0
    shuffle = cfg.random_state is not None       # ties between features go to a seeded random order
    root = grower._nodes[0]
    # per level: arrays of the nodes created there (the root is level 0)
    lv_parent, lv_branch, lv_stats, lv_n, lv_pre, lv_lo, lv_hi = \
        [np.array([-1])], [np.array([-1])], [np.array([root.stats])], [np.array([m])], [], [np.array([0])], \
        [np.array([m])]
    lv_pre.append(pre_split_codes(np.array([root.impurity]), np.array([0]), np.array([m]), cfg))
    post_ids, post_codes = [], []
    sp = {k: [] for k in ("node", "feature", "threshold", "gain", "gain_ratio", "split_info", "impurity_parent",
                          "impurity_children", "w_left", "w_right", "n_left", "n_right",
                          "first_child")}
    perm = np.arange(m)
    n_nodes = 1
    ids = np.array([0]) if lv_pre[0][0] < 0 else np.zeros(0, dtype=np.int64)
    cnt, lo = np.array([m]), np.array([0])
    keys = np.zeros(1, dtype=np.uint64)
    depth = 0
    index_type = np.int32 if d * grower.X.shape[0] < 2**31 else np.int64
    orders = None
    # histogram search: bins scan the nodes of more than max_bins rows (level-local node of every row in
    # node_of, the level's candidates at positions lvl_pos of its nodes); the rest is searched exactly
    hist = cfg.split_search == "histogram"
    exact_rows = cfg.max_bins if hist else -1
    hs = None
    # rows in place (``deepest``): while every node is binned and no feature is drawn, a level's split moves
    # no row in ``perm``; each row only notes the deepest node it reached, and ``perm`` is made from those
    # when first read (:func:`settled`)
    deepest = None
    if hist and ids.size and m > exact_rows:
        hs = LevelHistograms(grower, data.idx0, None if data.labels is not None else data.ST,
                             None if data.labels is None else data.labels.astype(np.int16), draw, threads)
        node_of, n_level, lvl_pos = np.zeros(m, dtype=np.int64), 1, np.array([0])
        if not draw:
            deepest = np.zeros(m, dtype=np.int64)

    def settle():
        nonlocal perm, deepest
        if deepest is not None:
            perm, deepest = settled(deepest, lv_lo, sp["node"], n_nodes), None
    TOT = None
    while ids.size:
        C = ids.size
        starts = exclusive_cumsum(cnt)
        big = np.flatnonzero(cnt > exact_rows) if hs is not None else np.zeros(0, dtype=np.int64)
        small = np.flatnonzero(cnt <= exact_rows) if hist else None      # None: every node (exact search)
        if orders is None and (small is None or small.size):
            settle()
            orders = _orders(grower, data, perm, draw and use_sorted_orders(k_draw, d), index_type, hist, threads)
        if hist and small.size:
            orders.prepare(lo[small], cnt[small])
        if big.size:
            cmap = np.full(n_level + 1, -1, dtype=np.int64)          # node_of == -1 reads the last entry
            cmap[lvl_pos[big]] = np.arange(big.size)
            key = cmap.take(node_of)
            tot_big = hs.totals(node_of, key, lvl_pos[big], n_level,
                                None if deepest is not None else (perm, lo[big], cnt[big]))
        if TOT is None:
            TOT = np.empty((C, S))
            if big.size:
                TOT[big] = tot_big
            if small is None:
                TOT[:] = node_totals(data, orders.first_order(lo, cnt, starts), cnt, starts)
            elif small.size:
                sub = exclusive_cumsum(cnt[small])
                TOT[small] = node_totals(data, orders.first_order(lo[small], cnt[small], sub), cnt[small], sub)
        W, P = crit.weight(TOT), crit.from_stats(TOT)
        G = np.full((C, d), -np.inf)
        THR, LEFT, NL = np.zeros((C, d)), np.zeros((C, d, S)), np.zeros((C, d), dtype=np.int64)
        # each node's random order of the features: the first k_draw are its draw (featuredraw.draw_mask)
        visit = feature_ranks(keys, seed, d) if draw or shuffle else None
        if draw:
            pj, pc = np.nonzero((visit < k_draw).T)          # pairs by feature, then node
        else:
            pj, pc = np.repeat(np.arange(d), C), np.tile(np.arange(C), d)
        if big.size:
            Gb, _, LEFT[big], NL[big] = hs.scan(P[big], W[big], visit[big] < k_draw if draw else None)
            G[big] = Gb
            exact_pair = cnt[pc] <= exact_rows
            pj, pc = pj[exact_pair], pc[exact_pair]
        bounds = chunk_bounds(pj, cnt[pc], d, S)
        pieces = [(a, b) for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist()) if b > a]
        # each chunk writes its own (node, feature) cells of G, THR, LEFT and NL
        thread_map(lambda ab: scan_pairs(data, crit, msl, orders, lo, cnt, starts, TOT, W, P, pj[ab[0]:ab[1]],
                                    pc[ab[0]:ab[1]], G, THR, LEFT, NL), pieces, threads)
        jstar = feature_choice(cfg, crit, G, LEFT, W, visit if shuffle else None)
        ci = np.arange(C)
        binned = right_row = None
        if big.size:
            THR[big, jstar[big]] = hs.thresholds(jstar[big])
            binned = np.zeros(C, dtype=bool)
            binned[big] = True
            right_row = hs.sides()
        Gw, Lw, NLw, Tw = G[ci, jstar], LEFT[ci, jstar], NL[ci, jstar], THR[ci, jstar]
        Rw = TOT - Lw
        wl, wr, cimp, gain, info, ratio = split_numbers(crit, Lw, Rw, P, W)
        code = np.full(C, -1, dtype=np.int8)
        code[~np.isfinite(Gw)] = NO_SPLIT
        code[np.isfinite(Gw) & (W / root.weight * gain + EPS < cfg.min_impurity_decrease)] = MIN_DECREASE
        code[np.isfinite(Gw) & (gain + EPS < cfg.min_gain)] = MIN_GAIN
        if cfg.chi2_alpha is not None and task == "classification":
            for c in np.flatnonzero(code < 0).tolist():
                p_value = chi2_test((tuple(Lw[c].tolist()), tuple(Rw[c].tolist())))[2]
                if not (p_value <= cfg.chi2_alpha):
                    code[c] = CHI2
        stop = code >= 0
        post_ids.append(ids[stop])
        post_codes.append(code[stop])
        spl = np.flatnonzero(~stop)
        ns = spl.size
        if ns == 0:
            break
        first = n_nodes + 2 * np.arange(ns)
        n_nodes += 2 * ns
        parent_ids = ids[spl]
        nl, pn, plo = NLw[spl], cnt[spl], lo[spl]
        for k, v in (("node", parent_ids), ("feature", jstar[spl]), ("threshold", Tw[spl]), ("gain", gain[spl]),
                     ("gain_ratio", ratio[spl]), ("split_info", info[spl]), ("impurity_parent", P[spl]),
                     ("impurity_children", cimp[spl]),
                     ("w_left", wl[spl]), ("w_right", wr[spl]), ("n_left", nl), ("n_right", pn - nl),
                     ("first_child", first)):
            sp[k].append(v)
        child_stats = np.empty((2 * ns, S))
        child_stats[0::2], child_stats[1::2] = Lw[spl], Rw[spl]
        child_n = np.empty(2 * ns, dtype=np.int64)
        child_n[0::2], child_n[1::2] = nl, pn - nl
        depth += 1
        pre = pre_split_codes(crit.from_stats(child_stats), np.full(2 * ns, depth), child_n, cfg)
        child_lo = np.empty(2 * ns, dtype=np.int64)
        child_lo[0::2], child_lo[1::2] = plo, plo + nl
        lv_parent.append(np.repeat(parent_ids, 2))
        lv_branch.append(np.tile(np.array([0, 1]), ns))
        lv_stats.append(child_stats)
        lv_n.append(child_n)
        lv_pre.append(pre)
        lv_lo.append(child_lo)
        lv_hi.append(child_lo + child_n)
        if deepest is not None:      # every node of the level is binned (no orders yet): rows stay in place
            child_of = np.full(n_level + 1, -1, dtype=np.int64)     # node_of == -1 reads the last entry
            child_of[lvl_pos[spl]] = 2 * np.arange(ns)
            moved = child_of.take(node_of)                          # each row's child: 2 * seg + right
            going = moved >= 0
            np.add(moved, right_row, out=moved, where=going)
            np.add(moved, n_nodes - 2 * ns, out=deepest, where=going)
        else:
            rows, seg, right = split_ranges(perm, data, plo, pn, nl, jstar[spl], Tw[spl], right_row,
                                             None if binned is None else binned[spl], threads)
        nxt = np.flatnonzero(pre < 0)
        if nxt.size == 0:
            break
        if orders is not None:
            orders.advance(rows, 2 * seg + right, nxt, cnt, starts, child_n)
        if hs is not None:
            if (child_n[nxt] > exact_rows).any():       # bins scan some node of the next level
                hs.remember(_children_of(big, spl, C), child_n)
                n_level, lvl_pos = 2 * ns, nxt
                if deepest is not None:
                    node_of = moved
                else:
                    node_of = np.full(m, -1, dtype=np.int64)
                    node_of[rows] = 2 * seg + right
            else:                                       # every node from here on is searched exactly
                hs = None
        if draw or shuffle:
            half = spl[nxt >> 1]
            keys = child_keys(keys[half], jstar[half], Tw[half], nxt & 1)
        ids = (n_nodes - 2 * ns + nxt).astype(np.int64)
        cnt, lo = child_n[nxt], child_lo[nxt]
        # whole-number stats are exact sums in any order: the children's stats are the next totals
        TOT = child_stats[nxt] if data.whole_stats else None
    settle()
    return level_result(grower, root, data, perm, n_nodes, lv_parent, lv_branch, lv_stats, lv_n, lv_pre, lv_lo, lv_hi,
                   post_ids, post_codes, sp)

def _children_of(big: np.ndarray, spl: np.ndarray, C: int) -> np.ndarray:
    """For each histogram-scanned node (``big``, candidates of the level): the next-level position of its
    first child, -1 if it did not split (``spl``: the split candidates; split k's children are 2k, 2k+1)."""
    at = np.full(C, -1, dtype=np.int64)
    at[big] = np.arange(big.size)
    out = np.full(big.size, -1, dtype=np.int64)
    hit = at[spl] >= 0
    out[at[spl[hit]]] = 2 * np.flatnonzero(hit)
    return out



__all__ = ["grow_exact", "segment_best"]
