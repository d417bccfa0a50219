"""Turning an upload into text: the bytes of a source, gzip, binary formats refused, encoding.

1. ``source_bytes``: a path, bytes or a binary file object (Streamlit's UploadedFile) -> bytes + name;
2. ``unpack``: gzip is unpacked (magic bytes ``1f 8b``; at most 1 GB unpacked, against zip bombs);
3. ``refuse_binary``: images, PDFs, Excel workbooks (ZIP or OLE), archives and databases are refused
   with a sentence saying what to do;
4. ``decode``: a BOM decides (UTF-8, UTF-16 LE/BE, UTF-32), UTF-16 without BOM is recognised by its
   NUL bytes, else UTF-8, else cp1252, else latin-1 (which decodes anything); NUL bytes in text are
   refused;
5. ``refuse_markup``: a web page or XML document saved as .csv is refused.
"""

from __future__ import annotations

import codecs
import gzip
import io
import os
import zipfile
import zlib
from pathlib import Path

from engine.errors import DataError

#: Unpacked gzip files larger than this are refused (protects the server from "zip bombs").
MAX_UNPACKED_BYTES = 1 << 30

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


def utf8_head(data: bytes, limit: int = 1 << 20, *, chunk: int = 1 << 20) -> str | None:
    """The first ``limit`` bytes of ``data`` as text when the whole of it is UTF-8 without NUL bytes
    (what :func:`decode` would read as "utf-8", or "utf-8-sig": a UTF-8 BOM stays at the start of the
    text as "\\ufeff"), else None.

    ASCII is UTF-8 (``bytes.isascii`` checks it without allocating); anything else is validated over
    ``chunk``-sized slices with an incremental decoder, so a big file is checked without holding a
    second, decoded copy of it: the parser then reads the bytes themselves.
    """
    if any(data.startswith(bom) for bom, encoding in _BOMS if encoding != "utf-8") or b"\x00" in data:
        return None
    if data.isascii():
        return data[:limit].decode("ascii")
    view = memoryview(data)
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        for start in range(0, len(data), chunk):
            decoder.decode(view[start:start + chunk], final=start + chunk >= len(data))
        head = view[:limit].tobytes()
        return head.decode("utf-8", errors="ignore") if len(data) > limit else head.decode("utf-8")
    except UnicodeDecodeError:
        return None


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
