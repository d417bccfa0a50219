"""End to end in Chromium: the Evaluate page on the noisy moons sample, every tab drawn, a run started.

Screenshots go to test-artifacts/screenshots/evaluate-*.png.
"""

from __future__ import annotations

import re

from playwright.sync_api import expect


def _use_sample(page, wait_idle, name: str) -> None:
    page.get_by_test_id("stSidebar").get_by_role("link", name="Data").click()
    wait_idle(page)
    page.get_by_test_id("stSelectbox").filter(has_text="Sample data set").click()
    page.get_by_role("option", name=name, exact=True).click()
    wait_idle(page)
    page.get_by_role("button", name="Use this sample").click()
    wait_idle(page)
    expect(page.get_by_test_id("stSidebar").get_by_text(name)).to_be_visible()


def _open_tab(page, wait_idle, name: str):
    page.get_by_role("tab", name=name).click()
    wait_idle(page)
    panel = page.get_by_role("tabpanel", name=name)
    expect(panel.get_by_test_id("stPlotlyChart").first).to_be_visible()
    return panel


def test_evaluate_page_tabs(page, wait_idle, screenshot):
    page.goto("/")
    wait_idle(page)
    _use_sample(page, wait_idle, "noisy_moons")
    # grow ten steps on the Grow page: the Evaluate page marks that tree
    page.get_by_test_id("stSidebar").get_by_role("link", name="Grow").click()
    wait_idle(page)
    for _ in range(2):
        page.get_by_role("button", name="Step ×5").click()
        wait_idle(page)
    page.get_by_test_id("stSidebar").get_by_role("link", name="Evaluate").click()
    wait_idle(page)
    expect(page.get_by_role("heading", name="Evaluate")).to_be_visible()
    expect(page.get_by_text("The Grow page's tree")).to_be_visible()

    # metrics: a confusion matrix for the train and the test rows, per-class table
    panel = page.get_by_role("tabpanel", name="Metrics")
    expect(panel.get_by_test_id("stPlotlyChart")).to_have_count(2)
    expect(panel.locator(".gtitle", has_text=re.compile(r"^test: accuracy 0\.\d{3} on 100 rows$"))).to_have_count(1)
    screenshot(page, "evaluate-metrics")

    panel = _open_tab(page, wait_idle, "Cross-validation")
    expect(panel.get_by_test_id("stMetricValue").first).to_have_text(re.compile(r"^0\.\d{4}$"))
    k = panel.get_by_label("Folds k")
    k.fill("4")
    panel.get_by_role("button", name="Run cross-validation").click()
    wait_idle(page)
    expect(panel.locator(".gtitle", has_text="4-fold cross-validation")).to_have_count(1)
    screenshot(page, "evaluate-cv")

    panel = _open_tab(page, wait_idle, "Overfitting curve")
    expect(panel.locator(".legendtext", has_text=re.compile(r"^test$"))).to_have_count(1)
    expect(panel.locator(".legendtext", has_text="best test")).to_have_count(1)
    expect(panel.get_by_text(re.compile(r"Best test accuracy: 0\.\d{3} at \d+ leaves"))).to_be_visible()
    expect(panel.locator(".annotation-text", has_text="Grow page (step 10)")).to_have_count(1)
    screenshot(page, "evaluate-overfitting")

    panel = _open_tab(page, wait_idle, "Learning curve")
    expect(panel.locator(".legendtext", has_text="test (mean)")).to_have_count(1)
    screenshot(page, "evaluate-learning")

    panel = _open_tab(page, wait_idle, "Instability")
    expect(panel.get_by_text(re.compile(r"^Original tree: root "))).to_be_visible()
    screenshot(page, "evaluate-instability")
    expect(page.get_by_test_id("stException")).to_have_count(0)
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)


def test_evaluate_page_regression(page, wait_idle, screenshot):
    page.goto("/")
    wait_idle(page)
    _use_sample(page, wait_idle, "diabetes")
    page.get_by_test_id("stSidebar").get_by_role("link", name="Evaluate").click()
    wait_idle(page)
    panel = page.get_by_role("tabpanel", name="Metrics")
    expect(panel.get_by_test_id("stPlotlyChart")).to_have_count(2)
    expect(panel.locator(".gtitle", has_text=re.compile(r"^test: R² -?0\.\d{3}, MAE \d+"))).to_have_count(1)
    screenshot(page, "evaluate-regression-metrics")
    panel = _open_tab(page, wait_idle, "Overfitting curve")
    expect(panel.get_by_text(re.compile(r"Best test R²: "))).to_be_visible()
    screenshot(page, "evaluate-regression-overfitting")
    expect(page.get_by_test_id("stException")).to_have_count(0)
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
