"""AppTest of pages/evaluate.py: every tab and control, classification and regression, uploads, errors."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import engine
from engine.evaluate.curves import depth_curve
from engine.evaluate.validation import cross_validate, holdout
from engine.evaluate.metrics import evaluate
from ui import state
from ui.widgets import md_escape

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "evaluate.py")
TAB = "_w_eval_tab"


def _values(arr) -> np.ndarray:
    if isinstance(arr, dict) and "bdata" in arr:
        return np.frombuffer(base64.b64decode(arr["bdata"]), dtype=np.dtype(arr["dtype"]))
    return np.asarray(arr, dtype=float)


def _chart(at: AppTest, key: str) -> dict:
    for chart in at.get("plotly_chart"):
        if chart.proto.id and key in chart.proto.id:
            return json.loads(chart.proto.spec)
    raise AssertionError(f"no chart with key {key}")


def _page(ds=None, *, test_size=0.25, validation_size=0.0, seed=0, steps=None, config=None,
          tab="Metrics") -> tuple[AppTest, object]:
    """The page on ``ds`` (default: the app's default sample), optionally with a Grow-page grower."""
    at = AppTest.from_file(PAGE, default_timeout=120)
    split = None
    if ds is not None:
        settings = {"test_size": test_size, "validation_size": validation_size, "seed": seed}
        split = ds.split(**settings)
        at.session_state[state.DATASET] = ds
        at.session_state[state.LOADED_DATASET] = ds
        at.session_state[state.DATASET_NAME] = ds.name
        at.session_state[state.SPLIT_SETTINGS] = settings
        at.session_state[state.DATA_SPLIT] = split
        at.session_state[state.SEED] = seed
        if config is not None:
            at.session_state[state.TREE_CONFIG] = config
        if steps is not None:
            g = engine.Grower(split.train, config or engine.TreeConfig(), validation_data=split.validation)
            for _ in range(steps):
                g.step()
            at.session_state[state.GROWER] = g
    at.session_state[TAB] = tab
    return at.run(), split


def _ok(at: AppTest) -> None:
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]


def _open(at: AppTest, tab: str) -> AppTest:
    at.session_state[TAB] = tab
    return at.run()


def test_default_sample_every_tab_renders():
    at, _ = _page()
    _ok(at)
    assert [t.label for t in at.tabs] == ["Metrics", "Cross-validation", "Overfitting curve", "Learning curve",
                                          "Instability"]
    # play_tennis trains on all 14 rows: only train is scored, with a note
    assert any("no test rows" in i.value for i in at.info)
    assert list(at.dataframe[0].value.columns) == ["train (14 rows)"]
    assert len(at.get("plotly_chart")) == 1
    for tab in ["Cross-validation", "Overfitting curve", "Learning curve", "Instability"]:
        _open(at, tab)
        _ok(at)
        assert at.get("plotly_chart"), tab
        if tab != "Cross-validation":
            assert any("holds out 30% of the training rows" in i.value for i in at.info), tab


def test_metrics_tab_trees_and_per_class_table():
    iris = engine.load_sample("iris")
    at, split = _page(iris, test_size=0.3, steps=2)
    _ok(at)
    grown = at.session_state[state.GROWER].tree
    table = at.dataframe[0].value
    assert list(table.columns) == ["train (105 rows)", "test (45 rows)"]
    assert table.loc["accuracy", "test (45 rows)"] == pytest.approx(evaluate(grown, split.test).scores["accuracy"])
    assert len(at.get("plotly_chart")) == 2
    spec = _chart(at, "eval_fig_test")
    assert spec["data"][0]["type"] == "heatmap" and spec["data"][0]["x"] == list(iris.classes)
    # the fully grown tree instead of the Grow page's
    at.radio(key="eval_tree").set_value("full").run()
    _ok(at)
    full = engine.fit_tree(split.train)
    assert at.dataframe[0].value.loc["accuracy", "train (105 rows)"] == pytest.approx(
        evaluate(full, split.train).scores["accuracy"])
    assert any(f"{full.n_leaves} leaves" in c.value for c in at.caption)
    # per-class table for another part
    report = at.dataframe[1].value
    assert report["support"].iloc[:3].sum() == 45
    at.selectbox(key="eval_report_set").set_value("train").run()
    assert at.dataframe[1].value["support"].iloc[:3].sum() == 105


def test_train_validation_test_side_by_side_and_validation_stopping():
    ds = engine.load_sample("noisy_moons")
    at, split = _page(ds, test_size=0.25, validation_size=0.2, config=engine.TreeConfig(validation=True))
    _ok(at)
    assert list(at.dataframe[0].value.columns) == ["train (220 rows)", "validation (80 rows)", "test (100 rows)"]
    assert len(at.get("plotly_chart")) == 3
    full = engine.fit_tree(split.train, engine.TreeConfig(validation=True), validation_data=split.validation)
    assert at.dataframe[0].value.loc["accuracy", "test (100 rows)"] == pytest.approx(
        evaluate(full, split.test).scores["accuracy"])
    _open(at, "Overfitting curve")
    _ok(at)
    assert [t["name"] for t in _chart(at, "eval_curve_chart")["data"][:3]] == ["train", "validation", "test"]


