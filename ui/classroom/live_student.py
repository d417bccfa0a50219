"""The student's page of a live class (``/join?room=CODE``): join, follow the teacher's tree, answer.

Made for phones: one column, no sidebar, big buttons. The page reads the room from the store
(:mod:`live.store`) and a small fragment polls it every :data:`REFRESH_SECONDS`; when the teacher moved
(a step, a reveal, the end of the class: the room's ``stage`` changed) it reruns the page, so the tree
and the question follow the teacher without a reload, and other students' answers do not cost a rerun.
The poll draws only a hidden beat: on a phone each poll still costs the browser ~30 ms of work
(Streamlit's own bookkeeping of a run), so it is 1.5 s, not 1 s. A guess reruns the whole page, not a
fragment: two fragments' runs (the guess and the poll) can be merged by Streamlit and the tap lost (2 of
40 in a load run); Plotly keeps the unchanged tree's chart as it is.

A watchdog script presses the page's **Refresh** when the poll stops, or when the page missed a full run:
Streamlit drops a finished run's messages when the poll's timer request reaches the server before they
were sent (see :func:`render_join_page`), which left a student's "Answer received" (stored all the same)
unshown until the next step.

The student's token is kept in the session and in the address (``&me=...``), so a reload keeps the
nickname. A nickname is user text: it is shown with ``st.text``, in tables, or escaped. When the store
cannot be reached the page shows the last room it read, read-only, with one sentence.
"""

from __future__ import annotations

import os
import sys
import time

import pandas as pd
import streamlit as st
import streamlit.components.v1 as components

from engine.split.records import format_number
from live import rooms
from live.rooms import LiveError, StoreUnavailable
from ui.classroom import live
from ui.widgets import flash, md_escape

ME = "_live_student"  # {"code", "token", "key", "name"}
LAST_ROOM = "_live_last_room"  # the last room read (shown read-only when the store is away)
SHOWN = "_live_shown_stage"  # the stage number the page last drew
P_ME = "me"
W_CODE, W_NICK = "_w_join_code", "_w_join_nick"
REFRESH_SECONDS = 1.5
BEAT = "_live_beat"  # polls so far: shown (hidden) by the poll, watched by the page's watchdog
BEAT_KEY = "join_beat"
DRAWN = "_live_drawn"  # full runs of the page so far: the last one ends with its number (hidden)
DRAWN_KEY = "join_drawn"
W_WAKE = "_w_join_wake"
#: the watchdog reruns the page when the poll has been silent this long (Streamlit's fragment timer can
#: stop under load: 1-3 of 40 students per two-replica load run before the watchdog); while a run is
#: in progress it waits WATCHDOG_BUSY_SECONDS instead (a press would cancel that run, perhaps a tap's:
#: Streamlit stops a run for a newer one, and a tap's callback runs at its start), and a touch of the page
#: starts both counts again
WATCHDOG_SECONDS = 8
WATCHDOG_BUSY_SECONDS = 30
#: ... and when, at this many checks in a row (a second apart; not counting those while a run is in
#: progress), the page does not end with the full run the poll says the server drew last: Streamlit
#: dropped that run's messages (see render_join_page)
WATCHDOG_LOST_CHECKS = 3
#: each press that did not bring the page back (the beat moving, the page ending with the run it names)
#: doubles the waits, up to this factor: a server that is only slow (one loaded process: every page's
#: beat stops for ~20 s at the lesson's first step) is not sent a second full run from every page
WATCHDOG_BACKOFF = 4
#: an inline script, so it is allowed by its hash in deploy/nginx.conf's Content-Security-Policy
WATCHDOG_JS = ("<script>(function(){var d=window.parent.document,last=null,since=Date.now(),lost=0,k=1;"
               "d.addEventListener('pointerdown',function(){since=Date.now();lost=0;},true);"
               "setInterval(function(){var q=function(s){var e=d.querySelector(s);return e?e.textContent.trim():null;},"
               "b=q('.st-key-%(beat)s'),a=d.querySelector('[data-testid=stApp]'),n=Date.now(),moved=b!==last,"
               "busy=!!a&&a.getAttribute('data-test-script-state')==='running';"
               "if(moved){last=b;since=n;}"
               "if(!busy)lost=b&&b.split(' ')[1]!==q('.st-key-%(drawn)s')?lost+1:0;"
               "if(moved&&!lost)k=1;"
               "if(lost>=%(lost)d*k||n-since>(busy?%(busy)d:%(silent)d)*k){var w=d.querySelector('.st-key-%(wake)s button');"
               "if(w){w.click();since=n;lost=0;k=Math.min(2*k,%(backoff)d);}}"
               "},1000);})();</script>"
               % {"beat": BEAT_KEY, "drawn": DRAWN_KEY, "wake": W_WAKE, "lost": WATCHDOG_LOST_CHECKS,
                  "busy": WATCHDOG_BUSY_SECONDS * 1000, "silent": WATCHDOG_SECONDS * 1000,
                  "backoff": WATCHDOG_BACKOFF})
