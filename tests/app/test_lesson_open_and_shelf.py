"""AppTest of issue 39 items 1 and 3 beyond the round trip on the Lessons page (test_lesson_file_roundtrip.py):

- a lesson opened from the **Data page's** file chooser restores the data with its column kinds, target and split,
  the tree and its history, the notes and the classroom switches (presenter view, quiz, narration language), and
  the Data page stays where it is;
- the **shelf** (DTX_LESSONS_DIR) shows each file's title, data set (with its rows), size and the teacher's
  description;
- each of the engine tests' 25 hostile lesson files, opened in the app, shows its one sentence and changes nothing.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.errors import DataError
from engine.teach.lesson_file import read_lesson, write_lesson
from engine.teach.lesson_replay import make_lesson, replay
from tests.engine.teach.test_lesson_file import HOSTILE, _grower, _shape
from ui import state
from ui.classroom import lesson_io, presenter
from ui.widgets import md_escape

NOTES = {1: "Why soil?", 3: "Forced on temp", 6: "Collapsed, then a step"}


def lesson(**kw):
    """The engine tests' lesson (a CSV with a column made categorical, a step, two forced splits, a step, a
    collapse, a step) with notes and every classroom switch moved from its default."""
    loaded, ds, settings, g = _grower()
    made = make_lesson(title="Soil & rain", description="Which *soils* suit vines?", dataset_name="field.csv",
                       loaded=loaded, dataset=ds, split=settings, seed=4, grower=g, presenter=True, quiz=True,
                       lang="de", notes=NOTES)
    return write_lesson(replace(made, **kw)), g, ds, settings


def test_a_lesson_opened_on_the_data_page_restores_data_tree_history_notes_and_switches(app_test):
    data, g, ds, settings = lesson()
    at = app_test("pages/data.py")
    at.file_uploader(key="_w_lesson_file_data").set_value(("soil.dtx", data, "application/zip")).run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    ss = at.session_state
    assert ss[state.DATASET_NAME] == "field.csv"
    restored = ss[state.DATASET]
    assert restored.kind("note") == "categorical" and restored.kinds == ds.kinds  # the teacher's kinds, not load_csv's
    assert restored.target == ds.target and ss[state.SPLIT_SETTINGS] == settings and ss[state.SEED] == 4
    grower = ss[state.GROWER]
    assert _shape(grower) == _shape(g) and [a[0] for a in grower.actions] == [a[0] for a in g.actions]
    assert [(h.action, h.node_id) for h in grower.history] == [(h.action, h.node_id) for h in g.history]
    assert {k: v[0] for k, v in ss[state.STEP_NOTES].items()} == NOTES
    assert (ss[presenter.PRESENTER], ss[presenter.QUIZ]) == (True, True)
    assert presenter.LANGUAGES["de"] == ss[presenter.LANG]
    assert lesson_io.GO_GROW not in ss  # the Data page stays: its own "Open a lesson file" chooser is still there
    assert at.file_uploader(key="_w_lesson_file_data") is not None
    assert any("Lesson opened" in str(getattr(t, "value", "")) for t in list(at.success) + list(at.toast))


def test_the_shelf_shows_title_data_set_rows_size_and_description(app_test, tmp_path, monkeypatch):
    data, g, ds, _ = lesson()
    (tmp_path / "soil.dtx").write_bytes(data)
    monkeypatch.setenv(lesson_io.ENV_DIR, str(tmp_path))
    at = app_test("pages/lessons.py")
    assert not at.exception, at.exception
    assert md_escape("Soil & rain") in [h.value for h in at.subheader]
    rows = read_lesson(data, with_data=False).check["rows"]
    size = f"{len(data) / 1024:,.1f} kB"
    caption = (f"{md_escape('soil.dtx')} · data: {md_escape('field.csv')} ({rows:,} rows) · {len(g.actions):,} steps · "
               f"{md_escape(size)}")
    assert caption in [c.value for c in at.caption], [c.value for c in at.caption if "soil" in c.value]
    assert md_escape("Which *soils* suit vines?", limit=1000) in [m.value for m in at.markdown]


@pytest.fixture(scope="module")
def good_file() -> bytes:
    return lesson()[0]


@pytest.mark.parametrize("name", list(HOSTILE))
def test_each_hostile_file_gives_its_sentence_in_the_app_and_changes_nothing(app_test, good_file, name):
    """The engine's 25 hostile lesson files (tests/engine/teach/test_lesson_file.py::HOSTILE), opened on the Lessons
    page of a session with a tree: the page shows the engine's one sentence, no traceback, and no state moved."""
    bad = HOSTILE[name][0](good_file)
    with pytest.raises(DataError) as caught:  # the sentence at the app's real limits
        replay(read_lesson(bad))
    at = app_test("pages/grow.py")
    at.button(key="_w_grow_step").click().run()
    at.switch_page("pages/lessons.py").run()
    keys = (state.DATASET_NAME, state.DATA_VERSION, state.TREE_CONFIG, state.SEED, state.SPLIT_SETTINGS)
    before = [at.session_state[k] for k in keys] + [_shape(at.session_state[state.GROWER])]
    at.file_uploader(key="_w_lesson_file_lessons").set_value(("bad.dtx", bad, "application/zip")).run()
    assert not at.exception, at.exception
    assert [e.value for e in at.error] == [md_escape(str(caught.value))]
    assert [at.session_state[k] for k in keys] + [_shape(at.session_state[state.GROWER])] == before
