"""AppTest of classroom mode on the Grow page: presenter view, narration, quiz, shortcuts, switches in the URL."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ui.classroom import presenter as classroom, quiz as classroom_quiz
from tests.app.tree_charts import tree_charts
from ui import state
from ui.classroom.lessons import BY_SLUG

ROOT = Path(__file__).resolve().parents[3]
APP = str(ROOT / "app.py")
GROW = "pages/grow.py"
pytestmark = pytest.mark.skipif(
    "classroom_bar" not in (ROOT / GROW).read_text(encoding="utf-8"),
    reason="the Grow page has no classroom bar yet")

SETTINGS = "Settings: algorithm, impurity, stopping rules"


def _open(params: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    for k, v in (params or {}).items():
        at.query_params[k] = v
    at.switch_page(GROW)
    at.run()
    assert not at.exception, at.exception
    return at


def _plain(text: str) -> str:
    return text.replace("\\", "")


def _narration(at: AppTest) -> str:
    texts = [_plain(m.value) for m in at.markdown]
    return next(t for t in texts if t.startswith(("Node ", "Nodes ", "Knoten ", "Press Step")))


def test_normal_view_has_the_switches_and_the_narration():
    at = _open()
    assert [t.label for t in at.toggle][:2] == ["Presenter view", "Quiz"]
    assert not at.toggle(key=classroom.PRESENTER).value and not at.toggle(key=classroom.QUIZ).value
    assert SETTINGS in [e.label for e in at.expander]
    assert _narration(at).startswith("Press Step")
    at.button(key="_w_grow_step").click().run()
    assert _narration(at).startswith("Node 0 (14 days, 9 Yes / 5 No, entropy 0.940) is split on Outlook")
    # the narrated log sits in the Step log tab
    at.session_state["_w_grow_tab"] = "Step log"
    at.run()
    assert any(_plain(m.value).startswith("**1.** Node 0 (14 days") for m in at.markdown)


def test_toolbar_buttons_carry_keyboard_shortcuts():
    at = _open()
    shortcuts = {key: at.button(key=f"_w_grow_{key}").proto.shortcut for key in ("step", "undo", "reset", "play")}
    assert shortcuts == {"step": "right", "undo": "left", "reset": "home", "play": "p"}
    assert classroom.SHORTCUTS == {"step": "Right", "undo": "Left", "reset": "Home", "play": "P"}


def test_presenter_lesson_hides_the_controls_and_keeps_the_buttons():
    at = _open(BY_SLUG["id3-play-tennis"].query_params())
    assert at.toggle(key=classroom.PRESENTER).value and at.toggle(key=classroom.QUIZ).value
    assert SETTINGS not in [e.label for e in at.expander]
    assert not at.tabs  # inspector, step log, query and export are hidden
    assert not at.title  # the tree is the first thing on the projector: no page title or its caption
    assert not any(c.value.startswith("Press **Step**") for c in at.caption)
    for key in ("step", "undo", "reset", "play"):
        at.button(key=f"_w_grow_{key}")  # still there
    pace = at.select_slider(key="_w_grow_pace")  # one button-high toolbar row: the pace's label is in its value
    assert pace.label_visibility.value == pace.label_visibility.COLLAPSED and "1 s per step" in pace.options
    css = " ".join(h.proto.body for h in at.get("html"))
    for part in ("stSidebar", "stSidebarCollapsedControl", "stSidebarCollapseButton", "stExpandSidebarButton"):
        assert f'[data-testid="{part}"]' in css  # no way to open the sidebar on the projector
    assert tree_charts(at)
    # presenter off: everything is back
    at.toggle(key=classroom.PRESENTER).set_value(False).run()
    assert SETTINGS in [e.label for e in at.expander] and at.tabs
    assert [t.value for t in at.title] == ["Grow"]
    pace = at.select_slider(key="_w_grow_pace")
    assert pace.label_visibility.value == pace.label_visibility.COLLAPSED and "1 s per step" in pace.options


def test_presenter_view_keeps_the_play_pace():
    """The pace's options read the same in both views: when their text changed with presenter view, the
    browser reset the slider to its first option (1 s became 0.5 s, and stayed so after presenter view)."""
    at = _open()
    at.select_slider(key="_w_grow_pace").set_value(2.0).run()
    normal = at.select_slider(key="_w_grow_pace")
    at.toggle(key=classroom.PRESENTER).set_value(True).run()
    presenter = at.select_slider(key="_w_grow_pace")
    assert presenter.options == normal.options and presenter.value == 2.0
    at.toggle(key=classroom.PRESENTER).set_value(False).run()
    assert at.select_slider(key="_w_grow_pace").value == 2.0


def test_quiz_on_the_grow_page_steps_through_the_page_action():
    at = _open(BY_SLUG["id3-play-tennis"].query_params())
    assert at.radio[0].options == ["Outlook", "Temperature", "Humidity", "Wind"]
    at.radio[0].set_value("Outlook").run()
    at.button(key="_w_quiz_check").click().run()
    assert not at.exception
    grower = at.session_state[state.GROWER]
    assert grower.n_steps == 1 and at.session_state[state.SELECTED_NODE] == 0
    assert at.session_state[classroom_quiz.SCORE].correct == 1
    assert _narration(at).startswith("Node 0 (14 days")
    assert any("Which feature will split node 2" in m.value for m in at.markdown)


def test_switches_and_language_come_from_the_address():
    at = _open({classroom.PRESENTER: "true", classroom.LANG: "Deutsch"})
    assert at.toggle(key=classroom.PRESENTER).value
    assert at.selectbox(key=classroom.LANG).value == "Deutsch"
    at.button(key="_w_grow_step").click().run()
    assert _narration(at).startswith("Knoten 0 (14 Tage, 9 Yes / 5 No, Entropie 0,940) wird nach Outlook")


def test_a_long_narration_is_shown_to_its_last_word():
    """C4.5 on golf in German narrates one step in 529 characters (two leaves closed and a split with its tie): the
    page cut every narration at md_escape's 300 characters, mid-word."""
    at = _open({"data": "golf", "cfg": "alg:c45", classroom.LANG: "Deutsch"})
    longest = ""
    while not at.button(key="_w_grow_step").disabled:  # to the end of the tree
        at.button(key="_w_grow_step").click().run()
        assert not at.exception, at.exception
        text = _narration(at)
        assert not text.endswith("…"), text
        longest = max(longest, text, key=len)
    assert len(longest) > 300 and longest.endswith("."), longest
