"""Size checks of CSV bytes before any parser sees them: the longest cell and the longest line.

pandas, the type detection and the Data page's preview all pay for a huge cell many times over: a
150 MB quoted cell cost 1.4 GB at peak and loaded; a 150 MB line of empty fields kept pandas busy for
minutes. :func:`check_sizes` reads the file in pieces (as they are unpacked, for gzip) and refuses
(``DataError``) at the first

- line longer than :data:`MAX_LINE_BYTES` (physical line, ``\\n`` or ``\\r``), or
- cell longer than :data:`MAX_CELL_BYTES`,

so the memory it costs is a few pieces, whatever the file holds after that point.

Cells are measured in two passes over each piece. The first ignores quotes and cuts cells at every
line end and at every candidate separator (``, ; tab |``): quotes can only join such pieces, so a
piece longer than the limit is a longer cell whatever the separator. From the line holding the first
``"`` on, Python's ``csv`` reader (the quoting rules pandas follows) reads the rest with the
separator the header uses most, to find a quoted cell that holds separators or line breaks. Bytes are
read as Latin-1 (one character per byte; separators, quotes and line ends are ASCII in UTF-8 and
cp1252 too). UTF-16/32 text is checked after decoding (see ``engine.data.dataset``).
"""

from __future__ import annotations

import codecs
import csv
import io
import mmap
from collections.abc import Iterable, Iterator

import numpy as np

from engine.errors import DataError

#: The longest cell a table may hold (100 kB): far more than any value a tree can split on, small
#: enough that a cell this long costs the parser, the type detection and the preview almost nothing.
MAX_CELL_BYTES = 100_000
#: The longest line (1 MB): 1,000 columns of 1 kB each.
MAX_LINE_BYTES = 1 << 20
PIECE_BYTES = 1 << 20  # bytes read at a time from an uncompressed file

_CANDIDATES = b",;\t|"
_SEPARATORS = (b",", b";", b"\t", b"|")


def pieces_of(data: bytes, size: int = PIECE_BYTES) -> Iterator[bytes]:
    """``data`` in slices of ``size`` bytes (copies of a piece at a time: ``bytes.find`` needs bytes)."""
    for start in range(0, len(data), size):
        yield data[start:start + size]


