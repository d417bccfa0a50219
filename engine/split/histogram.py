"""Histogram split search for large data: thresholds at bin edges, counted with ``np.bincount``.

Each numeric feature is binned once (:mod:`engine.split.binning`: edges near its quantiles, a ``uint8`` code per
row). At a node, per-bin stats are one ``bincount`` per stat; their cumulative sums give the left child of
every edge at once. The threshold stored for the winning edge is node-local, the midpoint between the
largest value at the node going left and the smallest going right, as in the exact search; so with
``max_bins`` >= the number of distinct values, histogram search finds the same splits as exact search.
Gains are those of the rows' real partition; only the candidate thresholds are coarser.

A node with at most ``max_bins`` rows (of positive weight) is searched exactly, every midpoint
(:func:`searched_exactly`): there a histogram has more bins than rows, so counting bins costs more than
scanning the rows (most nodes of a fully grown tree are that small), and the exact search sees every
threshold the bins would hide. Stepping and the level-wise grower apply the same rule, so they agree.
"""

from __future__ import annotations

import numpy as np

from engine.split.binning import Bins, bin_codes, bin_edges, make_bins, missing_code
from engine.split.search import TIE_TOL, NodeData, _make_split


def searched_exactly(n_rows: int, max_bins: int) -> bool:
    """Whether histogram search hands a node of ``n_rows`` rows (positive weight) to the exact search."""
    return n_rows <= max_bins


def _node_threshold(x: np.ndarray, code: np.ndarray, b: int) -> float:
    """Midpoint between the largest value with code <= b and the smallest with code > b (node rows).

    Bins hold increasing values, so those are the largest value in bin b (never empty for a valid
    edge) and the smallest in the next non-empty bin: two small selections instead of two halves."""
    nb = b + 1 + int(np.argmax(np.bincount(code, minlength=b + 2)[b + 1:] > 0))
    lo = x[code == b].max()
    hi = x[code == nb].min()
    t = (lo + hi) / 2.0
    return float(lo if t >= hi else t)


def histogram_candidates(nd: NodeData, codes: np.ndarray, j: int, n_bins: int):
    """Every edge of feature j at a node: (bins b, gains, left stats, right stats, n_left, known mask)."""
    code = codes[:, j]
    known = code != missing_code(code)
    every = bool(known.all())                     # no copies then: the same rows in the same order
    c = code if every else code[known]
    if c.size < 2:
        return None
    st = nd.stats if every else nd.stats[known]
    hist = np.stack([np.bincount(c, weights=st[:, k], minlength=n_bins) for k in range(st.shape[1])], axis=1)
    cnt = np.bincount(c, minlength=n_bins)
    cum = np.cumsum(hist, axis=0)
    ncum = np.cumsum(cnt)
    total = cum[-1]
    left, right = cum[:-1], total - cum[:-1]
    n_left = ncum[:-1]
    n_right = ncum[-1] - n_left
    valid = (cnt[:-1] > 0) & (n_left >= nd.min_samples_leaf) & (n_right >= nd.min_samples_leaf)
    crit = nd.criterion
    gain = float(crit.from_stats(total)) - (crit.weighted(left) + crit.weighted(right)) / crit.weight(total)
    idx = np.flatnonzero(valid)
    if idx.size == 0:
        return None
    return idx, gain[idx], left[idx], right[idx], n_left[idx], known


def best_histogram(nd: NodeData, codes: np.ndarray, j: int, name: str, n_bins: int):
    cand = histogram_candidates(nd, codes, j, n_bins)
    if cand is None:
        return None
    bins, gains, left, right, n_left, known = cand
    best = np.max(gains)
    i = int(np.flatnonzero(gains >= best - TIE_TOL * (1.0 + abs(best)))[0])
    n_known = int(known.sum())
    every = n_known == known.size
    x, code = (nd.x[:, j], codes[:, j]) if every else (nd.x[known, j], codes[known, j])
    t = _node_threshold(x, code, int(bins[i]))
    stats = np.stack([left[i], right[i]])
    return _make_split(nd, j, name, "threshold", stats, (int(n_left[i]), n_known - int(n_left[i])),
                       left[i] + right[i], threshold=t)


__all__ = ["Bins", "best_histogram", "bin_codes", "bin_edges", "histogram_candidates", "make_bins", "missing_code",
           "searched_exactly"]
