"""Hardening: no Plotly figure of any page carries user text as Plotly markup.

Plotly draws its text (tick labels, category axis values, legend entries, titles, hover text and
hover templates with the values they pull in, annotations, ``text``, colour-bar titles) through a
subset of HTML: ``<a href>`` becomes a real link, ``<b>``/``<i>``/``<span style>`` apply, entities
are decoded. So every user string must reach a figure through ``engine.viz.text.escape``.

A data set whose column names, category values and class labels are links, tags, ``<img onerror>``,
entities, ``%{...}`` and ``$...$`` is made active, every page that draws a figure is driven (Data,
Grow with the region plot, the fit plot and the inspector, Prune's methods, every Evaluate tab, Rules,
Theory, Ensembles: forest and AdaBoost, vote, members, decision map, importances), and every string
of every ``plotly_chart`` spec is scanned (recursively: trace values and categories, tick texts,
hover templates, customdata, annotations, titles) for a ``<`` that is not one of the app's own tags.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

import engine
from ui import state

ROOT = Path(__file__).resolve().parents[3]
APP = str(ROOT / "app.py")

LINK = '<a href="http://127.0.0.1:8799/pa">pa</a>'
IMG = "<img src=x onerror=alert(3)>"
# column names and values: each hostile, each distinct (so a raw one is recognised)
COLS = {"cat": LINK, "num1": "<b>hb1</b> x", "num2": IMG + " y", "cat2": "&lt;c&gt; %{x} $t$",
        "target": "<sup>tg</sup> %{y} $y$"}
CAT = [f'<a href="http://127.0.0.1:8799/v{i}">v{i}</a>' for i in range(2)] + ["<b>hb2</b>"]
CAT2 = ["<i>hi4</i>", "<img src=x onerror=alert(5)>", '<span style="color:red">hs6</span>', "&lt;hl7"]
CLASSES = ['<a href="http://127.0.0.1:8799/c1">c1</a>', "<b>c2</b>", "&lt;c3 $c$ %{y}"]

# The app's own markup in its figures (line breaks, hover boxes, small notes, the quiz's mark).
OWN_TAGS = re.compile(r"</?(br|extra|sup|sub|b|i)\s*/?>")
# User text that must never appear raw (the app's own tags are stripped before the "<" check, so a
# raw <b>/<i>/<sup> from the data is caught here), nor escaped twice.
RAW = ["<b>hb1</b>", "<b>hb2</b>", "<b>c2</b>", "<i>hi4</i>", "<sup>tg</sup>", "&lt;hl7", "&lt;c3",
       "&lt;c&gt;", "%{x} $t$", "$t$", "$c$", "$y$"]
TWICE = ["&amp;lt;b&amp;gt;", "&amp;amp;", "&amp;lt;a "]


def hostile_frame(n: int = 120, *, regression: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    cat = rng.choice(CAT, n)
    cat2 = rng.choice(CAT2, n)
    x1 = rng.normal(size=n).round(3)
    x2 = rng.normal(size=n).round(3)
    if regression:
        y = (3 * x1 + (cat == CAT[0]) * 2 + rng.normal(scale=0.3, size=n)).round(3)
    else:
        y = np.where(x1 > 0.2, CLASSES[0], np.where(cat2 == CAT2[0], CLASSES[1], CLASSES[2]))
    return pd.DataFrame({COLS["cat"]: cat, COLS["num1"]: x1, COLS["num2"]: x2, COLS["cat2"]: cat2,
                         COLS["target"]: y})


def hostile_csv(**kw) -> bytes:
    buf = io.StringIO()
    hostile_frame(**kw).to_csv(buf, index=False)
    return buf.getvalue().encode("utf-8")


@pytest.fixture(scope="module")
def hostile():
    ds = engine.load_csv(hostile_csv(), target=COLS["target"])
    assert ds.task == "classification" and set(ds.classes) == set(CLASSES)
    assert ds.kind(COLS["cat"]) == "categorical" and ds.kind(COLS["num1"]) == "numeric"
    return ds


@pytest.fixture(scope="module")
def hostile_regression():
    ds = engine.load_csv(hostile_csv(regression=True), target=COLS["target"])
    assert ds.task == "regression"
    return ds


def open_page(ds, page: str, *, grow: int | None = None, **session) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    settings = {"test_size": 0.25, "validation_size": 0.2, "seed": 0}
    values = {state.DATASET: ds, state.LOADED_DATASET: ds, state.DATASET_NAME: "hostile.csv",
              state.SPLIT_SETTINGS: settings, state.DATA_SPLIT: ds.split(**settings), state.SEED: 0}
    if grow is not None:
        split = values[state.DATA_SPLIT]
        cfg = engine.TreeConfig(algorithm="cart", max_depth=4)
        g = engine.Grower(split.train, cfg, validation_data=split.validation)
        g.grow(max_steps=grow) if grow else g.grow()
        values[state.GROWER], values[state.TREE_CONFIG] = g, cfg
    for key, value in {**values, **session}.items():
        at.session_state[key] = value
    at.switch_page(page)
    return at.run()


# ----------------------------------------------------------------------------------- the scan
def _strings(obj, path=()):
    """(path, string) of every string in a Plotly spec (dict keys are names, not text: skipped)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _strings(v, path + (str(k),))
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v, path)
    elif isinstance(obj, str):
        yield path, obj


