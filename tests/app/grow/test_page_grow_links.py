"""AppTest of the Grow page's exports, tree import and shareable links (good and bad query params)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import onnxruntime
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from engine.tree.serialize import tree_from_json
from ui.data import panels as panels
from tests.app.tree_charts import tree_charts
from ui.grow import exports
from ui.grow import settings as gs
from ui.grow import inspector
from ui import state
from ui.widgets import md_escape

GROW = "pages/grow.py"
APP = str(Path(__file__).resolve().parents[3] / "app.py")
EXPORT_TAB = "Export & share"


def ok(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def open_link(**params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update(params)
    at.switch_page(GROW)
    return at.run()


def grower(at):
    return at.session_state[state.GROWER]


def open_tab(at, label):
    at.session_state["_w_grow_tab"] = label
    return at.run()


# -------------------------------------------------------------------------------------- exports
def test_gain_table_csv_is_written_on_click_and_holds_the_inspected_node(downloads):
    """The inspector's gain-table download is deferred (a callable, not bytes made on every Step);
    called, it gives the CSV of the inspected node's gain table, formulas neutralised."""
    at = open_link(data="ski", step="2")
    ok(at)
    button = next(d for d in at.get("download_button") if d.label == "Gain table (CSV)")
    assert button.proto.deferred_file_id and not button.proto.url
    node = at.session_state[state.SELECTED_NODE]
    made = downloads[f"ski_gain_node{node}.csv"]
    assert made == exports.csv_bytes(inspector.gain_table_view(grower(at).gain_table(node)))
    table = pd.read_csv(io.BytesIO(made), encoding="utf-8-sig")
    assert table.loc[table["best"] == "★", "feature"].tolist() == [grower(at).tree.node(node).split.feature]


def test_every_export_holds_the_tree(downloads):
    at = open_link(data="ski", step="3")
    ok(at)
    open_tab(at, EXPORT_TAB)
    ok(at)
    labels = [d.label for d in at.get("download_button")]
    assert labels[-6:] == ["Diagram (DOT)", "Rules (text)", "Tree (JSON)", "Tree (ONNX)", "Step log (CSV)",
                           "Save the lesson (.dtx)"]
    tree = grower(at).tree
    session = onnxruntime.InferenceSession(downloads["ski_tree.onnx"], providers=["CPUExecutionProvider"])
    label, proba = session.run(None, {"X": grower(at).dataset.X})
    assert list(label) == list(tree.predict(grower(at).dataset.X))
    np.testing.assert_allclose(proba, tree.predict_proba(grower(at).dataset.X), atol=1e-6)
    dot = downloads["ski_tree.dot"].decode()
    assert dot.startswith("digraph tree {") and dot.count("->") == tree.n_nodes - 1
    rules = downloads["ski_rules.txt"].decode()
    assert rules.count("IF ") == tree.n_leaves and "good <=> " in rules
    back = tree_from_json(downloads["ski_tree.json"])
    assert back.to_dict() == tree.to_dict()
    log = pd.read_csv(io.BytesIO(downloads["ski_steps.csv"]), encoding="utf-8-sig")
    assert list(log["step"]) == [1, 2, 3] and set(log["action"]) == {"split"}
    assert log.loc[0, "split"] == tree.root.split.describe()
    assert log.loc[0, "gain"] == pytest.approx(tree.root.split.gain)
    # no Graphviz binary on this machine: the SVG button is replaced by the sentence
    assert "ski_tree.svg" not in downloads
    assert any(c.value == exports.NO_SVG for c in at.caption)


def test_gain_table_csv_and_formula_cells_are_neutralised(downloads):
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page("pages/data.py").run()
    csv = (b"=cmd,+x,label\n" + b"\n".join(
        f"{'@a' if i % 2 else '-b'},{i},{'=yes' if i % 3 else 'no'}".encode() for i in range(30)) + b"\n")
    at.file_uploader(key=panels.W_UPLOAD).set_value(("evil.csv", csv, "text/csv")).run()
    at.switch_page(GROW).run()
    ok(at)
    at.button(key="_w_grow_step").click().run()
    ok(at)
    gain = downloads["evil_gain_node0.csv"].decode("utf-8-sig")
    assert "'=cmd" in gain and not any(line.startswith(("=", "+", "-", "@")) for line in gain.splitlines())
    open_tab(at, EXPORT_TAB)
    ok(at)
    log = downloads["evil_steps.csv"].decode("utf-8-sig")
    first = log.splitlines()[1].split(",")
    assert first[3].startswith("'") or first[3].startswith('"\'')  # split text starts with a feature name
    # an uploaded file cannot travel in a link: the page says so and clears our parameters
    assert any("cannot carry" in i.value for i in at.info)
    assert not set(at.query_params) & {"data", "cfg", "step"}


