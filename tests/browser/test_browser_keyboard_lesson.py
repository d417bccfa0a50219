"""A whole lesson by keyboard alone, in Chromium (issue 37 item 4): this test never clicks.

Load Play Tennis on the Data page, change a setting, Step twice, walk the diagram's ARIA tree to a node and open it
in the inspector, force a split there, go to Prune and prune, go to Ensembles, train and read the vote breakdown.
Every control is reached with Tab / Shift+Tab (so it is in the tab order) and worked with Enter, typing or arrows.
Along the way: the focus stays on Step after a Step (a rerun draws the button anew: ui.access.aria_tree's script gives
the focus back), narration and the vote are role="status" regions.
"""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.browser.conftest import SCREENSHOTS

expect.set_options(timeout=60_000)

ACTIVE = """() => { const a = document.activeElement;
  if (!a || a === document.body) return '<BODY>';
  return (a.getAttribute('aria-label') || a.innerText || '').replace(/\\s+/g, ' ').trim() + ' <' + a.tagName + '>'; }"""
INSPECTOR = "[class*='st-key-_w_grow_node_'] input[role='combobox']"


def active(page) -> str:
    return page.evaluate(ACTIVE)


def tab_to(page, pattern: str, *, back: bool = False, limit: int = 200) -> str:
    """Press Tab (Shift+Tab with ``back``) until the focused element's name matches ``pattern``."""
    rx = re.compile(pattern)
    seen = []
    for _ in range(limit):
        page.keyboard.press("Shift+Tab" if back else "Tab")
        seen.append(active(page))
        if rx.search(seen[-1]):
            return seen[-1]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SCREENSHOTS / "keyboard-lesson-lost.png", full_page=True)
    stops = list(dict.fromkeys(seen))  # the distinct stops in the order the keyboard met them
    raise AssertionError(f"the keyboard never reached {pattern!r}; its {len(stops)} stops: {stops}")


def test_a_lesson_by_keyboard_alone(page, wait_idle, screenshot):
    page.goto("/data")
    wait_idle(page)
    expect(page.get_by_role("combobox", name=re.compile(r"^Sample data set"))).to_be_visible()
    # 1. the Play Tennis sample
    tab_to(page, r"^Sample data set <INPUT>")
    page.keyboard.type("play_tennis")
    page.keyboard.press("Enter")
    wait_idle(page)
    tab_to(page, r"Use this sample <BUTTON>")
    page.keyboard.press("Enter")
    wait_idle(page)
    expect(page.get_by_test_id("stSidebar")).to_contain_text("play_tennis")
    # 2. to Grow through the navigation, and a setting: the impurity
    tab_to(page, r"Grow <A>")
    page.keyboard.press("Enter")
    wait_idle(page)
    expect(page).to_have_url(re.compile(r"/grow"))
    tab_to(page, r"Settings: algorithm.* <SUMMARY>$")
    page.keyboard.press("Enter")
    expect(page.get_by_role("combobox", name=re.compile(r"^Impurity"))).to_be_visible()
    tab_to(page, r"^Impurity.* <INPUT>$")
    page.keyboard.type("gini")
    page.keyboard.press("Enter")
    wait_idle(page)
    expect(page).to_have_url(re.compile(r"crit%3Agini"))
    # 3. Step twice with Enter: the focus stays on Step
    tab_to(page, r"Step → <BUTTON>")
    page.keyboard.press("Enter")
    wait_idle(page)
    page.wait_for_function("() => document.activeElement && document.activeElement.innerText.includes('Step')")
    page.keyboard.press("Enter")
    wait_idle(page)
    expect(page.get_by_text(re.compile(r"^Step 2 · 6 nodes")).first).to_be_visible()
    narration = page.locator("[class*='st-key-dtx_status_narration']")
    expect(narration).to_have_attribute("role", "status")
    expect(narration).to_contain_text("Wind")  # the second step, in words, read out politely
    # 4. the ARIA tree: to node 3 (Outlook = Sunny) and open it in the inspector
    tab_to(page, r"<DIV>$")
    assert active(page).startswith("Node ")
    page.keyboard.press("Home")
    page.keyboard.press("End")
    assert active(page).startswith("Node 3, open leaf"), active(page)
    page.keyboard.press("Enter")
    expect(page.locator(INSPECTOR).first).to_have_value(re.compile(r"^#3 · "))
    wait_idle(page)
    # 5. force a split of node 3 on Temperature (not its best test)
    tab_to(page, r"^Explain the candidate split on")
    page.keyboard.type("Temperature")
    page.keyboard.press("Enter")
    wait_idle(page)
    tab_to(page, r"Split node 3 this way")
    page.keyboard.press("Enter")
    wait_idle(page)
    tree = page.get_by_role("tree", name="Decision tree being grown")
    expect(tree.get_by_role("treeitem", name=re.compile(r"^Node 3, tests Temperature"))).to_have_count(1)
    screenshot(page, "keyboard-lesson-forced-split", full_page=False)
    # 6. Prune by hand: the method with the arrows, node 3 picked in the "Before" tree, then "Prune below"
    tab_to(page, r"Prune <A>", back=True)
    page.keyboard.press("Enter")
    wait_idle(page)
    expect(page).to_have_url(re.compile(r"/prune"))
    tab_to(page, r"^(Reduced error|Cost complexity \(α\)|C4.5 pessimistic|Bottom-up f\(T, m\)|By hand) <BUTTON>$")
    for _ in range(8):  # the arrows move along the methods' radio group; Enter picks one
        if active(page).startswith("By hand"):
            break
        page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    wait_idle(page)
    expect(page.get_by_role("heading", name="Prune by hand")).to_be_visible()
    before = page.get_by_role("tree", name="Tree before pruning")
    expect(before).to_be_attached()
    tab_to(page, r"^Node \d+, .*<DIV>$")
    page.keyboard.press("Home")
    for _ in range(12):
        if active(page).startswith("Node 3,"):
            break
        page.keyboard.press("ArrowDown")
    assert active(page).startswith("Node 3, tests Temperature"), active(page)
    page.keyboard.press("Enter")  # picks node 3 for the cut, as a click on its box does
    wait_idle(page)
    expect(page.locator(".st-key-_w_prune_node input[role='combobox']")).to_have_value(re.compile(r"^#3 "))
    tab_to(page, r"Prune below <BUTTON>", back=True)
    page.keyboard.press("Enter")
    wait_idle(page)
    after = page.get_by_role("tree", name="Tree after pruning")
    expect(after.get_by_role("treeitem", name=re.compile(r"^Node 3, leaf"))).to_have_count(1)
    expect(before.get_by_role("treeitem", name=re.compile(r"; pruned$"))).not_to_have_count(0)
    # 7. Ensembles: train, then the vote breakdown is read out
    tab_to(page, r"Ensembles <A>", back=True)
    page.keyboard.press("Enter")
    wait_idle(page)
    expect(page).to_have_url(re.compile(r"/ensembles"))
    tab_to(page, r"Train <BUTTON>")
    page.keyboard.press("Enter")
    wait_idle(page)
    vote = page.locator("[class*='st-key-dtx_status_ens_vote']")
    expect(vote).to_have_attribute("role", "status")
    expect(vote).to_contain_text(re.compile(r"members vote on row \d+ .*: (Yes|No) wins, \d+ of \d+ votes"))
    screenshot(page, "keyboard-lesson-vote", full_page=False)
    expect(page.get_by_test_id("stException")).to_have_count(0)
