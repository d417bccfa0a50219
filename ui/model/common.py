"""Shared pieces of the model views: which member tree is shown, whether the data set has the model's
columns, the data set's rows and targets in the model's terms, and a row to explain (typed or picked).

Member trees are numbered from 0 in the file's order, as XGBoost and LightGBM number them; a boosted
multi-class model has one tree per class in each round, so tree ``t`` belongs to round ``t // K`` and
scores class ``t % K`` (``ImportedModel.tree_outputs``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from engine.errors import DataError
from engine.models.checks import output_names
from engine.tree.edit import rename_classes
from engine.viz.regions import typical_row
from ui import state
from ui.feature_table import FEW, row_frame, value_table
from ui.grow.views import memo
from ui.widgets import md_escape, shorten

W_MEMBER = "_w_model_member"
W_ROW_SOURCE, W_ROW = "_w_model_row_source", "_w_model_row"
ROW_SOURCES = {"data": "a row of the data set", "typed": "values I type"}


# -------------------------------------------------------------------------------------------- members
def member_role(model, t: int, shown: dict[str, str] | None = None) -> str:
    """``round 1, class versicolor`` (boosted), ``round 4`` (one tree a round), ``""`` (forests, one tree).
    ``shown`` maps the model's class names to the labels shown (:func:`class_names`)."""
    if model.kind != "additive":
        return ""
    names = output_names(model)
    out = model.tree_outputs[t] if model.tree_outputs else t % max(model.trees_per_round, 1)
    role = f"round {model.tree_round(t)}"
    name = (shown or {}).get(names[out], names[out])
    return role + (f", class {name}" if model.n_outputs > 1 else "")


def member_label(model, t: int) -> str:
    """``Tree 3 of 15 (round 1, class versicolor)``: trees numbered from 0 as in the model file; a model that
    numbers its classes 0..K-1 shows the data set's labels when the data set matches it."""
    role = member_role(model, t, class_names(model, state.current_dataset()) if model.n_outputs > 1 else None)
    return f"Tree {t} of {model.n_trees}" + (f" ({role})" if role else "")


def _on_member() -> None:
    state.set_model_member(int(st.session_state.get(W_MEMBER) or 0))


def member_picker(model, where=None) -> int:
    """A number input choosing the member tree every page shows (kept in ``state.MODEL_MEMBER``)."""
    if model.n_trees == 1:
        return 0
    current = state.model_member()
    if st.session_state.get(W_MEMBER) != current:
        st.session_state[W_MEMBER] = current
    where = where or st.container()
    where.number_input(f"Tree (0 to {model.n_trees - 1})", min_value=0, max_value=model.n_trees - 1, step=1,
                       key=W_MEMBER, on_change=_on_member,
                       help="The member tree shown on the Grow, Rules and Prune pages, numbered from 0 in the "
                            "file's order; a boosted model with K classes has K trees per round, one per class.")
    return state.model_member()


def current_tree(model):
    """The member tree the pages show."""
    return model.trees[state.model_member()]


# ------------------------------------------------------------------------------------------------ data
def column_match(model, ds):
    """How the data set ``ds``'s columns feed the model's features (``engine.models.matching``): by name,
    by the library's renaming, or by position when the model names them generically (target left out).
    Remembered for the model, the columns and the target (a page asks several times a run)."""
    columns = tuple(map(str, ds.frame.columns))
    kept = st.session_state.get(state.MODEL_COLUMNS)
    if kept is None or kept[0] is not model or kept[1:3] != (columns, ds.target):
        kept = (model, columns, ds.target, model.match_columns(columns, ds.target))
        st.session_state[state.MODEL_COLUMNS] = kept
    return kept[3]


def missing_columns(model, ds) -> list[str]:
    """The model's feature columns the data set ``ds`` does not have (in the model's order)."""
    return list(column_match(model, ds).missing)


def data_matches(model, ds) -> bool:
    return column_match(model, ds).ok


def model_frame(model, ds, rows=None) -> pd.DataFrame:
    """The data set's feature columns under the model's names, in its order (``rows``: positions, default
    all); the data set must match the model (:func:`data_matches`)."""
    frame = ds.frame if rows is None else ds.frame.iloc[rows]
    return column_match(model, ds).frame(frame)