def test_regression_sample_every_tab():
    diabetes = engine.load_sample("diabetes").subset(np.arange(160))
    at, split = _page(diabetes, config=engine.TreeConfig(max_depth=4))
    _ok(at)
    assert list(at.dataframe[0].value.index) == ["R²", "MSE", "MAE"]
    spec = _chart(at, "eval_fig_test")
    assert spec["data"][1]["mode"] == "markers"
    _open(at, "Cross-validation")
    _ok(at)
    assert "R²" in at.metric[0].label
    _open(at, "Overfitting curve")
    at.selectbox(key="eval_curve_metric_regression").set_value("mae").run()
    _ok(at)
    assert _chart(at, "eval_curve_chart")["layout"]["yaxis"]["title"]["text"] == "MAE"
    _open(at, "Learning curve")
    _ok(at)
    _open(at, "Instability")
    _ok(at)
    assert at.metric[1].label == "mean |change|"


def test_cross_validation_controls():
    ds = engine.load_sample("iris")
    at, split = _page(ds, seed=4, tab="Cross-validation")
    _ok(at)
    assert len(at.dataframe[0].value) == 5
    at.number_input(key="eval_cv_k").set_value(3)
    at.button(key="eval_cv_run").click().run()
    _ok(at)
    folds = at.dataframe[0].value
    expected = cross_validate(split.train, engine.TreeConfig(), k=3, seed=4)
    assert len(folds) == 3
    np.testing.assert_allclose(folds["test_accuracy"], expected.folds["test_accuracy"])
    assert at.metric[0].value == f"{expected.mean():.4f}"
    assert any("3 stratified folds" in c.value and "seed 4" in c.value for c in at.caption)
    at.selectbox(key="eval_cv_metric_classification").set_value("macro_f1").run()
    assert "macro F1" in _chart(at, "eval_cv_chart")["layout"]["title"]["text"]
    assert len(at.dataframe[0].value) == 3  # the result is kept without another run


def test_overfitting_curve_controls_and_current_step():
    ds = engine.load_sample("noisy_moons")
    at, split = _page(ds, steps=3, tab="Overfitting curve")
    _ok(at)
    grower = at.session_state[state.GROWER]
    spec = _chart(at, "eval_curve_chart")
    names = [t.get("name") for t in spec["data"]]
    assert names[:2] == ["train", "test"] and "best test" in names
    current = [t for t in spec["data"] if t.get("marker", {}).get("symbol") == "diamond"]
    expected = {"train": evaluate(grower.tree, split.train).scores["accuracy"],
                "test": evaluate(grower.tree, split.test).scores["accuracy"]}
    assert sorted(_values(t["y"])[0] for t in current) == pytest.approx(sorted(expected.values()))
    assert spec["layout"]["shapes"][0]["x0"] == grower.tree.n_leaves == 4
    assert any("Best test accuracy" in m.value for m in at.markdown)
    # depth on the x-axis: one point per depth
    at.radio(key="eval_curve_x").set_value("depth").run()
    _ok(at)
    full = engine.fit_tree(split.train)
    table = depth_curve(full, [("train", split.train), ("test", split.test)])
    line = _chart(at, "eval_curve_chart")["data"][1]
    np.testing.assert_allclose(_values(line["y"]), table["test_accuracy"])
    at.selectbox(key="eval_curve_metric_classification").set_value("error").run()
    assert _chart(at, "eval_curve_chart")["layout"]["yaxis"]["title"]["text"] == "error rate"
    at.radio(key="eval_curve_x").set_value("n_nodes").run()
    _ok(at)


def test_learning_curve_controls():
    ds = engine.load_sample("iris")
    at, split = _page(ds, tab="Learning curve")
    _ok(at)
    assert len(at.dataframe[0].value) == 6
    at.slider(key="eval_lc_sizes").set_value(3)
    at.slider(key="eval_lc_repeats").set_value(2)
    at.button(key="eval_lc_run").click().run()
    _ok(at)
    summary = at.dataframe[0].value
    assert summary["n_train"].tolist() == [37, 75, 112] and summary["runs"].tolist() == [2, 2, 1]
    assert any(f"{len(split.test)} held-out rows" in c.value for c in at.caption)


