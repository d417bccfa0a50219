"""Values typed for many features at once: one table of features, not one box per feature.

A page that asks for one value per feature (the typed row of the Rules and Ensembles pages, the held
values of a model's decision regions, Grow's query point) draws a box per feature while there are at most
:data:`FEW` of them. Beyond that, boxes cost the page about 12 ms each on every run (a model of 10,000
features took two minutes a visit), so :func:`value_table` draws one ``st.data_editor`` per kind of
feature instead, a row per feature (name, value, how many splits test it), the features the tree tests
first: the few values that can change the answer are at the top and the rest keep their default.

Rows keep their order while the tested features do not change (the editor's edits are kept by row);
when they do, the editor starts again from the values the caller gives (its key holds a digest of the
order).
"""

from __future__ import annotations

import hashlib
import math

import numpy as np
import pandas as pd
import streamlit as st

from ui.widgets import md_escape, shorten

FEW = 24  # more features than this: one table instead of a box each
TABLE_HEIGHT = 248  # CSS px: the header and six rows; the grid scrolls and searches the rest


def split_counts(trees, names) -> dict[str, int]:
    """How many splits of ``trees`` test each feature named in ``names`` (features never tested left out)."""
    counts: dict[str, int] = {}
    for tree in trees:
        for node in tree.internal_nodes:
            name = node.split.feature
            counts[name] = counts.get(name, 0) + 1
    wanted = set(names)
    return {n: c for n, c in counts.items() if n in wanted}


def tested_first(names, tests: dict[str, int]) -> list[str]:
    """``names`` with the tested features first (most splits first, ties in the given order)."""
    if not tests:
        return list(names)
    return sorted(names, key=lambda n: -tests.get(n, 0))


def row_frame(names, kinds, values: dict) -> pd.DataFrame:
    """The one-row frame of ``values`` in ``names`` order (None: NaN for a number, missing for a label); all
    numbers go in as one float block (10,000 columns in milliseconds)."""
    if all(k == "numeric" for k in kinds):
        return pd.DataFrame(np.array([[_number(values.get(n)) for n in names]], dtype=float), columns=list(names))
    cells = [_number(values.get(n)) if k == "numeric" else values.get(n) for n, k in zip(names, kinds)]
    return pd.DataFrame([cells], columns=list(names))


def _digest(names) -> str:
    return hashlib.blake2b("\x00".join(names).encode("utf-8", "surrogatepass"), digest_size=6).hexdigest()


def _number(v) -> float:
    if v is None:
        return math.nan
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


def _layout(names, kinds, tests: dict, key: str) -> list[tuple[str, str, list[str]]]:
    """``[(kind, editor key, features in table order)]``: a table per kind present, numbers first."""
    order = tested_first(names, tests)
    kind_of = dict(zip(names, kinds))
    out = []
    for kind, tag in (("numeric", "num"), ("categorical", "cat")):
        feats = [n for n in order if (kind_of[n] == "numeric") == (kind == "numeric")]
        if feats:
            out.append((kind, f"{key}_{tag}_{_digest(feats)}", feats))
    return out


def _read(kind: str, feats, cells, base: dict, categories: dict) -> tuple[dict, list[str]]:
    """(``{feature: value}`` of a table's cells, features whose typed label is not one of theirs: they keep
    their ``base`` value). An empty cell is None (missing)."""
    values, unknown = {}, []
    for n, v in zip(feats, cells):
        if v is None or (isinstance(v, float) and math.isnan(v)) or (isinstance(v, str) and not v.strip()):
            values[n] = None
        elif kind == "numeric":
            number = _number(v)
            values[n] = None if math.isnan(number) else number
        elif str(v).strip() in {str(c) for c in categories[n]}:
            values[n] = str(v).strip()
        else:
            values[n] = base.get(n)
            unknown.append(n)
    return values, unknown


