"""AppTest of the Grow page: stepping, Play, settings, inspector override/collapse, query point, regions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from engine.data.dataset import SAMPLES
from ui.grow import controls as gc
from ui.grow import settings as gs
from ui.grow import views as gv
from ui.grow import query as q
from ui import state
from ui.widgets import md_escape
from tests.app.tree_charts import click_node, tree_charts

GROW = "pages/grow.py"
APP = str(Path(__file__).resolve().parents[3] / "app.py")


def open_link(**params) -> AppTest:
    """A fresh session opening the Grow page with these query parameters (a shared link)."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update(params)
    at.switch_page(GROW)
    return at.run()


@pytest.fixture
def grow(app_test):
    at = app_test(GROW)
    ok(at)
    return at


def ok(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def grower(at):
    return at.session_state[state.GROWER]


def click(at, key):
    at.button(key=key).click().run()
    return at


def status(at) -> str:
    lines = [m.value for m in at.markdown if m.value.startswith("**Step ")]
    assert lines, "no status line"
    return lines[0]


def open_tab(at, label):
    at.session_state["_w_grow_tab"] = label
    at.run()
    ok(at)
    return at


def node_select(at):
    boxes = [s for s in at.selectbox if s.label == "Node"]
    assert len(boxes) == 1
    return boxes[0]


def chart_ids(at) -> list[str]:
    return [c.proto.id for c in at.get("plotly_chart")]


# ------------------------------------------------------------------------------------ stepping
def test_first_run_shows_an_open_root_with_id3_on_play_tennis(grow):
    at = grow
    assert at.title[0].value == "Grow"
    assert status(at).startswith("**Step 0 · 1 node · 1 leaf · depth 0 · 1 open**")
    assert "ID3 · entropy (bits) · gain · multiway" in status(at)
    chart = tree_charts(at)[0]
    assert chart["ids"] == [0] and "open" in chart["text"][0]
    # play_tennis has no numeric feature: the region plot says so plainly
    assert any("needs two numeric features" in i.value for i in at.info)
    table = at.dataframe[0].value
    assert list(table["feature"]) == ["Outlook", "Humidity", "Wind", "Temperature"]
    assert table.loc[0, "best"] == "★" and table.loc[0, "gain"] == pytest.approx(0.2467, abs=1e-4)


def test_step_buttons_grow_undo_and_reset(grow):
    at = click(grow, "_w_grow_step")
    ok(at)
    g = grower(at)
    assert g.n_steps == 1 and g.tree.root.split.feature == "Outlook"
    assert status(at).startswith("**Step 1 · 4 nodes · 3 leaves · depth 1 · 3 open**")
    # the diagram highlights the node just split, the inspector follows it
    assert at.session_state[state.SELECTED_NODE] == 0
    click(at, "_w_grow_step5")
    ok(at)
    assert grower(at).done and "finished" in status(at)
    assert at.button(key="_w_grow_step").disabled
    click(at, "_w_grow_undo")
    ok(at)
    assert grower(at).n_steps == 3 and not grower(at).done
    click(at, "_w_grow_reset")
    ok(at)
    assert grower(at).n_steps == 0 and grower(at).tree.n_nodes == 1
    assert at.button(key="_w_grow_undo").disabled and at.button(key="_w_grow_reset").disabled


def test_play_tennis_id3_reaches_the_textbook_tree(grow):
    at = click(grow, "_w_grow_grow")
    ok(at)
    tree = grower(at).tree
    root = tree.root
    assert root.split.feature == "Outlook" and root.split.kind == "multiway"
    by_branch = {tree.node(c).branch: tree.node(c) for c in root.children}
    assert by_branch["Overcast"].is_leaf and by_branch["Overcast"].prediction == "Yes"
    assert by_branch["Sunny"].split.feature == "Humidity"
    assert by_branch["Rain"].split.feature == "Wind"
    assert tree.n_leaves == 5 and all(leaf.stop_reason == "pure" for leaf in tree.leaves)
    assert "finished" in status(at)
    hover = tree_charts(at)[0]["hover"]
    assert sum("stop: all rows have the" in h for h in hover) == 5


def test_play_starts_steps_on_ticks_and_stops(grow):
    at = click(grow, "_w_grow_play")
    ok(at)
    assert at.session_state[gc.PLAYING] is True
    assert grower(at).n_steps == 1  # pressing Play takes the first step at once
    assert [b.label for b in at.button if b.key == "_w_grow_pause"] == ["Pause"]
    at.session_state[gc.PLAY_LAST] = 0.0  # as if a whole pace had passed: the next tick steps
    at.run()
    ok(at)
    assert grower(at).n_steps == 2
    click(at, "_w_grow_pause")
    ok(at)
    assert at.session_state[gc.PLAYING] is False and grower(at).n_steps == 2
    # Play again until the tree is finished: it stops by itself
    click(at, "_w_grow_play")
    for _ in range(10):
        if not at.session_state[gc.PLAYING]:
            break
        at.session_state[gc.PLAY_LAST] = 0.0
        at.run()
        ok(at)
    assert grower(at).done and at.session_state[gc.PLAYING] is False
    assert at.button(key="_w_grow_play").disabled


# ------------------------------------------------------------------------------------ settings
def test_settings_change_builds_a_new_config_and_resets_the_tree(grow):
    at = click(grow, "_w_grow_step")
    at.selectbox(key=gs.W_ALGO).set_value("cart").run()
    ok(at)
    assert state.TREE_CONFIG in at.session_state and at.session_state[state.TREE_CONFIG].algorithm == "cart"
    assert grower(at).n_steps == 0
    assert any("tree was reset" in i.value for i in at.info)
    at.number_input(key=gs.W_DEPTH).set_value(1).run()
    at.selectbox(key=gs.W_CRIT).set_value("entropy").run()
    at.radio(key=gs.W_BASE).set_value("nats").run()
    ok(at)
    cfg = at.session_state[state.TREE_CONFIG]
    assert (cfg.algorithm, cfg.max_depth, cfg.criterion) == ("cart", 1, "entropy")
    assert cfg.entropy_base == pytest.approx(2.718281828)
    click(at, "_w_grow_grow")
    tree = grower(at).tree
    assert tree.depth == 1 and tree.root.split.kind == "subset"
    assert {leaf.stop_reason for leaf in tree.leaves} <= {"max_depth", "pure"}
    assert "depth ≤ 1" in status(at) and "entropy (nats)" in status(at)


def test_validation_without_validation_rows_is_shown_as_an_error(grow):
    at = grow
    assert any("validation share" in c.value for c in at.caption)
    at.checkbox(key=gs.W_VAL).check().run()
    assert not at.exception
    assert [e.value for e in at.error] == [  # engine sentences are shown escaped (they may quote user text)
        md_escape("validation=True needs validation rows: set a validation share on the Data page.")]
    assert any(link.label == "Set a validation share on the Data page" for link in at.page_link)
    at.checkbox(key=gs.W_VAL).uncheck().run()
    ok(at)
    assert grower(at).n_steps == 0


def test_validation_stopping_with_a_validation_share():
    at = open_link(data="iris", split="0.2,0.25,0", cfg="alg:cart,val:1")
    ok(at)
    assert at.session_state[state.SPLIT_SETTINGS] == {"test_size": 0.2, "validation_size": 0.25, "seed": 0}
    assert at.checkbox(key=gs.W_VAL).value is True
    click(at, "_w_grow_grow")
    ok(at)
    g = grower(at)
    assert g.config.validation and g.tree.n_leaves >= 2
    assert "validation stopping" in status(at)


# ----------------------------------------------------------------------------------- inspector
def test_override_with_another_candidate_and_collapse(grow):
    at = grow
    at.selectbox(key="_w_grow_cand_0").set_value("Humidity").run()
    ok(at)
    latex = [x.value for x in at.latex]
    assert any("0.940" in x and "0.152" in x for x in latex)  # Humidity's gain written out
    click(at, "_w_grow_force")
    ok(at)
    g = grower(at)
    assert g.history[-1].action == "forced" and g.tree.root.split.feature == "Humidity"
    assert any("split by hand" in s.value for s in at.success)
    open_tab(at, "Step log")
    log = at.dataframe[0].value
    assert list(log["action"]) == ["forced"] and log.iloc[0]["split"] == "Humidity = ?"
    click(at, "_w_grow_grow")
    open_tab(at, "Inspect a node")
    node_select(at).set_value(0).run()
    ok(at)
    click(at, "_w_grow_collapse")
    ok(at)
    g = grower(at)
    assert g.history[-1].action == "collapse" and g.tree.n_nodes == 1
    assert g.tree.root.stop_reason == "collapsed"
    open_tab(at, "Step log")
    assert at.dataframe[0].value.iloc[0]["action"] == "collapse"  # newest first


def test_numeric_threshold_override_from_the_scan():
    # the lecture notes' C4.5 (J48's rules off): at the root J48's MDL correction leaves no threshold of
    # Humidity or Temperature worth a split, so the preset offers only the categorical features there
    at = open_link(data="play_tennis_numeric", cfg="alg:c45,rules:notes")
    ok(at)
    at.selectbox(key="_w_grow_cand_0").set_value("Humidity").run()
    ok(at)
    assert "grow_scan" in " ".join(chart_ids(at))
    at.select_slider(key="_w_grow_test_0_2_thr").set_value(72.5).run()
    ok(at)
    # another numeric candidate has its own threshold slider, starting at its best threshold
    at.selectbox(key="_w_grow_cand_0").set_value("Temperature").run()
    ok(at)
    assert at.select_slider(key="_w_grow_test_0_1_thr").value == 84.0
    at.selectbox(key="_w_grow_cand_0").set_value("Humidity").run()
    at.select_slider(key="_w_grow_test_0_2_thr").set_value(72.5).run()
    ok(at)
    click(at, "_w_grow_force")
    ok(at)
    root = grower(at).tree.root
    assert root.split.feature == "Humidity" and root.split.threshold == 72.5
    assert [grower(at).tree.node(c).n_node_samples for c in root.children] == [4, 10]


def test_node_selection_shows_that_nodes_gain_table(grow):
    at = click(grow, "_w_grow_step")
    click(at, "_w_grow_step")
    ok(at)
    sunny = next(c for c in grower(at).tree.root.children if grower(at).tree.node(c).branch == "Sunny")
    node_select(at).set_value(sunny).run()
    ok(at)
    assert at.session_state[state.SELECTED_NODE] == sunny
    table = at.dataframe[0].value
    assert table.loc[0, "feature"] == "Humidity" and table.loc[0, "gain"] == pytest.approx(0.971, abs=1e-3)
    assert any("class_dist" in i for i in chart_ids(at))


# --------------------------------------------------------------------------------- query point
def test_query_point_prediction_and_path(grow):
    at = click(grow, "_w_grow_grow")
    open_tab(at, "Query point")
    ds = grower(at).dataset
    keys = {f: f"{q.W_PREFIX}{i}" for i, f in enumerate(ds.feature_names)}
    at.selectbox(key=keys["Outlook"]).set_value("Sunny")
    at.selectbox(key=keys["Humidity"]).set_value("Normal")
    at.get("form_submit_button")[0].click().run()
    ok(at)
    assert [m.value for m in at.metric if m.label == "Prediction"] == ["Yes"]
    path = [c.value for c in at.code if "node 0:" in c.value][0]
    assert "Outlook = Sunny" in path and "Humidity = Normal" in path and "leaf: predict Yes" in path
    assert "#D81B60" in tree_charts(at)[0]["line"]  # the path colour in the diagram
    probs = [d.value for d in at.dataframe if "probability" in d.value.columns][0]
    assert probs.set_index("class").loc["Yes", "probability"] == pytest.approx(1.0)
    # a missing value mixes the leaves under the test on it
    at.selectbox(key=keys["Humidity"]).set_value(q.MISSING)
    at.get("form_submit_button")[0].click().run()
    ok(at)
    probs = [d.value for d in at.dataframe if "probability" in d.value.columns][0]
    assert probs.set_index("class").loc["Yes", "probability"] == pytest.approx(0.4)
    assert any("missing value" in c.value for c in at.caption)


def test_query_prefilled_from_a_training_row_on_numeric_data():
    at = open_link(data="ski")
    click(at, "_w_grow_grow")
    open_tab(at, "Query point")
    at.number_input(key=q.W_ROW).set_value(5).run()
    at.button(key="_w_grow_q_fill").click().run()
    ds = grower(at).dataset
    assert at.number_input(key=f"{q.W_PREFIX}0").value == pytest.approx(float(ds.frame.iloc[5, 0]))
    at.get("form_submit_button")[0].click().run()
    ok(at)
    expected = grower(at).tree.predict(ds.frame.iloc[[5]])[0]
    assert [m.value for m in at.metric if m.label == "Prediction"] == [expected]
    spec = json.loads([c for c in at.get("plotly_chart") if c.proto.id and gv.REGION_KEY in c.proto.id][0].proto.spec)
    assert any(t.get("name") == "query" for t in spec["data"])


# ------------------------------------------------------------------------------ regions, samples
def test_region_plot_and_two_feature_mode():
    at = open_link(data="iris")
    click(at, "_w_grow_grow")
    ok(at)
    assert any(gv.REGION_KEY in i for i in chart_ids(at))
    spec = json.loads([c for c in at.get("plotly_chart") if gv.REGION_KEY in c.proto.id][0].proto.spec)
    # Streamlit selects a clicked point only when the drag mode is not box/lasso selection
    assert spec["layout"]["dragmode"] == "zoom"
    x, y = at.selectbox(key=gv.W_X).value, at.selectbox(key=gv.W_Y).value
    assert (x, y) == ("petal_length", "petal_width")
    at.selectbox(key=gv.W_X).set_value("sepal_length").run()
    at.selectbox(key=gv.W_Y).set_value("sepal_width").run()
    ok(at)
    assert (x, y) != ("sepal_length", "sepal_width")
    assert any("also tests" in c.value for c in at.caption)
    click(at, "_w_grow_two_feats")
    ok(at)
    g = grower(at)
    assert g.dataset.feature_names == ("sepal_length", "sepal_width") and g.n_steps == 0
    assert any("Two-feature mode" in i.value for i in at.info)
    assert at.query_params.get("xy") == "sepal_length,sepal_width"
    click(at, "_w_grow_grow")
    assert {n.split.feature for n in grower(at).tree.internal_nodes} <= {"sepal_length", "sepal_width"}
    click(at, "_w_grow_all_feats")
    ok(at)
    assert len(grower(at).dataset.feature_names) == 4 and "xy" not in at.query_params


def test_region_plot_points_are_built_once_while_the_tree_grows(monkeypatch):
    """The rows' traces do not depend on the tree: Steps redraw the rectangles, not the points; other
    axes or a new tree (settings change) build them again."""
    import engine.viz.regions as regions

    calls = []
    original = regions.region_points
    monkeypatch.setattr(regions, "region_points", lambda *a, **k: calls.append(a[3:5]) or original(*a, **k))
    at = open_link(data="iris")
    for _ in range(3):
        click(at, "_w_grow_step")
    ok(at)
    assert calls == [("petal_length", "petal_width")] and grower(at).n_steps == 3
    spec = json.loads([c for c in at.get("plotly_chart") if gv.REGION_KEY in c.proto.id][0].proto.spec)
    assert len(spec["layout"]["shapes"]) == grower(at).tree.n_leaves
    assert [t["name"] for t in spec["data"] if t.get("customdata") is not None] == list(grower(at).dataset.classes)
    at.selectbox(key=gv.W_X).set_value("sepal_length").run()
    ok(at)
    assert calls[-1] == ("sepal_length", "petal_width") and len(calls) == 2


def test_regression_sample_shows_the_step_function():
    at = open_link(data="diabetes", cfg="alg:cart,depth:2")
    click(at, "_w_grow_grow")
    ok(at)
    assert "variance" in status(at) or at.selectbox(key="_w_grow_variance").value == "variance"
    at.radio(key=gv.W_VIEW).set_value("Prediction along one feature").run()
    ok(at)
    assert any("grow_fit" in i for i in chart_ids(at))
    assert at.checkbox(key=gs.W_VAL).disabled


@pytest.mark.parametrize("name", list(SAMPLES))
def test_every_sample_steps_and_grows(name):
    at = open_link(data=name, step="2")
    ok(at)
    assert at.session_state[state.DATASET_NAME] == name
    assert grower(at).n_steps == 2
    click(at, "_w_grow_step5")
    if not grower(at).done:
        click(at, "_w_grow_grow")
    ok(at)
    assert grower(at).done and "finished" in status(at)
    for label in ("Step log", "Query point", "Export & share", "Inspect a node"):
        open_tab(at, label)


def test_golf_sample_grows_quinlans_c45_tree_and_j48_rules_switch_off():
    # the golf sample opens with the C4.5 preset (Weka J48): grown to the end it is Quinlan's tree
    at = open_link(data="golf")
    ok(at)
    assert grower(at).config.c45_rules and grower(at).config.min_samples_leaf == 2
    click(at, "_w_grow_grow")
    ok(at)
    tree = grower(at).tree
    assert tree.n_leaves == 5 and "Humidity <= 75" in [n.split.describe() for n in tree.internal_nodes]
    # switching J48's "threshold at a training value" rule off in the settings cuts at the midpoint 77.5
    rules = [r for r in grower(at).config.c45_rules if r != "value_threshold"]
    at.multiselect(key="_w_grow_c45_rules").set_value(rules).run()
    ok(at)
    click(at, "_w_grow_grow")
    ok(at)
    assert "Humidity <= 77.5" in [n.split.describe() for n in grower(at).tree.internal_nodes]
    assert "value_threshold" not in grower(at).config.c45_rules


# ---------------------------------------------------------------------------- clickable diagram
def test_clicking_a_node_in_the_diagram_switches_the_inspector():
    at = open_link(data="iris", step="3")
    ok(at)
    chart = tree_charts(at)[0]
    assert sorted(chart["ids"]) == sorted(n.id for n in grower(at).tree.walk())  # one box per node
    target = max(chart["ids"])
    click_node(at, gv.TREE_KEY, target)
    ok(at)
    assert at.session_state[state.SELECTED_NODE] == target
    assert node_select(at).value == target
    after = tree_charts(at)[0]
    assert after == chart  # the same figure: a click does not send the diagram again
    # outlined as the inspector's node: a shape drawn onto the chart the browser has (ui.charts.overlay_shapes)
    (outline,) = [json.loads(t.value) for t in at.text if f".st-key-{gv.TREE_BOX}" in t.value]
    (shape,) = outline["shapes"]
    assert shape["line"]["color"] == "#1F5FA8" and shape["name"] == "overlay:selected box"
    assert "#1F5FA8" not in chart["line"]  # not in the figure itself
    assert chart["layout"]["uirevision"] == gv.TREE_KEY  # the view survives reruns


def test_clicking_an_open_leaf_lets_the_user_split_it_next():
    at = open_link(data="iris", step="1")
    g = grower(at)
    first, last = g.open_nodes[0], g.open_nodes[-1]
    click_node(at, gv.TREE_KEY, last)
    ok(at)
    at.button(key="_w_grow_split_now").click().run()
    ok(at)
    g = grower(at)
    assert g.history[-1].node_id == last and first in g.open_nodes and last not in g.open_nodes
    assert not at.button(key="_w_grow_undo").disabled


def test_fold_a_subtree_and_open_it_by_clicking_its_box():
    at = open_link(data="iris", step="4")
    tree = grower(at).tree
    inner = next(n.id for n in tree.walk() if not n.is_leaf and n.id != 0)
    click_node(at, gv.TREE_KEY, inner)
    at.button(key="_w_grow_fold").click().run()
    ok(at)
    chart = tree_charts(at)[0]
    assert (inner, 1) in zip(chart["ids"], chart["kinds"])
    hidden = len(tree.subtree_ids(inner)) - 1
    assert chart["text"][list(zip(chart["ids"], chart["kinds"])).index((inner, 1))] == f"+{hidden} nodes"
    click_node(at, gv.TREE_KEY, inner, kind=1)  # a "+k" box: the view shows the subtree below it
    ok(at)
    chart = tree_charts(at)[0]
    assert chart["layout"]["meta"]["focus"] == inner and 1 not in chart["kinds"]
    assert sorted(chart["ids"]) == sorted(tree.subtree_ids(inner))
    at.button(key=f"{gv.TREE_KEY}_crumb_0").click().run()  # the breadcrumb leads back to the root
    ok(at)
    chart = tree_charts(at)[0]
    assert chart["layout"]["meta"]["focus"] == 0 and len(chart["ids"]) == tree.n_nodes


def _one_press_delivered_twice():
    """Script: each press of Step, then of Undo, arrives twice with the mark it was drawn with (Streamlit
    runs the callback once per request carrying the trigger: a fragment poll sent in between carries it
    too)."""
    import streamlit as st
    from ui.grow import controls

    g = controls.session_grower()
    seen = []
    for action in ("step", "step", "undo", "step5", "undo", "reset"):
        mark = controls.drawn_mark(g)
        controls.run_action(action, mark)
        controls.run_action(action, mark)  # the second copy of the same press
        seen.append(g.n_steps)
    controls.run_action("step", (id(g), g.n_steps, -1))  # drawn for another revision: ignored too
    seen.append(g.n_steps)
    controls.run_action("step")  # Play's ticks carry no mark: always act
    seen.append(g.n_steps)
    st.session_state["seen"] = seen


def test_one_press_acts_once_even_when_delivered_twice():
    at = AppTest.from_function(_one_press_delivered_twice, default_timeout=60).run()
    ok(at)
    assert at.session_state["seen"] == [1, 2, 1, 4, 3, 0, 0, 1]  # play_tennis is finished after 4 steps


def _fold_on(chart, path):
    return next(nid for nid, kind in zip(chart["ids"], chart["kinds"]) if kind == 1 and nid in path)


def test_a_big_tree_is_navigated_by_focus_breadcrumbs_and_node_ids():
    at = open_link(data="noisy_moons", cfg="alg:cart", step="40")
    ok(at)
    tree = grower(at).tree
    chart = tree_charts(at)[0]
    assert 1 in chart["kinds"] and chart["layout"]["meta"]["focus"] == 0  # a planned view with "+k" boxes
    assert all(t for t in chart["text"]), "every drawn box has text"
    deepest = max(tree.leaves, key=lambda n: n.depth)
    path = set(gv_path := [deepest.id])
    while tree.nodes[gv_path[-1]].parent is not None:
        gv_path.append(tree.nodes[gv_path[-1]].parent)
    path.update(gv_path)
    fold = _fold_on(chart, path)
    click_node(at, gv.TREE_KEY, fold, kind=1)  # a "+k" box on the deepest leaf's path
    ok(at)
    chart = tree_charts(at)[0]
    assert chart["layout"]["meta"]["focus"] == fold and chart["ids"][0] == fold
    assert chart["layout"]["meta"]["trail"][0] == 0 and at.button(key=f"{gv.TREE_KEY}_crumb_0")
    # focus survives a Step (and its axes stay the same, so does the user's zoom)
    ranges = (chart["layout"]["xaxis"]["range"], chart["layout"]["yaxis"]["range"])
    assert not grower(at).done
    n_before = grower(at).tree.n_nodes
    at.button(key="_w_grow_step").click().run()
    ok(at)
    after = tree_charts(at)[0]
    assert grower(at).tree.n_nodes > n_before and after["layout"]["meta"]["focus"] == fold
    assert (after["layout"]["xaxis"]["range"], after["layout"]["yaxis"]["range"]) == ranges
    # "Go to node": the view shows it (focus on its parent) and the inspector selects it
    at.number_input(key=f"{gv.TREE_KEY}_goto").set_value(deepest.id).run()
    ok(at)
    chart = tree_charts(at)[0]
    assert deepest.id in chart["ids"] and chart["layout"]["meta"]["focus"] == deepest.parent
    assert at.session_state[state.SELECTED_NODE] == deepest.id
    at.button(key=f"{gv.TREE_KEY}_crumb_0").click().run()  # back to the root
    ok(at)
    assert tree_charts(at)[0]["layout"]["meta"]["focus"] == 0


# every setting, one at a time: (widget kind, key, new value)
EVERY_SETTING = [
    ("selectbox", gs.W_ALGO, "c45"), ("selectbox", gs.W_ALGO, "cart"), ("selectbox", gs.W_ALGO, "id3"),
    ("selectbox", gs.W_ALGO, "cart"), ("selectbox", gs.W_CRIT, "gini"), ("selectbox", gs.W_CRIT, "misclassification"),
    ("selectbox", gs.W_CRIT, "preset"), ("selectbox", gs.W_SCORE, "gain_ratio"), ("selectbox", gs.W_SCORE, "preset"),
    ("selectbox", gs.W_CAT, "equals"), ("selectbox", gs.W_CAT, "multiway"), ("selectbox", gs.W_CAT, "preset"),
    ("number_input", gs.W_DEPTH, 3), ("number_input", gs.W_MSS, 4), ("number_input", gs.W_MSL, 2),
    ("number_input", gs.W_GAIN, 0.01), ("number_input", gs.W_MID, 0.001), ("selectbox", gs.W_ALGO, "c45"),
    ("multiselect", gs.W_RULES, ["min_split", "mdl"]), ("number_input", gs.W_LEAVES, 5),
    ("selectbox", gs.W_CHI2, "0.05"), ("selectbox", gs.W_ORDER, "depth"), ("radio", gs.W_BASE, "nats"),
    ("checkbox", gs.W_VAL, True), ("selectbox", gs.W_SEARCH, "histogram"), ("number_input", gs.W_BINS, 16),
    ("selectbox", gs.W_SEARCH, "auto"), ("number_input", gs.W_ABOVE, 50),
]


def _shown_options(at) -> dict:
    return {s.key: list(s.options) for s in at.selectbox if s.key in gs.SETTINGS}


def test_every_setting_changed_one_at_a_time_then_steps_without_an_error_box():
    # a validation share, so that validation stopping is a valid choice too
    at = open_link(data="play_tennis", split="0.2,0.3,0")
    ok(at)
    shown = _shown_options(at)
    for kind, key, value in EVERY_SETTING:
        widget = getattr(at, kind)(key=key)
        (widget.check() if value is True else widget.set_value(value)).run()
        ok(at)
        # the browser sends a selectbox's choice back as its shown text: an option whose text changed with
        # another setting (the old "preset (entropy)" after CART) came back unknown and every Step failed
        assert _shown_options(at) == shown, (key, value)
        click(at, "_w_grow_step")
        ok(at)
        assert grower(at).n_steps <= 1
    cfg = grower(at).config
    assert (cfg.algorithm, cfg.max_depth, cfg.order, cfg.validation, cfg.max_bins) == ("c45", 3, "depth", True, 16)
