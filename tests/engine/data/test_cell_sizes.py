"""Huge cells and lines are refused before any parser sees them, compressed or not (issue 25, 4-5).

A 2-row file with a 5 MB cell used to load (and take the Data page 22 s); a gzip "quoted-field" or
"long-line" bomb cost up to 1.4 GB at peak. Now a cell over ``MAX_CELL_BYTES`` or a line over
``MAX_LINE_BYTES`` is refused with a sentence naming its line (and column), at the cost of a few
pieces of the file. Peak memory is measured with tracemalloc (numpy's buffers are traced).
"""

from __future__ import annotations

import gzip

import pytest

from benchmarks.bench_upload_bombs import bomb, gz_stream
from engine.data.dataset import load_csv
from engine.data.sizes import MAX_CELL_BYTES, MAX_LINE_BYTES, check_sizes, pieces_of
from engine.errors import DataError
from tests.engine.data.test_gzip_limits import peak_traced

BOUND = 50 << 20  # the aim: a bomb costs less than +50 MB


@pytest.mark.parametrize("kind, expect", [
    ("quoted", "Line 2, column 2 ('b') of the file holds a cell longer than 100 kB"),
    ("quotedcommas", "Line 2 of the file is longer than 1 MB"),
    ("quotedlines", "Line 2 of the file holds a cell longer than 100 kB"),
    ("longline", "Line 2, column 2 ('b') of the file holds a cell longer than 100 kB"),
    ("commas", "Line 2 of the file is longer than 1 MB"),
])
def test_gzip_bombs_are_refused_within_50_mb(kind, expect):
    data = bomb(kind, megabytes=120)
    assert len(data) < 1 << 20
    peak, err = peak_traced(lambda: load_csv(data))
    assert err is not None and str(err).startswith(expect), (kind, err)
    assert peak < BOUND, f"{kind}: peak {peak / 2**20:.0f} MB"


@pytest.mark.parametrize("gz", [False, True])
def test_a_huge_cell_in_a_small_file_is_refused_naming_line_and_column(gz):
    data = b"x,note,y\n1,ok,a\n2," + b"w" * (3 << 20) + b",b\n3,ok,a\n"
    with pytest.raises(DataError, match=r"^Line 3, column 2 \('note'\) of the file holds a cell longer than "
                                        r"100 kB.*shorten or remove that cell"):
        load_csv(gzip.compress(data) if gz else data)


