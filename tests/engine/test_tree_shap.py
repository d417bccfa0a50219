"""engine.tree_shap and engine.path_contributions: exact Shapley values of the cover-weighted game (brute force
on small trees), the values add up to the raw output for every model kind (hypothesis), the layout."""

from __future__ import annotations

from itertools import combinations
from math import factorial

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import engine
from engine.data.schema import FeatureSchema
from engine.ensembles import fit_adaboost, fit_bagging, fit_random_forest
from engine.errors import ConfigError, DataError
from engine.models import ImportedModel, member_schema, tree_from_arrays
from engine.tree.shap import shapley_weights

from tests.engine.conftest import random_dataset


# ----------------------------------------------------------------------------- brute force
def cond_expectation(tree, x, known, value_of):
    """v(S): the tree's answer when only the features in ``known`` are known; the others follow every branch
    weighted by the children's covers (Lundberg et al. 2020, the path-dependent expectation)."""
    def rec(nid):
        node = tree.nodes[nid]
        if node.is_leaf:
            return value_of(node)
        kids = node.children
        j = node.split.feature_index
        if j in known:
            c = int(node.split.route(x[[j]])[0])
            if c >= 0:
                return rec(kids[c])
            cw = np.asarray(node.split.child_weights, float)
            return sum(w / cw.sum() * rec(k) for w, k in zip(cw, kids))
        cover = np.array([tree.nodes[k].weight for k in kids], float)
        return sum(w / cover.sum() * rec(k) for w, k in zip(cover, kids))
    return rec(0)


def brute_force_shap(tree, x, value_of):
    F = len(tree.schema.feature_names)
    phi = np.zeros((F + 1,) + np.shape(value_of(tree.root)))
    for i in range(F):
        others = [j for j in range(F) if j != i]
        for s in range(F):
            for S in combinations(others, s):
                w = factorial(s) * factorial(F - s - 1) / factorial(F)
                phi[i] += w * (cond_expectation(tree, x, set(S) | {i}, value_of)
                               - cond_expectation(tree, x, set(S), value_of))
    phi[F] = cond_expectation(tree, x, set(), value_of)
    return phi


@pytest.mark.parametrize("sample,algorithm", [("golf", "c45"), ("play_tennis_numeric", "c45"),
                                              ("play_tennis", "id3"), ("titanic_small", "c45"), ("ski", "cart")])
def test_tree_shap_equals_brute_force_shapley_values(sample, algorithm):
    ds = engine.load_sample(sample)
    tree = engine.fit_tree(ds, engine.TreeConfig(algorithm=algorithm, max_depth=4))
    frame = ds.frame.head(25)
    X = ds.schema.encode(frame)
    phi = engine.tree_shap(tree, frame)                                 # (n, K, F + 1)
    for r in range(len(frame)):
        want = brute_force_shap(tree, X[r], lambda n: np.asarray(n.value, float))   # (F + 1, K)
        assert np.abs(phi[r] - want.T).max() < 1e-12


def test_brute_force_on_a_regression_tree_with_a_feature_met_twice():
    ds = engine.load_sample("diabetes")
    tree = engine.fit_tree(ds, engine.TreeConfig(max_depth=5))
    feats = [n.split.feature_index for n in tree.internal_nodes]
    assert len(feats) > len(set(feats))                                 # some feature splits twice on a path
    keep = sorted(set(feats))[:6]
    small = ds.frame[[ds.schema.feature_names[j] for j in keep] + [ds.target]]
    sds = engine.Dataset.from_frame(small, target=ds.target, task="regression")
    tree = engine.fit_tree(sds, engine.TreeConfig(max_depth=5))
    X = sds.schema.encode(sds.frame.head(15))
    phi = engine.tree_shap(tree, X)
    for r in range(X.shape[0]):
        want = brute_force_shap(tree, X[r], lambda n: n.value[0])
        assert np.abs(phi[r] - want).max() < 1e-9 * max(1.0, np.abs(want).max())


def test_shapley_weights_sum_to_one_over_coalitions():
    for k in range(1, 9):
        c = shapley_weights(k)
        assert sum(c[s] * len(list(combinations(range(k - 1), s))) for s in range(k)) == pytest.approx(1.0)


# ----------------------------------------------------------------------------- additivity, every kind
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), algorithm=st.sampled_from(["cart", "c45", "id3"]),
       regression=st.booleans(), depth=st.integers(1, 6), missing=st.sampled_from([0.0, 0.15]))
