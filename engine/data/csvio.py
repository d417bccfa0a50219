"""Reading CSV text into a raw DataFrame: separator, header, rows (pandas does the parsing).

The text comes from :mod:`engine.data.textio` (bytes, gzip, binary refusal, encoding). This module decides:

1. the separator: Excel's ``sep=;`` first line if present, else ``csv.Sniffer`` over ``, ; tab |``
   checked by counting fields per line (the header and most lines must agree), so a letter of a
   one-column header or a decimal comma never becomes the separator;
2. the header: parsed by the ``csv`` module so that blank and duplicate names are reported by position
   (pandas would silently rename them ``Unnamed: 3`` and ``x.1``); a trailing separator is allowed;
3. the rows: ``pandas.read_csv`` (C engine) with ``decimal=","`` when the separator is ``;``; a row
   with more or fewer fields than the header is an error naming its physical line.

Cell-level cleaning (missing markers, numbers written as text, kinds) happens in
:mod:`engine.data.columns`; this module only reports what it saw in ``RawTable``.
"""

from __future__ import annotations

import csv
import io
import re
import warnings
from dataclasses import dataclass

import pandas as pd

from engine.errors import DataError
import engine.data.csvblocks as csvblocks
from engine.data.schema import MISSING_MARKERS
from engine.data.textio import refuse_markup

DELIMITERS = ",;\t|"
DELIMITER_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}
#: Extra spellings of "no value" given to pandas (case variants of ``schema.MISSING_MARKERS``).
NA_VALUES = sorted({v for m in MISSING_MARKERS for v in (m, m.upper(), m.title(), m.capitalize())})

_SEP_LINE = re.compile(r'"?sep=([,;\t|])"?[ \t]*\n', re.IGNORECASE)
_C_FIELDS = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")


@dataclass(frozen=True)
class RawTable:
    """The parsed cells of a CSV file and what was detected while reading it."""

    frame: pd.DataFrame
    name: str
    encoding: str
    delimiter: str
    notes: tuple[str, ...]

    @property
    def decimal_comma(self) -> bool:
        """Whether numbers may be written with a decimal comma (semicolon-separated files)."""
        return self.delimiter == ";"


# -------------------------------------------------------------------------------- delimiter
def _field_counts(lines: list[str], delimiter: str) -> list[int]:
    reader = csv.reader(lines, delimiter=delimiter, quotechar='"', skipinitialspace=True)
    try:
        return [len(row) for row in reader if row]
    except csv.Error:
        return []


def sniff_delimiter(text: str) -> str:
    """The field separator among ``, ; tab |`` (a one-column file gets ``,``).

    ``csv.Sniffer`` proposes one; every candidate is scored by whether the header's field count
    equals the most common count of the next lines and by how many lines share it, so a letter of
    the header or a decimal comma never wins against a real separator.
    """
    sample = text[:65536]
    if len(text) > len(sample) and "\n" in sample:
        sample = sample[: sample.rindex("\n")]
    lines = [ln for ln in sample.split("\n")[:200] if ln.strip()]
    try:
        sniffed = csv.Sniffer().sniff("\n".join(lines[:50]), delimiters=DELIMITERS).delimiter
    except csv.Error:
        sniffed = None
    best, best_score = ",", None
    for delim in DELIMITERS:
        if not any(delim in ln for ln in lines[:50]):
            continue
        counts = _field_counts(lines, delim)
        if not counts or max(counts) < 2:
            continue
        header, body = counts[0], counts[1:] or counts[:1]
        mode = max(set(body), key=body.count)
        agree = body.count(mode) / len(body)
        score = (header == mode and mode > 1, agree >= 0.9, delim == sniffed, agree, mode)
        if best_score is None or score > best_score:
            best, best_score = delim, score
    return best


