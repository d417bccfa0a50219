"""All members of an ensemble routed together: one stacked node table, rows moved level by level.

:class:`~engine.ensembles.compiled.CompiledTree` routes the rows through one tree at a time, so a
forest of M trees pays M times the per-level numpy overhead. :class:`StackedForest` concatenates the
members' node arrays (``feature`` mapped to the ensemble's columns, children shifted by each
member's offset) and routes every (member, row) pair at once. A node's two children sit side by side
(the builders number them so), so only the left one is stored:

    node <- first[node] + (x[row, feature[node]] > threshold[node])

Leaves point to themselves (threshold +inf, so a leaf's test always sends the pair back to it), which lets
a few levels run without checking who has arrived; then the pairs that reached a leaf are set aside.
Rows go in chunks of ``CHUNK`` so the working arrays stay in the processor's cache, and the chunks run
on every core in threads (numpy's gathers and comparisons release the GIL; the chunks write disjoint
columns of the result). The leaf a pair
reaches gives the member's prediction (its class code or mean), so the vote tally and each member's
vote for the breakdown come from this one pass.

It serves members of threshold splits only, binary, on rows without missing values, and members
whose columns are a plain selection of the ensemble's (no category translation): exactly the trees
:class:`CompiledTree` routes without fractional weights. :meth:`StackedForest.build` returns None
otherwise, and rows with a missing value are routed by the members one at a time.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from engine.grow.parallel import effective_n_jobs
from engine.tree.node import first_argmax

#: rows routed together (times the number of members): working arrays of a few MB.
CHUNK = 8192
#: levels moved between two removals of the pairs that reached a leaf.
LEVELS_PER_SWEEP = 4


class StackedForest:
    """The members' node tables as one (see the module docstring); ``outputs(X)`` is (M, n)."""

    def __init__(self, feature, threshold, first, leaf, roots, leaf_output, task):
        self.feature, self.threshold, self.first, self.leaf = feature, threshold, first, leaf
        self.roots, self.leaf_output, self.task = roots, leaf_output, task

    def __repr__(self) -> str:
        return f"StackedForest(members={self.roots.size}, nodes={self.leaf.size}, task={self.task})"

    @classmethod
    def build(cls, compiled, task: str) -> "StackedForest | None":
        """From the members' ``(ColumnAdapter, CompiledTree)`` pairs; None when one needs the general path."""
        if not compiled:
            return None
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
            feature = np.where(leaf, 0, safe if adapter.identity else adapter.columns[safe])
            first = np.where(leaf, np.arange(size), ct.children[:, 0]) + offset
            values = ct.values_table
            out = first_argmax(values) if task == "classification" else values[:, 0]
            parts.append((feature,
                          np.where(leaf, np.inf, ct.threshold), first, leaf, out))
            roots.append(offset)
            offset += size
        feature, threshold, first, leaf, out = (np.concatenate(p) for p in zip(*parts))
        return cls(feature.astype(np.int64), threshold.astype(float), first.astype(np.int64),
                   leaf, np.asarray(roots, dtype=np.int64), out, task)

    def leaves(self, X: np.ndarray, members: int | None = None, n_jobs: int | None = None) -> np.ndarray:
        """(members, n) stacked slot of the leaf each of the first ``members`` trees sends each row to;
        ``n_jobs`` threads route chunks at once (None or -1: every core; 1: this thread only)."""
        return self._routed(X, members, n_jobs, None)

    def outputs(self, X: np.ndarray, members: int | None = None, n_jobs: int | None = None) -> np.ndarray:
        """(members, n) each member's prediction: class codes (int) or values (float); ``X`` has no NaN.
        Each chunk's leaves are read in its own thread."""
        return self._routed(np.asarray(X, dtype=float), members, n_jobs, self.leaf_output)

    def _routed(self, X, members, n_jobs, values) -> np.ndarray:
        roots = self.roots[:members]
        n = X.shape[0]
        out = np.empty((roots.size, n), dtype=np.int64 if values is None else values.dtype)
        workers = effective_n_jobs(n_jobs, -(-n // CHUNK))
        # chunks of equal size (at most CHUNK rows), a multiple of the workers: no thread waits on the rest
        n_chunks = -(-n // (CHUNK * workers)) * workers
        bounds = np.linspace(0, n, n_chunks + 1).round().astype(np.int64).tolist()
        spans = [(a, b) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
        if workers <= 1:
            for span in spans:
                self._route_chunk(X, roots, span, out, values)
        else:
            with ThreadPoolExecutor(workers) as pool:
                for _ in pool.map(lambda span: self._route_chunk(X, roots, span, out, values), spans):
                    pass
        return out

    def _route_chunk(self, X, roots, span, out, values=None) -> None:
        """Route rows ``start:stop`` (``span``) through every member into ``out[:, start:stop]``: the leaves'
        slots, or their ``values``."""
        feature, threshold, first, leaf = self.feature, self.threshold, self.first, self.leaf
        start, stop = span
        part = X[start:stop]
        c, M = part.shape[0], roots.size
        XT = np.ascontiguousarray(part.T).ravel()
        offsets = feature * c
        reached = np.repeat(roots, c)
        cur, row, pos = reached.copy(), np.tile(np.arange(c), M), np.arange(M * c)
        while cur.size:
            for _ in range(LEVELS_PER_SWEEP):
                cur = first[cur] + (XT[offsets[cur] + row] > threshold[cur])
            done = leaf[cur]
            reached[pos[done]] = cur[done]
            keep = ~done
            cur, row, pos = cur[keep], row[keep], pos[keep]
        out[:, start:start + c] = (reached if values is None else values[reached]).reshape(M, c)


__all__ = ["StackedForest", "CHUNK"]
