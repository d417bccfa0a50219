"""Ensembles page: AdaBoost one round at a time.

A slider picks round m. The map shows the combined decision of rounds 1..m (weighted by z), the rows
drawn with marker area proportional to the weights round m was trained on, and round m's stump cut;
below it the round's numbers, the rule in words and what a randomised stump drew.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from engine.teach.narration_prune_boost import narrate_boost_round
from engine.teach.narration import row_noun
from engine.viz import ensemble_figs as figs
from ui.classroom import presenter as classroom
from ui import state
from ui.ensembles.views import member_diagram, memo, pick_xy
from ui.widgets import md_escape, shorten
from ui.charts import show_chart

W_ROUND = "_w_ens_round"


def _cut(tree):
    root = tree.root
    if root.is_leaf:
        return None
    return root.split.feature, root.split.threshold if root.split.kind == "threshold" else None


def rounds_table(ens) -> pd.DataFrame:
    return pd.DataFrame([{"round": r.index + 1, "learner": r.learner, "error": r.error, "z": r.z,
                          "correct rows x": r.factor if r.kept else np.nan, "kept": r.kept}
                         for r in ens.rounds])


def render_rounds(ens, train) -> None:
    rounds = ens.rounds
    n = len(rounds)
    if st.session_state.get(W_ROUND, 1) > n:
        st.session_state[W_ROUND] = n
    m = st.slider("Round", 1, n, 1, key=W_ROUND) if n > 1 else 1
    rnd = rounds[m - 1]
    kept_upto = sum(1 for r in rounds[:m] if r.kept)
    c = st.columns(4)
    c[0].metric("weighted error", f"{rnd.error:.4f}")
    c[1].metric("z = ln((1−e)/e)" + (" + ln(K−1)" if len(ens.classes) > 2 else ""), f"{rnd.z:.4f}")
    c[2].metric("correct rows × e/(1−e)" if len(ens.classes) == 2 else "correct rows × e^(−z)",
                f"{rnd.factor:.4f}" if rnd.kept else "–")
    c[3].metric("rows misclassified", f"{int(rnd.misclassified.sum())} of {rnd.misclassified.size}")
    st.text(narrate_boost_round(rnd, n_classes=len(ens.classes), lang=classroom.switches().lang,
                                noun=row_noun(state.current_dataset_name())))
    if rnd.note:
        st.warning(rnd.note)
    xy = pick_xy(train, prefix="rounds")
    left, right = st.columns([3, 2], gap="large")
    with left:
        if xy is not None:
            x, y = xy
            member = ens.members[rnd.member] if rnd.kept else None
            fig = memo(("round", ens, m, x, y), lambda: figs.ensemble_region_figure(
                ens, train.frame, train.frame[train.target], x, y, upto=max(kept_upto, 1),
                marker_sizes=rnd.weights, cut=_cut(member.tree) if member else None,
                title=f"Rounds 1–{m} combined; marker area = weight in round {m}"))
            show_chart(fig, key="ens_round_map", lead="AdaBoost round: the weighted rows and the stump's split")
        else:
            top = np.argsort(rnd.weights)[::-1][:15]
            st.dataframe(pd.DataFrame({"row": train.row_ids[top], "weight": rnd.weights[top]}), hide_index=True)
    with right:
        show_chart(figs.rounds_figure(rounds, current=m), key="ens_rounds_chart",
                   lead="AdaBoost rounds: error and weight of each stump")
        if rnd.kept:
            member_diagram(ens.members[rnd.member].tree)
    if rnd.draw is not None:
        d = rnd.draw
        st.caption(f"Round {m:d}'s randomised stump drew the feature {md_escape(shorten(d.feature))}"
                   + (f" (after skipping {md_escape(', '.join(d.skipped))}, which had one value)" if d.skipped else "")
                   + "; its candidate tests and their weighted gains:")
        st.dataframe(pd.DataFrame({"test": d.tests, "gain": d.gains, "chosen": [i == d.chosen for i in
                                                                                range(len(d.tests))]}),
                     hide_index=True, column_config={"gain": st.column_config.NumberColumn(format="%.4f")})
    with st.expander("All rounds"):
        st.dataframe(rounds_table(ens), hide_index=True, column_config={
            c: st.column_config.NumberColumn(format="%.4f") for c in ("error", "z", "correct rows x")})
