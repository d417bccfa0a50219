"""One tree on all cores: the level-wise growers' pieces on threads give the same tree for every
``n_jobs``; the thread pool never makes a tree wait for another's work; histogram search sorts only the
nodes it hands over to the exact scan."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import engine
import engine.grow.sorting.kept
import engine.grow.stepwise.search
import engine.threads as shared_pool
from engine import threads as engine_threads
from engine.errors import ConfigError
from engine.grow import fastexact, parallel, roworders
from engine.grow.exact import rows as exact_rows, scan as exact_scan
from engine.grow.parallel import run_tasks, thread_map, tree_threads, trees_share_cores

from tests.engine.conftest import random_dataset
from tests.engine.grow.test_fastgrow import assert_same_tree, stepped


def _small_pieces(mp) -> None:
    """Cut levels into many pieces even on small data, so every thread count has several to share."""
    mp.setattr(exact_scan, "MIN_CHUNK", 16)
    mp.setattr(exact_rows, "SPLIT_GROUP_ROWS", 8)
    mp.setattr(engine_threads, "THREAD_MIN_WORK", 0)
    mp.setattr(engine.grow.fasthist, "SCAN_CELLS", 1)        # a piece per node in the histogram scan


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 100_000), st.sampled_from(["exact", "histogram"]), st.booleans(),
       st.sampled_from([None, "whole", "fraction"]), st.sampled_from([None, 2]), st.sampled_from(["breadth", "depth"]))
def test_every_n_jobs_grows_the_same_tree(seed, search, regression, weights, max_features, order):
    rng = np.random.default_rng(seed)
    ds = random_dataset(seed, n=int(rng.integers(200, 900)), d=int(rng.integers(2, 7)), regression=regression,
                        int_values=seed % 3 == 0)
    w = None
    if weights == "whole":
        w = rng.integers(0, 4, len(ds)).astype(float)
    elif weights == "fraction":
        w = rng.random(len(ds)) + 0.01
    if w is not None:
        w[0] = 1.0
    cfg = engine.TreeConfig(split_search=search, max_bins=12, max_features=max_features, order=order,
                            random_state=seed % 5 if max_features else None)
    with pytest.MonkeyPatch.context() as mp:
        _small_pieces(mp)
        trees = [engine.Grower(ds, cfg, sample_weight=w, n_jobs=k).grow().tree for k in (1, 2, 3, -1)]
    for t in trees[1:]:
        assert t.fingerprint == trees[0].fingerprint
        assert_same_tree(t, trees[0])
        assert [n.split.threshold for n in t.nodes if n.split] == [n.split.threshold for n in trees[0].nodes if n.split]


def test_threads_really_share_the_levels(monkeypatch):
    """With n_jobs=2 the scans, the row moves, the histogram counts and the binning go through thread_map
    with two threads; with n_jobs=1 with one."""
    seen = []
    real = parallel.thread_map

    def spy(fn, items, threads):
        seen.append(threads)
        return real(fn, items, threads)

    for module in (fastexact, exact_rows, roworders, engine.grow.sorting.kept, engine.grow.fasthist,
                   engine.grow.stepwise.search):
        monkeypatch.setattr(module, "thread_map", spy)
    _small_pieces(monkeypatch)
    ds = random_dataset(7, n=600, d=4)
    for search in ("exact", "histogram"):
        for k in (1, 2):
            seen.clear()
            engine.Grower(ds, engine.TreeConfig(split_search=search, max_bins=16), n_jobs=k).grow()
            assert seen and set(seen) == {k}


def test_histogram_search_never_sorts_the_whole_data(monkeypatch):
    """The nodes handed over to the exact scan (at most max_bins rows) are ordered from their own rows:
    no presort or dense ranks of every row, and the tree stepping grows."""
    ds = random_dataset(11, n=700, d=4)
    cfg = engine.TreeConfig(split_search="histogram", max_bins=16)
    want = stepped(ds, cfg).tree

    def refuse(*args, **kwargs):
        raise AssertionError("the whole data was sorted")

    monkeypatch.setattr(fastexact, "presorted", refuse)
    monkeypatch.setattr(roworders, "dense_ranks", refuse)
    prepared = []
    real = roworders._HandedOver.prepare
    monkeypatch.setattr(roworders._HandedOver, "prepare", lambda self, lo, cnt: (prepared.append(cnt.copy()),
                                                                                 real(self, lo, cnt)))
    got = engine.Grower(ds, cfg).grow().tree
    assert prepared and all((c <= 16).all() for c in prepared)
    assert_same_tree(got, want)


def test_handed_over_orders_rank_each_block_apart():
    """Two hand-overs: the second block's ranks follow the first's, and each node's keys sort its rows by
    value; values are read back by (feature, rank)."""
    X = np.array([[3.0], [1.0], [2.0], [1.0], [9.0], [7.0]])
    perm = np.array([1, 0, 3, 2, 5, 4])                 # node A: rows 1, 0; node B: rows 3, 2; node C: 5, 4
    orders = roworders.HandedOverPackedOrders(lambda j, rows: X[rows, j], 1, perm, np.array([0, 1, 0, 1, 0, 1]),
                                              None, 2)
    orders.prepare(np.array([0, 2]), np.array([2, 2]))  # A and B: values 1, 2, 3 -> ranks 0, 1, 2
    orders.prepare(np.array([0, 2, 4]), np.array([2, 2, 2]))   # only C is new: values 7, 9 -> ranks 4, 5
    lo, cnt = np.array([0, 2, 4]), np.array([2, 2, 2])
    pj, pc = np.zeros(3, dtype=np.int64), np.arange(3)
    keys = orders.pair_keys(pj, pc, lo, cnt[pc], roworders.exclusive_cumsum(cnt[pc]))
    rank, low, _ = orders.split_keys(keys)
    assert rank.tolist() == [0, 2, 0, 1, 4, 5]
    assert orders.value(np.zeros(6, dtype=np.int64), rank).tolist() == [1.0, 3.0, 1.0, 2.0, 7.0, 9.0]
    assert (low >> orders.label_shift).tolist() == [1, 0, 1, 0, 1, 0]


def test_thread_map_keeps_order_and_raises():
    assert thread_map(lambda x: x * x, range(20), 4) == [x * x for x in range(20)]
    assert thread_map(lambda x: x + 1, [5], 4) == [6]

    def boom(x):
        if x == 3:
            raise ValueError("piece 3")
        return x

    with pytest.raises(ValueError, match="piece 3"):
        thread_map(boom, range(8), 2)


def test_thread_map_never_waits_for_a_busy_pool():
    """Another tree holds every pool thread: the caller does all the pieces itself and returns."""
    pool = shared_pool._thread_pool()
    release = threading.Event()
    busy = [pool.submit(release.wait, 60) for _ in range(pool._max_workers)]
    try:
        done_by = thread_map(lambda x: threading.get_ident(), range(6), 4)
        assert not release.is_set() and set(done_by) == {threading.get_ident()}
    finally:
        release.set()
        for f in busy:
            f.result()


def test_small_work_stays_on_the_calling_thread():
    """One rule for every "threads when the work is big enough" (the growers, the CSV ranges, the columns of
    a table): a custom threshold, and every core when no count is given."""
    assert parallel.threads_for is engine_threads.threads_for
    assert parallel.threads_for(10, 4) == 1 and parallel.threads_for(engine_threads.THREAD_MIN_WORK, 4) == 4
    assert engine_threads.threads_for(99, 3, min_work=100) == 1 and engine_threads.threads_for(100, 3, min_work=100) == 3
    assert engine_threads.threads_for(100, min_work=100) == engine_threads.cpu_count()


def test_tree_threads_follow_n_jobs_and_shared_cores():
    cores = parallel.cpu_count()
    assert tree_threads(None) == cores and tree_threads(1) == 1 and tree_threads(-1) == cores
    with trees_share_cores():
        assert tree_threads(None) == 1 and tree_threads(2) == 2
    assert run_tasks(tree_threads, [(None,), (None,)], n_jobs=1) == [1, 1]     # serial trees share the cores
    with pytest.raises(ConfigError, match="n_jobs"):
        engine.Grower(random_dataset(1), n_jobs=0)
    with pytest.raises(ConfigError, match="n_jobs"):
        engine.fit_tree(random_dataset(1), n_jobs="all")


def test_next_tree_on_the_same_rows_keeps_the_bins():
    ds = random_dataset(5, n=300, d=3)
    assert not ds.X.flags.writeable
    cfg = engine.TreeConfig(split_search="histogram", max_bins=16)
    first = engine.Grower(ds, cfg).bins
    assert engine.Grower(ds, engine.TreeConfig(split_search="histogram", max_bins=16, max_depth=2)).bins is first
    assert engine.Grower(ds, engine.TreeConfig(split_search="histogram", max_bins=8)).bins is not first
    assert not first.codes.flags.writeable


def test_regression_histogram_scans_its_features_on_the_threads(monkeypatch):
    """A numeric target's histogram scan (sums weighted by the target, no count subtraction) takes the
    features on n_jobs threads, each feature's results on its own: the same tree as one thread."""
    calls = []
    real = parallel.thread_map

    def spy(fn, items, threads):
        calls.append((fn.__name__, threads))
        return real(fn, items, threads)

    monkeypatch.setattr(engine.grow.fasthist, "thread_map", spy)
    monkeypatch.setattr(engine_threads, "THREAD_MIN_WORK", 0)
    ds = random_dataset(11, n=800, d=5, regression=True)
    cfg = engine.TreeConfig(split_search="histogram", max_bins=16, max_depth=4)
    two = engine.Grower(ds, cfg, n_jobs=2).grow().tree
    assert ("feature", 2) in calls
    calls.clear()
    assert_same_tree(two, engine.Grower(ds, cfg, n_jobs=1).grow().tree)
    assert calls and all(threads == 1 for _, threads in calls)
