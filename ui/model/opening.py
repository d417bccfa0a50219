"""The Data page's "Open a model" panel: read a model file with ``engine.load_model``, keep it in the
session (``ui.state.MODEL``), say whether the active data set has its columns, and close it.

The file is read from the uploaded bytes in the uploader's callback (before the page draws), so every
panel of the run already sees the new model; a file the engine refuses (a pickle, a damaged or unknown
file) leaves the open model as it was and shows the engine's one sentence. Reading reserves its estimate
(:func:`model_bytes`) from the server's memory pool (:mod:`engine.budget`): on a busy server it waits, or says so. A model is held per session
(it is small next to a data set: its nodes); the memory janitor (``ui.memory``) drops it with the
session's state when the tab closes, and the uploaded bytes are not kept once the model is read.
"""

from __future__ import annotations

import streamlit as st

from engine import load_model
from engine.budget import reserve
from engine.models.load import READERS
from engine.errors import EngineError
from ui import state
from ui.model.classes import class_panel
from ui.model.common import column_match, member_label
from ui.widgets import flash, md_escape, shorten

W_MODEL_UPLOAD = "_w_data_model_upload"
MODEL_ERROR = "_data_model_error"  # (file_id, message) of the last model file that failed


def formats() -> str:
    """The model formats this version opens (the engine's readers, refusals left out)."""
    return ", ".join(r.name for r in READERS if r.accepted)


#: reading a model file holds about this many bytes per byte of the file at its peak (parsed JSON, the node
#: arrays), plus a fixed allowance: a one-tree XGBoost JSON of 56 MB (990,000 nodes) peaked at +461 MB, 600 trees
#: in 38 MB at +215 MB (benchmarks/bench_big_models.py); 24 while every node was an object (+1,671 MB for 56 MB)
MODEL_BYTES_PER_FILE_BYTE = 10
MODEL_FIXED_BYTES = 10 << 20


def model_bytes(n_file_bytes: int) -> int:
    """What opening a model file of ``n_file_bytes`` reserves from the server's memory pool."""
    return MODEL_FIXED_BYTES + MODEL_BYTES_PER_FILE_BYTE * int(n_file_bytes)


def _on_model_upload() -> None:
    upload = st.session_state.get(W_MODEL_UPLOAD)
    st.session_state.pop(MODEL_ERROR, None)
    if upload is None:  # the user removed the file: the model stays open until Close
        return
    data = upload.getvalue()
    try:
        with reserve(model_bytes(len(data)), what="Opening this model file", advice="open a smaller model"):
            model = load_model(data)
    except EngineError as err:
        st.session_state[MODEL_ERROR] = (upload.file_id, str(err))
        return
    state.set_model(model, upload.name)
    flash("success", f"Opened the model **{md_escape(shorten(upload.name))}**: {md_escape(describe(model))}.")


def _close() -> None:
    name = state.current_model_name()
    state.close_model()
    st.session_state.pop(W_MODEL_UPLOAD, None)
    flash("info", f"Closed the model **{md_escape(shorten(name))}**: the pages show the tree grown here again.")


def describe(model) -> str:
    """``XGBoost JSON, boosted (softmax), classification with 3 classes, 15 trees, 4 features``."""
    kinds = {"single": "one tree", "vote": "a forest (majority vote)", "soft_vote": "a forest (mean of the trees)",
             "additive": f"boosted ({model.link})"}
    task = (f"classification with {len(model.classes)} classes" if model.task == "classification"
            else "regression")
    return (f"{model.source}, {kinds.get(model.kind, model.kind)}, {task}, {model.n_trees:,} "
            f"tree{'s' if model.n_trees != 1 else ''}, {len(model.feature_names):,} features")


def match_sentence(model, ds) -> tuple[str, str]:
    """(kind, sentence) saying whether the data set ``ds`` has the model's columns: ``("success", ...)``
    or ``("warning", ...)`` with the missing columns listed (Markdown: the column names are escaped)."""
    match = column_match(model, ds)
    missing = match.missing
    if not missing:
        how = f" {md_escape(match.sentence())}" if match.how != "names" else ""
        return "success", (f"The data set has all {len(model.feature_names):,} of the model's columns: its rows "
                           f"feed the data-driven views (node counts, metrics, pruning, gain tables).{how}")
    shown = ", ".join(md_escape(shorten(c, 30)) for c in missing[:12]) + (" ..." if len(missing) > 12 else "")
    return "warning", (f"The data set lacks {len(missing):,} of the model's {len(model.feature_names):,} columns "
                       f"({shown}), so only the model's own views work; open a CSV with these columns for the rest.")


def model_panel() -> None:
    """The uploader, the open model's summary, its match with the data set and the Close button."""
    st.file_uploader(
        "Open a model trained elsewhere", key=W_MODEL_UPLOAD, on_change=_on_model_upload,
        help=f"A model file saved by its library: {formats()}. The format is recognised from the content; the "
             "explorer reads the trees itself (the library is not needed). Pickles are refused unopened. "
             f"Files up to {st.get_option('server.maxUploadSize'):,} MB.")
    upload = st.session_state.get(W_MODEL_UPLOAD)
    failed = st.session_state.get(MODEL_ERROR)
    if failed and upload is not None and upload.file_id == failed[0]:
        st.error(md_escape(failed[1]), icon=":material/error:")
    model = state.current_model()
    if model is None:
        st.caption("A model opens as trees on every page: its diagram, rules, votes or contributions and "
                   "regions; with a CSV of its columns also counts, metrics and pruning.")
        return
    st.markdown(f"**Open model** · {md_escape(shorten(state.current_model_name(), 40))}")
    st.caption(md_escape(describe(model)) + ". " + md_escape(member_label(model, state.model_member())) + " is shown.")
    for note in model.notes:
        st.caption(md_escape(note))
    kind, sentence = match_sentence(model, state.current_dataset())
    getattr(st, kind)(sentence)
    class_panel(model)
    st.button("Close the model", key="_w_data_model_close", on_click=_close, icon=":material/close:",
              help="The pages go back to the tree grown here from the data set.")
