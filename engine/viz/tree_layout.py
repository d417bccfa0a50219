"""A tidy tree layout in linear time: Buchheim, Jünger & Leipert's version of Walker's algorithm.

Reingold & Tilford (1981) draw a tree so that nodes of one depth share a row, no two boxes overlap,
a parent sits centred over its children, and a subtree is drawn the same wherever it occurs. Walker
(1990) extended it to any number of children, spacing the small subtrees between two big ones evenly;
Buchheim, Jünger & Leipert (2002, "Improving Walker's algorithm to run in linear time") made it O(n).
The drawing of a mirrored tree is the mirror image of the drawing.

Two walks, as in the paper:

- ``first walk`` (post-order): each node gets a preliminary x relative to its parent (``prelim``) and a
  ``mod`` to add to its whole subtree; after placing child ``w``, *apportion* walks the right contour of
  the subtrees left of ``w`` against the left contour of ``w``'s subtree (following *threads* where a
  contour ends) and, where they come closer than ``distance``, shifts ``w``'s subtree right; the shift
  is spread over the subtrees in between with the ``shift``/``change`` bookkeeping (executed once per
  parent by *execute shifts*).
- ``second walk`` (pre-order): ``x = prelim + sum of the ancestors' mods``.

The functions take the tree as a list of child lists (``children[i]`` = indices of node i's children,
left to right, root = 0) so the caller decides what a "node" is (the figure adds "+k nodes" boxes).
Both walks are iterative: a tree may be thousands of levels deep.
"""

from __future__ import annotations

import numpy as np

__all__ = ["tidy_layout"]


def tidy_layout(children: list[list[int]], *, distance: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """``(x, depth)`` of every node: centres at least ``distance`` apart within a row, min(x) = 0.

    ``children[i]``: the children of node ``i`` in their left-to-right order; node 0 is the root and
    every other node is reachable from it exactly once.
    """
    n = len(children)
    if n == 0:
        return np.zeros(0), np.zeros(0, dtype=np.int64)
    parent = [-1] * n
    number = [0] * n          # 1-based position among the siblings
    depth = [0] * n
    order = [0]               # pre-order, to set parents and depths
    for v in order:
        for k, w in enumerate(children[v]):
            parent[w] = v
            number[w] = k + 1
            depth[w] = depth[v] + 1
            order.append(w)
    if len(order) != n:
        raise ValueError("Every node must be reachable from the root exactly once.")

    prelim = [0.0] * n
    mod = [0.0] * n
    shift = [0.0] * n
    change = [0.0] * n
    thread = [-1] * n
    ancestor = list(range(n))

    def left_sibling(v: int) -> int:
        return children[parent[v]][number[v] - 2] if number[v] > 1 else -1

    def next_left(v: int) -> int:
        return children[v][0] if children[v] else thread[v]

    def next_right(v: int) -> int:
        return children[v][-1] if children[v] else thread[v]

    def move_subtree(wl: int, wr: int, amount: float) -> None:
        subtrees = number[wr] - number[wl]
        change[wr] -= amount / subtrees
        shift[wr] += amount
        change[wl] += amount / subtrees
        prelim[wr] += amount
        mod[wr] += amount

    def apportion(v: int, default_ancestor: int) -> int:
        w = left_sibling(v)
        if w < 0:
            return default_ancestor
        vir = vor = v
        vil = w
        vol = children[parent[v]][0]
        sir = sor = mod[vir]
        sil = mod[vil]
        sol = mod[vol]
        while next_right(vil) >= 0 and next_left(vir) >= 0:
            vil = next_right(vil)
            vir = next_left(vir)
            vol = next_left(vol)
            vor = next_right(vor)
            ancestor[vor] = v
            gap = (prelim[vil] + sil) - (prelim[vir] + sir) + distance
            if gap > 0:
                a = ancestor[vil]
                move_subtree(a if parent[a] == parent[v] else default_ancestor, v, gap)
                sir += gap
                sor += gap
            sil += mod[vil]
            sir += mod[vir]
            sol += mod[vol]
            sor += mod[vor]
        if next_right(vil) >= 0 and next_right(vor) < 0:
            thread[vor] = next_right(vil)
            mod[vor] += sil - sor
        if next_left(vir) >= 0 and next_left(vol) < 0:
            thread[vol] = next_left(vir)
            mod[vol] += sir - sol
            default_ancestor = v
        return default_ancestor

    def execute_shifts(v: int) -> None:
        s = c = 0.0
        for w in reversed(children[v]):
            prelim[w] += s
            mod[w] += s
            c += change[w]
            s += shift[w] + c

    def place(v: int) -> None:
        """Preliminary x of ``v`` once its children are placed."""
        w = left_sibling(v)
        kids = children[v]
        if not kids:
            prelim[v] = prelim[w] + distance if w >= 0 else 0.0
            return
        execute_shifts(v)
        midpoint = (prelim[kids[0]] + prelim[kids[-1]]) / 2.0
        if w >= 0:
            prelim[v] = prelim[w] + distance
            mod[v] = prelim[v] - midpoint
        else:
            prelim[v] = midpoint

    # first walk, iteratively: a frame is [node, children visited, default ancestor]
    stack = [[0, 0, -1]]
    while stack:
        frame = stack[-1]
        v, i, default_ancestor = frame
        kids = children[v]
        if i == 0 and kids:
            default_ancestor = kids[0]
        elif i > 0:  # child i-1 has just been placed
            default_ancestor = apportion(kids[i - 1], default_ancestor)
        if i < len(kids):
            frame[1], frame[2] = i + 1, default_ancestor
            stack.append([kids[i], 0, -1])
            continue
        place(v)
        stack.pop()

    # second walk
    x = np.zeros(n)
    offset = [0.0] * n
    for v in order:  # pre-order: a parent's offset is known before its children's
        x[v] = prelim[v] + offset[v]
        for w in children[v]:
            offset[w] = offset[v] + mod[v]
    x -= x.min()
    return x, np.asarray(depth, dtype=np.int64)
