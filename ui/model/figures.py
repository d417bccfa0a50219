"""Plotly figures of an open model's answer for one row: the waterfall of a boosted model's tree
contributions and the class distribution of each forest member. Pure functions of engine records
(``engine.models.Contributions`` steps, ``VoteBreakdown``); every user string goes through ``escape``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from engine.viz import palette
from engine.viz.text import escape

MAX_BARS = 40  # a waterfall with more trees than this draws consecutive trees in blocks
FONT = {"size": 13}


def grouped_steps(steps: pd.DataFrame, max_bars: int = MAX_BARS) -> pd.DataFrame:
    """The waterfall's steps (``base score``, then one per tree) with consecutive trees summed into blocks
    when there are more than ``max_bars`` trees (``trees 0-24``); the running sum is unchanged at each
    block's end, so the bars still add up to the margin."""
    head, trees = steps.iloc[:1], steps.iloc[1:]
    if len(trees) <= max_bars:
        return steps.reset_index(drop=True)
    size = -(-len(trees) // max_bars)
    blocks = []
    for start in range(0, len(trees), size):
        part = trees.iloc[start:start + size]
        first, last = part["step"].iloc[0].split()[-1], part["step"].iloc[-1].split()[-1]
        blocks.append({"step": f"trees {first}-{last}" if first != last else f"tree {first}",
                       "start": part["start"].iloc[0], "contribution": part["contribution"].sum(),
                       "end": part["end"].iloc[-1]})
    return pd.concat([head, pd.DataFrame(blocks)], ignore_index=True)


def waterfall_figure(steps: pd.DataFrame, *, output: str, link: str, answer_text: str, height: int = 420) -> go.Figure:
    """Base score, each tree's contribution (green up, orange down) and the margin they sum to.

    ``steps``: :meth:`engine.models.Contributions.waterfall` (grouped with :func:`grouped_steps`);
    ``output``: the margin's name (a class or ``value``); ``answer_text``: what the link makes of it."""
    shown = grouped_steps(steps)
    labels = [escape(s) for s in shown["step"]] + ["margin"]
    values = list(shown["contribution"]) + [float(shown["end"].iloc[-1])]
    measure = ["absolute"] + ["relative"] * (len(shown) - 1) + ["total"]
    fig = go.Figure(go.Waterfall(
        x=labels, y=values, measure=measure, connector={"line": {"color": "#999999", "width": 1}},
        increasing={"marker": {"color": palette.OKABE_ITO[2]}}, decreasing={"marker": {"color": palette.OKABE_ITO[3]}},
        totals={"marker": {"color": palette.OKABE_ITO[0]}},
        hovertemplate="%{x}: %{y:.4g}<extra></extra>"))
    title = f"Margin of {escape(output)}: base score plus each tree's score" + (
        f" · {escape(link)} → {escape(answer_text)}" if link != "identity" else "")
    fig.update_layout(template="plotly_white", height=height, font=FONT, showlegend=False,
                      title={"text": title, "font": {"size": 14}}, margin={"l": 60, "r": 20, "t": 50, "b": 80},
                      xaxis={"type": "category", "tickangle": -45 if len(labels) > 12 else 0},
                      yaxis={"title": {"text": "margin (sum of scores)"}})
    return fig


def member_distribution_figure(members: pd.DataFrame, classes, *, max_members: int = 200,
                               height: int = 360) -> go.Figure:
    """Each member's class distribution for the row (stacked to 1), members along the x axis.

    ``members``: :func:`engine.models.member_votes`' table (``member`` and one ``p(class)`` column per
    class); the first ``max_members`` members are drawn."""
    m = members.iloc[:max_members]
    colors = palette.class_colors(list(classes))
    fig = go.Figure()
    for c in classes:
        fig.add_trace(go.Bar(x=m["member"], y=m[f"p({c})"], name=escape(c), marker={"color": colors[c]},
                             hovertemplate=f"member %{{x}}: p({escape(c)}) = %{{y:.3f}}<extra></extra>"))
    note = f" (the first {max_members} of {len(members)})" if len(members) > max_members else ""
    fig.update_layout(template="plotly_white", barmode="stack", height=height, font=FONT, bargap=0.1,
                      title={"text": "Each member's class distribution for this row" + note, "font": {"size": 14}},
                      xaxis={"title": {"text": "member"}}, yaxis={"title": {"text": "share"}, "range": [0, 1]},
                      legend={"title": {"text": "class"}}, margin={"l": 60, "r": 20, "t": 50, "b": 55})
    return fig


def answer_table(contrib) -> pd.DataFrame:
    """Per output: base score, margin and (classifiers) the probability the link gives."""
    rows = [{"output": k, "base score": contrib.base[k], "margin": contrib.margin[k]} for k in contrib.base]
    table = pd.DataFrame(rows)
    if isinstance(contrib.answer, dict):
        probs = pd.DataFrame({"class": list(contrib.answer), "probability": np.asarray(list(contrib.answer.values()))})
        return probs.merge(table, left_on="class", right_on="output", how="left").drop(columns="output")
    table["answer"] = contrib.answer
    return table


def region_map_figure(gx, gy, win, strength, *, task: str, classes, x: str, y: str, points=None, held=None,
                      height: int = 520) -> go.Figure:
    """The model's answer over a grid of ``x`` and ``y`` (``engine.viz.ensemble_figs.decision_grid``'s output):
    the predicted class in its colour, paler where the winning probability is lower, or the predicted value.

    ``points``: ``(xs, ys, labels)`` of data rows to draw on top (or None); ``held``: the row whose other
    features are held fixed, drawn as a star at its ``x``/``y``."""
    fig = go.Figure()
    if task == "classification":
        classes = list(classes)
        k = len(classes)
        scale = []
        for i, c in enumerate(palette.class_colors(classes).values()):
            scale += [[i / k, palette.tint(c, 0.08)], [(i + 1) / k - 1e-9, palette.tint(c, 0.6)]]
        scale[-1][0] = 1.0
        text = np.asarray([escape(c) for c in classes], dtype=object)[win]
        fig.add_trace(go.Heatmap(x=gx, y=gy, z=win + 0.999 * strength, zmin=0, zmax=k, colorscale=scale,
                                 showscale=False, text=text, hovertemplate="%{text}<extra>predicted</extra>"))
    else:
        fig.add_trace(go.Heatmap(x=gx, y=gy, z=win, colorscale=palette.sequential_colorscale(), opacity=0.7,
                                 colorbar={"title": {"text": "prediction"}, "thickness": 14},
                                 hovertemplate="%{z:.4g}<extra>predicted</extra>"))
    if points is not None:
        xs, ys, labels = points
        if task == "classification":
            colors, symbols = palette.class_colors(list(classes)), palette.class_symbols(list(classes))
            lab = np.asarray(labels, dtype=object).astype(str)
            for cls in classes:
                sel = lab == cls
                fig.add_trace(go.Scatter(x=xs[sel], y=ys[sel], mode="markers", name=escape(cls),
                                         marker={"color": colors[cls], "symbol": symbols[cls], "size": 7,
                                                 "line": {"color": "white", "width": 0.8}},
                                         hovertemplate=escape(cls) + "<extra>row</extra>"))
        else:
            fig.add_trace(go.Scatter(x=xs, y=ys, mode="markers", name="rows", showlegend=False,
                                     marker={"color": np.asarray(labels, float), "size": 7,
                                             "colorscale": palette.sequential_colorscale(),
                                             "line": {"color": "white", "width": 0.8}},
                                     hovertemplate="%{marker.color:.4g}<extra>row</extra>"))
    if held is not None:
        fig.add_trace(go.Scatter(x=[float(held[x])], y=[float(held[y])], mode="markers", name="held row",
                                 marker={"symbol": "star", "size": 20, "color": palette.PATH,
                                         "line": {"color": "black", "width": 1.5}},
                                 hovertemplate="the held row<extra></extra>"))
    fig.update_layout(template="plotly_white", height=height, font=FONT, legend={"itemsizing": "constant"},
                      margin={"l": 60, "r": 20, "t": 30, "b": 55},
                      xaxis={"title": {"text": escape(x)}, "range": [gx[0], gx[-1]]},
                      yaxis={"title": {"text": escape(y)}, "range": [gy[0], gy[-1]]})
    return fig
