"""The dependency direction holds: pages -> ui -> engine.viz -> engine core, nothing the other way.

Imports are read with ``ast`` (nothing is executed), including imports inside functions.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def python_files(folder: str) -> list[Path]:
    base = ROOT / folder
    return sorted(p for p in base.rglob("*.py") if "__pycache__" not in p.parts)


def imported_modules(path: Path) -> set[str]:
    """Top-level-qualified names of every module ``path`` imports (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".") if package else []
                base = parts[: len(parts) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return {n for n in names if n}


def offenders(folder: str, forbidden: tuple[str, ...], *, skip: tuple[str, ...] = ()) -> list[str]:
    found = []
    for path in python_files(folder):
        rel = path.relative_to(ROOT).as_posix()
        if any(rel.startswith(s) for s in skip):
            continue
        for name in sorted(imported_modules(path)):
            if any(name == f or name.startswith(f + ".") for f in forbidden):
                found.append(f"{rel} imports {name}")
    return found


def test_the_scanner_sees_imports():
    # Guard against a scanner that silently finds nothing.
    src = ROOT / "ui" / "state.py"
    assert "streamlit" in imported_modules(src)
    assert any(n.startswith("engine") for n in imported_modules(src))


def test_engine_never_imports_streamlit():
    assert offenders("engine", ("streamlit", "ui", "pages")) == []


def test_engine_core_never_imports_plotting_libraries():
    assert offenders("engine", ("plotly", "pydot", "matplotlib", "graphviz"),
                     skip=("engine/viz/",)) == []


# sample_data/ holds dev-time generator scripts (e.g. exporting scikit-learn's bundled data sets
# to CSV once); the app only reads the CSVs, so those scripts are not app code.
@pytest.mark.parametrize("folder", ["engine", "ui", "pages"])
def test_scikit_learn_and_scipy_only_in_tests_and_benchmarks(folder):
    if not (ROOT / folder).is_dir():
        pytest.skip(f"{folder}/ does not exist")
    assert offenders(folder, ("sklearn", "scipy")) == []


def test_app_entry_point_uses_no_test_only_libraries():
    names = imported_modules(ROOT / "app.py")
    assert not {n for n in names if n.split(".")[0] in ("sklearn", "scipy")}


def test_engine_viz_never_imports_ui_or_pages():
    assert offenders("engine/viz", ("ui", "pages", "streamlit")) == []


def test_ui_never_imports_pages():
    assert offenders("ui", ("pages",)) == []


def test_pages_do_not_import_each_other_or_the_app():
    page_modules = tuple(f"pages.{p.stem}" for p in python_files("pages")) + ("pages", "app")
    assert offenders("pages", page_modules) == []


def registered_pages() -> set[str]:
    """Script paths listed in app.py's PAGES registry (read with ast, app.py is not run)."""
    tree = ast.parse((ROOT / "app.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        target = getattr(node, "target", None) or (getattr(node, "targets", None) or [None])[0]
        if isinstance(target, ast.Name) and target.id == "PAGES":
            return {c.value for c in ast.walk(node.value)
                    if isinstance(c, ast.Constant) and str(c.value).startswith("pages/")}
    raise AssertionError("app.py has no PAGES registry")


def test_every_page_script_is_registered_in_the_app():
    # Streamlit lists every pages/*.py before st.navigation runs: a page missing from PAGES is
    # unreachable, and helpers that are not pages belong in ui/.
    scripts = {f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py")}
    assert "pages/home.py" in scripts
    assert scripts - registered_pages() == set()


def test_readme_test_command_is_what_ci_runs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install -r requirements.txt && streamlit run app.py" in readme
    assert "pip install -r requirements-dev.txt && python -m pytest" in readme
    assert "-r requirements-dev.txt" in ci
    assert [line.strip() for line in ci.splitlines() if line.strip().startswith("python -m pytest")] \
        == ['python -m pytest "$@"']
    assert ci.startswith("#!/usr/bin/env bash") and "set -euo pipefail" in ci


def test_readme_engine_example_runs(capsys):
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(import engine\n.*?)```", readme, re.S)
    assert code, "README has no engine example"
    exec(compile(code.group(1), "README.md", "exec"), {"__name__": "readme_example"})
    out = capsys.readouterr().out
    assert "Outlook = ? 0.247" in out and "IF Outlook = Overcast THEN Yes" in out
