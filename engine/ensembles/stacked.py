"""All members of an ensemble routed from one stacked node table, member by member, rows level by level.

The members' node arrays are concatenated once (``feature`` mapped to the ensemble's columns, children
shifted by each member's offset). A node's two children sit side by side (the builders number them so),
so only the left one is stored:

    node <- first[node] + (x[row, feature[node]] > threshold[node])

Leaves point to themselves (threshold +inf, so a leaf's test always sends the pair back to it), which lets
a few levels run without checking who has arrived; then the (member, row) pairs that reached a leaf are set
aside and the rest moved on. The work is cut into pieces of about ``PIECE`` pairs: one member and a chunk
of rows, or (for few rows) a few members and every row. A piece touches one member's node table (about
18 bytes a node kept: int32 feature and first child, float64 threshold, a leaf flag and a class code; 450 kB for 25k nodes) and working arrays of a few hundred kB, so both stay in the core's
cache; routing every member at once through the whole table (tens of MB for 100 deep trees) made every
lookup a cache miss and was 1.5-2x slower. The rows are read column-major (``f * n + row``): near the root
most rows test the same feature, so those reads are sequential. Pieces run on the threads of
:func:`engine.grow.parallel.thread_map` (numpy's gathers and comparisons release the GIL) and write
disjoint blocks of the result, so any number of threads gives the same answer. The leaf a pair reaches
gives the member's prediction (its class code or mean), so the vote tally and each member's vote for the
breakdown come from this one pass.

It serves members of threshold splits only, binary, on rows without missing values, and members
whose columns are a plain selection of the ensemble's (no category translation): exactly the trees
:class:`CompiledTree` routes without fractional weights. :meth:`StackedForest.build` returns None
otherwise, and rows with a missing value are routed by the members one at a time.
"""

from __future__ import annotations

import numpy as np

from engine.grow.parallel import thread_map, threads_for, tree_threads
from engine.tree.node import first_argmax

#: (member, row) pairs routed together: working arrays of a few hundred kB and one member's table in cache.
PIECE = 1 << 15
#: levels moved between two removals of the pairs that reached a leaf.
LEVELS_PER_SWEEP = 5


