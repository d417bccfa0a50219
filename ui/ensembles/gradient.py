"""Ensembles page: gradient boosting one round at a time.

The trained ensemble holds every round; the page walks through them: ``Step a round`` / ``Back`` / ``Play``
(one round a second until the last) / ``To the end``. For the current round m it shows what
its tree fits (the pseudo-residuals against one or two features), the tree (the members' diagram), the
running prediction before and after (a curve along one feature, or the decision map over two), the training
and test loss against the rounds, and one row's raw output as the start value plus each round's share (the
imported models' waterfall), with the round narrated in the classroom language.
"""

from __future__ import annotations

import time

import numpy as np
import streamlit as st

from engine.teach.narration import row_noun
from engine.teach.narration_prune_boost import narrate_gradient_round, narrate_gradient_start
from engine.viz import ensemble_figs as figs
from engine.viz.boosting import loss_figure, residual_figure, running_curve, running_figure
from ui import state, why
from ui.charts import show_chart
from ui.classroom import presenter as classroom
from ui.ensembles.gradient_grow import render_regrow
from ui.ensembles.views import member_diagram, memo, numeric_features
from ui.model.figures import waterfall_figure
from ui.widgets import NARRATION_LIMIT, md_escape

ROUND, PLAYING, PLAY_LAST = "_gb_round", "_gb_playing", "_gb_play_last"
W_CLASS, W_ROW, W_DIMS, W_X, W_Y = "_w_gb_class", "_w_gb_row", "_w_gb_dims", "_w_gb_x", "_w_gb_y"
PLAY_SECONDS = 1.0


def current_round(ens) -> int:
    """The round shown (1..M), kept per user; a new ensemble starts at round 1."""
    m = st.session_state.get(ROUND)
    if not isinstance(m, int) or not 1 <= m <= ens.n_rounds:
        m = st.session_state[ROUND] = 1
    return m


def _set_round(m: int, playing: bool = False) -> None:
    st.session_state[ROUND] = m
    st.session_state[PLAYING] = playing


def _play(m: int, n_rounds: int) -> None:
    """Play: the next round at once, then one a second (see :func:`_tick`)."""
    _set_round(min(m + 1, n_rounds), m + 1 < n_rounds)
    st.session_state[PLAY_LAST] = time.monotonic()


def controls(ens) -> int:
    """Back / Step a round / Play (Pause) / To the end; returns the round to show."""
    m = current_round(ens)
    M = ens.n_rounds
    c = st.columns([1, 1.3, 1, 1.2, 3])
    c[0].button("Back", key="_w_gb_back", icon=":material/skip_previous:", disabled=m <= 1,
                on_click=_set_round, args=(max(1, m - 1),))
    c[1].button("Step a round", key="_w_gb_step", type="primary", icon=":material/skip_next:", disabled=m >= M,
                on_click=_set_round, args=(min(M, m + 1),))
    if st.session_state.get(PLAYING):
        c[2].button("Pause", key="_w_gb_pause", icon=":material/pause:", on_click=_set_round, args=(m, False))
    else:
        c[2].button("Play", key="_w_gb_play", icon=":material/play_arrow:", disabled=m >= M,
                    on_click=_play, args=(m, M))
    c[3].button("To the end", key="_w_gb_end", icon=":material/last_page:", disabled=m >= M,
                on_click=_set_round, args=(M,))
    c[4].markdown(f"**Round {m:d} of {M:d}** · learning rate {ens.learning_rate:g}")
    return m


def _tick(n_rounds: int) -> None:
    """One Play tick: the next round once a second has passed since the last, then a full rerun (the last
    round stops Play)."""
    ss = st.session_state
    if not ss.get(PLAYING) or time.monotonic() - float(ss.get(PLAY_LAST, 0.0)) < 0.95 * PLAY_SECONDS:
        return
    m = min(int(ss.get(ROUND, 1)) + 1, n_rounds)
    _set_round(m, m < n_rounds)
    ss[PLAY_LAST] = time.monotonic()
    st.rerun()


def render(ens, split) -> None:
    """Controls and the current round; while playing, a small fragment polls four times a second and
    steps a round each second (as the Grow page's Play: the page itself reruns in full)."""
    render_round(ens, split, controls(ens))
    if st.session_state.get(PLAYING):
        st.fragment(_tick, run_every=PLAY_SECONDS / 4)(ens.n_rounds)


def _column_picker(ens) -> int:
    if ens.n_columns == 1:
        return 0
    classes = list(ens.classes)
    if st.session_state.get(W_CLASS) not in classes:
        st.session_state[W_CLASS] = classes[0]
    cls = st.selectbox("Class tree (one tree per class and round)", classes, key=W_CLASS)
    return classes.index(cls)


def _features(train):
    nums = numeric_features(train)
    if not nums:
        st.info("The plots need a numeric feature; this data set has none. The tree and the loss are below.")
        return None
    dims = st.radio("Plot against", [1, 2] if len(nums) > 1 else [1], key=W_DIMS, horizontal=True,
                    format_func=lambda d: "one feature" if d == 1 else "two features")
    c = st.columns(2)
    if st.session_state.get(W_X) not in nums:
        st.session_state[W_X] = nums[0]
    x = c[0].selectbox("x axis", nums, key=W_X)
    if dims == 1:
        return (x,)
    rest = [v for v in nums if v != x]
    if st.session_state.get(W_Y) not in rest:
        st.session_state[W_Y] = rest[0]
    return x, c[1].selectbox("y axis", rest, key=W_Y)


