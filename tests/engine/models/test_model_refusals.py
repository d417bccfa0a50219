"""Files load_model refuses, each with one sentence and without running anything: pickles (never
unpickled), compressed joblib files, unknown formats, truncated files, and models that contradict
themselves (children out of range, cycles, too many nodes, too deep, NaN thresholds)."""

from __future__ import annotations

import io
import json
import pickle

import numpy as np
import pytest

import engine
from engine.errors import DataError
from engine.models import load as load_module


class Boom:
    """Unpickling this would raise: proof that a refused pickle is never unpickled."""

    def __reduce__(self):
        return (_explode, ())


def _explode():
    raise AssertionError("the pickle was unpickled")


def assert_one_sentence(err: DataError) -> None:
    msg = str(err)
    assert msg.endswith(".") and "Traceback" not in msg and len(msg) < 400, msg


def refused(source, match: str) -> None:
    with pytest.raises(DataError, match=match) as info:
        engine.load_model(source)
    assert_one_sentence(info.value)


@pytest.mark.parametrize("protocol", range(0, pickle.HIGHEST_PROTOCOL + 1))
def test_pickles_of_every_protocol_are_refused_unopened(protocol, monkeypatch):
    monkeypatch.setattr(pickle, "loads", lambda *a, **k: pytest.fail("pickle.loads was called"))
    refused(pickle.dumps(Boom(), protocol=protocol), "pickle")
    refused(pickle.dumps({"learner": {}}, protocol=protocol), "pickle")


@pytest.mark.parametrize("compress", [0, 3, ("gzip", 3), ("bz2", 3), ("lzma", 3), ("xz", 3)])
def test_joblib_files_are_refused(compress, tmp_path):
    joblib = pytest.importorskip("joblib")
    path = tmp_path / "model.joblib"
    joblib.dump({"tree": [1, 2, 3]}, path, compress=compress)
    refused(path, "pickle")


def test_unknown_content_is_named_with_the_formats_that_are_read(tmp_path):
    refused(b"hello, this is a CSV\n1,2,3\n", "not a model format")
    refused(b'{"a": 1}', "not a model format")
    (tmp_path / "model.json").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(100))   # the name says JSON: content wins
    refused(tmp_path / "model.json", "XGBoost JSON")
    refused(b"   ", "empty")
    refused(tmp_path / "missing.json", "no model file")
    refused(12345, "file path")


def test_a_file_like_object_and_bytes_are_read(tmp_path):
    xgb = pytest.importorskip("xgboost")
    X = np.random.default_rng(0).normal(size=(200, 3))
    model = xgb.XGBRegressor(n_estimators=3).fit(X, X[:, 0])
    model.save_model(tmp_path / "m.ubj")
    data = (tmp_path / "m.ubj").read_bytes()
    a, b = engine.load_model(io.BytesIO(data)), engine.load_model(data)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


def test_oversized_files_are_refused(monkeypatch):
    monkeypatch.setattr(load_module, "MAX_BYTES", 1000)
    refused(b"tree\n" + b"x" * 2000, "larger than")
    refused(io.BytesIO(b"tree\n" + b"x" * 2000), "larger than")


# ----------------------------------------------------------------------------- hand-made XGBoost files
def xgb_doc(left, right, cond, *, indices=None, default_left=None, extra_trees=0):
    n = len(left)
    tree = {"left_children": left, "right_children": right, "split_conditions": cond,
            "split_indices": indices or [0] * n, "default_left": default_left or [1] * n,
            "split_type": [0] * n, "sum_hessian": [1.0] * n, "loss_changes": [0.0] * n,
            "base_weights": [0.0] * n, "parents": [0] * n, "tree_param": {"num_nodes": str(n)}}
    return {"version": [3, 2, 0], "learner": {
        "feature_names": ["a", "b"], "feature_types": ["float", "float"],
        "learner_model_param": {"base_score": "[5E-1]", "num_class": "0", "num_feature": "2", "num_target": "1"},
        "objective": {"name": "binary:logistic"},
        "gradient_booster": {"name": "gbtree", "model": {"trees": [tree] * (1 + extra_trees),
                                                         "tree_info": [0] * (1 + extra_trees)}}}}


def as_bytes(doc) -> bytes:
    return json.dumps(doc).encode()


def test_a_well_formed_hand_made_model_loads():
    m = engine.load_model(as_bytes(xgb_doc([1, -1, -1], [2, -1, -1], [0.5, -1.0, 1.0])))
    assert m.predict_proba([[0.0, 0.0], [1.0, 0.0], [np.nan, 0.0]])[:, 1] == pytest.approx(
        [1 / (1 + np.e), 1 / (1 + np.exp(-1)), 1 / (1 + np.e)])


