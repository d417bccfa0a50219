"""Decision-tree explorer: the frame every page runs in.

Sets up the page, fills the session with defaults once, draws the shared sidebar (active data set,
target, task, rows, random seed) and routes to the page scripts in ``pages/``. No maths here.

Run it with ``streamlit run app.py``.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from engine.errors import EngineError
from ui import memory, state, wheel
from ui.access import a11y
from ui.errors import show_engine_error, show_unexpected_error
from ui.classroom.lessons import apply_lesson_link
from ui.classroom.live import ROOM_PARAM, stage_middleware  # a student's link is <app>/?room=CODE
from ui.widgets import show_flashes, sidebar_summary

ROOT = Path(__file__).resolve().parent

# Section -> pages as (script path relative to this file, title, Material icon).
# A page is listed only once its file exists, so the app runs while pages are being written.
# To add a page: add one line to the right section.
PAGES: dict[str, list[tuple[str, str, str]]] = {
    "Start": [
        ("pages/home.py", "Introduction", ":material/waving_hand:"),
    ],
    "Data": [
        ("pages/data.py", "Data", ":material/table_view:"),
    ],
    "Tree": [
        ("pages/grow.py", "Grow", ":material/account_tree:"),
        ("pages/prune.py", "Prune", ":material/content_cut:"),
        ("pages/evaluate.py", "Evaluate", ":material/fact_check:"),
        ("pages/rules.py", "Rules", ":material/rule:"),
        ("pages/ensembles.py", "Ensembles", ":material/forest:"),
    ],
    "Theory": [
        ("pages/theory.py", "Theory", ":material/functions:"),
        ("pages/lessons.py", "Lessons", ":material/school:"),
    ],
    "Class": [
        ("pages/join.py", "Join a live class", ":material/groups:"),
    ],
}
STUDENT_PAGE = "join"  # url path of the students' page: no sidebar, no data controls
STUDENT_SCRIPT = "pages/join.py"
DEFAULT_PAGE = "pages/home.py"
# The tab's icon ships with the app: Streamlit inlines a local .svg file as a data: URL. A Material
# Symbol here (":material/account_tree:") made every visitor's browser fetch it from fonts.gstatic.com
# (offline classrooms: an error on every page; elsewhere: Google told of every visit). Icons of st.Page,
# st.page_link and alerts come from the font bundled with Streamlit and need no request.
PAGE_ICON = ROOT / "ui" / "page_icon.svg"
NAV_KEY = "dtx_nav"  # the sidebar's page links: st.container(key=...) -> CSS class st-key-dtx_nav


def existing_pages(pages: dict[str, list[tuple[str, str, str]]] = PAGES,
                   root: Path = ROOT) -> dict[str, list[tuple[str, str, str]]]:
    """The registry restricted to page files that exist under ``root`` (empty sections dropped)."""
    found = {section: [e for e in entries if (root / e[0]).is_file()]
             for section, entries in pages.items()}
    return {section: entries for section, entries in found.items() if entries}


def root_page(query: dict) -> str:
    """The page served at the app's root address: the students' page for a student's link
    (``<app>/?room=CODE``), else the Introduction.

    Students' links and QR codes point at the root, not at ``/join``: when a page is loaded from any other
    path, Streamlit's frontend first tries that path as the app's base path (``/join/_stcore/health`` and
    ``/join/_stcore/host-config``, two 404s on every load) before it falls back to ``/``.
    """
    return STUDENT_SCRIPT if query.get(ROOM_PARAM) else DEFAULT_PAGE


def build_navigation(default: str = DEFAULT_PAGE) -> dict[str, list]:
    """``st.Page`` objects per section for the page files that exist (``default`` is served at the root)."""
    return {
        section: [st.Page(path, title=title, icon=icon, default=(path == default))
                  for path, title, icon in entries]
        for section, entries in existing_pages().items()
    }


def sidebar_navigation(pages: dict[str, list]) -> None:
    """The pages as links at the top of the sidebar, section by section, in the registry's order (each with its
    title and icon; Streamlit draws the current page's link bold on a shaded background).

    Streamlit's own sidebar list (``st.navigation(position="sidebar")``) fails WCAG 1.3.1 in axe-core: its ``<ul>``
    holds a ``<div>`` per section and the ``<li>`` items sit in those, outside any list (11 violating elements on
    every page). These links carry no list markup, so a screen reader reads them as links in order.
    """
    with st.sidebar, st.container(key=NAV_KEY):
        for section, entries in pages.items():
            st.caption(section)
            for page in entries:
                st.page_link(page)


def main() -> None:
    st.set_page_config(
        page_title="Decision-tree explorer",
        page_icon=str(PAGE_ICON),
        layout="wide",
        initial_sidebar_state="expanded",
    )
    default = root_page(st.query_params)
    pages = build_navigation(default)
    page = st.navigation(pages, position="hidden")  # drawn by sidebar_navigation (WCAG: see there)
    student = page.url_path == STUDENT_PAGE or (page.url_path == "" and default == STUDENT_SCRIPT)
    if not student:  # a student's phone has no sidebar
        sidebar_navigation(pages)
    memory.start_janitor()  # once per server: gives memory back when tabs close (ui/memory.py)
    try:
        wheel.install()  # first in the main area (same place on every run): the wheel scrolls past charts
        a11y.install()  # focusable formulas, charts named by their description, the current page marked
        state.init_state()
        if not student:  # a student's phone gets only the class, not the data controls
            apply_lesson_link()  # ?lesson=slug loads a ready-made classroom state once
            sidebar_summary()
        show_flashes()
        page.run()
    except EngineError as err:
        show_engine_error(err)
    except Exception as exc:  # noqa: BLE001 - never show a traceback; log it on the server
        show_unexpected_error(exc, where=f"page {page.title!r}")


# Each session runs this file as the module "__main__". `streamlit run app.py` (and `uvicorn app:app`) first
# imports it as the module "app" and serves the `st.App` it finds there: Streamlit's server plus the live
# class's stage route (ui.classroom.live.stage_middleware; Streamlit 1.67 finds an `app = st.App(...)` in
# the file and runs it). Importing it elsewhere (tests) only defines things, that App object included: it does
# nothing until a server runs it.
if __name__ == "__main__":
    main()
else:
    app = st.App(__file__, middleware=stage_middleware())
