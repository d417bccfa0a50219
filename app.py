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
from ui.errors import show_engine_error, show_unexpected_error
from ui.classroom.lessons import apply_lesson_link
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
DEFAULT_PAGE = "pages/home.py"


def existing_pages(pages: dict[str, list[tuple[str, str, str]]] = PAGES,
                   root: Path = ROOT) -> dict[str, list[tuple[str, str, str]]]:
    """The registry restricted to page files that exist under ``root`` (empty sections dropped)."""
    found = {section: [e for e in entries if (root / e[0]).is_file()]
             for section, entries in pages.items()}
    return {section: entries for section, entries in found.items() if entries}


def build_navigation() -> dict[str, list]:
    """``st.Page`` objects per section for the page files that exist."""
    return {
        section: [st.Page(path, title=title, icon=icon, default=(path == DEFAULT_PAGE))
                  for path, title, icon in entries]
        for section, entries in existing_pages().items()
    }


def main() -> None:
    st.set_page_config(
        page_title="Decision-tree explorer",
        page_icon=":material/account_tree:",
        layout="wide",
        initial_sidebar_state="expanded",
    )
    page = st.navigation(build_navigation(), position="sidebar", expanded=True)
    memory.start_janitor()  # once per server: gives memory back when tabs close (ui/memory.py)
    try:
        wheel.install()  # first in the main area (same place on every run): the wheel scrolls past charts
        state.init_state()
        if page.url_path != STUDENT_PAGE:  # a student's phone gets only the class, not the data controls
            apply_lesson_link()  # ?lesson=slug loads a ready-made classroom state once
            sidebar_summary()
        show_flashes()
        page.run()
    except EngineError as err:
        show_engine_error(err)
    except Exception as exc:  # noqa: BLE001 - never show a traceback; log it on the server
        show_unexpected_error(exc, where=f"page {page.title!r}")


# Streamlit runs this file as the module "__main__"; importing it (tests) only defines things.
if __name__ == "__main__":
    main()
