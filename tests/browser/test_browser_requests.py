"""End to end in Chromium: the pages ask no server but the app's own.

Every page (and the students' join page) is opened in a fresh tab while every request the tab makes
is recorded (``page.on("request")``: the page's own requests only; Chromium runs with
``--disable-background-networking``, see conftest.py, so its own update and safe-browsing traffic
neither happens nor counts). Any request to another origin fails the test: an offline classroom
network would show an error for it, and elsewhere it tells an outside server who uses the app. The
tab's icon was such a request (a Material Symbol fetched from fonts.gstatic.com on every page load);
it now ships with the app (ui/page_icon.svg, inlined by Streamlit as a data: URL).
"""

from __future__ import annotations

from urllib.parse import urlsplit

PAGES = ["", "data", "grow", "prune", "evaluate", "rules", "ensembles", "theory", "lessons", "join"]
LOCAL_SCHEMES = {"data", "blob", "about"}


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def outside(requests: list[str], app_url: str) -> list[str]:
    """The recorded URLs that leave the app's origin (data:, blob: and about: never leave the browser)."""
    own = _origin(app_url)
    return [u for u in requests if urlsplit(u).scheme not in LOCAL_SCHEMES and _origin(u) != own]


def test_outside_is_what_leaves_the_origin():
    own = "http://127.0.0.1:8501"
    assert outside([own + "/", own + "/static/x.js", "data:image/svg+xml,<svg/>", "blob:" + own + "/1"], own) == []
    assert outside(["https://fonts.gstatic.com/s/i/x.svg", "http://127.0.0.1:8502/"], own) == [
        "https://fonts.gstatic.com/s/i/x.svg", "http://127.0.0.1:8502/"]


def test_no_page_requests_another_origin(browser, app_url, wait_idle, screenshot):
    seen: dict[str, list[str]] = {}
    icons: dict[str, str] = {}
    for path in PAGES:
        context = browser.new_context(viewport={"width": 1440, "height": 1000}, base_url=app_url)
        tab = context.new_page()
        requests: list[str] = []
        tab.on("request", lambda r, into=requests: into.append(r.url))
        try:
            tab.goto("/" + path)
            wait_idle(tab)
            if path == "grow":  # a step draws the diagram, the region plot and the inspector's charts
                tab.locator(".st-key-_w_grow_step button").click()
                wait_idle(tab)
            tab.wait_for_timeout(1500)  # the favicon and late fonts are asked for after the script run
            icons[path] = tab.evaluate("() => [...document.querySelectorAll(\"link[rel*='icon']\")]"
                                       ".map(l => l.href).join(' ')")
            if path in ("", "grow"):
                screenshot(tab, f"requests-{path or 'home'}", full_page=False)
        finally:
            context.close()
        seen[path] = requests
    assert all(seen.values()), "every page was loaded and its requests recorded"
    leaving = {p or "/": outside(r, app_url) for p, r in seen.items() if outside(r, app_url)}
    assert not leaving, leaving
    # the tab's icon is the app's own, inlined: no font CDN
    assert all(i.startswith("data:image/svg+xml") and "gstatic" not in i for i in icons.values()), icons
