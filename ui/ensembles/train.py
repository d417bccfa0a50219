"""Ensembles page: the method and its parameters, training with a progress bar, and the stored result.

The trained ensemble lives in ``st.session_state[RESULT]`` (per user) together with the data version
it was trained on; when the data, split or tree settings change (``state.data_version()`` moves on)
the page shows nothing stale and asks to train again. Heavy work only happens on the Train button.
Members grow with the active tree settings (the Grow page's algorithm, criterion and stopping rules);
the validation rule is switched off for members. Bagging and forest members grow on the chosen number of
cores (the progress bar counts members as they arrive; leaving the page stops the pool).
"""

from __future__ import annotations

import time
from dataclasses import replace

import streamlit as st

from engine import ensembles
from ui import state
from ui.ensembles.views import MEMO
from ui.widgets import cores_setting

METHODS = {"bagging": "Bagging", "random_forest": "Random forest", "adaboost": "AdaBoost",
           "gradient_boosting": "Gradient boosting"}
LOSSES = {"squared_error": "squared error", "log_loss": "log-loss"}
BASES = {"stump": "decision stump", "tree": "depth-k tree", "random_stump": "randomised stump"}
RESULT = "ens_result"
W_METHOD = "_w_ens_method"
W_M, W_FRAC, W_K, W_PER_TREE = "_w_ens_m", "_w_ens_frac", "_w_ens_k", "_w_ens_per_tree"
W_ROUNDS, W_BASE, W_DEPTH, W_THRESH = "_w_ens_rounds", "_w_ens_base", "_w_ens_depth", "_w_ens_thresholds"
W_GB_M, W_GB_RATE, W_GB_DEPTH, W_GB_SUB, W_GB_LOSS = "_w_gb_m", "_w_gb_rate", "_w_gb_depth", "_w_gb_sub", "_w_gb_loss"
_QP_APPLIED = "_ens_method_link"


def apply_method_link() -> None:
    """A lesson link's ``?method=...`` preselects the method once per link."""
    wanted = st.query_params.get("method")
    if wanted in METHODS and st.session_state.get(_QP_APPLIED) != wanted:
        st.session_state[W_METHOD] = wanted
        st.session_state[_QP_APPLIED] = wanted


def member_config():
    """The active tree settings for ensemble members (validation rule off)."""
    cfg = state.current_config()
    return replace(cfg, validation=False) if cfg.validation else cfg


def _k_options(d: int) -> list:
    return ["sqrt", "log2"] + list(range(1, d + 1))


def settings_panel(train) -> dict:
    """Draw the method and parameter widgets; return the chosen settings."""
    d = len(train.feature_names)
    methods = list(METHODS) if train.task == "classification" else ["bagging", "random_forest", "gradient_boosting"]
    if st.session_state.get(W_METHOD) not in methods:
        st.session_state[W_METHOD] = "random_forest"
    method = st.segmented_control("Method", methods, format_func=METHODS.get, key=W_METHOD,
                                  required=True) or "random_forest"
    cols = st.columns(4)
    out = {"method": method}
    if method in ("bagging", "random_forest"):
        out["n_estimators"] = cols[0].number_input("Members M", 1, 500, 50 if method == "random_forest" else 25,
                                                   key=f"{W_M}_{method}")
        out["max_samples"] = cols[1].slider("Sample size (share of N)", 0.1, 1.0, 1.0, 0.05, key=W_FRAC,
                                            help="Each bootstrap sample draws this share of N rows with replacement.")
    if method == "random_forest":
        out["max_features"] = cols[2].selectbox(
            "Features k", _k_options(d), key=W_K,
            format_func=lambda v: {"sqrt": f"√d ({max(1, int(d ** 0.5))})",
                                   "log2": "log₂ d"}.get(v, str(v)) if isinstance(v, str) else str(v))
        out["per_tree_features"] = cols[3].radio(
            "Draw the k features", [False, True], key=W_PER_TREE, horizontal=True,
            format_func=lambda v: "per tree (A_i)" if v else "at every split") is True
    if method in ("bagging", "random_forest"):
        cores_setting(st.columns(4)[0])     # not in ``out``: the ensemble is the same for every choice
    if method == "adaboost":
        out["n_rounds"] = cols[0].number_input("Rounds M", 1, 500, 30, key=W_ROUNDS)
        out["base"] = cols[1].selectbox("Base learner", list(BASES), format_func=BASES.get, key=W_BASE)
        if out["base"] == "tree":
            out["max_depth"] = cols[2].number_input("Depth k", 1, 10, 2, key=W_DEPTH)
        if out["base"] == "random_stump":
            out["n_thresholds"] = cols[2].number_input("Random thresholds per stump", 1, 50, 5, key=W_THRESH)
    if method == "gradient_boosting":
        out.update(boosting_settings(train, cols))
    return out


