"""Join a live class: a student's own screen (phone-sized), opened as <app>/?room=CODE (app.py serves it at the root for a room) or /join."""

from __future__ import annotations

from ui.classroom.live_student import render_join_page

render_join_page()
