"""Session state: the one place that knows the keys and keeps data, split, config and tree consistent.

Every page reads and writes state through these constants and functions, never through raw strings.
The invariant kept here: ``GROWER`` was built from ``DATA_SPLIT.train`` of ``DATASET`` with
``TREE_CONFIG``; whenever the data set, its split or the config changes, the grower is dropped and
rebuilt lazily by :func:`current_grower`, and ``DATA_VERSION`` increases so pages can drop their own
derived results.

Values live in ``st.session_state`` (one per browser session), never in module variables, which
would be shared by every user of the server.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from engine.data.dataset import Dataset

# Keys (shared convention, see docs and README).
DATASET = "dataset"  # active full engine Dataset
DATASET_NAME = "dataset_name"  # sample name or uploaded file name
SPLIT_SETTINGS = "split_settings"  # dict(test_size=..., validation_size=..., seed=...)
DATA_SPLIT = "data_split"  # DataSplit(train, validation, test) of DATASET
TREE_CONFIG = "tree_config"  # engine TreeConfig
GROWER = "grower"  # engine Grower on DATA_SPLIT.train (validation_data = DATA_SPLIT.validation)
SELECTED_NODE = "selected_node"  # int node id
SEED = "seed"  # the app-wide random seed (split, random features, ensembles)
LOADED_DATASET = "loaded_dataset"  # DATASET as loaded, before kind/target/task edits
DATA_VERSION = "data_version"  # int, increases on every change of data, split or config
N_JOBS = "_w_n_jobs"  # 0 (automatic: all cores for big jobs) or the number of cores for many-tree work
MODEL = "model"  # engine ImportedModel opened on the Data page ("Open a model"), or absent
MODEL_NAME = "model_name"  # the opened model's file name
MODEL_MEMBER = "model_member"  # int: the member tree of MODEL the pages show (0 = the first)
MODEL_CLASSES = "model_classes"  # (target, data labels, {model class: data label}) chosen on the Data page
MODEL_COLUMNS = "model_columns"  # (model, data columns, target, ColumnMatch): the last column match made
STEP_NOTES = "step_notes"  # {steps taken: (the teacher's note, the step it was written on)}: see step_note
LESSON_META = "lesson_meta"  # {"title": ..., "description": ...} of the lesson file last opened or saved

DEFAULT_SAMPLE = "play_tennis"
DEFAULT_SEED = 0
DEFAULT_TEST_SIZE = 0.25
# Limits of the split settings: the Data page's sliders and seed input and the sidebar's seed stop here,
# and a shared link beyond them is refused (ui/classroom/share.py). One place for them.
MAX_TEST_SIZE = 0.5
MAX_VALIDATION_SIZE = 0.4
MAX_SEED = 2**31 - 1
# Below this many rows a data set is a textbook example: train on every row by default, so the gain
# tables show the numbers printed in the books (e.g. Mitchell's 0.246 for Outlook).
SMALL_DATA_ROWS = 30
# The app's split search: exact up to TreeConfig.histogram_above_rows training rows, histogram above
# (TreeConfig.resolved; histogram search hands nodes of at most max_bins rows to the exact search).
DEFAULT_SPLIT_SEARCH = "auto"


def init_state() -> None:
    """Fill the session with defaults once: the "play_tennis" sample, seed 0, no tree yet."""
    ss = st.session_state
    ss.setdefault(SEED, DEFAULT_SEED)
    ss.setdefault(TREE_CONFIG, None)
    ss.setdefault(SELECTED_NODE, 0)
    ss.setdefault(DATA_VERSION, 0)
    if DATASET not in ss:
        from ui.cache import load_sample_cached

        set_dataset(load_sample_cached(DEFAULT_SAMPLE), DEFAULT_SAMPLE)


# ----------------------------------------------------------------------------------------- data
def leave_legacy_pages_mode() -> None:
    """Rerun through app.py when Streamlit ran a page script without the frame.

    Until the first ``st.navigation`` call in a server process, Streamlit treats ``pages/`` as an
    old-style pages folder: a deep link such as ``/grow`` on a freshly started server runs
    pages/grow.py alone (no sidebar, no error net). The page then lands here while that flag is
    still set; clearing it and rerunning makes Streamlit run app.py, which routes to the page.
    """
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()


def current_dataset() -> Dataset:
    """The active (full) data set."""
    leave_legacy_pages_mode()
    if DATASET not in st.session_state:
        init_state()
    return st.session_state[DATASET]


def current_dataset_name() -> str:
    """Sample name or uploaded file name of the active data set."""
    current_dataset()
    return st.session_state[DATASET_NAME]


def loaded_dataset() -> Dataset:
    """The active data set as it was loaded, before any kind/target/task edits."""
    current_dataset()
    return st.session_state.get(LOADED_DATASET, st.session_state[DATASET])


def default_split_settings(ds: Dataset, seed: int) -> dict[str, Any]:
    """Split sizes for a freshly loaded data set: no test rows for textbook-sized data."""
    test_size = 0.0 if len(ds) < SMALL_DATA_ROWS else DEFAULT_TEST_SIZE
    return {"test_size": test_size, "validation_size": 0.0, "seed": int(seed)}


def make_split(ds: Dataset, settings: dict[str, Any]):
    """``ds.split(**settings)``; raises the engine's DataError/ConfigError when the sizes don't fit."""
    return ds.split(
        test_size=float(settings["test_size"]),
        validation_size=float(settings["validation_size"]),
        seed=int(settings["seed"]),
    )


def set_dataset(ds: Dataset, name: str) -> None:
    """Make ``ds`` (freshly loaded) the active data set: new default split, tree dropped.

    The split is computed first, so if it fails nothing changes (the previous data stays active).
    """
    settings = default_split_settings(ds, current_seed())
    split = make_split(ds, settings)
    ss = st.session_state
    ss[DATASET] = ds
    ss[DATASET_NAME] = str(name)
    ss[LOADED_DATASET] = ds
    ss[SPLIT_SETTINGS] = settings
    ss[DATA_SPLIT] = split
    ss.pop(STEP_NOTES, None)  # notes belong to steps on the data they were written on
    reset_tree()


def replace_dataset(ds: Dataset) -> None:
    """Make an edited version of the active data set (kinds, target, task) active.

    Keeps its name, the loaded original and the split sizes; re-splits and drops the tree. Nothing
    changes if the split fails.
    """
    settings = dict(split_settings())
    split = make_split(ds, settings)
    st.session_state[DATASET] = ds
    st.session_state[DATA_SPLIT] = split
    reset_tree()


def restore_loaded_dataset() -> None:
    """Undo every kind/target/task edit: back to the data set as loaded."""
    replace_dataset(loaded_dataset())


# ---------------------------------------------------------------------------------------- split
def split_settings() -> dict[str, Any]:
    """A copy of the active split settings (test_size, validation_size, seed)."""
    current_dataset()
    return dict(st.session_state[SPLIT_SETTINGS])


def current_split():
    """``DataSplit(train, validation, test)`` of the active data set."""
    current_dataset()
    return st.session_state[DATA_SPLIT]


def set_split_settings(*, test_size: float, validation_size: float, seed: int) -> None:
    """Re-split the active data set with these sizes and seed; drops the tree. Atomic on error."""
    settings = {"test_size": float(test_size), "validation_size": float(validation_size),
                "seed": int(seed)}
    split = make_split(current_dataset(), settings)
    st.session_state[SPLIT_SETTINGS] = settings
    st.session_state[DATA_SPLIT] = split
    st.session_state[SEED] = int(seed)
    reset_tree()


def current_n_jobs() -> int | None:
    """Cores for work that grows many independent trees (ensembles, folds, curves) and for one tree's levels
    (Grow to end): None = automatic."""
    value = st.session_state.get(N_JOBS)
    return int(value) if value else None


def current_seed() -> int:
    """The app-wide random seed."""
    return int(st.session_state.get(SEED, DEFAULT_SEED))


def set_seed(seed: int) -> None:
    """Change the app-wide seed; the split follows it (re-split, tree dropped) when it differs."""
    seed = int(seed)
    st.session_state[SEED] = seed
    if DATASET in st.session_state and split_settings()["seed"] != seed:
        settings = split_settings()
        set_split_settings(test_size=settings["test_size"],
                           validation_size=settings["validation_size"], seed=seed)


# ---------------------------------------------------------------------------------------- model
def current_model():
    """The model opened on the Data page (an ``engine.ImportedModel``), or None when none is open.

    While a model is open the Grow, Rules, Ensembles, Evaluate and Prune pages show its trees instead of
    the session's grower; the data set stays active beside it (its rows feed the data-driven views).
    """
    return st.session_state.get(MODEL)


def current_model_name() -> str:
    """File name of the open model ("" when none is open)."""
    return str(st.session_state.get(MODEL_NAME, "")) if current_model() is not None else ""


def set_model(model, name: str) -> None:
    """Open ``model`` (read from the file ``name``): it replaces any open model; member 0 is shown."""
    st.session_state[MODEL] = model
    st.session_state[MODEL_NAME] = str(name)
    st.session_state[MODEL_MEMBER] = 0
    st.session_state[SELECTED_NODE] = 0
    st.session_state.pop(MODEL_CLASSES, None)
    st.session_state.pop(MODEL_COLUMNS, None)
    _bump_version()


def close_model() -> None:
    """Close the open model: the pages go back to the tree grown here."""
    for key in (MODEL, MODEL_NAME, MODEL_MEMBER, MODEL_CLASSES, MODEL_COLUMNS):
        st.session_state.pop(key, None)
    st.session_state[SELECTED_NODE] = 0
    _bump_version()


def model_member() -> int:
    """Index of the open model's member tree the pages show (kept within the model's trees)."""
    model = current_model()
    k = int(st.session_state.get(MODEL_MEMBER, 0))
    return k if model is not None and 0 <= k < model.n_trees else 0


def model_classes(target: str, labels: tuple[str, ...]) -> dict[str, str] | None:
    """The open model's class -> data label mapping chosen for the target ``target`` whose labels are
    ``labels`` (sorted), or None when none was chosen for them (another data set or target)."""
    kept = st.session_state.get(MODEL_CLASSES)
    if kept and kept[0] == target and kept[1] == tuple(labels):
        return dict(kept[2])
    return None


def set_model_classes(target: str, labels: tuple[str, ...], mapping: dict[str, str]) -> None:
    """Read the open model's classes as the data's labels by ``mapping`` (model class -> data label) while
    the target ``target`` has the ``labels``; the pages' metrics and names follow (the version bumps)."""
    st.session_state[MODEL_CLASSES] = (str(target), tuple(labels), dict(mapping))
    _bump_version()


