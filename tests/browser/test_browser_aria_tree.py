"""End to end in Chromium: the Grow page's tree diagram is an ARIA tree (ui.access.aria_tree, issue 37 item 1).

After two steps on Play Tennis the page holds a ``tree`` whose items name each node's test, counts and branch
(read through Playwright's ``aria_snapshot``, what a screen reader is given); the arrow keys move the focus between
parent, children and siblings (and not the page's Step/Undo shortcuts), the focused box is outlined on the diagram,
Enter opens the node in the inspector, and the focus stays on its node across the rerun and a Step. No click.
"""

from __future__ import annotations

import re

from playwright.sync_api import expect

expect.set_options(timeout=60_000)

INSPECTOR = "[class*='st-key-_w_grow_node_'] input[role='combobox']"
FOCUSED = "() => { const a = document.activeElement; return a && a.getAttribute('role') === 'treeitem' ? a.getAttribute('aria-label') : null; }"
# the dashed outline the tree draws on the diagram, and the centres of the boxes (customdata = [id, kind])
OUTLINE = """() => {
  const gd = document.querySelector('.st-key-grow_tree .js-plotly-plot');
  const s = (gd.layout.shapes || []).find(s => s.name === 'aria:focus');
  const t = gd._fullData.find(t => t.name === 'nodes');
  const hits = s ? t.customdata.filter((c, i) => Math.abs(t.x[i] - (s.x0 + s.x1) / 2) < 0.5
                                         && s.y1 < t.base[i] && s.y0 > t.base[i] + t.y[i]).map(c => c[0]) : [];
  return {outline: !!s, nodes: hits, relayouts: window.__dtxAriaRelayouts || 0};
}"""


def focused(page) -> str | None:
    return page.evaluate(FOCUSED)


def tab_to_tree(page, limit: int = 80) -> int:
    """Tab from the top of the page until a tree item has the focus; the number of presses."""
    for n in range(1, limit + 1):
        page.keyboard.press("Tab")
        if focused(page):
            return n
    raise AssertionError("Tab never reached the tree")


def press(page, key: str) -> str:
    page.keyboard.press(key)
    page.wait_for_function("() => document.activeElement && document.activeElement.getAttribute('role') === 'treeitem'")
    return focused(page)


def open_tennis(page, wait_idle):
    page.goto("/grow?data=play_tennis&cfg=alg:id3&step=2")
    wait_idle(page)
    expect(page.get_by_role("tree", name="Decision tree being grown")).to_be_attached()


def test_grow_tree_after_two_steps_is_a_tree_naming_each_nodes_test(page, wait_idle):
    open_tennis(page, wait_idle)
    snap = page.get_by_role("tree", name="Decision tree being grown").aria_snapshot()
    assert snap.startswith('- tree "Decision tree being grown":')
    for line in ['treeitem "Node 0, tests Outlook: 14 rows, entropy 0.940, 5 No / 9 Yes" [expanded] [level=1]',
                 'treeitem "Node 1, leaf, predicts Yes: 4 rows, entropy 0.000, 0 No / 4 Yes; stopped: all rows have '
                 'the same label; branch Outlook = Overcast" [level=2]',
                 'treeitem "Node 2, tests Wind: 5 rows, entropy 0.971, 2 No / 3 Yes; branch Outlook = Rain" [expanded] '
                 '[level=2] [selected]',
                 'treeitem "Node 4, open leaf, not split yet, majority No: 2 rows, entropy 0.000, 2 No / 0 Yes; '
                 'branch Wind = Strong" [level=3]',
                 'treeitem "Node 3, open leaf, not split yet, majority No: 5 rows, entropy 0.971, 3 No / 2 Yes; '
                 'branch Outlook = Sunny" [level=2]']:
        assert line in snap, snap
    assert snap.count("treeitem") == 6  # one per drawn node
    tree = page.get_by_role("tree", name="Decision tree being grown")
    expect(tree.get_by_role("treeitem", name=re.compile(r"^Node 2,"))).to_have_attribute("aria-setsize", "3")
    expect(tree.get_by_role("treeitem", name=re.compile(r"^Node 2,"))).to_have_attribute("aria-posinset", "2")


