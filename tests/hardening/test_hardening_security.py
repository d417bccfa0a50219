"""Hardening: static and property checks that user content is never code, markup or shared state.

- ``unsafe_allow_html=True`` appears nowhere; ``st.html`` only ever gets the app's own constant CSS.
- No ``eval``/``exec``/``compile``, ``pickle``/``marshal``/``shelve``, ``subprocess``/``os.system`` or
  ``yaml.load`` in the app or the engine (Graphviz rendering via pydot is the one allowed external
  program, and it only ever receives DOT the engine wrote with escaped labels).
- Per-user state lives in ``st.session_state`` only: no ``global`` statement, and no module-level
  list/dict/set is changed from inside a function in ``app.py``, ``pages/`` or ``ui/``.
- ``.streamlit/config.toml``: tracebacks hidden, XSRF protection on, upload limit 200 MB.
- A tree JSON file from a user is validated: any JSON value, any damaged tree, deep nesting or an
  oversized file gives a ``DataError`` sentence and nothing else.
- ``md_escape`` leaves no Markdown syntax active for any text (property), and ``csv_safe`` leaves no
  cell a spreadsheet would run as a formula (property).
"""

from __future__ import annotations

import ast
import json
import re
import tomllib
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.errors import DataError
from engine.tree.serialize import MAX_JSON_BYTES, tree_from_json, tree_to_json

ROOT = Path(__file__).resolve().parents[2]
APP_FILES = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "ui").rglob("*.py"))]
ENGINE_FILES = sorted((ROOT / "engine").rglob("*.py"))


def parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def calls(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            yield node


def call_name(node: ast.Call) -> str:
    """Dotted name of the called function (``st.html``, ``pickle.loads``, ``eval``), or ``""``."""
    parts, f = [], node.func
    while isinstance(f, ast.Attribute):
        parts.append(f.attr)
        f = f.value
    if isinstance(f, ast.Name):
        parts.append(f.id)
        return ".".join(reversed(parts))
    return ""


def where(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(ROOT)}:{node.lineno}"


# ----------------------------------------------------------------------------------- HTML, markup
def test_no_unsafe_allow_html_anywhere():
    found = []
    for path in APP_FILES + ENGINE_FILES:
        for call in calls(parsed(path)):
            for kw in call.keywords:
                if kw.arg == "unsafe_allow_html" and not (isinstance(kw.value, ast.Constant) and kw.value.value is False):
                    found.append(where(path, call))
    assert not found, f"unsafe_allow_html used at {found}"


def _module_constants(tree: ast.Module) -> set[str]:
    """Names bound at module level to a string literal (possibly implicitly concatenated)."""
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def _is_constant_text(node: ast.AST, constants: set[str]) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return True
    if isinstance(node, ast.Name):
        return node.id in constants
    if isinstance(node, ast.IfExp):
        return _is_constant_text(node.body, constants) and _is_constant_text(node.orelse, constants)
    return False


def test_st_html_only_gets_constant_css():
    seen, written = 0, 0
    for path in APP_FILES:
        written += path.read_text(encoding="utf-8").count("st.html(")
        tree = parsed(path)
        constants = _module_constants(tree)
        for call in calls(tree):
            if call_name(call).endswith(".html") and call_name(call).split(".")[0] in ("st", "streamlit"):
                seen += 1
                assert call.args and _is_constant_text(call.args[0], constants), \
                    f"st.html with non-constant content at {where(path, call)}"
    assert seen == written  # the scan saw every st.html call the source text has


def test_the_html_scan_can_fail():
    tree = ast.parse("import streamlit as st\nst.html(f'<b>{name}</b>')\n")
    call = next(calls(tree))
    assert not _is_constant_text(call.args[0], _module_constants(tree))


# ------------------------------------------------------------------------------------- dangerous
FORBIDDEN_CALLS = {"eval", "exec", "compile", "__import__", "pickle.load", "pickle.loads", "marshal.loads",
                   "marshal.load", "shelve.open", "os.system", "os.popen", "yaml.load", "yaml.unsafe_load",
                   "dill.loads", "cloudpickle.loads"}
FORBIDDEN_IMPORTS = {"pickle", "marshal", "shelve", "dill", "cloudpickle", "subprocess", "yaml"}
# Reviewed exceptions: engine/grow/parallel.py hands the training data to its own joblib workers through a
# file it wrote itself (tempfile.mkstemp: mode 0600, a fresh name) and removes afterwards; the bytes never
# come from a user (joblib pickles every task argument the same way). Nothing else may unpickle.
ALLOWED = {"import pickle at engine/grow/parallel.py", "pickle.load at engine/grow/parallel.py"}


def test_no_eval_exec_pickle_or_shell_on_user_content():
    found = []
    for path in APP_FILES + ENGINE_FILES:
        tree = parsed(path)
        for call in calls(tree):
            if call_name(call) in FORBIDDEN_CALLS:
                found.append(f"{call_name(call)} at {where(path, call)}")
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found += [f"import {a.name} at {where(path, node)}" for a in node.names
                          if a.name.split(".")[0] in FORBIDDEN_IMPORTS]
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in FORBIDDEN_IMPORTS:
                found.append(f"from {node.module} at {where(path, node)}")
    found = [f for f in found if f.rsplit(":", 1)[0] not in ALLOWED]
    assert not found, found


def test_the_dangerous_call_scan_can_fail():
    tree = ast.parse("import pickle\nx = pickle.loads(data)\ny = eval(text)\n")
    names = {call_name(c) for c in calls(tree)}
    assert {"pickle.loads", "eval"} <= names & FORBIDDEN_CALLS


# ------------------------------------------------------------------------------- per-user state
MUTATORS = {"append", "extend", "insert", "update", "setdefault", "pop", "popitem", "clear", "add",
            "discard", "remove", "__setitem__"}


def shared_state_mutations(tree: ast.Module) -> list[str]:
    """``global`` statements and changes to module-level containers made inside functions."""
    containers = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        value = getattr(node, "value", None)
        if isinstance(value, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)) or (
                isinstance(value, ast.Call) and call_name(value) in ("dict", "list", "set", "OrderedDict",
                                                                      "defaultdict", "collections.OrderedDict")):
            containers |= {t.id for t in targets if isinstance(t, ast.Name)}
    problems = []
    for func in ast.walk(tree):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        local = {a.arg for a in func.args.args + func.args.kwonlyargs}
        for node in ast.walk(func):
            if isinstance(node, ast.Global):
                problems.append(f"global {', '.join(node.names)} (line {node.lineno})")
            elif isinstance(node, (ast.Assign, ast.AugAssign)):
                for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    if isinstance(t, ast.Name):
                        local.add(t.id)
                    if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) \
                            and t.value.id in containers - local:
                        problems.append(f"{t.value.id}[...] = (line {node.lineno})")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in MUTATORS and isinstance(node.func.value, ast.Name) \
                    and node.func.value.id in containers - local:
                problems.append(f"{node.func.value.id}.{node.func.attr}() (line {node.lineno})")
    return problems


