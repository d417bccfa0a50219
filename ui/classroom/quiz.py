"""The quiz panel of the Grow page: guess the next split, then see the gain table with pick and winner.

Flow: the panel asks about the node the next step will split (:func:`engine.teach.quiz.make_question`),
offering its candidate features in column order without scores (with CART / C4.5 a numeric pick also
needs a threshold). "Check and step" judges the answer (:func:`engine.teach.quiz.judge`), adds it to the
running score, takes the step through the Grow page's own action (so the diagram, narration and log
follow), and keeps the reveal: the node's gain table with the pick and the winner marked in words,
not only by colour. Pressing Step without answering just steps (nothing is scored).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from engine.errors import EngineError
from engine.teach.quiz import QuizAnswer, QuizScore, judge, make_question, reveal_table
from engine.split.records import format_number
from ui import state
from ui.grow import controls
from ui.widgets import flash, md_escape

SCORE = "_quiz_score"  # QuizScore
LAST = "_quiz_last"  # {"result": QuizResult, "table": DataFrame} of the last answer
W_PICK, W_THRESHOLD = "_w_quiz_pick", "_w_quiz_threshold"
TABLE_COLUMNS = ["mark", "feature", "split", "gain", "gain_ratio", "eligible"]


def score() -> QuizScore:
    s = st.session_state.get(SCORE)
    return s if isinstance(s, QuizScore) else QuizScore()


def reset_score() -> None:
    st.session_state[SCORE] = QuizScore()
    st.session_state.pop(LAST, None)


def marks(table: pd.DataFrame) -> pd.Series:
    """Text marks for the reveal table: "★ winner", "◀ your pick", or both."""
    def one(row) -> str:
        parts = (["★ winner"] if row["winner"] else []) + (["◀ your pick"] if row["pick"] else [])
        return " · ".join(parts)
    return table.apply(one, axis=1) if len(table) else pd.Series([], dtype=str)


def verdict_text(result) -> str:
    """One sentence (Markdown, user text escaped) about the answer."""
    pick = md_escape(result.answer.feature)
    winner = md_escape(result.winner_test)
    if result.threshold_correct is None:
        if result.correct:
            return f"Right: node {result.node_id} is split on {winner}."
        return f"Not this time: you picked {pick}; the winner is {winner}."
    t = md_escape(format_number(result.answer.threshold))
    window = result.windows[0] if result.windows else None
    span = (f"between {md_escape(format_number(window.lo))} and {md_escape(format_number(window.hi))}"
            if window is not None else "")
    if result.correct:
        return f"Right: {pick} at {t} lies {span}, the neighbours of the best threshold ({winner})."
    if result.feature_correct:
        return (f"The feature is right, but {t} is not {span}, the neighbours of the best threshold "
                f"({winner}).")
    return f"Not this time: you picked {pick}; the winner is {winner}."


def _answer(question, grower, step_action, drawn: tuple) -> None:
    """Button callback: judge the pick, score it, take the step, keep the reveal.

    ``drawn`` is the button's :func:`ui.grow.controls.drawn_mark`: a press that does not act (the same
    press delivered twice, or its copy in a fragment's poll: see :func:`ui.grow.controls.claim_press`)
    is neither scored nor stepped."""
    ss = st.session_state
    if not controls.claim_press(drawn, grower):
        return
    feature = ss.get(_key(W_PICK))
    if feature is None:
        flash("warning", "Pick a feature first (or press Step to go on without answering).")
        return
    threshold = ss.get(_key(W_THRESHOLD)) if question.needs_threshold(feature) else None
    try:
        result = judge(question, QuizAnswer(feature, threshold))
    except EngineError as err:
        flash("error", md_escape(err))
        return
    table = reveal_table(grower.gain_table(question.node_id), result)
    table.insert(0, "mark", marks(table))
    ss[SCORE] = score().add(result)
    step_action()
    ss[LAST] = {"result": result, "table": table, "steps": grower.n_steps}


def _key(base: str) -> str:
    """Widget keys per question, so a new question starts with nothing picked."""
    grower = st.session_state.get(state.GROWER)
    steps = grower.n_steps if grower is not None else 0
    return f"{base}_{state.data_version()}_{steps}"


def render_reveal(grower) -> None:
    """The last answer: verdict, and the node's gain table with the pick and the winner marked.

    Shown until the tree moves on (another step, undo or reset), so the next question has the room.
    """
    last = st.session_state.get(LAST)
    if not last or last.get("steps") != grower.n_steps:
        return
    result, table = last["result"], last["table"]
    box = st.success if result.correct else st.warning
    box(("✓ " if result.correct else "✗ ") + verdict_text(result),
        icon=":material/check_circle:" if result.correct else ":material/cancel:")
    cols = [c for c in TABLE_COLUMNS if c in table.columns]
    if "split" in cols and table["split"].astype(str).str.endswith("= ?").all():
        cols.remove("split")  # multiway splits: "Outlook = ?" adds nothing to the feature
    if "eligible" in cols and table["eligible"].all():
        cols = [c for c in cols if c not in ("gain_ratio", "eligible")]  # no C4.5 filter at work
    st.dataframe(table[cols], hide_index=True, width="stretch", key="quiz_reveal_table", column_config={
        "mark": st.column_config.TextColumn("", width="small"),
        "feature": "Feature", "split": "Best split of the feature",
        "gain": st.column_config.NumberColumn("Gain", format="%.3f"),
        "gain_ratio": st.column_config.NumberColumn("Gain ratio", format="%.3f"),
        "eligible": st.column_config.CheckboxColumn("Eligible", help="C4.5: gain at least the average"),
    })


def render_quiz(grower, step_action) -> None:
    """The quiz panel: running score, last reveal, and the next question (``step_action`` steps)."""
    s = score()
    head, reset = st.columns([3, 1.4], vertical_alignment="center")
    head.markdown(f"**Quiz score: {s.correct:d} of {s.asked:d} right**"
                  + (f" · features right: {s.features_correct:d}" if s.asked else ""))
    reset.button("Reset score", key="_w_quiz_reset", on_click=reset_score, disabled=not s.asked)
    render_reveal(grower)
    if grower.done:
        st.info(f"The tree is finished. Final score: {s.correct:d} of {s.asked:d}.", icon=":material/flag:")
        return
    question = make_question(grower)
    if question is None:
        st.info("The next step only closes leaves that must stop: press Step.", icon=":material/info:")
        return
    noun = "row" if question.n_rows == 1 else "rows"
    with st.container(border=True, key="quiz_question"):
        st.markdown(f"**Which feature will split node {question.node_id:d}** ({question.n_rows:,} {md_escape(noun)})?")
        pick = st.radio("Your guess", question.features, index=None, horizontal=True, key=_key(W_PICK),
                        format_func=md_escape)  # radio options are Markdown: show column names literally
        if pick is not None and question.needs_threshold(pick):
            lo, hi = question.range_of(pick)
            st.number_input(f"Threshold: the split is {md_escape(pick)} <= t (values here run from "
                            f"{format_number(lo)} to {format_number(hi)})", min_value=float(lo),
                            max_value=float(hi), value=None, key=_key(W_THRESHOLD), format="%g")
        elif question.ask_threshold and pick is None:
            st.caption("A numeric feature also needs a threshold.")
        st.button("Check and step", key="_w_quiz_check", type="primary", on_click=_answer,
                  args=(question, grower, step_action, controls.drawn_mark(grower)), icon=":material/quiz:")
