"""End to end in Chromium at 1366x768 (issue 36 follow-up): the ONNX tree of the breast-cancer data (classes
0/1, 0 = malignant) opened with its malignant/benign CSV; after the Data page's mapping button the Grow
diagram's boxes and the Rules page name malignant/benign. Opened without the CSV, its inner boxes carry no
share bar and no count."""

from __future__ import annotations

import re
import pytest
from playwright.sync_api import expect

from tests.browser.test_browser_model import MODEL_INPUT, go_to, small_page  # noqa: F401 - fixture
from tests.browser.test_browser_model_truth import DATA_INPUT
from tests.model_files import breast_csv_frame, model_file

expect.set_options(timeout=60_000)
DIAGRAM_TEXT = "[data-testid='stPlotlyChart'] .textpoint text"


def open_model(page, wait_idle, tmp_path, *, csv: bool):
    pytest.importorskip("skl2onnx")
    model = tmp_path / "tree.onnx"
    model.write_bytes(model_file("onnx_tree_array")[0])
    page.goto("/")
    wait_idle(page)
    go_to(page, wait_idle, "Data")
    if csv:
        path = tmp_path / "breast.csv"
        breast_csv_frame().to_csv(path, index=False)
        page.locator(DATA_INPUT).set_input_files(str(path))
        wait_idle(page)
        # the CSV's run is over (a model chosen while it still ran was dropped with its uploader: CI, once)
        expect(page.get_by_text(re.compile(r"^Loaded .*breast")).first).to_be_visible()
        wait_idle(page)
    page.locator(MODEL_INPUT).set_input_files(str(model))
    expect(page.get_by_text("Opened the model")).to_be_visible()
    wait_idle(page)


def box_texts(page) -> list[str]:
    boxes = page.locator(DIAGRAM_TEXT)
    expect(boxes.first).to_be_visible()
    return boxes.all_text_contents()


def test_mapped_classes_reach_the_grow_diagram_and_the_rules(small_page, wait_idle, screenshot, tmp_path):  # noqa: F811
    page = small_page
    open_model(page, wait_idle, tmp_path, csv=True)
    page.get_by_role("button", name="Use the mapping that agrees best").click()
    wait_idle(page)
    go_to(page, wait_idle, "Grow")
    expect(page.get_by_test_id("stException")).to_have_count(0)
    texts = " ".join(box_texts(page))
    assert "malignant" in texts or "benign" in texts, texts
    screenshot(page, "model-labels-grow", full_page=False)
    go_to(page, wait_idle, "Rules")
    expect(page.get_by_text("which holds malignant.")).to_be_visible()
    screenshot(page, "model-labels-rules", full_page=False)


def test_without_its_csv_an_onnx_trees_inner_boxes_show_no_count(small_page, wait_idle, screenshot, tmp_path):  # noqa: F811
    page = small_page
    open_model(page, wait_idle, tmp_path, csv=False)
    go_to(page, wait_idle, "Grow")
    expect(page.get_by_text("the inner boxes show no class shares")).to_be_visible()
    texts = box_texts(page)
    assert texts[0].startswith("#0") and "n=" not in texts[0] and "w=" not in texts[0], texts[0]
    screenshot(page, "model-labels-onnx-no-csv", full_page=False)
