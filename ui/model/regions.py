"""Decision regions of an open model: its answer over two chosen numeric features, with every other
feature held at a value the user picks (the held row starts at the data's typical row, or at the median
threshold each feature is tested at when there is no matching data).

The grid is ``engine.viz.ensemble_figs.decision_grid`` run on :class:`ModelGrid`, a view of the model
that predicts every grid point with the held values; the model predicts with all its trees
(``ImportedModel.predict_proba`` / ``predict``), so the map is exactly what the model answers there.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from engine.errors import DataError, EngineError
from engine.viz.ensemble_figs import decision_grid
from engine.viz.regions import sample_rows
from ui import state
from ui.feature_table import row_frame, tested_first
from ui.model.common import class_names, data_matches, data_targets, model_frame, split_counts, typed_row
from ui.model.figures import region_map_figure
from ui.widgets import md_escape, shorten
from ui.charts import show_chart

W_X, W_Y = "_w_model_reg_x", "_w_model_reg_y"
RESOLUTION = 80  # grid points per axis (6,400 rows predicted by every tree at once)
MAX_POINTS = 3000
BLOCK_CELLS = 1 << 20  # grid cells (rows x features) predicted at a time: 8 MB of floats


class ModelGrid:
    """What ``decision_grid`` asks of an ensemble, answered by an ImportedModel with ``held`` values for the
    features other than ``x`` and ``y``: ``member_outputs`` gives the probabilities (or values),
    ``tally`` passes them on, ``combine`` gives the values (regression).

    The grid it is given needs only the ``x`` and ``y`` columns: the held row is encoded once and the grid
    is predicted in blocks of about :data:`BLOCK_CELLS` cells, so a model of 10,000 features costs a few
    MB here, not the 512 MB of a 6,400 x 10,000 frame."""

    def __init__(self, model, held: dict, x: str, y: str):
        self.model, self.held, self.axes = model, dict(held), (x, y)
        self.schema, self.task, self.classes = model.schema, model.task, model.classes

    def member_outputs(self, grid: pd.DataFrame, upto=None) -> np.ndarray:
        model = self.model
        row = model.encode(row_frame(model.feature_names, model.schema.kinds, self.held))[0]
        cols = [model.feature_names.index(a) for a in self.axes]
        axes = np.column_stack([pd.to_numeric(grid[a]).to_numpy(dtype=float) for a in self.axes])
        step = max(1, BLOCK_CELLS // max(row.size, 1))
        out = []
        for start in range(0, len(axes), step):
            block = np.repeat(row[None, :], min(step, len(axes) - start), axis=0)
            block[:, cols] = axes[start:start + step]
            out.append(model.predict_proba(block) if self.task == "classification"
                       else np.asarray(model.predict(block), dtype=float))
        return np.concatenate(out)

    def tally(self, outputs, upto=None):
        return outputs

    def combine(self, votes):
        return votes


def numeric_features(model) -> list[str]:
    """The model's numeric features, the ones its trees test most often first (the default axes)."""
    kind = dict(zip(model.feature_names, model.schema.kinds))
    return [n for n in tested_first(model.feature_names, split_counts(model)) if kind[n] == "numeric"]


def span_frame(model, x: str, y: str, held: dict) -> pd.DataFrame:
    """Two rows of ``x`` and ``y`` spanning the thresholds the model tests them at (padded), for a map
    without data (the other features are the held row's: :class:`ModelGrid` adds them)."""
    cols = {}
    for name in (x, y):
        j = model.feature_names.index(name)
        t = [n.split.threshold for tree in model.trees for n in tree.internal_nodes
             if n.split.feature_index == j and n.split.kind == "threshold" and np.isfinite(n.split.threshold)]
        at = float(held[name]) if np.isfinite(held[name]) else 0.0  # a held value may be missing
        lo, hi = (min(t), max(t)) if t else (at - 1, at + 1)
        pad = 0.15 * (hi - lo) if hi > lo else 1.0
        cols[name] = [lo - pad, hi + pad]
    return pd.DataFrame(cols)


def render_regions(model) -> None:
    ds = state.current_dataset()
    numeric = numeric_features(model)
    if len(numeric) < 2:
        st.info("The decision regions need two numeric features; this model has "
                f"{len(numeric):d}.")
        return
    c1, c2 = st.columns(2)
    if st.session_state.get(W_X) not in numeric:
        st.session_state[W_X] = numeric[0]
    x = c1.selectbox("Horizontal axis", numeric, key=W_X, format_func=lambda n: shorten(n, 40))
    others = [n for n in numeric if n != x]
    if st.session_state.get(W_Y) not in others:
        st.session_state[W_Y] = others[0]
    y = c2.selectbox("Vertical axis", others, key=W_Y, format_func=lambda n: shorten(n, 40))
    st.caption("Every other feature is held at the values below (the star marks the held row); change them "
               "to see how the regions move.")
    held = typed_row(model, ds, key="_w_model_reg_q", expanded=len(model.feature_names) <= 12).iloc[0].to_dict()
    matching = data_matches(model, ds)
    frame = model_frame(model, ds) if matching else span_frame(model, x, y, held)
    points = None
    names = class_names(model, ds)  # the data's labels for a model that numbers its classes 0..K-1
    if matching:
        try:
            labels, _ = data_targets(model, ds)
        except DataError as err:
            st.caption(f"Rows not drawn: {md_escape(err)}")
        else:
            xs = pd.to_numeric(frame[x], errors="coerce").to_numpy(dtype=float)
            ys = pd.to_numeric(frame[y], errors="coerce").to_numpy(dtype=float)
            known = np.flatnonzero(np.isfinite(xs) & np.isfinite(ys))
            rows = known[sample_rows(known.size, MAX_POINTS, state.current_seed())]
            points = (xs[rows], ys[rows], np.asarray([names.get(v, v) for v in np.asarray(labels)[rows]], dtype=object))
    try:
        gx, gy, win, strength = decision_grid(ModelGrid(model, held, x, y), frame, x, y,
                                              base={x: held[x], y: held[y]}, resolution=RESOLUTION)
    except EngineError as err:
        st.error(md_escape(str(err).replace("ensemble", "model")))
        return
    fig = region_map_figure(gx, gy, win, strength, task=model.task, classes=[names[c] for c in model.classes], x=x, y=y,
                            points=points, held=held)
    show_chart(fig, key="model_regions", lead="The model's decision regions", width="stretch")
    if model.task == "classification":
        st.caption("Each cell shows the class the model predicts there; the paler, the closer the vote.")
