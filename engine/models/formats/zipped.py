"""A zip file's members unpacked under a cap, before any library reads them (the skops reader's first step).

A zip's headers declare each member's unpacked size, and a few kilobytes of deflated zeros can declare and
hold gigabytes. :func:`unpacked_copy` refuses, with one sentence and before inflating anything:

- more than :data:`~engine.models.limits.MAX_MEMBERS` members (counted on the central-directory signatures
  in the bytes, before ``zipfile`` builds its list);
- a member compressed other than stored or deflated (bz2 and lzma have no bound on one step's output);
- declared sizes above :data:`~engine.models.limits.MAX_UNPACKED` in all, or above what deflate can
  produce from the member's compressed bytes (about 1,032 to 1).

It then reads every member in 1 MB steps (``zipfile`` stops at the declared size even when the stream
holds more, and checks the CRC), and returns the members as a new zip of stored (uncompressed) members:
whatever reads that copy reads bytes that are there and inflates nothing. ``.npy`` members' headers are
checked on the way: the shape and type they declare must be exactly the bytes that follow, so
``numpy.load`` never allocates an array larger than its member.
"""

from __future__ import annotations

import io
import math
import zipfile

import numpy as np

from engine.errors import DataError
from engine.models.limits import MAX_MEMBERS, MAX_UNPACKED

__all__ = ["unpacked_copy"]

_CHUNK = 1 << 20
_DEFLATE_RATIO = 1032


def _damaged() -> DataError:
    return DataError("The skops model file is damaged or cut short: it could not be read as a whole.")


def _check_declared(infos) -> None:
    total = 0
    for info in infos:
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise DataError("The skops model file holds a member compressed in a way the explorer does not unpack "
                            "(only stored and deflated members are read).")
        most = info.compress_size * (1 if info.compress_type == zipfile.ZIP_STORED else _DEFLATE_RATIO) + 1024
        if info.file_size > most:
            raise _damaged()
        total += info.file_size
        if total > MAX_UNPACKED:
            raise DataError(f"The skops model file unpacks to more than {MAX_UNPACKED // 2**20} MB, more than any "
                            "model the explorer opens; it was not unpacked.")


def _check_npy(name: str, head: bytes, size: int) -> None:
    """The .npy header in ``head`` declares exactly the ``size`` bytes of its member."""
    f = io.BytesIO(head)
    try:
        version = np.lib.format.read_magic(f)
        read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, _, dtype = read(f, max_header_size=10_000)
    except (ValueError, OSError, EOFError, SyntaxError, TypeError):
        raise _damaged() from None
    if dtype.hasobject or dtype.itemsize == 0 or f.tell() + math.prod(shape) * dtype.itemsize != size:
        raise DataError(f"The skops model file's array {name[:60]!r} declares a shape its bytes do not hold.")


def unpacked_copy(data: bytes) -> bytes:
    """``data`` (a zip) re-written with stored members, after the checks in the module docstring."""
    if data.count(b"PK\x01\x02") > MAX_MEMBERS:
        raise DataError(f"The skops model file has more than {MAX_MEMBERS:,} members, more than any model the "
                        "explorer opens.")
    out = io.BytesIO()
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as dst:
            infos = src.infolist()
            _check_declared(infos)
            for info in infos:
                if info.is_dir():
                    continue
                with src.open(info) as f, dst.open(info.filename, "w") as g:
                    head = f.read(_CHUNK)
                    if info.filename.endswith(".npy"):
                        _check_npy(info.filename, head, info.file_size)
                    while head:
                        g.write(head)
                        head = f.read(_CHUNK)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError, NotImplementedError):
        raise _damaged() from None
    return out.getvalue()
