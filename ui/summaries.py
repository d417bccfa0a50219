"""Plain tables that describe a data set for the Data page (pure pandas, no Streamlit).

Everything is computed column-wise with vectorised pandas calls (``isna().sum()``, ``nunique()``),
so a 100k x 100 frame is summarised in well under a second.
"""

from __future__ import annotations

import pandas as pd

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
    distinct = frame.nunique(dropna=True)
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
