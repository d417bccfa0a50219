"""A tree's decision regions over two numeric features.

``region_figure`` draws each leaf's rectangle (``Tree.regions``) clipped to the data range plus a 5%
margin, tinted with the leaf's class colour (regression: its value on the sequential scale), and the
rows on top, one trace per class with colour + marker symbol and the row position in ``customdata``
(so ``st.plotly_chart(on_select=...)`` can tell which rows were picked). Above ``max_points`` (default
:data:`MAX_POINTS`) it draws a deterministic sample spread over classes and parts of the plot
(:func:`engine.tree.region_grid.stratified_rows`) and says so ("showing 3,000 of 20,000 rows"); above 5,000
drawn points it uses WebGL. Above :data:`SHAPE_LIMIT` leaves the rectangles are merged per colour on a grid
of about a pixel (:func:`engine.tree.region_grid.merge_rectangles`): a fully grown tree's thousands of leaves
become a few hundred rectangles, and the highlighted node's region is one outline.

User text (feature names, class labels, category values) is escaped with :func:`engine.viz.text.escape`
before it reaches Plotly. :func:`new_figure` (one validated construction on the white :data:`TEMPLATE`) and
:func:`vline` are the figure frame every builder of this package uses.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from engine.errors import DataError
from engine.tree.region_grid import grid_edges, merge_rectangles, stratified_rows

from engine.viz import palette
from engine.viz.text import FONT, escape, short_label

#: The template of this package's figures.
TEMPLATE = "plotly_white"


def new_figure(*data, layout: dict | None = None) -> go.Figure:
    """A figure with these traces and this layout on the white :data:`TEMPLATE`, built in one go.

    Plotly validates every ``update_layout`` / ``add_trace`` / ``add_vline`` call separately (a few
    ms each, most of a Grow-page Step's figure time when a figure was assembled call by call), so the
    builders here collect plain dicts and pass them once: the constructor validates them all in one
    pass. The template is assigned the way Plotly assigns its own default template, with validation
    off for that one assignment (the registered template is already valid; validating it costs about
    10 ms a figure). Not by changing ``plotly.io.templates.default``: Streamlit sets that on import.
    """
    fig = go.Figure(data=list(data), layout=layout)
    lay = fig.layout
    lay._validate = False  # Plotly's own shortcut in BaseFigure._initialize_layout_template
    try:
        lay.template = pio.templates[TEMPLATE]
    finally:
        lay._validate = fig._validate
    return fig


def vline(x: float, *, line: dict, text: str | None = None) -> tuple[list[dict], list[dict]]:
    """The shape (and ``text`` annotation above the plot) that ``fig.add_vline(x, line=...,
    annotation_text=text, annotation_position="top")`` adds, as layout dicts: ([shape], [annotation])."""
    shape = {"type": "line", "x0": x, "x1": x, "xref": "x", "y0": 0, "y1": 1, "yref": "y domain", "line": line}
    notes = [] if text is None else [{"text": text, "showarrow": False, "x": x, "xanchor": "center", "xref": "x",
                                      "y": 1, "yanchor": "bottom", "yref": "y domain"}]
    return [shape], notes

__all__ = ["region_figure", "region_points", "RegionPoints", "region_layer", "RegionLayer", "highlight_shapes",
           "sample_rows", "new_figure", "vline", "TEMPLATE"]

WEBGL_POINTS = 5000
#: rows drawn at most by default: more add no picture (points cover points) but megabytes the browser redraws
MAX_POINTS = 3000


def sample_rows(n: int, max_points: int, seed: int = 0) -> np.ndarray:
    """Sorted positions of at most ``max_points`` of ``n`` rows (all rows when they fit)."""
    if max_points < 1:
        raise DataError("max_points must be at least 1.")
    if n <= max_points:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, size=max_points, replace=False))


def _column(frame: pd.DataFrame, name: str) -> np.ndarray:
    if name not in frame.columns:
        raise DataError(f"The data has no column '{name}'.")
    values = pd.to_numeric(frame[name], errors="coerce").to_numpy(dtype=float)
    return values


def _bounds(values: np.ndarray) -> tuple[float, float]:
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return -1.0, 1.0
    lo, hi = float(finite.min()), float(finite.max())
    pad = 0.05 * (hi - lo) if hi > lo else max(abs(lo) * 0.05, 0.5)
    return lo - pad, hi + pad


def _as_float(value) -> float | None:
    """``value`` as a finite float, or None (missing or not a number: the query star is not drawn)."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        return None
    return v if np.isfinite(v) else None


def _point_trace(gl: bool, **kw) -> dict:
    return {"type": "scattergl" if gl else "scatter", **kw}


#: characters per line of the notes above the plot: 55 at 13 px is ~360 px, so a note fits beside the legend
#: in a plot ~500 px wide (the Grow page's diagram column at 1366 px); 95 ran past the right edge there
NOTE_WIDTH = 55


def _note_lines(notes: list[str], width: int = NOTE_WIDTH) -> list[str]:
    return [line for note in notes for line in textwrap.wrap(note, width)]


def _notes_annotation(notes: list[str]) -> dict:
    return {"text": "<br>".join(_note_lines(notes)), "xref": "paper", "yref": "paper", "x": 0, "y": 1.02,
            "xanchor": "left", "yanchor": "bottom", "showarrow": False, "align": "left",
            "font": {"size": 13, "color": "#444444"}}


#: above this many rectangles the regions are drawn as a few filled traces instead of one layout shape each
#: (Plotly validates every shape on its own: 13,000 leaves took ~10 s to build)
SHAPE_LIMIT = 400
#: shades of the value scale for a regression tree's regions drawn as traces
TRACE_SHADES = 16


def _rectangles(regions, box):
    """(region, x0, x1, y0, y1) of every region clipped to the box, empty ones left out."""
    x_lo, x_hi, y_lo, y_hi = box
    for r in regions:
        x0, x1 = max(r.x0, x_lo), min(r.x1, x_hi)
        y0, y1 = max(r.y0, y_lo), min(r.y1, y_hi)
        if x1 > x0 and y1 > y0:
            yield r, x0, x1, y0, y1


def _region_color(tree, r, colors, vmin, vmax, shades: int | None = None) -> str:
    if tree.task != "regression":
        return colors[r.prediction]
    v = r.value[0]
    if shades and vmax > vmin:                   # the centre of its shade band
        k = min(int((v - vmin) / (vmax - vmin) * shades), shades - 1)
        v = vmin + (k + 0.5) * (vmax - vmin) / shades
    return palette.value_color(v, vmin, vmax)


def _region_shapes(tree, rects, highlight, vmin, vmax) -> list[dict]:
    colors = palette.class_colors(tree.schema.classes)
    shapes = []
    for r, x0, x1, y0, y1 in rects:
        hot = r.leaf in highlight
        shapes.append({
            "type": "rect", "layer": "below", "x0": x0, "x1": x1, "y0": y0, "y1": y1,
            "fillcolor": palette.rgba(_region_color(tree, r, colors, vmin, vmax), 0.22), "name": f"leaf {r.leaf}",
            "line": {"color": palette.HIGHLIGHT if hot else "#8A8A8A", "width": 3.5 if hot else 0.8},
        })
    return shapes


def _outline(rects) -> tuple[np.ndarray, np.ndarray]:
    """x and y of the rectangles' closed outlines, one after another, separated by NaN (a gap: Plotly
    closes and fills each piece on its own); arrays, which Plotly passes on without a per-value check."""
    b = np.array([r[1:] for r in rects], dtype=float).reshape(-1, 4)        # x0, x1, y0, y1
    x0, x1, y0, y1 = b.T
    gap = np.full(len(b), np.nan)
    xs = np.stack([x0, x1, x1, x0, x0, gap], axis=1).ravel()
    ys = np.stack([y0, y0, y1, y1, y0, gap], axis=1).ravel()
    return xs, ys


def _region_traces(tree, rects, vmin, vmax, box) -> list[dict]:
    """Many regions as one filled trace per colour (classes, or value shades) and one outline trace, each
    merged on a grid of about a pixel (the union of a colour's rectangles; every border stretch once)."""
    colors = palette.class_colors(tree.schema.classes)
    by_color: dict[str, list] = {}
    for rect in rects:
        by_color.setdefault(_region_color(tree, rect[0], colors, vmin, vmax, TRACE_SHADES), []).append(rect[1:])
    traces = []
    for color, group in by_color.items():
        xs, ys = _outline([(None, *r) for r in merge_rectangles(np.array(group), box)])
        traces.append({"type": "scatter", "x": xs, "y": ys, "mode": "none", "fill": "toself",
                       "fillcolor": palette.rgba(color, 0.22), "hoverinfo": "skip", "showlegend": False,
                       "name": "regions"})
    xs, ys = grid_edges(np.array([r[1:] for r in rects], dtype=float), box)
    traces.append({"type": "scatter", "x": xs, "y": ys, "mode": "lines", "hoverinfo": "skip", "showlegend": False,
                   "line": {"color": "#8A8A8A", "width": 0.6}, "name": "region borders"})
    return traces


@dataclass(frozen=True, eq=False)
class RegionLayer:
    """A tree's leaf regions over two features, clipped to a plot's box: ``rects`` as (region, x0, x1, y0, y1),
    the value range of a regression tree, and above :data:`SHAPE_LIMIT` rectangles their merged traces. It
    depends on the tree and the box only, so a page keeps it while the highlight or the query point changes."""

    regions: list
    rects: list
    vmin: float
    vmax: float
    traces: tuple

    def __repr__(self) -> str:
        return f"RegionLayer(regions={len(self.regions):,}, merged traces={len(self.traces)})"


def highlight_shapes(layer: RegionLayer, leaves) -> list[dict]:
    """One thick border round the rectangles of ``leaves`` (the leaves of one node fill its rectangle), as a
    layout shape named "highlighted region"; [] when none of them is drawn."""
    wanted = set(leaves)
    hot = np.array([r[1:] for r in layer.rects if r[0].leaf in wanted], dtype=float).reshape(-1, 4)
    if not hot.size:
        return []
    return [{"type": "rect", "layer": "above", "x0": float(hot[:, 0].min()), "x1": float(hot[:, 1].max()),
             "y0": float(hot[:, 2].min()), "y1": float(hot[:, 3].max()), "fillcolor": "rgba(0,0,0,0)",
             "name": "highlighted region", "line": {"color": palette.HIGHLIGHT, "width": 3.5}}]


def region_layer(tree, x: str, y: str, box) -> RegionLayer:
    """The :class:`RegionLayer` of ``tree`` over ``x`` and ``y`` in ``box`` (x0, x1, y0, y1)."""
    regions = tree.regions(x, y)  # raises DataError unless both are numeric features of the tree
    vals = [float(r.value[0]) for r in regions] if tree.task == "regression" else []
    vmin, vmax = (min(vals), max(vals)) if vals else (0.0, 1.0)
    rects = list(_rectangles(regions, box))
    traces = tuple(_region_traces(tree, rects, vmin, vmax, box)) if len(rects) > SHAPE_LIMIT else ()
    return RegionLayer(regions, rects, vmin, vmax, traces)


@dataclass(frozen=True, eq=False)
class RegionPoints:
    """The rows of a region plot: point traces (plain dicts), the axis box, and how many rows there
    are, have both values and are drawn. None of it depends on the tree's splits, so a page can keep
    it while the tree grows (at 10k rows it is most of the plot's build time)."""

    traces: tuple
    box: tuple[float, float, float, float]
    n: int
    n_known: int
    n_shown: int

    def __repr__(self) -> str:
        return f"RegionPoints(traces={len(self.traces)}, shown={self.n_shown:,} of {self.n_known:,})"


def region_points(tree, frame: pd.DataFrame, labels, x: str, y: str, *, max_points: int = MAX_POINTS, seed: int = 0,
                  label_name: str | None = None) -> RegionPoints:
    """The point traces of :func:`region_figure` (same arguments). Of ``tree`` only the task and the
    class list are read, so the result serves every tree grown on the same rows."""
    xs, ys = _column(frame, x), _column(frame, y)
    n = len(frame)
    if labels is not None and len(labels) != n:
        raise DataError(f"Got {len(labels)} labels for {n} rows: give one label per row.")
    box = (*_bounds(xs), *_bounds(ys))
    known = np.flatnonzero(np.isfinite(xs) & np.isfinite(ys))
    regression = tree.task == "regression"
    if max_points < 1:
        raise DataError("max_points must be at least 1.")
    strata = (np.zeros(known.size, dtype=np.int64) if labels is None or regression
              else pd.factorize(np.asarray(labels, dtype=object)[known])[0])
    shown = known[stratified_rows(xs[known], ys[known], strata, box, max_points, seed=seed)]
    gl = shown.size > WEBGL_POINTS
    label_title = escape(label_name) if label_name else ("value" if regression else "class")
    traces = []
    hover = (f"{escape(x)} = %{{x}}<br>{escape(y)} = %{{y}}<br>row %{{customdata[0]}}")
    if labels is None:
        traces.append(_point_trace(gl, x=xs[shown], y=ys[shown], mode="markers", name="rows",
                                   customdata=shown[:, None], hovertemplate=hover + "<extra></extra>",
                                   marker={"color": "#555555", "size": 7}))
    elif regression:  # the colour range (cmin, cmax) is the tree's: region_figure sets it
        lab = np.asarray(labels, dtype=float)
        traces.append(_point_trace(
            gl, x=xs[shown], y=ys[shown], mode="markers", name="rows", customdata=shown[:, None],
            showlegend=False, hovertemplate=hover + f"<br>{label_title} = %{{marker.color:.4g}}<extra></extra>",
            marker={"color": lab[shown], "colorscale": palette.sequential_colorscale(), "size": 7,
                    "line": {"color": "white", "width": 0.5},
                    "colorbar": {"title": {"text": label_title}, "thickness": 14}}))
    else:
        lab = np.asarray(labels, dtype=object)[shown].astype(str)  # only the drawn rows
        classes = list(tree.schema.classes) + sorted(set(lab) - set(tree.schema.classes))
        colors, symbols = palette.class_colors(classes), palette.class_symbols(classes)
        for cls in classes:
            rows = shown[lab == cls]
            if rows.size == 0:
                continue
            traces.append(_point_trace(
                gl, x=xs[rows], y=ys[rows], mode="markers", name=escape(cls), customdata=rows[:, None],
                hovertemplate=hover + f"<br>{label_title} = {escape(cls)}<extra></extra>",
                marker={"color": colors[cls], "symbol": symbols[cls], "size": 8,
                        "line": {"color": "white", "width": 0.6}}))
    return RegionPoints(tuple(traces), box, n, int(known.size), int(shown.size))


def region_figure(tree, frame: pd.DataFrame, labels, x: str, y: str, *, highlight_leaves=(), query=None,
                  max_points: int = MAX_POINTS, seed: int = 0, show_leaf_ids: bool = True,
                  label_name: str | None = None, height: int = 560, dragmode: str = "select",
                  points: RegionPoints | None = None, layer: RegionLayer | None = None) -> go.Figure:
    """Leaf rectangles of ``tree`` over features ``x`` and ``y`` with the rows of ``frame`` on top.

    labels: the rows' classes (or regression targets), same length as ``frame``; None draws grey points.
    highlight_leaves: leaf ids drawn with a thick black border (the region the last step split); above
    :data:`SHAPE_LIMIT` leaves one border round them all (the leaves of one node fill its rectangle).
    query: ``{feature: value}`` drawn as a big star at ``(query[x], query[y])``.
    label_name: the target's name, for the legend / colour-bar title (default "class" / "value").
    dragmode: Plotly's drag tool ("select"; "zoom" lets a click select a point in Streamlit).
    points: :func:`region_points` of the same rows, kept from an earlier tree of the same data (then
    ``labels``, ``max_points`` and ``seed`` are not read); by default computed here.
    layer: :func:`region_layer` of this tree over ``points.box``, kept while only the highlight or the
    query changes (a click in the app); by default computed here.
    """
    if points is None:
        points = region_points(tree, frame, labels, x, y, max_points=max_points, seed=seed, label_name=label_name)
    box = points.box
    if layer is None:
        layer = region_layer(tree, x, y, box)
    regions, rects, vmin, vmax = layer.regions, layer.rects, layer.vmin, layer.vmax
    regression = tree.task == "regression"
    label_title = escape(label_name) if label_name else ("value" if regression else "class")
    traces = [{**t, "marker": {**t["marker"], "cmin": vmin, "cmax": vmax}} if "colorscale" in t["marker"] else t
              for t in points.traces]
    if show_leaf_ids and len(regions) <= 60:
        cx, cy, text = [], [], []
        for r in regions:
            x0, x1 = max(r.x0, box[0]), min(r.x1, box[1])
            y0, y1 = max(r.y0, box[2]), min(r.y1, box[3])
            if x1 > x0 and y1 > y0 and not r.other_conditions:
                cx.append((x0 + x1) / 2)
                cy.append((y0 + y1) / 2)
                text.append(f"#{r.leaf}")
        traces.append({"type": "scatter", "x": cx, "y": cy, "mode": "text", "text": text, "name": "leaf ids",
                       "hoverinfo": "skip", "showlegend": False, "textfont": {"size": 13, "color": "#666666"}})
    qx, qy = (_as_float(query.get(x)), _as_float(query.get(y))) if query else (None, None)
    if qx is not None and qy is not None:
        traces.append({"type": "scatter", "x": [qx], "y": [qy], "mode": "markers", "name": "query",
                       "hovertemplate": "query<extra></extra>",
                       "marker": {"symbol": "star", "size": 24, "color": palette.PATH,
                                  "line": {"color": "black", "width": 1.5}}})

    if layer.traces:            # many leaves: a few merged traces under the points, one shape
        traces = list(layer.traces) + traces    # round the highlighted leaves
        shapes = highlight_shapes(layer, highlight_leaves)
    else:
        shapes = _region_shapes(tree, rects, set(highlight_leaves), vmin, vmax)
    notes = []
    if len(rects) > SHAPE_LIMIT:
        notes.append(f"{len(rects):,} regions in {TRACE_SHADES} shades of the value scale, merged"
                     if regression else f"{len(rects):,} leaf regions, merged per class")
    if any(r.other_conditions for r in regions):
        notes.append(f"The tree also splits on other features: rectangles show only the splits on "
                     f"{short_label(x)} and {short_label(y)}, so rows in one rectangle may land in different leaves.")
    if points.n_shown < points.n_known:
        notes.append(f"showing {points.n_shown:,} of {points.n_known:,} rows")
    if points.n_known < points.n:
        notes.append(f"{points.n - points.n_known:,} rows with a missing {short_label(x)} or {short_label(y)} are not drawn")
    return new_figure(*traces, layout=dict(
        height=height, font=FONT,
        shapes=shapes,
        xaxis={"title": {"text": escape(x)}, "range": [box[0], box[1]], "zeroline": False},
        yaxis={"title": {"text": escape(y)}, "range": [box[2], box[3]], "zeroline": False},
        legend={"title": {"text": label_title}, "itemsizing": "constant"},
        margin={"l": 60, "r": 20, "t": 30 + 20 * len(_note_lines(notes)), "b": 60},
        annotations=[_notes_annotation(notes)] if notes else [],
        dragmode=dragmode, uirevision="regions",
    ))
