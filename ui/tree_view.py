"""The interactive tree diagram on every page: ``engine.viz.tree_figure`` shown with ``st.plotly_chart``.

A click on a box is read back by :func:`engine.viz.tree_figure.clicked_node`. A click on a ``+k nodes``
box opens that subtree (the opened ids are kept per chart in the session); a click on a node calls the
page's ``on_node(node_id)`` (the Grow page selects it in the inspector). Big trees are folded below the
deepest level at which at most :data:`FOLD_BOXES` boxes are drawn; Plotly's modebar zooms, pans and
resets the view, and the view survives reruns (``uirevision`` = the chart's key).
"""

from __future__ import annotations

import streamlit as st

from engine.viz.dot import fold_depth_for
from engine.viz.tree_figure import FOLD, clicked_node, tree_figure

#: Plotly's chart options: wheel zoom, no logo, no box/lasso tools (a click selects a node).
CONFIG = {"scrollZoom": True, "displaylogo": False, "modeBarButtonsToRemove": ["select2d", "lasso2d"]}
FOLD_BOXES = 200  # a page folds levels so that at most this many boxes are drawn (until the user opens more)
HELP = ("Click a box to inspect it; a “+k nodes” box opens its subtree. Wheel or pinch to zoom, drag to pan, "
        "double-click to see the whole tree again.")


def opened_key(key: str) -> str:
    """Session key of the fold boxes opened by hand in the chart ``key``."""
    return f"_tree_opened_{key}"


def folded_key(key: str) -> str:
    """Session key of the subtrees folded by hand in the chart ``key``."""
    return f"_tree_folded_{key}"


def folded_ids(tree, *, key: str, max_depth: int | None) -> tuple[int, ...]:
    """Node ids drawn as ``+k nodes`` boxes: folded by hand, or at ``max_depth`` and not opened by hand."""
    opened = st.session_state.get(opened_key(key), set())
    ids = set(st.session_state.get(folded_key(key), set()))
    if max_depth is not None:
        ids.update(n.id for n in tree.walk() if not n.is_leaf and n.depth >= max_depth and n.id not in opened)
    return tuple(sorted(i for i in ids if 0 <= i < len(tree.nodes)))


def set_folded(key: str, node_id: int, fold: bool) -> None:
    """Fold (``fold=True``) or open the subtree below ``node_id`` in the chart ``key``."""
    ss = st.session_state
    opened, folded = set(ss.get(opened_key(key), set())), set(ss.get(folded_key(key), set()))
    (folded.add if fold else folded.discard)(int(node_id))
    (opened.discard if fold else opened.add)(int(node_id))
    ss[opened_key(key)], ss[folded_key(key)] = opened, folded


def is_folded(tree, node_id: int, *, key: str, max_depth: int | None) -> bool:
    return int(node_id) in folded_ids(tree, key=key, max_depth=max_depth)


def _on_click(key: str, on_node) -> None:
    hit = clicked_node(st.session_state.get(key))
    if hit is None:
        return
    node_id, kind = hit
    if kind == FOLD:
        set_folded(key, node_id, False)
    if on_node is not None:
        on_node(node_id)


def show_figure(fig, *, key: str, on_node=None):
    """``st.plotly_chart`` of a tree figure whose clicks open folds and call ``on_node(node_id)``."""
    return st.plotly_chart(fig, key=key, on_select=lambda: _on_click(key, on_node), selection_mode="points",
                           width="stretch", config=CONFIG)


def tree_chart(tree, *, key: str, max_boxes: int = FOLD_BOXES, on_node=None, caption: bool = True, **figure_kw):
    """Draw ``tree`` (folded to at most ``max_boxes`` boxes until opened by clicks); returns the figure.

    ``figure_kw`` go to :func:`engine.viz.tree_figure.tree_figure` (highlight, path, marked, title, ...).
    """
    depth = fold_depth_for(tree, max_boxes)
    folded = folded_ids(tree, key=key, max_depth=depth)
    fig = tree_figure(tree, folded=folded, compact=depth is not None, uirevision=key, **figure_kw)
    show_figure(fig, key=key, on_node=on_node)
    if caption:
        note = f"{tree.n_nodes:,} nodes, deeper levels folded. " if depth is not None else ""
        st.caption(note + HELP)
    return fig
