"""All members of an ensemble routed together: one stacked node table, rows moved level by level.

:class:`~engine.ensembles.compiled.CompiledTree` routes the rows through one tree at a time, so a
forest of M trees pays M times the per-level numpy overhead. :class:`StackedForest` concatenates the
members' node arrays (``feature`` mapped to the ensemble's columns, ``children`` shifted by each
member's offset) and routes every (member, row) pair at once:

    node <- children[node, x[row, feature[node]] > threshold[node]]

Leaves point to themselves (threshold +inf, so a leaf's test always sends the pair back to it), which lets
a few levels run without checking who has arrived; then the pairs that reached a leaf are set aside.
Rows go in chunks of ``CHUNK`` so the working arrays stay in the processor's cache. The leaf a pair
reaches gives the member's prediction (its class code or mean), so the vote tally and each member's
vote for the breakdown come from this one pass.

It serves members of threshold splits only, binary, on rows without missing values, and members
whose columns are a plain selection of the ensemble's (no category translation): exactly the trees
:class:`CompiledTree` routes without fractional weights. :meth:`StackedForest.build` returns None
otherwise, and rows with a missing value are routed by the members one at a time.
"""

from __future__ import annotations

import numpy as np

from engine.tree.node import first_argmax

#: rows routed together (times the number of members): working arrays of a few MB.
CHUNK = 8192
#: levels moved between two removals of the pairs that reached a leaf.
LEVELS_PER_SWEEP = 4


class StackedForest:
    """The members' node tables as one (see the module docstring); ``outputs(X)`` is (M, n)."""

    def __init__(self, feature, threshold, children, leaf, roots, leaf_output, task):
        self.feature, self.threshold, self.children, self.leaf = feature, threshold, children, leaf
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
            leaf = ct.kind == 0
            size = leaf.size
            safe = np.where(leaf, 0, ct.feature)
            feature = np.where(leaf, 0, safe if adapter.identity else adapter.columns[safe])
            own = np.arange(size)
            children = np.where(leaf[:, None], own[:, None], ct.children) + offset
            values = ct.values_table
            out = first_argmax(values) if task == "classification" else values[:, 0]
            parts.append((feature,
                          np.where(leaf, np.inf, ct.threshold), children, leaf, out))
            roots.append(offset)
            offset += size
        feature, threshold, children, leaf, out = (np.concatenate(p) for p in zip(*parts))
        return cls(feature.astype(np.int64), threshold.astype(float), children.ravel().astype(np.int64),
                   leaf, np.asarray(roots, dtype=np.int64), out, task)

    def leaves(self, X: np.ndarray, members: int | None = None) -> np.ndarray:
        """(members, n) stacked slot of the leaf each of the first ``members`` trees sends each row to."""
        roots = self.roots[:members]
        M, n = roots.size, X.shape[0]
        out = np.empty((M, n), dtype=np.int64)
        feature, threshold, children, leaf = self.feature, self.threshold, self.children, self.leaf
        for start in range(0, n, CHUNK):
            part = X[start:start + CHUNK]
            c = part.shape[0]
            XT = np.ascontiguousarray(part.T).ravel()
            offsets = feature * c
            reached = np.repeat(roots, c)
            cur, row, pos = reached.copy(), np.tile(np.arange(c), M), np.arange(M * c)
            while cur.size:
                for _ in range(LEVELS_PER_SWEEP):
                    cur = children[2 * cur + (XT[offsets[cur] + row] > threshold[cur])]
                done = leaf[cur]
                reached[pos[done]] = cur[done]
                keep = ~done
                cur, row, pos = cur[keep], row[keep], pos[keep]
            out[:, start:start + c] = reached.reshape(M, c)
        return out

    def outputs(self, X: np.ndarray, members: int | None = None) -> np.ndarray:
        """(members, n) each member's prediction: class codes (int) or values (float); ``X`` has no NaN."""
        return self.leaf_output[self.leaves(np.asarray(X, dtype=float), members)]


__all__ = ["StackedForest", "CHUNK"]
