"""Ensembles: bagging, random forests, AdaBoost and gradient boosting on the active data, laid open."""

from __future__ import annotations

import streamlit as st

from ui.ensembles import gradient as gradient
from ui.ensembles import rounds as rounds
from ui.ensembles import train as training
from ui.ensembles import views as views
from ui import state
from ui.errors import friendly_errors
from ui.grow.exports import ONNX_NOTE, file_stem, onnx_download
from ui.model import breakdown as model_breakdown

TABS = ["Vote", "Why this prediction", "Members", "Decision map", "Size & variance", "Importances"]
W_TAB = "_w_ens_tab"

st.title("Ensembles")
if state.current_model() is not None:  # a model trained elsewhere: its trees' votes or contributions
    with friendly_errors("ensembles: model"):
        model_breakdown.render_page(state.current_model())
    st.stop()
st.caption("Many trees vote. Bagging grows each tree on a bootstrap sample, a random forest also draws "
           "features at random, AdaBoost reweights the rows each round. Members grow with the active "
           "tree settings (Grow page); the random seed is the sidebar's. Gradient boosting adds trees "
           "instead: each round's CART regression tree fits the residuals of the rounds before it.")

training.apply_method_link()
split = state.current_split()
train = split.train

with st.container(border=True):
    settings = training.settings_panel(train)
    go = st.button("Train", type="primary", key="_w_ens_train", icon=":material/play_arrow:")
    if train.task == "regression":
        st.caption("The target is numeric: members average their predictions, or boosting adds them up "
                   "(AdaBoost is for classes).")

if go:
    with friendly_errors("ensembles: training"):
        training.train(train, settings, split.test)

result = training.current_result()
if result is None:
    if st.session_state.get(training.RESULT) is not None:
        st.info("The data, split or tree settings changed since the last training: press Train again.")
    else:
        st.info("Choose a method and press **Train**. Small data sets train in a second or two.")
    st.stop()

ens = result["ensemble"]
st.markdown(f"**{training.summary_line(result)}**")
for note in ens.notes:
    st.caption(note)
onnx_download(ens, f"{file_stem(state.current_dataset_name())}_{ens.method}", key="_w_ens_dl_onnx")
st.caption(ONNX_NOTE)
if result["settings"] != settings:
    st.caption("The settings above differ from the trained ensemble's: press Train to apply them.")

if ens.method == "gradient_boosting":
    with friendly_errors("ensembles: gradient boosting"):
        gradient.render(ens, split)
    st.stop()
tab_names = TABS + (["AdaBoost rounds"] if ens.method == "adaboost" else [])
tabs = st.tabs(tab_names, key=W_TAB + ens.method, on_change="rerun")
panels = [lambda: views.render_vote(ens, split), lambda: views.render_why(ens, split),
          lambda: views.render_members(ens, train),
          lambda: views.render_regions(ens, train), lambda: views.render_curves(ens, split),
          lambda: views.render_importances(ens, split)]
if ens.method == "adaboost":
    panels.append(lambda: rounds.render_rounds(ens, train))
for tab, name, panel in zip(tabs, tab_names, panels):
    with tab:
        if tab.open is not False:
            with friendly_errors(f"ensembles: {name}"):
                panel()
