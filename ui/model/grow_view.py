"""The Grow page while a model is open: its member trees instead of the grower.

A member picker ("Tree k of N", with the round and class of a boosted model), the chosen tree as the
planned diagram (:func:`ui.tree_view.tree_chart`: every drawn box holds its whole text, ``+k nodes`` boxes
open the rest) and, beside it, the node inspector: the test, what the file says of the node (cover or
weight, rows, value), its children and, for a classifier's tree, its class distribution. With a data set
that has the model's columns the inspector also shows the node's rows and gain table
(:mod:`ui.model.with_data`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from engine.split.records import format_number
from engine.split.wording import plural
from engine.viz.figures import class_distribution_figure
from ui import state, tree_view
from ui.grow.layout import areas
from ui.model import with_data
from ui.model.common import current_tree, inner_unknown, member_label, member_picker, shown_tree
from ui.widgets import md_escape, shorten
from ui.charts import show_chart

DIAGRAM_WIDTH = 520  # CSS px: the diagram's three fifths beside the inspector at 1366 px (as the grower's)
COMPACT_NODES = 40  # more nodes than this: compact boxes
W_NODE = "_w_model_node"


def chart_key(t: int) -> str:
    """One chart per member tree: its focus and zoom belong to that tree."""
    return f"model_tree_{t}"


def value_text(model, tree, node) -> str:
    """The node's value as the file gives it: class shares, a number, or a boosted tree's leaf score; an
    inner node of a file that weighs no node (ONNX) has none until a data set's rows count it."""
    if not node.is_leaf and not model.inner_values and node.n_node_samples == 0:
        return "not in the file (it has no row counts; open the CSV the model was trained on)"
    if model.kind == "additive":
        return f"score {format_number(round(float(node.value[0]), 6))}"
    if tree.task == "regression":
        return f"value {format_number(round(float(node.value[0]), 6))}"
    shares = ", ".join(f"{shorten(c, 15)} {v:.3f}" for c, v in zip(tree.schema.classes, node.value))
    return f"predicts {shorten(str(node.prediction), 30)} ({shares})"


def node_label(model, tree, node) -> str:
    """``#3 · petal_length <= 2.45`` for a split, ``#4 · leaf: score 0.43`` for a leaf."""
    if node.is_leaf:
        return f"#{node.id} · leaf: {shorten(value_text(model, tree, node), 60)}"
    return f"#{node.id} · {shorten(node.split.describe(), 50)}"


def children_table(model, tree, node) -> pd.DataFrame:
    """The node and its children: branch, cover/weight from the file, rows (when the file counts them), value."""
    rows = []
    for nid in (node.id, *node.children):
        n = tree.nodes[nid]
        rows.append({"node": f"#{nid}", "branch": "(this node)" if nid == node.id else n.branch,
                     "cover": n.weight if model.inner_values or n.weight > 0 else None, "rows": n.n_node_samples or None, "value": value_text(model, tree, n)})
    return pd.DataFrame(rows).dropna(axis=1, how="all")  # no row counts in the file: no rows column


def _selected(tree) -> int:
    sel = state.selected_node()
    if not (0 <= sel < len(tree.nodes)) or tree.nodes[sel] is None:
        sel = 0
        state.select_node(0)
    return sel


def _on_node_box() -> None:
    value = st.session_state.get(W_NODE)
    if isinstance(value, (int, np.integer)):
        state.select_node(int(value))


def render_inspector(model, tree, t: int) -> None:
    """The chosen node of member ``t``: its test, numbers, children and class distribution."""
    sel = _selected(tree)
    key = f"{W_NODE}_{t}"
    if st.session_state.get(key) != sel:
        st.session_state[key] = sel
    st.selectbox("Node", [n.id for n in tree.walk()], key=key,
                 on_change=lambda: state.select_node(int(st.session_state[key])),
                 format_func=lambda i: node_label(model, tree, tree.nodes[i]), help="Or click a box in the diagram.")
    node = tree.nodes[sel]
    if node.split is not None:
        missing = "left" if node.split.child_weights[0] > 0 else "right"
        st.text(f"Test: {node.split.describe()} (a missing value goes {missing})")
    cover = f" · cover {format_number(round(node.weight, 4))}" if model.inner_values or node.weight > 0 else ""
    st.text(f"Depth {node.depth}{cover} · {value_text(model, tree, node)}")  # a file without weights: no cover 0
    st.dataframe(children_table(model, tree, node), hide_index=True, width="stretch",
                 column_config={"cover": st.column_config.NumberColumn(format="%.4g",
                                help="The file's weight of the node: XGBoost's cover (hessian sum), LightGBM's "
                                     "count or hessian, scikit-learn's weighted samples.")})
    if model.kind == "additive":
        st.caption("A boosted tree's leaf holds a score, not a class: the model adds the scores of one tree a "
                   "round (per class) and turns the sum into its answer (see the Ensembles page).")
    elif tree.task == "classification" and not node.is_leaf and (model.inner_values or node.n_node_samples):
        show_chart(class_distribution_figure(tree, sel, height=300), key="model_class_dist", lead="Classes of the selected node's rows", width="stretch")
    with_data.render_node_data(model, tree, sel)


def render_page(model) -> None:
    """The Grow page's body with a model open (the page calls it and stops)."""
    trees = "1 tree" if model.n_trees == 1 else f"{model.n_trees:,} trees"
    st.caption(f"The trees of the model **{md_escape(shorten(state.current_model_name(), 60))}** "
               f"({md_escape(trees)}). Close it on the Data page to grow trees here again.")
    cols = st.columns([1, 3], vertical_alignment="bottom")
    t = member_picker(model, cols[0])
    tree = current_tree(model)
    cols[1].markdown(f"**{md_escape(member_label(model, t))}** · {md_escape(plural(tree.n_nodes, 'node'))}, "
                     f"{md_escape(plural(tree.n_leaves, 'leaf', 'leaves'))}, depth {tree.depth:d}")
    tree = with_data.data_tree(model, tree, t)  # counts and purity from the data set when it matches
    tree = shown_tree(model, tree, t)  # its classes as the Data page maps them
    if not model.inner_values and not with_data.matching(model):
        st.caption("The file keeps no row counts: the inner boxes show no class shares or weights (only the leaves "
                   "hold them); open the CSV the model was trained on to count them.")
    diagram, side = areas(presenter=False, wide=False)
    sel = _selected(tree)
    with diagram:
        tree_view.tree_chart(tree, key=chart_key(t), width=DIAGRAM_WIDTH, on_node=state.select_node,
                             selected=sel, compact=tree.n_nodes > COMPACT_NODES or not np.isfinite(tree.root.impurity),
                             unknown_inner=inner_unknown(model, tree))
    with side:
        render_inspector(model, tree, t)
