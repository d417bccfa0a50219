"""The ONNX reader: files made by skl2onnx and by this app's export predict, from the engine's trees,
as onnxruntime and scikit-learn do (onnxruntime, skl2onnx and scikit-learn are test oracles only)."""

import warnings

import numpy as np
import onnx
import pytest

import engine
from engine.ensembles import fit_adaboost, fit_bagging, fit_random_forest
from engine.ensembles.onnx_export import to_onnx
from engine.errors import DataError
from engine.models import load_model

ort = pytest.importorskip("onnxruntime")
skl2onnx = pytest.importorskip("skl2onnx")
datasets = pytest.importorskip("sklearn.datasets")
from sklearn import ensemble, tree  # noqa: E402

N = 1500


def run(blob: bytes, X: np.ndarray, dtype=np.float32):
    session = ort.InferenceSession(blob, providers=["CPUExecutionProvider"])
    return session.run(None, {session.get_inputs()[0].name: np.asarray(X, dtype=dtype)})


def sk_file(model, X) -> bytes:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        proto = skl2onnx.to_onnx(model, X[:1].astype(np.float32), options={"zipmap": False}
                                 if hasattr(model, "predict_proba") else None)
    return proto.SerializeToString()


def data(kind: str, seed: int = 0):
    if kind == "regression":
        X, y = datasets.make_regression(N, 6, n_informative=4, noise=5.0, random_state=seed)
    else:
        X, y = datasets.make_classification(N, 6, n_informative=4, n_classes=2 if kind == "binary" else 3,
                                            random_state=seed)
    return X, y


CLASSIFIERS = [
    ("binary", tree.DecisionTreeClassifier(max_depth=6, random_state=0)),
    ("multi", tree.DecisionTreeClassifier(random_state=0)),
    ("binary", ensemble.RandomForestClassifier(20, max_depth=8, random_state=0)),
    ("multi", ensemble.RandomForestClassifier(15, random_state=0)),
    ("multi", ensemble.ExtraTreesClassifier(15, max_depth=8, random_state=0)),
    ("binary", ensemble.GradientBoostingClassifier(n_estimators=30, random_state=0)),
    ("multi", ensemble.GradientBoostingClassifier(n_estimators=20, random_state=0)),
]
REGRESSORS = [
    tree.DecisionTreeRegressor(max_depth=8, random_state=0),
    ensemble.RandomForestRegressor(15, max_depth=8, random_state=0),
    ensemble.ExtraTreesRegressor(10, random_state=0),
    ensemble.GradientBoostingRegressor(n_estimators=40, random_state=0),
]


@pytest.mark.parametrize("kind, model", CLASSIFIERS, ids=lambda v: type(v).__name__ if not isinstance(v, str) else v)
def test_a_skl2onnx_classifier_predicts_as_onnxruntime_and_scikit_learn(kind, model):
    X, y = data(kind)
    model.fit(X, y)
    blob = sk_file(model, X)
    loaded = load_model(blob)
    assert loaded.source == "ONNX" and loaded.task == "classification" and loaded.classes == tuple(
        str(c) for c in model.classes_)
    labels, proba = run(blob, X)
    mine = loaded.predict_proba(X)
    np.testing.assert_allclose(mine, proba, atol=1e-5)
    assert list(loaded.predict(X)) == [str(v) for v in labels]
    np.testing.assert_allclose(mine, model.predict_proba(X), atol=1e-5)
    assert list(loaded.predict(X)) == [str(v) for v in model.predict(X)]


@pytest.mark.parametrize("model", REGRESSORS, ids=lambda m: type(m).__name__)
def test_a_skl2onnx_regressor_predicts_as_onnxruntime_and_scikit_learn(model):
    X, y = data("regression")
    model.fit(X, y)
    blob = sk_file(model, X)
    loaded = load_model(blob)
    assert loaded.task == "regression" and loaded.feature_names == tuple(f"x{j}" for j in range(6))
    mine = loaded.predict(X)
    np.testing.assert_allclose(mine, run(blob, X)[0][:, 0], rtol=1e-5, atol=1e-3)   # float32 sums
    np.testing.assert_allclose(mine, model.predict(X), rtol=1e-6, atol=1e-6)


def test_float32_thresholds_send_float64_rows_where_onnxruntime_sends_them():
    X, y = data("multi")
    model = tree.DecisionTreeClassifier(random_state=0).fit(X, y)
    blob = sk_file(model, X)
    loaded = load_model(blob)
    # rows placed on and next to every threshold, as float32 would read them
    t = model.tree_.threshold[model.tree_.feature >= 0]
    f = model.tree_.feature[model.tree_.feature >= 0]
    rows = np.repeat(X[:1], 3 * t.size, axis=0)
    t32 = t.astype(np.float32)
    for i, near in enumerate((t32, np.nextafter(t32, np.float32(np.inf)), np.nextafter(t32, np.float32(-np.inf)))):
        rows[np.arange(t.size) * 3 + i, f] = near
    np.testing.assert_allclose(loaded.predict_proba(rows), run(blob, rows)[1], atol=1e-6)


ENGINE_MODELS = [
    ("play_tennis", lambda d: engine.fit_tree(d, engine.TreeConfig(algorithm="id3"))),
    ("titanic_small", lambda d: engine.fit_tree(d, engine.TreeConfig(algorithm="c45"))),
    ("diabetes", lambda d: engine.fit_tree(d, engine.TreeConfig(algorithm="cart", max_depth=6))),
    ("titanic_small", lambda d: fit_random_forest(d, n_estimators=10, random_state=1)),
    ("iris", lambda d: fit_adaboost(d, n_rounds=15)),
    ("diabetes", lambda d: fit_bagging(d, n_estimators=6, random_state=2)),
]


