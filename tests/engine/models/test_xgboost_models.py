"""XGBoost JSON and UBJSON files: trained by xgboost in the test, read and predicted by the engine with
xgboost blocked, compared with xgboost's own predictions on 2,000 rows with missing values."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from engine.models import contributions

from tests.engine.models.conftest import numeric_data, predictions_without

xgb = pytest.importorskip("xgboost")

CASES = {
    "binary": (lambda: xgb.XGBClassifier(n_estimators=40, max_depth=4, learning_rate=0.3), 1),
    "multiclass": (lambda: xgb.XGBClassifier(n_estimators=25, max_depth=3), 2),
    "regression": (lambda: xgb.XGBRegressor(n_estimators=40, max_depth=5), 3),
    "poisson": (lambda: xgb.XGBRegressor(n_estimators=15, objective="count:poisson"), 3),
    "dart": (lambda: xgb.XGBClassifier(n_estimators=15, booster="dart", rate_drop=0.3, skip_drop=0.0), 1),
}


def trained(case: str, fmt: str, tmp_path, seed: int = 0):
    make, target = CASES[case]
    data = numeric_data(seed)
    X, y = data[0], data[target]
    if case == "poisson":
        y = np.abs(y)
    model = make().fit(X, y)
    path = tmp_path / f"model.{fmt}"
    model.save_model(path)
    return model, X, path


@pytest.mark.parametrize("fmt", ["json", "ubj"])
@pytest.mark.parametrize("case", list(CASES))
def test_engine_predicts_as_xgboost(case, fmt, tmp_path):
    model, X, path = trained(case, fmt, tmp_path)
    classifier = hasattr(model, "predict_proba")
    m, expected, got, labels, got_labels = predictions_without("xgboost", model, X, path, classifier)
    assert m.source == ("XGBoost JSON" if fmt == "json" else "XGBoost UBJSON")
    assert m.kind == "additive" and m.n_trees == len(model.get_booster().get_dump())
    assert X.shape[0] >= 1000 and np.isnan(X).any()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    if classifier:
        assert m.classes == tuple(str(c) for c in model.classes_)
        assert np.mean(got_labels.astype(int) == labels) > 0.999      # float32 ties aside
    assert m.feature_names == tuple(f"f{i}" for i in range(X.shape[1]))


def test_each_member_tree_alone_routes_missing_values_as_xgboost(tmp_path):
    model, X, path = trained("regression", "json", tmp_path)
    m = engine.load_model(path)
    booster = model.get_booster()
    leaves = booster.predict(xgb.DMatrix(X), pred_leaf=True)                # xgboost's own node ids
    ours = m.apply(X)
    for t in (0, 7, 39):
        tree = m.trees[t]
        # the Tree object by itself (as the diagram and path pages use it) reaches the same leaf value
        np.testing.assert_allclose(tree.predict(X), m.leaf_values(X)[t, :, 0])
        assert (tree.apply(X) == ours[:, t]).all()
        assert len(set(zip(leaves[:, t].tolist(), ours[:, t].tolist()))) == len(set(leaves[:, t].tolist()))


def test_margins_and_waterfall_add_up_to_xgboost_margin(tmp_path):
    model, X, path = trained("multiclass", "ubj", tmp_path)
    m = engine.load_model(path)
    margin = model.predict(X[:50], output_margin=True)
    np.testing.assert_allclose(m.decision_function(X[:50]), margin, rtol=1e-5, atol=1e-5)
    c = contributions(m, X[3])
    assert len(c.table) == m.n_trees and set(c.table["output"]) == {"0", "1", "2"}
    np.testing.assert_allclose(list(c.margin.values()), margin[3], atol=1e-5)
    np.testing.assert_allclose(list(c.answer.values()), model.predict_proba(X[3:4])[0], atol=1e-5)
    steps = c.waterfall("2")
    assert steps["end"].iloc[-1] == pytest.approx(c.margin["2"])
    assert np.allclose(steps["start"].iloc[1:].to_numpy() + steps["contribution"].iloc[1:].to_numpy(),
                       steps["end"].iloc[1:].to_numpy())


def test_feature_names_from_a_dataframe_are_kept(tmp_path):
    import pandas as pd
    X, y, _, _ = numeric_data(1, n=1200, d=3)
    df = pd.DataFrame(X, columns=["age", "income", "score"])
    model = xgb.XGBClassifier(n_estimators=5).fit(df, y)
    model.save_model(tmp_path / "m.json")
    m = engine.load_model((tmp_path / "m.json").read_bytes())
    assert m.feature_names == ("age", "income", "score")
    shuffled = df[["score", "age", "income"]]                                # a frame is read by name
    np.testing.assert_allclose(m.predict_proba(shuffled), model.predict_proba(df), atol=1e-5)


def test_threshold_bound_matches_float32_strict_less():
    from engine.models.xgboost_json import left_bound
    rng = np.random.default_rng(3)
    for t in rng.normal(size=200).astype(np.float32):
        b = left_bound(float(t))
        assert np.float32(b) < t
        assert not np.float32(np.nextafter(b, np.inf)) < t
