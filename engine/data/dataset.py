"""Data sets: load a CSV (or take a DataFrame), decide each column's kind and the task, encode.

``load_csv`` reads the file (:mod:`engine.data.csvio`), gives every column its natural form and kind
(:mod:`engine.data.columns`) and returns an immutable :class:`Dataset`. The rules, in short:

- numbers -> "numeric"; text and booleans -> "categorical"; a text column with a different value in
  every row -> "ignore" (with a note); ``kinds`` overrides any of them;
- the target is guessed unless named (``columns.guess_target``: the last column if it holds a few
  labels, else the last text column that does, else the last column); rows without a target value are
  dropped (with a note);
- classification for a text/boolean target or an integer one with few distinct values, else
  regression; ``task`` overrides;
- ``inf`` counts as a missing value (with a note); missing feature values stay NaN in ``X``.

Everything that can go wrong with the data raises :class:`~engine.errors.DataError` with one plain
sentence; bad parameter values raise :class:`~engine.errors.ConfigError`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Mapping

import numpy as np
import pandas as pd

from engine.data.csvio import read_table
from engine.data.build import (Giveaway, build_parts, giveaways, limits_of, natural_table, positions,
                               split_positions)
from engine.data.rows import class_codes, encoded_features, take_rows
from engine.errors import ConfigError, DataError
from engine.data.samples import SAMPLES, SampleInfo, sample_path
from engine.data.schema import FeatureSchema, _listing
from engine.data.sizes import ByteFacts, check_sizes, pieces_of, text_pieces, wide_text
from engine.data.textio import (MAX_UNPACKED_BYTES, decode, map_file, refuse_binary, source_bytes, unpack,
                                 utf8_head)

__all__ = ["Dataset", "DataSplit", "load_csv", "load_sample", "SAMPLES", "SampleInfo"]


def load_csv(source, target=None, kinds=None, task=None, *, max_columns=1000, max_categories=1000,
             max_rows=2_000_000, max_unpacked_bytes=MAX_UNPACKED_BYTES) -> "Dataset":
    """Load a CSV file (path, bytes or uploaded file object) as a :class:`Dataset`.

    A gzip file is unpacked in pieces and refused once it passes ``max_unpacked_bytes`` (or the row
    or column limit). Raises ``DataError`` with a sentence for the user whenever the file cannot be used.
    """
    limits = limits_of(max_columns, max_categories, max_rows)
    mapped = map_file(source)  # a big file on disk: read from the page cache as it is used
    try:
        data, name = mapped if mapped is not None else source_bytes(source)
        return _load_bytes(data, name, target, kinds, task, limits, max_unpacked_bytes)
    finally:
        if mapped is not None:
            _close(mapped[0])


def _load_bytes(data, name: str, target, kinds, task, limits, max_unpacked_bytes) -> "Dataset":
    data, notes = unpack(data, max_bytes=max_unpacked_bytes, max_rows=limits.max_rows,
                         max_columns=limits.max_columns)
    if not data or (data[:1 << 16].isspace() and bytes(data).isspace()):
        raise DataError("The file is empty: choose a CSV file with a header row and data rows.")
    refuse_binary(data)
    lines, facts = None, ByteFacts()
    if not notes and not wide_text(data[:4096]):  # a gzip file's sizes were checked while unpacking
        # before any parser: a huge cell or line costs a piece, not a parse; the same pass notes what
        # the later steps would otherwise scan the whole file for (see ByteFacts)
        lines = check_sizes(facts.watch(pieces_of(data)))
    if not isinstance(data, bytes) and not facts.plain_utf8:
        data = data[:]  # a mapped file that is not plain UTF-8: the text paths read it whole, as bytes
    raw = _read_raw(data, name, limits, notes, lines, facts)
    del data
    return Dataset._from_table(raw.frame, name=name, target=target, kinds=kinds, task=task, limits=limits,
                               decimal_comma=raw.decimal_comma, notes=raw.notes)


def _close(mapping) -> None:
    """Unmap a file; a view still held somewhere (a parser's) keeps it until that view is gone."""
    try:
        mapping.close()
    except BufferError:
        pass


def _read_raw(data: bytes, name: str, limits, notes, lines: int | None = None, facts: ByteFacts | None = None):
    """The parsed table of ``data``. Plain UTF-8 is parsed from the bytes themselves (only the start
    is decoded, for the separator and header), so a big file is never held twice as bytes and text.
    ``lines``: the count of ``\\n`` in ``data`` when the size check made it (saves the parser a pass);
    ``facts``: what that check saw (saves the whole-file scans for NUL bytes, UTF-8, line ends and quotes)."""
    head = utf8_head(data, facts=facts)
    if head is not None:
        encoding = "utf-8-sig" if head.startswith("\ufeff") else "utf-8"
        return read_table(head, name=name, encoding=encoding, max_columns=limits.max_columns,
                          max_rows=limits.max_rows, notes=notes, data=data, lines=lines, facts=facts)
    text, encoding = decode(data)
    if encoding.startswith(("utf-16", "utf-32")):
        check_sizes(text_pieces(text))
    return read_table(text, name=name, encoding=encoding, max_columns=limits.max_columns,
                      max_rows=limits.max_rows, notes=notes)


def load_sample(name: str) -> "Dataset":
    """One of the bundled data sets in :data:`SAMPLES`, by name."""
    info = SAMPLES.get(name) if isinstance(name, str) else None
    if info is None:
        raise DataError(f"There is no sample data set '{name}'; the samples are: {_listing(SAMPLES)}.")
    ds = load_csv(sample_path(info), target=info.target, task=info.task)
    return ds._replace_name(name)


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
    arrays the learners use (see ``engine.data.schema`` for the encoding).

    Memory: ``X`` shares the numeric columns of a parsed file instead of copying them, and a subset
    gathers its rows only when first used, into one matrix that is both its ``X`` and its table's
    numeric columns (:mod:`engine.data.rows`).
    """

    __slots__ = ("name", "target", "task", "classes", "notes", "_table", "_kinds", "_categories",
                 "_source", "_natural", "_overrides", "_task_override", "_limits", "_decimal_comma",
                 "_base_notes", "_cache", "_pending")

    def __setattr__(self, key, value):
        raise AttributeError("A Dataset cannot be changed; use with_kinds, with_target, subset, ...")

    def __delattr__(self, key):
        raise AttributeError("A Dataset cannot be changed.")

    def _set(self, **values) -> None:
        for key, value in values.items():
            object.__setattr__(self, key, value)

    def __getstate__(self):
        self._gather()
        return {s: getattr(self, s) for s in self.__slots__ if s not in ("_cache", "_pending")}

    def __setstate__(self, state):
        self._set(**state, _cache={}, _pending=None)

    # a subset's rows are gathered when first needed (``_pending`` = (parent, positions) until then)
    @property
    def _frame(self) -> pd.DataFrame:
        return self._table if self._pending is None else self._gather()

    @property
    def _full(self) -> pd.DataFrame:
        return self._source if self._pending is None else self._gather()

    def _gather(self) -> pd.DataFrame:
        # one thread gathers the rows, others using the same subset wait and share them (setdefault is atomic)
        with self._cache.setdefault("lock", threading.Lock()):
            if self._pending is not None:
                parent, idx = self._pending
                frame, X = take_rows(parent._frame, self.schema, idx, parent._cache.get("X"))
                if "y" in parent._cache:
                    y = parent._cache["y"][idx]
                    y.flags.writeable = False
                    self._cache["y"] = y
                self._cache["X"] = X
                self._set(_table=frame, _source=frame, _pending=None)
        return self._table

    # ------------------------------------------------------------------------- construction
    @classmethod
    def from_frame(cls, frame, target=None, kinds=None, task=None, name="data", *, max_columns=1000,
                   max_categories=1000, max_rows=2_000_000) -> "Dataset":
        """A Dataset from a DataFrame, with the same cleaning and inference as :func:`load_csv`."""
        limits = limits_of(max_columns, max_categories, max_rows)
        return cls._from_table(frame, name=str(name), target=target, kinds=kinds, task=task, limits=limits,
                               decimal_comma=False, notes=())

    @classmethod
    def _from_table(cls, frame, *, name, target, kinds, task, limits, decimal_comma, notes) -> "Dataset":
        if not isinstance(frame, pd.DataFrame):
            raise DataError("The data must be a table (a pandas DataFrame).")
        full, natural, notes = natural_table(frame, limits=limits, decimal_comma=decimal_comma, notes=notes)
        overrides = {} if kinds is None else kinds
        return cls._build(full, natural, name=str(name), target=target, overrides=overrides, task=task,
                          limits=limits, decimal_comma=decimal_comma, base_notes=notes)

    @classmethod
    def _build(cls, full, natural, *, name, target, overrides, task, limits, decimal_comma, base_notes):
        parts = build_parts(full, natural, target=target, overrides=overrides, task=task, limits=limits,
                            decimal_comma=decimal_comma)
        ds = object.__new__(cls)
        ds._set(name=name, target=parts.target, task=parts.task, classes=parts.classes,
                notes=tuple(base_notes) + parts.notes, _table=parts.frame, _kinds=parts.kinds,
                _categories=parts.categories, _source=full, _natural=dict(natural),
                _overrides=parts.overrides, _task_override=task, _limits=limits,
                _decimal_comma=decimal_comma, _base_notes=tuple(base_notes), _cache={}, _pending=None)
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
        if ds._pending is None:  # the encoded arrays stay valid: share them
            ds._cache.update({k: v for k, v in self._cache.items() if k in ("X", "y")})
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
        if not isinstance(name, str):
            raise DataError(f"A column name is a text, not {type(name).__name__}.")
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
        if self._pending is not None:
            parent, idx = self._pending
            return parent.row_ids[idx]
        return self._frame.index.to_numpy(dtype=np.int64)

    def __len__(self) -> int:
        return len(self._pending[1]) if self._pending is not None else len(self._table)

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
            frame = self._frame  # a pending subset gathers its X with its rows
            if "X" not in self._cache:
                self._cache["X"] = encoded_features(frame, self.schema)
        return self._cache["X"]

    @property
    def y(self) -> np.ndarray:
        """Target: int64 codes into ``classes`` (classification) or float64 values (read-only)."""
        if "y" not in self._cache:
            values = self._frame[self.target]  # a pending subset takes its parent's y if computed
            if "y" not in self._cache:
                y = (class_codes(values, self.classes) if self.task == "classification"
                     else values.to_numpy(dtype=np.float64, na_value=np.nan, copy=True))
                y.flags.writeable = False
                self._cache["y"] = y
        return self._cache["y"]

    def giveaways(self) -> list[Giveaway]:
        """Features that give a classification target away: each of their values goes with one class, and
        they have many values or one per class (see :func:`engine.data.build.giveaways`); computed once."""
        if "giveaways" not in self._cache:
            found = () if self.task != "classification" else giveaways(self._frame, self._kinds, self.y,
                                                                        len(self.classes))
            self._cache["giveaways"] = tuple(found)
        return list(self._cache["giveaways"])

    def encode(self, frame: pd.DataFrame) -> np.ndarray:
        """Encode another table with this data set's features (unknown categories -> NaN)."""
        try:
            return self.schema.encode(frame)
        except (ValueError, TypeError):
            raise DataError("The rows to encode must be a table with one column per feature.") from None

    # ------------------------------------------------------------------------------ variants
    def subset(self, rows) -> "Dataset":
        """The rows at these positions (ints or a boolean mask); kinds, categories, classes unchanged.

        The rows are gathered when the subset is first used (its table, ``X`` or ``y``), not before."""
        idx = positions(rows, len(self))
        ds = self._copy()
        ds._set(_table=None, _source=None, _pending=(self, idx))
        ds._cache.clear()
        return ds

    def with_kinds(self, kinds: Mapping[str, str]) -> "Dataset":
        """A copy where the given columns have these kinds ("numeric" | "categorical" | "ignore")."""
        if not isinstance(kinds, Mapping):
            raise ConfigError(f"kinds must be a mapping of column name to kind; got {type(kinds).__name__}.")
        return self._rebuild(overrides={**self._overrides, **dict(kinds)})

    def with_target(self, target: str) -> "Dataset":
        """A copy with another target column (the task is inferred again; the old target becomes a feature)."""
        if not isinstance(target, str):
            raise DataError(f"The target must be a column name (a text), not {type(target).__name__}.")
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
        unknown = [n for n in names if not isinstance(n, str) or n not in self._kinds]
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
        train, validation, test = split_positions(self.y if self.task == "classification" else None,
                                                  len(self), test_size=test_size,
                                                  validation_size=validation_size, seed=seed)
        return DataSplit(self.subset(train), None if validation is None else self.subset(validation),
                         None if test is None else self.subset(test))
