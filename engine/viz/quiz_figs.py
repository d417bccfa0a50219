"""The class's guesses for one quiz question as a bar chart (the live classroom's reveal).

``votes_figure(counts, winners, teacher_pick=None)``: one bar per candidate feature with the number of
students who picked it, the right feature(s) in the palette's blue with "✓ right" under its name (not
only colour), the others grey; the teacher's own pick, when given, is named under its bar as well.
Feature names are user text: escaped for Plotly's HTML subset and TeX.
"""

from __future__ import annotations

import plotly.graph_objects as go

from engine.viz.palette import MUTED, OKABE_ITO
from engine.viz.text import FONT, escape

RIGHT = OKABE_ITO[0]


def votes_figure(counts: dict[str, int], winners, teacher_pick: str | None = None, *,
                 height: int = 360) -> go.Figure:
    """Guesses per feature (in the order of ``counts``); ``winners`` are the features that count as right."""
    names = list(counts)
    values = [int(counts[n]) for n in names]
    total = sum(values)
    right = set(winners)
    texts = [f"{v}" + (f" ({v / total:.0%})" if total else "") for v in values]
    labels = []
    for name in names:
        marks = (["<b>✓ right</b>"] if name in right else []) + (["teacher"] if name == teacher_pick else [])
        labels.append(escape(name) + ("<br>" + " · ".join(marks) if marks else ""))
    fig = go.Figure(go.Bar(
        x=labels, y=values, text=texts, textposition="outside", cliponaxis=False,
        marker_color=[RIGHT if n in right else MUTED for n in names],
        marker_line_color=["#000000" if n == teacher_pick else "rgba(0,0,0,0)" for n in names],
        marker_line_width=3, hovertemplate="%{x}: %{y} guesses<extra></extra>"))
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=40, b=10), font=FONT, showlegend=False,
                      title=dict(text=f"Guesses per feature ({total} answers)", font=dict(size=16)),
                      yaxis=dict(title="students", rangemode="tozero", dtick=max(1, total // 8) if total else 1),
                      xaxis=dict(title=None), bargap=0.35)
    fig.update_yaxes(range=[0, max(values + [1]) * 1.25])
    return fig