def test_per_user_state_only_in_session_state():
    found = {str(p.relative_to(ROOT)): shared_state_mutations(parsed(p)) for p in APP_FILES}
    found = {k: v for k, v in found.items() if v}
    assert not found, f"module-level state changed per user: {found}"


def test_the_shared_state_scan_can_fail():
    src = "CACHE = {}\nSEEN = []\ndef f(x):\n    CACHE[x] = 1\n    SEEN.append(x)\ndef g():\n    global N\n"
    assert len(shared_state_mutations(ast.parse(src))) == 3


# ------------------------------------------------------------------------------------ config.toml
def test_streamlit_config_hides_tracebacks_keeps_xsrf_and_limits_uploads():
    cfg = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert cfg["client"]["showErrorDetails"] == "none"
    assert cfg["server"].get("enableXsrfProtection", True) is True
    assert 1 <= cfg["server"]["maxUploadSize"] <= 200
    assert cfg["server"].get("enableCORS", True) is True
    assert cfg.get("browser", {}).get("gatherUsageStats") is False


# --------------------------------------------------------------------------------- tree JSON import
@pytest.fixture(scope="module")
def tree_json():
    tree = engine.fit_tree(engine.load_sample("play_tennis"), engine.TreeConfig(algorithm="id3"))
    return json.loads(tree_to_json(tree))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(value=json_values)
def test_any_json_value_is_refused_with_a_sentence(value):
    with pytest.raises(DataError) as err:
        tree_from_json(json.dumps(value))
    assert str(err.value).endswith(".")


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_a_damaged_tree_file_gives_a_data_error_or_a_valid_tree(tree_json, data):
    """Change one field of a real tree file anywhere to any JSON value: DataError or a consistent tree."""
    doc = json.loads(json.dumps(tree_json))
    node = doc
    path = []
    while isinstance(node, (dict, list)) and node and data.draw(st.booleans(), label="deeper"):
        key = data.draw(st.sampled_from(sorted(node) if isinstance(node, dict) else range(len(node))))
        path.append(key)
        parent, node = node, node[key]
    if not path:
        return
    parent[path[-1]] = data.draw(json_values, label="new value")
    try:
        tree = tree_from_json(json.dumps(doc))
    except DataError as err:
        assert str(err).endswith(".")
        return
    ds = engine.load_sample("play_tennis")
    try:  # accepted: then it must be usable
        tree.predict(ds.frame)
        list(tree.walk())
    except DataError:
        pass


def test_nested_and_oversized_tree_files():
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(DataError, match="not valid JSON|not a tree"):
        tree_from_json(deep)
    with pytest.raises(DataError, match="larger than 20 MB"):
        tree_from_json(b" " * (MAX_JSON_BYTES + 1))
    with pytest.raises(DataError, match="not UTF-8"):
        tree_from_json(b"\xff\xfe{")


