"""AppTest: the "Cores" setting reaches the engine on the Ensembles, Evaluate and Prune pages, gives the
same results as automatic, and a configured Dask scheduler is named on the page."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

import engine
from engine.evaluate import validation
from engine.grow import parallel
from ui import state
from ui.ensembles import train as training

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")


def _open(page: str, sample: str = "breast_cancer", grow: bool = False) -> AppTest:
    ds = engine.load_sample(sample)
    at = AppTest.from_file(APP, default_timeout=240)
    settings = {"test_size": 0.25, "validation_size": 0.0, "seed": 0}
    split = ds.split(**settings)
    for key, value in {state.DATASET: ds, state.LOADED_DATASET: ds, state.DATASET_NAME: ds.name,
                       state.SPLIT_SETTINGS: settings, state.DATA_SPLIT: split, state.SEED: 0}.items():
        at.session_state[key] = value
    if grow:
        at.session_state[state.GROWER] = engine.Grower(split.train, engine.TreeConfig()).grow()
    at.switch_page(page)
    at.run()
    assert not at.exception, at.exception
    return at


def _record_n_jobs(monkeypatch) -> list:
    seen = []
    real = parallel.run_tasks

    def spy(fn, tasks, **kwargs):
        seen.append(kwargs.get("n_jobs"))
        return real(fn, tasks, **kwargs)

    for module in ("engine.ensembles.bagging", "engine.evaluate.validation", "engine.prune.cost_complexity"):
        monkeypatch.setattr(f"{module}.run_tasks", spy)
    return seen


def test_ensembles_cores_choice_is_used_and_changes_nothing_but_speed(monkeypatch):
    seen = _record_n_jobs(monkeypatch)
    at = _open("pages/ensembles.py")
    box = at.selectbox(key=state.N_JOBS)
    assert box.value == 0 and box.label == "Cores"
    at.number_input(key=f"{training.W_M}_random_forest").set_value(6)
    at.button(key="_w_ens_train").click().run()
    assert not at.exception and not at.error
    auto = at.session_state[training.RESULT]["ensemble"]
    box = at.selectbox(key=state.N_JOBS).set_value(2)
    at.run()
    assert "differ" not in " ".join(c.value for c in at.caption)     # cores are not a model setting
    at.button(key="_w_ens_train").click().run()
    assert not at.exception and not at.error
    two = at.session_state[training.RESULT]["ensemble"]
    assert seen == [None, 2]
    assert np.array_equal(auto.train_outputs, two.train_outputs)
    assert [m.tree.fingerprint for m in auto.members] == [m.tree.fingerprint for m in two.members]


def test_evaluate_and_prune_pass_the_choice_on(monkeypatch):
    seen = _record_n_jobs(monkeypatch)
    at = _open("pages/evaluate.py")
    at.selectbox(key=state.N_JOBS).set_value(1)
    at.session_state["_w_eval_tab"] = "Cross-validation"
    at.run()
    assert not at.exception and not at.error
    assert seen and seen[-1] == 1
    at = _open("pages/prune.py", grow=True)
    at.segmented_control(key="_w_prune_method").set_value("cost_complexity").run()
    at.selectbox(key=state.N_JOBS).set_value(2)
    at.button(key="prune_run_cv").click().run()
    assert not at.exception and not at.error
    assert seen[-1] == 2


def test_a_configured_dask_scheduler_is_named(monkeypatch):
    monkeypatch.setenv(parallel.SCHEDULER_ENV, "tcp://10.1.2.3:8786")
    at = _open("pages/ensembles.py")
    assert any("Dask cluster at tcp" in c.value for c in at.caption)
