"""Ready-made lessons: each one a link that opens the right page at the right state.

A lesson fixes a bundled data set (optionally with a column's kind changed), the split, the tree
settings, how many steps are already taken, and the classroom switches (presenter view, quiz). Its
link is the page's address with ``?lesson=<slug>`` (plus page-specific parameters, e.g. the ensemble
method); :func:`apply_lesson_link`, called by the frame (app.py) before the page draws, loads that
state once per visit. Going to a page without the parameter forgets the visit, so opening the same
lesson again starts it afresh; a reload (a new session) does too.

On the Grow page the address bar then follows the tree (``ui.classroom.share``), so a teacher who steps on and
copies the address shares the current state; the lesson parameter stays for the classroom switches.
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

import streamlit as st

from engine.config import TreeConfig
from engine.data.dataset import SAMPLES
from engine.errors import EngineError
from ui import state
from ui.widgets import flash, md_escape

ROOT = Path(__file__).resolve().parents[2]
P_LESSON = "lesson"
APPLIED = "_lesson_applied"  # slug of the lesson loaded in this visit
GROW, PRUNE, ENSEMBLES, THEORY = "pages/grow.py", "pages/prune.py", "pages/ensembles.py", "pages/theory.py"


@dataclass(frozen=True)
class Lesson:
    """One lesson: where it opens and in which state.

    ``steps``: growth steps already taken when it opens (None: grown to the end); ``kinds``: column
    kinds to change from the sample's; ``split``: (test, validation, seed) or None for the sample's
    default; ``params``: extra query parameters for the target page (e.g. the ensemble method).
    """

    slug: str
    title: str
    summary: str
    page: str
    dataset: str
    config: TreeConfig
    steps: int | None = 0
    kinds: tuple[tuple[str, str], ...] = ()
    split: tuple[float, float, int] | None = None
    presenter: bool = False
    quiz: bool = False
    params: tuple[tuple[str, str], ...] = field(default=())

    @property
    def available(self) -> bool:
        """True when the target page exists (pages are added one by one)."""
        return (ROOT / self.page).is_file()

    def query_params(self) -> dict[str, str]:
        """The link's query parameters."""
        return {P_LESSON: self.slug, **dict(self.params)}

    def promise(self) -> str:
        """What the link sets, in one line (shown under the lesson)."""
        steps = "grown to the end" if self.steps is None else f"step {self.steps}"
        parts = [self.dataset, self.config.algorithm.upper().replace("C45", "C4.5")]
        if self.config.criterion:
            parts.append(self.config.criterion)
        if self.config.max_depth is not None:
            parts.append(f"depth ≤ {self.config.max_depth}")
        parts.append(steps)
        parts += [f"{c} as {k}" for c, k in self.kinds]
        if self.presenter:
            parts.append("presenter view")
        if self.quiz:
            parts.append("quiz on")
        parts += [f"{k} = {v}" for k, v in self.params]
        return " · ".join(parts)


LESSONS: tuple[Lesson, ...] = (
    Lesson(
        "id3-play-tennis", "ID3 on Play Tennis",
        "Mitchell's 14 days, one split at a time. The class guesses each split before the gain table "
        "is revealed: Outlook wins the root (gain 0.247), then Humidity under Sunny and Wind under Rain "
        "separate the days perfectly.",
        GROW, "play_tennis", TreeConfig(algorithm="id3"), steps=0, presenter=True, quiz=True),
    Lesson(
        "gain-ratio-day-column", "Why gain ratio beats gain with the Day column",
        "The same days with their Day column (D1..D14) used as a feature. Plain gain loves it: Day has "
        "gain 0.940 against Outlook's 0.247 and splits the root into 14 one-day leaves that predict "
        "nothing new. Gain ratio divides by the split information (log2 14 = 3.81 bits for Day) and "
        "shrinks the lead from 3.8x to 1.6x (0.247 vs 0.156); on only 14 days Day still edges ahead, so "
        "raise 'Min rows per leaf' to 2 and watch Outlook win. Switch Score between gain and gain ratio "
        "to compare. (This is the lecture notes' C4.5, J48's rules switched off; Weka's J48, the C4.5 "
        "preset, needs two branches with at least M = 2 rows, so Day is never a candidate there.)",
        GROW, "play_tennis_day", TreeConfig(algorithm="c45", c45_rules=(), min_samples_leaf=1), steps=0,
        kinds=(("Day", "categorical"),)),
    Lesson(
        "gini-entropy-misclassification", "Gini vs entropy vs misclassification",
        "The ski data (month x altitude, 60 training rows) grown with the misclassification rate: its "
        "root split is Month <= 3.5 and the finished tree has 25 leaves. Switch Impurity to gini or "
        "entropy: both split Month <= 11.5 first and finish with 15 and 13 leaves. The Theory page's "
        "zero-gain split shows why: misclassification is straight on each side of p = 1/2, so it misses "
        "splits that only purify.",
        GROW, "ski", TreeConfig(algorithm="cart", criterion="misclassification"), steps=1),
    Lesson(
        "overfitting-and-pruning", "Overfitting and pruning on a noisy set",
        "Two half-moons with 20% flipped labels, grown to the end: the tree chases the noise. Prune it "
        "and compare the test accuracy of the full and the pruned tree.",
        PRUNE, "noisy_moons", TreeConfig(algorithm="cart"), steps=None, split=(0.25, 0.25, 0)),
    Lesson(
        "random-forest-votes", "Random forest votes",
        "Many deep trees on bootstrap samples with a random subset of features at each split; the "
        "forest predicts by majority vote. Look at how the votes split on the noisy moons, where single "
        "trees disagree.",
        ENSEMBLES, "noisy_moons", TreeConfig(algorithm="cart"), steps=0, split=(0.25, 0.0, 0),
        params=(("method", "random_forest"),)),
    Lesson(
        "adaboost-rounds", "AdaBoost rounds on the two-feature toy",
        "Stumps on the ski data (month x altitude), one round at a time: each round raises the weights "
        "of the rows the last stump got wrong, so the next stump looks elsewhere.",
        ENSEMBLES, "ski", TreeConfig(algorithm="cart"), steps=0,
        params=(("method", "adaboost"),)),
)
BY_SLUG: dict[str, Lesson] = {lesson.slug: lesson for lesson in LESSONS}