STUDENT_CSS = """
<style>
section[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stSidebarCollapseButton"], [data-testid="stExpandSidebarButton"], [data-testid="stSidebarNav"]
{ display: none !important; }
.stMainBlockContainer, [data-testid="stMainBlockContainer"] { max-width: 760px; padding: 2.5rem 0.8rem 2rem; }
[data-testid="stForm"] button { min-height: 3rem; }
.st-key-join_beat, .st-key-join_drawn { display: none !important; }
</style>
"""


#: DTX_LIVE_DEBUG=1: a line on the server's stderr per answer and per page run (benchmarks/load_class.py)
DEBUG = os.environ.get("DTX_LIVE_DEBUG") == "1"


def _debug(event: str) -> None:
    if DEBUG:
        me = st.session_state.get(ME) or {}
        sys.stderr.write(f"[live] {time.time():.3f} {me.get('name', '?')} {event}\n")


# ------------------------------------------------------------------------------------ callbacks
def _go_to_code() -> None:
    st.query_params[live.ROOM_PARAM] = st.session_state.get(W_CODE, "")


def _join(code: str) -> None:
    name = st.session_state.get(W_NICK, "")
    try:
        token = live.store().join(code, name)
        key = rooms.nickname_key(name)
    except LiveError as err:
        flash("error", md_escape(err))
        return
    st.session_state[ME] = {"code": code, "token": token, "key": key, "name": rooms.clean_nickname(name)}
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
    except LiveError as err:
        flash("error", md_escape(err))


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
        me = {"code": code, "token": token, "key": key, "name": room["students"][key]["name"]}
        st.session_state[ME] = me
        return me
    return None


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


@st.fragment(run_every=REFRESH_SECONDS)
def _follow(code: str) -> None:
    """Every REFRESH_SECONDS: rerun the page when the teacher moved (or the store came back). Draws only
    the hidden beat for the watchdog: the number of this poll and of the last full run the server drew."""
    beat = st.session_state[BEAT] = st.session_state.get(BEAT, 0) + 1
    with st.container(key=BEAT_KEY):        # hidden by STUDENT_CSS
        st.text(f"{beat:d} {st.session_state.get(DRAWN, 0):d}")
    try:
        room = live.store().load(code)
    except LiveError:
        if st.session_state.get(SHOWN) != "offline":
            st.rerun()
        return
    if st.session_state.get(SHOWN) != room["stage"]["n"]:
        _debug(f"poll rerun stage={room['stage']['n']}")
        st.rerun()


def _watchdog() -> None:
    """A page that stopped polling, or missed a run, wakes itself: a script in a zero-height frame watches
    the poll's hidden beat and presses **Refresh** (a full run, which arms the poll again and redraws the
    page) when the beat has not changed for WATCHDOG_SECONDS, or when the page does not end with the run
    the beat names for WATCHDOG_LOST_CHECKS seconds with nothing running. The button is there for the
    student too."""
    st.button("Refresh", key=W_WAKE, type="tertiary", icon=":material/refresh:",
              help="The page follows the teacher by itself; this reads the class again now.")
    components.html(WATCHDOG_JS, height=0)


