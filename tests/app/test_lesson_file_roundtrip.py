"""AppTest of issue 39's "done when": a lesson made from an uploaded CSV with two forced splits, a manual
prune (collapse) and notes on three steps is saved (the download), opened in a fresh session (a new
AppTest) and shows the same tree, history, gain tables and notes on every page; the lessons folder lists it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from engine.split.records import Split
from ui import state
from ui.classroom import lesson_io, presenter
from ui.grow import controls
from ui.data.panels import W_UPLOAD
from ui.widgets import md_escape
from tests.conftest import APP_PATH

PAGES = ("pages/data.py", "pages/grow.py", "pages/prune.py", "pages/evaluate.py", "pages/rules.py",
         "pages/lessons.py")


def field_csv() -> bytes:
    rng = np.random.default_rng(7)
    n = 160
    soil = rng.choice(["clay", "sand", "loam", "chalk"], n)
    rain = rng.normal(600, 120, n).round(1)
    slope = rng.integers(0, 30, n)
    ok = np.where((rain > 580) & (soil != "sand") | (slope > 25), "vines", "grain")
    return pd.DataFrame({"soil": soil, "rain mm": rain, "slope": slope, "crop": ok}).to_csv(index=False).encode()


def _new(page: str | None = None) -> AppTest:
    at = AppTest.from_file(str(APP_PATH), default_timeout=120)
    at.run()
    if page:
        at.switch_page(page)
        at.run()
    return at


def _ok(at: AppTest) -> None:
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]


def _note(at: AppTest, text: str) -> None:
    at.text_input(key=lesson_io.W_NOTE).input(text)
    at.run()
    _ok(at)


def _shape(grower):
    tree = grower.tree
    return [(n.id, n.n_node_samples, None if n.split is None else n.split.describe()) for n in tree.walk()]


def _gains(grower):
    out = {}
    for n in grower.tree.walk():
        if n.split is not None:
            table = grower.gain_table(n.id).round(12)
            out[n.id] = table.to_dict("list")
    return out


@pytest.fixture
def prepared(downloads):
    """The teacher's session: upload, steps, two forced splits, a collapse, three notes, saved."""
    at = _new("pages/data.py")
    at.file_uploader(key=W_UPLOAD).set_value(("vineyard.csv", field_csv(), "text/csv"))
    at.run()
    _ok(at)
    assert at.session_state[state.DATASET_NAME] == "vineyard.csv"
    at.switch_page("pages/grow.py")
    at.run()
    _ok(at)
    g = at.session_state[state.GROWER] if state.GROWER in at.session_state else None
    at.button(key="_w_grow_step").click()
    at.run()
    g = at.session_state[state.GROWER]
    assert g.n_steps == 1
    _note(at, "Ask: why rain first? *not bold*")
    soil = g.schema.index("soil")
    cats = g.dataset.categories["soil"]
    left = g.tree.node(0).children[0]
    g.expand(left, Split(feature="soil", feature_index=soil, kind="subset", categories=(cats[0],),
                         category_codes=(0,)))
    at.run()
    _note(at, "Forced: =HYPERLINK(1) <b>x</b> $x$")
    right = g.tree.node(0).children[1]
    idx, _ = g.node_rows(right)
    thr = float(np.median(g.dataset.frame["slope"].to_numpy()[idx]))
    g.expand(right, Split(feature="slope", feature_index=g.schema.index("slope"), kind="threshold", threshold=thr))
    g.step()
    g.collapse(g.tree.node(right).children[0]) if not g.tree.node(g.tree.node(right).children[0]).is_leaf \
        else g.collapse(right)
    at.run()
    _note(at, "Pruned by hand.")
    assert len(state_notes(at)) == 3
    at.switch_page("pages/lessons.py")  # "Save the current state as a lesson file"
    at.run()
    _ok(at)
    name = next(n for n in downloads if n.endswith(".dtx"))
    return at, downloads[name]


def state_notes(at):
    return {k: v[0] for k, v in at.session_state[state.STEP_NOTES].items()}


