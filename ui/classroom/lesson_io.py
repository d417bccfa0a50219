"""A teacher's lesson file in the app: save the session as ``.dtx``, open one, list an operator's folder.

Saving packs the session (data as loaded and its edits, split, seed, settings, the Grow page's action
log, two-feature mode, classroom switches, notes on steps) with :func:`engine.teach.lesson_replay.make_lesson`.
Opening reads the file (:func:`engine.teach.lesson_file.read_lesson`), replays it on its data and checks
the tree (:func:`engine.teach.lesson_replay.replay`) before anything in the session changes; then
:func:`ui.state.restore_lesson` swaps the state in one go. A lesson opened before its end keeps the rest of
its history: Step walks through it (:mod:`ui.grow.lesson_steps`). A bad file gives one sentence and changes
nothing. The shelf lists the ``.dtx`` files in the folder named by ``DTX_LESSONS_DIR`` (read only).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from engine.errors import DataError, EngineError
from engine.teach.lesson_file import MAX_FILE_BYTES, SUFFIX, read_lesson, write_lesson
from engine.teach.lesson_replay import make_lesson, replay, step_mark
from ui import state
from ui.widgets import flash, md_escape

ENV_DIR = "DTX_LESSONS_DIR"
MAX_SHELF = 200  # files listed from the folder
NARRATE_ON_OPEN = 400  # up to this many steps, opening narrates each step as it is replayed
OPEN_ERROR = "_lesson_open_error"  # (where, sentence) of the last failed opening
GO_GROW = "_lesson_go_grow"  # set by "Open" / "Start a live class": the page switches to Grow
W_TITLE, W_DESCRIPTION, W_OPEN_AT = "_w_lesson_title", "_w_lesson_description", "_w_lesson_open_at"
W_NOTE, NOTE_FOR = "_w_step_note", "_w_step_note_for"


# ------------------------------------------------------------------------------------------- saving
def session_parts(grower) -> dict:
    """What a lesson of this session holds, read now (a deferred download runs without the session)."""
    from ui.classroom import presenter
    from ui.grow import controls

    sw = presenter.switches()
    return dict(dataset_name=state.current_dataset_name(), loaded=state.loaded_dataset(),
                dataset=state.current_dataset(), split=state.split_settings(), seed=state.current_seed(),
                grower=grower, features=controls.two_features(), presenter=sw.presenter, quiz=sw.quiz, lang=sw.lang,
                notes=state.step_notes(grower))


def lesson_bytes(parts: dict, *, title: str, description: str, open_at: int | None = None) -> bytes:
    """The lesson of ``parts`` (:func:`session_parts`) as ``.dtx`` bytes."""
    return write_lesson(make_lesson(title=title, description=description, open_at=open_at, **parts))


def file_name(title: str) -> str:
    stem = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in str(title)).strip("_")[:60]
    return (stem or "lesson") + SUFFIX


def render_save(grower) -> None:
    """Title, description, the step to open at, and the download of the lesson file."""
    meta = st.session_state.get(state.LESSON_META) or {}
    st.session_state.setdefault(W_TITLE, meta.get("title", ""))
    st.session_state.setdefault(W_DESCRIPTION, meta.get("description", ""))
    title = st.text_input("Lesson title", key=W_TITLE, max_chars=200, placeholder="e.g. Which soils suit vines?")
    description = st.text_area("Description", key=W_DESCRIPTION, max_chars=4000, height=90,
                               help="Shown on the Lessons page's shelf under the title.")
    n = grower.n_steps
    open_at = st.number_input("Open at step", min_value=0, max_value=n, value=n, key=W_OPEN_AT,
                              help="How many of the steps below are taken when the lesson opens (all by default). "
                                   "The lesson file keeps the whole history and checks it when it is opened; "
                                   "Step then walks through the rest of it.")
    notes = state.step_notes(grower)
    st.caption(f"The file holds the data ({len(state.current_dataset()):,} rows), the settings, {n:,} steps of "
               f"history and {len(notes):,} notes on steps.")
    st.session_state[state.LESSON_META] = {"title": title, "description": description}
    parts = session_parts(grower)
    st.download_button("Save the lesson (.dtx)",
                       lambda: lesson_bytes(parts, title=title.strip() or "Untitled lesson", description=description,
                                            open_at=int(open_at)),
                       file_name=file_name(title or state.current_dataset_name()), mime="application/zip",
                       key="_w_lesson_save", icon=":material/save:", on_click="ignore")


# ------------------------------------------------------------------------------------------ opening
def open_lesson(data: bytes) -> str:
    """Read, replay, check and restore the lesson in ``data``; returns its title. EngineError: nothing changed."""
    from ui.classroom import presenter
    from ui.grow import controls, lesson_steps

    lesson = read_lesson(data)
    s = lesson.split
    if not (0 <= s["test_size"] <= state.MAX_TEST_SIZE and 0 <= s["validation_size"] <= state.MAX_VALIDATION_SIZE
            and 0 <= s["seed"] <= state.MAX_SEED and 0 <= lesson.seed <= state.MAX_SEED):
        raise DataError("The lesson's split is outside what the Data page allows (test share up to "
                        f"{state.MAX_TEST_SIZE:g}, validation up to {state.MAX_VALIDATION_SIZE:g}).")
    told = {}  # narrations of the steps as they are replayed (a collapse later removes their nodes)
    warm = (lambda g: presenter.narrate_latest(g, told, lesson.dataset_name)) \
        if len(lesson.actions) <= NARRATE_ON_OPEN else None
    restored = replay(lesson, n_jobs=state.current_n_jobs(), on_step=warm)
    notes = {k: (text, restored.marks[k]) for k, text in lesson.notes.items()}
    state.restore_lesson(loaded=restored.loaded, dataset=restored.dataset, name=lesson.dataset_name,
                         settings=lesson.split, split=restored.split, config=lesson.config, grower=restored.grower,
                         seed=lesson.seed, notes=notes)
    lesson_steps.start(restored.grower, restored.prepared)  # opened before its end: Step walks the rest
    if lesson.features:
        st.session_state[controls.FEATURES] = tuple(lesson.features)
    else:
        st.session_state.pop(controls.FEATURES, None)
    presenter.set_switches(presenter=lesson.presenter, quiz=lesson.quiz, lang=lesson.lang)
    st.session_state[presenter.NARRATIONS] = {"version": state.data_version(), **told}
    meta = {"title": lesson.title, "description": lesson.description}
    st.session_state[state.LESSON_META] = meta
    st.session_state[W_TITLE], st.session_state[W_DESCRIPTION] = meta["title"], meta["description"]
    return lesson.title


def _opened(where: str, data: bytes, *, live: bool = False) -> None:
    st.session_state.pop(OPEN_ERROR, None)
    try:
        title = open_lesson(data)
    except EngineError as err:
        st.session_state[OPEN_ERROR] = (where, str(err))
        return
    if live:
        from ui.classroom import live_teacher, presenter

        presenter.set_switches(presenter=True)
        live_teacher.start()
    flash("success", f"Lesson opened: **{md_escape(title or 'untitled')}**. Every page shows its data, tree and "
                     "settings.")
    if not where.endswith("_data"):  # the Data page stays where it is; the Lessons page shows the tree
        st.session_state[GO_GROW] = True


def _on_upload(key: str) -> None:
    upload = st.session_state.get(key)
    if upload is None:
        return
    size = int(getattr(upload, "size", 0) or 0)
    if size > MAX_FILE_BYTES:
        st.session_state[OPEN_ERROR] = (key, f"The lesson file is larger than {MAX_FILE_BYTES >> 20} MB, the upload "
                                             "limit.")
        return
    _opened(key, upload.getvalue())


def _start_bundled(slug: str, key: str) -> None:
    from ui.classroom import live_teacher, presenter
    from ui.classroom.lessons import BY_SLUG, apply_lesson

    st.session_state.pop(OPEN_ERROR, None)
    try:
        apply_lesson(BY_SLUG[slug])
    except EngineError as err:
        st.session_state[OPEN_ERROR] = (key, str(err))
        return
    st.session_state.pop(state.STEP_NOTES, None)
    presenter.set_switches(presenter=True)
    live_teacher.start()
    st.session_state[GO_GROW] = True


def live_button(slug: str) -> None:
    """"Start a live class from it" for a ready-made Grow lesson: its state, presenter view, a class started."""
    key = f"_w_live_lesson_{slug}"
    st.button("Start a live class from it", key=key, on_click=_start_bundled, args=(slug, key),
              icon=":material/groups:")
    failed = st.session_state.get(OPEN_ERROR)
    if failed and failed[0] == key:
        st.error(md_escape(failed[1]), icon=":material/error:")


def render_open(where: str) -> None:
    """A file chooser for a ``.dtx`` lesson file; its sentence when it could not be opened."""
    key = f"_w_lesson_file_{where}"
    st.file_uploader("Open a lesson file (.dtx)", type=["dtx"], key=key, on_change=_on_upload, args=(key,),
                     help="A lesson saved with 'Save the lesson': the data, settings, tree, history and notes.")
    failed = st.session_state.get(OPEN_ERROR)
    if failed and failed[0] == key:
        st.error(md_escape(failed[1]), icon=":material/error:")
        st.caption(f"Nothing changed: still using **{md_escape(state.current_dataset_name())}**.")


def go_to_grow_if_opened() -> None:
    """After a lesson was opened by a button or file chooser on this page: show it on the Grow page."""
    if st.session_state.pop(GO_GROW, False):
        st.switch_page("pages/grow.py")


# -------------------------------------------------------------------------------------------- shelf
@dataclass(frozen=True)
class ShelfItem:
    """A lesson file in the operator's folder: what the shelf shows, or the sentence why it cannot open."""

    path: str
    size: int
    title: str = ""
    dataset: str = ""
    description: str = ""
    rows: int = 0
    steps: int = 0
    error: str | None = None


