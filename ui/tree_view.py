"""The interactive tree diagram on every page: a planned view (``engine.viz.tree_figure``) with navigation.

Each chart keeps its own *focus* in the session (:func:`focus_of`: the path from the root to the focus,
so it survives Step, Undo and Play, and falls back to the nearest ancestor that still exists). The view
below the focus is planned in pixels (:func:`engine.viz.tree_layout.plan_view`): every drawn box holds its
whole text; what does not fit is a ``+k nodes`` box. A click on a ``+k`` box makes its node the focus; the
breadcrumbs above the chart lead back up; "Go to node" focuses the view so that a node is drawn and
selects it; a click on a node calls the page's ``on_node(node_id)`` (the Grow page selects it in the
inspector). The chart's axes span the planned width and height, which do not change between reruns, so
Plotly (``uirevision`` = the chart's key) keeps the user's zoom and pan across Steps.
"""

from __future__ import annotations

import streamlit as st

from engine.viz.tree_figure import FONT_PX, FOLD, MODEBAR_PX, clicked_node, tree_figure
from engine.viz.tree_labels import branch_label, short
from engine.viz.tree_layout import plan_view, subtree_sizes, trail_to
from ui.access import aria_tree
from ui.widgets import md_escape

#: Plotly's chart options: wheel zoom (a page script decides when the wheel reaches the chart), no logo,
#: no box/lasso tools (a click selects a node), no autoscale (the axes are the planned view).
CONFIG = {"scrollZoom": True, "displaylogo": False, "modeBarButtonsToRemove": ["select2d", "lasso2d", "autoScale2d"]}
WIDTH, HEIGHT = 560, 600  # default budget (CSS px): the chart gets at least this width on every page
# (Per focus: a new view after a click on "+k nodes" starts unzoomed.) Why a script: Streamlit 1.67 derives a chart's element id from its figure (``key_as_main_identity=False``
# in st.plotly_chart), so a changed figure is a new chart in the browser and Plotly's ``uirevision`` has no
# earlier plot to keep the zoom of. This page script remembers each tree chart's axis ranges (per
# ``uirevision`` = chart key and planned size) when the user zooms or pans, and applies them to the next
# plot of that chart through Plotly's own mode-bar handler (a GUI relayout, as if the user had zoomed).
# Constant text: no user data reaches it.
ZOOM_KEEPER = """<script>
(() => {
  if (window.__dtxTreeZoom) return;
  window.__dtxTreeZoom = true;
  const saved = {};
  const keyOf = gd => {
    const m = gd.layout && gd.layout.meta;
    return m && m.plan_width !== undefined ? `${gd.layout.uirevision}|${m.plan_width}x${m.plan_height}|${m.focus}` : null;
  };
  const relayout = (gd, attr, val) => {
    const bar = gd._fullLayout && gd._fullLayout._modeBar;
    const zoom = bar && bar.buttons.flat().find(b => b && b.name === "zoomIn2d");
    if (!zoom) return false;
    zoom.click(gd, {currentTarget: {getAttribute: n => (n === "data-attr" ? attr : val), setAttribute: () => {}}});
    return true;
  };
  const hook = gd => {
    const key = keyOf(gd);
    if (!key || !gd._fullLayout) return;
    if (!gd.__dtxHooked) {
      gd.__dtxHooked = true;
      gd.on("plotly_relayout", () => {
        const k = keyOf(gd), fl = gd._fullLayout;
        if (k && fl && fl.xaxis && gd.__dtxKey === k) saved[k] = {x: fl.xaxis.range.slice(), y: fl.yaxis.range.slice()};
      });
    }
    if (gd.__dtxKey === key) return;
    const s = saved[key];
    if (s && !(relayout(gd, "xaxis.range", s.x.slice()) && relayout(gd, "yaxis.range", s.y.slice()))) return;
    gd.__dtxKey = key;
  };
  const scan = () => document.querySelectorAll(".js-plotly-plot").forEach(hook);
  new MutationObserver(scan).observe(document.body, {childList: true, subtree: true});
  scan();
})();
</script>"""
CRUMBS = 5  # breadcrumbs shown: the root and the last ones before the focus
HELP = ("Click a box to inspect it (or Tab to the diagram's tree, walk it with the arrow keys, Enter); a “+k nodes” "
        "box shows the subtree below it, the buttons above lead back up. Drag to pan; zoom with the wheel after a click "
        "in the diagram (or with Ctrl held: until then the wheel scrolls the page) or with the mode bar; double-click "
        "to see the whole view again.")


def focus_key(key: str) -> str:
    """Session key of the chart ``key``'s focus (node ids from the root to the focus)."""
    return f"_tree_focus_{key}"


