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
from typing import Callable, Iterator

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


def thread_imap(fn: Callable, items, threads: int, ahead: int) -> Iterator:
    """``fn(x) for x in items`` on up to ``threads`` threads, this one included, given out in order as
    each is ready, with at most ``ahead`` results computed and not yet taken by the caller.

    Unlike :func:`thread_map` there is no barrier between groups of items: while the caller works on what
    it was given (copies a parsed block, say), the pool's threads compute the next items, and the caller
    computes an item itself whenever the one it waits for is not ready and the window has room. So a pool
    busy with another job never makes the caller wait: it does every item itself. The first exception is
    raised once the started items have ended; closing the iterator early stops the helpers after their
    current item.
    """
    items = list(items)
    n = len(items)
    if threads <= 1 or n <= 1:
        for x in items:
            yield fn(x)
        return
    ahead = max(1, int(ahead))
    state = {"claimed": 0, "taken": 0, "stop": False}
    results: dict[int, object] = {}
    failed: list = []
    ready = threading.Condition()

    def claim() -> int | None:                  # under ``ready``: the next item if the window has room
        i = state["claimed"]
        if state["stop"] or failed or i >= n or i >= state["taken"] + ahead:
            return None
        state["claimed"] = i + 1
        return i

    def work(i: int) -> None:
        try:
            out = fn(items[i])
        except BaseException as exc:            # noqa: BLE001 - re-raised by the caller
            with ready:
                failed.append(exc)
                ready.notify_all()
            return
        with ready:
            results[i] = out
            ready.notify_all()

    def helper() -> None:
        while True:
            with ready:
                i = claim()
                while i is None:
                    if state["stop"] or failed or state["claimed"] >= n:
                        return
                    ready.wait()
                    i = claim()
            work(i)

    pool = _thread_pool()
    helpers = [pool.submit(helper) for _ in range(min(threads, n) - 1)]
    try:
        for i in range(n):
            while True:
                with ready:
                    if failed:
                        break
                    if i in results:
                        out = results.pop(i)
                        state["taken"] = i + 1
                        ready.notify_all()
                        break
                    mine = claim()
                    if mine is None:
                        ready.wait()
                        continue
                work(mine)
            if failed:
                break
            yield out
            del out
    finally:
        with ready:
            state["stop"] = True
            ready.notify_all()
        for h in helpers:
            if not h.cancel():                  # started: wait for the item it holds
                h.result()
    if failed:
        raise failed[0]
