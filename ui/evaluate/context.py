"""The Evaluate page's context: which tree and rows are evaluated, results kept per session, curve data.

Results are kept in ``st.session_state`` under :data:`CACHE`, keyed by the data version (data, split,
config or grower replaced) and the training features, so switching tabs or pages does not recompute;
anything stale is dropped at once. Expensive runs (cross-validation, learning curve, instability) are
started by a form's button and show ``st.progress``; on first opening a tab they run with the
defaults, so there is always something to look at.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import streamlit as st

from engine.evaluate.curves import depth_curve, overfitting_curve
from engine.errors import DataError
from engine.evaluate.validation import evaluate_sets, holdout
from engine.grow.grower import Grower
from engine.evaluate.metrics import greater_is_better, metric_label, metrics_for
from ui import state

CACHE = "_eval_cache"
X_AXES = {"n_leaves": "number of leaves", "depth": "depth", "n_nodes": "number of nodes"}


@dataclass(frozen=True)
class EvalContext:
    """What the page evaluates: the Grow page's grower (or None), its training rows, the split's other
    parts, the config and the seed. The curves' held-out rows (``curve_train``/``curve_test``) are cut
    on first use, so a data set too small to hold rows out only affects the tabs that need them."""

    grower: Grower | None
    train: object
    validation: object
    test: object
    config: object
    seed: int

    @property
    def task(self) -> str:
        return self.train.task

    @cached_property
    def held_out(self) -> tuple:
        """(train, test, borrowed) for the curves; DataError when there is nothing to hold out."""
        return holdout(self.train, self.test, seed=self.seed)

    @property
    def curve_train(self):
        return self.held_out[0]

    @property
    def curve_test(self):
        return self.held_out[1]

    @property
    def borrowed(self) -> bool:
        return self.held_out[2]


def build_context() -> EvalContext:
    """The context of this run."""
    split = state.current_split()
    grower = st.session_state.get(state.GROWER)
    train = grower.dataset if grower is not None else split.train
    return EvalContext(grower, train, split.validation, split.test, state.current_config(),
                       state.current_seed())


def cached(name: str, params: tuple, compute, *, ctx: EvalContext):
    """``compute()`` once per (data version, training features, name, params) in this session."""
    key = (state.data_version(), ctx.train.feature_names, ctx.seed)
    store = st.session_state.get(CACHE)
    if store is None or store["key"] != key:
        store = {"key": key, "items": {}}
        st.session_state[CACHE] = store
    item = (name, params)
    result = store["items"].pop(item) if item in store["items"] else compute()
    store["items"][item] = result  # most recent last: see stored()
    return result


def stored(name: str, ctx: EvalContext):
    """The last result computed under ``name`` for the current data (params, result), or None."""
    store = st.session_state.get(CACHE)
    if store is None or store["key"] != (state.data_version(), ctx.train.feature_names, ctx.seed):
        return None
    found = [(p, r) for (n, p), r in store["items"].items() if n == name]
    return found[-1] if found else None


def progress_callback(text: str):
    """(callback(done, total), finish()) drawing an ``st.progress`` bar."""
    bar = st.progress(0.0, text=text)

    def update(done: int, total: int) -> None:
        bar.progress(min(1.0, done / max(total, 1)), text=f"{text} ({done}/{total})")

    return update, bar.empty


def full_grower(ctx: EvalContext, train=None) -> Grower:
    """The tree of the current settings grown to the end on ``train`` (default: the Grow page's rows)."""
    train = ctx.train if train is None else train
    validation = ctx.validation if ctx.config.validation else None

    def grow():
        with st.spinner("Growing the full tree..."):
            return Grower(train, ctx.config, validation_data=validation, n_jobs=state.current_n_jobs()).grow()
    return cached("full", (len(train), tuple(train.row_ids[:3])), grow, ctx=ctx)


def grow_page_tree(ctx: EvalContext):
    """The Grow page's tree if it has at least one split, else None."""
    g = ctx.grower
    return g.tree if g is not None and g.tree.n_nodes > 1 else None


def eval_sets(ctx: EvalContext) -> list[tuple[str, object]]:
    return [(n, d) for n, d in (("train", ctx.train), ("validation", ctx.validation), ("test", ctx.test))
            if d is not None and len(d) > 0]


def evaluations(tree, ctx: EvalContext) -> list:
    return evaluate_sets(tree, eval_sets(ctx))


# ------------------------------------------------------------------------------ overfitting curve
def curve_data(ctx: EvalContext, x: str):
    """(curve table, the growth's grower) for the overfitting tab; x = "depth" gives one row per depth."""
    grower = full_grower(ctx, ctx.curve_train)
    sets = [("train", ctx.curve_train)]
    if not ctx.borrowed and ctx.validation is not None and len(ctx.validation):
        sets.append(("validation", ctx.validation))
    sets.append(("test", ctx.curve_test))
    if x == "depth":
        table = cached("depth_curve", (), lambda: depth_curve(grower.tree, sets), ctx=ctx)
    else:
        table = cached("curve", (), lambda: overfitting_curve(grower, sets), ctx=ctx)
    return table, grower


def current_marker(ctx: EvalContext, table, x: str, metric: str) -> dict | None:
    """Where the Grow page's tree sits on the curve (scores only when the curve uses its rows)."""
    tree = grow_page_tree(ctx)
    if tree is None:
        return None
    size = {"n_leaves": tree.n_leaves, "depth": tree.depth, "n_nodes": tree.n_nodes}[x]
    label = f"Grow page (step {ctx.grower.n_steps})"
    if ctx.borrowed:
        return {"x": size, "label": label, "scores": {}}
    sets = [s for s in eval_sets(ctx) if f"{s[0]}_{metric}" in table.columns]
    return {"x": size, "label": label,
            "scores": {e.name: e.scores[metric] for e in evaluate_sets(tree, sets)}}


def best_point_text(table, metric: str, x: str) -> str:
    """A sentence about where the test score peaks compared with the full tree."""
    col = f"test_{metric}"
    values = table[col].to_numpy(dtype=float)
    if not np.isfinite(values).any():
        return ""
    best = int(np.nanargmax(values) if greater_is_better(metric) else np.nanargmin(values))
    row, last = table.iloc[best], table.iloc[-1]
    where = f"{int(row[x])} {'levels' if x == 'depth' else X_AXES[x].replace('number of ', '')}"
    return (f"Best test {metric_label(metric)}: {row[col]:.3f} at {where}; the full tree "
            f"({int(last[x])}) scores {last[col]:.3f} on test and {last[f'train_{metric}']:.3f} on train.")


def metric_choice(task: str, key: str, *, include_f1: bool = False) -> str:
    """A selectbox of the task's metrics (macro F1 only where it is tracked), kept per task while the
    tab is closed; its widget key is ``f"{key}_{task}"``."""
    options = [m for m in metrics_for(task) if include_f1 or m != "macro_f1"]
    return st.selectbox("Score", options, format_func=metric_label, key=f"{key}_{task}", persist_state="session")


def check_rows(ds, what: str) -> None:
    if ds is None or len(ds) < 2:
        raise DataError(f"{what} needs at least two rows; load more data.")