def test_import_tree_json_good_and_bad():
    at = open_link(data="play_tennis", step="4")
    open_tab(at, EXPORT_TAB)
    ok(at)
    good = json.dumps(grower(at).tree.to_dict()).encode()
    at.file_uploader(key=exports.W_IMPORT).set_value(("t.json", good, "application/json")).run()
    ok(at)
    assert any("Imported tree: 8 nodes, 5 leaves, depth 2" in c.value for c in at.caption)
    assert len(tree_charts(at)) == 2  # the tree grown and the imported one
    assert any("Outlook = Sunny AND Humidity = High" in c.value for c in at.code)
    at.file_uploader(key=exports.W_IMPORT).set_value(("t.json", b"{not json", "application/json")).run()
    assert not at.exception
    assert [e.value for e in at.error] == [md_escape("The tree file is not valid JSON; choose a file saved by this app.")]
    broken = json.loads(good)
    broken["nodes"][0]["children"] = [99]
    at.file_uploader(key=exports.W_IMPORT).set_value(
        ("t.json", json.dumps(broken).encode(), "application/json")).run()
    assert not at.exception and "damaged" in at.error[0].value


# ---------------------------------------------------------------------------------------- links
def test_a_link_opens_the_sample_at_step_n_with_its_settings():
    at = open_link(data="ski", cfg="alg:id3,depth:3,order:depth", step="4")
    ok(at)
    assert at.session_state[state.DATASET_NAME] == "ski"
    cfg = at.session_state[state.TREE_CONFIG]
    assert (cfg.algorithm, cfg.max_depth, cfg.order) == ("id3", 3, "depth")
    assert grower(at).n_steps == 4
    # widgets show the linked settings, and the sidebar the linked data set
    assert at.selectbox(key=gs.W_ALGO).value == "id3" and at.number_input(key=gs.W_DEPTH).value == 3
    assert any("ski" in m.value for m in at.sidebar.markdown)
    assert at.query_params["step"] == "4" and at.query_params["data"] == "ski"
    at.button(key="_w_grow_step").click().run()
    assert at.query_params["step"] == "5"
    open_tab(at, EXPORT_TAB)
    link = [c.value for c in at.code if "data=ski" in c.value][0]
    assert "cfg=alg:id3,depth:3,order:depth" in link and "step=5" in link


def test_link_with_split_and_seed():
    at = open_link(data="iris", split="0.3,0.1,7", step="1")
    ok(at)
    assert at.session_state[state.SPLIT_SETTINGS] == {"test_size": 0.3, "validation_size": 0.1, "seed": 7}
    assert at.session_state[state.SEED] == 7
    assert at.query_params["split"] == "0.3,0.1,7"


@pytest.mark.parametrize("params, warning", [
    ({"data": "no_such_sample"}, "not a bundled sample"),
    ({"data": "ski", "cfg": "alg:xgboost"}, "algorithm must be one of id3, c45, cart"),
    ({"data": "ski", "cfg": "depth:-3"}, "max_depth must be a whole number from 0 to 10,000"),
    ({"data": "ski", "cfg": "colour:blue"}, "not one this app knows"),
    ({"data": "ski", "cfg": "depth:deep"}, "cannot read"),
    ({"data": "ski", "step": "many"}, "step count"),
    ({"data": "ski", "step": "-2"}, "step count"),
    ({"data": "ski", "split": "half"}, "split could not be read"),
    ({"data": "ski", "split": "2,0,0"}, "split could not be read"),
    ({"data": "ski", "xy": "Month"}, "two features could not be read"),
    ({"data": "play_tennis", "xy": "Outlook,Wind"}, "not numeric features"),
    ({"data": "play_tennis", "cfg": "alg:id3,val:1", "step": "2"}, "do not fit this data set"),
])
def test_bad_link_parameters_fall_back_with_a_warning(params, warning):
    at = open_link(**params)
    assert not at.exception
    shown = [w.value.replace("\\", "") for w in at.warning]  # Markdown escapes removed
    assert any(warning in w for w in shown), shown
    ok(at)
    assert state.GROWER in at.session_state
    at.button(key="_w_grow_step").click().run()
    assert not at.exception


def test_link_is_read_only_once_per_session():
    at = open_link(data="ski", step="2")
    at.button(key="_w_grow_reset").click().run()
    ok(at)
    assert grower(at).n_steps == 0  # the link does not replay its steps again
    at.switch_page("pages/data.py").run()
    at.switch_page(GROW).run()
    ok(at)
    assert grower(at).n_steps == 0


def test_the_onnx_download_is_disabled_with_the_reason_for_a_one_class_tree(downloads):
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page("pages/data.py").run()
    csv = b"x,label\n" + b"\n".join(f"{i},same".encode() for i in range(20)) + b"\n"
    at.file_uploader(key=panels.W_UPLOAD).set_value(("one.csv", csv, "text/csv")).run()
    at.switch_page(GROW).run()
    open_tab(at, EXPORT_TAB)
    ok(at)
    button = next(d for d in at.get("download_button") if d.label == "Tree (ONNX)")
    assert button.proto.disabled and "only one class" in button.proto.help
    assert downloads.get("one_tree.onnx", b"") == b""          # no file is made for it
