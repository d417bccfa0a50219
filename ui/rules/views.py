"""Rules page panels: the current tree as rules, decision lists learned step by step, and k-DT.

The decision-list learner and the k-DT result live in ``st.session_state`` (per user) with the data
version and the settings they were built with; a change of either starts afresh. Rule texts hold
column names and values (user text), so they are shown with ``st.dataframe`` / ``st.code`` only.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from engine import ensembles
from engine.config import TreeConfig
from engine.ensembles.literals import monomial_text
from engine.grow.grower import fit_tree
from engine.tree.paths import rules, rules_text
from ui import state, tree_view
from ui.widgets import shorten

DL, KDT = "rules_dl", "rules_kdt"
W_RULE = "_w_rules_leaf"
KDT_WIDTH = 480  # CSS px: the k-DT tree sits in the left 3/5 of the page
W_DL_K, W_DL_T, W_DL_NEG = "_w_dl_k", "_w_dl_thresholds", "_w_dl_negations"
W_KDT_K, W_KDT_T, W_KDT_ALG = "_w_kdt_k", "_w_kdt_thresholds", "_w_kdt_algorithm"


def _accuracy(pred, data) -> float:
    return float(np.mean(np.asarray(pred, dtype=object) == data.frame[data.target].astype(str).to_numpy()))


def render_tree_rules() -> None:
    grower = st.session_state.get(state.GROWER)
    if grower is None:
        st.info("No tree yet: grow one on the Grow page and its rules appear here.")
        return
    st.caption("Each leaf is a conjunction of the tests on its path; a class is the disjunction of its leaves.")
    tree = grower.tree
    leaf_rules = {r.leaf: r for r in rules(tree)}
    if st.session_state.get(W_RULE) not in leaf_rules:
        st.session_state[W_RULE] = next(iter(leaf_rules))
    leaf = st.selectbox("Show a rule's leaf in the tree", list(leaf_rules), key=W_RULE,
                        format_func=lambda i: f"leaf #{i}: {shorten(leaf_rules[i].text(), 120)}",
                        help="Or click a leaf in the diagram. Its path (the rule's conditions) is drawn in magenta.")
    tree_view.tree_chart(tree, key="rules_tree", path=path_to(tree, leaf), selected=leaf, on_node=_pick_rule)
    st.code(rules_text(tree), language=None, wrap_lines=True)


def path_to(tree, node_id: int) -> list[int]:
    """Node ids from the root down to ``node_id``."""
    path = [node_id]
    while tree.nodes[path[-1]].parent is not None:
        path.append(tree.nodes[path[-1]].parent)
    return path[::-1]


def _pick_rule(node_id: int) -> None:
    grower = st.session_state.get(state.GROWER)
    if grower is not None and grower.tree.node(node_id).is_leaf:
        st.session_state[W_RULE] = node_id


# ------------------------------------------------------------------------------------ decision lists
def _dl_settings() -> dict:
    c1, c2, c3 = st.columns(3)
    k = c1.select_slider("k (literals per test)", [1, 2, 3], value=2, key=W_DL_K)
    t = c2.number_input("Thresholds per numeric feature", 1, 10, 3, key=W_DL_T,
                        help="Numeric features become tests x <= t and x > t at this many quantiles.")
    neg = c3.toggle("Allow A ≠ v literals", value=True, key=W_DL_NEG,
                    help="For categorical features with three or more values.")
    return {"k": int(k), "n_thresholds": int(t), "negations": bool(neg)}


def dl_learner(train, params: dict):
    """The session's learner for this data version and these settings (created when they change)."""
    store = st.session_state.get(DL)
    key = (state.data_version(), tuple(sorted(params.items())))
    if store is None or store["key"] != key:
        store = {"key": key, "learner": ensembles.DecisionListLearner(train, **params)}
        st.session_state[DL] = store
    return store["learner"]


def dl_table(learner) -> pd.DataFrame:
    ids = learner.dataset.row_ids
    rows = [{"#": r.index + 1, "if": monomial_text(r.test), "then": r.prediction,
             "rows removed": r.n_covered,
             "which rows": ", ".join(map(str, ids[r.rows][:15])) + (" ..." if r.n_covered > 15 else "")}
            for r in learner.rules]
    return pd.DataFrame(rows, columns=["#", "if", "then", "rows removed", "which rows"])