def folded_key(key: str) -> str:
    """Session key of the subtrees folded by hand in the chart ``key``."""
    return f"_tree_folded_{key}"


def opened_key(key: str) -> str:
    """Session key of the node ids whose children the chart ``key`` drew last."""
    return f"_tree_opened_{key}"


def focus_of(tree, key: str) -> int:
    """The chart's focus in ``tree``: the deepest node of the kept path that still exists with the same
    parent (after an Undo or a collapse, the nearest ancestor that is left); the root by default."""
    focus, prev = 0, None
    for nid in st.session_state.get(focus_key(key), ()):
        node = tree.nodes[nid] if 0 <= nid < len(tree.nodes) else None
        if node is None or node.parent != prev or (prev is not None and node.id not in tree.nodes[prev].children):
            break
        focus, prev = nid, nid
    return focus


def set_focus(tree, key: str, node_id: int) -> None:
    """Make ``node_id`` the focus of the chart ``key``."""
    st.session_state[focus_key(key)] = trail_to(tree, int(node_id))


def folded_ids(key: str) -> tuple[int, ...]:
    """Node ids folded by hand in the chart ``key`` (the planner never opens them)."""
    return tuple(sorted(st.session_state.get(folded_key(key), set())))


def set_folded(key: str, node_id: int, fold: bool, tree=None) -> None:
    """Fold (``fold=True``) the subtree below ``node_id`` in the chart ``key``, or open it (and, with ``tree``,
    focus the view on it when it was not drawn open)."""
    folded = set(st.session_state.get(folded_key(key), set()))
    (folded.add if fold else folded.discard)(int(node_id))
    st.session_state[folded_key(key)] = folded
    if not fold and tree is not None and not is_open(key, node_id):
        set_focus(tree, key, node_id)


def is_open(key: str, node_id: int) -> bool:
    """Whether the chart ``key`` drew ``node_id``'s children last time."""
    return int(node_id) in st.session_state.get(opened_key(key), {})


def is_folded(tree, node_id: int, *, key: str, max_depth=None) -> bool:
    """Whether ``node_id``'s subtree is folded (by hand, or not drawn open) in the chart ``key``."""
    return int(node_id) in folded_ids(key) or not is_open(key, node_id)


def _on_click(tree, key: str, on_node) -> None:
    hit = clicked_node(st.session_state.get(key))
    if hit is None:
        return
    node_id, kind = hit
    if kind == FOLD:
        set_focus(tree, key, node_id)
        folded = set(st.session_state.get(folded_key(key), set()))
        folded.discard(node_id)
        st.session_state[folded_key(key)] = folded
    elif on_node is not None:
        on_node(node_id)


def _go_to(tree, key: str, on_node) -> None:
    value = st.session_state.get(f"{key}_goto")
    if value is None:
        return
    nid = int(value)
    if 0 <= nid < len(tree.nodes) and tree.nodes[nid] is not None:
        node = tree.nodes[nid]
        set_focus(tree, key, node.parent if node.parent is not None else nid)
        if on_node is not None:
            on_node(nid)


def navigation(tree, plan, *, key: str, on_node=None, goto: bool = True) -> None:
    """Breadcrumbs from the root to the focus (buttons) and a "Go to node" box (``goto``), when part of the
    tree is not drawn. Labels are node ids and the (escaped) branch into each node."""
    goto = goto and (plan.focus != 0 or any(k != 0 for _, k in plan.items))
    if plan.focus == 0 and not goto:
        return
    row = st.container(horizontal=True, vertical_alignment="bottom", gap="small")
    trail = plan.trail
    shown = trail if len(trail) <= CRUMBS else trail[:1] + trail[-(CRUMBS - 1):]
    for i, nid in enumerate(shown):
        if i == 1 and shown is not trail:
            row.caption("…")
        label = "Root #0" if nid == 0 else f"#{nid} {short(branch_label(tree, tree.nodes[nid])[0], 18)}"
        row.button(md_escape(label), key=f"{key}_crumb_{nid}", disabled=nid == plan.focus, type="tertiary",
                   on_click=set_focus, args=(tree, key, nid),
                   help="Show the tree from here" if nid != plan.focus else "The view starts here")
    if not goto:
        return
    row.number_input("Go to node #", min_value=0, max_value=len(tree.nodes) - 1, value=None, step=1,
                     key=f"{key}_goto", on_change=_go_to, args=(tree, key, on_node), width=150,
                     placeholder="node id", help="Show this node (and its siblings) and select it.")


