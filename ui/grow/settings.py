"""Grow page settings: the widgets that make a ``TreeConfig``, kept in step with the active config.

Settings widgets mirror the active config (``ui.state.current_config``): whenever that config is not
the one the widgets were filled from (a new data set, a shared link, a return to the page), every
widget is refilled from it. A change to any widget builds a new ``TreeConfig`` in a callback, which
the engine validates; on success the config becomes active and the tree is reset (``state.set_config``),
on a ``ConfigError`` the sentence is kept and shown with ``st.error`` and the old tree stays.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import streamlit as st

from engine.config import C45_RULES, INT_LIMITS, PRESETS, TreeConfig
from engine.errors import ConfigError
from ui import state
from ui.widgets import flash, md_escape

P = "_w_grow_"
W_ALGO, W_CRIT, W_SCORE, W_CAT = P + "algorithm", P + "criterion", P + "score", P + "categorical"
W_DEPTH, W_MSS, W_MSL, W_MID = P + "max_depth", P + "min_split", P + "min_leaf", P + "min_decrease"
W_LEAVES, W_CHI2, W_VAL, W_ORDER, W_BASE = (P + "max_leaves", P + "chi2", P + "validation", P + "order",
                                            P + "base")
W_SEARCH, W_BINS, W_ABOVE = P + "split_search", P + "max_bins", P + "hist_above"
W_GAIN, W_RULES = P + "min_gain", P + "c45_rules"
SETTINGS = (W_ALGO, W_CRIT, W_SCORE, W_CAT, W_DEPTH, W_MSS, W_MSL, W_MID, W_LEAVES, W_CHI2, W_VAL,
            W_ORDER, W_BASE, W_SEARCH, W_BINS, W_ABOVE, W_GAIN, W_RULES)
SYNCED = "_grow_widgets_cfg"  # the config the settings widgets were filled from
CONFIG_ERROR = "_grow_config_error"  # sentence of the last rejected settings change
PRESET = "preset"
ALGO_LABELS = {"id3": "ID3", "c45": "C4.5", "cart": "CART"}
CRITERIA = ("entropy", "gini", "misclassification")
SCORES = ("gain", "gain_ratio")
CAT_SPLITS = ("multiway", "subset", "equals")
ORDERS = {"breadth": "breadth-first", "depth": "depth-first", "best": "best-first (largest gain)"}
CHI2_LEVELS = ("off", "0.1", "0.05", "0.01", "0.001")
BASES = {"bits": 2.0, "nats": math.e}
SEARCHES = {"auto": "Automatic (histogram on big data)", "exact": "Exact", "histogram": "Histogram"}
RULE_LABELS = {"min_split": "split sizes", "mdl": "MDL correction", "value_threshold": "value thresholds",
               "average_gain": "average gain", "all_values": "all-value branches"}


def preset_rules(algorithm) -> tuple[str, ...]:
    """The J48 rules the algorithm's preset switches on: all for C4.5, none otherwise."""
    return C45_RULES if algorithm == "c45" else ()

# ------------------------------------------------------------------------------- pure helpers
def option_label(value: str) -> str:
    """A settings option as shown: the same text whatever the algorithm.

    The browser sends a selectbox's choice back as its shown text, so a label that followed the
    algorithm ("preset (entropy)" becoming "preset (gini)" on CART) came back as an unknown option and
    every later run failed with "criterion must be one of ...". The preset's value goes in the widget's
    label instead (:func:`preset_label`).
    """
    return value.replace("_", " ")


def preset_label(name: str, preset_value: str | None) -> str:
    """``Impurity (preset: gini)``: the widget's label names what "preset" means for this algorithm."""
    return f"{name} (preset: {preset_value.replace('_', ' ')})" if preset_value else name


