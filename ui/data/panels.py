"""The Data page's panels and their callbacks.

Every change (sample, upload, kinds, target, task, split) runs in a widget callback, i.e. before the
page script draws, so the sidebar and every panel show the new state in the same run. A callback
either succeeds (new data active, tree reset, a one-shot success message) or leaves everything as
it was and queues the engine's sentence as an error.
"""

from __future__ import annotations

import copy
import io

import streamlit as st
from streamlit.runtime.uploaded_file_manager import UploadedFile

from engine.data.dataset import SAMPLES
from engine.errors import EngineError
from ui import state
from ui.model.opening import model_panel
from ui.cache import load_sample_cached, load_uploaded, sample_names
from ui.summaries import column_summary
from ui.widgets import flash, md_escape, shorten

W_SAMPLE = "_w_data_sample"
W_UPLOAD = "_w_data_upload"
W_KIND_COLUMNS = "_w_data_kind_columns"
W_KIND = "_w_data_kind"
W_TARGET = "_w_data_target"
W_TASK = "_w_data_task"
W_TEST = "_w_data_test_size"
W_VALIDATION = "_w_data_validation_size"
W_SPLIT_SEED = "_w_data_split_seed"
UPLOAD_ERROR = "_data_upload_error"  # (file_id, message) of the last upload that failed
SUMMARY = "_data_column_summary"  # (data version, id of the data set, its column summary)

UPLOAD_TYPES = ["csv", "tsv", "txt", "gz"]
KINDS = ("numeric", "categorical", "ignore")
TASKS = ("auto", "classification", "regression")
TASK_LABELS = {"auto": "Detect from the target", "classification": "Classification",
               "regression": "Regression"}
RESET_NOTE = "The tree was reset: grow it again on the Grow page."
BIG_UPLOAD_BYTES = 5 << 20  # uploads above this show their loading stages in an st.status box


def _share_bytes_on_copy(self, memo):
    """``copy.deepcopy`` of an uploaded file that shares its bytes instead of copying them.

    Streamlit deep-copies every widget's value on every run that draws the widget, so with a 150 MB
    file in the uploader each rerun of this page copied 150 MB (a ``BytesIO`` copies its buffer
    when unpickled). A ``BytesIO`` made from the same bytes object is just as independent: it copies
    them only if written to.
    """
    clone = io.BytesIO.__new__(type(self))
    io.BytesIO.__init__(clone, self.getvalue())
    clone.__dict__.update(copy.deepcopy(self.__dict__, memo))
    clone.seek(self.tell())
    return clone


if "__deepcopy__" not in UploadedFile.__dict__:
    UploadedFile.__deepcopy__ = _share_bytes_on_copy


def sample_info(name: str) -> tuple[str, str]:
    """(description, target) of a bundled sample, as the engine describes it."""
    info = SAMPLES[name]
    return str(getattr(info, "description", "")), str(getattr(info, "target", "") or "")


# ---------------------------------------------------------------------------------- callbacks
def _guard(action) -> None:
    """Run ``action``; on an engine error queue its sentence and change nothing."""
    try:
        action()
    except EngineError as err:
        flash("error", md_escape(err))


def _use_sample() -> None:
    def action():
        name = st.session_state[W_SAMPLE]
        ds = load_sample_cached(name)
        state.set_dataset(ds, name)
        flash("success", f"Loaded the sample **{md_escape(name)}** ({len(ds):,} rows). {RESET_NOTE}")
    _guard(action)


def _on_upload() -> None:
    upload = st.session_state.get(W_UPLOAD)
    st.session_state.pop(UPLOAD_ERROR, None)
    if upload is None:  # the user removed the file: keep the data set it gave
        return
    size = int(getattr(upload, "size", 0) or 0)
    box = st.status(f"Loading {md_escape(shorten(upload.name))} ({size / 2**20:,.0f} MB)", expanded=True) \
        if size > BIG_UPLOAD_BYTES else None
    try:
        ds = load_stages(upload, box)
    except EngineError as err:
        if box is not None:
            box.update(label="The file could not be loaded", state="error", expanded=False)
        st.session_state[UPLOAD_ERROR] = (upload.file_id, str(err))
        return
    if box is not None:
        box.update(label=f"Loaded {md_escape(shorten(upload.name))}: {len(ds):,} rows", state="complete", expanded=False)
    flash("success", f"Loaded **{md_escape(shorten(upload.name))}** ({len(ds):,} rows, "
                     f"{len(ds.feature_names):,} features). {RESET_NOTE}")


def _apply_kinds() -> None:
    def action():
        columns = list(st.session_state.get(W_KIND_COLUMNS) or [])
        kind = st.session_state.get(W_KIND)
        if not columns or kind not in KINDS:
            flash("warning", "Pick one or more columns and the kind they should have.")
            return
        state.replace_dataset(state.current_dataset().with_kinds({c: kind for c in columns}))
        names = ", ".join(shorten(c, 30) for c in columns)
        flash("success", f"Now {md_escape(kind)}: {md_escape(names)}. {RESET_NOTE}")
    _guard(action)


