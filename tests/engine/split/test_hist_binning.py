"""Binning for histogram search: the grid coder equals a binary search, block-wise binning equals binning
column by column, and the subtraction trick of the level-wise builder equals stepping."""

from functools import partial

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import engine
from engine.grow.parallel import thread_map
from engine.split import binning
from engine.split.binning import bin_codes, bin_edges, make_bins, missing_code

from tests.engine.conftest import random_dataset
from tests.engine.grow.test_fastgrow import assert_same_tree, stepped

COLUMNS = ["normal", "lognormal", "pareto", "ints", "offset", "constant", "signed_zeros", "nan", "extremes"]


def column(kind: str, n: int, rng) -> np.ndarray:
    if kind == "normal":
        return rng.normal(size=n).round(int(rng.integers(0, 6)))
    if kind == "lognormal":
        return np.exp(rng.normal(size=n) * 4)
    if kind == "pareto":
        return rng.pareto(0.3, size=n)
    if kind == "ints":
        return rng.integers(-3, int(rng.integers(1, 12)), size=n).astype(float)
    if kind == "offset":
        return 1.6e9 + rng.integers(0, 5000, size=n)
    if kind == "constant":
        return np.full(n, 2.5)
    if kind == "signed_zeros":
        return rng.choice([-0.0, 0.0, 5e-324, -5e-324, 1.0], size=n)
    if kind == "nan":
        return np.where(rng.random(n) < 0.3, np.nan, rng.normal(size=n))
    return rng.choice([-1e308, -1.0, 0.0, 1e-300, 1e308, np.inf, -np.inf], size=n)


def reference_codes(col, edges, missing):
    ref = np.searchsorted(edges, col, side="left")
    ref[np.isnan(col)] = missing
    return ref


@pytest.mark.filterwarnings("error::RuntimeWarning")
@settings(max_examples=80, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(COLUMNS), st.sampled_from([2, 3, 16, 255, 300, 5000]),
       st.integers(1, 3000))
def test_grid_codes_equal_binary_search(seed, kind, max_bins, n):
    rng = np.random.default_rng(seed)
    col = column(kind, n, rng)
    edges = bin_edges(col[np.isfinite(col) | np.isnan(col)], max_bins)
    out = np.empty(n, dtype=binning.code_dtype(max_bins))
    assert np.array_equal(bin_codes(col, edges, out), reference_codes(col, edges, missing_code(out)))


@pytest.mark.filterwarnings("error::RuntimeWarning")
@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.lists(st.sampled_from(COLUMNS), min_size=1, max_size=5),
       st.sampled_from([4, 255, 1000]), st.booleans(), st.sampled_from([1, 3]))
