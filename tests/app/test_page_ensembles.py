"""AppTest of pages/ensembles.py (inside app.py): every method and tab, the numbers against the engine."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

import engine
from engine import ensembles
from ui.ensembles import train as training
from tests.app.tree_charts import tree_charts
from ui import state

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
PAGE = "pages/ensembles.py"
TABS = ["Vote", "Why this prediction", "Members", "Decision map", "Size & variance", "Importances"]


def _open(ds, *, test_size=0.25, seed=0, params=None) -> tuple[AppTest, object]:
    at = AppTest.from_file(APP, default_timeout=240)
    settings = {"test_size": test_size, "validation_size": 0.0, "seed": seed}
    split = ds.split(**settings)
    for key, value in {state.DATASET: ds, state.LOADED_DATASET: ds, state.DATASET_NAME: ds.name,
                       state.SPLIT_SETTINGS: settings, state.DATA_SPLIT: split, state.SEED: seed}.items():
        at.session_state[key] = value
    if params:
        at.query_params.update(params)
    at.switch_page(PAGE)
    return at.run(), split


def _ok(at):
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at


def _train(at, method=None, **widgets):
    if method is not None:
        at.segmented_control(key=training.W_METHOD).set_value(method).run()
    for key, value in widgets.items():
        at.session_state[key] = value
    at.button(key="_w_ens_train").click().run()
    return _ok(at)


def _tab(at, method, label):
    at.session_state["_w_ens_tab" + method] = label
    return _ok(at.run())


def _chart(at, key: str) -> dict:
    found = [json.loads(c.proto.spec) for c in at.get("plotly_chart") if key in (c.proto.id or "")]
    assert found, f"no chart {key}"
    return found[0]


def _values(arr) -> np.ndarray:
    if isinstance(arr, dict) and "bdata" in arr:
        return np.frombuffer(base64.b64decode(arr["bdata"]), dtype=np.dtype(arr["dtype"]))
    return np.asarray(arr, dtype=float)


def state_config(ds):
    """The member settings the page uses: the sample's textbook algorithm (as ui.state does)."""
    from engine.data.dataset import SAMPLES
    info = SAMPLES.get(ds.name)
    return engine.TreeConfig(algorithm=info.algorithm if info else "cart")


def test_random_forest_every_tab_matches_the_engine():
    ds = engine.load_sample("ski")
    at, split = _open(ds)
    _ok(at)
    assert any("press **Train**" in i.value for i in at.info)
    _train(at, "random_forest", **{f"{training.W_M}_random_forest": 12})
    ens = at.session_state[training.RESULT]["ensemble"]
    expected = ensembles.fit_random_forest(split.train, n_estimators=12, random_state=0,
                                           tree_config=state_config(ds))
    np.testing.assert_array_equal(ens.in_bag, expected.in_bag)
    assert at.markdown[0].value.startswith("**Random forest: 12 members")
    assert f"OOB accuracy {expected.oob_score():.3f}" in at.markdown[0].value
    assert [t.label for t in at.tabs] == TABS
    # Vote tab: the first test row's tally
    tally = [d.value for d in at.dataframe if "votes" in d.value.columns][0]
    vb = ensembles.vote_breakdown(expected, split.test.frame.iloc[[0]])
    pd.testing.assert_frame_equal(tally.reset_index(drop=True), vb.tally, check_dtype=False)
    spec = _chart(at, "ens_vote_chart")
    assert sum(_values(t["y"]).sum() for t in spec["data"]) == pytest.approx(12)
    assert len(tree_charts(at)) == 1 and "#D81B60" in tree_charts(at)[0]["line"]  # the row's path
    # another row, then a training row
    at.number_input(key="_w_ens_row").set_value(3).run()
    tally = [d.value for d in _ok(at).dataframe if "votes" in d.value.columns][0]
    assert list(tally["votes"]) == list(ensembles.vote_breakdown(expected, split.test.frame.iloc[[3]]).tally["votes"])
    for label in TABS[1:]:
        _tab(at, "random_forest", label)
    _tab(at, "random_forest", "Size & variance")
    curve = _chart(at, "ens_size_curve")
    assert [t["name"] for t in curve["data"]] == ["training rows", "test rows", "out of bag"]
    expected_curve = ensembles.size_curve(expected, split.test)
    np.testing.assert_allclose(_values(curve["data"][1]["y"]), expected_curve["test"])
    assert "measured" in at.code[0].value


def test_members_and_map_tabs():
    at, split = _open(engine.load_sample("ski"))
    _train(at, "bagging", **{f"{training.W_M}_bagging": 5})
    ens = at.session_state[training.RESULT]["ensemble"]
    _tab(at, "bagging", "Members")
    at.number_input(key="_w_ens_member").set_value(2).run()
    _ok(at)
    oob = [d.value for d in at.dataframe if "member says" in d.value.columns][0]
    assert len(oob) == int((ens.in_bag[2] == 0).sum())
    inbag = _chart(at, "ens_inbag")
    np.testing.assert_array_equal(_values(inbag["data"][0]["y"])[:3],
                                  np.bincount(ens.in_bag[2].astype(int), minlength=3)[:3])
    _tab(at, "bagging", "Decision map")
    spec = _chart(at, "ens_map")
    assert spec["data"][0]["type"] == "heatmap"
    assert _chart(at, "ens_member_regions")


