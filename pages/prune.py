"""Prune: cut the Grow page's tree back, five ways, and see which cuts pay off on rows it never saw."""

from __future__ import annotations

import streamlit as st

from engine.errors import EngineError
from engine.prune.methods import METHODS
from engine.split.wording import plural
from ui.prune import views as views
from ui import state
from ui.errors import friendly_errors
from ui.model import scoring as model_scoring
from ui.widgets import flash, md_escape

W_METHOD = "_w_prune_method"
LABELS = {"reduced_error": "Reduced error", "cost_complexity": "Cost complexity (α)",
          "pessimistic": "C4.5 pessimistic", "bottom_up": "Bottom-up f(T, m)", "manual": "By hand"}

st.title("Prune")
if state.current_model() is not None:  # a model trained elsewhere: prune one of its trees on the data
    with friendly_errors("prune: model"):
        model_scoring.render_prune(state.current_model())
    st.stop()
st.caption("A fully grown tree also learns the noise of its training rows. Pruning cuts subtrees back to "
           "leaves where the evidence for them is weak; each method below logs every decision with its numbers.")


def _grow_full_tree() -> None:
    try:
        state.current_grower().grow()
        flash("success", "A full tree was grown with the current settings (see the Grow page).")
    except EngineError as err:
        flash("error", md_escape(err))


split = state.current_split()
grower = st.session_state.get(state.GROWER)
if grower is None or grower.tree.n_nodes == 1:
    st.info("There is no tree to prune yet: grow one on the Grow page, or grow a full tree here with the "
            "current settings.", icon=":material/info:")
    st.button("Grow a full tree now", key="prune_grow", type="primary", icon=":material/account_tree:",
              on_click=_grow_full_tree)
    st.page_link("pages/grow.py", label="Go to the Grow page", icon=":material/account_tree:")
    st.stop()

tree = grower.tree
if not grower.done:
    c1, c2 = st.columns([3, 1], vertical_alignment="center")
    c1.caption(f"The Grow page's tree still has {md_escape(plural(len(grower.open_nodes), 'open leaf', 'open leaves'))}; pruning works on it as it is.")
    c2.button("Grow it to the end", key="prune_finish", on_click=_grow_full_tree)
st.markdown(f"**Source:** the Grow page's tree · {md_escape(plural(tree.n_nodes, 'node'))}, {md_escape(plural(tree.n_leaves, 'leaf', 'leaves'))}, depth {tree.depth:d} · "
            f"{len(grower.dataset):,} training rows")

default = views.default_method(grower, split)  # C4.5: J48's pruning; no validation rows: one needing none
method = st.segmented_control("Method", list(METHODS), key=W_METHOD, format_func=LABELS.get,
                              default=default, selection_mode="single", width="stretch")
method = method or default
st.markdown(f"##### {METHODS[method]}")

with friendly_errors(f"prune: {method}"):
    result = views.PANELS[method](tree, grower, split)
    if result is not None:
        views.render_result(result, views.parts_of(grower, split))
