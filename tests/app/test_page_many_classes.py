"""AppTest of every heavy page on the 1,000-class upload of issue 25 (an id-like column as the target): the
Data page warns, each heavy job shows the budget's sentence (what to change) or a result, never an
exception. The engine side (estimates, refusals, resident memory) is in tests/engine/test_budget*.py."""

from __future__ import annotations

import pytest

from engine import budget
from tests.many_classes import many_classes_csv
from ui import state
from ui.data import panels

pytestmark = pytest.mark.slow

REFUSAL = "fewer classes (this one has 1,000"


@pytest.fixture
def uploaded(app_test, monkeypatch):
    monkeypatch.delenv(budget.BUDGET_ENV, raising=False)
    at = app_test("pages/data.py")
    at.file_uploader(key=panels.W_UPLOAD).set_value(("ids.csv", many_classes_csv(), "text/csv")).run()
    assert not at.exception, at.exception
    ds = at.session_state[state.DATASET]
    assert ds.target == "cls" and len(ds.classes) == 1000
    return at


def _errors(at) -> list[str]:
    assert not at.exception, [e.value for e in at.exception]
    return [e.value.replace("\\", "") for e in at.error]       # md_escape's backslashes


def test_the_data_page_warns_that_the_target_is_likely_an_id(uploaded):
    warnings = [w.value.replace("\\", "") for w in uploaded.warning]       # md_escape's backslashes
    assert any("1,000 classes" in w and "likely an id" in w and "Target tab" in w for w in warnings), warnings
    assert not _errors(uploaded)


def test_ensembles_refuse_the_forest_and_bagging_with_what_to_change(uploaded):
    at = uploaded
    at.switch_page("pages/ensembles.py")
    at.run()
    at.button(key="_w_ens_train").click().run()
    errors = _errors(at)
    assert any("random forest of 50 trees" in e and REFUSAL in e for e in errors), errors
    at.segmented_control(key="_w_ens_method").set_value("bagging").run()
    at.button(key="_w_ens_train").click().run()
    assert any("bagged ensemble of 25 trees" in e and REFUSAL in e for e in _errors(at))


@pytest.mark.parametrize("tab, words", [("Learning curve", "learning curve"), ("Instability", "Comparing 11 trees")])
def test_evaluate_tabs_say_why_they_do_not_run(uploaded, tab, words):
    at = uploaded
    at.switch_page("pages/evaluate.py")
    at.session_state["_w_eval_tab"] = tab
    at.run()
    errors = _errors(at)
    assert any(words in e and REFUSAL in e for e in errors), errors


@pytest.mark.parametrize("tab", ["Metrics", "Overfitting curve"])
def test_evaluate_tabs_grow_the_full_tree_within_the_budget(uploaded, tab):
    """The full tree on the 3,750 training rows is estimated by what a class tree of unit weights keeps (427 MB for
    346 MB measured, tests/engine/test_budget.py): it grows under the default budget, so these tabs show results."""
    at = uploaded
    at.switch_page("pages/evaluate.py")
    at.session_state["_w_eval_tab"] = tab
    at.run()
    assert not _errors(at) and not at.exception


def test_evaluate_cross_validation_runs_its_fold_trees_within_the_budget(uploaded):
    """5 folds of trees on the training rows fit the budget (the estimate: under 500 MB with the trees growing at
    once), so the tab shows its result rather than a refusal."""
    at = uploaded
    at.switch_page("pages/evaluate.py")
    at.session_state["_w_eval_tab"] = "Cross-validation"
    at.run()
    assert not _errors(at) and not at.exception
    assert any("mean test" in m.label for m in at.metric)


def test_grow_steps_and_grows_to_the_end_within_the_budget(uploaded):
    at = uploaded
    at.switch_page("pages/grow.py")
    at.run()
    at.button(key="_w_grow_step").click().run()
    assert not _errors(at)
    assert at.session_state[state.GROWER].tree.n_nodes == 3
    at.button(key="_w_grow_grow").click().run()          # the full tree fits the budget now (see above)
    assert not _errors(at)
    grower = at.session_state[state.GROWER]
    assert grower.tree.n_nodes > 3 and not grower.open_nodes


def test_prune_grows_the_full_tree_within_the_budget(uploaded):
    at = uploaded
    at.switch_page("pages/prune.py")
    at.run()
    at.button(key="prune_grow").click().run()
    assert not _errors(at)
