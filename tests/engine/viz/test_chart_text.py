"""Text alternatives of charts (engine/viz/alt): descriptions with the key numbers and the data as a table."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from engine.viz import eval_figs, theory_figs
from engine.viz.alt import describe, figure_table, plain
from engine.viz.alt.chart_text import MAX_ROWS


def test_plain_drops_plotly_markup_and_decodes_escaped_user_text():
    assert plain("<b>Gain</b> of &lt;script&gt;<br>split") == "Gain of <script> split"
    assert plain(None) == ""


def test_bars_are_named_one_by_one_with_their_values():
    fig = go.Figure(go.Bar(x=["Outlook", "Humidity", "Wind"], y=[0.247, 0.152, 0.048]))
    fig.update_layout(title=dict(text="<b>Gain</b> per feature"), xaxis_title="feature", yaxis_title="gain")
    text = describe(fig)
    assert text == "Gain per feature: bars of gain against feature: Outlook 0.247, Humidity 0.152, Wind 0.048."
    table = figure_table(fig)
    assert list(table.columns) == ["feature", "gain"]
    assert table["gain"].tolist() == [0.247, 0.152, 0.048]


def test_lines_say_their_highest_and_lowest_and_the_table_keeps_each_series():
    fig = theory_figs.impurity_curves_figure()
    text = describe(fig, lead="Impurity curves")
    assert "Gini 2p(1−p): 201 values, highest 0.5 at 0.5, lowest 0 at 0" in text
    table = figure_table(fig)
    assert set(table["series"]) == {plain(t.name) for t in fig.data}
    assert len(table) == sum(len(t.x) for t in fig.data)


def test_horizontal_bars_keep_the_category_with_its_value():
    fig = go.Figure(go.Bar(y=["a", "b"], x=[3, 4], orientation="h"))
    fig.update_layout(xaxis_title="rows", yaxis_title="class")
    assert figure_table(fig).to_dict("list") == {"class": ["a", "b"], "rows": [3, 4]}
    assert "a 3, b 4" in describe(fig)


def test_a_big_point_cloud_is_summed_up_per_series():
    rng = np.random.default_rng(0)
    fig = go.Figure([go.Scatter(x=rng.random(MAX_ROWS), y=rng.random(MAX_ROWS), mode="markers", name=n)
                     for n in ("A", "B")])
    table = figure_table(fig)
    assert table["series"].tolist() == ["A", "B"] and table["marks"].tolist() == [MAX_ROWS, MAX_ROWS]
    assert f"{MAX_ROWS:,} points" in describe(fig)


def test_a_waterfall_names_each_step():
    fig = go.Figure(go.Waterfall(x=["start", "Outlook", "end"], y=[0.5, 0.3, 0.8],
                                 measure=["absolute", "relative", "total"]))
    assert "a waterfall" in describe(fig) and "start 0.5, Outlook 0.3, end 0.8" in describe(fig)
    assert figure_table(fig)["y"].tolist() == [0.5, 0.3, 0.8]


def test_the_confusion_matrix_reads_as_its_cells_counts_and_shares():
    from types import SimpleNamespace

    ev = SimpleNamespace(confusion=np.array([[5, 1], [2, 6]]), classes=["yes", "<no>"], scores={"accuracy": 11 / 14},
                         name="test", n=14)
    fig = eval_figs.confusion_figure(ev)
    table = figure_table(fig)
    assert table.to_dict("list") == {"row": ["yes", "<no>"], "yes": ["5 83%", "2 25%"], "<no>": ["1 17%", "6 75%"]}
    assert "a 2 by 2 grid: yes / yes 5 83%, yes / <no> 1 17%, <no> / yes 2 25%, <no> / <no> 6 75%" in describe(fig)


def test_a_heatmap_becomes_its_matrix():
    fig = go.Figure(go.Heatmap(z=[[5, 1], [2, 6]], x=["yes", "no"], y=["yes", "no"]))
    table = figure_table(fig)
    assert table.to_dict("list") == {"row": ["yes", "no"], "yes": [5, 2], "no": [1, 6]}
    assert "a 2 by 2 grid: yes / yes 5, yes / no 1, no / yes 2, no / no 6" in describe(fig)
