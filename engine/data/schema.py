"""FeatureSchema: what a tree needs to know about its input columns, and how raw values become labels.

A schema fixes, for every feature, whether it is numeric or categorical and (for categorical ones)
the category labels whose positions are the codes: ``categories[j][c]`` is the label of code ``c``
of feature ``j``. Encoding a table with a schema gives the float matrix the learners use:

    X[i, j] = value                                   (numeric feature j)
    X[i, j] = c  where categories[j][c] == label(v)   (categorical feature j)
    X[i, j] = NaN                                     (missing value or unseen category)

Labels are strings: text is stripped of surrounding spaces, integers are written without ".0"
(``2.0 -> "2"``), other floats with ``repr`` (``2.5 -> "2.5"``), booleans as ``"True"``/``"False"``.
The same rules turn a numeric target into class labels (``0 -> "0"``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from engine.checks import shown
from engine.errors import DataError
from engine.threads import thread_map, threads_for

#: cells above which :meth:`FeatureSchema.encode` encodes columns on threads
ENCODE_THREADS_ABOVE = 1 << 20
#: A table with more numeric feature columns than this and at most WIDE_CELLS cells is encoded in one copy.
WIDE_COLUMNS, WIDE_CELLS = 64, 1 << 22

KINDS = ("numeric", "categorical")
TASKS = ("classification", "regression")

#: Cell texts read as "no value" (compared after stripping spaces, case-insensitively).
#: "None" is deliberately absent: it is a real category in textbook data (AIMA's Patrons = None).
MISSING_MARKERS = frozenset({"", "na", "n/a", "n.a.", "?", "-", "--", "null", "nan", "#n/a", "<na>"})


#: rows per slice when a long text column is checked for text to clean (see ``cleaned_text``)
CLEAN_SLICE_ROWS = 1 << 18
#: MISSING_MARKERS as one pattern, matched case-insensitively by pyarrow's regex engine (the markers are
#: ASCII, so this equals ``lower() in MISSING_MARKERS`` without a lower-cased copy of the column)
_MARKER_PATTERN = "|".join(re.escape(m) for m in sorted(MISSING_MARKERS))


def clean_text(values: pd.Series) -> pd.Series:
    """Text values stripped of surrounding spaces, with missing markers (``NA``, ``?``, ...) as NaN."""
    return cleaned_text(values)[0]


def cleaned_text(values: pd.Series) -> tuple[pd.Series, bool]:
    """:func:`clean_text` of ``values`` and whether that changed any text (stripped or marked missing).

    No lower-cased copy and no Python strings; a column longer than :data:`CLEAN_SLICE_ROWS` is first looked
    at slice by slice, so a clean one (most are: the parser already read the usual missing markers) is
    returned as it is, never holding a stripped copy of the whole column."""
    text = values.astype("str")
    if len(text) > CLEAN_SLICE_ROWS:
        if not any(_cleaned(text.iloc[i:i + CLEAN_SLICE_ROWS])[1] for i in range(0, len(text), CLEAN_SLICE_ROWS)):
            return text, False
    return _cleaned(text)


def _cleaned(text: pd.Series) -> tuple[pd.Series, bool]:
    stripped = text.str.strip()
    marker = stripped.str.fullmatch(_MARKER_PATTERN, case=False, na=False).to_numpy(dtype=bool)
    if marker.any():
        return stripped.mask(marker), True
    # ``==`` of two string arrays: NaN compares unequal, so a missing value counts as unchanged
    same = np.asarray(stripped.array == text.array, dtype=bool) | text.isna().to_numpy()
    return stripped, not bool(same.all())


def _label_of(value: Any) -> str:
    """Label of one (unique) non-missing value; see the module docstring for the rules."""
    if isinstance(value, (bool, np.bool_)):
        return "True" if value else "False"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        number = float(value)
        return str(int(number)) if number.is_integer() and abs(number) < 1e16 else repr(number)
    return str(value).strip()


def factorize_labels(values: pd.Series) -> tuple[np.ndarray, list[str], bool]:
    """Codes (-1 = missing) into the label list of ``values``, and whether the values were numbers.

    Vectorised with ``pd.factorize``; the Python work is one call per distinct value. Distinct
    values that give the same label (``1`` and ``1.0``) share a code.
    """
    numeric = pd.api.types.is_numeric_dtype(values.dtype) and not pd.api.types.is_bool_dtype(values.dtype)
    if numeric:
        values = pd.to_numeric(values, errors="coerce").astype("float64")
        values = values.mask(np.isinf(values.to_numpy()))
    elif pd.api.types.is_bool_dtype(values.dtype):
        pass
    elif pd.api.types.is_object_dtype(values.dtype) and values.map(type).isin([bool, np.bool_]).all():
        pass  # object column of True/False with missing values: keep the booleans
    else:
        values = clean_text(values)
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    labels = [_label_of(u) for u in uniques]
    merged: dict[str, int] = {}
    remap = np.array([merged.setdefault(label, len(merged)) for label in labels] + [-1], dtype=np.int64)
    return remap[codes], list(merged), numeric


def sort_labels(labels: list[str], numeric: bool) -> list[str]:
    """Labels in display order: by value for numbers (``"2" < "10"``), alphabetically for text."""
    if numeric:
        return sorted(labels, key=float)
    return sorted(labels)


def encode_labels(values: pd.Series, categories: tuple[str, ...]) -> np.ndarray:
    """Float codes of ``values`` into ``categories`` (NaN for missing or unseen values)."""
    codes, labels, _ = factorize_labels(values)
    lookup = pd.Index(list(categories))
    position = np.append(lookup.get_indexer(labels), -1).astype(np.float64)
    position[position < 0] = np.nan
    return position[codes]


def all_finite(x: np.ndarray) -> bool:
    """Whether ``x`` (floats) holds neither NaN nor +-inf: one sum, no temporary array (a NaN or inf makes the
    sum non-finite; so can an overflow, which the callers' exact second look then settles)."""
    with np.errstate(invalid="ignore", over="ignore"):
        return bool(np.isfinite(x.sum()))


def encode_numeric(values: pd.Series, out: np.ndarray | None = None) -> np.ndarray:
    """Float values of a numeric column; text that is not a number, and +-inf, become NaN.

    ``out``: where to write them (a column of a bigger matrix: a float64 column is copied once, into it)."""
    if not pd.api.types.is_numeric_dtype(values.dtype) or pd.api.types.is_bool_dtype(values.dtype):
        values = pd.to_numeric(clean_text(values), errors="coerce")
    if out is None:
        out = values.to_numpy(dtype=np.float64, na_value=np.nan, copy=True)
    else:
        np.copyto(out, values.to_numpy(dtype=np.float64, na_value=np.nan))
    if not all_finite(out):  # NaN or +-inf somewhere (NaN stays): one pass when there is none
        out[np.isinf(out)] = np.nan
    return out


def _names(value: Any, what: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise DataError(f"The schema's {what} must be a list of texts, not {type(value).__name__}.")
    if not all(isinstance(v, str) for v in value):
        raise DataError(f"Every entry of the schema's {what} must be a text.")
    return tuple(value)


@dataclass(frozen=True)
class FeatureSchema:
    """Names, kinds and category labels of a tree's features, plus its target, task and classes.

    ``kinds[j]`` is "numeric" or "categorical"; ``categories[j]`` lists the labels of codes
    0..k-1 of a categorical feature and is ``()`` for a numeric one. ``classes`` are the class
    labels (classification) or ``()`` (regression).
    """

    feature_names: tuple[str, ...]
    kinds: tuple[str, ...]
    categories: tuple[tuple[str, ...], ...]
    target: str
    task: str
    classes: tuple[str, ...]

    def __post_init__(self) -> None:
        names = _names(self.feature_names, "feature names")
        kinds = _names(self.kinds, "kinds")
        if not isinstance(self.categories, (list, tuple)):
            raise DataError("The schema's categories must be a list with one list of labels per feature.")
        categories = tuple(_names(c, "categories") for c in self.categories)
        classes = _names(self.classes, "classes")
        if not (len(names) == len(kinds) == len(categories)):
            raise DataError("The schema needs exactly one kind and one category list per feature.")
        if len(set(names)) != len(names):
            raise DataError("The schema names the same feature twice; feature names must be unique.")
        for name, kind, cats in zip(names, kinds, categories):
            if kind not in KINDS:
                raise DataError(f"Feature '{name}' has kind '{kind}'; a kind is 'numeric' or 'categorical'.")
            if kind == "numeric" and cats:
                raise DataError(f"Feature '{name}' is numeric, so it cannot have a list of categories.")
            if len(set(cats)) != len(cats):
                raise DataError(f"Feature '{name}' lists the same category twice.")
        if not isinstance(self.target, str):
            raise DataError("The schema's target must be the name (a text) of the target column.")
        if self.task not in TASKS:
            raise DataError(f"The schema's task is '{self.task}'; it must be 'classification' or 'regression'.")
        if self.task == "regression" and classes:
            raise DataError("A regression schema cannot list classes.")
        for attr, value in (("feature_names", names), ("kinds", kinds), ("categories", categories),
                            ("classes", classes)):
            object.__setattr__(self, attr, value)

    def __repr__(self) -> str:
        features = ", ".join(f"{n}:{'cat' if k == 'categorical' else 'num'}"
                             for n, k in zip(self.feature_names, self.kinds))
        classes = f", classes={self.classes}" if self.task == "classification" else ""
        return f"FeatureSchema(target={self.target!r}, task={self.task!r}, features=[{features}]{classes})"

    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    def index(self, name: str) -> int:
        """Position of feature ``name`` (the column of ``X`` holding it)."""
        if isinstance(name, str) and name in self.feature_names:  # never compare arrays or pd.NA
            return self.feature_names.index(name)
        raise DataError(f"There is no feature named {shown(name, 60)}; the features are: "
                        f"{_listing(self.feature_names)}.")

    def is_categorical(self, i: int | str) -> bool:
        """Whether feature ``i`` (position or name) is categorical."""
        j = self.index(i) if isinstance(i, str) else int(i)
        if not 0 <= j < len(self.kinds):
            raise DataError(f"There is no feature number {i}; the schema has {len(self.kinds)} features.")
        return self.kinds[j] == "categorical"

    def encode(self, frame: pd.DataFrame) -> np.ndarray:
        """Float matrix (n, d) of ``frame`` in feature order (codes for categories, NaN = missing)."""
        if isinstance(frame, pd.Series):
            frame = frame.to_frame().T
        elif isinstance(frame, dict):
            try:  # {column: values} or one row {column: value}
                frame = pd.DataFrame(frame)
            except (TypeError, ValueError):
                try:
                    frame = pd.DataFrame([frame])
                except (TypeError, ValueError):
                    raise DataError("Only a table (DataFrame) with the feature columns can be encoded.") from None
        if not isinstance(frame, pd.DataFrame):
            raise DataError("Only a table (DataFrame) with the feature columns can be encoded.")
        columns = {str(c).strip(): c for c in frame.columns}
        absent = [n for n in self.feature_names if n not in columns]
        if absent:
            raise DataError(f"The table has no column {_listing(absent)}; it needs every feature column.")
        # Fortran order: each column is written in one sequential pass (into a C-ordered matrix every column
        # touches every cache line of it: 0.45 s of 1M x 20), and split searches read columns
        out = np.empty((len(frame), len(self.feature_names)), dtype=np.float64, order="F")
        if not frame.columns.is_unique:
            twice = set(frame.columns[frame.columns.duplicated()])
            for name in self.feature_names:
                if columns[name] in twice:
                    raise DataError(f"The table has more than one column named '{name}'.")
        block = self._number_block(frame, columns)
        if block:  # a short, wide table: its number columns in one copy, not one pandas column at a time
            values = frame[[columns[self.feature_names[j]] for j in block]].to_numpy(
                dtype=np.float64, na_value=np.nan, copy=True)
            if not all_finite(values):
                values[np.isinf(values)] = np.nan
            out[:, block] = values
        done = set(block)
        parts = [(j, frame[columns[name]]) for j, name in enumerate(self.feature_names) if j not in done]

        def encode_column(part) -> None:
            j, column = part
            if self.kinds[j] == "categorical":
                out[:, j] = encode_labels(column, self.categories[j])
            else:
                encode_numeric(column, out[:, j])
        # columns on threads (copies and comparisons release the GIL); each writes its own column
        thread_map(encode_column, parts, threads_for(out.size, min_work=ENCODE_THREADS_ABOVE))
        return out

    def _number_block(self, frame: pd.DataFrame, columns: dict) -> list[int]:
        """Positions of the numeric features whose columns hold plain numbers, when the table is short and
        wide (more than :data:`WIDE_COLUMNS` of them, at most :data:`WIDE_CELLS` cells): :meth:`encode` reads
        them in one copy. Reading a column costs pandas ~0.1 ms, so a typed row of a 10,000-feature model took
        1.5 s one column at a time; a tall table keeps the threaded column copies (no second copy of it)."""
        if len(self.feature_names) <= WIDE_COLUMNS or len(frame) * len(self.feature_names) > WIDE_CELLS:
            return []
        plain = {d: pd.api.types.is_numeric_dtype(d) and not pd.api.types.is_bool_dtype(d) for d in set(frame.dtypes)}
        dtypes = dict(zip(frame.columns, frame.dtypes))
        block = [j for j, (name, kind) in enumerate(zip(self.feature_names, self.kinds))
                 if kind == "numeric" and plain[dtypes[columns[name]]]]
        return block if len(block) > WIDE_COLUMNS else []

    def to_dict(self) -> dict[str, Any]:
        """JSON-able description; ``FeatureSchema.from_dict(s.to_dict()) == s``."""
        return {
            "feature_names": list(self.feature_names),
            "kinds": list(self.kinds),
            "categories": [list(c) for c in self.categories],
            "target": self.target,
            "task": self.task,
            "classes": list(self.classes),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "FeatureSchema":
        """Rebuild a schema from :meth:`to_dict` output; wrong shapes or types raise ``DataError``."""
        if not isinstance(data, dict):
            raise DataError("A saved schema must be a mapping of field names to values.")
        fields = ("feature_names", "kinds", "categories", "target", "task", "classes")
        absent = [f for f in fields if f not in data]
        if absent:
            raise DataError(f"The saved schema lacks the field(s) {', '.join(absent)}.")
        return cls(**{f: data[f] for f in fields})


def _listing(names, limit: int = 8) -> str:
    """'a', 'b', 'c' (and 12 more)."""
    names = list(names)
    shown = ", ".join(f"'{n}'" for n in names[:limit])
    return shown + (f" (and {len(names) - limit} more)" if len(names) > limit else "")
