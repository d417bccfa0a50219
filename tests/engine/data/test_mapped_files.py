"""A big CSV on disk is mapped, not read whole (engine.data.textio.map_file), and the size check's one pass
notes what later steps would scan the file for (engine.data.sizes.ByteFacts): the Dataset, its notes and
every refusal must be those of loading the same bytes, and the mapping is closed afterwards."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import engine
import engine.data.dataset as dataset_module
from engine.data import csvblocks, textio
from engine.data.sizes import ByteFacts, check_sizes, pieces_of
from engine.data.textio import map_file, utf8_head
from engine.errors import DataError

ALPHABET = [b"a", b"1", b",", b"\n", b"\r", b'"', b"\x00", "é".encode(), "€".encode(), b"\xe9", b"\xff", b" "]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(ALPHABET), max_size=60), st.integers(1, 16))
def test_the_facts_of_one_pass_are_those_of_whole_file_scans(parts, size):
    """Any bytes cut into any pieces (a UTF-8 character may be cut between two)."""
    data = b"".join(parts)
    facts = ByteFacts()
    assert b"".join(facts.watch(pieces_of(data, size))) == data
    try:
        data.decode("utf-8")
        utf8 = True
    except UnicodeDecodeError:
        utf8 = False
    assert facts.complete
    assert (facts.nul, facts.cr, facts.quote) == (b"\x00" in data, b"\r" in data, b'"' in data)
    assert facts.utf8 == utf8
    assert facts.ascii == data.isascii() or not facts.utf8  # once invalid, ASCII is no longer looked at
    assert facts.plain_utf8 == (utf8 and b"\x00" not in data and b"\r" not in data)


def test_facts_are_incomplete_until_every_piece_went_through():
    data = b"a,b\n1,2\n" * 10 + b"3,\x004\n"
    facts = ByteFacts()
    seen = facts.watch(pieces_of(data, 8))
    next(seen)
    assert not facts.complete and not facts.plain_utf8
    # incomplete facts are not trusted: the head is found by scanning the bytes themselves
    assert utf8_head(data, facts=facts) is None
    list(seen)
    assert facts.complete and facts.nul and utf8_head(data, facts=facts) is None


def test_utf8_head_from_facts_equals_the_scan():
    for data in (b"x,y\n1,2\n", "é,y\nü,2\n".encode(), b"\xef\xbb\xbfa,b\n1,2\n", "é,b\n".encode("latin-1"),
                 "a,b\n".encode("utf-16"), ("é" * 10 + ",b\n").encode()):
        facts = ByteFacts()
        check_sizes(facts.watch(pieces_of(data, 3)))
        for limit in (1, 4, 1 << 20):
            assert utf8_head(data, limit, facts=facts) == utf8_head(data, limit), (data, limit)


def _table(n: int = 4000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"x": rng.normal(size=n).round(4), "n": rng.integers(0, 9, n),
                         "colour": rng.choice(["red", "green", "dark blue"], n), "y": rng.choice(["a", "b"], n)})


@pytest.fixture
def mapped(monkeypatch):
    """Every file above 1 kB is mapped and parsed in small ranges on 2 threads; returns the mappings made."""
    made = []

    def spy(source, above=None):
        out = map_file(source, above)
        if out is not None:
            made.append(out[0])
        return out

    monkeypatch.setattr(textio, "MAP_ABOVE_BYTES", 1024)
    monkeypatch.setattr(dataset_module, "map_file", spy)
    monkeypatch.setattr(csvblocks, "CHUNKED_ABOVE_BYTES", 4096)
    monkeypatch.setattr(csvblocks, "RANGE_BYTES", 8192)
    monkeypatch.setattr(csvblocks, "THREADS", 2)
    return made


def _same(path, data: bytes, **kw):
    got, want = engine.load_csv(path, **kw), engine.load_csv(data, **kw)
    pd.testing.assert_frame_equal(got.frame, want.frame)
    np.testing.assert_array_equal(got.X, want.X)
    assert got.notes == want.notes and got.target == want.target and got.name == path.stem
    return got


PLAIN = _table().to_csv(index=False).encode()
VARIANTS = {
    "plain": PLAIN,
    "windows line ends": PLAIN.replace(b"\n", b"\r\n"),
    "old Mac line ends": PLAIN.replace(b"\n", b"\r"),
    "quoted cells": _table().to_csv(index=False, quoting=1).encode(),
    "utf-8 with a BOM": b"\xef\xbb\xbf" + PLAIN.replace(b"red", "röd".encode()),
    "latin-1": PLAIN.replace(b"red", "röd".encode("latin-1")),
    "semicolons, decimal commas": _table().to_csv(index=False, sep=";", decimal=",").encode(),
    "utf-16": PLAIN.decode().encode("utf-16"),
    "Excel's sep= line": b"sep=,\n" + PLAIN,
    "gzip": gzip.compress(PLAIN),
}


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_a_mapped_file_loads_as_its_bytes(variant, mapped, tmp_path, monkeypatch):
    path = tmp_path / "table.csv"
    data = VARIANTS[variant]
    path.write_bytes(data)
    parsed = []
    real = csvblocks.parse_blocks
    monkeypatch.setattr(csvblocks, "parse_blocks", lambda d, *a, **k: parsed.append(type(d).__name__) or real(d, *a, **k))
    _same(path, data, target="y")
    assert len(mapped) == 1 and mapped[0].closed  # mapped, and unmapped once loaded
    if variant in ("plain", "quoted cells", "utf-8 with a BOM", "semicolons, decimal commas"):
        assert parsed[0] == "mmap"  # plain UTF-8: the parser read the mapping itself, never a copy
    else:  # line ends to rewrite, another encoding, gzip: read whole, as bytes (or text), as before
        assert "mmap" not in parsed


@pytest.mark.parametrize("tail, says", [
    (b"1.5,3,red\n", "Line 4002 has 3 fields but the header has 4"),
    (b"1.5,3,red," + b"z" * 100_001 + b"\n", "holds a cell longer than 100 kB"),
    (b"1.5,3,red,\x00\n", "NUL bytes"),
])
def test_a_mapped_file_is_refused_as_its_bytes(tail, says, mapped, tmp_path):
    data = PLAIN + tail
    path = tmp_path / "bad.csv"
    path.write_bytes(data)
    with pytest.raises(DataError) as from_bytes:
        engine.load_csv(data)
    with pytest.raises(DataError) as from_path:
        engine.load_csv(path)
    assert str(from_path.value) == str(from_bytes.value) and says in str(from_path.value)
    assert len(mapped) == 1 and mapped[0].closed


@pytest.mark.parametrize("data, says", [
    (b" \n" * 2000, "The file is empty"),
    (b"\x89PNG\r\n\x1a\n" + bytes(4000), "PNG image"),
    (b"PK\x03\x04" + bytes(4000), "Excel workbook"),
])
def test_a_mapped_file_that_is_no_table_is_refused(data, says, mapped, tmp_path):
    path = tmp_path / "odd.csv"
    path.write_bytes(data)
    with pytest.raises(DataError, match=says):
        engine.load_csv(path)
    assert len(mapped) == 1 and mapped[0].closed


def test_only_big_regular_files_are_mapped(tmp_path):
    small = tmp_path / "small.csv"
    small.write_bytes(b"x,y\n1,a\n")
    assert map_file(small) is None and map_file(small, above=1) is not None
    assert map_file(small.read_bytes(), above=0) is None  # bytes are already in memory
    assert map_file(tmp_path, above=0) is None  # a folder: source_bytes names it
    assert map_file(tmp_path / "missing.csv", above=0) is None
    with pytest.raises(DataError, match="is a folder"):
        engine.load_csv(tmp_path)
    with pytest.raises(DataError, match="There is no file"):
        engine.load_csv(tmp_path / "missing.csv")


def _rss_file_kb() -> int:
    for line in open("/proc/self/status"):
        if line.startswith("RssFile:"):
            return int(line.split()[1])
    raise LookupError


def test_released_pages_leave_the_process(tmp_path):
    """A mapped file's pages count towards the process's memory once read; released, they are gone
    (and read again from the page cache, unchanged, if needed); bytes are left alone."""
    try:
        _rss_file_kb()
    except (OSError, LookupError):
        pytest.skip("no /proc/self/status RssFile on this system")
    import mmap

    from engine.data.sizes import release_pages
    data = bytes(range(256)) * (64 << 12)  # 16 MB
    path = tmp_path / "big.bin"
    path.write_bytes(data)
    with open(path, "rb") as fh:
        mapping = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        before = _rss_file_kb()
        assert sum(mapping[i:i + 4096][0] for i in range(0, len(mapping), 4096)) == 0  # touch every page
        touched = _rss_file_kb()
        assert touched - before > 12_000
        release_pages(mapping, 0, len(mapping))
        assert touched - _rss_file_kb() > 12_000
        assert mapping[:] == data  # still readable
    finally:
        mapping.close()
    release_pages(data, 0, len(data))  # bytes: nothing to do
