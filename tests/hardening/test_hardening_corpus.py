"""Hardening: every awkward file that loads is also learnable and exportable, and hostile text stays text.

For each file of ``tests/data/awkward/`` that ``load_csv`` accepts (see ``tests/engine/data/test_awkward.py`` for
the loading outcomes), a tree is grown with each algorithm and every export is made and read back:

- DOT (``engine.viz.dot.dot_source``) parsed with ``pydot.graph_from_dot_data``: exactly one graph,
  node statements ``n<id>`` for exactly the tree's nodes, edges exactly the tree's parent -> child
  pairs, and every label decodes to the text the engine meant (user text shown literally);
- the rules text (``engine.tree.paths.rules_text``) and its download form (``ui.grow.exports.text_safe``);
- the tree JSON round trip (``engine.tree.serialize``): same dict, same predictions;
- the gain-table CSV (``ui.grow.exports.csv_bytes``), read back with the csv module: no cell a
  spreadsheet would run as a formula.

Nothing but an ``EngineError`` may escape, and for these files nothing should escape at all.
A slow test builds a 200 MB file in a temporary folder and checks the row limit's sentence.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pydot
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.data.dataset import Dataset, load_csv
from engine.errors import DataError
from engine.grow.gain_tables import gain_table
from engine.tree.paths import rules_text
from engine.tree.serialize import tree_from_json, tree_to_json
from engine.viz.dot import dot_source
from ui.grow.exports import FORMULA_START, csv_bytes, text_safe

CORPUS = Path(__file__).resolve().parents[1] / "data" / "awkward"
ALGORITHMS = ("id3", "c45", "cart")


def _awkward_cases() -> dict:
    import importlib.util

    spec = importlib.util.spec_from_file_location("awkward_cases", Path(__file__).resolve().parents[1] / "engine" / "data" / "test_awkward.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CASES


CASES = _awkward_cases()
LOADABLE = sorted(name for name, (outcome, _, _) in CASES.items() if outcome == "loads")


# ------------------------------------------------------------------------------------ DOT reading
def dot_unquote(value: str) -> str:
    """A DOT double-quoted attribute as Graphviz shows it: escapes undone, ``\\n`` as a newline."""
    assert value.startswith('"') and value.endswith('"'), value
    body, out, i = value[1:-1], [], 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            out.append({"n": "\n", "l": "\n", "r": "\n", "\\": "\\", '"': '"'}.get(nxt, "\\" + nxt))
            i += 2
            continue
        assert ch != '"', f"unescaped quote inside a DOT string: {value!r}"
        out.append(ch)
        i += 1
    return "".join(out).replace("&amp;", "&")


def parse_dot(source: str):
    graphs = pydot.graph_from_dot_data(source)
    assert graphs is not None and len(graphs) == 1, "the DOT text must parse to exactly one graph"
    return graphs[0]


def check_dot(tree, source: str) -> list[str]:
    """Parse ``source`` and check it draws exactly ``tree``; return every decoded label."""
    g = parse_dot(source)
    names = {n.get_name() for n in g.get_nodes()} - {"node", "edge", "graph"}
    assert names == {f"n{n.id}" for n in tree.walk()}, names
    edges = {(e.get_source(), e.get_destination()) for e in g.get_edges()}
    assert edges == {(f"n{n.parent}", f"n{n.id}") for n in tree.walk() if n.parent is not None}
    labels = [dot_unquote(n.get("label")) for n in g.get_nodes() if n.get("label") is not None]
    labels += [dot_unquote(e.get("label")) for e in g.get_edges() if e.get("label") is not None]
    assert len(labels) == tree.n_nodes + (tree.n_nodes - 1)
    return labels


def shown_in_dot(text: str, limit: int = 40) -> str:
    """How the DOT export shows a piece of user text: control characters as spaces, cut at ``limit``."""
    s = "".join(" " if ord(c) < 32 or ord(c) == 127 else c for c in str(text))
    return s if len(s) <= limit else s[: limit - 1] + "…"


# ----------------------------------------------------------------------------------- other exports
def check_json_round_trip(tree, ds) -> None:
    text = tree_to_json(tree)
    json.loads(text)  # plain JSON (NaN allowed by Python's reader)
    back = tree_from_json(text)
    assert back.to_dict() == tree.to_dict()
    assert list(back.predict(ds.frame)) == list(tree.predict(ds.frame))
    assert tree_from_json(text.encode("utf-8")).to_dict() == tree.to_dict()


def check_csv_safe(data: bytes) -> list[list[str]]:
    """Read back an exported CSV; no text cell may start a spreadsheet formula."""
    assert data.startswith(b"\xef\xbb\xbf"), "UTF-8 with a BOM, so Excel reads accents"
    rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
    for row in rows:
        for cell in row:
            if cell.startswith(FORMULA_START):
                try:
                    float(cell)  # a negative number is a number, not a formula
                except ValueError:
                    pytest.fail(f"a CSV cell would run as a formula: {cell!r}")
    return rows


def check_rules(tree) -> str:
    text = rules_text(tree)
    assert text.count("IF ") == tree.n_leaves
    safe = text_safe(text)
    for line in safe.split("\n"):
        assert not line.startswith(FORMULA_START), line
    # neutralising only ever adds one apostrophe at the start of a line
    for line, original in zip(safe.split("\n"), text.split("\n"), strict=True):
        assert line in (original, "'" + original)
    return text


def every_export(tree, ds, config) -> list[str]:
    labels = check_dot(tree, dot_source(tree))
    check_dot(tree, dot_source(tree, compact=True))
    check_rules(tree)
    check_json_round_trip(tree, ds)
    check_csv_safe(csv_bytes(gain_table(ds, config)))
    return labels


# ------------------------------------------------------------------------------- the awkward files
@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("name", LOADABLE)
def test_awkward_file_grows_and_exports(name, algorithm):
    _, _, kwargs = CASES[name]
    ds = load_csv(CORPUS / name, **kwargs)
    config = engine.TreeConfig(algorithm=algorithm)
    tree = engine.fit_tree(ds, config)
    assert tree.n_leaves >= 1 and len(tree.predict(ds.frame)) == len(ds)
    labels = every_export(tree, ds, config)
    for node in tree.internal_nodes:  # each split's feature is named literally in the diagram
        assert any(shown_in_dot(node.split.feature) in label for label in labels), node.split.feature


@pytest.mark.parametrize("name", LOADABLE)
def test_awkward_file_step_by_step(name):
    """The Grow page's path: step, undo, collapse, every node's gain table and threshold scan."""
    from engine.split.gain import candidate_scan

    _, _, kwargs = CASES[name]
    ds = load_csv(CORPUS / name, **kwargs)
    g = engine.Grower(ds, engine.TreeConfig(algorithm="c45"))
    for _ in range(6):
        if g.step() is None:
            break
    for node in g.tree.walk():
        table = g.gain_table(node.id)
        assert list(table.columns)[:2] == ["feature", "split"]
        for feature in ds.feature_names[:5]:
            candidate_scan(g, node.id, feature)
    if g.tree.internal_nodes:
        g.collapse(g.tree.internal_nodes[-1].id)
    while g.undo():
        pass
    assert g.tree.n_nodes == 1


# ------------------------------------------------------------------------------ hostile user text
HOSTILE = [
    "<script>alert(1)</script>",
    '"]; n0 -> n1 [',
    "{}|<>",
    "back\\slash \\N \\G \\n",
    "two\nlines\tand tab",
    "**bold** $x^2$ :red[red]",
    "graph",
    "a &lt; b &amp; c",
    "[link](javascript:alert(1))",
]
HOSTILE_CLASSES = ["=1+1", "<b>yes</b>", "@SUM(A1)", "-2+3"]


def hostile_dataset(n: int = 48) -> Dataset:
    """Categorical features named and valued with hostile text, a numeric one, hostile class labels."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({
        HOSTILE[0]: rng.choice(HOSTILE[1:5], n),
        HOSTILE[5]: rng.choice(HOSTILE[5:], n),
        HOSTILE[1]: rng.normal(size=n).round(2),
        HOSTILE[3]: rng.choice(["\\N", "{x|y}", "<td>", '"q"'], n),
    })
    codes = (frame[HOSTILE[0]].map({v: i for i, v in enumerate(HOSTILE[1:5])}) + (frame[HOSTILE[1]] > 0)) % 4
    frame["=target"] = [HOSTILE_CLASSES[int(c)] for c in codes]
    return Dataset.from_frame(frame, target="=target", name="<b>hostile</b>.csv")