def _apply_target() -> None:
    def action():
        ds = state.current_dataset()
        target = st.session_state[W_TARGET]
        task = st.session_state[W_TASK]
        new = ds.with_target(target)  # a new target: its task is inferred again
        if task == "auto":
            if target == ds.target:
                new = new.with_task(None)  # forget a forced task
        elif new.task != task:
            new = new.with_task(task)
        state.replace_dataset(new)
        flash("success", f"Target **{md_escape(shorten(new.target))}** ({md_escape(new.task)}). {RESET_NOTE}")
    _guard(action)


def _apply_split() -> None:
    def action():
        state.set_split_settings(test_size=st.session_state[W_TEST],
                                 validation_size=st.session_state[W_VALIDATION],
                                 seed=st.session_state[W_SPLIT_SEED])
        flash("success", f"The data was split again. {RESET_NOTE}")
    _guard(action)


def _ignore_giveaways() -> None:
    def action():
        ds = state.current_dataset()
        names = [g.column for g in ds.giveaways()]
        if names:
            state.replace_dataset(ds.with_kinds({name: "ignore" for name in names}))
            listed = ", ".join(shorten(n, 30) for n in names)
            flash("success", f"Now ignored: {md_escape(listed)}. {RESET_NOTE}")
    _guard(action)


def _restore() -> None:
    def action():
        state.restore_loaded_dataset()
        flash("success", f"Kinds, target and task are back to what was detected. {RESET_NOTE}")
    _guard(action)


def load_stages(upload, box=None):
    """Load an upload and make it the active data set, naming each stage in ``box`` (an ``st.status``).

    Stages: reading (the bytes and their digest), parsing (cached on the digest: CSV -> cleaned
    columns and kinds), encoding the target, splitting (row positions only). The training rows are
    gathered into the learners' matrix when a page first grows a tree (``Dataset.subset`` is lazy),
    so a data set that is only looked at never holds a second copy of its numbers.
    """
    say = box.write if box is not None else (lambda _text: None)
    say("Reading the file...")
    data = upload.getvalue()
    say("Parsing rows and columns...")
    ds = load_uploaded(data, upload.name)
    del data
    say(f"Encoding the target ({len(ds):,} rows)...")
    ds.y  # noqa: B018 - computed once, cached on the data set (the split needs the class codes)
    say("Splitting into training and test rows...")
    state.set_dataset(ds, upload.name)
    return ds


# ------------------------------------------------------------------------------------- panels
def summary_of(ds):
    """``ui.summaries.column_summary(ds)``, computed once per data set: counting the distinct values of
    1M rows x 20 columns takes over a second, and this page reruns on every widget change."""
    key = (state.data_version(), id(ds))
    memo = st.session_state.get(SUMMARY)
    if memo is None or memo[:2] != key:
        memo = (*key, column_summary(ds))
        st.session_state[SUMMARY] = memo
    return memo[2]


def source_panel() -> None:
    """Sample picker (left), file upload (middle) and "Open a model" (right, :mod:`ui.model.opening`)."""
    names = sample_names()
    left, right, model_col = st.columns(3, gap="medium")
    with left:
        current = state.current_dataset_name()
        if st.session_state.get(W_SAMPLE) not in names:
            st.session_state[W_SAMPLE] = current if current in names else names[0]
        choice = st.selectbox("Sample data set", names, key=W_SAMPLE)
        description, target = sample_info(choice)
        st.caption(md_escape(description) + (f" Target: {md_escape(target)}." if target else ""))
        st.button("Use this sample", on_click=_use_sample, type="primary",
                  icon=":material/dataset:")
    with right:
        st.file_uploader(
            "Or upload a file (CSV, TSV or TXT, optionally gzip-compressed)", type=UPLOAD_TYPES,
            key=W_UPLOAD, on_change=_on_upload,
            help="Comma, semicolon, tab or pipe separated; the first row holds the column names. "
                 "The target is the last column if it holds a few labels or a measurement, else (a small "
                 "count last) the last column of a few text labels; pick another one below. Files up to "
                 f"{st.get_option('server.maxUploadSize'):,} MB (1,000,000 rows of 20 numbers are "
                 "about 150 MB; a .gz file may unpack to that much); above 100,000 training rows the "
                 "tree uses histogram split search.",
        )
        upload = st.session_state.get(W_UPLOAD)
        failed = st.session_state.get(UPLOAD_ERROR)
        if failed and upload is not None and upload.file_id == failed[0]:
            st.error(md_escape(failed[1]), icon=":material/error:")
            st.caption(f"Still using **{md_escape(shorten(state.current_dataset_name()))}**.")
    with model_col:
        model_panel()


