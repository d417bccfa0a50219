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

:func:`plan_view` decides which nodes a view of the tree draws so that it fits a budget in CSS pixels at a
font size (focus + context: the biggest subtrees below the focus first, the rest as "+k nodes" boxes).
"""

from __future__ import annotations

import heapq
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from engine.viz.tree_labels import LINE_CHARS, BoxSize, box_size

__all__ = ["tidy_layout", "plan_view", "ViewPlan", "subtree_sizes", "trail_to", "MAX_BOXES"]


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


# ------------------------------------------------------------------------------ the view planner
# A view is planned in CSS pixels so that what is drawn is readable by construction: every box is as wide
# as its longest line of text at the font (lines are cut to fit), a branch label is never wider than the
# space between two sibling boxes, and only as many levels and columns are drawn as fit the budget.
MAX_BOXES = 260       # a view never draws more boxes than this (the figure of 200 boxes takes tens of ms)
EXACT_CHECKS = 24     # tidy layouts tried when the column count alone says "too wide"
_SIZES: "OrderedDict[tuple, np.ndarray]" = OrderedDict()  # subtree sizes per tree fingerprint (immutable)


@dataclass(frozen=True, repr=False)
class ViewPlan:
    """What one view of a tree draws, where (box centres ``x``, box tops ``top``, px from the top-left).

    ``items[i] = (node id, kind)``, kind 0 a node's box, 1 a ``+k nodes`` box for the subtree below that
    node (``hidden[i]`` nodes); ``children[i]``: item indices below item i; ``trail``: root .. focus.
    ``width``/``height``: the figure's axes in px (the budget, or more if the focus alone needs more).
    """

    focus: int
    trail: tuple[int, ...]
    items: tuple[tuple[int, int], ...]
    children: tuple[tuple[int, ...], ...]
    hidden: tuple[int, ...]
    x: np.ndarray
    top: np.ndarray
    level: np.ndarray
    size: BoxSize
    width: float
    height: float
    focus_nodes: int

    @property
    def expanded(self) -> frozenset:
        """Node ids whose children are drawn."""
        return frozenset(self.items[i][0] for i, kids in enumerate(self.children)
                         if kids and self.items[kids[0]][1] == 0)

    @property
    def drawn(self) -> frozenset:
        """Node ids drawn as their own box."""
        return frozenset(nid for nid, kind in self.items if kind == 0)

    def __repr__(self) -> str:
        folds = sum(1 for _, k in self.items if k == 1)
        return (f"ViewPlan(focus={self.focus}, boxes={len(self.items) - folds}, folds={folds}, "
                f"levels={int(self.level.max()) + 1 if len(self.level) else 0}, {self.width:.0f}x{self.height:.0f}px, "
                f"font={self.size.font:g}px)")


def subtree_sizes(tree) -> np.ndarray:
    """``sizes[id]``: nodes in the subtree of node ``id`` (itself included); 0 for ids not in the tree.
    One O(n) walk per tree, remembered per fingerprint (trees are immutable), so a click costs O(boxes)."""
    key = (tree.fingerprint, len(tree.nodes))
    got = _SIZES.get(key)
    if got is not None:
        _SIZES.move_to_end(key)
        return got
    order = [(n.id, n.parent) for n in tree.walk()]
    sizes = np.zeros(len(tree.nodes), dtype=np.int64)
    for nid, parent in reversed(order):
        sizes[nid] += 1
        if parent is not None:
            sizes[parent] += sizes[nid]
    _SIZES[key] = sizes
    while len(_SIZES) > 16:
        _SIZES.popitem(last=False)
    return sizes


def trail_to(tree, node_id: int) -> tuple[int, ...]:
    """Node ids from the root down to ``node_id``."""
    out, nid = [], node_id
    while nid is not None:
        out.append(nid)
        nid = tree.nodes[nid].parent
    return tuple(reversed(out))


MAX_LINE_CHARS = 24  # a roomy plan's widest line of a name (two lines hold 48 characters)


def plan_view(tree, *, focus: int = 0, width: float, height: float, font: float = 11, compact: bool = False,
              show_ids: bool = True, fold=(), prefer=(), max_boxes: int = MAX_BOXES, roomy: bool = False,
              name_chars: int = LINE_CHARS) -> ViewPlan:
    """Which nodes to draw below ``focus`` so that the view fits ``width`` x ``height`` CSS px at ``font``.

    Degree of interest: starting from the focus (always opened), the biggest drawn subtree is opened next,
    while its children fit the width (one column per box at the bottom of the view, or the tidy layout's
    exact width), the levels fit the height and at most ``max_boxes`` boxes are drawn; a subtree that is
    not opened is one ``+k nodes`` box below its node. ``fold``: node ids never opened (folded by hand);
    ``prefer``: node ids opened before any other (a selected node's path, so that it is drawn if it fits).
    Costs O(boxes drawn) once :func:`subtree_sizes` is known for the tree.

    ``name_chars``: characters a line of a name holds (the boxes' width). ``roomy``: where the view leaves room
    to spare, the boxes widen to hold whole names (up to :data:`MAX_LINE_CHARS` a line) as long as every node
    the :data:`LINE_CHARS` plan draws is still drawn and the view still fits (a few more plans, bisected).
    """
    kw = dict(focus=focus, width=width, height=height, font=font, compact=compact, show_ids=show_ids, fold=fold,
              prefer=prefer, max_boxes=max_boxes)
    if roomy:
        return _roomy(tree, plan_view(tree, name_chars=name_chars, **kw), kw)
    nodes = tree.nodes
    focus = int(focus) if 0 <= int(focus) < len(nodes) and nodes[int(focus)] is not None else 0
    sizes = subtree_sizes(tree)
    size = box_size(tree, font=font, compact=compact, show_ids=show_ids, name_chars=name_chars)
    margin = size.gap_x
    max_cols = max(1, int((width - 2 * margin + size.gap_x) // size.pitch))
    max_levels = max(1, int((height - size.gap_x) // size.level_h))
    never = {int(i) for i in fold} - {focus}
    level = {focus: 0}
    opened: set[int] = set()
    cols, deepest, boxes = 1, 0, 1  # bottom items, deepest level used, items drawn

    def bottom_level(nid: int) -> int:
        return level[nid] + (0 if nodes[nid].is_leaf else 1)

    def open_(nid: int) -> None:
        nonlocal cols, deepest, boxes
        opened.add(nid)
        kids = nodes[nid].children
        cols += len(kids) - 1
        boxes += len(kids) + sum(1 for c in kids if not nodes[c].is_leaf) - 1
        for c in kids:
            level[c] = level[nid] + 1
            deepest = max(deepest, bottom_level(c))

    if nodes[focus].is_leaf:
        deepest = 0
    else:
        boxes = 2
        deepest = 1
        open_(focus)
    first = {int(i) for i in prefer}
    heap = [(c not in first, -int(sizes[c]), c) for c in nodes[focus].children if not nodes[c].is_leaf and c not in never]
    heapq.heapify(heap)
    exact_left = EXACT_CHECKS
    while heap:
        nid = heapq.heappop(heap)[-1]
        kids = nodes[nid].children
        new_cols = cols + len(kids) - 1
        new_boxes = boxes + len(kids) + sum(1 for c in kids if not nodes[c].is_leaf) - 1
        new_deep = max(deepest, level[nid] + 1 + (1 if any(not nodes[c].is_leaf for c in kids) else 0))
        if new_deep + 1 > max_levels or new_boxes > max_boxes:
            continue
        if new_cols > max_cols:
            if exact_left <= 0:
                continue
            exact_left -= 1
            _, ch, _ = _items(tree, focus, opened | {nid}, sizes)
            if tidy_layout(ch)[0].max() + 1 > max_cols:
                continue
        open_(nid)
        for c in kids:
            if not nodes[c].is_leaf and c not in never:
                heapq.heappush(heap, (c not in first, -int(sizes[c]), c))
    items, children, hidden = _items(tree, focus, opened, sizes)
    x, depth = tidy_layout(children)
    used_w = float(x.max()) * size.pitch + size.box_w + 2 * margin
    used_h = (int(depth.max()) + 1) * size.level_h + size.gap_x
    w, h = max(float(width), used_w), max(float(height), used_h)
    left = (w - used_w) / 2 + margin + size.box_w / 2
    return ViewPlan(focus=focus, trail=trail_to(tree, focus), items=tuple(items),
                    children=tuple(tuple(c) for c in children), hidden=tuple(hidden), x=left + x * size.pitch,
                    top=size.gap_x / 2 + depth * size.level_h + size.label_h, level=depth, size=size, width=w,
                    height=h, focus_nodes=int(sizes[focus]))


def _roomy(tree, base: ViewPlan, kw: dict) -> ViewPlan:
    """The plan with the widest boxes (names up to :data:`MAX_LINE_CHARS` a line) that draws every node ``base``
    draws within ``base``'s width and height (bisected over the characters a line holds)."""
    if base.width > kw["width"] or base.height > kw["height"]:  # no room to spare
        return base
    schema = tree.schema
    names = list(schema.feature_names) + ([] if tree.task == "regression" else [str(c) for c in schema.classes])
    longest = min(MAX_LINE_CHARS, max([len(str(n)) for n in names] + [0]))
    lo, hi, best = base.size.chars + 1, longest, base
    drawn = base.drawn
    while lo <= hi:
        mid = (lo + hi) // 2
        plan = plan_view(tree, name_chars=mid, **kw)
        if plan.width <= base.width and plan.height <= base.height and drawn <= plan.drawn:
            lo, best = mid + 1, plan
        else:
            hi = mid - 1
    return best


def _items(tree, focus, opened, sizes):
    """Pre-order items of a view: each drawn node, and a ``+k nodes`` item below each unopened inner node."""
    nodes = tree.nodes
    items, children, hidden = [], [], []
    stack = [(focus, -1)]
    while stack:
        nid, parent = stack.pop()
        i = len(items)
        items.append((nid, 0))
        children.append([])
        hidden.append(0)
        if parent >= 0:
            children[parent].append(i)
        node = nodes[nid]
        if node.is_leaf:
            continue
        if nid not in opened:
            items.append((nid, 1))
            children.append([])
            hidden.append(int(sizes[nid]) - 1)
            children[i].append(i + 1)
            continue
        stack.extend((c, i) for c in reversed(node.children))
    return items, children, hidden
