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


# ------------------------------------------------------------------ the tree first (issue 36 item 8)
def _context(browser, app_url, width, height):
    context = browser.new_context(viewport={"width": width, "height": height}, base_url=app_url)
    context.set_default_timeout(60_000)
    return context, context.new_page()


def test_the_tree_starts_in_the_upper_half_of_a_1366x768_window(browser, app_url, wait_idle, screenshot):
    """Title, switches, settings and buttons filled two thirds of the window: the root box sat at the bottom edge
    (the diagram began at ~500 px)."""
    context, page = _context(browser, app_url, 1366, 768)
    try:
        page.goto("/grow?data=iris&cfg=alg:cart&step=3")
        wait_idle(page)
        expect(page.locator(DIAGRAM).first).to_be_visible()
        root = next(b for b in boxes(page)["boxes"] if b["id"] == 0)["b"]
        screenshot(page, "grow-tree-first-1366", full_page=False)
        assert page.evaluate(MAIN) == 0
        assert page.locator(DIAGRAM).first.bounding_box()["y"] <= 360
        assert root["top"] <= 768 * 0.5 and root["bottom"] <= 768, root  # the root box in the upper half
        expect(page.get_by_role("heading", name="Grow")).to_be_visible()
        expect(page.locator(".st-key-_w_grow_step button")).to_be_in_viewport()
    finally:
        context.close()


# the chart's mode bar and the part of each box the plot shows (a zoomed box is clipped to the plot area)
MODEBAR_JS = """(sel) => {
  const gd = document.querySelector(sel + ' .js-plotly-plot');
  const bar = gd.querySelector('.modebar').getBoundingClientRect();
  const g = gd.getBoundingClientRect(), s = gd._fullLayout._size;
  const area = {left: g.left + s.l, right: g.left + s.l + s.w, top: g.top + s.t, bottom: g.top + s.t + s.h};
  const boxes = [...gd.querySelectorAll('g.barlayer g.trace.bars g.point path')].map(p => p.getBoundingClientRect())
    .map(r => ({left: Math.max(r.left, area.left), right: Math.min(r.right, area.right),
                top: Math.max(r.top, area.top), bottom: Math.min(r.bottom, area.bottom)}))
    .filter(r => r.right > r.left && r.bottom > r.top);
  return {bar: {left: bar.left, right: bar.right, top: bar.top, bottom: bar.bottom}, boxes};
}"""


def _covered(view) -> list:
    bar = view["bar"]
    return [b for b in view["boxes"] if b["left"] < bar["right"] and b["right"] > bar["left"]
            and b["top"] < bar["bottom"] and b["bottom"] > bar["top"]]


@pytest.mark.parametrize("width, height", [(1366, 768), (1920, 1080)])
def test_the_mode_bar_covers_no_box_in_a_zoomed_diagram(browser, app_url, wait_idle, screenshot, width, height):
    context, page = _context(browser, app_url, width, height)
    try:
        page.goto("/grow?data=iris&cfg=alg:cart&step=3")
        wait_idle(page)
        chart = page.locator(DIAGRAM).first
        chart.scroll_into_view_if_needed()
        chart.hover()
        views = [page.evaluate(MODEBAR_JS, DIAGRAM)]
        for _ in range(2):  # zoom in twice (around the centre): the root box moves up towards the mode bar
            chart.locator(".modebar-btn[data-title='Zoom in']").click()
            page.wait_for_timeout(400)
            chart.hover()
            views.append(page.evaluate(MODEBAR_JS, DIAGRAM))
        screenshot(page, f"grow-modebar-zoomed-{width}", full_page=False)
        assert all(v["boxes"] for v in views)
        assert [_covered(v) for v in views] == [[]] * len(views), views
    finally:
        context.close()



@pytest.mark.parametrize("width, height", [(1366, 768), (1920, 1080)])
def test_every_side_tab_and_download_label_shows_whole_in_the_inspector_column(browser, app_url, wait_idle,
                                                                              screenshot, width, height):
    """At 1366 px the five tabs beside the diagram overflowed their column: "Why this predi…" was cut and "Export &
    share" hidden behind Streamlit's scroll arrow; on Export & share, six columns of download buttons in the same
    column showed their icons alone. The tabs wrap now, and the buttons in a row that wraps."""
    context, page = _context(browser, app_url, width, height)
    try:
        page.goto("/grow?data=iris&cfg=alg:cart&step=3")
        wait_idle(page)
        side = page.locator(SIDE)
        column = side.bounding_box()
        tabs = side.get_by_role("tab")
        expect(tabs).to_have_count(5)
        for tab in tabs.all():
            box = tab.bounding_box()
            assert column["x"] - 1 <= box["x"] and box["x"] + box["width"] <= column["x"] + column["width"] + 1, \
                (tab.inner_text(), box, column)
        expect(page.get_by_test_id("stTabsScrollRight")).to_have_count(0)
        side.get_by_role("tab", name="Export & share").click()
        wait_idle(page)
        buttons = side.locator(".st-key-grow_downloads [data-testid='stDownloadButton'] button")
        expect(buttons.first).to_be_visible()
        assert buttons.count() >= 5
        for button in buttons.all():
            label = button.locator("p").first
            expect(label).to_be_visible()
            clipped = label.evaluate("p => p.scrollWidth > p.clientWidth + 1 || p.getBoundingClientRect().width < 20")
            assert not clipped, button.inner_text()
            box = button.bounding_box()
            assert box["x"] + box["width"] <= column["x"] + column["width"] + 1, (button.inner_text(), box)
        screenshot(page, f"grow-side-tabs-downloads-{width}", full_page=False)
    finally:
        context.close()
