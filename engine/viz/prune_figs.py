"""Plotly figures for the Prune page: the cost-complexity path and its cross-validation.

Pure functions from :class:`engine.prune.cost_complexity.CCPPath` / :class:`engine.prune.cost_complexity.CCPCrossValidation`
to ``go.Figure``. The tree of a path row is the pruned tree for every alpha from that row's alpha up to
the next one, so the curves are drawn as steps (``line_shape="hv"``). Colours follow the Evaluate page
(one colour per part of the data).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from engine.viz.eval_figs import set_color
from engine.split.wording import plural
from engine.viz.palette import MUTED, OKABE_ITO

__all__ = ["alpha_path_figure", "cv_figure"]

_LAYOUT = dict(template="plotly_white", margin=dict(l=10, r=10, t=60, b=10),
               legend=dict(orientation="h", yanchor="bottom", y=1.02, xanchor="left", x=0.0))


def _steps(path):
    """One point per distinct alpha (the last row with that alpha), plus a point past the last alpha."""
    alphas = path.ccp_alphas
    rows = [int(np.flatnonzero(alphas == a)[-1]) for a in np.unique(alphas)]
    x = alphas[rows].tolist()
    x.append(x[-1] * 1.08 if x[-1] > 0 else 1.0)
    return rows + [rows[-1]], x


def alpha_path_figure(path, *, chosen: float | None = None) -> go.Figure:
    """Leaves (top) and train/validation accuracy or MSE (bottom) against alpha, with ``chosen`` marked."""
    rows, x = _steps(path)
    table = path.table
    metric = path.metric
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08,
                        subplot_titles=("number of leaves", "accuracy" if metric == "accuracy" else "mean squared error"))
    leaves = table["n_leaves"].to_numpy()[rows]
    fig.add_trace(go.Scatter(x=x, y=leaves, mode="lines+markers", line_shape="hv", name="leaves",
                             line=dict(color=OKABE_ITO[4]), marker=dict(size=5),
                             hovertemplate="alpha ≥ %{x:.4g}<br>%{y} leaves<extra></extra>"), row=1, col=1)
    for part in ("train", "validation"):
        col = f"{part}_{metric}"
        if col in table:
            fig.add_trace(go.Scatter(x=x, y=table[col].to_numpy()[rows], mode="lines+markers", line_shape="hv",
                                     name=part, line=dict(color=set_color(part)), marker=dict(size=5),
                                     hovertemplate=f"alpha ≥ %{{x:.4g}}<br>{part} %{{y:.4f}}<extra></extra>"),
                          row=2, col=1)
    if chosen is not None:
        i = path.index_for(chosen)
        fig.add_vline(x=chosen, line=dict(color=MUTED, dash="dash"))
        fig.add_trace(go.Scatter(x=[chosen], y=[path.n_leaves[i]], mode="markers", name=f"chosen α = {chosen:.4g}",
                                 marker=dict(size=12, symbol="diamond", color=MUTED),
                                 hovertemplate=f"chosen α = {chosen:.4g}<br>{plural(int(path.n_leaves[i]), 'leaf', 'leaves')}<extra></extra>"),
                      row=1, col=1)
    fig.update_xaxes(title_text="α (complexity parameter)", row=2, col=1)
    fig.update_yaxes(rangemode="tozero", row=1, col=1)
    layout = dict(_LAYOUT, legend=dict(orientation="h", yanchor="bottom", y=1.07, xanchor="right", x=1.0),
                  margin=dict(l=10, r=10, t=90, b=10))
    fig.update_layout(**layout, height=500, title="Cost-complexity path: each cut removes the weakest link")
    return fig


def cv_figure(cv) -> go.Figure:
    """Cross-validated error (± one standard error) of each subtree of the path, the 1-SE line and the choices."""
    t = cv.table
    x = np.arange(len(t))
    labels = [f"{a:.3g} ({plural(int(n), 'leaf', 'leaves')})" for a, n in zip(t["alpha"], t["n_leaves"])]
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        x=x, y=t["cv_error"], mode="lines+markers", name=f"{cv.k}-fold CV error",
        line=dict(color=set_color("validation")),
        error_y=dict(type="data", array=t["se"], visible=True, color=MUTED),
        customdata=np.stack([t["alpha"], t["n_leaves"], t["se"]], axis=1),
        hovertemplate="α = %{customdata[0]:.4g}, %{customdata[1]} leaves<br>CV error %{y:.4f} "
                      "± %{customdata[2]:.4f}<extra></extra>"))
    limit = float(t["cv_error"].iloc[cv.best_index] + t["se"].iloc[cv.best_index])
    fig.add_hline(y=limit, line=dict(color=MUTED, dash="dot"), annotation_text="min + 1 SE",
                  annotation_position="top left")
    for idx, name, color in ((cv.best_index, "smallest CV error", OKABE_ITO[5]),
                             (cv.one_se_index, "1-SE choice", OKABE_ITO[1])):
        fig.add_trace(go.Scatter(x=[idx], y=[t["cv_error"].iloc[idx]], mode="markers", name=name,
                                 marker=dict(size=13, symbol="circle-open", line=dict(width=3, color=color)),
                                 hoverinfo="skip"))
    fig.update_xaxes(tickmode="array", tickvals=x, ticktext=labels, tickangle=-45, title_text="α (leaves)")
    fig.update_yaxes(title_text="error rate" if cv.path.metric == "accuracy" else "mean squared error",
                     rangemode="tozero")
    fig.update_layout(**_LAYOUT, height=420, title="Cross-validation of the subtrees (Breiman's 1-SE rule)")
    return fig
