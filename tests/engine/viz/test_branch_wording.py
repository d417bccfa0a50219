"""Branch labels, box counts and rules that say something true (issue 36 items 5 and 8).

- a categorical branch names the shorter side of its set, with a count and the values that fit when the
  list is long (gapminder's 142 countries read "∈ {Afghani…" on every branch before);
- thresholds keep the digits that separate them from the neighbouring data values (16.795 read "≤ 16.8",
  which sends the data value 16.8 the wrong way);
- a rule says each feature once (tightest bounds, intersected sets) and quotes values with commas;
- a tree read with covers gets boxes wide enough for every ``w=cover`` (it was cut "w=77.…").
"""

from __future__ import annotations

import csv
import dataclasses
import re

import numpy as np
import pandas as pd
import plotly.express as px
import pytest

import engine
from engine.split.records import Split, format_number
from engine.split.wording import quote, shorter_side
from engine.tree.paths import merged_conditions, rules, values_at
from engine.viz.tree_figure import tree_figure
from engine.viz.tree_labels import box_lines, box_size, branch_label, count_text, fit, short_branch, text_px


def _branches(fig):
    return next(t for t in fig.data if t.name == "branches")


@pytest.fixture(scope="module")
def gapminder_tree():
    df = px.data.gapminder()[["country", "continent", "lifeExp", "pop", "gdpPercap"]]
    df = df.assign(rich=np.where(df["gdpPercap"] > 5000, "rich", "poor")).drop(columns="gdpPercap")
    return engine.fit_tree(engine.Dataset.from_frame(df, target="rich"), engine.TreeConfig(max_depth=4))


def test_gapminder_branches_name_a_side_with_its_count_not_a_cut_list(gapminder_tree):
    fig = tree_figure(gapminder_tree, width=640)
    trace = _branches(fig)
    subset = [s for s in trace.text if s.startswith(("∈", "∉"))]
    assert subset, list(trace.text)
    for s in subset:
        # the whole set, or its count (and values that fit): never a list cut in the middle of a name
        assert s.endswith("}") or " values" in s, s
        assert not s.startswith(("∈ {Afghani", "∉ {Afghani")), s
    assert any(" values" in s for s in subset)
    # labels on one level never overlap each other and stay inside the figure
    width = fig.layout.meta["plan_width"]
    spans = {}
    for x, y, text in zip(trace.x, trace.y, trace.text):
        w = text_px(text.replace("&gt;", ">").replace("&lt;", "<").replace("&amp;", "&"), 11)
        assert x - w / 2 >= -0.5 and x + w / 2 <= width + 0.5, text
        spans.setdefault(round(y, 3), []).append((x - w / 2, x + w / 2, text))
    for row in spans.values():
        row.sort()
        for (_, right, a), (left, _, b) in zip(row, row[1:]):
            assert right <= left, (a, b)


def test_a_side_is_the_shorter_one_among_the_values_left_and_the_hover_lists_it_whole(gapminder_tree):
    tree = gapminder_tree
    j = tree.schema.index("country")
    sides = []
    for node in tree.walk():
        split = node.split
        if split is None or split.kind != "subset":
            continue
        reach = values_at(tree, node.id, j)  # the countries a row at this node can still be from
        positive, side = shorter_side([v for v in reach if v in split.categories], reach)
        assert len(side) <= len(reach) - len(side)
        sides.append(len(side))
        for c, kid in enumerate(node.children):
            short, full = branch_label(tree, tree.nodes[kid])
            inside = positive == (c == 0)
            assert full.startswith(f"country {'∈' if inside else '∉'} {{"), full
            assert all(quote(v) in full for v in side)
            assert short == full.removeprefix("country ")  # no room given: the whole set
    assert sides and min(sides) < 20  # deeper tests read by the few countries still there, not 67 of 142
    # values that hold a comma are quoted, so the list cannot be misread
    assert any('"Hong Kong, China"' in branch_label(tree, n)[1] or '"Korea, Rep."' in branch_label(tree, n)[1]
               for n in tree.walk() if n.parent is not None)


def test_tips_short_sets_are_whole_or_counted():
    tips = px.data.tips()
    tree = engine.fit_tree(engine.Dataset.from_frame(tips, target="time"), engine.TreeConfig(max_depth=3))
    for width in (360, 640):
        for s in _branches(tree_figure(tree, width=width)).text:
            if s.startswith(("∈", "∉", "=", "≠")):
                assert not s.endswith("…") or " values: " in s, s  # never "∈ {Fri, Sat,…"


def test_a_long_set_in_a_small_room_becomes_a_count_and_the_values_that_fit(gapminder_tree):
    tree = gapminder_tree
    kid = tree.nodes[tree.root.children[0]]
    whole, _ = branch_label(tree, kid)
    n = len(next(csv.reader([whole[3:-1]], skipinitialspace=True, quotechar='"', escapechar="\\",
                            doublequote=False)))
    assert n == len(shorter_side(tree.root.split.categories, tree.schema.categories[0])[1])
    assert branch_label(tree, kid, room=60, font=11)[0] == f"{whole[0]} {n} values"
    some = branch_label(tree, kid, room=300, font=11)[0]
    assert some.startswith(f"{whole[0]} {n} values: ") and some.endswith(", …") and text_px(some, 11) <= 300


