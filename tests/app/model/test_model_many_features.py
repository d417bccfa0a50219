"""A model of 10,000 features (issue 40, finding 7): the pages that ask for one value per feature draw one
table, not a box per feature (10,000 number boxes took Rules 520 s in AppTest), list the features the
model's splits test first, and a value set in the table changes the path and the answer.

The model is a hand-made XGBoost JSON of a few hundred bytes: one tree testing f7 at the root and f9001
below it, ``num_feature`` 10,000 (the file names no features, so they are f0 ... f9999 as XGBoost names them).
"""

from __future__ import annotations

import json
import tracemalloc

import numpy as np
import pandas as pd
import pytest

from tests.app.model.conftest import ok
from ui import state
from ui.model.breakdown import W_TAB

N = 10_000


def wide_xgb(n_features: int = N) -> bytes:
    """Root: f7 <= 0.5 (left) ; left child: f{last or 9001} <= 2 ; leaf scores -0.4, 0.1 (left node), 0.3."""
    deep = min(9001, n_features - 1)
    tree = {"left_children": [1, 3, -1, -1, -1], "right_children": [2, 4, -1, -1, -1],
            "split_conditions": [0.5, 2.0, 0.3, -0.4, 0.1], "split_indices": [7, deep, 0, 0, 0],
            "default_left": [1] * 5, "split_type": [0] * 5, "sum_hessian": [4.0, 2.0, 2.0, 1.0, 1.0],
            "loss_changes": [1.0, 0.5, 0.0, 0.0, 0.0], "base_weights": [0.0] * 5,
            "parents": [2147483647, 0, 0, 1, 1], "tree_param": {"num_nodes": "5"}}
    doc = {"version": [3, 2, 0], "learner": {
        "learner_model_param": {"base_score": "[5E-1]", "num_class": "0", "num_feature": str(n_features),
                                "num_target": "1"},
        "objective": {"name": "binary:logistic"},
        "gradient_booster": {"name": "gbtree", "model": {"trees": [tree], "tree_info": [0]}}}}
    return json.dumps(doc).encode()


def one_table(at):
    """The page's one table of feature values (and no box per feature)."""
    assert len(at.number_input) <= 3, [w.label for w in at.number_input][:10]
    editors = at.data_editor
    assert len(editors) == 1
    return editors[0]


def edit(at, editor, changes: dict[int, float]) -> None:
    """Type ``{row position: value}`` into the table's value column, as the browser sends edits."""
    at.session_state[editor.key] = {"edited_rows": {pos: {"value": v} for pos, v in changes.items()},
                                    "added_rows": [], "deleted_rows": []}
    at.run()
    ok(at)


@pytest.mark.parametrize("n_features", [300, N])
def test_rules_draws_one_table_whatever_the_number_of_features(model_app, n_features):
    at = model_app(wide_xgb(n_features), "wide.json", "pages/rules.py")
    ok(at)
    table = one_table(at).value
    assert len(table) == n_features
    deep = f"f{min(9001, n_features - 1)}"
    assert list(table["feature"][:2]) == ["f7", deep]  # the tested features first, with their split counts
    assert list(table["splits"][:3]) == [1, 1, 0]
    assert any("the 2 tested by the model" in c.value for c in at.caption)


def test_a_value_typed_in_the_table_moves_the_path(model_app):
    at = model_app(wide_xgb(), "wide.json", "pages/rules.py")
    before = [d.value for d in at.dataframe if "test passed" in d.value.columns][0]
    assert list(before["node"]) == ["#0", "#1", "#3"]  # every feature at 0 (never tested) or its threshold
    edit(at, one_table(at), {0: 1.5, 1: 3.0})  # f7 = 1.5 > 0.5: right at the root, into leaf 2
    after = [d.value for d in at.dataframe if "test passed" in d.value.columns][0]
    assert list(after["node"]) == ["#0", "#2"]
    assert any("leaf #2" in c.value for c in at.caption)
    edit(at, one_table(at), {0: 0.0, 1: 3.0})  # left at the root, f9001 = 3 > 2: leaf 4
    after = [d.value for d in at.dataframe if "test passed" in d.value.columns][0]
    assert list(after["node"]) == ["#0", "#1", "#4"]


def test_ensembles_explains_the_typed_row_and_maps_regions(model_app):
    at = model_app(wide_xgb(), "wide.json", "pages/ensembles.py")
    ok(at)
    table = one_table(at)
    leaf = lambda: [d.value for d in at.dataframe if "leaf_value" in d.value.columns][0]  # noqa: E731
    assert list(leaf()["leaf"]) == [3]  # all features 0: left, left
    edit(at, table, {0: 1.5})  # f7 = 1.5: right at the root, the leaf scoring 0.3
    assert list(leaf()["leaf"]) == [2] and list(leaf()["leaf_value"]) == pytest.approx([0.3])
    at.session_state[W_TAB] = "Decision regions"
    at.run()
    ok(at)
    assert at.selectbox(key="_w_model_reg_x").value == "f7"  # the tested features are the default axes
    assert at.selectbox(key="_w_model_reg_y").value == "f9001"
    assert len(at.data_editor) == 1 and len(at.number_input) <= 3
    assert [c for c in at.get("plotly_chart") if "model_regions" in c.proto.id]


@pytest.mark.parametrize("page", ["pages/grow.py", "pages/evaluate.py", "pages/data.py"])
def test_other_pages_draw_no_box_per_feature(model_app, page):
    at = model_app(wide_xgb(), "wide.json", page)
    ok(at)
    assert len(at.number_input) <= 3 and len(at.selectbox) <= 5


def test_the_region_grid_of_a_wide_model_is_predicted_in_blocks():
    """The held row is encoded once and the 80 x 80 grid predicted a block at a time: the same answers as
    one 6,400 x 10,000 frame (512 MB of floats) at a small fraction of its memory."""
    from engine import load_model
    from engine.viz.ensemble_figs import decision_grid
    from ui.model.regions import ModelGrid, span_frame

    model = load_model(wide_xgb())
    held = {n: 0.0 for n in model.feature_names}
    held["f9001"] = 3.0
    frame = span_frame(model, "f7", "f9001", held)
    assert list(frame.columns) == ["f7", "f9001"]
    tracemalloc.start()
    try:
        gx, gy, win, strength = decision_grid(ModelGrid(model, held, "f7", "f9001"), frame, "f7", "f9001",
                                              base={"f7": 0.0, "f9001": 3.0}, resolution=80)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64e6, peak
    some = [(0, 0), (40, 79), (79, 0), (79, 79)]
    rows = pd.DataFrame(np.zeros((len(some), len(model.feature_names))), columns=list(model.feature_names))
    rows["f7"] = [gx[i] for _, i in some]
    rows["f9001"] = [gy[j] for j, _ in some]
    expected = model.predict_proba(rows).argmax(axis=1)
    assert [int(win[j, i]) for j, i in some] == list(expected)