def test_cells_and_lines_up_to_the_limits_load():
    cell = b"v" * MAX_CELL_BYTES
    ds = load_csv(b"x,note,y\n1," + cell + b",a\n2,short,b\n")
    assert ds.frame["note"].str.len().max() == MAX_CELL_BYTES
    with pytest.raises(DataError, match="Line 2, column 2"):
        load_csv(b"x,note,y\n1," + cell + b"v,a\n2,short,b\n")
    quoted = b'x,note,y\n1,"' + b"a, b\n" * (MAX_CELL_BYTES // 5) + b'",a\n2,"say ""hi""",b\n'
    assert len(load_csv(quoted)) == 2  # a quoted cell with separators and line breaks, at the limit
    with pytest.raises(DataError, match=r"^Line 2, column 2 \('note'\) of the file holds a cell"):
        load_csv(quoted.replace(b'",a\n2', b'z",a\n2'))


def test_a_long_line_of_short_cells_is_refused():
    line = b",".join([b"1"] * (MAX_LINE_BYTES // 2 + 1))
    with pytest.raises(DataError, match="^Line 2 of the file is longer than 1 MB"):
        load_csv(b"a,b\n" + line + b"\n")


def test_literal_quotes_inside_cells_and_many_rows_are_not_refused():
    # '12" pipe' opens no quoted cell (a quote inside a cell is a character), so its line has an odd
    # number of quotes: the csv reader reads the rest of the file, and nothing there is long
    rows = b"".join(b'%d,12" pipe,%s\n' % (i, b"ab"[i % 2:i % 2 + 1]) for i in range(60_000))
    ds = load_csv(b"n,part,y\n" + rows)
    assert len(ds) == 60_000 and ds.frame["part"].iloc[0] == '12" pipe'


@pytest.mark.parametrize("size", [1, 7, 4096, 1 << 20])
def test_the_check_does_not_depend_on_how_the_file_is_cut(size):
    data = b"a;b\n" + b"1;2\n" * 5000 + b"3;" + b"z" * (MAX_CELL_BYTES + 1) + b"\n"
    with pytest.raises(DataError, match=r"^Line 5,002, column 2 \('b'\)"):
        check_sizes(pieces_of(data, size))
    check_sizes(pieces_of(data[:-2] + b";\n", size))  # the same bytes cut by a separator: two short cells


def test_a_utf16_file_is_checked_after_decoding():
    text = "a,b\n1," + "é" * (MAX_CELL_BYTES + 10) + "\n"
    with pytest.raises(DataError, match="holds a cell longer than 100 kB"):
        load_csv(text.encode("utf-16"))


def test_gz_stream_packs_without_holding_the_text():
    assert gzip.decompress(gz_stream(b"h\n", b"ab", 3, b"\n")) == b"h\nababab\n"


@pytest.mark.parametrize("size", [1, 5, 333, 1 << 20])
def test_a_quoted_cell_across_lines_is_found_however_the_file_is_cut(size):
    rows = b'1,"say ""hi""",a\r\n' * 3000  # even quotes per line: the csv reader is not needed here
    long = b'2,"' + b"ab, cd\r\n" * (MAX_CELL_BYTES // 8 + 1) + b'",b\r\n'
    with pytest.raises(DataError, match=r"^Line 3,002, column 2 \('note'\)"):
        check_sizes(pieces_of(b"x,note,y\r\n" + rows + long + rows, size))
    check_sizes(pieces_of(b"x,note,y\r\n" + rows + long.replace(b"ab, cd\r\n", b"ab\r\n", 5000) + rows, size))


def _scan_state(pieces, *, fast: bool):
    from engine.data import sizes
    scan = sizes._Scan(MAX_CELL_BYTES, MAX_LINE_BYTES)
    if not fast:
        scan._feed_fast = lambda piece: False
    found, error = [], None
    try:
        for piece in pieces:
            found.append(scan.feed(piece))
    except DataError as err:
        error = str(err)
    keys = ("offset", "lines", "cell_start", "line_start", "line_delimiters", "tail", "header", "header_done",
            "odd_line", "open_quotes", "quote_line")
    return {k: getattr(scan, k) for k in keys}, found, error


@pytest.mark.parametrize("seed", range(6))
def test_the_fast_pass_over_plain_pieces_keeps_the_same_state_as_the_byte_pass(seed):
    """``_Scan._feed_fast`` (bytes.find on quote-free pieces) leaves exactly the state, findings and
    refusals of the numpy pass, however the rows, line ends, separators and long cells fall."""
    import numpy as np
    rng = np.random.default_rng(seed)
    sep = [b",", b";", b"\t", b"|"][seed % 4]
    end = b"\r\n" if seed % 3 == 0 else b"\n"
    rows = [sep.join([b"a", b"b", b"c"])]
    for i in range(40_000):
        cells = [b"%d" % rng.integers(0, 10**rng.integers(1, 12)) for _ in range(3)]
        if rng.random() < 0.0005:
            cells[1] = b"w" * int(rng.integers(1_000, MAX_CELL_BYTES + 2_000))
        if seed == 5 and i == 30_000:
            cells[0] = b'"x' + end + b'y"'  # a quoted line break: the csv reader takes over
        rows.append(sep.join(cells))
    data = end.join(rows) + end
    for size in (1 << 16, 1 << 20, 300_001):
        fast = _scan_state(pieces_of(data, size), fast=True)
        assert fast == _scan_state(pieces_of(data, size), fast=False)
