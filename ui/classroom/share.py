"""Shareable links: the Grow page's state in the URL, so a teacher can send "open ski at step 5".

The query string carries, for bundled samples only (an uploaded file cannot travel in a link):

- ``data``: the sample name, e.g. ``ski``;
- ``cfg``: the settings that differ from ``TreeConfig()``'s defaults, as ``name:value`` pairs joined
  by commas, with short names (:data:`CFG_KEYS`), e.g. ``alg:id3,depth:3,chi2:0.05,base:e``
  (``search:auto,bins:64,above:50000`` for the split search; a link without ``search`` means exact);
- ``split``: ``test,validation,seed`` when they differ from the sample's default split;
- ``xy``: ``x,y`` in two-feature mode (the tree grows on these two numeric features only);
- ``step``: how many automatic steps to replay (forced splits and collapses are not carried).

Reading is forgiving: each bad piece is dropped with a warning sentence and the rest is used, so a
mangled link never crashes the page. A link is held to the limits of the widgets it stands for: the
settings to :data:`engine.config.INT_LIMITS` (which ``TreeConfig`` itself checks, so a setting named
twice or out of range drops the settings like any bad one), the split to the Data page's
``ui.state.MAX_TEST_SIZE`` / ``MAX_VALIDATION_SIZE`` / ``MAX_SEED``. A parameter given more than
once is read from its last copy, with a warning. Decoding (:func:`decode_params`) is pure; only
:func:`apply_link_once` and :func:`sync_link` touch Streamlit.
"""

from __future__ import annotations

import math
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import streamlit as st

from engine.config import TreeConfig
from engine.data.dataset import SAMPLES
from engine.errors import ConfigError, EngineError
from ui import state
from ui.widgets import flash, md_escape

P_DATA, P_CFG, P_SPLIT, P_FEAT, P_STEP = "data", "cfg", "split", "xy", "step"
PARAMS = (P_DATA, P_CFG, P_SPLIT, P_FEAT, P_STEP)
MAX_SHARED_STEPS = 5_000
APPLIED = "_grow_link_applied"  # session flag: the link was read once in this session

# short name in the link -> TreeConfig field
CFG_KEYS = {
    "alg": "algorithm", "crit": "criterion", "score": "score", "cat": "categorical_split",
    "depth": "max_depth", "mss": "min_samples_split", "msl": "min_samples_leaf",
    # "mid" is the node's own minimum gain: links made before min_impurity_decrease became scikit-learn's
    # weighted decrease meant that, and open the same tree; "dec" is scikit-learn's min_impurity_decrease
    "mid": "min_gain", "dec": "min_impurity_decrease", "rules": "c45_rules",
    "leaves": "max_leaf_nodes", "chi2": "chi2_alpha",
    "val": "validation", "order": "order", "base": "entropy_base",
    # split search (added later: a link without them opens with exact search, as when it was made)
    "search": "split_search", "bins": "max_bins", "above": "histogram_above_rows",
}
_INTS = {"max_depth", "min_samples_split", "min_samples_leaf", "max_leaf_nodes", "max_bins",
         "histogram_above_rows"}
_FLOATS = {"min_impurity_decrease", "min_gain", "chi2_alpha"}


def _num(v: float) -> str:
    return format(float(v), "g")


def encode_config(cfg: TreeConfig) -> str:
    """``cfg`` as ``alg:id3,depth:3,...``: the algorithm plus every shared field that is not default."""
    default = TreeConfig()
    parts = [f"alg:{cfg.algorithm}"]
    for key, name in CFG_KEYS.items():
        value = getattr(cfg, name)
        if name == "algorithm" or value == getattr(default, name):
            continue
        if name == "entropy_base":
            text = "e" if math.isclose(value, math.e) else _num(value)
        elif name == "validation":
            text = "1" if value else "0"
        elif name == "c45_rules":
            text = "+".join(value) if value else "notes"      # () = the lecture notes' C4.5: no J48 rule
        elif value is None:
            text = "none"
        elif name in _FLOATS:
            text = _num(value)
        else:
            text = str(value)
        parts.append(f"{key}:{text}")
    return ",".join(parts)


def _parse_value(name: str, text: str):
    t = text.strip()
    if name == "c45_rules":
        return () if t.lower() == "notes" else tuple(r for r in t.split("+") if r)
    if t.lower() in ("none", "off", ""):
        return None
    if name in _INTS:
        return int(t)
    if name in _FLOATS:
        return float(t)
    if name == "entropy_base":
        return math.e if t.lower() == "e" else float(t)
    if name == "validation":
        if t.lower() in ("1", "true", "yes"):
            return True
        if t.lower() in ("0", "false", "no"):
            return False
        raise ValueError(t)
    return t


def _echo(piece: str, limit: int = 40) -> str:
    """A piece of a link quoted in a warning: cut to ``limit`` characters (a link may be 100 kB)."""
    flat = " ".join(str(piece).split())
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "\u2026")