def app_base_url() -> str:
    """The app's address without the current page's path ("" when unknown, as in tests).

    ``st.context.url`` keeps the page path on some runs and trims it on others, so the last path
    segment is dropped here when it names a page.
    """
    url = (st.context.url or "").rstrip("/")
    head, _, last = url.rpartition("/")
    pages = {p.stem for p in (ROOT / "pages").glob("*.py")}
    return head if head and last in pages else url


def lesson_url(lesson: Lesson) -> str:
    """The lesson's full address, e.g. ``http://host:8501/grow?lesson=id3-play-tennis``."""
    return f"{app_base_url()}/{Path(lesson.page).stem}?{urllib.parse.urlencode(lesson.query_params())}"


# ----------------------------------------------------------------------------- applying a lesson
def apply_lesson(lesson: Lesson) -> None:
    """Load ``lesson``'s state into the session: data, kinds, split, settings, steps, switches.

    Raises the engine's error when something does not fit (the bundled lessons always fit).
    """
    from ui.classroom import presenter as classroom
    from ui.cache import load_sample_cached
    from ui.grow import lesson_steps

    if lesson.dataset not in SAMPLES:
        raise EngineError(f"The lesson '{lesson.title}' names a data set that is not bundled.")
    ss = st.session_state
    ss[state.SEED] = lesson.split[2] if lesson.split else state.DEFAULT_SEED
    ss.pop(lesson_steps.PREPARED, None)  # another lesson: a file's prepared history ends without a note
    state.set_dataset(load_sample_cached(lesson.dataset), lesson.dataset)
    if lesson.kinds:
        state.replace_dataset(state.current_dataset().with_kinds(dict(lesson.kinds)))
    if lesson.split is not None:
        test, validation, seed = lesson.split
        state.set_split_settings(test_size=test, validation_size=validation, seed=seed)
    _leave_two_feature_mode()
    state.set_config(lesson.config)
    classroom.set_switches(presenter=lesson.presenter, quiz=lesson.quiz)
    if lesson.steps != 0:
        grower = state.current_grower()
        grower.grow(max_steps=lesson.steps)
        split_nodes = [r.node_id for r in grower.history if r.action == "split"]
        state.select_node(split_nodes[-1] if split_nodes else 0)


def _leave_two_feature_mode() -> None:
    """Lessons grow on every feature: drop the Grow page's two-feature choice if the module is there."""
    try:
        from ui.grow import controls as grow_controls
    except ImportError:  # pragma: no cover - the Grow page ships with the app
        return
    st.session_state.pop(grow_controls.FEATURES, None)


def apply_lesson_link() -> str | None:
    """Load the lesson named in the address (``?lesson=slug``) once per visit; returns its slug.

    Called by the frame before the page draws. An unknown slug is reported with a one-time warning.
    """
    slug = st.query_params.get(P_LESSON)
    ss = st.session_state
    if not slug:
        ss.pop(APPLIED, None)
        return None
    if ss.get(APPLIED) == slug:
        return slug
    ss[APPLIED] = slug
    lesson = BY_SLUG.get(slug)
    if lesson is None:
        flash("warning", f"The link names a lesson '{md_escape(slug[:40])}' this app does not have; "
                         "the current state is kept. The Lessons page lists them all.")
        return None
    try:
        apply_lesson(lesson)
    except EngineError as err:
        flash("error", f"The lesson could not be loaded: {md_escape(err)}")
        return None
    flash("info", f"Lesson loaded: **{md_escape(lesson.title)}**.")
    return slug
