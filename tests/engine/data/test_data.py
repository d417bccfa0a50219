"""engine.data: reading rules, kind and task inference, every DataError path, and Dataset variants."""

from __future__ import annotations

import gzip
import io
import pickle
from pathlib import Path

import numpy as np
import pytest

from engine.data.dataset import Dataset, load_csv
from engine.errors import ConfigError, DataError


def load(text: str, **kw) -> Dataset:
    return load_csv(text.encode("utf-8"), **kw)


# ------------------------------------------------------------------------------ sources
def test_sources_path_bytes_and_uploaded_file(tmp_path: Path):
    text = b"a,b\n1,x\n2,y\n"
    path = tmp_path / "tiny.csv"
    path.write_bytes(text)
    upload = io.BytesIO(text)
    upload.name = "uploaded.csv"
    for source, name in ((str(path), "tiny"), (path, "tiny"), (text, "data"), (upload, "uploaded")):
        ds = load_csv(source)
        assert ds.name == name
        assert ds.frame["a"].tolist() == [1.0, 2.0]


class ReadOnly:
    """Like a file object without ``getvalue`` (only ``read``)."""

    name = "stream.csv"

    def read(self):
        return b"a;b\n1;x\n2;y\n"


def test_read_only_file_object_and_missing_path(tmp_path: Path):
    assert load_csv(ReadOnly()).name == "stream"
    with pytest.raises(DataError, match="There is no file"):
        load_csv(tmp_path / "nope.csv")
    with pytest.raises(DataError, match="folder"):
        load_csv(tmp_path)
    with pytest.raises(DataError, match="file path"):
        load_csv(12345)


# ---------------------------------------------------------------------- format detection
@pytest.mark.parametrize("text,sep", [("a,b\n1,x\n", ","), ("a;b\n1;x\n", ";"), ("a\tb\n1\tx\n", "\t"),
                                      ("a|b\n1|x\n", "|")])
def test_delimiters(text, sep):
    ds = load(text + text.splitlines()[1].replace("x", "y") + "\n")
    assert list(ds.frame.columns) == ["a", "b"]
    assert ds.frame["b"].tolist() == ["x", "y"]


def test_decimal_comma_in_semicolon_file_and_commas_inside_text():
    ds = load("h;w;t\n1,5;hello, world;x\n2,25;foo, bar;y\n")
    assert ds.frame["h"].tolist() == [1.5, 2.25]
    assert ds.frame["w"].tolist() == ["hello, world", "foo, bar"]


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "cp1252"])
def test_encodings(encoding):
    data = "Stadt,Wert\nZürich,1\nCafé,2\n".encode(encoding)
    if encoding in ("utf-16-le", "utf-16-be"):
        data = {"utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff"}[encoding] + data
    ds = load_csv(data, target="Wert", task="regression")
    assert list(ds.frame.columns) == ["Stadt", "Wert"]
    assert ds.frame["Stadt"].tolist() == ["Zürich", "Café"]


def test_line_ends_bom_blank_lines_and_gzip():
    for data in (b"a,b\r\n1,x\r\n2,y\r\n", b"a,b\r1,x\r2,y\r", b"\xef\xbb\xbfa,b\n\n1,x\n\n2,y\n",
                 gzip.compress(b"a,b\n1,x\n2,y\n")):
        ds = load_csv(data)
        assert list(ds.frame.columns) == ["a", "b"] and len(ds) == 2
    assert any("gzip" in n for n in load_csv(gzip.compress(b"a,b\n1,x\n2,y\n")).notes)


def test_excel_sep_line_and_whitespace_and_quotes():
    ds = load("sep=;\n a ; b \n 1 ;  x  \n2; y\n")
    assert list(ds.frame.columns) == ["a", "b"] and ds.frame["b"].tolist() == ["x", "y"]
    ds = load('"name, with comma","say ""hi""",t\n"1,5",x,a\n"2",y,b\n')
    assert list(ds.frame.columns) == ["name, with comma", 'say "hi"', "t"]


@pytest.mark.parametrize("marker", ["", "NA", "n/a", "N/A", "?", "-", "null", "NULL", "NaN", " ? "])
def test_missing_markers(marker):
    ds = load(f"num,txt,t\n1,a,x\n{marker},{marker},y\n3,b,x\n")
    assert np.isnan(ds.X[1]).all()
    assert ds.kind("num") == "numeric" and ds.kind("txt") == "categorical"


