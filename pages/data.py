"""Data: choose or upload a data set, check how each column was read, pick the target and the split."""

from __future__ import annotations

from functools import partial

import streamlit as st

from ui.data import panels as panels
from ui import state
from ui.classroom import lesson_io
from ui.charts import target_figure, show_chart
from ui.grow.exports import csv_bytes, file_stem
from ui.summaries import split_counts, target_warnings
from ui.widgets import md_escape

PREVIEW_ROWS = 200

st.title("Data")
st.caption("Pick a sample or upload a CSV file, check how each column was read, then choose the "
           "target and how the rows are split. Any change here resets the tree.")

with st.container(border=True):
    panels.source_panel()
with st.expander("Open a lesson file (.dtx)", expanded=bool(st.session_state.get(lesson_io.OPEN_ERROR))):
    lesson_io.render_open("data")

ds = state.current_dataset()
panels.overview_panel(ds)
for warning in target_warnings(ds):
    st.warning(md_escape(warning, limit=600), icon=":material/warning:")
panels.giveaway_panel(ds)

preview_tab, columns_tab, target_tab, split_tab = st.tabs(
    ["Preview", "Columns", "Target", "Train / test split"])

with preview_tab:
    shown = min(PREVIEW_ROWS, len(ds))
    st.caption(f"The first {shown:,} of {len(ds):,} rows as the tree sees them (cleaned). "
               f"Target column: **{md_escape(ds.target)}**.")
    st.dataframe(ds.frame.head(PREVIEW_ROWS), width="stretch", height=min(36 * shown + 40, 420))
    # the table's own CSV export is off (.streamlit/config.toml): this one neutralises formula cells;
    # deferred, so the CSV of a big file is written only when the button is clicked
    st.download_button("All cleaned rows (CSV)", partial(csv_bytes, ds.frame), on_click="ignore",
                       file_name=f"{file_stem(state.current_dataset_name())}_cleaned.csv", mime="text/csv",
                       key="_w_data_dl_rows", icon=":material/download:",
                       help="Cells a spreadsheet would run as a formula (= + - @) get a leading apostrophe.")

with columns_tab:
    summary = panels.summary_of(ds)
    n_missing = int(summary["missing"].sum())
    if n_missing:
        with_missing = int((summary["missing"] > 0).sum())
        st.caption(f"{n_missing:,} missing cells in {with_missing:,} column(s). Missing values go "
                   "down every branch with a fractional weight (C4.5); rows without a target "
                   "were left out.")
    else:
        st.caption("No missing values.")
    st.dataframe(
        summary, hide_index=True, width="stretch",
        column_config={
            "column": st.column_config.TextColumn("Column", width="medium"),
            "role": st.column_config.TextColumn("Used as"),
            "missing": st.column_config.NumberColumn("Missing", format="%d"),
            "missing_pct": st.column_config.ProgressColumn(
                "Missing %", min_value=0, max_value=100, format="%.1f%%"),
            "distinct": st.column_config.NumberColumn("Distinct values", format="%d"),
            "examples": st.column_config.TextColumn("Examples", width="large"),
        },
    )
    panels.kinds_form(ds)

with target_tab:
    left, right = st.columns([2, 3], gap="large")
    with left:
        panels.target_form(ds)
        if ds.task == "classification":
            st.caption("Classes: " + ", ".join(md_escape(c) for c in ds.classes[:30])
                       + (" ..." if len(ds.classes) > 30 else ""))
    with right:
        show_chart(target_figure(ds), key="data_target_chart", width="stretch")

with split_tab:
    left, right = st.columns([2, 3], gap="large")
    with left:
        panels.split_form()
    with right:
        counts = split_counts(state.current_split())
        cols = st.columns(3)
        for col, (part, rows) in zip(cols, counts.itertuples(index=False)):
            col.metric(f"{part.capitalize()} rows", f"{rows:,}")
        if counts["rows"].iloc[2] == 0:
            st.caption(f"No test rows: every row is used for training (the default below "
                       f"{state.SMALL_DATA_ROWS} rows, so the numbers match the textbooks). Set a "
                       "test share to measure accuracy on rows the tree has not seen.")
        if ds.task == "classification":
            st.caption("The split is stratified: each part keeps the class proportions.")
        st.caption("The tree is grown on the training rows. Evaluation uses the test rows; "
                   "validation rows (if any) drive validation stopping and reduced-error pruning.")
