"""AppTest of the frame (app.py): start-up, sidebar, seed, navigation, error handling, every page runs."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ui import state
from ui.errors import UNEXPECTED_MESSAGE
from ui.widgets import md_escape

ROOT = Path(__file__).resolve().parents[2]


def load_app_module():
    """Import app.py as a module without running it (its main() is guarded)."""
    spec = importlib.util.spec_from_file_location("dt_app_under_test", ROOT / "app.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def sidebar_text(at: AppTest) -> str:
    return "\n".join(m.value for m in at.sidebar.markdown)


def test_app_starts_on_the_introduction(app_test):
    at = app_test()
    assert not at.exception
    assert not at.error
    assert at.title[0].value == "Decision-tree explorer"
    # the introduction links to the Data page
    assert "Open Data" in [link.value for link in at.page_link]


def test_the_introduction_shows_the_user_guide_without_repository_links(app_test):
    at = app_test()
    guide = (ROOT / "docs" / "USER_GUIDE.md").read_text(encoding="utf-8")
    shown = [m.value for m in at.markdown if "### Grow" in m.value]
    assert len(shown) == 1 and "Running for a class" in shown[0] and "### Theory" in shown[0]
    assert "to be written" not in guide
    assert "](../README.md)" in guide and "](../README.md)" not in shown[0]   # repository links become text


def test_session_defaults_are_the_play_tennis_sample(app_test):
    at = app_test()
    ds = at.session_state[state.DATASET]
    assert at.session_state[state.DATASET_NAME] == state.DEFAULT_SAMPLE
    assert len(ds) == 14 and ds.target == "Play" and ds.task == "classification"
    assert at.session_state[state.SEED] == state.DEFAULT_SEED
    # textbook-sized data: every row trains, so gain tables match the books
    settings = at.session_state[state.SPLIT_SETTINGS]
    assert settings == {"test_size": 0.0, "validation_size": 0.0, "seed": 0}
    assert len(at.session_state[state.DATA_SPLIT].train) == 14
    assert state.GROWER not in at.session_state


def test_sidebar_shows_data_set_target_task_rows_and_seed(app_test):
    at = app_test()
    text = sidebar_text(at)
    assert md_escape("play_tennis") in text
    assert "Play" in text and "classification, 2 classes" in text
    assert "14 train" in text
    seed = at.sidebar.number_input[0]
    assert seed.label == "Random seed" and seed.value == 0


def test_changing_the_seed_resplits_and_resets_the_tree(app_test):
    at = app_test()
    at.session_state[state.GROWER] = object()  # stands for a grown tree
    at.sidebar.number_input[0].set_value(7).run()
    assert not at.exception and not at.error
    assert at.session_state[state.SEED] == 7
    assert at.session_state[state.SPLIT_SETTINGS]["seed"] == 7
    assert state.GROWER not in at.session_state
    assert any("seed set to 7" in i.value for i in at.info)


def test_build_navigation_lists_only_pages_whose_file_exists():
    app = load_app_module()
    nav = app.existing_pages({
        "Start": [("pages/home.py", "Introduction", ":material/home:"),
                  ("pages/not_written_yet.py", "Soon", ":material/schedule:")],
        "Later": [("pages/does_not_exist_yet.py", "Later", ":material/schedule:")],
    })
    assert nav == {"Start": [("pages/home.py", "Introduction", ":material/home:")]}


def test_registry_points_at_real_files_for_start_and_data():
    app = load_app_module()
    paths = [path for entries in app.PAGES.values() for path, _, _ in entries]
    assert app.DEFAULT_PAGE in paths
    for required in ("pages/home.py", "pages/data.py"):
        assert (ROOT / required).is_file()


def test_unexpected_error_is_a_friendly_message_not_a_traceback(app_test):
    at = app_test()
    at.session_state[state.DATASET] = "not a data set"  # breaks the sidebar on purpose
    at.run()
    assert not at.exception
    assert [e.value for e in at.error] == [UNEXPECTED_MESSAGE]


def test_engine_error_shows_its_own_sentence():
    def script():
        from engine.errors import DataError
        from ui.errors import friendly_errors

        with friendly_errors():
            raise DataError("The file has a header but no rows. No column ![x](http://127.0.0.1:9/x.png).")

    at = AppTest.from_function(script, default_timeout=30).run()
    assert not at.exception
    # the sentence as literal text (it may quote user text): escaped, reads the same, no live image
    assert [e.value.replace("\\", "").replace("\u2060", "") for e in at.error] == [
        "The file has a header but no rows. No column ![x](http://127.0.0.1:9/x.png)."]
    assert "](" not in at.error[0].value


def registered_existing_pages() -> list[str]:
    app = load_app_module()
    return [path for entries in app.PAGES.values() for path, _, _ in entries
            if (ROOT / path).is_file()]


@pytest.mark.parametrize("page", registered_existing_pages())
def test_every_registered_page_renders_on_the_default_data(app_test, page):
    at = app_test(page)
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def test_config_follows_the_sample_until_the_user_sets_one():
    def script():
        import streamlit as st

        from engine.config import TreeConfig
        from ui import state
        from ui.cache import load_sample_cached

        shown = [state.current_config().algorithm]  # play_tennis: ID3
        for name in ("play_tennis_numeric", "iris"):
            state.set_dataset(load_sample_cached(name), name)
            shown.append(state.current_config().algorithm)
        state.set_config(TreeConfig(algorithm="id3", max_depth=2))
        state.set_dataset(load_sample_cached("ski"), "ski")  # the user's choice stays
        shown.append(state.current_config().algorithm)
        st.text(",".join(shown))

    at = AppTest.from_function(script, default_timeout=30).run()
    assert not at.exception
    assert at.text[0].value == "id3,c45,cart,id3"


def test_grower_is_built_lazily_on_the_train_split_and_dropped_on_change():
    def script():
        import streamlit as st

        from ui import state
        from ui.cache import load_sample_cached

        state.set_dataset(load_sample_cached("iris"), "iris")
        state.set_split_settings(test_size=0.2, validation_size=0.2, seed=3)
        grower = state.current_grower()
        same = state.current_grower() is grower
        version = state.data_version()
        state.set_seed(4)
        st.text(f"{len(grower.dataset)},{same},{state.GROWER in st.session_state},"
                f"{state.data_version() > version},{state.split_settings()['seed']}")

    at = AppTest.from_function(script, default_timeout=30).run()
    assert not at.exception
    assert at.text[0].value == "90,True,False,True,4"
