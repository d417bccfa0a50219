"""End to end in Chromium: the app opens on the introduction, the Data page takes an upload."""

from __future__ import annotations

import re

from playwright.sync_api import expect

UPLOAD = ("fruit,weight_g,colour,ripe\n"
          "apple,150,red,yes\nbanana,120,yellow,yes\napple,90,green,no\ncherry,8,red,yes\n"
          "banana,110,green,no\napple,160,red,yes\ncherry,6,dark red,no\nbanana,130,yellow,yes\n")


def open_app(page, wait_idle):
    page.goto("/")
    wait_idle(page)
    expect(page.get_by_test_id("stApp")).to_be_visible()


def test_app_opens_on_the_introduction(page, wait_idle, screenshot):
    open_app(page, wait_idle)
    expect(page.get_by_role("heading", name="Decision-tree explorer")).to_be_visible()
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar.get_by_text("play_tennis")).to_be_visible()
    expect(sidebar.get_by_text("Random seed")).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot(page, "home")


def test_upload_a_csv_on_the_data_page(page, wait_idle, screenshot, tmp_path):
    open_app(page, wait_idle)
    page.get_by_test_id("stSidebar").get_by_role("link", name="Data").click()
    wait_idle(page)
    expect(page.get_by_role("heading", name="Data", exact=True)).to_be_visible()
    screenshot(page, "data-default")

    csv = tmp_path / "fruit.csv"
    csv.write_text(UPLOAD, encoding="utf-8")
    page.locator(".st-key-_w_data_upload [data-testid='stFileUploaderDropzoneInput']").set_input_files(str(csv))
    expect(page.get_by_text(re.compile(r"Loaded .*fruit"))).to_be_visible()
    wait_idle(page)

    # the sidebar and the preview show the new data
    expect(page.get_by_test_id("stSidebar").get_by_text("fruit.csv")).to_be_visible()
    preview = page.get_by_test_id("stDataFrame").first
    expect(preview).to_be_visible()
    for column in ("fruit", "weight_g", "colour", "ripe"):
        expect(preview.get_by_text(column, exact=True).first).to_be_attached()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    screenshot(page, "data-uploaded")

    # the class balance chart is drawn on the Target tab
    page.get_by_role("tab", name="Target").click()
    expect(page.get_by_test_id("stPlotlyChart").first).to_be_visible()
    screenshot(page, "data-target")

    # the column table with its missing counts, and the split sizes
    page.get_by_role("tab", name="Columns").click()
    expect(page.get_by_role("tabpanel", name="Columns").get_by_test_id("stDataFrame")).to_be_visible()
    screenshot(page, "data-columns")
    page.get_by_role("tab", name="Train / test split").click()
    expect(page.get_by_text("Train rows")).to_be_visible()
    screenshot(page, "data-split")


def test_a_bad_upload_shows_a_sentence_and_keeps_the_data(page, wait_idle, screenshot, tmp_path):
    open_app(page, wait_idle)
    page.get_by_test_id("stSidebar").get_by_role("link", name="Data").click()
    wait_idle(page)
    bad = tmp_path / "notes.csv"
    bad.write_text("only_a_header,and_another\n", encoding="utf-8")
    page.locator(".st-key-_w_data_upload [data-testid='stFileUploaderDropzoneInput']").set_input_files(str(bad))
    error = page.get_by_test_id("stAlertContentError")
    expect(error).to_be_visible()
    expect(error).to_contain_text("no rows")
    expect(page.get_by_test_id("stSidebar").get_by_text("play_tennis")).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot(page, "data-bad-upload")


def test_a_deep_link_on_a_fresh_server_gets_the_app_frame(browser, fresh_app_url, wait_idle,
                                                          screenshot):
    # Until st.navigation first runs, Streamlit serves pages/ as a legacy pages folder; the app
    # must still route a first-ever request to /data through app.py (sidebar, error net).
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    try:
        tab = context.new_page()
        tab.goto(f"{fresh_app_url}/data")
        sidebar = tab.get_by_test_id("stSidebar")
        expect(sidebar.get_by_text("Random seed")).to_be_visible(timeout=60_000)
        wait_idle(tab)
        expect(tab.get_by_role("heading", name="Data", exact=True)).to_be_visible()
        expect(tab.get_by_test_id("stSidebar")).to_contain_text("Introduction")
        screenshot(tab, "data-deep-link")
    finally:
        context.close()


def test_readme_screenshot(page, wait_idle):
    """Refresh docs/screenshot.png (run by hand: README_SCREENSHOT=1 pytest -k readme_screenshot)."""
    import os
    from pathlib import Path

    if os.environ.get("README_SCREENSHOT") != "1":
        import pytest

        pytest.skip("set README_SCREENSHOT=1 to refresh docs/screenshot.png")
    open_app(page, wait_idle)
    # the two-feature "ski" sample, so the region plot is drawn next to the tree
    page.get_by_test_id("stSidebar").get_by_role("link", name="Data").click()
    wait_idle(page)
    page.locator(".st-key-_w_data_sample").click()
    page.get_by_role("option", name="ski", exact=True).click()
    wait_idle(page)
    page.get_by_role("button", name=re.compile("Use this sample")).click()
    wait_idle(page)
    expect(page.get_by_test_id("stSidebar").get_by_text("ski", exact=False).first).to_be_visible()
    page.get_by_test_id("stSidebar").get_by_role("link", name="Grow").click()
    wait_idle(page)
    step = page.locator(".st-key-_w_grow_step button")  # the Grow page's Step button, by its key
    for _ in range(3):
        step.click()
        wait_idle(page)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    target = Path(__file__).resolve().parents[2] / "docs" / "screenshot.png"
    page.screenshot(path=str(target))
    assert target.stat().st_size > 10_000


def test_a_feature_that_gives_the_target_away_is_shown_and_ignored(page, wait_idle, screenshot, tmp_path):
    """Issue 36.8: gapminder with continent last (so it is the target); country names the continent."""
    import plotly.express as px

    frame = px.data.gapminder()
    csv = tmp_path / "gapminder.csv"
    frame[[c for c in frame.columns if c != "continent"] + ["continent"]].to_csv(csv, index=False)
    open_app(page, wait_idle)
    page.get_by_test_id("stSidebar").get_by_role("link", name="Data").click()
    wait_idle(page)
    page.locator(".st-key-_w_data_upload [data-testid='stFileUploaderDropzoneInput']").set_input_files(str(csv))
    expect(page.get_by_text(re.compile(r"Loaded .*gapminder"))).to_be_visible()
    wait_idle(page)
    warnings = page.get_by_test_id("stAlertContentWarning").filter(has_text="gives the target away")
    expect(warnings).to_have_count(3)
    expect(warnings.first).to_contain_text("country")
    expect(warnings.nth(1)).to_contain_text("iso_alpha")  # the escaped underscore shows as itself
    screenshot(page, "data-giveaway")
    page.get_by_role("button", name="Ignore these 3 columns").click()
    wait_idle(page)
    expect(page.get_by_text(re.compile(r"Now ignored: country, iso_alpha, iso_num"))).to_be_visible()
    expect(page.get_by_test_id("stAlertContentWarning").filter(has_text="gives the target away")).to_have_count(0)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot(page, "data-giveaway-ignored")
