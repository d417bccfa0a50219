"""Properties of every pruning method on random data sets (hypothesis): subtrees, no mutation, monotone scores."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.prune.reduced_error import prune_manual, prune_reduced_error
from engine.prune.bottom_up import prune_bottom_up
from engine.prune.pessimistic import c45_node_table, prune_pessimistic
from engine.prune.cost_complexity import ccp_path, prune_ccp
from engine.teach.theory import tree_mdl_bound
from engine.tree.surgery import is_subtree_of, refit

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def problems(draw):
    """A small data set (numeric + categorical, some missing values), a tree on its train part, validation rows."""
    n = draw(st.integers(20, 70))
    seed = draw(st.integers(0, 10_000))
    rng = np.random.default_rng(seed)
    k = draw(st.integers(2, 3))
    x1 = rng.integers(0, 6, n).astype(float)
    x2 = rng.normal(size=n).round(1)
    c = rng.choice(["r", "g", "b"], n).astype(object)
    noise = rng.random(n) < draw(st.floats(0.0, 0.4))
    y = np.where(noise, rng.integers(0, k, n), (x1 + (x2 > 0) + (c == "r")).astype(int) % k)
    if draw(st.booleans()):
        x2[rng.random(n) < 0.1] = np.nan
    frame = pd.DataFrame({"x1": x1, "x2": x2, "c": c, "y": [f"k{v}" for v in y]})
    ds = engine.Dataset.from_frame(frame, target="y", kinds={"x1": "numeric", "x2": "numeric", "c": "categorical"})
    if len(ds.classes) < 2:
        ds = engine.Dataset.from_frame(frame.assign(y=["k0", "k1"] * (n // 2) + ["k0"] * (n % 2)), target="y",
                                       kinds={"x1": "numeric", "x2": "numeric", "c": "categorical"})
    split = ds.split(test_size=0.0, validation_size=0.3, seed=seed)
    algorithm = draw(st.sampled_from(["cart", "c45", "id3"]))
    tree = engine.fit_tree(split.train, engine.TreeConfig(algorithm=algorithm))
    return split.train, split.validation, tree


def accuracy(tree, rows) -> float:
    return float(np.mean(tree.predict_codes(rows.X) == rows.y))


@SETTINGS
@given(problems())
def test_reduced_error_is_a_subtree_and_never_loses_validation_accuracy(problem):
    train, val, tree = problem
    before = tree.to_dict()
    res = prune_reduced_error(tree, val)
    assert tree.to_dict() == before and is_subtree_of(res.tree, tree)
    assert accuracy(res.tree, val) >= accuracy(tree, val) - 1e-12
    assert len(res.steps) == len(tree.internal_nodes)


@SETTINGS
@given(problems(), st.floats(0.0, 0.2))
def test_cost_complexity_trees_are_nested_subtrees(problem, alpha):
    train, val, tree = problem
    path = ccp_path(tree, train=train, validation=val)
    assert path.trees[0] is tree and path.n_leaves[-1] == 1
    for a, b in zip(path.trees, path.trees[1:]):
        assert is_subtree_of(b, a)
    pruned = prune_ccp(tree, alpha).tree
    assert is_subtree_of(pruned, tree) and pruned.to_dict() == path.tree_at(alpha).to_dict()


@SETTINGS
@given(problems(), st.sampled_from([0.05, 0.25, 0.5]), st.booleans())
def test_pessimistic_pruning_cuts_only_subtrees_without_raising(problem, cf, raising):
    train, val, tree = problem
    before = tree.to_dict()
    res = prune_pessimistic(tree, cf=cf, subtree_raising=raising, train=train)
    assert tree.to_dict() == before
    if not raising:
        assert is_subtree_of(res.tree, tree)
    else:  # after raising, every node's numbers follow the training rows routed through the new structure
        again = refit(res.tree, train.X, train.y)
        for n in res.tree.walk():
            np.testing.assert_allclose(again.node(n.id).stats, n.stats, atol=1e-9)


@SETTINGS
@given(problems(), st.sampled_from(["validation", "mdl", "pessimistic"]))
def test_bottom_up_never_increases_f_and_keeps_predictions_of_raised_subtrees(problem, evaluation):
    train, val, tree = problem
    res = prune_bottom_up(tree, evaluation=evaluation, train=train, validation=val)
    summary = dict(res.summary)
    assert summary["f after"] <= summary["f before"] + 1e-12
    fs = [s.number("f after") for s in res.steps]
    assert all(b <= a + 1e-12 for a, b in zip([summary["f before"]] + fs, fs))
    if evaluation == "validation":  # f after, recomputed from scratch on the pruned tree
        assert abs(1 - summary["f after"] - accuracy(res.tree, val)) < 1e-9
    elif evaluation == "mdl":
        assert summary["f after"] == pytest.approx(tree_mdl_bound(res.tree, train.X, train.y, 0.05).bound)
    else:
        assert summary["f after"] == pytest.approx(c45_node_table(res.tree)["subtree_estimate"].iloc[0] / len(train))
    if all("subtree" not in s.action for s in res.steps):
        assert is_subtree_of(res.tree, tree)


@SETTINGS
@given(problems(), st.data())
def test_manual_pruning_and_refit_round_trip(problem, data):
    train, val, tree = problem
    internal = [n.id for n in tree.internal_nodes]
    if internal:
        node = data.draw(st.sampled_from(internal))
        res = prune_manual(tree, [node])
        assert is_subtree_of(res.tree, tree) and node in {n.id for n in res.tree.leaves}
        assert res.tree.n_leaves <= tree.n_leaves - 1
    again = refit(tree, train.X, train.y)
    for n in tree.walk():
        np.testing.assert_allclose(again.node(n.id).stats, n.stats, atol=1e-9)
    same = refit(tree, val.X, val.y, keep_predictions=True)
    np.testing.assert_allclose(same.predict_proba(val.X), tree.predict_proba(val.X))
