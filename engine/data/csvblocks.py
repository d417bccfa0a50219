"""A big CSV file parsed in blocks: numeric columns straight into one matrix, byte ranges on all cores.

:func:`engine.data.csvio.read_table` hands files above :data:`CHUNKED_ABOVE_BYTES` to
:func:`parse_blocks`. Parsing the whole file in one call would make pandas' C tokenizer hold every field
at once (about 3x the file size on top of the result); in blocks it holds one block per thread.

Two ways to cut the blocks, both giving the frame a one-piece parse gives:

- **byte ranges on threads** (:func:`_range_blocks`), for files with no quote character (so no cell can
  hold a line break and a cut after a ``\\n`` is always between rows) and no more rows than the limit:
  the file is cut after a ``\\n`` every :data:`RANGE_BYTES`, and each range is tokenized and converted
  by its own C parser from a view of the bytes (``TextReader.load_buffer``, pandas 3.1), which runs
  without the GIL: as many ranges at once as there are cores (:func:`engine.threads.thread_imap`:
  each range is copied into the result while the other threads parse the next ones);
- **rows in order** (:func:`_row_blocks`) otherwise: one C parser reads the file about
  :data:`CHUNK_BYTES` at a time, through its own ``read`` (no DataFrame per block).

Both use pandas internals (``TextFileReader._engine``); where they are missing, the file is read rows in
order, or in one piece. A parse error in a range is not reported from the range (its line number
would count from the range): the file is parsed again in order, and that parse reports it.
"""

from __future__ import annotations

import io
import threading

import numpy as np
import pandas as pd

from engine.data.sizes import line_count, release_pages
from engine.threads import thread_imap, threads_for

#: Files larger than this are parsed in blocks (see the module docstring); CHUNK_ROWS, when set, fixes
#: the rows per block of the in-order parse instead of CHUNK_BYTES. The parser's work space is about 3x a
#: block: 2 MB blocks keep it small next to a 15 MB file and parse as fast as bigger ones.
CHUNKED_ABOVE_BYTES = 8 << 20
CHUNK_BYTES = 2 << 20
CHUNK_ROWS: int | None = None
#: bytes per range of the threaded parse (each thread's parser holds about 3x this)
RANGE_BYTES = 2 << 20
#: threads of the threaded parse; None: every core
THREADS: int | None = None
#: ranges per thread parsed and not yet copied into the matrix (their column arrays, about a third of
#: their bytes, are held meanwhile)
RANGES_AT_ONCE = 4


def parse_blocks(data: bytes, kw: dict, lines: int | None = None, *, quoted: bool | None = None
                 ) -> pd.DataFrame | None:
    """The table parsed block by block, or None when a column's type differs between blocks.

    Columns that are float64 or int64 in the first block are written straight into one float64 matrix
    (Fortran order: each column contiguous) sized by the file's line count, so they are never held
    twice; the matrix is made read-only, which tells ``engine.data`` that its columns may be shared
    as the learners' ``X`` without a copy (see ``dataset_build.columns_view``). Whole numbers become
    float64 here, where a one-piece parse gives int64: every number becomes float64 when the columns
    are cleaned anyway (``columns.finite``), and an int64 column of 2M rows would be held three times
    (parsed, cleaned, encoded), 48 MB for a column of two-digit numbers. Other columns are kept per
    block and joined at the end.
    ``data``: bytes or a mapped file; ``quoted``: whether it holds a quote character (None: look).
    """
    lines = line_count(data) if lines is None else lines
    threads = threads_for(len(data), THREADS, min_work=2 * RANGE_BYTES)
    quoted = data.find(b'"') >= 0 if quoted is None else quoted
    if threads > 1 and lines + 1 <= kw["nrows"] and not quoted:
        try:
            return _assemble(_range_blocks(data, kw, threads), lines, kw["nrows"])
        except (pd.errors.ParserError, _NoRanges):
            pass  # parsed again in order: that parse names the line of an error
    return _assemble(_row_blocks(data, kw), lines, kw["nrows"])


def _assemble(blocks, lines: int, nrows: int) -> pd.DataFrame | None:
    capacity = min(lines + 1, nrows)  # at least the number of data rows
    matrix: np.ndarray | None = None
    slot: dict[str, int] = {}
    order: list[str] = []
    kept: list[dict] = []
    filled = 0
    for names, arrays in blocks:
        if arrays is None:
            return None
        n = len(arrays[names[0]])
        if matrix is None:
            order = names
            slot = {c: j for j, c in enumerate(c for c in names if arrays[c].dtype.kind in "if")}
            # np.empty only reserves: rows past the end of the file are never touched, so never resident
            matrix = np.empty((max(capacity, n), len(slot)), dtype=np.float64, order="F")
        if filled + n > len(matrix):  # cannot happen (a row ends with a newline or the file)
            return None
        block = {}
        for c in names:
            values = arrays[c]
            if c in slot:
                if values.dtype.kind not in "iuf":
                    return None  # text in a later block: one-piece parse
                matrix[filled:filled + n, slot[c]] = values
            else:
                block[c] = values
        kept.append(block)
        filled += n
        del arrays, values
    if matrix is None:
        return None
    matrix.flags.writeable = False  # on the allocation itself: its row slices and columns inherit it
    matrix = matrix[:filled]
    columns = {}
    for c in list(kept[0]) + list(slot):
        if c in slot:
            columns[c] = matrix[:, slot[c]]
            continue
        kinds = {b[c].dtype.kind if isinstance(b[c], np.ndarray) else str(b[c].dtype) for b in kept}
        if len(kinds) > 1 and not kinds <= {"i", "u", "f"}:
            return None
        pieces = [b.pop(c) for b in kept]
        if isinstance(pieces[0], np.ndarray):
            if len(kinds) > 1:
                pieces = [p.astype(np.float64) for p in pieces]  # ints and floats: float64, as in one piece
            columns[c] = np.concatenate(pieces)
        else:
            columns[c] = pd.concat([pd.Series(p, copy=False) for p in pieces], ignore_index=True)
        del pieces
    return pd.DataFrame({c: columns[c] for c in order}, copy=False)


