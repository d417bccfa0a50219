"""Hardening: a model whose feature names are links and tags, with a data set of those columns whose class
labels are too, puts no user text into any page's Plotly figure as markup and shows no error."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

from tests.app.hardening.test_hardening_plotly import CLASSES, unescaped
from ui.model.breakdown import W_TAB

NAMES = ['<a href="http://127.0.0.1:8799/f1">f1</a>', "<b>hb1</b> x", "<img src=x onerror=alert(3)> y"]


@pytest.fixture(scope="module")
def hostile_model(tmp_path_factory):
    """An XGBoost model of three classes on three features, its feature names made hostile in the JSON
    (XGBoost itself refuses '<' in names; a file can hold anything), and a CSV of the same columns."""
    xgb = pytest.importorskip("xgboost")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 3))
    y = np.where(X[:, 0] > 0.3, 0, np.where(X[:, 1] > 0, 1, 2))
    path = tmp_path_factory.mktemp("hostile") / "m.json"
    xgb.XGBClassifier(n_estimators=3, max_depth=2, random_state=0).fit(
        pd.DataFrame(X, columns=["a", "b", "c"]), y).save_model(path)
    doc = json.loads(path.read_text())
    doc["learner"]["feature_names"] = NAMES
    frame = pd.DataFrame(X.round(3), columns=NAMES)
    frame["<sup>tg</sup> %{y} $y$"] = np.asarray(sorted(CLASSES), dtype=object)[y]
    buf = io.StringIO()
    frame.to_csv(buf, index=False)
    return json.dumps(doc).encode(), buf.getvalue().encode()


def test_no_page_draws_the_models_names_as_markup(app_test, hostile_model):
    from ui.data.panels import W_UPLOAD
    from ui.model.opening import W_MODEL_UPLOAD

    model_bytes, csv = hostile_model
    at = app_test("pages/data.py")
    at.file_uploader(key=W_UPLOAD).set_value(("h.csv", csv, "text/csv")).run()
    at.file_uploader(key=W_MODEL_UPLOAD).set_value(("m.json", model_bytes, "application/json")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("all 3 of the model" in s.value for s in at.success)
    bad, seen = [], 0
    for page, tab in [("pages/grow.py", None), ("pages/ensembles.py", None), ("pages/ensembles.py", "Decision regions"),
                      ("pages/rules.py", None), ("pages/evaluate.py", None)]:
        at.switch_page(page)
        if tab:
            at.session_state[W_TAB] = tab
        at.run()
        assert not at.exception, (page, [e.value for e in at.exception])
        assert not at.error, (page, [e.value for e in at.error])
        for chart in at.get("plotly_chart"):
            seen += 1
            bad += [f"{page}: {b}" for b in unescaped(json.loads(chart.proto.spec))]
    assert seen >= 6
    assert bad == []


@pytest.mark.parametrize("location", [".streamlit/config.toml", "no/such/file.toml"])
def test_an_onnx_model_with_external_data_shows_one_sentence(app_test, location):
    """Issue 40, finding 1: the file names a file of the server (or one that does not exist) as the home of
    its thresholds; the page shows the refusal as st.error, opens no model and shows no exception."""
    pytest.importorskip("onnx")
    from tests.hardening.hostile_models import onnx_external
    from ui.model.opening import W_MODEL_UPLOAD
    from ui.widgets import md_escape

    at = app_test("pages/data.py")
    at.file_uploader(key=W_MODEL_UPLOAD).set_value(("m.onnx", onnx_external(location), "application/octet-stream"))
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert [e.value for e in at.error] == [md_escape(
        "The ONNX model keeps some of its numbers in another file (external data); the explorer reads only what is "
        "inside the model file, so it was not opened.")]
    assert not any("Opened the model" in s.value for s in at.success)
