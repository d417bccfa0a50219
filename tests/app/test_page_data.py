"""AppTest of the Data page: samples, uploads (good and bad), kinds, target, task, split, charts."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

from engine.data.dataset import SAMPLES, load_sample
from ui.data import panels as panels
from ui import state

DATA_PAGE = "pages/data.py"

GOOD_CSV = (b"colour;size;weight;label\n"
            b"red;1,5;10;yes\nblue;2,5;12;no\nred;3,0;;yes\ngreen;1,0;9;no\n"
            b"blue;2,0;11;no\nred;2,2;13;yes\ngreen;?;8;yes\nblue;3,1;14;no\n")


@pytest.fixture
def data_page(app_test):
    at = app_test(DATA_PAGE)
    assert not at.exception and not at.error
    return at


def button(at, label):
    matches = [b for b in list(at.button) + list(at.get("form_submit_button")) if b.label == label]
    assert matches, f"no button {label!r}"
    return matches[0]


def submit(at, label):
    matches = [b for b in at.form_submit_button if b.label == label]
    assert matches, f"no form button {label!r}"
    matches[0].click().run()
    return at


def ok(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def active(at):
    return at.session_state[state.DATASET]


def chart_spec(at, key="data_target_chart") -> dict:
    for chart in at.get("plotly_chart"):
        if key in chart.proto.id:
            return json.loads(chart.proto.spec)
    raise AssertionError(f"no chart {key}")


def values(arr) -> np.ndarray:
    if isinstance(arr, dict) and "bdata" in arr:  # plotly's base64 typed arrays
        return np.frombuffer(base64.b64decode(arr["bdata"]), dtype=np.dtype(arr["dtype"]))
    return np.asarray(arr)


def upload(at, name, data, mime="text/csv"):
    at.file_uploader(key=panels.W_UPLOAD).set_value((name, data, mime)).run()
    return at


# ------------------------------------------------------------------------------------ rendering
def test_page_shows_the_default_data(data_page):
    at = data_page
    assert at.title[0].value == "Data"
    assert [t.label for t in at.tabs] == ["Preview", "Columns", "Target", "Train / test split"]
    preview = at.dataframe[0].value
    assert list(preview.columns) == list(active(at).frame.columns)
    assert len(preview) == 14
    summary = at.dataframe[1].value
    assert set(summary["column"]) == set(active(at).frame.columns)
    assert summary.set_index("column").loc["Play", "role"] == "target"
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Rows"] == "14" and metrics["Task"] == "classification"


def test_class_balance_chart_counts_every_row(data_page):
    spec = chart_spec(data_page)
    bar = spec["data"][0]
    assert bar["type"] == "bar"
    counts = dict(zip(bar["x"], values(bar["y"]).tolist()))
    assert counts == {"No": 5, "Yes": 9}


# -------------------------------------------------------------------------------------- samples
@pytest.mark.parametrize("name", list(SAMPLES))
def test_every_sample_loads(data_page, name):
    at = data_page
    at.session_state[state.GROWER] = object()  # a tree in progress
    at.selectbox(key=panels.W_SAMPLE).set_value(name).run()
    button(at, "Use this sample").click().run()
    ok(at)
    assert at.session_state[state.DATASET_NAME] == name
    expected = load_sample(name)
    assert len(active(at)) == len(expected) and active(at).target == expected.target
    assert state.GROWER not in at.session_state
    assert any("The tree was reset" in s.value for s in at.success)
    split = at.session_state[state.DATA_SPLIT]
    parts = [split.train, split.validation, split.test]
    assert sum(0 if p is None else len(p) for p in parts) == len(expected)
    # the target picture fits the task
    kind = chart_spec(at)["data"][0]["type"]
    assert kind == ("bar" if expected.task == "classification" else "histogram")


# -------------------------------------------------------------------------------------- uploads
def test_good_upload_becomes_the_active_data(data_page):
    at = upload(data_page, "shop.csv", GOOD_CSV)
    ok(at)
    ds = active(at)
    assert at.session_state[state.DATASET_NAME] == "shop.csv"
    assert len(ds) == 8 and ds.target == "label"
    assert list(at.dataframe[0].value.columns) == ["colour", "size", "weight", "label"]
    summary = at.dataframe[1].value.set_index("column")
    assert summary.loc["weight", "missing"] == 1 and summary.loc["size", "missing"] == 1
    assert any("shop" in s.value for s in at.success)


@pytest.mark.parametrize("name, data", [
    ("empty.csv", b""),
    ("header.csv", b"a,b,c\n"),
    ("picture.csv", b"\x89PNG\r\n\x1a\n" + bytes(64)),
])
def test_bad_upload_shows_the_engine_sentence_and_keeps_the_data(data_page, name, data):
    at = data_page
    before = active(at)
    at = upload(at, name, data)
    assert not at.exception
    assert len(at.error) == 1 and at.error[0].value.strip()
    assert "Traceback" not in at.error[0].value
    assert active(at) is before or len(active(at)) == len(before)
    assert at.session_state[state.DATASET_NAME] == state.DEFAULT_SAMPLE
    # the error stays next to the file while it is there, and goes when the file is removed
    at.run()
    assert len(at.error) == 1
    at.file_uploader(key=panels.W_UPLOAD).clear().run()
    ok(at)


def test_column_names_are_shown_as_text_not_markup(data_page):
    csv = b"<b>x</b>,$y$,:red[z],target\n1,a,b,yes\n2,b,a,no\n3,a,a,yes\n4,b,b,no\n"
    at = upload(data_page, "odd names.csv", csv)
    ok(at)
    assert ":red[z]" in list(at.dataframe[0].value.columns)
    for element in list(at.markdown) + list(at.caption) + list(at.success) + list(at.info):
        assert "<b>" not in element.value and ":red[z]" not in element.value


# ---------------------------------------------------------------------------- kinds and target
def test_changing_kinds_applies_with_kinds_and_resets_the_tree(data_page):
    at = data_page
    at.session_state[state.GROWER] = object()
    at.multiselect(key=panels.W_KIND_COLUMNS).set_value(["Wind", "Humidity"])
    at.radio(key=panels.W_KIND).set_value("ignore")
    submit(at, "Apply kinds")
    ok(at)
    ds = active(at)
    assert ds.kind("Wind") == "ignore" and ds.kind("Humidity") == "ignore"
    assert set(ds.feature_names) == {"Outlook", "Temperature"}
    assert state.GROWER not in at.session_state
    assert any("The tree was reset" in s.value for s in at.success)
    # back to what loading detected
    button(at, "Restore the detected kinds, target and task").click().run()
    ok(at)
    assert set(active(at).feature_names) == {"Outlook", "Temperature", "Humidity", "Wind"}


def test_forcing_numeric_on_text_is_an_error_and_changes_nothing(data_page):
    at = data_page
    at.multiselect(key=panels.W_KIND_COLUMNS).set_value(["Outlook"])
    at.radio(key=panels.W_KIND).set_value("numeric")
    submit(at, "Apply kinds")
    assert not at.exception
    assert len(at.error) == 1 and "Outlook" in at.error[0].value
    assert active(at).kind("Outlook") == "categorical"


def test_changing_the_target_and_task(data_page):
    at = data_page
    at.selectbox(key=panels.W_TARGET).set_value("Outlook")
    submit(at, "Apply target")
    ok(at)
    assert active(at).target == "Outlook" and active(at).task == "classification"
    assert set(active(at).classes) == {"Sunny", "Overcast", "Rain"}
    assert "Play" in active(at).feature_names


def test_regression_target_draws_a_histogram(app_test):
    at = app_test(DATA_PAGE)
    at.selectbox(key=panels.W_SAMPLE).set_value("iris").run()
    button(at, "Use this sample").click().run()
    at.selectbox(key=panels.W_TARGET).set_value("petal_length")
    submit(at, "Apply target")
    ok(at)
    assert active(at).task == "regression"
    assert chart_spec(at)["data"][0]["type"] == "histogram"


# ------------------------------------------------------------------------------------- split
def test_split_sizes_and_seed(app_test):
    at = app_test(DATA_PAGE)
    at.selectbox(key=panels.W_SAMPLE).set_value("iris").run()
    button(at, "Use this sample").click().run()
    at.slider(key=panels.W_TEST).set_value(0.2)
    at.slider(key=panels.W_VALIDATION).set_value(0.2)
    at.number_input(key=panels.W_SPLIT_SEED).set_value(5)
    submit(at, "Apply split")
    ok(at)
    split = at.session_state[state.DATA_SPLIT]
    assert (len(split.train), len(split.validation), len(split.test)) == (90, 30, 30)
    assert at.session_state[state.SEED] == 5
    assert at.sidebar.number_input[0].value == 5
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Test rows"] == "30" and metrics["Validation rows"] == "30"


def test_task_override_and_a_refused_override(app_test):
    at = app_test(DATA_PAGE)
    # a text target cannot be a regression target: the engine's sentence, nothing changes
    at.radio(key=panels.W_TASK).set_value("regression")
    submit(at, "Apply target")
    assert not at.exception
    assert len(at.error) == 1 and "Play" in at.error[0].value
    assert active(at).task == "classification"
    # a numeric target can be forced to classification (one class per distinct value)
    at.selectbox(key=panels.W_SAMPLE).set_value("iris").run()
    button(at, "Use this sample").click().run()
    at.selectbox(key=panels.W_TARGET).set_value("petal_width")
    at.radio(key=panels.W_TASK).set_value("classification")
    submit(at, "Apply target")
    ok(at)
    ds = active(at)
    assert ds.target == "petal_width" and ds.task == "classification"
    assert len(ds.classes) == ds.frame["petal_width"].nunique()


def test_sidebar_follows_the_data_page(app_test):
    at = app_test(DATA_PAGE)
    at.selectbox(key=panels.W_SAMPLE).set_value("iris").run()
    button(at, "Use this sample").click().run()
    text = "\n".join(m.value for m in at.sidebar.markdown)
    assert "iris" in text and "150" in text and "species" in text and "3 classes" in text


# ------------------------------------------------------------------- pure helpers behind the page
def test_md_escape_neutralises_markdown_latex_colour_and_html():
    from ui.widgets import md_escape

    raw = "a_b *c* $x^2$ :red[z] :material/home: <script>alert(1)</script> [l](http://e) # h"
    escaped = md_escape(raw)
    # every markup character is preceded by a backslash, the letters are untouched
    for ch in "_*$:[]<>()#/":
        assert ch not in escaped.replace("\\" + ch, "")
    assert escaped.replace("\\", "").replace("\u2060", "") == raw  # a word joiner defeats the auto-link
    assert md_escape("two\nlines\t here") == "two lines here"


def test_column_summary_counts_missing_and_distinct_values():
    import pandas as pd

    from engine.data.dataset import Dataset
    from ui.summaries import column_summary

    frame = pd.DataFrame({
        "id": [f"r{i}" for i in range(6)],
        "x": [1.0, None, 3.0, 3.0, None, 6.0],
        "colour": ["red", "blue", None, "red", "red", "blue"],
        "y": ["a", "b", "a", "b", "a", "b"],
    })
    ds = Dataset.from_frame(frame, target="y")
    table = column_summary(ds).set_index("column")
    assert list(table.index) == list(ds.frame.columns)
    assert table.loc["y", "role"] == "target"
    assert table.loc["id", "role"] == "ignored"  # unique text per row
    assert table.loc["x", "role"] == "numeric" and table.loc["colour", "role"] == "categorical"
    assert table.loc["x", "missing"] == 2 and table.loc["x", "missing_pct"] == pytest.approx(33.3)
    assert table.loc["colour", "missing"] == 1 and table.loc["colour", "distinct"] == 2
    assert table.loc["x", "distinct"] == 3
    assert table.loc["x", "examples"] == "1, 3, 6"


def test_class_counts_and_chart_agree_with_the_labels():
    from ui.charts import class_balance_figure, target_histogram_figure
    from ui.summaries import class_counts

    ds = load_sample("iris")
    table = class_counts(ds)
    assert list(table["class"]) == list(ds.classes)
    assert table["count"].sum() == len(ds) and table["share"].sum() == pytest.approx(1.0)
    fig = class_balance_figure(ds)
    assert list(fig.data[0].x) == list(ds.classes)
    assert list(fig.data[0].y) == [50, 50, 50]
    with pytest.raises(ValueError):
        class_counts(load_sample("diabetes"))
    hist = target_histogram_figure(load_sample("diabetes"))
    assert hist.data[0].type == "histogram" and len(hist.data[0].x) == 442


def test_chart_text_shows_user_labels_literally():
    import pandas as pd

    from engine.data.dataset import Dataset
    from ui.charts import class_balance_figure

    frame = pd.DataFrame({"f": [1, 2, 3, 4], "<b>t</b>": ["<i>a</i>", "b&c", "<i>a</i>", "b&c"]})
    fig = class_balance_figure(Dataset.from_frame(frame, target="<b>t</b>"))
    assert sorted(fig.data[0].x) == ["&lt;i&gt;a&lt;/i&gt;", "b&amp;c"]
    assert "<b>" not in fig.layout.title.text


def test_id_column_note_and_using_it_anyway(app_test):
    at = app_test(DATA_PAGE)
    at.selectbox(key=panels.W_SAMPLE).set_value("play_tennis_day").run()
    button(at, "Use this sample").click().run()
    ok(at)
    assert active(at).kind("Day") == "ignore"
    assert any("Day" in i.value and "ignored" in i.value for i in at.info)
    at.multiselect(key=panels.W_KIND_COLUMNS).set_value(["Day"])
    at.radio(key=panels.W_KIND).set_value("categorical")
    submit(at, "Apply kinds")
    ok(at)
    assert active(at).kind("Day") == "categorical" and "Day" in active(at).feature_names


def test_the_column_summary_is_computed_once_per_data_set(data_page, monkeypatch):
    """Counting distinct values of a big table takes seconds: reruns of the page reuse the summary."""
    calls = []
    original = panels.column_summary
    monkeypatch.setattr(panels, "column_summary", lambda ds: calls.append(ds) or original(ds))
    at = upload(data_page, "good.csv", GOOD_CSV)
    ok(at)
    at.run()
    at.run()
    assert len(calls) == 1 and calls[0] is active(at)
    columns = list(at.dataframe[1].value["column"])
    assert columns == list(active(at).frame.columns)
    at.multiselect(key=panels.W_KIND_COLUMNS).set_value(["size"])
    at.radio(key=panels.W_KIND).set_value("categorical")
    submit(at, "Apply kinds")
    ok(at)
    assert len(calls) == 2 and calls[1] is active(at)  # a new data set: summarised again
    assert "categorical" in list(at.dataframe[1].value["role"])


def test_a_feature_that_gives_the_target_away_is_warned_about_and_can_be_ignored(data_page):
    """Issue 36.8: gapminder with target continent; country (and its codes) name the continent."""
    import plotly.express as px

    csv = px.data.gapminder().rename(columns={"country": "country_*name*"}).to_csv(index=False).encode()
    at = upload(data_page, "gapminder.csv", csv)
    ok(at)
    assert not [w for w in at.warning if "gives the target away" in w.value]  # guessed target: a regression
    at.selectbox(key=panels.W_TARGET).set_value("continent")
    submit(at, "Apply target")
    ok(at)
    warnings = [w.value for w in at.warning if "gives the target away" in w.value]
    assert len(warnings) == 3
    assert "country\\_\\*name\\*" in warnings[0] and "142 values" in warnings[0]  # the name escaped
    assert "iso\\_alpha" in warnings[1] and "set its kind to ignore" in warnings[1]
    button(at, "Ignore these 3 columns").click().run()
    ok(at)
    assert {active(at).kind(c) for c in ("country_*name*", "iso_alpha", "iso_num")} == {"ignore"}
    assert not [w for w in at.warning if "gives the target away" in w.value]
    assert active(at).target == "continent" and "year" in active(at).feature_names


def test_no_giveaway_warning_on_the_tips_data(data_page):
    import plotly.express as px

    at = upload(data_page, "tips.csv", px.data.tips().to_csv(index=False).encode())
    ok(at)
    for target in ("sex", "day"):
        at.selectbox(key=panels.W_TARGET).set_value(target)
        submit(at, "Apply target")
        ok(at)
        assert active(at).target == target and not at.warning