def test_block_binning_equals_column_by_column(seed, kinds, max_bins, sampled, groups):
    """Small SAMPLE_ROWS and BLOCK_ROWS send small tables through the sample, check and redo paths; groups
    of columns binned on threads give the same edges and codes."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(50, 900))
    X = np.column_stack([column(k, n, rng) for k in kinds] + [rng.integers(0, 3, n).astype(float)])
    X[np.isinf(X)] = np.nan                     # Dataset.X never holds +-inf
    if rng.random() < 0.3:
        X[rng.integers(0, n), int(rng.integers(0, len(kinds)))] = 7.25   # one value a sample may miss
    if rng.random() < 0.5:
        X = np.asfortranarray(X)                # uploaded CSVs give column-major matrices
    feature_kinds = ["numeric"] * len(kinds) + ["categorical"]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(binning, "BLOCK_ROWS", int(rng.integers(7, 200)))
        if sampled:
            mp.setattr(binning, "SAMPLE_ROWS", int(rng.integers(10, n)))
        bins = make_bins(X, feature_kinds, max_bins, map_fn=partial(thread_map, threads=groups), groups=groups)
        for j, kind in enumerate(feature_kinds):
            if kind != "numeric":
                assert bins.edges[j].size == 0 and np.all(bins.codes[:, j] == bins.missing)
                continue
            edges = bin_edges(X[:, j], max_bins)
            assert np.array_equal(bins.edges[j], edges)
            assert np.array_equal(bins.codes[:, j], reference_codes(X[:, j], edges, bins.missing))
    assert bins.codes.T.flags.c_contiguous
    assert bins.codes.dtype == (np.uint8 if max_bins <= 255 else np.uint16)


@pytest.mark.parametrize("n", [11, 1000, 250_001])
def test_sample_positions_are_those_choice_draws(n):
    """bin_edges reads the sample at sorted positions: the same values choice(known, ...) returns."""
    k = min(n - 1, 10)
    a = np.random.default_rng(5).normal(size=n)
    drawn = np.random.default_rng(0).choice(a, k, replace=False)
    at = np.random.default_rng(0).choice(n, k, replace=False)
    assert np.array_equal(drawn, a[at])


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 100_000), st.sampled_from([3, 16, 255]), st.sampled_from([None, 4, 7]),
       st.sampled_from(["gini", "entropy", "misclassification"]), st.integers(1, 4))
def test_subtraction_levels_equal_stepping(seed, max_bins, depth, criterion, min_leaf):
    """Bigger nodes than the other histogram tests, so siblings differ in size and both sides are derived."""
    ds = random_dataset(seed, n=int(np.random.default_rng(seed).integers(300, 1500)),
                        d=int(np.random.default_rng(seed + 1).integers(1, 6)), int_values=seed % 3 == 0)
    cfg = engine.TreeConfig(split_search="histogram", max_bins=max_bins, max_depth=depth, criterion=criterion,
                            min_samples_leaf=min_leaf)
    assert_same_tree(engine.Grower(ds, cfg).grow().tree, stepped(ds, cfg).tree)


def test_budget_fallback_equals_stepping(monkeypatch):
    """Levels too big to keep for subtraction are scanned feature by feature, with the same tree."""
    from engine.grow import fasthist
    ds = random_dataset(3, n=800, d=3)
    cfg = engine.TreeConfig(split_search="histogram", max_bins=64)
    monkeypatch.setattr(fasthist, "HIST_BUDGET", 3 * 3 * 64 * 4)   # root and level 1 only
    assert_same_tree(engine.Grower(ds, cfg).grow().tree, stepped(ds, cfg).tree)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(COLUMNS[:6]), st.integers(1, 5000), st.integers(2, 1000))
def test_sorted_quantiles_equal_numpy(seed, kind, n, max_bins):
    """Quantile edges are computed from the sorted sample directly; numpy's quantile gives the same bits."""
    s = np.sort(column(kind, n, np.random.default_rng(seed)))
    q = np.linspace(0, 1, max_bins + 1)[1:-1]
    assert np.array_equal(binning._sorted_quantiles(s, q), np.quantile(s, q))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 100_000), st.sampled_from([0.0, float("inf")]), st.sampled_from([None, 2]),
       st.sampled_from([3, 255]), st.booleans(), st.booleans())
def test_feature_scans_dense_or_sparse_equal_stepping(seed, sparse_above, max_features, max_bins, regression,
                                                      weighted):
    """Levels scanned feature by feature (weights, regression, feature draws, levels too big to keep) count
    dense (node, bin) histograms or only the pairs present; both give the stepping tree."""
    from engine.grow import fasthist
    rng = np.random.default_rng(seed)
    ds = random_dataset(seed, n=int(rng.integers(50, 700)), d=3, int_values=seed % 3 == 0, regression=regression)
    w = rng.integers(0, 4, size=len(ds)).astype(float) if weighted else None
    if w is not None and w.sum() == 0:
        w[0] = 1.0
    cfg = engine.TreeConfig(split_search="histogram", max_bins=max_bins, max_features=max_features,
                            random_state=seed % 7, criterion=None if regression else ["gini", "entropy"][seed % 2])
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fasthist, "HIST_BUDGET", 0)
        mp.setattr(fasthist, "SPARSE_ABOVE", sparse_above)
        fast = engine.Grower(ds, cfg, sample_weight=w).grow()
    assert_same_tree(fast.tree, stepped(ds, cfg, w).tree)