def test_grown_tree_values_add_up_to_its_prediction(seed, algorithm, regression, depth, missing):
    if regression and algorithm != "cart":
        algorithm = "cart"
    ds = random_dataset(seed, categorical=True, regression=regression, missing=missing)
    tree = engine.fit_tree(ds, engine.TreeConfig(algorithm=algorithm, max_depth=depth))
    for explain in (engine.tree_shap, engine.path_contributions):
        phi = explain(tree, ds.frame)
        want = tree.predict(ds.frame) if regression else tree.predict_proba(ds.frame)
        assert phi.shape[-1] == len(ds.schema.feature_names) + 1
        assert np.abs(phi.sum(axis=-1) - want).max() < 1e-9 * max(1.0, np.abs(want).max())


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), regression=st.booleans(), method=st.sampled_from(["forest", "bagging", "ada"]))
def test_ensemble_values_add_up_to_vote_shares_or_mean(seed, regression, method):
    if method == "ada":
        regression = False
    ds = random_dataset(seed, categorical=True, regression=regression)
    fit = {"forest": lambda: fit_random_forest(ds, n_estimators=7, random_state=seed),
           "bagging": lambda: fit_bagging(ds, n_estimators=5, random_state=seed),
           "ada": lambda: fit_adaboost(ds, n_rounds=5)}[method]
    ens = fit()
    phi = engine.tree_shap(ens, ds.frame)
    want = ens.predict(ds.frame) if regression else ens.vote_shares(ds.frame)
    assert np.abs(phi.sum(axis=-1) - want).max() < 1e-9 * max(1.0, np.abs(want).max())


def random_tree(rng, schema, depth):
    """Arrays of a random binary tree over ``schema`` (threshold and category tests, random missing sides and covers)."""
    left, right, feat, thr, miss, vals, cover, sets = [], [], [], [], [], [], [], {}

    def grow(d, c):
        i = len(left)
        left.append(-1), right.append(-1), feat.append(0), thr.append(0.0), miss.append(bool(rng.random() < .5))
        vals.append([float(rng.normal())]), cover.append(c)
        if d < depth and rng.random() < 0.8:
            j = int(rng.integers(len(schema.feature_names)))
            feat[i] = j
            if schema.is_categorical(j):
                sets[i] = sorted(rng.choice(3, size=int(rng.integers(1, 3)), replace=False).tolist())
            else:
                thr[i] = float(rng.normal())
            share = float(rng.uniform(0.05, 0.95))
            left[i] = grow(d + 1, c * share)
            right[i] = grow(d + 1, c * (1 - share))
        return i

    grow(0, 100.0)
    return dict(left=left, right=right, feature=feat, threshold=thr, missing_left=miss, values=vals,
                weight=cover, category_sets=sets)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), link=st.sampled_from(["identity", "logistic", "softmax"]),
       n_trees=st.integers(1, 6), depth=st.integers(0, 5))
def test_imported_additive_model_values_add_up_to_its_margins(seed, link, n_trees, depth):
    rng = np.random.default_rng(seed)
    schema = FeatureSchema(feature_names=("a", "b", "c", "k"), kinds=("numeric",) * 3 + ("categorical",),
                           categories=((),) * 3 + (("x", "y", "z"),), target="t",
                           task="regression" if link == "identity" else "classification",
                           classes=() if link == "identity" else (("n", "p") if link == "logistic" else ("u", "v", "w")))
    K = 3 if link == "softmax" else 1
    trees = tuple(tree_from_arrays(schema=member_schema(schema), **random_tree(rng, schema, depth))
                  for _ in range(n_trees * K))
    model = ImportedModel(trees=trees, schema=schema, kind="additive", link=link, trees_per_round=K,
                          base_score=tuple(rng.normal(size=K).tolist()),
                          weights=tuple(rng.uniform(0.1, 1, size=len(trees)).tolist()))
    X = rng.normal(size=(40, 4))
    X[:, 3] = rng.integers(0, 3, 40)
    X[rng.random(X.shape) < 0.1] = np.nan
    margin = model.decision_function(X)
    for explain in (engine.tree_shap, engine.path_contributions):
        phi = explain(model, X)
        got = phi.sum(axis=-1)
        assert np.abs(got - (margin[:, 0] if K == 1 else margin)).max() < 1e-9


def test_layout_follows_xgboost_pred_contribs():
    ds = engine.load_sample("iris")
    tree = engine.fit_tree(ds, engine.TreeConfig(max_depth=3))
    assert engine.tree_shap(tree, ds.frame).shape == (150, 3, 5)      # one column per class: class shares
    reg = engine.load_sample("diabetes")
    rtree = engine.fit_tree(reg, engine.TreeConfig(max_depth=3))
    phi = engine.tree_shap(rtree, reg.frame)
    assert phi.shape == (442, 11)
    # the last column is the expected value, the same for every row: the cover-weighted mean of the leaves
    leaves = rtree.leaves
    mean = sum(n.weight * n.value[0] for n in leaves) / sum(n.weight for n in leaves)
    assert np.allclose(phi[:, -1], mean)
    # a feature the tree never tests gets nothing
    unused = [j for j, v in enumerate(rtree.feature_importances.values()) if v == 0]
    assert unused and np.all(phi[:, unused] == 0)


