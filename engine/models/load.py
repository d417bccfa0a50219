"""``load_model``: read a model file from a path, bytes or a file-like object and hand it to the reader
whose sniffer recognises the content (never the file name).

:data:`READERS` is tried in order; each entry is a :class:`Reader` with a ``sniff(data) -> bool`` that
looks at the bytes and a ``read(data) -> ImportedModel``. Refusals (pickles, compressed files) come first
and raise instead of reading. A new format is one module with those two functions and one line here.
Whatever a reader fails on unexpectedly (a truncated or damaged file) becomes one DataError sentence.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import Callable, NamedTuple

from engine.errors import DataError
from engine.models.refuse import is_compressed, is_pickle, refuse_compressed, refuse_pickle
from engine.models.lightgbm_text import read as read_lightgbm, sniff as is_lightgbm
from engine.models.model import ImportedModel
from engine.models.formats import is_onnx, is_skops, read_onnx, read_skops
from engine.models.xgboost_json import is_json, is_ubjson, read_json, read_ubjson

#: The largest model file the explorer reads.
MAX_BYTES = 256 * 1024 * 1024


class Reader(NamedTuple):
    """A format: its name (shown in sentences), a sniffer over the file's bytes, and its reader.
    ``accepted`` is False for the refusals, which are not listed as formats one can open."""

    name: str
    sniff: Callable[[bytes], bool]
    read: Callable[[bytes], ImportedModel]
    accepted: bool = True


READERS: list[Reader] = [
    Reader("pickle", is_pickle, refuse_pickle, accepted=False),
    Reader("compressed file", is_compressed, refuse_compressed, accepted=False),
    Reader("XGBoost JSON", is_json, read_json),
    Reader("XGBoost UBJSON", is_ubjson, read_ubjson),
    Reader("LightGBM text", is_lightgbm, read_lightgbm),
    Reader("ONNX", is_onnx, read_onnx),
    Reader("scikit-learn skops", is_skops, read_skops),
]


def read_source(source) -> bytes:
    """The bytes of ``source``: a path (str or Path), bytes-like, or an object with ``read()``."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    elif isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.is_file():
            raise DataError(f"There is no model file at {str(path)[:200]!r}.")
        if path.stat().st_size > MAX_BYTES:
            raise DataError(f"The model file is larger than {MAX_BYTES // 2**20} MB, the most the explorer opens.")
        data = path.read_bytes()
    elif hasattr(source, "read"):
        data = source.read(MAX_BYTES + 1)
        if isinstance(data, str):
            data = data.encode("utf-8")
        if not isinstance(data, (bytes, bytearray)):
            raise DataError("The model file could not be read: reading it gave no bytes.")
        data = bytes(data)
    else:
        raise DataError("A model is opened from a file path, the file's bytes, or an open file.")
    if len(data) > MAX_BYTES:
        raise DataError(f"The model file is larger than {MAX_BYTES // 2**20} MB, the most the explorer opens.")
    if not data or data.isspace():                 # no copy of the file (strip() made one)
        raise DataError("The model file is empty.")
    return data


def load_model(source) -> ImportedModel:
    """The model in ``source`` (path, bytes or file-like), its format recognised from the content."""
    data = read_source(source)
    for reader in READERS:
        if reader.sniff(data):
            try:
                return reader.read(data)
            except DataError:
                raise
            except (KeyError, IndexError, TypeError, ValueError, AttributeError, ArithmeticError, RecursionError,
                    UnicodeDecodeError, struct.error, MemoryError):
                raise DataError(f"The {reader.name} model file is damaged or cut short: it could not be read "
                                f"as a whole.") from None
    names = ", ".join(r.name for r in READERS if r.accepted)
    raise DataError(f"This file is not a model format the explorer recognises; it opens {names} files.")
