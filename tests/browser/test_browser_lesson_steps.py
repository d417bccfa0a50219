"""In Chromium (issue 39): a lesson opened at an earlier step walks its prepared history with the → key."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.app.test_lesson_file_roundtrip import _prepared_lesson
from tests.browser.conftest import streamlit_server
from tests.browser.test_browser_lesson_file import idle, nav

expect.set_options(timeout=30_000)


def test_the_arrow_key_walks_a_prepared_lesson(browser, tmp_path, screenshot):
    shelf = tmp_path / "lessons"
    shelf.mkdir()
    (shelf / "prepared.dtx").write_bytes(_prepared_lesson(1))
    with streamlit_server({"DTX_LESSONS_DIR": str(shelf)}) as url:
        context = browser.new_context(viewport={"width": 1440, "height": 1000}, base_url=url)
        try:
            page = context.new_page()
            page.goto("/")
            idle(page)
            nav(page, "Lessons")
            page.locator(".st-key-_w_shelf_0_open button").click()
            idle(page)
            expect(page.get_by_text("Step 1 of 6 of the prepared lesson")).to_be_visible()
            page.get_by_text("Keys: → step").click()  # focus the page, not an input
            page.keyboard.press("ArrowRight")  # Step's shortcut: the prepared forced split
            idle(page)
            expect(page.get_by_text("Step 2 of 6 of the prepared lesson")).to_be_visible()
            expect(page.get_by_text("Step 2 · ").first).to_be_visible()
            screenshot(page, "lesson-prepared-step", full_page=False)
        finally:
            context.close()
