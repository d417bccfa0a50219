"""ONNX export: onnxruntime (a test oracle only) predicts exactly as the app on the same rows."""

import json

import numpy as np
import onnx
import pandas as pd
import pytest

import engine
from engine.ensembles import fit_adaboost, fit_bagging, fit_random_forest
from engine.ensembles.onnx_export import ensemble_to_onnx, onnx_problem, to_onnx, tree_to_onnx
from engine.errors import DataError
from engine.tree.edit import cut, leaf_predicting, raise_child

ort = pytest.importorskip("onnxruntime")


def run(blob: bytes, X: np.ndarray):
    session = ort.InferenceSession(blob, providers=["CPUExecutionProvider"])
    return session.run(None, {"X": np.asarray(X, dtype=np.float64)})


def test_rows(ds, n=1500, seed=0):
    """The data set's complete rows plus ``n`` random rows (numbers anywhere in each column's range, any
    category code, so categories a node never saw), then 8% of all values missing: the app and the file must
    agree on every one."""
    rng = np.random.default_rng(seed)
    X = ds.X[~np.isnan(ds.X).any(axis=1)]
    extra = np.empty((n, X.shape[1]))
    for j, kind in enumerate(ds.schema.kinds):
        col = ds.X[:, j][~np.isnan(ds.X[:, j])]
        if kind == "categorical":
            extra[:, j] = rng.integers(0, len(ds.schema.categories[j]), size=n)
        else:
            extra[:, j] = np.where(rng.random(n) < 0.5, rng.choice(col, size=n), rng.uniform(col.min(), col.max(), n))
    rows = np.vstack([X, extra])
    rows[rng.random(rows.shape) < 0.08] = np.nan          # missing values anywhere, as the app mixes them
    return rows


test_rows.__test__ = False


