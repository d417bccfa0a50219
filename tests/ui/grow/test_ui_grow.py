"""Pure helpers of the Grow page: links, settings <-> TreeConfig, CSV safety, selections, query rows, logs."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import engine
from engine.config import TreeConfig
from engine.errors import ConfigError
from ui.grow import exports, views as grow_views, inspector, query
from ui.classroom import share
from ui.grow import controls as gc
from ui.grow import settings as gs


# ----------------------------------------------------------------------------------------- links
configs = st.builds(
    TreeConfig,
    algorithm=st.sampled_from(["id3", "c45", "cart"]),
    criterion=st.sampled_from([None, "entropy", "gini", "misclassification"]),
    score=st.sampled_from([None, "gain", "gain_ratio"]),
    categorical_split=st.sampled_from([None, "multiway", "subset", "equals"]),
    max_depth=st.one_of(st.none(), st.integers(0, 50)),
    min_samples_split=st.integers(2, 500),
    min_samples_leaf=st.one_of(st.none(), st.integers(1, 200)),
    min_impurity_decrease=st.sampled_from([0.0, 0.001, 0.01, 0.05, 0.1, 1.5]),
    min_gain=st.sampled_from([0.0, 0.002, 0.3]),
    c45_rules=st.sampled_from([None, (), ("mdl",), ("min_split", "all_values"), ("value_threshold", "average_gain")]),
    max_leaf_nodes=st.one_of(st.none(), st.integers(2, 1000)),
    chi2_alpha=st.sampled_from([None, 0.1, 0.05, 0.01, 0.001]),
    validation=st.booleans(),
    order=st.sampled_from(["breadth", "depth", "best"]),
    entropy_base=st.sampled_from([2.0, math.e, 10.0]),
)


@given(configs)
def test_config_link_round_trip(cfg):
    text = share.encode_config(cfg)
    assert text.startswith(f"alg:{cfg.algorithm}") and " " not in text
    assert share.decode_config(text) == cfg


@given(configs)
def test_settings_widgets_round_trip(cfg):
    if cfg.entropy_base not in (2.0, math.e):
        return  # the widget offers bits and nats only
    if cfg.c45_rules is not None and set(cfg.c45_rules) == set(gs.preset_rules(cfg.algorithm)):
        return  # the widget shows the preset's rules; the same rules given explicitly read back as the preset
    assert gs.config_from_widgets(gs.widget_values(cfg)) == cfg


def test_old_links_keep_their_minimum_gain_and_rules_travel():
    # "mid" in a link made before min_impurity_decrease became scikit-learn's meant the node's own gain
    assert share.decode_config("alg:cart,mid:0.05") == TreeConfig(min_gain=0.05)
    cfg = TreeConfig(algorithm="c45", c45_rules=("mdl", "all_values"), min_impurity_decrease=0.01)
    assert share.encode_config(cfg) == "alg:c45,dec:0.01,rules:mdl+all_values"
    assert share.decode_config("alg:c45,rules:notes") == TreeConfig(algorithm="c45", c45_rules=())
    with pytest.raises(ConfigError, match="c45_rules"):
        share.decode_config("alg:c45,rules:mdl+bogus")


def test_switching_the_algorithm_in_the_widgets_keeps_rules_per_preset():
    values = gs.widget_values(TreeConfig(algorithm="c45"))
    assert values[gs.W_RULES] == list(gs.preset_rules("c45")) and values[gs.W_MSL] is None
    assert gs.config_from_widgets(values) == TreeConfig(algorithm="c45")
    values[gs.W_RULES] = ["mdl"]
    assert gs.config_from_widgets(values).c45_rules == ("mdl",)
    assert "J48's rules, M = 2" in gs.config_summary(TreeConfig(algorithm="c45"), "classification")


def test_default_config_link_is_just_the_algorithm():
    assert share.encode_config(TreeConfig()) == "alg:cart"
    assert share.encode_config(TreeConfig(algorithm="id3", max_depth=None)) == "alg:id3"


@pytest.mark.parametrize("text, words", [
    ("alg:cart,depth", "not one this app knows"),
    ("size:3", "not one this app knows"),
    ("depth:3.5", "cannot read"),
    ("val:maybe", "cannot read"),
    ("mss:1", "min_samples_split must be a whole number from 2 to 1,000,000,000"),
    ("chi2:2", "chi2_alpha must be between 0 and 1"),
    ("base:1", "entropy_base must be a number > 1"),
])
def test_bad_config_text_raises_a_config_error(text, words):
    with pytest.raises(ConfigError, match=words):
        share.decode_config(text)


def test_decode_params_keeps_the_good_pieces():
    got = share.decode_params({"data": ["ski"], "cfg": "alg:id3,depth:2", "split": "0.2,0,3",
                               "xy": "Month,Altitude", "step": "7"})
    assert got.dataset == "ski" and got.config == TreeConfig(algorithm="id3", max_depth=2)
    assert got.split == (0.2, 0.0, 3) and got.features == ("Month", "Altitude") and got.steps == 7
    assert got.warnings == ()
    bad = share.decode_params({"data": "x" * 500, "cfg": "alg:id3", "step": "99999"})
    assert bad.dataset is None and bad.config == TreeConfig(algorithm="id3") and bad.steps == 0
    assert len(bad.warnings) == 2 and all(len(w) < 200 for w in bad.warnings)


def test_encode_state_only_for_samples_and_only_non_default_parts():
    cfg = TreeConfig(algorithm="c45")
    assert share.encode_state(dataset="upload.csv", config=cfg, split=(0.25, 0, 0), steps=3) == {}
    assert share.encode_state(dataset="play_tennis", config=cfg, split=(0.0, 0.0, 0), steps=0) == {
        "data": "play_tennis", "cfg": "alg:c45"}
    assert share.encode_state(dataset="iris", config=cfg, split=(0.25, 0.1, 4), steps=2,
                              features=("petal_length", "petal_width")) == {
        "data": "iris", "cfg": "alg:c45", "split": "0.25,0.1,4", "xy": "petal_length,petal_width",
        "step": "2"}
    link = share.link_for("http://host:8501/grow", {"data": "iris", "cfg": "alg:cart,depth:2"})
    assert link == "http://host:8501/grow?data=iris&cfg=alg:cart,depth:2"


# ------------------------------------------------------------------------------------- settings
def test_config_summary_and_status_text():
    ds = engine.load_sample("play_tennis")
    cfg = TreeConfig(algorithm="id3", max_depth=2, chi2_alpha=0.05)
    assert gs.config_summary(cfg, "classification") == (
        "ID3 · entropy (bits) · gain · multiway categories · depth ≤ 2 · χ² α = 0.05 · breadth-first")
    assert gs.config_summary(TreeConfig(), "regression").startswith("CART · variance · gain")
    g = engine.Grower(ds, cfg)
    g.step()  # chi-square: Outlook's p = 0.17 is not significant at 0.05, so the root stays a leaf
    assert gc.status_text(g) == "Step 1 · 1 node · 1 leaf · depth 0 · finished"
    g = engine.Grower(ds, TreeConfig(algorithm="id3", max_depth=2))
    assert gc.status_text(g) == "Step 0 · 1 node · 1 leaf · depth 0 · 1 open"
    g.step()
    assert gc.status_text(g) == "Step 1 · 4 nodes · 3 leaves · depth 1 · 3 open"
    assert gc.last_split_node(g) == 0
    g.grow()
    assert gc.status_text(g).endswith("finished")
    g.collapse(0)
    assert gc.last_split_node(g) is None


def test_validation_stopping_is_refused_for_regression():
    """Regression test for the engine: it used to fail with ``tuple.index`` (ValueError)."""
    ds = engine.load_sample("diabetes")
    split = ds.split(validation_size=0.2)
    with pytest.raises(ConfigError, match="classification only"):
        engine.Grower(split.train, TreeConfig(validation=True), validation_data=split.validation)


# ---------------------------------------------------------------------------------- CSV safety
@pytest.mark.parametrize("cell, safe", [
    ("=1+1", "'=1+1"), ("+cmd", "'+cmd"), ("-2", "'-2"), ("@SUM(A1)", "'@SUM(A1)"), ("\tx", "'\tx"),
    ("\r=x", "'\r=x"), ("plain", "plain"), ("a=b", "a=b"), ("", ""), (3, 3), (-2.5, -2.5), (None, None),
])
def test_neutralise(cell, safe):
    assert exports.neutralise(cell) == safe


@given(st.lists(st.text(max_size=12), min_size=1, max_size=8))
def test_csv_safe_never_starts_a_cell_with_a_formula(cells):
    frame = pd.DataFrame({"=name": cells, "n": range(len(cells)), "x": [-1.5] * len(cells)})
    out = exports.csv_safe(frame)
    assert list(out.columns) == ["'=name", "n", "x"]
    assert not any(str(v).startswith(exports.FORMULA_START) for v in out["'=name"])
    assert (out["x"] == -1.5).all() and list(out["n"]) == list(range(len(cells)))
    assert list(out["'=name"]) == ["'" + c if c.startswith(exports.FORMULA_START) else c for c in cells]


def test_file_stem():
    assert exports.file_stem("my data (v2).csv") == "my_data__v2"
    assert exports.file_stem("../../etc/passwd") == "passwd"
    assert exports.file_stem(".hidden") == "hidden" and exports.file_stem("a.b.csv") == "a_b"
    assert exports.file_stem("") == "tree"


# ----------------------------------------------------------------------------- region selection
def test_rows_from_selection_reads_customdata_and_skips_other_points():
    event = {"selection": {"points": [
        {"customdata": [4], "x": 1.0}, {"customdata": 7}, {"x": 3.0, "text": "#2"},
        {"customdata": ["label"]}, {"customdata": []}, {"customdata": [2.0]}, "junk",
        # what Streamlit 1.67 really sends for customdata=[[row], ...] (seen in Chromium)
        {"curve_number": 0, "point_number": 5, "point_index": 5, "x": 11, "y": 380,
         "customdata": {"0": 9}}, {"customdata": {}}]}}
    assert grow_views.rows_from_selection(event) == [4, 7, 2, 9]
    assert grow_views.rows_from_selection(None) == []
    assert grow_views.rows_from_selection({"selection": {}}) == []
    assert grow_views.rows_from_selection({}) == []


def test_leaf_of_rows_picks_the_leaf_with_most_selected_rows():
    ds = engine.load_sample("ski")
    tree = engine.fit_tree(ds, TreeConfig(max_depth=2))
    leaves = tree.apply(ds.X)
    target = int(np.bincount(leaves).argmax())
    rows = list(np.flatnonzero(leaves == target)[:3]) + [int(np.flatnonzero(leaves != target)[0])]
    assert grow_views.leaf_of_rows(tree, ds.X, rows) == target
    assert grow_views.leaf_of_rows(tree, ds.X, [10_000, -1]) is None
    assert grow_views.leaf_of_rows(tree, ds.X, []) is None


def test_default_axes_and_subtree_leaves():
    ds = engine.load_sample("iris")
    g = engine.Grower(ds, TreeConfig(max_depth=3))
    numeric = list(ds.feature_names)
    axes = grow_views.default_axes(g, numeric)
    assert axes == tuple(s.feature for s in g.candidates(0)[:2])
    assert set(axes) == {"petal_length", "petal_width"}
    g.grow()
    assert grow_views.default_axes(g, numeric) == axes  # stable while the tree grows
    assert grow_views.default_axes(g, ["sepal_width", "sepal_length"])[0] in ("sepal_width", "sepal_length")
    tree = g.tree
    assert set(grow_views.subtree_leaves(tree, 0)) == {n.id for n in tree.leaves}
    assert grow_views.subtree_leaves(tree, None) == ()


def test_tree_fingerprint_changes_with_the_tree():
    g = engine.Grower(engine.load_sample("play_tennis"), TreeConfig(algorithm="id3"))
    seen = {grow_views.tree_fingerprint(g.tree)}
    for _ in range(4):
        g.step()
        seen.add(grow_views.tree_fingerprint(g.tree))
    assert len(seen) == 5
    g.undo()
    assert grow_views.tree_fingerprint(g.tree) in seen


def test_step_log_frame_lists_runner_ups_forced_and_collapse():
    g = engine.Grower(engine.load_sample("play_tennis"), TreeConfig(algorithm="id3"))
    g.step()
    g.expand(2, next(s for s in g.candidates(2) if s.feature == "Temperature"))
    g.collapse(2)
    g.grow()
    log = grow_views.step_log_frame(g)
    assert list(log.columns) == ["step", "action", "node", "split", "gain", "runner_up", "runner_up_gain",
                                 "stopped"]
    assert log.loc[0, "split"] == "Outlook = ?" and log.loc[0, "runner_up"] == "Humidity = ?"
    assert log.loc[0, "gain"] == pytest.approx(0.2467, abs=1e-4)
    assert log.loc[0, "runner_up_gain"] == pytest.approx(0.1518, abs=1e-4)
    assert list(log["action"][:3]) == ["split", "forced", "collapse"]
    assert log["stopped"].str.contains("pure").any()
    assert grow_views.step_log_frame(g, runner_up_limit=0)["runner_up"].eq("").all()


# -------------------------------------------------------------------------------- query points
def test_query_frame_and_result_with_missing_values():
    ds = engine.load_sample("play_tennis")
    tree = engine.fit_tree(ds, TreeConfig(algorithm="id3"))
    values = query.row_values(ds, 0)
    assert values == {"Outlook": "Sunny", "Temperature": "Hot", "Humidity": "High", "Wind": "Weak"}
    res = query.query_result(tree, values, ds)
    assert res["prediction"] == "No" and res["path_ids"][0] == 0
    assert res["proba"].set_index("class").loc["No", "probability"] == pytest.approx(1.0)
    values["Humidity"] = None
    frame = query.query_frame(values, ds)
    assert frame.shape == (1, 4) and frame.loc[0, "Humidity"] is None
    res = query.query_result(tree, values, ds)
    assert res["proba"].set_index("class").loc["Yes", "probability"] == pytest.approx(0.4)
    assert "value missing" in res["path"][1][1]


def test_query_frame_numeric_missing_is_nan():
    ds = engine.load_sample("ski")
    frame = query.query_frame({ds.feature_names[0]: 3.0, ds.feature_names[1]: None}, ds)
    assert frame.iloc[0, 0] == 3.0 and np.isnan(frame.iloc[0, 1])


# ----------------------------------------------------------------------------------- inspector
def test_node_labels_gain_view_and_child_table():
    ds = engine.load_sample("play_tennis")
    g = engine.Grower(ds, TreeConfig(algorithm="id3"))
    assert inspector.node_label(g.tree.root) == "#0 · open leaf: Yes"
    g.step()
    tree = g.tree
    assert inspector.node_label(tree.root) == "#0 · Outlook = ?"
    g.grow()
    assert inspector.node_label(g.tree.node(1)) == "#1 · leaf: Yes (pure)"
    view = inspector.gain_table_view(g.gain_table(0))
    assert list(view.columns[:3]) == ["best", "feature", "split"] and list(view["best"]) == ["★", "", "", ""]
    table = inspector.child_table(g.tree.root.split, ds.classes, "classification")
    assert list(table["branch"]) == ["Overcast", "Rain", "Sunny"]
    assert table[["No", "Yes"]].to_numpy().tolist() == [[0, 4], [2, 3], [3, 2]]
    reg = engine.load_sample("diabetes")
    rg = engine.Grower(reg, TreeConfig(max_depth=1)).grow()
    rt = inspector.child_table(rg.tree.root.split, (), "regression")
    assert list(rt.columns) == ["branch", "weight", "mean"] and rt["weight"].sum() == len(reg)


@pytest.mark.parametrize("name, cfg", [
    ("iris", TreeConfig()), ("breast_cancer", TreeConfig(order="depth")),
    ("wine", TreeConfig(max_depth=3)), ("noisy_moons", TreeConfig(min_samples_leaf=3)),
    ("titanic_small", TreeConfig(algorithm="c45")), ("breast_cancer", TreeConfig(algorithm="c45")),
])
def test_grow_to_end_after_steps_equals_stepping_to_the_end(name, cfg):
    """Engine: "Grow to end" after automatic steps uses the level-wise builder; same tree and log."""
    ds = engine.load_sample(name)
    fast = engine.Grower(ds, cfg)
    for _ in range(5):
        fast.step()
    fast.grow()
    slow = engine.Grower(ds, cfg)
    while slow.step() is not None:
        pass
    assert fast.tree.to_dict() == slow.tree.to_dict()
    assert [(r.action, r.node_id, r.children, r.stopped) for r in fast.history] == \
        [(r.action, r.node_id, r.children, r.stopped) for r in slow.history]
    assert fast.n_steps == slow.n_steps and fast.done
    fast.undo()
    assert fast.n_steps == slow.n_steps - 1


def test_another_score_on_c45_switches_j48s_rules_off(monkeypatch):
    from ui import state as ui_state
    store = {}
    monkeypatch.setattr(gs.st, "session_state", store)
    monkeypatch.setattr(ui_state, "set_config", lambda cfg: store.__setitem__("cfg", cfg))
    monkeypatch.setattr(gs, "flash", lambda *a, **k: None)
    store.update(gs.widget_values(TreeConfig(algorithm="c45")))
    store[gs.SYNCED] = TreeConfig(algorithm="c45")
    store[gs.W_SCORE] = "gain"
    gs._on_settings_change()
    assert gs.CONFIG_ERROR not in store and store["cfg"].c45_rules == () and store["cfg"].score == "gain"
