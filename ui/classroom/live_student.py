"""The student's page of a live class (``<app>/?room=CODE``, or ``/join``): join, follow the teacher's tree, answer.

Made for phones: one column, no sidebar, big buttons. The page reads the room from the store
(:mod:`live.store`). To follow the teacher it runs no Streamlit code while nothing happens: its script
(:mod:`ui.classroom.live_watchdog`) asks the stage route (:mod:`live.stage_route`, a plain HTTP request)
every second for the room's stage number and presses the page's **Refresh** (one full run) only when the
teacher moved (a question, a reveal, a step, the end of the class: the room's ``stage`` changed), when the
class server went away or came back, or when the page missed a run whose messages Streamlit dropped. Other
students' answers cost no run. A guess reruns the whole page, not a fragment; Plotly keeps the unchanged
tree's chart as it is.

The student's token is kept in the session and in the address (``&me=...``), so a reload keeps the
nickname. A nickname is user text: it is shown with ``st.text``, in tables, or escaped, and cleaned of
invisible and direction characters. When the store cannot be reached the page shows the last room it
read, read-only, with one sentence; when the room is gone (ended and expired, or a class server that came
back empty) the script's poll of the stage route notices and the page says so, with the code form to join
another class. A student the teacher removed reads that they were removed. Typed codes go through the store's wrong-code wait
(:meth:`live.store.RoomStore.find`), joins through its per-client limits (:mod:`live.limits`).
"""

from __future__ import annotations

import os
import sys
import time

import pandas as pd
import streamlit as st

from engine.split.records import format_number
from live import nicknames, roster, rooms
from live.rooms import LiveError, RoomNotFound, StoreUnavailable
from ui.access import aria_tree
from ui.classroom import live, live_watchdog
from ui.widgets import flash, md_escape

ME = "_live_student"  # {"code", "token", "key", "name"}
LAST_ROOM = "_live_last_room"  # the last room read, as this student sees it (shown read-only when the store is away)
GONE = ("The class you were in is gone: it has ended or expired, or the class server restarted without it. "
        "Type the code of another class to join it.")
REMOVED = "The teacher removed you from this class: you can join again only if they unlock it."
P_ME = "me"
W_CODE, W_NICK = "_w_join_code", "_w_join_nick"
REFUSED = "_live_refused"  # the round of a tap the class server refused (away or too busy): "tap it again"
RETAP = ("Your answer did not reach the class server: it was away or too busy for a moment. It is back, "
         "so tap your answer again.")
DRAWN = "_live_drawn"  # full runs of the page so far: the last one ends with its number (hidden)
STUDENT_CSS = """
<style>
section[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stSidebarCollapseButton"], [data-testid="stExpandSidebarButton"], [data-testid="stSidebarNav"]
{ display: none !important; }
.stMainBlockContainer, [data-testid="stMainBlockContainer"] { max-width: 760px; padding: 1rem 0.8rem 2rem; }
[data-testid="stForm"] button { min-height: 3rem; }
.st-key-join_drawn, .st-key-join_watchdog { display: none !important; }
header[data-testid="stHeader"] { display: none !important; }
</style>
"""  # a literal (st.html gets constant text only); a test checks it hides live_watchdog's two keys. No app header
# here: its toolbar lay over the back link (a tap reached the toolbar) and its 60 px are a phone's 7%


#: DTX_LIVE_DEBUG=1: a line on the server's stderr per answer and per page run (benchmarks/load_class.py)
DEBUG = os.environ.get("DTX_LIVE_DEBUG") == "1"


