"""Rules: a tree read as rules, decision lists (k-DL) learned one rule at a time, and k-DT."""

from __future__ import annotations

import streamlit as st

from ui.rules import views as views
from ui import state
from ui.errors import friendly_errors
from ui.model import rules_view as model_rules

TABS = ["Decision list", "k-DT", "Tree as rules"]
W_TAB = "_w_rules_tab"

st.title("Rules")
if state.current_model() is not None:  # a model trained elsewhere: its trees' rules and a row's path
    with friendly_errors("rules: model"):
        model_rules.render_page(state.current_model())
    st.stop()
st.caption("A decision list checks its rules in order and the first test that holds decides. A k-DT is a "
           "tree whose node tests are conjunctions of up to k literals. Both learn from the training rows.")

split = state.current_split()
tabs = st.tabs(TABS, key=W_TAB, on_change="rerun")
panels = [lambda: views.render_decision_list(split), lambda: views.render_kdt(split), views.render_tree_rules]
for tab, name, panel in zip(tabs, TABS, panels):
    with tab:
        if tab.open is not False:
            with friendly_errors(f"rules: {name}"):
                panel()
