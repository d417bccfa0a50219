"""The stacked forest predictor gives exactly each member's own prediction, for every kind of member."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from engine.config import TreeConfig
from engine.ensembles import fit_adaboost, fit_bagging, fit_random_forest, vote_breakdown
from engine.ensembles import stacked
from engine.ensembles.stacked import PIECE, StackedForest, _pieces


def _one_by_one(ens, X):
    return np.stack([ct.predict(adapt(X)) for adapt, ct in ens._compiled])


@pytest.fixture(scope="module")
def cancer():
    return engine.load_sample("breast_cancer").split(test_size=0.3, seed=0)


def test_stacked_outputs_equal_each_member(cancer):
    for kwargs in ({}, {"per_tree_features": True}, {"max_features": 3}):
        ens = fit_random_forest(cancer.train, n_estimators=9, random_state=2, n_jobs=1, **kwargs)
        assert isinstance(ens._stacked, StackedForest)
        X = ens.encode(cancer.test)
        assert np.array_equal(ens._stacked.outputs(X), _one_by_one(ens, X))
        assert np.array_equal(ens.member_outputs(cancer.test, upto=4), _one_by_one(ens, X)[:4])


def test_more_rows_than_one_chunk_and_regression():
    reg = engine.load_sample("diabetes")
    ens = fit_bagging(reg, n_estimators=5, random_state=1, n_jobs=1)
    X = np.tile(reg.X, (PIECE // len(reg) + 2, 1))
    assert X.shape[0] > PIECE
    assert np.array_equal(ens.member_outputs(X), _one_by_one(ens, X))


def test_rows_with_missing_values_take_the_members_own_path(cancer):
    ens = fit_random_forest(cancer.train, n_estimators=7, random_state=0, n_jobs=1)
    X = ens.encode(cancer.test).copy()
    X[::3, 0] = np.nan
    X[1::5, 4] = np.nan
    assert np.array_equal(ens.member_outputs(X), _one_by_one(ens, X))


def test_category_tests_fall_back_and_votes_agree():
    data = engine.load_sample("titanic_small")
    ens = fit_bagging(data, n_estimators=5, tree_config=TreeConfig(categorical_split="multiway"), n_jobs=1)
    X = ens.encode(data)
    assert np.array_equal(ens.member_outputs(X), _one_by_one(ens, X))
    boost = fit_adaboost(engine.load_sample("breast_cancer"), n_rounds=5)
    Xb = boost.encode(engine.load_sample("breast_cancer"))
    assert np.array_equal(boost.member_outputs(Xb), _one_by_one(boost, Xb))
    row = data.frame.iloc[[3]]
    br = vote_breakdown(ens, row)
    assert list(br.members["prediction"]) == list(np.asarray(ens.classes, dtype=object)[_one_by_one(ens, ens.encode(row))[:, 0]])


def test_chunks_routed_on_threads_equal_one_thread():
    """Rows of several chunks, routed on every core (threads writing disjoint columns), on two, or
    on one: the same leaves, equal to each member's own prediction."""
    data = engine.load_sample("breast_cancer")
    ens = fit_random_forest(data, n_estimators=6, random_state=5, n_jobs=1)
    X = np.tile(ens.encode(data), (3 * PIECE // len(data) + 1, 1))
    assert X.shape[0] > 3 * PIECE
    one = ens.member_outputs(X, n_jobs=1)
    assert np.array_equal(one, _one_by_one(ens, X))
    for n_jobs in (None, -1, 2):
        assert np.array_equal(ens.member_outputs(X, n_jobs=n_jobs), one)
    with pytest.raises(engine.ConfigError, match="n_jobs"):
        ens.member_outputs(X, n_jobs=0)


@pytest.mark.parametrize("members, n", [(1, 1), (7, 3), (100, 2500), (3, PIECE), (5, PIECE + 1), (2, 3 * PIECE - 7)])
def test_pieces_cover_every_member_row_pair_once(members, n):
    """Few rows: groups of members with every row; many rows: one member and a chunk of at most PIECE rows."""
    seen = np.zeros((members, n), dtype=np.int64)
    for m0, m1, r0, r1 in _pieces(members, n):
        assert 0 <= m0 < m1 <= members and 0 <= r0 < r1 <= n
        assert (m1 - m0) * (r1 - r0) <= PIECE
        seen[m0:m1, r0:r1] += 1
    assert (seen == 1).all()


@pytest.mark.parametrize("piece", [1, 40, 64, 500])
def test_members_in_groups_and_rows_in_chunks_equal_each_member(monkeypatch, cancer, piece):
    """Tiny pieces force every shape (a group of members, one member and a chunk of rows, a last short
    group or chunk, ``upto`` cutting a group) on threads or not: each member's own prediction."""
    ens = fit_random_forest(cancer.train, n_estimators=7, random_state=3, n_jobs=1)
    monkeypatch.setattr(stacked, "PIECE", piece)
    monkeypatch.setattr(stacked, "threads_for", lambda work, threads: threads)
    X = ens.encode(cancer.test)
    expected = _one_by_one(ens, X)
    for n_jobs in (1, 2):
        for rows in (slice(None), slice(0, 30), slice(0, 2)):
            assert np.array_equal(ens._stacked.outputs(X[rows], n_jobs=n_jobs), expected[:, rows])
            assert np.array_equal(ens._stacked.outputs(X[rows], 5, n_jobs=n_jobs), expected[:5, rows])
    leaves = ens._stacked.leaves(X, n_jobs=2)
    assert np.array_equal(ens._stacked.leaf_output[leaves], expected)


def test_threads_follow_n_jobs_and_one_thread_inside_worker_processes(monkeypatch, cancer):
    """n_jobs=None routes on every core, except where trees already share the cores (run_tasks' workers)."""
    from engine.grow.parallel import cpu_count, trees_share_cores

    ens = fit_random_forest(cancer.train, n_estimators=5, random_state=1, n_jobs=1)
    X = np.tile(ens.encode(cancer.test), (400, 1))
    used = []
    real = stacked.thread_map
    monkeypatch.setattr(stacked, "thread_map", lambda fn, items, threads: used.append(threads) or real(fn, items, threads))
    expected = _one_by_one(ens, X)
    assert np.array_equal(ens.member_outputs(X), expected)
    assert np.array_equal(ens.member_outputs(X, n_jobs=1), expected)
    with trees_share_cores():
        assert np.array_equal(ens.member_outputs(X), expected)
    assert used == [cpu_count(), 1, 1]
