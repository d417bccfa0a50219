"""The view planner: every drawn box carries its whole text at the font, the view fits its budget, the
"+k nodes" counts add up, a 7,000-node tree is explored by focus clicks, branch labels say what they test."""

from __future__ import annotations

import html

import numpy as np
import pandas as pd
import pytest

import engine
from engine.viz.tree_figure import FOLD, MODEBAR_PX, NODE, tree_figure
from engine.viz.tree_labels import branch_label, fit, text_px
from engine.viz.tree_layout import plan_view, subtree_sizes, trail_to


def noisy_tree(rows: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.normal(size=(rows, 4)).round(4), columns=["f0", "f1", "f2", "f3"])
    frame["label"] = rng.choice(["a", "b", "c"], size=rows)
    return engine.fit_tree(engine.Dataset.from_frame(frame, target="label"), engine.TreeConfig(algorithm="cart"))


@pytest.fixture(scope="module")
def big_tree():
    tree = noisy_tree(8000)
    assert 5000 < tree.n_nodes < 9000
    return tree


@pytest.fixture(scope="module")
def wine_tree():
    return engine.fit_tree(engine.load_sample("wine"), engine.TreeConfig(algorithm="cart"))


def trace(fig, name):
    return next(t for t in fig.data if t.name == name)


def check_readable(tree, fig, plan):
    """Each box's lines fit inside it at the font, each branch label fits the space between two boxes,
    and every box lies inside the figure's axes (the planned width and height)."""
    size, font = plan.size, plan.size.font
    text = trace(fig, "box text")
    assert text.textfont.size == font
    for i, t in enumerate(text.text):
        lines = [html.unescape(s) for s in t.split("<br>")]
        assert lines and all(lines), "a box without text"
        assert len(lines) * size.line_h <= size.box_h - size.strip_h
        assert max(text_px(s, font) for s in lines) <= size.box_w - 2 * size.pad, lines
    for s in trace(fig, "branches").text:
        assert text_px(html.unescape(s), font) <= size.pitch
    nodes = trace(fig, "nodes")
    x, base, h = np.asarray(nodes.x), np.asarray(nodes.base), np.asarray(nodes.y)
    assert (x - size.box_w / 2).min() >= 0 and (x + size.box_w / 2).max() <= fig.layout.xaxis.range[1]
    assert base.min() >= fig.layout.yaxis.range[0] and (base + h).max() <= 0
    assert fig.layout.uniformtext.mode is None


@pytest.mark.parametrize("big, width, height", [(False, 420, 640), (False, 900, 640), (True, 660, 520),
                                                (True, 1100, 520)])
def test_every_box_of_a_wine_view_carries_its_text(wine_tree, big, width, height):
    fig = tree_figure(wine_tree, big=big, width=width, height=height)
    plan = plan_view(wine_tree, width=width, height=height - MODEBAR_PX, font=16 if big else 11, compact=big)
    check_readable(wine_tree, fig, plan)
    assert (16 if big else 11) <= trace(fig, "box text").textfont.size
    assert fig.layout.xaxis.range[1] == width and fig.layout.height == height  # fits the budget
    assert fig.layout.margin.t == MODEBAR_PX  # the mode bar's strip: no box under it


def test_long_feature_names_are_wrapped_not_blank(wine_tree):
    fig = tree_figure(wine_tree, big=True, width=1100, height=900)
    texts = " ".join(html.unescape(t).replace("<br>", " ") for t in trace(fig, "box text").text)
    for name in {n.split.feature for n in wine_tree.walk() if not n.is_leaf} & {"color_intensity", "proline"}:
        head = name.split("_")[0]
        assert head in texts


@pytest.mark.parametrize("focus_at", [0, 1, 3])
def test_counts_add_up_to_the_focus_subtree(big_tree, focus_at):
    focus = [n.id for n in big_tree.walk() if not n.is_leaf and n.depth == focus_at][0]
    plan = plan_view(big_tree, focus=focus, width=900, height=640)
    drawn = [nid for nid, k in plan.items if k == NODE]
    assert len(drawn) == len(set(drawn)) and plan.items[0] == (focus, NODE)
    assert len(drawn) + sum(plan.hidden) == subtree_sizes(big_tree)[focus] == sum(1 for _ in big_tree.walk(focus))
    cols = int(round((plan.x.max() - plan.x.min()) / plan.size.pitch)) + 1
    assert cols * plan.size.pitch - plan.size.gap_x <= 900 and (plan.level.max() + 1) * plan.size.level_h <= 640
    assert plan.trail[0] == 0 and plan.trail[-1] == focus


