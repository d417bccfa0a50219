"""engine.budget's server pool: jobs of all sessions reserve their estimate from one pool per process, wait for
room (bounded) or are refused with a sentence, and give it back when they end (normally or by an error)."""

from __future__ import annotations

import threading

import pytest

import engine
from engine import budget
from engine.ensembles import fit_random_forest
from engine.errors import ConfigError

BUSY = "The server is busy with other users' heavy work"


@pytest.fixture()
def forest_data():
    from benchmarks.bench_fit import make_data

    return make_data(1500, d=5, n_classes=2, seed=0)


def forest_bytes(ds, trees: int = 3) -> int:
    """What one forest of ``trees`` reserves (measured on a roomy pool of its own)."""
    pool = budget.Pool(total=1 << 40)
    with budget.reserve(pool=pool):
        fit_random_forest(ds, n_estimators=trees, n_jobs=1)
    return pool.high_water


def test_the_server_pool_is_half_the_machine_capped_unless_the_operator_sets_it(monkeypatch):
    monkeypatch.delenv(budget.SERVER_ENV, raising=False)
    monkeypatch.delenv(budget.BUDGET_ENV, raising=False)
    assert budget.server_bytes() == max(min(budget.machine_bytes() // 2, budget.SERVER_CAP_MB << 20), 500 << 20)
    monkeypatch.setenv(budget.SERVER_ENV, "3000")
    assert budget.server_bytes() == 3000 << 20
    for bad in ("lots", "-1", "0", "inf"):
        monkeypatch.setenv(budget.SERVER_ENV, bad)
        with pytest.raises(ConfigError, match=budget.SERVER_ENV):
            budget.server_bytes()


def test_six_forests_at_once_never_reserve_more_than_the_pool_and_the_seventh_is_refused(monkeypatch, forest_data):
    need = forest_bytes(forest_data)
    assert need > 0
    pool = budget.Pool(total=6 * need + need // 2, wait=0.3)
    monkeypatch.setattr(budget, "POOL", pool)
    holding = threading.Semaphore(0)
    seventh_done = threading.Event()
    results: dict[int, object] = {}

    def hold(done, total):            # a forest's progress after its first tree: its reservation is held
        if done == 1:
            holding.release()
            seventh_done.wait(30)

    def job(i, progress):
        try:
            results[i] = fit_random_forest(forest_data, n_estimators=3, n_jobs=1, progress=progress)
        except ConfigError as err:
            results[i] = err

    six = [threading.Thread(target=job, args=(i, hold)) for i in range(6)]
    for t in six:
        t.start()
    for _ in range(6):
        assert holding.acquire(timeout=60)
    assert pool.used == 6 * need and pool.jobs == 6
    seventh = threading.Thread(target=job, args=(6, None))
    seventh.start()
    seventh.join(30)
    seventh_done.set()
    for t in six:
        t.join(60)
    refused = results[6]
    assert isinstance(refused, ConfigError), refused
    text = str(refused)
    assert text.startswith(BUSY) and f"of {budget.size_text(pool.total)} in use by 6 jobs" in text, text
    assert "try again in a minute, or use fewer trees" in text, text
    assert all(results[i].n_members == 3 for i in range(6))
    assert pool.high_water <= pool.total
    assert pool.used == 0 and pool.jobs == 0             # every reservation given back


def test_a_job_waits_for_room_and_runs_when_another_finishes(monkeypatch, forest_data):
    need = forest_bytes(forest_data)
    pool = budget.Pool(total=need + need // 2, wait=30)
    monkeypatch.setattr(budget, "POOL", pool)
    first_holds, let_go = threading.Event(), threading.Event()
    out = {}

    def hold(done, total):
        if done == 1:
            first_holds.set()
            let_go.wait(30)

    first = threading.Thread(target=lambda: out.setdefault(0, fit_random_forest(forest_data, n_estimators=3,
                                                                                   n_jobs=1, progress=hold)))
    first.start()
    assert first_holds.wait(60)
    second = threading.Thread(target=lambda: out.setdefault(1, fit_random_forest(forest_data, n_estimators=3,
                                                                                    n_jobs=1)))
    second.start()
    second.join(0.5)
    assert second.is_alive() and 1 not in out           # waiting for room
    let_go.set()
    first.join(60)
    second.join(60)
    assert out[0].n_members == out[1].n_members == 3
    assert pool.high_water <= pool.total and pool.used == 0


def test_a_reservation_is_given_back_when_the_job_fails(monkeypatch, forest_data):
    pool = budget.Pool(total=1 << 40, wait=0)
    monkeypatch.setattr(budget, "POOL", pool)

    def gone(done, total):               # a Streamlit session that went away raises from its progress bar
        assert pool.used > 0
        raise RuntimeError("session closed")

    with pytest.raises(RuntimeError, match="session closed"):
        fit_random_forest(forest_data, n_estimators=3, n_jobs=1, progress=gone)
    assert pool.used == 0 and pool.jobs == 0 and pool.high_water > 0


def test_a_job_larger_than_the_whole_pool_is_refused_at_once_and_nested_jobs_share_one_reservation():
    pool = budget.Pool(total=10 << 20, wait=60)
    with pytest.raises(ConfigError, match=r"more than this whole server's 10 MB \(DTX_SERVER_MEMORY_MB\)"):
        with budget.reserve(11 << 20, what="A test job", pool=pool):
            pass
    with budget.reserve(4 << 20, pool=pool) as outer:
        with budget.reserve(3 << 20, pool=pool) as inner:       # part of the outer job: nothing more
            assert inner is outer and pool.used == 4 << 20
        with budget.reserve(6 << 20, pool=pool):                # grows the outer one to the larger need
            assert pool.used == 6 << 20
    assert pool.used == 0 and pool.jobs == 0


def test_a_tree_grown_to_the_end_reserves_its_estimate_while_it_grows(monkeypatch):
    pool = budget.Pool(total=1 << 40)
    monkeypatch.setattr(budget, "POOL", pool)
    engine.Grower(engine.load_sample("iris"), engine.TreeConfig()).grow()
    assert pool.high_water > 0 and pool.used == 0


def test_a_step_with_many_classes_and_adaboost_reserve_from_the_pool(monkeypatch):
    from tests.many_classes import many_classes_csv
    import io

    from engine.ensembles import fit_adaboost

    ds = engine.load_csv(io.BytesIO(many_classes_csv(1000, 2000)), target="cls")
    pool = budget.Pool(total=budget.step_bytes(ds) - 1, wait=0)
    monkeypatch.setattr(budget, "POOL", pool)
    with pytest.raises(ConfigError, match="A step on 2,000 rows with 1,000 classes would need about"):
        engine.Grower(ds, engine.TreeConfig()).step()
    pool = budget.Pool(total=1 << 40)
    monkeypatch.setattr(budget, "POOL", pool)
    engine.Grower(ds, engine.TreeConfig()).step()
    assert pool.high_water == budget.step_bytes(ds) and pool.used == 0
    few, many = budget.Pool(total=1 << 40), budget.Pool(total=1 << 40)
    with budget.reserve(pool=few):
        fit_adaboost(ds, n_rounds=2)
    with budget.reserve(pool=many):
        fit_adaboost(ds, n_rounds=4)
    # each round keeps its tree and its row weights, mistakes and predictions
    assert many.high_water - few.high_water >= 2 * (40 * len(ds) + 200 * 1000)
