"""End to end in Chromium: the interactive tree diagram. Click a box and the inspector follows; read a
30-node tree at 1366x768; screenshots of 7-, ~150- and ~3,000-node trees (test-artifacts/screenshots/)."""

from __future__ import annotations

import re

import numpy as np
from playwright.sync_api import expect

expect.set_options(timeout=60_000)  # a shared 2-core machine: the app may take a while to answer

DIAGRAM = ".st-key-grow_diagram [data-testid='stPlotlyChart']"


def node_boxes(page):
    """The diagram's node boxes: the points of its first bar trace (the ``nodes`` trace)."""
    return page.locator(DIAGRAM).first.locator("g.barlayer g.trace.bars").first.locator("g.point")


def node_ids(page) -> list[int]:
    """Node ids of the boxes, read from their labels (``#id ...``)."""
    return [int(re.match(r"#(\d+)", t).group(1)) for t in node_boxes(page).all_text_contents()]


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


def test_click_a_node_and_the_inspector_follows(page, wait_idle, screenshot):
    open_grow(page, wait_idle, "data=iris&cfg=alg:cart&step=3")
    expect(node_boxes(page)).to_have_count(7)
    ids = node_ids(page)
    assert sorted(ids) == list(range(7))
    screenshot(page, "tree-7-nodes", full_page=False)
    texts = node_boxes(page).all_text_contents()
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


def test_a_30_node_tree_is_readable_at_1366x768(browser, app_url, wait_idle, screenshot):
    context = browser.new_context(viewport={"width": 1366, "height": 768}, base_url=app_url)
    context.set_default_timeout(60_000)
    page = context.new_page()
    try:
        open_grow(page, wait_idle, "data=breast_cancer&cfg=alg:cart,leaves:16")
        page.locator(".st-key-_w_grow_grow button").click()
        wait_idle(page)
        boxes = node_boxes(page)
        expect(boxes).to_have_count(31)
        # every box shows its text (Plotly hides a label that does not fit its box at this zoom)
        shown = boxes.locator("text.bartext").evaluate_all(
            "els => els.filter(e => getComputedStyle(e).display !== 'none' && e.textContent.trim()).length")
        assert shown == 31
        page.locator(DIAGRAM).first.scroll_into_view_if_needed()
        screenshot(page, "tree-31-nodes-1366x768", full_page=False)
    finally:
        context.close()


def test_screenshots_of_150_and_3000_node_trees(page, wait_idle, screenshot, tmp_path):
    open_grow(page, wait_idle, "data=noisy_moons&cfg=alg:cart,leaves:75")
    page.locator(".st-key-_w_grow_grow button").click()
    wait_idle(page)
    expect(page.get_by_text(re.compile(r"Step \d+ · 149 nodes"))).to_be_visible()
    assert node_boxes(page).count() < 149  # folded below a depth at first
    # every level: the slider's last stop
    slider = page.get_by_role("slider", name="Show levels down to depth")
    slider.focus()
    slider.press("End")
    wait_idle(page)
    expect(node_boxes(page)).to_have_count(149)
    page.locator(DIAGRAM).first.scroll_into_view_if_needed()
    screenshot(page, "tree-149-nodes", full_page=False)

    page.goto("/")
    wait_idle(page)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Data").click()
    wait_idle(page)
    csv = tmp_path / "noise.csv"
    csv.write_text(noise_csv(4000), encoding="utf-8")
    page.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(str(csv))
    expect(page.get_by_text(re.compile(r"Loaded .*noise"))).to_be_visible()
    wait_idle(page)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Grow").click()
    wait_idle(page)
    page.locator(".st-key-_w_grow_grow button").click()
    wait_idle(page, timeout=180_000)
    status = page.get_by_text(re.compile(r"Step \d+ · [\d,]+ nodes")).first.text_content()
    n_nodes = int(re.search(r"· ([\d,]+) nodes", status).group(1).replace(",", ""))
    assert n_nodes > 2000
    # folded to a readable number of boxes; a "+k nodes" box opens its subtree when clicked
    n_boxes = node_boxes(page).count()
    assert n_boxes < 300
    page.locator(DIAGRAM).first.scroll_into_view_if_needed()
    screenshot(page, "tree-3000-nodes-folded", full_page=False)
    fold = next(i for i, t in enumerate(node_boxes(page).all_text_contents()) if re.match(r"\+[\d,]+ nodes", t))
    click_box(page, fold)
    wait_idle(page)
    expect(node_boxes(page)).not_to_have_count(n_boxes)
    expect(page.get_by_test_id("stException")).to_have_count(0)


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
