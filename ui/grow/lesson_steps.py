"""A lesson opened before its end: Step walks through the teacher's prepared actions.

Opening a lesson file at step k (:mod:`ui.classroom.lesson_io`) keeps the lesson's whole action log here
(:data:`PREPARED`). While the session's grower is the one the lesson opened and its step count is where the
prepared history expects it, Step (button, arrow key, Play, which stops at the lesson's last step), Step ×5
and Grow to end apply the next prepared actions (forced splits and collapses included; Grow to end stops at
the lesson's last step); Undo steps back and the undone action is offered again. Any
other change of the tree (a forced split or collapse of the user's own, a settings change, Reset) leaves the
prepared lesson: the queue is dropped and a one-line note says so. Past the lesson's last action the queue is
done and ends quietly.
"""

from __future__ import annotations

import streamlit as st

from engine.teach.lesson_replay import apply_action
from ui.widgets import flash

PREPARED = "_lesson_prepared"  # {"actions": the lesson's action log, "grower": the grower, "at": steps taken}
LEFT_NOTE = "You left the prepared lesson: Step now takes automatic steps."


def start(grower, actions: tuple) -> None:
    """Keep ``actions`` (the lesson's whole log) as the prepared history of ``grower`` (opened before its end)."""
    if actions and grower.n_steps < len(actions):
        st.session_state[PREPARED] = {"actions": tuple(actions), "grower": grower, "at": grower.n_steps}
    else:
        st.session_state.pop(PREPARED, None)


def leave(note: bool = True) -> None:
    """Drop the prepared history; from a callback, with the one-line note on the next page run."""
    if st.session_state.pop(PREPARED, None) is not None and note:
        flash("info", LEFT_NOTE)


def _on(grower) -> dict | None:
    """The prepared history if ``grower`` is still on it (pure: nothing is dropped)."""
    prep = st.session_state.get(PREPARED)
    if prep is None or prep["grower"] is not grower or grower.n_steps != prep["at"]:
        return None
    return prep


def step(grower, n: int | None = 1) -> bool:
    """Apply up to ``n`` (None: all) of the next prepared actions; False when there is none left, or the tree
    left the prepared history (the caller steps automatically). Engine errors propagate (the lesson was
    checked when it opened)."""
    prep = _on(grower)
    if prep is None or prep["at"] >= len(prep["actions"]):
        left = st.session_state.get(PREPARED)
        leave(note=prep is None and left is not None and left["at"] < len(left["actions"]))  # left by another change (note) or walked to its end (quietly)
        return False
    actions = prep["actions"]
    end = len(actions) if n is None else min(len(actions), prep["at"] + n)
    while prep["at"] < end:
        apply_action(grower, actions[prep["at"]])
        prep["at"] += 1
    return True


def at_end(grower) -> bool:
    """Whether ``grower`` stands at the prepared lesson's last step (Play stops there)."""
    prep = _on(grower)
    return prep is not None and prep["at"] >= len(prep["actions"])


def undone(grower) -> None:
    """After an Undo on the prepared history: the undone action is the next one offered."""
    prep = st.session_state.get(PREPARED)
    if prep is not None and prep["grower"] is grower and grower.n_steps == prep["at"] - 1:
        prep["at"] -= 1
    else:
        leave()


def render_status(grower) -> None:
    """Grow page: ``Step 2 of 6 of the prepared lesson`` while on one; the note when the tree just left it."""
    if PREPARED not in st.session_state:
        return
    prep = _on(grower)
    if prep is None:
        done = st.session_state.pop(PREPARED)
        if done["at"] < len(done["actions"]):  # past the lesson's last step it simply ends
            st.info(LEFT_NOTE, icon=":material/info:")
        return
    k, n = prep["at"], len(prep["actions"])
    st.caption(f":material/school: Step {k:,} of {n:,} of the prepared lesson"
               + (" · Step applies the teacher's next prepared action." if k < n else " · its last step."))
