"""The tree as an interactive Plotly figure, planned in pixels so that every box drawn is readable.

What is drawn (:func:`engine.viz.tree_layout.plan_view` decides which nodes, and where):

- a view of the tree below a *focus* node (the root by default): the biggest subtrees are opened first
  while the boxes fit the width and the levels the height at the font (11 px, presenter 16 px); every
  other subtree is one ``+k nodes`` box that shows its count. A click on a ``+k`` box makes that node the
  focus (the page keeps it; see :mod:`ui.tree_view`).
- every node is one bar of the ``nodes`` trace (in pixel units: the axes are the planned width and
  height in CSS px, and cannot be zoomed out beyond them) whose ``customdata`` row is ``[node id, 0]``;
  a ``+k nodes`` box's row is ``[id of the node it hangs below, 1]``. :func:`clicked_node` reads a click.
- inside a box (the ``box text`` trace, text in fixed pixels): ``#id`` and ``n``, the feature tested or
  the predicted class or value of a leaf, and the impurity (not with ``compact``), each line cut to fit
  the box (:func:`engine.viz.tree_labels.fit`), never hidden; at its foot a stacked bar of the class
  shares (at most :data:`SHARE_CLASSES` segments: past that the smallest classes are one grey "other
  classes" segment; regression: the mean against the target's range).
- above each child box its branch label says what the parent tests (``≤ 2.45``, ``∈ {Thur, Fri}``), no
  wider than the space between two boxes; branches are lines whose width grows with the share of the
  training weight flowing through them (``1 + 8 * share`` px).
- fills come from :mod:`engine.viz.palette`; the last split's node gets a thick black outline, a query
  point's path magenta boxes and branches, the selected node a thick blue outline, open leaves are
  hatched, ``marked`` subtrees (a pruning preview) are grey.
- ``unknown_inner``: a model file that keeps no row counts or shares for its inner nodes (ONNX, read without
  its CSV): the inner boxes are drawn neutral (no share bar, no ``w=``, a hover with the test and no shares),
  a leaf without row counts shows no ``n=`` (its hover gives the file's shares), and every branch is thin,
  rather than showing numbers the file does not hold.

The axes' ranges depend only on the planned width and height (not on the tree), so with a constant
``uirevision`` Plotly keeps the user's zoom and pan across reruns. Every label and hover text is user
text escaped for Plotly (:func:`engine.viz.text.escape`).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from engine.viz import palette
from engine.split.wording import plural
from engine.viz.regions import TEMPLATE, new_figure
from engine.viz.text import escape
from engine.viz.tree_labels import (FONT_FAMILY, box_lines, branch_label, fill_of, fit, hover_lines, hover_text,
                                    short)
from engine.viz.tree_layout import plan_view

__all__ = ["tree_figure", "clicked_node", "box_outline", "FOLD", "NODE", "FONT_PX", "WIDTH", "HEIGHT"]

NODE, FOLD = 0, 1  # second column of customdata: a node's box, or a folded subtree's "+k nodes" box
#: px above the plot kept free for Plotly's mode bar (it draws over the plot's top right corner, and sat on the
#: root box of a narrow diagram such as Prune's before/after, or of a zoomed one); the planner's height is
#: the chart's minus this strip (ui.tree_view.plan_for)
MODEBAR_PX = 28
VALIDATE_BELOW = 400  # Plotly validates the figures of fewer boxes (a big one: ~0.1 ms a box, so not)
FONT_PX = {False: 11, True: 16}  # normal, presenter
WIDTH, HEIGHT = 640, 640  # default budget in CSS px
GREY_FILL, GREY_TEXT, FOLD_FILL, TEXT = "#EEEEEE", "#757575", "#FAFAFA", "#1A1A1A"
SELECTED = "#1F5FA8"  # the app's primary colour: the node the inspector shows
SHARE_CLASSES, OTHER_FILL = 12, "#BDBDBD"  # class-share bars: at most 12 segments, the smallest classes in grey


def _grey_ids(tree, marked) -> tuple[set, set]:
    grey, tops = set(), set()
    for m in marked:
        m = int(m)
        if 0 <= m < len(tree.nodes) and tree.nodes[m] is not None:
            grey.update(tree.subtree_ids(m))
            tops.add(m)
    return grey, {m for m in tops if tree.nodes[m].parent not in grey}


def tree_figure(tree, *, focus=0, width=WIDTH, height=HEIGHT, fit_height=False, fold=(), plan=None,
                highlight=None, path=None, selected=None, open_nodes=None, marked=(), marked_label="pruned",
                compact=False, show_ids=True, big=False, uirevision="tree", title=None, unknown_inner=False):
    """The view of ``tree`` below ``focus`` as a ``plotly.graph_objects.Figure`` (see the module docstring).

    width, height: the budget in CSS px (the chart must get at least ``width``: its x axis spans it; the boxes
    are planned for ``height`` minus the mode bar's strip :data:`MODEBAR_PX`, kept free above them);
    fit_height: the figure only as tall as the levels drawn (else ``height``, which keeps the axes, and so
    the user's zoom, the same across Steps). fold: node ids never opened. plan: a
    :class:`~engine.viz.tree_layout.ViewPlan` made already (the other sizing arguments are then unused).
    highlight: the node the last step split (thick black outline). path: node ids of a query point's path
    (magenta). selected: the node the inspector shows (thick blue outline). open_nodes: ids of the open
    leaves (default: leaves without a stop reason). marked: subtrees greyed with ``marked_label`` on their
    top (pruning preview). compact: no impurity line. big: presenter sizes (16 px text). unknown_inner: the
    inner nodes' shares and weights are not known (drawn neutral, see the module docstring).
    """
    font = FONT_PX[big]
    if plan is None:
        plan = plan_view(tree, focus=focus, width=width, height=height - MODEBAR_PX, font=font, compact=compact or big,
                         show_ids=show_ids, fold=fold)
    size = plan.size
    items, x, top = plan.items, plan.x, plan.top
    n_items = len(items)
    nodes = tree.nodes
    open_ids = ({nid for nid, kind in items if kind == NODE and nodes[nid].is_leaf and nodes[nid].stop_reason is None}
                if open_nodes is None else {int(i) for i in open_nodes})  # only the drawn ones: O(boxes)
    path_ids = set() if path is None else {int(i) for i in path}
    grey, grey_tops = _grey_ids(tree, marked)
    blank = {nid for nid, kind in items if kind == NODE and not nodes[nid].is_leaf} if unknown_inner else set()
    regression = tree.task == "regression"
    uncounted = {nid for nid, kind in items if kind == NODE and nodes[nid].is_leaf and nodes[nid].n_node_samples == 0
                 and not nodes[nid].weight > 0} if unknown_inner and not regression else set()
    classes = tree.schema.classes
    vmin = vmax = 0.0
    if regression:
        vals = np.array([float(nodes[nid].value[0]) for nid, _ in items])
        root_v = float(tree.root.value[0])
        vmin, vmax = min(float(vals.min()), root_v), max(float(vals.max()), root_v)
    names = [escape(short(c, 20)) for c in classes] if not regression else []
    fills: dict = {}
    inner_w = size.box_w - 2 * size.pad
    fill, line_c, line_w, pattern, text, text_c, hover, height_of = ([None] * n_items for _ in range(8))
    for i, (nid, kind) in enumerate(items):
        node = nodes[nid]
        line_c[i], line_w[i], pattern[i], text_c[i], height_of[i] = palette.BORDER, 1.0, "", TEXT, size.box_h
        if kind == FOLD:
            k = plan.hidden[i]
            fill[i], text_c[i], height_of[i] = FOLD_FILL, "#444444", size.line_h + 2 * size.pad
            cut = nid in grey or all(c in grey for c in node.children)  # everything it stands for is marked
            what = str(marked_label) if cut else ("node" if k == 1 else "nodes")
            text[i] = escape(fit(f"+{k:,} {what}", inner_w, font))
            hover[i] = (f"{plural(k, 'node')} below #{nid}{' (' + escape(marked_label) + ')' if cut else ''}"
                        "<br>click to show them")
            if nid in path_ids and any(c in path_ids for c in node.children):
                line_c[i], line_w[i] = palette.PATH, 3.0
            if cut:
                fill[i], text_c[i], line_c[i] = GREY_FILL, GREY_TEXT, palette.MUTED
            continue
        lines = box_lines(tree, node, compact=compact or big, show_ids=show_ids, open_ids=open_ids,
                          chars=size.chars)[: size.lines]
        if node.id in grey_tops:
            lines = lines[: size.lines - 1] + [str(marked_label)]
        if node.id in blank or node.id in uncounted:  # no made-up count or weight: the id alone on the first line
            lines[0] = f"#{node.id}" if show_ids else ""
        text[i] = "<br>".join(escape(fit(s, inner_w, font)) for s in lines)
        hover[i] = (_unknown_hover(tree, node, names) if node.id in blank or node.id in uncounted
                    else hover_text(tree, node, open_ids, names))
        if not node.is_leaf:
            fill[i] = palette.INTERNAL_FILL
        elif node.id in open_ids:
            fill[i], pattern[i] = palette.OPEN, "/"
        elif regression:
            fill[i] = palette.tint(palette.value_color(node.value[0], vmin, vmax), 0.55)
        else:
            fill[i] = fill_of(node.value, classes, fills)
        if node.id in grey:
            fill[i], text_c[i], line_c[i] = GREY_FILL, GREY_TEXT, palette.MUTED
        if node.id in path_ids:
            line_c[i], line_w[i] = palette.PATH, 3.0
        if highlight is not None and node.id == highlight:
            line_c[i], line_w[i] = palette.HIGHLIGHT, 3.5
        if selected is not None and node.id == selected:
            line_c[i], line_w[i] = SELECTED, 4.0
    h = np.asarray(height_of, dtype=float)
    custom = np.array([[nid, kind] for nid, kind in items], dtype=np.int64).reshape(-1, 2)
    text_y = np.where(custom[:, 1] == FOLD, -(top + h / 2), -(top + (h - size.strip_h) / 2))
    parent = np.full(n_items, -1)
    for i, kids in enumerate(plan.children):
        parent[list(kids)] = i
    traces = _edge_traces(tree, plan, parent, path_ids, grey, h, weights=not unknown_inner)
    traces.append(dict(
        type="bar", name="nodes", x=x, base=-(top + h), y=h, width=size.box_w, customdata=custom,
        marker=dict(color=fill, line=dict(color=line_c, width=line_w),
                    # overlay on the fill: in "replace" mode Plotly reads the per-box fill list as one colour
                    # and warns "Invalid color specifier" in the browser console
                    pattern=dict(shape=pattern, fgcolor="#BDBDBD", fgopacity=0.5, size=7, solidity=0.15,
                                 fillmode="overlay", bgcolor="rgba(0,0,0,0)")),
        hovertext=hover, hovertemplate="%{hovertext}<extra></extra>",
        selected=dict(marker=dict(opacity=1)), unselected=dict(marker=dict(opacity=1))))
    traces += _share_traces(tree, plan, grey, vmin, vmax, blank)
    traces.append(dict(type="scatter", name="box text", x=x, y=text_y, mode="text", text=text,
                       textposition="middle center", textfont=dict(size=font, color=text_c, family=FONT_FAMILY),
                       customdata=custom, hovertext=hover, hovertemplate="%{hovertext}<extra></extra>",
                       cliponaxis=True,
                       # a click selects a box (clickmode "event+select") and Plotly dims the text of every other
                       # point to a fifth unless the trace names a selected text colour; a page that keeps the chart
                       # after a click (the Grow page) would keep the other boxes dimmed
                       selected=dict(textfont=dict(color=TEXT))))
    traces.append(_branch_labels(tree, plan, parent, font))
    fig_h = float(plan.height)
    if fit_height:
        fig_h = min(fig_h, (int(plan.level.max()) + 1) * size.level_h + size.gap_x)
    top_margin = max(int(font * 2.2) if title else 0, MODEBAR_PX)
    layout = dict(
        height=int(np.ceil(fig_h)) + top_margin, margin=dict(l=0, r=0, t=top_margin, b=0), showlegend=False,
        barmode="overlay", dragmode="pan", hovermode="closest", clickmode="event+select", uirevision=uirevision,
        font=dict(size=font, family=FONT_FAMILY), hoverlabel=dict(font=dict(size=13), align="left", bgcolor="white"),
        xaxis=dict(visible=False, range=[0, plan.width], minallowed=0, maxallowed=plan.width, zeroline=False),
        yaxis=dict(visible=False, range=[-fig_h, 0], minallowed=-fig_h, maxallowed=0, zeroline=False),
        meta=dict(boxes=n_items, focus=plan.focus, font=font, box_w=size.box_w, box_h=size.box_h,
                  plan_width=plan.width, plan_height=fig_h, trail=list(plan.trail)),
        plot_bgcolor="white", paper_bgcolor="white")
    if title:
        layout["title"] = dict(text=escape(title), x=0.01, font=dict(size=font + 2))
    if n_items < VALIDATE_BELOW:
        return new_figure(*traces, layout=layout)
    fig = go.Figure(data=traces, layout=layout, _validate=False)  # built here from known keys: skip the checks
    fig.layout.template = pio.templates[TEMPLATE]
    return fig


def _unknown_hover(tree, node, names) -> str:
    """The hover of a node the file holds no row counts for: an inner node's branch and test only (its shares
    are unknown), a leaf's class and the shares the file gives it (``names``: the escaped class names)."""
    lines = [f"branch: {escape(branch_label(tree, node)[1])}"] if node.parent is not None and node.branch else []
    if not node.is_leaf:
        return "<br>".join(lines + [f"#{node.id}  {escape(node.split.describe())}",
                                    "class shares and weight: not in the file (no row counts)"])
    lines.append(f"#{node.id}  class = {escape(node.prediction)}")
    if len(names) <= 6:
        lines.append("shares: " + ", ".join(f"{c} {float(v):.3f}" for c, v in zip(names, node.value)))
    return "<br>".join(lines + ["rows: not in the file (no row counts)"])


def _edge_traces(tree, plan, parent, path_ids, grey, h, weights=True) -> list[dict]:
    """Branches as line traces from a parent's foot to the top of its child's label (one trace per width);
    ``weights=False``: the nodes' weights are unknown, every branch is as thin as an empty one."""
    groups: dict = {}
    nodes, items, x, top, size = tree.nodes, plan.items, plan.x, plan.top, plan.size
    root_w = (float(nodes[plan.focus].weight) or 1.0) if weights else float("inf")
    for i, (nid, kind) in enumerate(items):
        p = parent[i]
        if p < 0:
            continue
        node = nodes[nid]
        if kind == FOLD:
            style = ("path", 4) if nid in path_ids and any(c in path_ids for c in node.children) else ("fold", 1)
        elif nid in grey:
            style = ("grey", 1)
        elif nid in path_ids and items[p][0] in path_ids:
            style = ("path", 1 + int(round(8 * node.weight / root_w)) + 2)
        else:
            style = ("plain", 1 + int(round(8 * min(node.weight / root_w, 1.0))))
        end = top[i] if kind == FOLD else top[i] - size.label_h
        groups.setdefault(style, []).append((x[p], -(top[p] + h[p]), x[i], -end))
    traces = []
    colours = {"path": palette.PATH, "grey": palette.MUTED, "fold": "#9E9E9E", "plain": "#8A8A8A"}
    for (kind, width), segs in sorted(groups.items(), key=lambda kv: (kv[0][0] == "path", kv[0][1])):
        seg = np.array(segs)
        xs = np.column_stack([seg[:, 0], seg[:, 2], np.full(len(seg), np.nan)]).ravel()
        ys = np.column_stack([seg[:, 1], seg[:, 3], np.full(len(seg), np.nan)]).ravel()
        line = dict(color=colours[kind], width=width)
        if kind in ("grey", "fold"):
            line["dash"] = "dot"
        traces.append(dict(type="scatter", x=xs, y=ys, mode="lines", line=line, hoverinfo="skip",
                           name=f"branches {kind}"))
    return traces


def _share_traces(tree, plan, grey, vmin, vmax, blank=frozenset()) -> list[dict]:
    """The stacked class-share bar at the foot of each node's box (regression: mean in the range); none for
    the nodes in ``blank`` (their shares are unknown)."""
    size = plan.size
    idx = np.array([i for i, (nid, kind) in enumerate(plan.items) if kind == NODE and nid not in blank],
                   dtype=np.int64)
    if idx.size == 0:
        return []
    nodes = [tree.nodes[plan.items[i][0]] for i in idx]
    inner = size.box_w - 2 * size.pad
    left = plan.x[idx] - inner / 2
    base = -(plan.top[idx] + size.box_h - size.pad / 2)
    custom = np.column_stack([[n.id for n in nodes], np.zeros(len(nodes), dtype=np.int64)])
    common = dict(type="bar", base=base, y=np.full(len(idx), size.strip_h), customdata=custom, hoverinfo="skip",
                  marker_line_width=0, selected=dict(marker=dict(opacity=1)), unselected=dict(marker=dict(opacity=1)))
    muted = np.array([n.id in grey for n in nodes], dtype=bool)
    if tree.task == "regression":
        means = np.array([float(n.value[0]) for n in nodes])
        span = vmax - vmin
        frac = np.clip((means - vmin) / span, 0.0, 1.0) if span > 0 else np.full(len(nodes), 0.5)
        colors = [palette.MUTED if m else palette.value_color(v, vmin, vmax) for v, m in zip(means, muted)]
        return [dict(common, name="range", x=plan.x[idx], width=inner, marker_color="#E0E0E0"),
                dict(common, name="mean", x=left + frac * inner / 2, width=np.maximum(frac * inner, 1e-3),
                     marker_color=colors)]
    stats = np.array([n.stats for n in nodes], dtype=float).reshape(len(nodes), -1)
    uncounted = stats.sum(axis=1) <= 0  # a model file's leaf without row counts (ONNX): its shares are its value
    if uncounted.any() and stats.shape[1] == len(tree.schema.classes):
        stats[uncounted] = np.array([nodes[k].value for k in np.flatnonzero(uncounted)], dtype=float)
    total = stats.sum(axis=1, keepdims=True)
    shares = np.divide(stats, total, out=np.zeros_like(stats), where=total > 0)
    # one trace per class that some drawn box holds; past SHARE_CLASSES of them (an id-like target of 1,000
    # classes made 1,000 traces: 1.4 s to build and a slow page), the biggest keep their colours and the
    # rest is one grey "other classes" segment at the end of each bar
    present = np.flatnonzero(shares.sum(axis=0) > 0)
    if len(present) > SHARE_CLASSES:
        present = np.sort(present[np.argsort(-shares[:, present].sum(axis=0), kind="stable")[:SHARE_CLASSES - 1]])
    cols = [shares[:, k] for k in present]
    names = [f"class {escape(tree.schema.classes[k])}" for k in present]
    fills = [palette.color_at(int(k)) for k in present]
    rest = 1.0 - np.sum(cols, axis=0) if cols else np.ones(len(nodes))
    if len(present) < shares.shape[1] and np.any(rest > 1e-12):
        cols.append(np.clip(rest, 0.0, 1.0))
        names.append("other classes")
        fills.append(OTHER_FILL)
    start = np.cumsum(cols, axis=0) - cols if cols else []
    traces = []
    for share, begin, name, fill in zip(cols, start, names, fills):
        colors = np.where(muted, palette.MUTED, fill)
        traces.append(dict(common, name=name, x=left + (begin + share / 2) * inner, width=share * inner,
                           marker_color=colors.tolist()))
    return traces


def _branch_labels(tree, plan, parent, font) -> dict:
    """What the parent tests, above each child's box, cut to the room it has (hover: in full)."""
    size = plan.size
    rows = [i for i, p in enumerate(parent) if p >= 0 and plan.items[i][1] == NODE]
    rooms = label_rooms(plan, rows)
    labels = [branch_label(tree, tree.nodes[plan.items[i][0]], room, font) for i, room in zip(rows, rooms)]
    ids = [plan.items[i][0] for i in rows]
    return dict(type="scatter", name="branches", mode="text", x=plan.x[rows] if rows else [],
                y=-(plan.top[rows] - size.label_h / 2) if rows else [],
                text=[escape(fit(s, room, font)) for (s, _), room in zip(labels, rooms)],
                textposition="middle center", textfont=dict(size=font, color="#333333", family=FONT_FAMILY),
                customdata=np.column_stack([ids, np.zeros(len(ids), dtype=np.int64)]) if ids else None,
                hovertext=[hover_lines(full) for _, full in labels], hovertemplate="%{hovertext}<extra></extra>",
                selected=dict(textfont=dict(color="#333333")))  # not dimmed after a click (see "box text")


def label_rooms(plan, rows) -> np.ndarray:
    """Width in CSS px each branch label of ``rows`` (item indices) may take, centred on its box: up to
    the middle of the way to the next label on its level (at least the space between two boxes) and
    never past the figure's edges, so neighbouring labels never overlap."""
    size = plan.size
    least = size.pitch - max(4.0, size.gap_x / 2)
    if not rows:
        return np.zeros(0)
    x = np.asarray(plan.x, dtype=float)[rows]
    top = np.round(np.asarray(plan.top, dtype=float)[rows], 3)
    half = np.minimum(x, float(plan.width) - x)  # to the edges
    for level in np.unique(top):
        idx = np.flatnonzero(top == level)
        idx = idx[np.argsort(x[idx], kind="stable")]
        gaps = np.diff(x[idx]) / 2 - max(2.0, size.gap_x / 4)
        half[idx[:-1]] = np.minimum(half[idx[:-1]], gaps)
        half[idx[1:]] = np.minimum(half[idx[1:]], gaps)
    return np.maximum(2 * half, least)


def box_outline(plan, node_id, *, color: str = SELECTED, width: float = 4.0, name: str = "selected box") -> list[dict]:
    """The outline :func:`tree_figure` draws round a ``selected`` box, as one Plotly layout shape (a rectangle on
    the box's edge, in the figure's axis units) for the drawn node ``node_id`` of ``plan``; ``[]`` when the plan
    does not draw it. A page draws it onto a chart the browser already shows (``ui.charts.overlay_shapes``), so
    a click that only selects another box does not send or redraw the figure."""
    if node_id is None:
        return []
    hit = [i for i, item in enumerate(plan.items) if item == (int(node_id), NODE)]
    if not hit:
        return []
    i, size = hit[0], plan.size
    x, top = float(plan.x[i]), float(plan.top[i])
    return [dict(type="rect", name=name, xref="x", yref="y", x0=round(x - size.box_w / 2, 2),
                 x1=round(x + size.box_w / 2, 2), y0=round(-(top + size.box_h), 2), y1=round(-top, 2),
                 line=dict(color=color, width=width), fillcolor="rgba(0,0,0,0)", layer="above")]


def clicked_node(event) -> tuple[int, int] | None:
    """``(node id, NODE or FOLD)`` of the first clicked box in a ``st.plotly_chart`` selection event.

    ``event`` is what ``st.plotly_chart(on_select=...)`` returns or keeps under its key:
    ``{"selection": {"points": [{"customdata": [id, kind], ...}]}}``; Streamlit 1.67 sends a row of
    2-D customdata as ``{"0": id, "1": kind}``. Points without a node (branch lines) are skipped.
    """
    try:
        points = event["selection"]["points"]
    except (KeyError, TypeError, IndexError):
        return None
    for pt in points or ():
        cd = pt.get("customdata") if isinstance(pt, dict) else None
        if isinstance(cd, dict):
            cd = [cd.get("0"), cd.get("1", NODE)]
        if isinstance(cd, (int, float)) and not isinstance(cd, bool):
            cd = [cd, NODE]
        if not isinstance(cd, (list, tuple)) or not cd:
            continue
        nid, kind = cd[0], cd[1] if len(cd) > 1 else NODE
        try:
            nid, kind = int(nid), int(kind)
        except (TypeError, ValueError):
            continue
        if nid >= 0 and kind in (NODE, FOLD):
            return nid, kind
    return None
