"""Rows sorted by value within each node, for the level-wise exact grower (:mod:`engine.grow.fastexact`).

A level's scan needs, for every (feature, node) pair it evaluates, the node's rows in ascending order of
that feature (ties by row). Each feature is sorted once (:func:`~engine.grow.sorting.kept.presorted`, kept for
the next tree with the other whole-matrix caches in :mod:`engine.grow.sorting`); three ways keep the
per-node orders from there:

- :class:`PartitionedOrders` (SLIQ/SPRINT): every feature's order, split into node segments, is
  partitioned stably by child when nodes split, with counting passes (no sort). Each level costs
  ``features x rows``, whichever features the next level uses: the choice when every node may use
  every feature.
- :class:`SortedOrders`: only the pairs a level draws (random forests' ``max_features``) are built, by
  sorting one integer key per (pair, row): ``pair * rows + rank of the row in the feature``. A level
  costs ``drawn features x rows`` (times the sort's log factor): the choice when a node draws few of
  many features, e.g. sqrt(20) = 4 of 20.
- :class:`PackedOrders`: as SortedOrders for class targets with whole-number weights (unit, or a
  bootstrap's counts), sorting one int32 key per (pair, row) that carries the row's value rank, class and
  weight, so the scan reads nothing by row (each such read is a cache miss on big data).

The first two give exactly the same rows in the same order; the third the same rows up to their order
among equal values, which changes no class count at any threshold. The grown trees are the same.

Histogram search needs orders only for the nodes it hands over to the exact scan: ``HandedOverSortedOrders``
and ``HandedOverPackedOrders`` make them from those nodes' rows when they are first handed over, with no
sort of the whole data. :func:`partition` is the counting pass of :class:`PartitionedOrders`.
"""

from __future__ import annotations

import numpy as np

from engine.grow.parallel import thread_map, threads_for
# the whole-matrix caches and the segment sort, re-exported here where callers have always found them
from engine.grow.sorting.kept import (SORT_CACHE_LIMIT, _SORTED, dense_ranks, feature_blocks, kept_bins,  # noqa: F401
                                      node_orders, presorted)
from engine.grow.sorting.segments import (SMALL_SEGMENT, PaddedLayout, exclusive_cumsum, padded_layout,  # noqa: F401
                                          padded_rows, sort_segments)


def use_sorted_orders(n_drawn: int, n_features: int) -> bool:
    """Whether :class:`SortedOrders` beats partitioning: a sort costs a few times a counting pass per
    element, so it pays when each node draws at most a third of the features."""
    return 3 * n_drawn <= n_features


class PartitionedOrders:
    """Every feature's order (``O``: features x open rows), open nodes in contiguous segments of it."""

    def __init__(self, O: np.ndarray, threads: int = 1):
        self.O, self.m, self.threads = O, O.shape[1], threads

    def first_order(self, lo, cnt, starts) -> np.ndarray:
        """The open nodes' rows, node after node (the first feature's order)."""
        return self.O[0]

    def pair_positions(self, pj, pc, lo, cnt, starts, plen, pst):
        """Rows of the pairs (feature ``pj``, node ``pc``) one after another, each pair's sorted by value
        (int64), and None: no index into the sorted values (see :meth:`SortedOrders.pair_positions`)."""
        M = self.O.shape[1]
        j0, j1 = int(pj[0]), int(pj[-1]) + 1
        if pj.size == cnt.size * (j1 - j0):      # whole features: O's rows are the flat array as they are
            return self.O[j0:j1].ravel().astype(np.int64), None
        flat = np.repeat(pj * M + starts[pc] - pst, plen) + np.arange(int(plen.sum()))
        return np.take(self.O.ravel(), flat).astype(np.int64, copy=False), None

    def advance(self, rows, child, nxt, cnt, starts, child_n) -> None:
        """Regroup every row by next-level node (see :func:`partition`): ``rows`` of the split nodes go to
        split ``child // 2``'s child ``child % 2``; children ``nxt`` (of ``child_n`` rows each) stay open."""
        chkey = np.full(self.m, -2, dtype=self.O.dtype)
        chkey[rows] = child
        cand_of_child = np.full(child_n.size, -1, dtype=np.int64)
        cand_of_child[nxt] = np.arange(nxt.size)
        new_cnt = child_n[nxt]
        threads = threads_for(self.O.size, self.threads)
        parts = thread_map(lambda b: partition(self.O[b[0]:b[1]], chkey, cand_of_child, cnt, starts, new_cnt),
                           feature_blocks(self.O.shape[0], threads), threads)   # features apart: the same rows
        self.O = parts[0] if len(parts) == 1 else np.concatenate(parts)


