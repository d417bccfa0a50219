"""The level-wise builder gives exactly the tree and history that stepping gives."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import engine
from engine.fastgrow import fast_eligible

from .conftest import random_dataset

CONFIGS = [
    engine.TreeConfig(),
    engine.TreeConfig(order="depth", algorithm="c45", min_samples_leaf=2),
    engine.TreeConfig(max_depth=3, min_impurity_decrease=0.01, chi2_alpha=0.2),
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