def decode_config(text: str) -> TreeConfig:
    """The inverse of :func:`encode_config`; raises ConfigError naming the bad piece."""
    values = {}
    for piece in str(text).split(","):
        if not piece.strip():
            continue
        key, sep, raw = piece.partition(":")
        name = CFG_KEYS.get(key.strip())
        if not sep or name is None:
            raise ConfigError(f"The link's setting {_echo(piece.strip())} is not one this app knows.")
        if name in values:
            raise ConfigError(f"The link gives the setting {_echo(key.strip())} more than once.")
        try:
            values[name] = _parse_value(name, raw)
        except ValueError:
            raise ConfigError(f"The link's setting {_echo(piece.strip())} has a value this app cannot read.") from None
    for name in ("min_samples_split", "min_impurity_decrease", "min_gain", "entropy_base",
                 "order", "algorithm", "split_search", "max_bins", "histogram_above_rows"):
        if name in values and values[name] is None:
            values.pop(name)
    return TreeConfig(**values)


def default_split(name: str) -> tuple[float, float, int]:
    """(test, validation, seed) a freshly loaded sample gets (see ``ui.state.default_split_settings``)."""
    rows = SAMPLES[name].rows
    test = 0.0 if rows < state.SMALL_DATA_ROWS else state.DEFAULT_TEST_SIZE
    return (test, 0.0, state.DEFAULT_SEED)


@dataclass(frozen=True)
class SharedState:
    """What a link asks for; ``warnings`` are sentences about the pieces that were dropped."""

    dataset: str | None = None
    config: TreeConfig | None = None
    split: tuple[float, float, int] | None = None
    features: tuple[str, str] | None = None
    steps: int = 0
    warnings: tuple[str, ...] = field(default=())


def _first(value) -> str:
    """The parameter's value; of a parameter given more than once, the last (as ``st.query_params``)."""
    if isinstance(value, (list, tuple)):
        return str(value[-1]) if value else ""
    return str(value)


SPLIT_WARNING = (f"The link's train/test split could not be read (it needs a test share from 0 to "
                 f"{state.MAX_TEST_SIZE:g}, a validation share from 0 to {state.MAX_VALIDATION_SIZE:g} and a "
                 f"seed from 0 to {state.MAX_SEED:,}, as on the Data page); the default split is used.")


def _split(text: str) -> tuple[float, float, int]:
    """``test,validation,seed`` within the Data page's limits; ValueError otherwise."""
    t, v, s = text.split(",")
    split = (float(t), float(v), int(s))
    if not (0 <= split[0] <= state.MAX_TEST_SIZE and 0 <= split[1] <= state.MAX_VALIDATION_SIZE
            and 0 <= split[2] <= state.MAX_SEED):
        raise ValueError(text)
    return split


def decode_params(params: Mapping) -> SharedState:
    """Read the link's parameters; never raises (bad pieces become warnings)."""
    warn: list[str] = []
    repeated = [k for k in PARAMS if isinstance(params.get(k), (list, tuple)) and len(params[k]) > 1]
    if repeated:
        warn.append(f"The link gives {', '.join(repeated)} more than once; the last of each is used.")
    name = None
    if P_DATA in params:
        raw = _first(params[P_DATA]).strip()
        if raw in SAMPLES:
            name = raw
        else:
            warn.append(f"The link names a data set {_echo(raw)} that is not a bundled sample; "
                        "the current data set is kept.")
    cfg = None
    if P_CFG in params:
        try:
            cfg = decode_config(_first(params[P_CFG]))
        except EngineError as err:
            warn.append(f"The link's settings are not valid ({err}) The default settings are used instead.")
    split = None
    if P_SPLIT in params:
        try:
            split = _split(_first(params[P_SPLIT]))
        except ValueError:
            warn.append(SPLIT_WARNING)
    feats = None
    if P_FEAT in params:
        parts = tuple(p.strip() for p in _first(params[P_FEAT]).split(","))
        if len(parts) == 2 and all(parts) and parts[0] != parts[1]:
            feats = parts
        else:
            warn.append("The link's two features could not be read; the tree uses every feature.")
    steps = 0
    if P_STEP in params:
        try:
            steps = int(_first(params[P_STEP]))
            if not 0 <= steps <= MAX_SHARED_STEPS:
                raise ValueError
        except ValueError:
            steps = 0
            warn.append(f"The link's step count must be a whole number from 0 to {MAX_SHARED_STEPS:,}; "
                        "the tree starts at step 0.")
    return SharedState(name, cfg, split, feats, steps, tuple(warn))


def encode_state(*, dataset: str | None, config: TreeConfig, split: tuple[float, float, int],
                 steps: int, features: tuple[str, str] | None = None) -> dict[str, str]:
    """Query parameters for a state; empty when the data set is not a bundled sample."""
    if dataset not in SAMPLES:
        return {}
    out = {P_DATA: dataset, P_CFG: encode_config(config)}
    if tuple(split) != default_split(dataset):
        out[P_SPLIT] = f"{_num(split[0])},{_num(split[1])},{int(split[2])}"
    if features:
        out[P_FEAT] = ",".join(features)
    if steps:
        out[P_STEP] = str(int(steps))
    return out


