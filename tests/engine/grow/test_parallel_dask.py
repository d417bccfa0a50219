"""Trees on a Dask cluster: with ``DTX_DASK_SCHEDULER`` naming a real ``dask.distributed.LocalCluster``, a
forest and cross-validation run their tasks on that cluster and equal the serial results.

dask is an optional test dependency (requirements-dev.txt): without it the test is skipped with a
reason, except under CI (``CI`` set), where it fails.
"""

from __future__ import annotations


import numpy as np
import pytest

import engine
from engine.config import TreeConfig
from engine.ensembles import fit_random_forest
from engine.errors import ConfigError
from engine.evaluate.validation import cross_validate
from engine.grow import parallel
from tests.services import unavailable


@pytest.fixture(scope="module")
def cluster():
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError as exc:
        reason = f"dask.distributed is not installed ({exc}); pip install -r requirements-dev.txt"
        unavailable("The Dask test", reason)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as lc:
        with Client(lc) as client:
            yield lc, client
    for c in parallel._clients.values():
        c.close()
    parallel._clients.clear()


def test_forest_and_folds_run_on_the_cluster_and_equal_serial(cluster, monkeypatch):
    from dask.distributed import get_task_stream

    lc, client = cluster
    data = engine.load_sample("breast_cancer").split(test_size=0.3, seed=0)
    serial = fit_random_forest(data.train, n_estimators=6, random_state=7, n_jobs=1)
    cv_serial = cross_validate(data.train, TreeConfig(max_depth=5), k=3, seed=1, n_jobs=1).folds
    monkeypatch.setenv(parallel.SCHEDULER_ENV, lc.scheduler_address)
    counted = []
    with get_task_stream(client) as stream:
        on_dask = fit_random_forest(data.train, n_estimators=6, random_state=7, n_jobs=2,
                                    progress=lambda d, t: counted.append(d))
        cv_dask = cross_validate(data.train, TreeConfig(max_depth=5), k=3, seed=1, n_jobs=2).folds
    assert len(stream.data) >= 6 + 3                          # the trees were grown by the cluster's workers
    assert counted == list(range(1, 7))
    assert [m.tree.fingerprint for m in serial.members] == [m.tree.fingerprint for m in on_dask.members]
    assert np.array_equal(serial.train_outputs, on_dask.train_outputs)
    assert cv_serial.equals(cv_dask)


def test_an_unreachable_scheduler_is_one_sentence(cluster, monkeypatch):
    monkeypatch.setenv(parallel.SCHEDULER_ENV, "tcp://127.0.0.1:9")
    monkeypatch.setattr(parallel, "CONNECT_TIMEOUT", 2)
    with pytest.raises(ConfigError, match="Could not reach the Dask scheduler at tcp://127.0.0.1:9"):
        parallel.run_tasks(abs, [(-1,), (-2,)], n_jobs=2)
