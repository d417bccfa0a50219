"""Gradient boosting's pictures: pure functions from a :class:`GradientEnsemble` and rows to ``go.Figure``.

- :func:`residual_figure`: round r's pseudo-residuals (what its tree is grown on) against one feature, with
  the tree's leaf values on the same rows; against two features the residual is the marker colour.
- :func:`running_curve` / :func:`running_figure`: the prediction before and after round r as one feature
  varies and the others stay as in a chosen row (a curve through the training points).
- :func:`loss_figure`: training and test loss after every round, the current round and the lowest test loss.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from engine.errors import DataError
from engine.viz import palette
from engine.viz.text import FONT, escape

MAX_POINTS = 3000


def _layout(fig: go.Figure, height: int, **kw) -> go.Figure:
    fig.update_layout(template="plotly_white", height=height, font=FONT,
                      margin={"l": 60, "r": 20, "t": 50, "b": 55}, **kw)
    return fig


def _sample(n: int, max_points: int) -> np.ndarray:
    rows = np.arange(n)
    return rows if n <= max_points else np.sort(np.random.default_rng(0).choice(n, max_points, replace=False))


def _numeric(ens, frame: pd.DataFrame, name: str) -> np.ndarray:
    if name not in ens.schema.feature_names or ens.schema.kinds[ens.schema.index(name)] != "numeric":
        raise DataError(f"'{name}' is not a numeric feature of the model: the plot needs a numeric one.")
    return pd.to_numeric(frame[name], errors="coerce").to_numpy(dtype=float)


def residual_figure(ens, frame: pd.DataFrame, residuals: np.ndarray, fitted: np.ndarray, x: str, y: str | None = None,
                    *, in_sample=None, what: str = "residual", max_points: int = MAX_POINTS,
                    height: int = 420) -> go.Figure:
    """Round r's pseudo-residuals (``residuals``, one per row of ``frame``) against feature ``x``, and the
    round's tree's values (``fitted``) on the same rows; with ``y`` the residual colours the rows over x and y.
    Rows out of the round's sample (``in_sample`` False) are drawn hollow."""
    xs = _numeric(ens, frame, x)
    rows = _sample(len(frame), max_points)
    inside = np.ones(len(frame), dtype=bool) if in_sample is None else np.asarray(in_sample, dtype=bool)
    fig = go.Figure()
    if y is None:
        for label, sel, symbol in (("in this round's sample", inside, "circle"), ("left out", ~inside, "circle-open")):
            r = rows[sel[rows]]
            if r.size:
                fig.add_trace(go.Scatter(x=xs[r], y=residuals[r], mode="markers", name=escape(what) + (
                    "" if in_sample is None else f" ({label})"), marker={"size": 6, "symbol": symbol,
                                                                        "color": palette.OKABE_ITO[0], "opacity": 0.6},
                    customdata=r[:, None], hovertemplate="row %{customdata[0]}: %{y:.4g}<extra></extra>"))
        order = rows[np.argsort(xs[rows], kind="stable")]
        # log-loss leaves are Newton steps (their residuals' sum / the sum of p(1 - p)), not the residuals' mean:
        # about 4x the residuals near p = 0.5, so the marks stand off the points: the legend says why
        tree_name = "the round's tree" if ens.task == "regression" else "the round's tree (Newton-step leaf values)"
        fig.add_trace(go.Scatter(x=xs[order], y=fitted[order], mode="markers", name=tree_name,
                                 marker={"size": 5, "color": palette.OKABE_ITO[3], "symbol": "line-ew-open"},
                                 hovertemplate="tree: %{y:.4g}<extra></extra>"))
        return _layout(fig, height, title={"text": f"What this round fits: {escape(what)} against {escape(x)}"},
                       xaxis={"title": {"text": escape(x)}}, yaxis={"title": {"text": escape(what)}},
                       legend={"orientation": "h", "y": -0.2})
    ys = _numeric(ens, frame, y)
    bound = float(np.nanmax(np.abs(residuals))) or 1.0
    fig.add_trace(go.Scatter(
        x=xs[rows], y=ys[rows], mode="markers", customdata=np.stack([rows, residuals[rows]], axis=1),
        marker={"size": 8, "color": residuals[rows], "cmin": -bound, "cmax": bound, "colorscale": "RdBu",
                "colorbar": {"title": {"text": escape(what)}, "thickness": 14},
                "symbol": np.where(inside[rows], "circle", "circle-open"), "line": {"width": 0.5, "color": "#555555"}},
        hovertemplate="row %{customdata[0]}: %{customdata[1]:.4g}<extra></extra>", showlegend=False))
    return _layout(fig, height, title={"text": f"What this round fits: {escape(what)} over {escape(x)} and {escape(y)}"},
                   xaxis={"title": {"text": escape(x)}}, yaxis={"title": {"text": escape(y)}})