def lessons_dir() -> Path | None:
    folder = os.environ.get(ENV_DIR, "").strip()
    return Path(folder) if folder else None


@st.cache_data(max_entries=512, show_spinner=False)
def _summary(path: str, size: int, mtime: float) -> ShelfItem:
    try:
        if size > MAX_FILE_BYTES:
            raise DataError(f"The lesson file is larger than {MAX_FILE_BYTES >> 20} MB, the upload limit.")
        lesson = read_lesson(Path(path).read_bytes(), with_data=False)  # Open reads (and replays) the table
    except EngineError as err:
        return ShelfItem(path, size, error=str(err))
    except OSError as err:
        return ShelfItem(path, size, error=f"The file cannot be read ({err.__class__.__name__}).")
    return ShelfItem(path, size, lesson.title, lesson.dataset_name, lesson.description,
                     int(lesson.check.get("rows", 0) or 0), len(lesson.actions))


def shelf() -> tuple[list[ShelfItem], str | None]:
    """The ``.dtx`` files in ``DTX_LESSONS_DIR`` (sorted by name), and a sentence when the folder is unusable."""
    folder = lessons_dir()
    if folder is None:
        return [], None
    try:
        paths = sorted(p for p in folder.iterdir() if p.suffix.lower() == SUFFIX and p.is_file())
    except OSError as err:
        return [], f"The lessons folder ({ENV_DIR}) cannot be read ({err.__class__.__name__})."
    items = []
    for p in paths[:MAX_SHELF]:
        try:
            info = p.stat()
        except OSError as err:
            items.append(ShelfItem(str(p), 0, error=f"The file cannot be read ({err.__class__.__name__})."))
            continue
        items.append(_summary(str(p), int(info.st_size), float(info.st_mtime)))
    note = f"Only the first {MAX_SHELF} files are listed." if len(paths) > MAX_SHELF else None
    return items, note


