"""fastexact.presorted: the cached whole-matrix order, filtered to a subset, is the subset's own order."""

import numpy as np
from hypothesis import given, settings, strategies as st

from engine import fastexact


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 60), st.integers(1, 5), st.floats(0.0, 1.0))
def test_presorted_subset_equals_sorting_the_subset(seed, n, d, share):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n, d)).astype(float)         # many ties: the stable order matters
    X.flags.writeable = False
    keep = rng.random(n) < share
    for _ in range(2):                                           # the second call reads the cache
        got = fastexact.presorted(X, keep, np.int32)
        want = np.argsort(X[keep].T, axis=1, kind="stable")
        assert got.shape == (d, int(keep.sum())) and np.array_equal(got, want)


def test_presorted_caches_read_only_matrices_only():
    X = np.arange(12.0).reshape(6, 2)[::-1].copy()
    fastexact.presorted(X, np.ones(6, bool), np.int32)
    assert "X" not in fastexact._SORTED                          # writeable: may change, never cached
    X.flags.writeable = False
    first = fastexact.presorted(X, np.ones(6, bool), np.int32)
    assert fastexact.presorted(X, np.ones(6, bool), np.int32) is first
    Y = X.copy()
    Y.flags.writeable = False
    assert fastexact.presorted(Y, np.ones(6, bool), np.int32) is not first   # another matrix: sorted anew


def test_paused_gc_keeps_nothing_alive():
    """Objects made while the collector is paused are promoted, not frozen: a full collection still
    frees a grown Grower (its step records and the grower form a cycle)."""
    import gc
    import weakref

    import engine
    from engine.levelstore import paused_gc

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
