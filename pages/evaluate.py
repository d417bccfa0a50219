"""Evaluate: how good is the tree on rows it never saw, and how much does that depend on luck?

Tabs: scores of the current tree (train / validation / test), k-fold cross-validation of the settings,
the overfitting curve while the tree grows, the learning curve, and the instability of the tree under
small changes of the rows. Computation lives in engine.evaluate.metrics / evaluation / curves / stability.
"""

from __future__ import annotations

import streamlit as st

from engine.errors import EngineError
from ui.evaluate import context as ec
from ui.evaluate import tabs as tabs_ui
from ui.errors import friendly_errors, show_engine_error
from ui import state
from ui.model import scoring as model_scoring
from ui.widgets import cores_setting

TABS = ["Metrics", "Cross-validation", "Overfitting curve", "Learning curve", "Instability"]
W_TAB = "_w_eval_tab"
RENDER = [tabs_ui.render_metrics, tabs_ui.render_cv, tabs_ui.render_overfitting, tabs_ui.render_learning,
          tabs_ui.render_instability]

st.title("Evaluate")
if state.current_model() is not None:  # a model trained elsewhere: its scores on the data set's rows
    with friendly_errors("evaluate: model"):
        model_scoring.render_evaluate(state.current_model())
    st.stop()
st.caption("Scores on the training rows flatter a tree: held-out rows, cross-validation and the curves "
           "below show how well it generalises and how much it depends on the particular rows.")
cores_setting(st.columns(4)[0])   # cross-validation folds, learning-curve and instability runs

try:
    ctx = ec.build_context()
except EngineError as err:
    show_engine_error(err)
    st.stop()

tabs = st.tabs(TABS, key=W_TAB, on_change="rerun")
for tab, name, render in zip(tabs, TABS, RENDER):
    with tab:
        if tab.open is not False:
            with friendly_errors(f"evaluate: {name}"):
                render(ctx)
