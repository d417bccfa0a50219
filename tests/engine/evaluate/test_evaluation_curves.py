"""engine.evaluate.curves: the overfitting curve equals scoring every intermediate tree of Grower.step; the depth
curve equals growing with max_depth; the learning curve has the promised shape and is seeded."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.evaluate.curves import (_incremental, _memberships, depth_curve, growth_curve, learning_curve,
                                    level_order, node_memberships, overfitting_curve, split_order)
from engine.errors import ConfigError, DataError
from engine.evaluate.metrics import evaluate, metrics_for


def naive_curve(train, config, sets, validation=None):
    """Score the tree after every split by stepping a fresh grower (the slow, obvious way)."""
    g = engine.Grower(train, config, validation_data=validation)
    rows = []
    while True:
        tree = g.tree
        row = {"n_leaves": tree.n_leaves, "n_nodes": tree.n_nodes, "depth": tree.depth}
        for name, ds in sets:
            for m, v in evaluate(tree, ds).scores.items():
                row[f"{name}_{m}"] = v
        rows.append(row)
        rec = g.step()
        while rec is not None and rec.action == "finish":
            rec = g.step()
        if rec is None:
            return pd.DataFrame(rows), g


def assert_same_curve(fast: pd.DataFrame, slow: pd.DataFrame, task: str) -> None:
    assert len(fast) == len(slow)
    for col in ("n_leaves", "n_nodes", "depth"):
        np.testing.assert_array_equal(fast[col], slow[col])
    metrics = ("accuracy", "error") if task == "classification" else ("r2", "mse", "mae")
    for col in [c for c in slow.columns if c.endswith(metrics)]:
        np.testing.assert_allclose(fast[col], slow[col], rtol=1e-9, atol=1e-9, err_msg=col)


CASES = [
    ("play_tennis", dict(algorithm="id3")),
    ("restaurant", dict(algorithm="id3")),
    ("play_tennis_numeric", dict(algorithm="c45")),
    ("titanic_small", dict(algorithm="c45")),  # missing values: fractional rows
    ("titanic_small", dict(algorithm="cart", order="depth")),
    ("iris", dict(algorithm="cart")),
    ("noisy_moons", dict(algorithm="cart", max_leaf_nodes=25)),  # best-first order
    ("wine", dict(algorithm="cart", criterion="entropy", min_samples_leaf=3)),
    ("diabetes", dict(max_depth=5)),  # regression
]


@pytest.mark.parametrize("name,kw", CASES, ids=[f"{n}-{'-'.join(map(str, k.values()))}" for n, k in CASES])
def test_overfitting_curve_equals_naive_recomputation(name, kw):
    ds = engine.load_sample(name)
    split = ds.split(test_size=0.3, seed=2) if len(ds) > 20 else ds.split(test_size=0.0)
    cfg = engine.TreeConfig(**kw)
    sets = [("train", split.train)] + ([("test", split.test)] if split.test is not None else [])
    slow, stepped = naive_curve(split.train, cfg, sets)
    grown = engine.Grower(split.train, cfg).grow()
    fast = overfitting_curve(grown, sets)
    assert_same_curve(fast, slow, ds.task)
    assert fast["step"].tolist() == list(range(len(fast)))
    # the stepped grower's history gives the same order as the grown one
    assert split_order(stepped) == split_order(grown)
    last = evaluate(grown.tree, sets[-1][1]).scores
    for m in metrics_for(ds.task):
        if f"{sets[-1][0]}_{m}" in fast:
            assert fast[f"{sets[-1][0]}_{m}"].iloc[-1] == pytest.approx(last[m])


def test_missing_values_use_the_fractional_path_and_both_paths_agree():
    ds = engine.load_sample("titanic_small")
    tree = engine.fit_tree(ds, engine.TreeConfig(algorithm="c45"))
    _, fractional = _memberships(tree, ds.X)
    assert fractional
    iris = engine.load_sample("iris")
    tree = engine.fit_tree(iris)
    mem, fractional = _memberships(tree, iris.X)
    assert not fractional
    order = level_order(tree)
    correct = _incremental(tree, order, mem, iris.y)[0]
    table = growth_curve(tree, [("all", iris)], order=order)
    np.testing.assert_allclose(table["all_accuracy"], correct / len(iris))


def test_memberships_agree_with_leaf_weights():
    ds = engine.load_sample("titanic_small")
    tree = engine.fit_tree(ds, engine.TreeConfig(algorithm="c45", max_depth=3))
    mem = node_memberships(tree, ds.frame)
    leaf_ids, W = tree.leaf_weights(ds.X)
    for j, leaf in enumerate(leaf_ids):
        rows, w = mem[int(leaf)]
        dense = np.zeros(len(ds))
        np.add.at(dense, rows, w)
        np.testing.assert_allclose(dense, W[:, j])
    rows, w = mem[0]
    assert rows.tolist() == list(range(len(ds))) and np.all(w == 1)


def test_forced_and_collapsed_history_still_gives_the_trees_curve():
    ds = engine.load_sample("iris")
    g = engine.Grower(ds, engine.TreeConfig(max_depth=3))
    g.step()
    g.step()
    g.expand(1, g.candidates(1)[-1])  # force another split on a leaf
    g.collapse(2)
    g.step()
    order = split_order(g)
    assert set(order) == {n.id for n in g.tree.internal_nodes}
    table = overfitting_curve(g, [("all", ds)])
    assert table["n_leaves"].iloc[-1] == g.tree.n_leaves
    assert table["all_accuracy"].iloc[-1] == pytest.approx(evaluate(g.tree, ds).scores["accuracy"])


def test_depth_curve_equals_growing_with_max_depth():
    split = engine.load_sample("noisy_moons").split(test_size=0.25, seed=0)
    tree = engine.fit_tree(split.train)
    table = depth_curve(tree, [("train", split.train), ("test", split.test)])
    assert table["depth"].tolist() == list(range(tree.depth + 1))
    for d in (0, 1, 3, 6):
        cut = engine.fit_tree(split.train, engine.TreeConfig(max_depth=d))
        row = table.iloc[d]
        assert row["n_leaves"] == cut.n_leaves
        assert row["test_accuracy"] == pytest.approx(evaluate(cut, split.test).scores["accuracy"])


def test_growth_curve_checks_its_order():
    ds = engine.load_sample("iris")
    tree = engine.fit_tree(ds, engine.TreeConfig(max_depth=2))
    order = level_order(tree)
    with pytest.raises(ConfigError, match="before its parent"):
        growth_curve(tree, [], order=order[::-1])
    with pytest.raises(ConfigError, match="every internal node"):
        growth_curve(tree, [], order=order[:-1])
    assert growth_curve(tree, [("none", None)]).columns.tolist() == ["step", "node_id", "n_leaves", "n_nodes",
                                                                     "depth"]


@settings(max_examples=25)
@given(st.integers(0, 10_000), st.booleans(), st.sampled_from(["c45", "cart"]))
def test_curve_property_on_random_data_with_missing_values(seed, regression, algorithm):
    rng = np.random.default_rng(seed)
    n = 40
    x = rng.normal(size=n)
    x[rng.random(n) < 0.15] = np.nan
    frame = pd.DataFrame({"x": x, "z": rng.integers(0, 4, n).astype(float),
                          "c": rng.choice(["r", "g", "b"], n)})
    signal = np.nan_to_num(x) + frame["z"] * 0.3
    if regression:
        frame["y"] = np.round(signal * 10 + rng.normal(size=n), 1)
    else:
        frame["y"] = np.where(signal + rng.normal(scale=0.5, size=n) > 0.5, "yes", "no")
    if frame["y"].nunique() < 2:
        return
    ds = engine.Dataset.from_frame(frame, target="y", kinds={"c": "categorical"})
    split = ds.split(test_size=0.3, seed=seed % 7)
    cfg = engine.TreeConfig(algorithm=algorithm, max_depth=4)
    sets = [("train", split.train), ("test", split.test)]
    slow, _ = naive_curve(split.train, cfg, sets)
    fast = overfitting_curve(engine.Grower(split.train, cfg).grow(), sets)
    assert_same_curve(fast, slow, ds.task)


def _tie_case():
    """C4.5 on 28 rows whose root is 50/50: rows missing x mix the children back to exactly 50/50."""
    rng = np.random.default_rng(711)
    n = 40
    x = rng.normal(size=n)
    x[rng.random(n) < 0.15] = np.nan
    frame = pd.DataFrame({"x": x, "z": rng.integers(0, 4, n).astype(float), "c": rng.choice(["r", "g", "b"], n)})
    signal = np.nan_to_num(x) + frame["z"] * 0.3
    frame["y"] = np.where(signal + rng.normal(scale=0.5, size=n) > 0.5, "yes", "no")
    ds = engine.Dataset.from_frame(frame, target="y", kinds={"c": "categorical"})
    return ds.split(test_size=0.3, seed=711 % 7)


def test_exact_class_ties_go_to_the_first_class_in_predict_and_curve():
    # Regression: Tree.predict broke these ties by rounding noise (5.6e-17) and picked "yes".
    split = _tie_case()
    cfg = engine.TreeConfig(algorithm="c45", max_depth=4)
    g = engine.Grower(split.train, cfg)
    g.step()
    proba = g.tree.predict_proba(split.train.X)
    tie = np.isclose(proba[:, 0], proba[:, 1], atol=1e-12)
    assert tie.sum() == 6
    assert set(g.tree.predict(split.train.X)[tie]) == {"no"}  # the first class, as a 50/50 node predicts
    assert set(g.tree.predict_codes(split.train.X)[tie]) == {0}
    sets = [("train", split.train), ("test", split.test)]
    slow, _ = naive_curve(split.train, cfg, sets)
    assert_same_curve(overfitting_curve(engine.Grower(split.train, cfg).grow(), sets), slow, "classification")


# ------------------------------------------------------------------------------ learning curve
def test_learning_curve_shape_and_seed():
    split = engine.load_sample("noisy_moons").split(test_size=0.25, seed=0)
    cfg = engine.TreeConfig(max_depth=4)
    calls = []
    runs, summary = learning_curve(split.train, split.test, cfg, sizes=(0.1, 0.5, 1.0), repeats=4, seed=3,
                                   progress=lambda d, t: calls.append((d, t)))
    assert summary["n_train"].tolist() == [30, 150, 300]
    assert summary["runs"].tolist() == [4, 4, 1]  # the whole training set is fitted once
    assert len(runs) == 9 and calls[-1] == (9, 9)
    assert summary["test_mean"].between(0, 1).all() and (summary["test_std"] >= 0).all()
    assert (summary["test_min"] <= summary["test_mean"]).all() and (summary["test_mean"] <= summary["test_max"]).all()
    full = engine.fit_tree(split.train, cfg)
    assert summary["test_mean"].iloc[-1] == pytest.approx(evaluate(full, split.test).scores["accuracy"])
    assert summary["test_std"].iloc[-1] == 0.0
    again, _ = learning_curve(split.train, split.test, cfg, sizes=(0.1, 0.5, 1.0), repeats=4, seed=3)
    pd.testing.assert_frame_equal(runs, again)
    other, _ = learning_curve(split.train, split.test, cfg, sizes=(0.1, 0.5, 1.0), repeats=4, seed=4)
    assert not runs["test_score"].equals(other["test_score"])


def test_learning_curve_regression_metric_and_bad_input():
    split = engine.load_sample("diabetes").split(test_size=0.25, seed=0)
    runs, summary = learning_curve(split.train, split.test, engine.TreeConfig(max_depth=2), sizes=[0.5, 1],
                                   repeats=2, metric="mae")
    assert (summary["test_mean"] > 0).all() and len(runs) == 3
    with pytest.raises(ConfigError, match="sizes must be fractions"):
        learning_curve(split.train, split.test, engine.TreeConfig(), sizes=[0, 0.5])
    with pytest.raises(ConfigError, match="metric must be one of r2, mse"):
        learning_curve(split.train, split.test, engine.TreeConfig(), metric="accuracy")
    with pytest.raises(ConfigError, match="repeats"):
        learning_curve(split.train, split.test, engine.TreeConfig(), repeats=0)
    with pytest.raises(DataError, match="needs test rows"):
        learning_curve(split.train, None, engine.TreeConfig())
