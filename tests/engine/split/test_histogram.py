"""Histogram split search: level-wise equals stepping; with enough bins it equals exact search."""

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import engine
from engine.split.histogram import bin_edges, make_bins

from tests.engine.conftest import random_dataset
from tests.engine.grow.test_fastgrow import assert_same_tree, stepped
from tests.engine.grow.test_levelstore import assert_same_state, grown


def test_bin_edges_are_midpoints_or_quantile_cuts():
    assert np.array_equal(bin_edges(np.array([1.0, 2.0, 2.0, 4.0, np.nan]), 255), [1.5, 3.0])
    x = np.arange(1000, dtype=float)
    e = bin_edges(x, 10)
    assert e.size <= 9 and np.all(np.diff(e) > 0) and np.all(e == np.floor(e) + 0.5)
    bins = make_bins(np.column_stack([x, x % 7]), ("numeric", "numeric"), 10)
    assert bins.codes.max(axis=0).tolist() == [e.size, 6]
    # x <= edge[b]  <=>  code <= b
    for b, edge in enumerate(e):
        assert np.array_equal(x <= edge, bins.codes[:, 0] <= b)


@settings(max_examples=40)
@given(st.integers(0, 100_000), st.sampled_from([2, 3, 8, 255]), st.booleans(), st.booleans())
def test_levelwise_histogram_equals_stepping(seed, max_bins, regression, depth_limited):
    ds = random_dataset(seed, regression=regression, int_values=seed % 2 == 0)
    cfg = engine.TreeConfig(split_search="histogram", max_bins=max_bins, max_depth=3 if depth_limited else None)
    fast = engine.Grower(ds, cfg).grow()
    assert_same_tree(fast.tree, stepped(ds, cfg).tree)


@settings(max_examples=40)
@given(st.integers(0, 100_000), st.sampled_from([3, 8, 20]), st.booleans(), st.booleans(), st.booleans())
def test_levelwise_histogram_with_weights_and_draws_equals_stepping(seed, max_bins, regression, weighted, draw):
    """Bootstrap-like integer weights (zeros included), random feature draws, depth-first ids: the
    level-wise grower's mix of bin scans (big nodes) and exact scans (nodes of <= max_bins rows) is the
    tree stepping grows."""
    ds = random_dataset(seed, regression=regression, int_values=seed % 2 == 0)
    w = np.random.default_rng(seed).integers(0, 3, len(ds)).astype(float) if weighted else None
    cfg = engine.TreeConfig(split_search="histogram", max_bins=max_bins, order="depth" if seed % 3 == 0 else "breadth",
                            max_features=2 if draw else None, random_state=seed % 7)
    fast = engine.Grower(ds, cfg, sample_weight=w).grow()
    assert_same_tree(fast.tree, stepped(ds, cfg, sample_weight=w).tree)


@settings(max_examples=30)
@given(st.integers(0, 100_000), st.sampled_from([2, 3, 8]), st.booleans(), st.booleans(), st.booleans())
def test_levelwise_histogram_rows_of_every_node_equal_stepping(seed, max_bins, regression, weighted, depth_first):
    """While every node of a level is binned, rows stay in place and the permutation is made when first
    read (``engine.grow.exact.rows.settled``: at the hand-over to exact search, or at the end): every node's rows and
    weights, its path and the history are stepping's."""
    ds = random_dataset(seed, regression=regression, int_values=seed % 2 == 0)
    w = None
    if weighted:                           # integer weights (exact sums), zeros drop rows
        w = np.random.default_rng(seed).integers(0, 4, size=len(ds)).astype(float)
        w[0] = 1.0
    cfg = engine.TreeConfig(split_search="histogram", max_bins=max_bins, order="depth" if depth_first else "breadth")
    assert_same_state(grown(ds, cfg, w), stepped(ds, cfg, w))


def test_rows_in_place_give_the_permutation_of_stable_partitions():
    """``settled`` on a hand-made tree: root rows 0..5 split {1, 3, 4} left and {0, 2, 5} right; the
    right child splits {2} left, {0, 5} right. Ranges: node 1 [0, 3), node 3 [3, 4), node 4 [4, 6)."""
    from engine.grow.exact.rows import settled

    deepest = np.array([4, 1, 3, 1, 1, 4])
    lv_lo = [np.array([0]), np.array([0, 3]), np.array([3, 4])]
    perm = settled(deepest, lv_lo, [np.array([0]), np.array([2])], 5)
    assert perm.tolist() == [1, 3, 4, 2, 0, 5]


