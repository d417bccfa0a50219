"""The training matrix's whole-data sorts, dense value ranks and histogram bins, kept for the next tree.

A forest's trees, or the app growing the same data again with other settings, sort (rank, bin) one
read-only matrix once: each cache holds the last matrix it was given (weakly: a freed matrix takes what
was kept for it along) and what was computed for it. :func:`presorted` is every feature's stable row order,
:func:`node_orders` filters it to one node's rows, :func:`dense_ranks` gives each value's rank among its
feature's distinct values, :func:`kept_bins` keeps the histogram search's bins.
"""

from __future__ import annotations

import weakref

import numpy as np

from engine.grow.parallel import thread_map, threads_for
from engine.grow.sorting.segments import exclusive_cumsum

#: the last training matrix sorted (weakly held): a forest's trees, or the app growing the same data again
#: with other settings, sort it once
_SORTED: dict = {}
SORT_CACHE_LIMIT = 20_000_000      # elements (rows x features): at most 80 MB of int32 positions kept
#: the last matrix's dense value ranks (:func:`dense_ranks`), kept the same way
_RANKED: dict = {}


def _forgetter(cache: dict):
    """A weakref callback: when the cached matrix is freed, drop what ``cache`` keeps for it (else up to
    80 MB outlive it until the next call), unless the cache moved on to another matrix."""
    def forget(ref) -> None:
        hit = cache.get("X")
        if hit is not None and hit[0] is ref:
            cache.clear()
    return forget


#: the last matrix's histogram bins (weakly held, with the kinds and max_bins they were made for)
_BINNED: dict = {}


def kept_bins(X: np.ndarray, key, make):
    """``make()`` (the bins of X for ``key``), kept for the next tree on the same read-only matrix with the
    same ``key``: the app's next tree on the same rows (other settings) and a benchmark's warm fit skip the
    binning. Bins are one byte a cell: kept up to 4 x ``SORT_CACHE_LIMIT`` cells (80 MB)."""
    hit = _BINNED.get("X")
    if hit is not None and hit[0]() is X and hit[1] == key:
        return hit[2]
    out = make()
    out.codes.flags.writeable = False
    _BINNED.clear()
    if X.size <= 4 * SORT_CACHE_LIMIT and not X.flags.writeable:
        _BINNED["X"] = (weakref.ref(X, _forgetter(_BINNED)), key, out)
    return out


def presorted(X: np.ndarray, keep: np.ndarray, index_type, threads: int = 1) -> np.ndarray:
    """Each feature's stable argsort of the rows ``keep`` (True) of ``X``, in positions among those rows:
    (features, kept rows). Equal to sorting the kept rows directly (a stable order by value then row, of
    a subset, is the subset of the order), so it is computed from the whole matrix's order, kept for
    the next call on the same matrix. Blocks of features on ``threads`` threads (the same orders)."""
    n, d = X.shape
    hit = _SORTED.get("X")
    if hit is not None and hit[0]() is X and hit[1].dtype == index_type:
        full = hit[1]
    else:
        threads = threads_for(n * d, threads)
        full = np.concatenate(thread_map(lambda b: np.argsort(X.T[b[0]:b[1]], axis=1, kind="stable").astype(index_type),
                                         feature_blocks(d, threads), threads))
        _SORTED.clear()
        if n * d <= SORT_CACHE_LIMIT and not X.flags.writeable:
            _SORTED["X"] = (weakref.ref(X, _forgetter(_SORTED)), full)
    if keep.all():
        return full
    position = (np.cumsum(keep) - 1).astype(index_type)
    return position[full[keep[full]].reshape(d, -1)]


def node_orders(full: np.ndarray, idx: np.ndarray, n_rows: int, cols) -> np.ndarray:
    """The stable order of one node's rows by each feature in ``cols``, as positions among the node's rows
    (rows x features), read off ``full`` (:func:`presorted` of all ``n_rows`` rows; ``idx`` the node's
    rows, ascending): filtering a stable order by (value, row) to a subset of rows gives the subset's stable
    order, at the cost of a pass over all rows per feature instead of a sort of the node's rows. Worth it
    for big nodes (a step near the root)."""
    where = np.full(n_rows, -1, dtype=np.int64)
    where[idx] = np.arange(idx.size)
    ranked = where[full[list(cols)]]                     # (features, all rows): -1 for rows not in the node
    return ranked[ranked >= 0].reshape(len(cols), idx.size).T



def feature_blocks(d: int, threads: int) -> list:
    """(start, end) of about ``2 * threads`` blocks of d features (one block for one thread)."""
    cuts = np.linspace(0, d, min(d, 2 * threads if threads > 1 else 1) + 1).astype(int).tolist()
    return list(zip(cuts[:-1], cuts[1:]))



def dense_ranks(X: np.ndarray):
    """Each value's rank among its feature's distinct values (features x rows, int32: equal values share a
    rank), with the distinct values of every feature one after another and where each feature's start.
    Kept for the next call on the same read-only matrix (a forest's members share it)."""
    hit = _RANKED.get("X")
    if hit is not None and hit[0]() is X:
        return hit[1]
    n, d = X.shape
    ranks = np.empty((d, n), dtype=np.int32)
    values = []
    for j in range(d):
        u, inverse = np.unique(X[:, j], return_inverse=True)
        ranks[j] = inverse
        values.append(u)
    offsets = exclusive_cumsum(np.array([u.size for u in values]))
    out = (ranks, np.concatenate(values), offsets)
    _RANKED.clear()
    if n * d <= SORT_CACHE_LIMIT and not X.flags.writeable:
        _RANKED["X"] = (weakref.ref(X, _forgetter(_RANKED)), out)
    return out



__all__ = ["SORT_CACHE_LIMIT", "dense_ranks", "feature_blocks", "kept_bins", "node_orders", "presorted"]
