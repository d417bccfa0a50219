"""Trees on all cores: joblib workers give exactly the serial results, keep the order, report progress,
stop when asked, and never import streamlit.

Every test here that compares runs uses an explicit ``n_jobs=2`` so the process pool really runs
(``n_jobs=None`` keeps small jobs in the calling process).
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pandas as pd
import pytest

import engine
from engine.config import TreeConfig
from engine.ensembles import fit_bagging, fit_random_forest
from engine.errors import ConfigError
from engine.evaluate.curves import learning_curve
from engine.evaluate.stability import instability
from engine.evaluate.validation import cross_validate
from engine.grow import parallel
from engine.grow.parallel import Cancelled, check_n_jobs, effective_n_jobs, run_tasks
from engine.prune.cost_complexity import ccp_cross_validate


def _square_after(x: int, pause: float) -> int:
    time.sleep(pause)
    return x * x


def _worker_modules(_: int) -> tuple[bool, int]:
    import os
    return "streamlit" in sys.modules, os.getpid()


@pytest.fixture(scope="module")
def cancer():
    return engine.load_sample("breast_cancer").split(test_size=0.3, seed=0)


def _same_ensemble(a, b) -> None:
    assert [m.seed for m in a.members] == [m.seed for m in b.members]
    assert [m.features for m in a.members] == [m.features for m in b.members]
    assert [m.tree.fingerprint for m in a.members] == [m.tree.fingerprint for m in b.members]
    assert np.array_equal(a.train_outputs, b.train_outputs)
    assert (a.in_bag is None and b.in_bag is None) or np.array_equal(a.in_bag, b.in_bag)


def test_n_jobs_is_checked_with_a_sentence():
    for bad in (0, 1.5, True, "all"):
        with pytest.raises(ConfigError, match="n_jobs must be a whole number"):
            check_n_jobs(bad)
    assert effective_n_jobs(-1) == parallel.cpu_count()
    assert effective_n_jobs(-1, 1) == 1
    assert effective_n_jobs(-parallel.cpu_count() - 5) == 1
    with pytest.raises(ConfigError, match="n_jobs"):
        fit_random_forest(engine.load_sample("iris"), n_estimators=2, n_jobs=0)


def test_results_come_back_in_task_order_with_progress_counting():
    seen = []
    out = run_tasks(_square_after, [(i, 0.05 * (5 - i)) for i in range(6)], n_jobs=2,
                    progress=lambda done, total: seen.append((done, total)))
    assert out == [i * i for i in range(6)]
    assert seen == [(i, 6) for i in range(1, 7)]


def test_small_jobs_with_the_default_stay_in_this_process(monkeypatch):
    import os
    pids = {pid for _, pid in run_tasks(_worker_modules, [(i,) for i in range(3)], rows=10)}
    assert pids == {os.getpid()}
    pids = {pid for _, pid in run_tasks(_worker_modules, [(i,) for i in range(4)], n_jobs=2, rows=10)}
    assert os.getpid() not in pids                     # an explicit n_jobs uses the pool whatever the size


def test_workers_do_not_import_streamlit():
    import streamlit  # noqa: F401  (the app process has it; the workers must not)
    flags = run_tasks(_worker_modules, [(i,) for i in range(4)], n_jobs=2)
    assert not any(flag for flag, _ in flags)


def test_a_failing_progress_callback_cancels_the_tasks_not_started():
    class Gone(Exception):
        pass

    def progress(done, total):
        raise Gone

    started = time.perf_counter()
    with pytest.raises(Gone):
        run_tasks(_square_after, [(i, 0.4) for i in range(20)], n_jobs=2, progress=progress)
    assert time.perf_counter() - started < 20 * 0.4 / 2          # not all 20 ran (the serial time would be 8 s)


def test_should_stop_raises_cancelled_in_both_modes():
    for n_jobs in (1, 2):
        calls = []
        with pytest.raises(Cancelled):
            run_tasks(_square_after, [(i, 0.0) for i in range(5)], n_jobs=n_jobs,
                      progress=lambda d, t: calls.append(d), should_stop=lambda: len(calls) >= 2)
        assert calls == [1, 2]


def test_forest_and_bagging_equal_serial_for_any_n_jobs(cancer):
    for kwargs in ({}, {"per_tree_features": True, "max_samples": 0.5}):
        one = fit_random_forest(cancer.train, n_estimators=6, random_state=3, n_jobs=1, **kwargs)
        two = fit_random_forest(cancer.train, n_estimators=6, random_state=3, n_jobs=2, **kwargs)
        _same_ensemble(one, two)
        assert np.array_equal(one.predict(cancer.test), two.predict(cancer.test))
    reg = engine.load_sample("diabetes")
    assert reg.task == "regression"
    _same_ensemble(fit_bagging(reg, n_estimators=4, n_jobs=1), fit_bagging(reg, n_estimators=4, n_jobs=2))


def test_evaluation_loops_equal_serial_for_any_n_jobs(cancer):
    cfg = TreeConfig(max_depth=6)
    train, test = cancer.train, cancer.test
    pairs = [
        lambda j: cross_validate(train, cfg, k=4, seed=2, n_jobs=j).folds,
        lambda j: learning_curve(train, test, cfg, repeats=2, seed=5, n_jobs=j)[0],
        lambda j: instability(train, test, cfg, runs=3, seed=1, n_jobs=j).runs,
        lambda j: ccp_cross_validate(train, TreeConfig(), k=3, seed=1, n_jobs=j).table,
    ]
    for run in pairs:
        pd.testing.assert_frame_equal(run(1), run(2))


def test_shared_data_goes_to_each_worker_once_and_its_file_is_removed(cancer, tmp_path, monkeypatch):
    import glob
    import tempfile

    made = []
    real = tempfile.mkstemp

    def spy(*args, **kwargs):
        fd, path = real(*args, **kwargs)
        made.append(path)
        return fd, path

    monkeypatch.setattr(tempfile, "mkstemp", spy)
    data = cancer.train
    out = run_tasks(getattr, [(data, "name"), (data, "target"), ("text", "upper")], n_jobs=2, shared=(data,))
    assert out[:2] == [data.name, data.target] and out[2]() == "TEXT"
    assert len(made) == 1 and not any(glob.glob(p) for p in made)        # one file for all tasks, then gone
