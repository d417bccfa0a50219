"""Bagging and random forests: bootstrap bookkeeping, OOB, feature draws, votes, size curve, variance.

Oracles: the member trees themselves (votes recomputed by hand), the engine's single tree, and
scikit-learn's ensembles for accuracy ranges.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

import engine
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.ensembles import (draw_bootstrap, error_correlation, fit_bagging, fit_random_forest,
                              impurity_importances, node_feature_draws, permutation_importances, size_curve,
                              vote_breakdown)
from engine.ensembles.compiled import CompiledTree
from engine.errors import ConfigError
from engine.grow.grower import Grower


@pytest.fixture(scope="module")
def cancer():
    return engine.load_sample("breast_cancer").split(test_size=0.3, seed=0)


@pytest.fixture(scope="module")
def cancer_forest(cancer):
    return fit_random_forest(cancer.train, n_estimators=15, random_state=4)


def _labels(ds):
    return ds.frame[ds.target].astype(str).to_numpy()


def _signature(tree):
    return [(n.id, n.split.feature, n.split.threshold, n.split.category_codes) if n.split else
            (n.id, n.prediction, n.stats) for n in tree.walk()]


# ------------------------------------------------------------------------------------ bootstrap / OOB
def test_oob_rows_are_exactly_the_rows_not_drawn():
    ds = engine.load_sample("iris")
    ens = fit_bagging(ds, n_estimators=8, random_state=3, max_samples=0.8)
    n = len(ds)
    assert ens.params["n_draws"] == round(0.8 * n)
    for m, member in enumerate(ens.members):
        drawn = ens.bootstrap_indices(m)
        assert drawn.size == ens.params["n_draws"]
        np.testing.assert_array_equal(drawn, draw_bootstrap(n, ens.params["n_draws"], member.seed))
        np.testing.assert_array_equal(ens.in_bag[m], np.bincount(drawn, minlength=n))
        oob = np.flatnonzero(ens.in_bag[m] == 0)
        assert set(oob) == set(range(n)) - set(drawn.tolist())
        # the member saw exactly the drawn rows, each with its multiplicity as weight
        root = member.tree.root
        assert root.n_node_samples == np.unique(drawn).size
        assert root.weight == pytest.approx(drawn.size)


def test_oob_vote_is_the_vote_of_members_that_did_not_draw_the_row():
    ds = engine.load_sample("wine")
    ens = fit_bagging(ds, n_estimators=9, random_state=1)
    pred, has = ens.oob_predictions()
    member_preds = np.array([m.tree.predict_codes(ds.X) for m in ens.members])
    for i in range(len(ds)):
        voters = np.flatnonzero(ens.in_bag[:, i] == 0)
        assert has[i] == (voters.size > 0)
        if voters.size:
            counts = np.bincount(member_preds[voters, i], minlength=len(ds.classes))
            assert pred[i] == np.argmax(counts)
    acc = np.mean(pred[has] == ds.y[has])
    assert ens.oob_score() == pytest.approx(acc)


def test_without_bootstrap_there_is_no_oob_and_all_rows_are_used():
    ds = engine.load_sample("iris")
    ens = fit_bagging(ds, n_estimators=2, bootstrap=False, random_state=0)
    assert ens.in_bag is None
    assert all(m.tree.root.n_node_samples == len(ds) for m in ens.members)
    with pytest.raises(engine.DataError, match="bootstrap"):
        ens.oob_score()


# ------------------------------------------------------------------------------------ random forests
def test_forest_of_one_tree_without_sampling_equals_the_single_tree(cancer):
    train, test = cancer.train, cancer.test
    cfg = engine.TreeConfig(min_samples_leaf=2)
    single = engine.fit_tree(train, cfg)
    forest = fit_random_forest(train, n_estimators=1, max_features=1.0, bootstrap=False, tree_config=cfg)
    # a member breaks ties between equally good features in its seeded random order, so it is the single
    # tree grown with the member's seed (here worst_area and worst_radius cut node 1's rows alike)
    seeded = engine.fit_tree(train, replace(cfg, random_state=int(forest.members[0].seed)))
    assert _signature(forest.members[0].tree) == _signature(seeded)
    np.testing.assert_array_equal(forest.predict(test), seeded.predict(test.frame))
    np.testing.assert_array_equal(forest.predict(train), single.predict(train.frame))
    bag = fit_bagging(train, n_estimators=1, bootstrap=False, tree_config=cfg)
    assert _signature(bag.members[0].tree) == _signature(
        engine.fit_tree(train, replace(cfg, random_state=int(bag.members[0].seed))))
    np.testing.assert_array_equal(bag.predict(train), single.predict(train.frame))


def test_every_split_uses_only_the_features_drawn_at_that_node(cancer_forest, cancer):
    train = cancer.train
    k = int(np.sqrt(len(train.feature_names)))
    assert cancer_forest.params["k_features"] == k
    for m, member in enumerate(cancer_forest.members):
        cfg = engine.TreeConfig(max_features="sqrt", random_state=member.seed)
        g = Grower(train, cfg, sample_weight=cancer_forest.in_bag[m].astype(float)).grow()
        assert _signature(g.tree) == _signature(member.tree)
        for node in member.tree.internal_nodes:
            drawn = {train.feature_names[j] for j in g._features_from_path(g._paths[node.id])}
            assert len(drawn) == k
            assert node.split.feature in drawn
            assert {s.feature for s in g.candidates(node.id)} <= drawn


def test_node_feature_draws_are_the_growers(cancer_forest, cancer):
    k = cancer_forest.params["k_features"]
    for m in (0, 5):
        draws = node_feature_draws(cancer_forest, cancer.train, m)
        tree = cancer_forest.members[m].tree
        assert list(draws["node"]) == [n.id for n in tree.internal_nodes]
        for row in draws.itertuples():
            drawn = row.drawn.split(", ")
            assert len(drawn) == k and row.chosen in drawn
            assert tree.node(row.node).split.feature == row.chosen


def test_per_tree_feature_subsets(cancer):
    ens = fit_random_forest(cancer.train, n_estimators=6, max_features=4, per_tree_features=True, random_state=2)
    assert ens.params["feature_sampling"] == "tree"
    subsets = [m.features for m in ens.members]
    assert all(len(s) == 4 for s in subsets) and len(set(subsets)) > 1
    for member in ens.members:
        assert member.tree.schema.feature_names == member.features
        assert {n.split.feature for n in member.tree.internal_nodes} <= set(member.features)
    # the compiled vote equals each member tree's own prediction on its columns
    outs = ens.member_outputs(cancer.test)
    for m, member in enumerate(ens.members):
        np.testing.assert_array_equal(outs[m], member.tree.predict_codes(cancer.test.frame))
    imp = impurity_importances(ens)
    assert imp.sum() == pytest.approx(1.0)
    unused = set(cancer.train.feature_names) - set().union(*map(set, subsets))
    assert all(imp[f] == 0 for f in unused)


def test_feature_draws_vary_the_roots():
    ds = engine.load_sample("wine")
    bag = fit_bagging(ds, n_estimators=20, random_state=0)
    forest = fit_random_forest(ds, n_estimators=20, max_features=1, random_state=0)
    roots_bag = {m.tree.root.split.feature for m in bag.members}
    roots_rf = {m.tree.root.split.feature for m in forest.members}
    assert len(roots_rf) > len(roots_bag)


def test_same_seed_same_forest_and_other_seed_differs(cancer):
    a = fit_random_forest(cancer.train, n_estimators=3, random_state=9)
    b = fit_random_forest(cancer.train, n_estimators=3, random_state=9)
    c = fit_random_forest(cancer.train, n_estimators=3, random_state=10)
    assert [_signature(m.tree) for m in a.members] == [_signature(m.tree) for m in b.members]
    np.testing.assert_array_equal(a.in_bag, b.in_bag)
    assert not np.array_equal(a.in_bag, c.in_bag)


@pytest.mark.parametrize("name", ["breast_cancer", "wine", "iris"])
def test_accuracy_in_sklearns_range(name):
    from sklearn.ensemble import BaggingClassifier, RandomForestClassifier
    from sklearn.tree import DecisionTreeClassifier

    split = engine.load_sample(name).split(test_size=0.3, seed=1)
    train, test = split.train, split.test
    ours_rf = np.mean(fit_random_forest(train, n_estimators=40, random_state=0).predict(test) == _labels(test))
    ours_bag = np.mean(fit_bagging(train, n_estimators=25, random_state=0).predict(test) == _labels(test))
    sk_rf, sk_bag = [], []
    for seed in range(3):
        rf = RandomForestClassifier(n_estimators=40, random_state=seed, n_jobs=1).fit(train.X, train.y)
        sk_rf.append(rf.score(test.X, test.y))
        bag = BaggingClassifier(DecisionTreeClassifier(), n_estimators=25, random_state=seed).fit(train.X, train.y)
        sk_bag.append(bag.score(test.X, test.y))
    assert min(sk_rf) - 0.05 <= ours_rf <= max(sk_rf) + 0.05
    assert min(sk_bag) - 0.05 <= ours_bag <= max(sk_bag) + 0.05


def test_regression_forest_in_sklearns_range():
    from sklearn.ensemble import RandomForestRegressor

    split = engine.load_sample("diabetes").split(test_size=0.3, seed=0)
    ens = fit_random_forest(split.train, n_estimators=30, max_features=0.33, random_state=0)
    mse = np.mean((ens.predict(split.test) - split.test.y) ** 2)
    sk = [np.mean((RandomForestRegressor(n_estimators=30, max_features=0.33, random_state=s)
                   .fit(split.train.X, split.train.y).predict(split.test.X) - split.test.y) ** 2) for s in range(3)]
    assert min(sk) * 0.85 <= mse <= max(sk) * 1.15
    assert ens.oob_score() == pytest.approx(np.mean((ens.combine(ens.oob_votes()) - split.train.y) ** 2))


# ------------------------------------------------------------------------------------ votes, curves
def test_vote_breakdown_matches_the_members(cancer_forest, cancer):
    row = cancer.test.frame.iloc[[3]]
    vb = vote_breakdown(cancer_forest, row)
    preds = [m.tree.predict(row)[0] for m in cancer_forest.members]
    assert list(vb.members["prediction"]) == preds
    assert vb.tally["votes"].sum() == len(preds) == vb.tally["weight"].sum()
    assert vb.winner == cancer_forest.predict(row)[0]
    assert vb.tally.set_index("class").loc[vb.winner, "votes"] == max(preds.count(c) for c in set(preds))
    with pytest.raises(engine.DataError, match="one row"):
        vote_breakdown(cancer_forest, cancer.test.frame.iloc[:2])


def test_size_curve_matches_direct_scores(cancer_forest, cancer):
    curve = size_curve(cancer_forest, cancer.test)
    assert list(curve.columns) == ["n_members", "train", "test", "oob", "metric"]
    assert len(curve) == cancer_forest.n_members
    y = cancer.test.y
    for k in (1, 7, cancer_forest.n_members):
        row = curve.iloc[k - 1]
        assert row.test == pytest.approx(np.mean(cancer_forest.predict_codes(cancer.test, upto=k) == y))
        assert row.oob == pytest.approx(cancer_forest.oob_score(upto=k), nan_ok=True)
    first = cancer_forest.members[0].tree.predict_codes(cancer.train.X)
    assert curve.train.iloc[0] == pytest.approx(np.mean(first == cancer.train.y))


def test_variance_argument(cancer_forest, cancer):
    rep = error_correlation(cancer_forest, cancer.test)
    E = np.array([m.tree.predict_codes(cancer.test.X) != cancer.test.y for m in cancer_forest.members], float)
    assert rep.measured == pytest.approx(E.mean(0).var())
    assert rep.sigma2 == pytest.approx(E.var(1).mean())
    corr = np.corrcoef(E)
    iu = np.triu_indices(len(E), 1)
    assert rep.rho == pytest.approx(np.nanmean(corr[iu]))
    M = len(E)
    assert rep.predicted == pytest.approx(rep.rho * rep.sigma2 + (1 - rep.rho) / M * rep.sigma2)
    assert rep.curve.measured.iloc[0] == pytest.approx(E[0].var())
    assert "measured" in rep.arithmetic()


def test_identical_members_are_perfectly_correlated():
    # without bootstrap the members differ only where equally good features tie (each member breaks ties in
    # its own seeded order); on the ski data nothing ties, so the members are identical
    split = engine.load_sample("ski").split(test_size=0.3, seed=0)
    ens = fit_bagging(split.train, n_estimators=4, bootstrap=False)
    rep = error_correlation(ens, split.test)
    assert rep.rho == pytest.approx(1.0)
    assert rep.measured == pytest.approx(rep.sigma2) == pytest.approx(rep.predicted)


def test_permutation_importance_finds_the_informative_feature():
    rng = np.random.default_rng(0)
    n = 300
    frame = pd.DataFrame({"signal": rng.random(n), "noise1": rng.random(n), "noise2": rng.random(n)})
    frame["y"] = np.where(frame.signal > 0.5, "hi", "lo")
    ds = engine.Dataset.from_frame(frame, target="y")
    ens = fit_random_forest(ds, n_estimators=15, max_features=2, random_state=0)
    imp = permutation_importances(ens, ds, n_repeats=2).set_index("feature")
    assert imp.loc["signal", "importance"] > 0.3
    assert abs(imp.loc["noise1", "importance"]) < 0.05
    assert impurity_importances(ens).idxmax() == "signal"


# ------------------------------------------------------------------------------------ compiled prediction
@pytest.mark.parametrize("name", ["titanic_small", "restaurant", "play_tennis", "diabetes", "iris", "breast_cancer"])
def test_compiled_prediction_equals_the_trees(name):
    ds = engine.load_sample(name)
    ens = fit_bagging(ds, n_estimators=4, random_state=0,
                      tree_config=engine.TreeConfig(algorithm="c45" if name != "diabetes" else "cart"))
    outs = ens.member_outputs(ds)
    for m, member in enumerate(ens.members):
        if ds.task == "classification":
            np.testing.assert_array_equal(outs[m], member.tree.predict_codes(ds.frame))
        else:
            np.testing.assert_allclose(outs[m], member.tree.predict(ds.frame))
    np.testing.assert_array_equal(outs, ens.train_outputs)


def test_compiled_threshold_routing_at_the_thresholds():
    """Rows whose values sit exactly on a threshold (and just above it) go as the tree sends them."""
    ds = engine.load_sample("iris")
    ens = fit_random_forest(ds, n_estimators=3, random_state=1)
    for member in ens.members:
        tree = member.tree
        feat, thr, is_thr, leaf, *_ = tree._arrays
        rows = []
        for j, t in zip(feat[~leaf], thr[~leaf]):
            for v in (t, np.nextafter(t, np.inf)):
                x = ds.X[len(rows) % len(ds)].copy()
                x[j] = v
                rows.append(x)
        X = np.array(rows)
        flat = CompiledTree(tree, ds.classes)
        np.testing.assert_array_equal(flat.predict(X), tree.predict_codes(X))


@pytest.mark.parametrize("kwargs, message", [
    ({"n_estimators": 0}, "n_estimators"), ({"max_samples": 1.5}, "max_samples"),
    ({"random_state": -1}, "random_state"), ({"bootstrap": "yes"}, "bootstrap"),
])
def test_bad_settings_raise_config_errors(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        fit_bagging(engine.load_sample("iris"), **kwargs)


def test_forest_settings_are_checked():
    ds = engine.load_sample("iris")
    with pytest.raises(ConfigError, match="max_features"):
        fit_random_forest(ds, max_features=None)
    with pytest.raises(ConfigError, match="max_features"):
        fit_random_forest(ds, max_features=0)


def test_progress_is_reported():
    seen = []
    fit_bagging(engine.load_sample("iris"), n_estimators=3, progress=lambda i, n: seen.append((i, n)))
    assert seen == [(1, 3), (2, 3), (3, 3)]


@settings(max_examples=20, deadline=None)
@given(st.data())
def test_compiled_prediction_with_missing_values_and_new_categories(data):
    """Members' fast routing equals Tree.predict_proba, including C4.5's fractional rows."""
    n = data.draw(st.integers(12, 40))
    rng = np.random.default_rng(data.draw(st.integers(0, 10_000)))
    x = rng.normal(size=n)
    x[rng.random(n) < 0.2] = np.nan
    colour = rng.choice(["red", "green", "blue"], size=n).astype(object)
    colour[rng.random(n) < 0.15] = None
    frame = pd.DataFrame({"x": x, "colour": colour, "z": rng.integers(0, 4, n).astype(float),
                          "y": rng.choice(["a", "b", "c"], size=n)})
    frame.loc[:2, "y"] = ["a", "b", "c"]
    ds = engine.Dataset.from_frame(frame, target="y")
    algorithm = data.draw(st.sampled_from(["c45", "cart", "id3"]))
    ens = fit_bagging(ds, n_estimators=3, random_state=1, tree_config=engine.TreeConfig(algorithm=algorithm))
    new = frame.drop(columns="y").copy()
    new.loc[new.index[:3], "colour"] = "purple"  # a category no tree has seen
    outs = ens.member_outputs(new)
    for m, member in enumerate(ens.members):
        np.testing.assert_array_equal(outs[m], member.tree.predict_codes(new))
