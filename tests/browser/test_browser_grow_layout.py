"""End to end in Chromium: the node inspector sits beside the diagram (ui/grow/layout.py), so a click on a box
shows its gain table without scrolling, at 1366x768 and 1920x1080."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_browser_tree import DIAGRAM, boxes, click_box

expect.set_options(timeout=60_000)

SIDE = ".st-key-grow_side"
MAIN = "() => Math.round(document.querySelector('[data-testid=stMain]').scrollTop)"


@pytest.mark.parametrize("width, height", [(1366, 768), (1920, 1080)])
def test_a_click_on_a_box_shows_its_gain_table_beside_the_diagram(browser, app_url, wait_idle, screenshot,
                                                                  width, height):
    context = browser.new_context(viewport={"width": width, "height": height}, base_url=app_url)
    context.set_default_timeout(60_000)
    page = context.new_page()
    try:
        page.goto("/grow?data=iris&cfg=alg:cart&step=14")  # 11 nodes, a diagram taller than the window
        wait_idle(page)
        diagram = page.locator(DIAGRAM).first
        expect(diagram).to_be_visible()
        # the user scrolls to the tree (its top under the app's header) and clicks a box low in it
        page.locator("[data-testid=stMain]").evaluate(
            "(m, top) => m.scrollBy(0, top - 70)", diagram.bounding_box()["y"])
        page.wait_for_timeout(300)
        target = next(i for i, b in enumerate(boxes(page)["boxes"]) if b["id"] == 6 and b["kind"] == 0)
        scrolled = page.evaluate(MAIN)
        click_box(page, target)
        wait_idle(page)
        expect(page.locator(f"{SIDE} input[role='combobox']").first).to_have_value("#6 · sepal_length <= 6.05")
        table = page.locator(f"{SIDE} [data-testid='stDataFrame']").first
        expect(table).to_be_visible()
        box, tree_box = table.bounding_box(), diagram.bounding_box()
        assert box["x"] >= tree_box["x"] + tree_box["width"] - 5, (box, tree_box)  # beside, not below
        assert 0 <= box["y"] and box["y"] + 100 <= height, box  # in the window: no scrolling needed
        assert abs(page.evaluate(MAIN) - scrolled) < 80  # and the click did not scroll the page away
        screenshot(page, f"grow-inspector-beside-diagram-{width}", full_page=False)
    finally:
        context.close()