def widget_values(cfg: TreeConfig) -> dict:
    """The settings widgets' values showing ``cfg`` (None fields shown as "preset")."""
    return {
        W_ALGO: cfg.algorithm, W_CRIT: cfg.criterion if cfg.criterion in CRITERIA else PRESET,
        W_SCORE: cfg.score or PRESET, W_CAT: cfg.categorical_split or PRESET,
        W_DEPTH: cfg.max_depth, W_MSS: cfg.min_samples_split, W_MSL: cfg.min_samples_leaf,
        W_MID: float(cfg.min_impurity_decrease), W_GAIN: float(cfg.min_gain), W_LEAVES: cfg.max_leaf_nodes,
        W_RULES: list(preset_rules(cfg.algorithm) if cfg.c45_rules is None else cfg.c45_rules),
        W_CHI2: "off" if cfg.chi2_alpha is None else format(cfg.chi2_alpha, "g"),
        W_VAL: bool(cfg.validation), W_ORDER: cfg.order,
        W_BASE: "nats" if math.isclose(cfg.entropy_base, math.e) else "bits",
        W_SEARCH: cfg.split_search, W_BINS: cfg.max_bins, W_ABOVE: cfg.histogram_above_rows,
    }


def _opt(value):
    return None if value in (None, PRESET) else value


def _whole(value):
    """A widget number as int when it is whole (number inputs may hand back floats)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def config_from_widgets(values: Mapping) -> TreeConfig:
    """A ``TreeConfig`` from the settings widgets' values; the engine validates (ConfigError)."""
    chi2 = values.get(W_CHI2, "off")
    base = values.get(W_BASE, "bits")
    algorithm = values.get(W_ALGO, "cart")
    rules = values.get(W_RULES)
    rules = None if rules is None or set(rules) == set(preset_rules(algorithm)) else tuple(rules)
    return TreeConfig(
        algorithm=algorithm, criterion=_opt(values.get(W_CRIT)), c45_rules=rules,
        score=_opt(values.get(W_SCORE)), categorical_split=_opt(values.get(W_CAT)),
        max_depth=_whole(values.get(W_DEPTH)), min_samples_split=_whole(values.get(W_MSS, 2)),
        min_samples_leaf=_whole(values.get(W_MSL)),
        min_impurity_decrease=float(values.get(W_MID) or 0.0), min_gain=float(values.get(W_GAIN) or 0.0),
        max_leaf_nodes=_whole(values.get(W_LEAVES)),
        chi2_alpha=None if chi2 in (None, "off") else float(chi2),
        validation=bool(values.get(W_VAL, False)), order=values.get(W_ORDER, "breadth"),
        entropy_base=BASES.get(base, base) if isinstance(base, str) else float(base),
        split_search=values.get(W_SEARCH) or state.DEFAULT_SPLIT_SEARCH,
        max_bins=_whole(values.get(W_BINS) or 255),
        histogram_above_rows=_whole(values.get(W_ABOVE) if values.get(W_ABOVE) is not None else 100_000),
    )


def search_text(cfg: TreeConfig, n_rows: int | None = None) -> str:
    """Which split search ``cfg`` uses on ``n_rows`` training rows, in words.

    ``exact search`` (every midpoint between sorted values) or ``histogram search, 255 bins: thresholds
    at bin edges, exact in nodes of at most 255 rows``; an unresolved "auto" (``n_rows`` unknown) reads
    ``automatic search (histogram above 100,000 rows)``.
    """
    search = cfg.split_search
    if search == "auto" and n_rows is not None:
        search = cfg.resolved("classification", n_rows).split_search
    if search == "histogram":
        return (f"histogram search, {cfg.max_bins:,} bins: thresholds at bin edges, exact in nodes of at most "
                f"{cfg.max_bins:,} rows")
    if search == "exact":
        return "exact search"
    return f"automatic search (histogram above {cfg.histogram_above_rows:,} rows)"


def config_summary(cfg: TreeConfig, task: str, n_rows: int | None = None) -> str:
    """One line naming the resolved settings, e.g. ``ID3 · entropy (bits) · gain · multiway``.

    With ``n_rows`` (the training rows) it ends with the split search the tree uses (:func:`search_text`).
    """
    r = cfg.resolved(task)
    crit = r.criterion + (" (nats)" if r.criterion == "entropy" and math.isclose(r.entropy_base, math.e)
                          else " (bits)" if r.criterion == "entropy" else "")
    parts = [ALGO_LABELS[r.algorithm], crit, r.score.replace("_", " "), f"{r.categorical_split} categories"]
    if r.max_depth is not None:
        parts.append(f"depth ≤ {r.max_depth}")
    if r.min_samples_split != 2:
        parts.append(f"split ≥ {r.min_samples_split} rows")
    if r.c45_rules == C45_RULES:
        parts.append(f"J48's rules, M = {r.min_samples_leaf}")
    elif r.c45_rules:
        parts.append("J48's rules: " + ", ".join(RULE_LABELS[x] for x in r.c45_rules) + f"; M = {r.min_samples_leaf}")
    elif r.min_samples_leaf != 1:
        parts.append(f"leaf ≥ {r.min_samples_leaf} rows")
    if r.min_gain:
        parts.append(f"gain ≥ {r.min_gain:g}")
    if r.min_impurity_decrease:
        parts.append(f"weighted decrease ≥ {r.min_impurity_decrease:g}")
    if r.max_leaf_nodes is not None:
        parts.append(f"≤ {r.max_leaf_nodes} leaves")
    if r.chi2_alpha is not None:
        parts.append(f"χ² α = {r.chi2_alpha:g}")
    if r.validation:
        parts.append("validation stopping")
    parts.append(ORDERS[r.effective_order].split(" ")[0])
    if n_rows is not None:
        parts.append(search_text(cfg, n_rows))
    return " · ".join(parts)


