"""End to end in Chromium: the wheel scrolls the page over a tree diagram until the diagram is clicked or a
modifier key is held (ui/wheel.py), at 1366x768 on a tree taller than the window."""

from __future__ import annotations

from playwright.sync_api import expect

expect.set_options(timeout=60_000)

GRAPH = ".st-key-grow_tree .js-plotly-plot"
VIEW = ("() => { const m = document.querySelector('[data-testid=stMain]'); const g = document.querySelector(%r);"
        " return {scroll: Math.round(m.scrollTop + window.scrollY), x: g._fullLayout.xaxis.range.slice(),"
        " y: g._fullLayout.yaxis.range.slice()}; }" % GRAPH)


def view(page) -> dict:
    return page.evaluate(VIEW)


def wheel(page, dy: int) -> dict:
    page.mouse.wheel(0, dy)
    page.wait_for_timeout(500)
    return view(page)


def plot_point(page) -> tuple[float, float]:
    """A point of the diagram's plot area inside the window (where Plotly's wheel zoom listens)."""
    area = page.locator(f"{GRAPH} .nsewdrag").first.bounding_box()
    top, bottom = max(area["y"], 0), min(area["y"] + area["height"], 768)
    assert bottom - top > 100, area
    return area["x"] + area["width"] * 0.5, top + 60


def test_the_wheel_scrolls_the_page_until_the_diagram_is_clicked(browser, app_url, wait_idle, screenshot):
    context = browser.new_context(viewport={"width": 1366, "height": 768}, base_url=app_url)
    context.set_default_timeout(60_000)
    page = context.new_page()
    try:
        page.goto("/grow?data=wine&step=12")
        wait_idle(page)
        expect(page.locator(GRAPH)).to_be_visible()
        assert page.locator(GRAPH).bounding_box()["height"] > 600  # a tall diagram: most of the window
        page.locator(GRAPH).scroll_into_view_if_needed()
        x, y = plot_point(page)
        page.mouse.move(x, y)
        start = view(page)
        # plain wheel over the diagram: the page scrolls, the diagram keeps its view
        after = wheel(page, 200)
        assert after["scroll"] > start["scroll"] and (after["x"], after["y"]) == (start["x"], start["y"])
        # Ctrl + wheel (also a trackpad's pinch): the diagram zooms, the page stays
        page.keyboard.down("Control")
        zoomed = wheel(page, -200)
        page.keyboard.up("Control")
        assert zoomed["scroll"] == after["scroll"] and zoomed["x"] != after["x"]
        # a click in the diagram picks it: the wheel zooms it from then on
        x, y = plot_point(page)
        page.mouse.click(x, y)
        wait_idle(page)
        picked = view(page)
        more = wheel(page, -200)
        assert more["x"] != picked["x"] and more["scroll"] == picked["scroll"]
        screenshot(page, "wheel-zoomed-after-click-1366", full_page=False)
        # the pointer leaves the diagram and comes back: the wheel scrolls the page again
        page.mouse.move(5, 400)
        page.mouse.move(x, y)
        back = wheel(page, 200)
        assert back["scroll"] > more["scroll"] and back["x"] == more["x"]
    finally:
        context.close()
