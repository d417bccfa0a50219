"""End to end in Chromium: the interactive tree diagram, planned in pixels so that every drawn box is readable.

Click a box and the inspector follows; presenter view on ski grown to the end at 1366x768 and 1920x1080
(every box's text >= 16 px inside its box, thresholds on the branches); a ~7,000-node tree from a noisy
20,000-row CSV uploaded through the file chooser (first view readable, a deep leaf reached by clicks on
"+k" boxes, each click timed and printed); the user's zoom kept across a Step, read from the plot's axis
ranges. Screenshots go to test-artifacts/screenshots/.
"""

from __future__ import annotations

import re
import time

import numpy as np
import pytest
from playwright.sync_api import expect

from engine.viz.tree_figure import MODEBAR_PX

expect.set_options(timeout=60_000)  # a shared 2-core machine: the app may take a while to answer

DIAGRAM = ".st-key-grow_diagram [data-testid='stPlotlyChart']"

# The boxes of one chart, read from Plotly's own SVG: each trace group carries its trace (d3 data), so the
# "nodes" bars and the "box text" points are found by name; point i of both is box i.
BOXES_JS = """(sel) => {
  const gd = document.querySelector(sel + ' .js-plotly-plot');
  const traces = [...gd.querySelectorAll('g.trace')];
  const named = n => traces.find(t => t.__data__ && t.__data__[0] && t.__data__[0].trace
                                      && t.__data__[0].trace.name === n);
  const all = (n, q) => { const t = named(n); return t ? [...t.querySelectorAll(q)] : []; };  // a lone root: no branches
  const bars = all('nodes', 'g.point path');
  const texts = all('box text', 'g.textpoint text');
  const labels = all('branches', 'g.textpoint text');
  const custom = named('nodes').__data__[0].trace.customdata;
  const box = r => ({left: r.left, right: r.right, top: r.top, bottom: r.bottom});
  return {
    boxes: texts.map((t, i) => ({text: t.textContent, id: custom[i][0], kind: custom[i][1],
      font: parseFloat(getComputedStyle(t).fontSize), t: box(t.getBoundingClientRect()),
      b: box(bars[i].getBoundingClientRect())})),
    labels: labels.map(t => ({text: t.textContent, font: parseFloat(getComputedStyle(t).fontSize),
                              t: box(t.getBoundingClientRect())})),
    nbars: bars.length};
}"""


def boxes(page, sel: str = DIAGRAM) -> dict:
    page.locator(sel).first.locator(".js-plotly-plot").wait_for()
    return page.evaluate(BOXES_JS, sel)


def assert_readable(view: dict, min_font: float) -> None:
    """Every box has text of at least ``min_font`` px lying inside its box; branch labels do not overlap."""
    assert view["boxes"] and len(view["boxes"]) == view["nbars"]
    for b in view["boxes"]:
        t, r = b["t"], b["b"]
        assert b["text"].strip(), b
        assert b["font"] >= min_font, b
        assert t["left"] >= r["left"] - 1 and t["right"] <= r["right"] + 1, ("text wider than its box", b)
        assert t["top"] >= r["top"] - 1 and t["bottom"] <= r["bottom"] + 1, ("text taller than its box", b)
    labels = sorted(view["labels"], key=lambda lb: (round(lb["t"]["top"]), lb["t"]["left"]))
    for a, b in zip(labels, labels[1:]):
        if round(a["t"]["top"]) == round(b["t"]["top"]):
            assert a["t"]["right"] <= b["t"]["left"] + 1, ("branch labels overlap", a, b)
    assert all(lb["font"] >= min_font for lb in view["labels"])


def node_boxes(page):
    """The diagram's node boxes: the points of its first bar trace (the ``nodes`` trace)."""
    return page.locator(DIAGRAM).first.locator("g.barlayer g.trace.bars").first.locator("g.point")


def node_ids(page) -> list[int]:
    """Node ids of the boxes (their customdata), in the order of the boxes."""
    return [int(b["id"]) for b in boxes(page)["boxes"]]


def click_box(page, i: int) -> None:
    shape = node_boxes(page).nth(i).locator("path").first
    shape.scroll_into_view_if_needed()
    box = shape.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.35)
    page.mouse.down()
    page.mouse.up()


def inspector_value(page) -> str:
    return page.locator("[class*='st-key-_w_grow_node_'] input[role='combobox']").first.input_value()


