"""End to end in Chromium at 1366x768: an XGBoost model file opened through the Data page's "Open a model"
file chooser, then member 3's tree on the Grow page: a planned diagram whose boxes hold their text.

The model is trained inside the test (xgboost is a test oracle; the app reads the JSON itself) on the
bundled iris sample: 5 rounds of 3 classes, 15 trees, so tree 3 is round 1's tree for class 0.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from playwright.sync_api import expect

from engine.data.dataset import load_sample
from tests.browser.test_browser_tree import boxes

expect.set_options(timeout=60_000)
MODEL_INPUT = ".st-key-_w_data_model_upload [data-testid='stFileUploaderDropzoneInput']"


@pytest.fixture
def small_page(browser, app_url):
    context = browser.new_context(viewport={"width": 1366, "height": 768}, base_url=app_url)
    context.set_default_timeout(60_000)
    tab = context.new_page()
    try:
        yield tab
    finally:
        context.close()


def xgboost_file(tmp_path):
    xgb = pytest.importorskip("xgboost")
    ds = load_sample("iris")
    y = np.array([ds.classes.index(c) for c in ds.frame[ds.target].astype(str)])
    path = tmp_path / "iris_xgb.json"
    xgb.XGBClassifier(n_estimators=5, max_depth=3, random_state=0).fit(ds.frame[list(ds.feature_names)], y) \
        .save_model(path)
    return path


def go_to(page, wait_idle, name: str) -> None:
    """Open a page from the sidebar and wait for its script to finish."""
    page.get_by_test_id("stSidebar").get_by_role("link", name=name).click()
    wait_idle(page)


def data_page(page, wait_idle, tmp_path):
    """The app's Data page in ``page``; returns the XGBoost file to open there."""
    path = xgboost_file(tmp_path)
    page.goto("/")
    wait_idle(page)
    go_to(page, wait_idle, "Data")
    return path


def test_open_an_xgboost_model_and_look_at_member_3(small_page, wait_idle, screenshot, tmp_path):
    page = small_page
    path = data_page(page, wait_idle, tmp_path)
    page.locator(MODEL_INPUT).set_input_files(str(path))
    expect(page.get_by_text("Opened the model")).to_be_visible()
    wait_idle(page)
    expect(page.get_by_test_id("stSidebar").get_by_text("iris_xgb.json")).to_be_visible()
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    screenshot(page, "model-data-page", full_page=False)

    go_to(page, wait_idle, "Grow")
    member = page.locator(".st-key-_w_model_member input")
    member.fill("3")
    member.press("Enter")
    wait_idle(page)
    expect(page.get_by_text("Tree 3 of 15 (round 1, class 0)")).to_be_visible()
    drawn = boxes(page, ".st-key-model_tree_3")
    assert drawn["boxes"], "no boxes drawn"
    assert len(drawn["boxes"]) == drawn["nbars"]
    for b in drawn["boxes"]:
        assert b["text"].strip(), b
        assert b["font"] >= 11, b
        t, r = b["t"], b["b"]  # each box's text inside its box
        assert r["left"] - 1 <= t["left"] and t["right"] <= r["right"] + 1, b
        assert r["top"] - 1 <= t["top"] and t["bottom"] <= r["bottom"] + 1, b
    assert any(b["text"].startswith("#0") and "w=" in b["text"] for b in drawn["boxes"])
    expect(page.get_by_test_id("stException")).to_have_count(0)
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    screenshot(page, "model-grow-member-3", full_page=False)
    screenshot(page, "model-grow-member-3-full")

    # a click on a leaf box selects it in the inspector
    leaf = next(b for b in drawn["boxes"] if b["kind"] != "fold" and b["id"] != 0)
    page.mouse.click((leaf["b"]["left"] + leaf["b"]["right"]) / 2, (leaf["b"]["top"] + leaf["b"]["bottom"]) / 2)
    wait_idle(page)
    expect(page.get_by_text(re.compile(r"^Depth 1 · cover"))).to_be_visible()  # the inspector shows the leaf
    screenshot(page, "model-grow-member-3-leaf", full_page=False)
    expect(page.get_by_test_id("stException")).to_have_count(0)


def test_the_model_on_the_ensembles_and_rules_pages_with_its_data(small_page, wait_idle, screenshot, tmp_path):
    page = small_page
    path = data_page(page, wait_idle, tmp_path)
    page.get_by_test_id("stSelectbox").first.click()
    page.get_by_role("option", name="iris", exact=True).click()
    wait_idle(page)
    page.get_by_role("button", name="Use this sample").click()
    wait_idle(page)
    page.locator(MODEL_INPUT).set_input_files(str(path))
    expect(page.get_by_text("has all 4 of the model's columns")).to_be_visible()
    wait_idle(page)

    go_to(page, wait_idle, "Ensembles")
    chart = page.locator(".st-key-model_waterfall .js-plotly-plot")
    expect(chart).to_be_visible()
    assert page.locator(".st-key-model_waterfall g.trace.bars path").count() >= 7  # base, 5 trees, margin
    expect(page.get_by_test_id("stException")).to_have_count(0)
    chart.scroll_into_view_if_needed()
    screenshot(page, "model-ensembles-waterfall", full_page=False)
    page.get_by_role("tab", name="Decision regions").click()
    wait_idle(page)
    regions = page.locator(".st-key-model_regions .js-plotly-plot")
    expect(regions).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    regions.scroll_into_view_if_needed()
    screenshot(page, "model-ensembles-regions", full_page=False)

    go_to(page, wait_idle, "Rules")
    expect(page.get_by_text("Path of")).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot(page, "model-rules", full_page=False)
    go_to(page, wait_idle, "Evaluate")
    expect(page.get_by_test_id("stPlotlyChart").first).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot(page, "model-evaluate", full_page=False)
