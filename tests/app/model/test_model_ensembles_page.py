"""AppTest of the Ensembles page with a model open: a boosted model's waterfall, a forest's votes."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

from engine.data.dataset import load_sample
from ui import state
from ui.model.common import W_ROW, W_ROW_SOURCE
from ui.model.figures import grouped_steps
from tests.app.model.conftest import ok

ENS = "pages/ensembles.py"


def values(arr) -> np.ndarray:
    if isinstance(arr, dict) and "bdata" in arr:  # plotly's base64 typed arrays
        return np.frombuffer(base64.b64decode(arr["bdata"]), dtype=np.dtype(arr["dtype"]))
    return np.asarray(arr, dtype=float)


def spec(at, key):
    for chart in at.get("plotly_chart"):
        if key in chart.proto.id:
            return json.loads(chart.proto.spec)
    raise AssertionError(f"no chart {key}")


def test_a_boosted_models_waterfall_adds_up_to_its_margin_for_a_data_row(model_app, xgb_iris):
    at = model_app(xgb_iris, "iris.json", ENS, sample="iris")
    ok(at)
    assert at.session_state[W_ROW_SOURCE] == "data"
    at.number_input(key=W_ROW).set_value(120).run()
    ok(at)
    model = at.session_state[state.MODEL]
    ds = load_sample("iris")
    row = ds.frame.iloc[[120]][list(model.feature_names)]
    fall = spec(at, "model_waterfall")["data"][0]
    output = at.selectbox(key="_w_model_output").value
    k = list(model.classes).index(output)
    margin = model.decision_function(row)[0, k]
    assert fall["type"] == "waterfall" and fall["measure"][-1] == "total"
    ys = fall["y"]
    assert np.isclose(sum(ys[:-1]), margin) and np.isclose(ys[-1], margin)
    assert len(ys) == 1 + 5 + 1  # base score, one tree a round for this class, the margin
    probs = [d.value for d in at.dataframe][0]
    assert np.allclose(probs["probability"], model.predict_proba(row)[0])


def test_a_typed_row_explains_a_regression_model_without_data(model_app, xgb_diabetes):
    at = model_app(xgb_diabetes, "diabetes.ubj", ENS)
    ok(at)
    fall = spec(at, "model_waterfall")["data"][0]
    model = at.session_state[state.MODEL]
    assert len(fall["y"]) == model.n_trees + 2
    at.number_input(key="_w_model_q_2").set_value(0.1).run()  # bmi
    ok(at)
    fall2 = spec(at, "model_waterfall")["data"][0]
    assert fall2["y"] != fall["y"]


def test_a_lightgbm_random_forest_averages_its_trees_in_the_waterfall(model_app, lgb_breast):
    at = model_app(lgb_breast, "breast.txt", ENS, sample="breast_cancer")
    ok(at)
    model = at.session_state[state.MODEL]
    row = load_sample("breast_cancer").frame.iloc[[0]][list(model.feature_names)]
    ys = spec(at, "model_waterfall")["data"][0]["y"]
    assert np.isclose(ys[-1], model.decision_function(row)[0, 0])


@pytest.mark.parametrize("n", [5, 40, 41, 1000])
def test_grouped_steps_keep_the_running_sum(n):
    import pandas as pd
    rng = np.random.default_rng(n)
    contrib = rng.normal(size=n)
    ends = 0.5 + np.cumsum(contrib)
    steps = pd.DataFrame({"step": ["base score"] + [f"tree {t}" for t in range(n)],
                          "start": np.r_[0.0, 0.5, ends[:-1]], "contribution": np.r_[0.5, contrib],
                          "end": np.r_[0.5, ends]})
    shown = grouped_steps(steps)
    assert len(shown) <= 41
    assert np.isclose(shown["contribution"].sum(), ends[-1])
    assert np.isclose(shown["end"].iloc[-1], ends[-1])


def test_a_soft_voting_forest_shows_each_members_vote_and_class_distribution(forest_app, iris_forest):
    at = forest_app(ENS)
    ok(at)
    at.number_input(key=W_ROW).set_value(70).run()
    ok(at)
    vote = spec(at, "model_vote_chart")
    dist = spec(at, "model_member_dist")["data"]
    assert vote["data"] and len(dist) == 3  # one trace per class
    row = load_sample("iris").frame.iloc[[70]][list(iris_forest.feature_names)]
    shares = np.array([iris_forest.trees[m].predict_proba(row)[0] for m in range(3)])
    for k, trace in enumerate(dist):
        assert np.allclose(values(trace["y"]), shares[:, k])
    tally = [d.value for d in at.dataframe if "share" in d.value.columns][0]
    assert np.allclose(tally["share"], iris_forest.predict_proba(row)[0])
