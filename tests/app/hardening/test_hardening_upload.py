"""Hardening: every awkward file uploaded through the Data page, as a student would.

Each file of ``tests/data/awkward/`` goes through the real uploader widget (AppTest's
``file_uploader``), i.e. the page's own callback, cache and state code. The outcome must match what
the engine says about the same bytes:

- the engine loads it: the file becomes the active data set, no ``st.error``, the Grow page can
  step on it and every export tab renders;
- the engine refuses it: exactly ONE ``st.error`` showing the engine's sentence, the previous data
  set stays active (name, rows, tree), and the rest of the page (preview, columns, sidebar) still
  renders.

In both cases no exception reaches Streamlit (``at.exception`` is empty) and no traceback text is
shown anywhere.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from engine.data.dataset import load_csv
from engine.errors import DataError
from ui.data import panels as panels
from tests.app.tree_charts import tree_charts
from ui import state
from ui.widgets import md_escape

ROOT = Path(__file__).resolve().parents[3]
APP = str(ROOT / "app.py")
CORPUS = ROOT / "tests" / "data" / "awkward"
FILES = sorted(p.name for p in CORPUS.iterdir() if p.suffix not in (".py", ".md"))
MIME = {".csv": "text/csv", ".tsv": "text/tab-separated-values", ".txt": "text/plain",
        ".gz": "application/gzip"}


def upload_name(name: str) -> str:
    """The name the browser would send: the uploader only offers CSV/TSV/TXT/GZ files, so a student
    with a picture or a workbook renames it first (``anim.gif`` -> ``anim.gif.csv``)."""
    return name if Path(name).suffix.lstrip(".") in panels.UPLOAD_TYPES else name + ".csv"


def engine_outcome(name: str, data: bytes):
    """What the engine itself says about these bytes: a Dataset, or the DataError sentence."""
    source = io.BytesIO(data)
    source.name = name
    try:
        return load_csv(source)
    except DataError as err:
        return str(err)


def texts(at) -> str:
    """Every visible text block of the page (markdown, captions, alerts) joined."""
    parts = [e.value for kind in ("markdown", "caption", "info", "success", "warning", "error", "title",
                                  "subheader", "text", "code") for e in at.get(kind)]
    return "\n".join(str(p) for p in parts)


def ok_page(at) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert "Traceback" not in texts(at)


@pytest.fixture(scope="module")
def session():
    """One Data-page session reused by every upload (a student trying file after file)."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page("pages/data.py")
    at.run()
    ok_page(at)
    return at


@pytest.mark.parametrize("name", FILES)
def test_awkward_upload_loads_or_shows_one_error(session, name):
    at = session
    data = (CORPUS / name).read_bytes()
    name = upload_name(name)
    expected = engine_outcome(name, data)
    before_name = at.session_state[state.DATASET_NAME]
    before_rows = len(at.session_state[state.DATASET])
    uploader = at.file_uploader(key=panels.W_UPLOAD)
    uploader.set_value((name, data, MIME.get(Path(name).suffix, "application/octet-stream"))).run()
    ok_page(at)
    if isinstance(expected, str):
        errors = [e.value for e in at.error]
        assert len(errors) == 1, errors
        assert errors[0] == md_escape(expected)
        assert at.session_state[state.DATASET_NAME] == before_name
        assert len(at.session_state[state.DATASET]) == before_rows
        assert any("Still using" in c.value for c in at.caption)
        # the rest of the page still works: preview and column summary of the previous data
        assert len(at.dataframe) >= 2 and len(at.dataframe[0].value) == min(before_rows, 200)
    else:
        assert not at.error, [e.value for e in at.error]
        assert at.session_state[state.DATASET_NAME] == name
        active = at.session_state[state.DATASET]
        assert len(active) == len(expected) and active.feature_names == expected.feature_names
        assert list(at.dataframe[0].value.columns) == list(expected.frame.columns)
    uploader = at.file_uploader(key=panels.W_UPLOAD)
    uploader.clear().run()  # next file starts from an empty uploader; the data set stays
    ok_page(at)


LOADABLE = [n for n in FILES if not isinstance(engine_outcome(upload_name(n), (CORPUS / n).read_bytes()), str)]


@pytest.mark.parametrize("name", LOADABLE)
def test_uploaded_awkward_file_grows_and_exports_on_the_grow_page(name):
    data = (CORPUS / name).read_bytes()
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page("pages/data.py")
    at.run()
    at.file_uploader(key=panels.W_UPLOAD).set_value((name, data, "text/csv")).run()
    assert at.session_state[state.DATASET_NAME] == name
    at.switch_page("pages/grow.py")
    at.run()
    ok_page(at)
    for _ in range(2):
        step = at.button(key="_w_grow_step")
        if step.proto.disabled:  # finished (e.g. one class only: the root is a leaf at once)
            break
        step.click().run()
        ok_page(at)
    errors = [e.value for e in at.error]
    assert not errors, errors
    assert tree_charts(at), "the tree diagram is drawn"
    for tab in ("Inspect a node", "Step log", "Query point", "Export & share"):
        at.session_state["_w_grow_tab"] = tab
        at.run()
        ok_page(at)
        assert not at.error, (tab, [e.value for e in at.error])


@pytest.mark.slow
def test_a_200_mb_upload_shows_the_row_limit_sentence_and_keeps_the_data(session, tmp_path):
    """Streamlit refuses files above ``server.maxUploadSize`` (200 MB) in the browser with its own
    message; a file just at the limit reaches the engine, which stops at 2,000,000 rows."""
    import tomllib

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["server"]["maxUploadSize"] == 200
    line = b"0.12345,-1.5,2.25,yes\n"
    data = b"a,b,c,label\n" + line * (200 * 1024 * 1024 // len(line) + 1)
    assert len(data) > 200 * 1024 * 1024
    at = session
    before = at.session_state[state.DATASET_NAME]
    at.file_uploader(key=panels.W_UPLOAD).set_value(("big.csv", data, "text/csv")).run()
    ok_page(at)
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "more than 2,000,000 rows" in errors[0].replace("\\", ""), errors
    assert at.session_state[state.DATASET_NAME] == before
    at.file_uploader(key=panels.W_UPLOAD).clear().run()
    ok_page(at)


@pytest.mark.parametrize("gz", [False, True])
def test_a_huge_cell_is_one_sentence_on_the_data_page_and_the_data_stays(session, gz):
    """Issue 25, 5: a 2-row file with a 3 MB cell loaded (22 s in the browser); now one st.error
    naming the line and column, before anything is parsed."""
    import gzip

    data = b"x,note,y\n1,ok,a\n2," + b"w" * (3 << 20) + b",b\n"
    name = "huge.csv.gz" if gz else "huge.csv"
    at = session
    before = at.session_state[state.DATASET_NAME]
    at.file_uploader(key=panels.W_UPLOAD).set_value(
        (name, gzip.compress(data) if gz else data, MIME[Path(name).suffix])).run()
    ok_page(at)
    errors = [e.value.replace("\\", "") for e in at.error]  # the page escapes Markdown
    assert len(errors) == 1 and errors[0].startswith("Line 3, column 2 ('note')"), errors
    assert "longer than 100 kB" in errors[0]
    assert at.session_state[state.DATASET_NAME] == before
    at.file_uploader(key=panels.W_UPLOAD).clear().run()
    ok_page(at)
