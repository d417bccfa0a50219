"""DOT export and palette: an exact toy diagram, escaping of hostile text, highlight/path/folding/marking."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pydot
import pytest

import engine
from engine.viz import palette
from engine.viz.dot import dot_source, dot_to_svg, fold_depth_for, quote, to_dot

HEADER = """digraph tree {
rankdir=TB;
nodesep=0.2;
ranksep=0.35;
bgcolor=white;
fontname=Helvetica;
node [shape=box, style="rounded,filled", fontname=Helvetica, fontsize=11, color="#555555", penwidth=1.2, margin="0.12,0.06"];
edge [fontname=Helvetica, fontsize=10, color="#555555", arrowsize=0.6];
"""

# Mitchell's Table 3.2 tree (ID3), checked by eye against the book's Figure 3.1.
PLAY_TENNIS_ID3 = HEADER + r"""n0 [label="#0  Outlook = ?\nn = 14\nNo 5, Yes 9\nentropy = 0.940", fillcolor="#F4F4F4"];
n1 [label="#1  class = Yes\nn = 4\nNo 0, Yes 4\nentropy = 0.000\nstop: all rows have the\nsame label", fillcolor="#D1AB54"];
n2 [label="#2  Wind = ?\nn = 5\nNo 2, Yes 3\nentropy = 0.971", fillcolor="#F4F4F4"];
n4 [label="#4  class = No\nn = 2\nNo 2, Yes 0\nentropy = 0.000\nstop: all rows have the\nsame label", fillcolor="#54A1CB"];
n5 [label="#5  class = Yes\nn = 3\nNo 0, Yes 3\nentropy = 0.000\nstop: all rows have the\nsame label", fillcolor="#D1AB54"];
n3 [label="#3  Humidity = ?\nn = 5\nNo 3, Yes 2\nentropy = 0.971", fillcolor="#F4F4F4"];
n6 [label="#6  class = No\nn = 3\nNo 3, Yes 0\nentropy = 0.000\nstop: all rows have the\nsame label", fillcolor="#54A1CB"];
n7 [label="#7  class = Yes\nn = 2\nNo 0, Yes 2\nentropy = 0.000\nstop: all rows have the\nsame label", fillcolor="#D1AB54"];
n0 -> n1 [label="Overcast"];
n0 -> n2 [label="Rain"];
n2 -> n4 [label="Strong"];
n2 -> n5 [label="Weak"];
n0 -> n3 [label="Sunny"];
n3 -> n6 [label="High"];
n3 -> n7 [label="Normal"];
}
"""

FIRST_STEP = HEADER + r"""n0 [label="#0  Outlook = ?\nn = 14\nNo 5, Yes 9\nentropy = 0.940", fillcolor="#F4F4F4", color="#000000", penwidth=3.5];
n1 [label="#1  open\nmajority = Yes\nn = 4\nNo 0, Yes 4\nentropy = 0.000", fillcolor="#FFFFFF", style="rounded,filled,dashed"];
n2 [label="#2  open\nmajority = Yes\nn = 5\nNo 2, Yes 3\nentropy = 0.971", fillcolor="#FFFFFF", style="rounded,filled,dashed"];
n3 [label="#3  open\nmajority = No\nn = 5\nNo 3, Yes 2\nentropy = 0.971", fillcolor="#FFFFFF", style="rounded,filled,dashed"];
n0 -> n1 [label="Overcast"];
n0 -> n2 [label="Rain"];
n0 -> n3 [label="Sunny"];
}
"""


def decode(label: str) -> list[str]:
    """What Graphviz shows for a quoted label: DOT string unescaping, then label escapes, as lines."""
    assert label.startswith('"') and label.endswith('"')
    out, lines, i, s = [], [], 0, label[1:-1]
    while i < len(s):
        ch = s[i]
        if ch == "\\":
            nxt = s[i + 1]
            if nxt == "n":
                lines.append("".join(out))
                out = []
            elif nxt in '\\"':
                out.append(nxt)
            else:  # any other escape (\N, \G, \l ...) would be interpreted by Graphviz
                raise AssertionError(f"uninterpreted escape \\{nxt} in {label}")
            i += 2
            continue
        assert ch != '"', f"unescaped quote in {label}"
        if ch == "&":  # Graphviz decodes HTML entities in labels: a literal & must be &amp;
            assert s.startswith("&amp;", i), f"bare & in {label}"
            out.append("&")
            i += 5
            continue
        out.append(ch)
        i += 1
    lines.append("".join(out))
    return lines


def parse(src: str) -> pydot.Dot:
    graphs = pydot.graph_from_dot_data(src)
    assert graphs and len(graphs) == 1
    return graphs[0]


def node_attrs(graph: pydot.Dot) -> dict[str, dict]:
    return {n.get_name(): n.get_attributes() for n in graph.get_nodes() if n.get_name() not in ("node", "edge", "graph")}


@pytest.fixture(scope="module")
def tennis():
    return engine.load_sample("play_tennis")


@pytest.fixture(scope="module")
def tennis_tree(tennis):
    return engine.fit_tree(tennis, engine.TreeConfig(algorithm="id3"))


@pytest.fixture(scope="module")
def iris_tree():
    return engine.fit_tree(engine.load_sample("iris"), engine.TreeConfig(algorithm="cart"))


# ----------------------------------------------------------------------------------------- exactness
def test_play_tennis_dot_is_exact(tennis_tree):
    assert dot_source(tennis_tree) == PLAY_TENNIS_ID3
    assert parse(PLAY_TENNIS_ID3) is not None


def test_first_step_shows_open_leaves_and_highlight(tennis):
    g = engine.Grower(tennis, engine.TreeConfig(algorithm="id3"))
    rec = g.step()
    assert dot_source(g.tree, highlight=rec.node_id) == FIRST_STEP


def test_labels_decode_to_the_node_numbers(tennis_tree):
    attrs = node_attrs(parse(dot_source(tennis_tree)))
    for node in tennis_tree.walk():
        lines = decode(attrs[f"n{node.id}"]["label"])
        assert f"n = {node.n_node_samples}" in lines
        assert f"entropy = {node.impurity:.3f}" in lines
        if node.is_leaf:
            assert lines[0] == f"#{node.id}  class = {node.prediction}"


def test_compact_and_without_ids(tennis_tree):
    attrs = node_attrs(parse(dot_source(tennis_tree, compact=True, show_ids=False)))
    assert decode(attrs["n0"]["label"]) == ["Outlook = ?", "n = 14"]
    assert decode(attrs["n4"]["label"]) == ["class = No", "n = 2"]
    plain = node_attrs(parse(dot_source(tennis_tree, show_stop_reason=False)))
    assert not any(line.startswith("stop:") for line in decode(plain["n1"]["label"]))


# ----------------------------------------------------------------------------------------- escaping
HOSTILE_FEATURE = 'we"ird\\N <b>{x|y}\nnode'
HOSTILE_VALUES = ['a"b', "graph", "<td>&amp;", "a\\l", "}{|", "\\"]
HOSTILE_CLASSES = ['x"}', "no\\", "->"]


@pytest.fixture(scope="module")
def hostile():
    rng = np.random.default_rng(0)
    vals = rng.choice(HOSTILE_VALUES, 120)
    cls = np.array([HOSTILE_CLASSES[HOSTILE_VALUES.index(v) % 3] for v in vals], dtype=object)
    cls[:6] = HOSTILE_CLASSES[0]  # some noise so the tree has several levels
    frame = pd.DataFrame({HOSTILE_FEATURE: vals, "strict digraph": rng.normal(size=120), "y": cls})
    return engine.Dataset.from_frame(frame, target="y")


@pytest.mark.parametrize("algorithm", ["id3", "cart"])
def test_hostile_text_is_escaped_and_shown_literally(hostile, algorithm):
    tree = engine.fit_tree(hostile, engine.TreeConfig(algorithm=algorithm))
    src = dot_source(tree, max_text=200)
    graph = parse(src)
    names = {n.get_name() for n in graph.get_nodes()} - {"node", "edge", "graph"}
    assert all(re.fullmatch(r"n\d+(_fold)?", name) for name in names)
    assert names == {f"n{n.id}" for n in tree.walk()}
    attrs = node_attrs(graph)
    assert tree.root.split.feature == HOSTILE_FEATURE  # the hostile column is really used
    for node in tree.internal_nodes:
        expected = f"#{node.id}  " + node.split.describe().replace("\n", " ")
        assert decode(attrs[f"n{node.id}"]["label"])[0] == expected
    for leaf in tree.leaves:
        assert decode(attrs[f"n{leaf.id}"]["label"])[0] == f"#{leaf.id}  class = {leaf.prediction}"
    edge_labels = {decode(e.get_attributes()["label"])[0] for e in graph.get_edges()}
    assert edge_labels == {n.branch for n in tree.walk() if n.parent is not None}


def test_quote_handles_every_special_character():
    for text in ['a"b', "\\", "x\\", '\\"', "<b>", "{|}", "graph", "line\nbreak", "tab\there", "é ✓", "&lt;&amp;", "a & b"]:
        q = quote(text)
        expected = text.replace("\n", " ").replace("\t", " ")
        assert decode(q) == [expected]
        g = parse(f"digraph t {{ n0 [label={q}]; }}")
        assert decode(g.get_node("n0")[0].get_label()) == [expected]


# ----------------------------------------------------------------------------------------- emphasis
def test_highlight_and_path(iris_tree):
    leaf = iris_tree.leaves[-1]
    path = [nid for nid, _ in iris_tree.decision_path(
        pd.DataFrame([iris_tree_row(iris_tree, leaf.id)]))]
    assert path[-1] == leaf.id
    graph = parse(dot_source(iris_tree, highlight=0, path=path))
    attrs = node_attrs(graph)
    for nid in path:
        assert attrs[f"n{nid}"]["color"] == f'"{palette.PATH}"'
        assert attrs[f"n{nid}"]["penwidth"] == "3"
    others = [n.id for n in iris_tree.walk() if n.id not in path]
    assert all("penwidth" not in attrs[f"n{i}"] for i in others)
    thick = {(e.get_source(), e.get_destination()) for e in graph.get_edges()
             if e.get_attributes().get("color") == f'"{palette.PATH}"'}
    assert thick == {(f"n{a}", f"n{b}") for a, b in zip(path, path[1:])}
    hl = node_attrs(parse(dot_source(iris_tree, highlight=2)))
    assert hl["n2"]["color"] == f'"{palette.HIGHLIGHT}"' and hl["n2"]["penwidth"] == "3.5"


def iris_tree_row(tree, leaf_id):
    """A training row of iris that lands in ``leaf_id``."""
    ds = engine.load_sample("iris")
    rows = np.flatnonzero(tree.apply(ds.frame) == leaf_id)
    return ds.frame.iloc[rows[0]]


def test_max_depth_folds_deeper_nodes(iris_tree):
    attrs = node_attrs(parse(dot_source(iris_tree, max_depth=1)))
    shown = {n.id for n in iris_tree.walk() if n.depth <= 1}
    folds = {n.id for n in iris_tree.walk() if n.depth == 1 and not n.is_leaf}
    assert set(attrs) == {f"n{i}" for i in shown} | {f"n{i}_fold" for i in folds}
    for i in folds:
        hidden = len(iris_tree.subtree_ids(i)) - 1
        assert decode(attrs[f"n{i}_fold"]["label"]) == [f"+{hidden} nodes"]
    total = len(shown) + sum(len(iris_tree.subtree_ids(i)) - 1 for i in folds)
    assert total == iris_tree.n_nodes


def test_collapsed_folds_a_subtree_and_path_into_it_is_marked(iris_tree):
    inner = [n.id for n in iris_tree.internal_nodes if n.id != 0]
    target = inner[0]
    deep = iris_tree.subtree_ids(target)[-1]
    path = [0] + [a for a in ancestors(iris_tree, deep) if a != 0] + [deep]
    attrs = node_attrs(parse(dot_source(iris_tree, collapsed=[target], path=path)))
    assert f"n{target}" in attrs and f"n{target}_fold" in attrs
    assert not any(f"n{i}" in attrs for i in iris_tree.subtree_ids(target)[1:])
    assert attrs[f"n{target}_fold"]["color"] == f'"{palette.PATH}"'


def ancestors(tree, nid):
    out = []
    while nid is not None:
        out.append(nid)
        nid = tree.node(nid).parent
    return out[::-1]


def test_marked_subtree_is_greyed_with_label(iris_tree):
    target = iris_tree.internal_nodes[1].id
    sub = set(iris_tree.subtree_ids(target))
    attrs = node_attrs(parse(dot_source(iris_tree, marked=[target], marked_label='cut "here"')))
    for n in iris_tree.walk():
        dashed = "dashed" in attrs[f"n{n.id}"].get("style", "")
        assert (n.id in sub) == (attrs[f"n{n.id}"].get("color") == f'"{palette.MUTED}"')
        if n.id in sub:
            assert dashed
    assert decode(attrs[f"n{target}"]["label"])[-1] == 'cut "here"'
    assert all(decode(attrs[f"n{i}"]["label"])[-1] != 'cut "here"' for i in sub - {target})


def test_regression_tree_dot():
    ds = engine.load_sample("diabetes")
    tree = engine.fit_tree(ds, engine.TreeConfig(max_depth=2))
    attrs = node_attrs(parse(dot_source(tree)))
    root = decode(attrs["n0"]["label"])
    assert root[0].startswith("#0  ") and "<=" in root[0]
    assert any(line.startswith("mean = ") for line in root)
    assert root[-1] == f"variance = {tree.root.impurity:.3f}"
    leaf = tree.leaves[0]
    assert decode(attrs[f"n{leaf.id}"]["label"])[0] == f"#{leaf.id}  predict {leaf.prediction:.4g}"
    fills = {attrs[f"n{leaf.id}"]["fillcolor"] for leaf in tree.leaves}
    assert len(fills) > 1  # coloured by value


def test_fold_depth_for_bounds_boxes(iris_tree):
    assert fold_depth_for(iris_tree, max_nodes=1000) is None
    d = fold_depth_for(iris_tree, max_nodes=8)
    n_boxes = len(node_attrs(parse(dot_source(iris_tree, max_depth=d))))
    assert n_boxes <= 8
    assert len(node_attrs(parse(dot_source(iris_tree, max_depth=d + 1)))) > 8


def test_dot_to_svg_without_binary_returns_none(tennis_tree, monkeypatch):
    monkeypatch.setattr("engine.viz.dot.shutil.which", lambda name: None)
    assert dot_to_svg(tennis_tree) is None
    assert dot_to_svg(to_dot(tennis_tree)) is None


# ----------------------------------------------------------------------------------------- palette
def test_palette_colours_are_distinct_and_deterministic():
    classes = [f"c{i}" for i in range(20)]
    colors = palette.class_colors(classes)
    assert list(colors.values())[:8] == list(palette.OKABE_ITO)
    assert len(set(colors.values())) == 20
    assert palette.class_colors(classes) == colors
    assert all(re.fullmatch(r"#[0-9A-Fa-f]{6}", c) for c in colors.values())
    symbols = palette.class_symbols(classes[:10])
    assert len(set(symbols.values())) == 10 and "star" not in symbols.values()


def test_purity_tint_is_monotone():
    amounts = [palette.purity_tint(p, 3) for p in np.linspace(1 / 3, 1, 9)]
    assert amounts == sorted(amounts) and amounts[0] == pytest.approx(0.12)
    assert palette.tint("#0072B2", 0) == "#FFFFFF" and palette.tint("#0072B2", 1) == "#0072B2"
    assert palette.value_color(0, 0, 1) == palette.SEQUENTIAL[0].upper()
    assert palette.value_color(1, 0, 1) == palette.SEQUENTIAL[-1].upper()