def render_question(code: str, room: dict, me: dict, question, round_key: str) -> None:
    mine = room["answers"].get(me["key"])
    st.markdown(f"**Which feature will split node {question.node_id:d}** ({question.n_rows:,} rows)?")
    if mine is not None:
        t = mine.get("threshold")
        st.success("Answer received: " + md_escape(mine["feature"])
                   + (f" at {md_escape(format_number(t))}" if t is not None else "")
                   + ". Wait for the teacher's reveal.", icon=":material/how_to_vote:")
        return
    # One button per feature: a tap sends the answer, and the pick travels in the button's own callback
    # arguments (no radio value that a run racing with the poll could lose).
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
        st.dataframe(table, hide_index=True, width="stretch", key="join_reveal_table", column_config={
            "mark": st.column_config.TextColumn("", width="medium"), "feature": "Feature",
            "split": "Best split of the feature", "gain": st.column_config.NumberColumn("Gain", format="%.3f")})


def render_room(code: str, room: dict, me: dict, read_only: bool) -> None:
    snap = room.get("snapshot") or {}
    stage = room["stage"]
    score = room["scores"].get(me["key"], [0, 0])
    st.text(f"You: {me['name']} · score {score[1]} of {score[0]}")  # st.text: the nickname stays text
    if stage["status"] == "closed":
        st.info(f"The teacher has ended the class. Your score: {score[1]:d} of {score[0]:d}.", icon=":material/flag:")
        return
    if not snap:
        st.info("Waiting for the teacher to show the tree…", icon=":material/hourglass_top:")
        return
    question = live.snapshot_question(snap)
    st.caption(md_escape(snap.get("status", "")) + " · " + md_escape(snap.get("dataset", "")))
    if stage["status"] == "revealed":
        render_reveal(room, me)
    elif question is not None and not read_only:
        render_question(code, room, me, question, stage["round"])
    elif snap.get("done"):
        st.info("The tree is finished.", icon=":material/flag:")
    else:
        st.caption("No question right now: watch the tree.")
    with st.container(key="join_diagram"):
        live.draw_tree(live.snapshot_tree(stage["round"], snap), question.node_id if question else None, "join")


def render_join_page() -> None:
    st.html(STUDENT_CSS)
    st.title("Live class")
    raw = st.query_params.get(live.ROOM_PARAM, "")
    if not raw:
        st.caption("Type the code on the teacher's screen, or scan its QR code.")
        _code_form()
        return
    read_only = False
    try:
        code = rooms.normalize_code(raw)
        room = live.store().load(code)
        st.session_state[LAST_ROOM] = room
    except StoreUnavailable as err:
        live.show_live_error(err)
        room = st.session_state.get(LAST_ROOM)
        if room is None or room["code"] != rooms.normalize_code(raw):
            return
        code, read_only = room["code"], True
    except LiveError as err:
        live.show_live_error(err)
        st.session_state.pop(ME, None)
        _code_form()
        return
    me = _me_for(code, room)
    if me is None:
        if read_only:
            return
        if rooms.is_closed(room):
            st.info("The teacher has ended this class.", icon=":material/flag:")
            return
        st.markdown(f"Class **{md_escape(live.spaced(code))}**: pick a nickname to join.")
        _nickname_form(code, room)
        return
    st.session_state[SHOWN] = "offline" if read_only else room["stage"]["n"]
    # SHOWN and DRAWN say what the server drew, not what the browser got: when the poll's timer sends its
    # run after this run finished but before Streamlit sent its messages, Streamlit starts a new runner
    # for the poll and drops them (AppSession ignores a replaced runner's events), so the browser keeps
    # the page before this run (a student's "Answer received" lost, 1 in ~120 taps on one loaded
    # process). The run therefore ends with its number; the poll shows the number it expects, and the
    # watchdog presses Refresh when they differ.
    drawn = st.session_state[DRAWN] = st.session_state.get(DRAWN, 0) + 1
    _debug(f"run {drawn:d} stage={room['stage']['n']} answered={me['key'] in room['answers']} "
           f"refresh={st.session_state.get(W_WAKE, False)}")
    # the poll first: a full run clears the browser's fragment timers and re-arms the poll's only when it
    # reaches this call, so the earlier the better (a run cut short after it still leaves the poll armed)
    following = room["stage"]["status"] != "closed"
    if following:
        _follow(code)
    render_room(code, room, me, read_only)
    if following:
        _watchdog()
        with st.container(key=DRAWN_KEY):   # last, so it arrives after all of the run; hidden by STUDENT_CSS
            st.text(f"{drawn:d}")