def overview_panel(ds) -> None:
    """Headline numbers and the loading notes."""
    split = state.current_split()
    a, b, c, d = st.columns(4)
    a.metric("Rows", f"{len(ds):,}")
    b.metric("Features", len(ds.feature_names))
    c.metric("Task", ds.task)
    if ds.task == "classification":
        d.metric("Classes", len(ds.classes))
    else:
        d.metric("Training rows", f"{len(split.train):,}")
    notes = list(ds.notes)
    for note in notes[:4]:
        st.info(md_escape(note), icon=":material/info:")
    if len(notes) > 4:
        with st.expander(f"{len(notes) - 4:,} more notes from loading"):
            for note in notes[4:]:
                st.text(note)


def giveaway_sentences(ds) -> list[str]:
    """One Markdown sentence per feature that gives the target away (``Dataset.giveaways``), names escaped."""
    target = md_escape(shorten(ds.target, 40))
    out = []
    for g in ds.giveaways():
        name = md_escape(shorten(g.column, 60))
        if g.renamed:
            out.append(f"Column **{name}** is the target **{target}** under other names: each of its {g.values:,} "
                       "values stands for one class, so a tree that splits on it learns nothing. Drop it from "
                       "the file, or set its kind to ignore on the Columns tab.")
        else:
            out.append(f"Column **{name}** gives the target away: each of its {g.values:,} values goes with one "
                       f"**{target}** only, so a tree can reach a perfect test score by memorising it and say "
                       "nothing about rows with new values. Drop it from the file, or set its kind to ignore "
                       "on the Columns tab.")
    return out


def giveaway_panel(ds) -> None:
    """Warnings about features that give the target away, with a button that ignores them all."""
    sentences = giveaway_sentences(ds)
    for sentence in sentences:
        st.warning(sentence, icon=":material/warning:")
    if sentences:
        st.button("Ignore " + ("this column" if len(sentences) == 1 else f"these {len(sentences)} columns"),
                  on_click=_ignore_giveaways, key="_w_data_ignore_giveaways", icon=":material/block:")


def kinds_form(ds) -> None:
    """Change the kind of one or more columns (numeric / categorical / ignore)."""
    columns = [c for c in ds.frame.columns if c != ds.target]
    _show_current({W_KIND_COLUMNS: []})
    with st.form("data_kinds_form", border=True):
        st.multiselect("Columns to change", columns, key=W_KIND_COLUMNS,
                       format_func=lambda c: f"{c}  ({ds.kind(c)})",
                       placeholder="Choose columns")
        st.radio("New kind", KINDS, key=W_KIND, horizontal=True,
                 help="numeric: split with thresholds x <= t. categorical: split by value. "
                      "ignore: not used by the tree.")
        st.form_submit_button("Apply kinds", on_click=_apply_kinds, icon=":material/check:")
    st.button("Restore the detected kinds, target and task", on_click=_restore,
              icon=":material/restart_alt:")


def target_form(ds) -> None:
    """Pick the target column and the task."""
    columns = list(ds.frame.columns)
    _show_current({W_TARGET: ds.target, W_TASK: "auto"})
    with st.form("data_target_form", border=True):
        st.selectbox("Target column", columns, key=W_TARGET)
        st.radio("Task", TASKS, key=W_TASK, horizontal=True, format_func=TASK_LABELS.get,
                 help="Detected: classification for text, yes/no and small whole-number targets, "
                      "regression for other numbers.")
        st.caption(f"Now: **{md_escape(ds.task)}**.")
        st.form_submit_button("Apply target", on_click=_apply_target, icon=":material/check:")


def split_form() -> None:
    """Train / validation / test sizes and the seed of the split."""
    settings = state.split_settings()
    _show_current({W_TEST: float(settings["test_size"]),
                   W_VALIDATION: float(settings["validation_size"]),
                   W_SPLIT_SEED: int(settings["seed"])})
    with st.form("data_split_form", border=True):
        st.slider("Test share", 0.0, state.MAX_TEST_SIZE, step=0.05, key=W_TEST,
                  help="Rows kept aside to measure accuracy on unseen data (0 = train on all rows).")
        st.slider("Validation share", 0.0, state.MAX_VALIDATION_SIZE, step=0.05, key=W_VALIDATION,
                  help="Rows used to decide splits or pruning (reduced-error pruning, "
                       "validation stopping).")
        st.number_input("Seed of the split", 0, state.MAX_SEED, step=1, key=W_SPLIT_SEED,
                        help="Also the app-wide seed shown in the sidebar.")
        st.form_submit_button("Apply split", on_click=_apply_split, icon=":material/check:")


def _show_current(values: dict) -> None:
    """Make form widgets show the active settings.

    Form values only matter in the submit callback, which has run before the page draws, so
    overwriting them here never loses a submitted choice; it keeps the forms in step with changes
    made elsewhere (another sample, the sidebar seed).
    """
    for key, value in values.items():
        st.session_state[key] = value
