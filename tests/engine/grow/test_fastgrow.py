"""The level-wise builder gives exactly the tree and history that stepping gives."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import engine
from engine.grow.fastgrow import fast_eligible

from tests.engine.conftest import frame_dataset, random_dataset

CONFIGS = [
    engine.TreeConfig(),
    engine.TreeConfig(order="depth", algorithm="c45", c45_rules=(), min_samples_leaf=2),  # the notes' C4.5
    engine.TreeConfig(max_depth=3, min_impurity_decrease=0.01, chi2_alpha=0.2),
    engine.TreeConfig(min_gain=0.05, min_impurity_decrease=0.002),
    engine.TreeConfig(max_features=1, random_state=3),
    engine.TreeConfig(criterion="entropy", min_samples_split=6),
    engine.TreeConfig(criterion="misclassification", max_depth=4),
]


def assert_same_tree(a, b):
    assert len(a.nodes) == len(b.nodes)
    for x, y in zip(a.nodes, b.nodes):
        assert (x is None) == (y is None)
        if x is None:
            continue
        assert x.children == y.children and x.parent == y.parent and x.stop_reason == y.stop_reason
        assert x.stats == y.stats and x.prediction == y.prediction
        if x.split is not None:
            assert x.split.same_test(y.split) and x.split.gain == y.split.gain


def stepped(ds, cfg, sample_weight=None):
    g = engine.Grower(ds, cfg, sample_weight=sample_weight)
    while g.step() is not None:
        pass
    return g


@settings(max_examples=60)
@given(st.integers(0, 100_000), st.sampled_from(range(len(CONFIGS))), st.booleans(), st.booleans(),
       st.booleans())
def test_fast_equals_stepping(seed, ci, regression, int_values, weighted):
    cfg = CONFIGS[ci]
    if regression and cfg.criterion in ("entropy", "misclassification") or regression and cfg.algorithm == "c45":
        return
    ds = random_dataset(seed, regression=regression, int_values=int_values)
    w = None
    if weighted:
        w = np.random.default_rng(seed).integers(0, 4, size=len(ds)).astype(float)
        if w.sum() == 0:
            w[0] = 1.0
    fast = engine.Grower(ds, cfg, sample_weight=w)
    assert fast_eligible(fast)
    fast.grow()
    slow = stepped(ds, cfg, w)
    assert_same_tree(fast.tree, slow.tree)
    assert [(r.action, r.node_id, r.stopped) for r in fast.history] == \
        [(r.action, r.node_id, r.stopped) for r in slow.history]
    # undo after a fast grow lands exactly where stepping k-1 times lands
    k = len(slow.history)
    if k >= 2:
        fast.undo()
        partial = engine.Grower(ds, cfg, sample_weight=w)
        for _ in range(k - 1):
            partial.step()
        assert_same_tree(fast.tree, partial.tree)
        assert fast.open_nodes == partial.open_nodes


@pytest.mark.parametrize("name", ["iris", "wine", "breast_cancer", "diabetes", "noisy_moons"])
def test_fast_equals_stepping_on_samples(name):
    ds = engine.load_sample(name)
    fast = engine.Grower(ds).grow()
    assert_same_tree(fast.tree, stepped(ds, engine.TreeConfig()).tree)
    assert fast.history[0].runner_up is not None          # lazily computed, still there


def test_not_eligible_with_missing_or_categorical():
    assert not fast_eligible(engine.Grower(engine.load_sample("titanic_small")))
    assert not fast_eligible(engine.Grower(engine.load_sample("play_tennis")))
    assert not fast_eligible(engine.Grower(engine.load_sample("iris"), engine.TreeConfig(max_leaf_nodes=3)))


def assert_fast_equals_stepping(ds, cfg, w=None):
    fast = engine.Grower(ds, cfg, sample_weight=w)
    assert fast_eligible(fast)
    fast.grow()
    slow = stepped(ds, cfg, w)
    assert_same_tree(fast.tree, slow.tree)
    assert fast.tree.nodes == slow.tree.nodes          # every field: counts, weights, values, branch labels
    assert [(r.action, r.node_id, r.children, r.stopped) for r in fast.history] == \
        [(r.action, r.node_id, r.children, r.stopped) for r in slow.history]
    return fast


def many_classes_dataset(seed, n_classes):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(30, 160))
    df = pd.DataFrame({f"x{j}": rng.integers(0, 9, size=n).astype(float) for j in range(3)})
    df["y"] = np.array([f"c{k:02d}" for k in range(n_classes)])[rng.integers(0, n_classes, size=n)]
    return frame_dataset(df, task="classification")


@settings(max_examples=15)
@given(st.integers(0, 100_000), st.integers(17, 24), st.sampled_from(range(len(CONFIGS))), st.booleans())
def test_fast_equals_stepping_with_more_than_16_classes(seed, n_classes, ci, weighted):
    """Above 16 classes the stats are summed as a stack, not column by column."""
    ds = many_classes_dataset(seed, n_classes)
    w = None
    if weighted:            # halves: still exact sums, and not the unit-weight label-count path
        w = np.random.default_rng(seed).integers(0, 5, size=len(ds)) / 2.0
        w[0] = 1.0
    assert_fast_equals_stepping(ds, CONFIGS[ci], w)


@pytest.mark.parametrize("chunk", [1, 7, 64])
@pytest.mark.parametrize("cfg", [engine.TreeConfig(), engine.TreeConfig(max_features="sqrt", random_state=4),
                                 engine.TreeConfig(max_features=3, order="depth", random_state=1)],
                         ids=["all-features", "sqrt", "three-depth"])
def test_fast_equals_stepping_in_small_chunks(monkeypatch, chunk, cfg):
    """A level scanned in several chunks (whole features per chunk; with feature draws, the pairs a chunk
    holds are gathered) gives the same tree as one scan."""
    import engine.grow.exact.scan as exact_scan
    monkeypatch.setattr(exact_scan, "CHUNK", chunk)
    for seed in (3, 8):
        assert_fast_equals_stepping(random_dataset(seed, n=120, d=6, regression=seed == 8), cfg)


@settings(max_examples=15)
@given(st.integers(0, 100_000), st.sampled_from(["sqrt", "log2", 0.5, 2]), st.integers(0, 50), st.booleans())
def test_fast_equals_stepping_with_feature_draws(seed, max_features, random_state, regression):
    ds = random_dataset(seed, d=int(np.random.default_rng(seed).integers(4, 8)), regression=regression)
    cfg = engine.TreeConfig(max_features=max_features, random_state=random_state,
                            order="depth" if seed % 2 else "breadth")
    assert_fast_equals_stepping(ds, cfg)


@pytest.mark.parametrize("frame, cfg, w", [
    ({"a": [1.0, 2, 3], "y": list("ppp")}, engine.TreeConfig(), None),                        # pure root
    ({"a": [1.0, 2, 3, 4], "y": list("pqpq")}, engine.TreeConfig(min_samples_split=5), None),
    ({"a": [1.0, 2, 3, 4], "y": list("pqpq")}, engine.TreeConfig(min_samples_leaf=3), None),
    ({"a": [1.0, 2, 3, 4], "y": list("pqpq")}, engine.TreeConfig(max_depth=0), None),
    ({"a": [1.0] * 6, "b": [2.0] * 6, "y": list("pqpqpq")}, engine.TreeConfig(), None),       # constant features
    ({"a": [1.0, 2, 3, 4], "y": list("pqpq")}, engine.TreeConfig(), [0, 0, 1.0, 0]),         # one row weighs
    ({"a": [1.0, 2, 3, 4, 5, 6], "y": list("pqpqpp")}, engine.TreeConfig(), [0, 1, 0, 1, 2, 0]),  # zeros between
    ({"a": [1.0, 1, 2, 2, 3], "b": [5.0, 5, 4, 4, 3], "y": list("ppqqq")}, engine.TreeConfig(), None),  # tied features
], ids=["pure", "min_samples_split", "min_samples_leaf", "max_depth-0", "constant", "one-row", "zero-weights", "tie"])
def test_fast_equals_stepping_on_tiny_trees(frame, cfg, w):
    ds, w = frame_dataset(pd.DataFrame(frame), task="classification"), None if w is None else np.array(w)
    fast = assert_fast_equals_stepping(ds, cfg, w)
    slow = stepped(ds, cfg, w)
    assert fast.undo() and slow.undo()          # the stepped grower undoes by replaying its steps
    assert fast.tree.nodes == slow.tree.nodes and fast.open_nodes == slow.open_nodes
