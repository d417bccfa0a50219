"""How a model trained elsewhere meets a data set: which column feeds each of its features, and which of
the data's labels each of its classes means.

Columns (:func:`match_columns`). A library may rename the columns it was trained on: LightGBM writes
``mean_radius`` for ``mean radius`` (it replaces white space and the characters ``[]{}":,`` with ``_``);
a model trained on a bare array names them by position (XGBoost ``f0, f1, ...``, LightGBM ``Column_0``,
scikit-learn/skl2onnx ``x0``). Each model feature is matched to the column of the same name, else to the
one column whose name the library would have written the same way; when every name is such a generic
position and the data set has exactly that many feature columns (the target left out), they are matched
by position. The result, a :class:`ColumnMatch`, is what
:meth:`engine.models.model.ImportedModel.encode` (and so ``predict``/``predict_proba``) reads a frame
with.

Classes (:func:`best_mapping`, :func:`agreement`). A model stores its classes as its library numbered
them (XGBoost and LightGBM ``0..K-1``); the data set's labels may be other words for them in another
order. Given the counts ``C[i, j]`` of rows the model puts in class ``i`` whose label is ``j``, a
one-to-one mapping ``m`` agrees with ``sum_i C[i, m(i)] / n`` of the rows; the best mapping is the
assignment that maximises it (every permutation for up to 7 labels, else greedily: the largest
remaining count first). A mapping is suspect when it agrees less than chance (``1/K``) or the best
agrees far better.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["ColumnMatch", "match_columns", "library_name", "best_mapping", "agreement", "Agreement"]

#: Names a library gives the columns of a bare array, with the position they stand for.
GENERIC = re.compile(r"^(?:x|f|Column_|feature_|Feature_)(\d+)$")
#: The characters LightGBM replaces with ``_`` in feature names (white space and JSON's specials).
_LIGHTGBM = re.compile(r'[\s\[\]{}":,]')
#: Labels up to which :func:`best_mapping` tries every one-to-one mapping (7! = 5,040 of them, ~20 ms).
EXHAUSTIVE_UP_TO = 7
#: How much better (share of rows) another mapping must agree to call the current one suspect.
FAR_BETTER = 0.2


def library_name(name: str) -> str:
    """``name`` as LightGBM writes it in its model file (white space and ``[]{}":,`` become ``_``)."""
    return _LIGHTGBM.sub("_", str(name))


@dataclass(frozen=True)
class ColumnMatch:
    """The data column feeding each model feature (``columns[j]`` for ``feature_names[j]``, ``None``
    where none does); ``how``: ``"names"`` (all by their own name), ``"renamed"`` (some through the
    library's renaming), ``"position"`` (generic names, matched by position) or ``"missing"``."""

    feature_names: tuple[str, ...]
    columns: tuple[str | None, ...]
    how: str

    @property
    def ok(self) -> bool:
        return self.how != "missing"

    @property
    def missing(self) -> tuple[str, ...]:
        """The model features no column feeds, in the model's order."""
        return tuple(f for f, c in zip(self.feature_names, self.columns) if c is None)

    @property
    def renamed(self) -> dict[str, str]:
        """{model feature: data column} for the features matched to a column of another name."""
        return {f: c for f, c in zip(self.feature_names, self.columns) if c is not None and c != f}

    def sentence(self) -> str:
        """One plain sentence on how the columns were matched ("" when every name is the data's own)."""
        d = len(self.feature_names)
        if self.how == "position":
            return (f"The model names its {d:,} columns by position ({self.feature_names[0]}, ..., "
                    f"{self.feature_names[-1]}): they are read as the data set's {d:,} feature columns in order "
                    f"({self.columns[0]}, ..., {self.columns[-1]}).")
        if self.how == "renamed":
            pairs = list(self.renamed.items())
            shown = ", ".join(f"{f} = {c}" for f, c in pairs[:3]) + (" ..." if len(pairs) > 3 else "")
            return (f"{len(pairs):,} of the model's columns are the data set's under the names its library gave "
                    f"them (spaces and []{{}}\":, written as _): {shown}.")
        return ""

    def frame(self, data):
        """``data`` (a DataFrame) cut to the matched columns, renamed to the model's names, in its order."""
        if not self.ok:
            raise KeyError(self.missing[0])
        out = data[list(self.columns)]
        out.columns = list(self.feature_names)
        return out

    def __repr__(self) -> str:
        return f"ColumnMatch(how={self.how}, features={len(self.feature_names)}, missing={len(self.missing)})"


def match_columns(feature_names, columns, target: str | None = None) -> ColumnMatch:
    """Match a model's ``feature_names`` to a data set's ``columns``: by name, then by the library's
    renaming (unique matches only), then, when every model name is generic and the columns other than
    ``target`` are exactly as many, by position (the target never feeds a feature by position; by name
    it may: the page then says the target is not the model's)."""
    names = tuple(str(f) for f in feature_names)
    every = [str(c) for c in columns]
    cols = [c for c in every if target is None or c != str(target)]
    have = set(every)
    by_library: dict[str, list[str]] = {}
    for c in every:
        by_library.setdefault(library_name(c), []).append(c)
    found: list[str | None] = []
    for f in names:
        if f in have:
            found.append(f)
        else:
            same = by_library.get(library_name(f), [])
            found.append(same[0] if len(same) == 1 else None)
    if None not in found:
        return ColumnMatch(names, tuple(found), "names" if tuple(found) == names else "renamed")
    positions = [GENERIC.match(f) for f in names]
    if (names and all(positions) and [int(m.group(1)) for m in positions] == list(range(len(names)))
            and len(cols) == len(names) and not have & set(names)):
        return ColumnMatch(names, tuple(cols), "position")
    return ColumnMatch(names, tuple(found), "missing")


# ------------------------------------------------------------------------------------------ classes
def best_mapping(counts) -> tuple[np.ndarray, int]:
    """(``m``, agreeing rows) for a (K_model, K_data) matrix of counts: ``m[i]`` the data label (column)
    for model class ``i``, one-to-one, maximising ``sum_i counts[i, m[i]]``. Every permutation when the
    larger side has at most :data:`EXHAUSTIVE_UP_TO` entries, else greedy (largest remaining count
    first). With more model classes than labels, ``m[i]`` is ``-1`` for the classes left without one."""
    C = np.asarray(counts, dtype=float)
    km, kd = C.shape
    k = max(km, kd)
    square = np.zeros((k, k))
    square[:km, :kd] = C
    if k <= EXHAUSTIVE_UP_TO:
        perms = np.array(list(itertools.permutations(range(k))), dtype=np.int64)
        scores = square[np.arange(k), perms].sum(axis=1)
        m = perms[int(np.argmax(scores))]
    else:
        m = np.full(k, -1, dtype=np.int64)
        work = square.copy()
        for _ in range(k):
            i, j = np.unravel_index(int(np.argmax(work)), work.shape)
            m[i] = j
            work[i, :] = -1.0
            work[:, j] = -1.0
    m = m[:km].copy()
    m[m >= kd] = -1
    agree = int(sum(C[i, j] for i, j in enumerate(m) if j >= 0))
    return m, agree


@dataclass(frozen=True)
class Agreement:
    """How a class mapping fares on a data set: ``accuracy`` of the current mapping, ``best`` the best
    one-to-one mapping (model class -> data label) and its ``best_accuracy``, ``chance`` = 1/K."""

    accuracy: float
    best: dict[str, str]
    best_accuracy: float
    chance: float
    rows: int

    @property
    def suspect(self) -> bool:
        """Below chance while another mapping does better, or another mapping agrees far better."""
        better = self.best_accuracy - self.accuracy
        return better > 1e-12 and (self.accuracy < self.chance or better >= FAR_BETTER)


def agreement(predicted, labels, mapping: dict[str, str]) -> Agreement:
    """Compare model predictions (its classes) with the data's ``labels`` under ``mapping`` (model class
    -> data label) and under the best one-to-one mapping between the two."""
    p_inv, p_seen = pd.factorize(np.asarray(predicted, dtype=object).astype(str))    # hashing, not sorting
    l_inv, l_seen = pd.factorize(np.asarray(labels, dtype=object).astype(str))
    model_classes = list(mapping)
    data_labels = sorted(set(l_seen.tolist()) | set(mapping.values()))
    mi = {c: i for i, c in enumerate(model_classes)}
    di = {c: j for j, c in enumerate(data_labels)}
    rows = np.array([mi.get(c, -1) for c in p_seen.tolist()], dtype=np.int64)[p_inv.ravel()]
    cols = np.array([di[c] for c in l_seen.tolist()], dtype=np.int64)[l_inv.ravel()]
    known = rows >= 0
    C = np.bincount(rows[known] * len(data_labels) + cols[known],
                    minlength=len(model_classes) * len(data_labels)).reshape(len(model_classes), len(data_labels))
    n = max(int(l_inv.size), 1)
    current = sum(C[mi[c], di[v]] for c, v in mapping.items() if v in di)
    m, agree = best_mapping(C)
    best = {c: data_labels[j] if j >= 0 else mapping[c] for c, j in zip(model_classes, m)}
    return Agreement(float(current) / n, best, agree / n, 1.0 / max(len(model_classes), 1), int(l_inv.size))