def _on_settings_change() -> None:
    ss = st.session_state
    values = {k: ss.get(k) for k in SETTINGS}
    synced = ss.get(SYNCED)
    if synced is not None and values[W_ALGO] != synced.algorithm:
        values[W_RULES] = list(preset_rules(values[W_ALGO]))   # a new algorithm starts from its own rules
    preset = PRESETS.get(values[W_ALGO], {})
    score = _opt(values.get(W_SCORE)) or preset.get("score")
    cat = _opt(values.get(W_CAT)) or preset.get("categorical_split")
    if values.get(W_RULES) and (score != "gain_ratio" or cat != "multiway"):
        values[W_RULES] = []        # J48's rules pick multiway splits by gain ratio: another score turns them off
    try:
        cfg = config_from_widgets(values)
    except ConfigError as err:
        ss[CONFIG_ERROR] = str(err)
        return
    grown = ss.get(state.GROWER) is not None and ss[state.GROWER].n_steps > 0
    state.set_config(cfg)
    ss[SYNCED] = cfg
    ss.pop(CONFIG_ERROR, None)
    ss["_grow_playing"] = False  # Play stops: the tree it was growing is gone
    flash("info", "Settings changed: the tree was reset" + (" (its steps were discarded)" if grown else "")
          + ". Step or grow it again with the new settings.")


def _sync_widgets(cfg: TreeConfig) -> None:
    ss = st.session_state
    if ss.get(SYNCED) == cfg and all(k in ss for k in SETTINGS):
        return
    for key, value in widget_values(cfg).items():
        ss[key] = value
    ss[SYNCED] = cfg
    ss.pop(CONFIG_ERROR, None)


