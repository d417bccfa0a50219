"""The awkward-file corpus (tests/data/awkward/): every file either loads with the stated checks or
raises DataError with the stated sentence. Nothing else may escape ``load_csv``."""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import numpy as np
import pytest

from engine.data.dataset import load_csv
from engine.errors import DataError

CORPUS = Path(__file__).resolve().parents[2] / "data" / "awkward"
TENNIS_COLUMNS = ["Outlook", "Temp", "Play"]


def tennis(ds):
    assert list(ds.frame.columns) == TENNIS_COLUMNS and len(ds) == 6
    assert ds.kinds == {"Outlook": "categorical", "Temp": "numeric"}
    assert ds.frame["Temp"].tolist() == [85.0, 80.0, 83.0, 70.0, 68.0, 65.0]
    assert ds.classes == ("No", "Yes")


def cities(ds):
    assert list(ds.frame.columns) == ["Stadt", "Wert", "Klasse"]
    assert ds.frame["Wert"].tolist() == [1.0, 2.0]


def column(name, values, kind=None):
    def check(ds):
        got = ds.frame[name].tolist()
        assert len(got) == len(values)
        for g, v in zip(got, values):
            assert (isinstance(g, float) and math.isnan(g)) if v is None else g == v, (got, values)
        if kind:
            assert ds.kinds[name] == kind
    return check


def note(fragment):
    def check(ds):
        assert any(fragment in n for n in ds.notes), ds.notes
    return check


def rows(n):
    def check(ds):
        assert len(ds) == n
    return check


def attr(name, value):
    """``getattr(ds, name) == value`` (e.g. task, classes)."""
    def check(ds):
        assert getattr(ds, name) == value, getattr(ds, name)
    return check


def columns_are(names):
    def check(ds):
        assert list(ds.frame.columns) == names, list(ds.frame.columns)
        assert ds.X.shape == (len(ds), len(names) - 1)
    return check


def kind_is(name, kind):
    def check(ds):
        assert ds.kind(name) == kind
    return check


def categories_are(name, labels):
    def check(ds):
        assert set(ds.categories[name]) == set(labels), ds.categories[name]
    return check


