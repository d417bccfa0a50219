"""The tree as a Graphviz DOT diagram (for ``st.graphviz_chart`` or an SVG file).

Node ids are ``n0, n1, ...`` (the engine's node ids), never user text; every label is a quoted DOT
string built by :func:`quote`, which escapes backslashes and double quotes and replaces control
characters by spaces, and writes ``&`` as ``&amp;`` (Graphviz decodes HTML entities in every
label), so column names or category values such as ``a"b``, ``\\N``, ``<td>``, ``{x|y}``
or ``graph`` are shown literally. Lines inside a label are joined with DOT's ``\\n``.

What a node shows (``compact=False``):

- internal node: ``#id  test`` / ``n = rows`` / class counts (or ``mean = ...``) / ``criterion = impurity``;
- leaf: ``#id  class = label`` (regression: ``predict value``) / the same numbers / ``stop: reason``;
  filled with the class colour, tinted by purity (see :mod:`engine.viz.palette`);
- open leaf (still undecided while growing): dashed border and ``open`` instead of a stop reason.

``compact=True`` keeps only the first line and ``n``. Folded subtrees (``max_depth``, ``collapsed``)
become one dashed box ``+k nodes``; ``marked`` subtrees are greyed and dashed (pruning preview).
"""

from __future__ import annotations

import re
import shutil
import textwrap

import numpy as np
import pydot

from engine.grow.stopping import STOP_REASONS
from engine.split.wording import plural

from engine.viz import palette

__all__ = ["to_dot", "dot_source", "dot_to_svg", "quote", "fold_depth_for"]

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def quote(text) -> str:
    """A DOT double-quoted string showing ``text`` literally (one line)."""
    s = _CONTROL.sub(" ", str(text)).replace("&", "&amp;")  # Graphviz decodes entities such as &lt;
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _label(lines) -> str:
    """Several lines as one quoted DOT label (centred lines, DOT's ``\\n`` between them)."""
    return '"' + "\\n".join(quote(line)[1:-1] for line in lines) + '"'


def _short(text, limit: int) -> str:
    s = str(text)
    return s if len(s) <= limit else s[: max(limit - 1, 1)] + "…"


def _count(v: float) -> str:
    return str(int(round(v))) if abs(v - round(v)) < 1e-9 else f"{v:.1f}"


