"""A model file's tree walked breadth-first one level per numpy step, with the refusals of a damaged tree.

:func:`walk_levels` visits the nodes the root reaches in the order a queue would (each level's nodes in
the order of their parents, left child before right), which is the order XGBoost and scikit-learn number
their nodes; a level costs a few array operations, so a million-node tree is walked in milliseconds, and
a tree at the depth limit (10,000 levels) in a fraction of a second. What cannot be a tree is refused
with one sentence: a child number out of range, a node reached twice (a cycle or a shared child), a
node with one child, a tree deeper than :data:`~engine.models.checks.MAX_DEPTH`.

:func:`fill_internal` gives the inner nodes a file leaves without a value (XGBoost keeps only the leaves')
the cover-weighted mean of their children's values, level by level from the deepest.
"""

from __future__ import annotations

import numpy as np

from engine.errors import DataError
from engine.models.checks import MAX_DEPTH, MAX_NODES


def walk_levels(left: np.ndarray, right: np.ndarray, root: int = 0, where: str = "a tree"):
    """``(order, parent, levels)``: the node numbers reached from ``root`` in breadth-first order, each
    one's parent's number (-1 for the root) and the order's level boundaries (level ``d`` is
    ``order[levels[d]:levels[d + 1]]``)."""
    n = left.size
    if n == 0 or n > MAX_NODES:
        raise DataError(f"The model file is damaged: {where} has {n:,} nodes "
                        f"(a tree has at least 1 and the explorer opens at most {MAX_NODES:,}).")
    if not 0 <= root < n:
        raise DataError(f"The model file is damaged: {where} has no root node.")
    seen = np.zeros(n, dtype=bool)
    seen[root] = True
    level = np.array([root], dtype=np.int64)
    orders, parents, levels = [level], [np.array([-1], dtype=np.int64)], [0, 1]
    while True:
        lo, hi = left[level], right[level]
        inner = (lo >= 0) | (hi >= 0)
        if not inner.any():
            break
        split = level[inner]
        kids = np.column_stack([lo[inner], hi[inner]]).ravel()        # left, right of each parent in turn
        bad = (kids < 0) | (kids >= n)
        twice = seen[np.where(bad, 0, kids)] & ~bad
        _, first = np.unique(kids, return_index=True)
        if first.size < kids.size:
            again = np.ones(kids.size, dtype=bool)
            again[first] = False
            twice |= again & ~bad
        if bad.any() or twice.any():                    # the first in the walk's order, as a queue meets it
            k = int(np.argmax(bad | twice))
            if bad[k]:
                raise DataError(f"The model file is damaged: node {int(split[k // 2])} of {where} points to a "
                                f"child ({int(kids[k])}) that does not exist.")
            raise DataError(f"The model file is damaged: node {int(kids[k])} of {where} is reached twice "
                            f"(a cycle or a shared child).")
        if len(levels) - 1 > MAX_DEPTH:
            raise DataError(f"{where.capitalize()} is deeper than {MAX_DEPTH:,} levels; the explorer "
                            f"opens trees up to that depth.")
        seen[kids] = True
        orders.append(kids)
        parents.append(np.repeat(split, 2))
        levels.append(levels[-1] + kids.size)
        level = kids
    return np.concatenate(orders), np.concatenate(parents), np.asarray(levels, dtype=np.int64)


def fill_internal(order: np.ndarray, levels: np.ndarray, left, right, values: np.ndarray,
                  weight: np.ndarray) -> None:
    """Internal nodes whose value holds a NaN get the cover-weighted mean of their children's (equal
    weights when both covers are 0), computed bottom-up in place."""
    for d in range(levels.size - 2, -1, -1):
        at = order[levels[d]:levels[d + 1]]
        at = at[(left[at] >= 0) & np.isnan(values[at]).any(axis=1)]
        if not at.size:
            continue
        lo, hi = left[at], right[at]
        wl, wr = weight[lo], weight[hi]
        none = ~(wl + wr > 0)
        wl, wr = np.where(none, 1.0, wl), np.where(none, 1.0, wr)
        values[at] = (wl[:, None] * values[lo] + wr[:, None] * values[hi]) / (wl + wr)[:, None]
