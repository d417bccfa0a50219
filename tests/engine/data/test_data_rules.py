"""engine.data: the smaller inference rules (row numbers, ids with gaps, classes order, notes)."""

from __future__ import annotations

import numpy as np

from engine.data.dataset import load_csv


def rows(header: str, make, n: int) -> bytes:
    return (header + "\n" + "".join(make(i) + "\n" for i in range(n))).encode()


def test_row_number_column_kept_numeric_with_note():
    ds = load_csv(rows("id,x,t", lambda i: f"{i + 1},{i % 3},{'ab'[i % 2]}", 10))
    assert ds.kind("id") == "numeric"
    assert any("Column 'id' counts the rows" in n for n in ds.notes)
    shuffled = load_csv(rows("id,x,t", lambda i: f"{(i * 7) % 10},{i % 3},{'ab'[i % 2]}", 10))
    assert not any("counts the rows" in n for n in shuffled.notes)


def test_identifier_with_a_few_gaps_is_still_ignored():
    ds = load_csv(rows("name,x,t", lambda i: f"{'' if i == 3 else f'p{i}'},{i % 3},{'ab'[i % 2]}", 12))
    assert ds.kind("name") == "ignore"
    many_gaps = load_csv(rows("name,x,t", lambda i: f"{'' if i % 3 == 0 else f'p{i}'},{i % 3},{'ab'[i % 2]}", 12))
    assert many_gaps.kind("name") == "categorical"


def test_tiny_tables_keep_unique_text_columns():
    ds = load_csv(b"colour,t\nred,a\nblue,b\ngreen,a\n")
    assert ds.kind("colour") == "categorical"


def test_numeric_labels_sorted_by_value():
    ds = load_csv(rows("x,t", lambda i: f"{i},{[2, 10, 1][i % 3]}", 90))
    assert ds.classes == ("1", "2", "10")
    assert np.bincount(ds.y).tolist() == [30, 30, 30]
    assert ds.y[:3].tolist() == [1, 2, 0]


def test_notes_are_sentences():
    ds = load_csv(b"Day,v,w,Play\nD1,1,inf,Yes\nD2,x,2,\nD3,3,3,Yes\nD4,4,4,Yes\n"
                  b"D5,5,5,Yes\nD6,6,6,Yes\nD7,7,7,Yes\n")
    assert len(ds.notes) >= 4
    assert all(n[0].isupper() or n[0].isdigit() for n in ds.notes)
    assert all(n.endswith(".") for n in ds.notes)


def test_distinct_numbers_with_one_word_are_not_an_id():
    ds = load_csv(b"v,t\n1,a\nx,b\n3,a\n4,b\n5,a\n6,b\n7,a\n")
    assert ds.kind("v") == "categorical"
    assert any("mixes numbers with text (for example 'x')" in n for n in ds.notes)


def test_row_numbers_are_recognised_from_0_or_1_and_nothing_else():
    import numpy as np
    import pandas as pd
    from engine.data.columns import is_row_number
    n = 1000
    assert is_row_number(pd.Series(np.arange(n, dtype=float)))
    assert is_row_number(pd.Series(np.arange(1, n + 1)))
    for bad in (np.arange(2, n + 2), np.r_[np.arange(n - 1), n], np.r_[0, 2, np.arange(2, n)],
                np.r_[np.arange(n - 1), np.nan], np.arange(5), np.arange(n)[::-1].copy()):
        assert not is_row_number(pd.Series(bad.astype(float))), bad[:4]
    mid = np.arange(n, dtype=float)
    mid[500] = np.nan
    assert not is_row_number(pd.Series(mid))
