"""Ties between equally good features: column order for a plain tree, a seeded random order for a randomised
learner (random_state set: random forests, bagging), as scikit-learn visits features in a random order."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import engine
from engine.ensembles.forest import fit_random_forest


def _twins(n=120, seed=0):
    """Features a and b are copies: every split on one has an equally good split on the other."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n).round(3)
    z = rng.normal(size=n).round(3)
    y = np.where(x + 0.3 * z + rng.normal(scale=0.4, size=n) > 0, "p", "q")
    return engine.Dataset.from_frame(pd.DataFrame({"a": x, "b": x, "z": z, "y": y}), target="y")


def _used(tree):
    return [n.split.feature for n in tree.internal_nodes]


def _stepped(ds, cfg):
    g = engine.Grower(ds, cfg)
    while g.step() is not None:
        pass
    return g.tree


@pytest.mark.parametrize("algorithm", ["cart", "c45"])
def test_ties_between_features_are_broken_at_random_when_seeded(algorithm):
    ds = _twins()
    plain = engine.fit_tree(ds, engine.TreeConfig(algorithm=algorithm))
    assert "b" not in _used(plain)                   # deterministic: the earlier column wins every tie
    used = set()
    for seed in range(6):
        cfg = engine.TreeConfig(algorithm=algorithm, random_state=seed)
        tree = engine.fit_tree(ds, cfg)
        used.update(_used(tree))
        assert _used(engine.fit_tree(ds, cfg)) == _used(tree)              # seeded: the same tree again
        assert _used(_stepped(ds, cfg)) == _used(tree)                     # level-wise = step by step
        assert np.array_equal(tree.predict_codes(ds.X), plain.predict_codes(ds.X))  # a and b cut alike
    assert {"a", "b"} <= used


def test_histogram_growth_breaks_ties_the_same_way():
    ds = _twins(n=300, seed=3)
    cfg = engine.TreeConfig(random_state=4, split_search="histogram", max_bins=16)
    assert _used(engine.fit_tree(ds, cfg)) == _used(_stepped(ds, cfg))


def test_random_forest_trees_use_both_twins():
    ds = _twins()
    forest = fit_random_forest(ds, n_estimators=8, max_features=3, random_state=0)   # every feature at every node
    used = {f for m in forest.members for f in _used(m.tree)}
    assert {"a", "b"} <= used
