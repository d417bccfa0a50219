"""The teacher's live-class panel on the Grow page (presenter view).

**Start a live class** makes a room (:mod:`live.store`); the panel then shows the code, the join address
and its QR code, and, refreshed every second (``st.fragment(run_every=...)``), how many students are
present and how many answered (the same fragment holds the roster, the teacher's own guess, Reveal and
End class, so a press reruns only it). Each page run publishes the tree state when it changed (a step, undo,
reset or new settings start a new question and clear the answers). **Reveal** judges every answer with
the quiz's own rules (:func:`engine.teach.quiz.judge`: the feature, and a threshold for numeric
features), publishes the gain table and each student's verdict, and shows the guesses per feature, the
share right and the class score table. **End class** closes the room.

Only this session can do that: the room keeps a hash of the teacher's token, which stays in this
session. The address carries the class code alone (``?class=CODE``, which the projector may show): a
reload of the teacher's tab takes the class back because the room remembers the browser that started
it (:func:`ui.classroom.live.client`), and gets a token of its own; the same address in another
browser opens the tree, never the controls (an old-style ``&teacher=`` link is dropped unread). While
the panel is open it checks in every :data:`HEARTBEAT_SECONDS`; a class whose teacher's page has gone
ends after ``live.rooms.IDLE_SECONDS``. The roster (:mod:`ui.classroom.live_roster`) locks the room and
removes students. A broken store (Redis gone) shows one sentence and makes the class read-only; the
tree itself keeps working.
"""

from __future__ import annotations

import json
import time
from collections import Counter

import streamlit as st

from engine.errors import EngineError
from engine.teach.quiz import QuizAnswer, judge, make_question
from engine.viz.quiz_figs import votes_figure
from live import rooms
from live.rooms import LiveError
from ui import state
from ui.access import aria_tree
from ui.classroom import live, live_roster
from ui.classroom.quiz import verdict_text
from ui.widgets import flash, md_escape, show_flashes
from ui.charts import show_chart

SESSION = "_live_teacher"  # {"code": ..., "token": ...} of the room this session teaches
PUBLISHED = "_live_published"  # (code, round id, status) last published
SYNC = "_live_sync"  # (question, round id, room, error) of this page run
P_CLASS = "class"  # the query parameter that lets the teacher's own browser resume after a reload
P_OLD_KEY = "teacher"  # where the token used to ride: dropped from the address, never read
#: (sentence, time.monotonic()) of an address whose class could not be resumed: said for RESUME_NOTE_SECONDS, not
#: one run (the run that the window's width report starts right after took it away at once: CI, stop 44)
RESUME_NOTE, RESUME_NOTE_SECONDS = "_live_resume_note", 60.0
HEARTBEAT = "_live_heartbeat"  # when this session last checked in with the room
HEARTBEAT_SECONDS = 60
W_PICK = "_w_live_pick"
REFRESH_SECONDS = 1.0
TABLE_COLUMNS = ["mark", "feature", "split", "gain"]


def current() -> dict | None:
    return st.session_state.get(SESSION)


def _remember(code: str, token: str) -> None:
    st.session_state[SESSION] = {"code": code, "token": token}
    st.session_state[HEARTBEAT] = time.time()
    st.query_params[P_CLASS] = code


def _forget() -> None:
    for key in (SESSION, PUBLISHED, SYNC, HEARTBEAT):
        st.session_state.pop(key, None)
    if P_CLASS in st.query_params:
        del st.query_params[P_CLASS]


def resume_from_link(say: bool = True) -> None:
    """A reloaded teacher tab: take the room back when the address names it and this is the browser
    that started it (a new token for this session; the token never travels in the address)."""
    if P_OLD_KEY in st.query_params:
        del st.query_params[P_OLD_KEY]
    if current() is None and P_CLASS in st.query_params:
        try:
            room, token = live.store().resume(st.query_params.get(P_CLASS, ""), live.client())
        except LiveError as err:
            _forget()
            st.session_state[RESUME_NOTE] = (f"The live class in the address could not be resumed: "
                                             f"{md_escape(str(err))}", time.monotonic())
        else:
            _remember(room["code"], token)
    note = st.session_state.get(RESUME_NOTE)
    if say and note is not None and time.monotonic() - note[1] < RESUME_NOTE_SECONDS:
        st.warning(note[0], icon=":material/info:")  # the page's next runs (its screen width's) keep saying it


def check_in(me: dict) -> None:
    """Keep the room alive while this panel is open (one write per HEARTBEAT_SECONDS, not per poll)."""
    if time.time() - st.session_state.get(HEARTBEAT, 0.0) >= HEARTBEAT_SECONDS:
        st.session_state[HEARTBEAT] = time.time()
        live.store().heartbeat(me["code"], me["token"])


def start() -> None:
    if current() is not None:  # the same press delivered twice (see ui.grow.controls): one room only
        return
    token = rooms.new_token()
    try:
        code = live.store().create(token, live.client())
    except LiveError as err:
        flash("error", md_escape(err))
        return
    _remember(code, token)


