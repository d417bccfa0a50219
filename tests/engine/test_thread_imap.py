"""engine.threads.thread_imap: items computed on the shared pool and this thread, given out in order, with a
bounded number computed ahead of the caller; a busy pool, an error or an early close never hang it."""

from __future__ import annotations

import threading
import time

import pytest
from hypothesis import given, settings, strategies as st

from engine import threads as engine_threads
from engine.threads import thread_imap, thread_map


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 40), st.integers(1, 4), st.integers(1, 6), st.integers(0, 10_000))
def test_results_come_in_order_with_at_most_ahead_waiting(n, threads, ahead, seed):
    lock = threading.Lock()
    taken = [0]
    started = []

    def fn(i):
        with lock:
            # an item starts only while fewer than ``ahead`` results wait for the caller
            started.append((i, taken[0]))
        time.sleep(((i * 7919 + seed) % 5) * 1e-4)
        return i * i

    out = []
    for value in thread_imap(fn, range(n), threads, ahead):
        out.append(value)
        with lock:
            taken[0] += 1
    assert out == [i * i for i in range(n)]
    assert sorted(i for i, _ in started) == list(range(n))
    # the caller's count lags the iterator's by the value being handed over: one more may have started
    assert all(i < seen + 1 + ahead for i, seen in started)


def test_an_error_is_raised_once_the_started_items_ended():
    done = []

    def fn(i):
        if i == 3:
            raise ValueError("item 3")
        time.sleep(0.002)
        done.append(i)
        return i

    with pytest.raises(ValueError, match="item 3"):
        list(thread_imap(fn, range(50), 2, 4))
    assert len(done) < 50  # the items after the error are not all computed
    assert thread_map(lambda x: x + 1, range(10), 2) == list(range(1, 11))  # the pool is free again


def test_closing_early_stops_the_helpers():
    active = []

    def fn(i):
        active.append(i)
        time.sleep(0.005)
        return i

    it = thread_imap(fn, range(100), 2, 3)
    assert [next(it), next(it)] == [0, 1]
    it.close()
    count = len(active)
    time.sleep(0.05)
    assert len(active) == count and count <= 2 + 3  # nothing started after the close
    assert thread_map(lambda x: x, range(5), 2) == list(range(5))


def test_a_busy_pool_never_makes_the_caller_wait(monkeypatch):
    """Every pool thread is held by another job: the caller computes every item itself."""
    release = threading.Event()
    pool = engine_threads._thread_pool()
    blockers = [pool.submit(release.wait) for _ in range(pool._max_workers)]
    try:
        who = set()
        out = list(thread_imap(lambda i: who.add(threading.get_ident()) or i, range(20), 4, 2))
        assert out == list(range(20)) and who == {threading.get_ident()}
    finally:
        release.set()
        for b in blockers:
            b.result()
