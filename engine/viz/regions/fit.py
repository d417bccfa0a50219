"""A regression tree's step function along one feature, with the rows as points.

:func:`regression_fit_figure` draws the rows as (feature, target) points and the tree's prediction along
the feature, the other features held at :func:`typical_row` (median or most frequent value).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from engine.errors import DataError
from engine.viz import palette
from engine.viz.regions.plot import (_as_float, _bounds, _column, _note_lines, _notes_annotation, _point_trace,
                                     WEBGL_POINTS, new_figure, sample_rows)
from engine.viz.text import FONT, escape

__all__ = ["typical_row", "regression_fit_figure"]


def typical_row(schema, frame: pd.DataFrame) -> dict:
    """Median of each numeric feature, most frequent value of each categorical one."""
    row = {}
    for name, kind in zip(schema.feature_names, schema.kinds):
        if name not in frame.columns:
            raise DataError(f"The data has no column '{name}'.")
        col = frame[name]
        if kind == "numeric":
            row[name] = float(pd.to_numeric(col, errors="coerce").median())
        else:
            mode = col.dropna().astype(str).mode()
            row[name] = mode.iloc[0] if len(mode) else np.nan
    return row


def _predict_rows(tree, base: dict, feature: str, values) -> np.ndarray:
    rows = pd.DataFrame({k: [v] * len(values) for k, v in base.items()})
    rows[feature] = list(values)
    return np.asarray(tree.predict(rows), dtype=float)


def regression_fit_figure(tree, frame: pd.DataFrame, y, feature: str, *, query=None,
                          max_points: int = 20000, seed: int = 0, height: int = 480) -> go.Figure:
    """Rows as (feature, target) points and the tree's piecewise-constant prediction along ``feature``.

    y: the target column name in ``frame`` or the target values. The other features are held at their
    median (numeric) or most frequent value (categorical), so the step line is one slice of the tree;
    a note says so when the tree uses other features. query: ``{feature: value}`` drawn as a star at
    its prediction (missing features at the same typical values).
    """
    if tree.task != "regression":
        raise DataError("The step-function plot is for regression trees; this tree predicts classes.")
    if feature not in tree.schema.feature_names:
        raise DataError(f"'{feature}' is not a feature of this tree.")
    target = _column(frame, y) if isinstance(y, str) else np.asarray(y, dtype=float)
    if target.shape[0] != len(frame):
        raise DataError(f"Got {target.shape[0]} target values for {len(frame)} rows: give one per row.")
    base = typical_row(tree.schema, frame)
    kind = tree.schema.kinds[tree.schema.index(feature)]
    traces = []
    if kind == "numeric":
        xs = _column(frame, feature)
        lo, hi = _bounds(xs)
        cuts = sorted({n.split.threshold for n in tree.internal_nodes
                       if n.split.feature == feature and n.split.kind == "threshold"
                       and lo < n.split.threshold < hi})
        edges = np.array([lo, *cuts, hi])
        preds = _predict_rows(tree, base, feature, (edges[:-1] + edges[1:]) / 2)
        line_x, line_y = edges, np.append(preds, preds[-1])
        shape = "hv"
    else:
        cats = list(tree.schema.categories[tree.schema.index(feature)])
        # the values are the axis' categories, so its tick labels and hover %{x}: escaped, once per value
        codes = pd.Categorical(frame[feature].astype("string"))
        xs = np.array([escape(c) for c in codes.categories] + [None], dtype=object)[codes.codes]
        line_x, line_y, shape = [escape(c) for c in cats], _predict_rows(tree, base, feature, cats), None
    known = np.flatnonzero(pd.notna(pd.Series(xs)).to_numpy() & np.isfinite(target))
    shown = known[sample_rows(known.size, max_points, seed)]
    traces.append(_point_trace(
        shown.size > WEBGL_POINTS, x=np.asarray(xs, dtype=object)[shown] if kind != "numeric" else xs[shown],
        y=target[shown], mode="markers", name="rows", customdata=shown[:, None],
        hovertemplate=f"{escape(feature)} = %{{x}}<br>target = %{{y:.4g}}<br>row %{{customdata[0]}}<extra></extra>",
        marker={"color": palette.OKABE_ITO[5], "size": 7, "opacity": 0.6}))
    if shape:
        traces.append(dict(type="scatter", x=line_x, y=line_y, mode="lines", name="tree prediction",
                           line={"color": palette.OKABE_ITO[3], "width": 3, "shape": shape},
                           hovertemplate="prediction %{y:.4g}<extra></extra>"))
    else:
        traces.append(dict(type="scatter", x=line_x, y=line_y, mode="markers", name="tree prediction",
                           marker={"symbol": "line-ew-open", "size": 44, "color": palette.OKABE_ITO[3],
                                   "line": {"width": 4, "color": palette.OKABE_ITO[3]}},
                           hovertemplate="prediction %{y:.4g}<extra></extra>"))
    if query is not None and feature in query and (kind != "numeric" or _as_float(query[feature]) is not None):
        qrow = {**base, **{k: v for k, v in query.items() if k in base}}
        qy = _predict_rows(tree, qrow, feature, [query[feature]])[0]
        qx = query[feature] if kind == "numeric" else escape(query[feature])
        traces.append(dict(type="scatter", x=[qx], y=[qy], mode="markers", name="query",
                           hovertemplate="query: prediction %{y:.4g}<extra></extra>",
                           marker={"symbol": "star", "size": 22, "color": palette.PATH,
                                   "line": {"color": "black", "width": 1.5}}))
    others = {n.split.feature for n in tree.internal_nodes} - {feature}
    notes = []
    if others:
        notes.append("Prediction with the other features at their median (numeric) or most frequent "
                     "value (categorical): one slice of the tree.")
    if shown.size < known.size:
        notes.append(f"showing {shown.size:,} of {known.size:,} rows")
    return new_figure(*traces, layout=dict(
        height=height, font=FONT,
        xaxis={"title": {"text": escape(feature)}}, yaxis={"title": {"text": "target"}},
        margin={"l": 60, "r": 20, "t": 30 + 20 * len(_note_lines(notes)), "b": 60},
        annotations=[_notes_annotation(notes)] if notes else [],
        legend={"orientation": "h", "y": -0.2},
    ))