def test_a_tree_file_with_a_cycle_is_refused(tree_json):
    doc = json.loads(json.dumps(tree_json))
    internal = [n for n in doc["nodes"] if n and n.get("children")]
    internal[-1]["children"][0] = 0  # a child pointing back at the root
    with pytest.raises(DataError):
        tree_from_json(json.dumps(doc))


# ---------------------------------------------------------------------------------- md_escape, csv
_PUNCT = re.compile(r"[!-/:-@\[-`{-~]")


@settings(max_examples=300)
@given(text=st.text(max_size=60))
def test_md_escape_leaves_no_active_markdown(text):
    from ui.widgets import md_escape

    out = md_escape(text)
    i = 0
    while i < len(out):  # every ASCII punctuation character is escaped by a backslash
        if out[i] == "\\":
            assert i + 1 < len(out) and _PUNCT.match(out[i + 1]), (text, out)
            i += 2
            continue
        assert not _PUNCT.match(out[i]), (text, out, i)
        i += 1
    assert "\n" not in out  # one line: no headings, lists or quotes can start


@settings(max_examples=200)
@given(cells=st.lists(st.one_of(st.text(max_size=12), st.floats(allow_nan=False, allow_infinity=False),
                                st.integers()), min_size=1, max_size=8),
       name=st.text(max_size=8))
def test_csv_safe_neutralises_every_text_cell(cells, name):
    from ui.grow.exports import FORMULA_START, csv_bytes, csv_safe

    frame = pd.DataFrame({name or "c": pd.Series(cells, dtype=object)})
    safe = csv_safe(frame)
    for value in list(safe.iloc[:, 0]) + list(safe.columns):
        if isinstance(value, str):
            assert not value.startswith(FORMULA_START), value
    csv_bytes(frame)  # and it writes


# ------------------------------------------------------------------------------------- downloads
def test_every_download_people_open_in_a_spreadsheet_is_neutralised():
    """CSV downloads go through ``csv_bytes`` and text downloads through ``text_safe``; only DOT, SVG,
    JSON and ONNX (not opened in spreadsheets) may pass data as it is."""
    seen = []
    for path in APP_FILES:
        for call in calls(parsed(path)):
            if not (isinstance(call.func, ast.Attribute) and call.func.attr == "download_button"):
                continue
            data = call.args[1] if len(call.args) > 1 else next(k.value for k in call.keywords if k.arg == "data")
            mime = next((k.value.value for k in call.keywords if k.arg == "mime"), "")
            file_name = ast.unparse(next((k.value for k in call.keywords if k.arg == "file_name"), ast.Constant("")))
            wrapped = call_name(data) if isinstance(data, ast.Call) else ""
            if wrapped in ("partial", "functools.partial") and data.args:  # deferred: made on click
                wrapped = ast.unparse(data.args[0])
            seen.append((where(path, call), mime, wrapped))
            if "csv" in mime or ".csv" in file_name or "Gain table" in ast.unparse(call.args[0]):
                assert wrapped == "csv_bytes", f"CSV download without csv_bytes at {where(path, call)}"
            elif mime.startswith("text/plain") or ".txt" in file_name:
                assert wrapped == "text_safe", f"text download without text_safe at {where(path, call)}"
            elif mime == "application/zip":  # a lesson file: its table is written by lesson_replay.table_csv with
                # formula text quoted (tests/engine/teach/test_lesson_file.py checks the CSV inside)
                assert "lesson_bytes" in ast.unparse(data), (where(path, call), ast.unparse(data))
            elif ".onnx" in file_name:  # a binary protobuf model: no spreadsheet opens it, and nothing in it is a formula
                assert mime == "application/octet-stream", (where(path, call), mime)
            else:
                assert mime in ("text/vnd.graphviz", "image/svg+xml", "application/json"), (where(path, call), mime)
    assert len(seen) >= 5, seen


@settings(max_examples=200)
@given(text=st.text(max_size=40))
def test_plotly_text_escape_leaves_no_markup_tex_or_template(text):
    """Plotly renders a subset of HTML, ``%{...}`` templates and ``$...$`` TeX (which it dropped
    without MathJax: a column named ``$x$`` vanished from a plot note)."""
    from engine.viz.text import escape

    out = escape(text)
    assert "<" not in out and ">" not in out and "$" not in out and "%{" not in out and "\n" not in out
    assert escape("$x$ and <b>") == "&#36;x&#36; and &lt;b&gt;"


def test_every_figure_takes_the_escape_from_its_own_module():
    """Issue 41 item 7: the one escape for user text in figures is :mod:`engine.viz.text`'s; no module reaches
    for it through the region plot's module (which re-exports it for old callers only)."""
    from engine.viz import regions, text

    assert regions.escape is text.escape and regions.short_label is text.short_label
    borrowed = []
    for path in sorted(p for folder in ("engine", "ui", "pages") for p in (ROOT / folder).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("engine.viz.regions"):
                borrowed += [f"{path.name}: {a.name}" for a in node.names if a.name in ("escape", "short_label", "FONT")
                             and path.parent.name != "regions"]
    assert borrowed == []
