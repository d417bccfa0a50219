"""Turning an upload into text: the bytes of a source, gzip, binary formats refused, encoding.

1. ``source_bytes``: a path, bytes or a binary file object (Streamlit's UploadedFile) -> bytes + name;
   a big file on disk is mapped instead (``map_file``): its pages are read as they are used;
2. ``unpack``: gzip is unpacked in 1 MB pieces (magic bytes ``1f 8b``), refused as soon as it passes
   the unpacked-size cap (by default the app's 200 MB upload limit), the row or column limit or a
   16 MB first line, so a "zip bomb" costs memory up to the cap, never its full unpacked size; cells
   and lines are measured as the pieces arrive (``engine.data.sizes``), so a long cell or line is
   refused after a piece or two;
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
import itertools
import mmap
import os
import stat
import zipfile
import zlib
from pathlib import Path

import numpy as np

from engine.data.sizes import check_sizes, wide_text
from engine.errors import DataError

#: Unpacked gzip files larger than this are refused (protects the server from "zip bombs"); the same
#: as the app's upload limit (``server.maxUploadSize``, which the app passes in), so a compressed file
#: may hold no more than an uncompressed upload could.
MAX_UNPACKED_BYTES = 200 << 20
#: Pieces unpacked at a time, and the longest first (header) line a table may have.
UNPACK_CHUNK = 1 << 20
MAX_HEADER_BYTES = 16 << 20
#: Files on disk larger than this are mapped rather than read (see :func:`map_file`).
MAP_ABOVE_BYTES = 8 << 20
_DELIMITERS = (b",", b";", b"\t", b"|")

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


def map_file(source, above: int | None = None):
    """``(mmap, name)`` of ``source`` when it is the path of a regular file larger than ``above`` bytes
    (None: :data:`MAP_ABOVE_BYTES`), else None (then :func:`source_bytes` reads it, and names what is wrong with a path).

    A mapped file is read from the operating system's page cache as its pieces are used, so a big file
    is never copied whole into the process before the size check and the parser see it (reading 400 MB
    costs about 0.2 s); the parser's threads read their byte ranges from the same mapping.
    """
    if not isinstance(source, (str, os.PathLike)):
        return None
    path = Path(source)
    try:
        with open(path, "rb") as fh:
            info = os.fstat(fh.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size <= (MAP_ABOVE_BYTES if above is None else above):
                return None
            return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ), path.stem or "data"
    except (OSError, ValueError):
        return None  # source_bytes reads it again and says what is wrong


def unpack(data: bytes, *, max_bytes: int = MAX_UNPACKED_BYTES, max_rows: int | None = None,
           max_columns: int | None = None) -> tuple[bytes, tuple[str, ...]]:
    """Gunzip ``data`` if it starts with the gzip magic bytes (repeatedly for .gz.gz), in pieces.

    Refuses (``DataError``) as soon as the unpacked text passes ``max_bytes``, has more than
    ``max_rows`` rows or ``max_columns`` columns (counted while unpacking, for UTF-8/ASCII-like text
    without quotes, where a line is a row), or a first line longer than :data:`MAX_HEADER_BYTES`.
    """
    notes: list[str] = []
    while data[:2] == b"\x1f\x8b":
        data = _gunzip(data, max_bytes, max_rows, max_columns)
        notes.append("The file was gzip-compressed and was unpacked.")
    return data, tuple(notes)


def _gunzip(data: bytes, max_bytes: int, max_rows: int | None, max_columns: int | None) -> bytes:
    out = io.BytesIO()
    count = _LineCount(max_rows, max_columns)

    def pieces():
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as gz:
            while piece := gz.read(UNPACK_CHUNK):
                if out.tell() + len(piece) > max_bytes:
                    raise DataError(f"The compressed file unpacks to more than {max_bytes / 2**20:,.0f} MB, "
                                    "too much to load: use a sample of the rows.")
                count.add(piece, first=out.tell() == 0)
                out.write(piece)
                yield piece

    try:
        source = pieces()
        first = next(source, b"")
        if wide_text(first) or first[:2] == b"\x1f\x8b":  # UTF-16/32: checked after decoding; .gz.gz: inside
            for _ in source:
                pass
        else:  # cells and lines, while unpacking: a bomb is refused before it is held whole
            check_sizes(itertools.chain([first], source))
    except (OSError, EOFError, zlib.error):
        raise DataError("The file is gzip-compressed but damaged or cut off: compress it again.") from None
    return out.getvalue()


def _blank_lines(piece: bytes) -> int:
    """Empty lines inside ``piece``: a line end followed by a line end (``\\n\\n``, ``\\n\\r\\n``), overlapping."""
    b = np.frombuffer(piece, dtype=np.uint8)
    nl = b == 10
    return int(np.count_nonzero(nl[1:] & nl[:-1]) + np.count_nonzero(nl[2:] & (b[1:-1] == 13) & nl[:-2]))


class _LineCount:
    """Rows and header columns of text arriving in pieces (see :func:`unpack`)."""

    def __init__(self, max_rows: int | None, max_columns: int | None):
        self.max_rows, self.max_columns = max_rows, max_columns
        self.lines = self.blank = self.pieces = 0
        self.header: list[int] | None = [0] * len(_DELIMITERS)  # delimiter counts of the first line
        self.header_bytes = 0
        self.exact = True  # no quotes (a quoted cell may hold a line break) and not UTF-16/32

    def add(self, piece: bytes, *, first: bool) -> None:
        if first and wide_text(piece):
            self.exact = False  # UTF-16/32: a 0x0A byte may be half of another character
        if self.exact and b'"' in piece:
            self.exact = False
        if self.header is not None:
            self._header(piece)
        if not self.exact or self.max_rows is None:
            return
        self.pieces += 1
        self.lines += piece.count(b"\n")
        self.blank += _blank_lines(piece)
        # at least this many rows: the header and a blank line cut between two pieces are not counted
        if self.lines - self.blank - self.pieces - 1 > self.max_rows:
            raise DataError(f"The file has more than {self.max_rows:,} rows, more than this app supports: "
                            "load a sample of the rows.")
        if self.lines > 2 * self.max_rows + 2:
            raise DataError(f"The file has more than {2 * self.max_rows + 2:,} lines, more than this app "
                            "supports: load a sample of the rows.")

    def _header(self, piece: bytes) -> None:
        end = piece.find(b"\n")
        part = piece if end < 0 else piece[:end]
        self.header_bytes += len(part)
        self.header = [n + part.count(d) for n, d in zip(self.header, _DELIMITERS)]
        if self.exact and self.max_columns is not None:
            fields = 1 + max(self.header)
            if fields > self.max_columns:
                raise DataError(f"The file has {fields:,} columns or more; at most {self.max_columns:,} are "
                                "supported: keep only the columns you need.")
        if end >= 0:
            self.header = None
        elif self.header_bytes > MAX_HEADER_BYTES:
            raise DataError(f"The file's first line is longer than {MAX_HEADER_BYTES >> 20} MB, so it is not "
                            "a table with a header row: check that it is a CSV file.")


def refuse_binary(data: bytes) -> None:
    """Raise ``DataError`` for well-known binary formats (images, PDF, spreadsheets, archives)."""
    head = bytes(data[:16])  # ``data`` may be a mapped file (no ``startswith``)
    for magic, message in _SIGNATURES:
        if head.startswith(magic):
            raise DataError(message)
    if head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        raise DataError(_zip_message(bytes(data)))


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


def utf8_head(data: bytes, limit: int = 1 << 20, *, chunk: int = 1 << 20, facts=None) -> str | None:
    """The first ``limit`` bytes of ``data`` as text when the whole of it is UTF-8 without NUL bytes
    (what :func:`decode` would read as "utf-8", or "utf-8-sig": a UTF-8 BOM stays at the start of the
    text as "\\ufeff"), else None.

    ASCII is UTF-8 (``bytes.isascii`` checks it without allocating); anything else is validated over
    ``chunk``-sized slices with an incremental decoder, so a big file is checked without holding a
    second, decoded copy of it: the parser then reads the bytes themselves. ``facts``: the
    :class:`~engine.data.sizes.ByteFacts` of the size check, when it saw every byte (then ``data`` may
    be a mapped file, and is not scanned again).
    """
    if any(data[:4].startswith(bom) for bom, encoding in _BOMS if encoding != "utf-8"):
        return None
    if facts is not None and facts.complete:  # the size check's pass saw every byte: no pass here
        if facts.nul or not facts.utf8:
            return None
        is_ascii = facts.ascii
    else:
        if b"\x00" in data:
            return None
        is_ascii = data.isascii()
        if not is_ascii and not _valid_utf8(data, chunk):
            return None
    head = data[:limit]
    if is_ascii:
        return head.decode("ascii")
    return head.decode("utf-8", errors="ignore") if len(data) > limit else head.decode("utf-8")


def _valid_utf8(data: bytes, chunk: int) -> bool:
    """Whether ``data`` is UTF-8, validated over ``chunk``-sized slices (no decoded copy is kept)."""
    view = memoryview(data)
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        for start in range(0, len(data), chunk):
            decoder.decode(view[start:start + chunk], final=start + chunk >= len(data))
    except UnicodeDecodeError:
        return False
    return True


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
