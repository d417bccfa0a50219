"""The teacher's roster of a live class: lock the room, show the scores, remove a student.

- **Lock the class** (a switch): nobody new can join; switching it off also lets removed students back.
- **Show class scores** (a switch, off by default, so the projector shows no names): the score table,
  and under it **Remove** for the nicknames picked. A removed student's page says so, their answers and
  score go, and their browser cannot join this class again under another nickname until the teacher
  unlocks (the switch, or **Let removed students back**).
- :func:`idle_note` says how long a forgotten class lives (``live.rooms.IDLE_SECONDS`` after the
  teacher's page was last open, ``live.rooms.EMPTY_IDLE_SECONDS`` while nobody has joined); the panel
  shows it under the QR code.

Nicknames are user text: the table (``st.dataframe``) and the picker show them literally, cleaned of
invisible and direction characters (:func:`live.nicknames.clean`).
"""

from __future__ import annotations

import time

import pandas as pd
import streamlit as st

from live import nicknames, rooms
from live.rooms import LiveError
from ui.classroom import live
from ui.widgets import FLASH_ICONS, md_escape

W_SCORES = "_w_live_scores"
W_LOCK = "_w_live_lock"
W_REMOVE = "_w_live_remove"
NOTE = "_live_roster_note"  # (kind, Markdown, time.monotonic()) of the roster's last action
NOTE_SECONDS = 10.0


def _note(kind: str, text: str) -> None:
    """Say what an action did, for :data:`NOTE_SECONDS`: the roster is drawn by the teacher's once-a-second
    fragment, whose next run would take a one-run message (``ui.widgets.flash``) away within a second."""
    st.session_state[NOTE] = (kind, text, time.monotonic())


def _show_note() -> None:
    kind, text, at = st.session_state.get(NOTE) or ("", "", -NOTE_SECONDS)
    if time.monotonic() - at >= NOTE_SECONDS:
        st.session_state.pop(NOTE, None)
        return
    getattr(st, kind)(text, icon=FLASH_ICONS[kind])


def _set_lock(me: dict, key: str) -> None:
    try:
        live.store().lock(me["code"], me["token"], bool(st.session_state.get(key)))
    except LiveError as err:
        _note("warning", md_escape(err))


def _let_back(me: dict) -> None:
    try:
        live.store().lock(me["code"], me["token"], False)
    except LiveError as err:
        _note("warning", md_escape(err))


def _remove(me: dict) -> None:
    keys = list(st.session_state.get(W_REMOVE) or [])
    if not keys:
        return
    try:
        gone = live.store().remove(me["code"], me["token"], keys)
    except LiveError as err:
        _note("warning", md_escape(err))
        return
    st.session_state[W_REMOVE] = []
    if gone:
        _note("success", "Removed: " + ", ".join(md_escape(nicknames.clean(n)) for n in gone) + ".")


def idle_note() -> str:
    return (f"Ends by itself {rooms.IDLE_SECONDS // 60:d} min after this page was last open "
            f"({rooms.EMPTY_IDLE_SECONDS // 60:d} min while no student has joined).")


def render_roster(room: dict, me: dict, read_only: bool) -> None:
    _show_note()
    locked, banned = bool(room.get("locked")), len(room.get("banned") or ())
    # one switch a line: side by side in the class's narrow column, "Show class scores" was cut "Show class sc…"
    lock_col, scores_col = st.container(), st.container()
    # the key follows the room's state, so the switch shows what the room says (another tab may change it)
    key = f"{W_LOCK}_{int(locked)}"
    lock_col.toggle("Lock the class", value=locked, key=key, on_change=_set_lock, args=(me, key),
                    disabled=read_only, help="Nobody new can join while the class is locked. Switching it off "
                    "also lets removed students join again.")
    shown = scores_col.toggle("Show class scores", key=W_SCORES, help="The running score of each nickname (right "
                              "answers of those answered), and Remove. Hide it when the projector should not "
                              "show names.")
    if banned:
        who = "1 removed student cannot" if banned == 1 else f"{banned:d} removed students cannot"
        st.caption(who + " join again from the same browser until you unlock.")
        st.button("Let removed students back", key="_w_live_let_back", on_click=_let_back, args=(me,),
                  disabled=read_only, icon=":material/lock_open:", width="stretch")
    if not shown:
        return
    rows = rooms.score_rows(room)
    if not rows:
        st.caption("Nobody has joined yet.")
        return
    # nicknames are user text: a dataframe shows them literally
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", key="live_scores",
                 height="auto" if len(rows) <= 10 else 420)
    names = {k: nicknames.clean(s["name"]) for k, s in room["students"].items()}
    pick, press = st.columns([3, 1], vertical_alignment="bottom")
    pick.multiselect("Remove students", list(names), format_func=names.get, key=W_REMOVE, disabled=read_only,
                     placeholder="Pick nicknames", help="Removed students leave the class, with their answers "
                     "and score, and cannot join again from the same browser until you unlock.")
    press.button("Remove", key="_w_live_remove_go", on_click=_remove, args=(me,), icon=":material/person_remove:",
                 disabled=read_only or not st.session_state.get(W_REMOVE), width="stretch")
