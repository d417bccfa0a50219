"""Tests and values as text a person reads without being misled: numbers with the digits that matter,
category values quoted when they hold a comma or a quote, a set of categories by its shorter side.

- :func:`format_number`: a threshold is the midpoint of two neighbouring values of the data (16.795
  between 16.79 and 16.8), so rounding it to a few digits can land on a data value and put it on the
  wrong side ("<= 16.8" sends 16.8 right). It is written with the fewest significant digits that give
  the number back (float noise such as 853.1007099999998 aside), at most :data:`MAX_DIGITS`, never in
  exponent form between 1e-4 and 1e15.
- :func:`quote`: ``Hong Kong, China`` -> ``"Hong Kong, China"``, so ``{Hong Kong, China}`` (one value or
  two?) cannot be misread; :func:`values_text` joins quoted values with ``, ``.
- :func:`shorter_side`: a binary categorical test keeps the values in a set S on one side and the rest of
  the feature's values on the other; it reads best by the smaller of the two (``∉ {Europe}`` rather than
  ``∈ {Africa, Americas, Asia, Oceania}``). Both phrasings are exact, since a value the training data did
  not hold is a missing value (it goes down every branch), never "the rest".
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["format_number", "quote", "values_text", "shorter_side", "set_text", "plural", "MAX_DIGITS"]

MAX_DIGITS = 10  # significant digits at most: data with 9 digits has midpoints with 10
_NOISE = 1e-12  # relative difference below which two numbers are the same (float noise)
_QUOTE_IF = set(',"\'{}')


def format_number(v: float) -> str:
    """Short human form of a number that keeps its value: 72.5, 0.35, 16.795, -0.26565, 12345678.5, 1e-05."""
    v = float(v)
    if not math.isfinite(v):
        return str(v)
    if v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    if abs(v) >= 1e15 or abs(v) < 1e-4:
        return f"{v:.6g}"
    for k in range(1, MAX_DIGITS + 1):
        r = float(f"{v:.{k}g}")
        if abs(r - v) <= _NOISE * abs(v):
            break
    return np.format_float_positional(r, trim="-")


def quote(value) -> str:
    """``value`` as text, in double quotes (``\\"`` inside) if it holds a comma, a quote or a brace, is empty
    or starts or ends with a space: the forms a list of values could be misread by."""
    s = str(value)
    if s and s == s.strip() and not (_QUOTE_IF & set(s)):
        return s
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def values_text(values) -> str:
    """``a, b, "c, d"``: the values quoted where needed, joined with ``, ``."""
    return ", ".join(quote(v) for v in values)


def shorter_side(inside, categories=()) -> tuple[bool, tuple[str, ...]]:
    """``(True, inside)`` or ``(False, rest)``: the smaller of ``inside`` and the rest of ``categories``
    (kept in the order of ``categories``); ties and unknown ``categories`` keep ``inside``."""
    inside = tuple(str(v) for v in inside)
    chosen = set(inside)
    rest = tuple(str(c) for c in categories if str(c) not in chosen)
    if categories and len(rest) < len(inside):
        return False, rest
    return True, inside


def set_text(positive: bool, values, *, symbols: bool = False) -> str:
    """``in {a, b}`` / ``not in {a, b}`` (``∈`` / ``∉`` with ``symbols``), one value as ``= a`` / ``!= a``."""
    values = tuple(values)
    if len(values) == 1:
        return f"{'=' if positive else ('≠' if symbols else '!=')} {quote(values[0])}"
    if symbols:
        op = "∈" if positive else "∉"
    else:
        op = "in" if positive else "not in"
    return f"{op} {{{values_text(values)}}}"


def plural(n: int, one: str, many: str | None = None) -> str:
    """``1 leaf``, ``3 leaves``, ``1,204 values``: the count with the noun that fits it."""
    return f"{n:,} {one if n == 1 else (many or one + 's')}"
