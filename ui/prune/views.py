"""Prune page glue: where the tree and the held-out rows come from, each method's controls, and the result.

Each ``*_panel`` draws a method's controls and returns its ``engine`` PruneResult (or None when it cannot
run yet, after saying why). :func:`render_result` shows any result the same way: sizes and scores
before/after, the two diagrams side by side (pruned parts greyed in "before"), the step log and the
method's own per-node numbers. Results are remembered per session (:func:`memo`) on the tree's
fingerprint and the settings, so moving a slider back is instant.
"""

from __future__ import annotations

from collections import OrderedDict

import streamlit as st

from engine.errors import EngineError
from engine.prune.reduced_error import prune_manual, prune_reduced_error
from engine.prune.bottom_up import EVALUATIONS, prune_bottom_up
from engine.prune.pessimistic import prune_pessimistic
from engine.prune.cost_complexity import ccp_cross_validate, ccp_path, prune_ccp
from engine.split.wording import plural
from engine.viz.tree_figure import tree_figure
from engine.viz.prune_figs import alpha_path_figure, cv_figure
from ui import state, tree_view
from ui.grow import lesson_steps
from ui.classroom.presenter import render_prune_narration
from ui.grow.views import tree_fingerprint
from ui.widgets import cores_setting, flash, md_escape, shorten
from ui.charts import show_chart

MEMO, MEMO_SIZE, BIG_TREE = "_prune_memo", 16, 100
MANUAL, CV = "_prune_manual", "_prune_cv"
W_USE_TEST, W_ALPHA, W_K = "_w_prune_use_test", "_w_prune_alpha", "_w_prune_k"
W_CF, W_RAISE, W_COLLAPSE = "_w_prune_cf", "_w_prune_raise", "_w_prune_collapse"
W_EVAL, W_DELTA, W_NODE = "_w_prune_eval", "_w_prune_delta", "_w_prune_node"
W_SIDE, W_COMPACT = "_w_prune_side", "_w_prune_compact"


def memo(key, compute):
    """``compute()`` remembered in this session under (data version, ``key``) (the last few keys)."""
    store = st.session_state.get(MEMO)
    if not isinstance(store, OrderedDict):
        store = st.session_state[MEMO] = OrderedDict()
    full = (state.data_version(), key)
    if full not in store:
        store[full] = compute()
        while len(store) > MEMO_SIZE:
            store.popitem(last=False)
    store.move_to_end(full)
    return store[full]


# ----------------------------------------------------------------------------------- held-out rows
def _set_validation_share() -> None:
    try:
        settings = state.split_settings()
        state.set_split_settings(test_size=settings["test_size"], validation_size=0.2, seed=settings["seed"])
        state.current_grower().grow()
        flash("success", "20% of the rows are now validation rows; the tree was grown again on the rest.")
    except EngineError as err:
        flash("error", md_escape(err))


def held_out_rows(split, *, needed: bool):
    """(rows, name) the method checks its pruning on: the validation rows, or (if the user agrees) the test rows."""
    if split.validation is not None and len(split.validation):
        return split.validation, "validation"
    if not needed:
        return None, None
    has_test = split.test is not None and len(split.test) > 0
    notice = st.empty()  # the warning, or (once the test rows are used) what that costs
    if has_test and st.checkbox(f"Use the {len(split.test):,} test rows as validation rows", key=W_USE_TEST):
        notice.info("This method checks each cut on the test rows (the split has no validation rows), so "
                    "their score is no longer an unbiased estimate.", icon=":material/info:")
        return split.test, "test"
    notice.warning("The current split has no validation rows, and this method checks each cut on them.",
                   icon=":material/warning:")
    c1, c2 = st.columns(2)
    c1.page_link("pages/data.py", label="Set a validation share on the Data page", icon=":material/table_view:")
    c2.button("Use 20% of the rows for validation now (the tree is grown again)", key="prune_set_validation",
              on_click=_set_validation_share)
    return None, None


# ----------------------------------------------------------------------------------------- panels
def reduced_error_panel(tree, grower, split):
    st.caption("Bottom-up: a subtree becomes a leaf (its training majority) whenever that does not "
               "make more mistakes on the validation rows reaching it. Ties prune.")
    rows, name = held_out_rows(split, needed=True)
    if rows is None:
        return None
    return memo(("rep", tree_fingerprint(tree), name), lambda: prune_reduced_error(tree, rows))


def _set_alpha(value: float) -> None:
    st.session_state[W_ALPHA] = value


