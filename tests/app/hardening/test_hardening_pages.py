"""Hardening: hostile column names, category values, class labels and file names through every page.

A data set whose every name and value is Markdown, LaTeX, Streamlit colour syntax, a ``javascript:``
link, HTML, DOT syntax or a spreadsheet formula is made active, and every page is driven (steps,
tabs, methods, training). Then the whole element tree of each run is checked:

- no exception, no traceback, no error box (the data is valid, only its text is odd);
- every field Streamlit renders as Markdown (``st.markdown``/caption/alerts/headings, widget labels and
  tooltips, radio options, metric labels and values, tab and expander labels) holds the user text
  only escaped: no hostile token appears unescaped, so ``**x**`` is never bold, ``$x$`` never
  LaTeX and ``[a](javascript:...)`` never a link;
- Plotly figures never carry raw ``<tags>`` from the data (Plotly renders a subset of HTML);
- every Graphviz diagram parses with pydot and only has ``n<id>`` node names;
- the data itself is shown literally where it is data (``st.dataframe`` keeps the exact names).
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pydot
import pytest
from google.protobuf.json_format import MessageToDict
from streamlit.testing.v1 import AppTest

import engine
from ui import state

ROOT = Path(__file__).resolve().parents[3]
APP = str(ROOT / "app.py")

# Distinctive hostile tokens (unique, so the app's own Markdown never contains them by accident).
TOKENS = ["**hb1**", "$hx2$", ":red[hz3]", "](javascript:alert(4))", "<script>alert(6)</script>",
          "*hi5*", "_hu6_", "`hc7`", "<i>hi10</i>", "# hh8", "> hq9", ":material/bolt:"]
NAME = "<b>up</b> **hb1** $hx2$.csv"


def hostile_csv(n: int = 90) -> bytes:
    rng = np.random.default_rng(7)
    a = rng.choice(["*hi5*", "_hu6_", "`hc7`"], n)
    c = rng.choice(["<script>alert(6)</script>", "[hl4](javascript:alert(4))", "# hh8"], n)
    e = rng.choice(["> hq9", ":material/bolt:", "{x|y}", "<a href='javascript:alert(11)'>ha11</a>"], n)
    x = rng.normal(size=n).round(3)
    z = rng.integers(0, 50, n)
    label = np.where((a == "*hi5*") ^ (x > 0.3), "=1+1", np.where(c == "# hh8", "<i>hi10</i>", "@cmd"))
    frame = pd.DataFrame({"**hb1**": a, "$hx2$": x, ":red[hz3]": c, '"]; n0 -> n1 [': z,
                          "{}|<> [l](javascript:alert(4))": e, "=target": label})
    buf = io.StringIO()
    frame.to_csv(buf, index=False)
    return buf.getvalue().encode("utf-8")


@pytest.fixture(scope="module")
def hostile():
    ds = engine.load_csv(hostile_csv(), target="=target")
    assert set(ds.classes) == {"=1+1", "<i>hi10</i>", "@cmd"}
    return ds


def open_page(ds, page: str, *, grow: int | None = None, quiz: bool = False, **session) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=240)
    settings = {"test_size": 0.25, "validation_size": 0.2, "seed": 0}
    split = ds.split(**settings)
    values = {state.DATASET: ds, state.LOADED_DATASET: ds, state.DATASET_NAME: NAME,
              state.SPLIT_SETTINGS: settings, state.DATA_SPLIT: split, state.SEED: 0}
    if grow is not None:
        g = engine.Grower(split.train, engine.TreeConfig(algorithm="c45", max_depth=4),
                          validation_data=split.validation)
        g.grow(max_steps=grow) if grow else g.grow()
        values[state.GROWER] = g
        values[state.TREE_CONFIG] = engine.TreeConfig(algorithm="c45", max_depth=4)
    if quiz:
        values["quiz"] = True
    for key, value in {**values, **session}.items():
        at.session_state[key] = value
    at.switch_page(page)
    return at.run()


# ------------------------------------------------------------------------------ element checks
# Fields Streamlit renders as Markdown, by proto message type ("*" = every type).
MARKDOWN_FIELDS = {"*": {"label", "help"}, "Markdown": {"body"}, "Alert": {"body"},
                   "Heading": {"body"}, "Metric": {"body", "label", "help", "delta"},
                   "Radio": {"options", "captions"}, "Toast": {"body"}, "Tab": {"label"},
                   "Expandable": {"label"}, "Popover": {"label"}, "ButtonGroup": {"content"}}
PLAIN_TYPES = {"Text", "Code", "Dataframe", "Arrow", "GraphVizChart", "PlotlyChart", "DownloadButton",
               "Json", "Exception", "Html"}
_UNESCAPED = [re.compile(r"(?<!\\)" + re.escape(t)) for t in TOKENS]


def _strings(obj, path=()):
    """(field path, string) for every string inside a proto dict."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _strings(v, path + (k,))
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v, path)
    elif isinstance(obj, str):
        yield path, obj


