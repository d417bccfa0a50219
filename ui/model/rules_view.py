"""The Rules page while a model is open: the chosen member tree read as rules, and the path a typed row
(or a row of the data set) takes through it.

Each leaf is the conjunction of the tests on its path (``engine.tree.paths.rules``); a boosted tree's
leaves hold scores, which the model adds up over its trees, so its "THEN" is a score, not the answer.
The path is the tree's own ``decision_path`` (a missing value follows the direction the file gives).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from engine.tree.paths import rules, rules_text
from ui import state, tree_view
from ui.grow.exports import text_safe
from ui.model.common import current_tree, inner_unknown, member_label, member_picker, pick_row, shown_tree
from ui.model.with_data import data_tree
from ui.widgets import md_escape, shorten

RULES_WIDTH = 560  # CSS px the diagram is planned for (the page's left three fifths at 1366 px)


def rules_table(tree) -> pd.DataFrame:
    """One row per leaf: its id, what the leaf holds (THEN: class or value or score, purity), its rows and
    cover, and the conditions (IF) last: a long IF is cut at the table's edge, never the THEN."""
    table = pd.DataFrame([{"leaf": r.leaf, "then": r.then_text, "rows": r.n_node_samples or None,
                           "cover": r.weight, "purity": r.purity, "if": r.if_text} for r in rules(tree)])
    return table.dropna(axis=1, how="all")


def path_table(tree, row) -> pd.DataFrame:
    """The row's path: each node passed and the test that held there, ending at the leaf."""
    return pd.DataFrame([{"node": f"#{nid}", "test passed": text} for nid, text in tree.decision_path(row)])


def render_page(model) -> None:
    """The Rules page's body with a model open (the page calls it and stops)."""
    st.caption(f"The rules of one tree of the model **{md_escape(shorten(state.current_model_name(), 60))}**, "
               "and the path a row takes. Close the model on the Data page to learn rules from the data here.")
    cols = st.columns([1, 3], vertical_alignment="bottom")
    t = member_picker(model, cols[0])
    cols[1].markdown(f"**{md_escape(member_label(model, t))}**")
    tree = shown_tree(model, data_tree(model, current_tree(model), t), t)  # classes as the Data page maps them
    if model.kind == "additive":
        st.caption("A boosted tree's leaf holds a score: the model adds the scores of all its trees (see the "
                   "Ensembles page), so one tree's THEN is a contribution, not the answer.")
    row, desc = pick_row(model, state.current_dataset(), key="_w_model_rules_q")
    path = [nid for nid, _ in tree.decision_path(row)]
    left, right = st.columns([3, 2], gap="medium")
    with left:
        tree_view.tree_chart(tree, key=f"model_rules_tree_{t}", width=RULES_WIDTH, path=path, selected=path[-1],
                             compact=True, unknown_inner=inner_unknown(model, tree))
    with right:
        st.markdown(f"**Path of {md_escape(desc)}**")
        st.dataframe(path_table(tree, row), hide_index=True, width="stretch")
        leaf = tree.nodes[path[-1]]
        held = (f"score {leaf.value[0]:.6g}" if model.kind == "additive" else
                f"{leaf.prediction}" if isinstance(leaf.prediction, str) else f"{leaf.prediction:.6g}")
        st.caption(f"It ends in leaf #{leaf.id:d}, which holds {md_escape(held)}.")
    st.dataframe(rules_table(tree), hide_index=True, width="stretch",
                 column_config={"then": st.column_config.TextColumn("THEN", help="What the leaf holds: a class, a "
                                                                            "value, or a boosted tree's score"),
                                "if": st.column_config.TextColumn("IF", width="large", help="The tests on the path "
                                                                  "to the leaf, each feature once"),
                                "cover": st.column_config.NumberColumn(format="%.4g"),
                                "purity": st.column_config.NumberColumn(format="%.3f")})
    st.download_button("Rules (text)", text_safe(rules_text(tree)), file_name=f"tree_{t}_rules.txt",
                       mime="text/plain", key="_w_model_rules_dl", icon=":material/download:")
