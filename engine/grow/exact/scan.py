"""One level's scan: every (feature, node) pair the level may use, scanned at once for its best threshold.

Each pair's rows come sorted by value (:mod:`engine.grow.roworders`); as one flat array, cumulative stats
minus each pair's offset give the left child at every threshold,
:meth:`~engine.split.impurity.Criterion.weighted_cols` every gain, and a segmented maximum
(:func:`segment_best`) each pair's best threshold, first on ties as in :mod:`engine.split.search`.
:func:`chunk_bounds` cuts a level into scans of bounded memory (pieces for threads, the same for every
number of threads); :func:`feature_choice` picks each node's feature from its per-feature best gains.
"""

from __future__ import annotations

import numpy as np

from engine.grow.exact.data import ScanData
from engine.grow.roworders import PackedOrders
from engine.grow.sorting.segments import exclusive_cumsum
from engine.split.search import TIE_TOL

#: elements (pairs' rows) scanned per chunk: bounds the memory of one scan to ~100 MB
CHUNK = 1 << 20
#: bytes of one scan's working arrays when there are many stats (classes): rows per scan are cut to fit
SCAN_BYTES = 100 << 20
#: a level is scanned in about SPREAD chunks at least, of MIN_CHUNK rows at least (see :func:`chunk_bounds`)
SPREAD, MIN_CHUNK = 8, 1 << 16


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


def _cumsum(values: np.ndarray) -> np.ndarray:
    """Running sum; booleans and integers in int64 (see ``ScanData.STi``)."""
    return np.cumsum(values, dtype=np.int64 if values.dtype.kind in "biu" else np.float64)


def node_totals(data: ScanData, first_order: np.ndarray, cnt: np.ndarray, starts: np.ndarray) -> np.ndarray:
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


def scan_pairs(data: ScanData, crit, msl: int, orders, lo, cnt, starts, TOT, W, P, pj, pc, G, THR, LEFT, NL):
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


def chunk_bounds(pj: np.ndarray, plen: np.ndarray, d: int, S: int) -> np.ndarray:
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


__all__ = ["CHUNK", "MIN_CHUNK", "SCAN_BYTES", "SPREAD", "chunk_bounds", "feature_choice", "node_totals",
           "scan_pairs", "scan_rows", "segment_best"]