def _nodes(node):
    yield node
    children = getattr(node, "children", None)
    if isinstance(children, dict):
        children = list(children.values())
    for child in children or []:
        yield from _nodes(child)


def check_page(at: AppTest, *, errors_ok: bool = False) -> dict:
    """Run every check of the module docstring on the current element tree; return a census."""
    assert not at.exception, [e.value for e in at.exception]
    if not errors_ok:
        assert not at.error, [e.value for e in at.error]
    census = {"markdown_fields": 0, "plotly": 0, "graphviz": 0, "tree": 0}
    for node in _nodes(at._tree):
        proto = getattr(node, "proto", None)
        if proto is None:
            continue
        kind = type(proto).__name__
        if kind == "PlotlyChart":
            census["plotly"] += 1
            spec = json.dumps(json.loads(proto.spec))
            for tag in ("<script>", "<i>hi10</i>", "<a href", "$hx2$"):
                assert tag not in spec, f"raw {tag!r} in a Plotly figure"
            census["tree"] += any(t.get("name") == "nodes" for t in json.loads(proto.spec).get("data", []))
            continue
        if kind == "GraphVizChart":
            census["graphviz"] += 1
            graphs = pydot.graph_from_dot_data(proto.spec)
            assert graphs and len(graphs) == 1
            names = {n.get_name() for n in graphs[0].get_nodes()} - {"node", "edge", "graph"}
            assert all(re.fullmatch(r"n\d+(_fold)?", n) for n in names), names
            continue
        if kind in PLAIN_TYPES:
            continue
        fields = MARKDOWN_FIELDS["*"] | MARKDOWN_FIELDS.get(kind, set())
        if kind == "Block":  # tabs, expanders, popovers live inside the block proto
            fields = fields | {"label"}
        for path, text in _strings(MessageToDict(proto, preserving_proto_field_name=True)):
            if not set(path) & fields:
                continue
            census["markdown_fields"] += 1
            assert "Traceback" not in text
            for pattern, token in zip(_UNESCAPED, TOKENS):
                assert not pattern.search(text), f"unescaped {token!r} in {kind}.{'.'.join(path)}: {text[:200]!r}"
    return census


def dataframe_columns(at) -> set[str]:
    return {str(c) for d in at.dataframe for c in d.value.columns}


# ---------------------------------------------------------------------------------------- pages
def test_data_page_shows_the_names_literally(hostile):
    at = open_page(hostile, "pages/data.py")
    census = check_page(at)
    assert census["markdown_fields"] > 20
    assert set(hostile.frame.columns) <= dataframe_columns(at)  # the preview keeps the exact names
    preview = at.dataframe[0].value
    assert set(preview["**hb1**"]) <= {"*hi5*", "_hu6_", "`hc7`"}


def test_data_page_upload_with_a_hostile_file_name(hostile):
    from ui.data import panels as panels

    at = AppTest.from_file(APP, default_timeout=240)
    at.run()
    at.switch_page("pages/data.py")
    at.run()
    at.file_uploader(key=panels.W_UPLOAD).set_value((NAME, hostile_csv(), "text/csv")).run()
    check_page(at)
    assert at.session_state[state.DATASET_NAME] == NAME
    # choose the hostile target through the target form
    at.selectbox(key=panels.W_TARGET).set_value("=target")
    [b for b in at.get("form_submit_button") if b.label == "Apply target"][0].click().run()
    check_page(at)
    assert at.session_state[state.DATASET].target == "=target"
    # kinds form with hostile column names (form values travel with the submit, as in a browser)
    at.multiselect(key=panels.W_KIND_COLUMNS).set_value(['"]; n0 -> n1 ['])
    at.radio(key=panels.W_KIND).set_value("categorical")
    [b for b in at.get("form_submit_button") if b.label == "Apply kinds"][0].click().run()
    check_page(at)
    assert at.session_state[state.DATASET].kind('"]; n0 -> n1 [') == "categorical"


