"""A student takes a live-class turn by keyboard alone (issue 37 item 4): join, answer, hear the reveal and the score.

Two browser contexts at 1366x768 = two Streamlit sessions on one server. The teacher starts a class in
presenter view and reveals; the student opens ``/join``, reaches the class code with Tab, types it, joins with a
nickname, Tabs to a feature's button and presses Enter, then reads the verdict and the score in the page's
``role="status"`` regions (what a screen reader announces); the teacher's count of answers and reveal are such
regions too. Nothing here calls ``click()``: every control is
reached with Tab (the student) or focused and pressed with Enter (the teacher), so a control the keyboard cannot
reach or operate fails the test.
"""

from __future__ import annotations

import re

from playwright.sync_api import expect

SIZE = {"width": 1366, "height": 768}
MAX_TABS = 60

#: what has the keyboard's focus: its role or tag, and its accessible name as Playwright's tests read it
_FOCUSED_JS = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return "";
  const label = el.getAttribute("aria-label") || (el.labels && el.labels[0] ? el.labels[0].textContent : "")
    || el.textContent || "";
  return `${el.getAttribute("role") || el.tagName.toLowerCase()}: ${label.trim()}`;
}"""


def focused(page) -> str:
    """The focused element as "role: name" ("input: Class code", "button: Outlook"), "" for none."""
    return page.evaluate(_FOCUSED_JS)


def tab_to(page, pattern: str) -> list[str]:
    """Press Tab until the focused element matches ``pattern`` (a regex over "role: name"); returns the stops on
    the way (the assertion message lists them when the control is never reached)."""
    stops = []
    for _ in range(MAX_TABS):
        page.keyboard.press("Tab")
        stops.append(focused(page))
        if re.search(pattern, stops[-1]):
            return stops
    raise AssertionError(f"{pattern!r} not reached by Tab in {MAX_TABS} presses: {stops}")


def press(locator) -> None:
    """The teacher's controls: focused, then Enter (a keyboard user who got there)."""
    locator.focus()
    locator.press("Enter")


def status_text(page, key: str) -> str:
    region = page.locator(f".st-key-dtx_status_{key}")
    expect(region).to_have_attribute("role", "status")
    return region.inner_text()


def test_a_student_joins_answers_and_hears_the_reveal_by_keyboard(browser, app_url, wait_idle, screenshot):
    contexts = []
    try:
        pages = []
        for _ in range(2):
            contexts.append(browser.new_context(viewport=SIZE, base_url=app_url))
            contexts[-1].set_default_timeout(60_000)
            pages.append(contexts[-1].new_page())
        teacher, student = pages

        teacher.goto("/grow?presenter=true")
        wait_idle(teacher)
        press(teacher.get_by_role("button", name="Start a live class"))
        wait_idle(teacher)
        address = teacher.get_by_test_id("stCode").first.inner_text().strip()
        code = re.search(r"room=([A-Z2-9]{6})", address).group(1)

        student.goto("/join")  # the code form: the student types what the projector shows
        wait_idle(student)
        tab_to(student, r"^input: Class code")
        student.keyboard.type(code)
        student.keyboard.press("Enter")  # submits the form
        wait_idle(student)
        expect(student.get_by_role("textbox", name="Your nickname")).to_be_visible()
        tab_to(student, r"^input: Your nickname")
        student.keyboard.type("Ana")
        student.keyboard.press("Enter")
        wait_idle(student)
        expect(student.get_by_text("Which feature will split node 0")).to_be_visible()
        assert "score 0 of 0" in status_text(student, "live_score")

        tab_to(student, r"^button: Outlook$")
        student.keyboard.press("Enter")
        wait_idle(student)
        expect(student.get_by_text(re.compile(r"Answer received: Outlook"))).to_be_visible()
        expect(teacher.get_by_text(re.compile(r"Answered: 1 of 1"))).to_be_visible(timeout=20_000)
        assert "Answered: 1 of 1" in status_text(teacher, "live_counts")  # the teacher hears the live count

        wait_idle(teacher)
        press(teacher.get_by_role("button", name="Reveal"))
        wait_idle(teacher)
        expect(teacher.locator(".st-key-dtx_status_live_reveal")).to_contain_text("Right: 1 of 1")
        assert re.search(r"Right: 1 of 1 \(100%\) · the winner: Outlook", status_text(teacher, "live_reveal"))
        verdict = student.locator(".st-key-dtx_status_live_verdict")
        expect(verdict).to_contain_text(re.compile(r"Right: node 0 is split on Outlook"), timeout=20_000)
        wait_idle(student)
        assert re.search(r"✓ Right: node 0 is split on Outlook", status_text(student, "live_verdict"))
        expect(student.locator(".st-key-dtx_status_live_score")).to_have_text("You: Ana · score 1 of 1")
        screenshot(student, "keyboard_student_reveal", full_page=False)
        for page in (teacher, student):
            expect(page.get_by_test_id("stException")).to_have_count(0)
    finally:
        for c in contexts:
            c.close()
