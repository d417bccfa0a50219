"""Cost-complexity pruning: a hand-computed path, scikit-learn as oracle, cross-validation with the 1-SE rule."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

import engine
from engine.errors import ConfigError
from engine.data.folds import kfold_indices
from engine.prune.cost_complexity import ccp_cross_validate, ccp_path, prune_ccp
from engine.split.records import Split
from engine.tree.node import Node
from engine.tree.store import Tree
from engine.tree.surgery import is_subtree_of


def toy():
    """x = 1..10, y = a a a b a a b b a b (CART, gini), W = 10:

    0 (6,4) x<=6.5 -> 1 (5,1) x<=3.5 -> [3 (3,0)] [4 (2,1) x<=4.5 -> [7 (0,1)] [8 (2,0)]]
                   -> 2 (1,3) x<=8.5 -> [5 (0,2)] [6 (1,1) x<=9.5 -> [9 (1,0)] [10 (0,1)]]
    """
    ds = engine.Dataset.from_frame(pd.DataFrame({"x": range(1, 11), "y": list("aaabaabbab")}), target="y")
    tree = engine.fit_tree(ds, engine.TreeConfig(algorithm="cart"))
    assert [(n.id, n.stats) for n in tree.internal_nodes] == [
        (0, (6.0, 4.0)), (1, (5.0, 1.0)), (4, (2.0, 1.0)), (2, (1.0, 3.0)), (6, (1.0, 1.0))]
    return ds, tree


def test_weakest_link_path_by_hand():
    ds, tree = toy()
    # R(t) = w_t/W * gini(t): R0 = .48, R1 = .6 * 5/18 = 1/6, R4 = .3 * 4/9 = 2/15, R2 = .4 * .375 = .15, R6 = .1
    # g: root .48/5 = .096, node1 (1/6)/2, node4 2/15, node2 .15/2 = .075 (smallest), node6 .1
    # after cutting 2: g(root) = (.48 - .15)/3 = .11, g(1) = 1/12 (smallest); then g(root) = .48 - .15 - 1/6
    path = ccp_path(tree, train=ds)
    np.testing.assert_allclose(path.ccp_alphas, [0, 0.075, 1 / 12, 0.48 - 0.15 - 1 / 6])
    np.testing.assert_allclose(path.impurities, [0, 0.15, 0.15 + 1 / 6, 0.48])
    assert path.n_leaves.tolist() == [6, 4, 2, 1] and path.pruned_nodes == (-1, 2, 1, 0)
    assert path.table["n_nodes"].tolist() == [11, 7, 3, 1]
    np.testing.assert_allclose(path.table["train_accuracy"], [1.0, 0.9, 0.8, 0.6])
    res = prune_ccp(tree, 0.08)
    assert [(s.node_id, round(s.number("g(t)"), 6)) for s in res.steps] == [(2, 0.075)]
    assert res.steps[0].number("R(t)") == pytest.approx(0.15) and res.steps[0].number("R(T_t)") == 0
    assert res.steps[0].number("leaves removed") == 2
    summary = dict(res.summary)  # R_alpha(T) = R(T) + alpha |leaves|: 0 + .08 * 6 before, .15 + .08 * 4 after
    assert summary["R(T) after"] == pytest.approx(0.15)
    assert summary["R_alpha(T) before"] == pytest.approx(0.48) and summary["R_alpha(T) after"] == pytest.approx(0.47)
    assert prune_ccp(tree, float(path.ccp_alphas[2])).tree.n_leaves == 2 and prune_ccp(tree, 1.0).tree.n_leaves == 1
    assert prune_ccp(tree, 0.0).tree.n_leaves == 6
    assert path.index_for(0.08) == 1 and path.tree_at(0.1).n_leaves == 2


def test_path_trees_are_nested_subtrees():
    ds = engine.load_sample("noisy_moons")
    tree = engine.fit_tree(ds)
    path = ccp_path(tree)
    for before, after in zip(path.trees, path.trees[1:]):
        assert is_subtree_of(after, before) and after.n_leaves < before.n_leaves
    assert all(t.n_leaves == k for t, k in zip(path.trees, path.n_leaves))
    assert np.all(np.diff(path.ccp_alphas) >= -1e-12) and np.all(np.diff(path.impurities) >= -1e-12)
    for alpha in path.distinct_alphas[::7]:
        assert prune_ccp(tree, float(alpha)).tree.to_dict() == path.tree_at(float(alpha)).to_dict()


# ----------------------------------------------------------------------- scikit-learn as oracle
def from_sklearn(est, ds) -> Tree:
    """Our Tree with exactly the structure and numbers of a fitted scikit-learn tree (node ids in sklearn order)."""
    t = est.tree_
    task = ds.task
    parent = {c: i for i in range(t.node_count) for c in (t.children_left[i], t.children_right[i]) if c >= 0}
    depth = {0: 0}
    nodes = []
    for i in range(t.node_count):
        w = float(t.weighted_n_node_samples[i])
        if task == "classification":
            stats = tuple((t.value[i, 0] * w).tolist())
            value, prediction = tuple(t.value[i, 0].tolist()), ds.classes[int(np.argmax(t.value[i, 0]))]
        else:
            mean = float(t.value[i, 0, 0])
            stats, value, prediction = (w, mean * w, 0.0), (mean,), mean
        split, children = None, ()
        if t.children_left[i] >= 0:
            left, right = int(t.children_left[i]), int(t.children_right[i])
            depth[left] = depth[right] = depth[i] + 1
            j = int(t.feature[i])
            split = Split(feature=ds.feature_names[j], feature_index=j, kind="threshold",
                          threshold=float(t.threshold[i]),
                          child_weights=(float(t.weighted_n_node_samples[left]), float(t.weighted_n_node_samples[right])),
                          task=task)
            children = (left, right)
        nodes.append(Node(id=i, parent=parent.get(i), depth=depth[i], branch="", stats=stats, weight=w,
                          n_node_samples=int(t.n_node_samples[i]), impurity=float(t.impurity[i]), value=value,
                          prediction=prediction, criterion="gini" if task == "classification" else "variance",
                          split=split, children=children))
    return Tree(tuple(nodes), ds.schema, nodes[0].criterion)


@pytest.mark.parametrize("name", ["iris", "wine", "breast_cancer", "diabetes"])
def test_path_and_pruned_trees_equal_scikit_learn_on_the_same_tree(name):
    ds = engine.load_sample(name)
    est_cls = DecisionTreeClassifier if ds.task == "classification" else DecisionTreeRegressor
    est = est_cls(random_state=0, max_depth=None if ds.task == "classification" else 8).fit(ds.X, ds.y)
    ref = est.cost_complexity_pruning_path(ds.X, ds.y)
    ours = ccp_path(from_sklearn(est, ds))
    assert len(ours.ccp_alphas) == len(ref.ccp_alphas)
    np.testing.assert_allclose(ours.ccp_alphas, ref.ccp_alphas, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ours.impurities, ref.impurities, rtol=1e-9, atol=1e-12)
    tree = from_sklearn(est, ds)
    for alpha in np.unique(ref.ccp_alphas)[:: max(1, len(ref.ccp_alphas) // 6)]:
        pruned_ref = est_cls(random_state=0, max_depth=est.max_depth, ccp_alpha=alpha).fit(ds.X, ds.y)
        pruned = prune_ccp(tree, float(alpha)).tree
        assert pruned.n_leaves == pruned_ref.get_n_leaves() and pruned.n_nodes == pruned_ref.tree_.node_count
        if ds.task == "classification":
            np.testing.assert_array_equal(pruned.predict_codes(ds.X), pruned_ref.predict(ds.X))
        else:
            np.testing.assert_allclose(pruned.predict(ds.X), pruned_ref.predict(ds.X))


@pytest.mark.parametrize("name", ["iris", "wine", "breast_cancer", "diabetes", "ski"])
def test_path_of_our_own_cart_tree_equals_scikit_learn(name):
    """Our CART grows the same partitions as scikit-learn (tied features may differ), so the paths agree."""
    ds = engine.load_sample(name)
    ours = ccp_path(engine.fit_tree(ds, engine.TreeConfig(algorithm="cart")))
    est_cls = DecisionTreeClassifier if ds.task == "classification" else DecisionTreeRegressor
    ref = est_cls(random_state=0).fit(ds.X, ds.y).cost_complexity_pruning_path(ds.X, ds.y)
    np.testing.assert_allclose(ours.ccp_alphas, ref.ccp_alphas, rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(ours.impurities, ref.impurities, rtol=1e-7, atol=1e-10)


# ------------------------------------------------------------------------------- validation, CV
def test_validation_scores_and_choice():
    ds = engine.load_sample("noisy_moons")
    split = ds.split(test_size=0.2, validation_size=0.25, seed=0)
    tree = engine.fit_tree(split.train)
    path = ccp_path(tree, train=split.train, validation=split.validation)
    truth = np.asarray(ds.classes, dtype=object)[split.validation.y]
    for i in range(0, len(path.trees), 9):
        acc = np.mean(path.trees[i].predict(split.validation.X) == truth)
        assert path.table["validation_accuracy"].iloc[i] == pytest.approx(acc)
    best = path.best_by_validation()
    col = path.table["validation_accuracy"]
    assert col.iloc[best] == col.max() and (col.iloc[best + 1:] < col.max()).all()
    with pytest.raises(ConfigError, match="validation rows"):
        ccp_path(tree).best_by_validation()
    reg = engine.load_sample("diabetes").split(test_size=0.2, validation_size=0.2, seed=0)
    rpath = ccp_path(engine.fit_tree(reg.train, engine.TreeConfig(max_depth=6)), validation=reg.validation)
    mse = np.mean((rpath.trees[3].predict(reg.validation.X) - reg.validation.y) ** 2)
    assert rpath.table["validation_mse"].iloc[3] == pytest.approx(mse)


def test_kfold_indices_partition_and_stratify():
    y = np.array([0] * 30 + [1] * 10)
    folds = kfold_indices(40, 5, seed=3, y=y)
    assert sorted(np.concatenate(folds).tolist()) == list(range(40))
    assert [int((y[f] == 1).sum()) for f in folds] == [2, 2, 2, 2, 2]
    assert [f.tolist() for f in folds] == [f.tolist() for f in kfold_indices(40, 5, seed=3, y=y)]
    with pytest.raises(engine.DataError, match="5 folds need at least 5 rows"):
        kfold_indices(4, 5)


def test_cross_validation_by_hand_on_breast_cancer():
    ds = engine.load_sample("breast_cancer")
    cfg = engine.TreeConfig(algorithm="cart")
    cv = ccp_cross_validate(ds, cfg, k=4, seed=2)
    table = cv.table
    alphas = cv.path.distinct_alphas
    np.testing.assert_allclose(table["midpoint"].iloc[:-1], np.sqrt(alphas[:-1] * alphas[1:]))
    assert np.isinf(table["midpoint"].iloc[-1]) and table["n_leaves"].iloc[-1] == 1
    # recompute one row by hand: grow on each fold's training part, prune at the midpoint, count held-out errors
    i = len(table) // 2
    folds = kfold_indices(len(ds), 4, seed=2, y=ds.y)
    wrong = np.zeros(len(ds))
    for f, held in enumerate(folds):
        fold_tree = engine.fit_tree(ds.subset(np.setdiff1d(np.arange(len(ds)), held)), cfg)
        pruned = prune_ccp(fold_tree, float(table["midpoint"].iloc[i])).tree
        wrong[held] = pruned.predict_codes(ds.X[held]) != ds.y[held]
        assert table[f"fold_{f + 1}"].iloc[i] == pytest.approx(wrong[held].mean())
    assert table["cv_error"].iloc[i] == pytest.approx(wrong.mean())
    assert table["se"].iloc[i] == pytest.approx(np.sqrt(wrong.mean() * (1 - wrong.mean()) / len(ds)))
    # the rules
    best = cv.best_index
    assert table["cv_error"].iloc[best] == table["cv_error"].min()
    limit = table["cv_error"].iloc[best] + table["se"].iloc[best]
    assert table["cv_error"].iloc[cv.one_se_index] <= limit + 1e-12
    assert (table["cv_error"].iloc[cv.one_se_index + 1:] > limit).all()
    assert cv.one_se_index >= best and cv.alpha_1se >= cv.alpha_min


def test_cross_validation_regression_and_bad_alpha():
    ds = engine.load_sample("diabetes")
    cv = ccp_cross_validate(ds, engine.TreeConfig(max_depth=5), k=3, seed=0)
    assert (cv.table["cv_error"] > 0).all() and cv.table["cv_error"].iloc[-1] == pytest.approx(
        np.var(ds.y), rel=0.05)
    ds_, tree = toy()
    for bad in (-1, float("nan"), "big", True):
        with pytest.raises(ConfigError, match="alpha must be a number >= 0"):
            prune_ccp(tree, bad)


def test_path_and_cv_figures():
    from engine.viz.prune_figs import alpha_path_figure, cv_figure

    ds, tree = toy()
    path = ccp_path(tree, train=ds, validation=ds)
    fig = alpha_path_figure(path, chosen=float(path.ccp_alphas[1]))
    leaves, train, val, chosen = fig.data
    np.testing.assert_allclose(leaves.x[:4], path.ccp_alphas)
    np.testing.assert_allclose(leaves.x[4], path.ccp_alphas[-1] * 1.08)
    assert list(leaves.y) == [6, 4, 2, 1, 1] and leaves.line.shape == "hv"
    np.testing.assert_allclose(train.y, [1.0, 0.9, 0.8, 0.6, 0.6])
    assert chosen.name == "chosen α = 0.075" and list(chosen.y) == [4]
    cv = ccp_cross_validate(engine.load_sample("iris"), engine.TreeConfig(), k=3, seed=0)
    fig = cv_figure(cv)
    line, best, one_se = fig.data
    np.testing.assert_allclose(line.y, cv.table["cv_error"])
    np.testing.assert_allclose(line.error_y.array, cv.table["se"])
    assert list(best.x) == [cv.best_index] and list(one_se.x) == [cv.one_se_index]
    assert fig.layout.shapes[0].y0 == pytest.approx(cv.table["cv_error"][cv.best_index] + cv.table["se"][cv.best_index])
