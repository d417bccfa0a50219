"""Node inspector: why a node was split the way it was, and how to split it differently.

For the chosen node: the gain table (every feature's best split, the winner starred; the test and the rules'
score shown, every column in "All columns"), one candidate's
arithmetic with its real numbers (parent impurity, weighted children, gain), the class counts of its
children, the threshold scan of its feature, and the override: force that candidate (for numeric
features any threshold; for subset / equals splits any grouping) with ``Grower.expand``, or collapse
the node's subtree with ``Grower.collapse``. An open leaf can be decided at once (``Grower.step(node_id)``:
the user picks which leaf grows next) and an internal node's subtree folded or opened in the diagram.
"""

from __future__ import annotations

from contextlib import contextmanager
from functools import partial

import numpy as np
import pandas as pd
import streamlit as st

from engine.errors import EngineError
from engine.split.gain import candidate_scan, evaluate_test, gain_latex, impurity_latex
from engine.split.records import Split, format_number
from engine.split.wording import set_text, shorter_side
from engine.tree.paths import values_at
from engine.viz.tree_labels import short_branch
from engine.grow.stopping import STOP_REASONS
from engine.viz.figures import class_distribution_figure, threshold_scan_figure
from engine.viz.tree_layout import subtree_sizes, trail_to
from ui import state, tree_view
from ui.grow import lesson_steps
from ui.errors import show_engine_error
from ui.grow.exports import csv_bytes, file_stem
from ui.grow import views
from ui.grow.views import memo, tree_fingerprint
from ui.widgets import flash, md_escape, shorten
from ui.charts import show_chart

W_NODE = "_w_grow_node"
SLIDER_MAX = 200  # thresholds offered on a slider; more than this: a number input
TABLE_COLUMNS = ["best", "feature", "split", "gain", "gain_ratio", "split_info", "impurity_children",
                 "chi2", "p_value", "n_children", "counts", "eligible"]


def node_label(node) -> str:
    """``#3 · Humidity <= 72.5`` for a split node, ``#4 · leaf: Yes (pure)``, ``#5 · open leaf: Yes``."""
    pred = node.prediction if isinstance(node.prediction, str) else format_number(round(node.prediction, 4))
    if not node.is_leaf:
        return f"#{node.id} · {shorten(node.split.describe(), 50)}"
    if node.stop_reason is None:
        return f"#{node.id} · open leaf: {shorten(pred, 30)}"
    return f"#{node.id} · leaf: {shorten(pred, 30)} ({node.stop_reason.replace('_', ' ')})"


def gain_table_view(table: pd.DataFrame) -> pd.DataFrame:
    """The engine's gain table with a ``best`` star column first (for display and CSV)."""
    view = table[[c for c in TABLE_COLUMNS if c in table.columns]]  # a new frame: ``table`` is not changed
    view.insert(0, "best", np.where(table["winner"].astype(bool), "★", ""))
    return view


#: the gain table's columns as people read them, with the CSV's raw name and its meaning on hover
TABLE_HEADERS = {
    "feature": ("Feature", "the feature tested"),
    "split": ("Best test", "the feature's best test at this node"),
    "gain": ("Gain", "the parent's impurity minus the children's weighted impurity"),
    "gain_ratio": ("Gain ratio", "gain / split info (C4.5's score)"),
    "split_info": ("Split info", "entropy of the children's sizes: how finely the test cuts the rows"),
    "impurity_children": ("Children's impurity", "the children's impurity, weighted by their rows"),
    "chi2": ("χ²", "Pearson's chi-square of the children x classes table"),
    "p_value": ("p-value", "the chance of a χ² this large if the test had nothing to do with the class"),
    "n_children": ("Branches", "the number of children"),
    "counts": ("Class counts per child", "rows of each class in each child, children separated by |"),
    "eligible": ("Eligible", "whether the rules may choose this test (C4.5: gain at least the average)"),
}


#: the narrow table's columns (a 346 px column at 1366 px): the test (it names its feature), the score the
#: rules rank by and, for the gain ratio, whether the rules may choose the test; "All columns" shows the rest
COMPACT_COLUMNS = {"gain": ["best", "split", "gain"], "gain_ratio": ["best", "split", "gain_ratio", "eligible"]}
W_ALL_COLUMNS = "_w_grow_gain_all"


