"""Loading big files without extra copies: block-wise parsing, parsing the bytes, no copied columns.

Block-wise parsing must give exactly the table a one-piece parse gives (same values, same dtypes),
and parsing the upload's bytes must give exactly what decoding them to text first gave.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import engine
from engine import csvio
from engine.errors import DataError
from engine.textio import utf8_head


def _frame(seed: int, n: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    ints = rng.integers(0, 50, size=n).astype(object)
    ints[rng.random(n) < 0.1] = ""  # some blocks have missing values (float), others not (int)
    flags = rng.choice(["True", "False"], size=n).astype(object)
    flags[rng.random(n) < 0.05] = ""
    return pd.DataFrame({
        "x": rng.normal(size=n).round(3),
        "count": ints,
        "colour": rng.choice(["red", "green", "blue, dark", 'say "hi"'], size=n),
        "flag": flags,
        "y": rng.choice(["a", "b"], size=n),
    })


def _parse_both(data: bytes, monkeypatch, delimiter=","):
    names = [n.strip() for n in data.split(b"\n", 1)[0].decode().split(delimiter)]
    one, _ = csvio._parse(data, delimiter, names, 10_000, skip_spaces=False)
    monkeypatch.setattr(csvio, "CHUNKED_ABOVE_BYTES", 0)
    monkeypatch.setattr(csvio, "CHUNK_ROWS", 7)
    blocks, _ = csvio._parse(data, delimiter, names, 10_000, skip_spaces=False)
    return one, blocks


@pytest.mark.parametrize("seed", range(8))
def test_block_parsing_equals_one_piece_parsing(seed, monkeypatch):
    data = _frame(seed).to_csv(index=False).encode()
    one, blocks = _parse_both(data, monkeypatch)
    pd.testing.assert_frame_equal(blocks, one)


def test_a_column_that_turns_to_text_in_a_later_block_is_parsed_in_one_piece(monkeypatch):
    frame = pd.DataFrame({"x": [str(i) for i in range(30)] + ["n/a?", "12"], "y": ["a", "b"] * 16})
    data = frame.to_csv(index=False).encode()
    one, blocks = _parse_both(data, monkeypatch)
    pd.testing.assert_frame_equal(blocks, one)
    assert blocks["x"].iloc[0] == "0"  # text like a one-piece parse, not a float from the first block


def test_semicolon_files_with_decimal_commas_parse_the_same_in_blocks(monkeypatch):
    rows = "\n".join(f"{i},5;{'u' if i % 3 else 'v'};{i % 2}" for i in range(40))
    data = ("a;b;y\n" + rows + "\n").encode()
    one, blocks = _parse_both(data, monkeypatch, delimiter=";")
    pd.testing.assert_frame_equal(blocks, one)
    assert blocks["a"].dtype == np.float64 and blocks["a"].iloc[1] == 1.5


@pytest.mark.parametrize("variant", ["plain", "crlf", "bom", "sep_line", "latin1", "quoted_newline"])
def test_loading_the_bytes_equals_loading_the_text(variant, monkeypatch):
    frame = _frame(3, n=50)
    text = frame.to_csv(index=False)
    if variant == "quoted_newline":
        text = text.replace("blue, dark", "blue\ndark")
    data = {"crlf": text.replace("\n", "\r\n").encode(), "bom": b"\xef\xbb\xbf" + text.encode(),
            "sep_line": ("sep=,\n" + text).encode(), "latin1": text.replace("red", "rød").encode("latin-1")
            }.get(variant, text.encode())
    expected = engine.load_csv(data)
    monkeypatch.setattr(csvio, "CHUNKED_ABOVE_BYTES", 0)
    monkeypatch.setattr(csvio, "CHUNK_ROWS", 9)
    got = engine.load_csv(data)
    pd.testing.assert_frame_equal(got.frame, expected.frame)
    assert got.kinds == expected.kinds and got.classes == expected.classes and got.notes == expected.notes
    np.testing.assert_array_equal(got.X, expected.X)


def test_utf8_head_only_for_plain_utf8():
    assert utf8_head(b"a,b\n1,2\n") == "a,b\n1,2\n"
    assert utf8_head("é,b\n1,2\n".encode(), limit=1) == ""  # the cut character is left out
    assert utf8_head("é,b\n".encode("latin-1")) is None
    assert utf8_head(b"\xef\xbb\xbfa,b\n") is None
    assert utf8_head(b"a,b\n1,\x002\n") is None
    big = ("x,y\n" + "1,2\n" * 1000).encode() + "é".encode("latin-1")
    assert utf8_head(big, chunk=64) is None  # the bad byte is after the first slices


def test_a_bad_line_in_a_big_file_is_still_named(monkeypatch):
    monkeypatch.setattr(csvio, "CHUNKED_ABOVE_BYTES", 0)
    monkeypatch.setattr(csvio, "CHUNK_ROWS", 5)
    lines = ["a,b,y"] + [f"{i},{i},c{i % 2}" for i in range(30)]
    lines[23] = "1,2,3,4"
    with pytest.raises(DataError, match="Line 24 has 4 fields"):
        engine.load_csv(("\n".join(lines) + "\n").encode())


def test_numeric_columns_are_not_copied_while_building():
    data = _frame(1, n=40).to_csv(index=False).encode()
    ds = engine.load_csv(data)
    # the cleaned table and the table kept for rebuilds share the numeric columns
    assert np.shares_memory(ds._frame["x"].to_numpy(), ds._full["x"].to_numpy())


def test_a_dataset_from_a_frame_does_not_change_when_the_frame_does():
    frame = pd.DataFrame({"x": np.arange(10, dtype=float), "y": list("ab") * 5})
    ds = engine.Dataset.from_frame(frame, target="y")
    frame.loc[0, "x"] = 99.0
    frame["x"] += 1
    assert ds.frame["x"].iloc[0] == 0.0 and ds.X[0, 0] == 0.0
