"""Rows into their children's ranges: each open node owns a range of ``perm`` (the kept rows' permutation).

:func:`split_ranges` partitions the split nodes' ranges in place, stably (left rows, then right), groups of
nodes on threads; while every node of a level is binned the rows stay in place instead, each noting the
deepest node it reached, and :func:`settled` makes ``perm`` from those when first read.
"""

from __future__ import annotations

import numpy as np

from engine.grow.exact.data import ScanData
from engine.grow.parallel import thread_map
from engine.grow.sorting.segments import exclusive_cumsum

#: rows of split nodes one thread moves at least (see :func:`split_ranges`)
SPLIT_GROUP_ROWS = 1 << 16


def split_ranges(perm, data: ScanData, lo, n, n_left, feature, threshold, right_row=None, binned=None,
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
    """:func:`split_ranges` of the split nodes ``a:b``; their ``seg`` numbers count from ``a``."""
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


def settled(deepest: np.ndarray, lv_lo: list, split_nodes: list, n_nodes: int) -> np.ndarray:
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


__all__ = ["SPLIT_GROUP_ROWS", "settled", "split_ranges"]
