"""AppTest of the decision regions of an open model (Ensembles page, "Decision regions" tab)."""

from __future__ import annotations

import base64
import json

import numpy as np
import pandas as pd

from ui import state
from ui.model.breakdown import W_TAB
from tests.app.model.conftest import ok

ENS = "pages/ensembles.py"


def values(arr) -> np.ndarray:
    if isinstance(arr, dict) and "bdata" in arr:
        flat = np.frombuffer(base64.b64decode(arr["bdata"]), dtype=np.dtype(arr["dtype"]))
        return flat.reshape([int(s) for s in str(arr["shape"]).split(",")]) if "shape" in arr else flat
    return np.asarray(arr, dtype=float)


def heatmap(at):
    for chart in at.get("plotly_chart"):
        if "model_regions" in chart.proto.id:
            return next(t for t in json.loads(chart.proto.spec)["data"] if t["type"] == "heatmap")
    raise AssertionError("no region map")


def regions_tab(at):
    at.session_state[W_TAB] = "Decision regions"
    at.run()
    ok(at)
    return at


def test_the_map_is_the_models_answer_with_the_other_features_held(model_app, xgb_iris):
    at = regions_tab(model_app(xgb_iris, "iris.json", ENS))  # no iris data: the range comes from the thresholds
    at.selectbox(key="_w_model_reg_x").set_value("petal_length").run()
    at.selectbox(key="_w_model_reg_y").set_value("petal_width").run()
    ok(at)
    model = at.session_state[state.MODEL]
    held = {n: at.number_input(key=f"_w_model_reg_q_{j}").value for j, n in enumerate(model.feature_names)}
    h = heatmap(at)
    gx, gy, z = values(h["x"]), values(h["y"]), values(h["z"])
    rows = pd.DataFrame({**{k: [v] * 3 for k, v in held.items()},
                         "petal_length": gx[[0, 40, 79]], "petal_width": gy[[0, 40, 79]]})
    expected = np.argmax(model.predict_proba(rows), axis=1)
    assert list(np.floor(z[[0, 40, 79], [0, 40, 79]]).astype(int)) == list(expected)
    # holding sepal_width elsewhere changes nothing the trees do not test, but the held row moves the star
    at.number_input(key="_w_model_reg_q_0").set_value(7.5).run()
    ok(at)


def test_with_matching_data_the_rows_are_drawn(model_app, xgb_iris):
    at = regions_tab(model_app(xgb_iris, "iris.json", ENS, sample="iris"))
    for chart in at.get("plotly_chart"):
        if "model_regions" in chart.proto.id:
            traces = json.loads(chart.proto.spec)["data"]
    names = {t.get("name") for t in traces if t["type"] == "scatter"}
    assert {"setosa", "versicolor", "virginica", "held row"} <= names  # the data's names for classes 0, 1, 2
