"""The most a model file may declare, checked before a reader builds anything of that size.

A model file's counts (input columns, classes, categories, nodes, containers, array lengths) are claims,
and a few bytes can claim billions. Every reader holds a file to the maxima below *before* it parses or
allocates by a count, so a hostile file is refused in milliseconds with one sentence, never after the
process has taken gigabytes:

- :data:`MAX_FEATURES` input columns, :data:`MAX_CLASSES` classes, :data:`MAX_CATEGORIES` categories per
  feature and :data:`MAX_CATEGORY_LABELS` over all features; :data:`~engine.models.checks.MAX_NODES` nodes;
- JSON and UBJSON documents: at most :data:`MAX_CONTAINERS` arrays and objects (counted on the bytes before
  parsing: ``[`` and ``{`` inside strings count too, so the count only errs towards refusing) and at most
  :data:`MAX_VALUES` separate values (the commas of JSON; UBJSON's values outside typed number arrays), so
  a 190 MB file of empty lists never reaches the parser;
- a zip (skops) unpacks to at most :data:`MAX_UNPACKED` bytes in all, :data:`MAX_MEMBERS` members
  (:mod:`engine.models.formats.zipped`).

:func:`count` is the one check: it turns a declared number into an ``int`` or raises DataError naming it.
"""

from __future__ import annotations

from engine.errors import DataError
from engine.models.checks import MAX_NODES

MAX_FEATURES = 10_000
MAX_CLASSES = 10_000
MAX_CATEGORIES = 100_000
MAX_CATEGORY_LABELS = 1_000_000
MAX_CONTAINERS = 250_000          # an XGBoost JSON tree is 16 of them: ~15,000 trees
MAX_VALUES = 16 * MAX_NODES
MAX_UNPACKED = 256 * 2**20
MAX_MEMBERS = 100_000
_PIECE = 4 * 2**20

__all__ = ["MAX_FEATURES", "MAX_CLASSES", "MAX_CATEGORIES", "MAX_CATEGORY_LABELS", "MAX_CONTAINERS", "MAX_VALUES",
           "MAX_UNPACKED", "MAX_MEMBERS", "MAX_NODES", "count", "check_json_size"]


def count(value, maximum: int, what: str, *, minimum: int = 0) -> int:
    """``value`` (a number or its text) as an int in ``minimum..maximum``, or one DataError sentence."""
    try:
        n = int(str(value).strip()[:40]) if not isinstance(value, int) else value
    except ValueError:
        raise DataError(f"The model file is damaged: its number of {what} ({str(value)[:40]!r}) is not a "
                        "whole number.") from None
    if n > maximum:
        raise DataError(f"The model file declares {n:,} {what}; the explorer opens models of at most "
                        f"{maximum:,} {what}.")
    if n < minimum:
        raise DataError(f"The model file is damaged: it declares {n:,} {what}.")
    return n


def check_json_size(text: bytes | str, what: str = "model file") -> None:
    """Refuse a JSON document with more arrays/objects or values than any model of the stated maxima has,
    counted on the raw text in 4 MB pieces (stopping at the first piece over a limit; nothing parsed)."""
    data = text.encode("utf-8", "replace") if isinstance(text, str) else text
    containers = values = 0
    for start in range(0, len(data), _PIECE):
        piece = data[start:start + _PIECE]
        containers += piece.count(b"[") + piece.count(b"{")
        values += piece.count(b",")
        if containers > MAX_CONTAINERS:
            raise DataError(f"The {what} holds more than {MAX_CONTAINERS:,} lists and objects, more than any model "
                            "the explorer opens has; it was not read.")
        if values > MAX_VALUES:
            raise DataError(f"The {what} holds more than {MAX_VALUES:,} values, more than any model the explorer "
                            "opens has; it was not read.")