def compact_columns(score: str | None) -> list[str]:
    """The gain table's columns shown in the inspector for the rules' ``score`` (``gain`` or ``gain_ratio``)."""
    return COMPACT_COLUMNS.get(score or "gain", COMPACT_COLUMNS["gain"])


def gain_table_columns() -> dict:
    """``column_config`` of the gain table: readable headers, the raw (CSV) name and meaning on hover."""
    config = {"best": st.column_config.TextColumn("", width="small", help="★ = the split the rules choose")}
    for name, (label, meaning) in TABLE_HEADERS.items():
        help_text = f"{meaning} (`{name}` in the CSV)"
        if name in ("gain", "gain_ratio", "split_info", "impurity_children", "chi2", "p_value"):
            config[name] = st.column_config.NumberColumn(label, format="%.3f", help=help_text, width="small")
        elif name in ("n_children", "eligible"):
            config[name] = st.column_config.Column(label, help=help_text, width="small")
        else:
            config[name] = st.column_config.TextColumn(label, help=help_text)
    return config


def branch_texts(split: Split, categories=()) -> list[str]:
    """What each child of ``split`` holds, in full: ``<= 72.5``, ``Sunny``, ``∉ {Europe}`` (a category set by
    its shorter side among ``categories``, the values a row at the node can hold; every value listed)."""
    if split.kind not in ("subset", "equals"):
        return [short_branch(b) for b in split.branch_labels()]
    inside = set(split.categories)
    positive, side = shorter_side([v for v in categories if v in inside] if categories else split.categories,
                                  categories)
    return [set_text(positive == (c == 0), side, symbols=True) for c in range(2)]


def child_table(split: Split, classes, task: str, categories=()) -> pd.DataFrame:
    """One row per child of ``split``: branch, rows, class counts (or mean), impurity share."""
    labels = branch_texts(split, categories)
    rows = []
    for i, (stats, w) in enumerate(zip(split.child_stats, split.child_weights)):
        row = {"branch": labels[i], "weight": w}
        if task == "regression":
            row["mean"] = stats[1] / stats[0] if stats[0] else np.nan
        else:
            row.update({str(c): v for c, v in zip(classes, stats)})
        rows.append(row)
    return pd.DataFrame(rows)


NODE_CHOICES = 400  # nodes listed in the select box of a bigger tree (with the selected node's path and children)


def node_choices(tree, selected: int | None = None) -> dict[int, str]:
    """``{node id: node_label}`` in walk order, remembered per tree (12,000 labels took ~0.2 s a click).

    With ``selected``, a tree of more than :data:`NODE_CHOICES` nodes lists the first of them in walk order,
    the path from the root to ``selected`` and its children: the select box's options travel to the browser
    on every click (12,000 of them were a large part of a click's time); "Go to node #" reaches any node."""
    every = views.memo(("node_choices", tree_fingerprint(tree)), lambda: {n.id: node_label(n) for n in tree.walk()})
    if selected is None or len(every) <= NODE_CHOICES or selected not in every:
        return every

    def some():
        node = tree.nodes[selected]
        wanted = set(list(every)[:NODE_CHOICES]) | set(trail_to(tree, selected)) | set(node.children or ())
        return {i: label for i, label in every.items() if i in wanted}
    return views.memo(("node_choices", tree_fingerprint(tree), selected), some)


def _sync_node(tree, key: str) -> int:
    ids = node_choices(tree)
    sel = state.selected_node()
    if sel not in ids:
        sel = 0
        state.select_node(0)
    if st.session_state.get(key) != sel:
        st.session_state[key] = sel
    return sel


def _on_node(key: str) -> None:
    value = st.session_state.get(key)
    if isinstance(value, int):
        state.select_node(value)


def _scan(grower, node_id: int, feature: str):
    """``candidate_scan`` of one feature at a node, remembered for the current tree."""
    return memo(("scan", tree_fingerprint(grower.tree), node_id, feature),
                lambda: candidate_scan(grower, node_id, feature))


