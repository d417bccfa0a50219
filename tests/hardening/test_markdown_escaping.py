"""Hardening: every f-string the app hands to Streamlit's Markdown keeps user text inert.

Streamlit renders ``st.markdown``, ``st.caption``, ``st.info`` ... (and the app's ``flash``) as
Markdown, so a class label ``![c](http://host/x.png)`` would make every viewer's browser fetch an
outside image, ``[x](javascript:...)`` would become a link, and a bare ``http://...`` would become a
live link even after backslash escaping. The static scan below reads ``app.py``, ``pages/`` and ``ui/``
(subfolders included) and accepts an f-string placeholder only when it is

- ``md_escape(...)`` (``ui.widgets``: escapes, defeats auto-links, shortens), or
- a number formatted as one (``{n:,}``, ``{n:d}``, ``{x:.3f}``: a format spec a string would refuse), or
- an app constant (an ``ALL_CAPS`` name, or an item/attribute of one), or
- one of the few helpers listed in :data:`MARKDOWN_HELPERS`, which build their Markdown from escaped parts, or
- on a line marked ``# md-safe: <why>`` (app text only; the reason is required and read in review).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from ui.widgets import WORD_JOINER, md_escape

ROOT = Path(__file__).resolve().parents[2]
APP_FILES = [ROOT / "app.py", *sorted((ROOT / "pages").rglob("*.py")), *sorted((ROOT / "ui").rglob("*.py"))]
MARKDOWN_CALLS = {"markdown", "caption", "info", "warning", "error", "success", "write", "toast",
                  "title", "header", "subheader", "status", "expander"}
NOT_STREAMLIT = {"LOG", "log", "logger", "logging", "warnings"}
#: Helpers whose return value is Markdown made of app text and md_escape'd user text (read them when
#: they change): the Grow status line, the settings summary and the ensemble summary line.
MARKDOWN_HELPERS = {"controls.status_text", "settings.config_summary", "training.summary_line"}
_NUMERIC_SPEC = re.compile(r"[,_]|[dfeEgGn%xXob]$")
_CONSTANT = re.compile(r"^[A-Z][A-Z0-9_]*$")


def _receiver(func: ast.Attribute) -> str:
    value = func.value
    while isinstance(value, ast.Attribute):
        value = value.value
    return value.id if isinstance(value, ast.Name) else ""


def _dotted(node: ast.AST) -> str:
    return ast.unparse(node)


def _is_constant(node: ast.AST) -> bool:
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        if isinstance(node, ast.Attribute) and _CONSTANT.match(node.attr):
            return True
        node = node.value
    return isinstance(node, ast.Name) and bool(_CONSTANT.match(node.id))


def _placeholder_ok(fv: ast.FormattedValue) -> bool:
    value = fv.value
    if fv.format_spec is not None:
        spec = "".join(v.value for v in fv.format_spec.values if isinstance(v, ast.Constant))
        if _NUMERIC_SPEC.search(spec):
            return True
    if isinstance(value, ast.Call):
        name = _dotted(value.func)
        if name.split(".")[-1] == "md_escape" or name in MARKDOWN_HELPERS:
            return True
    return _is_constant(value)


def markdown_arguments(tree: ast.AST):
    """The arguments of every call that Streamlit renders as Markdown (and of ``flash``)."""
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call):
            continue
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in MARKDOWN_CALLS and _receiver(func) not in NOT_STREAMLIT:
            yield from call.args[:1]
            yield from (k.value for k in call.keywords if k.arg in ("body", "label"))
        elif isinstance(func, ast.Attribute) and func.attr == "update":  # st.status(...).update(label=...)
            yield from (k.value for k in call.keywords if k.arg == "label")
        elif isinstance(func, ast.Name) and func.id == "flash":
            yield from call.args[1:2]


_MARKED = re.compile(r"#\s*md-safe:\s*\S")


def unescaped_placeholders(source: str, name: str = "<string>") -> list[str]:
    found = []
    lines = source.splitlines()
    for arg in markdown_arguments(ast.parse(source, filename=name)):
        for node in ast.walk(arg):
            if isinstance(node, ast.FormattedValue) and not _placeholder_ok(node):
                call_lines = lines[arg.lineno - 1:(arg.end_lineno or arg.lineno) + 1]
                if any(_MARKED.search(line) for line in call_lines):
                    continue
                found.append(f"{name}:{node.lineno}: {{{ast.unparse(node.value)}}}")
    return found


def test_every_markdown_fstring_escapes_its_user_text():
    found = []
    for path in APP_FILES:
        found += unescaped_placeholders(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert found == [], "pass user text through ui.widgets.md_escape (numbers: give a format spec):\n" + "\n".join(found)


def test_the_scan_walks_subfolders_and_sees_the_ensemble_views():
    rel = {p.relative_to(ROOT).as_posix() for p in APP_FILES}
    assert {"ui/ensembles/views.py", "ui/ensembles/rounds.py", "ui/classroom/share.py", "ui/data/panels.py"} <= rel


@pytest.mark.parametrize("source", [
    'st.caption(f"Member {m} predicts {label}.")',
    'col.info(f"How the members vote on {what}")',
    'st.sidebar.markdown(f"**{name}**")',
    'flash("warning", f"Ignored {value}")',
    'st.warning("a" + f"{x!r}")',
    'st.caption(f"{name:>10}")',
    'st.caption(f"{name}")  # md-safe:',
    'box = st.status(f"Loading {shorten(upload.name)}")',
    'box.update(label=f"Loaded {shorten(upload.name)}", state="complete")',
])
def test_the_scan_can_fail(source):
    assert unescaped_placeholders(source)


@pytest.mark.parametrize("source", [
    'st.caption(f"Member {m:d} predicts {md_escape(label)}.")',
    'st.info(f"{n:,} rows, {share:.1%}, {METHODS[k]} {state.SMALL_DATA_ROWS}")',
    'LOG.error(f"{anything}")',
    'st.text(f"{anything}")',
    'st.markdown(f"{icon} {label}")  # md-safe: the constant list above',
])
def test_the_scan_accepts_escaped_and_numeric_placeholders(source):
    assert unescaped_placeholders(source) == []


# ------------------------------------------------------------------------------------- md_escape
_LIVE_LINK = re.compile(r"(?i)https?\\?:\\?/|www\\?\.|(?<!\\)\](?<!\\)\(|(?<!\\)<img|@[A-Za-z0-9]")


@pytest.mark.parametrize("text", [
    "![c](http://127.0.0.1:9/x.png)", "[x](javascript:alert(1))", "see https://evil.example/login now",
    "Your session expired - sign in again at https://phish.example", "WWW.example.org", "mail me a@b.co",
    "mailto:a@b.co", "<img src=http://h/x.png>",
])
def test_md_escape_defeats_links_images_and_autolinks(text):
    out = md_escape(text)
    assert not _LIVE_LINK.search(out), out
    assert out.replace(WORD_JOINER, "").replace("\\", "") == text  # reads the same


def test_md_escape_shortens_long_text():
    out = md_escape("https://x.example/" + "a" * 100_000)
    assert len(out) < 2 * 300 and out.endswith("\u2026")
    assert len(md_escape("b" * 5000, limit=None)) == 5000
