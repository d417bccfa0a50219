"""Grow page views: the tree diagram, the step log, and the region plot.

Everything heavy is memoised per session (:func:`memo`) on a fingerprint of the tree, so reruns that do
not change the tree (a query point, switching tabs) reuse the diagram, the DOT text and figures.
The figures themselves come from ``engine.viz``; this module only wires them to widgets.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pandas as pd
import streamlit as st

from engine.grow.stopping import STOP_REASONS
from engine.viz.dot import dot_source
from engine.viz.tree_figure import MODEBAR_PX, NODE, box_outline, clicked_node, tree_figure
from engine.viz.tree_layout import subtree_sizes
from ui import state, tree_view
from ui.charts import overlay_shapes, show_chart
from ui.widgets import md_escape, shorten

MEMO = "_grow_memo"
MEMO_SIZE = 24
MEDIUM_TREE = 15  # more nodes than this: offer compact boxes
COMPACT_TREE = 40  # more nodes than this when the toggle first appears: compact boxes by default
BIG_TREE = 100  # more nodes than this: fold levels deeper than a chosen depth
WIDE_LEAVES = 7  # from this many leaves the diagram takes the page's whole width (its boxes stay readable)
LOG_RUNNER_UP_LIMIT = 400  # runner-ups are listed for at most this many recent steps


# ------------------------------------------------------------------------------------- caching
def tree_fingerprint(tree) -> int:
    """A hash of the tree's shape and tests (changes whenever a step, undo or override changes it);
    computed once per tree object (``Tree.fingerprint``; the Grower hands out one object per state)."""
    return tree.fingerprint


def memo(key, compute):
    """``compute()`` remembered in this session under ``key`` (the last :data:`MEMO_SIZE` keys)."""
    store = st.session_state.get(MEMO)
    if not isinstance(store, OrderedDict):
        store = st.session_state[MEMO] = OrderedDict()
    full = (state.data_version(), key)
    if full in store:
        store.move_to_end(full)
        return store[full]
    value = compute()
    store[full] = value
    while len(store) > MEMO_SIZE:
        store.popitem(last=False)
    return value


# ------------------------------------------------------------------------------------- diagram
TREE_KEY = "grow_tree"  # the diagram's chart (its selection event is kept under this key)
# CSS px each diagram is planned for: the narrowest width the page gives it at 1366 px (measured in Chromium:
# the whole page 906-940 px, so the diagram's three fifths beside the inspector (ui/grow/layout.SIDE_RATIO,
# a 1rem gap) ~534 px; presenter view the whole page 1176 px, three fifths 690 px)
DIAGRAM_WIDTH, WIDE_WIDTH = 520, 900
PRESENTER_WIDTH, PRESENTER_WIDE = 660, 1100  # at a 1366 px screen; wider screens: presenter_width
PRESENTER_SCREEN, PRESENTER_MARGIN = 1366, 190  # presenter view's page is the window less ~190 px of margins
DIAGRAM_HEIGHT = 640  # a constant height (and so constant axes): the user's zoom survives Step and Play
# presenter view: 8 levels at 16 px (ski grown to the end), below the one-row header, plus the mode bar's strip
PRESENTER_HEIGHT = 620 + MODEBAR_PX


def diagram_source(tree, **kw) -> str:
    """DOT text of the tree for the download (memoised on the tree's fingerprint and the drawing options)."""
    opts = tuple(sorted((k, tuple(v) if isinstance(v, (list, tuple, set)) else v) for k, v in kw.items()))
    return memo(("dot", tree_fingerprint(tree), opts), lambda: dot_source(tree, **kw))


def _select_clicked(node_id: int) -> None:
    state.select_node(node_id)


DRAWN_SELECTED = "_grow_diagram_selected"  # the node the diagram outlined last
DRAWN_TREE = "_grow_diagram_tree"  # the fingerprint of the tree it drew


TREE_BOX = "grow_tree_box"  # the container of the diagram (the selected box's outline is drawn into it)
CHART_REV = "_grow_diagram_rev"  # bumped to give the diagram a fresh chart (see chart_revision)


def chart_revision(selected: int) -> int:
    """A number that changes (and so makes the diagram a new chart in the browser) when the box the chart itself
    has selected is not the inspector's node: the node was chosen elsewhere (Go to node, the inspector, the region
    plot) after a click on a box. Plotly keeps a clicked box selected in a chart that is not sent again, and a
    second click on a selected box deselects it (an empty event): without a fresh chart that click would do
    nothing."""
    hit = clicked_node(st.session_state.get(TREE_KEY))
    rev = int(st.session_state.get(CHART_REV, 0))
    if hit is not None and hit[1] == NODE and hit[0] != selected:
        rev += 1
        st.session_state[CHART_REV] = rev
    return rev


def _revised(fig, rev: int):
    """``fig`` with ``rev`` in its layout's meta (a new revision is a new chart for Streamlit)."""
    fig.layout.meta = {**fig.layout.meta, "rev": rev}
    return fig


def diagram_depth() -> None:
    """Kept for callers of the old fold-by-depth diagram: the view is planned, no depth is folded."""
    return None


def presenter_width(screen: int, wide: bool) -> int:
    """CSS px the presenter view's diagram is planned for in a window ``screen`` px wide (its page is the window
    less the margins; the diagram has the same share of it as at 1366 px)."""
    base = PRESENTER_WIDE if wide else PRESENTER_WIDTH
    page = max(int(screen), PRESENTER_SCREEN) - PRESENTER_MARGIN
    return int(base * page / (PRESENTER_SCREEN - PRESENTER_MARGIN))


def presenter_height(screen: int) -> int:
    """CSS px of presenter view's diagram in a 16:9 window ``screen`` px wide (1366x768, 1920x1080, 2560x1440):
    the 1366 px height plus the window's extra height (the header row above it keeps its size)."""
    return PRESENTER_HEIGHT + max(0, round(int(screen) * 9 / 16) - 768)


def render_diagram(tree, *, highlight=None, path=None, big: bool = False, wide: bool = False,
                   screen: int = PRESENTER_SCREEN):
    """Draw the tree as the interactive Plotly diagram: a planned view whose every box is readable.

    ``highlight``: node drawn with a thick black outline (the last split); ``path``: node ids of a query
    point's path; the inspector's node gets a blue outline (and is always drawn: the view's focus moves up
    to its parent if needed). A click selects a node in the inspector, a click on a ``+k nodes`` box shows
    the subtree below it. ``big``: presenter view (16 px text). ``wide``: the diagram has the page's whole
    width. ``screen``: presenter view's window width in CSS px (the plan is made for it). Returns the figure
    drawn. The view's focus moves only when the user selects a node that is not drawn while the tree stays the
    same (a Step selects its new node but keeps the view).
    """
    compact, n_nodes = False, int(subtree_sizes(tree)[0])  # remembered per tree: no walk on a click
    if n_nodes > MEDIUM_TREE and not big:
        compact_key = "_w_grow_compact"
        if compact_key not in st.session_state:
            st.session_state[compact_key] = n_nodes > COMPACT_TREE
        compact = st.toggle("Compact boxes", key=compact_key,
                            help="Only the test (or class) and n in each box; hover or the inspector shows the "
                                 "rest. Compact boxes leave room for more levels.")
    width = presenter_width(screen, wide) if big else (WIDE_WIDTH if wide else DIAGRAM_WIDTH)
    height = presenter_height(screen) if big else DIAGRAM_HEIGHT
    selected, last = state.selected_node(), st.session_state.get(DRAWN_SELECTED)
    fp, last_fp = tree_fingerprint(tree), st.session_state.get(DRAWN_TREE)
    st.session_state[DRAWN_SELECTED], st.session_state[DRAWN_TREE] = selected, fp
    moved = last is not None and last_fp == fp and last != selected
    plan = tree_view.plan_for(tree, key=TREE_KEY, width=width, height=height, big=big, compact=compact)
    if moved and selected not in plan.drawn:  # a box already drawn keeps the view (and the chart) as it is
        plan = tree_view.plan_for(tree, key=TREE_KEY, width=width, height=height, big=big, compact=compact,
                                  keep=selected)
    tree_view.navigation(tree, plan, key=TREE_KEY, on_node=_select_clicked, goto=not big)  # projector: the tree first
    # the figure does not depend on the selected node: a click on a box does not resend or redraw the diagram; the
    # selected box's outline is drawn onto the chart the browser has (ui.charts.overlay_shapes), as the region's is
    rev = chart_revision(selected)
    fig = memo(("tree_fig", tree_fingerprint(tree), plan.focus, plan.expanded, highlight, tuple(path or ()), compact,
                big, width, height, rev), lambda: _revised(tree_figure(
                    tree, plan=plan, highlight=highlight, path=path, compact=compact, big=big, uirevision=TREE_KEY), rev))
    with st.container(key=TREE_BOX):
        tree_view.show_figure(fig, key=TREE_KEY, tree=tree, on_node=_select_clicked, plan=plan, selected=selected,
                              label="Decision tree being grown")
        overlay_shapes(TREE_BOX, box_outline(plan, selected))
    if not big:
        st.caption("Click a box to inspect it (an open leaf can be split right away), or Tab to the diagram's tree, walk "
                   "it with the arrow keys and press Enter; a “+k nodes” box shows "
                   "the subtree below it, the buttons above lead back up. Drag to pan; the wheel zooms after a click in "
                   "the diagram (or with Ctrl held); double-click for the whole view. Black outline: the last split; blue: the node in the inspector.")
    return fig


# ------------------------------------------------------------------------------------ step log
def _stopped_text(stopped) -> str:
    return ", ".join(f"{nid} ({reason.replace('_', ' ')})" for nid, reason in stopped)


def step_log_frame(grower, runner_up_limit: int = LOG_RUNNER_UP_LIMIT) -> pd.DataFrame:
    """One row per history record: step, action, node, split, gain, runner-up, its gain, stopped leaves.

    Runner-ups (a split search at the node) are filled for the last ``runner_up_limit`` steps.
    """
    history = grower.history
    first_ru = max(0, len(history) - runner_up_limit)
    rows = []
    for rec in history:
        ru = rec.runner_up if rec.action == "split" and rec.index >= first_ru else None
        rows.append({
            "step": rec.index + 1, "action": rec.action,
            "node": rec.node_id if rec.node_id is not None else pd.NA,
            "split": rec.split.describe() if rec.split is not None else "",
            "gain": rec.split.gain if rec.split is not None else np.nan,
            "runner_up": ru.describe() if ru is not None else "",
            "runner_up_gain": ru.gain if ru is not None else np.nan,
            "stopped": _stopped_text(rec.stopped),
        })
    cols = ["step", "action", "node", "split", "gain", "runner_up", "runner_up_gain", "stopped"]
    frame = pd.DataFrame(rows, columns=cols)
    frame["node"] = frame["node"].astype("Int64")
    return frame


def step_log_view(log: pd.DataFrame) -> pd.DataFrame:
    """The step log as shown, newest first: a step without a node or gain (finish, collapse) has empty
    cells there, not a grey "None"; gains to 3 decimals (the CSV keeps the numbers)."""
    view = log.iloc[::-1].copy()
    view["node"] = [f"{int(v):d}" if pd.notna(v) else "" for v in view["node"]]
    for col in ("gain", "runner_up_gain"):
        view[col] = [f"{v:.3f}" if pd.notna(v) else "" for v in view[col]]
    return view


def cached_step_log(grower) -> pd.DataFrame:
    return memo(("log", tree_fingerprint(grower.tree), len(grower.history), grower.n_steps),
                lambda: step_log_frame(grower))


def render_step_log(grower, *, height: int | None = None) -> pd.DataFrame:
    """The step log table (newest step first); returns the frame (oldest first) for the CSV export."""
    log = cached_step_log(grower)
    if log.empty:
        st.caption("No steps yet: press **Step** to split the root.")
        return log
    st.dataframe(
        step_log_view(log), hide_index=True, width="stretch", height=height or min(36 * len(log) + 40, 360),
        column_config={
            "step": st.column_config.NumberColumn("Step", format="%d", width="small"),
            "action": st.column_config.TextColumn("Action", width="small",
                                                  help="split: automatic; forced: chosen by hand; "
                                                       "collapse: subtree removed by hand; finish: "
                                                       "open leaves closed by a stopping rule"),
            "node": st.column_config.TextColumn("Node", width="small"),
            "split": st.column_config.TextColumn("Split", width="medium"),
            "gain": st.column_config.TextColumn("Gain"),
            "runner_up": st.column_config.TextColumn("Runner-up", width="medium"),
            "runner_up_gain": st.column_config.TextColumn("Runner-up gain"),
            "stopped": st.column_config.TextColumn("Leaves closed (reason)", width="large"),
        })
    return log


def stop_reason_legend(tree) -> str:
    """The stop reasons used by the tree's leaves, as ``reason: phrase`` lines ("" when none stopped yet);
    remembered per tree (a walk of 12,000 nodes on every click)."""
    def legend():
        used = sorted({n.stop_reason for n in tree.leaves if n.stop_reason})
        return "\n".join(f"{r.replace('_', ' ')}: {STOP_REASONS.get(r, r)}" for r in used)
    return memo(("stop_legend", tree_fingerprint(tree)), legend)


def split_features(tree) -> frozenset:
    """The features the tree's splits test, remembered per tree."""
    return memo(("split_features", tree_fingerprint(tree)),
                lambda: frozenset(n.split.feature for n in tree.internal_nodes))


# -------------------------------------------------------------------------------- region plot
W_X, W_Y, W_VIEW = "_w_grow_x", "_w_grow_y", "_w_grow_view"
REGION_KEY = "grow_regions"
REGION_BOX = "grow_region_box"  # the container of the region plot (its highlight is drawn into it)
REGION_HEIGHT = 500  # pixels: the plot and the diagram fit one screen under the toolbar
REGION_HEIGHT_BIG = 640  # presenter view


def presenter_figure(fig, big: bool):
    """``fig`` with projector-sized text (presenter view), else as it is."""
    if big:  # attribute by attribute: an update_layout call re-validates more of the figure
        fig.layout.font.size = 19
        fig.layout.legend.font.size = 19
    return fig
AXES_AUTO = "_grow_axes_auto"  # True while the axes follow the tree (the user has not picked any)


def _axes_chosen() -> None:
    st.session_state[AXES_AUTO] = False


def rows_from_selection(selection) -> list[int]:
    """Row positions carried in ``customdata`` by the selected points of a region plot event.

    ``selection`` is what ``st.plotly_chart(on_select=...)`` returns (or stores under its key):
    ``{"selection": {"points": [{"customdata": {"0": row}, ...}, ...]}}`` (Streamlit 1.67 sends a
    row of 2-D customdata as a dict; a list ``[row]`` or a bare number also work). Points without
    row data (leaf-id labels, the query star) are skipped.
    """
    try:
        points = selection["selection"]["points"]
    except (KeyError, TypeError):
        return []
    rows = []
    for p in points or ():
        cd = p.get("customdata") if isinstance(p, dict) else None
        if isinstance(cd, dict):  # a row of 2-D customdata arrives as {"0": row}
            cd = cd.get("0", next(iter(cd.values()), None))
        if isinstance(cd, (list, tuple)):
            cd = cd[0] if cd else None
        if isinstance(cd, (int, float, np.integer, np.floating)) and not isinstance(cd, bool) \
                and float(cd).is_integer():
            rows.append(int(cd))
    return rows


def leaf_of_rows(tree, X: np.ndarray, rows) -> int | None:
    """The leaf holding most of the given rows of ``X`` (ties: the smaller leaf id); None if no rows."""
    rows = [r for r in rows if 0 <= r < X.shape[0]]
    if not rows:
        return None
    leaves = tree.apply(X[np.asarray(rows)])
    ids, counts = np.unique(leaves, return_counts=True)
    return int(ids[np.argmax(counts)])


def _on_region_select() -> None:
    grower = st.session_state.get(state.GROWER)
    if grower is None:
        return
    leaf = leaf_of_rows(grower.tree, grower.dataset.X, rows_from_selection(st.session_state.get(REGION_KEY)))
    if leaf is not None:
        state.select_node(leaf)


#: The region plot's drag tool. Streamlit turns Plotly's ``clickmode`` to plain "event" (no selection
#: on click) whenever the figure's ``dragmode`` is "select" or "lasso"; with "zoom" a click selects the
#: point under the mouse, and the box tool in the chart's toolbar still selects many.
CLICKABLE_DRAGMODE = "zoom"


def default_axes(grower, numeric: list[str]) -> tuple[str, str]:
    """The two numeric features with the best splits of the root (stable while the tree grows)."""
    ranked = [s.feature for s in grower.candidates(0) if s.feature in numeric]
    ranked += [f for f in numeric if f not in ranked]
    return ranked[0], ranked[1]


def region_focus(tree, selected: int, last: int | None) -> int | None:
    """The node whose region the plot outlines: the inspector's node, or the last split while the root is chosen
    (or the chosen node is gone after an undo)."""
    if selected <= 0 or selected >= len(tree.nodes) or tree.nodes[selected] is None:
        return last
    node = tree.nodes[selected]
    while node.parent is not None:  # still attached to the root (not under a collapsed node)?
        parent = tree.nodes[node.parent]
        if parent is None or node.id not in parent.children:
            return last
        node = parent
    return selected


def subtree_leaves(tree, node_id: int | None) -> tuple[int, ...]:
    """Leaves below ``node_id`` (the region the last step split), or () for None."""
    if node_id is None:
        return ()
    return tuple(n.id for n in tree.walk(node_id) if n.is_leaf)


def has_region_plot(grower) -> bool:
    """Whether :func:`render_regions` draws a figure (two numeric features, or a regression tree)."""
    train = state.current_split().train
    numeric = [f for f in grower.dataset.feature_names if train.kind(f) == "numeric"]
    return grower.task == "regression" or len(numeric) >= 2


def render_regions(grower, *, highlight=None, query=None, two_features=None, set_two_features=None,
                   big: bool = False) -> None:
    """The region plot of two numeric features (regression with one: the step function).

    ``big``: presenter view (taller plot, larger text).
    """
    from engine.viz.regions import (highlight_shapes, region_figure, region_layer, region_points,
                                    regression_fit_figure)

    tree, ds = grower.tree, grower.dataset
    full = state.current_split().train
    numeric = [f for f in full.feature_names if full.kind(f) == "numeric"]
    have = set(ds.feature_names)  # a new tuple on every access: read once (1,000 columns made this quadratic)
    usable = [f for f in numeric if f in have]
    fp = tree_fingerprint(tree)
    drawn = set(usable)
    qkey = None if query is None else tuple(sorted((k, v) for k, v in query.items() if k in drawn))
    if tree.task == "regression" and (len(usable) < 2 or st.radio(
            "View", ["Regions of two features", "Prediction along one feature"], key=W_VIEW,
            horizontal=True, label_visibility="collapsed") != "Regions of two features"):
        feats = list(ds.feature_names)
        f = st.selectbox("Feature", feats, key=W_X + "_fit", format_func=lambda v: shorten(v, 40))
        fig = memo(("fit", fp, f, qkey, big), lambda: presenter_figure(
            regression_fit_figure(tree, ds.frame, ds.y, f, query=query), big))
        show_chart(fig, key="grow_fit", lead="The tree's prediction against the feature", width="stretch")
        return
    if len(usable) < 2:
        names = ", ".join(numeric) if numeric else "none"
        st.info(f"The region plot needs two numeric features; this data set has {len(numeric):d} "
                f"({md_escape(names)}). The diagram and the rules show the whole tree.")
        return
    ss = st.session_state
    if ss.get(W_X) not in usable or ss.get(W_Y) not in usable or ss.get(AXES_AUTO, True):
        # until the user picks axes: the two numeric features with the best root splits
        ss[W_X], ss[W_Y] = two_features or default_axes(grower, usable)
        ss[AXES_AUTO] = True
    c1, c2 = st.columns(2)
    x = c1.selectbox("x axis", usable, key=W_X, format_func=lambda v: shorten(v, 40), on_change=_axes_chosen)
    y = c2.selectbox("y axis", [f for f in usable if f != x] or usable, key=W_Y,
                     format_func=lambda v: shorten(v, 40), on_change=_axes_chosen)
    if x == y:
        st.info("Choose two different features for the axes.")
        return
    hl = subtree_leaves(tree, highlight)
    seed = state.current_seed()

    # the rows do not change while the tree grows: their traces are kept across Steps (the grower's Dataset is
    # one object until the data, split, settings or grower change, which moves the memo's data version on;
    # ds.frame is a new shallow copy on every access, so not its id). A sample spread over classes and parts
    # of the plot above MAX_POINTS rows: more add no picture, only megabytes the browser redraws on a click.
    points = memo(("region_points", id(ds), x, y, seed, tree.task), lambda: region_points(
        tree, ds.frame, np.asarray(ds.classes, dtype=object)[ds.y] if tree.task == "classification" else ds.y,
        x, y, seed=seed))
    # the leaf regions (merged on a grid when there are many) are kept while only the highlight moves (a click)
    layer = memo(("region_layer", fp, x, y, points.box), lambda: region_layer(tree, x, y, points.box))
    # the figure does not change with the selection: a click on a box does not resend or redraw its points;
    # the outline of the selected node's region is drawn onto the chart the browser has (ui.charts.overlay_shapes)
    fig = memo(("regions", fp, x, y, qkey, big), lambda: presenter_figure(region_figure(
        tree, ds.frame, None, x, y, query=query, seed=seed, points=points, layer=layer,
        height=REGION_HEIGHT_BIG if big else REGION_HEIGHT, dragmode=CLICKABLE_DRAGMODE), big))
    with st.container(key=REGION_BOX):
        show_chart(fig, key=REGION_KEY, lead="The tree's regions over two features", on_select=_on_region_select,
                        selection_mode=("points", "box"), width="stretch")
        overlay_shapes(REGION_BOX, highlight_shapes(layer, hl))
    sample = (f"Showing {points.n_shown:,} of {points.n_known:,} rows, a sample spread over the classes and the "
              "plot. " if points.n_shown < points.n_known else "")
    st.caption(sample + "Click a point (or drag a box) to inspect its leaf. Thick border: the region of the node "
               "in the inspector (the root: of the last split).")
    if two_features:
        st.info(f"Two-feature mode: this tree grows on {md_escape(two_features[0])} and "
                f"{md_escape(two_features[1])} only.", icon=":material/filter_2:")
        st.button("Use all features again", on_click=set_two_features, args=(None,), key="_w_grow_all_feats")
    elif split_features(tree) - {x, y}:
        others = sorted(split_features(tree) - {x, y})
        st.caption(f"The tree also tests {md_escape(', '.join(shorten(o, 40) for o in others[:6]))}"
                   + (" …" if len(others) > 6 else "") + ": the rectangles only show its tests on these two axes.")
        st.button(f"Grow on {md_escape(shorten(x, 20))} and {md_escape(shorten(y, 20))} only", on_click=set_two_features,
                  args=((x, y),), key="_w_grow_two_feats", icon=":material/filter_2:",
                  help="Starts a new tree that may only use these two features (clearly labelled).")
