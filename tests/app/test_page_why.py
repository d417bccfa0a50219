"""AppTest of "Why this prediction" (ui/why.py) on the Grow page, the Ensembles page and an open model file:
path contributions beside SHAP values for one row (the numbers are the engine's), the disagreement note, the
summary over the data (mean |SHAP| beside the split importances), hostile names escaped."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import engine
from ui import state, why
from tests.app.model.conftest import ok

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def _values(arr) -> np.ndarray:
    if isinstance(arr, dict) and "bdata" in arr:
        return np.frombuffer(base64.b64decode(arr["bdata"]), dtype=np.dtype(arr["dtype"]))
    return np.asarray(arr, dtype=float)


def _chart(at, key: str) -> dict:
    found = [json.loads(c.proto.spec) for c in at.get("plotly_chart") if key in (c.proto.id or "")]
    assert found, f"no chart {key}"
    return found[0]


def _bars(spec) -> dict:
    """trace name -> {feature label: value}"""
    return {t["name"]: dict(zip(t["y"], _values(t["x"]))) for t in spec["data"]}


def _link(**params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=240)
    at.query_params.update(params)
    at.switch_page("pages/grow.py")
    return at.run()


def test_grow_page_explains_a_training_row_and_the_query_point():
    at = _link(data="iris", cfg="alg:cart")
    at.button(key="_w_grow_grow").click().run()
    at.session_state["_w_grow_tab"] = "Why this prediction"
    at.run()
    ok(at)
    at.number_input(key=why.W_GROW_ROW).set_value(5).run()
    ok(at)
    tree = at.session_state[state.GROWER].tree
    assert tree.n_leaves > 2
    train = at.session_state[state.GROWER].dataset
    row = train.frame.iloc[[5]]
    out = at.selectbox(key="_w_grow_why_output")
    assert out.value == tree.predict(row)[0]                         # the predicted class is explained first
    r = engine.explain_row(tree, row, out.value)
    bars = _bars(_chart(at, "grow_why_chart"))
    shap = bars["SHAP value (TreeSHAP)"]
    for _, line in r.table.iterrows():
        if line["feature"] in shap:
            assert shap[line["feature"]] == pytest.approx(line["SHAP"], abs=1e-9)
    assert any("mean answer" in m.value and f"{r.raw:.4g}" in m.value for m in at.markdown)
    assert any("Path contributions" in m.value and "SHAP values" in m.value for m in at.markdown)
    # a query point with a missing value: explained instead of the training row, and it still adds up
    from ui.grow import query
    values = {"sepal_length": 6.0, "sepal_width": 3.0, "petal_length": None, "petal_width": 1.6}
    at.session_state[query.QUERY] = (at.session_state[state.DATA_VERSION], values)
    at.run()
    ok(at)
    assert any("the query point" in c.value for c in at.caption)
    qrow = query.query_frame(values, train)
    out = at.selectbox(key="_w_grow_why_output").value
    q = engine.explain_row(tree, qrow, out)
    k = list(tree.schema.classes).index(out)
    assert q.table["SHAP"].sum() + q.expected == pytest.approx(tree.predict_proba(qrow)[0, k])
    assert any(f"{q.raw:.4g}" in m.value for m in at.markdown)
    at.session_state[query.QUERY] = None
    at.run()
    # the summary is computed on request
    at.button(key="_w_grow_why_summary").click().run()
    ok(at)
    spec = _chart(at, "grow_why_summary_chart")
    assert {t["name"] for t in spec["data"]} == {"mean |SHAP| (share)", "split importance (impurity decrease)"}
    assert any("Mean |SHAP| over all" in c.value for c in at.caption)
    # both charts carry their text alternative: a "Chart as a table" expander with the numbers (ui.charts.show_chart)
    for key in ("grow_why_chart", "grow_why_summary_chart"):
        at.session_state[f"_w_table_{key}"] = True  # the expander opened
    at.run()
    ok(at)
    tables = [t for t in at.dataframe if "SHAP" in " ".join(map(str, t.value.columns))]
    assert len(tables) >= 2, [list(t.value.columns) for t in at.dataframe]


def _grow_upload(name: str, data: bytes) -> AppTest:
    """The Grow page on an uploaded CSV, grown to the end, on the "Why this prediction" tab."""
    from ui.data import panels
    at = AppTest.from_file(APP, default_timeout=240)
    at.run()
    at.switch_page("pages/data.py")
    at.run()
    at.file_uploader(key=panels.W_UPLOAD).set_value((name, data, "text/csv")).run()
    at.switch_page("pages/grow.py")
    at.run()
    at.button(key="_w_grow_grow").click().run()
    at.session_state["_w_grow_tab"] = "Why this prediction"
    return at.run()


def test_grow_page_shows_where_the_two_disagree():
    # the user guide's example: iris, CART on all 150 rows, row 100 (virginica)
    at = _link(data="iris", cfg="alg:cart", split="0,0,0", step="100")      # the link grows it to the end
    at.session_state["_w_grow_tab"] = "Why this prediction"
    at.run()
    assert len(at.session_state[state.GROWER].dataset) == 150 and at.session_state[state.GROWER].done
    at.number_input(key=why.W_GROW_ROW).set_value(100).run()
    ok(at)
    assert any("they disagree" in i.value and "petal\\_width" in i.value for i in at.info), [i.value for i in at.info]
    at.number_input(key=why.W_GROW_ROW).set_value(0).run()
    ok(at)
    assert not at.info and any("iris" in c.value for c in at.caption)      # agreement: the bundled example


def test_ensembles_page_explains_the_vote_shares(app_test):
    from tests.app.test_page_ensembles import _open, _train, _tab
    at, split = _open(engine.load_sample("titanic_small"))
    _train(at, "random_forest")
    ens = at.session_state["_ens_result"]["ensemble"] if "_ens_result" in at.session_state else None
    at = _tab(at, "random_forest", "Why this prediction")
    ok(at)
    bars = _bars(_chart(at, "ens_why_chart"))
    assert set(bars) == {"path contribution (Saabas)", "SHAP value (TreeSHAP)"}
    assert any("vote share" in c.value for c in at.caption)
    at.button(key="_w_ens_why_summary").click().run()
    ok(at)
    _chart(at, "ens_why_summary_chart")


def test_hostile_feature_names_are_escaped_in_the_explanation(app_test):
    import pandas as pd
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"<b>x</b> $y$": rng.normal(size=60), "[a](http://evil)": rng.normal(size=60)})
    frame["t"] = np.where(frame.iloc[:, 0] + frame.iloc[:, 1] > 0, "p", "q")
    at = _grow_upload("evil.csv", frame.to_csv(index=False).encode())
    assert at.session_state[state.GROWER].tree.n_leaves > 1
    ok(at)
    spec = _chart(at, "grow_why_chart")
    labels = [y for t in spec["data"] for y in t["y"]]
    assert labels and not any("<b>" in y for y in labels)
    text = " ".join(m.value for m in [*at.markdown, *at.info, *at.caption])
    assert "](http" not in text
