"""Plotly figures for the Data page: class balance (classification) and target histogram (regression), and
:func:`overlay_shapes`, which draws light shapes onto a chart the browser already shows (the Grow page's
selected region) without sending the chart again.

The figures are pure functions from a Dataset to a ``go.Figure``; the page decides how to show them.
"""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import streamlit as st

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


#: A page script that draws layout shapes onto a chart the browser already shows, through Plotly's own
#: relayout (the mode bar's handler, as ui.tree_view.ZOOM_KEEPER does): a light change such as the outline
#: of the selected region then reaches the browser as a few numbers, and the chart (thousands of points)
#: is neither resent nor redrawn. ``window.__dtxOverlays`` maps a container's CSS selector to its shapes;
#: a new plot in that container (after a Step the chart is a new element) gets them too.
OVERLAY_JS = """<script>
(() => {
  const want = window.__dtxOverlays = window.__dtxOverlays || {};
  want[%(sel)s] = %(shapes)s;
  const apply = (gd, sel) => {
    const key = JSON.stringify(want[sel]);
    if (!gd._fullLayout || gd.__dtxOverlay === key) return;
    const bar = gd._fullLayout._modeBar;
    const button = bar && bar.buttons.flat().find(b => b && b.name === "zoomIn2d");
    if (!button) return;
    const names = new Set(want[sel].map(s => s.name));
    const kept = (gd.layout.shapes || []).filter(s => !names.has(s.name) && !(s.name || "").startsWith("overlay:"));
    gd.__dtxOverlay = key;
    button.click(gd, {currentTarget: {getAttribute: n => (n === "data-attr" ? "shapes" : kept.concat(want[sel])),
                                      setAttribute: () => {}}});
  };
  const scan = () => Object.keys(want).forEach(sel => {
    const gd = document.querySelector(sel + " .js-plotly-plot");
    if (gd) apply(gd, sel);
  });
  if (!window.__dtxOverlayObserver) {
    window.__dtxOverlayObserver = new MutationObserver(scan);
    window.__dtxOverlayObserver.observe(document.body, {childList: true, subtree: true});
  }
  scan();
})();
</script>"""


def overlay_shapes(container_key: str, shapes: list[dict]) -> None:
    """Draw ``shapes`` (Plotly layout shapes: numbers and fixed names only, no user text) onto the chart in
    ``st.container(key=container_key)``, replacing the shapes of the same names this function drew before;
    the chart itself is not sent again (see :data:`OVERLAY_JS`)."""
    names = [{**s, "name": f"overlay:{s.get('name', '')}"} for s in shapes]
    st.html(OVERLAY_JS % {"sel": json.dumps(f".st-key-{container_key}"), "shapes": json.dumps(names)},
            unsafe_allow_javascript=True, width="content")
