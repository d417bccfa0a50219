"""Hardening: many students on one server never see each other's data, tree or settings.

Streamlit runs every browser session in the same process: ``st.cache_data`` results and module
variables are shared, ``st.session_state`` is not. These tests run several AppTest sessions side by
side (as one server would) and check that

- two sessions on different data sets step independently and each shows its own tree;
- one session's edits (kinds, target, split, seed, settings, pruning, uploads) never reach another;
- cached objects are never mutated: a sample or upload loaded through ``ui.cache`` after a whole
  session of use is equal to a fresh load, and the engine's arrays are read-only.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

import engine
from ui.data import panels as panels
from tests.app.tree_charts import tree_charts
from ui import state

ROOT = Path(__file__).resolve().parents[3]
APP = str(ROOT / "app.py")
UPLOAD = (b"colour,size,weight,label\nred,1.5,10,yes\nblue,2.5,12,no\nred,3.0,11,yes\ngreen,1.0,9,no\n"
          b"blue,2.0,11,no\nred,2.2,13,yes\ngreen,2.9,8,yes\nblue,3.1,14,no\n")


def session(page: str = "pages/data.py") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page(page)
    at.run()
    assert not at.exception
    return at


def use_sample(at: AppTest, name: str) -> None:
    at.selectbox(key=panels.W_SAMPLE).set_value(name).run()
    [b for b in at.button if b.label == "Use this sample"][0].click().run()
    assert at.session_state[state.DATASET_NAME] == name


def step(at: AppTest, times: int = 1) -> None:
    for _ in range(times):
        if at.button(key="_w_grow_step").proto.disabled:  # the tree is finished
            break
        at.button(key="_w_grow_step").click().run()
        assert not at.exception and not at.error, [e.value for e in at.error]


def grow_page(at: AppTest) -> AppTest:
    at.switch_page("pages/grow.py")
    return at.run()


def dot(at: AppTest) -> str:
    """The diagram's text: its boxes' labels and hover texts (the feature names show there)."""
    chart = tree_charts(at)[0]
    return " ".join(chart["text"] + chart["hover"])


def frames_equal(a: engine.Dataset, b: engine.Dataset) -> bool:
    pd.testing.assert_frame_equal(a.frame, b.frame)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    return a.kinds == b.kinds and a.target == b.target and a.classes == b.classes


def test_two_sessions_on_different_data_step_independently():
    a = session()
    b = session()
    use_sample(b, "iris")
    grow_page(a)
    grow_page(b)
    # interleaved, as two students clicking at the same time
    step(a)
    step(b, 3)
    step(a)
    ga, gb = a.session_state[state.GROWER], b.session_state[state.GROWER]
    assert ga is not gb and ga.dataset is not gb.dataset
    assert ga.n_steps == 2 and gb.n_steps == 3
    assert ga.dataset.target == "Play" and gb.dataset.target == "species"
    assert "Outlook" in dot(a) and "petal" not in dot(a)
    assert "petal" in dot(b) and "Outlook" not in dot(b)
    # each page's status line shows its own step count
    assert any(m.value.startswith("**Step 2 ") for m in a.markdown)
    assert any(m.value.startswith("**Step 3 ") for m in b.markdown)
    # undo in one session leaves the other alone
    a.button(key="_w_grow_undo").click().run()
    b.run()
    assert a.session_state[state.GROWER].n_steps == 1 and b.session_state[state.GROWER].n_steps == 3


def test_edits_in_one_session_never_reach_another():
    a = session()
    b = session()
    # a: upload a file, change a kind and the split seed; b keeps the default sample untouched
    a.file_uploader(key=panels.W_UPLOAD).set_value(("shop.csv", UPLOAD, "text/csv")).run()
    a.multiselect(key=panels.W_KIND_COLUMNS).set_value(["weight"])
    a.radio(key=panels.W_KIND).set_value("categorical")
    [x for x in a.get("form_submit_button") if x.label == "Apply kinds"][0].click().run()
    assert a.session_state[state.DATASET].kind("weight") == "categorical"
    a.number_input(key="_w_sidebar_seed").set_value(7).run()
    assert a.session_state[state.SEED] == 7
    b.run()
    assert b.session_state[state.DATASET_NAME] == state.DEFAULT_SAMPLE
    assert b.session_state[state.SEED] == 0
    assert "weight" not in b.session_state[state.DATASET].frame.columns
    # b uploads the same bytes: it gets the file as loaded, not a's edited version
    b.file_uploader(key=panels.W_UPLOAD).set_value(("shop.csv", UPLOAD, "text/csv")).run()
    assert b.session_state[state.DATASET].kind("weight") == "numeric"
    assert a.session_state[state.DATASET].kind("weight") == "categorical"


def test_tree_settings_stay_in_their_session():
    a = grow_page(session())
    b = grow_page(session())
    a.session_state[state.TREE_CONFIG] = engine.TreeConfig(algorithm="cart", max_depth=1)
    a.session_state[state.GROWER] = None  # rebuilt from the new config on the next run
    a.run()
    step(a, 3)
    step(b, 3)
    assert a.session_state[state.GROWER].tree.depth <= 1
    assert b.session_state[state.GROWER].config.algorithm == "id3"  # play_tennis' textbook preset
    assert b.session_state[state.GROWER].tree.depth >= 1


def test_cached_samples_are_never_mutated_by_a_session():
    from ui.cache import load_sample_cached

    fresh = engine.load_sample("play_tennis")
    first = load_sample_cached("play_tennis")
    assert first is not fresh and frames_equal(first, fresh)
    # a whole session of use on the cached sample: grow, collapse, prune, evaluate, ensembles
    at = grow_page(session())
    step(at, 4)
    for page in ("pages/prune.py", "pages/evaluate.py", "pages/rules.py", "pages/ensembles.py"):
        at.switch_page(page)
        at.run()
        assert not at.exception
    again = load_sample_cached("play_tennis")
    assert frames_equal(again, fresh)
    assert frames_equal(at.session_state[state.DATASET], fresh)


def test_engine_data_cannot_be_changed_in_place():
    """Uploads are cached with ``st.cache_resource``: every session holds the SAME Dataset object, so
    nothing a page can reach may change it."""
    ds = engine.load_sample("iris")
    before = engine.load_sample("iris")
    assert not ds.X.flags.writeable and not ds.y.flags.writeable
    with pytest.raises(ValueError):
        ds.X[0, 0] = 99.0
    with pytest.raises(AttributeError):
        ds.target = "sepal_width"
    kinds, cats = ds.kinds, ds.categories
    kinds["sepal_length"] = "ignore"
    cats["species"] = ("x",)
    names = ds.feature_names
    assert isinstance(names, tuple) and isinstance(ds.classes, tuple) and isinstance(ds.notes, tuple)
    assert frames_equal(ds, before) and ds.categories == before.categories
    frame = ds.frame
    frame.iloc[0, 0] = -1.0  # a copy: the data set is unchanged
    assert ds.frame.iloc[0, 0] != -1.0
    edited = ds.with_kinds({"sepal_length": "ignore"})
    assert ds.kind("sepal_length") == "numeric" and edited.kind("sepal_length") == "ignore"


def test_a_cached_upload_is_one_shared_object_that_sessions_cannot_change():
    from ui.cache import load_uploaded

    one = load_uploaded(UPLOAD, "shop.csv")
    a = session()
    a.file_uploader(key=panels.W_UPLOAD).set_value(("shop.csv", UPLOAD, "text/csv")).run()
    a.multiselect(key=panels.W_KIND_COLUMNS).set_value(["size"])
    a.radio(key=panels.W_KIND).set_value("ignore")
    [x for x in a.get("form_submit_button") if x.label == "Apply kinds"][0].click().run()
    grow_page(a)
    step(a, 2)
    two = load_uploaded(UPLOAD, "shop.csv")
    assert frames_equal(one, two) and two.kind("size") == "numeric"
    assert a.session_state[state.LOADED_DATASET].kind("size") == "numeric"
    assert a.session_state[state.DATASET].kind("size") == "ignore"
