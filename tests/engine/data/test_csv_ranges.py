"""A big quote-free CSV is parsed in byte ranges on threads (engine.data.csvblocks): the frame, the types,
the missing values and the errors must be those of a one-piece parse, whatever the ranges' sizes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import engine
from engine.data import csvblocks, csvio
from engine.errors import DataError


def _quote_free(seed: int, n: int = 300) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    ints = rng.integers(0, 50, size=n).astype(object)
    ints[rng.random(n) < 0.05] = ""  # some ranges have missing values (float), others not (int)
    ratio = rng.normal(size=n).round(4).astype(object)
    ratio[rng.random(n) < 0.05] = rng.choice(["NA", "?", "null"])
    return pd.DataFrame({
        "x": rng.normal(size=n).round(3),
        "count": ints,
        "ratio": ratio,
        "colour": rng.choice(["red", "green", "dark blue"], size=n),
        "flag": rng.choice(["True", "False"], size=n),
        "y": rng.choice(["a", "b"], size=n),
    })


def _parse(data: bytes, delimiter=",", max_rows=10_000, skip_spaces=False):
    names = [n.strip() for n in data.lstrip(b"\xef\xbb\xbf").split(b"\n", 1)[0].decode().split(delimiter)]
    return csvio._parse(data, delimiter, names, max_rows, skip_spaces=skip_spaces)[0]


@pytest.fixture
def ranges(monkeypatch):
    """Small ranges on 2 threads; returns the list of the readers used, in order ("ranges" or "rows")."""
    calls = []
    for name, attr in (("ranges", "_range_blocks"), ("rows", "_row_blocks")):
        real = getattr(csvblocks, attr)
        monkeypatch.setattr(csvblocks, attr, lambda *a, _n=name, _r=real: calls.append(_n) or _r(*a))

    def use(range_bytes: int):
        monkeypatch.setattr(csvblocks, "CHUNKED_ABOVE_BYTES", 0)
        monkeypatch.setattr(csvblocks, "RANGE_BYTES", range_bytes)
        monkeypatch.setattr(csvblocks, "THREADS", 2)
        return calls
    return use


def _one_piece(data: bytes, monkeypatch, **kw) -> pd.DataFrame:
    with monkeypatch.context() as m:
        m.setattr(csvblocks, "CHUNKED_ABOVE_BYTES", 1 << 40)
        return _parse(data, **kw)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(40, 3_000))
def test_ranges_give_the_one_piece_frame(seed, range_bytes):
    data = _quote_free(seed).to_csv(index=False).encode()
    with pytest.MonkeyPatch.context() as mp:
        one = _one_piece(data, mp)
        calls = []
        for name in ("_range_blocks", "_row_blocks"):
            mp.setattr(csvblocks, name, lambda *a, _n=name, _r=getattr(csvblocks, name): calls.append(_n) or _r(*a))
        mp.setattr(csvblocks, "CHUNKED_ABOVE_BYTES", 0)
        mp.setattr(csvblocks, "RANGE_BYTES", range_bytes)
        mp.setattr(csvblocks, "THREADS", 2)
        got = _parse(data)
    assert calls == ["_range_blocks"], calls
    pd.testing.assert_frame_equal(got, one)


@pytest.mark.parametrize("variant", ["crlf", "bom", "blank lines", "semicolon decimal comma", "trailing separator",
                                     "spaces", "text in a late range"])
def test_awkward_files_parse_in_ranges_as_in_one_piece(variant, ranges, monkeypatch):
    frame = _quote_free(7)
    delimiter, spaces = ",", False
    text = frame.to_csv(index=False)
    if variant == "crlf":
        text = text.replace("\n", "\r\n")
    elif variant == "bom":
        text = "\ufeff" + text
    elif variant == "blank lines":
        lines = text.split("\n")
        text = "\n".join(lines[:50] + [""] * 200 + lines[50:])  # a whole range of blank lines
    elif variant == "semicolon decimal comma":
        delimiter = ";"
        text = frame.to_csv(index=False, sep=";", decimal=",")
    elif variant == "trailing separator":
        text = "\n".join(line + "," if line else line for line in text.split("\n"))
    elif variant == "spaces":
        text, spaces = text.replace(",", ", "), True
    elif variant == "text in a late range":
        lines = text.split("\n")
        lines[-5] = "oops" + lines[-5][lines[-5].index(","):]  # x becomes text in the last range only
        text = "\n".join(lines)
    data = text.encode()
    one = _one_piece(data, monkeypatch, delimiter=delimiter, skip_spaces=spaces)
    calls = ranges(200)
    got = _parse(data, delimiter=delimiter, skip_spaces=spaces)
    assert calls == ["ranges"] if variant != "text in a late range" else calls[0] == "ranges"
    pd.testing.assert_frame_equal(got, one)


def test_a_ragged_row_in_a_late_range_is_named_by_its_line_in_the_file(ranges):
    lines = _quote_free(3).to_csv(index=False).split("\n")
    lines[250] += ",extra"
    data = "\n".join(lines).encode()
    calls = ranges(300)
    with pytest.raises(DataError, match="Line 251 has 7 fields but the header has 6"):
        engine.load_csv(data)
    assert calls[:2] == ["ranges", "rows"]  # the ranges' error is not reported: the in-order parse names the line


def test_files_with_quotes_or_over_the_row_limit_are_read_in_order(ranges):
    calls = ranges(100)
    quoted = _quote_free(1).assign(colour='say "hi"').to_csv(index=False).encode()
    assert len(_parse(quoted)) == 300
    assert len(_parse(_quote_free(1).to_csv(index=False).encode(), max_rows=100)) == 101  # limit + 1, refused later
    assert calls == ["rows", "rows"]


def test_a_loaded_file_in_ranges_shares_X_with_its_parsed_columns(ranges):
    frame = _quote_free(5)[["x", "colour", "y"]]
    calls = ranges(500)
    ds = engine.load_csv(frame.to_csv(index=False).encode(), target="y")
    assert calls == ["ranges"] and not ds.X.flags.writeable
    np.testing.assert_array_equal(ds.X[:, 0], frame["x"].to_numpy())