def _value(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 1e4 else f"{v:.4g}"


def _counts_text(stats, classes, limit: int) -> str:
    counts = [_count(v) for v in stats]
    if len(classes) <= 3:
        named = ", ".join(f"{_short(c, 12)} {n}" for c, n in zip(classes, counts))
        if len(named) <= limit:
            return named
    return "[" + ", ".join(counts) + "]"


def _node_lines(tree, node, *, compact, show_ids, show_stop_reason, digits, limit) -> list[str]:
    head = f"#{node.id}  " if show_ids else ""
    regression = tree.task == "regression"
    if not node.is_leaf:
        first = head + _short(node.split.describe(), limit + 8)
    elif regression:
        first = head + f"predict {_value(float(node.prediction))}"
    else:
        first = head + f"class = {_short(node.prediction, limit)}"
    if node.is_leaf and node.stop_reason is None:
        first = head + "open"
    lines = [first, f"n = {node.n_node_samples}"]
    if compact:
        return lines
    if node.is_leaf and node.stop_reason is None and not regression:
        lines.insert(1, f"majority = {_short(node.prediction, limit)}")
    if regression:
        if not node.is_leaf or node.stop_reason is None:
            lines.append(f"mean = {_value(float(node.value[0]))}")
    else:
        lines.append(_counts_text(node.stats, tree.schema.classes, limit))
    lines.append(f"{node.criterion} = {node.impurity:.{digits}f}")
    if node.is_leaf and node.stop_reason is not None and show_stop_reason:
        phrase = STOP_REASONS.get(node.stop_reason, node.stop_reason)
        lines += textwrap.wrap(f"stop: {phrase}", width=max(limit - 16, 24))
    return lines


def fold_depth_for(tree, max_nodes: int = 100) -> int | None:
    """The largest ``max_depth`` for :func:`to_dot` that draws at most ``max_nodes`` boxes (None: all fit).

    Each folded subtree costs one box, so the count at depth d is the nodes of depth <= d plus the
    internal nodes at depth d.
    """
    depths = np.array([n.depth for n in tree.walk()])
    internal = np.array([not n.is_leaf for n in tree.walk()])
    if depths.size <= max_nodes:
        return None
    best = 0
    for d in range(int(depths.max()) + 1):
        boxes = int((depths <= d).sum() + (internal & (depths == d)).sum())
        if boxes > max_nodes:
            break
        best = d
    return best


def to_dot(tree, *, highlight=None, path=None, max_depth=None, collapsed=(), marked=(),
           marked_label="pruned", show_stop_reason=True, digits=3, compact=False, show_ids=True,
           max_text=40) -> pydot.Dot:
    """The tree as a ``pydot.Dot`` (``rankdir=TB``).

    highlight: node id drawn with a thick black border (the node the last step split).
    path: node ids of a query point's path, drawn with thick magenta borders and edges.
    max_depth: nodes deeper than this are folded into one ``+k nodes`` box under their ancestor.
    collapsed: node ids whose subtrees are folded the same way (the node itself stays visible).
    marked: node ids whose subtrees are greyed and dashed; the top of each gets ``marked_label``.
    compact: only the test / class and ``n`` (big trees). max_text: longest user text kept per line.
    """
    path_ids = set() if path is None else {int(i) for i in path}
    folded = {int(i) for i in collapsed}
    grey: set[int] = set()
    marked_tops = set()
    for m in marked:
        m = int(m)
        if 0 <= m < len(tree.nodes) and tree.nodes[m] is not None:
            grey.update(tree.subtree_ids(m))
    for m in grey:
        parent = tree.nodes[m].parent
        if m in {int(i) for i in marked} and (parent is None or parent not in grey):
            marked_tops.add(m)
    classes = tree.schema.classes
    if tree.task == "regression":
        vals = [float(n.value[0]) for n in tree.walk()]
        vmin, vmax = min(vals), max(vals)
    fontsize = "10" if compact else "11"

    g = pydot.Dot("tree", graph_type="digraph", rankdir="TB", nodesep="0.2", ranksep="0.35",
                  bgcolor="white", fontname="Helvetica")
    g.set_node_defaults(shape="box", style="rounded,filled", fontname="Helvetica", fontsize=fontsize,
                        color=palette.BORDER, penwidth="1.2", margin="0.12,0.06")
    g.set_edge_defaults(fontname="Helvetica", fontsize="10", color=palette.BORDER, arrowsize="0.6")

    nodes, edges = [], []
    stack = [tree.root]
    while stack:
        node = stack.pop()
        name = f"n{node.id}"
        lines = _node_lines(tree, node, compact=compact, show_ids=show_ids,
                            show_stop_reason=show_stop_reason, digits=digits, limit=max_text)
        attrs = {"fillcolor": palette.INTERNAL_FILL}
        if node.is_leaf:
            if node.stop_reason is None:
                attrs = {"fillcolor": palette.OPEN, "style": "rounded,filled,dashed"}
            elif tree.task == "regression":
                attrs = {"fillcolor": palette.tint(palette.value_color(node.value[0], vmin, vmax), 0.55)}
            else:
                attrs = {"fillcolor": palette.node_fill(node.value, classes)}
        if node.id in grey:
            attrs = {"fillcolor": "#EEEEEE", "style": "rounded,filled,dashed", "color": palette.MUTED,
                     "fontcolor": "#757575"}
            if node.id in marked_tops:
                lines = lines + [_short(marked_label, max_text)]
        if node.id == highlight:
            attrs.update(color=palette.HIGHLIGHT, penwidth="3.5")
        if node.id in path_ids:
            attrs.update(color=palette.PATH, penwidth="3")
        nodes.append(pydot.Node(name, label=_label(lines), **attrs))
        if node.parent is not None:
            e = {"label": quote(_short(node.branch, max_text))}
            if node.id in path_ids and node.parent in path_ids:
                e.update(color=palette.PATH, penwidth="3")
            elif node.id in grey:
                e.update(color=palette.MUTED, style="dashed", fontcolor="#757575")
            edges.append(pydot.Edge(f"n{node.parent}", name, **e))
        if node.is_leaf:
            continue
        if node.id in folded or (max_depth is not None and node.depth >= max_depth):
            hidden = tree.subtree_ids(node.id)[1:]
            box = f"n{node.id}_fold"
            on_path = bool(path_ids.intersection(hidden))
            b = {"label": quote("+" + plural(len(hidden), "node")), "style": "rounded,filled,dashed",
                 "fillcolor": "#FAFAFA", "fontcolor": "#555555"}
            if on_path:
                b.update(color=palette.PATH, penwidth="3")
            nodes.append(pydot.Node(box, **b))
            fe = {"style": "dashed"}
            if on_path and node.id in path_ids:
                fe.update(color=palette.PATH, penwidth="3")
            edges.append(pydot.Edge(name, box, **fe))
            continue
        stack.extend(tree.nodes[c] for c in reversed(node.children))
    for item in nodes:
        g.add_node(item)
    for item in edges:
        g.add_edge(item)
    return g


def dot_source(tree, **kw) -> str:
    """The DOT text of :func:`to_dot` (what ``st.graphviz_chart`` expects)."""
    return to_dot(tree, **kw).to_string()


def dot_to_svg(dot_or_tree, **kw) -> bytes | None:
    """SVG bytes rendered by Graphviz's ``dot`` binary, or None when it is not installed."""
    if shutil.which("dot") is None:
        return None
    dot = dot_or_tree if isinstance(dot_or_tree, pydot.Dot) else to_dot(dot_or_tree, **kw)
    return dot.create_svg()
