"""AppTest of the Rules page with a model open: the member tree's rules and a typed row's path."""

from __future__ import annotations

import pandas as pd

from engine.tree.paths import rules
from ui import state
from ui.model.common import W_MEMBER
from tests.app.model.conftest import ok

RULES = "pages/rules.py"


def test_rules_of_member_3_and_the_path_of_a_typed_row(model_app, xgb_iris):
    at = model_app(xgb_iris, "iris.json", RULES)
    ok(at)
    at.number_input(key=W_MEMBER).set_value(3).run()
    ok(at)
    model = at.session_state[state.MODEL]
    tree = model.trees[3]
    tables = [d.value for d in at.dataframe]
    table = next(t for t in tables if "if" in t.columns)
    assert [f"IF {c} THEN {p}" for c, p in zip(table["if"], table["then"])] == [r.text() for r in rules(tree)]
    assert list(table.columns)[:2] == ["leaf", "then"]  # the THEN is never the part cut at the edge
    # type a row with a small petal: its path is the tree's own
    at.number_input(key="_w_model_rules_q_2").set_value(1.0).run()
    at.number_input(key="_w_model_rules_q_3").set_value(0.2).run()
    ok(at)
    row = pd.DataFrame([{n: at.number_input(key=f"_w_model_rules_q_{j}").value
                         for j, n in enumerate(model.feature_names)}])
    path = next(t for t in [d.value for d in at.dataframe] if "test passed" in t.columns)
    assert list(path["node"]) == [f"#{nid}" for nid, _ in tree.decision_path(row)]


def test_the_forest_member_rules_count_rows_of_the_data(forest_app, iris_forest):
    at = forest_app(RULES)
    ok(at)
    table = next(d.value for d in at.dataframe if "if" in d.value.columns)
    assert table["rows"].sum() == 150  # every row of iris reaches one leaf of the refitted tree
