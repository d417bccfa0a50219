"""A lesson made from a growing tree, and a lesson replayed on its data, checked against what it promised.

:func:`make_lesson` packs the data as loaded (every row, each column in its natural form), the edits of
kinds, target and task, the split, the settings, the grower's action log and what the tree looks like
(:func:`tree_check`). :func:`replay` does the reverse: the CSV goes through :func:`engine.data.load_csv`,
the same checks as an upload, and text cells that would start a spreadsheet formula are refused (this
app writes them with a leading apostrophe); the edits are applied, the data split, the actions applied
one by one with the Grower's own public methods, and the tree compared with the stored check. A lesson
opened before its end keeps its whole log (:attr:`Restored.prepared`): the app's Step applies the next
prepared action with :func:`apply_action`. Anything
that does not fit raises :class:`DataError` with one sentence; nothing is changed outside the result.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from engine.data.csvio import FORMULA_START, formula_safe
from engine.data.dataset import Dataset, load_csv
from engine.errors import DataError, EngineError
from engine.grow.grower import Grower
from engine.split.records import Split
from engine.teach.lesson_file import LessonFile



@dataclass(frozen=True)
class Restored:
    """A replayed lesson: the data as loaded and as edited, its split and the grower at ``open_at``."""

    loaded: Dataset
    dataset: Dataset
    split: object
    grower: Grower
    marks: tuple  # step_mark of every step of the whole history (0 .. len(actions)), for the notes
    prepared: tuple = ()  # the lesson's whole action log when it opens before its end (Step walks through it)


def step_mark(grower: Grower, k: int):
    """What step ``k`` (steps taken) was: (action, node, test) of its record; None before the first step.

    A note is shown only while the step it was written on is the current one (not after an undo and
    another step at the same count)."""
    if k <= 0 or k > len(grower.history):
        return None
    rec = grower.history[k - 1]
    return (rec.action, rec.node_id, None if rec.split is None else rec.split.describe())


def _text_columns(frame: pd.DataFrame):
    return [c for c in frame.columns if frame[c].dtype == object or pd.api.types.is_string_dtype(frame[c].dtype)]


def table_csv(loaded: Dataset) -> tuple[bytes, dict]:
    """(CSV bytes of the table as loaded, {column name: its name in the CSV}); formula text neutralised."""
    full = loaded._full
    out = full.copy(deep=False)
    for col in _text_columns(full):
        out[col] = full[col].map(formula_safe).astype(object)
    rename = {c: formula_safe(str(c)) for c in full.columns}
    out.columns = [rename[c] for c in full.columns]
    return out.to_csv(index=False).encode("utf-8"), rename


def tree_check(grower: Grower, n_rows: int) -> dict:
    """What the replayed tree must show: rows, each node's size and test and gain, the history's records."""
    nodes = []
    for n in grower.tree.walk():
        s = n.split
        test = None if s is None else [s.feature_index, s.kind, s.threshold, len(s.categories)]
        nodes.append([n.id, n.n_node_samples, test, None if s is None else float(s.gain)])
    return {"rows": int(n_rows), "train_rows": len(grower.dataset), "nodes": nodes, "done": bool(grower.done),
            "history": [[r.action, r.node_id] for r in grower.history]}


def make_lesson(*, title: str, description: str, dataset_name: str, loaded: Dataset, dataset: Dataset,
                split: dict, seed: int, grower: Grower, features=None, open_at: int | None = None,
                presenter: bool = False, quiz: bool = False, lang: str = "en", notes=None) -> LessonFile:
    """The lesson of this state (``loaded``: the data as loaded; ``dataset``: as edited; ``grower`` on its split)."""
    data_csv, rename = table_csv(loaded)
    natural = loaded._natural

    def name(col):
        return rename.get(col, col)

    def test(s: Split) -> dict:
        cats = [formula_safe(c) if natural.get(s.feature) != "numeric" else c for c in s.categories]
        return {"feature": name(s.feature), "kind": s.kind, "threshold": s.threshold, "categories": cats}

    actions = tuple(("expand", a[1], test(a[2])) if a[0] == "expand" else tuple(a) for a in grower.actions)
    return LessonFile(
        title=str(title), description=str(description), dataset_name=str(dataset_name), data_csv=data_csv,
        target=name(dataset.target), task=dataset.task, kinds={name(k): v for k, v in dataset.kinds.items()},
        split={k: split[k] for k in ("test_size", "validation_size", "seed")}, seed=int(seed),
        config=grower.config, actions=actions, open_at=len(actions) if open_at is None else int(open_at),
        features=None if not features else tuple(name(f) for f in features), presenter=bool(presenter),
        quiz=bool(quiz), lang=lang, notes=dict(notes or {}), check=tree_check(grower, len(dataset)))


# ------------------------------------------------------------------------------------------ replaying
def refuse_formulas(ds: Dataset) -> None:
    """DataError when a column name or text cell starts a spreadsheet formula (this app writes them quoted)."""
    full = ds._full
    for col in full.columns:
        bad = str(col).startswith(FORMULA_START)
        if not bad and col in _text_columns(full):
            bad = bool(full[col].dropna().astype(str).str.startswith(FORMULA_START).any())
        if bad:
            raise DataError(f"The lesson's data has a cell in the column '{str(col)[:40]}' that a spreadsheet would "
                            "run as a formula; this app writes such cells with a leading apostrophe, so the file was "
                            "changed by hand.")


def _edited(lesson: LessonFile, loaded: Dataset) -> Dataset:
    ds = loaded.with_target(lesson.target) if lesson.target != loaded.target else loaded
    ds = ds.with_kinds(lesson.kinds)
    if ds.task != lesson.task:
        ds = ds.with_task(lesson.task)
    if ds.kinds != lesson.kinds or ds.task != lesson.task:
        raise DataError("The lesson's data does not give the column kinds and task the lesson names.")
    return ds


def _split_of(grower: Grower, t: dict) -> Split:
    schema = grower.schema
    if t["feature"] not in grower.dataset.feature_names:
        raise DataError(f"a forced split names the column '{t['feature'][:40]}', which is not a feature")
    j = schema.index(t["feature"])
    if t["kind"] == "threshold":
        if t["threshold"] is None or schema.is_categorical(j):
            raise DataError(f"the forced split on '{t['feature'][:40]}' is not a numeric threshold")
        return Split(feature=t["feature"], feature_index=j, kind="threshold", threshold=float(t["threshold"]))
    cats = list(schema.categories[j] or ())
    if not schema.is_categorical(j) or any(c not in cats for c in t["categories"]):
        raise DataError(f"the forced split on '{t['feature'][:40]}' names values the column does not have")
    return Split(feature=t["feature"], feature_index=j, kind=t["kind"], categories=tuple(t["categories"]),
                 category_codes=tuple(cats.index(c) for c in t["categories"]))


def apply_action(grower: Grower, action) -> None:
    """Apply one action of a lesson's log (forced splits as stored in the file) with the Grower's methods.

    Raises the engine's errors (DataError when a step finds nothing left or a forced split does not fit)."""
    if action[0] == "step":
        if grower.step(*action[1:]) is None:
            raise DataError("a step found nothing left to split")
    elif action[0] == "collapse":
        grower.collapse(action[1])
    else:
        grower.expand(action[1], _split_of(grower, action[2]))


