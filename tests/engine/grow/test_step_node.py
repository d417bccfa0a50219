"""Grower.step(node_id): the user picks which open leaf is decided next; undo replays the choice."""

from __future__ import annotations

import pytest

import engine
from engine.errors import ConfigError


@pytest.fixture
def grower():
    g = engine.Grower(engine.load_sample("iris"), engine.TreeConfig(algorithm="cart", order="breadth"))
    g.step()  # root split: children 1 and 2 open
    return g


def test_chosen_open_leaf_is_split_instead_of_the_next_in_order(grower):
    first, chosen = grower.open_nodes[0], grower.open_nodes[-1]
    rec = grower.step(chosen)
    assert rec.action == "split" and rec.node_id == chosen != first
    assert first in grower.open_nodes and chosen not in grower.open_nodes
    assert grower.tree.node(chosen).split.same_test(grower.candidates(chosen)[0])


def test_chosen_leaf_that_must_stop_is_closed_with_its_reason():
    g = engine.Grower(engine.load_sample("iris"), engine.TreeConfig(algorithm="cart", max_depth=1))
    g.step()
    pure = next(n.id for n in g.tree.leaves if n.impurity == 0)
    rec = g.step(pure)
    assert rec.action == "finish" and rec.stopped == ((pure, "pure"),)
    assert len(g.open_nodes) == 1  # the other open leaf is left for later


def test_undo_replays_the_chosen_order(grower):
    chosen = grower.open_nodes[-1]
    grower.step(chosen)
    grower.step()
    before = grower.tree.fingerprint
    grower.step()
    assert grower.undo()
    assert grower.tree.fingerprint == before and grower.tree.node(chosen).split is not None


@pytest.mark.parametrize("node_id", [0, 99])
def test_only_open_leaves_can_be_chosen(grower, node_id):
    with pytest.raises(engine.EngineError):
        grower.step(node_id)
    with pytest.raises(ConfigError, match="not an open leaf"):
        grower.step(0)
