"""AppTest of pages/theory.py: every tab's controls, bad input shown with st.error, the current tree."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from engine.data.dataset import Dataset
from engine.grow.grower import Grower
from engine.prune.mdl import mdl_error_bound
from engine.teach.theory import pac_sample_size
from ui import state
from ui.widgets import md_escape

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "theory.py")


def _page() -> AppTest:
    return AppTest.from_file(PAGE, default_timeout=60)


def _chart(at: AppTest, chart_key: str) -> dict:
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        if chart.proto.id and chart_key in chart.proto.id:
            return spec
    raise AssertionError(f"no chart with key {chart_key}")


def _values(arr) -> np.ndarray:
    """Plotly JSON arrays are either lists or {'dtype', 'bdata'} base64 blobs."""
    if isinstance(arr, dict) and "bdata" in arr:
        return np.frombuffer(base64.b64decode(arr["bdata"]), dtype=np.dtype(arr["dtype"]))
    return np.asarray(arr, dtype=float)


def _marker_ys(spec: dict) -> np.ndarray:
    marker = [t for t in spec["data"] if t.get("mode") == "markers"]
    assert len(marker) == 1
    return _values(marker[0]["y"])


def test_renders_every_tab_without_a_tree():
    at = _page().run()
    assert not at.exception and not at.error
    assert [t.label for t in at.tabs] == ["Impurity curves", "Zero-gain split", "PAC sample size", "MDL bound"]
    assert len(at.latex) >= 5
    # curves: the slider marks p
    np.testing.assert_allclose(_marker_ys(_chart(at, "theory_curves"))[[0, 3]], [0.3, 0.42])
    at.slider(key="theory_p").set_value(0.5).run()
    np.testing.assert_allclose(_marker_ys(_chart(at, "theory_curves")), [0.5, 1.0, 0.5, 0.5])
    # zero-gain: the classic example's numbers
    table = at.dataframe[0].value.set_index("criterion")
    assert table.loc["misclassification", "gain"] == 0.0
    assert table.loc["gini", "gain"] == pytest.approx(2 / 45)
    assert "0.4444 - 0.4000 = 0.0444" in at.code[0].value
    assert any("Right child = parent − left = (30, 20)" in t.value for t in at.text)
    # MDL: no tree -> note and the calculator with hand numbers
    assert any("Grow page" in i.value for i in at.info)
    # 4 real-valued features by default: d' = 4 (m + 1) = 404 binary tests
    assert at.metric[3].value == f"{mdl_error_bound(0.1, 7, 4 * 101, 100).bound:.4f}"


def test_zero_gain_inputs_and_bad_input():
    at = _page().run()
    at.text_input(key="theory_parent").set_value("5, 7, 8").run()
    at.text_input(key="theory_left").set_value("4; 1; 2").run()
    assert not at.exception and not at.error
    assert at.dataframe[0].value.shape[0] == 3
    assert all(c.proto.id is None or "theory_chords" not in c.proto.id for c in at.get("plotly_chart"))
    at.text_input(key="theory_left").set_value("50, 0, 0").run()
    assert not at.exception
    assert [e.value for e in at.error] == [md_escape("left_counts (50, 0, 0) cannot exceed parent_counts (5, 7, 8) in "
                                              "any class: a child holds only rows of its parent.")]
    at.text_input(key="theory_parent").set_value("forty, 20").run()
    assert not at.exception and "whole numbers separated by commas" in at.error[0].value
    # the other tabs still work when one tab has bad input
    assert at.get("plotly_chart") and at.metric
    at.button(key="theory_reset").click().run()
    assert not at.error and at.text_input(key="theory_parent").value == "40, 20"
    assert at.dataframe[0].value.set_index("criterion").loc["misclassification", "gain"] == 0.0


def test_pac_controls_update_chart_and_table():
    at = _page().run()
    at.number_input(key="theory_eps").set_value(0.05).run()
    at.number_input(key="theory_delta").set_value(0.01).run()
    at.number_input(key="theory_nmax").set_value(5).run()
    at.number_input(key="theory_k").set_value(1).run()
    assert not at.exception and not at.error
    wide = at.dataframe[1].value
    assert len(wide) == 5
    assert wide.loc[3, "Conjunctions (3^n)"] == pac_sample_size(3 * np.log(3), 0.05, 0.01)
    assert "1-decision lists" in wide.columns
    spec = _chart(at, "theory_pac")
    assert spec["layout"]["yaxis"]["type"] == "log" and len(spec["data"]) == 4


def test_mdl_calculator_inputs():
    at = _page().run()
    at.number_input(key="theory_mdl_n").set_value(15).run()
    at.number_input(key="theory_mdl_m").set_value(20).run()
    at.slider(key="theory_mdl_delta").set_value(0.1).run()
    assert not at.exception
    bound = mdl_error_bound(0.1, 15, 4 * 21, 20, 0.1)
    assert at.metric[1].value == f"{bound.description_length} bits"
    at.toggle(key="theory_mdl_real").set_value(False).run()       # d binary features: d' = d
    binary = mdl_error_bound(0.1, 15, 4, 20, 0.1)
    assert at.metric[1].value == f"{binary.description_length} bits" != f"{bound.description_length} bits"
    at.toggle(key="theory_mdl_real").set_value(True).run()
    assert at.code[-1].value == bound.arithmetic()
    assert bound.vacuous and at.warning


def _page_with_tree(frame: pd.DataFrame, target: str, node: int = 0):
    """The page with a fully grown tree on ``frame`` in session state, as the Grow page leaves it."""
    ds = Dataset.from_frame(frame, target=target)
    split = ds.split(test_size=0.0, seed=0)
    grower = Grower(split.train).grow()
    at = _page()
    at.session_state[state.DATASET] = ds
    at.session_state[state.DATASET_NAME] = "test"
    at.session_state[state.SPLIT_SETTINGS] = {"test_size": 0.0, "validation_size": 0.0, "seed": 0}
    at.session_state[state.DATA_SPLIT] = split
    at.session_state[state.GROWER] = grower
    at.session_state[state.SELECTED_NODE] = node
    return at.run(), split, grower.tree


def test_current_tree_marked_and_bounded():
    frame = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "z": [0, 1] * 5,
                          "y": ["a", "a", "a", "b", "b", "b", "b", "a", "b", "b"]})
    at, split, tree = _page_with_tree(frame, "y", node=1)
    assert not at.exception and not at.error
    stats = np.asarray(tree.node(1).stats, dtype=float)
    marker = [t for t in _chart(at, "theory_curves")["data"] if t.get("mode") == "markers"][0]
    assert _values(marker["x"]) == pytest.approx([stats[0] / stats.sum()] * 4)
    assert "node 1" in marker["name"]
    assert "theory_p" not in [s.key for s in at.slider]
    wrong = np.mean(np.asarray(tree.predict(split.train.X)).astype(str) != np.asarray(split.train.classes)[split.train.y])
    expected = mdl_error_bound(float(wrong), tree.n_nodes, 2 * (10 + 1), 10)   # two real-valued features, m = 10
    assert at.metric[3].value == f"{expected.bound:.4f}"
    assert any("Grow page's tree" in c.value for c in at.caption)


def test_multiclass_tree_is_not_marked():
    frame = pd.DataFrame({"x": list(range(9)), "y": ["a", "b", "c"] * 3})
    at, _, tree = _page_with_tree(frame, "y")
    assert not at.exception and not at.error
    assert at.metric and tree.n_nodes > 1  # the MDL bound works for any number of classes
    assert any("two classes" in i.value and "3 classes" in i.value for i in at.info)


def test_registered_in_app_frame():
    source = (ROOT / "app.py").read_text()
    assert '"pages/theory.py"' in source


def test_regression_tree_and_stale_node_selection():
    frame = pd.DataFrame({"x": [1.0, 2, 3, 4, 5, 6], "y": [1.0, 1.5, 2.0, 8.0, 9.0, 9.5]})
    at, _, tree = _page_with_tree(frame, "y", node=999)  # a node id from an older, bigger tree
    assert not at.exception and not at.error and tree.schema.task == "regression"
    infos = " ".join(i.value for i in at.info)
    assert "the current tree is a regression tree, so no node is marked" in infos
    assert "0-1 error of a classifier" in infos
    assert not at.metric