def render_round(ens, split, m: int) -> None:
    train, test = split.train, split.test
    r = m - 1
    rnd = ens.rounds[r]
    lang = classroom.switches().lang
    noun = row_noun(state.current_dataset_name())
    cols = st.columns(4)
    cols[0].metric("training loss", f"{rnd.train_loss:.4g}", f"{rnd.train_loss - rnd.train_loss_before:+.3g}",
                   delta_color="inverse")
    tests = np.array([rd.test_loss for rd in ens.rounds], dtype=float)
    if np.isfinite(tests[r]):
        cols[1].metric("test loss", f"{tests[r]:.4g}")
        cols[2].metric("lowest test loss", f"{np.nanmin(tests):.4g}", f"round {int(np.nanargmin(tests)) + 1}",
                       delta_color="off")
    cols[3].metric("rows in this round", f"{len(train) if rnd.in_sample is None else int(rnd.in_sample.sum()):,}")
    # the app's own sentences, escaped for the feature and class names in them, cut at NARRATION_LIMIT
    if m == 1:
        st.markdown(md_escape(narrate_gradient_start(ens, lang=lang, noun=noun), limit=NARRATION_LIMIT))
    st.markdown(md_escape(narrate_gradient_round(ens, r, lang=lang, noun=noun), limit=NARRATION_LIMIT))
    k = _column_picker(ens)
    tree = ens.members[rnd.members[k]].tree
    raw_before = memo(("gb_raw", ens, r), lambda: ens.raw(train, r))
    res = ens.loss.residuals(np.asarray(train.y), raw_before)[:, k]
    fitted = memo(("gb_fit", ens, r, k), lambda: ens.round_outputs(train, r)[:, k])
    what = "residual" if ens.n_columns == 1 and ens.task == "regression" else (
        f"residual of {ens.classes[k] if ens.n_columns > 1 else ens.classes[1]}")
    feats = _features(train)
    left, right = st.columns([3, 2], gap="large")
    with left:
        if feats is not None:
            show_chart(residual_figure(ens, train.frame, res, fitted, *feats, in_sample=rnd.in_sample,
                                            what=what), key="gb_residuals")
    with right:
        st.caption(f"Round {m:d}'s tree (leaf values before × {ens.learning_rate:g}; "
                   + ("the mean residual" if ens.task == "regression" else "one Newton step") + ")")
        member_diagram(tree)
    render_regrow(ens, train, r, k)
    row_pos = _row_picker(train)
    row = train.frame.iloc[[row_pos]]
    left, right = st.columns([3, 2], gap="large")
    with left:
        if feats is not None and len(feats) == 1:
            x = feats[0]
            values = dict(zip(train.feature_names, row[list(train.feature_names)].iloc[0].tolist()))
            curve = memo(("gb_curve", ens, r, x, row_pos, k), lambda: running_curve(ens, train.frame, x, values, r,
                                                                                   column=k))
            target = np.asarray(train.y, dtype=float) if ens.task == "regression" else \
                (np.asarray(train.y) == (k if ens.n_columns > 1 else 1)).astype(float)
            show_chart(running_figure(curve, train.frame, target, x, r, row_x=float(values[x]), what=(
                train.target if ens.task == "regression" else f"P({ens.classes[k if ens.n_columns > 1 else 1]})")),
                key="gb_running")
        elif feats is not None:
            x, y = feats
            labels = train.frame[train.target]
            maps = st.columns(2)
            for where, upto, title in ((maps[0], r, f"after {r} rounds"), (maps[1], m, f"after {m} rounds")):
                fig = memo(("gb_map", ens, upto, x, y), lambda upto=upto, title=title: figs.ensemble_region_figure(
                    ens, train.frame, labels, x, y, upto=upto, resolution=60, title=title, height=420))
                show_chart(fig, key=f"gb_map_{'before' if upto == r else 'after'}", where=where)
    with right:
        show_chart(loss_figure(ens.rounds, current=m, loss_name=_loss_words(ens)), key="gb_loss")
    steps = ens.waterfall(row, k, upto=m)
    output = "value" if ens.task == "regression" else str(ens.classes[k if ens.n_columns > 1 else 1])
    answer = ens.predict_proba(row, m)[0] if ens.task == "classification" else None
    answer_text = (f"{ens.predict(row, m)[0]:.4g}" if answer is None else
                   ", ".join(f"P({c}) = {p:.3f}" for c, p in zip(ens.classes, answer)))
    link = "identity" if ens.task == "regression" else ("logistic" if ens.n_columns == 1 else "softmax")
    show_chart(waterfall_figure(steps, output=output, link=link, answer_text=answer_text),
                    key="gb_waterfall", width="stretch")
    st.subheader("Why this prediction")
    st.caption("The same row's margin (its value for regression) after all rounds, split among the features two ways.")
    why.render_row(ens, row, key="gb_why")
    why.render_summary(ens, train.frame, key="gb_why", ident=("gb", id(ens), state.data_version()))
    if test is not None and len(test):
        st.caption(f"Test rows: {len(test):,}. The star on the loss chart is the round after which more "
                   "rounds make the test loss worse: where overfitting starts.")


def _loss_words(ens) -> str:
    return "mean squared error" if ens.task == "regression" else "log-loss"


def _row_picker(train) -> int:
    n = len(train)
    if not isinstance(st.session_state.get(W_ROW), int) or not 0 <= st.session_state[W_ROW] < n:
        st.session_state[W_ROW] = 0
    return int(st.number_input(f"Training row for the curve and the waterfall (0–{n - 1})", 0, n - 1,
                               key=W_ROW, step=1))