def test_small_nodes_are_searched_exactly():
    """Six quantile bins of 24 values put 1, 2, 3, 4 in one bin, so bins cannot split them; the node of those four rows
    (no more rows than bins) is handed to the exact search, which finds 2.5."""
    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0] + list(np.arange(10.0, 30.0)),
                          "y": ["a", "a", "b", "b"] + ["c"] * 20})
    ds = engine.Dataset.from_frame(frame, target="y")
    cfg = engine.TreeConfig(split_search="histogram", max_bins=6)
    g = engine.Grower(ds, cfg)
    assert g.searches_histogram(0) and g.bins.codes[:4, 0].tolist() == [0, 0, 0, 0]
    tree = g.grow().tree
    assert sorted(n.split.threshold for n in tree.nodes if n.split is not None) == [2.5, 7.0]
    left = tree.nodes[tree.root.children[0]]
    assert left.n_node_samples == 4 and not g.searches_histogram(left.id)
    assert_same_tree(tree, stepped(ds, cfg).tree)


@settings(max_examples=30)
@given(st.integers(0, 100_000), st.booleans())
def test_enough_bins_equals_exact_search(seed, regression):
    ds = random_dataset(seed, regression=regression, int_values=seed % 3 == 0)
    exact = engine.fit_tree(ds, engine.TreeConfig())
    hist = engine.fit_tree(ds, engine.TreeConfig(split_search="histogram", max_bins=255))
    assert_same_tree(exact, hist)


def test_histogram_with_missing_values_and_categories_steps():
    ds = engine.load_sample("titanic_small")
    g = engine.Grower(ds, engine.TreeConfig(algorithm="c45", split_search="histogram", max_bins=4)).grow()
    assert g.tree.n_leaves > 1
    scan = engine.split.gain.candidate_scan(g, 0, "age") if "age" in ds.feature_names else None
    if scan is not None:
        assert len(scan) <= 3


def test_coarse_bins_stay_close_on_big_data():
    from benchmarks.bench_fit import make_data
    ds = make_data(20_000)
    exact = engine.fit_tree(ds, engine.TreeConfig(max_depth=6))
    hist = engine.fit_tree(ds, engine.TreeConfig(max_depth=6, split_search="histogram", max_bins=64))
    acc = lambda t: (t.predict_codes(ds.X) == ds.y).mean()
    assert abs(acc(exact) - acc(hist)) < 0.01
    g = engine.Grower(ds, engine.TreeConfig(split_search="histogram", max_bins=16))
    assert len(engine.split.gain.candidate_scan(g, 0, "f0")) <= 15


def test_auto_search_switches_by_row_count():
    ds = engine.load_sample("iris")
    assert engine.Grower(ds, engine.TreeConfig(split_search="auto")).config.split_search == "exact"
    small_limit = engine.TreeConfig(split_search="auto", histogram_above_rows=100, max_depth=4)
    assert engine.Grower(ds, small_limit).config.split_search == "histogram"


def test_auto_search_uses_histograms_at_any_depth_above_the_row_limit():
    # histogram search hands small nodes to the exact search, so deep trees are not its slow path
    ds = engine.load_sample("iris")
    for bounded in ({}, {"max_depth": 6}, {"min_samples_leaf": 2}, {"max_leaf_nodes": 76}):
        cfg = engine.TreeConfig(split_search="auto", histogram_above_rows=100, **bounded)
        assert engine.Grower(ds, cfg).config.split_search == "histogram", bounded
        assert engine.Grower(ds, replace(cfg, histogram_above_rows=150)).config.split_search == "exact"
    with pytest.raises(engine.ConfigError, match="histogram_above_rows"):
        engine.TreeConfig(histogram_above_rows=-1)
    with pytest.raises(engine.ConfigError, match="split_search must be one of"):
        engine.TreeConfig(split_search="fast")


def test_unit_weight_regression_counts_its_weights_without_summing_ones(monkeypatch):
    """A unit-weight regression's first stat is 1 a row: the level-wise histogram search takes its sums
    from the row counts (no bincount weighted by ones) and grows exactly the tree (same gains to the last
    bit) that summing the ones grows."""
    from engine.grow import fasthist
    ones_weighted = []

    class CountingNumpy:
        def __getattr__(self, name):
            return getattr(np, name)

        @staticmethod
        def bincount(x, weights=None, minlength=0):
            if weights is not None and np.all(weights == 1.0):
                ones_weighted.append(len(x))
            return np.bincount(x, weights=weights, minlength=minlength)

    monkeypatch.setattr(fasthist, "np", CountingNumpy())
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(rng.normal(size=(3000, 3)).round(2), columns=["a", "b", "c"])
    frame["y"] = frame["a"] * 2 + rng.normal(size=3000)
    ds = engine.Dataset.from_frame(frame, target="y", task="regression")
    cfg = engine.TreeConfig(split_search="histogram", max_bins=16, max_depth=4, histogram_above_rows=0)
    fast = engine.Grower(ds, cfg).grow()
    assert fast.tree.n_leaves > 4 and ones_weighted == []
    monkeypatch.undo()
    init = fasthist.LevelHistograms.__init__

    def summing_ones(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.ones_first = False

    monkeypatch.setattr(fasthist.LevelHistograms, "__init__", summing_ones)
    assert_same_tree(fast.tree, engine.Grower(ds, cfg).grow().tree)
