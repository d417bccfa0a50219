"""Lessons: ready-made classroom states (each one link), the teacher's own lesson files, and the shelf of
``.dtx`` files an operator put in ``DTX_LESSONS_DIR``."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from engine.errors import EngineError
from ui import state
from ui.classroom import lesson_io
from ui.classroom.lessons import LESSONS, lesson_url
from ui.widgets import md_escape

state.leave_legacy_pages_mode()  # a deep link on a fresh server: run through the frame (app.py)
st.title("Lessons")
st.caption("Each lesson opens a page with the data set, settings, step and classroom switches ready. "
           "Send the address to your class, or open it on the projector.")

with st.expander("Classroom mode in short"):
    st.markdown(
        "- **Presenter view** (Grow page): hides the settings and panels, enlarges the diagram, plot and "
        "text for a projector. **Step**, **Undo**, **Reset** and **Play** stay, also on the keyboard: "
        "**→** step, **←** undo, **Home** reset, **P** play/pause.\n"
        "- **Quiz**: before each step the class guesses the feature (with CART and C4.5 also a threshold); "
        "then the gain table is revealed with the guess and the winner marked, and the score is kept.\n"
        "- **Narration**: every step is explained in a sentence with its numbers, in English or German.\n"
        "- **Your own lesson**: set up the Grow page, switch presenter view or the quiz on, and copy the "
        "address (or the link under *Export & share*): it reopens that state.\n"
        "- **Your own lesson file**: on your own data too. Prepare the tree on the Grow page (steps, forced splits, "
        "collapses, a note on a step under the narration), then save it below or under *Export & share*. "
        "Opening the file restores the data, settings, tree, history, switches and notes on every page."
    )

st.subheader("Your own lesson file", anchor=False)
open_col, save_col = st.columns(2, gap="large")
with open_col:
    lesson_io.render_open("lessons")
with save_col, st.expander("Save the current state as a lesson file"):
    try:
        from ui.grow import controls

        lesson_io.render_save(controls.session_grower())
    except EngineError as err:
        st.error(md_escape(err))
lesson_io.go_to_grow_if_opened()  # "Open" / "Start a live class" below ran their callbacks before this run

items, shelf_note = lesson_io.shelf()
if lesson_io.lessons_dir() is not None:
    st.subheader("Lessons in the lessons folder", anchor=False)
    if shelf_note:
        st.caption(shelf_note)
    if not items:
        st.caption("The lessons folder holds no .dtx files.")
    for i, item in enumerate(items):
        lesson_io.render_shelf_item(item, i)

st.subheader("Ready-made lessons", anchor=False)


for lesson in LESSONS:
    with st.container(border=True, key=f"lesson_{lesson.slug}"):
        st.subheader(lesson.title)
        st.markdown(md_escape(lesson.summary))
        st.caption(lesson.promise())
        if lesson.available:
            c1, c2 = st.columns([1, 3], vertical_alignment="center")
            c1.page_link(lesson.page, label="Open the lesson", icon=":material/play_lesson:",
                         query_params=lesson.query_params())
            c2.code(lesson_url(lesson), language=None, wrap_lines=True)
            if lesson.page == "pages/grow.py":  # a live class runs on the Grow page
                lesson_io.live_button(lesson.slug)
        else:
            st.info(f"This lesson opens the {md_escape(Path(lesson.page).stem.capitalize())} page, which is not part "
                    "of this version yet.", icon=":material/hourglass_empty:")
