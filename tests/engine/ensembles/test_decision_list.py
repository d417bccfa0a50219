"""Decision lists (DECISION-LIST-LEARNING), literals and k-DT by monomial reduction."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.ensembles import DecisionListLearner, fit_kdt, learn_decision_list, make_literals
from engine.ensembles.decision_list import best_test
from engine.ensembles.literals import literal_matrix, numeric_thresholds
from engine.errors import ConfigError, DataError


def _truth_table(n: int) -> pd.DataFrame:
    rows = list(itertools.product([False, True], repeat=n))
    return pd.DataFrame(rows, columns=[f"x{i}" for i in range(1, n + 1)]).astype(str)


def _concept(frame: pd.DataFrame) -> np.ndarray:
    """A 2-DL: if x1 and x2 then A; elif not x3 then B; elif x4 and not x5 then A; else B."""
    t = {c: frame[c] == "True" for c in frame.columns}
    return np.select([t["x1"] & t["x2"], ~t["x3"], t["x4"] & ~t["x5"]], ["A", "B", "A"], "B")


def test_a_known_2dl_concept_is_reproduced():
    frame = _truth_table(6)
    frame["c"] = _concept(frame)
    ds = engine.Dataset.from_frame(frame, target="c")
    dl = learn_decision_list(ds, k=2)
    assert all(1 <= len(r.test) <= 2 for r in dl.rules)
    # every one of the 64 possible inputs gets the concept's class: the same Boolean function
    assert (dl.predict(frame) == frame["c"].to_numpy()).all()
    # the rows removed by the rules partition the data, each rule's rows all have its class
    rows = np.concatenate([r.rows for r in dl.rules])
    assert sorted(rows.tolist()) == list(range(64))
    for r in dl.rules:
        assert set(frame["c"].to_numpy()[r.rows]) == {r.prediction}
    # it is not a 1-DL
    learner = DecisionListLearner(ds, k=1).run()
    assert learner.failure is not None and "not a 1-decision list" in learner.failure


def test_preference_largest_coverage_then_shortest_then_first():
    frame = _truth_table(4)
    frame["c"] = np.where((frame.x1 == "True") | (frame.x2 == "True"), "yes", "no")
    ds = engine.Dataset.from_frame(frame, target="c")
    learner = DecisionListLearner(ds, k=2)
    lits = learner.literals
    masks = learner.masks
    best_cover, best_key = 0, None
    for size in (1, 2):
        for idx in itertools.combinations(range(len(lits)), size):
            covered = masks[list(idx)].all(0)
            classes = set(ds.y[covered])
            if covered.any() and len(classes) == 1 and covered.sum() > best_cover:
                best_cover, best_key = covered.sum(), idx
    rule = learner.step()
    assert rule.n_covered == best_cover == 8
    assert tuple(lits.index(lit) for lit in rule.test) == best_key
    assert rule.text() == "if x1 = True then yes"


def test_step_and_undo():
    ds = engine.load_sample("play_tennis")
    learner = DecisionListLearner(ds, k=2)
    first = learner.step()
    # 5 "Yes" days, more than "Outlook = Overcast" (4): coverage beats length
    assert first.text() == "if Outlook != Sunny AND Wind = Weak then Yes" and first.n_covered == 5
    assert learner.remaining.size == 9
    second = learner.step()
    assert learner.undo() and learner.rules == (first,)
    assert learner.step().text() == second.text()
    learner.run()
    assert learner.done and learner.failure is None
    assert (learner.decision_list.predict(ds) == ds.frame["Play"].to_numpy()).all()
    while learner.undo():
        pass
    assert learner.rules == () and learner.remaining.size == 14


def test_failure_is_reported_with_the_rows_left():
    frame = pd.DataFrame({"a": ["x", "x", "y", "y"], "c": ["p", "q", "p", "p"]})
    learner = DecisionListLearner(engine.Dataset.from_frame(frame, target="c"), k=2).run()
    assert learner.rules[0].text() == "if a = y then p"
    assert learner.failure.startswith("No test of at most 2 literals covers only rows of one class among the 2 rows")
    assert "rows 0, 1" in learner.failure and "agree on every literal" in learner.failure
    assert learner.step() is None and learner.undo() and learner.failure is None
    with pytest.raises(DataError, match="No test"):
        learn_decision_list(engine.Dataset.from_frame(frame, target="c"))


def test_literals():
    frame = pd.DataFrame({"two": ["a", "b", "a", "b"], "three": ["r", "g", "b", "r"], "flag": [0, 1, 0, 1],
                          "num": [1.0, 2.0, 3.0, np.nan], "y": ["p", "q", "p", "q"]})
    ds = engine.Dataset.from_frame(frame, target="y", kinds={"flag": "numeric"})
    texts = [lit.text() for lit in make_literals(ds, n_thresholds=3)]
    assert texts[:2] == ["two = a", "two = b"]
    assert "three != g" in texts and "two != a" not in texts
    assert "flag <= 0.5" in texts and "flag > 0.5" in texts
    m = literal_matrix(make_literals(ds), ds.schema, ds.X)
    i = texts.index("num <= 1.5")
    assert m[i].tolist() == [True, False, False, False] and m[i + 1].tolist() == [False, True, True, False]
    cuts = numeric_thresholds(np.arange(100.0), 3)
    np.testing.assert_allclose(cuts, np.quantile(np.arange(100.0), [0.25, 0.5, 0.75]))


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_any_2dl_labelled_data_is_learned_consistently(data):
    """DECISION-LIST-LEARNING never fails on data that some k-DL labels, and its list fits the data."""
    frame = _truth_table(5)
    cols = list(frame.columns)
    n_rules = data.draw(st.integers(1, 4))
    conds, outs = [], []
    for _ in range(n_rules):
        lits = data.draw(st.lists(st.tuples(st.sampled_from(cols), st.booleans()), min_size=1, max_size=2))
        conds.append(np.all([(frame[c] == "True") == v for c, v in lits], axis=0))
        outs.append(data.draw(st.sampled_from(["A", "B", "C"])))
    frame["y"] = np.select(conds, outs, data.draw(st.sampled_from(["A", "B", "C"])))
    rows = data.draw(st.lists(st.integers(0, 31), min_size=2, max_size=32, unique=True))
    ds = engine.Dataset.from_frame(frame.iloc[sorted(rows)].reset_index(drop=True), target="y")
    learner = DecisionListLearner(ds, k=2).run()
    assert learner.failure is None
    assert (learner.decision_list.predict(ds) == ds.frame["y"].to_numpy()).all()


def test_best_test_none_when_nothing_is_pure():
    L = np.array([[True, True], [True, True]])
    assert best_test(L, np.array([0, 1]), 2, 2) is None


def test_settings_are_checked():
    ds = engine.load_sample("play_tennis")
    with pytest.raises(ConfigError, match="k must be"):
        DecisionListLearner(ds, k=0)
    with pytest.raises(ConfigError, match="classes"):
        DecisionListLearner(engine.load_sample("diabetes"))
    with pytest.raises(ConfigError, match="too"):
        DecisionListLearner(engine.load_sample("breast_cancer"), k=3)


# ------------------------------------------------------------------------------------------- k-DT
def test_kdt_play_tennis_is_the_textbook_concept():
    res = fit_kdt(engine.load_sample("play_tennis"), k=2)
    assert res.tree.n_leaves == 3
    assert res.rules() == [
        "IF NOT (Outlook = Sunny AND Humidity = High) AND NOT (Outlook = Rain AND Wind = Strong) THEN Yes",
        "IF NOT (Outlook = Sunny AND Humidity = High) AND (Outlook = Rain AND Wind = Strong) THEN No",
        "IF (Outlook = Sunny AND Humidity = High) THEN No",
    ]
    ds = engine.load_sample("play_tennis")
    assert (res.predict(ds) == ds.frame["Play"].to_numpy()).all()
    plain = engine.fit_tree(ds, engine.TreeConfig(algorithm="id3"))
    assert res.tree.n_leaves < plain.n_leaves


def test_kdt_variables_are_the_monomials():
    ds = engine.load_sample("restaurant")
    res = fit_kdt(ds, k=2)
    expanded = res.expand(ds)
    assert list(expanded.columns) == list(res.columns) == list(res.expanded.feature_names)
    values = expanded.to_numpy()
    assert set(np.unique(values)) <= {0.0, 1.0}
    assert not (values.all(0) | ~values.any(0)).any()  # no constant variable
    assert len({values[:, j].tobytes() for j in range(values.shape[1])}) == values.shape[1]  # no duplicates
    assert all(1 <= len(m) <= 2 for m in res.monomials)
    lits = literal_matrix(res.literals, ds.schema, ds.X)
    for j, mono in enumerate(res.monomials):
        idx = [res.literals.index(lit) for lit in mono]
        np.testing.assert_array_equal(lits[idx].all(0), values[:, j] == 1)
    np.testing.assert_array_equal(res.predict(ds), res.tree.predict(res.expanded.frame))
    assert res.n_candidates == len(res.literals) + len(res.literals) * (len(res.literals) - 1) // 2


def test_kdt_too_many_monomials_is_a_config_error():
    with pytest.raises(ConfigError, match="monomials"):
        fit_kdt(engine.load_sample("breast_cancer"), k=2)
