"""End to end in Chromium: the Prune page on the noisy moons sample, from "no tree" to every method.

Screenshots go to test-artifacts/screenshots/prune-*.png.
"""

from __future__ import annotations

import re

from playwright.sync_api import expect

TREES = "[class*='st-key-'][class*='_tree'] .js-plotly-plot"  # the interactive tree diagrams


def _use_sample(page, wait_idle, name: str) -> None:
    page.get_by_test_id("stSidebar").get_by_role("link", name="Data").click()
    wait_idle(page)
    page.get_by_test_id("stSelectbox").filter(has_text="Sample data set").click()
    page.get_by_role("option", name=name, exact=True).click()
    wait_idle(page)
    page.get_by_role("button", name="Use this sample").click()
    wait_idle(page)
    expect(page.get_by_test_id("stSidebar").get_by_text(name)).to_be_visible()


def _method(page, wait_idle, label: str) -> None:
    page.get_by_test_id("stButtonGroup").get_by_role("radio", name=label).click()
    wait_idle(page)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)


def test_prune_page_methods(page, wait_idle, screenshot):
    page.set_viewport_size({"width": 1440, "height": 2200})  # the app scrolls inside: a tall window shows more
    page.goto("/")
    wait_idle(page)
    _use_sample(page, wait_idle, "noisy_moons")
    page.get_by_test_id("stSidebar").get_by_role("link", name="Prune").click()
    wait_idle(page)
    expect(page.get_by_role("heading", name="Prune")).to_be_visible()
    expect(page.get_by_text("There is no tree to prune yet")).to_be_visible()
    page.get_by_role("button", name="Grow a full tree now").click()
    wait_idle(page)

    # without validation rows the page opens on a method that needs none; reduced error needs them, so
    # choosing it offers a share
    _method(page, wait_idle, "Reduced error")
    expect(page.get_by_text("The current split has no validation rows")).to_be_visible()
    expect(page.get_by_text("Use the 100 test rows as validation rows")).to_be_visible()
    page.get_by_role("button", name=re.compile("Use 20% of the rows for validation now")).click()
    wait_idle(page)
    expect(page.get_by_test_id("stSidebar").get_by_text(re.compile(r"\d+ validation"))).to_be_visible()
    expect(page.locator(TREES)).to_have_count(2)
    expect(page.get_by_role("heading", name="Pruning log")).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot(page, "prune-reduced-error")

    # cost complexity: the path chart, then cross-validation with the 1-SE rule
    _method(page, wait_idle, "Cost complexity (α)")
    expect(page.locator(".gtitle", has_text="Cost-complexity path")).to_have_count(1)
    page.get_by_role("button", name="Cross-validate").click()
    wait_idle(page)
    expect(page.locator(".gtitle", has_text="1-SE rule")).to_have_count(1)
    page.get_by_role("button", name=re.compile(r"^Use the 1-SE rule")).click()
    wait_idle(page)
    expect(page.locator(TREES)).to_have_count(2)
    screenshot(page, "prune-cost-complexity")

    # C4.5 with subtree raising and its per-node estimates
    _method(page, wait_idle, "C4.5 pessimistic")
    page.get_by_text("Subtree raising").click()
    wait_idle(page)
    expect(page.get_by_role("heading", name="Estimated errors per node (original tree)")).to_be_visible()
    screenshot(page, "prune-pessimistic")

    # bottom-up with the MDL bound, then pruning by hand with undo
    _method(page, wait_idle, "Bottom-up f(T, m)")
    page.get_by_test_id("stSelectbox").filter(has_text="Evaluation function").click()
    page.get_by_role("option", name=re.compile("^MDL bound")).click()
    wait_idle(page)
    expect(page.locator(TREES)).to_have_count(2)
    screenshot(page, "prune-bottom-up-mdl")
    _method(page, wait_idle, "By hand")
    page.get_by_role("button", name="Prune below").click()
    wait_idle(page)
    expect(page.get_by_test_id("stMetricValue").first).to_have_text("1")  # the root was selected: one leaf
    page.get_by_role("button", name="Undo").click()
    wait_idle(page)
    expect(page.get_by_test_id("stMetricValue").first).not_to_have_text("1")
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot(page, "prune-by-hand")
