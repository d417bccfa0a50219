"""The tree as an interactive Plotly figure: a tidy layout, one clickable box per node, zoom and pan.

What is drawn (see :mod:`engine.viz.tree_layout` for where):

- every node is one bar of the ``nodes`` trace (a box in data units, so zooming in enlarges it) whose
  ``customdata`` row is ``[node id, 0]``; a folded subtree is one ``+k nodes`` box whose row is
  ``[id of the folded node, 1]``. :func:`clicked_node` reads a click back.
- inside a box: ``#id`` and ``n``, the feature tested (the test's value sits on the branches) or the
  predicted class or value of a leaf, and the impurity (not with ``compact``), in short lines; at its
  foot a stacked bar of the class shares (regression: the mean against the target's range).
- text is one pixel size everywhere (``uniformtext`` with ``mode="hide"``): a label that does not fit
  its box at the current zoom is hidden, never shrunk; zooming in makes boxes larger until it fits.
- branches are straight lines whose width grows with the share of the training weight flowing
  through them (``1 + 8 * share`` pixels, rounded, one line trace per width), labelled with the test's
  outcome (``<= 2.45``, ``Sunny``).
- fills come from :mod:`engine.viz.palette` (majority class tinted by purity, Cividis for regression);
  the last split's node gets a thick black outline, a query point's path magenta boxes and branches,
  the selected node a thick blue outline, open leaves are hatched, ``marked`` subtrees (a pruning
  preview) are grey.
- above :data:`GL_BOXES` boxes the nodes become WebGL square markers without text (hover still tells
  everything); pages fold deep levels instead so that a few hundred boxes are drawn.

Every label and hover text is user text escaped for Plotly (:func:`engine.viz.regions.escape`).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from engine.viz import palette
from engine.viz.regions import TEMPLATE, escape, new_figure
from engine.viz.tree_labels import box_text, fill_of, hover_text, short, short_branch
from engine.viz.tree_layout import tidy_layout

__all__ = ["tree_figure", "clicked_node", "visible_items", "GL_BOXES", "FOLD", "NODE"]

NODE, FOLD = 0, 1  # second column of customdata: a node's box, or a folded subtree's "+k nodes" box
GL_BOXES = 1500  # more boxes than this: WebGL markers without text
VALIDATE_BELOW = 400  # Plotly validates the figures of fewer boxes (a big one: ~0.1 ms a box, so not)
BOX_W, BOX_H = 0.92, 0.6  # box size in layout units (siblings 1 apart, levels 1 apart)
STRIP_H = 0.085  # the class-share bar at a box's foot
LABEL_W, LABEL_H, LABEL_AT = 0.7, 0.2, 0.72  # branch labels (no background), 72% of the way to the child:
# siblings 1 apart put theirs 0.72 apart, so labels never overlap (a longer one shows when zoomed in)
LABEL_GAP = 0.065  # half the height of the break in a branch's line around its label's text
LEVEL_PX = {False: 136, True: 170}  # pixels per level (normal, presenter)
FONT_PX = {False: 11, True: 18}
GREY_FILL, GREY_TEXT, FOLD_FILL, TEXT = "#EEEEEE", "#757575", "#FAFAFA", "#1A1A1A"
SELECTED = "#1F5FA8"  # the app's primary colour: the node the inspector shows


def visible_items(tree, *, folded=(), max_depth=None):
    """What is drawn: ``(items, children, hidden)`` in pre-order.

    ``items[i] = (node id, NODE)`` or ``(folded node's id, FOLD)``; ``children[i]``: item indices of
    its children; ``hidden[i]``: the nodes a fold box stands for (0 for a node).
    """
    fold = {int(i) for i in folded}
    items, children, hidden = [], [], []
    stack = [(tree.root.id, -1)]
    while stack:
        nid, parent = stack.pop()
        i = len(items)
        items.append((nid, NODE))
        children.append([])
        hidden.append(0)
        if parent >= 0:
            children[parent].append(i)
        node = tree.nodes[nid]
        if node.is_leaf:
            continue
        if nid in fold or (max_depth is not None and node.depth >= max_depth):
            items.append((nid, FOLD))
            children.append([])
            hidden.append(sum(1 for _ in tree.walk(nid)) - 1)
            children[i].append(i + 1)
            continue
        stack.extend((c, i) for c in reversed(node.children))
    return items, children, hidden


def _grey_ids(tree, marked) -> tuple[set, set]:
    grey, tops = set(), set()
    for m in marked:
        m = int(m)
        if 0 <= m < len(tree.nodes) and tree.nodes[m] is not None:
            grey.update(tree.subtree_ids(m))
            tops.add(m)
    return grey, {m for m in tops if tree.nodes[m].parent not in grey}


def tree_figure(tree, *, highlight=None, path=None, selected=None, open_nodes=None, folded=(), max_depth=None,
                marked=(), marked_label="pruned", compact=False, show_ids=True, big=False,
                max_height=1500, uirevision="tree", title=None):
    """The tree as a ``plotly.graph_objects.Figure`` (see the module docstring for what it shows).

    highlight: the node the last step split (thick black outline). path: node ids of a query point's
    path (magenta). selected: the node the inspector shows (thick blue outline). open_nodes: ids of
    the open leaves (default: leaves without a stop reason). folded: node ids whose subtrees are drawn
    as one ``+k nodes`` box; max_depth: fold every node at this depth. marked: subtrees greyed with
    ``marked_label`` on their top (pruning preview). compact: fewer lines per box. big: presenter
    sizes (larger type and levels). max_height: pixels; a deeper tree is zoomed into, not shrunk.
    uirevision: Plotly keeps the user's zoom while it stays the same (across Steps).
    """
    items, children, hidden = visible_items(tree, folded=folded, max_depth=max_depth)
    x, depth = tidy_layout(children)
    y = -depth.astype(float)
    nodes = tree.nodes
    open_ids = ({n.id for n in tree.leaves if n.stop_reason is None} if open_nodes is None
                else {int(i) for i in open_nodes})
    path_ids = set() if path is None else {int(i) for i in path}
    grey, grey_tops = _grey_ids(tree, marked)
    regression = tree.task == "regression"
    classes = tree.schema.classes
    root_w = float(tree.root.weight) or 1.0
    if regression:
        vals = np.array([float(n.value[0]) for n in tree.walk()])
        vmin, vmax = float(vals.min()), float(vals.max())
    n_items = len(items)
    gl = n_items > GL_BOXES
    fills: dict = {}
    names = [escape(short(c, 20)) for c in classes] if not regression else []
    fill, line_c, line_w, pattern, text, text_c, hover = ([None] * n_items for _ in range(7))
    parent = np.full(n_items, -1)
    for i, kids in enumerate(children):
        parent[kids] = i
    for i, (nid, kind) in enumerate(items):
        node = nodes[nid]
        line_c[i], line_w[i], pattern[i], text_c[i] = palette.BORDER, 1.0, "", TEXT
        if kind == FOLD:
            fill[i], text[i], text_c[i] = FOLD_FILL, f"+{hidden[i]:,} nodes", "#555555"
            hover[i] = f"{hidden[i]:,} nodes below #{nid} are folded<br>click to unfold"
            on_path = bool(path_ids) and nid in path_ids and any(nodes[c].id in path_ids for c in node.children)
            if on_path:
                line_c[i], line_w[i] = palette.PATH, 3.0
            if nid in grey:
                fill[i], text_c[i], line_c[i] = GREY_FILL, GREY_TEXT, palette.MUTED
            continue
        if not gl:  # WebGL markers carry no text
            lines = box_text(tree, node, compact=compact, show_ids=show_ids, open_ids=open_ids)
            if node.id in grey_tops:
                lines.append(escape(short(marked_label)))
            text[i] = "<br>".join(lines)
        hover[i] = hover_text(tree, node, open_ids, names)
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
    ids = np.array([nid for nid, _ in items], dtype=np.int64)
    kinds = np.array([k for _, k in items], dtype=np.int64)
    custom = np.column_stack([ids, kinds])
    traces = _edge_traces(tree, items, parent, x, y, path_ids, grey, root_w, gl)
    if gl:
        traces.append(dict(type="scattergl", name="nodes", x=x, y=y, mode="markers", customdata=custom,
                           marker=dict(symbol="square", size=9, color=fill, line=dict(color=line_c, width=line_w)),
                           hovertext=hover, hovertemplate="%{hovertext}<extra></extra>"))
    else:
        font = FONT_PX[big]
        traces.append(dict(
            type="bar", name="nodes", x=x, base=y - BOX_H / 2, y=np.full(n_items, BOX_H), width=BOX_W,
            customdata=custom, text=text, textposition="inside", insidetextanchor="end", textangle=0,
            textfont=dict(size=font, color=text_c), cliponaxis=False,
            marker=dict(color=fill, line=dict(color=line_c, width=line_w),
                        # overlay on the fill: in "replace" mode Plotly reads the per-box fill list as one colour
                        # and warns "Invalid color specifier" in the browser console
                        pattern=dict(shape=pattern, fgcolor="#BDBDBD", fgopacity=0.5, size=7, solidity=0.15,
                                     fillmode="overlay", bgcolor="rgba(0,0,0,0)")),
            hovertext=hover, hovertemplate="%{hovertext}<extra></extra>",
            selected=dict(marker=dict(opacity=1)), unselected=dict(marker=dict(opacity=1))))
        traces += _share_traces(tree, items, x, y, grey, vmin if regression else 0, vmax if regression else 0)
        traces.append(_branch_labels(tree, items, parent, x, y, font))
    levels = int(depth.max()) + 1
    height = int(min(max(60 + levels * LEVEL_PX[big], 240), max_height))
    layout = dict(
        height=height, margin=dict(l=8, r=8, t=36 if title else 8, b=8), showlegend=False, barmode="overlay",
        dragmode="pan", hovermode="closest", clickmode="event+select", uirevision=uirevision,
        uniformtext=dict(minsize=FONT_PX[big] - 1, mode="hide"), font=dict(size=FONT_PX[big]),
        hoverlabel=dict(font=dict(size=13), align="left", bgcolor="white"),
        xaxis=dict(visible=False, range=[-0.6, float(x.max()) + 0.6], zeroline=False),
        yaxis=dict(visible=False, range=[-(levels - 1) - 0.5, 0.5], zeroline=False),
        meta=dict(boxes=n_items, width_units=float(x.max()) + 1.2, webgl=gl),
        plot_bgcolor="white", paper_bgcolor="white")
    if title:
        layout["title"] = dict(text=escape(title), x=0.01, font=dict(size=FONT_PX[big] + 2))
    if n_items < VALIDATE_BELOW:
        return new_figure(*traces, layout=layout)
    fig = go.Figure(data=traces, layout=layout, _validate=False)  # built here from known keys: skip the checks
    fig.layout.template = pio.templates[TEMPLATE]
    return fig


def _edge_traces(tree, items, parent, x, y, path_ids, grey, root_w, gl) -> list[dict]:
    """Branches as line traces: one per width (rows flowing through), the path's, the greyed ones."""
    groups: dict = {}
    nodes = tree.nodes
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
            style = ("plain", 1 + int(round(8 * node.weight / root_w)))
        gap = 0.0 if gl else BOX_H / 2
        x0, y0, x1, y1 = x[p], y[p] - gap, x[i], y[i] + gap
        segs = groups.setdefault(style, [])
        if gl or kind == FOLD:
            segs.append((x0, y0, x1, y1))
            continue
        # broken where the branch label sits (lines are drawn above bars, so they would cross its text): only
        # inside the label's box, so a long diagonal branch keeps its line and loses just the label's width
        dt = min(LABEL_GAP / (y0 - y1), (LABEL_W / 2) / abs(x1 - x0)) if x1 != x0 else LABEL_GAP / (y0 - y1)
        for t_a, t_b in ((0.0, LABEL_AT - dt), (LABEL_AT + dt, 1.0)):
            segs.append((x0 + t_a * (x1 - x0), y0 + t_a * (y1 - y0), x0 + t_b * (x1 - x0), y0 + t_b * (y1 - y0)))
    traces = []
    colours = {"path": palette.PATH, "grey": palette.MUTED, "fold": "#9E9E9E", "plain": "#8A8A8A"}
    for (kind, width), segs in sorted(groups.items(), key=lambda kv: (kv[0][0] == "path", kv[0][1])):
        seg = np.array(segs)
        xs = np.column_stack([seg[:, 0], seg[:, 2], np.full(len(seg), np.nan)]).ravel()
        ys = np.column_stack([seg[:, 1], seg[:, 3], np.full(len(seg), np.nan)]).ravel()
        line = dict(color=colours[kind], width=width)
        if kind in ("grey", "fold") and not gl:
            line["dash"] = "dot"
        traces.append(dict(type="scattergl" if gl else "scatter", x=xs, y=ys, mode="lines", line=line,
                           hoverinfo="skip", name=f"branches {kind}"))
    return traces


def _share_traces(tree, items, x, y, grey, vmin, vmax) -> list[dict]:
    """The stacked class-share bar at the foot of each node's box (regression: mean in the range)."""
    idx = np.array([i for i, (_, kind) in enumerate(items) if kind == NODE])
    nodes = [tree.nodes[items[i][0]] for i in idx]
    inner = BOX_W - 0.08
    left = x[idx] - inner / 2
    base = y[idx] - BOX_H / 2 + 0.035
    custom = np.column_stack([[n.id for n in nodes], np.zeros(len(nodes), dtype=np.int64)])
    common = dict(type="bar", base=base, y=np.full(len(idx), STRIP_H), customdata=custom, hoverinfo="skip",
                  marker_line_width=0, selected=dict(marker=dict(opacity=1)), unselected=dict(marker=dict(opacity=1)))
    muted = np.array([n.id in grey for n in nodes])
    if tree.task == "regression":
        means = np.array([float(n.value[0]) for n in nodes])
        span = vmax - vmin
        frac = np.clip((means - vmin) / span, 0.0, 1.0) if span > 0 else np.full(len(nodes), 0.5)
        colors = [palette.MUTED if m else palette.value_color(v, vmin, vmax) for v, m in zip(means, muted)]
        return [dict(common, name="range", x=x[idx], width=inner, marker_color="#E0E0E0"),
                dict(common, name="mean", x=left + frac * inner / 2, width=np.maximum(frac * inner, 1e-3),
                     marker_color=colors)]
    stats = np.array([n.stats for n in nodes], dtype=float).reshape(len(nodes), -1)
    total = stats.sum(axis=1, keepdims=True)
    shares = np.divide(stats, total, out=np.zeros_like(stats), where=total > 0)
    start = np.cumsum(shares, axis=1) - shares
    traces = []
    for k, cls in enumerate(tree.schema.classes):
        colors = np.where(muted, palette.MUTED, palette.color_at(k))
        traces.append(dict(common, name=f"class {escape(cls)}", x=left + (start[:, k] + shares[:, k] / 2) * inner,
                           width=shares[:, k] * inner, marker_color=colors.tolist()))
    return traces


def _branch_labels(tree, items, parent, x, y, font) -> dict:
    """The test's outcome on each branch (hidden when it does not fit; its line is broken around it)."""
    rows = [(i, p) for i, p in enumerate(parent) if p >= 0 and items[i][1] == NODE]
    i = np.array([r[0] for r in rows], dtype=np.int64)
    p = np.array([r[1] for r in rows], dtype=np.int64)
    y0, y1 = y[p] - BOX_H / 2, y[i] + BOX_H / 2
    lx = x[p] + LABEL_AT * (x[i] - x[p]) if len(rows) else np.zeros(0)
    ly = y0 + LABEL_AT * (y1 - y0) if len(rows) else np.zeros(0)
    branches = [tree.nodes[items[k][0]].branch for k in i]
    ids = [items[k][0] for k in i]
    return dict(type="bar", name="branches", x=lx, base=ly - LABEL_H / 2, y=np.full(len(rows), LABEL_H), width=LABEL_W,
                text=[escape(short(short_branch(b), 13)) for b in branches], textposition="inside", insidetextanchor="middle",
                textangle=0, textfont=dict(size=font, color="#333333"), marker=dict(color="rgba(255,255,255,0)",
                                                                                   line=dict(width=0)),
                customdata=np.column_stack([ids, np.zeros(len(ids), dtype=np.int64)]) if ids else None,
                hovertext=[escape(b) for b in branches], hovertemplate="%{hovertext}<extra></extra>",
                selected=dict(marker=dict(opacity=1)), unselected=dict(marker=dict(opacity=1)))


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