@pytest.fixture(scope="module")
def hostile():
    return hostile_dataset()


def test_hostile_data_loads_with_names_and_values_intact(hostile):
    assert hostile.feature_names == (HOSTILE[0], HOSTILE[5], HOSTILE[1], HOSTILE[3])
    assert set(hostile.categories[HOSTILE[0]]) == set(HOSTILE[1:5])
    assert set(hostile.classes) == set(HOSTILE_CLASSES)
    # and through a CSV file too (quoted cells, newline inside a quoted name)
    buf = io.StringIO()
    hostile.frame.to_csv(buf, index=False)
    again = load_csv(buf.getvalue().encode("utf-8"), target="=target")
    assert again.feature_names == hostile.feature_names
    assert set(again.classes) == set(hostile.classes)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("feature", range(4))
def test_hostile_text_is_literal_in_every_export(hostile, algorithm, feature):
    name = hostile.feature_names[feature]
    ds = hostile.with_features([name])
    config = engine.TreeConfig(algorithm=algorithm, max_depth=3)
    tree = engine.fit_tree(ds, config)
    assert tree.internal_nodes, "the feature should split"
    labels = every_export(tree, ds, config)
    text = "\n".join(labels)
    assert shown_in_dot(name) in text
    for node in tree.walk():
        if node.branch:
            assert shown_in_dot(node.branch) in text
        if node.is_leaf:
            assert f"class = {shown_in_dot(node.prediction)}" in text
    # the rules file names the classes literally, but no line may start a formula
    rules = text_safe(rules_text(tree))
    assert any(line.startswith("'=1+1 <=>") for line in rules.split("\n"))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.text(min_size=1, max_size=30).filter(lambda s: s.strip() and s.strip() == s),
       value=st.text(min_size=1, max_size=30).filter(lambda s: s.strip() and s.strip() == s))
