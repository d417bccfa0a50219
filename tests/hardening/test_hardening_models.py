"""Hardening: model files damaged at random (bytes flipped, cut, spliced, numbers changed) either open as a
model that predicts, or are refused with one DataError sentence; no other exception escapes load_model
and nothing in them is ever executed (pickles are refused by their first bytes)."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.errors import EngineError

FUZZ = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                       HealthCheck.too_slow])
X = np.random.default_rng(0).normal(size=(300, 3))
X[::9, 1] = np.nan


def _xgb_files() -> dict[str, bytes]:
    xgb = pytest.importorskip("xgboost")
    import tempfile, os
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, model, y in [("xgb-binary", xgb.XGBClassifier(n_estimators=3, max_depth=3), X[:, 0] > 0),
                               ("xgb-multi", xgb.XGBClassifier(n_estimators=2, max_depth=2),
                                np.digitize(X[:, 0], [-0.5, 0.5]))]:
            model.fit(X, y)
            for ext in ("json", "ubj"):
                path = os.path.join(tmp, f"m.{ext}")
                model.save_model(path)
                out[f"{name}.{ext}"] = open(path, "rb").read()
    return out


def _lgb_file() -> bytes:
    lgb = pytest.importorskip("lightgbm")
    import pandas as pd
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    df["k"] = pd.Categorical(np.random.default_rng(1).choice(list("pqrs"), len(df)))
    model = lgb.LGBMClassifier(n_estimators=3, num_leaves=6, verbose=-1, min_data_per_group=5, min_child_samples=5)
    model.fit(df, (X[:, 0] > 0) ^ (df["k"] == "q"))
    return model.booster_.model_to_string().encode()


@pytest.fixture(scope="module")
def files() -> dict[str, bytes]:
    out = _xgb_files()
    out["lgb.txt"] = _lgb_file()
    return out


def opens_or_refuses(data: bytes) -> None:
    try:
        model = engine.load_model(data)
    except EngineError as err:
        msg = str(err)
        assert msg.strip() and "Traceback" not in msg and len(msg) < 600 and msg.rstrip().endswith("."), msg
        return
    except Exception as err:  # noqa: BLE001 - the point of the test
        pytest.fail(f"{type(err).__name__} escaped load_model: {err}")
    rows = np.zeros((2, len(model.feature_names)))
    try:
        model.predict(rows)
    except EngineError:
        pass


NAMES = ["xgb-binary.json", "xgb-binary.ubj", "xgb-multi.json", "xgb-multi.ubj", "lgb.txt"]


@pytest.mark.parametrize("name", NAMES)
@FUZZ
@given(data=st.data())
def test_flipped_cut_and_spliced_bytes(files, name, data):
    raw = bytearray(files[name])
    how = data.draw(st.sampled_from(["flip", "cut", "splice", "zero"]))
    at = data.draw(st.integers(0, len(raw) - 1))
    if how == "flip":
        for _ in range(data.draw(st.integers(1, 8))):
            raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
    elif how == "cut":
        raw = raw[:at]
    elif how == "splice":
        raw[at:at] = data.draw(st.binary(min_size=1, max_size=40))
    else:
        raw[at:at + 16] = bytes(min(16, len(raw) - at))
    opens_or_refuses(bytes(raw))


NUMBERS = st.one_of(st.integers(-(2**40), 2**40), st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from([-1, 0, 1, 2, 2**31, -(2**31), 10**6]))


@pytest.mark.parametrize("name", ["xgb-binary.json", "xgb-multi.json"])
@FUZZ
@given(data=st.data())
def test_xgboost_tree_arrays_changed(files, name, data):
    doc = json.loads(files[name])
    trees = doc["learner"]["gradient_booster"]["model"]["trees"]
    tree = trees[data.draw(st.integers(0, len(trees) - 1))]
    key = data.draw(st.sampled_from(["left_children", "right_children", "split_indices", "split_conditions",
                                     "default_left", "sum_hessian"]))
    arr = tree[key]
    arr[data.draw(st.integers(0, len(arr) - 1))] = data.draw(NUMBERS)
    opens_or_refuses(json.dumps(doc).encode())


@FUZZ
@given(data=st.data())
def test_lightgbm_lines_changed(files, data):
    lines = files["lgb.txt"].decode().splitlines()
    keyed = [i for i, line in enumerate(lines) if "=" in line and not line.startswith("[")]
    i = data.draw(st.sampled_from(keyed))
    key, _, value = lines[i].partition("=")
    words = value.split() or ["0"]
    words[data.draw(st.integers(0, len(words) - 1))] = str(data.draw(NUMBERS))
    lines[i] = key + "=" + " ".join(words)
    opens_or_refuses("\n".join(lines).encode())


@given(obj=st.recursive(st.one_of(st.integers(), st.text(max_size=5), st.none()),
                        lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=3), c, max_size=3),
                        max_leaves=6),
       protocol=st.integers(0, pickle.HIGHEST_PROTOCOL))
@settings(max_examples=60, deadline=None)
def test_any_pickle_is_refused(obj, protocol):
    with pytest.raises(EngineError, match="pickle"):
        engine.load_model(pickle.dumps(obj, protocol=protocol))