# ------------------------------------------------------------------------------------- table
def read_table(text: str, *, name: str, encoding: str, max_columns: int, max_rows: int,
               notes: tuple[str, ...] = (), data: bytes | None = None, lines: int | None = None,
               facts=None) -> RawTable:
    """Parse ``text`` into a :class:`RawTable` (names checked, rows counted, pandas errors wrapped).

    ``data``: the whole file as UTF-8 bytes when ``text`` is only its beginning (see
    ``engine.data.textio.utf8_head``): pandas then parses the bytes and the full text is decoded only to
    name a bad line; ``lines``, when given, is the number of ``\\n`` bytes in ``data``. A UTF-8 BOM, and Windows line ends (``\r\n``) when the file has no quotes (so no
    cell can hold a line break), stay in the bytes; other carriage returns and a ``sep=`` line take the
    text path. ``facts``: the :class:`~engine.data.sizes.ByteFacts` of ``data`` when the size check saw
    every byte (carriage returns and quotes are then known without a scan, and ``data`` may be a mapped
    file).
    """
    if data is not None and text.startswith("\ufeff"):
        text = text[1:]  # a UTF-8 BOM (Excel's "CSV UTF-8"): pandas reads it with the header row and skips both
    known = data is not None and facts is not None and facts.complete
    has_cr = data is not None and (facts.cr if known else b"\r" in data)
    quoted = (facts.quote if known else b'"' in data) if data is not None else None
    crlf = has_cr and not quoted and data.count(b"\r") == data.count(b"\r\n")
    if crlf:  # the beginning is read for the separator and the header: with plain line ends
        text = text.replace("\r\n", "\n").rstrip("\r")
    if data is not None and ("\r" in text or (has_cr and not crlf) or _SEP_LINE.match(text)
                             or not text.strip()):
        text, data, lines, quoted = str(data, "utf-8"), None, None, None
    if data is not None:
        raw_bytes = data
        # decoded only for an error message, with the line ends the text path would have given it
        whole = lambda: str(raw_bytes, "utf-8-sig").replace("\r\n", "\n")  # noqa: E731
    else:
        whole = None
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text or text.isspace():
        raise DataError("The file is empty: choose a CSV file with a header row and data rows.")
    refuse_markup(text)
    declared = _SEP_LINE.match(text)  # Excel's "sep=;" first line names the separator
    offset = 0
    if declared:
        delimiter, text, offset = declared.group(1), text[declared.end():], 1
    else:
        delimiter = sniff_delimiter(text)
    names = header_names(text, delimiter)
    if len(names) > max_columns:
        raise DataError(f"The file has {len(names):,} columns; at most {max_columns:,} are supported: "
                        "keep only the columns you need.")
    if data is None:
        data = text.encode("utf-8")
        whole = lambda: text  # noqa: E731
    # skipping spaces after separators costs pandas ~30%: only when the start of the file has any
    head = text[:65536]
    spaced = (delimiter + " ") in head or "\n " in head or head.startswith(" ")
    try:
        try:
            frame, caught = _parse(data, delimiter, names, max_rows, skip_spaces=spaced, lines=lines,
                                   quoted=quoted)
        except pd.errors.ParserError:
            if spaced:
                raise
            frame, caught = _parse(data, delimiter, names, max_rows, skip_spaces=True, lines=lines,
                                   quoted=quoted)
    except pd.errors.ParserError as err:
        if _C_FIELDS.search(str(err)):
            _check_row_lengths(whole(), delimiter, len(names), offset)  # names the physical line
        raise DataError(_parser_message(str(err), len(names))) from None
    except (ValueError, MemoryError, OverflowError, UnicodeError, csv.Error) as err:
        raise DataError(f"The file cannot be read as a table ({err.__class__.__name__}): "
                        "check that it is a CSV file with one header row.") from None
    if len(frame) == 0:
        raise DataError("The file has a header but no rows.")
    if len(frame) > max_rows:
        raise DataError(f"The file has more than {max_rows:,} rows, more than this app supports: "
                        "load a sample of the rows.")
    if any(issubclass(w.category, pd.errors.ParserWarning) for w in caught) or frame[names[-1]].isna().any():
        _check_row_lengths(whole(), delimiter, len(names), offset)
    found = [] if delimiter == "," else [f"Columns are separated by {DELIMITER_NAMES[delimiter]}s."]
    return RawTable(frame, name, encoding, delimiter, tuple(notes) + tuple(found))


