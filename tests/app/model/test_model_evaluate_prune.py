"""AppTest of the Evaluate and Prune pages with a model open (they need the model's columns in the data)."""

from __future__ import annotations

import json

import numpy as np

from engine.data.dataset import load_sample
from engine.prune.cost_complexity import ccp_path
from engine.tree.surgery import refit
from ui import state
from ui.model.scoring import W_PRUNE
from tests.app.model.conftest import ok

EVAL, PRUNE = "pages/evaluate.py", "pages/prune.py"


def test_evaluate_scores_the_xgboost_model_on_the_iris_rows(model_app, xgb_iris):
    at = model_app(xgb_iris, "iris.json", EVAL, sample="iris")
    ok(at)
    model = at.session_state[state.MODEL]
    ds = load_sample("iris")
    pred = np.argmax(model.predict_proba(ds.frame[list(model.feature_names)]), axis=1)
    truth = np.array([ds.classes.index(c) for c in ds.frame[ds.target].astype(str)])
    table = at.dataframe[0].value
    assert np.isclose(table.loc["accuracy"].iloc[0], np.mean(pred == truth))
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart") if "model_eval_all" in c.proto.id]
    assert charts[0]["data"][0]["x"] == list(ds.classes)  # the confusion matrix names the data's classes


def test_evaluate_without_the_models_columns_says_what_to_do(model_app, xgb_iris):
    at = model_app(xgb_iris, "iris.json", EVAL)
    ok(at)
    assert any("open a CSV" in i.value for i in at.info)


def test_a_boosted_tree_is_not_pruned_alone(model_app, xgb_iris):
    at = model_app(xgb_iris, "iris.json", PRUNE, sample="iris")
    ok(at)
    assert any("summed" in i.value for i in at.info)


def test_pruning_a_forest_member_on_the_iris_rows(forest_app, iris_forest):
    at = forest_app(PRUNE)
    ok(at)
    leaves = [m.value for m in at.metric if m.label == "Leaves"][0]
    assert int(leaves) <= iris_forest.trees[0].n_leaves
    assert any("prune" in c.proto.id for c in at.get("plotly_chart"))
    at.session_state[W_PRUNE] = "cost_complexity"
    at.run()
    ok(at)
    ds = load_sample("iris")
    tree = refit(iris_forest.trees[0], iris_forest.encode(ds.frame), ds.frame[ds.target].astype(str).to_numpy(),
                 keep_predictions=True)
    at.select_slider(key="_w_model_alpha").set_value(float(ccp_path(tree).distinct_alphas[-1])).run()
    ok(at)
    assert int([m.value for m in at.metric if m.label == "Leaves"][0]) == 1


def test_a_target_that_is_not_the_models_gets_one_sentence_on_every_data_view(model_app, xgb_iris):
    from ui.data.panels import W_TARGET

    at = model_app(xgb_iris, "iris.json", sample="iris")
    at.selectbox(key=W_TARGET).set_value("petal_width")  # a form: the value is sent with its button
    [b for b in at.get("form_submit_button") if b.label == "Apply target"][0].click().run()
    assert at.session_state[state.DATASET].target == "petal_width"
    for page in (EVAL, "pages/grow.py"):
        at.switch_page(page)
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        shown = [e.value for e in at.error] + [c.value for c in at.caption]
        assert any("not the model" in s and "petal" in s for s in shown), shown
