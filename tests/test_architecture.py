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


def test_live_rooms_are_plain_infrastructure():
    # live/ (the classroom's room store) knows nothing of Streamlit, the pages or the engine, and the
    # engine knows nothing of it: the ui joins the two.
    assert offenders("live", ("streamlit", "ui", "pages", "engine", "app")) == []
    assert offenders("engine", ("live",)) == []
    assert offenders("live", ("redis",), skip=("live/redis_store.py",)) == []  # Redis stays optional


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


# ----------------------------------------------------------------------------- the house's layout
# The engine's folders, lowest first: a module may import its own folder, the top-level modules
# (config, errors, checks) and folders on a lower floor; prune, evaluate and ensembles share a floor
# and do not import one another. models/ (files trained elsewhere) reads ensembles, tree and data; no other
# engine folder imports it (only engine/__init__, ui and pages do).
ENGINE_FLOORS = {"data": 0, "split": 1, "tree": 2, "grow": 3, "prune": 4, "evaluate": 4, "ensembles": 4,
                 "teach": 5, "viz": 6, "models": 5}
ENGINE_TOP_MODULES = {"__init__", "config", "errors", "checks", "budget", "estimates", "threads"}
UI_SHARED = {"__init__", "state", "cache", "errors", "widgets", "charts", "summaries", "memory"}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_graph(folders=("engine", "ui", "pages", "live")) -> dict[str, set[str]]:
    """Module -> the project modules it imports (a name that is not a module is read as its package)."""
    paths = {module_name(p): p for f in folders for p in python_files(f)}
    graph = {}
    for name, path in paths.items():
        targets = set()
        for imported in imported_modules(path):
            while imported and imported not in paths:
                imported = imported.rpartition(".")[0]
            if imported and imported != name:
                targets.add(imported)
        graph[name] = targets
    return graph


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), each as a sorted list."""
    index, low, stack, on_stack, groups, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return groups


def test_cycle_finder_finds_a_loop():
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles_anywhere():
    assert find_cycles(project_graph()) == []


def engine_place(module: str) -> tuple[str, int]:
    """(folder, floor) of an engine module; top-level modules are below every folder."""
    parts = module.split(".")
    if len(parts) == 1:
        return "engine", 99          # the package itself names the public API from every folder
    if parts[1] in ENGINE_FLOORS:
        return parts[1], ENGINE_FLOORS[parts[1]]
    return "top", -1


def test_engine_imports_run_one_way():
    wrong = []
    for module, targets in project_graph(("engine",)).items():
        folder, floor = engine_place(module)
        for target in targets:
            t_folder, t_floor = engine_place(target)
            if t_folder == folder or module == "engine":
                continue
            if t_floor > floor or (t_floor == floor and t_folder != folder):
                wrong.append(f"{module} ({folder}) imports {target} ({t_folder})")
    assert wrong == []


def test_only_the_package_root_imports_engine_models():
    wrong = [f"{module} imports {target}" for module, targets in project_graph(("engine",)).items()
             for target in targets
             if target.startswith("engine.models") and module != "engine" and not module.startswith("engine.models")]
    assert wrong == []


def test_direction_check_sees_a_wrong_import():
    # guard: the floors really order the folders
    assert engine_place("engine.grow.grower")[1] > engine_place("engine.tree.store")[1]
    assert engine_place("engine.config")[1] < engine_place("engine.data.dataset")[1]


def test_engine_top_holds_only_the_shared_modules():
    top = {p.stem for p in (ROOT / "engine").glob("*.py")}
    assert top <= ENGINE_TOP_MODULES
    folders = {p.name for p in (ROOT / "engine").iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders == set(ENGINE_FLOORS)


@pytest.mark.parametrize("folder", ["engine", "ui", "pages", "live"])
def test_no_folder_holds_more_than_twelve_modules(folder):
    crowded = {}
    for d in [ROOT / folder, *(p for p in (ROOT / folder).rglob("*") if p.is_dir())]:
        modules = [p for p in d.glob("*.py") if p.name != "__init__.py"]
        if d.name != "__pycache__" and len(modules) > 12:
            crowded[d.relative_to(ROOT).as_posix()] = len(modules)
    assert crowded == {}


def test_every_engine_and_ui_folder_says_what_it_is_for():
    for base in ("engine", "ui"):
        for d in (ROOT / base).iterdir():
            if d.is_dir() and d.name != "__pycache__":
                init = d / "__init__.py"
                assert init.exists(), f"{d.relative_to(ROOT)} has no __init__.py"
                doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
                assert doc and len(doc) > 80, f"{init.relative_to(ROOT)} needs a paragraph saying what it is for"


def test_shared_ui_modules_do_not_import_page_folders():
    wrong = []
    for module, targets in project_graph(("ui",)).items():
        if module.split(".")[-1] in UI_SHARED and module.count(".") == 1:
            wrong += [f"{module} imports {t}" for t in targets if t.count(".") >= 1
                      and t.split(".")[1] not in UI_SHARED]
    assert wrong == []


def test_criterion_names_in_config_match_the_impurity_registry():
    from engine.config import CRITERION_NAMES
    from engine.split.impurity import CRITERIA
    assert tuple(CRITERIA) == CRITERION_NAMES