def test_instability_controls_and_jitter_error():
    ds = engine.load_sample("iris")
    at, _ = _page(ds, tab="Instability", seed=2)
    _ok(at)
    assert len(at.dataframe[0].value) == 10
    at.selectbox(key="eval_inst_method").set_value("flip")
    at.slider(key="eval_inst_pct").set_value(10)
    at.number_input(key="eval_inst_runs").set_value(3)
    at.button(key="eval_inst_run").click().run()
    _ok(at)
    runs = at.dataframe[0].value
    assert len(runs) == 3 and (runs["rows_changed"] == 11).all()
    assert at.text[0].value.startswith("Original tree: root ")
    # all-categorical data cannot be jittered: a sentence, not a traceback
    at2, _ = _page(tab="Instability")
    at2.selectbox(key="eval_inst_method").set_value("jitter")
    at2.button(key="eval_inst_run").click().run()
    assert not at2.exception
    assert "jitter changes numeric features" in at2.error[0].value


def test_config_that_does_not_fit_shows_a_sentence():
    diabetes = engine.load_sample("diabetes").subset(np.arange(100))
    at, _ = _page(diabetes, config=engine.TreeConfig(validation=True))
    assert not at.exception
    assert "validation" in at.error[0].value
    _open(at, "Overfitting curve")
    assert not at.exception and at.error


def test_uploaded_file_with_missing_values_and_seed():
    rows = ["colour,size,weight,label"]
    rng = np.random.default_rng(0)
    for i in range(80):
        size = "" if i % 9 == 0 else f"{rng.normal(5, 2):.2f}"
        rows.append(f"{rng.choice(['red', 'green', 'blue'])},{size},{rng.integers(1, 9)},"
                    f"{'good' if i % 3 else 'bad'}")
    ds = engine.load_csv("\n".join(rows).encode(), target="label")
    at, split = _page(ds, config=engine.TreeConfig(algorithm="c45"), seed=1)
    _ok(at)
    for tab in ["Cross-validation", "Overfitting curve", "Learning curve", "Instability"]:
        _open(at, tab)
        _ok(at)
    _open(at, "Cross-validation")
    assert any("seed 1" in c.value for c in at.caption)
    # the curves use held-out rows of the training part when there is no test part
    train, test, borrowed = holdout(split.train, None, seed=1)
    assert borrowed and len(test) == 18


def test_tiny_data_metrics_and_cv_work_curves_explain():
    ds = engine.load_csv(b"a,y\n1,p\n2,q\n3,p\n")
    at, _ = _page(ds, test_size=0.0)
    _ok(at)
    _open(at, "Cross-validation")
    _ok(at)
    assert len(at.dataframe[0].value) == 3  # k = 3 folds of one row
    for tab in ["Overfitting curve", "Learning curve", "Instability"]:
        _open(at, tab)
        assert not at.exception
        assert at.error[0].value == md_escape("With 3 training rows there is nothing to hold out; load more "
                                              "rows or set a test share on the Data page.", limit=1000)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(engine.SAMPLES))
def test_every_sample_every_tab(name):
    ds = engine.load_sample(name)
    info = engine.SAMPLES[name]
    at, _ = _page(ds, test_size=0.0 if len(ds) < 30 else 0.25, config=engine.TreeConfig(algorithm=info.algorithm))
    _ok(at)
    for tab in ["Cross-validation", "Overfitting curve", "Learning curve", "Instability"]:
        _open(at, tab)
        _ok(at)
        assert at.get("plotly_chart"), tab


def test_controls_survive_switching_tabs_and_too_many_folds_is_a_sentence():
    ds = engine.load_sample("iris")
    at, _ = _page(ds, tab="Overfitting curve")
    at.radio(key="eval_curve_x").set_value("depth").run()
    _open(at, "Instability")
    at.slider(key="eval_inst_pct").set_value(12)
    at.number_input(key="eval_inst_runs").set_value(2)
    at.button(key="eval_inst_run").click().run()
    _open(at, "Overfitting curve")
    assert at.radio(key="eval_curve_x").value == "depth"
    _open(at, "Instability")
    assert at.slider(key="eval_inst_pct").value == 12 and len(at.dataframe[0].value) == 2
    tiny = engine.load_csv(b"a,y\n1,p\n2,q\n3,p\n4,q\n5,p\n6,q\n")
    at, _ = _page(tiny, test_size=0.0, tab="Cross-validation")
    at.number_input(key="eval_cv_k").set_value(10)
    at.button(key="eval_cv_run").click().run()
    assert not at.exception
    assert at.error[0].value == md_escape("10 folds need at least 10 rows; there are 6. Choose fewer folds.")


def test_registered_in_app_frame():
    assert '"pages/evaluate.py"' in (ROOT / "app.py").read_text()


def test_full_app_navigation_reaches_the_page(app_test):
    at = app_test("pages/evaluate.py")
    assert not at.exception
    assert at.title[0].value == "Evaluate"


def test_page_stays_short():
    assert len((ROOT / "pages" / "evaluate.py").read_text().splitlines()) <= 150