def end() -> None:
    me = current()
    if me is None:  # the same press delivered twice (see ui.grow.controls): the class has ended already
        return
    try:
        live.store().close(me["code"], me["token"])
    except LiveError as err:
        flash("warning", md_escape(err))
    _forget()


def publish(grower, question, status: str) -> str:
    """Send the tree state to the room when it changed; returns the round id."""
    me = current()
    setting = (state.current_dataset_name(), state.current_config(), state.split_settings(), live.question_dict(question))
    rid = live.round_id(grower, repr(setting))
    note = state.step_note(grower)  # the teacher's note on this step (students see it with the tree)
    mark = (me["code"], rid, status, note)
    if st.session_state.get(PUBLISHED) != mark:
        snap = live.make_snapshot(grower, question, status, state.current_dataset_name())
        if note:
            snap["note"] = note
        live.store().publish(me["code"], me["token"], rid, snap)
        st.session_state[PUBLISHED] = mark
    return rid


def judge_answers(question, answers: dict) -> tuple[dict[str, bool], dict[str, str]]:
    """Each student's verdict (right?) and sentence (Markdown, user text escaped)."""
    verdicts, sentences = {}, {}
    for key, a in answers.items():
        try:
            result = judge(question, QuizAnswer(a["feature"], a.get("threshold")))
        except EngineError as err:
            verdicts[key], sentences[key] = False, "Your answer could not be judged: " + md_escape(err)
            continue
        verdicts[key], sentences[key] = result.correct, verdict_text(result)
    return verdicts, sentences


def gain_records(grower, node_id: int) -> list[dict]:
    table = grower.gain_table(node_id)
    table.insert(0, "mark", ["★ winner" if w else "" for w in table["winner"]])
    return json.loads(table[[c for c in TABLE_COLUMNS if c in table.columns]].to_json(orient="records"))


def pick_key(rid: str) -> str:
    """Widget key of the teacher's own guess for round ``rid`` (a new round starts with no guess)."""
    return f"{W_PICK}_{rid}"


def reveal(grower, question, rid: str) -> None:
    """Button callback: judge the answers given so far and publish the reveal (with the teacher's guess)."""
    me = current()
    try:
        room = live.store().load(me["code"])
        if room["stage"]["round"] == rid and room["stage"]["status"] == "revealed":
            return  # the same press delivered twice (see ui.grow.controls): revealed already
        verdicts, sentences = judge_answers(question, room["answers"])
        counts = Counter(a["feature"] for a in room["answers"].values())
        pick = st.session_state.get(pick_key(rid))
        payload = {"node_id": question.node_id, "winner_test": question.key.winner_test,
                   "accepted": list(question.key.accepted), "table": gain_records(grower, question.node_id),
                   "counts": {f: counts.get(f, 0) for f in question.features}, "sentences": sentences,
                   "teacher_pick": pick if pick in question.features else None}
        live.store().reveal(me["code"], me["token"], rid, payload, verdicts)
    except LiveError as err:
        flash("warning", md_escape(err))


def _counts_line(room: dict) -> None:
    n, k = len(room["students"]), len(room["answers"])
    present = f"**{n:d} student present**" if n == 1 else f"**{n:d} students present**"
    if room["stage"]["status"] == "revealed":
        st.markdown(present + f" · revealed ({k:d} answered)")
    elif (room.get("snapshot") or {}).get("question"):
        st.markdown(present + f" · **Answered: {k:d} of {n:d}**")
        st.progress(k / n if n else 0.0)
    else:
        st.markdown(present)


@st.fragment(run_every=REFRESH_SECONDS)
def _live_controls(grower, question, rid: str | None, read_only: bool, drawn: int | None) -> None:
    """Every second: the roster (lock, scores, remove), the count of answers; the teacher's guess, Reveal and
    End class.

    The switches and buttons live in this fragment so that a press reruns only it (the teacher's screen answers
    at once, whatever the diagram costs), and so that they are drawn again every second: a run whose messages
    Streamlit dropped (a full run meeting this fragment's runs) mends itself a second later. The roster was
    drawn by the full run before, and a teacher's "Show class scores" could stay switched on over no scores
    (CI, stop 43). The scores follow the answers as they come. When the room's stage is no longer the one the
    page drew (this Reveal, or End class), the whole page is drawn again.
    """
    me = current()
    if me is None:  # End class was pressed
        st.rerun()
    show_flashes()
    room = None
    try:
        room = live.store().load(me["code"])
        check_in(me)
    except LiveError as err:
        live.show_live_error(err)
        read_only = True
    if room is not None:
        if drawn is not None and room["stage"]["n"] != drawn:
            st.rerun()  # the teacher revealed or the class moved on: redraw the page (chart, scores)
        live_roster.render_roster(room, me, read_only)
        with aria_tree.status("live_counts"):  # the answer count is read out as it changes
            _counts_line(room)
    revealed = room is not None and room["stage"]["status"] == "revealed"
    if question is not None and not revealed and not read_only:
        st.selectbox("Your own guess (optional)", question.features, index=None, key=pick_key(rid),
                     placeholder="No guess", help="Play along: your pick is marked on the chart of guesses "
                     "after Reveal. It is not scored and the students do not see it.")
    b1, b2 = st.columns(2)
    b1.button("Reveal", key="_w_live_reveal", type="primary", icon=":material/visibility:",
              disabled=read_only or revealed or question is None, on_click=reveal,
              args=(grower, question, rid), width="stretch",
              help="Judge the answers given so far, show the guesses and the gain table to everyone.")
    b2.button("End class", key="_w_live_end", icon=":material/logout:", on_click=end, width="stretch",
              disabled=read_only, help="Closes the room: students see that the class has ended.")