def ccp_panel(tree, grower, split):
    st.caption("R_α(T) = R(T) + α·|leaves|, R(T) = Σ_leaves (w_t/W)·impurity(t). Raising α cuts, one "
               "by one, the subtree with the smallest g(t) = (R(t) − R(T_t)) / (|leaves(T_t)| − 1).")
    rows, name = held_out_rows(split, needed=False)
    fp = tree_fingerprint(tree)
    path = memo(("path", fp, name), lambda: ccp_path(tree, train=grower.dataset, validation=rows))
    alphas = [float(a) for a in path.distinct_alphas]
    if st.session_state.get(W_ALPHA) not in alphas:
        st.session_state[W_ALPHA] = float(path.ccp_alphas[path.best_by_validation()]) if rows is not None else 0.0
    c1, c2, c3, c4 = st.columns([2, 1, 1, 1], vertical_alignment="bottom")
    k = c2.number_input("Folds k", 2, 10, 5, key=W_K)
    n_jobs = cores_setting(c3)
    if c4.button("Cross-validate", key="prune_run_cv", icon=":material/replay:"):
        bar = st.progress(0.0, text=f"Growing {k} trees, one per fold…")
        try:
            cv = ccp_cross_validate(grower.dataset, grower.config, k=int(k), seed=state.current_seed(), tree=tree,
                                    n_jobs=n_jobs, progress=lambda d, t: bar.progress(d / t, text=f"{d} of {t} folds"))
        finally:
            bar.empty()
        st.session_state[CV] = (state.data_version(), fp, int(k), cv)
    if rows is not None:
        best = float(path.ccp_alphas[path.best_by_validation()])
        c1.button(f"Best on {name} rows: α = {best:.4g}", key="prune_best_val", on_click=_set_alpha, args=(best,))
    else:
        c1.caption("No validation rows: choose α by cross-validation, or set a validation share on the Data page.")
    alpha = st.select_slider(
        "α (each value gives one tree of the path)", alphas, key=W_ALPHA,
        format_func=lambda a: f"{a:.4g} ({plural(int(path.n_leaves[path.index_for(a)]), 'leaf', 'leaves')})")
    show_chart(alpha_path_figure(path, chosen=alpha), key="prune_path_chart", width="stretch")
    cv = st.session_state.get(CV)
    if cv is not None and cv[:2] == (state.data_version(), fp):
        cv = cv[3]
        show_chart(cv_figure(cv), key="prune_cv_chart", width="stretch")
        b1, b2 = st.columns(2)
        b1.button(f"Use the smallest CV error: α = {cv.alpha_min:.4g}", key="prune_use_min",
                  on_click=_set_alpha, args=(cv.alpha_min,))
        b2.button(f"Use the 1-SE rule: α = {cv.alpha_1se:.4g}", key="prune_use_1se",
                  on_click=_set_alpha, args=(cv.alpha_1se,))
        with st.expander("Cross-validation table"):
            st.dataframe(cv.table.round(5), hide_index=True, width="stretch")
    with st.expander("Path table"):
        st.dataframe(path.table.round(5), hide_index=True, width="stretch")
    return memo(("ccp", fp, alpha), lambda: prune_ccp(tree, alpha))


def default_method(grower, split) -> str:
    """The method the page opens with: C4.5's own (pessimistic pruning, as J48 prunes) for a C4.5 tree;
    reduced-error pruning when the split has validation rows; else a method that needs none (pessimistic
    pruning for classification, cost complexity for regression), so the page does not open on a warning."""
    classification = grower.task == "classification"
    if grower.config.algorithm == "c45" and classification:
        return "pessimistic"
    if split.validation is not None and len(split.validation):
        return "reduced_error"
    return "pessimistic" if classification else "cost_complexity"


def pessimistic_panel(tree, grower, split):
    st.caption("C4.5 / Weka J48: a leaf with E errors among N rows is charged N·U_CF(E, N) errors, the "
               "upper confidence limit of its error rate. A subtree becomes a leaf when that does not "
               "raise the charge by more than 0.1.")
    if tree.task != "classification":
        st.info("Pessimistic pruning counts misclassified rows, so it works on classification trees only.")
        return None
    c1, c2, c3 = st.columns(3)
    cf = c1.slider("Confidence factor CF", 0.01, 0.5, 0.25, 0.01, key=W_CF,
                   help="Smaller CF = more pessimistic about small leaves = more pruning (J48: 0.25).")
    raising = c2.toggle("Subtree raising", value=True, key=W_RAISE,
                        help="Also try replacing a node by its largest child's subtree, re-routing the "
                             "node's training rows through it (J48 does this by default).")
    collapse = c3.toggle("Collapse first", value=True, key=W_COLLAPSE,
                         help="J48 first cuts subtrees that do not reduce the training errors at all.")
    return memo(("c45", tree_fingerprint(tree), cf, raising, collapse),
                lambda: prune_pessimistic(tree, cf=cf, subtree_raising=raising, collapse=collapse,
                                          train=grower.dataset))


