"""Histogram split search for large data: thresholds at bin edges, counted with ``np.bincount``.

Each numeric feature is binned once (:func:`make_bins`): if it has at most ``max_bins`` distinct values
the edges are the midpoints between consecutive distinct values (so nothing is lost); otherwise the
edges are midpoints between distinct values near its quantiles. A row with value v falls in bin
``b = #edges < v``, so ``x <= edge[b]`` holds exactly for the bins ``<= b``.

At a node, per-bin stats are one ``bincount`` per stat; their cumulative sums give the left child of
every edge at once. The threshold stored for the winning edge is node-local, the midpoint between the
largest value at the node going left and the smallest going right, as in the exact search; so with
``max_bins`` >= the number of distinct values, histogram search finds the same splits as exact search.
Gains are those of the rows' real partition; only the candidate thresholds are coarser.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .search import TIE_TOL, NodeData, _make_split


@dataclass(frozen=True, repr=False)
class Bins:
    """Bin edges per feature (empty for categorical features) and every row's bin code (-1 = missing)."""

    edges: tuple[np.ndarray, ...]
    codes: np.ndarray  # (n, d) int32

    def __repr__(self) -> str:
        return f"Bins(features={len(self.edges)}, bins={[e.size + 1 for e in self.edges]})"


SAMPLE_ROWS = 200_000


def bin_edges(col: np.ndarray, max_bins: int) -> np.ndarray:
    """Edges for one numeric column (NaN ignored): at most ``max_bins - 1`` midpoints.

    Above ``SAMPLE_ROWS`` known values, a fixed random sample of that size decides: if it already holds
    more than ``max_bins`` distinct values the quantile edges come from the sample (as LightGBM and
    scikit-learn's histogram boosting do); otherwise every distinct value is used, so nothing is lost.
    """
    known = col[~np.isnan(col)]
    if known.size > SAMPLE_ROWS:
        sample = np.random.default_rng(0).choice(known, SAMPLE_ROWS, replace=False)
        if np.unique(sample).size > max_bins:
            known = sample
    u = np.unique(known)
    if u.size <= 1:
        return np.zeros(0)
    if u.size <= max_bins:
        lo, hi = u[:-1], u[1:]
    else:
        q = np.quantile(known, np.linspace(0, 1, max_bins + 1)[1:-1])
        i = np.unique(np.clip(np.searchsorted(u, q, side="right"), 1, u.size - 1))
        lo, hi = u[i - 1], u[i]
    mid = (lo + hi) / 2.0
    return np.where(mid >= hi, lo, mid)


def make_bins(X: np.ndarray, kinds, max_bins: int) -> Bins:
    edges, codes = [], np.full(X.shape, -1, dtype=np.int32)
    for j, kind in enumerate(kinds):
        if kind != "numeric":
            edges.append(np.zeros(0))
            continue
        e = bin_edges(X[:, j], max_bins)
        col = X[:, j]
        known = ~np.isnan(col)
        codes[known, j] = np.searchsorted(e, col[known], side="left")
        edges.append(e)
    return Bins(tuple(edges), codes)


def _node_threshold(x: np.ndarray, code: np.ndarray, b: int) -> float:
    """Midpoint between the largest value with code <= b and the smallest with code > b (node rows)."""
    lo = x[code <= b].max()
    hi = x[code > b].min()
    t = (lo + hi) / 2.0
    return float(lo if t >= hi else t)


def histogram_candidates(nd: NodeData, codes: np.ndarray, j: int, n_bins: int):
    """Every edge of feature j at a node: (bins b, gains, left stats, right stats, n_left, known mask)."""
    code = codes[:, j]
    known = code >= 0
    c = code[known]
    if c.size < 2:
        return None
    st = nd.stats[known]
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
    x = nd.x[known, j]
    t = _node_threshold(x, codes[known, j], int(bins[i]))
    stats = np.stack([left[i], right[i]])
    n_known = int(known.sum())
    return _make_split(nd, j, name, "threshold", stats, (int(n_left[i]), n_known - int(n_left[i])),
                       left[i] + right[i], threshold=t)
