"""engine.grow.roworders: the cached whole-matrix order (presorted), and the two ways of keeping per-node orders."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import engine
from engine.grow import fastexact, roworders

from tests.engine.conftest import random_dataset
from tests.engine.grow.test_fastgrow import stepped


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 60), st.integers(1, 5), st.floats(0.0, 1.0))
def test_presorted_subset_equals_sorting_the_subset(seed, n, d, share):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n, d)).astype(float)         # many ties: the stable order matters
    X.flags.writeable = False
    keep = rng.random(n) < share
    for _ in range(2):                                           # the second call reads the cache
        got = roworders.presorted(X, keep, np.int32)
        want = np.argsort(X[keep].T, axis=1, kind="stable")
        assert got.shape == (d, int(keep.sum())) and np.array_equal(got, want)


def test_presorted_caches_read_only_matrices_only():
    X = np.arange(12.0).reshape(6, 2)[::-1].copy()
    roworders.presorted(X, np.ones(6, bool), np.int32)
    assert "X" not in roworders._SORTED                          # writeable: may change, never cached
    X.flags.writeable = False
    first = roworders.presorted(X, np.ones(6, bool), np.int32)
    assert roworders.presorted(X, np.ones(6, bool), np.int32) is first
    Y = X.copy()
    Y.flags.writeable = False
    assert roworders.presorted(Y, np.ones(6, bool), np.int32) is not first   # another matrix: sorted anew


def test_paused_gc_keeps_nothing_alive():
    """Objects made while the collector is paused are promoted, not frozen: a full collection still
    frees a grown Grower (its step records and the grower form a cycle)."""
    import gc
    import weakref

    import engine
    from engine.grow.levelstore import paused_gc

    g = engine.Grower(engine.load_sample("iris")).grow()
    assert len(g.history) > 3
    ref = weakref.ref(g)
    del g
    with paused_gc():
        junk = [[i] for i in range(1000)]
    del junk
    assert gc.isenabled() and gc.get_freeze_count() == 0
    gc.collect()
    assert ref() is None


# ----- PartitionedOrders and SortedOrders give the same trees -----------------------------------------

def _grown_with(monkeypatch, ds, cfg, w, sorted_orders: bool):
    monkeypatch.setattr(fastexact, "use_sorted_orders", lambda k, d: sorted_orders)
    return engine.Grower(ds, cfg, sample_weight=w).grow()


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.booleans(), st.booleans(), st.sampled_from([1, 2, 3, 0.5, "sqrt"]),
       st.sampled_from(["breadth", "depth"]))
def test_sorted_orders_grow_the_partitioned_tree_and_the_stepped_one(seed, regression, weighted, mf, order):
    """Forests draw features per node; both ways of keeping the orders give stepping's tree, bit for bit
    (integer weights with zeros, ties among values, bootstrap-like counts)."""
    rng = np.random.default_rng(seed)
    ds = random_dataset(seed, n=int(rng.integers(30, 160)), d=int(rng.integers(3, 9)), regression=regression,
                        int_values=bool(seed % 3 == 0))
    w = rng.integers(0, 4, size=len(ds)).astype(float) if weighted else None
    if w is not None:
        w[0] = 1.0
    cfg = engine.TreeConfig(max_features=mf, random_state=seed % 97, order=order)
    with pytest.MonkeyPatch.context() as mp:
        a = _grown_with(mp, ds, cfg, w, True).tree
        b = _grown_with(mp, ds, cfg, w, False).tree
    assert a == b
    assert a == stepped(ds, cfg, w).tree


def test_sorted_orders_pair_positions_by_hand():
    """Two nodes owning ranges of perm, two features: each pair's rows come sorted by that feature."""
    X = np.array([[3.0, 0.0], [1.0, 5.0], [2.0, 4.0], [0.0, 1.0], [5.0, 2.0]])
    O = roworders.presorted(X, np.ones(5, bool), np.int32)
    perm = np.array([4, 1, 0, 3, 2])              # node 0: rows 4, 1, 0; node 1: rows 3, 2
    orders = roworders.SortedOrders(O, perm, X.T)
    lo, cnt = np.array([0, 3]), np.array([3, 2])
    pj, pc = np.array([0, 0, 1]), np.array([0, 1, 1])
    plen = cnt[pc]
    got, at = orders.pair_positions(pj, pc, lo, cnt, roworders.exclusive_cumsum(cnt), plen,
                                    roworders.exclusive_cumsum(plen))
    # node 0 by x0: rows 1 (1.0), 0 (3.0), 4 (5.0); node 1 by x0: 3 (0.0), 2 (2.0); node 1 by x1: 3 (1.0), 2 (4.0)
    assert got.tolist() == [1, 0, 4, 3, 2, 3, 2]
    assert orders.XS.ravel()[at].tolist() == [1.0, 3.0, 5.0, 0.0, 2.0, 1.0, 4.0]
    assert got.dtype == np.int64
    assert np.array_equal(orders.first_order(lo, cnt, roworders.exclusive_cumsum(cnt)), perm)


