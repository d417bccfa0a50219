"""The inspector's gain table in its narrow column (issue 36 item 6): the test, the rules' score and the star
are shown; every column is one click away in "All columns", drawn only while it is open."""

from __future__ import annotations

import json

import pytest

from tests.app.grow.test_page_grow import ok, open_link
from ui.grow import inspector


def _shown(at) -> list[str]:
    """The columns the first (the inspector's) gain table shows."""
    return list(at.dataframe[0].proto.column_order)


@pytest.mark.parametrize("params, shown", [
    ({"data": "play_tennis", "cfg": "alg:id3"}, ["best", "split", "gain"]),
    ({"data": "play_tennis_day", "cfg": "alg:c45"}, ["best", "split", "gain_ratio", "eligible"]),
])
def test_the_inspector_shows_the_test_and_the_score_the_rules_rank_by(params, shown):
    at = open_link(**params)
    ok(at)
    assert _shown(at) == shown
    table = at.dataframe[0].value  # every column's data stays in the table (and in its CSV)
    assert list(table.columns) == ["best", *inspector.TABLE_COLUMNS[1:]]
    assert table.loc[0, "best"] == "★" and table.loc[0, "feature"] == "Outlook"
    config = json.loads(at.dataframe[0].proto.columns)  # the widths add up to less than the 346 px column
    assert sum(config[c]["width"] for c in shown) <= 340, config
    # "All columns": closed, so its full table is not drawn
    assert [e.label for e in at.expander if "All columns" in e.label]
    assert len([d for d in at.dataframe if list(d.value.columns)[:3] == ["best", "feature", "split"]]) == 1


def _with_all_columns_open(**params) -> list:
    """The gain tables of the Grow page opened with ``params`` and "All columns" open (the inspector's, the full)."""
    at = open_link(**params)
    at.session_state[inspector.W_ALL_COLUMNS] = True
    at.run()
    ok(at)
    return [d for d in at.dataframe if list(d.value.columns)[:3] == ["best", "feature", "split"]]


def test_all_columns_when_open_shows_every_column_with_readable_headers():
    full = _with_all_columns_open(data="play_tennis", cfg="alg:id3")
    assert len(full) == 2 and list(full[1].proto.column_order) == list(full[1].value.columns)  # every column
    config = json.loads(full[1].proto.columns)
    assert config["impurity_children"]["label"] == "Children's impurity"
    assert "`impurity_children` in the CSV" in config["impurity_children"]["help"]


def test_all_columns_leaves_out_what_a_regression_tree_has_no_value_for():
    """Chi-square and its p-value count classes: on a regression tree they were two empty columns."""
    full = _with_all_columns_open(data="diabetes", step="1")
    shown = list(full[1].proto.column_order)
    assert "chi2" not in shown and "p_value" not in shown
    assert {"split", "gain", "impurity_children", "counts"} <= set(shown)