def data_labels(ds) -> tuple[str, ...]:
    """The target's distinct labels as text, sorted."""
    return tuple(sorted(set(ds.frame[ds.target].astype(str))))


def default_classes(model, labels) -> dict[str, str] | None:
    """Model class -> data label as the training libraries number them: the class itself when every label
    is one of the model's classes (scikit-learn keeps its labels), else, when the model numbers its K
    classes 0..K-1 (XGBoost, LightGBM) or there are K labels, the labels in sorted order (scikit-learn's
    LabelEncoder, which LightGBM's and XGBoost's scikit-learn interfaces use); None when they cannot fit."""
    classes = list(model.classes)
    if set(labels) <= set(classes):
        return {c: c for c in classes}
    if len(labels) == len(classes):
        return dict(zip(classes, sorted(labels)))
    return None


def class_map(model, ds) -> dict[str, str] | None:
    """The model class -> data label mapping in use: the one chosen on the Data page for this target and
    labels, else :func:`default_classes`."""
    labels = data_labels(ds)
    return state.model_classes(ds.target, labels) or default_classes(model, labels)


def data_targets(model, ds) -> tuple[np.ndarray, str]:
    """The data set's targets as the model's labels (classes as text, or numbers) and a note ("" or a
    sentence on how labels were matched). Raises DataError when the targets cannot be the model's."""
    values = ds.frame[ds.target]
    if model.task == "regression":
        y = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
        if ds.task != "regression" or not np.isfinite(y).any():
            raise DataError(f"The model predicts numbers but the target '{shorten(ds.target, 40)}' holds classes; "
                            "pick a numeric target on the Data page.")
        return y, ""
    labels = values.astype(str).to_numpy(dtype=object)
    classes = list(model.classes)
    mapping = class_map(model, ds)
    if mapping is None:
        seen = data_labels(ds)
        raise DataError(f"The target '{shorten(ds.target, 40)}' holds {len(seen):,} values that are not the "
                        f"model's {len(classes):,} classes ({', '.join(shorten(c, 15) for c in classes[:8])}); "
                        "pick the target the model was trained on.")
    inverse = {v: c for c, v in mapping.items()}
    if all(c == v for c, v in mapping.items()):
        return labels, ""
    y = pd.Series(labels).map(inverse).to_numpy(dtype=object)
    pairs = ", ".join(f"{shorten(c, 15)} = {shorten(v, 20)}" for c, v in list(mapping.items())[:10])
    if state.model_classes(ds.target, data_labels(ds)) is None:
        return y, (f"The model names its classes {', '.join(shorten(c, 15) for c in classes[:10])}; they are read "
                   f"as the target's values in sorted order (as scikit-learn's LabelEncoder numbers them): {pairs}. "
                   "The Data page can change this.")
    return y, f"The model's classes are read as the target's values chosen on the Data page: {pairs}."


def class_names(model, ds=None) -> dict[str, str]:
    """Model class -> the label shown (the data's label for it when the data set matches the model)."""
    names = {c: c for c in model.classes}
    if ds is not None and model.task == "classification" and data_matches(model, ds):
        names.update(class_map(model, ds) or {})
    return names


def shown_tree(model, tree, t: int | None = None):
    """Member ``t``'s ``tree`` (as read, or refitted on the data) with its classes named as every page shows
    them (:func:`class_names`: the data's labels the Data page maps the model's classes to; without a
    matching data set, the model's own names): rules' THEN, the boxes, hover and the inspector all read
    ``tree.schema.classes`` and the nodes' predictions. Remembered per data version (a new mapping bumps it)
    unless ``t`` is None (a tree made on this run, such as a pruned one)."""
    if tree.task != "classification":
        return tree
    names = class_names(model, state.current_dataset())
    if t is None:
        return rename_classes(tree, names)
    kept = memo(("model_shown", id(model), t, id(tree)), lambda: (tree, rename_classes(tree, names)))
    return kept[1]


def inner_unknown(model, tree) -> bool:
    """Whether ``tree``'s inner nodes hold no class shares or weights of their own: a file that keeps none
    (``ImportedModel.inner_values`` False, ONNX) and no data set's rows counted them (:func:`shown_tree`'s
    tree as read). The diagram then draws those boxes neutral (``tree_figure(unknown_inner=True)``)."""
    return not model.inner_values and not tree.root.is_leaf and tree.root.n_node_samples == 0