def _grow(train, val, lesson: LessonFile, actions, n_jobs, on_step=None) -> Grower:
    grower = Grower(train, lesson.config, validation_data=val, n_jobs=n_jobs)
    if actions and all(a == ("step",) for a in actions) and lesson.check.get("done") \
            and len(actions) == len(lesson.actions):
        grower.grow()  # grown to the end by automatic steps: the level-wise grower ends in the same state
        if grower.n_steps != len(actions):
            raise DataError(f"The lesson's history does not replay on its data: it has {len(actions):,} steps, "
                            f"the tree is finished after {grower.n_steps:,}.")
        return grower
    for i, action in enumerate(actions):
        try:
            apply_action(grower, action)
            if on_step is not None:
                on_step(grower)
        except (EngineError, ValueError, KeyError, IndexError, TypeError) as err:
            reason = str(err).rstrip(".")[:300]
            raise DataError(f"The lesson's history does not replay on its data: step {i + 1} ({action[0]}) fails: "
                            f"{reason}.") from None
    return grower


def _close(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)


def verify(grower: Grower, check: dict, n_rows: int) -> None:
    """DataError unless the replayed tree matches ``check`` (see :func:`tree_check`)."""
    got = tree_check(grower, n_rows)
    if check.get("rows") != got["rows"] or check.get("train_rows") != got["train_rows"]:
        raise DataError(f"The lesson's data gives {got['rows']:,} rows, not the {check.get('rows')} the lesson "
                        "was made on.")
    if check.get("history") != got["history"]:
        raise DataError("The lesson's history does not replay to the steps it recorded on its data.")
    want = check.get("nodes")
    if not isinstance(want, list) or len(want) != len(got["nodes"]):
        raise DataError("The replayed tree does not have the nodes the lesson recorded.")
    for w, g in zip(want, got["nodes"]):
        same = (isinstance(w, list) and len(w) == 4 and w[:2] == g[:2] and _close(w[3], g[3])
                and (w[2] is None) == (g[2] is None)
                and (g[2] is None or (w[2][:2] == g[2][:2] and _close(w[2][2], g[2][2]) and w[2][3] == g[2][3])))
        if not same:
            raise DataError(f"The replayed tree differs from the lesson's at node {g[0]}: the file was changed or "
                            "its data does not give the same tree.")


def replay(lesson: LessonFile, *, n_jobs: int | None = None, on_step=None) -> Restored:
    """Load the lesson's data like an upload, apply its edits, split, replay its history and check the tree.

    ``on_step(grower)`` is called after each replayed action (not when a tree grown to the end by automatic
    steps is replayed level-wise), e.g. to narrate each step while its nodes exist."""
    try:
        loaded = load_csv(lesson.data_csv)._replace_name(lesson.dataset_name)
    except EngineError as err:  # the checks of an upload, with their sentence
        raise DataError(f"The lesson's table cannot be used: {err}") from None
    refuse_formulas(loaded)
    try:
        dataset = _edited(lesson, loaded)
        split = dataset.split(**lesson.split)
    except EngineError as err:
        raise DataError(f"The lesson's data does not fit its settings: {str(err).rstrip('.')}.") from None
    train, val = split.train, split.validation
    if lesson.features:
        try:
            train = train.with_features(list(lesson.features))
            val = val.with_features(list(lesson.features)) if val is not None else None
        except EngineError as err:
            raise DataError(f"The lesson's two features do not fit its data: {str(err).rstrip('.')}.") from None
    try:
        grower = _grow(train, val, lesson, lesson.actions, n_jobs, on_step)
    except DataError:
        raise
    except EngineError as err:
        raise DataError(f"The lesson's tree cannot be grown on its data: {str(err).rstrip('.')}.") from None
    verify(grower, lesson.check, len(dataset))
    marks = tuple(step_mark(grower, k) for k in range(len(lesson.actions) + 1))
    prepared = ()
    if lesson.open_at < len(lesson.actions):
        grower = _grow(train, val, lesson, lesson.actions[:lesson.open_at], n_jobs)
        prepared = tuple(lesson.actions)
    return Restored(loaded, dataset, split, grower, marks, prepared)
