"""Loading big files without extra copies: block-wise parsing, parsing the bytes, no copied columns.

Block-wise parsing must give exactly the table a one-piece parse gives (same values, same dtypes),
and parsing the upload's bytes must give exactly what decoding them to text first gave.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import engine
from engine.data import csvblocks, csvio
from engine.errors import DataError
from engine.data.textio import utf8_head


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
    monkeypatch.setattr(csvblocks, "CHUNKED_ABOVE_BYTES", 0)
    monkeypatch.setattr(csvblocks, "CHUNK_ROWS", 7)
    blocks, _ = csvio._parse(data, delimiter, names, 10_000, skip_spaces=False)
    return one, blocks


@pytest.mark.parametrize("seed", range(8))
def test_block_parsing_equals_one_piece_parsing(seed, monkeypatch):
    data = _frame(seed).to_csv(index=False).encode()
    one, blocks = _parse_both(data, monkeypatch)
    pd.testing.assert_frame_equal(blocks, one)


def test_block_parsing_stops_at_the_row_limit_like_one_piece_parsing(monkeypatch):
    """Blocks come from the C parser's own reader (no DataFrame per block), which knows no ``nrows``:
    the row limit + 1 rows are read, as in one piece, so a file over the limit is still refused."""
    data = _frame(3).to_csv(index=False).encode()
    names = data.split(b"\n", 1)[0].decode().split(",")
    one, _ = csvio._parse(data, ",", names, 50, skip_spaces=False)
    monkeypatch.setattr(csvblocks, "CHUNKED_ABOVE_BYTES", 0)
    monkeypatch.setattr(csvblocks, "CHUNK_ROWS", 7)
    blocks, _ = csvio._parse(data, ",", names, 50, skip_spaces=False)
    assert len(one) == len(blocks) == 51
    pd.testing.assert_frame_equal(blocks, one)


def test_a_pandas_without_the_block_reader_parses_in_one_piece(monkeypatch):
    assert list(csvblocks._blocks(object(), 5, 10)) == [(None, None)]
    data = _frame(4).to_csv(index=False).encode()
    one, _ = _parse_both(data, monkeypatch)
    real = csvblocks._blocks
    monkeypatch.setattr(csvblocks, "_blocks", lambda reader, rows, limit: real(object(), rows, limit))
    names = data.split(b"\n", 1)[0].decode().split(",")
    fallback, _ = csvio._parse(data, ",", names, 10_000, skip_spaces=False)
    pd.testing.assert_frame_equal(fallback, one)


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
    pd.testing.assert_frame_equal(blocks, one.astype({"y": "float64"}))  # whole numbers: in the float matrix
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
    monkeypatch.setattr(csvblocks, "CHUNKED_ABOVE_BYTES", 0)
    monkeypatch.setattr(csvblocks, "CHUNK_ROWS", 9)
    got = engine.load_csv(data)
    pd.testing.assert_frame_equal(got.frame, expected.frame)
    assert got.kinds == expected.kinds and got.classes == expected.classes and got.notes == expected.notes
    np.testing.assert_array_equal(got.X, expected.X)


def test_utf8_head_only_for_plain_utf8():
    assert utf8_head(b"a,b\n1,2\n") == "a,b\n1,2\n"
    assert utf8_head("é,b\n1,2\n".encode(), limit=1) == ""  # the cut character is left out
    assert utf8_head("é,b\n".encode("latin-1")) is None
    assert utf8_head(b"\xef\xbb\xbfa,b\n") == "\ufeffa,b\n"  # Excel's "CSV UTF-8": parsed from the bytes too
    assert utf8_head("a,b\n".encode("utf-16")) is None
    assert utf8_head(b"a,b\n1,\x002\n") is None
    big = ("x,y\n" + "1,2\n" * 1000).encode() + "é".encode("latin-1")
    assert utf8_head(big, chunk=64) is None  # the bad byte is after the first slices


def test_a_bad_line_in_a_big_file_is_still_named(monkeypatch):
    monkeypatch.setattr(csvblocks, "CHUNKED_ABOVE_BYTES", 0)
    monkeypatch.setattr(csvblocks, "CHUNK_ROWS", 5)
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


# ------------------------------------------------------------------ X shared with the table, lazy subsets
def _big_numeric(monkeypatch, columns=("a", "b", "c"), text_after=None, n=200, seed=0):
    """A numeric CSV parsed block-wise (as files above csvio.CHUNKED_ABOVE_BYTES are)."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({c: rng.normal(size=n).round(3) for c in columns})
    if text_after is not None:
        frame.insert(list(columns).index(text_after) + 1, "label", rng.choice(["u", "v"], size=n))
    frame["y"] = rng.choice(["p", "q", "r"], size=n)
    monkeypatch.setattr(csvblocks, "CHUNKED_ABOVE_BYTES", 0)
    monkeypatch.setattr(csvblocks, "CHUNK_ROWS", 37)
    return engine.load_csv(frame.to_csv(index=False).encode()), frame