def test_grow_page_every_tab_and_the_quiz(hostile):
    at = open_page(hostile, "pages/grow.py")
    check_page(at)
    for _ in range(3):
        at.button(key="_w_grow_step").click().run()
        check_page(at)
    seen = {"tree": 0, "plotly": 0}
    for tab in ("Inspect a node", "Step log", "Query point", "Export & share"):
        at.session_state["_w_grow_tab"] = tab
        at.run()
        census = check_page(at)
        seen = {k: seen[k] + census[k] for k in seen}
    assert seen["tree"] >= 4, seen
    quiz = open_page(hostile, "pages/grow.py", quiz=True)
    check_page(quiz)
    assert any(r.label == "Your guess" for r in quiz.radio), "the quiz offers the features as options"


def test_grow_page_inspector_on_every_node(hostile):
    at = open_page(hostile, "pages/grow.py", grow=0)
    at.session_state["_w_grow_tab"] = "Inspect a node"
    at.run()
    check_page(at)
    assert [s for s in at.selectbox if s.label == "Node"]
    tree = at.session_state[state.GROWER].tree
    for node in list(tree.walk())[:8]:
        [s for s in at.selectbox if s.label == "Node"][0].set_value(node.id).run()
        check_page(at)


@pytest.mark.parametrize("method", ["reduced_error", "cost_complexity", "pessimistic", "bottom_up", "manual"])
def test_prune_page_every_method(hostile, method):
    at = open_page(hostile, "pages/prune.py", grow=0)
    check_page(at)
    at.segmented_control(key="_w_prune_method").set_value(method).run()
    check_page(at)


@pytest.mark.parametrize("tab", ["Metrics", "Cross-validation", "Overfitting curve", "Learning curve",
                                 "Instability"])
def test_evaluate_page_every_tab(hostile, tab):
    at = open_page(hostile, "pages/evaluate.py", grow=0, **{"_w_eval_tab": tab})
    check_page(at)
    for button in [b for b in at.button if not b.proto.disabled][:2]:
        button.click().run()
        check_page(at)


def test_rules_page_every_tab(hostile):
    at = open_page(hostile, "pages/rules.py", grow=0, **{"_w_rules_tab": "Decision list"})
    check_page(at)
    for key in ("_w_dl_step", "_w_dl_step", "_w_dl_run"):
        if not at.button(key=key).proto.disabled:
            at.button(key=key).click().run()
            check_page(at, errors_ok=True)  # a decision list may fail to cover the rows: a sentence
    at.session_state["_w_rules_tab"] = "k-DT"
    at.run()
    at.button(key="_w_kdt_build").click().run()
    check_page(at, errors_ok=True)
    at.session_state["_w_rules_tab"] = "Tree as rules"
    at.run()
    check_page(at)


@pytest.mark.parametrize("method", ["random_forest", "adaboost"])
def test_ensembles_page_every_tab(hostile, method):
    from ui.ensembles import train as training

    at = open_page(hostile, "pages/ensembles.py", grow=0)
    check_page(at)
    at.segmented_control(key=training.W_METHOD).set_value(method).run()
    if method == "random_forest":
        at.session_state[f"{training.W_M}_{method}"] = 6
    else:
        at.session_state[training.W_ROUNDS] = 6
    at.button(key="_w_ens_train").click().run()
    check_page(at)
    result = at.session_state[training.RESULT]
    for tab in [t.label for t in at.tabs]:
        at.session_state["_w_ens_tab" + result["ensemble"].method] = tab
        at.run()
        check_page(at)


@pytest.mark.parametrize("page", ["pages/home.py", "pages/theory.py", "pages/lessons.py"])
def test_other_pages_with_hostile_data_active(hostile, page):
    at = open_page(hostile, page, grow=0)
    check_page(at)


def test_sidebar_shows_the_file_name_escaped(hostile):
    at = open_page(hostile, "pages/home.py")
    sidebar = [m.value for m in at.sidebar.markdown]
    assert any("Data set" in s and r"\*\*hb1\*\*" in s for s in sidebar), sidebar


def test_the_checker_catches_unescaped_markdown():
    """The check above must be able to fail: a page that writes user text raw is caught."""
    script = ("import streamlit as st\n"
              "st.caption('Column **hb1** and $hx2$')\n"
              "st.radio('pick', ['*hi5*', 'plain'])\n")
    at = AppTest.from_string(script).run()
    with pytest.raises(AssertionError, match="unescaped"):
        check_page(at)
    safe = AppTest.from_string("import streamlit as st\nfrom ui.widgets import md_escape\n"
                               "st.caption(md_escape('Column **hb1** and $hx2$'))\n"
                               "st.text('**hb1** stays text here')\n").run()
    check_page(safe)