class StackedForest:
    """The members' node tables as one (see the module docstring); ``outputs(X)`` is (M, n)."""

    def __init__(self, feature, threshold, first, leaf, roots, leaf_output, task):
        self.feature, self.threshold, self.first, self.leaf = feature, threshold, first, leaf
        self.roots, self.leaf_output, self.task = roots, leaf_output, task

    def __repr__(self) -> str:
        return f"StackedForest(members={self.roots.size}, nodes={self.leaf.size}, task={self.task})"

    @classmethod
    def build(cls, compiled, task: str, n_nodes: int | None = None) -> "StackedForest | None":
        """From the members' ``(ColumnAdapter, CompiledTree)`` pairs (any iterable, read once); None when one
        needs the general path. Kept compact: features and children as int32, class codes in the smallest
        unsigned type (about 18 bytes a node with the float64 threshold). ``n_nodes``: the members' nodes
        together, when known: the table is then filled in place (no second copy while it is put together)."""
        parts, offset, roots = [], 0, []
        for adapter, ct in compiled:
            if adapter.tables or ct.children.shape[1] != 2 or (ct.kind == 2).any():
                return None
            inner = ct.kind != 0
            if not np.array_equal(ct.children[inner, 1], ct.children[inner, 0] + 1):
                return None
            leaf = ct.kind == 0
            size = leaf.size
            safe = np.where(leaf, 0, ct.feature)
            values = ct.values_table
            out = first_argmax(values) if task == "classification" else values[:, 0]
            if task == "classification":
                out = out.astype(np.min_scalar_type(max(values.shape[1] - 1, 0)))
            part = (np.where(leaf, 0, safe if adapter.identity else adapter.columns[safe]),
                    np.where(leaf, np.inf, ct.threshold), np.where(leaf, np.arange(size), ct.children[:, 0]) + offset,
                    leaf, out)
            if n_nodes is None:
                parts.append(part)
            else:
                if not parts:
                    index = np.int32 if n_nodes < 2**31 else np.int64
                    parts = [np.empty(n_nodes, dtype=d) for d in (np.int32, float, index, bool, out.dtype)]
                for whole, piece in zip(parts, part):
                    whole[offset:offset + size] = piece
            roots.append(offset)
            offset += size
        if not roots:
            return None
        if n_nodes is None:
            parts = [np.concatenate(p) for p in zip(*parts)]
        elif offset != n_nodes:
            raise ValueError(f"the members have {offset} nodes, not {n_nodes}")
        feature, threshold, first, leaf, out = parts
        index = np.int32 if offset < 2**31 else np.int64
        return cls(feature.astype(np.int32, copy=False), threshold.astype(float, copy=False),
                   first.astype(index, copy=False), leaf, np.asarray(roots, dtype=np.int64), out, task)

    def leaves(self, X: np.ndarray, members: int | None = None, n_jobs: int | None = None) -> np.ndarray:
        """(members, n) stacked slot of the leaf each of the first ``members`` trees sends each row to;
        ``n_jobs`` threads route pieces at once (None: as :func:`engine.grow.parallel.tree_threads`, every
        core outside a worker process; -1: every core; 1: this thread only)."""
        return self._routed(np.asarray(X, dtype=float), members, n_jobs, None)

    def outputs(self, X: np.ndarray, members: int | None = None, n_jobs: int | None = None) -> np.ndarray:
        """(members, n) each member's prediction: class codes (int) or values (float); ``X`` has no NaN.
        Each piece's leaves are read in its own thread."""
        return self._routed(np.asarray(X, dtype=float), members, n_jobs, self.leaf_output)

    def _routed(self, X, members, n_jobs, values) -> np.ndarray:
        M = self.roots[:members].size
        n = X.shape[0]
        out = np.empty((M, n), dtype=np.int64 if values is None else values.dtype)
        if not M or not n:
            return out
        Xc = np.ascontiguousarray(X.T).ravel()        # column-major: column f of row r at f * n + r
        pieces = _pieces(M, n)
        threads = threads_for(M * n, tree_threads(n_jobs))
        thread_map(lambda piece: self._route_piece(Xc, n, piece, out, values), pieces, threads)
        return out

    def _route_piece(self, Xc, n, piece, out, values) -> None:
        """Route rows ``r0:r1`` through members ``m0:m1`` (``piece``) into ``out[m0:m1, r0:r1]``: the leaves'
        slots, or their ``values``. The members' tables are sliced and renumbered from 0 for the piece."""
        m0, m1, r0, r1 = piece
        lo = int(self.roots[m0])
        hi = int(self.roots[m1]) if m1 < self.roots.size else self.leaf.size
        offsets = self.feature[lo:hi].astype(np.int64) * n
        threshold, first, leaf = self.threshold[lo:hi], (self.first[lo:hi] - lo).astype(np.int64), self.leaf[lo:hi]
        c, k = r1 - r0, m1 - m0
        cur = np.repeat(self.roots[m0:m1] - lo, c)
        row = np.tile(np.arange(r0, r1), k)
        alone = k == 1 and r0 == 0                    # a pair's place in the piece is its row
        pos = row if alone else np.arange(k * c)
        reached = np.empty(k * c, dtype=np.int64)
        while cur.size:
            for _ in range(LEVELS_PER_SWEEP):
                nxt = first[cur]
                nxt += Xc[offsets[cur] + row] > threshold[cur]
                cur = nxt
            done = leaf[cur]
            at = np.flatnonzero(done)
            reached[pos[at]] = cur[at]
            keep = np.flatnonzero(~done)
            cur, row = cur[keep], row[keep]
            pos = row if alone else pos[keep]
        reached += lo
        out[m0:m1, r0:r1] = (reached if values is None else values[reached]).reshape(k, c)


def _pieces(members: int, n: int) -> list[tuple[int, int, int, int]]:
    """(m0, m1, r0, r1) pieces of about ``PIECE`` (member, row) pairs: one member and a chunk of rows
    (chunks of equal size) when there are ``PIECE`` rows or more, else a group of members and every row."""
    if n >= PIECE:
        chunks = -(-n // PIECE)
        bounds = np.linspace(0, n, chunks + 1).round().astype(np.int64).tolist()
        return [(m, m + 1, a, b) for m in range(members) for a, b in zip(bounds[:-1], bounds[1:])]
    group = max(1, PIECE // n)
    return [(m, min(m + group, members), 0, n) for m in range(0, members, group)]


__all__ = ["StackedForest", "PIECE"]
