"""A small thread pool shared by the whole process, and :func:`thread_map` on it.

Numpy calls on big arrays (sorts, gathers, bincount, comparisons) and pandas' C CSV tokenizer release the
GIL, so independent pieces of one job run side by side on threads: the levels of one tree
(:mod:`engine.grow.parallel`), the columns of a binning, the byte ranges of a CSV file
(:mod:`engine.data.csvblocks`). The pool is started once per process with one thread fewer than the cores
(the calling thread works too) and is shared by every job and every session; a caller never waits for a
pool busy with another job: the pieces nobody has taken when the caller runs out are withdrawn and the
caller does them itself. Each piece writes its own output, so the result never depends on the number of
threads.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

#: elements of work below which a job stays on the calling thread (a hand-off costs ~50 us)
THREAD_MIN_WORK = 1 << 16

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def cpu_count() -> int:
    """Cores this process may use (the affinity mask where the platform has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def threads_for(work: int, threads: int | None = None, *, min_work: int | None = None) -> int:
    """The one rule for "threads when the work is big enough": ``threads`` (every core when None), or 1
    when ``work`` (elements to process) is below ``min_work`` (default :data:`THREAD_MIN_WORK`)."""
    threads = cpu_count() if threads is None else int(threads)
    return threads if work >= (THREAD_MIN_WORK if min_work is None else min_work) else 1


def _thread_pool() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=max(1, cpu_count() - 1), thread_name_prefix="dtx-worker")
        return _pool


def thread_map(fn: Callable, items, threads: int) -> list:
    """``[fn(x) for x in items]`` on up to ``threads`` threads, this one included (see the module docstring):
    results in order; the first exception is raised once every started piece has ended."""
    items = list(items)
    if threads <= 1 or len(items) <= 1:
        return [fn(x) for x in items]
    out = [None] * len(items)
    claim = iter(range(len(items)))
    lock = threading.Lock()
    failed: list = []

    def drain() -> None:
        while not failed:
            with lock:
                i = next(claim, None)
            if i is None:
                return
            try:
                out[i] = fn(items[i])
            except BaseException as exc:        # noqa: BLE001 - re-raised by the caller below
                failed.append(exc)
                return

    pool = _thread_pool()
    helpers = [pool.submit(drain) for _ in range(min(threads, len(items)) - 1)]
    drain()
    for h in helpers:
        if not h.cancel():                      # started: wait for the piece it holds
            h.result()
    if failed:
        raise failed[0]
    return out
