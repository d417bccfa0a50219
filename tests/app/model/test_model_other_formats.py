"""AppTest: a scikit-learn forest saved with skops and ONNX files (skl2onnx's and the app's own export) open on
the Data page and show on every page, as the XGBoost and LightGBM files do."""

from __future__ import annotations

import numpy as np
import pytest

from engine import ImportedModel
from engine.data.dataset import load_sample
from tests.app.model.conftest import ok
from ui import state

PAGES = ["pages/grow.py", "pages/rules.py", "pages/ensembles.py", "pages/evaluate.py", "pages/prune.py"]


def _iris():
    ds = load_sample("iris")
    return ds, ds.frame[list(ds.feature_names)], ds.frame[ds.target].astype(str)


@pytest.fixture(scope="module")
def skops_forest() -> bytes:
    sio = pytest.importorskip("skops.io")
    ensemble = pytest.importorskip("sklearn.ensemble")
    _, X, y = _iris()
    return sio.dumps(ensemble.RandomForestClassifier(n_estimators=5, max_depth=3, random_state=0).fit(X, y))


@pytest.fixture(scope="module")
def onnx_tree() -> bytes:
    skl2onnx = pytest.importorskip("skl2onnx")
    tree = pytest.importorskip("sklearn.tree")
    from skl2onnx.common.data_types import DoubleTensorType

    _, X, y = _iris()
    clf = tree.DecisionTreeClassifier(max_depth=3, random_state=0).fit(X.to_numpy(), y)
    onx = skl2onnx.convert_sklearn(clf, initial_types=[("X", DoubleTensorType([None, 4]))],
                                   options={id(clf): {"zipmap": False}}, target_opset={"": 17, "ai.onnx.ml": 3})
    return onx.SerializeToString()


@pytest.fixture(scope="module")
def own_onnx() -> bytes:
    import engine
    from engine.ensembles.onnx_export import to_onnx

    return to_onnx(engine.fit_tree(load_sample("iris"), engine.TreeConfig(max_depth=3)))


def _every_page(model_app, data, name, *, named=True):
    """Open the file with the iris sample, then visit every page: no exception, no error box. A file that
    names its columns (``named``) matches the sample's; a nameless ONNX tensor's x0..x3 are the sample's four
    feature columns by position, and the page says so."""
    at = model_app(data, name, sample="iris")
    model = at.session_state[state.MODEL]
    assert isinstance(model, ImportedModel)
    if named:
        assert any("has all 4 of the model's columns" in s.value.replace("\\", "") for s in at.success)
    else:
        assert model.feature_names == ("x0", "x1", "x2", "x3")
        assert any("by position (x0, ..., x3)" in s.value.replace("\\", "") for s in at.success)
    for page in PAGES:
        at.switch_page(page)
        at.run()
        ok(at)
    return at, model


def test_a_skops_random_forest_opens_as_a_soft_vote_on_every_page(model_app, skops_forest):
    at, model = _every_page(model_app, skops_forest, "forest.skops")
    assert model.kind == "soft_vote" and model.n_trees == 5 and model.source.startswith("scikit-learn")
    at.switch_page("pages/ensembles.py")
    at.run()
    assert any("class distributions" in c.value for c in at.caption)  # each member's vote, not a waterfall


@pytest.mark.parametrize("which", ["skl2onnx", "own export"])
def test_an_onnx_tree_opens_on_every_page_and_predicts_as_the_app(model_app, onnx_tree, own_onnx, which):
    data = onnx_tree if which == "skl2onnx" else own_onnx
    at, model = _every_page(model_app, data, "tree.onnx", named=which == "own export")
    assert model.source == "ONNX" and model.n_trees == 1
    _, X, y = _iris()
    assert np.mean(model.predict(X.to_numpy()).astype(str) == y.to_numpy()) > 0.9
