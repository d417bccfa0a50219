"""The app on big data: the split-search control, links carrying it, a 100k-row upload end to end."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from engine.config import TreeConfig
from ui.data import panels as panels
from ui.grow import settings as gs
from ui.classroom import share
from ui import state

GROW = "pages/grow.py"
APP = str(Path(__file__).resolve().parents[3] / "app.py")


def ok(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def status(at) -> str:
    lines = [m.value for m in at.markdown if m.value.startswith("**Step ")]
    assert lines, "no status line"
    return lines[0]


def grower(at):
    return at.session_state[state.GROWER]


@pytest.fixture
def grow(app_test):
    at = app_test(GROW)
    ok(at)
    return at


def synthetic_csv(n: int, d: int = 20, seed: int = 0) -> bytes:
    """Like ``benchmarks.bench_fit.make_data``: d numeric features, three classes from a noisy signal."""
    rng = np.random.default_rng(seed)
    X = (rng.normal(size=(n, d)) * 100).round(2)
    signal = X[:, 0] + X[:, 1] * X[:, 2] / 100 - np.abs(X[:, 3]) + rng.normal(scale=70, size=n)
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(d)])
    frame["y"] = np.array(["a", "b", "c"])[np.searchsorted(np.quantile(signal, [1 / 3, 2 / 3]), signal)]
    return frame.to_csv(index=False).encode()


# ------------------------------------------------------------------------------- pure helpers
def test_the_app_default_is_automatic_search(grow):
    assert grow.selectbox(key=gs.W_SEARCH).value == "auto"
    assert grower(grow).config.histogram_above_rows == 100_000
    # a textbook sample is far below the threshold: the tree uses exact search and says so
    assert grower(grow).config.split_search == "exact"
    assert "exact search" in status(grow)


def test_widget_values_round_trip_the_search_settings():
    cfg = TreeConfig(algorithm="c45", split_search="histogram", max_bins=32, histogram_above_rows=5_000)
    values = gs.widget_values(cfg)
    assert (values[gs.W_SEARCH], values[gs.W_BINS], values[gs.W_ABOVE]) == ("histogram", 32, 5_000)
    assert gs.config_from_widgets(values) == cfg
    # a number input may hand back floats: they become whole numbers
    values.update({gs.W_BINS: 16.0, gs.W_ABOVE: 1000.0})
    back = gs.config_from_widgets(values)
    assert (back.max_bins, back.histogram_above_rows) == (16, 1000)


def test_search_text_names_the_search_in_use():
    auto = TreeConfig(split_search="auto", histogram_above_rows=1_000, max_bins=64, max_depth=8)
    assert gs.search_text(auto, 500) == "exact search"
    hist = "histogram search, 64 bins: thresholds at bin edges, exact in nodes of at most 64 rows"
    assert gs.search_text(auto, 5_000) == hist
    assert gs.search_text(replace(auto, max_depth=None), 5_000) == hist     # at any depth
    assert gs.search_text(auto) == "automatic search (histogram above 1,000 rows)"
    assert gs.config_summary(TreeConfig(split_search="histogram"), "classification", 10).endswith(
        "histogram search, 255 bins: thresholds at bin edges, exact in nodes of at most 255 rows")
    assert "search" not in gs.config_summary(TreeConfig(), "classification")


# ------------------------------------------------------------------------------------ control
def test_the_control_changes_the_growers_search(grow):
    grow.selectbox(key=gs.W_SEARCH).set_value("histogram").run()
    ok(grow)
    assert grower(grow).config.split_search == "histogram"
    assert "histogram search, 255 bins: thresholds at bin edges" in status(grow)
    grow.number_input(key=gs.W_BINS).set_value(4).run()
    ok(grow)
    assert grower(grow).config.max_bins == 4 and "4 bins" in status(grow)
    grow.button(key="_w_grow_step").click().run()
    ok(grow)
    assert grower(grow).n_steps == 1
    # the inspector's gain table says it is at bin resolution
    assert any("bin resolution" in c.value for c in grow.caption)
    # more bins than the node's rows: the node is handed to the exact search, and the page says so
    n = len(grower(grow).dataset)
    grow.number_input(key=gs.W_BINS).set_value(n).run()
    ok(grow)
    assert not grower(grow).searches_histogram(0)
    assert any("hands this node to the exact search" in c.value for c in grow.caption)
    assert not any("bin resolution" in c.value for c in grow.caption)
    grow.selectbox(key=gs.W_SEARCH).set_value("exact").run()
    ok(grow)
    assert grower(grow).config.split_search == "exact" and "exact search" in status(grow)
    assert not any("bin resolution" in c.value for c in grow.caption)


def test_automatic_search_follows_the_row_threshold(grow):
    at = grow
    n = len(grower(at).dataset)
    at.number_input(key=gs.W_ABOVE).set_value(n - 1).run()     # full depth too
    ok(at)
    assert grower(at).config.split_search == "histogram" and "histogram search" in status(at)
    at.number_input(key=gs.W_ABOVE).set_value(n).run()
    ok(at)
    assert grower(at).config.split_search == "exact" and "exact search" in status(at)


def test_bad_bins_are_refused_by_the_widget_or_the_engine(grow):
    # the widget's bounds keep max bins in 2..65,535; the engine's sentence covers anything else
    with pytest.raises(Exception):
        TreeConfig(max_bins=1)
    assert grow.number_input(key=gs.W_BINS).min == 2 and grow.number_input(key=gs.W_BINS).max == 65_535


# -------------------------------------------------------------------------------------- links
def test_links_carry_the_search_settings():
    cfg = TreeConfig(algorithm="id3", split_search="histogram", max_bins=64, histogram_above_rows=50_000)
    text = share.encode_config(cfg)
    assert "search:histogram" in text and "bins:64" in text and "above:50000" in text
    assert share.decode_config(text) == cfg
    auto = TreeConfig(split_search="auto")
    assert share.decode_config(share.encode_config(auto)) == auto


def test_old_links_still_open_with_exact_search():
    # links made before the setting existed had exact search: they open the same tree
    cfg = share.decode_config("alg:id3,depth:3,order:depth")
    assert cfg == TreeConfig(algorithm="id3", max_depth=3, order="depth")
    assert cfg.split_search == "exact"
    assert share.encode_config(TreeConfig(algorithm="id3")) == "alg:id3"


def test_a_link_opens_with_its_search_and_the_page_link_keeps_it():
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"data": "ski", "cfg": "alg:cart,search:histogram,bins:8", "step": "2"})
    at.switch_page(GROW)
    at.run()
    ok(at)
    g = grower(at)
    assert (g.config.split_search, g.config.max_bins, g.n_steps) == ("histogram", 8, 2)
    assert at.selectbox(key=gs.W_SEARCH).value == "histogram" and at.number_input(key=gs.W_BINS).value == 8
    assert "search:histogram" in at.query_params["cfg"] and "bins:8" in at.query_params["cfg"]


# ------------------------------------------------------------------------------ 100k upload
def test_a_hundred_thousand_row_upload_works_end_to_end():
    at = AppTest.from_file(APP, default_timeout=300).run()
    at.switch_page("pages/data.py").run()
    at.file_uploader(key=panels.W_UPLOAD).set_value(("big.csv", synthetic_csv(100_000), "text/csv")).run()
    ok(at)
    ds = at.session_state[state.DATASET]
    assert len(ds) == 100_000 and len(ds.feature_names) == 20 and ds.classes == ("a", "b", "c")
    split = at.session_state[state.DATA_SPLIT]
    assert len(split.train) == 75_000 and len(split.test) == 25_000
    at.switch_page(GROW).run()
    ok(at)
    # 75,000 training rows: below the automatic threshold, so exact; forcing histogram works too
    assert grower(at).config.split_search == "exact"
    at.button(key="_w_grow_step").click().run()
    ok(at)
    assert grower(at).n_steps == 1 and grower(at).tree.n_nodes == 3
    at.selectbox(key=gs.W_SEARCH).set_value("histogram").run()
    ok(at)
    for _ in range(3):
        at.button(key="_w_grow_step").click().run()
        ok(at)
    g = grower(at)
    assert g.config.split_search == "histogram" and g.n_steps == 3 and g.tree.n_nodes == 7
    assert "histogram search, 255 bins" in status(at)
    # plots draw a sample (at most 20,000 points), never all 75,000 rows
    drawn = [len(trace.get("x") or ()) for c in at.get("plotly_chart")
             for trace in json.loads(c.proto.spec).get("data", [])]
    assert drawn and max(drawn) <= 20_000


# ------------------------------------------------------------------------------ upload stages
def _stages_script():
    import streamlit as st

    from ui.data import panels as panels
    from ui import state as st_state

    class Box:  # records what the st.status box would show
        def __init__(self):
            self.lines = []

        def write(self, text):
            self.lines.append(text)

    class Upload:  # the parts of Streamlit's UploadedFile the handler uses
        name, file_id = "stages.csv", "stages-1"

        def getvalue(self):
            return st.session_state["_csv"]

    box = Box()
    ds = panels.load_stages(Upload(), box)
    st.session_state["_stages"] = box.lines
    train = st_state.current_split().train
    st.session_state["_gathered_at_load"] = train._pending is None
    st.session_state["_train_x"] = train.X.shape
    st.write(f"{len(ds)} rows")


def test_an_upload_names_its_loading_stages():
    at = AppTest.from_function(_stages_script, default_timeout=60)
    at.session_state["_csv"] = synthetic_csv(400, d=4)
    at.run()
    ok(at)
    stages = [s.split(" ")[0] for s in at.session_state["_stages"]]
    assert stages == ["Reading", "Parsing", "Encoding", "Splitting"]
    # the training rows are gathered when a tree is first grown, not while loading
    assert at.session_state["_gathered_at_load"] is False
    assert at.session_state["_train_x"] == (300, 4)
    assert at.session_state[state.DATASET_NAME] == "stages.csv"



def test_the_data_pages_histogram_sends_bars_not_every_value_on_big_data():
    from engine.data.dataset import Dataset
    from ui.charts import MAX_RAW_VALUES, target_histogram_figure

    rng = np.random.default_rng(0)
    n = MAX_RAW_VALUES + 5_000
    ds = Dataset.from_frame(pd.DataFrame({"x": rng.normal(size=n), "y": rng.normal(size=n)}), target="y",
                            task="regression")
    fig = target_histogram_figure(ds, bins=30)
    bars = fig.data[0]
    assert bars.type == "bar" and len(bars.x) == 30 and int(np.sum(bars.y)) == n
    small = target_histogram_figure(ds.subset(np.arange(100)))
    assert small.data[0].type == "histogram" and len(small.data[0].x) == 100


def test_figures_get_the_white_template_without_revalidating_it():
    import plotly.graph_objects as go
    import plotly.io as pio

    from engine.viz.regions import TEMPLATE, new_figure

    slow = go.Figure(go.Bar(x=[1, 2], y=[3, 4])).update_layout(template=TEMPLATE, height=300)
    fast = new_figure(go.Bar(x=[1, 2], y=[3, 4])).update_layout(height=300)
    assert fast.to_plotly_json() == slow.to_plotly_json()
    # whatever default Streamlit (or anyone) sets, these figures stay on the white template
    saved = pio.templates.default
    try:
        pio.templates.default = "ggplot2"
        assert new_figure().layout.template == pio.templates[TEMPLATE]
    finally:
        pio.templates.default = saved
    # changing one figure's template never changes the registered template (or the next figure)
    fig = new_figure()
    fig.layout.template.layout.paper_bgcolor = "red"
    assert pio.templates[TEMPLATE].layout.paper_bgcolor == "white"
    assert new_figure().layout.template.layout.paper_bgcolor == "white"


def test_a_long_threshold_scan_draws_its_envelope_not_every_threshold():
    from engine.viz.figures import MAX_SCAN_POINTS, scan_points, threshold_scan_figure

    rng = np.random.default_rng(1)
    n = 50_000
    thr = np.sort(rng.normal(size=n))
    gain = np.abs(np.sin(thr * 3)) * 0.2 + rng.random(n) * 0.01
    gain[123] = np.nan  # an ineligible candidate
    best = int(np.nanargmax(gain))
    keep = scan_points(gain, best)
    assert keep.size <= MAX_SCAN_POINTS + 3 and best in keep and {0, n - 1} <= set(keep)
    # every slice keeps its highest and lowest score: the drawn curve has the same peaks and dips
    bounds = np.linspace(0, n, MAX_SCAN_POINTS // 2 + 1).astype(int)
    kept = set(keep.tolist())
    for a, b in zip(bounds[:-1], bounds[1:]):
        part = gain[a:b]
        assert a + int(np.nanargmax(part)) in kept and a + int(np.nanargmin(part)) in kept
    scan = pd.DataFrame({"feature": "x", "split": "", "threshold": thr, "gain": gain,
                         "n_left": np.arange(n), "n_right": n - np.arange(n)})
    fig = threshold_scan_figure(scan, chosen=float(thr[best]))
    curve = fig.data[0]
    rows = np.asarray(curve.customdata)[:, 0].astype(int)
    assert len(curve.x) == keep.size and np.array_equal(np.asarray(curve.x), thr[rows])
    assert any("50,000 thresholds" in a.text for a in fig.layout.annotations)
    # short scans are drawn whole, with markers
    small = threshold_scan_figure(scan.iloc[:300])
    assert len(small.data[0].x) == 300 and "markers" in small.data[0].mode
    assert np.array_equal(scan_points(gain[:300], 0), np.arange(300))


def test_streamlits_copy_of_an_uploaded_file_shares_its_bytes():
    """Streamlit deep-copies widget values on every run; a 150 MB upload must not be copied each time."""
    import copy

    from streamlit.proto.Common_pb2 import FileURLs
    from streamlit.runtime.uploaded_file_manager import UploadedFile, UploadedFileRec

    import ui.data.panels  # noqa: F401 - installs the sharing copy

    rec = UploadedFileRec(file_id="f1", name="big.csv", type="text/csv", data=b"a,b\n1,2\n" * 1000)
    upload = UploadedFile(rec, FileURLs())
    upload.read(3)
    clone = copy.deepcopy(upload)
    assert clone.getvalue() is rec.data and clone.tell() == 3
    assert (clone.name, clone.file_id, clone.size, type(clone)) == ("big.csv", "f1", 8000, UploadedFile)
    clone.write(b"zz")  # still an independent file object
    assert upload.getvalue() == rec.data and clone.getvalue()[:5] == b"a,bzz"
