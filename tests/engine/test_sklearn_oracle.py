"""CART against scikit-learn as a reference oracle (test-only dependency)."""

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

import engine


def _sk_root_gain(sk):
    t = sk.tree_
    l, r = t.children_left[0], t.children_right[0]
    n = t.weighted_n_node_samples
    return t.impurity[0] - (n[l] * t.impurity[l] + n[r] * t.impurity[r]) / n[0]


@pytest.mark.parametrize("name", ["iris", "wine", "breast_cancer", "ski", "noisy_moons"])
def test_cart_matches_sklearn(name):
    ds = engine.load_sample(name)
    split = ds.split(test_size=0.3, seed=1)
    tree = engine.fit_tree(split.train, engine.TreeConfig(algorithm="cart"))
    X, y = split.train.X, split.train.y
    Xt, yt = split.test.X, split.test.y
    accs, leaves, gains = [], [], []
    for seed in range(8):
        sk = DecisionTreeClassifier(random_state=seed).fit(X, y)
        accs.append((sk.predict(Xt) == yt).mean())
        leaves.append(sk.get_n_leaves())
        gains.append(_sk_root_gain(sk))
    assert tree.root.split.gain == pytest.approx(max(gains), rel=1e-9)
    ours = (tree.predict_codes(Xt) == yt).mean()
    spread = max(accs) - min(accs)
    assert min(accs) - max(spread, 0.03) <= ours <= max(accs) + max(spread, 0.03)
    assert min(leaves) - 2 <= tree.n_leaves <= max(leaves) + 2
    # a fully grown tree fits the training data (no contradictory rows in these sets unless sklearn also fails)
    assert (tree.predict_codes(X) == y).mean() == pytest.approx((sk.predict(X) == y).mean())


def test_cart_with_depth_limit_equals_sklearn_structure():
    ds = engine.load_sample("breast_cancer")
    tree = engine.fit_tree(ds, engine.TreeConfig(max_depth=3))
    sk = DecisionTreeClassifier(max_depth=3, random_state=0).fit(ds.X, ds.y)
    assert tree.n_leaves == sk.get_n_leaves()
    assert np.array_equal(tree.predict_codes(ds.X), sk.predict(ds.X))
    imp = np.array(list(tree.feature_importances.values()))
    # sklearn breaks exact ties between features at random: compare the multiset of importances
    assert np.allclose(np.sort(imp), np.sort(sk.feature_importances_), atol=1e-9)


def test_regression_matches_sklearn():
    ds = engine.load_sample("diabetes")
    split = ds.split(test_size=0.25, seed=0)
    for depth in (2, 4, None):
        tree = engine.fit_tree(split.train, engine.TreeConfig(max_depth=depth, min_samples_leaf=3))
        sk = DecisionTreeRegressor(max_depth=depth, min_samples_leaf=3, random_state=0).fit(split.train.X,
                                                                                            split.train.y)
        assert tree.root.split.gain == pytest.approx(_sk_root_gain(sk), rel=1e-9)
        if depth is not None:
            assert np.allclose(tree.predict(split.test.X), sk.predict(split.test.X))
        mse_ours = np.mean((tree.predict(split.test.X) - split.test.y) ** 2)
        mse_sk = np.mean((sk.predict(split.test.X) - split.test.y) ** 2)
        assert mse_ours == pytest.approx(mse_sk, rel=0.25)


def test_regression_tree_predictions_sum_to_training_target():
    ds = engine.load_sample("diabetes")
    tree = engine.fit_tree(ds, engine.TreeConfig(max_depth=5))
    assert tree.predict(ds.X).sum() == pytest.approx(ds.y.sum())


def test_max_leaf_nodes_best_first_matches_sklearn():
    ds = engine.load_sample("wine")
    for k in (2, 5, 9):
        tree = engine.fit_tree(ds, engine.TreeConfig(max_leaf_nodes=k))
        sk = DecisionTreeClassifier(max_leaf_nodes=k, random_state=0).fit(ds.X, ds.y)
        assert tree.n_leaves == sk.get_n_leaves() == k
        assert np.array_equal(tree.predict_codes(ds.X), sk.predict(ds.X))