def running_curve(ens, frame: pd.DataFrame, x: str, row: dict, r: int, *, column: int = 0,
                  resolution: int = 200) -> pd.DataFrame:
    """``x`` over its range (``resolution`` values), the other features as in ``row``: the model's answer
    after r rounds (``before``) and after r + 1 (``after``): the value, or the probability of class ``column``
    (of the second class with two classes)."""
    xs = _numeric(ens, frame, x)
    xs = xs[np.isfinite(xs)]
    lo, hi = (float(xs.min()), float(xs.max())) if xs.size else (0.0, 1.0)
    grid = pd.DataFrame([row]).iloc[np.zeros(resolution, dtype=np.int64)].reset_index(drop=True)
    grid[x] = np.linspace(lo, hi, resolution)
    out = {"x": grid[x].to_numpy()}
    for name, k in (("before", r), ("after", r + 1)):
        if ens.task == "classification":
            out[name] = ens.predict_proba(grid, k)[:, column if ens.n_columns > 1 else 1]
        else:
            out[name] = ens.raw(grid, k)[:, 0]
    return pd.DataFrame(out)


def _after(rounds: int) -> str:
    return f"after {rounds} round" + ("" if rounds == 1 else "s")


def running_figure(curve: pd.DataFrame, frame: pd.DataFrame, target_values: np.ndarray, x: str, r: int, *,
                   what: str, row_x: float | None = None, max_points: int = MAX_POINTS,
                   height: int = 420) -> go.Figure:
    """The training rows (``target_values`` against x: the value, or 1/0 for the class) and
    :func:`running_curve`'s curves before and after round ``r`` (0-based)."""
    xs = pd.to_numeric(frame[x], errors="coerce").to_numpy(dtype=float)
    rows = _sample(len(frame), max_points)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=xs[rows], y=np.asarray(target_values, dtype=float)[rows], mode="markers",
                             name="training rows", marker={"size": 5, "color": palette.MUTED, "opacity": 0.6},
                             customdata=rows[:, None], hovertemplate="row %{customdata[0]}: %{y:.4g}<extra></extra>"))
    fig.add_trace(go.Scatter(x=curve["x"], y=curve["before"], mode="lines", name=_after(r),
                             line={"color": palette.OKABE_ITO[1], "width": 2, "dash": "dash"}))
    fig.add_trace(go.Scatter(x=curve["x"], y=curve["after"], mode="lines", name=_after(r + 1),
                             line={"color": palette.OKABE_ITO[0], "width": 3}))
    if row_x is not None and np.isfinite(row_x):
        fig.add_vline(x=row_x, line={"color": palette.PATH, "dash": "dot"})
    return _layout(fig, height, title={"text": f"Running prediction along {escape(x)} (other features as in the chosen row)"},
                   xaxis={"title": {"text": escape(x)}}, yaxis={"title": {"text": escape(what)}},
                   legend={"orientation": "h", "y": -0.2})


def loss_figure(rounds, *, current: int | None = None, loss_name: str = "loss", height: int = 360) -> go.Figure:
    """Training (and test, if recorded) loss after each round; a dotted line at round ``current`` (1-based)
    and a star where the test loss is lowest (where more rounds start to overfit)."""
    idx = np.arange(len(rounds) + 1)
    train = [rounds[0].train_loss_before] + [rd.train_loss for rd in rounds] if rounds else []
    fig = go.Figure(go.Scatter(x=idx, y=train, mode="lines", name="training loss",
                               line={"color": palette.OKABE_ITO[0], "width": 2.5}))
    test = np.array([rd.test_loss for rd in rounds], dtype=float)
    if test.size and np.isfinite(test).any():
        fig.add_trace(go.Scatter(x=idx[1:], y=test, mode="lines", name="test loss",
                                 line={"color": palette.OKABE_ITO[3], "width": 2.5}))
        best = int(np.nanargmin(test))
        fig.add_trace(go.Scatter(x=[best + 1], y=[test[best]], mode="markers+text", name="lowest test loss",
                                 marker={"symbol": "star", "size": 16, "color": palette.OKABE_ITO[3]},
                                 text=[f"round {best + 1}"], textposition="top center"))
    if current is not None:
        fig.add_vline(x=current, line={"color": "#000000", "dash": "dot"})
    return _layout(fig, height, title={"text": f"{escape(loss_name)} after each round"},
                   xaxis={"title": {"text": "round"}}, yaxis={"title": {"text": escape(loss_name)}},
                   legend={"orientation": "h", "y": -0.25})
