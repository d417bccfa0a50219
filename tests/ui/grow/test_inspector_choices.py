"""The node inspector's select box on a big tree lists a bounded set of nodes that always holds the selected node,
its path from the root and its children (12,000 options travelled to the browser on every click)."""

from __future__ import annotations

import numpy as np
import pandas as pd

import engine
from engine.viz.tree_layout import trail_to
from ui.grow import inspector, views


def test_a_big_tree_lists_the_selected_nodes_path_children_and_the_first_nodes(monkeypatch):
    monkeypatch.setattr(views, "memo", lambda key, compute: compute())
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.normal(size=3000), "b": rng.normal(size=3000),
                          "c": rng.choice(["x", "y", "z"], 3000)})
    tree = engine.fit_tree(engine.Dataset.from_frame(frame, target="c"), engine.TreeConfig())
    assert tree.n_nodes > 2 * inspector.NODE_CHOICES
    every = inspector.node_choices(tree)
    assert len(every) == tree.n_nodes
    deep = max((n for n in tree.walk() if not n.is_leaf), key=lambda n: n.depth)
    some = inspector.node_choices(tree, deep.id)
    assert set(trail_to(tree, deep.id)) | set(deep.children) <= set(some)
    assert len(some) <= inspector.NODE_CHOICES + len(trail_to(tree, deep.id)) + len(deep.children)
    assert list(some) == [i for i in every if i in some]  # walk order, the labels unchanged
    assert all(some[i] == every[i] for i in some)