@pytest.mark.parametrize("sample, fit", ENGINE_MODELS)
def test_our_own_export_opens_again_and_predicts_like_the_original(sample, fit):
    ds = engine.load_sample(sample)
    original = fit(ds)
    blob = to_onnx(original)
    loaded = load_model(blob)
    assert loaded.feature_names == ds.schema.feature_names and loaded.schema.kinds == ds.schema.kinds
    assert loaded.schema.categories == ds.schema.categories
    assert len(onnx.load_from_string(blob).graph.node) > 5          # the missing-value graph is in the file
    rng = np.random.default_rng(0)
    X = ds.X[rng.integers(0, ds.X.shape[0], size=1200)]
    whole = ~np.isnan(X).any(axis=1)
    out = run(blob, X, np.float64)
    if original.task == "classification":
        shares = original.vote_shares(X) if hasattr(original, "members") else original.predict_proba(X)
        np.testing.assert_allclose(loaded.predict_proba(X)[whole], shares[whole], atol=1e-9)
        assert list(loaded.predict(X)[whole]) == list(original.predict(X)[whole])
        np.testing.assert_allclose(loaded.predict_proba(X)[whole], out[1][whole], atol=1e-6)
        assert list(loaded.predict(X)[whole]) == list(out[0][whole])
    else:
        np.testing.assert_allclose(loaded.predict(X)[whole], original.predict(X)[whole], rtol=1e-9)
        np.testing.assert_allclose(loaded.predict(X)[whole], out[0][whole, 0], rtol=1e-6)
    # the file's missing-value graph is not read back: the reopened trees send a missing value down the
    # branch the operator names (the largest), one path per row
    if (~whole).any() and not hasattr(original, "members"):
        gaps = X[~whole]
        leaves = [original.decision_path(r)[-1][0] for r in gaps]
        expected = np.array([original.nodes[leaf].value for leaf in leaves])
        got = loaded.predict_proba(gaps) if original.task == "classification" else loaded.predict(gaps)[:, None]
        np.testing.assert_allclose(got, expected, atol=1e-9)
    # a DataFrame with the category labels works as well as codes
    assert list(loaded.predict(ds.frame.iloc[:5])) == list(loaded.predict(ds.X[:5]))


def _graph(nodes, inputs, outputs, ml=True):
    helper = onnx.helper
    opsets = [helper.make_opsetid("", 17)] + ([helper.make_opsetid("ai.onnx.ml", 3)] if ml else [])
    return helper.make_model(helper.make_graph(nodes, "g", inputs, outputs), opset_imports=opsets).SerializeToString()


def _stump(**changes) -> bytes:
    helper, TP = onnx.helper, onnx.TensorProto
    attrs = dict(nodes_treeids=[0, 0, 0], nodes_nodeids=[0, 1, 2], nodes_featureids=[0, 0, 0],
                 nodes_values=[0.5, 0.0, 0.0], nodes_modes=["BRANCH_LEQ", "LEAF", "LEAF"],
                 nodes_truenodeids=[1, 0, 0], nodes_falsenodeids=[2, 0, 0], target_treeids=[0, 0],
                 target_nodeids=[1, 2], target_ids=[0, 0], target_weights=[1.0, 2.0], n_targets=1)
    attrs.update(changes)
    node = helper.make_node("TreeEnsembleRegressor", ["X"], ["Y"], domain="ai.onnx.ml", **attrs)
    return _graph([node], [helper.make_tensor_value_info("X", TP.FLOAT, [None, 1])],
                  [helper.make_tensor_value_info("Y", TP.FLOAT, [None, 1])])


def test_a_hand_made_stump_reads_and_broken_ones_are_refused_with_a_sentence():
    good = load_model(_stump())
    assert list(good.predict(np.array([[0.2], [0.9]]))) == [1.0, 2.0]
    cases = {
        "reached twice": _stump(nodes_truenodeids=[1, 2, 0], nodes_falsenodeids=[2, 2, 0],
                                nodes_modes=["BRANCH_LEQ", "BRANCH_LEQ", "LEAF"]),
        "does not exist": _stump(nodes_truenodeids=[7, 0, 0]),
        "not a number": _stump(nodes_values=[float("nan"), 0.0, 0.0]),
        "2 roots": _stump(nodes_truenodeids=[1, 0, 0], nodes_falsenodeids=[1, 0, 0]),
        "cannot read": _stump(nodes_modes=["BRANCH_MEMBER", "LEAF", "LEAF"]),
        "for equality": _stump(nodes_modes=["BRANCH_EQ", "LEAF", "LEAF"]),
        "several targets": _stump(n_targets=2),
        "columns at most": _stump(nodes_featureids=[2**40, 0, 0]),        # no list of 2**40 names is made
    }
    for words, blob in cases.items():
        with pytest.raises(DataError, match=words):
            load_model(blob)
    with pytest.raises(DataError, match="damaged or cut short"):
        load_model(_stump()[:-30])


def test_graphs_that_are_not_one_tree_ensemble_are_refused():
    helper, TP = onnx.helper, onnx.TensorProto
    x = helper.make_tensor_value_info("X", TP.FLOAT, [None, 2])
    y = helper.make_tensor_value_info("Y", TP.FLOAT, [None, 2])
    with pytest.raises(DataError, match="no TreeEnsembleClassifier"):
        load_model(_graph([helper.make_node("Relu", ["X"], ["Y"])], [x], [y], ml=True))
    X, yv = data("multi")
    boosted = ensemble.AdaBoostClassifier(n_estimators=3, random_state=0).fit(X, yv)   # a graph of 3 ensembles
    with pytest.raises(DataError, match="combines 3 tree ensembles"):
        load_model(sk_file(boosted, X))
