"""AppTest of the classroom panels (ui/classroom/presenter.py, ui/classroom/quiz.py) in a small host script.

The host script plays the Grow page's part: the switches, a Step button, the quiz, the narration under
the diagram and the narrated log. The Grow page itself is tested in test_classroom_grow.py.
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from engine.config import TreeConfig
from ui.classroom import presenter as classroom, quiz as classroom_quiz
from ui import state


def host():  # runs as a Streamlit script: imports inside
    import streamlit as st

    from ui.classroom import presenter as classroom, quiz as classroom_quiz
    from ui import state
    from ui.widgets import show_flashes

    state.init_state()
    show_flashes()
    sw = classroom.classroom_bar()
    grower = state.current_grower()

    def step():
        grower.step()

    st.button("Step", key="host_step", on_click=step)
    if sw.quiz:
        classroom_quiz.render_quiz(grower, step)
    classroom.render_narration(grower, sw.lang)
    classroom.render_narrated_log(grower, sw.lang)


def _host(config: TreeConfig | None = None, sample: str | None = None) -> AppTest:
    at = AppTest.from_function(host, default_timeout=60)
    at.run()
    if sample is not None:
        from ui.cache import load_sample_cached

        at.session_state[state.DATASET_NAME] = sample
        ds = load_sample_cached(sample)
        split = ds.split(test_size=0.0 if len(ds) < 30 else 0.25, seed=0)
        at.session_state[state.DATASET] = ds
        at.session_state[state.DATA_SPLIT] = split
        at.session_state[state.GROWER] = None
    if config is not None:
        at.session_state[state.TREE_CONFIG] = config
        at.session_state[state.GROWER] = None
    at.run()
    assert not at.exception, at.exception
    return at


def _plain(markdown: str) -> str:
    """Markdown escaped by md_escape back to its text."""
    return markdown.replace("\\", "")


def _narration(at: AppTest) -> str:
    """The text under the diagram (the first Markdown element of the narration container)."""
    return _plain(next(m.value for m in at.markdown if "Press" in m.value or "Node" in m.value))


def test_narration_under_the_diagram_and_in_the_log():
    at = _host()
    assert _narration(at).startswith("Press Step")
    at.button(key="host_step").click().run()
    assert not at.exception
    first = ("Node 0 (14 days, 9 Yes / 5 No, entropy 0.940) is split on Outlook (Overcast / Rain / Sunny): "
             "the entropy drops from 0.940 to 0.694 and 1 of 3 branches is pure (gain 0.247); Humidity would "
             "gain only 0.152.")
    texts = [_plain(m.value) for m in at.markdown]
    assert first in texts  # under the diagram
    assert "**1.** " + first in texts  # in the narrated log
    at.button(key="host_step").click().run()
    texts = [_plain(m.value) for m in at.markdown]
    assert any(t.startswith("**2.** Node 1 (4 days") for t in texts)
    assert texts.index(next(t for t in texts if t.startswith("**2.**"))) < texts.index("**1.** " + first)


def test_narration_language_switch():
    at = _host()
    at.button(key="host_step").click().run()
    at.selectbox(key=classroom.LANG).set_value("Deutsch").run()
    assert not at.exception
    texts = [_plain(m.value) for m in at.markdown]
    assert any(t.startswith("Knoten 0 (14 Tage, 9 Yes / 5 No, Entropie 0,940) wird nach Outlook") for t in texts)


def test_presenter_switch_injects_the_projector_styles():
    at = _host()
    htmls = [h.proto.body for h in at.get("html")]
    assert any("st-key-narration" in h for h in htmls) and not any("stSidebar" in h for h in htmls)
    at.toggle(key=classroom.PRESENTER).set_value(True).run()
    htmls = [h.proto.body for h in at.get("html")]
    assert any("stSidebar" in h and "font-size" in h for h in htmls)
    assert at.session_state[classroom.PRESENTER] is True


def test_quiz_right_answer_scores_steps_and_reveals():
    at = _host(TreeConfig(algorithm="id3"))
    at.toggle(key=classroom.QUIZ).set_value(True).run()
    radio = at.radio[0]
    assert radio.options == ["Outlook", "Temperature", "Humidity", "Wind"] and radio.value is None
    radio.set_value("Outlook").run()
    at.button(key="_w_quiz_check").click().run()
    assert not at.exception
    assert at.session_state[state.GROWER].n_steps == 1
    score = at.session_state[classroom_quiz.SCORE]
    assert (score.asked, score.correct) == (1, 1)
    assert any("Right: node 0 is split on Outlook" in _plain(s.value) for s in at.success)
    table = at.dataframe[0].value.set_index("feature")
    assert table.loc["Outlook", "mark"] == "★ winner · ◀ your pick"
    assert table.loc["Humidity", "mark"] == ""
    assert any("Quiz score: 1 of 1 right" in m.value for m in at.markdown)
    # the next question is about node 2 (node 1 is pure), with nothing picked
    assert at.radio[0].options == ["Temperature", "Humidity", "Wind"] and at.radio[0].value is None


def test_quiz_wrong_answer_and_reset():
    at = _host(TreeConfig(algorithm="id3"))
    at.toggle(key=classroom.QUIZ).set_value(True).run()
    at.radio[0].set_value("Humidity").run()
    at.button(key="_w_quiz_check").click().run()
    score = at.session_state[classroom_quiz.SCORE]
    assert (score.asked, score.correct, score.features_correct) == (1, 0, 0)
    assert any("you picked Humidity; the winner is Outlook" in _plain(w.value) for w in at.warning)
    table = at.dataframe[0].value.set_index("feature")
    assert table.loc["Humidity", "mark"] == "◀ your pick" and table.loc["Outlook", "mark"] == "★ winner"
    at.button(key="_w_quiz_reset").click().run()
    assert at.session_state[classroom_quiz.SCORE].asked == 0 and not at.dataframe


def test_quiz_without_a_pick_only_warns():
    at = _host(TreeConfig(algorithm="id3"))
    at.toggle(key=classroom.QUIZ).set_value(True).run()
    at.button(key="_w_quiz_check").click().run()
    assert at.session_state[state.GROWER].n_steps == 0
    assert any("Pick a feature first" in w.value for w in at.warning)


@pytest.mark.parametrize("threshold, right", [(80.0, True), (73.5, False), (None, None)])
def test_cart_quiz_threshold_window(threshold, right):
    at = _host(TreeConfig(algorithm="cart"), sample="play_tennis_numeric")
    at.button(key="host_step").click().run()  # root: Outlook; the question is about node 1
    at.toggle(key=classroom.QUIZ).set_value(True).run()
    at.radio[0].set_value("Temperature").run()
    assert "Temperature <= t" in at.number_input[0].label and "65 to 85" in at.number_input[0].label
    if threshold is not None:
        at.number_input[0].set_value(threshold).run()
    at.button(key="_w_quiz_check").click().run()
    assert not at.exception
    if right is None:
        assert any("Give a threshold for Temperature" in e.value for e in at.error)
        assert at.session_state[state.GROWER].n_steps == 1
        return
    score = at.session_state[classroom_quiz.SCORE]
    assert (score.correct, score.features_correct) == (int(right), 1)
    text = " ".join(_plain(x.value) for x in [*at.success, *at.warning])
    assert "between 73.5 and 82.5" in text


def _quiz_press_delivered_three_times():
    """Script: one press of Check and step arrives three times with the mark it was drawn with: first in
    a fragment poll's run (simulated), then in its own full run, then once more."""
    import streamlit as st

    from engine.teach.quiz import make_question
    from ui import state
    from ui.classroom import quiz
    from ui.grow import controls

    state.init_state()
    g = state.current_grower()
    question = make_question(g)
    st.session_state[quiz._key(quiz.W_PICK)] = question.features[0]
    mark = controls.drawn_mark(g)
    in_fragment = controls._in_fragment_run
    controls._in_fragment_run = lambda: True  # the copy a fragment's poll carried first
    try:
        quiz._answer(question, g, g.step, mark)
    finally:
        controls._in_fragment_run = in_fragment
    after_poll = (g.n_steps, quiz.score().asked)
    quiz._answer(question, g, g.step, mark)  # the press's own full run
    quiz._answer(question, g, g.step, mark)  # another copy of the same press
    st.session_state["seen"] = [after_poll, (g.n_steps, quiz.score().asked)]


def test_a_quiz_press_scores_and_steps_once_however_often_it_arrives():
    """The quiz claims its press as the toolbar does (ui.grow.controls.claim_press): the copy in a
    fragment's poll (the live class panel beside the quiz in presenter view) neither scores nor steps,
    the press's own full run does both once, a second copy nothing."""
    at = AppTest.from_function(_quiz_press_delivered_three_times, default_timeout=60).run()
    assert not at.exception, at.exception
    assert at.session_state["seen"] == [(0, 0), (1, 1)]