class _RangeOrders:
    """Orders sorted per level for nodes that own ranges ``lo:lo + cnt`` of ``perm`` (kept by the grower)."""

    def __init__(self, perm: np.ndarray, m: int):
        self.perm, self.m = perm, m

    def first_order(self, lo, cnt, starts) -> np.ndarray:
        """The open nodes' rows, node after node."""
        return self.perm[np.repeat(lo - starts, cnt) + np.arange(int(cnt.sum()))]

    def _pair_cells(self, pj, pc, lo, plen, pst):
        """For the pairs (feature ``pj``, node ``pc``) one after another: each element's index into a
        (features x rows) array (``feature * rows + row``), and the ``feature * rows`` part alone."""
        rows = np.take(self.perm, np.repeat(lo[pc] - pst, plen) + np.arange(int(plen.sum())))
        feature_base = np.repeat(pj * self.m, plen)
        rows += feature_base
        return rows, feature_base

    def advance(self, rows, child, nxt, cnt, starts, child_n) -> None:
        """Nothing to move: the grower partitions ``perm`` itself."""


class SortedOrders(_RangeOrders):
    """The drawn pairs' orders, sorted per level; nodes own ranges ``lo:lo + cnt`` of ``perm`` (kept by
    the grower), ``R[j, row]`` is the row's rank in feature j's order ``O[j]``, and ``XS`` holds each
    feature's values ``XT`` in that order (features x rows), read by the second index that
    :meth:`pair_positions` returns: pairs read them in ascending order, not scattered."""

    def __init__(self, O: np.ndarray, perm: np.ndarray, XT: np.ndarray):
        d, m = O.shape
        super().__init__(perm, m)
        self.O = O
        self.R = np.empty_like(O)
        np.put_along_axis(self.R, O, np.broadcast_to(np.arange(m, dtype=O.dtype), O.shape), axis=1)
        self.XS = np.take_along_axis(XT, O, axis=1)

    def pair_positions(self, pj, pc, lo, cnt, starts, plen, pst):
        """As :meth:`PartitionedOrders.pair_positions`, and for each element its index into the features'
        sorted orders (``feature * rows + rank``)."""
        rows, feature_base = self._pair_cells(pj, pc, lo, plen, pst)
        # each pair's rows by their rank in the feature's order: the pair's block keeps its place and size
        feature_base += sort_segments(np.take(self.R.ravel(), rows), pst, plen)
        return np.take(self.O.ravel(), feature_base).astype(np.int64), feature_base



#: class-and-weight bit fields of at most this many bits are decoded by table (:meth:`PackedOrders.class_weights`)
LOW_TABLE_BITS = 12


