"""End to end: the Theory page in Chromium: charts draw, tabs switch, bad counts give a red sentence."""

from __future__ import annotations

import re

from playwright.sync_api import expect


def _tab(page, name: str):
    return page.get_by_role("tab", name=name)


def test_theory_page_tabs_and_bad_counts(page, wait_idle, screenshot):
    # Start at the front door and use the sidebar, as a visitor does. (On a freshly started server a
    # deep link to /theory is served by Streamlit's legacy pages/ listing instead of app.py: reported.)
    page.goto("/")
    nav = page.get_by_test_id("stSidebar")
    expect(nav).to_contain_text("Introduction")  # the app frame's st.navigation has run
    wait_idle(page)
    nav.get_by_role("link", name="Theory").click()
    wait_idle(page)
    expect(page.get_by_role("heading", name="Theory")).to_be_visible()
    # the impurity curves: one Plotly chart with its four curves in the legend
    panel = page.get_by_role("tabpanel", name="Impurity curves")
    expect(panel.get_by_test_id("stPlotlyChart")).to_have_count(1)
    expect(panel.locator(".legendtext", has_text="Gini 2p(1−p)")).to_have_count(1)
    screenshot(page, "theory_curves")

    # zero-gain split: the classic numbers, then an impossible left child
    _tab(page, "Zero-gain split").click()
    panel = page.get_by_role("tabpanel", name="Zero-gain split")
    expect(panel.get_by_test_id("stCode")).to_contain_text("0.3333 - 0.3333 = 0.0000")
    expect(panel.get_by_test_id("stPlotlyChart")).to_have_count(2)
    screenshot(page, "theory_zero_gain")
    left = panel.get_by_label("Left child class counts (the right child gets the rest)")
    left.fill("50, 0")
    left.press("Enter")
    wait_idle(page)
    expect(panel.get_by_test_id("stAlertContentError")).to_contain_text(
        "left_counts (50, 0) cannot exceed parent_counts (40, 20) in any class: a child holds only rows of its parent."
    )
    expect(page.get_by_test_id("stException")).to_have_count(0)
    panel.get_by_role("button", name="Back to the zero-gain example").click()
    wait_idle(page)
    expect(panel.get_by_test_id("stAlertContentError")).to_have_count(0)

    # PAC: log-scale chart and the table follow the inputs
    _tab(page, "PAC sample size").click()
    panel = page.get_by_role("tabpanel", name="PAC sample size")
    expect(panel.get_by_test_id("stPlotlyChart")).to_have_count(1)
    nmax = panel.get_by_label("largest n")
    nmax.fill("20")
    nmax.press("Enter")
    wait_idle(page)
    screenshot(page, "theory_pac")

    # MDL: the calculator without a tree
    _tab(page, "MDL bound").click()
    panel = page.get_by_role("tabpanel", name="MDL bound")
    expect(panel.get_by_test_id("stMetricValue").nth(1)).to_have_text("90 bits")  # d′ = 4 × (100 + 1) real-valued tests: 5·7 + 1 + 6·⌈log₂ 404⌉
    expect(panel.get_by_test_id("stCode")).to_contain_text(re.compile(r"= 0\.7844$"))
    screenshot(page, "theory_mdl")
    expect(page.get_by_test_id("stException")).to_have_count(0)