def _parse(data: bytes, delimiter: str, names: list[str], max_rows: int, *, skip_spaces: bool,
           lines: int | None = None, quoted: bool | None = None):
    """``pandas.read_csv`` with this module's settings; returns the frame and the warnings raised.

    Files above :data:`engine.data.csvblocks.CHUNKED_ABOVE_BYTES` are parsed in blocks (see
    :func:`engine.data.csvblocks.parse_blocks`; ``quoted``: whether ``data`` holds a quote, when
    known), others in one piece.
    """
    kw = dict(encoding="utf-8", sep=delimiter, header=0, names=names, index_col=False, quotechar='"',
              skipinitialspace=skip_spaces, skip_blank_lines=True, keep_default_na=False, na_values=NA_VALUES,
              decimal="," if delimiter == ";" else ".", low_memory=False, nrows=max_rows + 1,
              on_bad_lines="error", engine="c")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        big = len(data) > csvblocks.CHUNKED_ABOVE_BYTES
        frame = csvblocks.parse_blocks(data, kw, lines, quoted=quoted) if big else None
        if frame is None:
            frame = pd.read_csv(io.BytesIO(data), **kw)
    return frame, caught


def header_names(text: str, delimiter: str) -> list[str]:
    """Column names from the first record, stripped; blank or duplicate names raise ``DataError``."""
    reader = csv.reader(_lines(text), delimiter=delimiter, quotechar='"', skipinitialspace=True)
    try:
        header = next((row for row in reader if row), [])
    except csv.Error:
        raise DataError("The header row cannot be read: a quote in it is not closed.") from None
    names = [h.strip() for h in header]
    if names and names[-1] == "" and len(names) > 1 and all(names[:-1]):
        names[-1] = "\x00trailing"  # a trailing separator: pandas drops it with index_col=False
        names = names[:-1]
    if len(names) < 2:
        only = f" ('{names[0]}')" if names and names[0] else ""
        raise DataError(f"The file has only one column{only}: a tree needs at least one feature and a "
                        "target. Separate the values with commas, semicolons, tabs or |.")
    blank = [i + 1 for i, n in enumerate(names) if not n]
    if blank:
        which = ", ".join(str(b) for b in blank[:5])
        raise DataError(f"Column {which} of the header has no name: give every column a name "
                        "in the first row.")
    seen: dict[str, int] = {}
    for i, n in enumerate(names):
        if n in seen:
            raise DataError(f"The column name '{n}' appears twice (columns {seen[n] + 1} and {i + 1}): "
                            "rename one of them.")
        seen[n] = i
    return names


def _lines(text: str, chunk: int = 1 << 16):
    """Lines of ``text`` (with their "\\n"), cut lazily so reading the header never copies the file."""
    start = 0
    while start < len(text):
        end = text.find("\n", start, start + chunk)
        if end < 0:
            end = text.find("\n", start)
        end = len(text) if end < 0 else end + 1
        yield text[start:end]
        start = end


def _parser_message(message: str, n_names: int) -> str:
    match = _C_FIELDS.search(message)
    if match:
        expected, line, saw = match.groups()
        return (f"Line {line} has {saw} fields but the header has {expected}: fix that row (a missing or "
                "extra separator, or a quote that is not closed) and load again.")
    if "EOF inside string" in message or "EOF while" in message:
        return "A quote in the file is never closed: check the quotes and load again."
    return "The file cannot be read as a table: check that every row has the same columns as the header."


def _check_row_lengths(text: str, delimiter: str, n_names: int, offset: int = 0) -> None:
    """Raise ``DataError`` naming the first line with fewer or more fields than the header.

    Empty fields after the last column (a trailing separator) do not count as extra fields.
    """
    reader = csv.reader(_lines(text), delimiter=delimiter, quotechar='"', skipinitialspace=True)
    try:
        for row in reader:
            if not row or not any(c.strip() for c in row):
                continue
            if len(row) < n_names or any(c.strip() for c in row[n_names:]):
                hint = "a missing separator" if len(row) < n_names else "an extra separator"
                fields = "1 field" if len(row) == 1 else f"{len(row)} fields"
                raise DataError(f"Line {reader.line_num + offset} has {fields} but the header has "
                                f"{n_names}: fix that row ({hint}) and load again.")
    except csv.Error:
        return


#: Text a spreadsheet runs as a formula when a CSV cell starts with it (CSV injection): the app's CSV downloads and
#: lesson files put an apostrophe before such text (:func:`formula_safe`).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def formula_safe(value):
    """``value`` with a leading apostrophe when it is text a spreadsheet would run as a formula; anything else
    (numbers included: a negative number is not text) unchanged."""
    return "'" + value if isinstance(value, str) and value.startswith(FORMULA_START) else value