def test_a_parsed_numeric_file_gives_X_as_a_view_of_its_columns(monkeypatch):
    ds, frame = _big_numeric(monkeypatch)
    X = ds.X
    assert not X.flags.writeable
    np.testing.assert_array_equal(X, frame[["a", "b", "c"]].to_numpy())
    np.testing.assert_array_equal(X, ds.schema.encode(ds.frame))
    for j, name in enumerate(ds.feature_names):
        assert np.shares_memory(X[:, j], ds.frame[name].to_numpy())


def test_X_is_a_view_when_a_text_column_sits_between_the_numbers(monkeypatch):
    ds, _ = _big_numeric(monkeypatch, columns=("a", "b", "c"), text_after="a")
    assert ds.kind("label") == "categorical"
    np.testing.assert_array_equal(ds.X, ds.schema.encode(ds.frame))  # mixed kinds: encoded copy
    numeric_only = ds.with_kinds({"label": "ignore"})
    assert np.shares_memory(numeric_only.X, numeric_only.frame["a"].to_numpy())  # every feature shared
    np.testing.assert_array_equal(numeric_only.X, numeric_only.schema.encode(numeric_only.frame))


def test_a_numeric_target_between_the_features_leaves_a_strided_view(monkeypatch):
    ds, _ = _big_numeric(monkeypatch, columns=("a", "t", "b"))
    reg = ds.with_target("t").with_kinds({"y": "ignore"})  # the old target would be a categorical feature
    assert reg.feature_names == ("a", "b") and reg.task == "regression"
    np.testing.assert_array_equal(reg.X, reg.schema.encode(reg.frame))
    assert np.shares_memory(reg.X, reg.frame["b"].to_numpy())


def test_X_of_a_frame_the_caller_owns_is_a_copy():
    frame = pd.DataFrame(np.arange(20.0).reshape(10, 2), columns=["x", "z"])
    frame["y"] = list("ab") * 5
    ds = engine.Dataset.from_frame(frame, target="y")
    assert not np.shares_memory(ds.X, frame["x"].to_numpy())  # the caller may write to it later


def test_columns_view_refuses_what_it_cannot_share():
    from engine.data.rows import columns_view

    m = np.asfortranarray(np.arange(30.0).reshape(10, 3))  # owns its memory, like the parser's matrix
    m.flags.writeable = False
    v = columns_view([m[:, 0], m[:, 2]])
    np.testing.assert_array_equal(v, m[:, [0, 2]])
    assert columns_view([m[:, 2], m[:, 0]]) is None  # backwards
    assert columns_view([m[:, 0], m[:, 1], m[:, 0]]) is None  # uneven
    for parts in ([m[:5, 0], m[:5, 1]], [m[1:, 0], m[:9, 1]]):  # any evenly spaced equal segments
        np.testing.assert_array_equal(columns_view(parts), np.column_stack(parts))
    assert columns_view([m[1:, 0], m[:8, 1]]) is None  # lengths differ
    writeable = np.asfortranarray(np.arange(30.0).reshape(10, 3))
    assert columns_view([writeable[:, 0], writeable[:, 1]]) is None
    assert columns_view([np.arange(10.0)]) is None  # its own (writeable) root
    c = np.arange(30.0).reshape(10, 3).copy()  # C order: columns are strided, not contiguous
    c.flags.writeable = False
    assert columns_view([c[:, 0], c[:, 1]]) is None