# file -> ("loads", [checks], kwargs) or ("error", message fragment, kwargs)
CASES = {
    "utf8_bom.csv": ("loads", [tennis], {}),
    "utf16_le_bom.csv": ("loads", [cities, column("Stadt", ["Zürich", "Genève"])], {}),
    "utf16_be_bom.csv": ("loads", [cities, column("Stadt", ["Zürich", "Genève"])], {}),
    "utf16_le_no_bom.csv": ("loads", [cities, column("Stadt", ["Zurich", "Geneva"])], {}),
    "cp1252.csv": ("loads", [column("Name", ["Café", "Crème"]), column("Preis", ["3 €", "4 €"])], {}),
    "latin1_only.csv": ("loads", [column("Code", ["A\x81B", "C\x8dD"]), column("Val", [1.0, 2.0])], {}),
    "broken_utf16.csv": ("error", "is not valid UTF-16-LE: save it again as UTF-8 CSV", {}),
    "mac_cr.csv": ("loads", [tennis], {}),
    "windows_crlf.csv": ("loads", [tennis], {}),
    "mixed_line_ends.csv": ("loads", [column("Outlook", ["Sunny", "Overcast", "Rain"])], {}),
    "blank_lines.csv": ("loads", [tennis], {}),
    "semicolon_decimal_comma.csv": ("loads", [column("Gewicht", [1.5, 2.25, -0.5], "numeric")], {}),
    "semicolon_thousands.csv": ("loads", [column("Betrag", [1234.5, 12.5, 1e6], "numeric")], {}),
    "comma_thousands_quoted.csv": ("loads", [column("amount", [1234.0, 12345.5, 7.0], "numeric"),
                                             note("thousands separators")], {}),
    "percentages.csv": ("loads", [column("share", [45.0, 50.0, 12.5], "numeric"), note("percentages")], {}),
    "tab_separated.tsv": ("loads", [tennis, note("tabs")], {}),
    "pipe_separated.txt": ("loads", [tennis, note("pipes")], {}),
    "excel_sep_line.csv": ("loads", [tennis], {}),
    "semicolons_inside_quotes.csv": ("loads", [column("notes", ["a;b;c", "d;e", "f"])], {}),
    "gzip.csv.gz": ("loads", [tennis, note("gzip")], {}),
    "gzip_utf16_semicolon.csv.gz": ("loads", [tennis], {}),
    "quoted_fields.csv": ("loads", [column("text", ["comma, inside", 'quote "here"', "two\nlines"])], {}),
    "long_cells.csv": ("loads", [column("text", ["x" * 10_000, "y" * 10_000])], {}),
    "weird_names.csv": ("loads", [columns_are(['say "hi"', "back\\slash", "new\nline",
                                               "<script>alert(1)</script>", "a -> b; }", "label"])], {}),
    "weird_values.csv": ("loads", [categories_are("v", ["a -> b; }", "<b>bold</b>", "$x^2$", '{"k": 1}'])], {}),
    "markup_names.csv": ("loads", [columns_are(["**bold**", "$x$", ":red[z]", "{}|<>", '"]; n0 -> n1 [',
                                                "[a](javascript:alert(1))", "label"]),
                                   categories_are("**bold**", ["*a*", "_b_"]), categories_are("{}|<>", ["{x}", "|y|"]),
                                   attr("classes", ("=1+1", "@cmd"))], {}),
    "whitespace_padded.csv": ("loads", [column("Outlook", ["Sunny", "Rain"]), column("Temp", [85.0, 70.0]),
                                        column("Play", ["No", "Yes"])], {}),
    "missing_markers.csv": ("loads", [column("n", [None, None, None, None, 1.0, 2.0], "numeric"),
                                      column("t", [None, None, None, None, None, "z"])], {}),
    "dates.csv": ("loads", [column("day", ["2024-01-05", "2024-01-05", "2024-02-11"], "categorical"),
                            note("dates")], {}),
    "booleans.csv": ("loads", [column("flag", ["True", "False", "True", None], "categorical")], {}),
    "trailing_delimiter.csv": ("loads", [tennis], {}),
    "id_column.csv": ("loads", [kind_is("Day", "ignore"),
                                note("Column 'Day' is ignored: every row has a different value")], {}),
    "mixed_types.csv": ("loads", [column("size", ["1", "2", "large", "4", "5"], "categorical"),
                                  note("mixes numbers with text (for example 'large')")], {}),
    "inf_values.csv": ("loads", [column("x", [1.0, None, None, 4.0]), note("2 infinite values")], {}),
    "one_class_target.csv": ("loads", [note("Every row has the same class 'Yes': the tree will be a "
                                            "single leaf.")], {}),
    "some_missing_target.csv": ("loads", [rows(2),
                                          note("3 rows without a value for 'Play' were left out.")], {}),
    "integer_classes.csv": ("loads", [attr("classes", ("0", "1", "2")), attr("task", "classification")], {}),
    "regression_target.csv": ("loads", [attr("task", "regression"), rows(40)], {}),
    "forced_numeric_text.csv": ("error", "Column 'grade' cannot be numeric: 'A' is not a number",
                                {"kinds": {"grade": "numeric"}}),
    "many_rows.csv": ("error", "more than 100 rows", {"max_rows": 100}),
    "empty.csv": ("error", "The file is empty", {}),
    "whitespace_only.csv": ("error", "The file is empty", {}),
    "header_only.csv": ("error", "The file has a header but no rows.", {}),
    "one_column.csv": ("error", "only one column ('value')", {}),
    "one_column_words.csv": ("error", "only one column ('description')", {}),
    "duplicate_names.csv": ("error", "The column name 'a' appears twice (columns 1 and 3)", {}),
    "duplicate_after_strip.csv": ("error", "The column name 'a' appears twice (columns 1 and 2)", {}),
    "blank_name.csv": ("error", "Column 2 of the header has no name", {}),
    "ragged_long.csv": ("error", "Line 4 has 4 fields but the header has 3", {}),
    "ragged_short.csv": ("error", "Line 3 has 2 fields but the header has 3", {}),
    "unclosed_quote.csv": ("error", "never closed", {}),
    "png_image.png": ("error", "PNG image", {}),
    "png_renamed.csv": ("error", "PNG image", {}),
    "photo.jpg": ("error", "JPEG image", {}),
    "anim.gif": ("error", "GIF image", {}),
    "document.pdf": ("error", "PDF document", {}),
    "workbook_xlsx_renamed.csv": ("error", "This looks like an Excel workbook: save it as CSV first.", {}),
    "archive.zip": ("error", "ZIP archive", {}),
    "old_excel.xls": ("error", "old Excel (.xls) workbook: save it as CSV first.", {}),
    "nul_bytes.csv": ("error", "NUL bytes", {}),
    "webpage.csv": ("error", "web page (HTML)", {}),
    "gzip_truncated.csv.gz": ("error", "damaged or cut off", {}),
    "all_missing_target.csv": ("error", "The target column 'Play' has no values", {}),
    "no_usable_feature.csv": ("error", "No column is left to learn from", {}),
    "wide_1500_columns.csv": ("error", "The file has 1,500 columns; at most 1,000 are supported", {}),
    "categories_2000.csv": ("error", "Column 'code' has 2,000 categories; at most 1,000 are supported for a "
                                     "categorical feature — mark it numeric or ignore it.", {}),
}