@pytest.mark.parametrize("left,right,cond,match", [
    ([1, -1, -1], [7, -1, -1], [0.5, 1, 2], "does not exist"),            # child index out of range
    ([1, 0, -1], [2, 2, -1], [0.5, 1, 2], "reached twice"),               # a cycle back to the root
    ([1, 2, -1], [2, -1, -1], [0.5, 1, 2], "reached twice"),              # a shared child
    ([1, -1, -1], [2, -1, -1], [float("nan"), 1, 2], "not a number"),     # NaN threshold
    ([1, -1, -1], [2, -1, -1], [0.5, float("nan"), 2], "not a number"),   # NaN leaf
    ([1, -1, -1], [-1, -1, -1], [0.5, 1, 2], "does not exist"),           # one child
])
def test_self_contradicting_xgboost_trees_are_refused(left, right, cond, match):
    refused(as_bytes(xgb_doc(left, right, cond)), match)


def test_feature_index_out_of_range_is_refused():
    refused(as_bytes(xgb_doc([1, -1, -1], [2, -1, -1], [0.5, 1, 2], indices=[9, 0, 0])), "feature number 9")


def test_a_tree_deeper_than_ten_thousand_levels_is_refused():
    depth = 10_001                                    # a chain: node 2k splits into leaf 2k+1 and node 2k+2
    n = 2 * depth + 1
    left = [i + 1 if i % 2 == 0 and i < n - 1 else -1 for i in range(n)]
    right = [i + 2 if i % 2 == 0 and i < n - 1 else -1 for i in range(n)]
    refused(as_bytes(xgb_doc(left, right, [0.5] * n)), "deeper than 10,000")


def test_more_than_a_million_nodes_are_refused(monkeypatch):
    header = ("tree\nversion=v4\nnum_class=1\nnum_tree_per_iteration=1\nlabel_index=0\nmax_feature_idx=0\n"
              "objective=regression\nfeature_names=a\nfeature_infos=[0:1]\n\n")
    refused((header + "Tree=0\nnum_leaves=600000\n\nTree=1\nnum_leaves=600000\n\nend of trees\n").encode(),
            "more than 1,000,000 nodes")
    from engine.models import xgboost_json
    monkeypatch.setattr(xgboost_json, "MAX_NODES", 1000)     # the same count, on a file quick to write
    big = xgb_doc([1, -1, -1], [2, -1, -1], [0.5, 1, 2], extra_trees=340)            # 1,023 nodes
    refused(as_bytes(big), "more than 1,000 nodes")


@pytest.mark.parametrize("fmt", ["json", "ubj"])
def test_truncated_xgboost_files_are_refused(fmt, tmp_path):
    xgb = pytest.importorskip("xgboost")
    X = np.random.default_rng(1).normal(size=(300, 3))
    xgb.XGBClassifier(n_estimators=5).fit(X, X[:, 0] > 0).save_model(tmp_path / f"m.{fmt}")
    data = (tmp_path / f"m.{fmt}").read_bytes()
    for cut in (len(data) // 3, len(data) // 2, len(data) - 5):
        refused(data[:cut], "damaged or cut short")


def test_truncated_and_damaged_lightgbm_files_are_refused(tmp_path):
    lgb = pytest.importorskip("lightgbm")
    X = np.random.default_rng(2).normal(size=(300, 3))
    lgb.LGBMRegressor(n_estimators=3, verbose=-1).fit(X, X[:, 0]).booster_.save_model(str(tmp_path / "m.txt"))
    text = (tmp_path / "m.txt").read_text()
    refused(text[: len(text) // 2].encode(), "end of trees")
    refused(text.replace("left_child=", "left_child=999 ", 1).encode(), "does not exist|left_child")
    refused(text.replace("threshold=", "threshold=nan ", 1).encode(), "threshold")
    cut = text.index("threshold=")
    refused((text[:cut] + "threshold=0.5 x" + text[text.index("\n", cut):]).encode(), "not numbers|thresholds")


def test_unsupported_objectives_and_boosters_say_what_is_read():
    doc = xgb_doc([1, -1, -1], [2, -1, -1], [0.5, 1, 2])
    doc["learner"]["objective"]["name"] = "rank:pairwise"
    refused(as_bytes(doc), "objective 'rank:pairwise' is not supported")
    doc = xgb_doc([1, -1, -1], [2, -1, -1], [0.5, 1, 2])
    doc["learner"]["gradient_booster"] = {"name": "gblinear", "model": {}}
    refused(as_bytes(doc), "has no trees")