# ----- PackedOrders: class targets' pairs sorted by one int32 key (value rank, class, weight) -------------

@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([None, 1, 4, 40]), st.sampled_from([1, 2, "sqrt"]),
       st.sampled_from(["breadth", "depth"]), st.sampled_from(["gini", "entropy"]))
def test_packed_orders_grow_the_sorted_orders_tree_and_the_stepped_one(seed, top_weight, mf, order, criterion):
    """Packed keys (no read by row in the scan) give the tree of SortedOrders and of stepping, bit for bit:
    unit weights and whole-number weights up to 40 (with zeros), ties among values, 2-5 classes."""
    rng = np.random.default_rng(seed)
    ds = random_dataset(seed, n=int(rng.integers(30, 160)), d=int(rng.integers(3, 9)),
                        n_classes=int(rng.integers(2, 6)), int_values=bool(seed % 2 == 0))
    w = None if top_weight is None else rng.integers(0, top_weight + 1, size=len(ds)).astype(float)
    if w is not None:
        w[0] = 1.0
    cfg = engine.TreeConfig(max_features=mf, random_state=seed % 97, order=order, criterion=criterion)
    built = []
    real = roworders.PackedOrders.__init__

    def spy(self, *args):
        built.append(True)
        real(self, *args)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fastexact, "use_sorted_orders", lambda k, d: True)
        mp.setattr(roworders.PackedOrders, "__init__", spy)
        packed = engine.Grower(ds, cfg, sample_weight=w).grow().tree
        assert built, "the packed keys were not used"
        mp.setattr(roworders.PackedOrders, "fits", staticmethod(lambda *a: False))
        built.clear()
        plain = engine.Grower(ds, cfg, sample_weight=w).grow().tree
        assert not built
    assert packed == plain
    assert packed == stepped(ds, cfg, w).tree


def test_packed_orders_keys_by_hand():
    """Two nodes, two features, three classes, weights 1-3: each pair's keys come sorted by value rank,
    and unpack to the rows' ranks, classes and weights; thresholds read the distinct values."""
    X = np.array([[3.0, 0.0], [1.0, 5.0], [2.0, 4.0], [1.0, 1.0], [5.0, 2.0]])
    X.flags.writeable = False
    labels, weights = np.array([2, 0, 1, 1, 0]), np.array([1, 3, 2, 1, 2])
    perm = np.array([4, 1, 0, 3, 2])              # node 0: rows 4, 1, 0; node 1: rows 3, 2
    orders = roworders.PackedOrders(X, np.arange(5), perm, labels, weights, 3)
    lo, cnt = np.array([0, 3]), np.array([3, 2])
    pj, pc = np.array([0, 0, 1]), np.array([0, 1, 1])
    plen = cnt[pc]
    rank, low, weight = orders.split_keys(orders.pair_keys(pj, pc, lo, plen, roworders.exclusive_cumsum(plen)))
    label = low >> orders.label_shift
    # x0's distinct values 1, 2, 3, 5 (ranks 0-3); x1's 0, 1, 2, 4, 5
    # node 0 by x0: rows 1 (1.0), 0 (3.0), 4 (5.0); node 1 by x0: 3 (1.0), 2 (2.0); node 1 by x1: 3 (1.0), 2 (4.0)
    assert rank.tolist() == [0, 2, 3, 0, 1, 1, 3]
    assert label.tolist() == [0, 2, 0, 1, 1, 1, 1]
    assert weight.tolist() == [3, 1, 2, 1, 2, 1, 2]
    assert orders.value(np.array([0, 1]), np.array([3, 3])).tolist() == [5.0, 4.0]
    for k in range(3):
        want = np.where(label == k, weight, 0).tolist()
        assert orders.class_weights(low, k).tolist() == want                 # by table
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(roworders, "LOW_TABLE_BITS", 0)
            assert orders.class_weights(low, k).tolist() == want             # by comparison
    assert roworders.dense_ranks(X) is roworders.dense_ranks(X)       # kept for the next member