def test_a_7000_node_view_is_readable_and_any_leaf_is_a_few_clicks_away(big_tree):
    plan = plan_view(big_tree, width=900, height=640, compact=True)
    fig = tree_figure(big_tree, plan=plan, compact=True)
    check_readable(big_tree, fig, plan)
    assert 10 <= len(plan.items) <= 260
    deepest = max(big_tree.leaves, key=lambda n: n.depth)
    path = set(plan_trail := [deepest.id])
    node = deepest
    while node.parent is not None:
        node = big_tree.nodes[node.parent]
        plan_trail.append(node.id)
        path.add(node.id)
    clicks, focus = 0, 0
    while deepest.id not in plan.drawn:  # click the "+k" box on the leaf's path, as a user would
        fold = next(nid for nid, k in plan.items if k == FOLD and nid in path)
        plan, clicks = plan_view(big_tree, focus=fold, width=900, height=640, compact=True), clicks + 1
        assert plan.focus == fold
    levels = int(plan.level.max())
    assert clicks <= deepest.depth // max(levels - 1, 1) + 1, (clicks, deepest.depth, levels)


def test_the_focus_always_opens_even_in_a_tiny_budget(wine_tree):
    plan = plan_view(wine_tree, width=50, height=50)
    assert plan.expanded == {0} and plan.width >= 2 * plan.size.box_w  # wider than asked rather than unreadable


def test_branch_labels_say_what_they_test():
    tips = pd.DataFrame({"day": ["Thur", "Fri", "Sat", "Sun", "Mon"] * 40, "total": np.arange(200.0) % 17})
    tips["big"] = np.where(tips["day"].isin(["Thur", "Fri"]) ^ (tips["total"] > 12), "yes", "no")
    tree = engine.fit_tree(engine.Dataset.from_frame(tips, target="big"), engine.TreeConfig(algorithm="cart"))
    labels = {branch_label(tree, n)[0] for n in tree.walk() if n.parent is not None}
    full = {branch_label(tree, n)[1] for n in tree.walk() if n.parent is not None}
    assert not labels & {"in", "not in"}
    assert any(s.startswith("∈ {") for s in labels) and any(s.startswith("∉ {") for s in labels)
    assert any(s.startswith("≤ ") for s in labels) and any(s.startswith("> ") for s in labels)
    subset = next(n for n in tree.walk() if n.split is not None and n.split.kind == "subset").split
    side = min(len(subset.categories), 5 - len(subset.categories))  # the shorter side of the 5 days
    assert any(s.count(",") == side - 1 for s in labels if s.startswith(("∈ {", "∉ {")))
    rest = [c for c in tree.schema.categories[subset.feature_index] if c not in subset.categories]
    shown = min(subset.categories, rest, key=len)
    assert any(all(c in s for c in shown) for s in full)  # the hover lists every value of the side it names


def test_fit_cuts_with_an_ellipsis_to_the_width():
    assert fit("alcalinity_of_ash", 1000, 11) == "alcalinity_of_ash"
    cut = fit("alcalinity_of_ash", 60, 11)
    assert cut.endswith("…") and text_px(cut, 11) <= 60 and len(cut) < len("alcalinity_of_ash")
    assert text_px("WWW", 11) > text_px("iii", 11)  # measured per character, not counted


def test_a_preferred_path_is_opened_first(big_tree):
    """A selected node in a small subtree is drawn from the root when its path is preferred; biggest-first
    alone leaves it inside a "+k nodes" box."""
    plain = plan_view(big_tree, width=900, height=640)
    hidden = [n for n in big_tree.walk() if n.depth <= 5 and n.id not in plain.drawn]
    assert hidden
    target = hidden[0]
    preferred = plan_view(big_tree, width=900, height=640, prefer=trail_to(big_tree, target.id))
    assert target.id in preferred.drawn and preferred.focus == 0
    assert sum(1 for _, k in preferred.items if k == 0) + sum(preferred.hidden) == subtree_sizes(big_tree)[0]


def test_a_roomy_plan_widens_its_boxes_to_whole_names_only_where_there_is_room(wine_tree):
    """Presenter view at 1920 px: "flavanoi…" and "color_ intensity" were cut/wrapped with room to spare."""
    kw = dict(width=1618, height=900, font=16, compact=True)
    base, roomy = plan_view(wine_tree, **kw), plan_view(wine_tree, roomy=True, **kw)
    assert base.size.chars == 9 and roomy.size.chars > base.size.chars
    assert base.drawn <= roomy.drawn and roomy.width <= kw["width"] and roomy.height <= kw["height"]
    fig = tree_figure(wine_tree, plan=roomy, big=True)
    texts = [html.unescape(t) for t in trace(fig, "box text").text]
    assert any("flavanoids" in t for t in texts), texts
    assert not any("flavanoids" in t for t in trace(tree_figure(wine_tree, plan=base, big=True), "box text").text)
    # a narrow view with folds: wider boxes never cost a node the plain plan draws, nor the budget
    narrow = dict(kw, width=400)
    tight, plain = plan_view(wine_tree, roomy=True, **narrow), plan_view(wine_tree, **narrow)
    assert tight.drawn == plain.drawn and tight.width <= 400 and plain.hidden == tight.hidden
