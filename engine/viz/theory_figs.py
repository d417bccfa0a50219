"""Plotly figures for the Theory page: impurity curves, a split's chords, gains, PAC growth.

Pure functions from :mod:`engine.teach.theory` results to ``go.Figure``; the caller decides how to show them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from engine.errors import ConfigError
from engine.split.impurity import binary_entropy, binary_gini, binary_misclassification
from engine.teach.theory import CRITERIA_COMPARED, impurity_curves

# Okabe-Ito colour-blind-safe colours, one per criterion.
COLORS = {
    "misclassification": "#D55E00",
    "entropy": "#0072B2",
    "entropy_half": "#1C93D7",  # Okabe-Ito's sky blue at 3:1 on white (engine.viz.palette)
    "gini": "#009E73",
}
LABELS = {
    "misclassification": "Misclassification min(p, 1−p)",
    "entropy": "Entropy H(p) (bits)",
    "entropy_half": "Entropy / 2",
    "gini": "Gini 2p(1−p)",
}
_PAC_COLORS = ("#009E73", "#0072B2", "#BB8100", "#D55E00", "#C870A1", "#1C93D7")  # palette.OKABE_ITO's marks


def _curve_value(curves: pd.DataFrame, column: str, p: float) -> float:
    """Exact value of a named curve at p (the impurity_curves formulas), interpolated otherwise."""
    exact = {"misclassification": binary_misclassification, "entropy": binary_entropy,
             "entropy_half": lambda q: binary_entropy(q) / 2.0, "gini": binary_gini}
    if column in exact:
        return float(exact[column](np.asarray(p, dtype=float)))
    return float(np.interp(p, curves["p"].to_numpy(), curves[column].to_numpy()))


def impurity_curves_figure(
    curves: pd.DataFrame | None = None,
    *,
    marked_p: float | None = None,
    marked_label: str = "selected node",
    columns=("misclassification", "entropy", "entropy_half", "gini"),
) -> go.Figure:
    """Impurity of a two-class node against p = share of the first class.

    With ``marked_p`` a dashed vertical line marks p and a marker sits on each curve at it.
    """
    curves = impurity_curves() if curves is None else curves
    fig = go.Figure()
    for col in columns:
        fig.add_trace(go.Scatter(
            x=curves["p"], y=curves[col], mode="lines", name=LABELS.get(col, col),
            line={"color": COLORS.get(col), "width": 2.5, "dash": "dot" if col == "entropy_half" else "solid"},
            hovertemplate="p=%{x:.3f}<br>%{y:.4f}<extra>" + LABELS.get(col, col) + "</extra>",
        ))
    if marked_p is not None:
        p = float(np.clip(marked_p, 0.0, 1.0))
        fig.add_vline(x=p, line={"color": "#555555", "dash": "dash", "width": 1.5},
                      annotation_text=f"{marked_label}: p = {p:.3f}", annotation_position="top")
        fig.add_trace(go.Scatter(
            x=[p] * len(columns), y=[_curve_value(curves, c, p) for c in columns], mode="markers",
            marker={"size": 11, "color": [COLORS.get(c) for c in columns], "line": {"color": "white", "width": 1.5}},
            name=f"{marked_label} (p = {p:.3f})", customdata=[LABELS.get(c, c) for c in columns],
            hovertemplate="%{customdata}: %{y:.4f}<extra></extra>",
        ))
    fig.update_layout(
        xaxis_title="p = share of the first class", yaxis_title="impurity",
        xaxis={"range": [0, 1]}, yaxis={"rangemode": "tozero"},
        legend={"orientation": "h", "y": -0.2}, margin={"t": 40, "b": 10}, height=440,
    )
    return fig


def split_chords_figure(parent_counts, left_counts, *, columns=("misclassification", "entropy_half", "gini")) -> go.Figure:
    """Why gains differ: each curve with the chord between the two children of a two-class split.

    The parent's p is the weighted mean of the children's p, so the weighted children impurity is
    the chord read at the parent's p; the gain is the gap between the curve and that point.
    Entropy is drawn halved so all curves share the 0..0.5 scale (its gain is halved too).
    """
    parent = np.asarray(parent_counts, dtype=float)
    left = np.asarray(left_counts, dtype=float)
    right = parent - left
    if parent.size != 2:
        raise ConfigError("The chord picture needs exactly two classes; give two counts per node.")
    shares = [c[0] / c.sum() for c in (left, right, parent)]
    w_left = left.sum() / parent.sum()
    curves = impurity_curves()
    fig = impurity_curves_figure(curves, columns=columns)
    for col in columns:
        y_left, y_right, y_parent = (_curve_value(curves, col, s) for s in shares)
        chord_at_parent = w_left * y_left + (1 - w_left) * y_right
        fig.add_trace(go.Scatter(
            x=shares[:2], y=[y_left, y_right], mode="lines+markers", showlegend=False,
            line={"color": COLORS[col], "dash": "dash", "width": 1.5}, marker={"size": 8},
            hovertemplate="child p=%{x:.3f}<br>%{y:.4f}<extra>chord</extra>",
        ))
        fig.add_trace(go.Scatter(
            x=[shares[2], shares[2]], y=[chord_at_parent, y_parent], mode="lines+markers", showlegend=False,
            line={"color": COLORS[col], "width": 4}, marker={"size": 7, "symbol": "diamond"},
            hovertemplate=f"gain = {y_parent - chord_at_parent:.4f}<extra>{LABELS[col]}</extra>",
        ))
    fig.add_vline(x=shares[2], line={"color": "#555555", "dash": "dot", "width": 1},
                  annotation_text=f"parent p = {shares[2]:.3f}", annotation_position="top")
    fig.update_layout(title="Gain = gap between curve and chord at the parent's p",
                      xaxis={"range": [-0.03, 1.03]})
    return fig


def gains_figure(gains: pd.DataFrame) -> go.Figure:
    """Bar chart of the gain per criterion from :func:`engine.teach.theory.split_gains`."""
    order = [c for c in CRITERIA_COMPARED if c in set(gains["criterion"])]
    g = gains.set_index("criterion").loc[order]
    fig = go.Figure(go.Bar(
        x=[LABELS.get(c, c) for c in order], y=g["gain"], marker_color=[COLORS.get(c) for c in order],
        text=[f"{v:.4f}" for v in g["gain"]], textposition="outside",
        customdata=np.stack([g["parent"], g["weighted_children"]], axis=-1),
        hovertemplate="gain %{y:.4f}<br>parent %{customdata[0]:.4f}<br>children %{customdata[1]:.4f}<extra></extra>",
    ))
    top = float(max(g["gain"].max(), 0.0))
    fig.update_layout(title="Gain of this split per criterion", yaxis_title="gain = I(parent) − weighted I(children)", yaxis={"range": [min(0.0, float(g["gain"].min())) * 1.2, top * 1.25 + 1e-3]},
                      margin={"t": 30, "b": 10}, height=360, showlegend=False)
    return fig


def pac_figure(table: pd.DataFrame) -> go.Figure:
    """Sample size N against n for each hypothesis class of :func:`engine.teach.theory.pac_table` (log y)."""
    fig = go.Figure()
    for i, (name, part) in enumerate(table.groupby("hypothesis_class", sort=False)):
        fig.add_trace(go.Scatter(
            x=part["n"], y=part["N"], mode="lines+markers", name=str(name),
            line={"color": _PAC_COLORS[i % len(_PAC_COLORS)], "width": 2.5},
            customdata=part["ln_H"], hovertemplate="n=%{x}<br>N=%{y:.4g}<br>ln|H|=%{customdata:.4g}<extra>" + str(name) + "</extra>",
        ))
    fig.update_layout(
        xaxis_title="n (Boolean inputs)", yaxis_title="examples needed N (log scale)",
        yaxis={"type": "log", "dtick": 1, "exponentformat": "power"},
        legend={"orientation": "h", "y": -0.2}, margin={"t": 30, "b": 10}, height=440,
    )
    return fig
