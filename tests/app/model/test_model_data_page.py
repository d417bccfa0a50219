"""AppTest of "Open a model" on the Data page: open, describe, match with the data set, refuse, close."""

from __future__ import annotations

import pickle

from engine import ImportedModel
from ui import state
from ui.model.opening import W_MODEL_UPLOAD

DATA_PAGE = "pages/data.py"


def texts(at, kind):
    """The elements' text with Markdown's backslash escapes removed."""
    return [e.value.replace("\\", "") for e in getattr(at, kind)]


def test_opening_an_xgboost_model_keeps_it_and_says_the_iris_sample_matches(model_app, xgb_iris):
    at = model_app(xgb_iris, "iris.json", sample="iris")
    model = at.session_state[state.MODEL]
    assert isinstance(model, ImportedModel) and model.n_trees == 15 and model.kind == "additive"
    assert at.session_state[state.MODEL_NAME] == "iris.json"
    assert any("has all 4 of the model's columns" in s for s in texts(at, "success"))
    assert any("XGBoost JSON" in c and "15 trees" in c for c in texts(at, "caption"))
    assert any("iris.json" in m for m in texts(at.sidebar, "markdown"))


def test_a_data_set_without_the_models_columns_gets_one_sentence_naming_them(model_app, xgb_iris):
    at = model_app(xgb_iris, "iris.json")  # the default sample (play_tennis) has none of iris's columns
    warnings = texts(at, "warning")
    assert len([w for w in warnings if "lacks 4" in w]) == 1
    sentence = next(w for w in warnings if "lacks 4" in w)
    for col in ("sepal_length", "petal_width"):
        assert col in sentence


def test_a_pickle_is_refused_with_one_sentence_and_the_open_model_stays(model_app, app_test, xgb_iris):
    at = model_app(xgb_iris, "iris.json")
    at.file_uploader(key=W_MODEL_UPLOAD).set_value(("model.pkl", pickle.dumps({"a": 1}), "application/octet-stream")).run()
    assert not at.exception
    errors = texts(at, "error")
    assert len(errors) == 1 and "pickle" in errors[0].lower()
    assert at.session_state[state.MODEL_NAME] == "iris.json"


def test_a_file_that_is_no_model_is_refused_without_a_traceback(app_test):
    at = app_test(DATA_PAGE)
    at.file_uploader(key=W_MODEL_UPLOAD).set_value(("notes.txt", b"hello, world\n1,2\n", "text/plain")).run()
    assert not at.exception
    assert len(texts(at, "error")) == 1 and "not a model format" in texts(at, "error")[0]
    assert state.MODEL not in at.session_state or at.session_state[state.MODEL] is None


def test_closing_the_model_forgets_it(model_app, xgb_iris):
    at = model_app(xgb_iris, "iris.json")
    [b for b in at.button if b.label == "Close the model"][0].click().run()
    assert not at.exception
    assert state.MODEL not in at.session_state
    assert not [b for b in at.button if b.label == "Close the model"]


def test_opening_a_model_reserves_from_the_server_pool_and_a_full_pool_says_so(app_test, monkeypatch, xgb_iris):
    """Reading a model file holds ~24 bytes per byte of it; on a server whose memory pool other jobs fill, the
    Data page says so in one sentence and opens nothing."""
    from engine import budget
    from ui.model.opening import model_bytes

    pool = budget.Pool(total=model_bytes(len(xgb_iris)) + 1, wait=0.1)
    monkeypatch.setattr(budget, "POOL", pool)
    other = budget.Reservation(pool)
    other.need(pool.total // 2)                    # another session's job holds half the pool
    at = app_test("pages/data.py")
    at.file_uploader(key=W_MODEL_UPLOAD).set_value(("iris.json", xgb_iris, "application/octet-stream")).run()
    assert not at.exception
    assert any(e.startswith("The server is busy with other users' heavy work") and "open a smaller model" in e
               for e in texts(at, "error")), texts(at, "error")
    assert at.session_state[state.MODEL] is None if state.MODEL in at.session_state else True   # nothing opened
    other.close()
    at.file_uploader(key=W_MODEL_UPLOAD).set_value(("iris2.json", xgb_iris, "application/octet-stream")).run()
    assert not at.error and at.session_state[state.MODEL].n_trees == 15
    assert pool.used == 0 and pool.high_water == model_bytes(len(xgb_iris))     # never both at once
