"""Regression tests for the engine growth paths the ensembles rely on.

Random forests grow every member with ``max_features`` and bootstrap counts as ``sample_weight``;
the level-wise builder (``engine.grow.fastgrow``) scans a feature only in the nodes that drew it. These
tests pin that it still gives exactly the tree that stepping the Grower gives.
"""

from __future__ import annotations

import numpy as np
import pytest

import engine
from engine.grow.grower import Grower


def _signature(tree):
    return [(n.id, n.split.feature, n.split.threshold) if n.split else (n.id, n.stop_reason, n.stats)
            for n in tree.walk()]


@pytest.mark.parametrize("name", ["wine", "iris", "diabetes"])
@pytest.mark.parametrize("max_features", ["sqrt", 0.5, 2])
def test_levelwise_with_feature_draws_equals_stepping(name, max_features):
    ds = engine.load_sample(name)
    rng = np.random.default_rng(3)
    counts = np.bincount(rng.integers(0, len(ds), len(ds)), minlength=len(ds)).astype(float)
    cfg = engine.TreeConfig(max_features=max_features, random_state=7, min_samples_leaf=2)
    fast = Grower(ds, cfg, sample_weight=counts).grow().tree
    slow = Grower(ds, cfg, sample_weight=counts)
    while slow.step() is not None:
        pass
    assert _signature(fast) == _signature(slow.tree)


def test_levelwise_nodes_use_only_their_drawn_features():
    ds = engine.load_sample("breast_cancer")
    cfg = engine.TreeConfig(max_features="log2", random_state=11)
    g = Grower(ds, cfg).grow()
    for node in g.tree.internal_nodes:
        allowed = {ds.feature_names[j] for j in g._features_from_path(g._paths[node.id])}
        assert len(allowed) == cfg.n_features_to_draw(len(ds.feature_names))
        assert node.split.feature in allowed


@pytest.mark.parametrize("name, method", [("iris", "forest"), ("diabetes", "forest"), ("breast_cancer", "bagging"),
                                          ("titanic_small", "forest")])
def test_training_outputs_read_off_the_leaves_equal_routing(name, method):
    """Members' predictions on the training rows: rows a member grew on are read off its leaves (level-wise
    growth), the others routed; both must equal predicting every row with the member's own tree."""
    from engine.ensembles import fit_bagging, fit_random_forest

    ds = engine.load_sample(name)
    fit = fit_random_forest if method == "forest" else fit_bagging
    ens = fit(ds, n_estimators=4, random_state=3)
    for m in ens.members:
        want = m.tree.predict(ds.frame)
        if ds.task == "classification":
            want = np.array([ds.classes.index(c) for c in want])
            assert np.array_equal(ens.train_outputs[m.index], want)
        else:
            assert np.allclose(ens.train_outputs[m.index], want, rtol=0, atol=0)


def test_training_leaves_only_for_a_fresh_level_wise_growth():
    ds = engine.load_sample("iris")
    g = Grower(ds).grow()
    leaves = g.training_leaves()
    assert leaves is not None and np.array_equal(leaves, g.tree.apply(ds.frame))
    w = np.ones(len(ds))
    w[:10] = 0
    g0 = Grower(ds, sample_weight=w).grow()
    assert (g0.training_leaves()[:10] == -1).all() and (g0.training_leaves()[10:] >= 0).all()
    g.step()                                   # a state stepped, undone or edited: None (routing is the way)
    g.undo()
    assert g.training_leaves() is None
    assert Grower(ds).training_leaves() is None
