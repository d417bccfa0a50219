"""End to end in Chromium: upload a CSV, step the tree on the Grow page, see the splits and the regions."""

from __future__ import annotations

import re

import numpy as np
from playwright.sync_api import expect

expect.set_options(timeout=30_000)  # a shared 2-core machine: the app may take a while to answer


def boxes_csv(n: int = 80, seed: int = 3) -> str:
    """Two numeric features; the class is set by two boxes, so CART needs several threshold splits."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 10, n).round(2)
    y = rng.uniform(0, 100, n).round(1)
    label = np.where(((x < 4) & (y > 30)) | ((x > 7) & (y < 60)), "blue", "orange")
    return "width,height,colour\n" + "\n".join(f"{a},{b},{c}" for a, b, c in zip(x, y, label)) + "\n"


DIAGRAM = ".st-key-grow_tree .js-plotly-plot"  # the interactive tree diagram


def diagram_boxes(page):
    """The diagram's node boxes (the points of its first bar trace, the ``nodes`` trace)."""
    return page.locator(DIAGRAM).first.locator("g.barlayer g.trace.bars").first.locator("g.point")


def split_nodes(page) -> int:
    """Threshold splits in the rendered diagram: branch labels (the ``branches`` text trace) holding ``≤``."""
    from tests.browser.test_browser_tree import boxes
    return sum(1 for label in boxes(page, ".st-key-grow_tree")["labels"] if label["text"].startswith("≤"))


def test_upload_then_step_three_times(page, wait_idle, screenshot, tmp_path):
    page.goto("/")
    wait_idle(page)
    page.get_by_test_id("stSidebar").get_by_role("link", name="Data").click()
    wait_idle(page)
    csv = tmp_path / "boxes.csv"
    csv.write_text(boxes_csv(), encoding="utf-8")
    page.locator(".st-key-_w_data_upload [data-testid='stFileUploaderDropzoneInput']").set_input_files(str(csv))
    expect(page.get_by_text(re.compile(r"Loaded .*boxes"))).to_be_visible()
    wait_idle(page)

    page.get_by_test_id("stSidebar").get_by_role("link", name="Grow").click()
    wait_idle(page)
    expect(page.get_by_role("heading", name="Grow", exact=True)).to_be_visible()
    expect(page.get_by_text(re.compile(r"Step 0 · 1 node ·"))).to_be_visible()
    expect(diagram_boxes(page)).to_have_count(1)
    assert split_nodes(page) == 0
    screenshot(page, "grow-start", full_page=False)

    step = page.locator(".st-key-_w_grow_step button")
    for i in range(1, 4):
        step.click()
        wait_idle(page)
        expect(page.get_by_text(re.compile(rf"Step {i} · {2 * i + 1} nodes"))).to_be_visible()
    expect(diagram_boxes(page)).to_have_count(7)
    assert split_nodes(page) == 3
    regions = page.get_by_test_id("stPlotlyChart")
    expect(regions.first).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    screenshot(page, "grow-three-steps", full_page=False)

    # clicking a point selects the leaf it falls in for the node inspector
    point = page.locator(".st-key-grow_regions g.points path.point").nth(7)
    point.scroll_into_view_if_needed()  # the region plot is under the diagram (the inspector beside it)
    box = point.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.up()
    wait_idle(page)
    node_box = page.locator("[class*='st-key-_w_grow_node_'] input[role='combobox']").first
    expect(node_box).to_have_value(re.compile(r"#\d+ · open leaf"))

    # undo takes one split back; the step log tab lists the two that remain
    page.locator(".st-key-_w_grow_undo button").click()
    wait_idle(page)
    expect(page.get_by_text(re.compile(r"Step 2 · 5 nodes"))).to_be_visible()
    expect(diagram_boxes(page)).to_have_count(5)
    assert split_nodes(page) == 2
    page.get_by_role("tab", name="Step log").click()
    wait_idle(page)
    expect(page.get_by_role("tabpanel", name="Step log").get_by_test_id("stDataFrame")).to_be_visible()
    screenshot(page, "grow-step-log", full_page=False)


def test_shared_link_opens_ski_at_step_three(page, wait_idle, screenshot):
    page.goto("/grow?data=ski&cfg=alg:cart&step=3")
    wait_idle(page)
    expect(page.get_by_text(re.compile(r"Step 3 · 7 nodes · 4 leaves"))).to_be_visible()
    expect(page.get_by_test_id("stSidebar").get_by_text("Data set · ski")).to_be_visible()
    expect(diagram_boxes(page)).to_have_count(7)
    assert split_nodes(page) == 3
    expect(page.get_by_test_id("stPlotlyChart").first).to_be_visible()
    assert "step=3" in page.url and "data=ski" in page.url
    page.locator(".st-key-_w_grow_step button").click()
    wait_idle(page)
    expect(page.get_by_text(re.compile(r"Step 4 · "))).to_be_visible()
    page.wait_for_function("() => window.location.search.includes('step=4')")
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot(page, "grow-ski-link", full_page=False)