def test_a_saved_lesson_opens_in_a_fresh_session_with_the_same_tree_history_gains_and_notes(prepared, tmp_path,
                                                                                               monkeypatch):
    at, data = prepared
    g = at.session_state[state.GROWER]
    actions = [a[0] for a in g.actions]
    assert actions.count("expand") == 2 and actions.count("collapse") == 1
    shape, gains, history = _shape(g), _gains(g), [(r.action, r.node_id) for r in g.history]
    notes = state_notes(at)

    fresh = _new("pages/lessons.py")  # another session
    assert fresh.session_state[state.DATASET_NAME] != "vineyard.csv"
    fresh.file_uploader(key="_w_lesson_file_lessons").set_value(("lesson.dtx", data, "application/zip"))
    fresh.run()
    _ok(fresh)
    g2 = fresh.session_state[state.GROWER]
    assert fresh.session_state[state.DATASET_NAME] == "vineyard.csv"
    assert _shape(g2) == shape and _gains(g2) == gains
    assert [(r.action, r.node_id) for r in g2.history] == history
    assert state_notes(fresh) == notes
    for page in PAGES:
        fresh.switch_page(page)
        fresh.run()
        _ok(fresh)
        assert fresh.session_state[state.GROWER] is g2 or _shape(fresh.session_state[state.GROWER]) == shape
    fresh.switch_page("pages/grow.py")
    fresh.run()
    assert md_escape("Pruned by hand.") in " ".join(m.value for m in fresh.markdown)  # the note beside the narration
    fresh.session_state[presenter.PRESENTER] = True
    fresh.run()
    _ok(fresh)
    assert md_escape("Pruned by hand.") in " ".join(m.value for m in fresh.markdown)  # and in presenter view

    folder = tmp_path / "shelf"
    folder.mkdir()
    (folder / "vineyard.dtx").write_bytes(data)
    (folder / "broken.dtx").write_bytes(data[: len(data) // 2])
    monkeypatch.setenv(lesson_io.ENV_DIR, str(folder))
    shelf = _new("pages/grow.py")  # a session that has used the Grow and Data pages (their widgets hold values)
    shelf.button(key="_w_grow_step").click().run()
    shelf.switch_page("pages/data.py").run()
    shelf.switch_page("pages/lessons.py").run()
    assert not shelf.exception
    assert [e.value for e in shelf.error] == [md_escape("This is not a lesson file this app wrote: it is not a "
                                                        "complete .dtx archive (damaged or cut short).")]
    assert "Untitled lesson" in [h.value for h in shelf.subheader]
    shelf.button(key="_w_shelf_1_open").click()
    shelf.run()
    assert not shelf.exception
    assert _shape(shelf.session_state[state.GROWER]) == shape
    for page in PAGES[:-1]:  # no page's widgets put their old values back (the Lessons page shows broken.dtx's error)
        shelf.switch_page(page).run()
        _ok(shelf)
        assert _shape(shelf.session_state[state.GROWER]) == shape
        assert shelf.session_state[state.TREE_CONFIG] == g.config
        assert shelf.session_state[state.SPLIT_SETTINGS] == fresh.session_state[state.SPLIT_SETTINGS]


def test_a_bad_lesson_file_gives_one_sentence_and_changes_nothing(app_test):
    at = app_test("pages/data.py")
    before = (at.session_state[state.DATASET_NAME], at.session_state[state.DATA_VERSION])
    at.file_uploader(key="_w_lesson_file_data").set_value(("x.dtx", b"PK\x03\x04 not really", "application/zip"))
    at.run()
    assert not at.exception
    assert [e.value for e in at.error] == [md_escape("This is not a lesson file this app wrote: it is not a "
                                                     "complete .dtx archive (damaged or cut short).")]
    assert (at.session_state[state.DATASET_NAME], at.session_state[state.DATA_VERSION]) == before


def test_a_lesson_whose_history_does_not_replay_changes_nothing(app_test):
    """The file reads fine but its history fails on its data: refused after the replay, before any state moves."""
    from tests.engine.teach.test_lesson_file import _edited, _grower, _set
    from engine.teach.lesson_file import write_lesson
    from engine.teach.lesson_replay import make_lesson

    loaded, ds, settings, g = _grower()
    good = write_lesson(make_lesson(title="t", description="", dataset_name="field.csv", loaded=loaded, dataset=ds,
                                    split=settings, seed=4, grower=g))
    bad = _edited(good, _set(["history", 1, 1], 77))
    at = app_test("pages/lessons.py")
    at.switch_page("pages/grow.py").run()
    at.button(key="_w_grow_step").click().run()
    at.switch_page("pages/lessons.py").run()
    keys = (state.DATASET_NAME, state.DATA_VERSION, state.TREE_CONFIG, state.SEED, state.SPLIT_SETTINGS)
    before = [at.session_state[k] for k in keys] + [at.session_state[state.GROWER].n_steps]
    at.file_uploader(key="_w_lesson_file_lessons").set_value(("bad.dtx", bad, "application/zip")).run()
    assert not at.exception
    assert [e.value for e in at.error] == [md_escape("The lesson's history does not replay on its data: step 2 "
                                                     "(expand) fails: There is no node 77 in the tree.")]
    assert [at.session_state[k] for k in keys] + [at.session_state[state.GROWER].n_steps] == before == \
        ["play_tennis", before[1], None, 0, before[4], 1]


# ------------------------------------------------------------ a lesson opened at an earlier step (issue 39)
def _prepared_lesson(open_at: int) -> bytes:
    """The engine tests' lesson (a step, two forced splits, a step, a collapse, a step) opening at ``open_at``."""
    from tests.engine.teach.test_lesson_file import _grower
    from engine.teach.lesson_file import write_lesson
    from engine.teach.lesson_replay import make_lesson

    loaded, ds, settings, g = _grower()
    assert [a[0] for a in g.actions] == ["step", "expand", "expand", "step", "collapse", "step"]
    return write_lesson(make_lesson(title="Prepared", description="", dataset_name="field.csv", loaded=loaded,
                                    dataset=ds, split=settings, seed=4, grower=g, open_at=open_at))


def _open_on_grow(data: bytes) -> AppTest:
    at = _new("pages/lessons.py")
    at.file_uploader(key="_w_lesson_file_lessons").set_value(("lesson.dtx", data, "application/zip")).run()
    _ok(at)
    at.switch_page("pages/grow.py").run()
    _ok(at)
    return at


def _press(at: AppTest, key: str) -> None:
    at.button(key=key).click().run()
    _ok(at)


def _captions(at: AppTest) -> str:
    return " ".join(c.value for c in at.caption)


def _page_text(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown]


def test_a_lesson_opened_at_step_0_steps_through_its_prepared_history_to_the_same_tree():
    whole = _open_on_grow(_prepared_lesson(6))
    want = whole.session_state[state.GROWER]
    assert "prepared lesson" not in _captions(whole)
    at = _open_on_grow(_prepared_lesson(0))
    g = at.session_state[state.GROWER]
    assert g.n_steps == 0 and "Step 0 of 6 of the prepared lesson" in _captions(at)
    for k in range(1, 7):
        if k == 6:
            at.session_state[controls.PLAYING] = True  # Play stops at the lesson's last step
        _press(at, "_w_grow_step")
        assert at.session_state[state.GROWER] is g and g.n_steps == k
        assert f"Step {k} of 6 of the prepared lesson" in _captions(at)
    assert at.session_state[controls.PLAYING] is False
    assert [a[0] for a in g.actions] == ["step", "expand", "expand", "step", "collapse", "step"]
    assert _shape(g) == _shape(want) and _gains(g) == _gains(want)
    assert [(r.action, r.node_id) for r in g.history] == [(r.action, r.node_id) for r in want.history]
    assert _page_text(at) == _page_text(whole)  # the same narration of the last step, status and summary
    _press(at, "_w_grow_step")  # past the lesson's end: an automatic step (or nothing left), quietly
    assert "prepared lesson" not in _captions(at) and not at.info


def test_undo_then_step_replays_the_prepared_action():
    at = _open_on_grow(_prepared_lesson(1))
    g = at.session_state[state.GROWER]
    _press(at, "_w_grow_step")  # step 2: the first forced split
    assert g.actions[-1][0] == "expand"
    forced = _shape(g)
    _press(at, "_w_grow_undo")
    assert g.n_steps == 1 and "Step 1 of 6 of the prepared lesson" in _captions(at)
    _press(at, "_w_grow_step")
    assert g.actions[-1][0] == "expand" and _shape(g) == forced  # the prepared forced split again, not a step
    assert "Step 2 of 6 of the prepared lesson" in _captions(at)


@pytest.mark.parametrize("leave_by", ["reset", "own split", "settings"])
def test_another_action_leaves_the_prepared_lesson_with_a_note(leave_by):
    from ui.grow import lesson_steps

    at = _open_on_grow(_prepared_lesson(1))
    g = at.session_state[state.GROWER]
    if leave_by == "reset":
        _press(at, "_w_grow_reset")
    elif leave_by == "own split":
        at.session_state[state.SELECTED_NODE] = g.tree.node(0).children[0]  # an open leaf
        at.run()
        _press(at, "_w_grow_force")  # the inspector's "Split node … this way" (its best split)
    else:
        from ui.grow import settings

        at.number_input(key=settings.W_DEPTH).set_value(2).run()  # a setting: the tree starts again
    _ok(at)
    assert lesson_steps.LEFT_NOTE in [i.value for i in at.info]
    assert lesson_steps.PREPARED not in at.session_state and "prepared lesson" not in _captions(at)
    before = len(at.session_state[state.GROWER].actions)
    _press(at, "_w_grow_step")
    assert at.session_state[state.GROWER].actions[before:] == (("step",),)  # an automatic step