def render_reveal(room: dict) -> None:
    payload = room.get("reveal") or {}
    counts = payload.get("counts") or {}
    answered = sum(counts.values())
    right = sum(room.get("verdicts", {}).values())
    with aria_tree.status("live_reveal"):
        st.markdown(f"**Right: {right:d} of {answered:d}" + (f" ({right / answered:.0%})**" if answered else "**")
                    + f" · the winner: {md_escape(payload.get('winner_test', ''))}")
    show_chart(votes_figure(counts, payload.get("accepted", ()), payload.get("teacher_pick"), height=300),
                    key="live_votes", width="stretch", config={"displayModeBar": False})


def teaching(say: bool = True) -> bool:
    """Whether this session teaches a live class (resuming one from the address first); ``say``: show why an
    address's class could not be resumed (once a run: the page asks twice)."""
    resume_from_link(say)
    return current() is not None


def start_button() -> None:
    st.button("Start a live class", key="_w_live_start", on_click=start, icon=":material/groups:",
              width="stretch", help="Students join on their own phones or laptops with a code or QR code, "
                                    "follow this tree and vote on the next split.")


def sync(grower, status: str) -> None:
    """Publish the tree state (call it early in the page run: students follow before the diagram draws).

    Keeps (question, round id, room, error) for the panel drawn later in the same run.
    """
    me = current()
    question = None if grower.done else make_question(grower)
    try:
        rid = publish(grower, question, status)
        room, err = live.store().load(me["code"]), None
    except LiveError as exc:
        rid, room, err = None, None, exc
    st.session_state[SYNC] = (question, rid, room, err)


def render_compact() -> None:
    """Outside presenter view: say that the class runs (and follows this tree)."""
    me = current()
    _question, _rid, _room, err = st.session_state.get(SYNC, (None, None, None, None))
    if err is not None:
        live.show_live_error(err)
        if isinstance(err, rooms.RoomNotFound):
            _forget()
        return
    st.caption(f"Live class {md_escape(live.spaced(me['code']))} is running: students follow this tree. Presenter view "
               "shows the code, the answers and Reveal.")


def render_panel(grower, status: str) -> None:
    """The running class's panel (presenter view), after :func:`sync` in the same run."""
    me = current()
    if me is None:
        return
    if SYNC not in st.session_state:
        sync(grower, status)
    question, rid, room, err = st.session_state[SYNC]
    read_only = False
    if err is not None:
        if isinstance(err, rooms.RoomNotFound):  # expired or closed elsewhere
            _forget()
            st.warning(md_escape(err), icon=":material/info:")
            return
        live.show_live_error(err)
        read_only = True
    with st.container(border=True, key="live_panel"):
        address = live.join_address(me["code"], st.context.url)
        left, right = st.columns([3, 2], vertical_alignment="center")
        with left:
            st.markdown("**Live class**: join with the code")
            st.header(live.spaced(me["code"]), anchor=False)
            st.code(address, language=None, wrap_lines=True)
            if live.is_local_address(address):
                st.caption("This address only works on this computer: open the app by its network name, "
                           f"or set {live.ENV_PUBLIC_URL}.")
        # as wide as its column (a fixed 170 px ran over the card's border in a narrow presenter column)
        right.image(live.qr_png(address), caption="Scan to join", width="stretch",
                    alt=f"QR code of the join address {address}")  # WCAG 1.1.1: an image needs a text alternative
        right.caption(live_roster.idle_note())
        revealed = room is not None and room["stage"]["status"] == "revealed"
        if question is None and not read_only:
            st.caption("No question now: the tree is finished." if grower.done
                       else "The next step only closes leaves: press Step.")
        elif not revealed and not read_only:
            st.caption(f"Question: which feature splits node {question.node_id:d}? Step without revealing "
                       "moves on without scoring.")
        if revealed:
            render_reveal(room)
        # Last in the panel, in a box of its own: in two 40-student runs the element drawn right after a
        # once-a-second fragment went missing from the teacher's screen (the Reveal buttons, then the
        # question line) when the fragment's runs met the page's; nothing follows it here.
        with st.container(key="live_controls"):
            _live_controls(grower, question, rid, read_only, room["stage"]["n"] if room is not None else None)
