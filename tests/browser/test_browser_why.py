"""In Chromium at 1366 x 768: the Grow page's "Why this prediction" tab on the user guide's example (iris, CART
on all rows, row 100): path contributions beside SHAP values, the note where they disagree, the summary."""

from __future__ import annotations

from playwright.sync_api import expect


def test_why_this_prediction_on_the_grow_page(page, wait_idle, screenshot):
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto("/grow?data=iris&cfg=alg:cart&split=0,0,0&step=100")
    wait_idle(page, timeout=180_000)
    page.get_by_role("tab", name="Why this prediction").click()
    wait_idle(page)
    panel = page.get_by_role("tabpanel", name="Why this prediction")
    row = panel.get_by_role("spinbutton")
    row.fill("100")
    row.press("Enter")
    wait_idle(page, timeout=120_000)
    chart = panel.locator(".st-key-grow_why_chart .js-plotly-plot, [class*='grow_why_chart'] .js-plotly-plot").first
    if not chart.count():
        chart = panel.get_by_test_id("stPlotlyChart").first
    expect(chart).to_be_visible()
    expect(chart.locator("g.barlayer g.trace.bars")).to_have_count(2)          # Saabas and SHAP, side by side
    expect(panel.get_by_text("Here they disagree")).to_be_visible()
    box = chart.bounding_box()
    assert box and box["width"] >= 300, box                                     # readable in the side column
    chart.scroll_into_view_if_needed()
    screenshot(page, "why_grow_row", full_page=False)
    panel.get_by_role("button", name="Compute mean |SHAP|").click()
    wait_idle(page, timeout=120_000)
    expect(panel.get_by_text("Mean |SHAP| over all 150 rows")).to_be_visible()
    expect(panel.get_by_role("button", name="Compute mean |SHAP|")).to_have_count(0)
    panel.get_by_test_id("stPlotlyChart").nth(1).scroll_into_view_if_needed()
    screenshot(page, "why_grow_summary", full_page=False)
    expect(page.get_by_test_id("stException")).to_have_count(0)
