"""Bottom-up pruning with f(T, m): every option's f against hand computation (MDL, validation, pessimistic)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import engine
from engine.errors import ConfigError
from engine.prune.bottom_up import EVALUATIONS, prune_bottom_up
from engine.prune.pessimistic import c45_node_table

LN40 = math.log(2 / 0.05)


def toy_tree():
    """x = 1..8, y = a a b b a a b b: 0: x<=2.5 -> [1: a] / [2: x<=4.5 -> [3: b] / [4: x<=6.5 -> [5: a] / [6: b]]]."""
    ds = engine.Dataset.from_frame(pd.DataFrame({"x": range(1, 9), "y": list("aabbaabb")}), target="y")
    tree = engine.fit_tree(ds, engine.TreeConfig(algorithm="cart"))
    assert [n.id for n in tree.internal_nodes] == [0, 2, 4]
    return ds, tree


def mdl(errors: int, n_nodes: int, m: int = 8) -> float:
    """L_S + sqrt((|T| + ln(2/delta)) / (2m)) with one real-valued feature and m = 8 rows: d' = m + 1 = 9
    tests, |T| = 5n + 1 + (n - 1) ceil(log2 9) = 5n + 1 + 4(n - 1). (It read d = 1, |T| = 5n + 1, before the
    bound counted a real-valued feature as the m + 1 binary tests the lecture notes reduce it to.)"""
    return errors / m + math.sqrt((5 * n_nodes + 1 + 4 * (n_nodes - 1) + LN40) / (2 * m))


def test_mdl_options_by_hand():
    ds, tree = toy_tree()
    res = prune_bottom_up(tree, evaluation="mdl", train=ds)
    s4, s2, s0 = res.steps
    # node 4 (rows 5..8): the tree has 0 errors and 7 nodes; any leaf or raised leaf: 2 errors, 5 nodes; with
    # d' = 9 tests the 2 nodes saved pay for the 2 errors (with d = 1 the subtree was kept)
    assert s4.number("f keep") == pytest.approx(mdl(0, 7))
    for name in ("f leaf a", "f leaf b", "f left subtree", "f right subtree"):
        assert s4.number(name) == pytest.approx(mdl(2, 5))
    assert s4.action == "replace by leaf a (majority)"
    # node 2 (rows 3..8), node 4 now a leaf a: leaf b / left leaf: 2 errors, 3 nodes; leaf a / right leaf: 4
    assert s2.number("f keep") == pytest.approx(mdl(2, 5))
    assert s2.number("f leaf b") == pytest.approx(mdl(2, 3)) == pytest.approx(s2.number("f left subtree"))
    assert s2.number("f leaf a") == pytest.approx(mdl(4, 3)) == pytest.approx(s2.number("f right subtree"))
    assert s2.action == "replace by leaf b (majority)"  # ties go to the majority leaf
    # root: now 2 errors and 3 nodes; every option is one leaf with 4 errors
    assert s0.number("f keep") == pytest.approx(mdl(2, 3))
    assert {round(s0.number(k), 9) for k in ("f leaf a", "f leaf b", "f left subtree", "f right subtree")} == {
        round(mdl(4, 1), 9)}
    assert s0.action == "replace by leaf a (majority)" and res.tree.n_nodes == 1
    assert dict(res.summary)["f before"] == pytest.approx(mdl(0, 7))
    assert dict(res.summary)["f after"] == pytest.approx(mdl(4, 1)) == pytest.approx(0.5 + math.sqrt((6 + LN40) / 16))
    assert res.is_subtree


def test_validation_f_raises_subtrees():
    ds, tree = toy_tree()
    val = engine.Dataset.from_frame(pd.DataFrame({"x": [5.5, 7, 3, 4, 1], "y": list("abaaa")}), target="y")
    res = prune_bottom_up(tree, evaluation="validation", train=ds, validation=val)
    # node 4 (5.5 a, 7 b): keep 0 errors, every other option 1 -> keep
    # node 2 (+ 3 a, 4 a): keep 2 errors, leaf b 3, leaf a 1, left leaf (b) 3, right subtree (x<=6.5) 0 -> raise right
    # root (+ 1 a): keep 0 errors with 5 nodes, right subtree 0 errors with 3 nodes -> raise right (smaller)
    assert [(s.node_id, s.action) for s in res.steps] == [
        (4, "keep"), (2, "replace by right subtree"), (0, "replace by right subtree")]
    assert [res.steps[1].number(k) * 5 for k in ("f keep", "f leaf b", "f leaf a", "f left subtree",
                                                 "f right subtree")] == pytest.approx([2, 3, 1, 3, 0])
    pruned = res.tree
    assert pruned.root.split.describe() == "x <= 6.5" and [n.id for n in pruned.walk()] == [0, 5, 6]
    # the raised leaves keep their labels; their numbers follow the training rows that now reach them
    assert [(n.prediction, n.stats) for n in pruned.leaves] == [("a", (4.0, 2.0)), ("b", (0.0, 2.0))]
    assert not res.is_subtree and dict(res.summary)["f after"] == 0.0


def test_leaf_of_the_minority_class_is_an_option():
    ds, tree = toy_tree()
    val = engine.Dataset.from_frame(pd.DataFrame({"x": [5, 6, 7, 8], "y": list("bbbb")}), target="y")
    res = prune_bottom_up(tree, evaluation="validation", train=ds, validation=val)
    # node 4: majority a (tie 2:2 goes to a) -> 4 errors; leaf b -> 0 errors with one node
    assert res.steps[0].action == "replace by leaf b"
    leaf = res.tree.node(4) if res.tree.nodes[4] is not None else None
    assert res.tree.predict(np.array([[5.0]]))[0] == "b"
    assert leaf is None or leaf.stats == (2.0, 2.0)


def test_pessimistic_f_matches_c45_estimates():
    ds = engine.load_sample("titanic_small")
    tree = engine.fit_tree(ds, engine.TreeConfig(algorithm="c45"))
    res = prune_bottom_up(tree, evaluation="pessimistic", train=ds)
    table = c45_node_table(tree)
    assert dict(res.summary)["f before"] == pytest.approx(table["subtree_estimate"].iloc[0] / len(ds))
    after = c45_node_table(res.tree)["subtree_estimate"].iloc[0] / len(ds)
    assert dict(res.summary)["f after"] == pytest.approx(after)
    assert dict(res.summary)["f after"] <= dict(res.summary)["f before"]


def test_regression_and_every_f_on_samples():
    reg = engine.load_sample("diabetes").split(test_size=0.2, validation_size=0.3, seed=0)
    tree = engine.fit_tree(reg.train, engine.TreeConfig(max_depth=6))
    res = prune_bottom_up(tree, evaluation="validation", train=reg.train, validation=reg.validation)
    mse = np.mean((res.tree.predict(reg.validation.X) - reg.validation.y) ** 2)
    assert dict(res.summary)["f after"] == pytest.approx(mse) and mse <= dict(res.summary)["f before"]
    assert {k for s in res.steps for k, _ in s.numbers} >= {"f leaf (mean)", "f left subtree", "f keep"}
    ds = engine.load_sample("wine").split(test_size=0.2, validation_size=0.25, seed=0)
    wine = engine.fit_tree(ds.train)
    for ev in EVALUATIONS:
        out = prune_bottom_up(wine, evaluation=ev, train=ds.train, validation=ds.validation)
        summary = dict(out.summary)
        assert summary["f after"] <= summary["f before"] + 1e-12 and len(out.steps) == len(wine.internal_nodes)


def test_bad_settings_are_plain_sentences():
    ds, tree = toy_tree()
    with pytest.raises(ConfigError, match="evaluation must be one of"):
        prune_bottom_up(tree, evaluation="vibes", train=ds)
    with pytest.raises(ConfigError, match="validation share on the Data page"):
        prune_bottom_up(tree, evaluation="validation", train=ds)
    with pytest.raises(ConfigError, match="training rows"):
        prune_bottom_up(tree, evaluation="mdl")
    with pytest.raises(ConfigError, match="delta"):
        prune_bottom_up(tree, evaluation="mdl", train=ds, delta=1.5)
    reg = engine.Dataset.from_frame(pd.DataFrame({"x": [1, 2, 3, 4], "y": [0.0, 1, 5, 9]}), target="y", task="regression")
    with pytest.raises(ConfigError, match="classification tree"):
        prune_bottom_up(engine.fit_tree(reg), evaluation="mdl", train=reg)


def test_scorer_breaks_rounding_ties_like_predict():
    # a row split between two leaves mixes their shares; recomposed in another order, 0.3 and 0.1 + 0.2 must
    # still tie and go to the first class, as Tree.predict does (else f of the same tree changed between two
    # steps of bottom-up pruning: found by test_pruning_props)
    from engine.prune.scoring import RowScorer
    ds, tree = toy_tree()
    scorer = RowScorer(tree, ds.X, ds.y)
    values = np.array([[0.3, 0.1 + 0.2], [0.1 + 0.2, 0.3]])
    assert scorer.loss(np.array([0, 1]), values) == 0.0     # rows 0 and 1 are class a (code 0)