def link_for(base_url: str | None, params: Mapping[str, str]) -> str:
    """``base_url?params`` (relative ``?params`` when the base is unknown)."""
    query = urllib.parse.urlencode(dict(params), safe=":,")
    return f"{base_url or ''}?{query}"


# --------------------------------------------------------------------------------- Streamlit side
def automatic_steps(grower) -> int | None:
    """Steps a link can replay: all actions when every one was an automatic step, else None."""
    if any(rec.action in ("forced", "collapse") for rec in grower.history):
        return None
    return grower.n_steps


def current_params(grower) -> dict[str, str]:
    """The query parameters describing the session's data, settings, two features and step."""
    from ui.grow.controls import two_features

    settings = state.split_settings()
    steps = automatic_steps(grower) if grower is not None else 0
    return encode_state(dataset=state.current_dataset_name() if _is_sample() else None,
                        config=state.current_config(),
                        split=(settings["test_size"], settings["validation_size"], settings["seed"]),
                        steps=steps or 0, features=two_features())


def _is_sample() -> bool:
    return _same_sample(state.current_dataset_name())


def _same_sample(name: str) -> bool:
    """True when the active data set is the sample ``name`` unedited (kinds, target, task)."""
    from ui.cache import load_sample_cached

    if name not in SAMPLES:
        return False
    ds, sample = state.current_dataset(), load_sample_cached(name)
    return ds.target == sample.target and ds.kinds == sample.kinds and ds.task == sample.task


def apply_link_once() -> None:
    """On the session's first Grow run, load what the URL asks for, then rerun the app.

    Pieces that cannot be used become warnings shown at the top of the page.
    Order: data set, split, settings, two-feature mode, then the steps are replayed.
    """
    from ui.grow import controls as controls
    from ui.grow import lesson_steps

    if st.session_state.get(APPLIED):
        return
    state.current_dataset()  # may rerun through app.py first (fresh server, deep link)
    st.session_state[APPLIED] = True
    params = {k: st.query_params.get_all(k) for k in PARAMS if k in st.query_params}
    if not params:
        return
    shared = decode_params(params)
    warnings = list(shared.warnings)
    try:
        if shared.dataset is not None and shared.dataset != state.current_dataset_name():
            from ui.cache import load_sample_cached

            state.set_dataset(load_sample_cached(shared.dataset), shared.dataset)
        if shared.split is not None:
            state.set_split_settings(test_size=shared.split[0], validation_size=shared.split[1],
                                     seed=shared.split[2])
        if shared.config is not None:
            state.set_config(shared.config)
            try:  # valid alone is not enough: the settings must fit this data set (task, validation rows)
                controls.session_grower()
            except EngineError as err:
                state.set_config(None)
                shared = replace(shared, steps=0)
                warnings.append(f"The link's settings do not fit this data set ({err}) The default settings "
                                "are used and the tree starts at step 0.")
        if shared.features is not None:
            train = state.current_split().train
            if all(f in train.feature_names and train.kind(f) == "numeric" for f in shared.features):
                controls.set_two_features(shared.features)
            else:
                warnings.append("The link's two features are not numeric features of this data set; "
                                "the tree uses every feature.")
        st.session_state.pop(lesson_steps.PREPARED, None)  # the link's state: no prepared lesson
        if shared.steps:
            controls.session_grower().grow(max_steps=shared.steps)
            node = controls.last_split_node(controls.session_grower())
            state.select_node(node if node is not None else 0)
    except EngineError as err:
        state.set_config(None)  # back to the data set's default settings
        warnings.append(f"The link could not be used as it is ({err}) The default settings are used "
                        "and the tree starts afresh.")
    for sentence in warnings:
        flash("warning", md_escape(sentence))
    st.rerun()  # draw the sidebar and the page from the new state


def sync_link(grower) -> dict[str, str]:
    """Write the current state into the address bar (only our parameters; others are kept)."""
    wanted = current_params(grower) if grower is not None else {}
    for key in PARAMS:
        if key in wanted:
            if st.query_params.get(key) != wanted[key]:
                st.query_params[key] = wanted[key]
        elif key in st.query_params:
            del st.query_params[key]
    return wanted


def share_note(grower, wanted: Mapping[str, str]) -> tuple[str, str]:
    """(kind, sentence) explaining what the link carries."""
    if not wanted:
        return ("info", "This data set was uploaded or edited on the Data page: a link cannot carry "
                        "the file or your edits. Save a lesson file below instead: it carries them.")
    if grower is not None and automatic_steps(grower) is None:
        return ("warning", "The link carries the data set and settings but not hand-forced splits "
                           "or collapses: it opens at the start of the tree. A lesson file (below) carries them.")
    return ("success", "The address bar holds this view: anyone opening the link sees the same data "
                       "set, settings and step.")