def _open_path(path: str, key: str, live: bool) -> None:
    try:
        if Path(path).stat().st_size > MAX_FILE_BYTES:
            st.session_state[OPEN_ERROR] = (key, f"The lesson file is larger than {MAX_FILE_BYTES >> 20} MB, the "
                                                 "upload limit.")
            return
        data = Path(path).read_bytes()
    except OSError as err:
        st.session_state[OPEN_ERROR] = (key, f"The file cannot be read ({err.__class__.__name__}).")
        return
    _opened(key, data, live=live)


def _size(n: int) -> str:
    return f"{n / 2**20:,.1f} MB" if n >= 2**20 else f"{n / 1024:,.1f} kB"


def render_shelf_item(item: ShelfItem, i: int) -> None:
    """One file of the shelf: title, data set, size, description, Open / Start a live class (or its sentence)."""
    name = Path(item.path).name
    with st.container(border=True, key=f"shelf_{i}"):
        st.subheader(md_escape(item.title or name), anchor=False)
        if item.error:
            st.caption(f"{md_escape(name)} · {md_escape(_size(item.size))}")
            st.error(md_escape(item.error), icon=":material/error:")
            return
        st.caption(f"{md_escape(name)} · data: {md_escape(item.dataset)} ({item.rows:,} rows) · {item.steps:,} steps "
                   f"· {md_escape(_size(item.size))}")
        if item.description:
            st.markdown(md_escape(item.description, limit=1000))
        key = f"_w_shelf_{i}"
        c1, c2 = st.columns(2)
        c1.button("Open", key=key + "_open", on_click=_open_path, args=(item.path, key, False),
                  icon=":material/folder_open:")
        c2.button("Start a live class from it", key=key + "_live", on_click=_open_path, args=(item.path, key, True),
                  icon=":material/groups:")
        failed = st.session_state.get(OPEN_ERROR)
        if failed and failed[0] == key:
            st.error(md_escape(failed[1]), icon=":material/error:")


# ------------------------------------------------------------------------------------ notes on steps
def render_note_input(grower) -> None:
    """A one-line note on the current step (Grow page, under the narration, while preparing)."""
    mark = (state.data_version(), grower.n_steps, step_mark(grower, grower.n_steps))
    if st.session_state.get(NOTE_FOR) != mark or W_NOTE not in st.session_state:
        st.session_state[W_NOTE] = state.step_note(grower) or ""  # the widget follows the step
        st.session_state[NOTE_FOR] = mark
    st.text_input(f"Your note on step {grower.n_steps:,}", key=W_NOTE, max_chars=1000, on_change=_note_changed,
                  placeholder="A note for the class, shown with the narration in presenter view",
                  help="Saved with the lesson file; shown under the narration in presenter view and a live class.")


def _note_changed() -> None:
    grower = st.session_state.get(state.GROWER)
    if grower is not None:
        state.set_step_note(grower, st.session_state.get(W_NOTE, ""))
