"""Ensembles page panels: the vote for one row, the members (diagram, in-bag / out-of-bag), the decision
map next to one member's regions, size and variance curves, importances, why one row gets its answer
(:mod:`ui.why`). AdaBoost rounds are in
:mod:`ui.ensembles.rounds`.

Results that cost a pass over all members are remembered per session under the ensemble's identity
(:func:`memo`), so moving a slider does not recompute the rest.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pandas as pd
import streamlit as st

from engine import ensembles
from engine.split.wording import plural
from engine.viz import ensemble_figs as figs
from engine.viz.regions import region_figure
from ui import state, tree_view, why
from ui.access import aria_tree
from ui.feature_table import FEW, row_frame, split_counts, value_table
from ui.widgets import md_escape, shorten
from ui.charts import show_chart

MEMO = "_ens_memo"
W_MEMBER, W_SOURCE, W_ROW = "_w_ens_member", "_w_ens_source", "_w_ens_row"
W_X, W_Y, W_PERM = "_w_ens_x", "_w_ens_y", "_w_ens_perm"
SOURCES = {"test": "a test row", "train": "a training row", "query": "a query point"}
BIG_TREE = 80  # more nodes than this: compact boxes
MEMBER_WIDTH = 560  # CSS px the member tree is planned for (the narrowest width the page gives it)


def memo(key, compute):
    """``compute()`` remembered in this session under ``key`` (the last 24 keys)."""
    store = st.session_state.get(MEMO)
    if not isinstance(store, OrderedDict):
        store = st.session_state[MEMO] = OrderedDict()
    if key not in store:
        store[key] = compute()
        while len(store) > 24:
            store.popitem(last=False)
    store.move_to_end(key)
    return store[key]


def member_picker(ens, label: str = "Member", where=None) -> int:
    if st.session_state.get(W_MEMBER, 0) >= ens.n_members:
        st.session_state[W_MEMBER] = 0
    where = where or st.columns([1, 2])[0]
    return int(where.number_input(f"{label} (0 to {ens.n_members - 1})", 0, ens.n_members - 1, key=W_MEMBER))


def member_diagram(tree, *, path=None) -> None:
    """The member tree as the interactive diagram (a planned view with readable boxes; a click on a “+k nodes”
    box shows its subtree); ``path``: node ids of the row's path, drawn in magenta, its leaf always shown."""
    # one chart per member tree: its focus and its zoom belong to that tree
    tree_view.tree_chart(tree, key=f"ens_member_tree_{tree.fingerprint & 0xFFFFFFFF:x}", width=MEMBER_WIDTH,
                         compact=tree.n_nodes > BIG_TREE, path=path, selected=path[-1] if path else None)


# ------------------------------------------------------------------------------------------ vote
def _query_row(train, ens) -> pd.DataFrame:
    base = figs.typical_row(train.schema, train.frame)
    names, kinds = train.feature_names, train.schema.kinds
    with st.expander("Query point values", expanded=True):
        if len(names) > FEW:
            categories = {n: list(train.schema.categories[j]) for j, n in enumerate(names) if kinds[j] != "numeric"}
            tests = memo(("tests", ens), lambda: split_counts([m.tree for m in ens.members], names))
            values = value_table(names, kinds, categories, base, key="_w_ens_q", tests=tests,
                                 tester="the members' splits", number_format="%.4g",
                                 default_text="the training rows' typical value (median, or most frequent label)")
            return row_frame(names, kinds, values)
        values = {}
        cols = st.columns(4)
        for j, name in enumerate(names):
            key = f"_w_ens_q_{j}"
            box = cols[j % 4]
            if kinds[j] == "numeric":
                values[name] = box.number_input(md_escape(name), value=float(base[name]), key=key, format="%.4g")
            else:
                cats = list(train.schema.categories[j])
                values[name] = box.selectbox(md_escape(name), cats,
                                             index=cats.index(base[name]) if base[name] in cats else 0,
                                             key=key)
    return pd.DataFrame([values])


def pick_row(split, ens) -> tuple[pd.DataFrame, str]:
    """(one-row frame, description) chosen by the user: a test row, a training row or a query point."""
    has_test = split.test is not None and len(split.test) > 0
    options = [s for s in SOURCES if s != "test" or has_test]
    if st.session_state.get(W_SOURCE) not in options:
        st.session_state[W_SOURCE] = options[0]
    source = st.segmented_control("Vote on", options, format_func=SOURCES.get, key=W_SOURCE, required=True)
    if source == "query":
        return _query_row(split.train, ens), "the query point"
    data = split.test if source == "test" else split.train
    n = len(data)
    if st.session_state.get(W_ROW, 0) >= n:
        st.session_state[W_ROW] = 0
    pos = int(st.columns([1, 2])[0].number_input(f"Row (0 to {n - 1} of the {SOURCES[source][2:]}s)", 0, n - 1,
                                                  key=W_ROW))
    row = data.frame.iloc[[pos]]
    return row, f"row {int(data.row_ids[pos])} of the table (class {row[data.target].iloc[0]})" \
        if data.task == "classification" else f"row {int(data.row_ids[pos])} of the table"


