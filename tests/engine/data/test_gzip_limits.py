"""Gzip uploads are unpacked in pieces and refused as soon as they pass a limit ("zip bombs").

A 1.5 MB ``.csv.gz`` used to be unpacked whole (up to 1 GB) before the row limit refused it. Now the
unpacked size is capped (the upload limit), and the row, line, column and first-line limits are
applied while unpacking, so the memory a bomb costs is bounded by the cap, not by its unpacked size.
"""

from __future__ import annotations

import gzip
import tracemalloc

import pytest

from benchmarks.bench_upload_bombs import gz_stream
from engine.data.dataset import load_csv
from engine.data.textio import MAX_HEADER_BYTES, unpack
from engine.errors import DataError


def peak_traced(fn) -> tuple[int, Exception | None]:
    tracemalloc.start()
    try:
        fn()
        err = None
    except DataError as e:
        err = e
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return peak, err


BOUND = 40 << 20  # what refusing any of these bombs may allocate at its peak (they unpack to 96 MB)


@pytest.mark.parametrize("kind, head, body, expect", [
    ("rows", b"a,b\n", b"1,2\n", "more than 2,000,000 rows"),
    ("blank lines", b"a,b\n1,2\n", b"\n", "lines"),
    ("one long line", b"", b"0" * 64, "longer than 100 kB"),
    ("wide header", b"", b",", "columns"),
])
def test_a_gzip_bomb_is_refused_while_unpacking(kind, head, body, expect):
    bomb = gz_stream(head, body, (96 << 20) // len(body))
    assert len(bomb) < 2 << 20  # a small upload
    peak, err = peak_traced(lambda: load_csv(bomb))
    assert err is not None and expect in str(err), (kind, err)
    assert peak < BOUND, f"{kind}: peak {peak / 2**20:.0f} MB while refusing"


def test_the_unpacked_size_is_capped_for_text_the_line_count_cannot_judge():
    """A quoted cell may hold line breaks, so rows are not counted: the byte cap stops it."""
    bomb = gz_stream(b"a,b\n", b'1,"two\nlines"\n', (64 << 20) // 14)
    peak, err = peak_traced(lambda: load_csv(bomb, max_unpacked_bytes=8 << 20))
    assert err is not None and "more than 8 MB" in str(err)
    assert peak < 3 * (8 << 20)


def test_files_within_the_limits_still_load():
    rows = b"".join(b"%d,%d\n\n" % (i, i % 3) for i in range(100))  # blank lines do not count as rows
    ds = load_csv(gzip.compress(b"x,y\n" + rows), max_rows=100)
    assert len(ds) == 100
    with pytest.raises(DataError, match="more than 100 rows"):
        load_csv(gzip.compress(b"x,y\n" + rows + b"7,1\n"), max_rows=100)
    quoted = b'x,y\n"a\nb",1\n"c\nd",2\n"e",0\n'  # line breaks inside quotes: 3 rows, 6 lines
    assert len(load_csv(gzip.compress(quoted), max_rows=3)) == 3
    wide = b",".join(b"c%d" % i for i in range(1000)) + b"\n" + b",".join(b"1" for _ in range(1000)) + b"\n"
    assert len(load_csv(gzip.compress(wide)).frame.columns) == 1000
    with pytest.raises(DataError, match="columns"):
        load_csv(gzip.compress(b"c0," + wide))


def test_unpack_without_limits_and_utf16_are_not_line_counted():
    text = "a;b\n1;2\n".encode("utf-16")
    data, notes = unpack(gzip.compress(text), max_rows=0)  # UTF-16: a 0x0A byte proves nothing
    assert data == text and notes
    assert unpack(b"plain", max_rows=0) == (b"plain", ())
    assert MAX_HEADER_BYTES < 200 << 20
