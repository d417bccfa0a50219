"""The skops reader: scikit-learn tree models predict, from the engine's trees, as scikit-learn does, and
files with types outside the trusted list are refused without being loaded (scikit-learn and skops
make the files here; the engine never imports scikit-learn)."""

import os
import warnings

import numpy as np
import pandas as pd
import pytest

from engine.errors import DataError
from engine.models import load_model

sio = pytest.importorskip("skops.io")
datasets = pytest.importorskip("sklearn.datasets")
from sklearn import ensemble, linear_model, pipeline, tree  # noqa: E402

N = 1500


def data(kind: str, missing: bool = False):
    if kind == "regression":
        X, y = datasets.make_regression(N, 6, n_informative=4, noise=5.0, random_state=1)
    else:
        X, y = datasets.make_classification(N, 6, n_informative=4, n_classes=2 if kind == "binary" else 3,
                                            random_state=1)
        y = np.array(["ant", "bee", "cat"])[y]
    if missing:
        X = X.copy()
        X[np.random.default_rng(0).random(X.shape) < 0.1] = np.nan
    return X, y


CLASSIFIERS = [
    ("binary", tree.DecisionTreeClassifier(max_depth=8, random_state=0), True),
    ("multi", tree.DecisionTreeClassifier(random_state=0), False),
    ("multi", ensemble.RandomForestClassifier(20, random_state=0), True),
    ("binary", ensemble.ExtraTreesClassifier(15, max_depth=10, random_state=0), False),
    ("binary", ensemble.GradientBoostingClassifier(n_estimators=30, random_state=0), False),
    ("binary", ensemble.GradientBoostingClassifier(n_estimators=20, loss="exponential", random_state=0), False),
    ("multi", ensemble.GradientBoostingClassifier(n_estimators=15, random_state=0), False),
    ("binary", ensemble.HistGradientBoostingClassifier(max_iter=30, random_state=0), True),
    ("multi", ensemble.HistGradientBoostingClassifier(max_iter=20, random_state=0), True),
    ("binary", ensemble.AdaBoostClassifier(n_estimators=25, random_state=0), False),
    ("multi", ensemble.AdaBoostClassifier(tree.DecisionTreeClassifier(max_depth=3), n_estimators=15, random_state=0),
     False),
]
REGRESSORS = [
    (tree.DecisionTreeRegressor(max_depth=10, random_state=0), True),
    (ensemble.RandomForestRegressor(15, random_state=0), True),
    (ensemble.ExtraTreesRegressor(10, random_state=0), False),
    (ensemble.GradientBoostingRegressor(n_estimators=40, random_state=0), False),
    (ensemble.GradientBoostingRegressor(n_estimators=20, loss="huber", random_state=0), False),
    (ensemble.HistGradientBoostingRegressor(max_iter=30, random_state=0), True),
    (ensemble.HistGradientBoostingRegressor(max_iter=20, loss="poisson", random_state=0), True),
]


def name(value):
    return f"{type(value).__name__}-{getattr(value, 'loss', '')}" if not isinstance(value, (str, bool)) else str(value)


@pytest.mark.parametrize("kind, model, missing", CLASSIFIERS, ids=name)
def test_a_classifier_predicts_as_scikit_learn(kind, model, missing):
    X, y = data(kind, missing)
    model.fit(X, y)
    loaded = load_model(sio.dumps(model))
    assert loaded.source == "scikit-learn" and loaded.classes == tuple(model.classes_)
    np.testing.assert_allclose(loaded.predict_proba(X), model.predict_proba(X), atol=1e-9)
    assert list(loaded.predict(X)) == list(model.predict(X))


@pytest.mark.parametrize("model, missing", REGRESSORS, ids=name)
def test_a_regressor_predicts_as_scikit_learn(model, missing):
    X, y = data("regression", missing)
    if "poisson" in name(model):
        y = np.abs(y)
    model.fit(X, y)
    loaded = load_model(sio.dumps(model))
    np.testing.assert_allclose(loaded.predict(X), model.predict(X), rtol=1e-9, atol=1e-9)


def test_feature_names_come_from_the_data_frame_it_was_fitted_on():
    X, y = data("multi")
    frame = pd.DataFrame(X, columns=[f"sensor {j}" for j in range(6)])
    model = ensemble.RandomForestClassifier(5, random_state=0).fit(frame, y)
    loaded = load_model(sio.dumps(model))
    assert loaded.feature_names == tuple(frame.columns)
    assert list(loaded.predict(frame)) == list(model.predict(frame))
    assert loaded.trees[0].n_nodes == model.estimators_[0].tree_.node_count


def test_a_file_path_and_an_open_file_read_as_bytes_do(tmp_path):
    X, y = data("binary")
    model = tree.DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    path = tmp_path / "tree.skops"
    sio.dump(model, path)
    with open(path, "rb") as handle:
        from_file = load_model(handle)
    assert list(load_model(path).predict(X)) == list(from_file.predict(X)) == list(model.predict(X))


@pytest.fixture
def never_loaded(monkeypatch):
    """skops.io.loads fails the test if the reader calls it."""
    def boom(*args, **kwargs):
        raise AssertionError("skops.io.loads was called on a file that should have been refused")
    monkeypatch.setattr(sio, "loads", boom)


def test_an_untrusted_type_is_refused_and_never_loaded(never_loaded):
    X, y = data("binary")
    model = tree.DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    model.hook = os.system                                   # a function skops would call while loading
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        blob = sio.dumps(model)
    with pytest.raises(DataError, match="outside the explorer's trusted list") as err:
        load_model(blob)
    assert "system" in str(err.value)


def test_other_estimators_and_wrappers_are_refused_and_never_loaded(never_loaded):
    X, y = data("binary")
    for other in (linear_model.LogisticRegression().fit(X, y),
                  pipeline.make_pipeline(tree.DecisionTreeClassifier(max_depth=2)).fit(X, y)):
        with pytest.raises(DataError, match="not one of the scikit-learn tree models"):
            load_model(sio.dumps(other))


def test_models_the_explorer_cannot_express_are_refused_with_a_sentence():
    X, y = data("regression")
    with pytest.raises(DataError, match="weighted median"):
        load_model(sio.dumps(ensemble.AdaBoostRegressor(n_estimators=3, random_state=0).fit(X, y)))
    codes = np.column_stack([np.arange(N) % 3, X[:, 0]])
    hgb = ensemble.HistGradientBoostingRegressor(max_iter=3, categorical_features=[0]).fit(codes, y + 100 * codes[:, 0])
    with pytest.raises(DataError, match="splits on categories|outside the explorer's trusted list"):
        load_model(sio.dumps(hgb))
    unfitted = sio.dumps(tree.DecisionTreeClassifier())
    with pytest.raises(DataError, match="never fitted"):
        load_model(unfitted)


def test_a_damaged_skops_file_is_refused_with_a_sentence():
    X, y = data("binary")
    blob = sio.dumps(tree.DecisionTreeClassifier(max_depth=3).fit(X, y))
    with pytest.raises(DataError, match="damaged or cut short"):
        load_model(blob[: len(blob) // 2] + b"schema.json")