def test_any_text_as_a_name_or_category_keeps_the_dot_valid(name, value):
    """Property: whatever a column or category is called, the DOT parses and draws exactly the tree."""
    other = value + "_other"
    frame = pd.DataFrame({name: [value, value, other, other, value, other],
                          "y": ["a", "a", "b", "b", "a", "b"]})
    try:
        ds = Dataset.from_frame(frame, target="y", kinds={name: "categorical"})
    except DataError:
        return  # e.g. a name the loader refuses; then there is nothing to draw
    tree = engine.fit_tree(ds, engine.TreeConfig(algorithm="id3"))
    labels = check_dot(tree, dot_source(tree))
    if tree.internal_nodes:  # (a value such as "-" or "NA" is read as missing: then nothing splits)
        joined = "\n".join(labels)
        assert shown_in_dot(name) in joined
        assert shown_in_dot(ds.categories[name][0]) in joined


def test_gain_table_csv_neutralises_formulas_but_keeps_numbers(hostile):
    table = gain_table(hostile, engine.TreeConfig(algorithm="id3"))
    rows = check_csv_safe(csv_bytes(table))
    header, body = rows[0], rows[1:]
    assert "feature" in header and len(body) == len(table)
    gains = [float(r[header.index("gain")]) for r in body]
    assert np.allclose(sorted(gains), sorted(table["gain"].astype(float)))
    # a negative number stays a number; text starting with '-' or '=' gets the apostrophe
    frame = pd.DataFrame({"value": [-1.5, 2.0], "text": ["-cmd|' /C calc'!A0", "=HYPERLINK(\"x\")"]})
    out = check_csv_safe(csv_bytes(frame))
    assert out[1] == ["-1.5", "'-cmd|' /C calc'!A0"] and out[2][1] == "'=HYPERLINK(\"x\")"


def test_text_safe_only_touches_formula_lines():
    text = "IF a = 1 THEN x\n=cmd <=> (a)\n-1 <=> (b)\n@x\n+y\nplain"
    assert text_safe(text) == "IF a = 1 THEN x\n'=cmd <=> (a)\n'-1 <=> (b)\n'@x\n'+y\nplain"


# ------------------------------------------------------------------------------------ a 200 MB file
@pytest.mark.slow
def test_a_200_mb_upload_is_refused_with_the_row_limit_sentence(tmp_path):
    """A 200 MB CSV (Streamlit's upload limit is 200 MB) holds more rows than the engine's limit:
    loading stops after ``max_rows + 1`` parsed rows and says so in a sentence."""
    path = tmp_path / "big.csv"
    rng = np.random.default_rng(0)
    block = "\n".join(f"{a:.5f},{b:.5f},{c:.5f},{d}" for a, b, c, d in
                      zip(rng.normal(size=10_000), rng.normal(size=10_000), rng.normal(size=10_000),
                          rng.choice(["yes", "no"], 10_000))) + "\n"
    with path.open("w") as fh:
        fh.write("a,b,c,label\n")
        while fh.tell() < 200 * 1024 * 1024:
            fh.write(block)
    size_mb = path.stat().st_size / 1024 / 1024
    assert size_mb >= 200
    with pytest.raises(DataError) as err:
        load_csv(path)
    msg = str(err.value)
    assert "more than 2,000,000 rows" in msg and msg.endswith(".")