def boosting_settings(train, cols) -> dict:
    """Rounds, learning rate, depth, subsample and loss of gradient boosting (the loss the target allows)."""
    losses = ["squared_error"] if train.task == "regression" else ["log_loss"]
    out = {"n_estimators": cols[0].number_input("Rounds M", 1, 2000, 50, key=W_GB_M),
           "learning_rate": cols[1].number_input("Learning rate ν", 0.001, 1.0, 0.1, 0.01, key=W_GB_RATE,
                                                 format="%.3f", help="Each round adds ν × its tree's leaf values."),
           "max_depth": cols[2].number_input("Tree depth", 1, 10, 3, key=W_GB_DEPTH),
           "subsample": cols[3].slider("Subsample", 0.1, 1.0, 1.0, 0.05, key=W_GB_SUB,
                                       help="Share of the rows each round's tree is fitted on (drawn without "
                                            "replacement; 1 = every row).")}
    if st.session_state.get(W_GB_LOSS) not in losses:
        st.session_state[W_GB_LOSS] = losses[0]
    out["loss"] = st.selectbox("Loss", losses, key=W_GB_LOSS, format_func=LOSSES.get,
                               help="Squared error for a numeric target; log-loss for classes (multinomial, "
                                    "one tree per class and round, with more than two classes).")
    return out


def train(train_ds, settings: dict, test_ds=None):
    """Fit the chosen ensemble on ``train_ds`` with an ``st.progress`` bar; store and return it. Gradient
    boosting records its loss on ``test_ds`` after every round."""
    method = settings["method"]
    kwargs = {k: v for k, v in settings.items() if k != "method"}
    bar = st.progress(0.0, text="Training...")
    word = "rounds" if method == "gradient_boosting" else "members"

    def progress(done: int, total: int) -> None:
        bar.progress(min(1.0, done / max(total, 1)), text=f"{done} of {total} {word} trained")

    started = time.perf_counter()
    try:
        fit = {"bagging": ensembles.fit_bagging, "random_forest": ensembles.fit_random_forest,
               "adaboost": ensembles.fit_adaboost, "gradient_boosting": ensembles.fit_gradient_boosting}[method]
        if method != "adaboost":          # AdaBoost's rounds depend on each other: one core
            kwargs["n_jobs"] = state.current_n_jobs()
        if method == "gradient_boosting":  # CART regression trees on the residuals, as scikit-learn's
            kwargs["test"] = test_ds
        else:
            kwargs["tree_config"] = member_config()
        ens = fit(train_ds, random_state=state.current_seed(), progress=progress, **kwargs)
    finally:
        bar.empty()
    st.session_state.pop(MEMO, None)  # views remembered for the previous ensemble
    st.session_state.pop("_gb_round", None)
    st.session_state.pop("_gb_regrow_steps", None)
    st.session_state[RESULT] = {"version": state.data_version(), "ensemble": ens, "method": method,
                                "seconds": time.perf_counter() - started, "settings": dict(settings)}
    return ens


def current_result() -> dict | None:
    """The stored result if it belongs to the current data, split and settings, else None."""
    res = st.session_state.get(RESULT)
    if res is None or res["version"] != state.data_version():
        return None
    return res


def summary_line(res: dict) -> str:
    ens = res["ensemble"]
    if res["method"] == "gradient_boosting":
        return (f"Gradient boosting: {len(ens.rounds)} rounds ({ens.n_members} trees) trained in "
                f"{res['seconds']:.1f} s · {LOSSES[ens.loss_name]}")
    parts = [f"{METHODS[res['method']]}: {ens.n_members} members trained in {res['seconds']:.1f} s"]
    if ens.in_bag is not None:
        metric = "OOB accuracy" if ens.task == "classification" else "OOB mean squared error"
        parts.append(f"{metric} {ens.oob_score():.3f}")
    p = ens.params
    if res["method"] == "random_forest":
        where = "per tree" if p["feature_sampling"] == "tree" else "per split"
        parts.append(f"k = {p['k_features']} of {len(ens.schema.feature_names)} features {where}")
    return " · ".join(parts)
