"""engine.evaluate.metrics and engine.evaluate.validation: scores against scikit-learn, folds that partition, cross-validation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn import metrics as skm

import engine
from engine.errors import ConfigError, DataError
from engine.evaluate.validation import cross_validate, fit_for_evaluation, holdout
from engine.data.folds import kfold_indices
from engine.evaluate.metrics import (accuracy, check_metric, confusion_matrix, default_metric, evaluate,
                                     metric_label, metrics_for, per_class_scores, r2_from_sums,
                                     regression_scores, score, scores_table)


# ------------------------------------------------------------------------------ metrics vs sklearn
@st.composite
def label_pairs(draw):
    k = draw(st.integers(1, 5))
    n = draw(st.integers(1, 60))
    codes = st.lists(st.integers(0, k - 1), min_size=n, max_size=n)
    return k, np.array(draw(codes)), np.array(draw(codes))


@pytest.mark.filterwarnings("ignore:A single label was found")
@given(label_pairs())
def test_classification_metrics_match_sklearn(pair):
    k, y, p = pair
    labels = list(range(k))
    cm = confusion_matrix(y, p, k)
    np.testing.assert_array_equal(cm, skm.confusion_matrix(y, p, labels=labels))
    assert accuracy(y, p) == pytest.approx(skm.accuracy_score(y, p))
    table = per_class_scores(cm, [f"c{i}" for i in labels])
    prec, rec, f1, sup = skm.precision_recall_fscore_support(y, p, labels=labels, zero_division=0)
    np.testing.assert_allclose(table["precision"][:k], prec, atol=1e-12)
    np.testing.assert_allclose(table["recall"][:k], rec, atol=1e-12)
    np.testing.assert_allclose(table["f1"][:k], f1, atol=1e-12)
    np.testing.assert_array_equal(table["support"][:k], sup)
    for row, avg in ((k, "macro"), (k + 1, "weighted")):
        expected = skm.precision_recall_fscore_support(y, p, labels=labels, average=avg, zero_division=0)
        np.testing.assert_allclose(table.loc[row, ["precision", "recall", "f1"]].to_numpy(float),
                                   expected[:3], atol=1e-12)
    assert list(table["class"][k:]) == ["macro avg", "weighted avg"]


@given(st.lists(st.tuples(st.floats(-1e3, 1e3), st.floats(-1e3, 1e3)), min_size=1, max_size=50))
def test_regression_metrics_match_sklearn(pairs):
    y = np.array([a for a, _ in pairs])
    p = np.array([b for _, b in pairs])
    s = regression_scores(y, p)
    assert s["mse"] == pytest.approx(skm.mean_squared_error(y, p), rel=1e-9, abs=1e-9)
    assert s["rmse"] == pytest.approx(np.sqrt(skm.mean_squared_error(y, p)), rel=1e-9, abs=1e-9)
    assert s["mae"] == pytest.approx(skm.mean_absolute_error(y, p), rel=1e-9, abs=1e-9)
    if y.size < 2:
        assert np.isnan(s["r2"])
    else:
        assert s["r2"] == pytest.approx(skm.r2_score(y, p), rel=1e-7, abs=1e-7)


def test_r2_edge_cases_follow_sklearn():
    assert r2_from_sums(0.0, 0.0, 5) == 1.0  # constant target predicted exactly
    assert r2_from_sums(2.0, 0.0, 5) == 0.0 == skm.r2_score([3, 3, 3], [3, 3, 4])
    assert np.isnan(r2_from_sums(0.0, 1.0, 1))
    assert regression_scores([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])["r2"] == 1.0


def test_confusion_matrix_ignores_unknown_codes_and_checks_lengths():
    cm = confusion_matrix([0, 1, -1, 1], [0, 0, 1, 1], 2)
    np.testing.assert_array_equal(cm, [[1, 0], [1, 1]])
    with pytest.raises(DataError, match="3 true values but 2 predictions"):
        confusion_matrix([0, 1, 1], [0, 1], 2)


def test_textbook_confusion_and_report():
    # 10 rows: 4 spam (3 found), 6 ham (1 false alarm)
    y = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 0])
    p = np.array([1, 1, 1, 0, 1, 0, 0, 0, 0, 0])
    cm = confusion_matrix(y, p, 2)
    assert cm.tolist() == [[5, 1], [1, 3]]
    table = per_class_scores(cm, ["ham", "spam"]).set_index("class")
    assert table.loc["spam", "precision"] == pytest.approx(3 / 4)
    assert table.loc["spam", "recall"] == pytest.approx(3 / 4)
    assert table.loc["ham", "f1"] == pytest.approx(5 / 6)
    assert table.loc["weighted avg", "f1"] == pytest.approx(0.6 * 5 / 6 + 0.4 * 3 / 4)


def test_metric_names_and_checks():
    assert metrics_for("classification") == ("accuracy", "error", "macro_f1")
    assert metrics_for("regression") == ("r2", "mse", "mae")
    assert default_metric("regression") == "r2" and metric_label("r2") == "R²"
    with pytest.raises(ConfigError, match="metric must be one of r2, mse, mae; got 'accuracy'"):
        check_metric("accuracy", "regression")


# ---------------------------------------------------------------------------- evaluate a tree
@pytest.fixture(scope="module")
def iris_split():
    return engine.load_sample("iris").split(test_size=0.3, seed=3)


def test_evaluate_tree_matches_sklearn(iris_split):
    tree = engine.fit_tree(iris_split.train, engine.TreeConfig(max_depth=2))
    ev = evaluate(tree, iris_split.test, "test")
    pred = tree.predict_codes(iris_split.test.X)
    np.testing.assert_array_equal(ev.confusion, skm.confusion_matrix(iris_split.test.y, pred, labels=[0, 1, 2]))
    assert ev.scores["accuracy"] == pytest.approx(skm.accuracy_score(iris_split.test.y, pred))
    assert ev.scores["macro_f1"] == pytest.approx(skm.f1_score(iris_split.test.y, pred, average="macro"))
    assert ev.n == len(iris_split.test) and ev.classes == iris_split.train.classes
    assert repr(ev).startswith("Evaluation(set='test', n=45, accuracy=")
    assert score(tree, iris_split.test, "error") == pytest.approx(1 - ev.scores["accuracy"])


def test_evaluate_regression_and_table():
    split = engine.load_sample("diabetes").split(test_size=0.25, seed=0)
    tree = engine.fit_tree(split.train, engine.TreeConfig(max_depth=3))
    evs = [evaluate(tree, split.train, "train"), evaluate(tree, split.test, "test")]
    pred = tree.predict(split.test.X)
    assert evs[1].scores["r2"] == pytest.approx(skm.r2_score(split.test.y, pred))
    assert evs[1].scores["mae"] == pytest.approx(skm.mean_absolute_error(split.test.y, pred))
    assert evs[1].confusion is None and evs[1].report is None
    table = scores_table(evs)
    assert list(table.index) == ["R²", "MSE", "MAE"]
    assert list(table.columns) == [f"train ({len(split.train):,} rows)", f"test ({len(split.test):,} rows)"]


def test_evaluate_rows_with_other_encoding_and_unknown_class():
    frame = pd.DataFrame({"x": [1.0, 2, 3, 4, 5, 6], "c": list("ppqqpq"), "y": list("aabbab")})
    ds = engine.Dataset.from_frame(frame, target="y")
    tree = engine.fit_tree(ds)
    other = engine.Dataset.from_frame(pd.DataFrame({"x": [1.0, 6], "c": ["q", "r"], "y": ["a", "z"]}), target="y")
    ev = evaluate(tree, other)
    assert ev.y_true.tolist() == [0, -1]  # 'z' is a class the tree never saw: always wrong
    assert ev.scores["accuracy"] <= 0.5
    with pytest.raises(DataError, match="regression"):
        evaluate(tree, engine.Dataset.from_frame(pd.DataFrame({"x": [1.0, 2, 3], "c": list("pqp"),
                                                               "y": [1.5, 2.5, 3.5]}), target="y"))


# -------------------------------------------------------------------------------------- folds
@given(st.integers(2, 80), st.integers(2, 10), st.integers(1, 4), st.integers(0, 2**16))
def test_stratified_folds_partition_the_rows(n, k, n_classes, seed):
    if k > n:
        with pytest.raises(DataError, match="Choose fewer folds"):
            kfold_indices(n, k, seed=seed)
        return
    y = np.random.default_rng(seed).integers(0, n_classes, size=n)
    folds = kfold_indices(n, k, y=y, seed=seed)
    assert len(folds) == k
    joined = np.concatenate(folds)
    assert np.array_equal(np.sort(joined), np.arange(n))  # every row exactly once
    sizes = [f.size for f in folds]
    assert max(sizes) - min(sizes) <= 1 and min(sizes) >= 1
    for c in np.unique(y):  # every class spread as evenly as possible
        per_fold = [int(np.sum(y[f] == c)) for f in folds]
        assert max(per_fold) - min(per_fold) <= 1
    again = kfold_indices(n, k, y=y, seed=seed)
    assert all(np.array_equal(a, b) for a, b in zip(folds, again))


def test_plain_folds_and_bad_k():
    folds = kfold_indices(10, 3, seed=1)
    assert sorted(np.concatenate(folds).tolist()) == list(range(10))
    assert sorted(f.size for f in folds) == [3, 3, 4]
    assert not all(np.array_equal(a, b) for a, b in zip(folds, kfold_indices(10, 3, seed=2)))
    for bad in (1, 0, 2.5, True):
        with pytest.raises(ConfigError, match="k \\(the number of folds\\)"):
            kfold_indices(10, bad)
    with pytest.raises(ConfigError, match="seed"):
        kfold_indices(10, 3, seed=-1)


def test_cross_validation_equals_fitting_each_fold_by_hand(iris_split):
    ds = engine.load_sample("iris")
    cfg = engine.TreeConfig(max_depth=3)
    calls = []
    cv = cross_validate(ds, cfg, k=4, seed=7, progress=lambda d, t: calls.append((d, t)))
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)]
    folds = kfold_indices(len(ds), 4, y=ds.y, seed=7)
    expected = []
    for f in folds:
        train = ds.subset(np.setdiff1d(np.arange(len(ds)), f))
        tree = engine.fit_tree(train, cfg)
        expected.append(np.mean(tree.predict_codes(ds.X[f]) == ds.y[f]))
    np.testing.assert_allclose(cv.folds["test_accuracy"], expected)
    assert cv.mean() == pytest.approx(np.mean(expected))
    assert cv.std() == pytest.approx(np.std(expected))
    assert cv.folds["n_test"].sum() == len(ds)
    assert set(cv.summary()["metric"]) == {"accuracy", "error rate", "macro F1"}
    assert repr(cv).startswith("CVResult(k=4, accuracy=")


def test_cross_validation_regression_and_validation_rule():
    ds = engine.load_sample("diabetes").subset(np.arange(120))
    cv = cross_validate(ds, engine.TreeConfig(max_depth=2), k=3, seed=0)
    assert cv.metric == "r2" and {"test_mse", "train_mae"} <= set(cv.folds.columns)
    # validation stopping needs validation rows: each training fold lends 20% of its rows
    tennis = engine.load_sample("titanic_small")
    cv = cross_validate(tennis, engine.TreeConfig(validation=True), k=3, seed=0)
    assert len(cv.folds) == 3 and cv.folds["n_leaves"].min() >= 1


def test_holdout_and_fit_for_evaluation():
    ds = engine.load_sample("play_tennis")
    split = ds.split(test_size=0.0)
    train, test, borrowed = holdout(split.train, split.test, seed=0)
    assert borrowed and len(train) + len(test) == 14 and len(test) == 4
    assert set(train.row_ids).isdisjoint(test.row_ids)
    split = ds.split(test_size=0.3, seed=0)
    assert holdout(split.train, split.test) == (split.train, split.test, False)
    with pytest.raises(DataError, match="nothing to hold out"):
        holdout(ds.subset([0, 1, 2]))
    weights = np.arange(len(ds), dtype=float) % 3
    tree = fit_for_evaluation(ds, engine.TreeConfig(algorithm="id3", validation=True), seed=1, sample_weight=weights)
    assert tree.n_nodes >= 1
    with pytest.raises(DataError, match="too few to keep some for validation"):
        fit_for_evaluation(ds.subset([0, 1, 2, 3]), engine.TreeConfig(validation=True))