def noise_csv(n: int, seed: int = 0) -> str:
    """Four numeric features and a random label: a fully grown tree has thousands of nodes."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 4)).round(4)
    label = rng.choice(["a", "b", "c"], size=n)
    return "f0,f1,f2,f3,label\n" + "\n".join(",".join(map(str, r)) + f",{c}" for r, c in zip(x, label)) + "\n"


def open_grow(page, wait_idle, query: str) -> None:
    page.goto(f"/grow?{query}")
    wait_idle(page)
    expect(page.locator(DIAGRAM).first).to_be_visible()


def viewport(browser, app_url, width: int, height: int):
    context = browser.new_context(viewport={"width": width, "height": height}, base_url=app_url)
    context.set_default_timeout(60_000)
    return context, context.new_page()


def test_click_a_node_and_the_inspector_follows(page, wait_idle, screenshot):
    open_grow(page, wait_idle, "data=iris&cfg=alg:cart&step=3")
    expect(node_boxes(page)).to_have_count(7)
    ids = node_ids(page)
    assert sorted(ids) == list(range(7))
    screenshot(page, "tree-7-nodes", full_page=False)
    texts = [b["text"] for b in boxes(page)["boxes"]]
    target = next(i for i, t in enumerate(texts) if "open" in t and "0.000" not in t)  # an impure open leaf
    assert not inspector_value(page).startswith(f"#{ids[target]} ")
    click_box(page, target)
    wait_idle(page)
    expect(page.locator("[class*='st-key-_w_grow_node_'] input[role='combobox']").first).to_have_value(
        re.compile(rf"^#{ids[target]} · "))
    # it is an open leaf: the inspector offers to split it now
    split_now = page.get_by_role("button", name=f"Split node {ids[target]} now")
    expect(split_now).to_be_visible()
    split_now.click()
    wait_idle(page)
    expect(node_boxes(page)).to_have_count(9)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot(page, "tree-split-now", full_page=False)


@pytest.mark.parametrize("width, height", [(1366, 768), (1920, 1080)])
def test_presenter_view_on_ski_grown_to_the_end(browser, app_url, wait_idle, screenshot, width, height):
    import engine

    context, page = viewport(browser, app_url, width, height)
    try:
        open_grow(page, wait_idle, "data=ski&cfg=alg:cart&presenter=true")
        page.locator(".st-key-_w_grow_grow button").click()
        wait_idle(page)
        status = page.get_by_text(re.compile(r"Step \d+ · \d+ nodes .* finished")).first
        expect(status).to_be_visible()
        n_nodes = int(re.search(r"· (\d+) nodes", status.inner_text()).group(1))
        page.wait_for_timeout(500)
        view = boxes(page)
        assert_readable(view, 16)
        # the whole tree: every node its own box, no "+k nodes" fold; no page title above it
        assert [b["kind"] for b in view["boxes"]] == [0] * n_nodes, (n_nodes, len(view["boxes"]))
        expect(page.locator("h1")).to_have_count(0)
        fonts = sorted({b["font"] for b in view["boxes"]})
        print(f"presenter {width}x{height}: {len(view['boxes'])} boxes, fonts {fonts} px, "
              f"labels {[lb['text'] for lb in view['labels']]}")
        # thresholds on the branches; each box names its test's feature (inner node) or its class (leaf)
        assert any(re.match(r"[≤>] \d", lb["text"]) for lb in view["labels"])
        ski = engine.load_sample("ski")
        feats, classes = set(ski.feature_names), {str(c) for c in ski.schema.classes}
        named = [any(f in b["text"] for f in feats) for b in view["boxes"] if b["kind"] == 0]
        assert sum(named) == (n_nodes - 1) // 2  # a binary tree: every inner node shows its test
        assert all(n or any(c in b["text"] for c in classes)
                   for n, b in zip(named, [b for b in view["boxes"] if b["kind"] == 0]))
        # the tree is the first thing on the screen, and all of it fits the window without scrolling
        top = min(b["b"]["top"] for b in view["boxes"])
        bottom = max(b["b"]["bottom"] for b in view["boxes"])
        box_h = sorted(b["b"]["bottom"] - b["b"]["top"] for b in view["boxes"])[0]
        print(f"presenter {width}x{height}: boxes from {top:.0f} to {bottom:.0f} px, box height {box_h:.0f} px")
        screenshot(page, f"tree-presenter-ski-{width}x{height}", full_page=False)
        # one compact header row above (~167 px), and the mode bar's strip (it sat on the root box)
        assert top < 190 + MODEBAR_PX and bottom <= height, (top, bottom)
        assert page.evaluate("window.scrollY") == 0
    finally:
        context.close()


def test_a_7000_node_tree_from_an_upload_is_readable_and_explored(browser, app_url, wait_idle, screenshot, tmp_path):
    context, page = viewport(browser, app_url, 1366, 768)
    try:
        page.goto("/data")
        wait_idle(page)
        csv = tmp_path / "noise.csv"
        csv.write_text(noise_csv(20_000), encoding="utf-8")
        page.locator(".st-key-_w_data_upload [data-testid='stFileUploaderDropzoneInput']").set_input_files(str(csv))
        expect(page.get_by_text(re.compile(r"Loaded .*noise"))).to_be_visible()
        wait_idle(page)
        page.get_by_test_id("stSidebar").get_by_role("link", name="Grow").click()
        wait_idle(page)
        page.locator(".st-key-_w_grow_grow button").click()
        wait_idle(page, timeout=300_000)
        status = page.get_by_text(re.compile(r"Step \d+ · [\d,]+ nodes")).first.text_content()
        n_nodes = int(re.search(r"· ([\d,]+) nodes", status).group(1).replace(",", ""))
        assert n_nodes > 5000
        view = boxes(page)
        assert_readable(view, 11)
        assert any(b["kind"] == 1 for b in view["boxes"]) and any(b["id"] == 0 for b in view["boxes"])
        page.locator(DIAGRAM).first.scroll_into_view_if_needed()
        screenshot(page, "tree-7000-nodes-first-view", full_page=False)
        # click "+k" boxes down the biggest subtree until a leaf is drawn below the focus; time each click
        timings, focus = [], 0
        for _ in range(40):
            view = boxes(page)
            folds = [(int(re.sub(r"\D", "", b["text"]) or 0), i) for i, b in enumerate(view["boxes"]) if b["kind"] == 1]
            if not folds:
                break
            _, i = max(folds)
            target = view["boxes"][i]["id"]
            start = time.perf_counter()
            click_box(page, i)
            page.wait_for_function("(args) => { const gd = document.querySelector(args[0] + ' .js-plotly-plot');"
                                   " return gd && gd.layout.meta && gd.layout.meta.focus === args[1]; }",
                                   arg=[DIAGRAM, target], timeout=60_000)
            timings.append(time.perf_counter() - start)
            wait_idle(page)
            focus = target
            assert_readable(boxes(page), 11)
        print(f"7,000-node tree ({n_nodes:,} nodes): {len(timings)} clicks to the bottom, click -> next view "
              f"{', '.join(f'{t:.2f}' for t in timings)} s (median {np.median(timings):.2f} s)")
        assert timings and focus != 0
        screenshot(page, "tree-7000-nodes-deep", full_page=False)
        expect(page.get_by_test_id("stException")).to_have_count(0)
    finally:
        context.close()


def test_zoom_is_kept_across_a_step(browser, app_url, wait_idle, screenshot):
    context, page = viewport(browser, app_url, 1366, 768)
    ranges = ("() => { const gd = document.querySelector(\"" + DIAGRAM + " .js-plotly-plot\");"
              " return [gd._fullLayout.xaxis.range, gd._fullLayout.yaxis.range, gd.layout.meta.boxes]; }")
    try:
        open_grow(page, wait_idle, "data=iris&cfg=alg:cart&step=2")
        chart = page.locator(DIAGRAM).first
        chart.scroll_into_view_if_needed()
        chart.hover()
        before_zoom = page.evaluate(ranges)
        box = chart.bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + 120)
        page.keyboard.down("Control")  # the wheel zooms a chart only with a modifier or after a click (ui/wheel.py)
        page.mouse.wheel(0, -400)  # zoom in (the chart's scrollZoom) around the upper part of the tree
        page.keyboard.up("Control")
        page.wait_for_timeout(800)
        zoomed = page.evaluate(ranges)
        assert zoomed[0] != before_zoom[0], "the wheel did not zoom"
        page.locator(".st-key-_w_grow_step button").click()
        wait_idle(page)
        page.wait_for_function("(n) => document.querySelector(\"" + DIAGRAM + " .js-plotly-plot\").layout.meta.boxes > n",
                               arg=zoomed[2])
        page.wait_for_timeout(500)
        after = page.evaluate(ranges)
        print(f"zoom: before {before_zoom[:2]}, zoomed {zoomed[:2]}, after a Step {after[:2]}")
        assert after[2] > zoomed[2], "the Step drew a bigger tree"
        assert np.allclose(after[0], zoomed[0]) and np.allclose(after[1], zoomed[1])
        screenshot(page, "tree-zoom-kept-after-step", full_page=False)
    finally:
        context.close()


def test_tree_figure_draws_without_colour_warnings(browser, tmp_path):
    """Plotly draws the diagram (open nodes hatched, a regression tree too) without warning in the
    console: with the hatching in "replace" mode it read the per-box fill list as one colour and logged
    'Invalid color specifier' for every node trace."""
    import engine
    from engine.viz.tree_figure import tree_figure
    grown = engine.Grower(engine.load_sample("play_tennis"), engine.TreeConfig(algorithm="id3"))
    grown.step()
    reg = engine.fit_tree(engine.load_sample("diabetes"), engine.TreeConfig(max_depth=2))
    figures = {"open": tree_figure(grown.tree, open_nodes=set(grown.tree.nodes[0].children)),
               "regression": tree_figure(reg)}
    for name, fig in figures.items():
        path = tmp_path / f"{name}.html"
        fig.write_html(path, include_plotlyjs=True)
        page = browser.new_page()
        messages = []
        page.on("console", lambda msg: messages.append(msg.text))
        page.goto(path.as_uri())
        page.wait_for_selector(".main-svg")
        page.wait_for_timeout(300)
        page.close()
        assert not [m for m in messages if "color" in m.lower()], (name, messages)