def _row_blocks(data: bytes, kw: dict):
    """``(names, {name: array})`` per block of rows, in order, from one parser."""
    rows = CHUNK_ROWS
    if rows is None:  # rows per block from the length of the first lines
        head = data[:1 << 16]
        rows = max(1_000, CHUNK_BYTES * max(head.count(b"\n"), 1) // max(len(head), 1))
    with pd.read_csv(io.BytesIO(data), chunksize=rows, **kw) as reader:
        yield from _blocks(reader, rows, kw["nrows"])


def _blocks(reader, rows: int, limit: int):
    """``(names, {name: array})`` per block of at most ``rows`` rows, ``limit`` rows in all.

    The arrays are the C parser's own (``TextFileReader._engine.read``, what ``get_chunk`` wraps in a
    DataFrame): a block costs no DataFrame, Index or Series, about half the parse time of a big file in
    2 MB blocks. A pandas without that method gives ``(None, None)``: the caller parses in one piece.
    """
    read = getattr(getattr(reader, "_engine", None), "read", None)
    if not callable(read):
        yield None, None
        return
    done = 0
    while done < limit:
        try:
            _, names, arrays = read(min(rows, limit - done))
        except StopIteration:
            return
        n = len(arrays[names[0]]) if names else 0
        if n == 0:
            return
        yield list(names), arrays
        done += n


class _NoRanges(Exception):
    """This pandas cannot parse a range from a view of the bytes: parse in order instead."""


def range_cuts(data: bytes, size: int) -> list[int]:
    """Offsets ``0 = c0 < c1 < ... = len(data)``, each ``ci`` (0 < i) just after a ``\\n`` at or beyond
    ``c(i-1) + size``: the ranges between them hold whole lines."""
    cuts = [0]
    while cuts[-1] < len(data):
        end = data.find(b"\n", cuts[-1] + size)
        cuts.append(len(data) if end < 0 else end + 1)
    return cuts


def _range_blocks(data: bytes, kw: dict, threads: int):
    """``(names, {name: array})`` per byte range, in file order, on ``threads`` threads.

    The first range (with the header) is read as the in-order parse reads it; each later one by a parser
    made once per thread and call, given the range as a view (no copy) with ``header=None``."""
    cuts = range_cuts(data, RANGE_BYTES)
    view = memoryview(data)
    later = dict(kw, header=None, chunksize=kw["nrows"])
    parsers: dict[int, object] = {}

    def first(_) -> tuple:
        with pd.read_csv(io.BytesIO(view[:cuts[1]]), chunksize=kw["nrows"], **kw) as reader:
            out = _read_all(reader)
        release_pages(data, 0, cuts[1])
        return out

    def parse(i: int) -> tuple:
        me = threading.get_ident()
        reader = parsers.get(me)
        if reader is None:
            reader = parsers[me] = pd.read_csv(io.BytesIO(b""), **later)
            _tune(reader, threads)
        engine = getattr(reader, "_engine", None)
        load = getattr(getattr(engine, "_reader", None), "load_buffer", None)
        if not callable(load) or not callable(getattr(engine, "read", None)):
            raise _NoRanges
        try:
            load(view[cuts[i]:cuts[i + 1]], strip_bom=False)
        except TypeError:  # another signature than pandas 3.1's
            raise _NoRanges from None
        engine._first_chunk = True  # a reused parser: a range of blank lines gives no rows, not the end
        out = _read_all(reader)
        release_pages(data, cuts[i], cuts[i + 1])  # a mapped file's range is not needed again
        return out

    # at most RANGES_AT_ONCE ranges a thread parsed and not yet copied out; no barrier between them
    ranges = thread_imap(lambda i: first(i) if i == 0 else parse(i), range(len(cuts) - 1), threads,
                         RANGES_AT_ONCE * threads)
    try:
        for names, arrays in ranges:
            if names is not None:
                yield names, arrays
    finally:
        ranges.close()  # the helpers end their range before their parsers are closed
        for reader in parsers.values():
            reader.close()


def _tune(reader, threads: int) -> None:
    """Settings of pandas 3.1's C parser for a parser that reads many ranges on one of ``threads``
    threads (its own parallel reader sets them so; a pandas without them is left as it is): keep the
    work buffers between ranges instead of shrinking them after each (a realloc per range), and convert
    numbers in row blocks, which eases the contention of several threads for the memory bus."""
    inner = getattr(getattr(reader, "_engine", None), "_reader", None)
    if hasattr(inner, "trim_after_read"):
        inner.trim_after_read = False
    if hasattr(inner, "block_workers"):
        inner.block_workers = threads


def _read_all(reader) -> tuple:
    """``(names, arrays)`` of every row the reader has, or ``(None, None)`` when it has none."""
    read = getattr(getattr(reader, "_engine", None), "read", None)
    if not callable(read):
        raise _NoRanges
    try:
        _, names, arrays = read()
    except StopIteration:
        return None, None
    if not names or len(arrays[names[0]]) == 0:
        return None, None
    return list(names), arrays
