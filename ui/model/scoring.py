"""The Evaluate and Prune pages while a model is open; both need a data set with the model's columns.

Evaluate: the model's metrics on the data set's rows (all of them, and the test rows of the active split
when it has some), the confusion matrix or predicted-against-actual plot and the per-class table, as
``engine.evaluate.metrics.Evaluation`` records made from the model's own predictions (all its trees).
Prune: one tree (a single-tree model, or one member of a forest) refitted on the data set's rows and pruned
by reduced error (on the test rows, or all rows without a split) or cost complexity (α), shown before and
after; a boosted tree's leaves are scores that only make sense summed, so boosted trees are not pruned.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from engine.evaluate.metrics import (Evaluation, accuracy, confusion_matrix, metrics_for, per_class_scores,
                                     regression_scores, scores_table)
from engine.prune.cost_complexity import ccp_path, prune_ccp
from engine.prune.reduced_error import prune_reduced_error
from engine.split.wording import plural
from engine.viz import eval_figs
from ui import state, tree_view
from ui.model.common import class_names, current_tree, member_label, member_picker, shown_tree
from ui.model.with_data import data_tree, matching, rows_and_targets
from ui.widgets import md_escape, shorten
from ui.charts import show_chart

W_PRUNE, W_ALPHA = "_w_model_prune_method", "_w_model_alpha"
PRUNE_METHODS = {"reduced_error": "Reduced error", "cost_complexity": "Cost complexity (α)"}
NEEDS_DATA = ("This needs rows with the model's columns and target: open a CSV of them on the Data page "
              "(the Data page says which columns are missing).")


def test_positions() -> np.ndarray | None:
    """Positions (into the data set) of the active split's test rows, or None when there are none."""
    split = state.current_split()
    if split.test is None or len(split.test) == 0:
        return None
    ids = np.asarray(state.current_dataset().row_ids)
    order = np.argsort(ids, kind="stable")
    pos = order[np.searchsorted(ids, split.test.row_ids, sorter=order)]
    return pos.astype(np.int64)


def model_evaluation(model, X, y, name: str, names: dict | None = None) -> Evaluation:
    """The model's predictions on encoded rows ``X`` against targets ``y`` (its labels or numbers), scored;
    ``names``: the label shown for each model class (default the class itself)."""
    if model.task == "regression":
        pred = np.asarray(model.predict(X), dtype=float)
        scores = regression_scores(y.astype(float), pred)
        return Evaluation(name, "regression", (), y.astype(float), pred, {m: scores[m] for m in metrics_for("regression")})
    classes = list(model.classes)
    codes = {c: k for k, c in enumerate(classes)}
    true = np.asarray([codes[str(v)] for v in y], dtype=np.int64)
    pred = np.argmax(model.predict_proba(X), axis=1)
    cm = confusion_matrix(true, pred, len(classes))
    shown = tuple((names or {}).get(c, c) for c in classes)
    report = per_class_scores(cm, shown)
    acc = accuracy(true, pred)
    return Evaluation(name, "classification", shown, true, pred,
                      {"accuracy": acc, "error": 1.0 - acc, "macro_f1": float(report["f1"].iloc[-2])}, cm, report)


def evaluations(model) -> list[Evaluation]:
    X, y, _ = rows_and_targets(model)
    names = class_names(model, state.current_dataset())
    out = [model_evaluation(model, X, y, "all rows", names)]
    test = test_positions()
    if test is not None:
        out.append(model_evaluation(model, X[test], y[test], "test rows", names))
    return out


def render_evaluate(model) -> None:
    """The Evaluate page's body with a model open (the page calls it and stops)."""
    st.caption(f"How well the model **{md_escape(shorten(state.current_model_name(), 60))}** predicts the "
               "data set's rows (all its trees, as its own library would). Close it on the Data page to evaluate "
               "trees grown here.")
    if not matching(model):
        st.info(NEEDS_DATA, icon=":material/info:")
        return
    _, _, note = rows_and_targets(model)
    if note:
        st.caption(md_escape(note))
    evals = evaluations(model)
    st.dataframe(scores_table(evals), width="content")
    cols = st.columns(len(evals))
    for col, ev in zip(cols, evals):
        fig = eval_figs.confusion_figure(ev) if ev.task == "classification" else eval_figs.predicted_actual_figure(ev)
        show_chart(fig, where=col, key=f"model_eval_{ev.name.split()[0]}", width="stretch")
    if model.task == "classification":
        st.dataframe(evals[-1].report, hide_index=True, width="stretch", column_config={
            c: st.column_config.NumberColumn(format="%.3f") for c in ("precision", "recall", "f1")})
    st.caption("Were these rows used to train the model? Scores on its training rows flatter it.")