def show_figure(fig, *, key: str, tree=None, on_node=None, config=None, plan=None, selected=None,
                label: str = "Decision tree", unknown_inner: bool = False, marked=(), marked_label: str = "pruned"):
    """``st.plotly_chart`` of a tree figure whose clicks focus ``+k`` boxes and call ``on_node(node_id)``; the
    page script :data:`ZOOM_KEEPER` carries the user's zoom and pan over to the next figure of this chart.
    ``config``: Plotly's chart options (default :data:`CONFIG`). With the figure's ``plan`` (and ``tree``), the
    chart gets its ARIA tree (:mod:`ui.access.aria_tree`: the keyboard and screen readers walk the drawn boxes, Enter
    does what a click does); ``selected``: the node the inspector shows, ``label``: the tree's accessible name,
    ``unknown_inner``, ``marked``, ``marked_label``: as the figure's."""
    st.html(ZOOM_KEEPER, unsafe_allow_javascript=True, width="content")
    if plan is None or tree is None:
        return st.plotly_chart(fig, key=key, on_select=lambda: _on_click(tree, key, on_node), selection_mode="points",
                               width="stretch", config=CONFIG if config is None else config)
    with st.container(key=aria_tree.container_key(key)):
        event = st.plotly_chart(fig, key=key, on_select=lambda: _on_click(tree, key, on_node), selection_mode="points",
                                width="stretch", config=CONFIG if config is None else config)
        aria_tree.describe(tree, plan, key=key, label=label, selected=selected, selectable=on_node is not None,
                           unknown_inner=unknown_inner, marked=marked, marked_label=marked_label)
    return event


def plan_for(tree, *, key: str, width: float = WIDTH, height: float = HEIGHT, big: bool = False,
             compact: bool = False, show_ids: bool = True, keep=None):
    """The view plan of the chart ``key`` (its focus, folds; ``keep``: a node id that must be drawn — the
    focus moves up to its parent if it is not). ``height`` is the chart's: the plan leaves the mode bar's
    strip (:data:`engine.viz.tree_figure.MODEBAR_PX`) free above the boxes. ``big`` (presenter view): boxes
    widen to hold whole names where the view has room to spare (``plan_view(roomy=True)``)."""
    kw = dict(width=width, height=height - MODEBAR_PX, font=FONT_PX[big], compact=compact or big, show_ids=show_ids,
              fold=folded_ids(key), roomy=big)  # presenter view: whole names where the screen has room
    valid = keep is not None and 0 <= keep < len(tree.nodes) and tree.nodes[keep] is not None
    kw["prefer"] = trail_to(tree, keep) if valid else ()  # its path is opened first: drawn from the focus if it fits
    plan = plan_view(tree, focus=focus_of(tree, key), **kw)
    if keep is not None and 0 <= keep < len(tree.nodes) and tree.nodes[keep] is not None and keep not in plan.drawn:
        node = tree.nodes[keep]
        set_focus(tree, key, node.parent if node.parent is not None else keep)
        plan = plan_view(tree, focus=focus_of(tree, key), **kw)
    st.session_state[opened_key(key)] = plan.expanded
    return plan


def _tree_label(title) -> str:
    """The accessible name of a tree chart: its title, if any."""
    return f"Decision tree: {title}" if title else "Decision tree"


def tree_chart(tree, *, key: str, width: float = WIDTH, height: float = HEIGHT, on_node=None, caption: bool = True,
               compact: bool = False, big: bool = False, show_ids: bool = True, **figure_kw):
    """Draw ``tree`` as the chart ``key``: navigation, the planned view, a caption; returns the figure.

    ``figure_kw`` go to :func:`engine.viz.tree_figure.tree_figure` (highlight, path, marked, title, ...).
    """
    keep = figure_kw.get("selected")
    plan = plan_for(tree, key=key, width=width, height=height, big=big, compact=compact, show_ids=show_ids, keep=keep)
    navigation(tree, plan, key=key, on_node=on_node)
    fig = tree_figure(tree, plan=plan, fit_height=True, compact=compact, big=big, show_ids=show_ids,
                      uirevision=key, **figure_kw)
    show_figure(fig, key=key, tree=tree, on_node=on_node, plan=plan, selected=keep,
                unknown_inner=figure_kw.get("unknown_inner", False), label=_tree_label(figure_kw.get("title")),
                marked=figure_kw.get("marked", ()), marked_label=figure_kw.get("marked_label", "pruned"))
    if caption:
        shown, total = len(plan.drawn), int(subtree_sizes(tree)[0])
        note = f"{shown:,} of {total:,} nodes shown. " if shown < total else ""
        st.caption(note + HELP)
    return fig
