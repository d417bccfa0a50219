"""A model file made by each library with its defaults opens with the CSV it was trained on and predicts
as the library does (issue 36): its columns are found under the library's renaming or by position, its
classes can be read as the data's labels, and an ONNX tree's inner nodes are not an unweighted mean."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from engine.models.build import refit_inner, tree_from_arrays
from engine.models.matching import agreement, best_mapping, library_name, match_columns
from engine.data.schema import FeatureSchema
from tests.model_files import FILES, TARGET, breast_csv_frame, model_file

HOW = {"xgb_frame_json": "names", "xgb_frame_ubj": "names", "xgb_array_json": "position", "lgb_frame": "renamed", "lgb_frame_text": "renamed",
       "lgb_array": "position", "skops_forest_frame": "names", "skops_tree_array": "position",
       "onnx_tree_array": "position"}


@pytest.mark.parametrize("name", list(FILES))
def test_a_default_model_reads_its_own_csv_and_predicts_as_its_library(name):
    data, lib, X = model_file(name)
    model = engine.load_model(data)
    frame = breast_csv_frame()
    match = model.match_columns(frame.columns, TARGET)
    assert match.how == HOW[name] and match.ok
    assert match.columns == tuple(map(str, X.columns)) if hasattr(X, "columns") else match.columns == tuple(frame.columns[:30])
    got = model.predict_proba(frame, match)
    expected = lib.predict_proba(X)
    np.testing.assert_allclose(got, expected, atol=1e-6, rtol=0)
    labels = model.predict(frame, match)
    if name == "lgb_frame_text":        # the text file numbers the classes; LabelEncoder's order gives the labels
        labels = np.asarray(lib.classes_)[labels.astype(int)]
    assert np.array_equal(labels.astype(str), lib.predict(X).astype(str))
    # a frame of exactly the features (no target) is matched without being told how
    np.testing.assert_allclose(model.predict_proba(frame.drop(columns=TARGET)), expected, atol=1e-6, rtol=0)


def test_lightgbm_renaming_is_the_librarys_and_an_ambiguous_rename_is_no_match():
    assert library_name('a b[c]{d}"e":f,g') == "a_b_c__d__e__f_g"
    assert match_columns(["a_b"], ["a b"]).how == "renamed"
    assert match_columns(["a_b"], ["a b", "a,b"]).missing == ("a_b",)


def test_generic_names_match_by_position_only_with_exactly_as_many_feature_columns():
    assert match_columns(["f0", "f1"], ["u", "v", "y"], target="y").columns == ("u", "v")
    assert not match_columns(["f0", "f1"], ["u", "v", "w"], target="y").ok
    assert not match_columns(["f0", "f2"], ["u", "v"]).ok          # not positions 0..d-1
    assert not match_columns(["speed", "f1"], ["u", "v"]).ok       # not all generic


def test_best_mapping_tries_every_permutation_for_few_labels_and_is_greedy_for_many():
    rng = np.random.default_rng(0)
    perm = rng.permutation(5)
    C = rng.integers(0, 5, size=(5, 5)).astype(float)
    C[np.arange(5), perm] += 50
    m, agree = best_mapping(C)
    assert list(m) == list(perm) and agree == C[np.arange(5), perm].sum()
    # brute force beats greedy where greedy's first pick is a trap
    trap = np.array([[10, 9], [9, 0]])
    assert list(best_mapping(trap)[0]) == [1, 0] and best_mapping(trap)[1] == 18
    perm = rng.permutation(12)
    C = np.eye(12)[perm] * 30 + rng.integers(0, 3, size=(12, 12))
    assert list(best_mapping(C)[0]) == list(perm)
    m, _ = best_mapping(np.array([[5, 0], [0, 7], [1, 1]]))         # three classes, two labels
    assert list(m) == [0, 1, -1]


def test_a_swapped_class_reading_is_suspect_and_the_best_mapping_fixes_it():
    data, lib, X = model_file("xgb_frame_json")
    model = engine.load_model(data)
    frame = breast_csv_frame()
    pred = model.predict(frame, model.match_columns(frame.columns, TARGET))
    # sorted labels read class 0 as benign; the model was trained with 0 = malignant
    found = agreement(pred, frame[TARGET], {"0": "benign", "1": "malignant"})
    assert found.accuracy < 0.05 and found.suspect
    assert found.best == {"0": "malignant", "1": "benign"}
    assert found.best_accuracy == pytest.approx(float(np.mean(lib.predict(X) == np.asarray(breast_csv_frame("codes")[TARGET]))))
    assert not agreement(pred, frame[TARGET], found.best).suspect


def test_an_onnx_trees_inner_nodes_are_counted_from_rows_not_averaged():
    data, lib, X = model_file("onnx_tree_array")
    model = engine.load_model(data)
    assert not model.inner_values and any("no row counts" in n for n in model.notes)
    frame = breast_csv_frame("codes")
    Xe = model.encode(frame, model.match_columns(frame.columns, TARGET))
    tree = refit_inner(model.trees[0], Xe, frame[TARGET].astype(str).to_numpy(dtype=object))
    np.testing.assert_allclose(tree.root.value, [212 / 569, 357 / 569])
    assert tree.root.n_node_samples == 569
    t = lib.tree_                                   # every node equals scikit-learn's own shares and counts
    shares = t.value[:, 0, :] / t.value[:, 0, :].sum(axis=1, keepdims=True)
    pairs, seen = [(0, 0)], 0
    while pairs:
        ours, theirs = pairs.pop()
        node = tree.nodes[ours]
        np.testing.assert_allclose(node.value, shares[theirs], atol=1e-12)
        assert node.n_node_samples == t.n_node_samples[theirs]
        seen += 1
        if node.children:
            pairs += list(zip(node.children, (t.children_left[theirs], t.children_right[theirs])))
    assert seen == t.node_count
    np.testing.assert_allclose(tree.predict_proba(Xe), lib.predict_proba(X), atol=1e-12)


def test_skops_keeps_the_files_own_inner_shares():
    data, lib, X = model_file("skops_tree_array")
    model = engine.load_model(data)
    assert model.inner_values
    np.testing.assert_allclose(model.trees[0].root.value, [357 / 569, 212 / 569])   # classes benign, malignant


def test_a_tree_without_covers_weighs_its_leaves_by_their_counts():
    schema = FeatureSchema(feature_names=("a",), kinds=("numeric",), categories=((),), target="y",
                           task="regression", classes=())
    tree = tree_from_arrays(schema=schema, left=[1, -1, -1], right=[2, -1, -1], feature=[0, 0, 0],
                            threshold=[0.5, 0, 0], missing_left=None, values=[[np.nan], [1.0], [4.0]],
                            count=[4, 3, 1])
    assert tree.root.value[0] == pytest.approx((3 * 1.0 + 1 * 4.0) / 4)
