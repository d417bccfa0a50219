"""End to end in Chromium at 1366x768 (issue 36): the breast-cancer CSV with text labels and an XGBoost
model trained on it with 0/1 classes (0 = malignant, the library's defaults) opened on the Data page; the
app reads class 0 as "benign" (sorted labels), warns with both accuracies, and its button swaps them."""

from __future__ import annotations

import re
import pytest
from playwright.sync_api import expect

from tests.browser.test_browser_model import MODEL_INPUT, go_to, small_page  # noqa: F401 - fixture
from tests.model_files import breast_csv_frame, model_file

expect.set_options(timeout=60_000)
DATA_INPUT = ".st-key-_w_data_upload [data-testid='stFileUploaderDropzoneInput']"


def test_swapped_classes_warn_and_the_button_fixes_them(small_page, wait_idle, screenshot, tmp_path):  # noqa: F811
    pytest.importorskip("xgboost")
    page = small_page
    csv = tmp_path / "breast.csv"
    breast_csv_frame().to_csv(csv, index=False)
    model = tmp_path / "breast_xgb.json"
    model.write_bytes(model_file("xgb_frame_json")[0])
    page.goto("/")
    wait_idle(page)
    go_to(page, wait_idle, "Data")
    page.locator(DATA_INPUT).set_input_files(str(csv))
    wait_idle(page)
    # the CSV's run is over (a model chosen while it still ran was dropped with its uploader: CI, once)
    expect(page.get_by_text(re.compile(r"^Loaded .*breast")).first).to_be_visible()
    wait_idle(page)
    page.locator(MODEL_INPUT).set_input_files(str(model))
    expect(page.get_by_text("Opened the model")).to_be_visible()
    wait_idle(page)
    warning = page.get_by_text("Was the model trained with its classes numbered another way?")
    expect(warning).to_be_visible()
    button = page.get_by_role("button", name="Use the mapping that agrees best")
    button.scroll_into_view_if_needed()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot(page, "model-classes-warning", full_page=False)
    box = button.bounding_box()
    assert box is not None and box["x"] + box["width"] <= 1366
    button.click()
    wait_idle(page)
    expect(warning).to_have_count(0)
    first = page.locator(".st-key-_w_model_class_0")
    first.scroll_into_view_if_needed()
    expect(first.get_by_role("combobox", name="Model class 0")).to_have_value("malignant")
    screenshot(page, "model-classes-fixed", full_page=False)