def test_none_is_a_category_not_missing():
    ds = load("pat,t\nNone,x\nSome,y\nFull,x\n")
    assert ds.categories["pat"] == ("Full", "None", "Some")


# ---------------------------------------------------------------------- kinds and numbers
def test_kinds_inferred():
    ds = load("n,c,b,t\n1.5,red,true,x\n2,blue,false,y\n3,red,TRUE,x\n")
    assert ds.kinds == {"n": "numeric", "c": "categorical", "b": "categorical"}
    assert ds.categories == {"c": ("blue", "red"), "b": ("False", "True")}


def test_id_column_ignored_with_note_and_can_be_forced():
    rows = "\n".join(f"D{i},{'ab'[i % 2]},{'xy'[i % 3 == 0]}" for i in range(1, 15))
    ds = load("Day,f,Play\n" + rows + "\n")
    assert ds.kind("Day") == "ignore" and ds.feature_names == ("f",)
    assert ("Column 'Day' is ignored: every row has a different value, so it would win every gain "
            "comparison. Mark it categorical to use it anyway.") in ds.notes
    forced = ds.with_kinds({"Day": "categorical"})
    assert forced.feature_names == ("Day", "f") and len(forced.categories["Day"]) == 14
    assert load("Day,f,Play\n" + rows + "\n", kinds={"Day": "categorical"}).kind("Day") == "categorical"


@pytest.mark.parametrize("cells,expected", [
    (['"1,234"', '"12,345.5"', "7"], [1234.0, 12345.5, 7.0]),
    (["45%", "50 %", "12.5%"], [45.0, 50.0, 12.5]),
    (["1e3", "-2", ".5"], [1000.0, -2.0, 0.5]),
])
def test_numbers_written_as_text(cells, expected):
    ds = load("v,t\n" + "\n".join(f"{c},x" for c in cells) + "\n")
    assert ds.kind("v") == "numeric"
    assert ds.frame["v"].tolist() == expected


def test_semicolon_file_thousands_dots_and_decimal_commas():
    ds = load("v;t\n1.234,5;x\n12,5;y\n7;x\n")
    assert ds.frame["v"].tolist() == [1234.5, 12.5, 7.0]


def test_mixed_column_is_categorical_with_note_and_forced_numeric_fails():
    text = "v,t\n1,x\n2,y\nabc,x\n4,y\n"
    ds = load(text)
    assert ds.kind("v") == "categorical"
    assert any("mixes numbers with text" in n and "'abc'" in n for n in ds.notes)
    with pytest.raises(DataError, match=r"Column 'v' cannot be numeric: 'abc' is not a number"):
        load(text, kinds={"v": "numeric"})


def test_inf_is_missing_with_note():
    ds = load("v,t\n1,x\ninf,y\n-Infinity,x\n")
    assert np.isnan(ds.X[1:, 0]).all()
    assert "Column 'v' had 2 infinite values (inf), treated as missing." in ds.notes


def test_forced_categorical_numbers_use_integer_labels():
    ds = load("v,t\n1,x\n2.0,y\n10,x\n2.5,y\n", kinds={"v": "categorical"})
    assert ds.categories["v"] == ("1", "2", "2.5", "10")
    assert ds.X[:, 0].tolist() == [0.0, 1.0, 3.0, 2.0]


def test_date_column_is_categorical():
    ds = load("d,t\n2024-01-05,x\n2024-01-05,y\n2024-02-01,x\n")
    assert ds.kind("d") == "categorical"
    assert any("dates" in n for n in ds.notes)


def test_empty_and_constant_columns():
    ds = load("e,c,v,t\n,k,1,x\n,k,2,y\n")
    assert ds.kind("e") == "ignore" and ds.kind("c") == "categorical"
    assert any("'e' has no values" in n for n in ds.notes)
    assert any("'c' has the same value in every row" in n for n in ds.notes)


# ---------------------------------------------------------------------------- target, task
def test_target_default_last_and_named():
    ds = load("a,b,c\n1,x,p\n2,y,q\n")
    assert ds.target == "c" and "c" not in ds.kinds
    assert load("a,b,c\n1,x,p\n2,y,q\n", target="b").target == "b"
    with pytest.raises(DataError, match="There is no column 'zz' to predict"):
        load("a,b\n1,x\n", target="zz")


