"""Write the awkward-file corpus next to this script (deterministic; run after changing a case).

Run from the repository root: ``python tests/data/awkward/make_awkward.py``. Each file is small
(< 200 KB); what loading it must do is listed in ``README.md`` and checked by ``tests/engine/data/test_awkward.py``.
"""

from __future__ import annotations

import gzip
import io
import struct
import zipfile
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
TENNIS = ("Outlook,Temp,Play\nSunny,85,No\nSunny,80,No\nOvercast,83,Yes\nRain,70,Yes\n"
          "Rain,68,Yes\nRain,65,No\n")


def png_1x1() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b""))


def zipped(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in files.items():
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            z.writestr(info, text)
    return buffer.getvalue()


def gz(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


def files() -> dict[str, bytes]:
    u = str.encode
    out: dict[str, bytes] = {
        # ---- encodings and line ends
        "utf8_bom.csv": b"\xef\xbb\xbf" + u(TENNIS),
        "utf16_le_bom.csv": "Stadt,Wert,Klasse\nZürich,1,a\nGenève,2,b\n".encode("utf-16"),
        "utf16_be_bom.csv": b"\xfe\xff" + "Stadt,Wert,Klasse\nZürich,1,a\nGenève,2,b\n".encode("utf-16-be"),
        "utf16_le_no_bom.csv": "Stadt,Wert,Klasse\nZurich,1,a\nGeneva,2,b\n".encode("utf-16-le"),
        "cp1252.csv": "Name,Preis,Klasse\nCafé,3 €,a\nCrème,4 €,b\n".encode("cp1252"),
        "latin1_only.csv": b"Code,Val,Cls\nA\x81B,1,a\nC\x8dD,2,b\n",
        "broken_utf16.csv": b"\xff\xfe" + "a,b\n1,2\n".encode("utf-16-le") + b"\x00",
        "mac_cr.csv": u(TENNIS.replace("\n", "\r")),
        "windows_crlf.csv": u(TENNIS.replace("\n", "\r\n")),
        "mixed_line_ends.csv": b"Outlook,Temp,Play\r\nSunny,85,No\rOvercast,83,Yes\nRain,70,Yes\r\n",
        "blank_lines.csv": u("\n" + TENNIS.replace("\n", "\n\n")),
        # ---- delimiters and number formats
        "semicolon_decimal_comma.csv": b"Gewicht;Farbe;Klasse\n1,5;rot;ja\n2,25;blau;nein\n-0,5;rot;ja\n",
        "semicolon_thousands.csv": b"Betrag;Klasse\n1.234,5;ja\n12,5;nein\n1.000.000;ja\n",
        "comma_thousands_quoted.csv": b'amount,label\n"1,234",a\n"12,345.5",b\n7,a\n',
        "percentages.csv": b"share,label\n45%,a\n50 %,b\n12.5%,a\n",
        "tab_separated.tsv": u(TENNIS.replace(",", "\t")),
        "pipe_separated.txt": u(TENNIS.replace(",", "|")),
        "excel_sep_line.csv": u("sep=;\n" + TENNIS.replace(",", ";")),
        "semicolons_inside_quotes.csv": b'notes,label\n"a;b;c",x\n"d;e",y\n"f",x\n',
        "gzip.csv.gz": gz(u(TENNIS)),
        "gzip_utf16_semicolon.csv.gz": gz(TENNIS.replace(",", ";").encode("utf-16")),
        # ---- cells and names
        "quoted_fields.csv": b'text,n,label\n"comma, inside",1,a\n"quote ""here""",2,b\n"two\nlines",3,a\n',
        "long_cells.csv": u("text,n,label\n" + "x" * 10_000 + ",1,a\n" + "y" * 10_000 + ",2,b\n"),
        "weird_names.csv": u('"say ""hi""","back\\slash","new\nline","<script>alert(1)</script>",'
                            '"a -> b; }",label\n1,2,3,4,5,a\n6,7,8,9,10,b\n'),
        "weird_values.csv": u('v,label\n"a -> b; }",x\n"<b>bold</b>",y\n"$x^2$",x\n"{""k"": 1}",y\n'),
        "markup_names.csv": u('**bold**,$x$,:red[z],{}|<>,"""]; n0 -> n1 [",[a](javascript:alert(1)),label\n'
                              + "".join(f'{"*a*" if i % 2 else "_b_"},{i},"{"<i>" if i % 3 else "]["}",'
                                        f'"{"{x}" if i % 4 else "|y|"}",{i % 5},"{"$$" if i % 2 else "`c`"}",'
                                        f'{"=1+1" if i % 2 else "@cmd"}\n' for i in range(12))),
        "whitespace_padded.csv": b"  Outlook , Temp ,Play  \n  Sunny ,  85 , No \n Rain, 70 ,Yes\n",
        "missing_markers.csv": b"n,t,label\nNA,N/A,a\n?,-,b\nnull,NaN,a\n,,b\n1, ? ,a\n2,z,b\n",
        "dates.csv": b"day,label\n2024-01-05,a\n2024-01-05,b\n2024-02-11,a\n",
        "booleans.csv": b"flag,n,label\nTRUE,1,a\nfalse,2,b\nTrue,3,a\n,4,b\n",
        "trailing_delimiter.csv": u(TENNIS.replace("\n", ",\n")),
        # ---- kinds and targets
        "id_column.csv": u("Day," + TENNIS.splitlines()[0] + "\n"
                           + "".join(f"D{i}," + ln + "\n" for i, ln in enumerate(TENNIS.splitlines()[1:], 1))),
        "mixed_types.csv": b"size,label\n1,a\n2,b\nlarge,a\n4,b\n5,a\n",
        "inf_values.csv": b"x,label\n1,a\ninf,b\n-inf,a\n4,b\n",
        "one_class_target.csv": b"x,Play\n1,Yes\n2,Yes\n3,Yes\n",
        "some_missing_target.csv": b"x,Play\n1,Yes\n2,\n3,?\n4,NA\n5,No\n",
        "integer_classes.csv": u("x,digit\n" + "".join(f"{i},{i % 3}\n" for i in range(90))),
        "regression_target.csv": u("x,price\n" + "".join(f"{i},{i * 1.5 + 0.25}\n" for i in range(40))),
        "forced_numeric_text.csv": b"grade,label\nA,x\nB,y\n3,x\n",
        "many_rows.csv": u("x,label\n" + "".join(f"{i},{'ab'[i % 2]}\n" for i in range(500))),
        # ---- refused files
        "empty.csv": b"",
        "whitespace_only.csv": b"  \n\t\n  \n",
        "header_only.csv": b"Outlook,Temp,Play\n",
        "one_column.csv": b"value\n1\n2\n3\n",
        "one_column_words.csv": b"description\nhello world\nthe quick brown fox\n",
        "duplicate_names.csv": b"a,b,a\n1,2,x\n3,4,y\n",
        "duplicate_after_strip.csv": b"a, a ,t\n1,2,x\n3,4,y\n",
        "blank_name.csv": b"a,,t\n1,2,x\n3,4,y\n",
        "ragged_long.csv": b"a,b,t\n1,2,x\n3,4,y\n5,6,x,extra\n",
        "ragged_short.csv": b"a,b,t\n1,2,x\n3,4\n5,6,x\n",
        "unclosed_quote.csv": b'a,b,t\n1,"open,x\n3,4,y\n',
        "png_image.png": png_1x1(),
        "png_renamed.csv": png_1x1(),
        "photo.jpg": b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9",
        "anim.gif": (b"GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x01\x00\x00\x00"
                     b"\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"),
        "document.pdf": b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n",
        "workbook_xlsx_renamed.csv": zipped({
            "[Content_Types].xml": "<Types/>", "_rels/.rels": "<Relationships/>",
            "xl/workbook.xml": "<workbook/>", "xl/worksheets/sheet1.xml": "<worksheet/>"}),
        "archive.zip": zipped({"data.csv": TENNIS}),
        "old_excel.xls": b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504),
        "nul_bytes.csv": b"a,b,t\n1,2\x00,x\n3,4,y\n",
        "webpage.csv": b"<!DOCTYPE html>\n<html><head><title>data</title></head><body></body></html>\n",
        "gzip_truncated.csv.gz": gz(u(TENNIS * 20))[:40],
        "all_missing_target.csv": b"x,Play\n1,\n2,NA\n3,?\n",
        "no_usable_feature.csv": u("id,label\n" + "".join(f"row{i},{'ab'[i % 2]}\n" for i in range(10))),
        "wide_1500_columns.csv": u(",".join(f"c{i}" for i in range(1500)) + "\n"
                                   + ",".join(str(i % 7) for i in range(1500)) + "\n"),
        "categories_2000.csv": u("code,label\n" + "".join(f"k{i % 2000:04d},{'ab'[i % 3 == 0]}\n"
                                                         for i in range(4000))),
    }
    return out


def main() -> None:
    for name, data in files().items():
        (HERE / name).write_bytes(data)


if __name__ == "__main__":
    main()
