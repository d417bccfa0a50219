"""AppTest of pages/rules.py (inside app.py): decision list step/undo/run/reset, failure, k-DT, tree rules."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

import engine
from engine.ensembles import DecisionListLearner, fit_kdt
from engine.tree.paths import rules_text
from ui.rules import views as views
from tests.app.tree_charts import tree_charts
from ui import state

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
PAGE = "pages/rules.py"


def _open(ds=None, *, test_size=0.0, tab=None, grower=False) -> tuple[AppTest, object]:
    at = AppTest.from_file(APP, default_timeout=240)
    split = None
    if ds is not None:
        settings = {"test_size": test_size, "validation_size": 0.0, "seed": 0}
        split = ds.split(**settings)
        for key, value in {state.DATASET: ds, state.LOADED_DATASET: ds, state.DATASET_NAME: ds.name,
                           state.SPLIT_SETTINGS: settings, state.DATA_SPLIT: split, state.SEED: 0}.items():
            at.session_state[key] = value
        if grower:
            at.session_state[state.GROWER] = engine.Grower(split.train, engine.TreeConfig()).grow()
    if tab:
        at.session_state["_w_rules_tab"] = tab
    at.switch_page(PAGE)
    return at.run(), split


def _ok(at):
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at


def _rules(at) -> pd.DataFrame:
    return [d.value for d in at.dataframe if "then" in d.value.columns][0]


def test_decision_list_step_undo_run_reset():
    at, _ = _open()
    _ok(at)
    assert [t.label for t in at.tabs] == ["Decision list", "k-DT", "Tree as rules"]
    assert len(_rules(at)) == 0
    at.button(key="_w_dl_step").click().run()
    table = _rules(_ok(at))
    assert table.loc[0, "if"] == "Outlook != Sunny AND Wind = Weak" and table.loc[0, "then"] == "Yes"
    assert table.loc[0, "rows removed"] == 5
    at.button(key="_w_dl_step").click().run()
    assert len(_rules(at)) == 2
    at.button(key="_w_dl_undo").click().run()
    assert len(_rules(at)) == 1
    at.button(key="_w_dl_run").click().run()
    expected = DecisionListLearner(engine.load_sample("play_tennis"), k=2).run()
    table = _rules(_ok(at))
    assert list(table["if"]) == [" AND ".join(l.text() for l in r.test) for r in expected.rules]
    assert [s.value for s in at.success] == [f"Every training row is covered by {len(expected.rules)} rules."]
    assert any("training accuracy 1.000" in c.value for c in at.caption)
    assert at.button(key="_w_dl_step").disabled
    at.button(key="_w_dl_reset").click().run()
    assert len(_rules(at)) == 0


def test_decision_list_failure_and_settings():
    at, _ = _open()
    at.select_slider(key=views.W_DL_K).set_value(1).run()
    at.button(key="_w_dl_run").click().run()
    _ok(at)
    assert at.warning and "not a 1-decision list" in at.warning[0].value
    at.button(key="_w_dl_undo").click().run()
    assert not at.warning


def test_decision_list_on_numeric_data_with_test_rows():
    at, split = _open(engine.load_sample("iris"), test_size=0.3)
    at.session_state[views.W_DL_T] = 5
    at.run()
    at.button(key="_w_dl_run").click().run()
    _ok(at)
    learner = at.session_state[views.DL]["learner"]
    assert len(learner.literals) == len(DecisionListLearner(split.train, n_thresholds=5).literals)
    assert any("test accuracy" in c.value for c in at.caption)


def test_regression_target_is_explained():
    at, _ = _open(engine.load_sample("diabetes"))
    assert any("numeric" in i.value for i in _ok(at).info)


def test_kdt_build_and_compare():
    at, split = _open(tab="k-DT")
    assert any("Build the k-DT" in i.value for i in _ok(at).info)
    at.button(key="_w_kdt_build").click().run()
    _ok(at)
    res = fit_kdt(engine.load_sample("play_tennis"), k=2)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["literals"] == "16" and metrics["new variables kept"] == str(len(res.monomials))
    assert metrics["leaves (plain tree)"] == "3 (5)"
    assert at.code[0].value == "\n".join(res.rules())
    assert len(tree_charts(at)) == 1
    table = [d.value for d in at.dataframe if "tree" in d.value.columns][0]
    assert list(table["train"]) == [1.0, 1.0] and "test" not in table.columns  # no test rows here
    # changing k asks for a new build
    at.select_slider(key=views.W_KDT_K).set_value(1).run()
    assert any("Build the k-DT" in i.value for i in at.info)


def test_kdt_too_big_is_an_error_sentence():
    at, _ = _open(engine.load_sample("breast_cancer"), tab="k-DT")
    at.button(key="_w_kdt_build").click().run()
    assert not at.exception
    assert at.error and "monomials" in at.error[0].value


def test_tree_as_rules():
    at, _ = _open(tab="Tree as rules")
    assert any("Grow page" in i.value for i in _ok(at).info)
    at, split = _open(engine.load_sample("play_tennis"), tab="Tree as rules", grower=True)
    grower = at.session_state[state.GROWER]
    assert _ok(at).code[0].value.strip() == rules_text(grower.tree).strip()


@pytest.mark.parametrize("name", ["restaurant", "titanic_small"])
def test_other_samples_run(name):
    at, _ = _open(engine.load_sample(name), test_size=0.25)
    at.button(key="_w_dl_run").click().run()
    _ok(at)
