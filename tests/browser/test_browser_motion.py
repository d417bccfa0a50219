"""Motion, in Chromium (issue 37 item 4): "Play can be paused, and prefers-reduced-motion is honoured".

- With the system's "reduce motion" setting (Playwright's ``reduced_motion="reduce"``, the CSS media feature
  ``prefers-reduced-motion: reduce``) no element of any page keeps an animated transition or animation
  (ui.access.a11y's page-wide style; it was only on pages that draw a tree diagram, so the Data page's sidebar
  still slid for 0.3 s). Without the setting, Streamlit's own transitions are there: the measure can fail.
- Play starts by keyboard (Tab to it, Enter) and stops with the P shortcut; after the pause the tree stays.
"""

from __future__ import annotations

import re

from playwright.sync_api import expect

expect.set_options(timeout=60_000)
SIZE = {"width": 1366, "height": 768}
PAGES = ("/", "/data", "/grow?data=play_tennis&cfg=alg:id3&step=2", "/prune", "/evaluate", "/theory", "/lessons",
         "/join")
#: elements whose transition or animation lasts longer than the reduced-motion style's 0.01 ms, as "testid: 0.3s"
MOVING = """() => {
  const secs = (v) => Math.max(0, ...v.split(',').map(x => x.trim()).map(x => x.endsWith('ms') ? parseFloat(x) / 1000
                                                                              : parseFloat(x)));
  const out = new Set();
  for (const el of document.querySelectorAll('*')) {
    const s = getComputedStyle(el);
    const t = secs(s.transitionDuration), a = s.animationName !== 'none' ? secs(s.animationDuration) : 0;
    if (t > 1e-4 || a > 1e-4) out.add(`${el.dataset.testid || el.tagName.toLowerCase()}: ${Math.max(t, a)}s`);
  }
  return [...out];
}"""
#: the page-wide accessibility style (ui.access.a11y) has arrived: measured before it, any page still moves
STYLED = """() => [...document.querySelectorAll('style')].some(s => s.textContent.includes(".st-key-dtx_a11y, "))"""
ACTIVE = """() => { const a = document.activeElement;
  return a && a !== document.body ? (a.innerText || a.getAttribute('aria-label') || '').trim() : ''; }"""


def moving(browser, app_url, wait_idle, motion: str, path: str) -> list[str]:
    context = browser.new_context(viewport=SIZE, base_url=app_url, reduced_motion=motion)
    context.set_default_timeout(60_000)
    try:
        page = context.new_page()
        page.goto(path)
        wait_idle(page)
        page.wait_for_function(STYLED)
        page.wait_for_timeout(300)
        return page.evaluate(MOVING)
    finally:
        context.close()


def test_reduced_motion_stops_every_transition_on_every_page(browser, app_url, wait_idle):
    assert any(m.startswith("stSidebar:") for m in moving(browser, app_url, wait_idle, "no-preference", "/data"))
    found = {path: moving(browser, app_url, wait_idle, "reduce", path) for path in PAGES}
    assert not any(found.values()), {k: v[:10] for k, v in found.items() if v}


def test_play_starts_by_keyboard_and_p_pauses_it(page, wait_idle):
    page.goto("/grow?data=play_tennis&cfg=alg:id3")
    wait_idle(page)
    status = page.get_by_text(re.compile(r"^Step \d+ · \d+ nodes? ·")).first
    expect(status).to_have_text(re.compile(r"^Step 0 · "))
    page.locator("body").focus()
    stops = []
    for _ in range(120):
        page.keyboard.press("Tab")
        stops.append(page.evaluate(ACTIVE))
        if re.match(r"play_arrow\s+Play\b", stops[-1]):  # the button's icon, label and shortcut hint
            break
    else:
        raise AssertionError(f"Tab never reached Play: {list(dict.fromkeys(stops))}")
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name=re.compile(r"Pause"))).to_be_visible()
    expect(status).to_have_text(re.compile(r"^Step [2-9] · "))  # Play steps by itself
    page.locator("body").focus()
    page.keyboard.press("p")
    expect(page.get_by_role("button", name=re.compile(r"Play"))).to_be_visible()
    wait_idle(page)
    paused = status.inner_text()
    page.wait_for_timeout(3_000)  # three paces: no step comes
    wait_idle(page)
    assert status.inner_text() == paused
    expect(page.get_by_test_id("stException")).to_have_count(0)