def unescaped(spec: dict) -> list[str]:
    """What in a figure's spec would Plotly draw as markup from user text (empty: nothing)."""
    bad = []
    for path, text in _strings(spec):
        where = ".".join(path)
        rest = OWN_TAGS.sub("", text)
        if "<" in rest:
            bad.append(f"'<' in {where}: {text[:160]!r}")
        bad += [f"raw {t!r} in {where}: {text[:160]!r}" for t in RAW if t in text]
        bad += [f"escaped twice {t!r} in {where}: {text[:160]!r}" for t in TWICE if t in text]
    return bad


class Charts:
    """Every Plotly chart seen while driving the pages, by key; each checked as it is seen."""

    def __init__(self):
        self.keys: set[str] = set()
        self.problems: list[str] = []

    def check(self, at: AppTest, *, errors_ok: bool = False) -> AppTest:
        assert not at.exception, [e.value for e in at.exception]
        if not errors_ok:
            assert not at.error, [e.value for e in at.error]
        for chart in at.get("plotly_chart"):
            key = (chart.proto.id or "").rsplit("-", 1)[-1]
            self.keys.add(key)
            self.problems += [f"{key}: {p}" for p in unescaped(json.loads(chart.proto.spec))]
        return at


def test_the_scan_catches_raw_user_text():
    """The scan must be able to fail: raw tags, raw entities and twice-escaped text are all caught."""
    assert unescaped({"data": [{"x": [LINK], "hovertemplate": "%{x}<br>n<extra></extra>"}]})
    assert unescaped({"layout": {"title": {"text": "<b>hb1</b> x"}}})
    assert unescaped({"data": [{"customdata": [["&lt;hl7"]]}]})
    assert unescaped({"layout": {"xaxis": {"ticktext": ["&amp;lt;b&amp;gt;hb2"]}}})
    from engine.viz.text import escape
    ok = {"data": [{"x": [escape(v) for v in CAT + CAT2 + CLASSES], "name": escape(COLS["cat2"]),
                    "hovertemplate": f"{escape(IMG)} = %{{x}}<br>row<extra>{escape(CLASSES[1])}</extra>"}],
          "layout": {"title": {"text": "note<br><sup>small</sup>"}}}
    assert unescaped(ok) == []


def test_escape_covers_plotly_markup():
    from engine.viz.text import escape
    assert escape("<a href='x'>&amp;</a>") == "&lt;a href='x'&gt;&amp;amp;&lt;/a&gt;"
    assert "%{" not in escape("%{x}") and "$" not in escape("$t$") and "\n" not in escape("a\nb")


