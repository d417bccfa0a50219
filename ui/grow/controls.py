"""Grow page controls: the session's grower (two-feature mode), the step buttons, Play/Pause, status.

The settings widgets live in :mod:`ui.grow.settings`. On a lesson opened before its end, Step, Step ×5,
Grow to end and Play walk the teacher's prepared actions (:mod:`ui.grow.lesson_steps`).

Every change of the tree goes through :func:`run_action` (buttons, Play, the classroom shortcuts), so
the node selection follows the last split and Play stops when the tree is finished.

One press acts once. Streamlit's browser sets a button's trigger and sends it on a zero-delay timer;
any request sent in between (a fragment's ``run_every`` poll: the live class panel, Play's ticker)
carries all widget states, the trigger included, and the server runs the callback for each request.
So the buttons pass the tree state they were drawn for (:func:`drawn_mark`) and :func:`run_action`
ignores a press whose state is gone: the second copy of one press finds the tree already moved. A
press also acts only in a full run: the toolbar is outside every fragment, so its own send always
reruns the page, and the copy a fragment's poll carried (which comes first) is left to it; acting in
the poll's run made that run long, and the press's full run stopped it midway.
"""

from __future__ import annotations

import threading
import time

import streamlit as st

from engine.errors import EngineError
from engine.grow.grower import Grower
from ui import state
from ui.grow import lesson_steps
from ui.widgets import flash, md_escape

P = "_w_grow_"
W_PACE = P + "pace"
FEATURES = "_grow_features"  # (x, y) in two-feature mode, else absent
PLAYING, PLAY_LAST = "_grow_playing", "_grow_play_last"
REVISION = "_grow_revision"  # counts the actions run_action applied in this session
# Makes a press's check of its mark and the revision's move one step: with fast reruns, the run carrying
# the second copy of a press starts while the first one's is still stepping (held for microseconds).
_CLAIM = threading.Lock()
PACES = (0.5, 1.0, 2.0, 3.0)  # seconds per step offered for Play


def status_text(grower) -> str:
    """``Step 3 · 7 nodes · 4 leaves · depth 2 · 2 open`` (``finished`` when nothing is open; ``1 node ·
    1 leaf`` for a lone root)."""
    tree = grower.tree
    open_n = len(grower.open_nodes)
    tail = "finished" if grower.done else f"{open_n} open"
    nodes = "1 node" if tree.n_nodes == 1 else f"{tree.n_nodes} nodes"
    leaves = "1 leaf" if tree.n_leaves == 1 else f"{tree.n_leaves} leaves"
    return f"Step {grower.n_steps} · {nodes} · {leaves} · depth {tree.depth} · {tail}"


def last_split_node(grower) -> int | None:
    """Node split by the latest split/forced step that still stands (None if none)."""
    tree = grower.tree
    for rec in reversed(grower.history):
        if rec.action in ("split", "forced") and rec.node_id is not None:
            if rec.node_id < len(tree.nodes) and tree.nodes[rec.node_id] is not None \
                    and not tree.nodes[rec.node_id].is_leaf:
                return rec.node_id
            return None
    return None


# ------------------------------------------------------------------------------------- grower
def two_features() -> tuple[str, str] | None:
    """The (x, y) of two-feature mode if it is on and still fits the data, else None."""
    feats = st.session_state.get(FEATURES)
    if not feats:
        return None
    train = state.current_split().train
    if not all(f in train.feature_names and train.kind(f) == "numeric" for f in feats):
        st.session_state.pop(FEATURES, None)
        return None
    return tuple(feats)


def session_grower() -> Grower:
    """The grower the page shows: the session's, on two features in two-feature mode.

    Raises the engine's ConfigError/DataError when the settings do not fit the data.
    """
    feats = two_features()
    grower = st.session_state.get(state.GROWER)
    train = state.current_split().train
    if feats is None:
        if grower is not None and grower.dataset.feature_names != train.feature_names:
            state.reset_tree()  # a two-feature grower left over
        return state.current_grower()
    if grower is None or grower.dataset.feature_names != feats:
        split = state.current_split()
        val = split.validation.with_features(list(feats)) if split.validation is not None else None
        grower = Grower(train.with_features(list(feats)), state.current_config(), validation_data=val,
                        n_jobs=state.current_n_jobs())
        state.set_grower(grower)
    return grower


def set_two_features(feats: tuple[str, str] | None) -> None:
    """Switch two-feature mode on (grow on ``feats`` only) or off; the tree starts again."""
    if feats:
        st.session_state[FEATURES] = tuple(feats)
    else:
        st.session_state.pop(FEATURES, None)
    state.reset_tree()


# ------------------------------------------------------------------------------------ actions
def _steps(g, n):
    for _ in range(n):
        if g.step() is None:
            break


ACTIONS = {
    "step": lambda g: _steps(g, 1),
    "step5": lambda g: _steps(g, 5),
    "grow": lambda g: g.grow(),
    "undo": lambda g: g.undo(),
    "reset": lambda g: g.reset(),
}

# on a lesson opened before its end, these walk its prepared actions (how many; None: to the lesson's end)
PREPARED_STEPS = {"step": 1, "step5": 5, "grow": None}


def drawn_mark(grower) -> tuple[int, int, int]:
    """The tree state a button is drawn for: this grower, its step count and the session's revision."""
    return id(grower), grower.n_steps, int(st.session_state.get(REVISION, 0))