def _test_for(grower, node, feature: str, best: Split | None, key: str) -> Split | None:
    """Widgets choosing the test on ``feature`` (threshold / value / subset); the chosen Split."""
    ds = grower.dataset
    j = ds.feature_names.index(feature)
    current = node.split if node.split is not None and node.split.feature == feature else best
    if ds.kind(feature) == "numeric":
        scan = _scan(grower, node.id, feature)
        if scan.empty:
            return None
        thr = scan["threshold"].to_numpy(dtype=float)
        default = float(current.threshold) if current is not None and current.threshold is not None else thr[0]
        if len(thr) <= SLIDER_MAX:
            opts = [float(t) for t in thr]
            if default not in opts:
                default = opts[int(np.argmin(np.abs(thr - default)))]
            t = st.select_slider(f"Threshold: {md_escape(shorten(feature, 30))} <= t", opts, value=default,
                                 format_func=format_number, key=key + "_thr")
        else:
            t = st.number_input(f"Threshold: {md_escape(shorten(feature, 30))} <= t", value=default, key=key + "_thr",
                                format="%.6g")
        return Split(feature=feature, feature_index=j, kind="threshold", threshold=float(t))
    mode = grower.config.categorical_split
    cats = ds.categories[feature]
    if mode == "multiway":
        return current
    if mode == "equals":
        default = current.categories[0] if current is not None else cats[0]
        v = st.selectbox(f"{md_escape(shorten(feature, 30))} = value (against the rest)", cats,
                         index=cats.index(default) if default in cats else 0, key=key + "_eq")
        return Split(feature=feature, feature_index=j, kind="equals", categories=(v,),
                     category_codes=(cats.index(v),))
    default = list(current.categories) if current is not None else [cats[0]]
    left = st.multiselect(f"{md_escape(shorten(feature, 30))}: values going left (the rest go right)", cats,
                          default=[c for c in default if c in cats], key=key + "_sub")
    if not left:
        st.caption("Choose at least one value for the left branch.")
        return None
    left = sorted(left, key=cats.index)
    return Split(feature=feature, feature_index=j, kind="subset", categories=tuple(left),
                 category_codes=tuple(cats.index(c) for c in left))


def _gain_tables(view: pd.DataFrame, score: str | None, *, narrow: bool) -> None:
    """The gain table narrow enough for its column (the test, its score, the star), every column one click
    away in "All columns" (drawn only while open). The narrow table holds every column's data (its CSV and
    the tests read them) and shows :func:`compact_columns`; below the wide diagram it keeps its columns'
    widths (stretched over the page they were mostly blank)."""
    config = gain_table_columns()
    shown = compact_columns(score)
    # pixel widths that add up to less than the 346 px column; the table stretches them when it has more room
    widths = {"best": 36, "split": 230 if len(shown) == 3 else 160, "gain": 72, "gain_ratio": 72, "eligible": 66}
    for name in shown:
        config[name] = {**config[name], "width": widths[name]}
    st.dataframe(view, hide_index=True, width="stretch" if narrow else "content", column_config=config,
                 column_order=shown)
    every = st.expander("All columns", key=W_ALL_COLUMNS, on_change="rerun", icon=":material/table_view:")
    with every:
        if every.open:  # a column no candidate has a value in (chi-square on a regression tree) is left out
            filled = [c for c in view.columns if not view[c].isna().all()]
            st.dataframe(view, hide_index=True, width="stretch", column_config=gain_table_columns(),
                         column_order=filled)


def _explain(grower, node, split: Split) -> None:
    crit = grower.crit.name
    # the result first, then the terms, two a line: the whole sum fits a 346 px column (1366 px screens)
    st.latex(impurity_latex(node.stats, crit))
    st.latex(gain_latex(split, crit))
    if grower.config.score == "gain_ratio":
        st.latex(rf"\text{{gain ratio}} = \frac{{{split.gain:.3f}}}{{{split.split_info:.3f}}} = {split.gain_ratio:.3f}")
    cats = values_at(grower.tree, node.id, split.feature_index) if split.kind in ("subset", "equals") else ()
    table = child_table(split, grower.dataset.classes, grower.task, cats)
    st.dataframe(table, hide_index=True, width="stretch",
                 column_config={"weight": st.column_config.NumberColumn("rows", format="%.4g")})
    if split.kind == "subset" and max(len(b) for b in table["branch"]) > 30:  # a cell shows only its start
        st.caption(f"First branch: {md_escape(split.feature)} "  # every value, not the cell's start:
                   f"{md_escape(table['branch'][0], limit=None)}; the second holds the rest.")


