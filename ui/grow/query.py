"""Query point: type (or copy from a training row) one value per feature and follow it down the tree.

The form has a number input per numeric feature (empty = missing) and a select box per categorical
feature (with "(missing)"); above ``FEW`` features it is one table instead (a row per feature, the ones the
tree tests first, :func:`ui.feature_table.value_table`), which draws 1,000 features as fast as four. A missing value goes down every branch with the branch's share of the
training rows (C4.5), so the prediction mixes several leaves; the text path follows the largest branch.
The active query is kept in session state with the data version it was made for, so a new data set
drops it.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import streamlit as st

from engine.split.records import format_number
from ui import state
from ui.feature_table import FEW, edited_values, split_counts, value_table
from ui.widgets import md_escape, shorten

QUERY = "_grow_query"  # (data_version, {feature: value or None})
W_ROW = "_w_grow_q_row"
FORM_VERSION = "_grow_q_version"  # data version the form widgets were filled for
W_PREFIX = "_w_grow_q_f"
W_TABLE = "_w_grow_q_table"  # the table of many features (its key also holds a serial, bumped by each fill)
TABLE_BASE = "_grow_q_table_base"  # (data version, {feature: value} the table starts from, serial)
MISSING = "(missing)"
MAX_COLUMNS = 4


def row_values(ds, position: int) -> dict:
    """``{feature: value}`` of training row ``position`` (None where the value is missing)."""
    row = ds.frame.iloc[int(position)]
    out = {}
    for f in ds.feature_names:
        v = row[f]
        if v is None or (isinstance(v, float) and math.isnan(v)) or pd.isna(v):
            out[f] = None
        elif ds.kind(f) == "numeric":
            out[f] = float(v)
        else:
            out[f] = str(v)
    return out


def query_frame(values: dict, ds) -> pd.DataFrame:
    """A one-row frame with every feature of ``ds`` (missing: NaN / None) for ``Tree.predict``."""
    data = {}
    for f in ds.feature_names:
        v = values.get(f)
        if ds.kind(f) == "numeric":
            data[f] = [np.nan if v is None else float(v)]
        else:
            data[f] = pd.Series([None if v in (None, MISSING) else str(v)], dtype=object)
    return pd.DataFrame(data)


def query_result(tree, values: dict, ds) -> dict:
    """Prediction, class probabilities (classification) and the decision path of a query point."""
    frame = query_frame(values, ds)
    pred = tree.predict(frame)[0]
    proba = None
    if tree.task == "classification":
        p = tree.predict_proba(frame)[0]
        proba = pd.DataFrame({"class": list(tree.schema.classes), "probability": p})
    path = tree.decision_path(frame)
    return {"prediction": pred, "proba": proba, "path": path, "path_ids": [nid for nid, _ in path]}


def current_query(ds) -> dict | None:
    """The active query's values, if it was made for the current data (and its features)."""
    stored = st.session_state.get(QUERY)
    if not stored or stored[0] != state.data_version():
        return None
    values = stored[1]
    return values if set(values) == set(ds.feature_names) else None


def _widget_key(i: int) -> str:
    return f"{W_PREFIX}{i}"


def _many(ds) -> bool:
    return len(ds.feature_names) > FEW


def _table_args(ds, tree) -> tuple:
    """(names, kinds, categories, tests) of the table of many features."""
    names = list(ds.feature_names)
    kinds = [ds.kind(f) for f in names]
    labels = ds.categories  # a copy on each access: read once
    categories = {f: list(labels[f]) for f, k in zip(names, kinds) if k != "numeric"}
    return names, kinds, categories, split_counts([tree], names) if tree is not None else {}


def _fill(ds, values: dict) -> None:
    if _many(ds):  # the table starts again from these values (a new key: the old edits are dropped)
        old = st.session_state.get(TABLE_BASE)
        st.session_state[TABLE_BASE] = (state.data_version(), dict(values), (old[2] + 1) if old else 0)
        return
    for i, f in enumerate(ds.feature_names):
        v = values[f]
        st.session_state[_widget_key(i)] = (MISSING if v is None else v) if ds.kind(f) != "numeric" else v


