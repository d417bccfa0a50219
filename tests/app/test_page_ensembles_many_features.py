"""The Ensembles page's query point on a data set of 999 features (issue 40, finding 7): one table per kind
of feature (the features the members test first), not a number box per column, and a value typed in the
table is the row the members vote on."""

from __future__ import annotations

import io

import pandas as pd

import engine
from tests.app.grow.test_grow_many_columns import wide_csv
from tests.app.test_page_ensembles import _ok, _open, _train
from ui.ensembles import train as training


def test_the_query_point_of_many_features_is_one_table_per_kind():
    ds = engine.Dataset.from_frame(pd.read_csv(io.BytesIO(wide_csv())), target="y")
    at, split = _open(ds)
    _train(at, "bagging", **{f"{training.W_M}_bagging": 3})
    at.segmented_control(key="_w_ens_source").set_value("query").run()
    _ok(at)
    assert len(at.number_input) < 10  # the settings and the member picker, no box per column
    tables = {e.key.split("_")[-2]: e for e in at.data_editor}
    assert set(tables) == {"num", "cat"}
    num = tables["num"].value
    assert len(num) == 997 and num["feature"].iloc[0] == "x5" and num["splits"].iloc[0] >= 3
    for value, expected in ((5.0, "a"), (-5.0, "b")):
        at.session_state[tables["num"].key] = {"edited_rows": {0: {"value": value}}, "added_rows": [],
                                               "deleted_rows": []}
        at.run()
        _ok(at)
        row = [d.value for d in at.dataframe if "x5" in d.value.columns][0]
        assert row["x5"].iloc[0] == value and row.shape[1] == 999
        tally = [d.value for d in at.dataframe if "share" in d.value.columns][0]
        assert tally.set_index(tally.columns[0])["share"].idxmax() == expected