# ------------------------------------------------------------------------------------------------ rows
def default_row(model, ds=None) -> dict:
    """Starting values for a typed row: the data's typical row when it has the model's columns; otherwise
    the median of the thresholds each feature is tested at (0 when never tested), a category's first label."""
    if ds is not None and data_matches(model, ds):
        return typical_row(model.schema, model_frame(model, ds))
    forest = model.compiled                  # the first 200 trees' threshold tests, read from the routing arrays
    first = slice(0, int(forest.roots[200]) if forest.roots.size > 200 else forest.node_id.size)
    tests = ~forest.is_leaf[first] & ~forest.is_cat[first]
    feature, threshold = forest.feature[first][tests], forest.threshold[first][tests]
    row = {}
    for j, (name, kind) in enumerate(zip(model.feature_names, model.schema.kinds)):
        if kind == "numeric":
            at = threshold[feature == j]
            row[name] = float(np.median(at)) if at.size else 0.0
        else:
            cats = model.schema.categories[j]
            row[name] = cats[0] if cats else ""
    return row


def split_counts(model) -> dict[str, int]:
    """``{feature: number of splits testing it}`` over all the model's trees (untested features left out),
    counted from the flat routing tables the model predicts with (built once per model)."""
    forest = model.compiled
    counts = np.bincount(forest.feature[~forest.is_leaf], minlength=len(model.feature_names))
    return {model.feature_names[j]: int(counts[j]) for j in np.flatnonzero(counts)}


def typed_row(model, ds=None, *, key: str = "_w_model_q", expanded: bool = True) -> pd.DataFrame:
    """Inputs for every feature of the model (numbers or a category); the one-row frame they make. Up to
    ``FEW`` features: a box each; more: one table (:func:`ui.feature_table.value_table`), the features
    the model's splits test first (the others cannot change its answer)."""
    base = default_row(model, ds)
    names, kinds = model.feature_names, model.schema.kinds
    with st.expander("Row values", expanded=expanded):
        if len(names) > FEW:
            categories = {n: list(model.schema.categories[j]) for j, n in enumerate(names) if kinds[j] != "numeric"}
            default = ("the data set's typical value (median, or most frequent label)" if ds is not None and
                       data_matches(model, ds) else "the median of the thresholds they are tested at (0 when never "
                       "tested" + ("; a category's first label)" if categories else ")"))
            return row_frame(names, kinds, value_table(names, kinds, categories, base, key=key,
                                                       tests=split_counts(model), tester="the model's splits",
                                                       default_text=default))
        values = {}
        cols = st.columns(4)
        for j, name in enumerate(names):
            box = cols[j % 4]
            label = md_escape(shorten(name, 40))
            if kinds[j] == "numeric":
                values[name] = box.number_input(label, value=float(base[name]), key=f"{key}_{j}", format="%.6g")
            else:
                cats = list(model.schema.categories[j])
                values[name] = box.selectbox(label, cats, index=cats.index(base[name]) if base[name] in cats else 0,
                                             key=f"{key}_{j}")
    return pd.DataFrame([values], columns=list(names))


def pick_row(model, ds, *, key: str = "_w_model_q") -> tuple[pd.DataFrame, str]:
    """(one-row frame, description): a row of the data set (when it has the model's columns) or typed values."""
    options = list(ROW_SOURCES) if data_matches(model, ds) else ["typed"]
    if st.session_state.get(W_ROW_SOURCE) not in options:
        st.session_state[W_ROW_SOURCE] = options[0]
    source = st.segmented_control("Explain", options, format_func=ROW_SOURCES.get, key=W_ROW_SOURCE,
                                  required=True) if len(options) > 1 else "typed"
    if source == "typed":
        return typed_row(model, ds, key=key), "the typed row"
    n = len(ds)
    if int(st.session_state.get(W_ROW, 0) or 0) >= n:
        st.session_state[W_ROW] = 0
    pos = int(st.columns([1, 2])[0].number_input(f"Row (0 to {n - 1} of the data set)", 0, n - 1, key=W_ROW))
    label = ds.frame[ds.target].iloc[pos]
    return model_frame(model, ds, [pos]), f"row {pos} of the data set ({ds.target} = {label})"