def render_inspector(grower, *, narrow: bool = False) -> None:
    """The node inspector (see module docstring); ``narrow`` (beside the diagram): its two columns stacked."""
    tree = grower.tree
    # The labels change as the tree grows, so the widget is keyed on the tree (selection kept in state).
    key = f"{W_NODE}_{tree_fingerprint(tree)}"
    sel = _sync_node(tree, key)
    if st.session_state.get(views.DRAWN_SELECTED, sel) != sel:
        st.rerun()  # chosen here (the fragment reran alone): redraw the page so the diagram outlines it
    choices = node_choices(tree, sel)
    st.selectbox("Node", list(choices), key=key, on_change=_on_node, args=(key,), format_func=choices.__getitem__,
                 help="Or click a box in the diagram, or a point in the region plot to pick the leaf it falls in.")
    node = tree.node(sel)
    pred = node.prediction if isinstance(node.prediction, str) else format_number(round(node.prediction, 4))
    st.text(f"{node.n_node_samples:,} rows · {grower.crit.name} {node.impurity:.3f} · predicts {pred}"
            + (f" · stopped: {STOP_REASONS.get(node.stop_reason, node.stop_reason)}" if node.stop_reason else ""))
    table = grower.gain_table(sel)
    if table.empty:
        st.info("No feature can split this node (every feature takes one value here, or the children "
                "would be too small).")
    else:
        if grower.searches_histogram(node.id):
            st.caption(f"Histogram search: numeric thresholds at bin resolution (bin edges of at most "
                       f"{grower.config.max_bins:,} quantile bins per feature), not every midpoint.")
        elif grower.config.split_search == "histogram":
            st.caption(f"Histogram search hands this node to the exact search: it has at most "
                       f"{grower.config.max_bins:,} rows (no more than bins), so every midpoint is tried.")
        view = gain_table_view(table)
        _gain_tables(view, grower.config.score, narrow=narrow)
        # deferred: the CSV is written when the button is clicked, not on every Step
        st.download_button("Gain table (CSV)", partial(csv_bytes, view), key="_w_grow_dl_gain", on_click="ignore",
                           file_name=f"{file_stem(state.current_dataset_name())}_gain_node{sel}.csv",
                           mime="text/csv", icon=":material/download:")
    _diagram_buttons(grower, node)  # after the table: beside the diagram the table comes first, in view
    left, right = (st.container(), st.container()) if narrow else st.columns([1, 1], gap="large")
    with left, chart_box("Class counts chart", W_DIST_CHART, tree) as shown:
        if shown:
            fig = memo(("class_dist", tree_fingerprint(tree), sel), lambda: class_distribution_figure(tree, sel))
            show_chart(fig, key="grow_class_dist", lead="Classes of the selected node's rows", width="stretch")
    if table.empty:
        return
    ranked = grower.candidates(sel)
    features = [s.feature for s in ranked]
    default = node.split.feature if node.split is not None and node.split.feature in features else features[0]
    with right:
        feature = st.selectbox("Explain the candidate split on", features, index=features.index(default),
                               key=f"_w_grow_cand_{sel}", format_func=lambda f: shorten(f, 50))
        best = ranked[features.index(feature)]
        j = grower.dataset.feature_names.index(feature)
        test = _test_for(grower, node, feature, best, key=f"_w_grow_test_{sel}_{j}")
    split = None
    if test is not None:
        try:
            split = evaluate_test(grower, sel, test)
        except EngineError as err:
            show_engine_error(err)
    if split is not None:
        with left:
            _explain(grower, node, split)
        with right:
            scan = _scan(grower, sel, feature)
            if len(scan) > 1:
                with chart_box("Threshold scan chart", W_SCAN_CHART, tree) as shown:
                    if shown:
                        chosen = split.threshold if split.kind == "threshold" else split.describe()
                        fig = memo(("scan_fig", tree_fingerprint(tree), sel, feature, chosen),
                                   lambda: threshold_scan_figure(scan, chosen=chosen))
                        show_chart(fig, key="grow_scan", lead="Gain of every threshold of the feature", width="stretch")
                        if grower.searches_histogram(sel) and grower.schema.kinds[
                                grower.schema.feature_names.index(feature)] == "numeric":
                            st.caption("Thresholds at bin resolution: one candidate per histogram bin edge.")
    with right:
        _override_buttons(grower, node, split, narrow=narrow)


