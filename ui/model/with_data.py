"""What a model gains from a data set with its columns: the member trees' node counts and purity
recomputed from the rows (``engine.tree.surgery.refit``; the file's leaf values and predictions are kept,
so the tree still predicts as the model does), and the gain table of any node as if the app had grown
the tree here (the rows reaching the node, split search with the active settings).

Nothing here runs without such a data set: :func:`matching` says whether the active one fits, and every
result is remembered per session on the data version (opening a model or changing data bumps it).
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from engine.errors import DataError, EngineError
from engine.grow.grower import Grower
from engine.tree.surgery import node_rows, refit
from ui import state
from ui.grow.inspector import gain_table_view
from ui.grow.views import memo
from engine.models.build import refit_inner
from ui.model.common import column_match, data_matches, data_targets
from ui.widgets import md_escape


def matching(model) -> bool:
    """Whether the active data set has every column of ``model``."""
    return data_matches(model, state.current_dataset())


def rows_and_targets(model):
    """(encoded X in the model's columns, targets as the model's labels or numbers, note) of the active
    data set's rows with a known target; remembered per data version."""
    ds = state.current_dataset()

    def compute():
        X = model.encode(ds.frame, column_match(model, ds))
        y, note = data_targets(model, ds)
        keep = np.isfinite(y.astype(float)) if model.task == "regression" else np.ones(len(y), dtype=bool)
        return X[keep], y[keep], note
    return memo(("model_xy", id(model)), compute)


def refitted(model, tree, t: int):
    """Member ``t`` with every node's rows, counts and impurity from the data set (values and predictions
    as in the file). A boosted tree's leaves hold scores, not targets: only its rows are counted. A file
    that weighs no node (ONNX) gets its inner values from its leaves weighted by the rows reaching them."""
    def compute():
        X, y, _ = rows_and_targets(model)
        scores = model.kind == "additive" or tree.task != model.task
        target = np.zeros(len(X)) if scores else y
        fitted = refit(tree, X, target, keep_predictions=True) if model.inner_values else refit_inner(tree, X, target)
        if scores:
            fitted = fitted.replace_nodes({n.id: n.evolve(impurity=float("nan")) for n in fitted.walk()})
        return fitted
    return memo(("model_refit", id(model), t), compute)


def data_tree(model, tree, t: int):
    """The tree the pages draw: refitted on the data set when it has the model's columns, else as read."""
    if not matching(model):
        return tree
    try:
        return refitted(model, tree, t)
    except EngineError as err:
        st.caption(f"Node counts come from the file: {md_escape(err)}")
        return tree


def node_gain_table(model, tree, node_id: int):
    """The gain table at ``node_id`` as if the app had grown the tree: the rows that reach it (whole rows,
    missing values following the model's direction), the model's features, the active split settings."""
    ds = state.current_dataset()

    def compute():
        X, _, _ = rows_and_targets(model)
        rows = node_rows(tree, X, skip_empty=True).get(node_id, (np.zeros(0, dtype=np.int64), None))[0]
        if rows.size == 0:
            raise DataError("No row of the data set reaches this node.")
        known = np.flatnonzero(np.isfinite(ds.frame[ds.target].to_numpy(dtype=float))) \
            if model.task == "regression" else np.arange(len(ds))
        part = ds.subset(known[rows])
        try:
            part = part.with_features([c for c in column_match(model, ds).columns if c != ds.target])
        except EngineError:
            pass  # some of the model's columns are not features here (ignored, or the target): use the data's
        return Grower(part, state.current_config()).gain_table(0)
    return memo(("model_gain", id(model), tree.fingerprint, node_id), compute)


def render_node_data(model, tree, node_id: int) -> None:
    """The inspector's data part: the node's rows and its gain table as if grown here."""
    if not matching(model):
        return
    node = tree.nodes[node_id]
    _, _, note = rows_and_targets(model)
    st.markdown("**With the data set's rows**")
    if note:
        st.caption(md_escape(note))
    st.text(f"{node.n_node_samples:,} rows reach this node"
            + (f" · {node.criterion} {node.impurity:.3f}" if np.isfinite(node.impurity) else ""))
    try:
        table = node_gain_table(model, tree, node_id)
    except EngineError as err:
        st.caption(md_escape(err))
        return
    if table.empty:
        st.caption("No feature can split these rows (every feature takes one value here).")
        return
    view = gain_table_view(table)
    if node.split is not None:
        view.insert(1, "model", np.where(view["feature"] == node.split.feature, "◆", ""))
    st.caption("Gain table as if the app had grown this node with the active settings (★ its choice; ◆ the "
               "feature the model tests here).")
    st.dataframe(view, hide_index=True, width="stretch", column_config={
        **{c: st.column_config.NumberColumn(format="%.3f") for c in
           ("gain", "gain_ratio", "split_info", "impurity_children", "chi2", "p_value")}})
