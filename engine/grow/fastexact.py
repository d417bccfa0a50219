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
reached, and the permutation is made once, when first read (:func:`_settled`).

Each level's pieces (chunks of pairs, histogram counts per feature, groups of split nodes) run on
``threads`` threads (:func:`engine.grow.parallel.thread_map`); the chunks follow the data alone, so the tree
is the same for every number of threads.

Results equal the step-by-step search exactly for integer weights and integer-valued regression
targets (every partial sum is exact); with fractional values the sums may differ in the last bits, which
can only matter for candidates whose gains tie to ~1e-12.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from engine.grow.fasthist import LevelHistograms
from engine.grow.featuredraw import child_keys, feature_ranks
from engine.grow.parallel import thread_map
from engine.grow.levelstore import (CHI2, MIN_DECREASE, MIN_GAIN, NO_SPLIT, FastResult, NodeStore, PathMap, RowRanges,
                                    depth_first_ids, split_numbers)
from engine.grow.roworders import (HandedOverPackedOrders, HandedOverSortedOrders, PackedOrders, PartitionedOrders,
                                   SortedOrders, exclusive_cumsum, presorted, use_sorted_orders)
from engine.split.search import TIE_TOL
from engine.split.significance import chi2_test
from engine.grow.stopping import EPS, pre_split_codes

#: elements (pairs' rows) scanned per chunk: bounds the memory of one scan to ~100 MB
CHUNK = 1 << 20
#: bytes of one scan's working arrays when there are many stats (classes): rows per scan are cut to fit
SCAN_BYTES = 100 << 20
#: a level is scanned in about SPREAD chunks at least, of MIN_CHUNK rows at least (see ``_chunks``)
SPREAD, MIN_CHUNK = 8, 1 << 16
#: rows of split nodes one thread moves at least (see ``_split_ranges``)
SPLIT_GROUP_ROWS = 1 << 16


def segment_best(g: np.ndarray, starts: np.ndarray, lengths: np.ndarray):
    """Per segment (``starts``/``lengths`` of g): the max of g and the first position within TIE_TOL of
    it (-1 if none is finite). Ties go to the first position, as in :mod:`engine.split.search`."""
    segmax = np.maximum.reduceat(g, starts)
    finite = np.isfinite(segmax)
    bar = np.where(finite, segmax - TIE_TOL * (1.0 + np.abs(np.where(finite, segmax, 0.0))), np.inf)
    hits = np.flatnonzero(g >= np.repeat(bar, lengths))
    first = np.full(starts.size, -1, dtype=np.int64)
    if hits.size:
        s = np.searchsorted(starts, hits, side="right") - 1
        lead = np.ones(hits.size, dtype=bool)
        lead[1:] = s[1:] != s[:-1]
        first[s[lead]] = hits[lead]
    return segmax, first


