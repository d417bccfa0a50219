"""Big model files (issue 41 item 5): a tree is kept as node arrays, its node objects made only when read,
and a file past the node limit is refused before it is parsed.

Memory is measured in a fresh subprocess (``benchmarks/bench_model_limits.measure``: peak RSS above the
memory before ``load_model``, under a 4 GB address-space cap). The bound is generous, not a benchmark: a
200,000-node tree took +341 MB when every node was an object and +93 MB as arrays; the figures at a
million nodes come from ``python benchmarks/bench_big_models.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

import engine
from benchmarks.bench_model_limits import ROOT, measure
from engine.errors import DataError
from engine.models import contributions, lightgbm_text, xgboost_json
from tests.hardening import hostile_models as H

BOUND_MB = 200        # peak increase allowed for opening a 200,000-node tree (measured: +93 MB; before: +341 MB)


def test_a_200000_node_tree_opens_under_a_memory_bound(tmp_path):
    path = tmp_path / "big.json"
    path.write_bytes(H.xgboost_big_tree(200_001))
    r = measure(path, ROOT)
    assert r["outcome"] == "opened: 1 trees, 10 features" and r["nodes"] == 200_001, r
    assert r["peak_mb"] < BOUND_MB, r


def test_opening_and_predicting_make_no_node_object():
    """Sizes, depth, prediction, the waterfall and importances read the arrays; a page reading a node makes
    that node (and its parent's split for the branch label), the same node each time."""
    model = engine.load_model(H.xgboost_big_tree(20_001))
    tree = model.trees[0]
    X = np.random.default_rng(0).normal(size=(50, 10))
    X[::7, 3] = np.nan
    model.predict(X), contributions(model, X[:1]), tree.predict(X[1:2])
    assert (tree.n_nodes, tree.n_leaves, tree.depth) == (20_001, 10_001, 14)
    assert sum(tree.feature_importances.values()) == pytest.approx(1.0)
    assert tree.nodes.made == 0
    node = tree.nodes[20_000]
    assert tree.nodes[20_000] is node and tree.nodes.made == 1 and node.is_leaf and node.parent == 9_999
    assert node.branch == tree.nodes[9_999].split.branch_labels()[1]


def test_a_tree_of_made_nodes_is_the_same_tree():
    """The store's nodes equal what a full walk makes, and the tree predicts the same from either."""
    model = engine.load_model(H.xgboost_big_tree(2_047))
    tree = model.trees[0]
    assert sum(1 for _ in tree.walk()) == tree.nodes.made == 2_047
    whole = type(tree)(tuple(tree.nodes), tree.schema, tree.criterion)      # the same nodes in a tuple
    X = np.random.default_rng(1).normal(size=(200, 10))
    X[::5, 2] = np.nan
    assert np.array_equal(whole.predict(X), tree.predict(X)) and whole == tree
    assert whole.feature_importances == tree.feature_importances and str(whole.rules()) == str(tree.rules())


def test_an_xgboost_file_past_the_node_limit_is_refused_before_it_is_parsed(monkeypatch):
    monkeypatch.setattr(xgboost_json, "MAX_NODES", 1000)
    monkeypatch.setattr(xgboost_json.json, "loads", lambda *a, **k: pytest.fail("the file was parsed"))
    with pytest.raises(DataError, match="more than 1,000 nodes"):
        engine.load_model(H.xgboost_big_tree(1_003))


def test_declared_nodes_are_counted_on_the_bytes():
    data = H.xgboost_big_tree(1_023)
    assert xgboost_json.declared_nodes(data) == 1_023
    assert xgboost_json.declared_nodes(b'{"left_children": [ ], "x": {"left_children" : [1, -1,-1]}}') == 3


def test_a_lightgbm_file_past_the_node_limit_is_refused_before_it_is_split_into_trees(monkeypatch):
    head = ("tree\nversion=v4\nnum_class=1\nnum_tree_per_iteration=1\nlabel_index=0\nmax_feature_idx=0\n"
            "objective=regression\nfeature_names=x\nfeature_infos=[0:1]\n\n")
    block = ("Tree={t}\nnum_leaves=2\nnum_cat=0\nsplit_feature=0\nsplit_gain=1\nthreshold=0.5\ndecision_type=2\n"
             "left_child=-1\nright_child=-2\nleaf_value=0.1 -0.1\n\n")
    text = head + "".join(block.format(t=t) for t in range(400)) + "end of trees\n"
    assert lightgbm_text.declared_nodes(text.encode()) == 1_200
    assert engine.load_model(text.encode()).n_trees == 400
    monkeypatch.setattr(lightgbm_text, "MAX_NODES", 1000)
    monkeypatch.setattr(lightgbm_text, "_sections", lambda *a: pytest.fail("the file was split into trees"))
    with pytest.raises(DataError, match="more than 1,000 nodes"):
        engine.load_model(text.encode())
