"""LightGBM text model files: trained by lightgbm in the test, read and predicted by the engine with
lightgbm blocked, compared with lightgbm's own predictions on 2,000 rows with missing values and
category columns."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from engine.models import contributions

from tests.engine.models.conftest import categorical_frame, numeric_data, predictions_without

lgb = pytest.importorskip("lightgbm")


def fit(model, X, y, path, **kw):
    model.fit(X, y, **kw)
    model.booster_.save_model(str(path))
    return model


def check(model, X, path, classifier):
    m, expected, got, labels, got_labels = predictions_without("lightgbm", model, X, path, classifier)
    assert len(X) >= 1000
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9)
    if classifier:
        assert (got_labels.astype(int) == labels).all()
    return m


@pytest.mark.parametrize("target,classifier", [(1, True), (2, True), (3, False)],
                         ids=["binary", "multiclass", "regression"])
def test_numeric_with_missing_values(target, classifier, tmp_path):
    data = numeric_data(4)
    X, y = data[0], data[target]
    make = lgb.LGBMClassifier if classifier else lgb.LGBMRegressor
    model = fit(make(n_estimators=30, num_leaves=15, verbose=-1), X, y, tmp_path / "m.txt")
    m = check(model, X, tmp_path / "m.txt", classifier)
    assert m.source == "LightGBM text" and m.kind == "additive"
    assert m.n_trees == model.booster_.num_trees()


@pytest.mark.parametrize("target,classifier", [(1, True), (2, True), (3, False)],
                         ids=["binary", "multiclass", "regression"])
def test_pandas_category_column(target, classifier, tmp_path):
    data = categorical_frame(5)
    df, y = data[0], data[target]
    make = lgb.LGBMClassifier if classifier else lgb.LGBMRegressor
    model = fit(make(n_estimators=25, verbose=-1, min_data_per_group=20, cat_smooth=1), df, y, tmp_path / "m.txt")
    m = check(model, df, tmp_path / "m.txt", classifier)
    j = m.feature_names.index("colour")
    assert m.schema.kinds[j] == "categorical"
    assert m.schema.categories[j] == tuple(df["colour"].cat.categories)
    subsets = [n.split for t in m.trees for n in t.internal_nodes if n.split.kind == "subset"]
    assert subsets and all(s.feature == "colour" for s in subsets)


def test_integer_coded_category_feature_without_pandas(tmp_path):
    rng = np.random.default_rng(6)
    X, y, _, _ = numeric_data(6, d=3)
    codes = rng.integers(0, 9, size=len(X)).astype(float)
    codes[rng.random(len(X)) < 0.05] = np.nan
    X = np.column_stack([X, codes])
    y = (y ^ np.isin(codes, [1, 4, 7])).astype(int)
    model = fit(lgb.LGBMClassifier(n_estimators=20, verbose=-1, min_data_per_group=20), X, y, tmp_path / "m.txt",
                categorical_feature=[3])
    m = check(model, X, tmp_path / "m.txt", True)
    assert m.schema.kinds[3] == "categorical" and m.schema.categories[3][:3] == ("0", "1", "2")
    unseen = X[:5].copy()
    unseen[:, 3] = [20, -3, 2.7, np.nan, 1e6]                  # unseen, negative, truncated, missing, huge
    np.testing.assert_allclose(m.predict_proba(unseen), model.predict_proba(unseen), atol=1e-9)


def test_random_forest_mode_averages(tmp_path):
    X, y, _, _ = numeric_data(7)
    model = fit(lgb.LGBMClassifier(boosting_type="rf", bagging_freq=1, bagging_fraction=0.6, n_estimators=12,
                                   verbose=-1), X, y, tmp_path / "m.txt")
    check(model, X, tmp_path / "m.txt", True)


def test_poisson_and_trees_alone(tmp_path):
    X, _, _, yr = numeric_data(8)
    model = fit(lgb.LGBMRegressor(objective="poisson", n_estimators=12, verbose=-1), X, np.abs(yr), tmp_path / "m.txt")
    m = check(model, X, tmp_path / "m.txt", False)
    assert m.link == "exp"
    leaf_ids = model.booster_.predict(X, pred_leaf=True)
    vals = m.leaf_values(X)[:, :, 0]
    for t in (0, 5, 11):
        np.testing.assert_allclose(m.trees[t].predict(X), vals[t])          # the Tree alone routes the same
        lib = np.array([model.booster_.get_leaf_output(t, int(k)) for k in leaf_ids[:, t]])
        np.testing.assert_allclose(vals[t], lib)


def test_binary_waterfall_ends_at_lightgbm_raw_score(tmp_path):
    X, y, _, _ = numeric_data(9)
    model = fit(lgb.LGBMClassifier(n_estimators=15, verbose=-1), X, y, tmp_path / "m.txt")
    m = engine.load_model(tmp_path / "m.txt")
    raw = model.predict(X[:20], raw_score=True)
    np.testing.assert_allclose(m.decision_function(X[:20])[:, 0], raw, atol=1e-12)
    c = contributions(m, X[4:5])
    assert c.table["running_sum"].iloc[-1] == pytest.approx(raw[4])
    assert c.answer["1"] == pytest.approx(model.predict_proba(X[4:5])[0, 1])
    assert c.waterfall()["step"].iloc[0] == "base score"


def test_zero_as_missing_that_a_threshold_cannot_say_is_refused(tmp_path):
    X, _, _, yr = numeric_data(10, missing=0.0)
    X[::7, 0] = 0.0
    fit(lgb.LGBMRegressor(zero_as_missing=True, n_estimators=10, verbose=-1), X, yr, tmp_path / "m.txt")
    with pytest.raises(engine.DataError, match="zero_as_missing"):
        engine.load_model(tmp_path / "m.txt")


def test_a_tree_that_is_one_leaf(tmp_path):
    X, _, _, yr = numeric_data(16, n=1000, missing=0.0)
    model = fit(lgb.LGBMRegressor(n_estimators=3, min_child_samples=800, verbose=-1), X, yr, tmp_path / "m.txt")
    m = check(model, X, tmp_path / "m.txt", False)
    assert m.trees[0].n_nodes == 1
