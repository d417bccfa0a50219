"""End to end in Chromium: a click on a box of the Grow page's diagram outlines the node's region in the region
plot without sending or redrawing the plot's points (ui.charts.overlay_shapes), so a click on a big tree stays
quick (benchmarks/bench_grow_click.py times it on ~12,000 nodes)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_browser_tree import boxes, click_box, viewport

expect.set_options(timeout=60_000)

REGION = ".st-key-grow_regions .js-plotly-plot"
# the outline drawn onto the region plot, and whether the plot's point elements are the ones marked before
STATE_JS = """(sel) => {
  const gd = document.querySelector(sel);
  const hl = (gd.layout.shapes || []).filter(s => s.name === "overlay:highlighted region");
  const point = gd.querySelector("g.points path.point");
  return {outline: hl.map(s => [s.x0, s.x1, s.y0, s.y1]), marked: !!(point && point.__dtxMark),
          points: gd.querySelectorAll("g.points path.point").length};
}"""


def region_state(page) -> dict:
    return page.evaluate(STATE_JS, REGION)


@pytest.mark.parametrize("node", [2])
def test_a_box_click_outlines_the_region_without_redrawing_the_points(browser, app_url, wait_idle, screenshot, node):
    context, page = viewport(browser, app_url, 1366, 768)
    try:
        page.goto("/grow?data=iris&cfg=alg:cart&step=14")
        wait_idle(page)
        expect(page.locator(REGION)).to_be_visible()
        page.wait_for_function("(sel) => { const gd = document.querySelector(sel);"
                               " return gd && (gd.layout.shapes || []).some(s => s.name === 'overlay:highlighted region'); }",
                               arg=REGION)
        before = region_state(page)  # the region of the last split (node 6; the root is in the inspector)
        assert len(before["outline"]) == 1 and before["points"] > 100, before  # the last split's region
        page.evaluate("(sel) => document.querySelectorAll(sel + ' g.points path.point').forEach(p => p.__dtxMark = 1)",
                      REGION)
        target = next(i for i, b in enumerate(boxes(page)["boxes"]) if b["id"] == node and b["kind"] == 0)
        click_box(page, target)
        wait_idle(page)
        expect(page.locator("[class*='st-key-_w_grow_node_'] input[role='combobox']").first).to_have_value(
            re.compile(rf"^#{node} · "))
        page.wait_for_function("(args) => { const gd = document.querySelector(args[0]);"
                               " const hl = (gd.layout.shapes || []).filter(s => s.name === 'overlay:highlighted region');"
                               " return hl.length === 1 && JSON.stringify([hl[0].x0, hl[0].x1, hl[0].y0, hl[0].y1])"
                               " !== JSON.stringify(args[1]); }", arg=[REGION, before["outline"][0]])
        after = region_state(page)
        assert after["marked"] and after["points"] == before["points"], (before, after)  # the same points
        assert after["outline"] != before["outline"]
        page.locator(REGION).scroll_into_view_if_needed()
        screenshot(page, "grow-region-outline-after-click", full_page=False)
        expect(page.get_by_test_id("stException")).to_have_count(0)
    finally:
        context.close()
