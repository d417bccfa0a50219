"""engine.tree_shap against the libraries' own exact contributions (test-only oracles): XGBoost's
``pred_contribs=True`` (and ``approx_contribs=True`` for Saabas) on models trained here with default settings
and opened with ``load_model``; LightGBM's ``pred_contrib`` (numeric and categorical splits); scikit-learn
forests (skops) and an ONNX tree add up to the model's answer."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import engine

from tests.model_files import model_file

xgb = pytest.importorskip("xgboost")


def _data(seed=0, n=300, missing=0.05):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    X[rng.random(X.shape) < missing] = np.nan
    return rng, X


def _xgboost_case(kind):
    rng, X = _data()
    x0, x1, x2 = (np.nan_to_num(X[:, j]) for j in range(3))
    if kind == "regression":
        model = xgb.XGBRegressor().fit(X, 2 * x0 + x1 ** 2 + rng.normal(size=len(X)))
    elif kind == "binary":
        model = xgb.XGBClassifier().fit(X, (x0 + x2 + rng.normal(scale=.5, size=len(X)) > 0).astype(int))
    else:
        model = xgb.XGBClassifier().fit(X, np.digitize(x0 + x1, [-0.7, 0.7]))
    raw = bytes(model.get_booster().save_raw("json"))
    booster = xgb.Booster()
    booster.load_model(bytearray(raw))
    return engine.load_model(raw), booster, X


@pytest.mark.parametrize("kind", ["regression", "binary", "multiclass"])
def test_tree_shap_equals_xgboost_pred_contribs(kind):
    model, booster, X = _xgboost_case(kind)
    want = booster.predict(xgb.DMatrix(X), pred_contribs=True)
    got = engine.tree_shap(model, X)
    assert got.shape == want.shape                                   # (n, F+1) or (n, K, F+1)
    assert np.abs(got - want).max() < 1e-5 * max(1.0, np.abs(want).max())
    margin = booster.predict(xgb.DMatrix(X), output_margin=True)
    assert np.abs(got.sum(axis=-1) - margin).max() < 1e-5 * max(1.0, np.abs(margin).max())
    saabas = booster.predict(xgb.DMatrix(X), pred_contribs=True, approx_contribs=True)
    assert np.abs(engine.path_contributions(model, X) - saabas).max() < 1e-5 * max(1.0, np.abs(saabas).max())


def test_tree_shap_equals_lightgbm_pred_contrib_with_categorical_splits():
    lgb = pytest.importorskip("lightgbm")
    rng, X = _data(1, 400)
    X[:, 5] = rng.integers(0, 6, len(X))
    y = np.nan_to_num(X[:, 0]) + np.isin(X[:, 5], [1, 4]) * 2 + rng.normal(scale=.3, size=len(X))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = lgb.train({"objective": "regression", "verbose": -1, "min_data_per_group": 5, "cat_smooth": 1},
                      lgb.Dataset(X, y, categorical_feature=[5]), num_boost_round=30)
    text = m.model_to_string().encode()
    model = engine.load_model(text)
    assert any(n.split.kind != "threshold" for t in model.trees for n in t.internal_nodes)   # a category test
    want = m.predict(X, pred_contrib=True)
    got = engine.tree_shap(model, X)
    assert np.abs(got - want).max() < 1e-6 * max(1.0, np.abs(want).max())


@pytest.mark.parametrize("name", ["skops_forest_frame", "onnx_tree_array", "lgb_frame"])
def test_files_of_every_library_add_up_to_their_answer(name):
    data, fitted, X = model_file(name)
    model = engine.load_model(data)
    rows = X.iloc[:60] if isinstance(X, pd.DataFrame) else X[:60]
    phi = engine.tree_shap(model, rows)
    if model.kind == "additive":
        want = model.decision_function(rows)[:, 0]
    else:
        want = model.predict_proba(rows)
    assert np.abs(phi.sum(axis=-1) - want).max() < 1e-9


def test_scikit_learn_gradient_boosting_file_adds_up_to_its_decision_function(tmp_path):
    sio = pytest.importorskip("skops.io")
    from sklearn.ensemble import GradientBoostingClassifier
    rng, X = _data(2, 200, missing=0.0)
    y = np.digitize(X[:, 0] + X[:, 1], [-0.5, 0.5])
    est = GradientBoostingClassifier(n_estimators=15, max_depth=3, random_state=0).fit(X, y)
    path = tmp_path / "gb.skops"
    sio.dump(est, path)
    model = engine.load_model(path.read_bytes())
    phi = engine.tree_shap(model, X)                                   # (n, 3, F + 1): one margin per class
    assert phi.shape == (200, 3, 7)
    assert np.abs(phi.sum(axis=-1) - est.decision_function(X)).max() < 1e-9