def set_model_member(k: int) -> None:
    """Show member ``k`` of the open model (the node selection goes back to its root)."""
    if int(k) != model_member():
        st.session_state[SELECTED_NODE] = 0
    st.session_state[MODEL_MEMBER] = int(k)


# ------------------------------------------------------------------------------- config, grower
def suggested_config():
    """The config a freshly loaded data set starts with: its sample's textbook algorithm.

    E.g. ID3 for "play_tennis" (so the first Step shows Mitchell's Outlook, gain 0.246) and C4.5
    for "play_tennis_numeric"; CART for uploads. Split search "auto": histogram search only when
    the training rows exceed ``histogram_above_rows`` (100,000), so textbook samples stay exact.
    """
    from engine.config import TreeConfig
    from engine.data.dataset import SAMPLES

    info = SAMPLES.get(current_dataset_name())
    return TreeConfig(algorithm=info.algorithm if info is not None else "cart",
                      split_search=DEFAULT_SPLIT_SEARCH)


def current_config():
    """The active ``engine.TreeConfig``.

    Until a page calls :func:`set_config`, this follows the data set (:func:`suggested_config`);
    once the user has chosen a config, it stays when the data changes.
    """
    cfg = st.session_state.get(TREE_CONFIG)
    return cfg if cfg is not None else suggested_config()


