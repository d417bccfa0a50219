"""End to end in Chromium: choosing an algorithm in the Grow page's settings and stepping shows no error.

The browser sends a selectbox's choice back as the option's shown text. The Impurity, Score and
Categorical split boxes used to show "preset (entropy)" and so on, text that changed with the algorithm, so
after CART the browser sent "preset (entropy)" back and every Step showed "criterion must be one of ...;
got 'preset (entropy)'" (with C4.5: "score must be one of ...").
"""

from __future__ import annotations

import re

from playwright.sync_api import expect

expect.set_options(timeout=60_000)


def _choose(page, wait_idle, label: str, option: str) -> None:
    box = page.get_by_test_id("stSelectbox").filter(has_text=label).first
    if not box.is_visible():  # the settings expander closed on a rerun
        page.get_by_text("Settings: algorithm, impurity, stopping rules").click()
    box.click()
    if not page.get_by_role("option", name=option, exact=True).is_visible():  # a focused box: the click closed it
        box.click()
    page.get_by_role("option", name=option, exact=True).click()
    wait_idle(page)


def test_cart_then_c45_then_steps_without_an_error(page, wait_idle, screenshot):
    page.goto("/grow")
    wait_idle(page)
    for algorithm, impurity in (("CART", "Impurity (preset: gini)"), ("C4.5", "Impurity (preset: entropy)")):
        _choose(page, wait_idle, "Algorithm", algorithm)
        expect(page.get_by_text(impurity)).to_be_visible()  # the preset's value is in the label
        for i in (1, 2):  # choosing an algorithm starts a new tree
            page.locator(".st-key-_w_grow_step button").click()
            wait_idle(page)
            expect(page.get_by_text(re.compile(rf"Step {i} · "))).to_be_visible()
            expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    screenshot(page, "settings-c45-steps", full_page=False)
