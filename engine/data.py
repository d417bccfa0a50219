"""Data sets: load a CSV (or take a DataFrame), decide each column's kind and the task, encode.

``load_csv`` reads the file (:mod:`engine.csvio`), gives every column its natural form and kind
(:mod:`engine.columns`) and returns an immutable :class:`Dataset`. The rules, in short:

- numbers -> "numeric"; text and booleans -> "categorical"; a text column with a different value in
  every row -> "ignore" (with a note); ``kinds`` overrides any of them;
- the target is the last column unless named; rows without a target value are dropped (with a note);
- classification for a text/boolean target or an integer one with few distinct values, else
  regression; ``task`` overrides;
- ``inf`` counts as a missing value (with a note); missing feature values stay NaN in ``X``.

Everything that can go wrong with the data raises :class:`~engine.errors.DataError` with one plain
sentence; bad parameter values raise :class:`~engine.errors.ConfigError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Mapping

import numpy as np
import pandas as pd

from . import columns as col
from .csvio import decode, read_table, refuse_binary, source_bytes, unpack
from .errors import ConfigError, DataError
from .samples import SAMPLES, SampleInfo, sample_path
from .schema import FeatureSchema, _listing, sort_labels

__all__ = ["Dataset", "DataSplit", "load_csv", "load_sample", "SAMPLES", "SampleInfo"]

KINDS = ("numeric", "categorical", "ignore")
TASKS = ("classification", "regression")


@dataclass(frozen=True)
class Limits:
    """Size limits applied when a data set is (re)built."""

    max_columns: int = 1000
    max_categories: int = 1000
    max_rows: int = 2_000_000


def load_csv(source, target=None, kinds=None, task=None, *, max_columns=1000, max_categories=1000,
             max_rows=2_000_000) -> "Dataset":
    """Load a CSV file (path, bytes or uploaded file object) as a :class:`Dataset`.

    Raises ``DataError`` with a sentence for the user whenever the file cannot be used.
    """
    limits = _limits(max_columns, max_categories, max_rows)
    data, name = source_bytes(source)
    data, notes = unpack(data)
    if not data or data.isspace():
        raise DataError("The file is empty: choose a CSV file with a header row and data rows.")
    refuse_binary(data)
    text, encoding = decode(data)
    del data
    raw = read_table(text, name=name, encoding=encoding, max_columns=limits.max_columns,
                     max_rows=limits.max_rows, notes=notes)
    return _from_raw(raw.frame, name=name, target=target, kinds=kinds, task=task, limits=limits,
                     decimal_comma=raw.decimal_comma, notes=raw.notes)


def load_sample(name: str) -> "Dataset":
    """One of the bundled data sets in :data:`SAMPLES`, by name."""
    info = SAMPLES.get(name) if isinstance(name, str) else None
    if info is None:
        raise DataError(f"There is no sample data set '{name}'; the samples are: {_listing(SAMPLES)}.")
    ds = load_csv(sample_path(info), target=info.target, task=info.task)
    return ds._replace_name(name)


def _limits(max_columns, max_categories, max_rows) -> Limits:
    for pname, value in (("max_columns", max_columns), ("max_categories", max_categories),
                         ("max_rows", max_rows)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ConfigError(f"{pname} must be a positive whole number; got {value!r}.")
    return Limits(int(max_columns), int(max_categories), int(max_rows))


def _from_raw(frame: pd.DataFrame, *, name, target, kinds, task, limits, decimal_comma, notes) -> "Dataset":
    """Natural forms of every column of ``frame``, then :meth:`Dataset._build`."""
    if not isinstance(frame, pd.DataFrame):
        raise DataError("The data must be a table (a pandas DataFrame).")
    names = [str(c).strip() for c in frame.columns]
    if len(names) > limits.max_columns:
        raise DataError(f"The table has {len(names):,} columns; at most {limits.max_columns:,} are "
                        "supported: keep only the columns you need.")
    if len(names) < 2:
        raise DataError("The table has fewer than two columns: a tree needs at least one feature and a target.")
    if any(not n for n in names):
        raise DataError(f"Column {names.index('') + 1} has no name: give every column a name.")
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup is not None:
        raise DataError(f"The column name '{dup}' appears more than once: rename the copies.")
    if len(frame) == 0:
        raise DataError("The table has a header but no rows.")
    if len(frame) > limits.max_rows:
        raise DataError(f"The table has {len(frame):,} rows; at most {limits.max_rows:,} are supported: "
                        "load a sample of the rows.")
    natural: dict[str, str] = {}
    cleaned: dict[str, pd.Series] = {}
    notes = list(notes)
    for key, cname in zip(frame.columns, names):
        values, kind, found = col.natural_column(frame[key].reset_index(drop=True), cname,
                                                 decimal_comma=decimal_comma)
        cleaned[cname], natural[cname] = values, kind
        notes.extend(found)
    full = pd.DataFrame(cleaned, index=pd.RangeIndex(len(frame)))
    return Dataset._build(full, natural, name=str(name), target=target, overrides=kinds or {}, task=task,
                          limits=limits, decimal_comma=decimal_comma, base_notes=tuple(notes))


@dataclass(frozen=True)
class DataSplit:
    """Train, validation and test parts of a data set (``validation``/``test`` are None when empty)."""

    train: "Dataset"
    validation: "Dataset | None"
    test: "Dataset | None"

    def __repr__(self) -> str:
        sizes = [f"{p}={'None' if d is None else len(d)}" for p, d in
                 (("train", self.train), ("validation", self.validation), ("test", self.test))]
        return f"DataSplit({', '.join(sizes)})"


class Dataset:
    """An immutable, cleaned table with a target, the kind of every column, and encoded arrays.

    ``frame`` holds the rows that have a target value (its index = row numbers of the loaded file,
    kept by :meth:`subset`): numeric columns as float64, categorical ones as label strings, the
    target as class labels (classification) or float64 (regression). ``X``/``y`` are the encoded
    arrays the learners use (see ``engine.schema`` for the encoding).
    """

    __slots__ = ("name", "target", "task", "classes", "notes", "_frame", "_kinds", "_categories",
                 "_full", "_natural", "_overrides", "_task_override", "_limits", "_decimal_comma",
                 "_base_notes", "_cache")

    def __setattr__(self, key, value):
        raise AttributeError("A Dataset cannot be changed; use with_kinds, with_target, subset, ...")

    def __delattr__(self, key):
        raise AttributeError("A Dataset cannot be changed.")

    def _set(self, **values) -> None:
        for key, value in values.items():
            object.__setattr__(self, key, value)

    def __getstate__(self):
        return {s: getattr(self, s) for s in self.__slots__ if s != "_cache"}

    def __setstate__(self, state):
        self._set(**state, _cache={})

    # ------------------------------------------------------------------------- construction
    @classmethod
    def from_frame(cls, frame, target=None, kinds=None, task=None, name="data", *, max_columns=1000,
                   max_categories=1000, max_rows=2_000_000) -> "Dataset":
        """A Dataset from a DataFrame, with the same cleaning and inference as :func:`load_csv`."""
        limits = _limits(max_columns, max_categories, max_rows)
        return _from_raw(frame, name=str(name), target=target, kinds=kinds, task=task, limits=limits,
                         decimal_comma=False, notes=())

    @classmethod
    def _build(cls, full, natural, *, name, target, overrides, task, limits, decimal_comma, base_notes):
        from .dataset_build import build_parts

        parts = build_parts(full, natural, target=target, overrides=overrides, task=task, limits=limits,
                            decimal_comma=decimal_comma)
        ds = object.__new__(cls)
        ds._set(name=name, target=parts.target, task=parts.task, classes=parts.classes,
                notes=tuple(base_notes) + parts.notes, _frame=parts.frame, _kinds=parts.kinds,
                _categories=parts.categories, _full=full, _natural=dict(natural),
                _overrides=parts.overrides, _task_override=task, _limits=limits,
                _decimal_comma=decimal_comma, _base_notes=tuple(base_notes), _cache={})
        return ds

    def _rebuild(self, **changes) -> "Dataset":
        args = dict(name=self.name, target=self.target, overrides=self._overrides, task=self._task_override,
                    limits=self._limits, decimal_comma=self._decimal_comma, base_notes=self._base_notes)
        args.update(changes)
        return Dataset._build(self._full, self._natural, **args)

    def _replace_name(self, name: str) -> "Dataset":
        ds = self._copy()
        object.__setattr__(ds, "name", str(name))
        return ds

    def _copy(self) -> "Dataset":
        ds = object.__new__(Dataset)
        ds._set(**{s: getattr(self, s) for s in self.__slots__ if s != "_cache"}, _cache={})
        return ds

    # ---------------------------------------------------------------------------- properties
    @property
    def frame(self) -> pd.DataFrame:
        """The cleaned table (a cheap copy: changing it does not change the Dataset)."""
        return self._frame.copy(deep=False)

    @property
    def kinds(self) -> dict[str, str]:
        """Kind of every column except the target: "numeric" | "categorical" | "ignore"."""
        return dict(self._kinds)

    def kind(self, name: str) -> str:
        """Kind of column ``name`` ("target" for the target column)."""
        if name == self.target:
            return "target"
        if name not in self._kinds:
            raise DataError(f"There is no column '{name}'; the columns are: {_listing(self._frame.columns)}.")
        return self._kinds[name]

    @property
    def feature_names(self) -> tuple[str, ...]:
        return tuple(n for n, k in self._kinds.items() if k != "ignore")

    @property
    def categories(self) -> dict[str, tuple[str, ...]]:
        """Labels of codes 0..k-1 of every categorical feature."""
        return dict(self._categories)

    @property
    def row_ids(self) -> np.ndarray:
        """Row numbers (0-based, in the loaded table) of this data set's rows."""
        return self._frame.index.to_numpy(dtype=np.int64)

    def __len__(self) -> int:
        return len(self._frame)

    def __repr__(self) -> str:
        classes = f", classes={self.classes!r}" if self.task == "classification" else ""
        return (f"Dataset(name={self.name!r}, rows={len(self)}, features={len(self.feature_names)}, "
                f"target={self.target!r}, task={self.task!r}{classes})")

    @property
    def schema(self) -> FeatureSchema:
        if "schema" not in self._cache:
            names = self.feature_names
            self._cache["schema"] = FeatureSchema(
                feature_names=names, kinds=tuple(self._kinds[n] for n in names),
                categories=tuple(self._categories.get(n, ()) for n in names),
                target=self.target, task=self.task, classes=self.classes)
        return self._cache["schema"]

    @property
    def X(self) -> np.ndarray:
        """Encoded features, float64 (n, d): numbers as is, category codes, NaN = missing (read-only)."""
        if "X" not in self._cache:
            X = self.schema.encode(self._frame)
            X.flags.writeable = False
            self._cache["X"] = X
        return self._cache["X"]

    @property
    def y(self) -> np.ndarray:
        """Target: int64 codes into ``classes`` (classification) or float64 values (read-only)."""
        if "y" not in self._cache:
            values = self._frame[self.target]
            if self.task == "classification":
                y = pd.Categorical(values, categories=list(self.classes)).codes.astype(np.int64)
            else:
                y = values.to_numpy(dtype=np.float64, na_value=np.nan, copy=True)
            y.flags.writeable = False
            self._cache["y"] = y
        return self._cache["y"]

    def encode(self, frame: pd.DataFrame) -> np.ndarray:
        """Encode another table with this data set's features (unknown categories -> NaN)."""
        return self.schema.encode(frame)

    # ------------------------------------------------------------------------------ variants
    def subset(self, rows) -> "Dataset":
        """The rows at these positions (ints or a boolean mask); kinds, categories, classes unchanged."""
        idx = _positions(rows, len(self))
        ds = self._copy()
        frame = self._frame.iloc[idx]
        object.__setattr__(ds, "_frame", frame)
        object.__setattr__(ds, "_full", frame)
        return ds

    def with_kinds(self, kinds: Mapping[str, str]) -> "Dataset":
        """A copy where the given columns have these kinds ("numeric" | "categorical" | "ignore")."""
        if not isinstance(kinds, Mapping):
            raise ConfigError(f"kinds must be a mapping of column name to kind; got {type(kinds).__name__}.")
        return self._rebuild(overrides={**self._overrides, **dict(kinds)})

    def with_target(self, target: str) -> "Dataset":
        """A copy with another target column (the task is inferred again; the old target becomes a feature)."""
        if target == self.target:
            return self
        overrides = {k: v for k, v in self._overrides.items() if k != target}
        return self._rebuild(target=target, overrides=overrides, task=None)

    def with_task(self, task: str | None) -> "Dataset":
        """A copy with the task forced ("classification" | "regression"), or inferred again (None)."""
        return self._rebuild(task=task)

    def with_features(self, names) -> "Dataset":
        """A copy using only these columns as features (every other column is ignored)."""
        if isinstance(names, str) or not hasattr(names, "__iter__"):
            raise ConfigError("names must be a list of column names.")
        names = list(names)
        unknown = [n for n in names if n not in self._kinds]
        if unknown:
            raise DataError(f"These are not feature columns: {_listing(unknown)}.")
        if not names:
            raise DataError("Choose at least one feature column.")
        overrides = {}
        for n, kind in self._kinds.items():
            if n not in names:
                overrides[n] = "ignore"
            else:
                overrides[n] = kind if kind != "ignore" else self._natural[n]
        return self._rebuild(overrides=overrides)

    def split(self, test_size=0.25, validation_size=0.0, seed=0) -> DataSplit:
        """Random train/validation/test parts, stratified by class for classification."""
        from .dataset_build import split_positions

        train, validation, test = split_positions(self.y if self.task == "classification" else None,
                                                  len(self), test_size=test_size,
                                                  validation_size=validation_size, seed=seed)
        return DataSplit(self.subset(train), None if validation is None else self.subset(validation),
                         None if test is None else self.subset(test))


def _positions(rows, n: int) -> np.ndarray:
    """Validated int positions from a list/array of ints or a boolean mask of length ``n``."""
    if isinstance(rows, slice):
        return np.arange(n)[rows]
    try:
        idx = np.asarray(rows)
    except Exception:
        raise DataError("Rows must be given as a list of row positions.") from None
    if idx.dtype == bool:
        if idx.shape != (n,):
            raise DataError(f"A row mask must have one True/False per row ({n}), not {idx.size}.")
        return np.flatnonzero(idx)
    if idx.size == 0:
        return np.empty(0, dtype=np.int64)
    if idx.ndim != 1 or not np.issubdtype(idx.dtype, np.integer):
        if idx.ndim == 1 and np.issubdtype(idx.dtype, np.floating) and np.all(np.mod(idx, 1) == 0):
            idx = idx.astype(np.int64)
        else:
            raise DataError("Rows must be given as a list of whole-number row positions.")
    if idx.min() < 0 or idx.max() >= n:
        raise DataError(f"Row positions must be between 0 and {n - 1}.")
    return idx.astype(np.int64)
