"""The Ensembles page while a model is open: how its trees reach the answer for one row.

A boosted (``additive``) model: each tree's contribution to its class's margin and the running sum as a
waterfall (base score, trees, margin), then the link (logistic, softmax, exp) that turns the margins into
the answer (``engine.models.contributions``). A forest (``vote``/``soft_vote``) or a single tree: each
member's vote and class distribution and the tally (``engine.models.member_votes``). "Why this prediction":
path contributions beside SHAP values (:mod:`ui.why`). The row is typed or
picked from the data set when it has the model's columns (:func:`ui.model.common.pick_row`).
"""

from __future__ import annotations

import streamlit as st

from engine.ensembles.votes import VoteBreakdown
from engine.models import contributions, member_votes
from engine.viz.ensemble_figs import vote_figure
from ui import state, why
from ui.model.common import class_names, data_matches, model_frame, pick_row
from ui.model.regions import render_regions
from ui.model.figures import answer_table, member_distribution_figure, waterfall_figure
from ui.widgets import md_escape, shorten
from ui.charts import show_chart

W_OUTPUT = "_w_model_output"
W_TAB = "_w_model_ens_tab"
TABS = ["One row", "Why this prediction", "Decision regions"]


def _answer_text(c, output: str, names: dict) -> str:
    if isinstance(c.answer, dict):
        cls = output if output in c.answer else list(c.answer)[-1]
        return f"p({shorten(names.get(cls, cls), 20)}) = {c.answer[cls]:.4f}"
    return f"{c.answer:.6g}"


def render_contributions(model, row) -> None:
    c = contributions(model, row)
    outputs = list(c.base)
    output = outputs[0]
    names = class_names(model, state.current_dataset())
    if len(outputs) > 1:
        if st.session_state.get(W_OUTPUT) not in outputs:
            st.session_state[W_OUTPUT] = c.prediction if c.prediction in outputs else outputs[0]
        output = st.columns([1, 2])[0].selectbox("Margin of class", outputs, key=W_OUTPUT,
                                                 format_func=lambda o: names.get(o, o),
                              help="A multi-class boosted model adds one tree per class in each round; each class "
                                   "has its own margin, and softmax turns the margins into probabilities.")
    steps = c.waterfall(output)
    show_chart(waterfall_figure(steps, output=names.get(output, output), link=c.link,
                                answer_text=_answer_text(c, output, names)),
               key="model_waterfall", lead="How each tree moves the margin", width="stretch")
    link = {"logistic": "p = 1 / (1 + e^(−margin)) gives the positive class's probability",
            "softmax": "softmax (e^margin of each class, divided by their sum) gives the probabilities",
            "exp": "e^margin gives the prediction (the margin is a logarithm)",
            "identity": "the margin is the prediction"}.get(c.link, c.link)
    answer = names.get(c.prediction, c.prediction) if isinstance(c.prediction, str) else f"{c.prediction:.6g}"
    st.markdown(f"The model predicts **{md_escape(shorten(str(answer), 60))}**: {md_escape(link)}.")
    table = answer_table(c)
    if "class" in table.columns:
        table["class"] = table["class"].map(lambda k: names.get(k, k))
    st.dataframe(table, hide_index=True, width="stretch")
    if len(steps) - 1 > 40:
        st.caption("More than 40 trees: consecutive trees are drawn as one bar each block (their sum); the table "
                   "below lists every tree.")
    with st.expander("Every tree's contribution"):
        st.dataframe(c.table, hide_index=True, width="stretch", height=320,
                     column_config={k: st.column_config.NumberColumn(format="%.5g")
                                    for k in ("leaf_value", "weight", "contribution", "running_sum")})


def named_votes(vb: VoteBreakdown, names: dict) -> VoteBreakdown:
    """``vb`` with the model's classes shown as the data's labels (``names``: model class -> label)."""
    if all(k == v for k, v in names.items()) or vb.task != "classification":
        return vb
    members = vb.members.assign(prediction=vb.members["prediction"].map(lambda c: names.get(c, c)))
    members = members.rename(columns={f"p({c})": f"p({v})" for c, v in names.items()})
    tally = vb.tally.assign(**{"class": vb.tally["class"].map(lambda c: names.get(c, c))})
    return VoteBreakdown(members, tally, names.get(vb.winner, vb.winner), vb.task)


def render_votes(model, row) -> None:
    names = class_names(model, state.current_dataset())
    vb = named_votes(member_votes(model, row), names)
    left, right = st.columns([3, 2], gap="large")
    show_chart(vote_figure(vb), where=left, key="model_vote_chart", lead="How the model's members vote for this row", width="stretch")
    with right:
        st.dataframe(vb.tally, hide_index=True, column_config={
            "weight": st.column_config.NumberColumn(format="%.3f"),
            "share": st.column_config.NumberColumn(format="%.3f"),
            "value": st.column_config.NumberColumn(format="%.4g")})
        kind = "the mean of the members' class distributions" if model.kind == "soft_vote" else "a majority vote"
        st.caption("The model combines its members by " + kind + ".")
    if model.task == "classification":
        show_chart(member_distribution_figure(vb.members, [names[c] for c in model.classes]), key="model_member_dist", lead="The members' predictions for this row",
                        width="stretch")
    st.dataframe(vb.members, hide_index=True, height=260, width="stretch",
                 column_config={"weight": st.column_config.NumberColumn(format="%.3f")})


def render_why(model) -> None:
    """Path contributions beside SHAP values for one row (of the model's raw output: the margin before the
    link for boosted models), and mean |SHAP| over the open data set when it has the model's columns."""
    ds = state.current_dataset()
    row, desc = pick_row(model, ds)
    st.caption(f"Why the model answers {md_escape(desc)} as it does.")
    if not model.inner_values:
        st.caption("This file gives no covers (rows per branch): both explanations weigh a split's branches "
                   "equally where a feature is unknown.")
    why.render_row(model, row, key="model_why", names=class_names(model, ds))
    if data_matches(model, ds):
        why.render_summary(model, model_frame(model, ds), key="model_why",
                           ident=("model", id(model), state.data_version()))


def render_page(model) -> None:
    """The Ensembles page's body with a model open (the page calls it and stops)."""
    what = ("each tree's contribution to the margin and the running sum" if model.kind == "additive"
            else "each member's vote")
    st.caption(f"The model **{md_escape(shorten(state.current_model_name(), 60))}** on one row: "
               f"{md_escape(what)}. Close it on the Data page to train ensembles here again.")
    tabs = st.tabs(TABS, key=W_TAB, on_change="rerun")
    with tabs[0]:
        if tabs[0].open is not False:
            row, desc = pick_row(model, state.current_dataset())
            st.caption(f"Explaining {md_escape(desc)}.")
            if model.kind == "additive":
                render_contributions(model, row)
            else:
                render_votes(model, row)
    with tabs[1]:
        if tabs[1].open is not False:
            render_why(model)
    with tabs[2]:
        if tabs[2].open is not False:
            render_regions(model)
