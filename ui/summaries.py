"""Plain tables that describe a data set for the Data page (pure pandas, no Streamlit).

Everything is computed column-wise with vectorised pandas calls (``isna().sum()``, distinct counts),
so a 100k x 100 frame is summarised in well under a second.
"""

from __future__ import annotations

import pandas as pd

from engine.budget import MANY_CLASSES, budget_bytes, size_text
from engine.data.columns import distinct_count
from engine.errors import DataError
from engine.tree.build import check_target_scale

KIND_LABELS = {"numeric": "numeric", "categorical": "categorical", "ignore": "ignored"}
EXAMPLE_ROWS = 500  # distinct example values are taken from the first rows only


def column_summary(ds) -> pd.DataFrame:
    """One row per column of ``ds.frame``: its role, missing count and share, distinct values, examples.

    Columns of the result: ``column``, ``role`` ("target", "numeric", "categorical", "ignored"),
    ``missing`` (count of missing cells), ``missing_pct`` (missing / rows * 100), ``distinct``
    (number of distinct non-missing values), ``examples`` (up to three distinct values, as text).
    """
    frame = ds.frame
    n = max(len(frame), 1)
    missing = frame.isna().sum()
    # a long id column is counted by sorting it, not hashing it (see engine.data.columns.distinct_count)
    distinct = {name: distinct_count(frame[name]) for name in frame.columns}
    head = frame.head(EXAMPLE_ROWS)
    rows = []
    for name in frame.columns:
        role = "target" if name == ds.target else KIND_LABELS.get(ds.kind(name), ds.kind(name))
        values = head[name].dropna().unique()[:3]
        rows.append({
            "column": str(name),
            "role": role,
            "missing": int(missing[name]),
            "missing_pct": round(100.0 * float(missing[name]) / n, 1),
            "distinct": int(distinct[name]),
            "examples": ", ".join(_short(v) for v in values),
        })
    return pd.DataFrame(rows, columns=["column", "role", "missing", "missing_pct", "distinct",
                                       "examples"])


def class_counts(ds) -> pd.DataFrame:
    """Classification: rows per class in ``ds.classes`` order with their share (``count``, ``share``)."""
    if ds.task != "classification":
        raise ValueError("class_counts needs a classification data set")
    counts = pd.Series(ds.y).value_counts().reindex(range(len(ds.classes)), fill_value=0)
    total = max(int(counts.sum()), 1)
    return pd.DataFrame({
        "class": list(ds.classes),
        "count": counts.to_numpy(dtype=int),
        "share": counts.to_numpy(dtype=float) / total,
    })


def split_counts(split) -> pd.DataFrame:
    """Rows per part of a ``DataSplit`` (train, validation, test), empty parts included as 0."""
    parts = [("train", split.train), ("validation", split.validation), ("test", split.test)]
    return pd.DataFrame({
        "part": [p for p, _ in parts],
        "rows": [0 if d is None else len(d) for _, d in parts],
    })


def _short(value: object, limit: int = 24) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    s = " ".join(str(value).split())
    return s if len(s) <= limit else s[: limit - 1] + "\u2026"


def target_warnings(ds) -> list[str]:
    """Sentences about a target that is likely a mistake: more than ``MANY_CLASSES`` classes (an id or
    free-text column chosen as the target), or numbers too large or too small to square (no tree grows)."""
    out = []
    if ds.task == "classification" and len(ds.classes) > MANY_CLASSES:
        out.append(f"The target has {len(ds.classes):,} classes for {len(ds):,} rows: it is likely an id, a "
                   f"name or free text rather than something to predict, and trees on it need memory for "
                   f"every class in every node (this server allows {size_text(budget_bytes())} a job). "
                   f"Choose another target on the Target tab, or group the classes into a few before "
                   f"uploading.")
    elif ds.task == "regression":
        try:
            check_target_scale(ds.y.astype(float), ds.target)
        except DataError as err:
            out.append(str(err))
    return out