def test_arrow_keys_move_between_parent_child_and_sibling_and_enter_opens_the_inspector(page, wait_idle, screenshot):
    open_tennis(page, wait_idle)
    page.locator("body").focus()
    tab_to_tree(page)
    assert press(page, "Home").startswith("Node 0,")
    assert press(page, "ArrowRight").startswith("Node 1,")  # open: to the first child
    assert press(page, "ArrowDown").startswith("Node 2,")  # the next sibling
    assert press(page, "ArrowRight").startswith("Node 4,")  # its first child
    assert press(page, "ArrowDown").startswith("Node 5,")
    assert press(page, "ArrowLeft").startswith("Node 2,")  # a leaf: to the parent
    assert press(page, "ArrowLeft").startswith("Node 2,")  # open: closes it, the focus stays
    expect(page.get_by_role("treeitem", name=re.compile(r"^Node 2,"))).to_have_attribute("aria-expanded", "false")
    assert press(page, "ArrowDown").startswith("Node 3,")  # its children are hidden: the next sibling
    assert press(page, "ArrowUp").startswith("Node 2,")
    assert press(page, "ArrowRight").startswith("Node 2,")  # opens it again
    assert press(page, "End").startswith("Node 3,")
    assert press(page, "ArrowLeft").startswith("Node 0,")
    wait_idle(page)
    expect(page.get_by_text(re.compile(r"^Step 2 · 6 nodes")).first).to_be_visible()  # the arrows did not Step/Undo
    assert press(page, "End").startswith("Node 3,")
    page.wait_for_function(f"() => ({OUTLINE})().nodes.join() === '3'")  # the focused box is outlined
    page.locator(".st-key-grow_tree").scroll_into_view_if_needed()
    expect(page.locator(".dtx-aria-caption")).to_have_text(re.compile(r"^Node 3, open leaf"))
    screenshot(page, "aria-tree-focus-node-3", full_page=False)
    assert not page.locator(INSPECTOR).first.input_value().startswith("#3 ")
    page.keyboard.press("Enter")
    expect(page.locator(INSPECTOR).first).to_have_value(re.compile(r"^#3 · "))
    wait_idle(page)
    expect(page.get_by_role("treeitem", name=re.compile(r"^Node 3,"))).to_have_attribute("aria-selected", "true")
    page.wait_for_function("() => { const a = document.activeElement;"
                           " return a && (a.getAttribute('aria-label') || '').startsWith('Node 3,'); }")
    relayouts = page.evaluate(OUTLINE)["relayouts"]
    page.wait_for_timeout(500)
    assert page.evaluate(OUTLINE)["relayouts"] == relayouts  # nothing redraws the outline in a loop
    changes = page.evaluate("""() => new Promise(done => {  // nor rewrites the caption (each write woke the
      let n = 0;                                            // page's observers: a rescan every 30 ms)
      const o = new MutationObserver(list => { n += list.length; });
      o.observe(document.querySelector('.dtx-aria-caption'), {childList: true, characterData: true, subtree: true});
      setTimeout(() => { o.disconnect(); done(n); }, 500); })""")
    assert changes == 0
    # Step by keyboard (Shift+Tab back to the button), then Tab into the tree again: the same node has the focus
    for _ in range(40):
        page.keyboard.press("Shift+Tab")
        if page.evaluate("() => document.activeElement.innerText.startsWith('skip_next')"):
            break
    page.keyboard.press("Enter")
    wait_idle(page)
    expect(page.get_by_text(re.compile(r"^Step 3 · 8 nodes")).first).to_be_visible()
    for _ in range(40):
        page.keyboard.press("Tab")
        if focused(page):
            break
    assert focused(page).startswith("Node 3, tests Humidity")  # its name follows the tree; the focus stayed on it
    expect(page.get_by_test_id("stException")).to_have_count(0)
