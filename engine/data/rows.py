"""The learners' matrix ``X`` without copies: shared with the table's columns, and row subsets.

A big numeric file is held once. The block-wise parser (:mod:`engine.data.csvio`) writes the float
columns into one read-only Fortran-order matrix, and the cleaning steps pass those columns on
unchanged, so :func:`columns_view` can hand out ``X`` as a view of the same memory. A row subset
(:func:`take_rows`, used by ``Dataset.subset`` and so by ``split``) gathers its encoded features into
one new read-only matrix and builds its table's numeric feature columns as views of it: the training
part of a 1M-row file costs one copy of its rows, not a copied table plus an encoded copy.

Only read-only roots are shared: a DataFrame the caller owns (``Dataset.from_frame``) may be written
to later, so its columns are encoded into a copy as before.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from engine.data.schema import FeatureSchema, encode_labels

__all__ = ["class_codes", "columns_view", "encoded_features", "take_rows"]

_F8 = np.dtype(np.float64)


def _root(a: np.ndarray) -> np.ndarray:
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def columns_view(arrays: list[np.ndarray]) -> np.ndarray | None:
    """A read-only (n, d) view whose column ``j`` is ``arrays[j]``, or None.

    The view exists when every array is a contiguous float64 column of length n inside one read-only,
    contiguous root array, evenly spaced and not overlapping (the columns of the parser's matrix, in
    order or every k-th of them).
    """
    if not arrays or any(not isinstance(a, np.ndarray) for a in arrays):
        return None
    n = len(arrays[0])
    root = _root(arrays[0])
    if n == 0 or root.flags.writeable or not (root.flags.c_contiguous or root.flags.f_contiguous):
        return None
    for a in arrays:
        if a.dtype != _F8 or a.ndim != 1 or len(a) != n or a.strides != (8,) or _root(a) is not root:
            return None
    start = _address(root)
    offsets = [_address(a) - start for a in arrays]
    step = offsets[1] - offsets[0] if len(offsets) > 1 else 8 * n
    if step < 8 * n or offsets[0] < 0 or offsets[0] % 8 or step % 8:
        return None
    if any(b - a != step for a, b in zip(offsets, offsets[1:])) or offsets[-1] + 8 * n > root.nbytes:
        return None
    flat = root.ravel(order="K")  # a view: the root is contiguous
    return np.lib.stride_tricks.as_strided(flat[offsets[0] // 8:], shape=(n, len(arrays)), strides=(8, step),
                                           writeable=False)


def encoded_features(frame: pd.DataFrame, schema: FeatureSchema) -> np.ndarray:
    """Read-only ``X`` of ``frame``: a view of its columns when they are all numeric and laid out as
    :func:`columns_view` needs, else ``schema.encode(frame)``."""
    X = None
    if all(k == "numeric" for k in schema.kinds):
        X = columns_view([frame[n].to_numpy(dtype=np.float64, na_value=np.nan) for n in schema.feature_names])
    if X is None:
        X = schema.encode(frame)
        X.flags.writeable = False
    return X


def class_codes(labels: pd.Series, classes: tuple[str, ...]) -> np.ndarray:
    """int64 positions of ``labels`` in ``classes`` (-1 if absent), from the distinct labels only
    (``pd.Categorical`` would make a Python string per row of an Arrow-backed column first)."""
    codes, distinct = pd.factorize(labels, use_na_sentinel=True)
    lookup = pd.Index(list(classes), dtype=object).get_indexer(pd.Index(distinct, dtype=object))
    return np.append(lookup, -1).astype(np.int64)[codes]


def take_rows(frame: pd.DataFrame, schema: FeatureSchema, idx: np.ndarray,
              X: np.ndarray | None = None) -> tuple[pd.DataFrame, np.ndarray]:
    """``(frame.iloc[idx], X of those rows)`` with the numeric feature columns held once.

    ``X`` (the parent's encoded features, if already computed) supplies categorical codes; otherwise
    they are encoded from the taken labels. The returned matrix is read-only, Fortran order, and the
    returned table's numeric feature columns are its columns (the table equals ``frame.iloc[idx]``).
    """
    out = np.empty((len(idx), schema.n_features), dtype=np.float64, order="F")
    numeric: dict[str, np.ndarray] = {}
    for j, (name, kind, cats) in enumerate(zip(schema.feature_names, schema.kinds, schema.categories)):
        if kind == "numeric":  # the table's numeric features are float64 without inf: X's values as is
            np.take(frame[name].to_numpy(dtype=np.float64, na_value=np.nan), idx, out=out[:, j])
            numeric[name] = out[:, j]
        elif X is not None:
            np.take(X[:, j], idx, out=out[:, j])
        else:
            out[:, j] = encode_labels(frame[name].take(idx), cats)
    out.flags.writeable = False
    rest = frame[[c for c in frame.columns if c not in numeric]].take(idx)
    columns = {c: numeric[c] if c in numeric else rest[c].array for c in frame.columns}
    return pd.DataFrame(columns, index=frame.index[idx], copy=False), out