# ------------------------------------------------------------------------------------ widgets
def settings_panel(task: str, has_validation: bool) -> None:
    """The settings expander; shows a rejected change's sentence with ``st.error``."""
    cfg = state.current_config()
    _sync_widgets(cfg)
    preset = PRESETS[st.session_state[W_ALGO]] if st.session_state[W_ALGO] in PRESETS else {}
    kw = {"on_change": _on_settings_change}
    with st.expander("Settings: algorithm, impurity, stopping rules", key=P + "settings_box"):
        c = st.columns(4)
        c[0].selectbox("Algorithm", list(ALGO_LABELS), format_func=ALGO_LABELS.get, key=W_ALGO,
                       help="Presets: ID3 = entropy + gain + multiway; C4.5 = Weka's J48: entropy + gain "
                            "ratio + J48's rules (below) with M = 2; CART = Gini + binary subsets.", **kw)
        if task == "regression":
            c[1].selectbox("Impurity", ["variance"], disabled=True, key=P + "variance",
                           help="Regression trees always use the variance of the target.")
        else:
            c[1].selectbox(preset_label("Impurity", preset.get("criterion")), [PRESET, *CRITERIA], key=W_CRIT,
                           format_func=option_label, **kw)
        c[2].selectbox(preset_label("Score", preset.get("score")), [PRESET, *SCORES], key=W_SCORE,
                       format_func=option_label, **kw)
        c[3].selectbox(preset_label("Categorical split", preset.get("categorical_split")), [PRESET, *CAT_SPLITS],
                       key=W_CAT, format_func=option_label, **kw,
                       help="multiway: one child per value; subset: best binary grouping; "
                            "equals: one value against the rest.")
        c = st.columns(4)
        c[0].number_input("Max depth (empty = none)", *INT_LIMITS["max_depth"], value=None, step=1, key=W_DEPTH, **kw)
        c[1].number_input("Min rows to split", *INT_LIMITS["min_samples_split"], step=1, key=W_MSS, **kw)
        c[2].number_input("Min rows per leaf (empty = preset)", *INT_LIMITS["min_samples_leaf"], value=None, step=1,
                          key=W_MSL,
                          placeholder="preset (C4.5: 2, else 1)",
                          help="Each child needs at least this many rows (preset 1). With J48's rules on it "
                               "is J48's M (preset 2 on C4.5), counted in case weight: a row with a missing "
                               "value counts by its fraction.", **kw)
        c[3].number_input("Min gain", min_value=0.0, step=0.01, format="%.3f", key=W_GAIN, **kw,
                          help="The lecture notes' rule: a node is split only if its own best gain reaches "
                               "this value.")
        c = st.columns([1, 3])
        c[0].number_input("Min impurity decrease", min_value=0.0, step=0.001, format="%.4f", key=W_MID, **kw,
                          help="scikit-learn's rule: split only if (node rows / all rows) × gain reaches this "
                               "value, so CART gives scikit-learn's tree.")
        c[1].multiselect("C4.5: J48's rules", list(C45_RULES), format_func=RULE_LABELS.get, key=W_RULES,
                         disabled=task == "regression", **kw,
                         help="On for the C4.5 preset, which then grows Weka J48's tree; switch each off to "
                              "follow the lecture notes instead. Split sizes: a threshold needs "
                              "0.1 × weight / classes (between M and 25) on each side, a multiway split two "
                              "branches with ≥ M. MDL correction: a threshold's gain loses log2(candidate "
                              "thresholds) / weight. Value thresholds: the largest training value at or "
                              "below the cut, not the midpoint. Average gain: gain ≥ average − 0.001, "
                              "averaged over numeric features and categorical ones with fewer values than "
                              "0.3 × rows. All-value branches: a branch for every value of the feature; "
                              "empty ones predict their parent's classes.")
        c = st.columns(4)
        c[0].number_input("Max leaves (empty = none)", *INT_LIMITS["max_leaf_nodes"], value=None, step=1, key=W_LEAVES,
                          help="Forces best-first growth.", **kw)
        c[1].selectbox("χ² significance α", CHI2_LEVELS, key=W_CHI2, **kw,
                       help="Split only when the chi-square test of the split is significant at α.")
        c[2].selectbox("Expansion order", list(ORDERS), format_func=ORDERS.get, key=W_ORDER, **kw)
        c[3].radio("Entropy unit", list(BASES), key=W_BASE, horizontal=True, **kw,
                   help="bits: log base 2; nats: natural log. Only entropy changes.")
        st.checkbox("Validation stopping: split only if accuracy on the validation rows improves",
                    key=W_VAL, disabled=task == "regression" and not st.session_state.get(W_VAL), **kw)
        if task == "regression":
            st.caption("Validation stopping compares accuracy, so it is for classification targets only.")
        elif not has_validation:
            st.caption("Validation stopping needs validation rows: set a validation share on the Data page.")
            st.page_link("pages/data.py", label="Open the Data page", icon=":material/table_view:")
        c = st.columns([2, 1, 1])
        c[0].selectbox("Split search", list(SEARCHES), key=W_SEARCH, **kw,
                       format_func=SEARCHES.get,
                       help="Exact: every midpoint between sorted values. Histogram: each numeric feature is "
                            "cut once into at most 'max bins' quantile bins and thresholds sit at bin edges "
                            "(much faster on big data; gain tables are then at bin resolution). Nodes with no "
                            "more rows than bins are searched exactly.")
        c[1].number_input("Max bins", *INT_LIMITS["max_bins"], step=1, key=W_BINS, **kw,
                          help="Bins per numeric feature for histogram search.")
        c[2].number_input("Histogram above N rows", *INT_LIMITS["histogram_above_rows"], step=10_000, key=W_ABOVE, **kw,
                          help="Automatic search uses histograms when the training rows exceed this.")
        st.caption("Changing any setting starts a new tree.")
    if st.session_state.get(CONFIG_ERROR):
        st.error(md_escape(st.session_state[CONFIG_ERROR], limit=1000), icon=":material/error:")