def test_corpus_is_complete_small_and_documented():
    files = {p.name for p in CORPUS.iterdir() if p.suffix not in (".py", ".md")}
    assert files == set(CASES), (files ^ set(CASES))
    assert len(files) >= 40
    assert all((CORPUS / f).stat().st_size < 200_000 for f in files)
    readme = (CORPUS / "README.md").read_text(encoding="utf-8")
    assert all(f"`{f}`" in readme for f in files)


@pytest.mark.parametrize("name", sorted(CASES))
def test_awkward_file(name):
    outcome, expected, kwargs = CASES[name]
    path = CORPUS / name
    try:
        ds = load_csv(path, **kwargs)
    except DataError as err:
        assert outcome == "error", f"{name} should load but raised: {err}"
        assert expected in str(err)
        assert str(err).endswith(".") and "\n" not in str(err) and "Traceback" not in str(err)
        return
    assert outcome == "loads", f"{name} should raise DataError({expected!r})"
    for check in expected:
        check(ds)
    # whatever loaded is usable: encoded arrays of the right shape, finite or NaN
    assert ds.X.shape == (len(ds), len(ds.feature_names)) and not np.isinf(ds.X).any()
    assert len(ds.y) == len(ds)


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_file_as_bytes_and_upload(name):
    """The source type never changes the outcome (path, bytes, uploaded file object)."""
    import io

    data = (CORPUS / name).read_bytes()
    upload = io.BytesIO(data)
    upload.name = name
    outcomes = []
    for source in (data, upload):
        try:
            outcomes.append(load_csv(source, **CASES[name][2]).frame.shape)
        except DataError as err:
            outcomes.append(str(err))
    assert outcomes[0] == outcomes[1]


@pytest.mark.slow
def test_large_file_row_limit(tmp_path):
    """A ~20 MB gzip-free file: max_rows refuses it with a sentence, and a large limit loads it."""
    rng = np.random.default_rng(0)
    block = "\n".join(",".join(f"{v:.4f}" for v in row) + f",{i % 3}"
                      for i, row in enumerate(rng.normal(size=(2_000, 10)))) + "\n"
    path = tmp_path / "big.csv"
    with path.open("w") as fh:
        fh.write(",".join(f"f{i}" for i in range(10)) + ",y\n")
        for _ in range(100):  # 200,000 rows, about 20 MB
            fh.write(block)
    assert path.stat().st_size > 15_000_000
    with pytest.raises(DataError, match="more than 50,000 rows"):
        load_csv(path, max_rows=50_000)
    ds = load_csv(path)
    assert len(ds) == 200_000 and ds.task == "classification"
    packed = tmp_path / "big.csv.gz"
    packed.write_bytes(gzip.compress(path.read_bytes(), compresslevel=1))
    with pytest.raises(DataError, match="more than 1,000 rows"):
        load_csv(packed, max_rows=1_000)
