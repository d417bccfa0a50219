"""Histogram scanning for the level-wise builder: one ``bincount`` per stat and feature for a whole level.

For the rows of a level (grouped by node), the key ``node * n_bins + bin`` turns a feature's rows into
per-node histograms ``(C, n_bins)``; cumulative sums over the bins give every node's left child at every
edge. The arithmetic matches :func:`engine.histogram.histogram_candidates` node by node.
"""

from __future__ import annotations

import numpy as np

from .search import TIE_TOL


def scan_hist_feature(crit, min_leaf, ScT, codes_j, rows_lvl, nd, segs, C, B, P, W, G_j, BIN_j, LEFT_j, NL_j,
                      labels=None):
    """Fill the best edge of one feature for the level's nodes ``segs`` (gain, bin, left stats, n_left).

    With ``labels`` (classification with unit weights) one unweighted ``bincount`` of (node, bin, class)
    gives every class count at once (the same integers as the weighted per-stat counts).
    """
    allowed = np.zeros(C, dtype=bool)
    allowed[segs] = True
    keep = allowed[nd]
    r, k_nd = (rows_lvl, nd) if keep.all() else (rows_lvl[keep], nd[keep])
    code = codes_j[r]
    key = k_nd * B + code
    S = ScT.shape[0]
    if labels is not None:
        counts = np.bincount(key * S + labels[r], minlength=C * B * S).reshape(C, B, S)
        hist = np.moveaxis(counts, -1, 0).astype(np.float64)
        cnt = counts.sum(axis=2)
    else:
        hist = np.stack([np.bincount(key, weights=ScT[k][r], minlength=C * B).reshape(C, B) for k in range(S)])
        cnt = np.bincount(key, minlength=C * B).reshape(C, B)
    cum = np.cumsum(hist[:, segs], axis=2)                      # (S, n, B)
    ncum = np.cumsum(cnt[segs], axis=1)                         # (n, B)
    total = cum[:, :, -1:]
    left, right = cum[:, :, :-1], total - cum[:, :, :-1]
    n_left = ncum[:, :-1]
    n_right = ncum[:, -1:] - n_left
    valid = (cnt[segs, :-1] > 0) & (n_left >= min_leaf) & (n_right >= min_leaf)
    lt, rt = np.moveaxis(left, 0, -1), np.moveaxis(right, 0, -1)   # (n, B-1, S)
    gain = P[segs][:, None] - (crit.weighted(lt) + crit.weighted(rt)) / W[segs][:, None]
    gain = np.where(valid, gain, -np.inf)
    best = gain.max(axis=1, initial=-np.inf)
    finite = np.isfinite(best)
    bar = np.where(finite, best - TIE_TOL * (1.0 + np.abs(np.where(finite, best, 0.0))), np.inf)
    first = np.argmax(gain >= bar[:, None], axis=1)
    at = segs[finite]
    f = first[finite]
    G_j[at] = best[finite]
    BIN_j[at] = f
    LEFT_j[at] = lt[finite, f]
    NL_j[at] = n_left[finite, f]


def node_thresholds(XcT, CodesT, rows_lvl, nd, starts, jstar, bstar) -> np.ndarray:
    """Node-local thresholds of the winning edges: midpoint of the largest value going left and the
    smallest going right (as the exact search), so routing by threshold equals routing by bin."""
    jr = jstar[nd]
    v = XcT[jr, rows_lvl]
    left = CodesT[jr, rows_lvl] <= bstar[nd]
    lo = np.maximum.reduceat(np.where(left, v, -np.inf), starts)
    hi = np.minimum.reduceat(np.where(left, np.inf, v), starts)
    t = (lo + hi) / 2.0
    ok = np.isfinite(lo) & np.isfinite(hi)
    return np.where(ok, np.where(t >= hi, lo, t), 0.0)