W_DIST_CHART, W_SCAN_CHART = "_w_grow_dist_chart", "_w_grow_scan_chart"
#: The inspector's two charts are open by default while the tree has at most this many nodes. A new Plotly chart
#: costs the browser ~0.15 s of CPU (its text is measured with forced layouts of the whole page, which on a big
#: tree holds the region plot's points and the diagram): on a big tree they wait behind a click on their
#: expander, so that a click on a box settles in a second on a loaded machine (benchmarks/bench_grow_click.py).
CHARTS_OPEN_UP_TO = 100


@contextmanager
def chart_box(label: str, key: str, tree):
    """An expander for one of the inspector's charts; yields whether it is open (the chart is drawn only then).
    Open by default on a tree of at most :data:`CHARTS_OPEN_UP_TO` nodes, until the user opens or closes it."""
    ss = st.session_state
    if not ss.get(key + "_chosen"):
        ss[key] = int(subtree_sizes(tree)[0]) <= CHARTS_OPEN_UP_TO  # remembered per tree: no walk on a click
    box = st.expander(label, key=key, on_change=_chart_chosen, args=(key,), icon=":material/bar_chart:")
    with box:
        yield bool(box.open)


def _chart_chosen(key: str) -> None:
    st.session_state[key + "_chosen"] = True


def _diagram_buttons(grower, node) -> None:
    """Split an open leaf now (the user picks which leaf grows next), or fold / open a subtree's boxes."""
    if node.id in grower.open_nodes:
        if st.button(f"Split node {node.id} now", key="_w_grow_split_now", type="primary", icon=":material/bolt:",
                     help="Decide this open leaf now instead of in its turn: it is split by its best split "
                          "(the one Step would choose), or closed if a stopping rule holds."):
            try:
                rec = grower.step(node.id)
                lesson_steps.leave()
                if rec is not None and rec.action == "split":
                    flash("success", f"Node {node.id:d} split: {md_escape(rec.split.describe())}.")
                elif rec is not None:
                    reason = dict(rec.stopped).get(node.id)
                    flash("info", f"Node {node.id:d} closed: {md_escape(STOP_REASONS.get(reason, reason))}.")
            except EngineError as err:
                flash("error", md_escape(err))
            st.rerun()
    elif not node.is_leaf and node.id != 0:
        folded = tree_view.is_folded(grower.tree, node.id, key=views.TREE_KEY, max_depth=views.diagram_depth())
        if st.button(f"Open node {node.id}'s subtree" if folded else f"Fold node {node.id}'s subtree",
                     key="_w_grow_fold", icon=":material/unfold_more:" if folded else ":material/unfold_less:",
                     help="Only the diagram changes: a folded subtree is one “+k nodes” box (click it to open)."):
            tree_view.set_folded(views.TREE_KEY, node.id, not folded, grower.tree)
            st.rerun()


def _override_buttons(grower, node, split: Split | None, *, narrow: bool = False) -> None:
    applied = split is not None and node.split is not None and split.same_test(node.split)
    c1, c2 = (st.container(), st.container()) if narrow else st.columns(2)  # beside the diagram: one a line
    if c1.button(f"Split node {node.id} this way", key="_w_grow_force", disabled=split is None or applied,
                 type="primary", help="Replaces the node's subtree (if any) by this split; its children "
                                      "stay open for Step.", icon=":material/call_split:"):
        try:
            grower.expand(node.id, split)
            lesson_steps.leave()  # a split of the user's own: Step no longer walks the prepared lesson
            flash("success", f"Node {node.id:d} split by hand: {md_escape(split.describe())}.")
        except EngineError as err:
            flash("error", md_escape(err))
        st.rerun()
    if c2.button(f"Collapse node {node.id}", key="_w_grow_collapse", disabled=node.is_leaf,
                 help="Removes the subtree below this node; it becomes a leaf.", icon=":material/unfold_less:"):
        try:
            grower.collapse(node.id)
            lesson_steps.leave()
            flash("success", f"Node {node.id:d} collapsed into a leaf.")
        except EngineError as err:
            flash("error", md_escape(err))
        state.select_node(node.id)
        st.rerun()