class _Data:
    """The training rows as the scan needs them (rows with weight 0 dropped). The transposed features
    ``XT`` and the stats ``ST`` are made when first read: histogram search on class counts needs neither."""

    def __init__(self, grower):
        self.X = grower.X
        self.idx0 = np.flatnonzero(grower.w0 > 0)
        self.every = self.idx0.size == len(grower.X)          # no row dropped: positions are rows
        self.w = grower.w0[self.idx0]
        self.m, self.d = self.idx0.size, grower.X.shape[1]
        self.grower, self.S = grower, grower.n_stats
        self.unit = unit = bool(np.all(self.w == 1.0))
        # unit weights: class counts come from the labels (no stat rows gathered); a regression node's
        # weight is its row count
        self.labels = (grower.y[self.idx0].astype(np.int64)
                       if grower.task == "classification" and unit else None)
        self.count_weight = grower.task == "regression" and unit
        # whole-number weights that are not all 1 (a bootstrap's) on classes: a class's stat is the weight
        # where the row has that class, so the scan reads two values a row (class, weight), not S stats
        self.codes = self.weights = None
        if grower.task == "classification" and not unit and np.all(self.w == np.round(self.w)) \
                and self.w.sum() < 2.0**31:
            self.codes = grower.y[self.idx0].astype(np.int64)
            self.weights = self.w.astype(np.int64)
        if self.labels is not None:       # class counts: whole numbers, read from the labels
            self.STi, self.whole_stats = {}, True
        else:
            # stats that are whole numbers (class counts and row counts under integer weights, e.g. a
            # bootstrap's) are summed in integers: a float cumsum waits ~5 ns an element on each addition,
            # an integer one ~1 ns, and below 2**53 both give exactly the same numbers
            whole = np.all(self.ST == np.round(self.ST), axis=1) & (np.abs(self.ST).sum(axis=1) < 2.0**53)
            self.STi = {k: self.ST[k].astype(np.int64) for k in np.flatnonzero(whole).tolist()}
            # every stat whole: sums are exact in any order, and each kept row weighs at least 1
            self.whole_stats = len(self.STi) == self.S
        self.columns = self._columns()

    @cached_property
    def XT(self) -> np.ndarray:
        """The kept rows' features, one contiguous row per feature (d, m)."""
        return np.ascontiguousarray((self.X if self.every else self.X[self.idx0]).T)

    @cached_property
    def ST(self) -> np.ndarray:
        """The kept rows' stats times their weights, one row per stat (S, m)."""
        if self.every and self.unit:          # every row, weight 1: the stats themselves (x 1.0 changes no bit)
            return np.ascontiguousarray(self.grower.U.T)
        return np.ascontiguousarray((self.grower.U[self.idx0] * self.w[:, None]).T)

    def column_at(self, j: int, rows: np.ndarray) -> np.ndarray:
        """Feature j's values of the kept rows ``rows``."""
        if "XT" in self.__dict__:
            return self.XT[j].take(rows)
        return self.X[rows if self.every else self.idx0.take(rows), j]

    def values_at(self, rows: np.ndarray, features: np.ndarray) -> np.ndarray:
        """Feature ``features[i]``'s value of kept row ``rows[i]``."""
        if "XT" in self.__dict__:
            return self.XT.ravel().take(features * self.m + rows)
        return self.X[rows if self.every else self.idx0.take(rows), features]

    def _columns(self) -> dict:
        """What the scan reads of each row, by name (integers in their smallest type): ``labels`` (with
        ``weights`` for whole-number weights), ``y`` for a unit-weight regression, else every stat ``k``."""
        if self.labels is not None:
            return {"labels": compact(self.labels)}
        if self.codes is not None:
            return {"labels": compact(self.codes), "weights": compact(self.weights)}
        if self.count_weight:
            return {"y": self.ST[1]}
        return {k: compact(self.STi[k]) if k in self.STi else self.ST[k] for k in range(self.S)}


def compact(a: np.ndarray) -> np.ndarray:
    """Integers in the smallest signed type that holds them (fewer bytes to read in the scan's gathers)."""
    if a.dtype.kind not in "iu" or a.size == 0:
        return a
    lo, hi = int(a.min()), int(a.max())
    for t in (np.int8, np.int16, np.int32):
        if np.iinfo(t).min <= lo and hi <= np.iinfo(t).max:
            return a.astype(t)
    return a.astype(np.int64)


def _cumsum(values: np.ndarray) -> np.ndarray:
    """Running sum; booleans and integers in int64 (see ``_Data.STi``)."""
    return np.cumsum(values, dtype=np.int64 if values.dtype.kind in "biu" else np.float64)


