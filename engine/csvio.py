"""Reading a CSV file into a raw DataFrame: bytes, compression, encoding, delimiter, header, rows.

This module turns whatever the user gives (a path, bytes, an uploaded file) into a DataFrame of the
file's cells, with pandas doing the parsing. It decides, in this order:

1. the bytes: gzip is unpacked (magic bytes ``1f 8b``); images, PDFs, Excel workbooks (ZIP or OLE)
   and other binary files are refused with a sentence saying what to do;
2. the text encoding: a BOM decides (UTF-8, UTF-16 LE/BE, UTF-32), else UTF-8, else cp1252, else
   latin-1 (which decodes anything);
3. the delimiter: ``csv.Sniffer`` over ``, ; tab |``, checked by counting fields per line (the header
   and most lines must agree); a file with a single column stays one column;
4. the header: parsed by the ``csv`` module so that blank and duplicate names are reported by
   position (pandas would silently rename them ``Unnamed: 3`` and ``x.1``);
5. the rows: ``pandas.read_csv`` (C engine) with ``decimal=","`` when the delimiter is ``;``; a row
   with more or fewer fields than the header is an error naming its line.

Cell-level cleaning (missing markers, numbers written as text, kinds) happens in
:mod:`engine.columns`; this module only reports what it saw in ``RawTable``.
"""

from __future__ import annotations

import csv
import gzip
import io
import os
import re
import warnings
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .errors import DataError
from .schema import MISSING_MARKERS

#: Unpacked gzip files larger than this are refused (protects the server from "zip bombs").
MAX_UNPACKED_BYTES = 1 << 30
DELIMITERS = ",;\t|"
DELIMITER_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}
#: Extra spellings of "no value" given to pandas (case variants of ``schema.MISSING_MARKERS``).
NA_VALUES = sorted({v for m in MISSING_MARKERS for v in (m, m.upper(), m.title(), m.capitalize())})