def _in_fragment_run() -> bool:
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return bool(ctx is not None and ctx.fragment_ids_this_run)


def claim_press(drawn: tuple | None, grower) -> bool:
    """Whether this delivery of a press acts, and if so, move the session's revision (so that a second
    copy of the press, or any button drawn before, finds its mark gone).

    ``drawn`` is the :func:`drawn_mark` the pressed button was drawn with; a copy carried by a
    fragment's poll does not act (the press's own full run follows), nor a press whose tree has moved on.
    ``None`` (Play's ticks) always acts. Every callback that changes the tree or the score calls this
    first: the toolbar through :func:`run_action`, the quiz's Check and step itself.
    """
    if drawn is not None and _in_fragment_run():
        return False
    with _CLAIM:
        if drawn is not None and tuple(drawn) != drawn_mark(grower):
            return False
        st.session_state[REVISION] = int(st.session_state.get(REVISION, 0)) + 1
        return True


def run_action(name: str, drawn: tuple | None = None) -> None:
    """Apply a toolbar action to the session's grower if the press acts (:func:`claim_press`); engine
    errors are queued as messages."""
    try:
        grower = session_grower()
        if not claim_press(drawn, grower):
            return
        if name == "reset":
            lesson_steps.leave()
        if not (name in PREPARED_STEPS and lesson_steps.step(grower, PREPARED_STEPS[name])):
            ACTIONS[name](grower)
        if name == "undo":
            lesson_steps.undone(grower)
    except EngineError as err:
        flash("error", md_escape(err))
        return
    node = last_split_node(grower)
    state.select_node(node if node is not None else 0)
    if name in ("undo", "reset") or grower.done or (name in PREPARED_STEPS and lesson_steps.at_end(grower)):
        st.session_state[PLAYING] = False  # (Play stops at a prepared lesson's last step too)


# ------------------------------------------------------------------------------------ widgets
def toolbar(grower, *, compact: bool = False) -> None:
    """Step, Step ×5, Grow to end, Undo, Reset, Play/Pause with its pace; then the status line.

    The pace's label is folded into its value ("1 s per step"), so the row is one button high and the tree
    starts higher. ``compact``: presenter view (kept for callers; the row is the same)."""
    done, empty = grower.done, grower.n_steps == 0
    mark = drawn_mark(grower)
    cols = st.columns([1, 1, 1.3, 1.2, 1.3, 1.1, 1.3], vertical_alignment="bottom")  # Undo, Reset: + key hints
    cols[0].button("Step", key=P + "step", shortcut="Right", type="primary", disabled=done, on_click=run_action,
                   args=("step", mark), width="stretch", icon=":material/skip_next:")
    cols[1].button("Step ×5", key=P + "step5", disabled=done, on_click=run_action, args=("step5", mark),
                   width="stretch")
    cols[2].button("Grow to end", key=P + "grow", disabled=done, on_click=run_action, args=("grow", mark),
                   width="stretch", icon=":material/fast_forward:")
    cols[3].button("Undo", key=P + "undo", shortcut="Left", disabled=empty, on_click=run_action, args=("undo", mark),
                   width="stretch", icon=":material/undo:")
    cols[4].button("Reset", key=P + "reset", shortcut="Home", disabled=empty, on_click=run_action, args=("reset", mark),
                   width="stretch", icon=":material/restart_alt:")
    if st.session_state.get(PLAYING):
        cols[5].button("Pause", key=P + "pause", shortcut="P", on_click=_set_playing, args=(False,), width="stretch",
                       icon=":material/pause:")
    else:
        cols[5].button("Play", key=P + "play", shortcut="P", disabled=done, on_click=_set_playing, args=(True, mark),
                       width="stretch", icon=":material/play_arrow:")
    st.session_state.setdefault(W_PACE, 1.0)
    # the same options' text in both views (when it changed with presenter view, the browser reset the slider to
    # its first option, 0.5 s, and kept it there); the label is folded into the value, so the row is one button high
    cols[6].select_slider("Play pace", PACES, key=W_PACE, format_func=pace_text, label_visibility="collapsed",
                          help="Seconds per step while Play runs.")
    if st.session_state.get(PLAYING):
        _ticker(float(st.session_state[W_PACE]))


def pace_text(seconds: float) -> str:
    """``1 s per step``: a pace as the slider shows it (in normal and presenter view alike)."""
    return f"{seconds:g} s per step"


def _set_playing(on: bool, drawn: tuple | None = None) -> None:
    st.session_state[PLAYING] = bool(on)
    if on:
        run_action("step", drawn)
        st.session_state[PLAY_LAST] = time.monotonic()


def _tick() -> None:
    """One Play tick: a step when a whole pace has passed since the last one, then a full rerun."""
    ss = st.session_state
    if not ss.get(PLAYING):
        return
    pace = float(ss.get(W_PACE, 1.0))
    if time.monotonic() - float(ss.get(PLAY_LAST, 0.0)) < 0.95 * pace:
        return
    run_action("step")
    ss[PLAY_LAST] = time.monotonic()
    st.rerun()


def _ticker(pace: float) -> None:
    # Ticks four times per pace; a tick steps once a whole pace has passed since the last step, so
    # the time a step's full rerun takes does not add to the pace.
    st.fragment(_tick, run_every=max(0.25, pace / 4))()