class PackedOrders(_RangeOrders):
    """The drawn pairs' orders for class targets, sorted per level from one int32 key per (feature, row):
    the row's value rank among the feature's distinct values (:func:`dense_ranks`), then its class, then
    its weight (a whole number: a bootstrap's count), bit fields from high to low. Sorting a pair's keys
    sorts its rows by value and hands the scan each row's class and weight with no further read by row;
    the value ranks say where the value changes and, at the chosen position, which values the threshold
    lies between. Within equal values rows come in (class, weight) order instead of row order, which
    changes no class count at any threshold (the sums are whole numbers). Nodes own ranges ``lo:lo + cnt``
    of ``perm`` as in :class:`SortedOrders`. Use :meth:`fits` first: the three fields must fit 31 bits."""

    def __init__(self, X: np.ndarray, idx0: np.ndarray, perm: np.ndarray, labels: np.ndarray,
                 weights: np.ndarray | None, n_classes: int):
        super().__init__(perm, idx0.size)
        ranks, self.values, self.offsets = dense_ranks(X)
        row_bits = self._row_bits(labels, weights, n_classes)
        self.K = np.take(ranks, idx0, axis=1)          # C order: ravel() is a view
        self.K <<= self.value_shift
        self.K |= row_bits

    def _row_bits(self, labels: np.ndarray, weights: np.ndarray | None, n_classes: int) -> np.ndarray:
        """Set the bit fields' widths; each row's class-and-weight bits (int32)."""
        self.label_bits = max(1, int(n_classes - 1).bit_length())
        self.weight_bits = 0 if weights is None else int(weights.max()).bit_length()
        self.label_shift = self.weight_bits
        self.value_shift = self.weight_bits + self.label_bits
        self._tables: dict = {}
        row_bits = labels.astype(np.int32) << self.weight_bits
        if weights is not None:
            row_bits |= weights.astype(np.int32)
        return row_bits

    @staticmethod
    def fits(X: np.ndarray, weights: np.ndarray | None, n_classes: int) -> bool:
        """Whether value rank, class and weight fit an int32 key (distinct values counted by a bound: rows)."""
        bits = max(1, int(X.shape[0] - 1).bit_length()) + max(1, int(n_classes - 1).bit_length())
        if weights is not None:
            bits += int(weights.max()).bit_length() if weights.size else 0
        return bits <= 31

    def pair_keys(self, pj, pc, lo, plen, pst) -> np.ndarray:
        """The keys of the pairs (feature ``pj``, node ``pc``) one after another, each pair's sorted."""
        cells, _ = self._pair_cells(pj, pc, lo, plen, pst)
        return sort_segments(np.take(self.K.ravel(), cells), pst, plen)

    def split_keys(self, keys: np.ndarray):
        """(value rank, the class-and-weight bits, weight or None) of sorted keys."""
        rank = keys >> self.value_shift
        low = keys & ((1 << self.value_shift) - 1)
        weight = low & ((1 << self.weight_bits) - 1) if self.weight_bits else None
        return rank, low, weight

    def class_weights(self, low: np.ndarray, k: int) -> np.ndarray:
        """Each row's weight if its class is ``k``, else 0 (int32), from the class-and-weight bits ``low``:
        one read of a small table (at most 2**LOW_TABLE_BITS entries), else a comparison."""
        if self.value_shift <= LOW_TABLE_BITS:
            table = self._tables.get(k)
            if table is None:   # the comparison, once for every possible bit pattern
                table = self._tables[k] = self._compare(np.arange(1 << self.value_shift, dtype=np.int32), k)
            return np.take(table, low)
        return self._compare(low, k)

    def _compare(self, low: np.ndarray, k: int) -> np.ndarray:
        weight = low & ((1 << self.weight_bits) - 1) if self.weight_bits else 1
        return np.where(low >> self.label_shift == k, weight, 0).astype(np.int32)

    def value(self, feature: np.ndarray, rank: np.ndarray) -> np.ndarray:
        """Feature ``feature``'s distinct value of rank ``rank``."""
        return self.values[self.offsets[feature] + rank]


class _HandedOver:
    """Orders of the nodes that histogram search hands over to the exact scan (at most ``max_bins`` rows),
    made from those nodes' own rows: no sort of the whole data. ``column(j, rows)``: feature j's values of
    those rows (positions among the kept rows, as in ``perm``). :meth:`prepare` is called with a level's
    handed-over nodes; those not seen before (handed over at this level) get their rows ordered per
    feature, into a block of ranks of their own after the blocks of earlier levels. Ranks order values
    within every node: a node's rows, and its descendants', all come from one block. Feature by feature
    on ``threads`` threads (:func:`engine.grow.parallel.thread_map`); the orders do not depend on them."""

    def _start(self, column, d: int, threads: int) -> None:
        self.column, self.d, self.threads = column, d, threads
        self.seen = np.zeros(self.m, dtype=bool)           # rows whose orders are made
        self.used = 0                                      # ranks given out so far (each feature alike)

    def prepare(self, lo: np.ndarray, cnt: np.ndarray) -> None:
        """Make the orders of the nodes ``perm[lo[i]:lo[i] + cnt[i]]`` not seen before."""
        new = ~self.seen[self.perm[lo]]
        if not new.any():
            return
        n = cnt[new]
        rows = np.sort(self.perm[np.repeat(lo[new] - exclusive_cumsum(n), n) + np.arange(int(n.sum()))])
        self.seen[rows] = True
        base, self.used = self.used, self.used + rows.size
        thread_map(lambda j: self._order_feature(j, rows, base), range(self.d),
                   threads_for(rows.size * self.d, self.threads))


