"""Big temporary arrays served from the heap while a tree grows level by level.

The level-wise growers make and drop dozens of arrays of several megabytes per level. glibc serves
blocks above its mmap threshold (at most 32 MB, adjusted on the fly) with fresh pages from the kernel
and gives them back on free, so every such array pays its page faults again: on the development machine
~2 ms per MB, a fifth of a full-depth fit. :func:`roomy_heap` raises the thresholds for the duration of
a growth, so freed blocks are reused, and sets them back to glibc's dynamic ceilings afterwards (freed
memory above them goes back to the system at the next free). Elsewhere than glibc it does nothing.
"""

from __future__ import annotations

import ctypes
import threading
from contextlib import contextmanager

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_GROWING = (1 << 30, 1 << 30)           # mmap threshold, trim threshold while growing
_AFTER = (32 << 20, 64 << 20)           # glibc's own ceilings for the dynamic thresholds


def _load_mallopt():
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):
        return None
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return mallopt


_mallopt = _load_mallopt()
_lock = threading.Lock()
_active = 0


def _set(mmap_threshold: int, trim_threshold: int) -> None:
    _mallopt(_M_MMAP_THRESHOLD, mmap_threshold)
    _mallopt(_M_TRIM_THRESHOLD, trim_threshold)


@contextmanager
def roomy_heap():
    """Reuse freed big blocks instead of returning them to the kernel, for the block's duration
    (nested and concurrent uses are counted: the last one out restores the thresholds)."""
    global _active
    if _mallopt is None:
        yield
        return
    with _lock:
        _active += 1
        if _active == 1:
            _set(*_GROWING)
    try:
        yield
    finally:
        with _lock:
            _active -= 1
            if _active == 0:
                _set(*_AFTER)


__all__ = ["roomy_heap"]