def set_config(cfg) -> None:
    """Make ``cfg`` the active TreeConfig; the grower is rebuilt from it on next use."""
    st.session_state[TREE_CONFIG] = cfg
    reset_tree()


def current_grower():
    """The session's ``engine.Grower`` on the train split (created lazily from the config).

    Raises the engine's ConfigError/DataError if the config does not fit the data; pages show it.
    """
    grower = st.session_state.get(GROWER)
    if grower is None:
        from engine.grow.grower import Grower

        split = current_split()
        grower = Grower(split.train, current_config(), validation_data=split.validation, n_jobs=current_n_jobs())
        st.session_state[GROWER] = grower
    return grower


def set_grower(grower) -> None:
    """Store a grower a page built itself (it must be on ``current_split().train``)."""
    st.session_state[GROWER] = grower
    _bump_version()


def reset_tree() -> None:
    """Drop the grower and the node selection (the data, split or config changed)."""
    st.session_state.pop(GROWER, None)
    st.session_state[SELECTED_NODE] = 0
    _bump_version()


def selected_node() -> int:
    """Id of the node the user selected (0 = root)."""
    return int(st.session_state.get(SELECTED_NODE, 0))


def select_node(node_id: int) -> None:
    """Remember the node the user selected."""
    st.session_state[SELECTED_NODE] = int(node_id)


