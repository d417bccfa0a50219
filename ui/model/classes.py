"""The Data page's "model classes" table: which of the data's labels each of the open model's classes
means, and a warning when the data disagree with that reading.

A model stores its classes as its library numbered them (XGBoost and LightGBM ``0..K-1``); the target's
labels may be other words for them in another order. The mapping starts as the libraries number labels
(:func:`ui.model.common.default_classes`), can be changed here (one select per model class; choosing a
label another class had swaps the two, so it stays one-to-one) and is kept in ``ui.state`` for this
target and its labels. When the model's predictions agree with the labels less than chance, or another
one-to-one mapping agrees far better (:func:`engine.models.matching.agreement`), a warning gives both
accuracies and a button to use the better mapping.
"""

from __future__ import annotations

import streamlit as st

from engine.errors import EngineError
from engine.models.matching import agreement
from ui import state
from ui.grow.views import memo
from ui.model.common import class_map, data_labels
from ui.model.with_data import matching, rows_and_targets
from ui.widgets import md_escape, shorten

W_CLASS = "_w_model_class_"  # + the model class's position: the data label chosen for it
W_USE_BEST = "_w_model_classes_best"
MAX_SELECTS = 12  # more model classes than this: no table (the warning and its button still show)


def class_agreement(model):
    """How the model's predictions on the data set's rows agree with their labels under the mapping in
    use, and the best mapping (model class -> data label); remembered per data version."""
    ds = state.current_dataset()

    def compute():
        X, y, _ = rows_and_targets(model)
        mapping = class_map(model, ds)
        found = agreement(model.predict(X), y, {c: c for c in model.classes})
        return found, {c: mapping.get(b, b) for c, b in found.best.items()}
    return memo(("model_agree", id(model)), compute)


def _set(mapping: dict[str, str]) -> None:
    ds = state.current_dataset()
    state.set_model_classes(ds.target, data_labels(ds), mapping)


def _on_class(k: int) -> None:
    """The label chosen for model class ``k``; the class that had that label takes this one's old label."""
    model, ds = state.current_model(), state.current_dataset()
    mapping = dict(class_map(model, ds) or {})
    cls = model.classes[k]
    new, old = st.session_state.get(f"{W_CLASS}{k}"), mapping.get(cls)
    for other, label in mapping.items():
        if label == new and other != cls:
            mapping[other] = old
    mapping[cls] = new
    _set(mapping)


def _pairs(mapping: dict[str, str]) -> str:
    shown = [f"{shorten(c, 15)} → {shorten(v, 20)}" for c, v in list(mapping.items())[:8]]
    return ", ".join(shown) + (" ..." if len(mapping) > 8 else "")


def class_panel(model) -> None:
    """The model class -> data label selects and, when the data disagree with them, the warning."""
    ds = state.current_dataset()
    if model.task != "classification" or not matching(model):
        return
    mapping = class_map(model, ds)
    if mapping is None:
        return
    classes = list(model.classes)
    if len(classes) <= MAX_SELECTS:
        st.markdown("**Model classes** · the data's label each one means")
        options = sorted(set(data_labels(ds)) | set(mapping.values()))
        cols = st.columns(min(len(classes), 4))
        for k, cls in enumerate(classes):
            key = f"{W_CLASS}{k}"
            if st.session_state.get(key) != mapping[cls]:
                st.session_state[key] = mapping[cls]
            cols[k % len(cols)].selectbox(f"Model class {md_escape(shorten(cls, 20))}", options, key=key, on_change=_on_class,
                                          args=(k,), format_func=lambda v: shorten(v, 30),
                                          help="The target's label this class of the model means; choosing a label "
                                               "another class has swaps the two. Every page follows.")
    try:
        found, best = class_agreement(model)
    except EngineError as err:
        st.caption(md_escape(err))
        return
    if not found.suspect:
        return
    st.warning(f"The model's predictions agree with {found.accuracy:.1%} of the data set's labels with these classes "
               f"(chance is {found.chance:.0%}); read as {md_escape(_pairs(best))} they agree with {found.best_accuracy:.1%}. "
               "Was the model trained with its classes numbered another way?", icon=":material/warning:")
    st.button("Use the mapping that agrees best", key=W_USE_BEST, on_click=_set, args=(best,),
              icon=":material/swap_horiz:", help="The classes are read as the labels above on every page; the "
                                                 "selects can change them back.")