def _grow_page(ds, charts: Charts) -> None:
    at = charts.check(open_page(ds, "pages/grow.py"))
    for _ in range(3):
        charts.check(at.button(key="_w_grow_step").click().run())
    for tab in ("Inspect a node", "Step log", "Query point", "Export & share"):
        at.session_state["_w_grow_tab"] = tab
        charts.check(at.run())
    at.session_state["_w_grow_tab"] = "Inspect a node"
    at.run()
    tree = at.session_state[state.GROWER].tree
    for node in list(tree.walk())[:4]:
        charts.check([s for s in at.selectbox if s.label == "Node"][0].set_value(node.id).run())
        boxes = [s for s in at.selectbox if s.label == "Explain the candidate split on"]
        for feature in boxes[0].options if boxes else []:
            box = [s for s in at.selectbox if s.label == "Explain the candidate split on"][0]
            charts.check(box.set_value(feature).run())


def test_every_figure_of_every_page_escapes_user_text(hostile, hostile_regression):
    from ui.ensembles import train as training

    charts = Charts()
    charts.check(open_page(hostile, "pages/data.py"))
    charts.check(open_page(hostile_regression, "pages/data.py"))
    _grow_page(hostile, charts)
    at = charts.check(open_page(hostile_regression, "pages/grow.py", grow=0))
    charts.check(at.radio(key="_w_grow_view").set_value("Prediction along one feature").run())
    for feature in [s for s in at.selectbox if s.label == "Feature"][0].options:  # the fit plot
        charts.check([s for s in at.selectbox if s.label == "Feature"][0].set_value(feature).run())
    for method in ("reduced_error", "cost_complexity", "pessimistic", "bottom_up", "manual"):
        at = open_page(hostile, "pages/prune.py", grow=0)
        charts.check(at.segmented_control(key="_w_prune_method").set_value(method).run())
        for button in [b for b in at.button if not b.proto.disabled and "cv" in (b.proto.id or "")][:1]:
            charts.check(button.click().run())
    for ds in (hostile, hostile_regression):
        for tab in ("Metrics", "Cross-validation", "Overfitting curve", "Learning curve", "Instability"):
            at = charts.check(open_page(ds, "pages/evaluate.py", grow=0, **{"_w_eval_tab": tab}))
            for button in [b for b in at.button if not b.proto.disabled][:2]:
                charts.check(button.click().run())
    at = charts.check(open_page(hostile, "pages/rules.py", grow=0, **{"_w_rules_tab": "Decision list"}))
    charts.check(at.button(key="_w_dl_run").click().run(), errors_ok=True)
    at.session_state["_w_rules_tab"] = "k-DT"
    charts.check(at.run())
    charts.check(at.button(key="_w_kdt_build").click().run(), errors_ok=True)
    at.session_state["_w_rules_tab"] = "Tree as rules"
    charts.check(at.run())
    charts.check(open_page(hostile, "pages/theory.py", grow=0))
    for ds, method in ((hostile, "random_forest"), (hostile, "adaboost"), (hostile_regression, "random_forest")):
        at = charts.check(open_page(ds, "pages/ensembles.py", grow=0))
        at.segmented_control(key=training.W_METHOD).set_value(method).run()
        if method == "random_forest":
            at.session_state[f"{training.W_M}_{method}"] = 6
        else:
            at.session_state[training.W_ROUNDS] = 6
        charts.check(at.button(key="_w_ens_train").click().run())
        result = at.session_state[training.RESULT]
        for tab in [t.label for t in at.tabs]:
            at.session_state["_w_ens_tab" + result["ensemble"].method] = tab
            charts.check(at.run())
            for button in [b for b in at.button if not b.proto.disabled and "perm" in (b.proto.id or "")]:
                charts.check(button.click().run())
    # every figure the pages build was seen (the tree diagrams are checked too, under their own keys)
    wanted = {"data_target_chart", "grow_regions", "grow_fit", "grow_class_dist", "grow_scan", "prune_path_chart",
              "eval_fig_test", "eval_cv_chart", "eval_curve_chart", "eval_inst_chart", "theory_gains",
              "ens_vote_chart", "ens_map", "ens_size_curve", "ens_importance", "ens_rounds_chart", "ens_inbag"}
    assert wanted <= charts.keys, sorted(wanted - charts.keys)
    assert not charts.problems, "\n".join(sorted(set(charts.problems))[:60])
