"""Model files as a new user makes them: each library's classifier trained with its DEFAULTS on
scikit-learn's breast-cancer data (column names with spaces, "mean radius"), on the bare array (generic
names f0/Column_0/x0) and with string labels, saved in the library's own format. The libraries (xgboost,
lightgbm, scikit-learn, skops, skl2onnx, onnxruntime, from requirements-dev.txt) are test oracles only.

``FILES[name] = (suffix, trainer)``; :func:`model_file` trains and saves once per test session and
returns ``(bytes, fitted library model, the X it was trained on)``; :func:`breast_csv_frame` is the
frame those models were trained on with the target as text labels ("malignant" for y = 0).
"""

from __future__ import annotations

import functools
import os
import tempfile
import warnings

import numpy as np
import pandas as pd
import pytest

TARGET = "diagnosis"


@functools.lru_cache(maxsize=None)
def _data():
    from sklearn.datasets import load_breast_cancer

    b = load_breast_cancer(as_frame=True)
    return b.data, b.target.to_numpy()


def breast_csv_frame(labels: str = "text") -> pd.DataFrame:
    """The 569 rows with the 30 feature columns as scikit-learn names them ("mean radius") and the target
    last: ``"text"`` malignant/benign (y = 0 is malignant), ``"codes"`` the 0/1 the models were trained on."""
    X, y = _data()
    frame = X.copy()
    frame[TARGET] = np.where(y == 0, "malignant", "benign") if labels == "text" else y
    return frame


def _xgb(X, y, path):
    import xgboost as xgb
    m = xgb.XGBClassifier().fit(X, y)
    m.save_model(path)
    return m


def _text(y):
    return np.where(y == 0, "malignant", "benign")


def _lgb(X, y, path, labels=False):
    import lightgbm as lgb
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = lgb.LGBMClassifier(verbose=-1).fit(X, _text(y) if labels else y)
    m.booster_.save_model(path)
    return m


def _skops(est):
    def train(X, y, path):
        import skops.io as sio
        m = est().fit(X, _text(y))
        sio.dump(m, path)
        return m
    return train


def _onnx(X, y, path):
    from skl2onnx import to_onnx
    from sklearn.tree import DecisionTreeClassifier
    m = DecisionTreeClassifier(random_state=0).fit(X, y)
    with open(path, "wb") as f:
        f.write(to_onnx(m, np.asarray(X, dtype=np.float32)[:1]).SerializeToString())
    return m


def _forest():
    from sklearn.ensemble import RandomForestClassifier
    return RandomForestClassifier(random_state=0)


def _tree():
    from sklearn.tree import DecisionTreeClassifier
    return DecisionTreeClassifier(random_state=0)


#: name -> (file suffix, trainer, trained on the named frame (True) or the bare array, library)
FILES = {
    "xgb_frame_json": (".json", _xgb, True, "xgboost"),
    "xgb_frame_ubj": (".ubj", _xgb, True, "xgboost"),
    "xgb_array_json": (".json", _xgb, False, "xgboost"),
    "lgb_frame": (".txt", _lgb, True, "lightgbm"),
    "lgb_array": (".txt", _lgb, False, "lightgbm"),
    "lgb_frame_text": (".txt", functools.partial(_lgb, labels=True), True, "lightgbm"),
    "skops_forest_frame": (".skops", _skops(_forest), True, "skops"),
    "skops_tree_array": (".skops", _skops(_tree), False, "skops"),
    "onnx_tree_array": (".onnx", _onnx, False, "skl2onnx"),
}


@functools.lru_cache(maxsize=None)
def model_file(name: str):
    """(file bytes, the fitted library model, the X it was trained on) for ``FILES[name]``."""
    suffix, train, named, library = FILES[name]
    pytest.importorskip(library)
    X, y = _data()
    X = X if named else X.to_numpy()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model" + suffix)
        model = train(X, y, path)
        with open(path, "rb") as f:
            return f.read(), model, X