def test_adaboost_rounds():
    at, split = _open(engine.load_sample("ski"), params={"method": "adaboost"})
    assert at.segmented_control(key=training.W_METHOD).value == "adaboost"
    _train(at, None, **{training.W_ROUNDS: 6})
    ens = at.session_state[training.RESULT]["ensemble"]
    assert [t.label for t in at.tabs][-1] == "AdaBoost rounds"
    _tab(at, "adaboost", "AdaBoost rounds")
    at.slider(key="_w_ens_round").set_value(3).run()
    _ok(at)
    rnd = ens.rounds[2]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["weighted error"] == f"{rnd.error:.4f}"
    assert metrics["z = ln((1−e)/e)"] == f"{rnd.z:.4f}"
    spec = _chart(at, "ens_round_map")
    sizes = np.concatenate([_values(t["marker"]["size"]) for t in spec["data"][1:] if t.get("mode") == "markers"
                            and isinstance(t["marker"].get("size"), (list, dict))])
    assert sizes.max() == pytest.approx(24.0)
    assert any("Round 3" in t.value for t in at.text)
    # randomised stumps show their draws
    at.session_state[training.W_BASE] = "random_stump"
    _train(at)
    _tab(at, "adaboost", "AdaBoost rounds")
    assert any("randomised stump drew" in c.value for c in at.caption)


def test_regression_bagging_and_query_point():
    at, split = _open(engine.load_sample("diabetes"))
    assert set(at.segmented_control(key=training.W_METHOD).options) == {"Bagging", "Random forest", "Gradient boosting"}  # no AdaBoost for numbers
    _train(at, "bagging", **{f"{training.W_M}_bagging": 4})
    assert "OOB mean squared error" in at.markdown[0].value
    at.segmented_control(key="_w_ens_source").set_value("query").run()
    _ok(at)
    stats = [d.value for d in at.dataframe if "statistic" in d.value.columns][0]
    ens = at.session_state[training.RESULT]["ensemble"]
    typical = {n: float(split.train.frame[n].median()) for n in split.train.feature_names}
    assert stats.loc[0, "value"] == pytest.approx(ens.predict(pd.DataFrame([typical]))[0], rel=1e-6)


def test_importances_and_stale_results():
    at, split = _open(engine.load_sample("wine"))
    _train(at, "random_forest", **{f"{training.W_M}_random_forest": 6})
    _tab(at, "random_forest", "Importances")
    assert len(_chart(at, "ens_importance")["data"]) == 1
    at.button(key="_w_ens_perm").click().run()
    assert len(_ok(at).get("plotly_chart")) == 1
    assert len(_chart(at, "ens_importance")["data"]) == 2
    at.session_state[state.DATA_VERSION] = at.session_state[state.DATA_VERSION] + 1
    at.run()
    assert any("changed since the last training" in i.value for i in at.info)


def test_engine_errors_are_shown_as_sentences():
    frame = pd.DataFrame({"a": [0.0, 0, 1, 1] * 3, "b": [0.0, 1, 0, 1] * 3, "y": ["n", "p", "p", "n"] * 3})
    at, _ = _open(engine.Dataset.from_frame(frame, target="y", name="xor"), test_size=0.0)
    at.segmented_control(key=training.W_METHOD).set_value("adaboost").run()
    at.button(key="_w_ens_train").click().run()
    assert not at.exception
    assert [e.value for e in at.error] and "no better than chance" in at.error[0].value


@pytest.mark.parametrize("sample, method, widgets", [
    ("iris", "random_forest", {f"{training.W_M}_random_forest": 8}),
    ("play_tennis", "adaboost", {training.W_ROUNDS: 5}),
    ("diabetes", "bagging", {f"{training.W_M}_bagging": 4}),
])
def test_the_trained_ensemble_downloads_as_onnx_that_votes_the_same(downloads, sample, method, widgets):
    onnxruntime = pytest.importorskip("onnxruntime")
    at, split = _open(engine.load_sample(sample))
    _train(at, method, **widgets)
    ens = at.session_state[training.RESULT]["ensemble"]
    button = next(d for d in at.get("download_button") if d.label == "Download as ONNX")
    assert button.proto.deferred_file_id                 # made only when clicked
    session = onnxruntime.InferenceSession(downloads[f"{sample}_{method}.onnx"],
                                           providers=["CPUExecutionProvider"])
    X = split.test.X
    out = session.run(None, {"X": X})
    if ens.task == "classification":
        assert list(out[0]) == list(ens.predict(X))
        np.testing.assert_allclose(out[1], ens.vote_shares(X), atol=1e-5)
    else:
        np.testing.assert_allclose(out[0][:, 0], ens.predict(X), rtol=1e-6)
    assert any("ONNX file" in c.value for c in at.caption)