def bottom_up_panel(tree, grower, split):
    st.caption("At each internal node, bottom-up, take the best f(T, m) of: keep it, a leaf of each class, "
               "or one of its children's subtrees in its place.")
    options = list(EVALUATIONS) if tree.task == "classification" else ["validation"]
    c1, c2 = st.columns([2, 1])
    evaluation = c1.selectbox("Evaluation function f(T, m)", options, key=W_EVAL, format_func=EVALUATIONS.get)
    delta, cf = 0.05, 0.25
    if evaluation == "mdl":
        delta = c2.slider("δ", 0.01, 0.5, 0.05, 0.01, key=W_DELTA)
        st.latex(r"f(T, m) = L_S(T) + \sqrt{\frac{|T| + \ln(2/\delta)}{2m}},\quad |T| = 5n + 1 + (n-1)\lceil\log_2 d'\rceil")
        st.caption("d′ = the tests a node can choose from: m + 1 thresholds per real-valued feature (the lecture "
                   "notes' reduction to binary features), plus the categorical tests (see the Theory page).")
    elif evaluation == "pessimistic":
        cf = c2.slider("Confidence factor CF", 0.01, 0.5, 0.25, 0.01, key=W_CF)
    rows, name = held_out_rows(split, needed=evaluation == "validation")
    if evaluation == "validation" and rows is None:
        return None
    return memo(("bottom_up", tree_fingerprint(tree), evaluation, delta, cf, name),
                lambda: prune_bottom_up(tree, evaluation=evaluation, train=grower.dataset, validation=rows,
                                        delta=delta, cf=cf))


def _manual_stack(tree) -> list:
    fp = (state.data_version(), tree_fingerprint(tree))
    box = st.session_state.get(MANUAL)
    if box is None or box["source"] != fp:
        box = st.session_state[MANUAL] = {"source": fp, "cuts": []}
    return box["cuts"]


def _cut(cuts: list) -> None:
    cuts.append(int(st.session_state[W_NODE]))


def manual_panel(tree, grower, split):
    st.caption("Choose a node (or click it in the “Before” diagram) and cut everything below it; Undo takes the "
               "last cut back.")
    cuts = _manual_stack(tree)
    current = prune_manual(tree, cuts).tree if cuts else tree
    c1, c2, c3, c4 = st.columns([3, 1, 1, 1], vertical_alignment="bottom")
    labels = {n.id: f"#{n.id}  {shorten(n.split.describe(), 50)}  (n = {n.n_node_samples})"
              for n in current.internal_nodes}
    if labels:
        if st.session_state.get(W_NODE) not in labels:
            st.session_state[W_NODE] = state.selected_node() if state.selected_node() in labels else next(iter(labels))
        c1.selectbox("Node", list(labels), key=W_NODE, format_func=labels.get)
        c2.button("Prune below", key="prune_manual_cut", icon=":material/content_cut:", on_click=_cut, args=(cuts,))
    else:
        c1.caption("The tree is a single leaf now: nothing left to cut.")
    c3.button("Undo", key="prune_manual_undo", disabled=not cuts, icon=":material/undo:", on_click=cuts.pop)
    c4.button("Start again", key="prune_manual_reset", disabled=not cuts, on_click=cuts.clear)
    return prune_manual(tree, cuts)


PANELS = {"reduced_error": reduced_error_panel, "cost_complexity": ccp_panel, "pessimistic": pessimistic_panel,
          "bottom_up": bottom_up_panel, "manual": manual_panel}


# ----------------------------------------------------------------------------------------- result
def _pick_for_manual_cut(node_id: int) -> None:
    st.session_state[W_NODE] = node_id  # the manual panel's node (it keeps only nodes that can be cut)