def _prune(model, tree, method: str, held: tuple):
    if method == "reduced_error":
        return prune_reduced_error(tree, held)
    path = ccp_path(tree)
    alphas = [float(a) for a in path.distinct_alphas]
    if st.session_state.get(W_ALPHA) not in alphas:
        st.session_state[W_ALPHA] = alphas[0]
    alpha = st.select_slider(
        "α (each value gives one tree of the path)", alphas, key=W_ALPHA,
        format_func=lambda a: f"{a:.4g} ({plural(int(path.n_leaves[path.index_for(a)]), 'leaf', 'leaves')})")
    return prune_ccp(tree, alpha)


def render_prune(model) -> None:
    """The Prune page's body with a model open (the page calls it and stops)."""
    st.caption(f"Prune one tree of the model **{md_escape(shorten(state.current_model_name(), 60))}** on the "
               "data set's rows. Close the model on the Data page to prune trees grown here.")
    if model.kind == "additive":
        st.info("A boosted tree's leaves hold scores that only make sense summed over all the trees, so one of "
                "them is not pruned alone; a single-tree model or a forest's member can be.", icon=":material/info:")
        return
    if not matching(model):
        st.info(NEEDS_DATA, icon=":material/info:")
        return
    cols = st.columns([1, 3], vertical_alignment="bottom")
    t = member_picker(model, cols[0])
    cols[1].markdown(f"**{md_escape(member_label(model, t))}**")
    tree = data_tree(model, current_tree(model), t)
    if tree.n_leaves < 2:
        st.info("This tree is a single leaf: there is nothing to prune.")
        return
    X, y, _ = rows_and_targets(model)
    test = test_positions()
    held = (X[test], y[test]) if test is not None else (X, y)
    held_name = "the test rows" if test is not None else "all rows of the data set (there are no test rows)"
    if st.session_state.get(W_PRUNE) not in PRUNE_METHODS:
        st.session_state[W_PRUNE] = "reduced_error"
    method = st.segmented_control("Method", list(PRUNE_METHODS), key=W_PRUNE, format_func=PRUNE_METHODS.get,
                                  required=True)
    if method == "reduced_error":
        st.caption(f"Bottom-up, a subtree becomes a leaf when that makes no more mistakes on {md_escape(held_name)}.")
    result = _prune(model, tree, method, held)
    c = st.columns(3)
    c[0].metric("Leaves", result.tree.n_leaves, result.tree.n_leaves - tree.n_leaves, delta_color="off")
    c[1].metric("Nodes", result.tree.n_nodes, result.tree.n_nodes - tree.n_nodes, delta_color="off")
    scores = result.scores({"all rows": (X, y), **({"test": held} if test is not None else {})})
    st.dataframe(scores.round(4), hide_index=True, width="content")
    left, right = st.columns(2, gap="large")
    with left:
        st.markdown(f"**Before** · {md_escape(plural(tree.n_leaves, 'leaf', 'leaves'))}, greyed parts are cut")
        tree_view.tree_chart(shown_tree(model, tree, t), key=f"model_prune_before_{t}", width=420, compact=True,
                             marked=result.marked, marked_label="pruned", caption=False)
    with right:
        st.markdown(f"**After** · {md_escape(plural(result.tree.n_leaves, 'leaf', 'leaves'))}")
        tree_view.tree_chart(shown_tree(model, result.tree), key=f"model_prune_after_{t}", width=420, compact=True,
                             caption=False)
    log = result.log_frame()
    if len(log):
        st.dataframe(pd.DataFrame(log).round(4), hide_index=True, width="stretch")
