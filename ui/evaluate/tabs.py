"""The Evaluate page's tabs: metrics, cross-validation, overfitting curve, learning curve, instability.

Each ``render_*`` function draws one tab from an :class:`ui.evaluate.context.EvalContext`. Forms hold
the controls of the expensive runs, so changing several numbers costs one run.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from engine.budget import MANY_CLASSES
from engine.evaluate.curves import learning_curve
from engine.evaluate.validation import cross_validate
from engine.evaluate.metrics import metric_label, metrics_for, scores_table
from engine.evaluate.stability import PERTURBATIONS, instability
from engine.split.wording import plural
from engine.viz import eval_figs
from ui import state
from ui.widgets import md_escape
from ui.evaluate import context as ec
from ui.charts import show_chart

TREE_CHOICES = ("grow", "full")
TREE_LABELS = {"grow": "The Grow page's tree", "full": "Fully grown tree (current settings)"}
HOLDOUT_NOTE = ("The current split has no test rows (small data trains on every row), so this tab holds "
                "out 30% of the training rows itself. Set a test share on the Data page to choose.")


def _holdout_note(ctx) -> None:
    if ctx.borrowed:
        st.info(HOLDOUT_NOTE, icon=":material/info:")


# ------------------------------------------------------------------------------------- metrics
def render_metrics(ctx) -> None:
    grow_tree = ec.grow_page_tree(ctx)
    if grow_tree is None:
        st.caption("The Grow page has no split yet, so this is the fully grown tree of the current settings.")
        tree = ec.full_grower(ctx).tree
    else:
        which = st.radio("Tree", TREE_CHOICES, format_func=TREE_LABELS.get, horizontal=True, key="eval_tree",
                         persist_state="session")
        tree = grow_tree if which == "grow" else ec.full_grower(ctx).tree
    st.caption(f"{md_escape(plural(tree.n_leaves, 'leaf', 'leaves'))}, depth {tree.depth:d}, "
               f"trained on {len(ctx.train):,} rows.")
    evals = ec.evaluations(tree, ctx)
    if ctx.test is None or len(ctx.test) == 0:
        st.info("There are no test rows, so only the training rows are scored (they flatter the tree). "
                "Set a test share on the Data page.", icon=":material/info:")
    table = scores_table(evals)
    st.dataframe(table, width="content", column_config={
        c: st.column_config.NumberColumn(format="%.4f") for c in table.columns})
    n_classes = len(ctx.train.classes) if ctx.task == "classification" else 0
    if n_classes > MANY_CLASSES:
        st.caption(f"The confusion matrices of {n_classes:,} classes ({n_classes ** 2:,} cells each) are not "
                   "drawn; the per-class table below has each class's precision and recall.")
    else:
        cols = st.columns(len(evals))
        for col, ev in zip(cols, evals):
            fig = (eval_figs.confusion_figure(ev) if ev.task == "classification"
                   else eval_figs.predicted_actual_figure(ev, seed=ctx.seed))
            show_chart(fig, where=col, key=f"eval_fig_{ev.name}", width="stretch")
    if ctx.task == "classification":
        names = [e.name for e in evals]
        pick = st.selectbox("Per-class precision, recall and F1 for", names, index=len(names) - 1,
                            key="eval_report_set")
        report = next(e for e in evals if e.name == pick).report
        st.dataframe(report, hide_index=True, width="stretch", column_config={
            c: st.column_config.NumberColumn(format="%.3f") for c in ("precision", "recall", "f1")})
        st.caption("precision = TP / (TP + FP) · recall = TP / (TP + FN) · F1 = 2PR / (P + R); "
                   "macro = mean over classes, weighted = mean weighted by support.")


# ---------------------------------------------------------------------------- cross-validation
def _run_cv(ctx, k: int):
    update, done = ec.progress_callback(f"Cross-validating ({k} folds)")
    try:
        return cross_validate(ctx.train, ctx.config, k=k, seed=ctx.seed, progress=update,
                              n_jobs=state.current_n_jobs())
    finally:
        done()


def render_cv(ctx) -> None:
    n = len(ctx.train)
    ec.check_rows(ctx.train, "Cross-validation")
    with st.form("eval_cv_form", border=False):
        k = st.number_input("Folds k", min_value=2, max_value=20, value=int(min(5, n)), key="eval_cv_k",
                            persist_state="session")
        run = st.form_submit_button("Run cross-validation", icon=":material/play_arrow:", key="eval_cv_run")
    last = ec.stored("cv", ctx)
    params = (int(k),)
    if run or last is None:
        result = ec.cached("cv", params, lambda: _run_cv(ctx, int(k)), ctx=ctx)
    else:
        params, result = last
    kind = "stratified " if ctx.task == "classification" else ""
    st.caption(f"{result.k:d} {kind}folds of the {n:,} training rows (seed {result.seed:d}); a tree of the "  # md-safe: kind is app text
               "current settings is grown on k − 1 folds and scored on the one left out.")
    m1, m2, m3 = st.columns(3)
    m1.metric(f"mean test {metric_label(result.metric)}", f"{result.mean():.4f}")
    m2.metric("standard deviation", f"{result.std():.4f}")
    m3.metric(f"mean train {metric_label(result.metric)}", f"{result.mean(part='train'):.4f}")
    metric = ec.metric_choice(ctx.task, "eval_cv_metric", include_f1=True)
    show_chart(eval_figs.cv_figure(result, metric), key="eval_cv_chart", width="stretch")
    st.dataframe(result.folds, hide_index=True, width="stretch")
    st.dataframe(result.summary(), hide_index=True, width="stretch")


# --------------------------------------------------------------------------- overfitting curve
def render_overfitting(ctx) -> None:
    _holdout_note(ctx)
    c1, c2 = st.columns(2)
    with c1:
        x = st.radio("Tree size", list(ec.X_AXES), format_func=ec.X_AXES.get, horizontal=True,
                     key="eval_curve_x", persist_state="session")
    with c2:
        metric = ec.metric_choice(ctx.task, "eval_curve_metric")
    table, grower = ec.curve_data(ctx, x)
    marker = ec.current_marker(ctx, table, x, metric)
    fig = eval_figs.growth_curve_figure(table, metric=metric, x=x, current=marker)
    show_chart(fig, key="eval_curve_chart", width="stretch")
    st.markdown(ec.best_point_text(table, metric, x))
    if x == "depth":
        st.caption("Each point is the tree cut at that depth (every node above it split).")
    else:
        st.caption(f"The tree of the current settings grown once on {len(ctx.curve_train):,} rows "
                   f"({md_escape(plural(grower.tree.n_leaves, 'leaf', 'leaves'))}); each point is the tree after "
                   "one more step.")
    if marker is None:
        st.caption("Grow a tree on the Grow page and its current step is marked here.")
    with st.expander("Curve data"):
        st.dataframe(table, hide_index=True, width="stretch")


# ------------------------------------------------------------------------------ learning curve
def _run_learning(ctx, n_sizes: int, repeats: int):
    sizes = tuple(np.linspace(1.0 / n_sizes, 1.0, n_sizes))
    update, done = ec.progress_callback("Growing trees on random subsets")
    try:
        return learning_curve(ctx.curve_train, ctx.curve_test, ctx.config, sizes=sizes, repeats=repeats,
                              seed=ctx.seed, metric=metrics_for(ctx.task)[0], progress=update,
                              n_jobs=state.current_n_jobs())
    finally:
        done()


def render_learning(ctx) -> None:
    _holdout_note(ctx)
    ec.check_rows(ctx.curve_train, "A learning curve")
    with st.form("eval_learning_form", border=False):
        c1, c2 = st.columns(2)
        n_sizes = c1.slider("Training-set sizes", 2, 10, 6, key="eval_lc_sizes", persist_state="session")
        repeats = c2.slider("Random subsets per size", 1, 20, 5, key="eval_lc_repeats", persist_state="session")
        run = st.form_submit_button("Run learning curve", icon=":material/play_arrow:", key="eval_lc_run")
    last = ec.stored("learning", ctx)
    if run or last is None:
        runs, summary = ec.cached("learning", (int(n_sizes), int(repeats)),
                                  lambda: _run_learning(ctx, int(n_sizes), int(repeats)), ctx=ctx)
    else:
        runs, summary = last[1]
    metric = metrics_for(ctx.task)[0]
    show_chart(eval_figs.learning_curve_figure(summary, metric=metric, runs=runs),
                    key="eval_lc_chart", width="stretch")
    st.caption(f"Scored on {len(ctx.curve_test):,} held-out rows. Lines: mean over the random subsets; "
               "band: ± one standard deviation; dots: single trees.")
    st.dataframe(summary, hide_index=True, width="stretch")


# --------------------------------------------------------------------------------- instability
def _run_instability(ctx, method: str, fraction: float, runs: int):
    update, done = ec.progress_callback("Growing trees on perturbed rows")
    try:
        return instability(ctx.curve_train, ctx.curve_test, ctx.config, runs=runs, method=method,
                           fraction=fraction, seed=ctx.seed, progress=update,
                           n_jobs=state.current_n_jobs())
    finally:
        done()


def render_instability(ctx) -> None:
    _holdout_note(ctx)
    ec.check_rows(ctx.curve_train, "Comparing trees")
    with st.form("eval_inst_form", border=False):
        c1, c2, c3 = st.columns([2, 1, 1])
        method = c1.selectbox("Perturbation", list(PERTURBATIONS), key="eval_inst_method", persist_state="session",
                              format_func=lambda m: f"{m}: {PERTURBATIONS[m]}")
        pct = c2.slider("Share of rows (%)", 1, 30, 5, key="eval_inst_pct", persist_state="session",
                        help="Rows flipped, jittered or left out (a bootstrap sample ignores it).")
        runs = c3.number_input("Runs", min_value=2, max_value=50, value=10, key="eval_inst_runs",
                               persist_state="session")
        run = st.form_submit_button("Run instability", icon=":material/play_arrow:", key="eval_inst_run")
    last = ec.stored("instability", ctx)
    if run or last is None:
        result = ec.cached("instability", (method, int(pct), int(runs)),
                           lambda: _run_instability(ctx, method, pct / 100.0, int(runs)), ctx=ctx)
    else:
        result = last[1]
    o = result.original
    st.text(f"Original tree: root {o['root']}, {plural(int(o['n_leaves']), 'leaf', 'leaves')}, depth {o['depth']}")
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("runs with the same root feature", f"{result.same_root_feature_share:.0%}",
              f"same test: {result.same_root_share:.0%}", delta_color="off", delta_arrow="off")
    change = result.runs[result.change_column].mean()
    m2.metric("mean agreement" if result.task == "classification" else "mean |change|",
              f"{change:.1%}" if result.task == "classification" else f"{change:.4g}")
    m3.metric("test rows that changed in some run", f"{result.unstable_share:.0%}")
    m4.metric(f"vote of the runs ({metric_label(result.metric)})", f"{result.vote_score:.3f}",
              f"{result.vote_score - o['test_score']:+.3f} vs original", delta_arrow="off")
    show_chart(eval_figs.instability_figure(result), key="eval_inst_chart", width="stretch")
    st.caption(f"Perturbation: {PERTURBATIONS[result.method]}. A small change in the rows can change the "
               "root and the whole tree below it; voting over many such trees (bagging, random forests) "
               "averages the changes away.")
    st.dataframe(result.runs, hide_index=True, width="stretch")