def vote_sentence(vb) -> str:
    """The vote's outcome in words: ``Yes wins, 7 of 10 votes (weight share 0.70); No 3``; regression: the mean."""
    if vb.task != "classification":
        return f"the mean prediction is {float(vb.winner):.4g}"
    tally = vb.tally.sort_values("weight", ascending=False)
    top = tally.iloc[0]
    rest = "; ".join(f"{c} {int(v):d}" for c, v in zip(tally["class"].iloc[1:], tally["votes"].iloc[1:]) if v)
    return (f"{vb.winner} wins, {int(top['votes']):d} of {int(tally['votes'].sum()):d} votes (weight share "
            f"{float(top['share']):.2f})" + (f"; {rest}" if rest else ""))


def render_vote(ens, split) -> None:
    row, what = pick_row(split, ens)
    vb = ensembles.vote_breakdown(ens, row)
    with aria_tree.status("ens_vote"):  # a screen reader hears the outcome when the row changes
        st.caption(f"How the {ens.n_members:d} members vote on {md_escape(what)}: {md_escape(vote_sentence(vb))}.")
    st.dataframe(row, hide_index=True)
    left, right = st.columns([3, 2], gap="large")
    show_chart(figs.vote_figure(vb), where=left, key="ens_vote_chart", lead="How the members vote for this row")
    with right:
        st.dataframe(vb.tally, hide_index=True, column_config={
            "weight": st.column_config.NumberColumn(format="%.3f"),
            "share": st.column_config.NumberColumn(format="%.3f"),
            "value": st.column_config.NumberColumn(format="%.4g")})
        st.dataframe(vb.members, hide_index=True, height=260,
                     column_config={"weight": st.column_config.NumberColumn(format="%.3f")})
    m = member_picker(ens, "Open member")
    tree = ens.members[m].tree
    path = [nid for nid, _ in tree.decision_path(row)]
    st.caption(f"Member {m:d} predicts {md_escape(shorten(vb.members['prediction'].iloc[m]))} for this row (its path is marked).")
    member_diagram(tree, path=path)


def render_why(ens, split) -> None:
    """Why this prediction: the members' path contributions and SHAP values of the vote shares (or mean)."""
    row, what = pick_row(split, ens)
    st.caption(f"Why the {ens.n_members:d} members give their answer on {md_escape(what)}: the explained output is "
               + ("each class's vote share." if ens.task == "classification" else "the members' mean."))
    why.render_row(ens, row, key="ens_why")
    why.render_summary(ens, split.train.frame, key="ens_why", ident=("ens", id(ens), state.data_version()))


# ------------------------------------------------------------------------------------------ members
def render_members(ens, train) -> None:
    m = member_picker(ens)
    member = ens.members[m]
    tree = member.tree
    facts = [f"{plural(tree.n_leaves, 'leaf', 'leaves')}, depth {tree.depth}", f"seed {member.seed}",
             f"vote weight {member.weight:.3f}"]
    if len(member.features) < len(train.feature_names):
        facts.append(f"may use only {len(member.features)} features (A_{m}): " + ", ".join(member.features))
    st.text(" · ".join(facts))
    left, right = st.columns([3, 2], gap="large")
    with left:
        member_diagram(tree)
        if ens.params.get("feature_sampling") == "node":
            with st.expander(f"The features drawn at each split (k = {ens.params['k_features']:d})"):
                draws = memo(("draws", ens, m), lambda: ensembles.node_feature_draws(ens, train, m))
                st.dataframe(draws, hide_index=True, width="stretch")
    with right:
        if ens.in_bag is None:
            st.info("This member was trained on every training row (no bootstrap), so it has no out-of-bag rows.")
            return
        counts = ens.in_bag[m]
        show_chart(figs.inbag_figure(counts), key="ens_inbag", lead="How often each row was drawn into a bootstrap sample")
        oob = np.flatnonzero(counts == 0)
        pred = ens.train_outputs[m, oob]
        truth = ens.train_y[oob]
        if ens.task == "classification":
            labels = np.asarray(ens.classes, dtype=object)
            frame = pd.DataFrame({"row": train.row_ids[oob], "class": labels[truth], "member says": labels[pred]})
            st.caption(f"Member {m:d} on its {oob.size:,} out-of-bag rows: accuracy {np.mean(pred == truth):.3f}.")
        else:
            frame = pd.DataFrame({"row": train.row_ids[oob], "value": truth, "member says": pred})
            st.caption(f"Member {m:d} on its {oob.size:,} out-of-bag rows: MSE {np.mean((pred - truth) ** 2):.4g}.")
        st.dataframe(frame, hide_index=True, height=240)
        drawn = ens.bootstrap_indices(m)
        st.caption("The first draws (row positions, with repeats): " + ", ".join(map(str, drawn[:30]))
                   + (" ..." if drawn.size > 30 else ""))


