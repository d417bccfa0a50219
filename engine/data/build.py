"""How a :class:`engine.data.Dataset` is assembled from cleaned columns, and how it is split.

``build_parts`` applies the target, kind and task rules (:mod:`engine.data.columns`) to a table whose
columns already have their natural form; ``split_positions`` draws stratified train/validation/test
row positions with ``numpy.random.default_rng(seed)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

import engine.data.columns as col
from engine.checks import shown
from engine.errors import ConfigError, DataError
from engine.data.schema import _listing, sort_labels
from engine.threads import thread_map, threads_for

@dataclass(frozen=True)
class Limits:
    """Size limits applied when a data set is (re)built."""

    max_columns: int = 1000
    max_categories: int = 1000
    max_rows: int = 2_000_000


KINDS = ("numeric", "categorical", "ignore")
TASKS = ("classification", "regression")
#: cells above which :func:`natural_table` reads columns on threads
THREADS_ABOVE_CELLS = 1 << 20


@dataclass(frozen=True)
class Parts:
    frame: pd.DataFrame
    target: str
    task: str
    classes: tuple[str, ...]
    kinds: dict
    categories: dict
    overrides: dict
    notes: tuple[str, ...]


def limits_of(max_columns, max_categories, max_rows) -> Limits:
    for pname, value in (("max_columns", max_columns), ("max_categories", max_categories),
                         ("max_rows", max_rows)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ConfigError(f"{pname} must be a positive whole number; got {value!r}.")
    return Limits(int(max_columns), int(max_categories), int(max_rows))


def natural_table(frame: pd.DataFrame, *, limits: Limits, decimal_comma: bool,
                  notes=()) -> tuple[pd.DataFrame, dict, tuple[str, ...]]:
    """``(full, natural, notes)``: every column of ``frame`` in its natural form and kind.

    Checks the table's shape first (names present and unique, rows within the limits).
    """
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
    columns = [(frame[key].reset_index(drop=True), cname) for key, cname in zip(frame.columns, names)]
    # columns on threads (pandas' and numpy's passes over a column release the GIL); results in order
    threads = threads_for(frame.size, min_work=THREADS_ABOVE_CELLS)
    results = thread_map(lambda c: col.natural_column(c[0], c[1], decimal_comma=decimal_comma), columns, threads)
    for (_, cname), (values, kind, found) in zip(columns, results):
        cleaned[cname], natural[cname] = values, kind
        notes.extend(found)
    # copy=False: the cleaned columns are new or (numbers already float64) the parsed ones; copying
    # them into one block again would double the memory of a big file
    return pd.DataFrame(cleaned, index=pd.RangeIndex(len(frame)), copy=False), natural, tuple(notes)


def _check_overrides(overrides, names, target) -> dict:
    if overrides is None:
        return {}
    if not hasattr(overrides, "items"):
        raise ConfigError(f"kinds must be a mapping of column name to kind; got {type(overrides).__name__}.")
    out = {}
    for name, kind in overrides.items():
        if not isinstance(kind, str) or kind not in KINDS:   # never compare arrays/lists with the names
            raise ConfigError(f"The kind of column '{name}' must be 'numeric', 'categorical' or 'ignore'; "
                              f"got {shown(kind)}.")
        if name not in names:
            raise DataError(f"There is no column '{name}' to give a kind; the columns are: {_listing(names)}.")
        if name != target:
            out[name] = kind
    return out


def build_parts(full: pd.DataFrame, natural: dict, *, target, overrides, task, limits,
                decimal_comma: bool) -> Parts:
    """Target, task, classes, kinds and categories of the table ``full`` (natural column forms)."""
    names = list(full.columns)
    if target is None:
        target = col.guess_target(full, natural)
    if target is not None and not isinstance(target, str):
        raise DataError(f"The target must be a column name (a text), not {type(target).__name__}.")
    if target not in names:
        raise DataError(f"There is no column '{target}' to predict; the columns are: {_listing(names)}.")
    if task is not None and (not isinstance(task, str) or task not in TASKS):
        raise ConfigError(f"task must be 'classification', 'regression' or None (infer it); got {task!r}.")
    overrides = _check_overrides(overrides, names, target)
    notes: list[str] = []

    # ---- target: drop rows without a value, then classes or numbers
    y = full[target]
    keep = y.notna().to_numpy()
    if not keep.any():
        raise DataError(f"The target column '{target}' has no values: choose another column to predict.")
    dropped = int((~keep).sum())
    frame = full if not dropped else full.loc[keep]
    if dropped:
        rows = "1 row" if dropped == 1 else f"{dropped:,} rows"
        notes.append(f"{rows} without a value for '{target}' {'was' if dropped == 1 else 'were'} left out.")
    y = frame[target]
    task = task or col.infer_task(y, natural[target])
    if task == "regression":
        if natural[target] != "numeric":
            number, _ = col.parse_numbers(y, decimal_comma=decimal_comma)
            if number is None:
                raise DataError(f"The target '{target}' holds text (for example '{col.first_non_number(y)}'), "
                                "so it cannot be predicted as a number: choose classification or another target.")
            y = col.finite(number)[0]
            if y.isna().any():
                raise DataError(f"The target '{target}' has infinite values: remove those rows or fix them.")
        classes: tuple[str, ...] = ()
    else:
        y = col.labels_of(y) if natural[target] == "numeric" else y
        many = col.distinct_count(y) if col.mostly_distinct(y) else 0  # an id chosen as the target: sorted
        labels = y.unique() if many <= limits.max_categories else ()  # distinct labels, no Python string a row
        if max(many, len(labels)) > limits.max_categories:
            raise DataError(f"The target '{target}' has {max(many, len(labels)):,} different values, too many classes "
                            f"(at most {limits.max_categories:,}): choose regression or another target.")
        classes = tuple(sort_labels([str(v) for v in labels], natural[target] == "numeric"))
        if len(classes) == 1:
            notes.append(f"Every row has the same class '{classes[0]}': the tree will be a single leaf.")

    # ---- features: kinds (inferred unless overridden), representation, categories
    data = {}
    kinds: dict[str, str] = {}
    categories: dict[str, tuple[str, ...]] = {}
    for name in names:
        if name == target:
            data[name] = y
            continue
        values = frame[name]
        if name in overrides:
            kind = overrides[name]
        else:
            kind, note = col.feature_kind(values, natural[name], name)
            if note:
                notes.append(note)
        if kind != "ignore":
            values = col.as_kind(values, natural[name], kind, name, decimal_comma=decimal_comma)
        if kind == "categorical":
            # a long column of mostly distinct texts is counted by sorting (not hashed whole) before its labels
            many = col.distinct_count(values) if col.mostly_distinct(values) else 0
            present = values.dropna().unique() if many <= limits.max_categories else ()
            count = max(many, len(present))
            if count > limits.max_categories and name not in overrides and col.is_identifier(
                    values, natural[name]):
                kind = "ignore"
            elif count > limits.max_categories:
                raise DataError(f"Column '{name}' has {count:,} categories; at most "
                                f"{limits.max_categories:,} are supported for a categorical feature — "
                                "mark it numeric or ignore it.")
            else:
                categories[name] = tuple(sort_labels([str(v) for v in present], natural[name] == "numeric"))
                if len(present) == 1:
                    notes.append(f"Column '{name}' has the same value in every row, so it cannot split the data.")
        data[name] = values
        kinds[name] = kind
    if not any(k != "ignore" for k in kinds.values()):
        raise DataError("No column is left to learn from: every column except the target is ignored. "
                        "Mark a column numeric or categorical.")
    out = pd.DataFrame(data, index=frame.index, copy=False)  # shares unchanged columns with ``full``
    return Parts(out, target, task, classes, kinds, categories, overrides, tuple(notes))


@dataclass(frozen=True)
class Giveaway:
    """A feature that gives a classification target away: each of its ``values`` distinct values is seen
    with one class only; ``renamed``: it has as many values as there are classes (the target relabelled)."""

    column: str
    values: int
    renamed: bool


#: A feature gives the target away when every value it takes goes with one class and it either has at least
#: GIVEAWAY_MIN_VALUES values seen on GIVEAWAY_ROWS_PER_VALUE rows each on average (so that purity is no
#: accident: a measurement with a new value on every row is pure trivially), or one value per class.
GIVEAWAY_MIN_VALUES = 10
GIVEAWAY_ROWS_PER_VALUE = 2
#: rows looked at first: a value seen with two classes among them settles a column without a pass over it
GIVEAWAY_SAMPLE = 10_000


def giveaways(frame: pd.DataFrame, kinds: dict, y: np.ndarray, n_classes: int) -> list[Giveaway]:
    """The used features (``kinds`` not "ignore") of ``frame`` that give the target away (see :class:`Giveaway`).

    ``y``: the class code of every row of ``frame`` (``Dataset.y``), ``n_classes`` the number of classes.
    Gapminder with target ``continent``: ``country`` (142 values, each one continent) lets a tree reach test
    accuracy 1.000 by memorising countries. Each column costs a look at its first rows, and a factorize of
    the whole column only when those rows are pure; missing feature values are left out."""
    if n_classes < 2:
        return []
    out = []
    for name, kind in kinds.items():
        if kind == "ignore" or name not in frame.columns:
            continue
        values = frame[name]
        if len(values) > GIVEAWAY_SAMPLE:
            head = _value_classes(values.iloc[:GIVEAWAY_SAMPLE], y[:GIVEAWAY_SAMPLE])
            if head is None or len(head) > 0.9 * GIVEAWAY_SAMPLE:
                continue  # impure already, or a value of its own on nearly every first row (a measurement)
        found = _value_classes(values, y)
        if found is None or len(found) < 2:
            continue
        renamed = len(found) == len(np.unique(found)) == n_classes
        rows = int(values.notna().sum())
        if renamed or (len(found) >= GIVEAWAY_MIN_VALUES and rows >= GIVEAWAY_ROWS_PER_VALUE * len(found)):
            out.append(Giveaway(name, len(found), renamed))
    return out


def _value_classes(values: pd.Series, y: np.ndarray) -> np.ndarray | None:
    """The class of each distinct present value when every value goes with one class, else None."""
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    present = codes >= 0
    codes, y = codes[present], y[present]
    cls = np.full(len(uniques), -1, dtype=np.int64)
    cls[codes] = y  # one of each value's classes (repeated indices: one of them is kept)
    return cls if np.array_equal(cls[codes], y) else None


def _fraction(value, pname: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ConfigError(f"{pname} must be a fraction between 0 and 1; got {value!r}.")
    value = float(value)
    if not 0.0 <= value < 1.0:
        raise ConfigError(f"{pname} must be a fraction from 0 up to (not including) 1; got {value!r}.")
    return value


def _allocate(total: int, sizes: np.ndarray, caps: np.ndarray) -> np.ndarray:
    """Integer counts per class summing to ``total`` (or as close as ``caps`` allow), proportional
    to ``sizes`` by the largest-remainder method, never above ``caps``."""
    n = sizes.sum()
    if n == 0 or total <= 0:
        return np.zeros_like(sizes)
    quota = total * sizes / n
    counts = np.minimum(np.floor(quota).astype(np.int64), caps)
    short = total - counts.sum()
    # hand out the remaining rows by largest remainder (ties: larger class first), respecting caps
    order = np.lexsort((-sizes, -(quota - counts)))
    while short > 0:
        room = order[counts[order] < caps[order]]
        if room.size == 0:
            break
        take = room[: short]
        counts[take] += 1
        short -= take.size
    return counts


def split_positions(y_codes, n: int, *, test_size, validation_size, seed):
    """``(train, validation, test)`` row positions; validation/test are None when their size is 0.

    Stratified when ``y_codes`` is given: each class contributes ``round``-ed shares (largest
    remainders), and a class keeps at least one training row, so a class with a single row stays in
    the training part instead of breaking the split.
    """
    test_size = _fraction(test_size, "test_size")
    validation_size = _fraction(validation_size, "validation_size")
    if test_size + validation_size >= 1.0:
        raise ConfigError(f"test_size + validation_size must be below 1 so rows are left to train on; got "
                          f"{test_size} + {validation_size}.")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ConfigError(f"seed must be a whole number 0 or larger; got {seed!r}.")
    rng = np.random.default_rng(int(seed))
    n_test, n_val = int(round(n * test_size)), int(round(n * validation_size))
    if n_test + n_val >= n and (n_test or n_val):
        raise DataError(f"With {n} rows, these sizes leave no row to train on: make the test or "
                        "validation part smaller.")
    groups = [np.arange(n)] if y_codes is None else [np.flatnonzero(y_codes == c) for c in np.unique(y_codes)]
    groups = [rng.permutation(g) for g in groups]
    sizes = np.array([g.size for g in groups], dtype=np.int64)
    caps = np.maximum(sizes - 1, 0) if y_codes is not None else sizes
    test_counts = _allocate(n_test, sizes, caps)
    val_counts = _allocate(n_val, sizes, caps - test_counts)
    test = np.sort(np.concatenate([g[:t] for g, t in zip(groups, test_counts)] + [np.empty(0, np.int64)]))
    val = np.sort(np.concatenate([g[t:t + v] for g, t, v in zip(groups, test_counts, val_counts)]
                                 + [np.empty(0, np.int64)]))
    train = np.sort(np.concatenate([g[t + v:] for g, t, v in zip(groups, test_counts, val_counts)]
                                   + [np.empty(0, np.int64)]))
    return (train.astype(np.int64), None if validation_size == 0 else val.astype(np.int64),
            None if test_size == 0 else test.astype(np.int64))


def positions(rows, n: int) -> np.ndarray:
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
