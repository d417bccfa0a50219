"""End to end in Chromium at 1366x768 (issue 40, finding 7): a model of 10,000 features opened on the Data
page; the Rules page draws one table of feature values (the two tested features first), and a value typed
into the table's first row moves the row's path from leaf 3 to leaf 2.

The model is the hand-made XGBoost JSON of ``tests/app/model/test_model_many_features.py``: one tree
testing f7 <= 0.5 at the root and f9001 <= 2 on its left.
"""

from __future__ import annotations

from playwright.sync_api import expect

from tests.app.model.test_model_many_features import wide_xgb
from tests.browser.test_browser_model import MODEL_INPUT, go_to, small_page  # noqa: F401 (a fixture: 1366x768)

expect.set_options(timeout=60_000)
TABLE = "[class*='st-key-_w_model_rules_q_num_'] [data-testid='stDataFrame']"


def test_rules_with_ten_thousand_features_sets_a_value_in_the_table(small_page, wait_idle, screenshot, tmp_path):
    page = small_page
    path = tmp_path / "wide.json"
    path.write_bytes(wide_xgb())
    page.goto("/")
    wait_idle(page)
    go_to(page, wait_idle, "Data")
    page.locator(MODEL_INPUT).set_input_files(str(path))
    expect(page.get_by_text("Opened the model")).to_be_visible()
    wait_idle(page)

    go_to(page, wait_idle, "Rules")
    expect(page.get_by_text("Path of")).to_be_visible()
    expect(page.get_by_text("It ends in leaf #3")).to_be_visible()
    table = page.locator(TABLE)
    expect(table).to_be_visible()
    expect(page.locator("[data-testid='stMain'] [data-testid='stNumberInput']")).to_have_count(0)  # none a feature
    table.scroll_into_view_if_needed()
    screenshot(page, "many-features-rules-table", full_page=False)

    # the first row is f7 (the root's feature): its value cell, in the grid drawn on a canvas (rows 35 px
    # under a 35 px header; the value column spans about 45-73 % of the width)
    box = table.bounding_box()
    page.mouse.dblclick(box["x"] + box["width"] * 0.6, box["y"] + 35 + 35 / 2)
    editor = page.locator("textarea.gdg-input, input.gdg-input").first
    expect(editor).to_be_visible()
    editor.fill("1.5")
    editor.press("Enter")
    wait_idle(page)
    expect(page.get_by_text("It ends in leaf #2")).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    page.get_by_text("It ends in leaf #2").evaluate("e => e.scrollIntoView({block: 'center'})")
    screenshot(page, "many-features-rules-path-moved", full_page=False)
