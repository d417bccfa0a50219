"""engine.evaluate.stability: perturbations do what they say, runs are deterministic per seed, the vote is scored right."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import engine
from engine.errors import ConfigError, DataError
from engine.evaluate.metrics import evaluate
from engine.evaluate.stability import JITTER_SCALE, PERTURBATIONS, instability, perturb


@pytest.fixture(scope="module")
def moons():
    return engine.load_sample("noisy_moons").split(test_size=0.25, seed=0)


def test_bootstrap_and_subsample_are_weights(moons):
    train = moons.train
    rng = np.random.default_rng(0)
    data, w, changed = perturb(train, "bootstrap", rng=rng)
    assert data is train and w.sum() == len(train) and np.all(w == np.round(w))
    assert changed == int(np.sum(w == 0)) and 0.25 < changed / len(train) < 0.5  # about 36.8% left out
    data, w, changed = perturb(train, "subsample", fraction=0.1, rng=rng)
    assert data is train and changed == 30 and np.sum(w == 0) == 30 and set(np.unique(w)) == {0.0, 1.0}


def test_flip_changes_exactly_the_chosen_labels(moons):
    train = moons.train
    data, w, changed = perturb(train, "flip", fraction=0.05, rng=np.random.default_rng(1))
    assert w is None and changed == 15
    assert data.schema == train.schema and data.classes == train.classes
    assert int(np.sum(data.y != train.y)) == 15  # every chosen row gets another class
    np.testing.assert_array_equal(data.X, train.X)
    iris = engine.load_sample("iris")
    data, _, _ = perturb(iris, "flip", fraction=0.2, rng=np.random.default_rng(2))
    moved = data.y != iris.y
    assert moved.sum() == 30 and set(np.unique(data.y[moved])) <= {0, 1, 2}


def test_regression_flip_swaps_targets():
    ds = engine.load_sample("diabetes")
    data, _, changed = perturb(ds, "flip", fraction=0.1, rng=np.random.default_rng(0))
    diff = data.y != ds.y
    assert changed == 44 and 0 < diff.sum() <= 44
    assert set(data.y[diff]) <= set(ds.y)  # values of other rows, nothing invented


def test_jitter_moves_only_numeric_features_of_chosen_rows():
    ds = engine.load_sample("titanic_small")
    data, _, changed = perturb(ds, "jitter", fraction=0.1, rng=np.random.default_rng(0))
    assert changed == 20
    moved = np.any(~np.isclose(data.X, ds.X, equal_nan=True), axis=1)
    assert moved.sum() <= 20 and moved.sum() >= 15  # rows with every numeric value missing can't move
    numeric = [i for i, n in enumerate(ds.feature_names) if ds.kind(n) == "numeric"]
    other = [i for i in range(len(ds.feature_names)) if i not in numeric]
    np.testing.assert_array_equal(data.X[:, other], ds.X[:, other])
    np.testing.assert_array_equal(np.isnan(data.X), np.isnan(ds.X))
    np.testing.assert_array_equal(data.y, ds.y)
    step = np.nanmax(np.abs(data.X[:, numeric] - ds.X[:, numeric]) / np.nanstd(ds.X[:, numeric], axis=0))
    assert 0 < step < 6 * JITTER_SCALE


def test_perturb_rejects_bad_input():
    tennis = engine.load_sample("play_tennis")
    with pytest.raises(ConfigError, match="jitter changes numeric features"):
        perturb(tennis, "jitter")
    with pytest.raises(ConfigError, match="method must be one of bootstrap, subsample, flip, jitter"):
        perturb(tennis, "shuffle")
    for bad in (0, 0.6, -0.1, True, "5%"):
        with pytest.raises(ConfigError, match="fraction must be a share"):
            perturb(tennis, "flip", fraction=bad)
    with pytest.raises(DataError, match="leaves too few"):
        perturb(tennis.subset([0, 1, 2]), "subsample", fraction=0.5)


@pytest.mark.parametrize("method", list(PERTURBATIONS))
def test_instability_is_deterministic_per_seed(moons, method):
    cfg = engine.TreeConfig(max_depth=6)
    calls = []
    a = instability(moons.train, moons.test, cfg, runs=4, method=method, seed=5,
                    progress=lambda d, t: calls.append((d, t)))
    b = instability(moons.train, moons.test, cfg, runs=4, method=method, seed=5)
    pd.testing.assert_frame_equal(a.runs, b.runs)
    assert a == b and calls[-1] == (5, 5)
    c = instability(moons.train, moons.test, cfg, runs=4, method=method, seed=6)
    assert not a.runs[["root", "agreement", "n_leaves"]].equals(c.runs[["root", "agreement", "n_leaves"]])
    assert a.runs["agreement"].between(0, 1).all()
    assert list(a.runs["run"]) == [1, 2, 3, 4]
    assert repr(a).startswith(f"InstabilityResult(method='{method}', runs=4, same_root_feature=")


def test_instability_numbers_by_hand(moons):
    cfg = engine.TreeConfig(max_depth=4)
    res = instability(moons.train, moons.test, cfg, runs=3, method="subsample", fraction=0.1, seed=0)
    original = engine.fit_tree(moons.train, cfg)
    assert res.original["n_leaves"] == original.n_leaves
    assert res.original["root"] == original.root.split.describe()
    assert res.original["test_score"] == pytest.approx(evaluate(original, moons.test).scores["accuracy"])
    # rebuild the runs with the same random stream
    rng = np.random.default_rng(0)
    ref = original.predict(moons.test.frame)
    preds = []
    for r in range(3):
        _, w, _ = perturb(moons.train, "subsample", fraction=0.1, rng=rng)
        tree = engine.fit_tree(moons.train, cfg, sample_weight=w)
        preds.append(tree.predict(moons.test.frame))
        assert res.runs["agreement"].iloc[r] == pytest.approx(np.mean(preds[-1] == ref))
        assert res.runs["same_root"].iloc[r] == (tree.root.split.describe() == res.original["root"])
    preds = np.array(preds)
    labels = np.asarray(moons.test.classes, dtype=object)[moons.test.y]
    votes = np.array([[np.sum(preds[:, i] == c) for c in moons.train.classes] for i in range(preds.shape[1])])
    vote = np.asarray(moons.train.classes, dtype=object)[np.argmax(votes, axis=1)]
    assert res.vote_score == pytest.approx(np.mean(vote == labels))
    assert res.unstable_share == pytest.approx(np.mean(np.any(preds != ref, axis=0)))
    counts = res.root_counts()
    assert counts["runs"].sum() == 3 and list(counts.columns) == ["root_feature", "runs", "splits"]
    assert res.root_counts("root")["runs"].sum() == 3


def test_instability_regression_and_errors():
    split = engine.load_sample("diabetes").split(test_size=0.25, seed=0)
    res = instability(split.train, split.test, engine.TreeConfig(max_depth=3), runs=2, method="jitter", seed=1)
    assert res.change_column == "mean_abs_change" and (res.runs["mean_abs_change"] >= 0).all()
    assert res.metric == "r2" and np.isfinite(res.vote_score)
    with pytest.raises(DataError, match="needs test rows"):
        instability(split.train, None, engine.TreeConfig())
    with pytest.raises(ConfigError, match="runs must be"):
        instability(split.train, split.test, engine.TreeConfig(), runs=0)
    with pytest.raises(ConfigError, match="by must be"):
        res.root_counts("leaves")