_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "This is a PNG image, not a table: choose a CSV file."),
    (b"\xff\xd8\xff", "This is a JPEG image, not a table: choose a CSV file."),
    (b"GIF87a", "This is a GIF image, not a table: choose a CSV file."),
    (b"GIF89a", "This is a GIF image, not a table: choose a CSV file."),
    (b"%PDF", "This is a PDF document, not a table: export the table as CSV and load that."),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
     "This looks like an old Excel (.xls) workbook: save it as CSV first."),
    (b"BZh", "This is a bzip2-compressed file: unpack it and load the CSV inside."),
    (b"\xfd7zXZ\x00", "This is an xz-compressed file: unpack it and load the CSV inside."),
    (b"7z\xbc\xaf\x27\x1c", "This is a 7-Zip archive: unpack it and load the CSV inside."),
    (b"SQLite format 3\x00", "This is an SQLite database, not a CSV file: export a table as CSV."),
    (b"PAR1", "This is a Parquet file: save the table as CSV first."),
)
_BOMS = (  # longest first: the UTF-32 LE BOM starts with the UTF-16 LE one
    (b"\xff\xfe\x00\x00", "utf-32-le"), (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"),
)
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


# ------------------------------------------------------------------------------------- bytes
def source_bytes(source) -> tuple[bytes, str]:
    """The raw bytes and a display name of ``source`` (path, bytes or a binary file object)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source), "data"
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        try:
            return path.read_bytes(), path.stem or "data"
        except FileNotFoundError:
            raise DataError(f"There is no file '{path}': check the name and folder.") from None
        except IsADirectoryError:
            raise DataError(f"'{path}' is a folder, not a file: choose a CSV file inside it.") from None
        except (OSError, ValueError) as err:
            raise DataError(f"The file '{path}' cannot be read ({err.__class__.__name__}).") from None
    name = Path(str(getattr(source, "name", "") or "data")).stem or "data"
    try:
        if hasattr(source, "getvalue"):
            data = source.getvalue()
        elif hasattr(source, "read"):
            data = source.read()
        else:
            raise DataError("Give a file path, the file's bytes or an uploaded file to load.")
    except DataError:
        raise
    except Exception as err:  # a broken file object: report, never crash the page
        raise DataError(f"The uploaded file cannot be read ({err.__class__.__name__}).") from None
    if isinstance(data, str):
        data = data.encode("utf-8")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise DataError("The uploaded file did not give any bytes to read.")
    return bytes(data), name


def unpack(data: bytes) -> tuple[bytes, tuple[str, ...]]:
    """Gunzip ``data`` if it starts with the gzip magic bytes (repeatedly for .gz.gz)."""
    notes: list[str] = []
    while data[:2] == b"\x1f\x8b":
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(data)) as gz:
                inner = gz.read(MAX_UNPACKED_BYTES + 1)
        except (OSError, EOFError, zlib.error):
            raise DataError("The file is gzip-compressed but damaged or cut off: compress it again.") from None
        if len(inner) > MAX_UNPACKED_BYTES:
            raise DataError("The compressed file unpacks to more than 1 GB, too much to load: "
                            "use a sample of the rows.")
        data = inner
        notes.append("The file was gzip-compressed and was unpacked.")
    return data, tuple(notes)


def refuse_binary(data: bytes) -> None:
    """Raise ``DataError`` for well-known binary formats (images, PDF, spreadsheets, archives)."""
    for magic, message in _SIGNATURES:
        if data.startswith(magic):
            raise DataError(message)
    if data.startswith(b"PK\x03\x04") or data.startswith(b"PK\x05\x06"):
        raise DataError(_zip_message(data))


def _zip_message(data: bytes) -> str:
    try:
        names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        names = []
    if any(n.startswith("xl/") for n in names) or not names:
        return "This looks like an Excel workbook: save it as CSV first."
    if "content.xml" in names:
        return "This looks like an OpenDocument spreadsheet: save it as CSV first."
    return "This is a ZIP archive: unpack it and load the CSV file inside."


# ------------------------------------------------------------------------------------- text
def decode(data: bytes) -> tuple[str, str]:
    """Text of ``data`` and the encoding used (BOM, then UTF-8, then cp1252, then latin-1)."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                text = data[len(bom):].decode(encoding)
            except UnicodeDecodeError:
                raise DataError(f"The file starts like {encoding.upper()} text but is not valid "
                                f"{encoding.upper()}: save it again as UTF-8 CSV.") from None
            _refuse_nul(text)
            return text, encoding + ("-sig" if encoding == "utf-8" else "")
    if b"\x00" in data[:4096]:
        guess = _utf16_without_bom(data)
        if guess is None:
            raise DataError("The file contains NUL bytes, so it is not a plain-text CSV file: "
                            "save the table as CSV (UTF-8) and load that.")
        data, encoding = data, guess
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            raise DataError("The file contains NUL bytes, so it is not a plain-text CSV file: "
                            "save the table as CSV (UTF-8) and load that.") from None
        _refuse_nul(text)
        return text, encoding
    for encoding in ("utf-8", "cp1252", "latin-1"):
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        _refuse_nul(text)
        return text, encoding
    raise AssertionError("latin-1 decodes every byte string")  # pragma: no cover


def _utf16_without_bom(data: bytes) -> str | None:
    """'utf-16-le'/'utf-16-be' when every other byte of the start is NUL (ASCII text in UTF-16)."""
    head = data[: 4096 - (4096 % 2)]
    if len(head) < 4:
        return None
    even, odd = head[0::2], head[1::2]
    if odd.count(0) >= 0.9 * len(odd) and even.count(0) == 0:
        return "utf-16-le"
    if even.count(0) >= 0.9 * len(even) and odd.count(0) == 0:
        return "utf-16-be"
    return None


def _refuse_nul(text: str) -> None:
    if "\x00" in text:
        raise DataError("The file contains NUL bytes, so it is not a plain-text CSV file: "
                        "save the table as CSV (UTF-8) and load that.")


def refuse_markup(text: str) -> None:
    """Raise ``DataError`` for a web page or XML document saved under a .csv name."""
    head = text[:256].lstrip().lower()
    if head.startswith(("<!doctype html", "<html")):
        raise DataError("This is a web page (HTML), not a CSV file: download or export the table as CSV.")
    if head.startswith("<?xml"):
        raise DataError("This is an XML document, not a CSV file: export the table as CSV.")


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
               notes: tuple[str, ...] = ()) -> RawTable:
    """Parse ``text`` into a :class:`RawTable` (names checked, rows counted, pandas errors wrapped)."""
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
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            frame = pd.read_csv(
                io.BytesIO(text.encode("utf-8")), encoding="utf-8", sep=delimiter, header=0, names=names,
                index_col=False, quotechar='"',
                skipinitialspace=True, skip_blank_lines=True, keep_default_na=False, na_values=NA_VALUES,
                decimal="," if delimiter == ";" else ".", low_memory=False, nrows=max_rows + 1,
                on_bad_lines="error", engine="c")
    except pd.errors.ParserError as err:
        if _C_FIELDS.search(str(err)):
            _check_row_lengths(text, delimiter, len(names), offset)  # names the physical line
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
        _check_row_lengths(text, delimiter, len(names), offset)
    found = [] if delimiter == "," else [f"Columns are separated by {DELIMITER_NAMES[delimiter]}s."]
    return RawTable(frame, name, encoding, delimiter, tuple(notes) + tuple(found))


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
