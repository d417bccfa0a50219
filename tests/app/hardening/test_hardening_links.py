"""Hardening round 2 in AppTest: user text that would become a link, an image or a 100 kB warning.

Streamlit's Markdown turns ``![c](http://host/x.png)`` into an image every viewer's browser fetches,
``[x](javascript:...)`` into a link, and (even after backslash escaping) any bare ``http://...``,
``www.x`` or ``a@b.c`` into a live link. A data set whose class labels, feature names and values are
such text is driven through every page (steps, step log, inspector, query, C4.5 pruning, evaluation,
a random forest and AdaBoost), and every field Streamlit renders as Markdown is checked: no live
``](``, no ``<img``, no bare ``http://``/``www.``/``name@host``, nothing longer than a few thousand
characters. Share links: a phishing sentence or a 100 kB ``cfg`` gives a short warning without a
link, and settings that are valid alone but wrong for the data fall back to the defaults.
"""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pandas as pd
import pytest
from google.protobuf.json_format import MessageToDict
from streamlit.testing.v1 import AppTest

import engine
from tests.app.tree_charts import tree_charts
from tests.app.hardening.test_hardening_pages import APP, MARKDOWN_FIELDS, PLAIN_TYPES, _nodes, _strings
from ui import state

CLASSES = ["![hc](http://127.0.0.1:9/img.png)", "[hl](javascript:alert(1))", "see https://phish.example/login"]
LONG = "L" * 10_000
LIVE = [re.compile(p) for p in (r"(?<!\\)\](?<!\\)\(", r"(?<!\\)<img", r"(?i)https?\\?:\\?/",
                                r"(?i)www\\?\.", r"@[A-Za-z0-9]")]
MAX_FIELD = 3_000


def link_csv(n: int = 120) -> bytes:
    rng = np.random.default_rng(3)
    x = rng.normal(size=n).round(3)
    w = rng.normal(size=n).round(3)
    cat = rng.choice(["http://127.0.0.1:9/v", "www.evil.example", "mail a@b.co"], n)
    y = np.where(x > 0.4, CLASSES[0], np.where(cat == "www.evil.example", CLASSES[1], CLASSES[2]))
    frame = pd.DataFrame({"www.evil.example": x, LONG: w, "a@b.co http://127.0.0.1:9/c": cat, "label": y})
    buf = io.StringIO()
    frame.to_csv(buf, index=False)
    return buf.getvalue().encode()


@pytest.fixture(scope="module")
def linky():
    ds = engine.load_csv(link_csv(), target="label")
    assert set(ds.classes) == set(CLASSES)
    return ds


def open_page(ds, page: str, **session) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=240)
    settings = {"test_size": 0.25, "validation_size": 0.2, "seed": 0}
    split = ds.split(**settings)
    cfg = engine.TreeConfig(algorithm="c45", max_depth=4)
    grower = engine.Grower(split.train, cfg, validation_data=split.validation)
    grower.grow()
    values = {state.DATASET: ds, state.LOADED_DATASET: ds, state.DATASET_NAME: "www.evil.example http://h/x.csv",
              state.SPLIT_SETTINGS: settings, state.DATA_SPLIT: split, state.SEED: 0,
              state.GROWER: grower, state.TREE_CONFIG: cfg}
    for key, value in {**values, **session}.items():
        at.session_state[key] = value
    at.switch_page(page)
    return at.run()


def markdown_texts(at: AppTest):
    for node in _nodes(at._tree):
        proto = getattr(node, "proto", None)
        if proto is None or type(proto).__name__ in PLAIN_TYPES:
            continue
        kind = type(proto).__name__
        fields = MARKDOWN_FIELDS["*"] | MARKDOWN_FIELDS.get(kind, set()) | ({"label"} if kind == "Block" else set())
        for path, text in _strings(MessageToDict(proto, preserving_proto_field_name=True)):
            if set(path) & fields:
                yield f"{kind}.{'.'.join(path)}", text


def check(at: AppTest, *, errors_ok: bool = False) -> int:
    assert not at.exception, [e.value for e in at.exception]
    if not errors_ok:
        assert not at.error, [e.value for e in at.error]
    seen = 0
    for where, text in markdown_texts(at):
        seen += 1
        for pattern in LIVE:
            assert not pattern.search(text), f"live {pattern.pattern!r} in {where}: {text[:300]!r}"
        assert len(text) <= MAX_FIELD, f"{len(text):,} characters in {where}"
    for node in _nodes(at._tree):  # Plotly notes and titles: the 10,000-character name is shortened
        proto = getattr(node, "proto", None)
        if type(proto).__name__ == "PlotlyChart":
            layout = json.loads(proto.spec).get("layout", {})
            for note in layout.get("annotations", []):
                assert len(note.get("text", "")) < MAX_FIELD, f"a {len(note['text']):,}-character figure note"
    return seen


