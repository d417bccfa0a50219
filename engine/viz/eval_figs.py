"""Plotly figures for the Evaluate page: confusion matrices, predicted vs actual, cross-validation folds,
the overfitting curve, the learning curve and the instability runs.

Pure functions from :mod:`engine.evaluate.metrics` / :mod:`engine.evaluate.validation` / :mod:`engine.evaluate.curves` /
:mod:`engine.evaluate.stability` results to ``go.Figure``; the caller decides how to show them. Colours come
from :mod:`engine.viz.palette` (Okabe-Ito): one fixed colour per part of the data, so "test" is the
same orange in every chart.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from engine.errors import ConfigError
from engine.evaluate.metrics import greater_is_better, metric_label
from engine.viz.palette import MUTED, OKABE_ITO, rgba
from engine.viz.text import escape

SET_COLORS = {"train": OKABE_ITO[0], "validation": OKABE_ITO[2], "test": OKABE_ITO[1]}
SET_DASH = {"train": "solid", "validation": "dot", "test": "solid"}
X_TITLES = {"n_leaves": "number of leaves", "n_nodes": "number of nodes", "depth": "depth",
            "step": "growth step"}
# white -> Okabe-Ito blue: lightness changes monotonically, so it reads in every colour vision.
CONFUSION_SCALE = [[0.0, "#FFFFFF"], [1.0, OKABE_ITO[0]]]
_LAYOUT = dict(template="plotly_white", margin=dict(l=10, r=10, t=50, b=10),
               legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="left", x=0.0))


def set_color(name: str) -> str:
    return SET_COLORS.get(name, MUTED)


def confusion_figure(evaluation, *, title: str | None = None) -> go.Figure:
    """Heatmap of the confusion matrix: counts (and the share of the true class) in every cell.

    Rows are the true classes (first class on top), columns the predicted ones; the colour is the
    row share C[i, j] / sum_k C[i, k], so sets of different sizes are comparable.
    """
    cm = evaluation.confusion
    if cm is None:
        raise ConfigError("A confusion matrix exists only for classification.")
    labels = [escape(c) for c in evaluation.classes]  # user text: no Plotly markup
    rows = cm.sum(axis=1, keepdims=True)
    share = np.divide(cm, rows, out=np.zeros(cm.shape, dtype=float), where=rows > 0)
    text = [[f"{cm[i, j]}<br>{share[i, j]:.0%}" for j in range(cm.shape[1])] for i in range(cm.shape[0])]
    fig = go.Figure(go.Heatmap(
        z=share, x=labels, y=labels, text=text, texttemplate="%{text}", zmin=0, zmax=1,
        colorscale=CONFUSION_SCALE, showscale=False, xgap=2, ygap=2,
        hovertemplate="true %{y}<br>predicted %{x}<br>%{text}<extra></extra>"))
    acc = evaluation.scores["accuracy"]
    fig.update_layout(
        **_LAYOUT, title=title or f"{evaluation.name}: accuracy {acc:.3f} on {evaluation.n} rows",
        xaxis=dict(title="predicted class", type="category", side="bottom"),
        yaxis=dict(title="true class", type="category", autorange="reversed"),
        height=max(300, 90 + 45 * len(labels)))
    return fig


def predicted_actual_figure(evaluation, *, title: str | None = None, max_points: int = 5000,
                            seed: int = 0) -> go.Figure:
    """Scatter of predicted against actual values with the line y = x (regression)."""
    if evaluation.task != "regression":
        raise ConfigError("Predicted against actual is a regression chart.")
    y, p = evaluation.y_true, evaluation.y_pred
    if y.size > max_points:
        keep = np.sort(np.random.default_rng(seed).choice(y.size, size=max_points, replace=False))
        y, p = y[keep], p[keep]
    lo, hi = (float(min(y.min(), p.min())), float(max(y.max(), p.max()))) if y.size else (0.0, 1.0)
    pad = 0.05 * (hi - lo) if hi > lo else 1.0
    lo, hi = lo - pad, hi + pad
    color = set_color(evaluation.name)
    fig = go.Figure([
        go.Scatter(x=[lo, hi], y=[lo, hi], mode="lines", name="perfect (y = x)",
                   line=dict(color=MUTED, dash="dash"), hoverinfo="skip"),
        go.Scatter(x=y, y=p, mode="markers", name=evaluation.name,
                   marker=dict(color=rgba(color, 0.6), size=6, line=dict(width=0)),
                   hovertemplate="actual %{x:.4g}<br>predicted %{y:.4g}<extra></extra>"),
    ])
    s = evaluation.scores
    fig.update_layout(**_LAYOUT, title=title or f"{evaluation.name}: R² {s['r2']:.3f}, MAE {s['mae']:.4g}",
                      xaxis=dict(title="actual", range=[lo, hi]), height=380,
                      yaxis=dict(title="predicted", range=[lo, hi], scaleanchor="x", scaleratio=1))
    return fig


def cv_figure(cv, metric: str | None = None) -> go.Figure:
    """Per-fold train and test scores (bars), the mean test score (line) and mean ± std (band)."""
    metric = metric or cv.metric
    folds = cv.folds
    x = [f"fold {i}" for i in folds["fold"]]
    fig = go.Figure()
    for part in ("train", "test"):
        fig.add_bar(x=x, y=folds[f"{part}_{metric}"], name=part, marker_color=set_color(part),
                    hovertemplate=f"{part} %{{y:.4f}}<extra>%{{x}}</extra>")
    mean, std = cv.mean(metric), cv.std(metric)
    fig.add_hrect(y0=mean - std, y1=mean + std, fillcolor=rgba(set_color("test"), 0.15), line_width=0)
    fig.add_hline(y=mean, line=dict(color=set_color("test"), dash="dash"))
    fig.update_layout(**_LAYOUT, barmode="group", height=360,
                      title=f"{cv.k}-fold cross-validation: {metric_label(metric)} per fold "
                            f"(test mean {mean:.3f} ± {std:.3f}, dashed line and band)",
                      yaxis=dict(title=metric_label(metric)))
    return fig


def growth_curve_figure(table: pd.DataFrame, *, metric: str, x: str = "n_leaves", current=None,
                        mark_best: bool = True, title: str | None = None) -> go.Figure:
    """Score against tree size while the tree grows, one line per part of the data.

    ``table`` is :func:`engine.evaluate.curves.growth_curve` output; ``current`` optionally marks a tree:
    ``{"x": size, "label": text, "scores": {set name: score}}`` (a dashed vertical line and points);
    ``mark_best`` puts a star on the best test score (the first one on ties: the smallest tree).
    """
    if x not in X_TITLES:
        raise ConfigError(f"x must be one of {', '.join(X_TITLES)}; got {x!r}.")
    sets = [c[: -len(metric) - 1] for c in table.columns if c.endswith(f"_{metric}")]
    if not sets:
        raise ConfigError(f"The curve has no {metric_label(metric)} column.")
    fig = go.Figure()
    for name in sets:
        fig.add_scatter(x=table[x], y=table[f"{name}_{metric}"], name=name, mode="lines+markers",
                        line=dict(color=set_color(name), dash=SET_DASH.get(name, "solid"), shape="hv"),
                        marker=dict(size=4), customdata=table["step"],
                        hovertemplate=f"{name}: %{{y:.4f}}<br>{X_TITLES[x]} %{{x}}<br>step %{{customdata}}"
                                      "<extra></extra>")
    test_col = f"test_{metric}"
    if mark_best and test_col in table.columns and table[test_col].notna().any():
        values = table[test_col].to_numpy(dtype=float)
        best = int(np.nanargmax(values) if greater_is_better(metric) else np.nanargmin(values))
        fig.add_scatter(x=[table[x].iloc[best]], y=[values[best]], mode="markers", name="best test",
                        marker=dict(symbol="star", size=15, color=set_color("test"),
                                    line=dict(color="#000000", width=1)),
                        hovertemplate=f"best test: %{{y:.4f}}<br>{X_TITLES[x]} %{{x}}<extra></extra>")
    if current is not None:
        fig.add_vline(x=current["x"], line=dict(color="#000000", dash="dash", width=1),
                      annotation_text=current.get("label", "current tree"), annotation_position="bottom right")
        for name, value in current.get("scores", {}).items():
            fig.add_scatter(x=[current["x"]], y=[value], mode="markers", showlegend=False,
                            marker=dict(color=set_color(name), size=13, symbol="diamond",
                                        line=dict(color="#000000", width=1.5)),
                            hovertemplate=f"current tree, {name}: %{{y:.4f}}<extra></extra>")
    fig.update_layout(**_LAYOUT, height=420, xaxis=dict(title=X_TITLES[x]),
                      yaxis=dict(title=metric_label(metric)),
                      title=title or f"{metric_label(metric)} while the tree grows")
    return fig


def _band(fig, x, mean, std, color, name):
    upper, lower = np.asarray(mean + std, dtype=float), np.asarray(mean - std, dtype=float)
    fig.add_scatter(x=np.concatenate([x, x[::-1]]), y=np.concatenate([upper, lower[::-1]]),
                    mode="lines", fill="toself", fillcolor=rgba(color, 0.18), line=dict(width=0),
                    hoverinfo="skip",
                    name=f"{name} ± 1 sd", showlegend=False)


def learning_curve_figure(summary: pd.DataFrame, *, metric: str, runs: pd.DataFrame | None = None) -> go.Figure:
    """Mean test and train score against training-set size with a ± 1 standard deviation band.

    With ``runs`` the individual fits are drawn as faint points.
    """
    x = summary["n_train"].to_numpy(dtype=float)
    fig = go.Figure()
    for part in ("train", "test"):
        color = set_color(part)
        mean, std = summary[f"{part}_mean"].to_numpy(), summary[f"{part}_std"].to_numpy()
        _band(fig, x, mean, std, color, part)
        if runs is not None:
            fig.add_scatter(x=runs["n_train"], y=runs[f"{part}_score"], mode="markers", showlegend=False,
                            marker=dict(color=rgba(color, 0.35), size=5), hoverinfo="skip")
        fig.add_scatter(x=x, y=mean, mode="lines+markers", name=f"{part} (mean)",
                        line=dict(color=color, dash=SET_DASH[part]),
                        hovertemplate=f"{part}: %{{y:.4f}}<br>%{{x}} training rows<extra></extra>")
    fig.update_layout(**_LAYOUT, height=420, xaxis=dict(title="training rows"),
                      yaxis=dict(title=metric_label(metric)),
                      title=f"Learning curve: {metric_label(metric)} against training-set size")
    return fig


def instability_figure(result) -> go.Figure:
    """Left: how many runs split the root on each feature (the original's root feature in blue).
    Right: per run, agreement with the original tree's test predictions (regression: mean absolute
    change), blue when the run kept the original's root feature."""
    counts = result.root_counts("root_feature")
    runs = result.runs.assign(root=result.runs["root"].map(escape))
    original = escape(result.original["root_feature"])
    counts = counts.assign(root_feature=counts["root_feature"].map(escape), splits=counts["splits"].map(escape))
    change = result.change_column
    fig = make_subplots(rows=1, cols=2, column_widths=[0.4, 0.6], horizontal_spacing=0.14,
                        subplot_titles=("root feature per run", "agreement with the original tree"
                                        if change == "agreement" else "mean |change| of predictions"))
    colors = [OKABE_ITO[0] if r == original else OKABE_ITO[3] for r in counts["root_feature"]]
    fig.add_bar(y=counts["root_feature"], x=counts["runs"], orientation="h", marker_color=colors, row=1, col=1,
                width=0.6,
                showlegend=False, customdata=counts[["splits"]].to_numpy(dtype=object),
                hovertemplate="%{y}: %{x} runs<br>%{customdata[0]}<extra></extra>")
    run_colors = np.where(runs["same_root_feature"], OKABE_ITO[0], OKABE_ITO[3])
    fig.add_bar(x=runs["run"], y=runs[change], marker_color=run_colors, row=1, col=2, showlegend=False,
                customdata=runs[["root", "n_leaves"]].to_numpy(dtype=object),
                hovertemplate="run %{x}: %{y:.3f}<br>root %{customdata[0]}<br>%{customdata[1]} leaves"
                              "<extra></extra>")
    slots = max(len(counts), 3)  # keep bars slim when every run chose the same feature
    fig.update_yaxes(range=[slots - 0.5, -0.5], type="category", row=1, col=1)
    fig.update_xaxes(title_text="runs", row=1, col=1, rangemode="tozero")
    fig.update_xaxes(title_text="run", row=1, col=2, dtick=1 if len(runs) <= 20 else None)
    if change == "agreement":
        fig.update_yaxes(range=[0, 1.02], title_text="share of test rows", row=1, col=2)
    layout = dict(_LAYOUT, margin=dict(l=10, r=10, t=90, b=10))
    fig.update_layout(**layout, height=max(360, 140 + 28 * len(counts)), bargap=0.25,
                      title=f"{len(runs)} trees on perturbed rows (blue: root on the original's feature, "
                            f"{original})")
    return fig
