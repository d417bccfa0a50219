"""Plotly figures for the Data page: class balance (classification) and target histogram (regression).

Pure functions from a Dataset to a ``go.Figure``; the page decides how to show them.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from engine.viz.regions import escape, short_label
from ui.summaries import class_counts

# Okabe & Ito's colour-blind safe palette (black left out), cycled for many classes.
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
             "#999999")


def class_colours(n: int) -> list[str]:
    """``n`` colours, one per class, colour-blind friendly, cycling after eight."""
    return [OKABE_ITO[i % len(OKABE_ITO)] for i in range(n)]


def class_balance_figure(ds) -> go.Figure:
    """Bar chart of rows per class, each bar labelled with its count and share of the rows."""
    table = class_counts(ds)
    labels = [f"{c:,} ({s:.0%})" for c, s in zip(table["count"], table["share"])]
    fig = go.Figure(go.Bar(
        x=[escape(c) for c in table["class"]], y=table["count"], text=labels, textposition="outside",
        marker_color=class_colours(len(table)), cliponaxis=False,
        hovertemplate="class %{x}<br>%{y} rows<extra></extra>",
    ))
    fig.update_layout(
        title=dict(text=f"Class balance of {short_label(ds.target)}"),
        xaxis=dict(title=dict(text="class"), type="category"),
        yaxis=dict(title=dict(text="rows"), rangemode="tozero"),
        margin=dict(t=60, b=40, l=40, r=20), height=360, showlegend=False,
    )
    return fig


#: Above this many target values the histogram is counted with numpy and drawn as bars.
MAX_RAW_VALUES = 20_000


def target_histogram_figure(ds, *, bins: int = 30) -> go.Figure:
    """Histogram of a regression target (missing values are not drawn), with its mean marked.

    Above :data:`MAX_RAW_VALUES` rows the counts are computed here over all rows (equal-width bins
    from min to max) and only the bars go to the browser.
    """
    y = np.asarray(ds.y, dtype=float)
    y = y[np.isfinite(y)]
    if y.size > MAX_RAW_VALUES:  # count here (every row) and send only the bars, not a million values
        counts, edges = np.histogram(y, bins=bins)
        trace = go.Bar(x=(edges[:-1] + edges[1:]) / 2, y=counts, width=np.diff(edges) * 0.95,
                       customdata=np.column_stack([edges[:-1], edges[1:]]), marker_color=OKABE_ITO[0],
                       hovertemplate="%{customdata[0]:.4g} to %{customdata[1]:.4g}<br>%{y} rows<extra></extra>")
    else:
        trace = go.Histogram(x=y, nbinsx=bins, marker_color=OKABE_ITO[0],
                             hovertemplate="%{x}<br>%{y} rows<extra></extra>")
    fig = go.Figure(trace)
    if y.size:
        mean = float(y.mean())
        fig.add_vline(x=mean, line_dash="dash", line_color=OKABE_ITO[5],
                      annotation_text=f"mean {mean:.4g}", annotation_position="top right")
    fig.update_layout(
        title=dict(text=f"Distribution of {short_label(ds.target)}"),
        xaxis=dict(title=dict(text=short_label(ds.target))), yaxis=dict(title=dict(text="rows")),
        margin=dict(t=60, b=40, l=40, r=20), height=360, showlegend=False, bargap=0.05,
    )
    return fig


def target_figure(ds) -> go.Figure:
    """The right picture of the target for the data set's task."""
    if ds.task == "classification":
        return class_balance_figure(ds)
    return target_histogram_figure(ds)
