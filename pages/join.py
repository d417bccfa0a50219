"""Join a live class: a student's own screen (phone-sized), opened as /join?room=CODE."""

from __future__ import annotations

from ui.classroom.live_student import render_join_page

render_join_page()
