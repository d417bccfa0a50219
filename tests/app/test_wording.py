"""Wording the pages show (issue 36 item 8): no grey "None" in the step log, example values without float
noise, plurals that agree with their count, the inspector's arithmetic with its result first, readable
gain-table headers, the model Rules table's THEN before its long IF."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from streamlit.testing.v1 import AppTest

import engine
from engine.viz.prune_figs import alpha_path_figure
from ui import state
from ui.grow.inspector import TABLE_HEADERS
from ui.summaries import column_summary

APP = str(Path(__file__).resolve().parents[2] / "app.py")
GROW = "pages/grow.py"
METHOD = "_w_prune_method"  # the Prune page's method switch


def _grow(**params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    at.query_params.update(params)
    at.switch_page(GROW)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_step_log_shows_no_none_for_a_step_without_node_or_gain():
    at = _grow(data="play_tennis")
    at.button(key="_w_grow_step").click().run()
    at.button(key="_w_grow_collapse").click().run()  # the root's subtree removed: no gain, no runner-up
    assert not at.exception
    at.session_state["_w_grow_tab"] = "Step log"
    at.run()
    log = next(d.value for d in at.dataframe if "runner_up" in d.value.columns)
    assert list(log["action"]) == ["collapse", "split"]
    assert not log.isna().any().any(), log  # a NaN / NA is drawn as a grey "None"
    assert log.iloc[0]["gain"] == "" and log.iloc[1]["gain"] == "0.247" and log.iloc[1]["node"] == "0"


def test_the_inspector_puts_the_gain_first_and_names_its_columns():
    at = _grow(data="play_tennis", step="1")
    latex = [x.value.strip("$\n ") for x in at.latex]
    gain = next(x for x in latex if x.startswith(r"\begin{aligned}\Delta I"))
    first, *rest = gain.split(r" \\ ")
    assert first.endswith("&= 0.247") and len(rest) >= 2  # the result, then the terms on lines of their own
    table = next(d for d in at.dataframe if "gain_ratio" in d.value.columns)
    columns = json.loads(table.proto.columns)
    for raw, (label, _) in TABLE_HEADERS.items():
        assert columns[raw]["label"] == label != raw  # a readable header ...
        assert f"`{raw}` in the CSV" in columns[raw]["help"]  # ... and the raw name on hover
    assert columns["gain_ratio"]["label"] == "Gain ratio"


def test_example_values_drop_float_noise_and_quote_commas():
    frame = pd.DataFrame({"gdp": [853.1007099999998, 0.1 + 0.2, 4.0],
                          "country": ["Hong Kong, China", "Peru", "Chile"], "y": ["a", "b", "a"]})
    table = column_summary(engine.Dataset.from_frame(frame, target="y")).set_index("column")
    assert table.loc["gdp", "examples"] == "853.10071, 0.3, 4"
    assert table.loc["country", "examples"] == '"Hong Kong, China", Peru, Chile'


def test_counts_agree_with_their_nouns():
    from engine.prune.cost_complexity import ccp_path

    tree = engine.fit_tree(engine.load_sample("play_tennis"), engine.TreeConfig(algorithm="cart"))
    path = ccp_path(tree)
    assert path.n_leaves[-1] == 1  # the last tree of the path is the root alone
    fig = alpha_path_figure(path, chosen=float(path.ccp_alphas[-1]))
    chosen = next(t for t in fig.data if str(t.name).startswith("chosen"))
    assert "<br>1 leaf<extra>" in chosen.hovertemplate, chosen.hovertemplate


def test_the_prune_slider_says_1_leaf():
    at = _grow(data="play_tennis")
    at.button(key="_w_grow_grow").click().run()
    at.switch_page("pages/prune.py").run()
    at.segmented_control(key=METHOD).set_value("cost_complexity").run()
    assert not at.exception, [e.value for e in at.exception]
    alpha = next(s for s in at.select_slider if s.label.startswith("α"))
    assert any(o.endswith("(1 leaf)") for o in alpha.options), alpha.options
    assert not any("1 leaves" in o for o in alpha.options)
    assert state.GROWER in at.session_state
