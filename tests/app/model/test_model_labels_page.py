"""AppTest: once the Data page maps an imported model's classes to the data's labels (issue 36, 0 ->
malignant), every page that names a class of the model says the label, never the model's own "0"/"1";
without its CSV an ONNX tree's inner boxes show no shares or weight the file does not hold."""

from __future__ import annotations

import json

from ui.model.classes import W_CLASS, W_USE_BEST
from tests.app.model.conftest import ok
from tests.app.model.test_model_truth_page import opened, texts
from tests.engine.viz.test_tree_figure_unknown import boxes, share_ids
from tests.model_files import model_file

RULES, GROW, PRUNE, ENSEMBLES = "pages/rules.py", "pages/grow.py", "pages/prune.py", "pages/ensembles.py"


def mapped(app_test):
    """The ONNX tree (classes "0"/"1", 0 = malignant) with the malignant/benign CSV, read as it was trained."""
    at = opened(app_test, "onnx_tree_array")
    at.button(key=W_USE_BEST).click().run()
    ok(at)
    assert (at.selectbox(key=f"{W_CLASS}0").value, at.selectbox(key=f"{W_CLASS}1").value) == ("malignant", "benign")
    return at


def go(at, page):
    at.switch_page(page)
    at.run()
    ok(at)
    return at


def charts(at, key: str) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart") if key in c.proto.id]


def hovers(spec: dict) -> list[str]:
    return [hover for _, hover in boxes(spec).values()]


def share_names(spec: dict) -> set[str]:
    return {t["name"] for t in spec["data"] if t.get("type") == "bar" and t.get("name", "").startswith("class ")}


def test_rules_page_names_the_mapped_classes_in_rules_and_path(app_test):
    at = go(mapped(app_test), RULES)
    thens = set(next(d.value for d in at.dataframe if "then" in d.value.columns)["then"])
    assert thens == {"malignant", "benign"}
    path = next(d.value for d in at.dataframe if "test passed" in d.value.columns)["test passed"]
    assert path.iloc[-1] == "leaf: predict malignant"           # row 0 is malignant, and the model says so
    assert any("which holds malignant." in c for c in texts(at.caption))
    (spec,) = charts(at, "model_rules_tree")
    leaf_hovers = [h for h in hovers(spec) if "class = " in h]
    assert leaf_hovers and all("class = malignant" in h or "class = benign" in h for h in leaf_hovers)


def test_grow_diagram_and_inspector_name_the_mapped_classes(app_test):
    at = go(mapped(app_test), GROW)
    (spec,) = charts(at, "model_tree_")
    assert share_names(spec) == {"class malignant", "class benign"}
    hs = hovers(spec)
    assert any("class = malignant" in h for h in hs) and not any("class = 0" in h or "class = 1" in h for h in hs)
    assert any("malignant 212, benign 357" in h for h in hs)        # the root's rows, counted from the CSV
    value = next(d.value for d in at.dataframe if "value" in d.value.columns)["value"].iloc[0]
    assert value.startswith("predicts benign") and "malignant 0.373" in value and "benign 0.627" in value, value
    (dist,) = charts(at, "model_class_dist")
    assert "malignant" in json.dumps(dist) and '"0"' not in json.dumps(dist)


def test_prune_trees_name_the_mapped_classes(app_test):
    at = go(mapped(app_test), PRUNE)
    for key in ("model_prune_before", "model_prune_after"):
        (spec,) = charts(at, key)
        assert share_names(spec) <= {"class malignant", "class benign"} and share_names(spec)
        assert not any("class = 0" in h or "class = 1" in h for h in hovers(spec))


def test_without_the_csv_the_model_keeps_its_own_names_and_inner_boxes_are_neutral(model_app):
    data, _, _ = model_file("onnx_tree_array")
    at = model_app(data, "tree.onnx", GROW)
    ok(at)
    (spec,) = charts(at, "model_tree_")
    drawn = boxes(spec)
    tree_hover = {i: h for i, (_, h) in drawn.items()}
    inner = [i for i, h in tree_hover.items() if "class = " not in h]
    leaves = [i for i in drawn if i not in inner]
    assert inner and leaves and share_names(spec) <= {"class 0", "class 1"}
    for i in inner:
        assert "w=" not in drawn[i][0] and "n=" not in drawn[i][0] and "not in the file" in tree_hover[i]
    assert share_ids(spec) == set(leaves)
    assert not any("cover 0" in t for t in texts(at.text))            # nor a cover the file does not hold
    table = next(d.value for d in at.dataframe if "value" in d.value.columns)
    assert "cover" not in table.columns
    at = go(at, RULES)
    (spec,) = charts(at, "model_rules_tree")
    assert all("w=" not in text and "n=" not in text for text, h in boxes(spec).values() if "class = " not in h)


def test_ensembles_votes_name_the_mapped_classes(app_test):
    at = go(mapped(app_test), ENSEMBLES)
    tally = next(d.value for d in at.dataframe if "class" in d.value.columns and "share" in d.value.columns)
    assert set(tally["class"]) <= {"malignant", "benign"}
    members = next(d.value for d in at.dataframe if "prediction" in d.value.columns)
    assert set(members["prediction"]) <= {"malignant", "benign"}
    assert not [c for c in members.columns if c in ("p(0)", "p(1)")]