def test_packed_orders_fit_31_bits_or_step_aside():
    X = np.zeros((1000, 2))
    assert roworders.PackedOrders.fits(X, None, 3)
    assert roworders.PackedOrders.fits(X, np.array([1, 7, 0]), 3)
    assert not roworders.PackedOrders.fits(X, np.array([1, 2**25]), 3)     # 10 + 2 + 26 bits


def test_dense_ranks_share_ranks_among_equal_values():
    X = np.array([[2.0, -1.0], [0.5, -1.0], [2.0, 3.0], [7.0, 0.0]])
    ranks, values, offsets = roworders.dense_ranks(X)
    assert ranks.tolist() == [[1, 0, 1, 2], [0, 0, 2, 1]]
    assert values.tolist() == [0.5, 2.0, 7.0, -1.0, 0.0, 3.0] and offsets.tolist() == [0, 3]


# ----- node_orders: a big node's orders filtered from the whole matrix's ------------------------------

@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 80), st.integers(1, 4), st.floats(0.05, 1.0))
def test_node_orders_equal_sorting_the_node(seed, n, d, share):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(n, d)).astype(float)          # ties everywhere: the stable order matters
    idx = np.flatnonzero(rng.random(n) < share)
    full = roworders.presorted(X, np.ones(n, dtype=bool), np.int32)
    cols = sorted(rng.choice(d, size=int(rng.integers(1, d + 1)), replace=False).tolist())
    got = roworders.node_orders(full, idx, n, cols)
    want = np.argsort(X[idx][:, cols], axis=0, kind="stable")
    assert got.shape == want.shape and np.array_equal(got, want)


@pytest.mark.parametrize("regression", [False, True])
@pytest.mark.parametrize("cfg", [engine.TreeConfig(), engine.TreeConfig(algorithm="c45"),
                                 engine.TreeConfig(max_features=2, random_state=5)], ids=["cart", "c45", "draws"])
def test_steps_searching_from_kept_orders_equal_sorting(monkeypatch, regression, cfg):
    """Stepping with every node's orders filtered from the kept column orders gives the tree, history and
    gain tables that sorting each node gives (the search itself is otherwise the same)."""
    from engine.grow.stepwise import search as node_search

    ds = random_dataset(21, n=240, d=4, regression=regression, int_values=True)
    monkeypatch.setattr(node_search, "BIG_NODE_ROWS", 10**9)
    plain = stepped(ds, cfg)
    monkeypatch.setattr(node_search, "BIG_NODE_ROWS", 1)
    kept = engine.Grower(ds, cfg)
    assert kept.node_data(0).orders is not None
    while kept.step() is not None:
        pass
    assert kept.tree == plain.tree
    assert [(r.node_id, r.children) for r in kept.history] == [(r.node_id, r.children) for r in plain.history]
    pd_testing = pytest.importorskip("pandas.testing")
    pd_testing.assert_frame_equal(kept.gain_table(0), plain.gain_table(0))


def test_the_sort_cache_forgets_a_freed_matrix():
    """The cached order (up to 80 MB) used to outlive its matrix until the next sort."""
    import gc

    from engine.grow import roworders

    X = np.random.default_rng(0).normal(size=(500, 3))
    X.flags.writeable = False
    roworders.presorted(X, np.ones(500, bool), np.int32)
    assert "X" in roworders._SORTED
    del X
    gc.collect()
    assert roworders._SORTED == {}


@settings(max_examples=60)
@given(st.lists(st.integers(0, 5000), min_size=0, max_size=40), st.integers(0, 2**31 - 1),
       st.sampled_from([np.int32, np.int64]))
def test_sort_segments_sorts_each_segment_in_place(lengths, seed, dtype):
    """Every segment sorted, each in its own place: padded rows of every width class, width 1, empty
    segments and segments past SMALL_SEGMENT (sorted one by one) alike; the padding never leaks."""
    from engine.grow.roworders import SMALL_SEGMENT, exclusive_cumsum, sort_segments
    rng = np.random.default_rng(seed)
    lengths = np.array(lengths + ([SMALL_SEGMENT + 3] if seed % 4 == 0 else []), dtype=np.int64)
    starts = exclusive_cumsum(lengths)
    top = np.iinfo(dtype).max
    values = rng.integers(0, top if seed % 2 else 50, int(lengths.sum()), dtype=dtype)   # ties too
    out = sort_segments(values, starts, lengths)
    assert out.dtype == values.dtype and out.shape == values.shape
    for s, n in zip(starts.tolist(), lengths.tolist()):
        assert np.array_equal(out[s:s + n], np.sort(values[s:s + n]))