def _fill_from_row(ds) -> None:
    _fill(ds, row_values(ds, int(st.session_state.get(W_ROW) or 0)))


def _submit(ds, tree=None) -> None:
    if _many(ds):
        _, base, serial = st.session_state[TABLE_BASE]
        names, kinds, categories, tests = _table_args(ds, tree)
        values = edited_values(names, kinds, categories, base, key=f"{W_TABLE}{serial}", tests=tests)
        st.session_state[QUERY] = (state.data_version(), values)
        return
    values = {}
    for i, f in enumerate(ds.feature_names):
        v = st.session_state.get(_widget_key(i))
        values[f] = None if v in (None, MISSING) else (float(v) if ds.kind(f) == "numeric" else str(v))
    st.session_state[QUERY] = (state.data_version(), values)


def clear_query() -> None:
    st.session_state.pop(QUERY, None)


def _form_is_stale(ds) -> bool:
    if _many(ds):
        stored = st.session_state.get(TABLE_BASE)
        return not stored or stored[0] != state.data_version()
    return _widget_key(0) not in st.session_state or st.session_state.get(FORM_VERSION) != state.data_version()


def render_query_form(ds, tree=None) -> None:
    """The query form (prefilled from a training row the first time); ``tree``: the tree whose tested
    features the table of many features lists first."""
    if _form_is_stale(ds):
        if not 0 <= int(st.session_state.get(W_ROW) or 0) < len(ds):
            st.session_state[W_ROW] = 0
        _fill(ds, current_query(ds) or row_values(ds, 0))
        st.session_state[FORM_VERSION] = state.data_version()
    c1, c2 = st.columns([1, 3], vertical_alignment="bottom")
    c1.number_input("Training row", min_value=0, max_value=len(ds) - 1, step=1, key=W_ROW)
    c2.button("Copy this row into the form", on_click=_fill_from_row, args=(ds,), key="_w_grow_q_fill")
    with st.form("grow_query_form", border=True):
        if _many(ds):
            _, base, serial = st.session_state[TABLE_BASE]
            names, kinds, categories, tests = _table_args(ds, tree)
            value_table(names, kinds, categories, base, key=f"{W_TABLE}{serial}", tests=tests,
                        default_text="the training row copied in (or the last query)")
        else:
            cols = st.columns(min(MAX_COLUMNS, max(1, len(ds.feature_names))))
            for i, f in enumerate(ds.feature_names):
                col = cols[i % len(cols)]
                label = md_escape(shorten(f, 40))  # widget labels are Markdown: show the name literally
                if ds.kind(f) == "numeric":
                    col.number_input(label, value=None, key=_widget_key(i), format="%.6g",
                                     placeholder="missing", help="Leave empty for a missing value.")
                else:
                    col.selectbox(label, [*ds.categories[f], MISSING], key=_widget_key(i))
        st.form_submit_button("Predict", type="primary", on_click=_submit, args=(ds, tree),
                              icon=":material/travel_explore:")


def render_query_result(tree, ds) -> dict | None:
    """Prediction, probabilities and path of the active query (None when there is none)."""
    values = current_query(ds)
    if values is None:
        st.caption("Fill in the form and press **Predict**: the point's path is drawn in the diagram "
                   "and the point appears as a star in the region plot.")
        return None
    res = query_result(tree, values, ds)
    pred = res["prediction"]
    shown = pred if isinstance(pred, str) else format_number(round(float(pred), 6))
    c1, c2 = st.columns([1, 2])
    c1.metric("Prediction", md_escape(shown))
    if res["proba"] is not None:
        c2.dataframe(res["proba"], hide_index=True, width="stretch", column_config={
            "probability": st.column_config.ProgressColumn("probability", min_value=0.0, max_value=1.0,
                                                           format="%.3f")})
    missing = [f for f, v in values.items() if v is None]
    if missing:
        st.caption(f"{len(missing):,} missing value(s): at a test on them the point goes down every branch "
                   "with the branch's share of the training rows; the path below follows the largest.")
    lines = [f"node {nid}: {text}" for nid, text in res["path"]]
    st.code("\n".join(lines), language=None, wrap_lines=True)
    st.button("Clear the query point", on_click=clear_query, key="_w_grow_q_clear")
    return res
