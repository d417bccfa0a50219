"""Ensembles page, gradient boosting: the current round's tree grown again split by split.

The round's pseudo-residuals are the numeric target of an ordinary :class:`engine.grow.grower.Grower`
(:func:`engine.ensembles.round_grower`), so each step shows the usual gain table (variance reduction on the
residuals) and the step in words. Grown to the end it is the round's tree, before log-loss's Newton leaf
values replace the leaves' mean residuals. The number of steps is kept per user; the grower is remembered.
"""

from __future__ import annotations

import streamlit as st

from engine.ensembles import round_grower
from engine.teach.narration import narrate_step, row_noun
from ui import state, tree_view
from ui.classroom import presenter as classroom
from ui.ensembles.views import MEMBER_WIDTH, memo
from ui.grow.inspector import gain_table_columns, gain_table_view
from ui.widgets import NARRATION_LIMIT, md_escape

STEPS = "_gb_regrow_steps"


def _steps(key) -> int:
    store = st.session_state.setdefault(STEPS, {})
    return int(store.get(key, 0))


def _set_steps(key, n: int) -> None:
    st.session_state.setdefault(STEPS, {})[key] = max(0, n)


def render_regrow(ens, train, r: int, k: int = 0) -> None:
    """An expander: Step / Undo / Reset on round ``r``'s tree (class column ``k``), its diagram and the last
    split's gain table and narration."""
    with st.expander(f"Grow round {r + 1:d}'s tree split by split (gain tables on the residuals)"):
        key = (id(ens), r, k)
        grower = memo(("gb_grower", ens, r, k), lambda: round_grower(ens, train, r, k))
        want = _steps(key)
        c = st.columns([1, 1, 1, 4])
        c[0].button("Step", key="_w_gb_regrow_step", icon=":material/call_split:", disabled=grower.done and
                    grower.n_steps >= want, on_click=_set_steps, args=(key, want + 1))
        c[1].button("Undo", key="_w_gb_regrow_undo", disabled=want == 0, on_click=_set_steps, args=(key, want - 1))
        c[2].button("Reset", key="_w_gb_regrow_reset", disabled=want == 0, on_click=_set_steps, args=(key, 0))
        if grower.n_steps > want:
            grower.reset()
        if grower.n_steps < want:
            grower.grow(max_steps=want - grower.n_steps)
        _set_steps(key, grower.n_steps)
        c[3].caption(f"{grower.n_steps:d} steps · {grower.tree.n_leaves:d} leaves"
                     + (" · finished: the round's tree" if grower.done else ""))
        tree_view.tree_chart(grower.tree, key=f"gb_regrow_{r:d}_{k:d}", width=MEMBER_WIDTH)
        record = grower.history[-1] if grower.history else None
        if record is None:
            st.caption("Press Step: the root's best split on the residuals, with every feature's best test.")
            return
        lang = classroom.switches().lang
        st.markdown(md_escape(narrate_step(record, grower, lang=lang, noun=row_noun(state.current_dataset_name())),
                              limit=NARRATION_LIMIT))
        table = record.gain_table
        if table is not None:
            view = gain_table_view(table)
            view = view[[c for c in view.columns if c not in ("gain_ratio", "split_info", "eligible")]]   # C4.5's
            st.dataframe(view.dropna(axis=1, how="all"), hide_index=True, width="stretch",
                         column_config=gain_table_columns())
