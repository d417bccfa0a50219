"""The UBJSON decoder: the value kinds XGBoost writes, and the damaged files it must refuse in one sentence."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from engine.errors import DataError
from engine.models.formats.ubjson import MAX_NESTING, loads


def key(text: str) -> bytes:
    return b"i" + bytes([len(text)]) + text.encode()


def test_scalars_strings_and_containers():
    data = (b"{" + key("a") + b"i\x05" + key("b") + b"D" + struct.pack(">d", 2.5) + key("c") + b"SL"
            + struct.pack(">q", 2) + b"hi" + key("d") + b"[TFZ]" + key("e") + b"[$d#i\x02"
            + struct.pack(">ff", 1.5, -2.0) + key("f") + b"[$U#i\x03\x01\x00\x01" + b"}")
    doc = loads(data)
    assert doc["a"] == 5 and doc["b"] == 2.5 and doc["c"] == "hi" and doc["d"] == [True, False, None]
    assert isinstance(doc["e"], np.ndarray) and doc["e"].tolist() == [1.5, -2.0]
    assert doc["f"].tolist() == [1, 0, 1]


@pytest.mark.parametrize("data,match", [
    (b"{" + key("a") + b"[$d#L" + struct.pack(">q", 10**12), "ends in the middle|larger than the file"),
    (b"{" + key("a") + b"[$d#l" + struct.pack(">i", -4), "larger than the file|length"),
    (b"{" + key("a") + b"SL" + struct.pack(">q", 99) + b"ab", "larger than the file|ends in the middle"),
    (b"{" + key("a") + b"Q}", "unknown marker"),
    (b"[" * (MAX_NESTING + 2), "nested deeper"),
    (b"{" + key("a") + b"i\x01", "ends in the middle"),
    (b"{" + key("a") + b"i\x01}" + b"extra", "after the end"),
])
def test_damaged_input_is_one_sentence(data, match):
    with pytest.raises(DataError, match=match):
        loads(data)
