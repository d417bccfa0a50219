"""The interactive tree: the tidy layout's invariants on random trees, and one clickable box per node."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import engine
from engine.viz import palette
from engine.viz.tree_figure import FOLD, NODE, SELECTED, box_outline, clicked_node, tree_figure
from engine.viz.tree_layout import plan_view, tidy_layout


# ------------------------------------------------------------------------------------------ layout
@st.composite
def shapes(draw, max_nodes: int = 60):
    """A random rooted ordered tree as child lists (node 0 the root; each new node under an earlier one)."""
    n = draw(st.integers(1, max_nodes))
    parents = [draw(st.integers(0, i - 1)) for i in range(1, n)]
    children = [[] for _ in range(n)]
    for i, p in enumerate(parents, start=1):
        children[p].append(i)
    return children


def mirrored(children):
    return [list(reversed(c)) for c in children]


@settings(max_examples=300, deadline=None)
@given(shapes())
def test_layout_no_overlap_children_below_ordered_and_centred(children):
    x, depth = tidy_layout(children)
    for d in np.unique(depth):
        row = np.sort(x[depth == d])
        assert np.all(np.diff(row) >= 1 - 1e-9), "two boxes of one level closer than their width"
    for v, kids in enumerate(children):
        for c in kids:
            assert depth[c] == depth[v] + 1
        assert all(x[a] < x[b] for a, b in zip(kids, kids[1:])), "children out of branch order"
        if kids:
            assert x[v] == pytest.approx((x[kids[0]] + x[kids[-1]]) / 2), "parent not centred"
    assert x.min() == 0


@settings(max_examples=300, deadline=None)
@given(shapes())
def test_layout_of_a_mirrored_tree_is_the_mirror_image(children):
    x, depth = tidy_layout(children)
    xm, dm = tidy_layout(mirrored(children))
    assert np.array_equal(depth, dm)
    assert np.allclose(xm, x.max() - x)


def test_layout_is_linear_enough_for_deep_chains():
    chain = [[i + 1] for i in range(4999)] + [[]]  # 5,000 levels: no recursion limit
    x, depth = tidy_layout(chain)
    assert depth.max() == 4999 and np.all(x == 0)


# ------------------------------------------------------------------------------------------ figure
@pytest.fixture(scope="module")
def iris_tree():
    return engine.fit_tree(engine.load_sample("iris"), engine.TreeConfig(algorithm="cart"))


def trace(fig, name):
    return next(t for t in fig.data if t.name == name)


def test_one_box_per_node_carrying_its_id(iris_tree):
    fig = tree_figure(iris_tree, width=1200, height=900)  # room for the whole tree
    nodes = trace(fig, "nodes")
    ids = sorted(int(i) for i, kind in np.asarray(nodes.customdata))
    assert ids == sorted(n.id for n in iris_tree.walk())
    assert {int(k) for _, k in np.asarray(nodes.customdata)} == {NODE}
    assert len(nodes.x) == iris_tree.n_nodes


def test_fill_outline_and_hover_follow_the_palette(iris_tree):
    leaf = iris_tree.leaves[0]
    fig = tree_figure(iris_tree, highlight=0, selected=leaf.id, width=1200, height=900)
    nodes = trace(fig, "nodes")
    at = {int(i): k for k, (i, _) in enumerate(np.asarray(nodes.customdata))}
    assert nodes.marker.color[at[leaf.id]] == palette.node_fill(leaf.value, iris_tree.schema.classes)
    assert nodes.marker.line.color[at[0]] == palette.HIGHLIGHT
    assert nodes.marker.line.width[at[leaf.id]] > nodes.marker.line.width[at[iris_tree.leaves[1].id]]
    hover = nodes.hovertext[at[0]]
    assert f"n = {iris_tree.root.n_node_samples}" in hover and "gini = 0.667" in hover
    assert iris_tree.root.split.describe() in hover.replace("&lt;", "<")
    assert fig.layout.uniformtext.mode is None and fig.layout.uirevision == "tree"  # nothing is hidden


def test_the_selected_outline_lies_on_the_box_edge(iris_tree):
    """box_outline: the rectangle the Grow page draws round the selected box onto a chart it does not send again
    has the box's bar edges (x +- width / 2, base .. base + height) and the figure's selected colour."""
    plan = plan_view(iris_tree, width=1200, height=900)
    fig = tree_figure(iris_tree, plan=plan)
    nodes = trace(fig, "nodes")
    leaf = iris_tree.leaves[0].id
    k = [int(i) for i, _ in np.asarray(nodes.customdata)].index(leaf)
    (shape,) = box_outline(plan, leaf)
    x, base, h, w = float(nodes.x[k]), float(nodes.base[k]), float(nodes.y[k]), float(nodes.width)
    assert (shape["x0"], shape["x1"], shape["y0"], shape["y1"]) == pytest.approx((x - w / 2, x + w / 2, base, base + h),
                                                                                abs=0.01)
    assert shape["line"]["color"] == SELECTED and shape["type"] == "rect"
    small = plan_view(iris_tree, width=200, height=120)  # a few levels: the deepest nodes are not drawn
    hidden = max(iris_tree.walk(), key=lambda n: n.depth).id
    assert hidden not in small.drawn and box_outline(small, hidden) == [] and box_outline(plan, None) == []
    # a click does not dim the other boxes' text: the text traces name a selected text colour
    assert trace(fig, "box text").selected.textfont.color and trace(fig, "branches").selected.textfont.color


def test_path_folding_and_marking(iris_tree):
    leaf = max(iris_tree.leaves, key=lambda n: n.depth)
    path, node = [], leaf
    while node is not None:
        path.append(node.id)
        node = None if node.parent is None else iris_tree.node(node.parent)
    fig = tree_figure(iris_tree, path=path, width=300, height=400)  # too small for the whole tree
    nodes = trace(fig, "nodes")
    rows = [tuple(int(v) for v in r) for r in np.asarray(nodes.customdata)]
    folds = [i for i, (nid, kind) in enumerate(rows) if kind == FOLD]
    text = trace(fig, "box text").text
    hidden = sum(int(text[i].split()[0][1:].replace(",", "")) for i in folds)  # "+k nodes" shows its count
    assert folds and hidden + len(rows) - len(folds) == iris_tree.n_nodes
    on_path = [i for i in folds if rows[i][0] in path]
    assert on_path and all(nodes.marker.line.color[i] == palette.PATH for i in on_path)
    target = iris_tree.root.children[1]
    grey = trace(tree_figure(iris_tree, marked=[target], marked_label="cut", width=1200, height=900), "nodes")
    greyed = {int(i) for (i, _), c in zip(np.asarray(grey.customdata), grey.marker.color) if c == "#EEEEEE"}
    assert greyed == set(iris_tree.subtree_ids(target))


def test_user_text_is_escaped():
    import pandas as pd
    frame = pd.DataFrame({"<b>x</b>": [1, 2, 3, 4, 5, 6], "y": ["<i>a", "<i>a", "<i>a", "b$", "b$", "b$"]})
    tree = engine.fit_tree(engine.Dataset.from_frame(frame, target="y"), engine.TreeConfig())
    payload = json.dumps([list(t.text or []) + list(t.hovertext or []) for t in tree_figure(tree).data
                          if t.type == "bar" or t.mode == "text"])
    assert "<b>" not in payload and "<i>" not in payload and "&lt;b&gt;" in payload


def test_axes_do_not_depend_on_the_tree(iris_tree):
    """Plotly keeps a user's zoom across reruns only while the figure's own ranges stay the same: a Step
    that widens or deepens the tree must not change them (the old figure set them from the tree's width)."""
    small = engine.fit_tree(engine.load_sample("iris"), engine.TreeConfig(algorithm="cart", max_depth=1))
    a, b = tree_figure(small, width=500, height=600), tree_figure(iris_tree, width=500, height=600)
    for axis in ("xaxis", "yaxis"):
        assert tuple(a.layout[axis].range) == tuple(b.layout[axis].range)
    assert a.layout.height == b.layout.height and a.layout.xaxis.minallowed == 0 and a.layout.xaxis.maxallowed == 500


@pytest.mark.parametrize("event, expected", [
    ({"selection": {"points": [{"customdata": {"0": 4, "1": 0}}]}}, (4, NODE)),
    ({"selection": {"points": [{"customdata": [7, 1]}]}}, (7, FOLD)),
    ({"selection": {"points": [{"curve_number": 0}, {"customdata": 3}]}}, (3, NODE)),
    ({"selection": {"points": []}}, None),
    ({"selection": {"points": [{"customdata": ["x", 0]}]}}, None),
    (None, None),
])
def test_clicked_node_reads_streamlits_selection(event, expected):
    assert clicked_node(event) == expected


def test_class_share_bars_keep_the_biggest_classes_and_lump_the_rest():
    """An id-like target of many classes draws at most SHARE_CLASSES share segments (it drew one trace per
    class: 1,000 traces and 1.4 s for a 1,000-class target), the last one "other classes"; each box's
    segments still add up to its whole bar."""
    import pandas as pd
    from engine.viz.tree_figure import SHARE_CLASSES
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x1": rng.normal(size=600), "x2": rng.normal(size=600),
                          "cls": [f"k{i % 40}" for i in range(600)]})
    grower = engine.Grower(engine.Dataset.from_frame(frame, target="cls"), engine.TreeConfig(algorithm="cart"))
    for _ in range(4):
        grower.step()
    fig = tree_figure(grower.tree)
    shares = [t for t in fig.data if t.type == "bar" and t.name and (t.name.startswith("class ") or t.name == "other classes")]
    assert len(shares) == SHARE_CLASSES and shares[-1].name == "other classes"
    total = np.sum([np.asarray(t.width, dtype=float) for t in shares], axis=0)
    assert np.allclose(total, total[0]) and total[0] > 0
    iris = engine.Grower(engine.load_sample("iris"), engine.TreeConfig(algorithm="cart")).grow().tree
    names = [t.name for t in tree_figure(iris).data if t.name and t.name.startswith("class")]
    assert names == ["class setosa", "class versicolor", "class virginica"]