def test_subsets_are_gathered_when_first_used_and_equal_iloc(monkeypatch):
    ds, _ = _big_numeric(monkeypatch, text_after="b")
    ds = ds.with_kinds({"c": "ignore"})
    rows = np.array([5, 3, 3, 190, 0, 42])
    sub = ds.subset(rows)
    assert sub._pending is not None
    assert len(sub) == 6 and list(sub.row_ids) == [5, 3, 3, 190, 0, 42] and sub._pending is not None
    pd.testing.assert_frame_equal(sub.frame, ds.frame.iloc[rows])
    assert sub._pending is None
    np.testing.assert_array_equal(sub.X, ds.X[rows])
    np.testing.assert_array_equal(sub.X, sub.schema.encode(sub.frame))
    np.testing.assert_array_equal(sub.y, ds.y[rows])
    assert not sub.X.flags.writeable and not sub.y.flags.writeable
    assert np.shares_memory(sub.X, sub.frame["a"].to_numpy())  # numeric features held once
    twice = sub.subset([1, 0])  # a subset of a pending subset
    pd.testing.assert_frame_equal(twice.frame, ds.frame.iloc[[3, 5]])


def test_a_split_gathers_nothing_until_its_parts_are_used(monkeypatch):
    ds, _ = _big_numeric(monkeypatch)
    split = ds.split(test_size=0.25, seed=1)
    assert split.train._pending is not None and split.test._pending is not None
    assert len(split.train) + len(split.test) == len(ds)
    assert sorted(np.concatenate([split.train.row_ids, split.test.row_ids]).tolist()) == list(range(len(ds)))
    assert split.test._pending is not None
    np.testing.assert_array_equal(split.train.X, ds.X[split.train.row_ids])
    np.testing.assert_array_equal(split.test.y, ds.y[split.test.row_ids])


def test_a_pending_subset_pickles_with_its_rows():
    import pickle

    frame = pd.DataFrame({"x": np.arange(12.0), "c": list("uvw") * 4, "y": list("ab") * 6})
    ds = engine.Dataset.from_frame(frame, target="y")
    sub = ds.subset([0, 4, 7])
    back = pickle.loads(pickle.dumps(sub))
    pd.testing.assert_frame_equal(back.frame, ds.frame.iloc[[0, 4, 7]])
    np.testing.assert_array_equal(back.X, ds.X[[0, 4, 7]])


def test_class_codes_match_categorical_codes():
    from engine.data.rows import class_codes

    labels = pd.Series(["b", "a", None, "c", "a", "zz"], dtype="str")
    want = np.array([1, 0, -1, 2, 0, -1])  # as pd.Categorical(labels, categories=...).codes
    np.testing.assert_array_equal(class_codes(labels, ("a", "b", "c")), want)


@pytest.mark.parametrize("cells, same", [(["u", "v", None, "u"], True), ([" u", "v", "u", "NA "], False),
                                         (["u ", "v", "u", "v"], False)])
def test_a_clean_text_column_is_kept_as_parsed(cells, same):
    from engine.data.columns import natural_column

    values = pd.Series(cells, dtype="str")
    out, kind, _ = natural_column(values, "c", decimal_comma=False)
    assert kind == "categorical" and (out is values) == same
    missing = [c is None or c.strip() == "NA" for c in cells]
    assert out.isna().tolist() == missing
    assert out.dropna().tolist() == [c.strip() for c, m in zip(cells, missing) if not m]


