"""AppTest of a model opened with the CSV it was trained on (issue 36): its columns found under the
library's names or by position, its classes read as the data's labels (with a warning and a button when
the data disagree), an ONNX tree's inner nodes counted from the rows."""

from __future__ import annotations

import numpy as np
import pytest

from ui import state
from ui.data.panels import W_UPLOAD
from ui.model.classes import W_CLASS, W_USE_BEST
from ui.model.opening import W_MODEL_UPLOAD
from tests.app.model.conftest import ok
from tests.model_files import FILES, TARGET, breast_csv_frame, model_file

DATA, EVAL, GROW, ENSEMBLES = "pages/data.py", "pages/evaluate.py", "pages/grow.py", "pages/ensembles.py"


def opened(app_test, name: str, labels: str = "text"):
    """The Data page with the breast-cancer CSV (target last) uploaded and the model file ``name`` open."""
    at = app_test(DATA)
    csv = breast_csv_frame(labels).to_csv(index=False).encode()
    at.file_uploader(key=W_UPLOAD).set_value(("breast.csv", csv, "text/csv")).run()
    data, _, _ = model_file(name)
    at.file_uploader(key=W_MODEL_UPLOAD).set_value((name, data, "application/octet-stream")).run()
    ok(at)
    assert at.session_state[state.DATASET].target == TARGET
    return at


def texts(elements):
    return [e.value.replace("\\", "") for e in elements]


def library_accuracy(name: str) -> float:
    _, lib, X = model_file(name)
    return float(np.mean(lib.predict(X) == breast_csv_frame("codes")[TARGET].to_numpy()))


def evaluate_accuracy(at) -> float:
    at.switch_page(EVAL)
    at.run()
    ok(at)
    return float(at.dataframe[0].value.loc["accuracy"].iloc[0])


def test_swapped_classes_are_warned_about_and_the_button_reads_them_as_the_model_was_trained(app_test):
    at = opened(app_test, "xgb_frame_json")
    assert any("has all 30 of the model's columns" in s for s in texts(at.success))
    assert at.selectbox(key=f"{W_CLASS}0").value == "benign"          # the sorted labels, as LabelEncoder
    warning = [w for w in texts(at.warning) if "agree" in w]
    acc = library_accuracy("xgb_frame_json")
    assert len(warning) == 1 and "0 → malignant, 1 → benign" in warning[0]
    assert f"agree with {1 - acc:.1%}" in warning[0] and f"they agree with {acc:.1%}" in warning[0]
    at.button(key=W_USE_BEST).click().run()
    ok(at)
    assert at.selectbox(key=f"{W_CLASS}0").value == "malignant"
    assert at.selectbox(key=f"{W_CLASS}1").value == "benign"
    assert not [w for w in texts(at.warning) if "agree" in w]
    assert evaluate_accuracy(at) == library_accuracy("xgb_frame_json")
    at.switch_page(ENSEMBLES)
    at.run()
    ok(at)                                   # row 0 is malignant, and so is the waterfall's answer
    assert any("The model predicts **malignant**" in m for m in texts(at.markdown))
    answer = next(d.value for d in at.dataframe if "probability" in d.value.columns).set_index("class")
    _, lib, X = model_file("xgb_frame_json")
    assert abs(answer.loc["malignant", "probability"] - lib.predict_proba(X.iloc[[0]])[0, 0]) < 1e-6


@pytest.mark.parametrize("name", [n for n in FILES if n != "xgb_frame_ubj"])
def test_every_librarys_default_model_scores_on_its_csv_as_the_library_does(app_test, name):
    at = opened(app_test, name)
    assert any("has all 30 of the model's columns" in s for s in texts(at.success))
    if [w for w in texts(at.warning) if "agree" in w]:
        at.button(key=W_USE_BEST).click().run()
        ok(at)
    _, lib, X = model_file(name)
    truth = breast_csv_frame("text" if lib.classes_.dtype.kind in "OU" else "codes")[TARGET].to_numpy()
    assert evaluate_accuracy(at) == float(np.mean(lib.predict(X) == truth))


def test_choosing_a_label_another_class_had_swaps_the_two(app_test):
    at = opened(app_test, "xgb_frame_json")
    at.selectbox(key=f"{W_CLASS}1").set_value("benign").run()
    ok(at)
    assert (at.selectbox(key=f"{W_CLASS}0").value, at.selectbox(key=f"{W_CLASS}1").value) == ("malignant", "benign")
    assert not [w for w in texts(at.warning) if "agree" in w]


def test_lightgbm_names_and_generic_names_match_the_csv_and_say_how(app_test):
    at = opened(app_test, "lgb_frame_text")
    assert any("under the names its library gave them" in s for s in texts(at.success))
    assert not [w for w in texts(at.warning) if "agree" in w]   # trained on the labels: 0 = benign is right
    assert at.selectbox(key=f"{W_CLASS}0").value == "benign"
    _, lib, X = model_file("lgb_frame_text")
    assert evaluate_accuracy(at) == float(np.mean(lib.predict(X) == breast_csv_frame()[TARGET].to_numpy()))
    at = opened(app_test, "xgb_array_json", labels="codes")
    assert any("by position (f0, ..., f29)" in s for s in texts(at.success))
    assert at.selectbox(key=f"{W_CLASS}0").value == "0"
    assert evaluate_accuracy(at) == library_accuracy("xgb_array_json")


def test_without_the_csv_an_onnx_trees_inner_node_says_its_shares_are_unknown(model_app):
    data, _, _ = model_file("onnx_tree_array")
    at = model_app(data, "tree.onnx", GROW)
    value = [d.value for d in at.dataframe if "value" in d.value.columns][0]["value"].iloc[0]
    assert value.startswith("not in the file") and "0.514" not in value
    assert any("keeps no row counts" in c for c in texts(at.caption))
    assert not [c for c in at.get("plotly_chart") if "model_class_dist" in c.proto.id]   # no made-up shares


def test_an_onnx_trees_root_shows_the_rows_shares_not_a_mean_of_its_leaves(app_test):
    at = opened(app_test, "onnx_tree_array", labels="codes")
    assert any("no row counts" in c for c in texts(at.caption))
    at.switch_page(GROW)
    at.run()
    ok(at)
    tables = [d.value for d in at.dataframe if "value" in d.value.columns]
    value = tables[0]["value"].iloc[0]
    assert "0 0.373" in value and "1 0.627" in value, value