def test_the_check_can_fail():
    at = AppTest.from_string("import streamlit as st\nst.caption('Member 1 predicts ![c](http://127.0.0.1:9/x.png)')\n"
                             "st.info('sign in at https://phish.example')\n").run()
    with pytest.raises(AssertionError, match="live"):
        check(at)


def test_data_page_classes_caption_and_preview(linky):
    at = open_page(linky, "pages/data.py")
    assert check(at) > 10
    at.session_state["_w_data_tab"] = "Target"
    at.run()
    check(at)


def test_grow_page_steps_log_inspector_and_query(linky):
    at = open_page(linky, "pages/grow.py", **{state.GROWER: None})
    at.session_state[state.GROWER] = None
    for _ in range(3):
        at.button(key="_w_grow_step").click().run()
        check(at)
    for tab in ("Inspect a node", "Step log", "Query point", "Export & share"):
        at.session_state["_w_grow_tab"] = tab
        at.run()
        check(at)


def test_prune_page_c45_table(linky):
    at = open_page(linky, "pages/prune.py")
    at.segmented_control(key="_w_prune_method").set_value("pessimistic").run()
    check(at)


@pytest.mark.parametrize("tab", ["Metrics", "Instability"])
def test_evaluate_page(linky, tab):
    at = open_page(linky, "pages/evaluate.py", **{"_w_eval_tab": tab})
    check(at)
    for button in [b for b in at.button if not b.proto.disabled][:1]:
        button.click().run()
        check(at)


@pytest.mark.parametrize("method", ["random_forest", "adaboost"])
def test_ensembles_vote_members_and_rounds(linky, method):
    from ui.ensembles import train as training

    at = open_page(linky, "pages/ensembles.py")
    at.segmented_control(key=training.W_METHOD).set_value(method).run()
    if method == "random_forest":
        at.session_state[f"{training.W_M}_{method}"] = 5
    else:
        at.session_state[training.W_ROUNDS] = 5
    at.button(key="_w_ens_train").click().run()
    check(at)
    ens = at.session_state[training.RESULT]["ensemble"]
    seen = 0
    for tab in [t.label for t in at.tabs]:
        at.session_state["_w_ens_tab" + ens.method] = tab
        at.run()
        seen += check(at)
    assert seen > 40


def test_a_big_upload_shows_its_file_name_escaped_in_the_status_label():
    from ui.data import panels

    name = "**big** ![i](http://127.0.0.1:9/n.png) www.x.org.csv"
    body = b"a,b,label\n" + b"".join(b"%d,%d,%s\n" % (i, i % 7, b"yn"[i % 2:i % 2 + 1]) for i in range(700_000))
    assert len(body) > panels.BIG_UPLOAD_BYTES
    at = AppTest.from_file(APP, default_timeout=240)
    at.switch_page("pages/data.py")
    at.run()
    at.file_uploader(key=panels.W_UPLOAD).set_value((name, body, "text/csv")).run()
    labels = [t for w, t in markdown_texts(at) if w.endswith("label") and "big" in t]
    assert labels, "the status box names the file"
    check(at)


