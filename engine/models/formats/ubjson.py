"""A Universal Binary JSON (UBJSON, draft 12) decoder for XGBoost's ``.ubj`` model files.

Values open with a one-byte marker: ``Z`` null, ``N`` no-op, ``T``/``F`` booleans, ``i`` int8, ``U`` uint8,
``I`` int16, ``l`` int32, ``L`` int64, ``d`` float32, ``D`` float64, ``H`` a number written as text,
``C`` a character, ``S`` a string (an integer length, then UTF-8 bytes), ``[`` an array and ``{`` an
object (keys are strings without the ``S`` marker). Numbers are big-endian. A container may give its
element type (``$``) and count (``#``) up front; otherwise it ends with ``]`` or ``}``. Typed numeric
arrays (XGBoost writes its per-node arrays so) are returned as numpy arrays, read in one step.

Everything is checked against the bytes that are there: a count larger than what is left, an unknown
marker or nesting deeper than 64 levels raises DataError (a truncated or damaged file). The decoded
document is bounded too: more than :data:`~engine.models.limits.MAX_CONTAINERS` arrays and objects, or
more than :data:`MAX_ITEMS` values outside typed number arrays (a ``[$Z#`` array of nulls costs no
bytes per value), raises DataError as soon as the count is passed, long before memory is taken.
"""

from __future__ import annotations

import numpy as np

from engine.errors import DataError
from engine.models.limits import MAX_CONTAINERS

_NUMBERS = {b"i": ">i1", b"U": ">u1", b"I": ">i2", b"l": ">i4", b"L": ">i8", b"d": ">f4", b"D": ">f8"}
MAX_NESTING = 64
MAX_ITEMS = 4 * MAX_CONTAINERS     # XGBoost writes its per-node arrays typed: the other values are few


def _damaged(what: str) -> DataError:
    return DataError(f"The UBJSON model file is damaged or cut short ({what}).")


class _Decoder:
    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0
        self.containers = self.items = 0

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise _damaged("it ends in the middle of a value")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def marker(self) -> bytes:
        data, pos = self.data, self.pos
        m = data[pos:pos + 1]
        while m == b"N":                              # no-ops between values
            pos += 1
            m = data[pos:pos + 1]
        if not m:
            raise _damaged("it ends in the middle of a value")
        self.pos = pos + 1
        return m

    def number(self, m: bytes):
        dtype = np.dtype(_NUMBERS[m])
        value = np.frombuffer(self.take(dtype.itemsize), dtype=dtype)[0]
        return float(value) if dtype.kind == "f" else int(value)

    def length(self) -> int:
        m = self.marker()
        if m not in _NUMBERS or _NUMBERS[m][1] not in "iu":
            raise _damaged("a length is not an integer")
        n = self.number(m)
        if n < 0 or n > len(self.data) - self.pos + (1 << 20):
            raise _damaged("a length is larger than the file")
        return n

    def string(self) -> str:
        return self.take(self.length()).decode("utf-8")

    def value(self, m: bytes, depth: int):
        if m in _NUMBERS:
            return self.number(m)
        if m == b"S":
            return self.string()
        if m == b"H":
            return float(self.string())
        if m == b"C":
            return self.take(1).decode("latin-1")
        if m in (b"T", b"F"):
            return m == b"T"
        if m == b"Z":
            return None
        if m in (b"[", b"{"):
            if depth >= MAX_NESTING:
                raise _damaged(f"containers nested deeper than {MAX_NESTING} levels")
            return self.container(m == b"{", depth + 1)
        raise _damaged(f"unknown marker {m!r} at byte {self.pos - 1}")

    def _too_big(self) -> DataError:
        return DataError(f"The UBJSON model file holds more than {MAX_CONTAINERS:,} lists and objects or "
                         f"{MAX_ITEMS:,} values, more than any model the explorer opens has; it was not read.")

    def container(self, is_object: bool, depth: int):
        self.containers += 1
        if self.containers > MAX_CONTAINERS:
            raise self._too_big()
        typ, count = None, None
        m = self.marker()
        if m == b"$":
            typ = self.take(1)
            m = self.marker()
            if m != b"#":
                raise _damaged("a typed container gives no count")
        if m == b"#":
            count = self.length()
        else:
            self.pos -= 1
        if not is_object and typ in _NUMBERS and count is not None:
            dtype = np.dtype(_NUMBERS[typ])
            return np.frombuffer(self.take(count * dtype.itemsize), dtype=dtype).astype(dtype.newbyteorder("="))
        out = {} if is_object else []
        close = b"}" if is_object else b"]"
        i = 0
        while count is None or i < count:
            if count is None:
                m = self.marker()
                if m == close:
                    break
                self.pos -= 1
            self.items += 1
            if self.items > MAX_ITEMS:
                raise self._too_big()
            key = self.string() if is_object else None
            item = self.value(typ if typ is not None else self.marker(), depth)
            if is_object:
                out[key] = item
            else:
                out.append(item)
            i += 1
        return out


def loads(data: bytes):
    """The value (dict, list, number, ...) the UBJSON bytes encode."""
    dec = _Decoder(data)
    value = dec.value(dec.marker(), 0)
    if dec.data[dec.pos:].strip(b"\x00 \n\r\t"):
        raise _damaged("there are bytes after the end of the model")
    return value