def test_thresholds_are_not_rounded_onto_a_data_value():
    # 16.79 | 16.80 -> 16.795; -0.2657 | -0.2656 -> -0.26565: four digits put the threshold on a data value
    for lo, hi, shown in ((16.79, 16.8, "16.795"), (-0.2657, -0.2656, "-0.26565")):
        df = pd.DataFrame({"x": [lo] * 5 + [hi] * 5 + [hi + 1] * 5, "y": ["a"] * 5 + ["b"] * 10})
        tree = engine.fit_tree(engine.Dataset.from_frame(df, target="y"), engine.TreeConfig(max_depth=1))
        left, right = (tree.nodes[k] for k in tree.root.children)
        assert branch_label(tree, left)[0] == f"≤ {shown}"
        assert branch_label(tree, right)[0] == f"> {shown}"
    assert short_branch("<= 1.04755") == "≤ 1.04755"
    assert format_number(12345678.5) == "12345678.5"  # was "1.23457e+07"
    assert format_number(853.1007099999998) == "853.10071"  # float noise dropped
    assert format_number((853.10071 + 853.10072) / 2) == "853.100715"
    assert format_number(72.5) == "72.5" and format_number(3.0) == "3" and format_number(1e-05) == "1e-05"


def test_descriptions_quote_values_with_commas_and_quotes():
    s = Split(feature="country", feature_index=0, kind="subset", categories=("Hong Kong, China", "Japan"),
              category_codes=(0, 1))
    assert s.describe() == 'country in {"Hong Kong, China", Japan}'
    assert s.condition(1) == 'country not in {"Hong Kong, China", Japan}'
    e = Split(feature="name", feature_index=0, kind="equals", categories=('say "hi"',), category_codes=(0,))
    assert e.describe() == 'name = "say \\"hi\\""'
    assert quote("Peru") == "Peru" and quote("") == '""' and quote(" x") == '" x"'


def test_rules_say_each_feature_once_with_the_tightest_bounds_and_the_values_left():
    def t(x, c):
        return (Split(feature="x", feature_index=0, kind="threshold", threshold=x), c)

    def sub(vals, c):
        return (Split(feature="d", feature_index=1, kind="subset", categories=vals, category_codes=()), c)

    schema = engine.FeatureSchema(("x", "d"), ("numeric", "categorical"),
                                  ((), ("Mon", "Tue", "Wed", "Thu", "Fri")), "y", "classification", ("a", "b"))
    steps = (t(7.0, 0), sub(("Mon", "Tue", "Wed"), 0), t(3.0, 1), sub(("Mon",), 1), t(6.5, 0))
    assert merged_conditions(steps, schema) == ("3 < x <= 6.5", "d in {Tue, Wed}")
    steps = (sub(("Mon",), 1), sub(("Tue",), 1), sub(("Wed",), 1), t(2.5, 1))
    assert merged_conditions(steps, schema) == ("d in {Thu, Fri}", "x > 2.5")
    assert merged_conditions((sub(("Mon",), 1),), schema) == ("d != Mon",)
    assert merged_conditions((sub(("Mon", "Tue"), 1),), None) == ("d not in {Mon, Tue}",)  # no values known


def _holds(cond: str, frame: pd.DataFrame) -> np.ndarray:
    """Rows of ``frame`` that pass one rule condition (the forms :func:`merged_conditions` writes)."""
    m = re.fullmatch(r"(\S+) < (\S+) <= (\S+)", cond)
    if m:
        col = frame[m[2]].to_numpy(float)
        return (col > float(m[1])) & (col <= float(m[3]))
    name, op, rest = re.fullmatch(r"(\S+) (<=|>|=|!=|in|not in) (.*)", cond).groups()
    col = frame[name]
    if op in ("<=", ">"):
        return (col.to_numpy(float) <= float(rest)) if op == "<=" else (col.to_numpy(float) > float(rest))
    if op in ("=", "!="):
        values = next(csv.reader([rest], quotechar='"', escapechar="\\", doublequote=False))
    else:
        values = next(csv.reader([rest[1:-1]], skipinitialspace=True, quotechar='"', escapechar="\\",
                                 doublequote=False))
    inside = col.astype(str).isin(values).to_numpy()
    return inside if op in ("=", "in") else ~inside


def test_merged_rules_of_a_real_tree_name_each_feature_once_and_pick_the_leafs_rows(gapminder_tree):
    tree = gapminder_tree
    frame = px.data.gapminder()[["country", "continent", "lifeExp", "pop"]]
    leaf_of = tree.apply(frame)
    merged = 0
    for rule in rules(tree):
        names = [re.sub(r"^\S+ < ", "", c).split(" ")[0] for c in rule.conditions]
        assert len(names) == len(set(names)), rule.conditions
        merged += tree.nodes[rule.leaf].depth - len(rule.conditions)
        mask = np.logical_and.reduce([_holds(c, frame) for c in rule.conditions])
        assert np.array_equal(mask, leaf_of == rule.leaf), rule.text()[:200]
    assert merged > 0  # the tree tests country (or lifeExp) twice on some path: said once


def test_a_cover_box_is_wide_enough_for_every_cover():
    df = pd.DataFrame({"x": np.arange(40.0), "y": ["a", "b"] * 20})
    tree = engine.fit_tree(engine.Dataset.from_frame(df, target="y"), engine.TreeConfig(max_depth=3))
    covers = {n.id: (100.0 if n.id == 0 else 77.53 + n.id) for n in tree.nodes}
    imported = dataclasses.replace(tree, nodes=tuple(n.evolve(n_node_samples=0, weight=covers[n.id])
                                                     for n in tree.nodes))
    assert count_text(imported.nodes[1]).startswith("w=7")
    size = box_size(imported, font=11)
    inner = size.box_w - 2 * size.pad
    for node in imported.nodes:
        first = box_lines(imported, node, compact=False, show_ids=True, open_ids=set())[0]
        assert fit(first, inner, 11) == first, first  # never "w=77.…"