def _tips_like(rows: int = 244) -> str:
    """plotly's tips data in shape: two amounts, four label columns, and the party size (1-6) last."""
    rng = np.random.default_rng(0)
    days, lines = ("Thur", "Fri", "Sat", "Sun"), ["total_bill,tip,sex,smoker,day,time,size"]
    for i in range(rows):
        bill = round(float(rng.uniform(3, 50)), 2)
        lines.append(f"{bill},{round(bill * 0.15, 2)},{('Female', 'Male')[i % 2]},{('No', 'Yes')[i % 3 == 0]},"
                     f"{days[i % 4]},{('Lunch', 'Dinner')[i % 4 > 1]},{1 + i % 6}")
    return "\n".join(lines) + "\n"


def test_target_guess_prefers_a_column_of_a_few_labels():
    # tips ends with the party size (6 whole numbers): the guess is its last label column, not size
    ds = load(_tips_like())
    assert ds.target == "time" and ds.task == "classification" and ds.classes == ("Dinner", "Lunch")
    assert ds.kinds["size"] == "numeric"
    # a last column of a few labels (text, yes/no, or two numbers) stays the target
    assert load("a,b,c\n1,x,1\n2,y,0\n3,x,1\n").target == "c"
    assert load("a,b,c\n1,x,true\n2,y,false\n").target == "c"
    # all numeric: the last column, as before (a regression target or integer classes)
    assert load("a,b,y\n" + "".join(f"{i},{i % 3},{i * 1.5}\n" for i in range(30))).target == "y"
    # a text column with many values is no label column: still the last column
    assert load("name,x,score\n" + "".join(f"n{i},{i % 7},{i}\n" for i in range(30))).target == "score"
    # a measurement last (a fraction, or many values) is a regression target even beside a label column: a
    # house-price table with a district column predicts the price, not the district
    prices = "district,rooms,price\n" + "".join(f"{('N', 'S', 'E')[i % 3]},{1 + i % 5},{100 + 7.5 * i}\n" for i in range(30))
    assert load(prices).target == "price" and load(prices).task == "regression"
    counts = "district,rooms,visits\n" + "".join(f"{('N', 'S', 'E')[i % 3]},{1 + i % 5},{i * 3}\n" for i in range(30))
    assert load(counts).target == "visits"


def test_task_rules():
    few = "\n".join(f"{i},{i % 3}" for i in range(100))
    assert load("a,t\n" + few).task == "classification"
    assert load("a,t\n" + few).classes == ("0", "1", "2")
    many = "\n".join(f"{i},{i % 30}" for i in range(1000))
    assert load("a,t\n" + many).task == "regression"  # 30 distinct values > 20
    dense = "\n".join(f"{i},{i % 10}" for i in range(100))
    assert load("a,t\n" + dense).task == "regression"  # 10 distinct values = 10% of rows
    binary = "\n".join(f"{i},{i % 2}" for i in range(14))
    assert load("a,t\n" + binary).task == "classification"  # two values: always classes
    floats = "\n".join(f"{i},{i / 2}" for i in range(100))
    assert load("a,t\n" + floats).task == "regression"
    assert load("a,t\n1,true\n2,false\n").task == "classification"
    assert load("a,t\n1,2\n2,10\n3,2\n4,10\n", task="classification").classes == ("2", "10")


def test_task_override_errors():
    with pytest.raises(DataError, match="holds text .*'Yes'.* cannot be predicted as a number"):
        load("a,t\n1,Yes\n2,No\n", task="regression")
    with pytest.raises(ConfigError, match="task must be"):
        load("a,t\n1,Yes\n2,No\n", task="clustering")


def test_missing_target_rows_dropped_with_note():
    ds = load("a,Play\n1,Yes\n2,\n3,?\n4,NA\n5,No\n")
    assert len(ds) == 2 and ds.row_ids.tolist() == [0, 4]
    assert "3 rows without a value for 'Play' were left out." in ds.notes


