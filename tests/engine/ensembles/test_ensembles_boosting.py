"""AdaBoost as in the lecture pseudocode: a hand-checkable round, edge cases, SAMME, votes, sklearn range."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import engine
from engine.ensembles import fit_adaboost, fit_random_forest, hypothesis_weight, size_curve, vote_breakdown
from engine.ensembles.boosting import ERROR_FLOOR
from engine.errors import ConfigError


def _hand_data():
    # the best stump (x <= 1.5 -> B, else A) misclassifies rows 3, 5 and 7: error 3 * 0.1 = 0.3
    labels = list("BBABABABAA")
    return engine.Dataset.from_frame(pd.DataFrame({"x": np.arange(10.0), "y": labels}), target="y")


def test_first_round_by_hand():
    ens = fit_adaboost(_hand_data(), n_rounds=3)
    r = ens.rounds[0]
    assert r.learner == "x <= 1.5 -> B | A"
    np.testing.assert_allclose(r.weights, 0.1)
    assert np.flatnonzero(r.misclassified).tolist() == [3, 5, 7]
    assert r.error == pytest.approx(0.3)
    assert r.z == pytest.approx(math.log(0.7 / 0.3)) and round(r.z, 3) == 0.847
    assert r.factor == pytest.approx(0.3 / 0.7)
    before = np.where(r.misclassified, 0.1, 0.1 * 0.3 / 0.7)  # correct rows: 0.1 * error / (1 - error)
    np.testing.assert_allclose(r.next_weights, before / before.sum())
    np.testing.assert_allclose(r.next_weights[r.misclassified], 0.1 / 0.6)
    np.testing.assert_allclose(r.next_weights[~r.misclassified], 0.1 * 3 / 7 / 0.6)
    assert r.next_weights[r.misclassified].sum() == pytest.approx(0.5)  # the next learner starts at chance
    assert ens.members[0].weight == pytest.approx(r.z)
    np.testing.assert_allclose(ens.rounds[1].weights, r.next_weights)


def test_each_round_follows_the_pseudocode():
    ds = engine.load_sample("breast_cancer")
    ens = fit_adaboost(ds, n_rounds=12, random_state=0)
    w = np.full(len(ds), 1 / len(ds))
    for r, member in zip(ens.rounds, ens.members):
        np.testing.assert_allclose(r.weights, w)
        wrong = member.tree.predict_codes(ds.X) != ds.y
        np.testing.assert_array_equal(wrong, r.misclassified)
        assert r.error == pytest.approx(w[wrong].sum())
        assert r.z == pytest.approx(math.log((1 - r.error) / r.error))
        w = np.where(wrong, w, w * r.error / (1 - r.error))
        w = w / w.sum()
        np.testing.assert_allclose(r.next_weights, w)
        assert member.tree.depth <= 1


def test_weighted_majority_vote():
    split = engine.load_sample("breast_cancer").split(test_size=0.3, seed=2)
    ens = fit_adaboost(split.train, n_rounds=15)
    preds = np.array([m.tree.predict_codes(split.test.X) for m in ens.members])
    z = np.array([m.weight for m in ens.members])
    tally = np.stack([(z[:, None] * (preds == c)).sum(0) for c in range(2)], axis=1)
    np.testing.assert_array_equal(ens.predict_codes(split.test), tally.argmax(1))
    vb = vote_breakdown(ens, split.test.frame.iloc[[0]])
    np.testing.assert_allclose(vb.members["weight"], z)
    np.testing.assert_allclose(vb.tally["weight"], tally[0])
    np.testing.assert_allclose(vb.tally["share"].sum(), 1.0)


def test_samme_for_three_classes():
    ds = engine.load_sample("iris")
    ens = fit_adaboost(ds, n_rounds=6)
    for r in ens.rounds:
        if r.kept and not r.note:
            assert r.z == pytest.approx(math.log((1 - r.error) / r.error) + math.log(2))
            assert r.factor == pytest.approx(r.error / ((1 - r.error) * 2))
    assert hypothesis_weight(0.3) == pytest.approx(math.log(7 / 3))
    assert hypothesis_weight(0.5, 3) == pytest.approx(math.log(2))


def test_zero_error_stops_with_a_capped_weight():
    frame = pd.DataFrame({"x": [1.0, 2, 3, 4, 5, 6], "y": list("aaabbb")})
    ens = fit_adaboost(engine.Dataset.from_frame(frame, target="y"), n_rounds=10)
    assert len(ens.rounds) == 1 and ens.n_members == 1
    r = ens.rounds[0]
    assert r.error == 0 and r.kept
    assert r.z == pytest.approx(math.log((1 - ERROR_FLOOR) / ERROR_FLOOR))
    assert "no mistake" in r.note and ens.notes == (r.note,)
    assert list(ens.predict(frame)) == list("aaabbb")


def test_chance_level_learner_is_refused():
    # XOR: every stump is right on exactly half of the rows
    frame = pd.DataFrame({"a": [0.0, 0, 1, 1], "b": [0.0, 1, 0, 1], "y": ["n", "p", "p", "n"]})
    with pytest.raises(ConfigError, match="no better than chance"):
        fit_adaboost(engine.Dataset.from_frame(frame, target="y"), n_rounds=5)
    # depth-2 trees solve it in one round
    ens = fit_adaboost(engine.Dataset.from_frame(frame, target="y"), n_rounds=5, base="tree", max_depth=2)
    assert ens.rounds[0].error == 0


def test_randomised_stumps_record_their_draws():
    ds = engine.load_sample("wine")
    ens = fit_adaboost(ds, n_rounds=8, base="random_stump", n_thresholds=3, random_state=5)
    for r, member in zip(ens.rounds, ens.members):
        d = r.draw
        assert d.feature in ds.feature_names
        assert 1 <= len(d.tests) <= 3 and len(d.gains) == len(d.tests)
        assert d.gains[d.chosen] == max(d.gains)
        root = member.tree.root
        assert root.split.describe() == d.tests[d.chosen]
        values = np.unique(ds.X[:, ds.feature_names.index(d.feature)])
        mids = (values[:-1] + values[1:]) / 2
        assert np.isclose(mids, root.split.threshold).any()
    again = fit_adaboost(ds, n_rounds=8, base="random_stump", n_thresholds=3, random_state=5)
    assert [r.draw.tests for r in again.rounds] == [r.draw.tests for r in ens.rounds]


def test_categorical_random_stumps_use_value_tests():
    ens = fit_adaboost(engine.load_sample("play_tennis"), n_rounds=4, base="random_stump", random_state=1)
    assert all(" = " in t for r in ens.rounds for t in r.draw.tests)


def test_accuracy_in_sklearns_range():
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.tree import DecisionTreeClassifier

    split = engine.load_sample("breast_cancer").split(test_size=0.3, seed=1)
    ens = fit_adaboost(split.train, n_rounds=40)
    ours = np.mean(ens.predict_codes(split.test) == split.test.y)
    sk = AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=40, random_state=0)
    theirs = sk.fit(split.train.X, split.train.y).score(split.test.X, split.test.y)
    assert abs(ours - theirs) <= 0.04
    curve = size_curve(ens, split.test)
    assert "oob" not in curve.columns
    assert curve.train.iloc[-1] >= curve.train.iloc[0]


def test_settings_are_checked():
    ds = engine.load_sample("iris")
    with pytest.raises(ConfigError, match="base"):
        fit_adaboost(ds, base="forest")
    with pytest.raises(ConfigError, match="n_rounds"):
        fit_adaboost(ds, n_rounds=0)
    with pytest.raises(ConfigError, match="classes"):
        fit_adaboost(engine.load_sample("diabetes"))


def test_tally_adds_the_members_votes_in_member_order():
    """The vectorised tally equals adding each member's weight to its class, member after member (to the
    bit), for all members, the first few, and a selection."""
    split = engine.load_sample("breast_cancer").split(test_size=0.3, seed=2)
    # AdaBoost's weights, and a forest's ones (counted, not added as weights)
    for ens in (fit_adaboost(split.train, n_rounds=9), fit_random_forest(split.train, n_estimators=9, n_jobs=1)):
        outputs = ens.member_outputs(split.test)
        z = np.array([m.weight for m in ens.members])

        def by_loop(sel):
            votes = np.zeros((outputs.shape[1], len(ens.classes)))
            for m in sel:
                votes[np.arange(outputs.shape[1]), outputs[m]] += z[m]
            return votes

        assert np.array_equal(ens.tally(outputs), by_loop(range(9)))
        assert ens.tally(outputs).dtype == np.float64
        assert np.array_equal(ens.tally(outputs, upto=4), by_loop(range(4)))
        pick = np.array([True, False, True] * 3)
        assert np.array_equal(ens.tally(outputs, members=pick), by_loop(np.flatnonzero(pick)))
