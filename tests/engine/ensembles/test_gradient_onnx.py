"""Gradient boosting as ONNX: onnxruntime (a test oracle only) predicts as the app, missing values included."""

import json

import numpy as np
import onnx
import pytest

import engine
from engine.ensembles import fit_gradient_boosting
from engine.ensembles.onnx_export import onnx_problem, to_onnx
from tests.engine.ensembles.test_onnx_export import run, test_rows

pytest.importorskip("onnxruntime")


@pytest.mark.parametrize("sample, kw", [
    ("diabetes", dict(n_estimators=30)),                      # regression
    ("breast_cancer", dict(n_estimators=30, subsample=0.8)),  # log-loss
    ("iris", dict(n_estimators=20, max_depth=2)),             # multinomial, 3 trees a round
    ("titanic_small", dict(n_estimators=25)),                 # categories and missing values in training
    ("play_tennis", dict(n_estimators=10, max_depth=2)),      # category tests only
])
def test_boosting_predicts_the_same_in_onnxruntime(sample, kw):
    ds = engine.load_sample(sample)
    ens = fit_gradient_boosting(ds, **kw)
    X = test_rows(ds)
    assert np.isnan(X).any() and onnx_problem(ens) is None
    blob = to_onnx(ens)
    meta = {p.key: p.value for p in onnx.load_from_string(blob).metadata_props}
    assert meta["method"] == "gradient_boosting" and json.loads(meta["classes"]) == list(ds.classes)
    out = run(blob, X)
    raw = ens.raw(X)
    if ds.task == "regression":
        np.testing.assert_allclose(out[0], raw, rtol=1e-6, atol=1e-4)
        np.testing.assert_allclose(out[1][:, 0], ens.predict(X), rtol=1e-6, atol=1e-4)
    else:
        np.testing.assert_allclose(out[2], raw, rtol=1e-6, atol=1e-5)
        np.testing.assert_allclose(out[1], ens.predict_proba(X), atol=1e-5)
        top = np.sort(raw, axis=1)
        gap = top[:, -1] - top[:, -2] if raw.shape[1] > 1 else np.abs(raw[:, 0])
        clear = gap > 1e-5                              # float32 cannot order margins closer than this
        assert clear.mean() > 0.9
        assert list(out[0][clear]) == list(ens.predict(X)[clear])
