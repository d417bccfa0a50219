"""End to end in Chromium: a student's link opens the join page with no failed request.

Students' links and QR codes point at the app's root (``<app>/?room=CODE``, app.py's ``root_page``): loaded
from ``/join``, Streamlit's frontend first asked ``/join/_stcore/health`` and ``/join/_stcore/host-config``
(trying /join as the app's base path) and got two 404s on every load.
"""

from __future__ import annotations

from playwright.sync_api import expect

from ui.classroom import live

expect.set_options(timeout=60_000)


def test_a_students_link_loads_the_join_page_without_a_404(browser, app_url, wait_idle, screenshot):
    address = live.join_address("ABC234", app_url + "/grow")
    assert address == f"{app_url}/?room=ABC234"
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    context.set_default_timeout(60_000)
    page = context.new_page()
    failed, asked = [], []
    page.on("request", lambda r: asked.append(r.url))
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    try:
        page.goto(address)
        wait_idle(page)
        expect(page.get_by_role("heading", name="Live class")).to_be_visible()  # the students' page, at the root
        expect(page.get_by_text("No class has that code")).to_be_visible()
        expect(page.get_by_test_id("stSidebar")).to_be_hidden()  # a student's page: no data controls
        expect(page.get_by_test_id("stPageLink").filter(has_text="Back to the explorer")).to_be_visible()
        page.reload()  # every load, not only the first
        wait_idle(page)
        expect(page.get_by_role("heading", name="Live class")).to_be_visible()
        assert any(u.startswith(f"{app_url}/_stcore/health") for u in asked), asked
        assert not [u for u in asked if "/join/_stcore/" in u], asked
        assert failed == [], failed
        screenshot(page, "join-at-root-phone", full_page=False)
        # without a room the root is still the Introduction
        page.goto(app_url + "/")
        wait_idle(page)
        expect(page.get_by_test_id("stSidebar")).to_be_visible()
        expect(page.get_by_role("heading", name="Live class")).to_have_count(0)
    finally:
        context.close()