# ------------------------------------------------------------------------------------------ regions
def numeric_features(ds) -> list[str]:
    return [n for n, k in zip(ds.feature_names, ds.schema.kinds) if k == "numeric"]


def pick_xy(ds, prefix: str = "", where=None) -> tuple[str, str] | None:
    nums = numeric_features(ds)
    if len(nums) < 2:
        st.info("The decision map needs two numeric features; this data set has "
                f"{len(nums):d}. Try the ski, iris or noisy moons sample.")
        return None
    kx, ky = prefix + W_X, prefix + W_Y
    if st.session_state.get(kx) not in nums:
        st.session_state[kx] = nums[0]
    if st.session_state.get(ky) not in nums:
        st.session_state[ky] = nums[1]
    c1, c2 = (where if where is not None else st).columns(2)
    x = c1.selectbox("x axis", nums, key=kx)
    y = c2.selectbox("y axis", nums, key=ky)
    if x == y:
        st.warning("Pick two different features for the axes.")
        return None
    return x, y


def render_regions(ens, train) -> None:
    c1, c2 = st.columns([2, 1])
    xy = pick_xy(train, where=c1)
    if xy is None:
        return
    x, y = xy
    m = member_picker(ens, "Member shown on the right", where=c2)
    labels = train.frame[train.target]
    left, right = st.columns(2, gap="large")
    fig = memo(("map", ens, x, y), lambda: figs.ensemble_region_figure(
        ens, train.frame, labels, x, y, title=f"Vote of all {ens.n_members} members"))
    show_chart(fig, where=left, key="ens_map", lead="The ensemble's decision map")
    tree = ens.members[m].tree
    with right:
        if x in tree.schema.feature_names and y in tree.schema.feature_names:
            show_chart(region_figure(tree, train.frame, labels, x, y, height=520, show_leaf_ids=False),
                       key="ens_member_regions", lead=f"Regions of member {m:d} alone")
            st.caption(f"Member {m:d} alone: hard boxes. The vote smooths them (pale = members disagree).")
        else:
            st.info(f"Member {m:d} may not use both {md_escape(shorten(x))} and {md_escape(shorten(y))} "
                    f"(its features: {md_escape(', '.join(shorten(f, 30) for f in tree.schema.feature_names))}).")


# ------------------------------------------------------------------------------------------ curves
def render_curves(ens, split) -> None:
    test = split.test if split.test is not None and len(split.test) else None
    curve = memo(("curve", ens), lambda: ensembles.size_curve(ens, test))
    left, right = st.columns(2, gap="large")
    show_chart(figs.size_curve_figure(curve), where=left, key="ens_size_curve", lead="Accuracy against the number of members")
    rows = test if test is not None else split.train
    with right:
        report = memo(("variance", ens), lambda: ensembles.error_correlation(ens, rows))
        show_chart(figs.variance_figure(report), key="ens_variance", lead="Spread of the members' predictions")
    st.code(report.arithmetic(), language=None)
    what = "the test rows" if test is not None else "the training rows (there are no test rows)"
    st.caption(f"Errors measured on {md_escape(what)}. e_m(x) is member m's error on row x (0/1 wrong for classes, the "
               "residual for numbers); σ² is the variance of one member's error over the rows, ρ the average "
               "correlation between two members' errors, and Var(ē) the variance of their average.")


def render_importances(ens, split) -> None:
    imp = memo(("impurity", ens), lambda: ensembles.impurity_importances(ens))
    perm_key = ("perm", ens)
    store = st.session_state.get(MEMO) or {}
    perm = store.get(perm_key)
    oob = ens.in_bag is not None
    rows = split.train if oob else (split.test if split.test is not None and len(split.test) else split.train)
    where = "out-of-bag votes on the training rows" if oob else (
        "the test rows" if rows is split.test else "the training rows")
    if st.button(f"Compute permutation importance ({where})", key=W_PERM):
        bar = st.progress(0.0, text="Shuffling features...")
        perm = memo(perm_key, lambda: ensembles.permutation_importances(
            ens, rows, oob=oob, n_repeats=3, random_state=0,
            progress=lambda i, n: bar.progress(i / n, text=f"Feature {i} of {n}")))
        bar.empty()
    show_chart(figs.importance_figure(imp, perm), key="ens_importance", lead="Feature importance")