def release_pages(data, start: int, stop: int) -> None:
    """Drop the pages of ``data[start:stop]`` from this process when ``data`` is a mapped file (whole pages
    only): they stay in the operating system's page cache and are mapped again if read again. The range
    parser lets go of each range once parsed, so the file's pages leave the process's memory as the
    parsed columns fill it (a read file stays whole until the end). Bytes are left as they are."""
    advise = getattr(data, "madvise", None)
    if advise is None or not hasattr(mmap, "MADV_DONTNEED"):
        return
    first = -(-start // mmap.PAGESIZE) * mmap.PAGESIZE
    last = len(data) if stop >= len(data) else stop // mmap.PAGESIZE * mmap.PAGESIZE  # the last, partial page too
    if last > first:
        try:
            advise(mmap.MADV_DONTNEED, first, last - first)
        except (OSError, ValueError):
            pass  # the pages simply stay


def line_count(data: bytes, size: int = 1 << 20) -> int:
    """The number of ``\\n`` bytes in ``data``, counted a piece at a time with numpy (``bytes.count``
    of one byte is a plain loop, about 3x slower on a big file)."""
    view = memoryview(data)
    return sum(int(np.count_nonzero(np.frombuffer(view[start:start + size], dtype=np.uint8) == 10))
               for start in range(0, len(data), size))


class ByteFacts:
    """What the size check's one pass over a file's pieces saw, so no later step scans the whole file
    again: whether it holds NUL bytes, carriage returns or quotes, and whether it is ASCII or valid
    UTF-8. Each piece is looked at while it is in the cache, just copied or mapped in, where a pass
    over the whole file reads it from memory once more (about 40-60 ms per pass for 400 MB).

    :meth:`watch` wraps the pieces given to :func:`check_sizes`; the facts are ``complete`` only once
    every piece went through (the check can stop early on a malformed quote): otherwise the callers
    scan the file themselves, as without facts."""

    def __init__(self):
        self.complete = False
        self.ascii = self.utf8 = True
        self.nul = self.cr = self.quote = False
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._pending = False  # the decoder holds the first bytes of a character cut between pieces

    def __repr__(self) -> str:
        seen = [k for k in ("complete", "ascii", "utf8", "nul", "cr", "quote") if getattr(self, k)]
        return f"ByteFacts({', '.join(seen)})"

    @property
    def plain_utf8(self) -> bool:
        """Every piece seen, valid UTF-8, no NUL byte and no carriage return."""
        return self.complete and self.utf8 and not self.nul and not self.cr

    def watch(self, pieces: Iterable[bytes]) -> Iterator[bytes]:
        """``pieces`` as they are, each noted on its way through."""
        for piece in pieces:
            self._note(piece)
            yield piece
        if self.utf8 and self._pending:
            try:
                self._decoder.decode(b"", final=True)
            except UnicodeDecodeError:
                self.utf8 = False
        self.complete = True

    def _note(self, piece: bytes) -> None:
        self.nul = self.nul or b"\x00" in piece
        self.cr = self.cr or b"\r" in piece
        self.quote = self.quote or b'"' in piece
        if self.utf8 and (self._pending or not piece.isascii()):
            self.ascii = False
            try:
                self._decoder.decode(piece)
                self._pending = bool(self._decoder.getstate()[0])
            except UnicodeDecodeError:
                self.utf8 = False


def check_sizes(pieces: Iterable[bytes], *, max_cell: int = MAX_CELL_BYTES,
                max_line: int = MAX_LINE_BYTES) -> int | None:
    """Read every piece of ``pieces`` (the file in order); ``DataError`` at the first cell longer
    than ``max_cell`` bytes or line longer than ``max_line`` bytes (see the module docstring).

    Returns the number of ``\\n`` bytes read (the parser sizes its matrix with it), or None when the
    csv reader stopped early on a malformed quote (the parser names it next)."""
    scan = _Scan(max_cell, max_line)
    source = iter(pieces)
    for piece in source:
        quoted = scan.feed(piece)
        if quoted is not None:  # from the line of the first quote on, the csv reader reads too
            return scan.lines if _check_quoted(scan, quoted, source) else None  # it read the rest
    return scan.lines


class _Scan:
    """The quote-blind pass, piece by piece: lines, cells cut at every candidate separator."""

    def __init__(self, max_cell: int, max_line: int):
        self.max_cell, self.max_line = max_cell, max_line
        self.offset = 0  # bytes read so far
        self.lines = 0  # "\n" read so far: the open line is line ``lines + 1``
        self.cell_start = self.line_start = 0  # where the open cell and the open line started (offsets)
        self.line_delimiters = 0  # separators (the header's) in the open line so far
        self.tail = b""  # the open line's bytes, until an odd line (at most ``max_line``)
        self.header = bytearray()  # the first line (its first 64 kB): the column names
        self.header_done = False
        self.odd_line = False  # a line with an odd number of quotes was seen (the csv reader took over)
        self.open_quotes = 0  # quotes in the open line so far
        self.quote_line = 0  # lines before that line

    @property
    def delimiter(self) -> str:
        """The candidate separator the header uses most (``,`` when it has none)."""
        counts = [self.header.count(d) for d in _CANDIDATES]
        return chr(_CANDIDATES[counts.index(max(counts))]) if max(counts) else ","

    def feed(self, piece) -> bytes | None:
        """Check one piece. At the file's first line with an odd number of quotes (where a quoted cell
        may hold a line break), returns the text from the start of that line (kept from earlier pieces
        if it began there) to the end of this piece."""
        if self._feed_fast(piece):
            return None
        b = np.frombuffer(piece, dtype=np.uint8)
        is_end = (b == 10) | (b == 13)
        bound = is_end | (b == 44) | (b == 59) | (b == 9) | (b == 124)  # line ends and , ; tab |
        has_end = bool(is_end.any())
        if not self.header_done:
            stop = int(is_end.argmax()) if has_end else len(b)
            self.header += b[:max(0, min(stop, (1 << 16) - len(self.header)))].tobytes()
            self.header_done = has_end
        self.line_start = self._longest(b, is_end, self.line_start, self.max_line, self._line_error)
        self.cell_start = self._longest(b, bound, self.cell_start, self.max_cell, self._cell_error)
        last = self.line_start - self.offset if has_end else 0  # where the open line starts in this piece
        self.line_delimiters = ((0 if has_end else self.line_delimiters)
                                + int(np.count_nonzero(b[last:] == ord(self.delimiter))))
        found = None
        if not self.odd_line:
            hits = b == 34
            if hits.any() or (self.open_quotes and has_end):  # a line may close with an odd count
                found = self._odd_line(b, hits, is_end)
            self.tail = (b"" if has_end else self.tail) + b[last:].tobytes()
        self.lines += int(np.count_nonzero(b == 10))
        self.offset += len(b)
        return found

    def _feed_fast(self, piece) -> bool:
        """:meth:`feed` for the common piece, with ``bytes.find`` instead of a pass per byte class: the
        header is read, no quote is open or in the piece, and every block of half the smaller limit
        holds a ``\\n``, so only the runs around the piece's first and last cut need measuring. False
        (nothing changed) when the piece is not like that or a run is too long: :meth:`feed` then reads
        it byte by byte and names what is too long."""
        block = min(self.max_cell, self.max_line) // 2
        if not isinstance(piece, bytes) or not self.header_done or block < 4096:
            return False
        n = len(piece)
        if not self.odd_line and (self.open_quotes or b'"' in piece):
            return False
        if any(piece.find(b"\n", s, s + block) < 0 for s in range(0, n, block)):
            return False
        first_end = piece.find(b"\n")
        first_line = min((i for i in (piece.find(b"\r", 0, first_end), first_end) if i >= 0))
        first_cell = min((i for i in (*(piece.find(c, 0, first_line) for c in _SEPARATORS), first_line)
                          if i >= 0))
        last_end = piece.rfind(b"\n")
        last_line = max(last_end, piece.rfind(b"\r", last_end))
        last_cell = max(last_line, *(piece.rfind(c, last_line) for c in _SEPARATORS))
        if (self.offset + first_line - self.line_start > self.max_line
                or self.offset + first_cell - self.cell_start > self.max_cell):
            return False
        self.line_start, self.cell_start = self.offset + last_line + 1, self.offset + last_cell + 1
        self.line_delimiters = piece.count(self.delimiter.encode("latin-1"), last_line + 1)
        if not self.odd_line:
            self.tail = piece[last_line + 1:]
        self.lines += int(np.count_nonzero(np.frombuffer(piece, dtype=np.uint8) == 10))
        self.offset += n
        return True

    def _odd_line(self, b: np.ndarray, hits: np.ndarray, is_end: np.ndarray) -> bytes | None:
        """The text from the first line of ``b`` with an odd number of quotes on (see :meth:`feed`)."""
        ends = np.flatnonzero(is_end)
        starts = np.concatenate(([0], ends + 1))
        starts = starts[starts < len(b)]
        counts = np.add.reduceat(hits.view(np.uint8), starts, dtype=np.uint8)  # quotes per line, mod 256
        counts[0] += self.open_quotes
        odd = np.flatnonzero(counts[:len(ends)] & 1)
        if len(odd) == 0:
            self.open_quotes = int(counts[-1]) & 1 if len(counts) > len(ends) else 0
            return None
        start = int(starts[odd[0]])
        self.odd_line, self.quote_line = True, self.lines + int(np.count_nonzero(b[:start] == 10))
        return (self.tail if start == 0 else b"") + b[start:].tobytes()

    def _longest(self, b: np.ndarray, cut: np.ndarray, open_start: int, limit: int, error) -> int:
        """Refuse the first run between cuts (``cut``: this piece's bytes that end a run) longer than
        ``limit``; returns the start of the run left open at the end of the piece (a file offset).

        When every block of ``limit // 2`` bytes holds a cut, no run inside the piece is that long:
        only the run from the previous piece to the first cut is measured (the fast path).
        """
        block = max(1, limit // 2)
        n = len(cut)
        if n and np.logical_or.reduceat(cut, np.arange(0, n, block)).all():
            final = (n - 1) // block * block  # the last block holds the last cut
            first, last = int(cut.argmax()), final + int(np.flatnonzero(cut[final:])[-1])
            if self.offset + first - open_start > limit:
                error(b, open_start - self.offset)
            return self.offset + last + 1
        cuts = np.flatnonzero(cut)
        starts = np.concatenate(([open_start - self.offset], cuts + 1))
        long = np.flatnonzero(np.concatenate((cuts, [n])) - starts > limit)
        if len(long):
            error(b, int(starts[long[0]]))
        return self.offset + int(cuts[-1]) + 1 if len(cuts) else open_start

    def _line_error(self, b: np.ndarray, at: int) -> None:
        line = self.lines + (int(np.count_nonzero(b[:at] == 10)) if at > 0 else 0) + 1
        raise DataError(f"Line {line:,} of the file is longer than {self.max_line >> 20} MB, more than a row of a "
                        "table holds: check that it is a CSV file with one row per line.")

    def _cell_error(self, b: np.ndarray, at: int) -> None:
        """The cell starting at ``at`` (negative: in an earlier piece, on the open line) is too long."""
        line, column = self.lines + 1, self.line_delimiters + 1
        if at > 0:
            row = b[:at]
            ends = np.flatnonzero((row == 10) | (row == 13))
            line += int(np.count_nonzero(row == 10))
            if len(ends):
                row, column = row[ends[-1] + 1:], 1
            column += int(np.count_nonzero(row == ord(self.delimiter)))
        raise DataError(cell_sentence(line, column, self.names(), self.max_cell))

    def names(self) -> list[str]:
        """The header's cells (as far as read)."""
        try:
            return next(csv.reader([self.header.decode("latin-1")], delimiter=self.delimiter), [])
        except csv.Error:
            return []


def cell_sentence(line: int, column: int | None, names: list[str], limit: int) -> str:
    """The refusal of a cell longer than ``limit`` bytes, naming its line and column (when known)."""
    where = f"Line {line:,}"
    if column is not None:
        name = names[column - 1].strip() if 0 < column <= len(names) else ""
        where += f", column {column}" + (f" ('{name[:40]}')" if name and line != 1 else "")
    return (f"{where} of the file holds a cell longer than {limit // 1000:,} kB, far more than a value a tree "
            "can use: shorten or remove that cell (or close a quote left open before it) and load again.")


def _check_quoted(scan: _Scan, first: bytes, rest: Iterator[bytes]) -> bool:
    """The csv reader's pass from the line of the first quote (``first``, then ``rest``, each piece
    still checked by the quote-blind pass); False when the reader stopped on a malformed quote."""
    lines_before = scan.quote_line
    reader = csv.reader(_text_lines(first, rest, scan), delimiter=scan.delimiter, quotechar='"',
                        skipinitialspace=True, strict=False)
    names = scan.names()
    done = 0  # lines of the rows read so far: the next row starts on the line after
    try:
        for row in reader:
            if row and max(map(len, row)) > scan.max_cell:
                column = next(i for i, cell in enumerate(row) if len(cell) > scan.max_cell) + 1
                raise DataError(cell_sentence(lines_before + done + 1, column, names, scan.max_cell))
            done = reader.line_num
    except csv.Error as err:  # the reader's own field limit (128 kB by default): a longer cell
        if "field limit" not in str(err):
            return False  # something else the parser will name (pandas reads the file next)
        raise DataError(cell_sentence(lines_before + done + 1, None, names, scan.max_cell)) from None
    return True


def _text_lines(first: bytes, rest: Iterator[bytes], scan: _Scan) -> Iterator[str]:
    """The lines of ``first`` and the pieces after it, each piece checked by ``scan`` before its lines
    are given out; a line cut between two pieces is joined (at most ``max_line`` bytes)."""
    carry = ""
    piece: bytes | None = first
    while piece is not None:
        text = carry + bytes(piece).decode("latin-1")
        cut = max(text.rfind("\n"), text.rfind("\r")) + 1
        yield from io.StringIO(text[:cut], newline="")
        carry = text[cut:]
        piece = next(rest, None)
        if piece is not None:
            scan.feed(piece)
    if carry:
        yield carry


def wide_text(head: bytes) -> bool:
    """Whether a file starting with ``head`` is UTF-16/32 (a BOM, or NUL bytes in its first 4 kB): a
    ``0x0A`` byte there may be half of another character, so bytes are not lines."""
    return head.startswith((b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")) or b"\x00" in head[:4096]


def text_pieces(text: str, size: int = PIECE_BYTES) -> Iterator[bytes]:
    """``text`` as UTF-8 in pieces (for text decoded from UTF-16/32)."""
    for start in range(0, len(text), size):
        yield text[start:start + size].encode("utf-8")