def _debug(event: str) -> None:
    if DEBUG:
        me = st.session_state.get(ME) or {}
        print(f"[live] {time.time():.3f} {me.get('name', '?')} {event}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------ callbacks
def _go_to_code() -> None:
    st.query_params[live.ROOM_PARAM] = st.session_state.get(W_CODE, "")


def _join(code: str) -> None:
    name = st.session_state.get(W_NICK, "")
    try:
        token = live.store().join(code, name, live.client())
        key = rooms.nickname_key(name)
    except LiveError as err:
        flash("error", md_escape(err))
        return
    st.session_state[ME] = {"code": code, "token": token, "key": key, "name": nicknames.clean(name)}
    st.query_params[P_ME] = token


def _answer(code: str, round_key: str, question, feature: str) -> None:
    _debug(f"answer {round_key} {feature}")
    me = st.session_state[ME]
    threshold = st.session_state.get(_wkey("t", round_key)) if question.needs_threshold(feature) else None
    if question.needs_threshold(feature) and threshold is None:
        flash("warning", f"{md_escape(feature)} is numeric: give a threshold too.")
        return
    try:
        live.store().answer(code, me["token"], round_key, feature, threshold)
    except StoreUnavailable:
        # Not the read-only sentence: the page's own run says that if the server is still away. When it is
        # back by then, that sentence stayed over a live question (nothing reran the page until the teacher
        # moved: CI, stop 43); render_question says "tap again" instead.
        st.session_state[REFUSED] = round_key
    except LiveError as err:
        flash("error", md_escape(err))
    else:
        st.session_state.pop(REFUSED, None)


def _wkey(name: str, round_key: str) -> str:
    return f"_w_join_{name}_{round_key}"


# ------------------------------------------------------------------------------------- the page
def _me_for(code: str, room: dict) -> dict | None:
    """This browser's membership of the room: from the session, or from the token in the address."""
    me = st.session_state.get(ME)
    if me and me["code"] == code and me["key"] in room["students"]:
        return me
    token = st.query_params.get(P_ME)
    if token:
        try:
            key = rooms.student_of(room, token)
        except LiveError:
            del st.query_params[P_ME]
            return None
        me = {"code": code, "token": token, "key": key, "name": nicknames.clean(room["students"][key]["name"])}
        st.session_state[ME] = me
        return me
    return None


def _typed(raw: str) -> str | None:
    try:
        return rooms.normalize_code(raw)
    except RoomNotFound:
        return None


def _removed_from(room: dict) -> bool:
    """Whether this page's student (by the token in the session or the address) was removed."""
    tokens = (st.query_params.get(P_ME), (st.session_state.get(ME) or {}).get("token"))
    return any(t and roster.removed_name(room, t) for t in tokens)


def _code_form() -> None:
    with st.form("join_code", border=True):
        st.text_input("Class code", key=W_CODE, max_chars=12, placeholder="e.g. K7P 2QX",
                      help="The code on the teacher's screen (letters and digits).")
        st.form_submit_button("Open", type="primary", on_click=_go_to_code, width="stretch")


def _nickname_form(code: str, room: dict) -> None:
    n = len(room["students"])
    st.caption(f"{n:d} student already here." if n == 1 else f"{n:d} students already here.")
    with st.form("join_form", border=True):
        st.text_input("Your nickname", key=W_NICK, max_chars=rooms.MAX_NICKNAME,
                      help="Shown to the class in the score table; unique in this class.")
        st.form_submit_button("Join", type="primary", on_click=_join, args=(code,), width="stretch")


def render_question(code: str, room: dict, me: dict, question, round_key: str) -> None:
    mine = room["answers"].get(me["key"])
    st.markdown(f"**Which feature will split node {question.node_id:d}** ({question.n_rows:,} rows)?")
    if mine is None and st.session_state.get(REFUSED) == round_key:  # until a tap gets through
        st.warning(RETAP, icon=":material/cloud_sync:")
    if mine is not None:
        t = mine.get("threshold")
        st.success("Answer received: " + md_escape(mine["feature"])
                   + (f" at {md_escape(format_number(t))}" if t is not None else "")
                   + ". Wait for the teacher's reveal.", icon=":material/how_to_vote:")
        return
    # One button per feature: a tap sends the answer, and the pick travels in the button's own callback
    # arguments (no radio value that a run racing with another run could lose).
    with st.form(f"join_answer_{round_key}", border=True):
        numeric = [f for f in question.features if question.needs_threshold(f)]
        if numeric:
            spans = ", ".join(f"{md_escape(f)} {format_number(lo)} to {format_number(hi)}"
                              for f, lo, hi in question.ranges)
            st.number_input(f"Threshold t for a numeric feature (the split is feature <= t; values here: {spans})",
                            value=None, key=_wkey("t", round_key), format="%g")
        st.caption("Tap your guess:")
        for i, feature in enumerate(question.features):
            st.form_submit_button(md_escape(feature), on_click=_answer, args=(code, round_key, question, feature),
                                  width="stretch", key=f"_w_join_send_{i}")


def render_reveal(room: dict, me: dict) -> None:
    payload = room.get("reveal") or {}
    mine = room["answers"].get(me["key"])
    with aria_tree.status("live_verdict"):  # the reveal is read out to the student
        if mine is None:
            st.info("You did not answer this one. The winner: " + md_escape(payload.get("winner_test", "")) + ".",
                    icon=":material/info:")
        elif room["verdicts"].get(me["key"]):
            st.success("✓ " + payload["sentences"].get(me["key"], "Right."), icon=":material/check_circle:")
        else:
            st.warning("✗ " + payload["sentences"].get(me["key"], "Not this time."), icon=":material/cancel:")
    table = pd.DataFrame(payload.get("table") or [])
    if len(table):
        if "split" in table and table["split"].astype(str).str.endswith("= ?").all():
            table = table.drop(columns="split")  # multiway splits: "Outlook = ?" adds nothing to the feature
        if mine is not None:
            table["mark"] = [(m + " · " if m else "") + "◀ your pick" if f == mine["feature"] else m
                             for m, f in zip(table["mark"], table["feature"])]
        st.table(student_gain_table(table), hide_index=True, border="horizontal")


def student_gain_table(table: pd.DataFrame) -> pd.DataFrame:
    """The reveal's gain table as shown to a student: a static table (``st.table``: plain HTML, light on
    a phone, where ``st.dataframe``'s grid cost every student's page ~35 script files on the first
    reveal), every text cell escaped (``st.table`` reads cells as Markdown), gains to 3 decimals."""
    shown = pd.DataFrame({"": [md_escape(m) for m in table["mark"]],
                          "Feature": [md_escape(f) for f in table["feature"]]})
    if "split" in table:
        shown["Best split of the feature"] = [md_escape(x) for x in table["split"]]
    shown["Gain"] = [format(float(g), ".3f") for g in table["gain"]]
    return shown


def render_room(code: str, room: dict, me: dict, read_only: bool) -> None:
    snap = room.get("snapshot") or {}
    stage = room["stage"]
    score = room["scores"].get(me["key"], [0, 0])
    with aria_tree.status("live_score"):  # the score is read out when it changes
        st.text(f"You: {me['name']} · score {score[1]} of {score[0]}")  # st.text: the nickname stays text
    if stage["status"] == "closed":
        st.info(f"The teacher has ended the class. Your score: {score[1]:d} of {score[0]:d}.", icon=":material/flag:")
        return
    if not snap:
        st.info("Waiting for the teacher to show the tree…", icon=":material/hourglass_top:")
        return
    question = live.snapshot_question(snap)
    st.caption(md_escape(snap.get("status", "")) + " · " + md_escape(snap.get("dataset", "")))
    note = snap.get("note")
    if isinstance(note, str) and note:  # the teacher's note on this step (a lesson file carries them)
        st.markdown(":material/edit_note: **Note:** " + md_escape(note, limit=1000))
    if stage["status"] == "revealed":
        render_reveal(room, me)
    elif question is not None and not read_only:
        render_question(code, room, me, question, stage["round"])
    elif snap.get("done"):
        st.info("The tree is finished.", icon=":material/flag:")
    else:
        st.caption("No question right now: watch the tree.")
    with st.container(key="join_diagram"):
        live.draw_tree(live.snapshot_tree(stage["round"], snap), question.node_id if question else None, "join",
                       stage["round"], phone=live.on_phone())


def back_link() -> None:
    """The way back to the app (this page has no sidebar): small and above the title, not among the class's
    controls, and saying what it leaves."""
    st.page_link("pages/home.py", label="Back to the explorer (leaves the class page)", icon=":material/arrow_back:",
                 help="For the teacher: the app's pages. Students stay on this page during the class.")


def render_join_page() -> None:
    st.html(STUDENT_CSS)
    back_link()
    st.title("Live class")
    raw = st.query_params.get(live.ROOM_PARAM, "")
    if not raw:
        st.caption("Type the code on the teacher's screen, or scan its QR code.")
        _code_form()
        return
    read_only = False
    try:
        followed = (st.session_state.get(LAST_ROOM) or {}).get("code")
        if followed and followed == _typed(raw):  # this page follows the class: no wrong-code wait applies
            room = live.store().load(followed)  # (others' typos on a shared address must not stop it)
        else:
            room = live.store().find(raw, live.client())
        code = room["code"]
        st.session_state[LAST_ROOM] = room
    except StoreUnavailable as err:
        live.show_live_error(err)
        room, typed = st.session_state.get(LAST_ROOM), _typed(raw)
        if room is None or room["code"] != typed:
            if typed is not None:  # a page opened (or reloaded) while the class server is away: nothing to
                _follow(typed, "offline")  # show yet, but its script must notice when the server is back
            return
        code, read_only = room["code"], True
    except LiveError as err:
        last = st.session_state.pop(LAST_ROOM, None)
        if isinstance(err, RoomNotFound) and last is not None and last["code"] == _typed(raw):
            st.warning(GONE, icon=":material/event_busy:")  # a class this page was following
            if P_ME in st.query_params:
                del st.query_params[P_ME]
        else:
            live.show_live_error(err)
        st.session_state.pop(ME, None)
        _code_form()
        return
    if _removed_from(room):
        st.warning(REMOVED, icon=":material/person_remove:")
        st.session_state.pop(ME, None)
        return
    me = _me_for(code, room)
    if me is not None and not read_only:
        st.session_state[LAST_ROOM] = rooms.student_view(room, me["key"])
    if me is None:
        if read_only:
            return
        if rooms.is_closed(room):
            st.info("The teacher has ended this class.", icon=":material/flag:")
            return
        st.markdown(f"Class **{md_escape(live.spaced(code))}**: pick a nickname to join.")
        _nickname_form(code, room)
        return
    # the page's last element says what the server drew (Streamlit can drop a finished run's messages): the
    # run's number, the stage it showed, and what the script needs to ask the stage route (live_watchdog)
    _debug(f"run {st.session_state.get(DRAWN, 0) + 1:d} stage={room['stage']['n']} "
           f"answered={me['key'] in room['answers']} refresh={st.session_state.get(live_watchdog.W_WAKE, False)}")
    render_room(code, room, me, read_only)
    if room["stage"]["status"] != "closed":
        _follow(code, "offline" if read_only else room["stage"]["n"])


def _follow(code: str, shown: int | str) -> None:
    """The page's Refresh, its script and, last, the marker of this full run (live_watchdog)."""
    drawn = st.session_state[DRAWN] = st.session_state.get(DRAWN, 0) + 1
    live_watchdog.watchdog()
    live_watchdog.drawn_marker(drawn, shown, code, live.poll_key(code))
