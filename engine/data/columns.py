"""Column values and kinds: numbers written as text, labels, and the rules that pick each column's kind.

Every column of a loaded table gets a *natural* form first (:func:`natural_column`):

- numbers stay numbers (float64); ``inf``/``-inf`` become missing, with a note;
- text is stripped and missing markers (``NA``, ``?``, ``-``, ``null``, ...) become NaN; if every
  remaining value is a number in one unambiguous notation, the column is numeric:
  ``1234.5``, ``1,234.5`` (comma thousands), ``1.234,5`` / ``12,5`` (decimal comma, preferred in
  semicolon-separated files, where ``1,234`` means 1.234), ``45%`` (read as 45);
- booleans and all other text are categorical labels (strings, see :mod:`engine.data.schema`).

Text is cleaned and parsed through its distinct values (a few per column, usually); a long column of mostly
distinct texts (an id, names) is cleaned row by row instead, and counted by sorting, never hashed whole.

Then :func:`feature_kind` and :func:`infer_task` apply the rules of the data contract:

- a text column with a different value in every row (an id like ``D1..D14``) is ignored, because it
  would win every gain comparison; a column without any value is ignored too;
- an unnamed target is guessed (:func:`guess_target`): the last column when it holds a few labels, else the
  last text or yes/no column that does (tips: ``time``, not the party ``size`` at the end), else the last column;
- the target is a classification target when it is text/boolean, or integer-valued with at most 20
  distinct values that are fewer than 5% of the rows (or just two distinct values); else regression.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from engine.errors import DataError
from engine.data.schema import all_finite, clean_text, factorize_labels

#: Below this many rows a text column unique per row is still used (tiny hand-made tables).
ID_MIN_ROWS = 6
#: Integer targets with at most this many distinct values (and < 5% of rows) are classes.
MAX_INT_CLASSES = 20
#: A column "of a few labels", a likely target when none is named, has 2 to this many distinct values.
MAX_GUESS_LABELS = 10
#: Rows looked at first to tell a column of mostly distinct texts (see ``mostly_distinct``) and to bound counts.
DISTINCT_SAMPLE = 10_000

_US = r"[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[+-]?\.\d+"
_EU = r"[+-]?(?:\d{1,3}(?:\.\d{3})+|\d+)(?:,\d+)?|[+-]?,\d+"
_PERCENT = r"[+-]?(?:\d+(?:[.,]\d+)?|[.,]\d+)\s*%"
_DATE = r"\d{4}-\d{1,2}-\d{1,2}(?:[ T]\d{1,2}:\d{2}(?::\d{2})?)?|\d{1,2}[./]\d{1,2}[./]\d{2,4}"


def _is_bool(values: pd.Series) -> bool:
    if pd.api.types.is_bool_dtype(values.dtype):
        return True
    if not pd.api.types.is_object_dtype(values.dtype):
        return False
    present = values.dropna()
    return len(present) > 0 and bool(present.map(type).isin([bool, np.bool_]).all())


def labels_of(values: pd.Series) -> pd.Series:
    """Each value as its label string (``schema`` rules: ``2.0 -> "2"``, ``True -> "True"``), NaN kept."""
    codes, labels, _ = factorize_labels(values)
    table = np.array(labels + [np.nan], dtype=object)
    return pd.Series(table[codes], index=values.index, dtype="str")


def finite(values: pd.Series) -> tuple[pd.Series, int]:
    """Float64 values with +-inf replaced by NaN, and how many were infinite."""
    # float64 columns are used as they are (copy-on-write keeps them safe): no copy of a big column
    out = values if values.dtype == np.float64 else pd.to_numeric(values, errors="coerce").astype("float64")
    x = out.to_numpy()
    if all_finite(x):
        return out, 0
    inf = np.isinf(x)
    return (out.mask(inf) if inf.any() else out), int(inf.sum())


def mostly_distinct(values: pd.Series) -> bool:
    """A long column whose first :data:`DISTINCT_SAMPLE` rows are more than half distinct (ids, names, free
    text): its distinct values are nearly its rows, so gathering them first saves no work, and costs a hash
    table of ~100 bytes a row and a Python string per value (a 2M-row id column took 700 MB that way)."""
    if len(values) <= DISTINCT_SAMPLE:
        return False
    return values.iloc[:DISTINCT_SAMPLE].nunique(dropna=True) > DISTINCT_SAMPLE // 2


def _unique_text(values: pd.Series) -> tuple[np.ndarray | None, pd.Series]:
    """``(codes, uniques)``: codes (-1 = missing) into the distinct cleaned texts of ``values``.

    Cleaning (strip, missing markers) and parsing work on the distinct values only and are spread
    back with the codes, so a column of 100,000 rows with 5 categories costs 5 parses, not 100,000.
    A column of mostly distinct values (:func:`mostly_distinct`) is cleaned row by row instead:
    ``codes`` is then None and ``uniques`` is the cleaned column itself (NaN where missing).
    """
    codes, uniques, _ = _text_codes(values)
    return codes, uniques


def _text_codes(values: pd.Series) -> tuple[np.ndarray | None, pd.Series, np.ndarray | None]:
    """:func:`_unique_text`'s ``(codes, uniques)`` and the distinct raw texts (objects) they came from
    (None for a column cleaned row by row)."""
    if mostly_distinct(values):
        return None, clean_text(values), None  # a clean "str" column comes back as it is (no copy)
    raw_codes, raw = pd.factorize(values, use_na_sentinel=True)
    raw = np.asarray(raw, dtype=object)
    cleaned = clean_text(pd.Series(raw, dtype=object))
    codes, uniques = pd.factorize(cleaned, use_na_sentinel=True)  # " a" and "a" merge here
    # the usual case, nothing merged or blanked, keeps the codes (no second array of a code per row)
    same = len(codes) == len(raw) and np.array_equal(codes, np.arange(len(codes)))
    codes = raw_codes if same else np.append(codes, -1)[raw_codes]
    return codes, pd.Series(np.asarray(uniques, dtype=object), dtype="str"), raw


def _present(codes, uniques: pd.Series) -> pd.Series:
    """The distinct texts, or the present rows of a column cleaned row by row (a copy only if some are missing)."""
    return uniques if codes is not None or not uniques.hasnans else uniques.dropna()


def _head(codes, uniques: pd.Series, k: int) -> pd.Series:
    """The first ``k`` distinct texts, or (a column cleaned row by row) about the first ``k`` present rows."""
    return uniques.iloc[:k] if codes is not None else uniques.iloc[:4 * k].dropna().iloc[:k]


def _expand_text(codes: np.ndarray | None, uniques: pd.Series, values: pd.Series, raw) -> pd.Series:
    """The cleaned labels of every row of ``values`` (a text column), from its distinct cleaned texts
    ``uniques`` and its distinct raw texts ``raw`` (see :func:`_text_codes`)."""
    if codes is None:
        return uniques  # cleaned row by row
    if values.dtype == "str" and len(uniques) == len(raw):
        # no value changed and none merged (cleaning only strips and blanks markers, so equal counts mean
        # equal texts when every cleaned text is one of the raw ones): the column is already its labels
        if pd.Series(raw, dtype=object).isin(uniques.astype(object)).all():
            return values
    # ExtensionArray.take with allow_fill: -1 becomes missing; a C-level take, no Python strings
    return pd.Series(uniques.array.take(codes, allow_fill=True), index=values.index)


def _spread(numbers: pd.Series, codes: np.ndarray | None, index) -> pd.Series:
    table = pd.to_numeric(numbers, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    if codes is None:  # one number per row already
        return pd.Series(table, index=index, dtype="float64")
    return pd.Series(np.append(table, np.nan)[codes], index=index, dtype="float64")


def _all_match(texts: pd.Series, pattern: str) -> bool:
    """Whether every text fully matches ``pattern``; the first texts are looked at first, so most text
    columns are refused without a pass over all of them."""
    return bool(texts.iloc[:64].str.fullmatch(pattern).all() and texts.str.fullmatch(pattern).all())


def _all_plain_numbers(uniques: pd.Series) -> bool:
    # a quick look at the first values avoids pandas' slow per-value fallback on text columns
    if pd.to_numeric(uniques.iloc[:64], errors="coerce").isna().any():
        return False
    return bool(pd.to_numeric(uniques, errors="coerce").notna().all())


def parse_numbers(text: pd.Series, *, decimal_comma: bool) -> tuple[pd.Series | None, str]:
    """Float values of text if every non-missing value is a number in one notation.

    Returns ``(values, how)`` with ``how`` one of "plain", "thousands", "decimal comma", "percent",
    or ``(None, "")`` when some value is not a number (or the notation is ambiguous).
    """
    codes, uniques = _unique_text(text)
    return _parse_uniques(codes, uniques, text.index, decimal_comma)


def _parse_uniques(codes, uniques: pd.Series, index, decimal_comma: bool) -> tuple[pd.Series | None, str]:
    present = _present(codes, uniques)  # the tests look at present texts; conversions keep every row
    if present.empty:
        return None, ""
    if _all_plain_numbers(present):
        return _spread(uniques, codes, index), "plain"
    us, eu = _all_match(present, _US), _all_match(present, _EU)
    if us and eu:  # e.g. only "1,234"-like values: the file's convention decides
        us, eu = not decimal_comma, decimal_comma
    if eu:
        converted = uniques.str.replace(".", "", regex=False).str.replace(",", ".", regex=False)
        return _spread(converted, codes, index), "decimal comma"
    if us:
        return _spread(uniques.str.replace(",", "", regex=False), codes, index), "thousands"
    if _all_match(present, _PERCENT):
        digits = uniques.str.replace("%", "", regex=False).str.strip()
        if decimal_comma or not digits.str.contains(".", regex=False, na=False).any():
            digits = digits.str.replace(",", ".", regex=False)
        number = pd.to_numeric(digits, errors="coerce")
        if (number.notna() | digits.isna()).all():
            return _spread(number, codes, index), "percent"
    return None, ""


def number_share(text: pd.Series, limit: int = 2000) -> tuple[float, str]:
    """Share of the (non-missing) rows that are plain numbers, and an example value that is not."""
    return _number_share(*_unique_text(text), limit=limit)


def _number_share(codes, uniques: pd.Series, limit: int = 2000) -> tuple[float, str]:
    # estimated from the first ``limit`` distinct values (or present rows, for a column cleaned row by row):
    # enough for a note or an error message
    head = _head(codes, uniques, limit)
    if head.empty:
        return 0.0, ""
    is_number = pd.to_numeric(head, errors="coerce").notna().to_numpy()
    counts = (np.bincount(codes[(codes >= 0) & (codes < len(head))], minlength=len(head)) if codes is not None
              else np.ones(len(head), dtype=np.int64))
    bad = head[~is_number]
    return float(counts[is_number].sum() / max(counts.sum(), 1)), (str(bad.iloc[0]) if len(bad) else "")


def first_non_number(text: pd.Series) -> str:
    """An example value of ``text`` that is not a number (for error messages)."""
    example = number_share(text)[1]
    if example:
        return example
    present = text.dropna()
    return str(present.iloc[0]) if len(present) else ""


def natural_column(values: pd.Series, name: str, *, decimal_comma: bool) -> tuple[pd.Series, str, list[str]]:
    """``(values, kind, notes)``: the column as float64 ("numeric") or label strings ("categorical")."""
    notes: list[str] = []
    if _is_bool(values):
        return labels_of(values), "categorical", notes
    if pd.api.types.is_numeric_dtype(values.dtype):
        out, n_inf = finite(values)
        if n_inf:
            notes.append(_inf_note(name, n_inf))
        return out, "numeric", notes
    codes, uniques, raw = _text_codes(values)
    number, how = _parse_uniques(codes, uniques, values.index, decimal_comma)
    if number is not None:
        out, n_inf = finite(number)
        if n_inf:
            notes.append(_inf_note(name, n_inf))
        if how == "percent":
            notes.append(f"Column '{name}' holds percentages; the % signs were dropped (45% is read as 45).")
        elif how == "thousands":
            notes.append(f"Column '{name}' holds numbers with thousands separators (1,234 is read as 1234).")
        return out, "numeric", notes
    share, example = _number_share(codes, uniques)
    if share >= 0.5:
        notes.append(f"Column '{name}' mixes numbers with text (for example '{example}'), "
                     "so it is treated as categorical; fix or blank those values to use it as numbers.")
    elif example and _head(codes, uniques, 1000).str.fullmatch(_DATE).all():
        notes.append(f"Column '{name}' holds dates; they are treated as categories (text).")
    return _expand_text(codes, uniques, values, raw), "categorical", notes


def _inf_note(name: str, count: int) -> str:
    what = "an infinite value" if count == 1 else f"{count:,} infinite values"
    return f"Column '{name}' had {what} (inf), treated as missing."


def as_kind(values: pd.Series, natural: str, kind: str, name: str, *, decimal_comma: bool) -> pd.Series:
    """The column in the representation of ``kind`` (float64 numeric, label strings categorical).

    Raises ``DataError`` naming the column and a bad value when text cannot be made numeric.
    """
    if kind == "numeric" and natural != "numeric":
        text = clean_text(values)
        number, _ = parse_numbers(text, decimal_comma=decimal_comma)
        if number is None:
            if text.notna().sum() == 0:
                return pd.Series(np.nan, index=values.index, dtype="float64")
            raise DataError(f"Column '{name}' cannot be numeric: '{first_non_number(text)}' is not a number. "
                            "Mark it categorical, or fix that value.")
        return finite(number)[0]
    if kind == "categorical" and natural == "numeric":
        return labels_of(values)
    return values


def is_identifier(values: pd.Series, natural: str) -> bool:
    """A text column (not mostly numbers) with a different value in every row that has one (at
    least ``ID_MIN_ROWS`` rows, and at most 10% of them empty)."""
    if natural != "categorical" or len(values) < ID_MIN_ROWS:
        return False  # before counting: a numeric column costs no pass here
    n, present = len(values), int(values.notna().sum())
    if present < 0.9 * n or not all_distinct(values):
        return False
    # every value distinct: the share of numbers among the first 2,000 distinct values is that of the first
    # 2,000 present rows (no need to gather the distinct values of the whole column)
    return number_share(values.iloc[:2000 + n - present].dropna())[0] < 0.5


def all_distinct(values: pd.Series) -> bool:
    """Whether no two present values of ``values`` are equal (a repeat among the first rows answers at once)."""
    present = values.dropna()
    if present.iloc[:DISTINCT_SAMPLE].duplicated().any():
        return False
    return distinct_count(present) == len(present)


def distinct_count(values: pd.Series) -> int:
    """The number of distinct present values (``nunique``), within a few bytes a row for long text columns.

    A long column of mostly distinct texts (ids, names) is sorted, 8 bytes a row, and its neighbours compared
    a piece at a time; pandas' ``nunique`` would hash it, ~100 bytes a row in pyarrow's hash table."""
    present = values.dropna()
    if present.dtype != "str" or not mostly_distinct(present):
        return int(present.nunique())
    texts = present.array
    order = texts.argsort()
    repeats, step = 0, DISTINCT_SAMPLE * 16
    for start in range(0, len(order) - 1, step):
        piece = texts.take(order[start:start + step + 1])
        repeats += int(np.count_nonzero(np.asarray(piece[1:] == piece[:-1], dtype=bool)))
    return len(present) - repeats


def is_row_number(values: pd.Series) -> bool:
    """Numbers 0..n-1 or 1..n in file order: a row number, not a measurement."""
    x = values.to_numpy(dtype=np.float64, na_value=np.nan)
    if len(x) < ID_MIN_ROWS or x[0] not in (0.0, 1.0) or x[-1] != x[0] + len(x) - 1:
        return False  # the ends decide most columns without a pass over them
    return bool(not np.isnan(x).any() and np.array_equal(x, np.arange(x[0], x[0] + len(x))))


def _has_value(values: pd.Series) -> bool:
    """Whether some row has a value: the first row mostly says so without a pass over the column."""
    if len(values) and pd.notna(values.iloc[0]):
        return True
    return bool(values.notna().any())


def feature_kind(values: pd.Series, natural: str, name: str) -> tuple[str, str | None]:
    """Inferred kind of a feature column and a note explaining it (or ``None``)."""
    if not _has_value(values):
        return "ignore", f"Column '{name}' has no values at all, so it is ignored."
    if is_identifier(values, natural):
        return "ignore", (f"Column '{name}' is ignored: every row has a different value, so it would win "
                          "every gain comparison. Mark it categorical to use it anyway.")
    if natural == "numeric" and is_row_number(values):
        return natural, (f"Column '{name}' counts the rows (1, 2, 3, ...); if it is a row number, "
                         "ignore it, or the tree may split on the order of the file.")
    return natural, None


def infer_task(values: pd.Series, natural: str) -> str:
    """'classification' for text/boolean targets and few integer values; else 'regression'."""
    if natural != "numeric":
        return "classification"
    present = values.dropna().to_numpy(dtype=np.float64)
    if present.size == 0 or not np.all(np.mod(present, 1.0) == 0.0):
        return "regression"
    distinct = np.unique(present).size
    if distinct <= 2 or (distinct <= MAX_INT_CLASSES and distinct < 0.05 * present.size):
        return "classification"
    return "regression"


def holds_few_labels(values: pd.Series, natural: str, *, least: int = 1) -> bool:
    """A column of a few labels: text or yes/no with ``least`` to ``MAX_GUESS_LABELS`` distinct values, or
    numbers with at most two (a 0/1 outcome)."""
    most = 2 if natural == "numeric" else MAX_GUESS_LABELS
    if values.iloc[:DISTINCT_SAMPLE].nunique(dropna=True) > most:
        return False  # more labels among the first rows already: no count over a long id or text column
    return least <= values.nunique(dropna=True) <= most


def _is_measurement(values: pd.Series, natural: str) -> bool:
    """Numbers with a fraction, or with more than ``MAX_GUESS_LABELS`` distinct values."""
    if natural != "numeric":
        return False
    numbers = pd.to_numeric(values, errors="coerce").dropna()
    return bool(numbers.nunique() > MAX_GUESS_LABELS or (numbers % 1 != 0).any())


def guess_target(full: pd.DataFrame, natural: dict) -> str:
    """The column to predict when none is named.

    The last column when it holds a few labels (:func:`holds_few_labels`) or is a measurement (numbers with
    a fraction, or more than ``MAX_GUESS_LABELS`` distinct ones: a regression target, as in most exported
    data sets); else, when it is a small count or text of many values, the last text or yes/no column with 2
    to ``MAX_GUESS_LABELS`` labels (a small count at the end of the file is a feature more often than the
    thing to predict: plotly's tips data ends with the party ``size``, 1 to 6, and its labels are ``sex``,
    ``smoker``, ``day`` and ``time``); else the last column.
    """
    names = list(full.columns)
    last = names[-1]
    if holds_few_labels(full[last], natural[last]) or _is_measurement(full[last], natural[last]):
        return last
    for name in reversed(names[:-1]):
        if natural[name] != "numeric" and holds_few_labels(full[name], natural[name], least=2):
            return name
    return last