def render_decision_list(split) -> None:
    train = split.train
    if train.task != "classification":
        st.info("Decision lists predict classes; the target here is numeric.")
        return
    st.caption("DECISION-LIST-LEARNING: find a test of at most k literals that covers some rows, all of one "
               "class; emit “if test then class”, remove those rows, repeat. Largest coverage wins, then the "
               "shorter test.")
    learner = dl_learner(train, _dl_settings())
    b = st.columns([1, 1, 2, 1, 3])
    # callbacks change the learner before the page draws, so the buttons' states are current
    b[0].button("Step", key="_w_dl_step", type="primary", disabled=learner.done, on_click=learner.step)
    b[1].button("Undo", key="_w_dl_undo", disabled=not learner.rules and learner.failure is None,
                on_click=learner.undo)
    b[2].button("Run to the end", key="_w_dl_run", disabled=learner.done, on_click=learner.run)
    b[3].button("Reset", key="_w_dl_reset", on_click=learner.reset)
    left = learner.remaining
    st.dataframe(dl_table(learner), hide_index=True, width="stretch")
    st.text(f"else {learner.default}   (the most frequent class of the training rows)")
    if learner.failure:
        st.warning(learner.failure, icon=":material/block:")
    elif left.size == 0:
        st.success(f"Every training row is covered by {len(learner.rules):,} rules.", icon=":material/check:")
    else:
        st.caption(f"{left.size:,} of {len(train):,} training rows are left; press Step for the next rule.")
    dl = learner.decision_list
    scores = [f"training accuracy {_accuracy(dl.predict(train), train):.3f}"]
    if split.test is not None and len(split.test):
        scores.append(f"test accuracy {_accuracy(dl.predict(split.test), split.test):.3f}")
    st.caption("The list so far: " + ", ".join(scores) + ".")
    with st.expander(f"Rows left ({left.size:,})"):
        st.dataframe(train.frame.iloc[left], width="stretch")
    with st.expander(f"The {len(learner.literals):,} literals"):
        st.code("\n".join(lit.text() for lit in learner.literals), language=None)


# ------------------------------------------------------------------------------------------ k-DT
def _kdt_settings() -> dict:
    c1, c2, c3 = st.columns(3)
    k = c1.select_slider("k (literals per node test)", [1, 2, 3], value=2, key=W_KDT_K)
    t = c2.number_input("Thresholds per numeric feature", 1, 10, 3, key=W_KDT_T)
    alg = c3.selectbox("Algorithm", ["id3", "c45", "cart"], key=W_KDT_ALG,
                       format_func=lambda a: {"id3": "ID3", "c45": "C4.5", "cart": "CART"}[a])
    return {"k": int(k), "n_thresholds": int(t), "algorithm": alg}


def render_kdt(split) -> None:
    train = split.train
    st.caption("The reduction: one new yes/no variable per conjunction of at most k literals (those true on "
               "some rows and false on others, duplicates dropped), then the ordinary grower on the new data.")
    params = _kdt_settings()
    key = (state.data_version(), tuple(sorted(params.items())))
    if st.button("Build the k-DT", key="_w_kdt_build", type="primary"):
        with st.spinner("Building the monomial variables and growing..."):
            res = ensembles.fit_kdt(train, k=params["k"], n_thresholds=params["n_thresholds"],
                                    tree_config=TreeConfig(algorithm=params["algorithm"]))
            plain = fit_tree(train, TreeConfig(algorithm=params["algorithm"]))
        st.session_state[KDT] = {"key": key, "result": res, "plain": plain}
    store = st.session_state.get(KDT)
    if store is None or store["key"] != key:
        st.info("Choose k and press **Build the k-DT**.")
        return
    res, plain = store["result"], store["plain"]
    tree = res.tree
    c = st.columns(4)
    c[0].metric("literals", len(res.literals))
    c[1].metric("monomials considered", f"{res.n_candidates:,}")
    c[2].metric("new variables kept", len(res.monomials))
    c[3].metric("leaves (plain tree)", f"{tree.n_leaves} ({plain.n_leaves})")
    rows = [("k-DT", res.predict(train), res.predict(split.test) if split.test is not None and len(split.test) else None,
             tree.n_leaves, tree.depth),
            ("plain tree", plain.predict(train.frame),
             plain.predict(split.test.frame) if split.test is not None and len(split.test) else None,
             plain.n_leaves, plain.depth)]
    table = pd.DataFrame([{"tree": name, "leaves": leaves, "depth": depth,
                           "train": _score(p_train, train), "test": _score(p_test, split.test)}
                          for name, p_train, p_test, leaves, depth in rows])
    if table["test"].isna().all():
        table = table.drop(columns="test")
    st.dataframe(table, hide_index=True, column_config={
        c: st.column_config.NumberColumn(format="%.3f") for c in ("train", "test")})
    left, right = st.columns([3, 2], gap="large")
    with left:
        tree_view.tree_chart(tree, key="rules_kdt_tree", width=KDT_WIDTH)
        st.caption("A node tests one conjunction: “<= 0.5” is the branch where it is false, “> 0.5” where it is true.")
    with right:
        st.code("\n".join(res.rules()), language=None, wrap_lines=True)


def _score(pred, data):
    if pred is None or data is None:
        return None
    if data.task == "classification":
        return _accuracy(pred, data)
    return float(np.mean((np.asarray(pred, float) - data.y) ** 2))
