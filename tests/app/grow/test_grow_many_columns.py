"""Grow's query point on a data set of many columns (issue 40, finding 7): one table per kind of feature,
not a box per column, the tree's tested features first; an edit reaches the prediction when Predict is
pressed, a label that is not the feature's keeps its value with a warning, and copying a training row in
starts the table again from that row.

The CSV has 997 numeric columns, two categorical ones and the target (1,000 columns: the most a data set
may have); the class is ``a`` where x5 > 0, so the grown tree tests x5 only.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from tests.app.grow.test_page_grow import GROW, click, grower, ok, open_tab
from ui.data import panels
from ui.grow import query as q


def wide_csv(n_numeric: int = 997, rows: int = 60) -> bytes:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(rows, n_numeric)).round(3), columns=[f"x{i}" for i in range(n_numeric)])
    frame["colour"] = rng.choice(["red", "blue"], size=rows)
    frame["size"] = rng.choice(["S", "M", "L"], size=rows)
    frame["y"] = np.where(frame["x5"] > 0, "a", "b")
    buf = io.StringIO()
    frame.to_csv(buf, index=False)
    return buf.getvalue().encode()


@pytest.fixture(scope="module")
def csv_bytes() -> bytes:
    return wide_csv()


def query_tab(app_test, data: bytes):
    at = app_test("pages/data.py")
    at.file_uploader(key=panels.W_UPLOAD).set_value(("wide.csv", data, "text/csv")).run()
    ok(at)
    at.switch_page(GROW)
    at.run()
    ok(at)
    click(at, "_w_grow_grow")
    ok(at)
    return open_tab(at, "Query point")


def editors(at) -> dict:
    """``{"num": editor, "cat": editor}``: the query form's tables, by their key's kind tag."""
    out = {e.key.split("_")[-2]: e for e in at.data_editor if e.key and e.key.startswith(q.W_TABLE)}
    assert set(out) == {"num", "cat"}, [e.key for e in at.data_editor]
    return out


def predict(at, edits: dict) -> str:
    for tag, changes in edits.items():
        at.session_state[editors(at)[tag].key] = {"edited_rows": {p: {"value": v} for p, v in changes.items()},
                                                  "added_rows": [], "deleted_rows": []}
    at.get("form_submit_button")[0].click().run()
    ok(at)
    return [m.value for m in at.metric if m.label == "Prediction"][0]


def test_the_query_form_is_two_tables_and_an_edit_moves_the_prediction(app_test, csv_bytes):
    at = query_tab(app_test, csv_bytes)
    tree = grower(at).tree
    assert {n.split.feature for n in tree.internal_nodes} == {"x5"}
    assert len(at.number_input) < 20  # the settings and the training row picker, no box per column
    tables = editors(at)
    num, cat = tables["num"].value, tables["cat"].value
    assert len(num) == 997 and len(cat) == 2
    assert num["feature"].iloc[0] == "x5" and num["splits"].iloc[0] >= 1
    assert list(cat["feature"]) == ["colour", "size"]
    assert predict(at, {"num": {0: 5.0}}) == "a"
    assert at.session_state[q.QUERY][1]["x5"] == 5.0
    assert predict(at, {"num": {0: -5.0}}) == "b"
    path = [c.value for c in at.code if "node 0:" in c.value][0]
    assert "x5" in path


def test_a_label_that_is_not_the_features_keeps_its_value(app_test, csv_bytes):
    at = query_tab(app_test, csv_bytes)
    first = grower(at).dataset.frame.iloc[0]
    predict(at, {"cat": {0: "purple", 1: "M"}, "num": {1: None}})
    values = at.session_state[q.QUERY][1]
    assert values["colour"] == first["colour"] and values["size"] == "M"
    assert values[editors(at)["num"].value["feature"].iloc[1]] is None  # an emptied cell is a missing value
    assert any("Not one of the feature" in w.value and "colour" in w.value for w in at.warning)


def test_copying_a_training_row_restarts_the_table_from_it(app_test, csv_bytes):
    at = query_tab(app_test, csv_bytes)
    predict(at, {"num": {0: 5.0}})
    at.number_input(key=q.W_ROW).set_value(7).run()
    at.button(key="_w_grow_q_fill").click().run()
    ok(at)
    ds = grower(at).dataset
    table = editors(at)["num"].value.set_index("feature")["value"]
    assert table["x5"] == pytest.approx(float(ds.frame["x5"].iloc[7]))
    assert table["x900"] == pytest.approx(float(ds.frame["x900"].iloc[7]))
    expected = grower(at).tree.predict(ds.frame.iloc[[7]])[0]
    assert predict(at, {}) == expected