def test_explain_row_puts_both_side_by_side_and_ranks_them():
    ds = engine.load_sample("iris")
    tree = engine.fit_tree(ds, engine.TreeConfig(max_depth=3))
    r = engine.explain_row(tree, ds.frame.iloc[[120]], output="virginica")
    assert list(r.table.columns) == ["feature", "path", "SHAP", "path rank", "SHAP rank"]
    assert r.table["path"].sum() + r.expected == pytest.approx(r.raw)
    assert r.table["SHAP"].sum() + r.expected == pytest.approx(r.raw)
    assert r.raw == pytest.approx(tree.predict_proba(ds.frame.iloc[[120]])[0, 2])
    with pytest.raises(ConfigError, match="no output"):
        engine.explain_row(tree, ds.frame.iloc[[0]], output="rose")
    with pytest.raises(DataError, match="one row"):
        engine.explain_row(tree, ds.frame.head(2))
    with pytest.raises(DataError, match="not a tree model"):
        engine.tree_shap(object(), ds.frame)


def test_summary_samples_big_data_and_says_so():
    ds = engine.load_sample("breast_cancer")
    tree = engine.fit_tree(ds, engine.TreeConfig(max_depth=4))
    table, n, sampled = engine.shap_summary(tree, ds.frame, max_rows=100)
    assert (n, sampled) == (100, True)
    assert list(table.columns[:2]) == ["feature", "mean |SHAP|"] and len(table) == 30
    full, n, sampled = engine.shap_summary(tree, ds.frame)
    assert (n, sampled) == (569, False)
    phi = engine.tree_shap(tree, ds.frame)
    assert np.allclose(full["mean |SHAP|"], np.abs(phi[:, :, :-1]).mean(axis=0).sum(axis=0))
    imp = engine.split_importances(tree)
    assert imp.sum() == pytest.approx(1.0)
    assert np.allclose(imp.to_numpy(), list(tree.feature_importances.values()))


def test_saabas_and_shap_rank_differently_on_bundled_data():
    """The example the app and the user guide cite: iris, a CART tree grown on all 150 rows, row 100
    (virginica): path contributions put petal_width first, SHAP petal_length."""
    ds = engine.load_sample("iris")
    tree = engine.fit_tree(ds, engine.TreeConfig(algorithm="cart"))
    r = engine.explain_row(tree, ds.frame.iloc[[100]], output="virginica")
    assert r.ranks_differ and r.swapped() == ("petal_width", "petal_length")
    t = r.table.set_index("feature")
    assert t.loc["petal_width", "path"] == pytest.approx(0.478, abs=1e-3)
    assert t.loc["petal_length", "SHAP"] == pytest.approx(0.397, abs=1e-3)
    # ties among features neither moves are no disagreement
    same = engine.explain_row(tree, ds.frame.iloc[[0]], output="setosa")
    assert not same.ranks_differ and same.swapped() is None


def test_explaining_reserves_memory_and_refuses_over_the_budget(monkeypatch):
    from engine import budget
    ds = engine.load_sample("iris")
    tree = engine.fit_tree(ds, engine.TreeConfig(max_depth=2))
    seen = []
    real = budget.Pool.acquire

    def watch(self, n_bytes, **kw):
        seen.append(n_bytes)
        return real(self, n_bytes, **kw)

    monkeypatch.setattr(budget.Pool, "acquire", watch)
    engine.tree_shap(tree, ds.frame)
    assert seen and seen[0] >= 8 * 150 * 3 * 5                       # at least the result
    assert budget.POOL.used == 0                                      # given back
    monkeypatch.setenv(budget.BUDGET_ENV, "1")
    rows = np.zeros((200_000, 4))
    with pytest.raises(ConfigError, match="Explaining these rows.*explain fewer rows"):
        engine.tree_shap(tree, rows)


@pytest.mark.parametrize("sample", ["diabetes", "breast_cancer", "iris"])
def test_gradient_boosting_values_add_up_to_its_margin(sample):
    from engine.ensembles import fit_gradient_boosting

    ds = engine.load_sample(sample)
    ens = fit_gradient_boosting(ds, n_estimators=8, max_depth=3)
    rows = ds.frame.iloc[:40]
    phi = engine.tree_shap(ens, rows)
    raw = ens.raw(rows)
    assert phi.shape[-1] == len(ds.schema.feature_names) + 1
    assert np.abs(phi.sum(axis=-1).reshape(raw.shape) - raw).max() < 1e-9 * max(1.0, np.abs(raw).max())
    # the expected value is the mean margin over the training rows' cover, F_0 plus the trees' weighted means
    assert np.ptp(phi[..., -1], axis=0).max() < 1e-12
