"""Model files for the AppTests of a model trained elsewhere: small XGBoost and LightGBM models trained on
bundled samples (the libraries are test oracles from requirements-dev.txt; the app reads the files itself)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.data.dataset import load_sample


def _xy(name: str):
    ds = load_sample(name)
    X = ds.frame[list(ds.feature_names)]
    return ds, X


@pytest.fixture(scope="session")
def xgb_iris(tmp_path_factory) -> bytes:
    """A 5-round XGBoost multi-class model of iris (15 trees), saved as JSON; classes numbered 0..2."""
    xgb = pytest.importorskip("xgboost")
    ds, X = _xy("iris")
    y = np.array([ds.classes.index(c) for c in ds.frame[ds.target].astype(str)])
    path = tmp_path_factory.mktemp("models") / "iris.json"
    xgb.XGBClassifier(n_estimators=5, max_depth=3, random_state=0).fit(X, y).save_model(path)
    return path.read_bytes()


@pytest.fixture(scope="session")
def xgb_diabetes(tmp_path_factory) -> bytes:
    """A 4-round XGBoost regression model of the diabetes sample, saved as UBJSON."""
    xgb = pytest.importorskip("xgboost")
    ds, X = _xy("diabetes")
    path = tmp_path_factory.mktemp("models") / "diabetes.ubj"
    xgb.XGBRegressor(n_estimators=4, max_depth=3, random_state=0).fit(X, ds.frame[ds.target]).save_model(path)
    return path.read_bytes()


@pytest.fixture(scope="session")
def lgb_breast(tmp_path_factory) -> bytes:
    """A LightGBM random forest (rf boosting) of the breast-cancer sample, as the text model file."""
    lgb = pytest.importorskip("lightgbm")
    ds, X = _xy("breast_cancer")
    y = np.array([ds.classes.index(c) for c in ds.frame[ds.target].astype(str)])
    booster = lgb.train({"objective": "binary", "boosting": "rf", "bagging_fraction": 0.7, "bagging_freq": 1,
                         "num_leaves": 8, "verbose": -1, "seed": 0}, lgb.Dataset(X, y), num_boost_round=6)
    path = tmp_path_factory.mktemp("models") / "breast.txt"
    booster.save_model(str(path))
    return path.read_bytes()


def ok(at):
    """No exception and no error box on the page."""
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


@pytest.fixture
def model_app(app_test):
    """``model_app(data, name, page=None)``: an AppTest that opened the model file on the Data page, checked
    that no error showed, and then (``page``) switched to another page."""
    from ui.model.opening import W_MODEL_UPLOAD

    def make(data: bytes, name: str, page: str | None = None, *, sample: str | None = None):
        at = app_test("pages/data.py")
        if sample is not None:
            at.selectbox(key="_w_data_sample").set_value(sample).run()
            [b for b in at.button if b.label == "Use this sample"][0].click().run()
        at.file_uploader(key=W_MODEL_UPLOAD).set_value((name, data, "application/octet-stream")).run()
        ok(at)
        if page is not None:
            at.switch_page(page)
            at.run()
        return at

    return make


@pytest.fixture(scope="session")
def iris_forest():
    """A three-tree soft-voting forest of iris as an ImportedModel (as a scikit-learn forest opens): trees grown
    by the engine on bootstrap samples, missing values sent left as a model file says."""
    from dataclasses import replace

    from engine import ImportedModel
    from engine.config import TreeConfig
    from engine.grow.grower import fit_tree

    ds = load_sample("iris")
    rng = np.random.default_rng(0)
    trees = []
    for _ in range(3):
        tree = fit_tree(ds.subset(rng.integers(0, len(ds), len(ds))), TreeConfig(max_depth=3))
        trees.append(tree.replace_nodes({n.id: n.evolve(split=replace(n.split, child_weights=(1.0, 0.0)))
                                         for n in tree.internal_nodes}))
    return ImportedModel(trees=tuple(trees), schema=trees[0].schema, kind="soft_vote", source="test forest")


@pytest.fixture
def forest_app(app_test, iris_forest):
    """``forest_app(page)``: the iris sample active, ``iris_forest`` open (put in the session as the Data page
    would after reading a file), on ``page``."""
    from ui import state

    def make(page: str):
        at = app_test("pages/data.py")
        at.selectbox(key="_w_data_sample").set_value("iris").run()
        [b for b in at.button if b.label == "Use this sample"][0].click().run()
        at.session_state[state.MODEL] = iris_forest
        at.session_state[state.MODEL_NAME] = "forest.onnx"
        at.switch_page(page)
        at.run()
        return at

    return make
