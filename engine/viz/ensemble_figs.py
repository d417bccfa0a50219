"""Figures for ensembles: the vote of one row, the decision over two features, size and variance curves,
importances, in-bag counts and AdaBoost's rounds, and why a tree model answers one row as it does (path
contributions beside SHAP values, mean |SHAP| beside split importances). Pure functions from engine results to ``go.Figure``.

The ensemble's decision map colours each grid cell by the winning class and tints it by the vote:
with winner share :math:`s` among K classes, the strength :math:`(s - 1/K) / (1 - 1/K)` runs from 0 (a
tie, pale) to 1 (unanimous, full colour), so the smoothing of the vote shows as pale bands along
the boundaries. Features other than the two plotted are held at a typical row (median / most frequent).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from engine.errors import DataError

from engine.viz import palette
from engine.viz.regions import typical_row
from engine.viz.text import FONT, escape, short_label

GRID_BLOCK_CELLS = 1 << 20  # grid cells (rows x columns) predicted at a time

__all__ = ["vote_figure", "size_curve_figure", "variance_figure", "importance_figure", "inbag_figure",
           "rounds_figure", "decision_grid", "typical_row", "ensemble_region_figure", "why_figure",
           "shap_summary_figure"]


def _layout(fig: go.Figure, height: int, **kw) -> go.Figure:
    fig.update_layout(template="plotly_white", height=height, font=FONT,
                      margin={"l": 60, "r": 20, "t": 50, "b": 55}, **kw)
    return fig


def vote_figure(breakdown, *, height: int = 380) -> go.Figure:
    """Stacked bars per class: one segment per member that voted for it, as tall as its weight."""
    m = breakdown.members
    fig = go.Figure()
    if breakdown.task == "classification":
        classes = list(breakdown.tally["class"])
        colors = palette.class_colors(classes)
        for cls in classes:
            voters = m[m["prediction"] == cls]
            fig.add_trace(go.Bar(
                x=[escape(cls)] * len(voters), y=voters["weight"], name=escape(cls), customdata=voters[["member"]],
                marker={"color": colors[cls], "line": {"color": "white", "width": 1}},
                hovertemplate="member %{customdata[0]}: weight %{y:.3f}<extra>" + escape(cls) + "</extra>"))
        fig.update_layout(barmode="stack", showlegend=False)
        total = float(m["weight"].sum())
        # the label sits in the right margin, beside the line: inside the plot it covered the first bar
        fig.add_hline(y=total / 2, line={"dash": "dot", "color": "#666666"},
                      annotation_text="half of the<br>vote weight", annotation_position="right",
                      annotation_font_size=12)
        fig = _layout(fig, height, title={"text": f"Vote: {escape(breakdown.winner)} wins"},
                       xaxis={"title": {"text": "class"}, "categoryorder": "array",
                              "categoryarray": [escape(c) for c in classes]},
                       yaxis={"title": {"text": "vote weight (stacked over members)"}})
        fig.layout.margin.r = 90
        return fig
    fig.add_trace(go.Bar(x=m["member"], y=m["prediction"], name="members",
                         marker={"color": palette.OKABE_ITO[0]},
                         hovertemplate="member %{x}: %{y:.4g}<extra></extra>"))
    fig.add_hline(y=breakdown.winner, line={"color": palette.OKABE_ITO[3], "width": 3},
                  annotation_text=f"mean {breakdown.winner:.4g}")
    return _layout(fig, height, title={"text": "Each member's prediction and their mean"},
                   xaxis={"title": {"text": "member"}}, yaxis={"title": {"text": "prediction"}})


def size_curve_figure(curve: pd.DataFrame, *, height: int = 380) -> go.Figure:
    """Train / test / out-of-bag score against the number of members (``analysis.size_curve``)."""
    metric = curve["metric"].iloc[0] if len(curve) else "accuracy"
    fig = go.Figure()
    styles = {"train": (palette.OKABE_ITO[0], "solid"), "test": (palette.OKABE_ITO[3], "solid"),
              "oob": (palette.OKABE_ITO[2], "dash")}
    names = {"train": "training rows", "test": "test rows", "oob": "out of bag"}
    for col, (color, dash) in styles.items():
        if col in curve.columns:
            fig.add_trace(go.Scatter(x=curve["n_members"], y=curve[col], mode="lines", name=names[col],
                                     line={"color": color, "dash": dash, "width": 2.5}))
    return _layout(fig, height, title={"text": f"{metric} against ensemble size"},
                   xaxis={"title": {"text": "members M"}}, yaxis={"title": {"text": metric}},
                   legend={"orientation": "h", "y": -0.25})


def variance_figure(report, *, height: int = 380) -> go.Figure:
    """Measured variance of the averaged error vs ρσ² + (1−ρ)σ²/M as members are added."""
    c = report.curve
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=c["n_members"], y=c["measured"], mode="lines+markers", name="measured Var(ē)",
                             line={"color": palette.OKABE_ITO[0], "width": 2.5}, marker={"size": 5}))
    fig.add_trace(go.Scatter(x=c["n_members"], y=c["predicted"], mode="lines", name="ρσ² + (1−ρ)σ²/M",
                             line={"color": palette.OKABE_ITO[3], "dash": "dash", "width": 2.5}))
    fig.add_hline(y=report.rho * report.sigma2, line={"dash": "dot", "color": "#666666"},
                  annotation_text="ρσ² (floor)", annotation_position="bottom right")
    return _layout(fig, height, title={"text": "Variance of the ensemble's averaged error"},
                   xaxis={"title": {"text": "members M"}}, yaxis={"title": {"text": "variance"}, "rangemode": "tozero"},
                   legend={"orientation": "h", "y": -0.25})


def importance_figure(impurity: pd.Series, permutation: pd.DataFrame | None = None, *, top: int = 20,
                      height: int | None = None) -> go.Figure:
    """Horizontal bars: impurity-based importance and (if given) permutation importance with its std."""
    order = impurity.sort_values(ascending=False).index[:top][::-1]
    labels = [escape(n) for n in order]
    fig = go.Figure()
    fig.add_trace(go.Bar(y=labels, x=impurity[order], orientation="h", name="impurity decrease",
                         marker={"color": palette.OKABE_ITO[0]}))
    if permutation is not None and len(permutation):
        p = permutation.set_index("feature").reindex(order)
        fig.add_trace(go.Bar(y=labels, x=p["importance"], orientation="h", name="permutation (OOB drop)",
                             marker={"color": palette.OKABE_ITO[1]},
                             error_x={"type": "data", "array": p["std"], "visible": True}))
    return _layout(fig, height or 140 + 26 * len(order), barmode="group",
                   title={"text": "Feature importances"}, xaxis={"title": {"text": "importance"}},
                   legend={"orientation": "h", "y": -0.15})


#: legend in a row under the title (below the plot it met the axis title in a narrow column)
LEGEND_ON_TOP = {"legend": {"orientation": "h", "yanchor": "bottom", "y": 1.0, "x": 0},
                 "margin": {"l": 60, "r": 20, "t": 85, "b": 45}}


def why_figure(table: pd.DataFrame, *, top: int = 12, height: int | None = None) -> go.Figure:
    """Horizontal bars per feature: its path contribution (Saabas) beside its SHAP value for one row
    (``engine.explain_row``'s table); the ``top`` features with the largest of either, largest at the top."""
    size = table[["path", "SHAP"]].abs().max(axis=1)
    rows = table.assign(size=size).sort_values("size", ascending=False, kind="stable").head(top)
    rows = rows[rows["size"] > 0].iloc[::-1]
    labels = [short_label(n, 28) for n in rows["feature"]]
    fig = go.Figure()
    for col, name, color in (("path", "path contribution (Saabas)", palette.OKABE_ITO[1]),
                             ("SHAP", "SHAP value (TreeSHAP)", palette.OKABE_ITO[0])):
        fig.add_trace(go.Bar(y=labels, x=rows[col], orientation="h", name=name, marker={"color": color},
                             hovertemplate="%{y}: %{x:.4g}<extra>" + name + "</extra>"))
    return _layout(fig, height or 170 + 34 * max(len(rows), 1), barmode="group",
                   title={"text": "What each feature adds to this row's answer"},
                   xaxis={"zeroline": True, "zerolinecolor": "#888"}).update_layout(**LEGEND_ON_TOP)


def shap_summary_figure(summary: pd.DataFrame, importances: pd.Series, *, top: int = 20,
                        height: int | None = None) -> go.Figure:
    """Horizontal bars per feature: mean |SHAP| over the rows (as a share of its total, so that both sum
    to 1) beside the split (impurity) importances; the ``top`` features with the largest of either."""
    shap = summary.set_index("feature")["mean |SHAP|"]
    shap = shap / shap.sum() if shap.sum() > 0 else shap
    imp = importances.reindex(shap.index).fillna(0.0)
    order = pd.concat([shap, imp], axis=1).max(axis=1).sort_values(ascending=False, kind="stable").index[:top][::-1]
    labels = [short_label(n, 28) for n in order]
    fig = go.Figure()
    fig.add_trace(go.Bar(y=labels, x=shap[order], orientation="h", name="mean |SHAP| (share)",
                         marker={"color": palette.OKABE_ITO[0]}))
    fig.add_trace(go.Bar(y=labels, x=imp[order], orientation="h", name="split importance (impurity decrease)",
                         marker={"color": palette.OKABE_ITO[2]}))
    return _layout(fig, height or 170 + 30 * len(order), barmode="group",
                   title={"text": "Over the data: mean |SHAP| and split importance"},
                   xaxis={"title": {"text": "share of the total"}}).update_layout(**LEGEND_ON_TOP)


def inbag_figure(counts: np.ndarray, *, height: int = 320) -> go.Figure:
    """How often each row was drawn by one member, against the binomial expectation."""
    counts = np.asarray(counts, dtype=np.int64)
    n, draws = counts.size, int(counts.sum())
    ks = np.arange(0, max(int(counts.max()), 4) + 1)
    seen = np.bincount(counts, minlength=ks.size)[: ks.size]
    p = 1.0 / n
    from math import comb
    expected = np.array([n * comb(draws, int(k)) * p**k * (1 - p) ** (draws - k) for k in ks])
    fig = go.Figure()
    fig.add_trace(go.Bar(x=ks, y=seen, name="rows", marker={"color": palette.OKABE_ITO[0]},
                         hovertemplate="drawn %{x} times: %{y} rows<extra></extra>"))
    fig.add_trace(go.Scatter(x=ks, y=expected, mode="lines+markers", name="expected (binomial)",
                             line={"color": palette.OKABE_ITO[3], "dash": "dash"}))
    return _layout(fig, height, title={"text": f"{int(seen[0])} of {n} rows out of bag ({seen[0] / n:.0%})"},
                   xaxis={"title": {"text": "times drawn"}, "dtick": 1}, yaxis={"title": {"text": "rows"}},
                   legend={"orientation": "h", "y": -0.3})


def rounds_figure(rounds, *, current: int | None = None, height: int = 320) -> go.Figure:
    """AdaBoost: weighted error and hypothesis weight z of every round."""
    idx = [r.index + 1 for r in rounds]
    fig = go.Figure()
    fig.add_trace(go.Bar(x=idx, y=[r.z for r in rounds], name="z (vote weight)",
                         marker={"color": [palette.OKABE_ITO[1] if r.kept else palette.MUTED for r in rounds]}))
    fig.add_trace(go.Scatter(x=idx, y=[r.error for r in rounds], name="weighted error", mode="lines+markers",
                             yaxis="y2", line={"color": palette.OKABE_ITO[0], "width": 2.5}))
    if current is not None:
        fig.add_vline(x=current, line={"color": "#000000", "dash": "dot"})
    return _layout(fig, height, title={"text": "Error and z per round"}, xaxis={"title": {"text": "round"}},
                   yaxis={"title": {"text": "z"}, "rangemode": "tozero"},
                   yaxis2={"title": {"text": "error"}, "overlaying": "y", "side": "right", "range": [0, 0.6],
                           "tickmode": "linear", "dtick": 0.1, "showgrid": False},
                   legend={"orientation": "h", "y": -0.3})


def decision_grid(ensemble, frame: pd.DataFrame, x: str, y: str, *, upto: int | None = None,
                  resolution: int = 100, base: dict | None = None):
    """(grid xs, grid ys, winner codes or means (ny, nx), strength (ny, nx)) over the data's range.

    The grid's rows hold ``base`` (default: the data's typical row) with ``x`` and ``y`` varied; they are
    predicted in blocks of about :data:`GRID_BLOCK_CELLS` cells, so a data set of 1,000 columns costs a few
    MB here rather than a 10,000 x 1,000 table (300 MB and 5 s as one frame of Python lists)."""
    schema = ensemble.schema
    for name in (x, y):
        if name not in schema.feature_names or schema.kinds[schema.index(name)] != "numeric":
            raise DataError(f"'{name}' is not a numeric feature of the ensemble: the map needs two numeric ones.")
    base = base or typical_row(schema, frame)
    axes = []
    for name in (x, y):
        v = pd.to_numeric(frame[name], errors="coerce").to_numpy(dtype=float)
        v = v[np.isfinite(v)]
        lo, hi = (float(v.min()), float(v.max())) if v.size else (0.0, 1.0)
        pad = 0.05 * (hi - lo) if hi > lo else 0.5
        axes.append(np.linspace(lo - pad, hi + pad, resolution))
    gx, gy = np.meshgrid(*axes)
    xs, ys = gx.ravel(), gy.ravel()
    held = pd.DataFrame([base])  # the other features' values, once; each block repeats this row
    step = max(1, GRID_BLOCK_CELLS // max(held.shape[1], 1))
    votes = []
    for start in range(0, xs.size, step):  # blocks of rows: a wide table is never held whole
        stop = min(start + step, xs.size)
        grid = held.iloc[np.zeros(stop - start, dtype=np.int64)].reset_index(drop=True)
        grid[x], grid[y] = xs[start:stop], ys[start:stop]
        votes.append(ensemble.tally(ensemble.member_outputs(grid, upto), upto))
    votes = np.concatenate(votes, axis=0)
    if ensemble.task == "classification":
        k = votes.shape[1]
        share = votes.max(1) / np.maximum(votes.sum(1), 1e-300)
        strength = np.clip((share - 1 / k) / (1 - 1 / k), 0, 1) if k > 1 else np.ones_like(share)
        return axes[0], axes[1], votes.argmax(1).reshape(gx.shape), strength.reshape(gx.shape)
    return axes[0], axes[1], ensemble.combine(votes).reshape(gx.shape), np.ones(gx.shape)


def ensemble_region_figure(ensemble, frame: pd.DataFrame, labels, x: str, y: str, *, upto: int | None = None,
                           resolution: int = 100, marker_sizes=None, cut=None, query=None, title: str = "",
                           max_points: int = 3000, height: int = 520) -> go.Figure:
    """The ensemble's decision over ``x`` and ``y`` (grid heatmap) with the rows on top.

    marker_sizes: per-row weights drawn as marker area (AdaBoost; the largest weight gets size 24); cut: ``(feature, threshold)`` of a
    stump, drawn as a line when it is ``x`` or ``y``; query: ``{feature: value}`` drawn as a star.
    """
    gx, gy, win, strength = decision_grid(ensemble, frame, x, y, upto=upto, resolution=resolution)
    fig = go.Figure()
    if ensemble.task == "classification":
        classes = list(ensemble.classes)
        k = len(classes)
        scale = []
        for i, c in enumerate(palette.class_colors(classes).values()):
            scale += [[i / k, palette.tint(c, 0.08)], [(i + 1) / k - 1e-9, palette.tint(c, 0.6)]]
        scale[-1][0] = 1.0
        z = win + 0.999 * strength
        text = np.asarray([escape(c) for c in classes], dtype=object)[win]  # user text in every cell
        fig.add_trace(go.Heatmap(x=gx, y=gy, z=z, zmin=0, zmax=k, colorscale=scale, showscale=False,
                                 text=text, hovertemplate="%{text}<extra>vote</extra>"))
    else:
        fig.add_trace(go.Heatmap(x=gx, y=gy, z=win, colorscale=palette.sequential_colorscale(), opacity=0.6,
                                 colorbar={"title": {"text": "mean"}, "thickness": 14},
                                 hovertemplate="%{z:.4g}<extra>mean</extra>"))
    xs = pd.to_numeric(frame[x], errors="coerce").to_numpy(dtype=float)
    ys = pd.to_numeric(frame[y], errors="coerce").to_numpy(dtype=float)
    rows = np.flatnonzero(np.isfinite(xs) & np.isfinite(ys))
    if rows.size > max_points:
        rows = np.sort(np.random.default_rng(0).choice(rows, size=max_points, replace=False))
    sizes = np.full(len(frame), 8.0)
    if marker_sizes is not None:
        w = np.asarray(marker_sizes, dtype=float)
        sizes = 4 + 20 * np.sqrt(w / max(w.max(), 1e-300))
    lab = np.asarray(labels, dtype=object)
    if ensemble.task == "classification":
        colors, symbols = palette.class_colors(ensemble.classes), palette.class_symbols(ensemble.classes)
        for cls in ensemble.classes:
            sel = rows[lab[rows].astype(str) == cls]
            fig.add_trace(go.Scatter(
                x=xs[sel], y=ys[sel], mode="markers", name=escape(cls), customdata=sel[:, None],
                hovertemplate="row %{customdata[0]}<extra>" + escape(cls) + "</extra>",
                marker={"color": colors[cls], "symbol": symbols[cls], "size": sizes[sel],
                        "line": {"color": "white", "width": 0.8}}))
    else:
        fig.add_trace(go.Scatter(x=xs[rows], y=ys[rows], mode="markers", name="rows", customdata=rows[:, None],
                                 marker={"color": np.asarray(lab[rows], float), "size": sizes[rows],
                                         "colorscale": palette.sequential_colorscale(),
                                         "line": {"color": "white", "width": 0.8}},
                                 hovertemplate="row %{customdata[0]}<extra></extra>", showlegend=False))
    notes = []
    if cut is not None:
        feature, threshold = cut
        if feature in (x, y) and threshold is not None:
            line = {"color": "#000000", "width": 3}
            if feature == x:
                fig.add_vline(x=threshold, line=line)
            else:
                fig.add_hline(y=threshold, line=line)
        else:
            notes.append(f"this round's learner tests {short_label(feature)}, not drawn here")
    if query is not None and x in query and y in query:
        fig.add_trace(go.Scatter(x=[float(query[x])], y=[float(query[y])], mode="markers", name="query",
                                 marker={"symbol": "star", "size": 22, "color": palette.PATH,
                                         "line": {"color": "black", "width": 1.5}}))
    if len(ensemble.schema.feature_names) > 2:
        notes.append("other features held at their median / most frequent value")
    return _layout(fig, height, title={"text": escape(title) + ("<br><sup>" + "; ".join(notes) + "</sup>"
                                                                  if notes else "")},
                   xaxis={"title": {"text": escape(x)}, "range": [gx[0], gx[-1]]},
                   yaxis={"title": {"text": escape(y)}, "range": [gy[0], gy[-1]]},
                   legend={"itemsizing": "constant"}, dragmode="select")
