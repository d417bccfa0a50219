"""AppTest of the Grow page with a model open: the member picker, the planned diagram, the inspector."""

from __future__ import annotations

import json

from ui import state
from ui.model.common import W_MEMBER
from ui.model.grow_view import chart_key
from tests.app.model.conftest import ok

GROW = "pages/grow.py"


def tree_spec(at, t):
    for chart in at.get("plotly_chart"):
        if chart_key(t) in chart.proto.id:
            return json.loads(chart.proto.spec)
    raise AssertionError(f"no diagram of tree {t}")


def box_texts(spec) -> list[str]:
    return [str(x) for tr in spec["data"] if tr.get("mode") == "text" for x in (tr.get("text") or [])]


def test_grow_shows_the_chosen_member_tree_of_an_xgboost_model_without_data(model_app, xgb_iris):
    at = model_app(xgb_iris, "iris.json", GROW)
    ok(at)
    assert not [b for b in at.button if b.label == "Step"]  # no grower while a model is open
    at.number_input(key=W_MEMBER).set_value(3).run()
    ok(at)
    model = at.session_state[state.MODEL]
    assert at.session_state[state.MODEL_MEMBER] == 3
    assert any("Tree 3 of 15 (round 1, class 0)" in m for m in [e.value.replace("\\", "") for e in at.markdown])
    texts = " ".join(box_texts(tree_spec(at, 3)))
    root = model.trees[3].root
    assert "#0 w=" in texts and "n=0" not in texts  # XGBoost has covers, no row counts
    assert root.split.feature.replace("_", "_<br>") in texts  # the test's feature, wrapped in its box
    # the inspector's node list belongs to tree 3: pick its first leaf
    leaf = model.trees[3].leaves[0].id
    at.selectbox(key="_w_model_node_3").set_value(leaf).run()
    ok(at)
    assert at.session_state[state.SELECTED_NODE] == leaf
    assert any("score" in t.value for t in at.text)


def test_with_the_iris_data_the_tree_counts_rows_and_the_inspector_has_a_gain_table(model_app, xgb_iris):
    at = model_app(xgb_iris, "iris.json", GROW, sample="iris")
    ok(at)
    texts = " ".join(box_texts(tree_spec(at, 0)))
    assert "n=150" in texts  # the root of tree 0 is reached by all 150 rows
    assert any("rows reach this node" in t.value for t in at.text)
    frames = [d.value for d in at.dataframe]
    assert any("model" in f.columns and "feature" in f.columns for f in frames)
    assert any("LabelEncoder" in c.value for c in at.caption)


def test_a_lightgbm_forest_shows_class_distributions(model_app, lgb_breast):
    at = model_app(lgb_breast, "breast.txt", GROW)
    ok(at)
    assert tree_spec(at, 0)["data"]


def test_with_the_matching_data_set_the_tree_picker_names_the_class_by_the_datas_label(model_app, xgb_iris):
    at = model_app(xgb_iris, "iris.json", GROW, sample="iris")  # XGBoost numbers iris's classes 0..2
    ok(at)
    at.number_input(key=W_MEMBER).set_value(4).run()
    ok(at)
    shown = [e.value.replace("\\", "") for e in at.markdown]
    assert any("Tree 4 of 15 (round 1, class versicolor)" in m for m in shown), shown[:5]


def test_an_opened_models_tree_is_an_aria_tree_named_without_row_counts(model_app, xgb_iris):
    """Issue 37 item 1 for an imported model: the member tree's ARIA tree, one item per drawn box; XGBoost's file
    holds no row counts for inner nodes, so their names carry none (as the boxes)."""
    from tests.app.test_aria_trees import assert_matches_the_drawn_boxes

    at = model_app(xgb_iris, "iris.json", GROW)
    ok(at)
    (tree,) = assert_matches_the_drawn_boxes(at, chart_key(0))
    root = at.session_state[state.MODEL].trees[0].root
    assert tree["items"][0]["name"].startswith(f"Node 0, tests {root.split.feature}")
    assert "rows" not in tree["items"][0]["name"]