class HandedOverSortedOrders(_HandedOver, SortedOrders):
    """:class:`SortedOrders` made per hand-over (see :class:`_HandedOver`): a block's rows sorted stably by
    value (ties by row), as the whole-data sort would order them."""

    def __init__(self, column, d: int, perm: np.ndarray, index_type, threads: int = 1):
        m = perm.size
        _RangeOrders.__init__(self, perm, m)
        self.O, self.R = np.empty((d, m), dtype=index_type), np.empty((d, m), dtype=index_type)
        self.XS = np.empty((d, m))
        self._start(column, d, threads)

    def _order_feature(self, j: int, rows: np.ndarray, base: int) -> None:
        x = self.column(j, rows)
        o = np.argsort(x, kind="stable")
        end = base + rows.size
        self.O[j, base:end] = rows.take(o)
        self.R[j, self.O[j, base:end]] = np.arange(base, end, dtype=self.R.dtype)
        self.XS[j, base:end] = x.take(o)


class HandedOverPackedOrders(_HandedOver, PackedOrders):
    """:class:`PackedOrders` made per hand-over (see :class:`_HandedOver`): a block's distinct values of
    each feature get consecutive ranks; ``V[j, rank]`` is feature j's value of that rank. Ranks stay below
    the rows, so :meth:`PackedOrders.fits` holds as it is."""

    def __init__(self, column, d: int, perm: np.ndarray, labels: np.ndarray, weights: np.ndarray | None,
                 n_classes: int, threads: int = 1):
        m = perm.size
        _RangeOrders.__init__(self, perm, m)
        self.row_bits = self._row_bits(labels, weights, n_classes)
        self.K, self.V = np.empty((d, m), dtype=np.int32), np.empty((d, m))
        self._start(column, d, threads)

    def _order_feature(self, j: int, rows: np.ndarray, base: int) -> None:
        u, inverse = np.unique(self.column(j, rows), return_inverse=True)
        self.V[j, base:base + u.size] = u
        key = inverse.astype(np.int32)
        key += base
        key <<= self.value_shift
        key |= self.row_bits.take(rows)
        self.K[j, rows] = key

    def value(self, feature: np.ndarray, rank: np.ndarray) -> np.ndarray:
        return self.V.ravel().take(feature * self.m + rank)


def partition(O, chkey, cand_of_child, cnt, starts, new_cnt):
    """Every row of ``O`` regrouped by next-level node, stably: the rows of a split node's segment become
    its left child's rows then its right child's, each still sorted by value; rows of nodes that stop
    are dropped. ``chkey[row]`` is ``2 * split index + (goes right)``, or -2 for rows whose node stops."""
    d, M = O.shape
    M2 = int(new_cnt.sum())
    it = O.dtype                                         # int32 below 2**31 positions: half the traffic
    ce = chkey[O]                                        # (d, M); -2: the row's node stops
    gr = ce & 1
    cr = np.cumsum(gr, axis=1, dtype=it)
    seg_base = np.zeros((d, cnt.size), dtype=it)
    seg_base[:, 1:] = cr[:, starts[1:] - 1]
    cr -= gr
    cr -= np.repeat(seg_base, cnt, axis=1)               # rights before each row, within its node
    local = (np.arange(M) - np.repeat(starts, cnt)).astype(it)
    rank = np.where(gr.astype(bool), cr, local - cr)
    # per child (shifted by 2 so that -2 reads the first slot): its next-level start; rows whose node
    # stops all land in one scratch slot past the end (a clipped scatter beats compacting with a mask)
    scratch = d * M2
    start_of = np.full(cand_of_child.size + 2, scratch, dtype=np.int64)
    go = cand_of_child >= 0
    start_of[2:][go] = exclusive_cumsum(new_cnt)[cand_of_child[go]]
    ce += 2
    dest = start_of[ce]
    dest += rank
    dest += (np.arange(d, dtype=np.int64) * M2)[:, None]
    np.minimum(dest, scratch, out=dest)
    out = np.empty(scratch + 1, dtype=it)
    out[dest] = O
    return out[:scratch].reshape(d, M2)


__all__ = ["kept_bins", "HandedOverPackedOrders", "HandedOverSortedOrders", "PackedOrders", "PartitionedOrders", "SortedOrders", "dense_ranks", "exclusive_cumsum", "node_orders", "partition", "presorted",
           "padded_layout", "padded_rows", "sort_segments", "use_sorted_orders"]