# ------------------------------------------------------------------------------------ share links
def open_link(**params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(params)
    at.switch_page("pages/grow.py")
    return at.run()


@pytest.mark.parametrize("cfg", ["Your session expired - sign in again at https://phish.example/login",
                                 "alg:cart,x:" + "https://phish.example/" * 5_000], ids=["phishing", "100kB"])
def test_a_share_link_warning_is_short_and_has_no_link(cfg):
    at = open_link(data="ski", cfg=cfg)
    check(at)
    warnings = [w.value for w in at.warning]
    assert warnings and any("settings" in w for w in warnings), warnings
    assert all(len(w) < 600 for w in warnings), [len(w) for w in warnings]


@pytest.mark.parametrize("cfg", ["alg:cart,crit:variance", "val:1"])
def test_settings_wrong_for_the_data_fall_back_to_the_defaults(cfg):
    at = open_link(data="ski", cfg=cfg, step="2")
    check(at)  # no red error box: a warning and a tree
    assert any("do not fit this data set" in w.value for w in at.warning), [w.value for w in at.warning]
    assert at.session_state[state.GROWER] is not None and tree_charts(at)
    assert at.session_state[state.TREE_CONFIG] is None  # the data set's defaults
    for page in ("pages/evaluate.py", "pages/ensembles.py"):
        at.switch_page(page)
        at.run()
        check(at)


# ---------------------------------------------------------------- huge settings and repeated keys
@pytest.mark.parametrize("params, words", [
    ({"cfg": "alg:cart,mss:100000000000"}, "min_samples_split must be a whole number from 2 to 1,000,000,000"),
    ({"cfg": "alg:cart,msl:100000000000"}, "min_samples_leaf must be a whole number from 1 to 1,000,000,000"),
    ({"cfg": "alg:cart,depth:99999999"}, "max_depth must be a whole number from 0 to 10,000"),
    ({"cfg": "alg:cart,leaves:10000000000000"}, "max_leaf_nodes must be a whole number from 2"),
    ({"cfg": "alg:cart,search:auto,above:100000000000"}, "histogram_above_rows must be a whole number"),
    ({"cfg": "alg:cart,depth:3,depth:5"}, "gives the setting 'depth' more than once"),
    ({"split": "0.2,0,100000000000000"}, "a seed from 0 to 2,147,483,647"),
    ({"split": "0.99,0,1"}, "a test share from 0 to 0.5"),
    ({"split": "0.2,0.9,1"}, "a validation share from 0 to 0.4"),
    ({"split": "0.2,nan,1"}, "the default split is used"),
], ids=["mss", "msl", "depth", "leaves", "above", "twice-in-cfg", "seed", "test", "validation", "nan"])
def test_huge_settings_in_a_link_are_refused_with_a_warning(params, words):
    """A link holds the limits of the widgets it stands for: past them, the piece is dropped with a sentence."""
    from ui.classroom.share import default_split

    at = open_link(data="ski", step="2", **params)
    check(at)
    warnings = [w.value.replace("\\", "") for w in at.warning]
    assert any(words in w for w in warnings), warnings
    if "cfg" in params:
        assert at.session_state[state.TREE_CONFIG] is None  # the data set's defaults
    else:
        settings = at.session_state[state.SPLIT_SETTINGS]
        assert (settings["test_size"], settings["validation_size"], settings["seed"]) == default_split("ski")
    assert at.session_state[state.GROWER].n_steps == 2 or "cfg" in params
    for page in ("pages/data.py", "pages/grow.py"):  # the widgets can show what was kept
        at.switch_page(page)
        check(at.run())


def test_a_parameter_given_twice_is_read_once_with_a_warning():
    at = open_link(data="ski", step=["1", "3"], split=["0.2,0,3", "0.3,0,4"])
    check(at)
    warnings = [w.value.replace("\\", "") for w in at.warning]
    assert any("gives split, step more than once; the last of each is used" in w for w in warnings), warnings
    assert at.session_state[state.GROWER].n_steps == 3
    assert at.session_state[state.SPLIT_SETTINGS]["seed"] == 4


def test_the_widgets_and_the_links_share_their_limits():
    """One place for the limits: the Grow page's inputs and the Data page's split form stop where a link does."""
    from engine.config import INT_LIMITS
    from ui.data import panels
    from ui.grow import settings as gs

    at = open_link(data="ski")
    at.session_state[gs.P + "settings_box"] = True
    check(at.run())
    for key, name in ((gs.W_DEPTH, "max_depth"), (gs.W_MSS, "min_samples_split"), (gs.W_MSL, "min_samples_leaf"),
                      (gs.W_LEAVES, "max_leaf_nodes"), (gs.W_BINS, "max_bins"), (gs.W_ABOVE, "histogram_above_rows")):
        box = at.number_input(key=key).proto
        assert (box.min, box.max) == INT_LIMITS[name], name
    at.switch_page("pages/data.py")
    check(at.run())
    assert at.slider(key=panels.W_TEST).max == state.MAX_TEST_SIZE
    assert at.slider(key=panels.W_VALIDATION).max == state.MAX_VALIDATION_SIZE
    assert at.number_input(key=panels.W_SPLIT_SEED).max == state.MAX_SEED


def test_bundled_lessons_stay_within_the_limits():
    """A lesson link loads a split the Data page can show (its sliders stop at the same limits)."""
    from ui.classroom.lessons import LESSONS
    from ui.classroom.share import _split

    for lesson in LESSONS:
        if lesson.split is not None:
            assert _split(",".join(str(v) for v in lesson.split)) == tuple(lesson.split), lesson.slug
