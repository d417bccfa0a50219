"""engine.grow.allocator.roomy_heap: thresholds raised while growing, restored by the last one out."""

import threading

from engine.grow import allocator


def test_nested_and_concurrent_uses_restore_once(monkeypatch):
    calls = []
    monkeypatch.setattr(allocator, "_mallopt", lambda option, value: calls.append((option, value)) or 1)
    monkeypatch.setattr(allocator, "_active", 0)
    with allocator.roomy_heap():
        with allocator.roomy_heap():
            pass
        assert allocator._active == 1
    growing = [(allocator._M_MMAP_THRESHOLD, allocator._GROWING[0]),
               (allocator._M_TRIM_THRESHOLD, allocator._GROWING[1])]
    after = [(allocator._M_MMAP_THRESHOLD, allocator._AFTER[0]), (allocator._M_TRIM_THRESHOLD, allocator._AFTER[1])]
    assert calls == growing + after and allocator._active == 0

    calls.clear()
    inside = threading.Barrier(3)

    def grow():
        with allocator.roomy_heap():
            inside.wait()
            inside.wait()

    threads = [threading.Thread(target=grow) for _ in range(2)]
    for t in threads:
        t.start()
    inside.wait()                                  # both threads inside: raised once, not restored
    assert calls == growing
    inside.wait()
    for t in threads:
        t.join()
    assert calls == growing + after and allocator._active == 0


def test_an_error_inside_still_restores(monkeypatch):
    calls = []
    monkeypatch.setattr(allocator, "_mallopt", lambda option, value: calls.append(value) or 1)
    monkeypatch.setattr(allocator, "_active", 0)
    try:
        with allocator.roomy_heap():
            raise KeyError("boom")
    except KeyError:
        pass
    assert calls[-2:] == list(allocator._AFTER) and allocator._active == 0


def test_without_glibc_it_does_nothing(monkeypatch):
    monkeypatch.setattr(allocator, "_mallopt", None)
    with allocator.roomy_heap():
        assert allocator._active == 0


def test_real_glibc_accepts_the_settings():
    if allocator._mallopt is None:
        return
    assert allocator._mallopt(allocator._M_MMAP_THRESHOLD, allocator._AFTER[0]) == 1
    assert allocator._mallopt(allocator._M_TRIM_THRESHOLD, allocator._AFTER[1]) == 1
