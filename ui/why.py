""""Why this prediction": path contributions (Saabas) beside exact TreeSHAP values for one row, and a summary
over the data (mean |SHAP| beside the split importances), for any tree model: the Grow page's tree, the
Ensembles page's ensemble, a model opened from a file (``engine.explain_row``, ``engine.shap_summary``).
"""

from __future__ import annotations

import time

import pandas as pd
import streamlit as st

import engine
from engine.tree.explain import SUMMARY_ROWS, tree_sum_of
from engine.viz.ensemble_figs import shap_summary_figure, why_figure
from ui import state
from ui.charts import show_chart
from ui.widgets import md_escape, shorten

SUMMARY = "_why_summary"          # (key of the model and data, (table, rows, sampled, importances, seconds))
W_GROW_ROW = "_w_grow_why_row"
SEEN = "_why_seen_"               # + the output widget's key: the row its default class was chosen for

HOW_THEY_DIFFER = (
    "**Path contributions** (Saabas) follow this row's path: each split adds the change of the node's mean answer "
    "to the feature it tests, so only the features on the path count and their order on it matters. "
    "**SHAP values** (exact TreeSHAP) average each feature's effect over every order in which the features could be "
    "learned, with the cover-weighted answer of the tree when a feature is unknown: features off the path can count "
    "too, and the values are consistent (a feature the model relies on more never gets less). Both start from the "
    "same mean answer and add up to the model's answer.")

EXAMPLE = ("Example on bundled data: the **iris** sample, a CART tree grown on all 150 rows, row 100 (virginica, "
           "class share of virginica): the path contributions rank *petal_width* first (+0.48, *petal_length* +0.19), "
           "SHAP ranks *petal_length* first (+0.40, *petal_width* +0.28).")

WHAT = {"margin": "margin (before the link)", "class share": "class share", "vote share": "vote share",
        "value": "predicted value"}


def _output(model, row, key: str, names: dict) -> str | None:
    ts = tree_sum_of(model)
    if len(ts.outputs) == 1:
        return None
    options = list(ts.outputs)
    seen = (tuple(map(str, row.columns)), tuple(map(str, row.iloc[0].tolist())))
    if st.session_state.get(key) not in options or st.session_state.get(SEEN + key) != seen:
        st.session_state[SEEN + key] = seen             # a new row: its predicted class first
        predicted = str(model.predict(row)[0])
        st.session_state[key] = predicted if predicted in options else options[0]
    return st.columns([1, 2])[0].selectbox("Explain the output of class", options, key=key,
                                           format_func=lambda o: str(names.get(o, o)),
                                           help="The model has one output per class; the most likely class is "
                                                "chosen first.")


def _value_of(row: pd.DataFrame, feature: str):
    return row[feature].iloc[0] if feature in row.columns else None


def render_row(model, row: pd.DataFrame, *, key: str, names: dict | None = None) -> None:
    """Both explanations of one row side by side (chart, table), how they differ, where they disagree."""
    names = names or {}
    output = _output(model, row, f"_w_{key}_output", names)
    r = engine.explain_row(model, row, output)
    what = WHAT.get(r.what, r.what) + ("" if output is None else f" of {shorten(names.get(output, output), 40)}")
    st.markdown(f"Both start from the mean answer **{r.expected:.4g}** and add up to this row's {md_escape(what)}: "
                f"**{r.raw:.4g}**.")
    show_chart(why_figure(r.table), key=f"{key}_chart", table=r.table)
    st.markdown(HOW_THEY_DIFFER)
    pair = r.swapped()
    if pair:
        st.info(f"Here they disagree: the path contributions put **{md_escape(shorten(pair[0], 40))}** above "
                f"**{md_escape(shorten(pair[1], 40))}**, SHAP the other way round.")
    else:
        st.caption("For this row both rank the features the same way. " + EXAMPLE)
    table = r.table.assign(value=[_value_of(row, f) for f in r.table["feature"]])
    table = table[["feature", "value", "path", "SHAP", "path rank", "SHAP rank"]]
    table["value"] = table["value"].astype(str)
    used = table[(table["path"] != 0) | (table["SHAP"] != 0)]
    st.dataframe(used if len(used) else table, hide_index=True, width="stretch",
                 column_config={c: st.column_config.NumberColumn(format="%.4g") for c in ("path", "SHAP")})
    if len(used) < len(table):
        st.caption(f"{len(table) - len(used):,} feature(s) with nothing from either are not listed.")


def render_summary(model, frame: pd.DataFrame, *, key: str, ident) -> None:
    """Mean |SHAP| over the rows of ``frame`` (a sample above SUMMARY_ROWS, said so) beside the split
    importances, computed on request and kept for this model and data (``ident``)."""
    st.subheader("Over the data")
    held = st.session_state.get(SUMMARY)
    if not (isinstance(held, tuple) and held[0] == ident):
        held = None
        n = len(frame)
        where = f"a random sample of {SUMMARY_ROWS:,} of the {n:,} rows" if n > SUMMARY_ROWS else f"the {n:,} rows"
        spot = st.empty()
        if not spot.button(f"Compute mean |SHAP| over {where}", key=f"_w_{key}_summary",
                           icon=":material/functions:"):
            st.caption("SHAP values of every row, averaged as sizes, beside the impurity importances of the splits.")
            return
        spot.empty()                                   # computed: the button has done its work
        start = time.perf_counter()
        table, rows, sampled = engine.shap_summary(model, frame)
        held = (ident, (table, rows, sampled, engine.split_importances(model), time.perf_counter() - start))
        st.session_state[SUMMARY] = held
    table, rows, sampled, importances, seconds = held[1]
    show_chart(shap_summary_figure(table, importances), key=f"{key}_summary_chart")
    st.caption(("Mean |SHAP| over a random sample of " if sampled else "Mean |SHAP| over all ")
               + f"{rows:,} rows ({seconds:.1f} s), as a share of its total, beside the split importances (each split's weighted impurity decrease, summed per feature). The split importance counts how much "
               "a feature's splits cleaned the training rows; mean |SHAP| how much it moves the answers.")


def render_for_tree(tree, ds, query_row: pd.DataFrame | None) -> None:
    """The Grow page's tab: the query point (when one is set) or a training row, then the summary."""
    if query_row is not None:
        row, desc = query_row, "the query point (Query point tab)"
    else:
        n = len(ds)
        if int(st.session_state.get(W_GROW_ROW, 0) or 0) >= n:
            st.session_state[W_GROW_ROW] = 0
        pos = int(st.number_input(f"Training row (0 to {n - 1}; or set a query point)", 0, n - 1, key=W_GROW_ROW))
        row, desc = ds.frame.iloc[[pos]], f"training row {pos:,}"
    st.caption(f"Explaining {md_escape(desc)} with the tree as it is now.")
    render_row(tree, row, key="grow_why")
    render_summary(tree, ds.frame, key="grow_why", ident=("grow", tree.fingerprint, state.data_version(), len(ds)))