def _totals(data: _Data, first_order: np.ndarray, cnt: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Stats of each open node (C, S): differences of cumulative sums along the first feature's order,
    as the scan computes them."""
    C, S = cnt.size, data.S
    if data.labels is not None:
        nd = np.repeat(np.arange(C), cnt)
        return np.bincount(nd * S + data.labels[first_order], minlength=C * S).reshape(C, S).astype(float)
    ends = starts + cnt - 1
    tot = np.empty((C, S))
    for k in range(S):
        if k == 0 and data.count_weight:
            tot[:, 0] = cnt
            continue
        c = np.cumsum(data.ST[k][first_order])
        tot[:, k] = c[ends]
        tot[1:, k] -= c[ends[:-1]]
    return tot


def _scan(data: _Data, crit, msl: int, orders, lo, cnt, starts, TOT, W, P, pj, pc, G, THR, LEFT, NL):
    """Best threshold of every (feature pj, node pc) pair, written into G/THR/LEFT/NL[pc, pj]."""
    plen = cnt[pc]
    T = int(plen.sum())
    if T == 0:
        return
    pst = exclusive_cumsum(plen)
    packed = isinstance(orders, PackedOrders)
    if packed:                    # value ranks, classes and weights from the sorted keys: no read by row
        ranks, lab, wts = orders.split_keys(orders.pair_keys(pj, pc, lo, plen, pst))   # lab: class and weight bits
        pos = None
    else:
        pos, sorted_at = orders.pair_positions(pj, pc, lo, cnt, starts, plen, pst)
        if sorted_at is not None:     # the features' sorted values, read in ascending order
            xs = np.take(orders.XS.ravel(), sorted_at)
        else:
            rowfeat = np.repeat(pj * data.m, plen)
            rowfeat += pos
            xs = np.take(data.XT.ravel(), rowfeat)
            del rowfeat
        lab = np.take(data.columns["labels"], pos) if "labels" in data.columns else None
        wts = np.take(data.columns["weights"], pos) if "weights" in data.columns else None
    cols = data.columns

    def per_pair(v):              # a value per pair, spread over its rows (np.repeat beats a gather)
        return np.repeat(v, plen)

    n_left = np.arange(1, T + 1) - per_pair(pst)
    ends = pst + plen - 1

    def pair_sums(values, totals=None, fresh=False):
        """Running sums within each pair. With ``totals`` (each pair's sum of the whole-number ``values``)
        one running sum restarts at every pair: each pair's first value less the previous pair's total.
        ``fresh``: ``values`` is a temporary of 32 or 64 bits, changed in place."""
        if totals is not None and values.dtype.kind in "biu":
            v = values if fresh and values.itemsize >= 4 else values.astype(np.int64)
            v[pst[1:]] -= totals[:-1].astype(v.dtype)
            return np.cumsum(v, dtype=np.int64).astype(np.float64)
        c = _cumsum(values)
        base = np.zeros(pj.size, dtype=c.dtype)
        base[1:] = c[ends[:-1]]
        c -= per_pair(base)
        return c.astype(np.float64, copy=False)

    left, right = [], []
    wl = wr = None
    if lab is not None or data.count_weight:      # class counts or unit weights: a side's weight exactly
        if wts is None:                           # unit weights: a side's weight is its row count
            wl = n_left.astype(float)
            wr = per_pair(plen.astype(float)) - wl
        else:
            wl = pair_sums(wts, W[pc])
            wr = per_pair(W[pc]) - wl
    for k in range(data.S):
        if k == 0 and data.count_weight:
            lk = wl
        elif lab is not None and k == data.S - 1 and k > 0:
            lk = wl - left[0]                     # the last class: the side's weight minus the other classes
            for other in left[1:]:
                lk -= other
        elif lab is not None:
            if packed:
                mine = orders.class_weights(lab, k)
            else:
                mine = lab == k if wts is None else np.where(lab == k, wts, 0)
            lk = pair_sums(mine, TOT[pc, k], fresh=True)
        elif k == 1 and data.count_weight:
            y = np.take(cols["y"], pos)           # unit weights: stat 2 is y*y, squared here, not gathered
            lk = pair_sums(y)
        elif k == 2 and data.count_weight:
            y *= y
            lk = pair_sums(y)
        else:
            lk = pair_sums(np.take(cols[k], pos), TOT[pc, k] if k in data.STi else None)
        left.append(lk)
        # a regression node's weight is its row count (TOT[:, 0] == cnt): the right side's count is wr
        right.append(wr if k == 0 and data.count_weight else per_pair(TOT[pc, k]) - lk)
    by_labels = lab is not None       # class counts from labels: a side's weight is known exactly
    del pos, lab, wts
    valid = np.empty(T, dtype=bool)
    if packed:
        np.greater(ranks[1:], ranks[:-1], out=valid[:-1])
    else:
        np.greater(xs[1:], xs[:-1], out=valid[:-1])
    valid[ends] = False
    if msl > 1:
        valid &= (n_left >= msl) & (per_pair(plen) - n_left >= msl)
    with np.errstate(divide="ignore", invalid="ignore"):
        # with row counts as weights, every valid position has rows on both sides: only there are
        # the gains read; so with whole-number weights (each kept row weighs at least 1)
        counts = data.count_weight or data.whole_stats
        children = crit.weighted_cols(left, wl if by_labels else None, read_where_positive=counts)
        children += crit.weighted_cols(right, wr if by_labels else None, read_where_positive=counts)
        children /= per_pair(W[pc])
        g = np.where(valid, per_pair(P[pc]) - children, -np.inf)
    del children, valid
    segmax, first = segment_best(g, pst, plen)
    ok = first >= 0
    f = first[ok]
    at_c, at_j = pc[ok], pj[ok]
    G[at_c, at_j] = segmax[ok]
    if packed:
        below, above = orders.value(at_j, ranks[f]), orders.value(at_j, ranks[f + 1])
    else:
        below, above = xs[f], xs[f + 1]
    t = (below + above) / 2.0
    THR[at_c, at_j] = np.where(t >= above, below, t)
    for k in range(data.S):
        LEFT[at_c, at_j, k] = left[k][f]
    NL[at_c, at_j] = n_left[f]


def scan_rows(S: int) -> int:
    """Pairs' rows one scan takes: ``CHUNK``, fewer with many stats (a scan keeps left and right sums
    of every stat for each row: ~(2S + 12) arrays of its length), so one scan stays at ~100 MB."""
    return CHUNK if S <= 3 else min(CHUNK, max(1024, SCAN_BYTES // (8 * (2 * S + 12))))


def _chunks(pj: np.ndarray, plen: np.ndarray, d: int, S: int) -> np.ndarray:
    """Bounds (into the pairs, ordered by feature then node) of the scans of one level: chunks of whole
    features holding at most ~``scan_rows(S)`` rows; with many classes a feature's pairs are cut too. A
    level of ``SPREAD * MIN_CHUNK`` rows or more is cut into about ``SPREAD`` chunks at least, pieces for
    threads; the cuts follow the data alone, so every number of threads scans the same chunks."""
    limit = scan_rows(S)
    whole = limit >= CHUNK
    limit = min(limit, max(MIN_CHUNK, -(-int(plen.sum()) // SPREAD)))
    if whole:
        group = np.cumsum(np.bincount(pj, weights=plen, minlength=d)) // limit
        bounds = np.searchsorted(pj, np.flatnonzero(np.r_[True, group[1:] != group[:-1]]))
    else:
        group = (np.cumsum(plen) - plen) // limit
        bounds = np.flatnonzero(np.r_[True, group[1:] != group[:-1]]) if pj.size else np.zeros(0, dtype=np.int64)
    return np.r_[bounds, pj.size]


def feature_choice(cfg, crit, G, LEFT, W, ranks=None) -> np.ndarray:
    """Each node's feature from its per-feature best gains ``G`` (nodes x features): the best gain, or
    with ``score="gain_ratio"`` (C4.5) the best gain ratio among features whose gain is at least the
    average; gains compared rounded to 12 decimals, ties to the first feature, as in :func:`engine.split.search.choose`."""
    if cfg.score == "gain_ratio":
        finite = np.isfinite(G)
        avg = np.where(finite, G, 0).sum(1) / np.maximum(finite.sum(1), 1)
        WL = crit.weight(LEFT)
        WR = W[:, None] - WL
        with np.errstate(divide="ignore", invalid="ignore"):
            pl, pr = WL / W[:, None], WR / W[:, None]
            info = -(np.where(pl > 0, pl * np.log2(np.where(pl > 0, pl, 1)), 0)
                     + np.where(pr > 0, pr * np.log2(np.where(pr > 0, pr, 1)), 0))
            ratio = np.where(info > 0, G / info, 0.0)
        score = np.where(finite & (G >= avg[:, None] - TIE_TOL), np.round(ratio, 12), -np.inf)
    else:
        score = np.round(G, 12)
    if ranks is None:
        return np.argmax(score, axis=1)
    # a randomised learner: among the equally good features, the one the node visits first (featuredraw)
    top = score == score.max(axis=1, keepdims=True)
    return np.argmin(np.where(top, ranks, ranks.shape[1]), axis=1)


def _split_ranges(perm, data: _Data, lo, n, n_left, feature, threshold, right_row=None, binned=None,
                  threads: int = 1):
    """Partition the split nodes' ranges of ``perm`` (node i: ``perm[lo[i]:lo[i] + n[i]]``) in place: its
    rows going left, then those going right, each group in its former order. Returns the rows of those
    ranges (in their former order), the split each belongs to, and whether it goes right. Rows of the
    nodes flagged ``binned`` read their side from ``right_row`` (by row: the histogram scan's bin codes,
    the same sides as the thresholds), the others compare their values with the threshold. Groups of
    nodes on ``threads`` threads (each moves rows within its own nodes' ranges: the same result)."""
    total = int(n.sum())
    groups = max(1, min(4 * threads, total // SPLIT_GROUP_ROWS)) if threads > 1 else 1
    cuts = np.searchsorted(np.cumsum(n), np.arange(1, groups) * (total / groups))
    bounds = np.unique(np.r_[0, cuts, n.size])
    parts = thread_map(lambda ab: _split_group(perm, data, lo, n, n_left, feature, threshold, right_row, binned,
                                               ab[0], ab[1]), list(zip(bounds[:-1], bounds[1:])), threads)
    if len(parts) == 1:
        return parts[0]
    return tuple(np.concatenate(p) for p in zip(*parts))


def _split_group(perm, data, lo, n, n_left, feature, threshold, right_row, binned, a: int, b: int):
    """:func:`_split_ranges` of the split nodes ``a:b``; their ``seg`` numbers count from ``a``."""
    nn, lo_, nl = n[a:b], lo[a:b], n_left[a:b]
    pst = exclusive_cumsum(nn)
    T = int(nn.sum())
    seg = np.repeat(np.arange(a, b), nn)
    if int(lo_[-1] - lo_[0]) + int(nn[-1]) == T:      # the nodes' ranges follow each other: one slice
        rows = perm[int(lo_[0]):int(lo_[0]) + T].copy()
    else:
        rows = perm[np.repeat(lo_ - pst, nn) + np.arange(T)]
    by_bins = np.zeros(nn.size, dtype=bool) if binned is None else binned[a:b]
    if by_bins.all():
        right = right_row.take(rows)
    elif not by_bins.any():
        right = data.values_at(rows, feature.take(seg)) > threshold.take(seg)
    else:
        right = np.empty(T, dtype=bool)
        from_bins = by_bins.take(seg - a)
        right[from_bins] = right_row.take(rows[from_bins])
        k = np.flatnonzero(~from_bins)
        sk = seg.take(k)
        right[k] = data.values_at(rows.take(k), feature.take(sk)) > threshold.take(sk)
    # row i of the group, of node s: ``rb`` rows before it (in the group) go right, i - rb go left; a left
    # row lands at lo + (lefts before it in its node), a right one at lo + n_left + (rights before it)
    rb = np.cumsum(right)
    rb -= right
    rb_start = rb[pst]                                   # rights before each node's first row
    to_right = np.repeat(lo_ + nl - rb_start, nn)
    to_right += rb
    to_left = np.repeat(lo_ - pst + rb_start, nn)
    to_left += np.arange(T)
    to_left -= rb
    perm[np.where(right, to_right, to_left)] = rows
    return rows, seg, right


def _orders(grower, data: _Data, perm: np.ndarray, by_pair: bool, index_type, hist: bool, threads: int):
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
    data = _Data(grower)
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
    # when first read (:func:`_settled`)
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
            perm, deepest = _settled(deepest, lv_lo, sp["node"], n_nodes), None
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
                TOT[:] = _totals(data, orders.first_order(lo, cnt, starts), cnt, starts)
            elif small.size:
                sub = exclusive_cumsum(cnt[small])
                TOT[small] = _totals(data, orders.first_order(lo[small], cnt[small], sub), cnt[small], sub)
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
        bounds = _chunks(pj, cnt[pc], d, S)
        pieces = [(a, b) for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist()) if b > a]
        # each chunk writes its own (node, feature) cells of G, THR, LEFT and NL
        thread_map(lambda ab: _scan(data, crit, msl, orders, lo, cnt, starts, TOT, W, P, pj[ab[0]:ab[1]],
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
            rows, seg, right = _split_ranges(perm, data, plo, pn, nl, jstar[spl], Tw[spl], right_row,
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
    return _result(grower, root, data, perm, n_nodes, lv_parent, lv_branch, lv_stats, lv_n, lv_pre, lv_lo, lv_hi,
                   post_ids, post_codes, sp)


def _settled(deepest: np.ndarray, lv_lo: list, split_nodes: list, n_nodes: int) -> np.ndarray:
    """``perm`` of rows that stayed in place: ``deepest[r]`` is the deepest node row r reached (of the first
    ``n_nodes``; ``lv_lo`` their range starts by level, ``split_nodes`` the ids of those that split).

    Every split partitions its range stably (left rows, then right, each in their order) and ``perm``
    starts in row order, so a node's range holds its rows in ascending order: ``perm`` is the rows
    sorted by the range of their deepest node, ties in row order (a stable sort of dense range ranks:
    numpy's radix sort below 65,536 nodes)."""
    lo = np.concatenate(lv_lo)[:n_nodes]
    leaf = np.ones(n_nodes, dtype=bool)
    if split_nodes:
        leaf[np.concatenate(split_nodes).astype(np.int64)] = False
    ends = np.flatnonzero(leaf)                       # disjoint ranges that cover every row
    rank = np.zeros(n_nodes, dtype=np.int64)
    rank[ends[np.argsort(lo[ends], kind="stable")]] = np.arange(ends.size)
    key = rank.take(deepest)
    if ends.size <= np.iinfo(np.uint16).max:
        key = key.astype(np.uint16)
    return np.argsort(key, kind="stable")


def _children_of(big: np.ndarray, spl: np.ndarray, C: int) -> np.ndarray:
    """For each histogram-scanned node (``big``, candidates of the level): the next-level position of its
    first child, -1 if it did not split (``spl``: the split candidates; split k's children are 2k, 2k+1)."""
    at = np.full(C, -1, dtype=np.int64)
    at[big] = np.arange(big.size)
    out = np.full(big.size, -1, dtype=np.int64)
    hit = at[spl] >= 0
    out[at[spl[hit]]] = 2 * np.flatnonzero(hit)
    return out


def _result(grower, root, data, perm, n_nodes, lv_parent, lv_branch, lv_stats, lv_n, lv_pre, lv_lo, lv_hi,
            post_ids, post_codes, sp):
    cat = np.concatenate
    parent, branch, stats = cat(lv_parent), cat(lv_branch), cat(lv_stats)
    n_rows, reason, lo, hi = cat(lv_n), cat(lv_pre).astype(np.int8), cat(lv_lo), cat(lv_hi)
    if post_ids:
        reason[cat(post_ids)] = cat(post_codes)
    S = data.S
    # a split's sides are its children's stats (kept once, in ``stats``: nodes x classes, not three times)
    splits = {k: (cat(v) if v else np.zeros(0)) for k, v in sp.items()}
    split_of = np.full(n_nodes, -1, dtype=np.int64)
    split_of[splits["node"].astype(np.int64)] = np.arange(splits["node"].size)
    first_child = np.full(n_nodes, -1, dtype=np.int64)
    first_child[splits["node"].astype(np.int64)] = splits["first_child"]
    depth = cat([np.full(a.size, i) for i, a in enumerate(lv_parent)])
    feature = np.zeros(n_nodes, dtype=np.int64)
    threshold = np.zeros(n_nodes)
    feature[splits["node"].astype(np.int64)] = splits["feature"]
    threshold[splits["node"].astype(np.int64)] = splits["threshold"]
    order = list(range(n_nodes))
    if grower.config.effective_order == "depth":
        new_id, order = depth_first_ids(first_child)
        parent = np.where(parent >= 0, new_id[np.maximum(parent, 0)], -1)
        parent, branch, stats, n_rows, reason, depth, feature, threshold = (
            _moved(a, new_id) for a in (parent, branch, stats, n_rows, reason, depth, feature, threshold))
        split_of = _moved(split_of, new_id)
        first_child = _moved(np.where(first_child >= 0, new_id[np.maximum(first_child, 0)], -1), new_id)
        lo, hi = _moved(lo, new_id), _moved(hi, new_id)
    nodes = NodeStore(root, parent=parent, depth=depth, branch=branch, stats=stats, n_rows=n_rows,
                      reason=reason, split_of=split_of, splits=splits, first_child=first_child,
                      crit=grower.crit, classes=grower.dataset.classes,
                      names=grower.schema.feature_names, task=grower.task)
    rows = RowRanges(data.idx0, data.w, perm, lo, hi)
    paths = PathMap(parent, feature, threshold, branch)
    return FastResult(nodes, rows, paths, order)


def _moved(a: np.ndarray, new_id: np.ndarray) -> np.ndarray:
    out = np.empty_like(a)
    out[new_id] = a
    return out


__all__ = ["grow_exact", "segment_best"]
