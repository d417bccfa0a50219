"""A lesson file on the shelf (DTX_LESSONS_DIR) starts a live class: the teacher's presenter view and the
students' page show the note of the step with the narration (escaped)."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from engine.config import TreeConfig
from engine.data.dataset import load_sample
from engine.grow.grower import Grower
from engine.teach.lesson_file import write_lesson
from engine.teach.lesson_replay import make_lesson
from tests.app.classroom.test_live_class import (TEACHER_BROWSER, as_client, fresh_store, ok,  # noqa: F401
                                                 student)
from ui import state
from ui.classroom import lesson_io, live_teacher, presenter
from ui.widgets import md_escape

ROOT = Path(__file__).resolve().parents[2]
NOTE = "Guess first: *Outlook* or $Humidity$? <b>no html</b>"


def lesson_bytes() -> bytes:
    ds = load_sample("play_tennis")
    settings = {"test_size": 0.0, "validation_size": 0.0, "seed": 0}
    g = Grower(ds.split(**settings).train, TreeConfig(algorithm="id3"))
    g.step()
    return write_lesson(make_lesson(title="Tennis, my way", description="Mitchell's days with my notes.",
                                    dataset_name="play_tennis", loaded=ds, dataset=ds, split=settings, seed=0,
                                    grower=g, notes={1: NOTE}))


def test_a_shelf_lesson_starts_a_live_class_and_students_see_the_note(tmp_path, monkeypatch):
    (tmp_path / "tennis.dtx").write_bytes(lesson_bytes())
    monkeypatch.setenv(lesson_io.ENV_DIR, str(tmp_path))
    at = as_client(AppTest.from_file(str(ROOT / "app.py"), default_timeout=90), TEACHER_BROWSER)
    at.switch_page("pages/lessons.py")
    at.run()
    ok(at)
    assert md_escape("Tennis, my way") in [h.value for h in at.subheader]
    assert md_escape("Mitchell's days with my notes.", limit=1000) in [m.value for m in at.markdown]
    at.button(key="_w_shelf_0_live").click()
    at.run()
    ok(at)
    assert at.session_state[presenter.PRESENTER] is True
    code = at.session_state[live_teacher.SESSION]["code"]
    assert at.session_state[state.GROWER].n_steps == 1
    shown = md_escape(NOTE, limit=1000)
    assert any(shown in m.value for m in at.markdown)  # presenter view: with the narration
    ana = student(code, "ana")
    assert any(shown in m.value for m in ana.markdown)  # the student's page


def test_a_ready_made_lesson_starts_a_live_class():
    at = as_client(AppTest.from_file(str(ROOT / "app.py"), default_timeout=90), TEACHER_BROWSER)
    at.switch_page("pages/lessons.py")
    at.run()
    ok(at)
    at.button(key="_w_live_lesson_gini-entropy-misclassification").click()
    at.run()
    ok(at)
    assert at.session_state[presenter.PRESENTER] is True and at.session_state[live_teacher.SESSION]["code"]
    assert at.session_state[state.DATASET_NAME] == "ski" and at.session_state[state.GROWER].n_steps == 1
    assert at.session_state[state.TREE_CONFIG].criterion == "misclassification"
    code = at.session_state[live_teacher.SESSION]["code"]
    ana = student(code, "ana")
    assert "ski" in " ".join(c.value for c in ana.caption)
