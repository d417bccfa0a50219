"""Big nodes without big copies: the root's NodeData shares the grower's matrices, and the vectorised
numeric search works in feature blocks with the same result."""

import numpy as np
import pytest

import engine
from engine.split import search

from tests.engine.conftest import random_dataset


def test_root_node_data_shares_the_matrices_and_other_nodes_copy():
    ds = random_dataset(4, n=120, d=3)
    g = engine.Grower(ds)
    root = g.node_data(0)
    assert np.shares_memory(root.x, g.X) and np.shares_memory(root.stats, g.U)
    g.step()
    child = g.node_data(1)
    assert not np.shares_memory(child.x, g.X)
    weighted = engine.Grower(ds, sample_weight=np.full(len(ds), 2.0)).node_data(0)
    assert not np.shares_memory(weighted.stats, g.U) and weighted.total_weight == 2.0 * len(ds)
    with pytest.raises(ValueError):
        root.stats[0, 0] = 5.0          # read-only: a search can never change the grower's stats


@pytest.mark.parametrize("seed", range(6))
def test_feature_blocks_change_nothing(seed, monkeypatch):
    ds = random_dataset(seed, n=150, d=5, regression=bool(seed % 2))
    g = engine.Grower(ds)
    nd = g.node_data(0)
    cols = list(range(len(ds.feature_names)))
    whole = search.best_numeric_all(nd, cols, ds.feature_names)
    monkeypatch.setattr(search, "BLOCK_CELLS", 1)          # one feature per block
    blocked = search.best_numeric_all(nd, cols, ds.feature_names)
    assert len(whole) == len(blocked)
    for a, b in zip(whole, blocked):
        assert (a is None) == (b is None)
        if a is not None:
            assert a.same_test(b) and a.gain == b.gain and a.child_stats == b.child_stats
