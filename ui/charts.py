"""Plotly figures for the Data page: class balance (classification) and target histogram (regression);
:func:`show_chart`, the one way the app shows a chart (with its text alternative); and
:func:`overlay_shapes`, which draws light shapes onto a chart the browser already shows (the Grow page's
selected region) without sending the chart again.

The figures are pure functions from a Dataset to a ``go.Figure``; the page decides how to show them.
"""

from __future__ import annotations

import json
from contextlib import nullcontext

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from engine.viz.alt import describe, figure_table
from engine.viz.palette import OKABE_ITO, color_at
from engine.viz.text import escape, short_label
from ui.summaries import class_counts
from ui.widgets import md_escape

#: ``st.container`` keys around a chart and around its description: ui.access.a11y's page script gives the chart's
#: graph ``role="figure"`` and the description as its ``aria-label``
CHART_PREFIX, ALT_PREFIX = "dtx_chart_", "dtx_alt_"
TABLE_LABEL = "Chart as a table"

def class_colours(n: int) -> list[str]:
    """``n`` colours, one per class: the app's class colours (engine.viz.palette), colour-blind friendly and at
    3:1 or more against the chart's background."""
    return [color_at(i) for i in range(n)]


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
        fig.add_vline(x=mean, line_dash="dash", line_color=OKABE_ITO[3],
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
#: is neither resent nor redrawn. The script is one constant text (st.html takes constant text only, and the
#: proxy's Content-Security-Policy runs an inline script only by its hash): the shapes travel as JSON text in a
#: hidden container whose key starts with :data:`OVERLAY_PREFIX` (``{"sel": the chart's container, "shapes":
#: [...]}``); the script reads every such container whenever the page changes (a new plot after a Step, new
#: shapes after a click) and applies what changed.
OVERLAY_PREFIX = "dtx_overlay_"
OVERLAY_JS = """<script>
(() => {
  const apply = (gd, shapes) => {
    const key = JSON.stringify(shapes);
    if (!gd._fullLayout || gd.__dtxOverlay === key) return;
    // a last guard against any loop of redraws: at most 20 a second per chart
    const now = Date.now(), w = gd.__dtxOverlayWindow || (gd.__dtxOverlayWindow = {start: now, n: 0});
    if (now - w.start > 1000) { w.start = now; w.n = 0; }
    if (++w.n > 20) return;
    const bar = gd._fullLayout._modeBar;
    const button = bar && bar.buttons.flat().find(b => b && b.name === "zoomIn2d");
    if (!button) return;
    const names = new Set(shapes.map(s => s.name));
    const kept = (gd.layout.shapes || []).filter(s => !names.has(s.name) && !(s.name || "").startsWith("overlay:"));
    gd.__dtxOverlay = key;
    button.click(gd, {currentTarget: {getAttribute: n => (n === "data-attr" ? "shapes" : kept.concat(shapes)),
                                      setAttribute: () => {}}});
  };
  // One set of shapes per chart: a rerun can show a stale container (the last run's shapes) beside its new one
  // for a moment; both applied in turn would redraw the chart forever. The stale one is skipped, and of two live
  // ones the later wins.
  const scan = () => {
    const wants = new Map();
    document.querySelectorAll("[class*='st-key-dtx_overlay_']").forEach(box => {
      if (box.closest("[data-stale='true']")) return;
      let want;
      try { want = JSON.parse(box.textContent); } catch (e) { return; }
      if (!want || typeof want.sel !== "string" || !Array.isArray(want.shapes)) return;
      wants.set(want.sel, want.shapes);
    });
    wants.forEach((shapes, sel) => {
      const gd = document.querySelector(sel + " .js-plotly-plot");
      if (gd) apply(gd, shapes);
    });
  };
  // The scan runs inside the observer's turn (queued for a later task, it came between a press and a release on
  // the region plot and the click no longer selected its leaf): one set per chart, applied once, ends it there.
  if (!window.__dtxOverlayObserver) {
    window.__dtxOverlayObserver = new MutationObserver(scan);
    window.__dtxOverlayObserver.observe(document.body, {childList: true, subtree: true, characterData: true});
  }
  scan();
})();
</script>"""
# the shapes' containers and their layout wrappers take no room (a literal: st.html takes constant text only)
OVERLAY_CSS = ("<style>[class*='st-key-dtx_overlay_'], [data-testid='stLayoutWrapper']:has(> [class*='st-key-dtx_overlay_']) "
               "{ display: none !important; }</style>")


def overlay_shapes(container_key: str, shapes: list[dict]) -> None:
    """Draw ``shapes`` (Plotly layout shapes: numbers and fixed names only, no user text) onto the chart in
    ``st.container(key=container_key)``, replacing the shapes of the same names this function drew before;
    the chart itself is not sent again (see :data:`OVERLAY_JS`)."""
    names = [{**s, "name": f"overlay:{s.get('name', '')}"} for s in shapes]
    st.html(OVERLAY_CSS)
    with st.container(key=OVERLAY_PREFIX + container_key):
        st.text(json.dumps({"sel": f".st-key-{container_key}", "shapes": names}))
    st.html(OVERLAY_JS, unsafe_allow_javascript=True, width="content")


def show_chart(fig: go.Figure, *, key: str, where=None, lead: str = "", description: str | None = None,
               table=None, **kwargs):
    """``st.plotly_chart(fig, key=key, **kwargs)`` (``width="stretch"`` unless given) with its text alternative
    (WCAG 1.1.1), in ``where`` (a column; default: the current container); returns what ``st.plotly_chart`` does.

    Below the chart an expander "Chart as a table" holds the description (``description``, or one made from the
    figure, :func:`engine.viz.alt.describe`, ``lead`` naming an untitled chart) and, once opened, the data behind
    the marks as a table (``table``, or :func:`engine.viz.alt.figure_table`) that the keyboard reaches. The same
    description becomes the chart's accessible name: ui.access.a11y's page script sets it as the graph's ``aria-label``
    (``role="figure"``, its SVG text hidden), so a screen reader says it instead of the chart's labels run together.
    """
    kwargs.setdefault("width", "stretch")
    text = description or describe(fig, lead=lead)
    with where if where is not None else nullcontext(), st.container(key=CHART_PREFIX + key):
        event = st.plotly_chart(fig, key=key, **kwargs)
        with st.expander(TABLE_LABEL, key=f"_w_table_{key}", on_change="rerun") as box:
            with st.container(key=ALT_PREFIX + key):
                st.caption(md_escape(text, limit=1000))
            if box.open:
                st.dataframe(figure_table(fig) if table is None else table, hide_index=True)
    return event
