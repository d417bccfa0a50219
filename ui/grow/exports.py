"""Downloads of the Grow page (DOT, SVG, rules, tree JSON, ONNX, step log CSV) and the tree JSON import.

:func:`onnx_download` is also the Ensembles page's "Download as ONNX" button.

CSV files are made safe for spreadsheets first (:func:`csv_safe`): a cell whose text starts with
``= + - @`` (or a tab / carriage return) would be run as a formula by Excel or LibreOffice, so such
cells get a leading apostrophe, which spreadsheets show as plain text ("CSV injection", OWASP).
"""

from __future__ import annotations

from functools import partial

import pandas as pd
import streamlit as st

from engine.ensembles.onnx_export import onnx_problem, to_onnx
from engine.errors import EngineError
from engine.split.wording import plural
from engine.data.csvio import FORMULA_START, formula_safe  # noqa: F401 (FORMULA_START: re-exported)
from engine.tree.paths import rules_text
from engine.tree.serialize import tree_from_json, tree_to_json
from engine.viz.dot import dot_to_svg
from ui.errors import show_engine_error
from ui.widgets import md_escape

ONNX_NOTE = ("The ONNX file runs in any ONNX runtime and predicts as the app, missing values included. Its "
             "input `X` is one row of numbers per case, the features in the data's column order, a category "
             "as its position in that feature's list (listed in the file's metadata), a missing value as NaN.")
NO_SVG = ("SVG export needs the Graphviz `dot` program on the server; download the DOT file and open "
          "it at any Graphviz viewer instead.")
W_IMPORT = "_w_grow_import"


neutralise = formula_safe  # a leading apostrophe on text a spreadsheet would run as a formula


def csv_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells and column names cannot start a spreadsheet formula.

    Numbers stay numbers (a negative number is not text, so it is left alone).
    """
    out = frame.copy()
    for col in out.columns:
        if out[col].dtype == object or pd.api.types.is_string_dtype(out[col].dtype):
            out[col] = out[col].map(neutralise).astype(object)
    out.columns = [neutralise(str(c)) for c in out.columns]
    return out


def text_safe(text: str) -> str:
    """``text`` with every line a spreadsheet would run as a formula neutralised (see :func:`neutralise`).

    For plain-text exports people open in Excel too (the rules file: a class line such as
    ``=HYPERLINK(...) <=> ...`` or ``-1 <=> ...`` would otherwise become a formula).
    """
    return "\n".join(neutralise(line) for line in str(text).split("\n"))


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """``frame`` as UTF-8 CSV (with a BOM, so Excel reads accents), formulas neutralised."""
    return csv_safe(frame).to_csv(index=False).encode("utf-8-sig")


def file_stem(name: str) -> str:
    """A file-name-safe stem from a data set name: letters, digits, ``-`` and ``_`` only."""
    base = str(name).replace("\\", "/").rsplit("/", 1)[-1]
    if "." in base[1:]:
        base = base.rsplit(".", 1)[0]
    stem = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in base)
    return stem.strip("_")[:60] or "tree"


def onnx_download(model, stem: str, *, key: str, label: str = "Download as ONNX", where=st) -> None:
    """A download button for ``model`` (a tree or an ensemble) as an ONNX file, made only when clicked;
    disabled, with the reason as its help, when the model cannot be exported."""
    problem = onnx_problem(model)
    where.download_button(label, partial(to_onnx, model) if problem is None else b"", file_name=f"{stem}.onnx",
                          mime="application/octet-stream", key=key, icon=":material/download:", on_click="ignore",
                          disabled=problem is not None, help=problem)


def render_downloads(tree, dot_text: str, step_log: pd.DataFrame, name: str) -> None:
    """Download buttons: DOT, SVG (when Graphviz is installed), rules, tree JSON, ONNX, step log CSV."""
    stem = file_stem(name)
    # a row that wraps: six columns in the inspector's 346 px column at 1366 px showed the download icons alone
    row = st.container(horizontal=True, key="grow_downloads")
    row.download_button("Diagram (DOT)", dot_text, file_name=f"{stem}_tree.dot", mime="text/vnd.graphviz",
                         key="_w_grow_dl_dot", icon=":material/download:", on_click="ignore")
    svg = dot_to_svg(tree)
    if svg is not None:
        row.download_button("Diagram (SVG)", svg, file_name=f"{stem}_tree.svg", mime="image/svg+xml",
                             key="_w_grow_dl_svg", icon=":material/download:", on_click="ignore")
    row.download_button("Rules (text)", text_safe(rules_text(tree)), file_name=f"{stem}_rules.txt",
                         mime="text/plain", key="_w_grow_dl_rules", icon=":material/download:",
                         on_click="ignore")
    row.download_button("Tree (JSON)", tree_to_json(tree), file_name=f"{stem}_tree.json",
                         mime="application/json", key="_w_grow_dl_json", icon=":material/download:",
                         on_click="ignore")
    onnx_download(tree, f"{stem}_tree", key="_w_grow_dl_onnx", label="Tree (ONNX)", where=row)
    row.download_button("Step log (CSV)", csv_bytes(step_log), file_name=f"{stem}_steps.csv",
                         mime="text/csv", key="_w_grow_dl_log", icon=":material/download:",
                         on_click="ignore", disabled=step_log.empty)
    if svg is None:
        st.caption(NO_SVG)
    st.caption("The JSON file can be loaded again below; the DOT file opens in any Graphviz viewer "
               "(e.g. an online one) for a print-quality picture. " + ONNX_NOTE)


def render_import(draw) -> None:
    """Uploader for a tree JSON file saved by this app; ``draw(tree)`` shows a valid one."""
    upload = st.file_uploader("Import a tree (JSON saved by this app)", type=["json"], key=W_IMPORT)
    if upload is None:
        return
    try:
        tree = tree_from_json(upload.getvalue())
    except EngineError as err:
        show_engine_error(err)
        return
    st.caption(f"Imported tree: {md_escape(plural(tree.n_nodes, 'node'))}, {md_escape(plural(tree.n_leaves, 'leaf', 'leaves'))}, depth {tree.depth:d}, "
               f"{md_escape(tree.task)}, criterion {md_escape(tree.criterion)}. It is shown here only; the tree you grow is unchanged.")
    draw(tree)
    st.code(rules_text(tree), language=None, wrap_lines=True)
