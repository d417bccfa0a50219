"""AppTest of "Why this prediction" for a model opened from a file (Ensembles page, ui/why.py)."""

from __future__ import annotations

import json

import numpy as np

import engine
from ui import state
from ui.model.breakdown import W_TAB
from tests.app.model.conftest import ok
from tests.app.test_page_why import _bars, _chart


def test_open_model_explains_the_margin(model_app, xgb_iris):
    at = model_app(xgb_iris, "iris.json", "pages/ensembles.py", sample="iris")
    at.session_state[W_TAB] = "Why this prediction"
    at.run()
    ok(at)
    model = at.session_state[state.MODEL]
    assert any("margin" in m.value for m in at.markdown)
    bars = _bars(_chart(at, "model_why_chart"))
    assert "SHAP value (TreeSHAP)" in bars
    at.button(key="_w_model_why_summary").click().run()
    ok(at)
    _chart(at, "model_why_summary_chart")
    assert model.kind == "additive"




def test_open_model_without_data_explains_a_typed_row(model_app, xgb_diabetes):
    at = model_app(xgb_diabetes, "diabetes.ubj", "pages/ensembles.py")
    at.session_state[W_TAB] = "Why this prediction"
    at.run()
    ok(at)
    model = at.session_state[state.MODEL]
    bars = _bars(_chart(at, "model_why_chart"))
    assert "path contribution (Saabas)" in bars
    assert not [b for b in at.button if b.key == "_w_model_why_summary"] or model is not None
