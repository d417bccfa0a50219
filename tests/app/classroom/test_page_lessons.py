"""AppTest of pages/lessons.py and of every lesson link: it opens without error at the promised state."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from engine.config import TreeConfig
from ui.classroom import presenter as classroom
from ui import state
from ui.classroom.lessons import APPLIED, BY_SLUG, LESSONS, P_LESSON, Lesson
from ui.widgets import md_escape

ROOT = Path(__file__).resolve().parents[3]
APP = str(ROOT / "app.py")


def _open(params: dict[str, str], page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    for k, v in params.items():
        at.query_params[k] = v
    at.switch_page(page)
    at.run()
    return at


def test_lessons_page_lists_every_lesson_with_its_link(app_test):
    at = app_test("pages/lessons.py")
    assert not at.exception and not at.error
    titles = [h.value for h in at.subheader]  # after the own-file section: the ready-made lessons, in order
    assert titles[titles.index("Ready-made lessons") + 1:] == [lesson.title for lesson in LESSONS]
    links = [link for link in at.page_link if link.label == "Open the lesson"]
    available = [lesson for lesson in LESSONS if lesson.available]
    assert len(links) == len(available) >= 3
    codes = [c.value for c in at.code]
    for lesson in available:
        assert any(f"/{Path(lesson.page).stem}?lesson={lesson.slug}" in c for c in codes), lesson.slug
    for lesson in LESSONS:
        assert lesson.promise() in [c.value for c in at.caption]


def test_the_six_lessons_of_the_issue_are_there():
    assert [lesson.slug for lesson in LESSONS] == [
        "id3-play-tennis", "gain-ratio-day-column", "gini-entropy-misclassification",
        "overfitting-and-pruning", "random-forest-votes", "adaboost-rounds"]
    assert len(BY_SLUG) == len(LESSONS)
    for lesson in LESSONS:
        assert lesson.query_params()[P_LESSON] == lesson.slug
        assert lesson.page.startswith("pages/") and lesson.page.endswith(".py")


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.slug for lesson in LESSONS])
def test_every_lesson_link_opens_at_the_promised_state(lesson: Lesson):
    if not lesson.available:
        pytest.skip(f"{lesson.page} is not in this version yet")
    at = _open(lesson.query_params(), lesson.page)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    ss = at.session_state
    assert ss[state.DATASET_NAME] == lesson.dataset
    ds = ss[state.DATASET]
    for column, kind in lesson.kinds:
        assert ds.kind(column) == kind
    if lesson.split is not None:
        settings = ss[state.SPLIT_SETTINGS]
        assert (settings["test_size"], settings["validation_size"], settings["seed"]) == lesson.split
    assert ss[state.TREE_CONFIG] == lesson.config
    grower = ss[state.GROWER] if lesson.steps != 0 else None
    if lesson.steps is None:
        assert grower.done
    elif lesson.steps:
        assert grower.n_steps == lesson.steps
        assert grower.config.algorithm == lesson.config.algorithm
    assert bool(ss[classroom.PRESENTER]) is lesson.presenter
    assert bool(ss[classroom.QUIZ]) is lesson.quiz
    assert ss[APPLIED] == lesson.slug
    if "method" in dict(lesson.params):  # the Ensembles page preselects the method from the link
        from ui.ensembles.train import W_METHOD

        assert ss[W_METHOD] == dict(lesson.params)["method"]
    assert any(md_escape(lesson.title) in i.value for i in at.info)  # "Lesson loaded: ..."


def test_gini_lesson_shows_the_misclassification_root_split():
    at = _open(BY_SLUG["gini-entropy-misclassification"].query_params(), "pages/grow.py")
    grower = at.session_state[state.GROWER]
    assert grower.config.criterion == "misclassification"
    assert grower.tree.root.split.describe() == "Month <= 3.5"
    from engine.grow.grower import Grower

    train = at.session_state[state.DATA_SPLIT].train
    assert len(train) == 60
    leaves = {}
    for crit in ("misclassification", "gini", "entropy"):
        g = Grower(train, TreeConfig(algorithm="cart", criterion=crit))
        leaves[crit] = g.grow().tree.n_leaves
        assert g.tree.root.split.describe() == ("Month <= 3.5" if crit == "misclassification" else "Month <= 11.5")
    assert leaves == {"misclassification": 25, "gini": 15, "entropy": 13}  # as the lesson text says


def test_pruning_lesson_narrates_the_decisions():
    lesson = BY_SLUG["overfitting-and-pruning"]
    if not lesson.available:
        pytest.skip("no Prune page in this version")
    at = _open(lesson.query_params(), lesson.page)
    assert not at.exception and not at.error
    box = next(e for e in at.expander if e.label.startswith("The decisions in words"))
    texts = [m.value.replace("\\", "") for m in box.markdown]
    assert texts and texts[0].startswith("1. ")
    assert all(("Pruning node" in t) or ("keeps its subtree" in t) for t in texts)


def test_gain_ratio_lesson_uses_the_day_column():
    at = _open(BY_SLUG["gain-ratio-day-column"].query_params(), "pages/grow.py")
    from engine.grow.grower import Grower

    split = at.session_state[state.DATA_SPLIT]
    g = Grower(split.train, at.session_state[state.TREE_CONFIG])
    table = g.gain_table(0).set_index("feature")
    assert table.loc["Day", "gain"] == pytest.approx(0.940, abs=1e-3)
    assert table.loc["Day", "gain_ratio"] == pytest.approx(0.247, abs=1e-3)
    assert table.loc["Outlook", "gain_ratio"] == pytest.approx(0.156, abs=1e-3)
    g2 = Grower(split.train, TreeConfig(algorithm="c45", min_samples_leaf=2))
    assert g2.candidates(0)[0].feature == "Outlook"  # what the lesson text promises


def test_a_lesson_is_loaded_once_per_visit_and_again_after_leaving():
    lesson = BY_SLUG["gini-entropy-misclassification"]
    at = _open(lesson.query_params(), lesson.page)
    grower = at.session_state[state.GROWER]
    grower.step()  # the class goes on
    at.run()
    assert at.session_state[state.GROWER].n_steps == 2  # not reset by the rerun
    del at.query_params[P_LESSON]
    at.switch_page("pages/lessons.py").run()
    assert APPLIED not in at.session_state
    for k, v in lesson.query_params().items():
        at.query_params[k] = v
    at.switch_page(lesson.page).run()
    assert not at.exception
    assert at.session_state[state.GROWER].n_steps == 1  # opened afresh


def test_an_unknown_lesson_is_a_warning_and_keeps_the_state():
    at = _open({P_LESSON: "nosuchlesson"}, "pages/home.py")
    assert not at.exception
    assert any("nosuchlesson" in w.value for w in at.warning)
    assert at.session_state[state.DATASET_NAME] == state.DEFAULT_SAMPLE
