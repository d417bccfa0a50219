"""Figures for the Grow page: the threshold scan of one feature, a node's class counts, the gain bars.

Pure functions from engine results (``engine.split.gain.candidate_scan`` / ``gain_table`` frames, a Tree) to
``go.Figure``. Scores are in the criterion's units: for a split of a node with weight w into children
of weights w_i, ``gain = I(parent) - sum_i (w_i / w) I(child_i)``; C4.5's ``gain_ratio = gain /
split_info`` with ``split_info = -sum_i (w_i / w) log2(w_i / w)``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from engine.errors import ConfigError, DataError

from engine.viz import palette
from engine.viz.regions import new_figure, vline
from engine.viz.text import FONT, escape

__all__ = ["threshold_scan_figure", "class_distribution_figure", "gain_bar_figure", "SCORE_LABELS", "scan_points",
           "MAX_SCAN_POINTS"]

SCORE_LABELS = {"gain": "gain", "gain_ratio": "gain ratio", "split_info": "split info", "chi2": "chi-square",
                "impurity_children": "impurity of the children", "p_value": "p-value"}
WINNER = palette.OKABE_ITO[0]
OTHER = "#B8B8B8"


def _empty(message: str, height: int) -> go.Figure:
    return new_figure(layout={"height": height, "font": FONT, "xaxis": {"visible": False}, "yaxis": {"visible": False},
                              "annotations": [{"text": escape(message), "showarrow": False, "x": 0.5, "y": 0.5,
                                               "xref": "paper", "yref": "paper", "font": {"size": 15}}]})


#: A threshold scan with more candidates than this is drawn as a min/max envelope of this many points.
MAX_SCAN_POINTS = 4000


def scan_points(values: np.ndarray, best: int, max_points: int = MAX_SCAN_POINTS) -> np.ndarray:
    """Positions of the scan rows to draw: all of them, or above ``max_points`` the highest and the
    lowest score in each of ``max_points / 2`` equal slices of the (sorted) thresholds, plus the best
    and both ends, so every peak and dip of the curve stays visible (exact search at 1M rows has
    about as many thresholds as rows; a browser cannot draw that many)."""
    n = len(values)
    if n <= max_points:
        return np.arange(n)
    k = max(max_points // 2, 1)
    bounds = np.linspace(0, n, k + 1).astype(np.int64)
    slice_of = np.repeat(np.arange(k), np.diff(bounds))
    v = np.where(np.isfinite(values), values, -np.inf)
    hi = np.lexsort((-v, slice_of))[bounds[:-1]]  # first of each slice when sorted by score, descending
    lo = np.lexsort((np.where(np.isfinite(values), values, np.inf), slice_of))[bounds[:-1]]
    return np.unique(np.concatenate([hi, lo, [best, 0, n - 1]]))


def threshold_scan_figure(scan_df: pd.DataFrame, chosen=None, *, score: str = "gain",
                          height: int = 380) -> go.Figure:
    """Score of every candidate split of one feature (``engine.split.gain.candidate_scan``).

    Numeric feature: line + markers of the score against the threshold, the best one enlarged, and
    ``chosen`` (a threshold) marked with a dashed vertical line. Categorical feature: one horizontal
    bar per subset / value, ``chosen`` (its split text) in the winner colour. ``customdata`` holds the
    row position in ``scan_df`` so a clicked point can be turned back into a split.
    """
    if score not in scan_df.columns:
        raise ConfigError(f"score '{score}' is not a column of the scan; choose one of {list(scan_df.columns)}.")
    if len(scan_df) == 0:
        return _empty("No candidate split: the feature takes a single value at this node.", height)
    label = SCORE_LABELS.get(score, score)
    values = pd.to_numeric(scan_df[score], errors="coerce").to_numpy(dtype=float)
    pos = np.arange(len(scan_df))
    thr = pd.to_numeric(scan_df.get("threshold", pd.Series(np.nan, index=scan_df.index)),
                        errors="coerce").to_numpy(dtype=float)
    feature = escape(scan_df["feature"].iloc[0]) if "feature" in scan_df.columns else "threshold"
    best = int(np.nanargmax(values)) if np.isfinite(values).any() else 0
    layout = {"font": FONT, "margin": {"l": 20, "r": 30, "t": 30, "b": 50}, "showlegend": False}
    if np.isfinite(thr).all():
        extra = ""
        custom = pos[:, None]
        if {"n_left", "n_right"} <= set(scan_df.columns):
            custom = np.column_stack([pos, scan_df["n_left"].to_numpy(), scan_df["n_right"].to_numpy()])
            extra = "<br>rows: %{customdata[1]} left, %{customdata[2]} right"
        keep = scan_points(values, best)
        traces = [{
            "type": "scatter", "x": thr[keep], "y": values[keep], "name": label,
            "mode": "lines+markers" if keep.size <= 500 else "lines", "customdata": custom[keep],
            "line": {"color": WINNER, "width": 2.5}, "marker": {"size": 8, "color": WINNER},
            "hovertemplate": f"{feature} ≤ %{{x:.6g}}<br>{label} = %{{y:.4f}}{extra}<extra></extra>"}, {
            "type": "scatter", "x": [thr[best]], "y": [values[best]], "mode": "markers", "name": "best",
            "hoverinfo": "skip", "marker": {"size": 16, "symbol": "diamond", "color": palette.OKABE_ITO[1],
                                            "line": {"color": "black", "width": 1}}}]
        shapes, notes = [], []
        if keep.size < len(values):
            notes.append({"text": f"{len(values):,} thresholds: drawn as the highest and lowest {label} "
                                  f"in each of {MAX_SCAN_POINTS // 2:,} slices",
                          "xref": "paper", "yref": "paper", "x": 0, "y": 1.06, "showarrow": False,
                          "xanchor": "left", "font": {"size": 12, "color": "#555555"}})
        if chosen is not None and np.isfinite(float(chosen)):
            shapes, mark = vline(float(chosen), line={"color": palette.HIGHLIGHT, "dash": "dash", "width": 2},
                                 text="chosen")
            notes += mark
        layout.update(xaxis={"title": {"text": f"threshold on {feature}"}},
                      yaxis={"title": {"text": label}, "rangemode": "tozero"}, shapes=shapes, annotations=notes)
    else:
        texts = scan_df["split"].astype(str).to_list()
        is_chosen = [t == chosen for t in texts] if chosen is not None else [i == best for i in pos]
        colors = [WINNER if c else OTHER for c in is_chosen]
        traces = [{"type": "bar", "x": values, "y": [escape(t) for t in texts], "orientation": "h",
                   "marker": {"color": colors}, "customdata": pos[:, None], "text": [f"{v:.3f}" for v in values],
                   "textposition": "outside", "cliponaxis": False,
                   "hovertemplate": f"%{{y}}<br>{label} = %{{x:.4f}}<extra></extra>"}]
        layout.update(yaxis={"autorange": "reversed", "automargin": True},
                      xaxis={"title": {"text": label}, "rangemode": "tozero"})
        height = min(max(160, 90 + 40 * len(texts)), max(height, 900))
    return new_figure(*traces, layout={**layout, "height": height})


def _node_names(tree, node) -> tuple[list[int], list[str]]:
    ids = [node.id, *node.children]
    names = [f"#{node.id} (this node)"]
    names += [f"#{c}: {escape(tree.nodes[c].branch)}" for c in node.children]
    return ids, names


def class_distribution_figure(tree, node_id: int, *, height: int = 380) -> go.Figure:
    """Class counts of a node and of its children, stacked by class in the class colours.

    Regression: the mean of each with a +/- 1 standard deviation bar, from the node statistics
    ``(w, sum wy, sum wy^2)``: mean = sum wy / w, sd = sqrt(sum wy^2 / w - mean^2).
    """
    node = tree.node(node_id)
    ids, names = _node_names(tree, node)
    if tree.task == "classification":
        classes = tree.schema.classes
        colors = palette.class_colors(classes)
        counts = np.array([tree.nodes[i].stats for i in ids], dtype=float)
        traces = [{"type": "bar", "x": names, "y": counts[:, k], "name": escape(cls), "marker": {"color": colors[cls]},
                   "customdata": np.array(ids)[:, None],
                   "hovertemplate": f"%{{x}}<br>{escape(cls)}: %{{y:.4g}}<extra></extra>"}
                  for k, cls in enumerate(classes)]
        layout = {"barmode": "stack", "yaxis": {"title": {"text": "rows (weighted)"}},
                  "legend": {"title": {"text": "class"}}}
    elif tree.task == "regression":
        stats = np.array([tree.nodes[i].stats for i in ids], dtype=float)
        w = np.where(stats[:, 0] > 0, stats[:, 0], np.nan)
        mean = stats[:, 1] / w
        sd = np.sqrt(np.maximum(stats[:, 2] / w - mean ** 2, 0.0))
        traces = [{
            "type": "bar", "x": names, "y": mean, "name": "mean", "customdata": np.column_stack([ids, stats[:, 0], sd]),
            "marker": {"color": [palette.OKABE_ITO[5]] + [palette.OKABE_ITO[0]] * (len(ids) - 1)},
            "error_y": {"type": "data", "array": sd, "visible": True, "color": "#444444"},
            "hovertemplate": "%{x}<br>mean = %{y:.4g}<br>sd = %{customdata[2]:.4g}<br>"
                             "n = %{customdata[1]:.4g}<extra></extra>"}]
        layout = {"yaxis": {"title": {"text": "mean ± 1 sd"}}, "showlegend": False}
    else:  # pragma: no cover - the schema validates the task
        raise DataError(f"Unknown task '{tree.task}'.")
    return new_figure(*traces, layout={**layout, "height": height, "font": FONT,
                                       "margin": {"l": 60, "r": 20, "t": 30, "b": 60}, "xaxis": {"type": "category"}})


def gain_bar_figure(gain_df: pd.DataFrame, score: str = "gain", *, height: int | None = None) -> go.Figure:
    """Each feature's best score as a horizontal bar, ranked as in the table; the winner coloured.

    Rows with ``eligible == False`` (C4.5 keeps only splits with at least average gain) are hatched.
    """
    if score not in gain_df.columns:
        raise ConfigError(f"score '{score}' is not a column of the gain table; choose one of "
                          f"{[c for c in SCORE_LABELS if c in gain_df.columns]}.")
    if len(gain_df) == 0:
        return _empty("No feature can split this node.", height or 200)
    label = SCORE_LABELS.get(score, score)
    values = pd.to_numeric(gain_df[score], errors="coerce").to_numpy(dtype=float)
    winner = gain_df["winner"].to_numpy(dtype=bool) if "winner" in gain_df.columns \
        else np.arange(len(gain_df)) == int(np.nanargmax(values))
    eligible = gain_df["eligible"].to_numpy(dtype=bool) if "eligible" in gain_df.columns \
        else np.ones(len(gain_df), dtype=bool)
    names = [escape(f) for f in gain_df["feature"].astype(str)]
    tests = [escape(s) for s in gain_df["split"].astype(str)] if "split" in gain_df.columns else names
    notes = ["" if e else "<br>not eligible: gain below the average of the candidates" for e in eligible]
    return new_figure(go.Bar(
        x=np.nan_to_num(values), y=names, orientation="h", customdata=np.column_stack([tests, notes]),
        marker={"color": [WINNER if w else OTHER for w in winner],
                "pattern": {"shape": ["" if e else "/" for e in eligible], "fillmode": "overlay",
                            "fgcolor": "#666666"}},
        text=[f"{v:.3f}" if np.isfinite(v) else "n/a" for v in values], textposition="outside",
        cliponaxis=False, hovertemplate=f"%{{customdata[0]}}<br>{label} = %{{x:.4f}}%{{customdata[1]}}<extra></extra>"),
        layout=dict(font=FONT, height=height or min(80 + 36 * len(gain_df), 900),
                    xaxis={"title": {"text": label}, "rangemode": "tozero"},
                    yaxis={"autorange": "reversed", "automargin": True, "type": "category"},
                    margin={"l": 20, "r": 40, "t": 20, "b": 50}, showlegend=False))
