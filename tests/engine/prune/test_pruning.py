"""Pruning core: tree surgery (engine.tree.surgery), reduced-error and manual pruning on hand-checkable toy trees."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import engine
from engine.errors import ConfigError, DataError
from engine.prune.methods import METHODS, prune
from engine.prune.records import PruneResult, PruneStep, postorder_internal
from engine.prune.reduced_error import prune_manual, prune_reduced_error
from engine.tree.surgery import (as_xy, collapsed_ids, cut, is_subtree_of, leaf_predicting, node_rows,
                                 raise_child, refit, removed_ids, target_codes)


def toy_tree():
    """x = 1..8, y = a a b b a a b b (CART): 0: x<=2.5 -> [1: a] / [2: x<=4.5 -> [3: b] / [4: x<=6.5 -> [5: a] / [6: b]]]."""
    ds = engine.Dataset.from_frame(pd.DataFrame({"x": range(1, 9), "y": list("aabbaabb")}), target="y")
    tree = engine.fit_tree(ds, engine.TreeConfig(algorithm="cart"))
    shape = [(n.id, n.split.describe() if n.split else n.prediction, n.children) for n in tree.walk()]
    assert shape == [(0, "x <= 2.5", (1, 2)), (1, "a", ()), (2, "x <= 4.5", (3, 4)), (3, "b", ()),
                     (4, "x <= 6.5", (5, 6)), (5, "a", ()), (6, "b", ())]
    return ds, tree


def rows(x, y):
    return pd.DataFrame({"x": x, "y": y})


# ------------------------------------------------------------------------------------ treeops
def test_node_rows_routes_every_row_and_missing_values_fractionally():
    ds, tree = toy_tree()
    routed = node_rows(tree, ds.X)
    assert routed[0][0].tolist() == list(range(8))
    assert routed[4][0].tolist() == [4, 5, 6, 7] and routed[6][0].tolist() == [6, 7]
    X = np.array([[np.nan], [3.0]])
    routed = node_rows(tree, X)
    # the missing row goes left with share 2/8 and right with 6/8 (training weights of the children)
    assert routed[1][0].tolist() == [0] and routed[1][1].tolist() == [0.25]
    np.testing.assert_allclose(routed[2][1], [0.75, 1.0])
    np.testing.assert_allclose(routed[5][1], [0.75 * 4 / 6 * 0.5])


def tree_rules_on(name, rules):
    return engine.TreeConfig(algorithm=engine.SAMPLES[name].algorithm, c45_rules=rules).resolved().c45_rules != ()


def test_refit_reproduces_the_grown_numbers_and_follows_new_data():
    # (J48's rules off for the C4.5 sample: a J48 threshold's gain carries the MDL correction, which a
    # refit on other rows does not recompute; its stats and predictions are checked by the last case)
    for name, rules in [("iris", None), ("titanic_small", ()), ("diabetes", None), ("restaurant", None),
                        ("titanic_small", None)]:
        ds = engine.load_sample(name)
        tree = engine.fit_tree(ds, engine.TreeConfig(algorithm=engine.SAMPLES[name].algorithm, c45_rules=rules))
        again = refit(tree, ds.X, ds.y)
        for a in tree.walk():
            b = again.node(a.id)
            np.testing.assert_allclose(b.stats, a.stats, atol=1e-9)
            assert b.prediction == a.prediction or b.prediction == pytest.approx(a.prediction)
            if a.split and not tree_rules_on(name, rules):
                for f in ("gain", "gain_ratio", "split_info", "known_fraction", "impurity_children"):
                    assert getattr(b.split, f) == pytest.approx(getattr(a.split, f), abs=1e-9)
    ds, tree = toy_tree()
    flipped = refit(tree, ds.X, np.where(ds.y == 0, 1, 0))
    assert flipped.node(1).prediction == "b" and flipped.node(1).stats == (0.0, 2.0)
    kept = refit(tree, ds.X, np.where(ds.y == 0, 1, 0), keep_predictions=True)
    assert kept.node(1).prediction == "a" and kept.node(1).stats == (0.0, 2.0)


def test_raise_child_moves_the_subtree_up_and_refit_routes_all_rows():
    ds, tree = toy_tree()
    raised = raise_child(tree, 2, 1)  # node 2 becomes node 4's test x <= 6.5
    assert [n.id for n in raised.walk()] == [0, 1, 2, 5, 6]
    assert raised.node(2).split.describe() == "x <= 6.5" and raised.node(2).depth == 1
    assert raised.node(5).parent == 2 and raised.node(5).depth == 2 and raised.nodes[3] is None
    assert not is_subtree_of(raised, tree)
    fitted = refit(raised, ds.X, ds.y)
    assert fitted.node(5).stats == (2.0, 2.0) and fitted.node(6).stats == (0.0, 2.0)  # rows 3..6 vs 7, 8
    with pytest.raises(DataError, match="leaf"):
        raise_child(tree, 1, 0)


def test_cut_leaf_predicting_and_tree_comparisons():
    ds, tree = toy_tree()
    small = cut(tree, 2)
    assert small.nodes[3:] == (None, None, None, None) and small.node(2).stop_reason == "pruned"
    assert is_subtree_of(small, tree) and not is_subtree_of(tree, small)
    assert removed_ids(tree, small) == (3, 4, 5, 6) and collapsed_ids(tree, small) == (2,)
    forced = small.replace_nodes({2: leaf_predicting(small.node(2), "a", ds.classes)})
    assert forced.predict(np.array([[8.0]]))[0] == "a" and forced.node(2).stats == tree.node(2).stats
    with pytest.raises(DataError):
        leaf_predicting(small.node(2), "zebra", ds.classes)


def test_targets_from_labels_codes_and_frames():
    ds, tree = toy_tree()
    assert target_codes(tree, np.array(["b", "a"], dtype=object)).tolist() == [1, 0]
    assert target_codes(tree, np.array([1, 0])).tolist() == [1, 0]
    with pytest.raises(DataError, match="zebra"):
        target_codes(tree, np.array(["zebra"], dtype=object))
    X, y = as_xy(tree, engine.Dataset.from_frame(rows([3, 9], ["b", "a"]), target="y"))
    assert X[:, 0].tolist() == [3.0, 9.0] and y.tolist() == [1, 0]
    assert postorder_internal(tree) == [4, 2, 0]


# ------------------------------------------------------------------------------ reduced error
def test_reduced_error_by_hand():
    ds, tree = toy_tree()
    val = engine.Dataset.from_frame(rows([5.5, 7, 3, 1], ["b", "b", "b", "a"]), target="y")
    res = prune_reduced_error(tree, val)
    # node 4 (rows 5.5, 7): subtree 1 error, leaf 'a' 2 -> keep; node 2 (+ row 3): subtree 1, leaf 'b' 0 -> cut;
    # root: 0 errors, leaf 'a' 3 -> keep
    assert [(s.node_id, s.action, s.number("errors with subtree"), s.number("errors as leaf")) for s in res.steps] == [
        (4, "keep", 1.0, 2.0), (2, "replace by leaf", 1.0, 0.0), (0, "keep", 0.0, 3.0)]
    assert dict(res.summary) == {"validation accuracy before": 0.75, "validation accuracy after": 1.0}
    assert [n.id for n in res.tree.walk()] == [0, 1, 2] and res.removed == (3, 4, 5, 6) and res.is_subtree
    assert res.original is tree and tree.n_leaves == 4  # never mutated


def test_reduced_error_ties_prune_and_unreached_nodes_are_cut():
    ds, tree = toy_tree()
    val = engine.Dataset.from_frame(rows([1, 3], ["a", "b"]), target="y")
    res = prune_reduced_error(tree, val)
    assert [(s.node_id, s.action) for s in res.steps] == [(4, "replace by leaf"), (2, "replace by leaf"), (0, "keep")]
    assert res.steps[0].number("validation rows") == 0.0
    assert res.tree.n_leaves == 2


def test_reduced_error_regression_uses_squared_error():
    ds = engine.Dataset.from_frame(pd.DataFrame({"x": [1, 2, 3, 4], "y": [0.0, 0.0, 10.0, 12.0]}), target="y",
                                   task="regression")
    tree = engine.fit_tree(ds)
    assert [n.split.describe() for n in tree.internal_nodes] == ["x <= 2.5", "x <= 3.5"]
    val = engine.Dataset.from_frame(pd.DataFrame({"x": [3.0, 1.0], "y": [11.5, 0.0]}), target="y", task="regression")
    res = prune_reduced_error(tree, val)
    right = tree.node(0).children[1]
    first = res.steps[0]
    assert first.node_id == right and first.action == "replace by leaf"
    assert first.number("squared error with subtree") == pytest.approx(1.5 ** 2)
    assert first.number("squared error as leaf") == pytest.approx(0.5 ** 2)
    assert res.steps[1].action == "keep" and res.steps[1].number("squared error as leaf") == pytest.approx(
        5.5 ** 2 + 6 ** 2)
    assert dict(res.summary)["validation MSE after"] == pytest.approx(0.25 / 2)


def test_reduced_error_never_lowers_validation_accuracy_on_samples():
    for name in ["noisy_moons", "titanic_small", "breast_cancer"]:
        ds = engine.load_sample(name)
        split = ds.split(test_size=0.25, validation_size=0.25, seed=1)
        tree = engine.fit_tree(split.train, engine.TreeConfig(algorithm=engine.SAMPLES[name].algorithm))
        res = prune_reduced_error(tree, split.validation)
        truth = np.asarray(ds.classes, dtype=object)[split.validation.y]
        before = np.mean(tree.predict(split.validation.X) == truth)
        after = np.mean(res.tree.predict(split.validation.X) == truth)
        summary = dict(res.summary)
        assert summary["validation accuracy before"] == pytest.approx(before)
        assert summary["validation accuracy after"] == pytest.approx(after)
        assert after >= before and res.tree.n_leaves <= tree.n_leaves and res.is_subtree
        assert len(res.steps) == len(tree.internal_nodes)


def test_reduced_error_needs_rows():
    ds, tree = toy_tree()
    with pytest.raises(ConfigError, match="validation rows"):
        prune_reduced_error(tree, (np.zeros((0, 1)), np.zeros(0, dtype=np.int64)))


# ---------------------------------------------------------------------------------- manual
def test_manual_pruning_and_dispatch():
    ds, tree = toy_tree()
    res = prune_manual(tree, [4, 2])
    assert [(s.node_id, s.number("nodes removed")) for s in res.steps] == [(4, 2.0), (2, 2.0)]
    assert res.tree.n_leaves == 2 and res.is_subtree
    with pytest.raises(ConfigError, match="already a leaf"):
        prune_manual(tree, [1])
    with pytest.raises(ConfigError, match="no node 9"):
        prune_manual(tree, [9])
    assert prune(tree, "manual", node_ids=[4]).tree.n_leaves == 3
    with pytest.raises(ConfigError, match="method must be one of"):
        prune(tree, "chainsaw")
    assert set(METHODS) == {"reduced_error", "cost_complexity", "pessimistic", "bottom_up", "manual"}


def test_records_are_frozen_and_readable():
    ds, tree = toy_tree()
    res = prune_manual(tree, [2])
    step = res.steps[0]
    assert isinstance(step, PruneStep) and isinstance(res, PruneResult)
    assert repr(step) == "PruneStep(#0 node 2: replace by leaf, nodes removed=4, leaves after=2)"
    assert repr(res) == "PruneResult(manual: 4 -> 2 leaves, 1 steps)"
    with pytest.raises(AttributeError):
        step.action = "keep"
    frame = res.log_frame()
    assert list(frame.columns) == ["step", "node", "action", "nodes removed", "leaves after", "note"]


def test_every_method_on_a_single_leaf_and_on_a_narrower_schema():
    from engine.prune.bottom_up import prune_bottom_up
    from engine.prune.pessimistic import prune_pessimistic
    from engine.prune.cost_complexity import ccp_path, prune_ccp

    ds = engine.load_sample("titanic_small")
    split = ds.split(test_size=0.2, validation_size=0.25, seed=0)
    stump = engine.fit_tree(split.train, engine.TreeConfig(max_depth=0))
    assert stump.n_nodes == 1
    assert prune_reduced_error(stump, split.validation).steps == ()
    assert ccp_path(stump).ccp_alphas.tolist() == [0.0] and prune_ccp(stump, 1.0).tree.n_nodes == 1
    assert prune_pessimistic(stump, subtree_raising=True, train=split.train).tree.n_nodes == 1
    assert prune_bottom_up(stump, evaluation="mdl", train=split.train).steps == ()
    # the Grow page's two-feature mode grows on Dataset.with_features: rows of the full schema still fit
    narrow = split.train.with_features(list(ds.feature_names[:2]))
    tree = engine.fit_tree(narrow, engine.TreeConfig(algorithm="c45"))
    res = prune_reduced_error(tree, split.validation)
    truth = np.asarray(ds.classes, dtype=object)[split.validation.y]
    after = np.mean(res.tree.predict(split.validation.frame) == truth)
    assert dict(res.summary)["validation accuracy after"] == pytest.approx(after)
    summary = dict(prune_bottom_up(tree, evaluation="validation", train=narrow, validation=split.validation).summary)
    assert summary["f after"] <= summary["f before"]
    assert len(res.scores({"train": narrow, "test": split.test})) == 2


@pytest.mark.parametrize("call, value, message", [
    ("manual", None, "node_ids must be a node id or a list of node ids; got None."),
    ("manual", [1.5], "A node id must be a whole number; got 1.5."),
    ("manual", 10**30, "There is no node 1000000000000000000000000000000 in the tree; node ids run from 0 to 6."),
    ("rep", None, "Reduced-error pruning needs validation rows: set a validation share on the Data page."),
    ("rep", "rows.csv", "The rows must be a data set or an (X, y) pair; got 'rows.csv'."),
    ("rep", (np.array([[1.0]]), [[1, 2]]), "The target must be one value per row; got an array of shape (1, 2)."),
    ("ccp", np.zeros((2, 2)), "alpha must be a number >= 0; got array([[0., 0.], [0., 0.]])."),
    ("cf", 1e-300, "The confidence factor CF must be a number from 0.001 to 0.5; got 1e-300."),
    ("raise", "yes", "subtree_raising must be True or False; got 'yes'."),
    ("method", [], "method must be one of reduced_error, cost_complexity, pessimistic, bottom_up, manual; got []."),
    ("evaluation", {"a": 1}, "evaluation must be one of validation, mdl, pessimistic; got {'a': 1}."),
    ("cv_k", 1, "k (the number of folds) must be a whole number from 2 to the number of rows (8); got 1."),
    ("cv_config", True, "config must be a TreeConfig; got True."),
    ("upper", -1, "n (rows at the leaf) must be a number of rows from 0 to 1e15; got -1."),
])
def test_bad_arguments_are_one_plain_sentence(call, value, message):
    from engine.prune.bottom_up import prune_bottom_up
    from engine.prune.pessimistic import prune_pessimistic, upper_error_rate
    from engine.prune.cost_complexity import ccp_cross_validate, prune_ccp

    ds, tree = toy_tree()
    calls = {
        "manual": lambda v: prune_manual(tree, v), "rep": lambda v: prune_reduced_error(tree, v),
        "ccp": lambda v: prune_ccp(tree, v), "cf": lambda v: prune_pessimistic(tree, cf=v),
        "raise": lambda v: prune_pessimistic(tree, subtree_raising=v), "method": lambda v: prune(tree, v),
        "evaluation": lambda v: prune_bottom_up(tree, evaluation=v, train=ds),
        "cv_k": lambda v: ccp_cross_validate(ds, k=v), "cv_config": lambda v: ccp_cross_validate(ds, v),
        "upper": lambda v: upper_error_rate(v, 0),
    }
    with pytest.raises((ConfigError, DataError)) as err:
        calls[call](value)
    assert str(err.value) == message