def _frame(kind: str, feats, base: dict, tests: dict, categories: dict) -> pd.DataFrame:
    data = {"feature": feats}
    if kind == "numeric":
        data["value"] = np.array([_number(base.get(n)) for n in feats], dtype=float)
    else:
        data["value"] = pd.Series([None if base.get(n) is None else str(base[n]) for n in feats], dtype=object)
        data["labels"] = [", ".join(map(str, categories[n][:8])) + (" ..." if len(categories[n]) > 8 else "")
                          for n in feats]
    data["splits"] = np.array([tests.get(n, 0) for n in feats], dtype=np.int64)
    return pd.DataFrame(data)


def _columns(kind: str, number_format: str) -> dict:
    # widths in CSS px that fit a 300 px side column (Grow's query point); a wider table stretches them
    value = (st.column_config.NumberColumn("value", format=number_format, width=90,
                                           help="Type a number; an empty cell is a missing value.")
             if kind == "numeric" else
             st.column_config.TextColumn("value", width=90, help="Type one of the feature's labels; an empty cell "
                                                                 "is a missing value."))
    out = {"feature": st.column_config.TextColumn("feature", width=150), "value": value,
           "splits": st.column_config.NumberColumn("splits", width=50, help="How many splits test this feature: "
                                                   "only the tested features can change the answer.")}
    if kind != "numeric":
        out["labels"] = st.column_config.TextColumn("labels", help="The feature's labels (the first eight).")
    return out


def value_table(names, kinds, categories: dict, base: dict, *, key: str, tests: dict[str, int] | None = None,
                tester: str = "the tree", default_text: str = "their default", number_format: str = "%.6g") -> dict:
    """One table per kind of feature (numbers; categories), a row per feature, the tested ones first.

    ``names``/``kinds``: the features in the model's (or data's) order and ``"numeric"``/``"categorical"``;
    ``categories``: ``{name: labels}`` of the categorical ones; ``base``: ``{name: value}`` the rows start at
    (None = missing); ``tests``: ``{name: number of splits testing it}`` (the splits of ``tester``);
    ``default_text`` says what the rows hold before an edit. Returns ``{name: value}`` for every feature
    (None where the cell is empty; a label that is not the feature's keeps the ``base`` value, with a
    warning)."""
    tests = tests or {}
    n_tested = sum(1 for n in names if tests.get(n, 0) > 0)
    tested = (f"the {n_tested:,} tested by {tester} first (only they can change the answer)" if n_tested
              else f"none is tested by {tester} yet")
    st.caption(f"{len(names):,} features, a row each: {md_escape(tested, None)}. The rows start at "
               f"{md_escape(default_text, None)}. Double-click a value to change it; the magnifier above the "
               "table finds a feature by name.")
    values, unknown = dict(base), []
    for kind, editor, feats in _layout(names, kinds, tests, key):
        edited = st.data_editor(
            _frame(kind, feats, base, tests, categories), key=editor, hide_index=True, num_rows="fixed",
            width="stretch", height=TABLE_HEIGHT if len(feats) > 7 else "auto",
            disabled=["feature", "splits"] + ([] if kind == "numeric" else ["labels"]),
            column_config=_columns(kind, number_format))
        typed, wrong = _read(kind, feats, edited["value"].tolist(), base, categories)
        values.update(typed)
        unknown += wrong
    if unknown:
        shown = ", ".join(shorten(n, 40) for n in unknown[:5]) + (" ..." if len(unknown) > 5 else "")
        st.warning(f"Not one of the feature's labels, so left at its starting value: {md_escape(shown)}.")
    return values


def edited_values(names, kinds, categories: dict, base: dict, *, key: str,
                  tests: dict[str, int] | None = None) -> dict:
    """What :func:`value_table` with the same arguments returns on the next run, read from its editors'
    edits in session state: for a widget callback (a form's submit button) that runs before the page."""
    values = dict(base)
    for kind, editor, feats in _layout(names, kinds, tests or {}, key):
        cells = [base.get(n) for n in feats]
        state = st.session_state.get(editor) or {}
        for pos, change in (state.get("edited_rows") or {}).items():
            if "value" in change and 0 <= int(pos) < len(cells):
                cells[int(pos)] = change["value"]
        values.update(_read(kind, feats, cells, base, categories)[0])
    return values