def data_version() -> int:
    """Increases whenever the data set, split, config or grower is replaced."""
    return int(st.session_state.get(DATA_VERSION, 0))


def _bump_version() -> None:
    st.session_state[DATA_VERSION] = data_version() + 1


# ---------------------------------------------------------------------------------- step notes
def _step_mark(grower, k: int):
    from engine.teach.lesson_replay import step_mark

    return step_mark(grower, k)


def step_note(grower) -> str | None:
    """The teacher's note on the current step (after ``grower.n_steps`` steps), if one was written on this step."""
    k = grower.n_steps
    kept = st.session_state.get(STEP_NOTES, {}).get(k)
    return kept[0] if kept and kept[1] == _step_mark(grower, k) else None


def set_step_note(grower, text: str) -> None:
    """Attach ``text`` to the current step ("" removes the note)."""
    notes = dict(st.session_state.get(STEP_NOTES, {}))
    text = str(text).strip()
    if text:
        notes[grower.n_steps] = (text, _step_mark(grower, grower.n_steps))
    else:
        notes.pop(grower.n_steps, None)
    st.session_state[STEP_NOTES] = notes


def step_notes(grower, upto: int | None = None) -> dict[int, str]:
    """The notes that belong to this grower's steps (``upto``: its first steps only), by steps taken."""
    upto = grower.n_steps if upto is None else upto
    return {k: text for k, (text, mark) in st.session_state.get(STEP_NOTES, {}).items()
            if k <= upto and mark == _step_mark(grower, k)}


def restore_lesson(*, loaded: Dataset, dataset: Dataset, name: str, settings: dict[str, Any], split, config,
                   grower, seed: int, notes: dict[int, tuple]) -> None:
    """Make a replayed lesson the session's state (everything computed before: nothing here can fail)."""
    ss = st.session_state
    for key in (MODEL, MODEL_NAME, MODEL_MEMBER, MODEL_CLASSES, MODEL_COLUMNS):
        ss.pop(key, None)
    ss[SEED] = int(seed)
    ss[DATASET], ss[DATASET_NAME], ss[LOADED_DATASET] = dataset, str(name), loaded
    ss[SPLIT_SETTINGS], ss[DATA_SPLIT] = dict(settings), split
    ss[TREE_CONFIG] = config
    ss[GROWER] = grower
    ss[STEP_NOTES] = dict(notes)  # {steps taken: (text, step mark)}, also for steps after the one opened at
    split_nodes = [r.node_id for r in grower.history if r.action in ("split", "forced")]
    ss[SELECTED_NODE] = split_nodes[-1] if split_nodes else 0
    _bump_version()