def test_one_class_target_loads_with_note():
    ds = load("a,Play\n1,Yes\n2,Yes\n")
    assert ds.classes == ("Yes",) and ds.y.tolist() == [0, 0]
    assert "Every row has the same class 'Yes': the tree will be a single leaf." in ds.notes


# ------------------------------------------------------------------------------- errors
@pytest.mark.parametrize("data,message", [
    (b"", "The file is empty"),
    (b"  \n \n", "The file is empty"),
    (b"a,b\n", "The file has a header but no rows."),
    (b"a\n1\n2\n", "only one column ('a')"),
    (b"a,b,a\n1,2,3\n", "The column name 'a' appears twice (columns 1 and 3)"),
    (b"a,,c\n1,2,3\n", "Column 2 of the header has no name"),
    (b"a,b\n1,2\n3,4,5\n", "Line 3 has 3 fields but the header has 2"),
    (b"a,b,c\n1,2,3\n4,5\n", "Line 3 has 2 fields but the header has 3"),
    (b'a,b\n1,"x\n2,y\n', "never closed"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "PNG image"),
    (b"\xff\xd8\xff\xe0\x00\x10JFIF", "JPEG image"),
    (b"GIF89a\x01\x00", "GIF image"),
    (b"%PDF-1.7\n", "PDF document"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(64), "old Excel (.xls) workbook: save it as CSV first."),
    (b"a,b\n1,\x00\n", "NUL bytes"),
    (b"<!DOCTYPE html><html></html>", "web page"),
    (b"\x1f\x8b\x08\x00broken", "gzip-compressed but damaged"),
    (b"a,b\n1,\n2,NA\n", "The target column 'b' has no values"),
    (b"id,t\nA1,x\nA2,y\nA3,x\nA4,y\nA5,x\nA6,y\n", "No column is left to learn from"),
])
def test_data_errors(data, message):
    with pytest.raises(DataError) as info:
        load_csv(data)
    assert message in str(info.value)


def test_excel_workbook_renamed():
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("xl/workbook.xml", "<workbook/>")
    with pytest.raises(DataError, match="This looks like an Excel workbook: save it as CSV first."):
        load_csv(buffer.getvalue())


def test_limits():
    wide = ",".join(f"c{i}" for i in range(12)) + "\n" + ",".join("1" * 12) + "\n"
    with pytest.raises(DataError, match="The file has 12 columns; at most 10 are supported"):
        load(wide, max_columns=10)
    rows = "v,w,t\n" + "\n".join(f"k{i % 50},{i % 7},{i % 2}" for i in range(200)) + "\n"
    with pytest.raises(DataError, match="Column 'v' has 50 categories; at most 20 are supported for a "
                                        "categorical feature — mark it numeric or ignore it."):
        load(rows, max_categories=20)
    assert load(rows, max_categories=20, kinds={"v": "ignore"}).kind("v") == "ignore"
    with pytest.raises(DataError, match="more than 150 rows"):
        load(rows, max_rows=150)
    assert len(load(rows, max_rows=200)) == 200
    with pytest.raises(ConfigError, match="max_rows must be a positive whole number"):
        load(rows, max_rows=0)


def test_only_data_errors_escape_for_odd_sources():
    for bad in (b"\xff\xfe\x00", b"\xfe\xff\x00", b'"', b",\n,", b"\n\n\na,b", b"a,b\n\x1a\x1b,1\n"):
        try:
            load_csv(bad)
        except DataError:
            pass


# ------------------------------------------------------------------------- Dataset API
def test_immutable_copy_on_read_and_pickle():
    ds = load("a,b,t\n1,x,p\n2,y,q\n3,x,p\n")
    with pytest.raises(AttributeError):
        ds.target = "a"
    frame = ds.frame
    frame.loc[0, "a"] = 99.0
    assert ds.frame.loc[0, "a"] == 1.0
    with pytest.raises(ValueError):
        ds.X[0, 0] = 5.0
    kinds = ds.kinds
    kinds["a"] = "ignore"
    assert ds.kind("a") == "numeric"
    again = pickle.loads(pickle.dumps(ds))
    assert np.array_equal(again.X, ds.X) and again.notes == ds.notes and again.kinds == ds.kinds
    assert repr(ds) == ("Dataset(name='data', rows=3, features=2, target='t', task='classification', "
                        "classes=('p', 'q'))")