def _diagram(tree, *, key: str, compact, width, marked=(), marked_label="pruned", label: str = "Decision tree") -> None:
    """The interactive diagram (cut subtrees greyed when ``marked``), planned for ``width`` CSS px so every box
    is readable; a click on a node picks it for the manual cut, a click on a “+k nodes” box shows its subtree."""
    plan = tree_view.plan_for(tree, key=key, width=width, height=DIAGRAM_HEIGHT, compact=compact)
    tree_view.navigation(tree, plan, key=key, on_node=_pick_for_manual_cut)
    fig = memo(("tree_fig", key, tree_fingerprint(tree), plan.focus, plan.expanded, compact, width, tuple(marked)),
               lambda: tree_figure(tree, plan=plan, fit_height=True, compact=compact, marked=marked,
                                   marked_label=marked_label, uirevision=key))
    tree_view.show_figure(fig, key=key, tree=tree, on_node=_pick_for_manual_cut, plan=plan,
                          selected=st.session_state.get(W_NODE), label=label, marked=marked, marked_label=marked_label)


DIAGRAM_HEIGHT = 560  # CSS px: at most this tall; a view is planned for the width of its column
SIDE_WIDTH, FULL_WIDTH = 420, 880  # the narrowest width a half / the whole page gives a diagram


def diagram_options(tree) -> tuple[bool, bool]:
    """(side by side, compact boxes): controls shown for big trees only."""
    if tree.n_nodes <= BIG_TREE // 2:
        return True, False
    c2, c3 = st.columns(2, vertical_alignment="bottom")
    side = c2.toggle("Side by side", value=True, key=W_SIDE,
                     help="Off: each diagram takes the whole width and shows more of the tree.")
    compact = c3.toggle("Compact boxes", value=True, key=W_COMPACT)
    return side, compact


def _fmt(v) -> str:
    return f"{v:,.4g}" if isinstance(v, float) else str(v)


def use_on_grow_page(result) -> None:
    """Collapse the pruned nodes in the Grow page's grower (each collapse can be undone there)."""
    grower = st.session_state.get(state.GROWER)
    for nid in result.collapsed:
        grower.collapse(nid)
    state.set_grower(grower)
    lesson_steps.leave()
    flash("success", f"The Grow page's tree is now the pruned tree ({md_escape(plural(len(result.collapsed), 'node'))} collapsed; "
                     "Undo on the Grow page takes them back one by one).")


def render_result(result, parts: dict) -> None:
    """Sizes, scores, diagrams side by side, the step log, and the method's per-node numbers."""
    before, after = result.original, result.tree
    cols = st.columns(2 + len(result.summary))
    cols[0].metric("Leaves", after.n_leaves, after.n_leaves - before.n_leaves, delta_color="off")
    cols[1].metric("Nodes", after.n_nodes, after.n_nodes - before.n_nodes, delta_color="off")
    for col, (name, value) in zip(cols[2:], result.summary):
        col.metric(name, _fmt(value))
    scores = result.scores(parts)
    if len(scores):
        st.dataframe(scores.round(4), hide_index=True, width="content")
    side, compact = diagram_options(before)
    width = SIDE_WIDTH if side else FULL_WIDTH
    left, right = st.columns(2, gap="large") if side else (st.container(), st.container())
    with left:
        st.markdown(f"**Before** · {md_escape(plural(before.n_leaves, 'leaf', 'leaves'))}, greyed parts are cut")
        _diagram(before, key="prune_tree_before", compact=compact, width=width, marked=result.marked,
                 marked_label="pruned", label="Tree before pruning")
    with right:
        st.markdown(f"**After** · {md_escape(plural(after.n_leaves, 'leaf', 'leaves'))}")
        _diagram(after, key="prune_tree_after", compact=compact, width=width, label="Tree after pruning")
    st.caption(tree_view.HELP + " A click on a node of “Before” (or Enter in its tree) picks it for a manual cut.")
    if result.is_subtree and result.collapsed and st.session_state.get(state.GROWER) is not None:
        st.button("Use the pruned tree on the Grow page", key="prune_apply", icon=":material/check:",
                  on_click=use_on_grow_page, args=(result,))
    elif not result.is_subtree:
        st.caption("Subtrees were raised, so the result is not the Grow page's tree with cuts; it stays here.")
    st.subheader("Pruning log")
    log = result.log_frame()
    if len(log):
        st.dataframe(log.round(4), hide_index=True, width="stretch")
        render_prune_narration(result)
    else:
        st.caption("No decisions yet.")
    if result.node_table is not None:
        st.subheader("Estimated errors per node (original tree)")
        st.dataframe(result.node_table.round(4), hide_index=True, width="stretch")


def parts_of(grower, split) -> dict:
    """The named row sets scores are shown on (training rows = what the tree was grown on)."""
    return {"train": grower.dataset, "validation": split.validation, "test": split.test}