def assert_same(model, X):
    """The file predicts as the app on every row (at least 1,000), missing values included."""
    assert X.shape[0] >= 1000 and np.isnan(X).any()
    out = run(to_onnx(model), X)
    if model.task == "classification":
        shares = model.vote_shares(X) if hasattr(model, "members") else model.predict_proba(X)
        assert list(out[0]) == list(model.predict(X))
        np.testing.assert_allclose(out[1], shares, rtol=0, atol=1e-5)
    else:
        assert out[0].shape == (X.shape[0], 1)
        np.testing.assert_allclose(out[0][:, 0], model.predict(X), rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("sample, algorithm, max_depth", [
    ("play_tennis", "id3", None),        # multiway category tests
    ("play_tennis", "cart", None),       # subset category tests
    ("restaurant", "id3", None),
    ("iris", "cart", None),
    ("iris", "c45", 3),
    ("titanic_small", "c45", None),      # numbers, categories and missing values in training
    ("breast_cancer", "cart", 6),
    ("diabetes", "cart", 6),             # regression
    ("diabetes", "cart", None),
])
def test_a_tree_predicts_the_same_in_onnxruntime(sample, algorithm, max_depth):
    ds = engine.load_sample(sample)
    tree = engine.fit_tree(ds, engine.TreeConfig(algorithm=algorithm, max_depth=max_depth))
    assert tree.n_leaves > 2
    assert_same(tree, test_rows(ds))


def test_category_tests_of_every_kind_are_in_the_file():
    ds = engine.load_sample("play_tennis")
    kinds = set()
    for algorithm in ("id3", "cart"):
        tree = engine.fit_tree(ds, engine.TreeConfig(algorithm=algorithm))
        kinds |= {n.split.kind for n in tree.internal_nodes}
        model = onnx.load_from_string(tree_to_onnx(tree))
        modes = [a for a in model.graph.node[0].attribute if a.name == "nodes_modes"][0].strings
        assert b"BRANCH_EQ" in modes
    assert {"multiway", "subset"} <= kinds


def test_a_tree_pruned_and_edited_by_hand_predicts_the_same():
    ds = engine.load_sample("titanic_small")
    tree = engine.fit_tree(ds, engine.TreeConfig(algorithm="cart", max_depth=5))
    inner = [n for n in tree.internal_nodes if n.id != 0]
    edited = cut(tree, inner[-1].id)                                       # a subtree cut to a leaf
    leaf = edited.leaves[0]
    other = next(c for c in tree.schema.classes if c != leaf.prediction)
    edited = edited.replace_nodes({leaf.id: leaf_predicting(leaf, other, tree.schema.classes)})  # relabelled
    edited = raise_child(edited, edited.root.children[0], 1) if not edited.node(edited.root.children[0]).is_leaf \
        else edited
    assert edited.fingerprint != tree.fingerprint
    X = test_rows(ds)
    assert_same(edited, X)
    assert list(run(tree_to_onnx(edited), X)[0]) != list(tree.predict(X))  # the edits are in the file


def test_a_level_wise_tree_exports_from_its_node_store():
    ds = engine.load_sample("breast_cancer")
    tree = engine.fit_tree(ds, engine.TreeConfig(algorithm="cart"))
    assert hasattr(tree.nodes, "routing")        # grown by the level-wise grower
    assert_same(tree, test_rows(ds))


@pytest.mark.parametrize("sample, fit", [
    ("play_tennis", lambda d: fit_random_forest(d, n_estimators=15, random_state=1)),
    ("titanic_small", lambda d: fit_random_forest(d, n_estimators=12, per_tree_features=True, random_state=2)),
    ("iris", lambda d: fit_bagging(d, n_estimators=10, random_state=3)),
    ("iris", lambda d: fit_adaboost(d, n_rounds=20)),
    ("wine", lambda d: fit_adaboost(d, n_rounds=15, base="tree", max_depth=2)),
    ("restaurant", lambda d: fit_adaboost(d, n_rounds=10)),
    ("diabetes", lambda d: fit_random_forest(d, n_estimators=10, random_state=4)),   # regression mean
])
def test_an_ensemble_votes_the_same_in_onnxruntime(sample, fit):
    ds = engine.load_sample(sample)
    ensemble = fit(ds)
    assert ensemble.n_members > 1
    assert_same(ensemble, test_rows(ds))


def test_missing_values_and_unseen_categories_mix_branches_as_in_the_app():
    ds = engine.load_sample("titanic_small")
    tree = engine.fit_tree(ds, engine.TreeConfig(algorithm="c45"))
    rows = ds.X[np.isnan(ds.X).any(axis=1)]                     # the data's own rows with missing values
    assert rows.shape[0] > 10
    probabilities = run(tree_to_onnx(tree), rows)[1]
    np.testing.assert_allclose(probabilities, tree.predict_proba(rows), atol=1e-6)
    # they really are mixes: a largest-branch path (the operator's own rule) gives other answers
    leaves = [tree.decision_path(r)[-1][0] for r in rows]
    one_path = np.array([tree.nodes[leaf].value for leaf in leaves])
    assert np.abs(one_path - probabilities).max() > 0.05


def test_the_file_says_what_input_it_expects():
    ds = engine.load_sample("play_tennis")
    tree = engine.fit_tree(ds, engine.TreeConfig(algorithm="id3"))
    model = onnx.load_from_string(tree_to_onnx(tree))
    onnx.checker.check_model(model)
    meta = {p.key: p.value for p in model.metadata_props}
    features = json.loads(meta["features"])
    assert [f["name"] for f in features] == list(ds.schema.feature_names)
    assert features[0]["categories"] == list(ds.schema.categories[0])
    assert json.loads(meta["classes"]) == list(ds.schema.classes) and meta["task"] == "classification"
    assert [i.name for i in model.graph.input] == ["X"]
    assert [o.name for o in model.graph.output] == ["label", "probabilities"]
    assert "NaN" in model.doc_string


def test_anything_else_is_refused_with_a_sentence():
    with pytest.raises(DataError, match="Only a tree or an ensemble"):
        to_onnx("a tree")
    ds = engine.load_sample("iris")
    ensemble = fit_adaboost(ds, n_rounds=3)
    from dataclasses import replace
    with pytest.raises(DataError, match="no members"):
        ensemble_to_onnx(replace(ensemble, members=()))


def test_a_one_class_tree_is_refused_since_onnxruntime_aborts_on_such_a_file():
    ds = engine.Dataset.from_frame(pd.DataFrame({"x": [1.0, 2, 3, 4], "y": ["a"] * 4}), target="y",
                                   task="classification")
    tree = engine.fit_tree(ds, engine.TreeConfig())
    with pytest.raises(DataError, match="only one class"):
        tree_to_onnx(tree)
    assert "only one class" in onnx_problem(tree)
    assert onnx_problem(engine.fit_tree(engine.load_sample("iris"), engine.TreeConfig(max_depth=1))) is None


@pytest.mark.parametrize("sample", ["play_tennis", "diabetes"])
def test_a_lone_root_exports_as_one_leaf(sample):
    ds = engine.load_sample(sample)
    root = engine.Grower(ds, engine.TreeConfig()).tree
    assert root.n_nodes == 1
    out = run(tree_to_onnx(root), ds.X)
    if root.task == "classification":
        assert set(out[0]) == {root.root.prediction}
        np.testing.assert_allclose(out[1], root.predict_proba(ds.X), atol=1e-6)
    else:
        np.testing.assert_allclose(out[0][:, 0], root.predict(ds.X), rtol=1e-6)