@pytest.mark.parametrize("blocks", [False, True])
def test_windows_line_ends_without_quotes_are_parsed_from_the_bytes(blocks, monkeypatch):
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"x": rng.normal(size=80).round(3), "c": rng.choice(["u", "v w"], size=80),
                          "n": rng.integers(0, 9, size=80), "y": rng.choice(["a", "b"], size=80)})
    text = frame.to_csv(index=False) + "\n"  # a blank line at the end too
    assert '"' not in text
    expected = engine.load_csv(text.encode())
    if blocks:
        monkeypatch.setattr(csvblocks, "CHUNKED_ABOVE_BYTES", 0)
        monkeypatch.setattr(csvblocks, "CHUNK_ROWS", 9)
    parsed = []
    original = csvio._parse
    monkeypatch.setattr(csvio, "_parse", lambda data, *a, **kw: parsed.append(data) or original(data, *a, **kw))
    raw = text.replace("\n", "\r\n").encode()
    got = engine.load_csv(raw)
    assert parsed == [raw]  # the upload's own bytes, not a decoded and re-encoded copy
    pd.testing.assert_frame_equal(got.frame, expected.frame)
    assert got.kinds == expected.kinds and got.notes == expected.notes
    np.testing.assert_array_equal(got.X, expected.X)


def test_a_bad_line_in_a_windows_file_is_named_as_in_a_unix_file():
    lines = ["a,b,y"] + [f"{i},{i},c{i % 2}" for i in range(30)]
    lines[17] = "1,2"
    for end in ("\n", "\r\n"):
        with pytest.raises(DataError, match="Line 18 has 2 fields"):
            engine.load_csv((end.join(lines) + end).encode())


def test_quoted_line_breaks_in_a_windows_file_read_as_in_the_text_path():
    data = b'a,note,y\r\n1,"two\r\nlines",p\r\n2,plain,q\r\n'
    ds = engine.load_csv(data)
    assert ds.frame["note"].tolist() == ["two\nlines", "plain"]


@pytest.mark.parametrize("end", ["\n", "\r\n"])
@pytest.mark.parametrize("quotes", [False, True])
def test_excel_csv_utf8_with_a_bom_reads_like_the_plain_file(end, quotes, monkeypatch):
    frame = _frame(4, n=50)
    if not quotes:
        frame["colour"] = frame["colour"].str.replace('"', "").str.replace(",", "")
    text = frame.to_csv(index=False).replace("red", "rød")
    expected = engine.load_csv(text.encode())
    monkeypatch.setattr(csvblocks, "CHUNKED_ABOVE_BYTES", 0)
    monkeypatch.setattr(csvblocks, "CHUNK_ROWS", 11)
    got = engine.load_csv(b"\xef\xbb\xbf" + text.replace("\n", end).encode())
    pd.testing.assert_frame_equal(got.frame, expected.frame)
    assert got.kinds == expected.kinds and got.notes == expected.notes


def test_threads_using_one_pending_subset_share_one_gather():
    from concurrent.futures import ThreadPoolExecutor

    frame = pd.DataFrame({"x": np.arange(5000.0), "z": np.arange(5000.0) % 7, "y": list("ab") * 2500})
    sub = engine.Dataset.from_frame(frame, target="y").subset(np.arange(0, 5000, 3))
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda _: (sub.X, sub.frame["x"].to_numpy()), range(16)))
    assert all(X is got[0][0] for X, _ in got)
    assert all(np.shares_memory(x, got[0][0]) for _, x in got)


def test_whole_numbers_of_a_big_file_go_into_the_shared_matrix_and_load_as_in_one_piece(monkeypatch):
    """Whole-number columns of a file parsed in blocks are held once, as float64 in the read-only matrix
    (X is a view of them), and the data set equals the one-piece parse's (where they were int64)."""
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"count": rng.integers(0, 100, 300), "x": rng.normal(size=300).round(2),
                          "big": rng.integers(-2**40, 2**40, 300), "y": rng.choice(["p", "q"], 300)})
    data = frame.to_csv(index=False).encode()
    expected = engine.load_csv(data)
    monkeypatch.setattr(csvblocks, "CHUNKED_ABOVE_BYTES", 0)
    monkeypatch.setattr(csvblocks, "CHUNK_ROWS", 37)
    got = engine.load_csv(data)
    pd.testing.assert_frame_equal(got.frame, expected.frame)
    assert got.kinds == expected.kinds and got.notes == expected.notes
    np.testing.assert_array_equal(got.X, expected.X)
    assert not got.X.flags.writeable and np.shares_memory(got.X, got.frame["count"].to_numpy())
