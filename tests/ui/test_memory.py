"""The memory janitor (ui/memory.py) against a stand-in of Streamlit's session manager.

Streamlit forgets a closed tab's session after ``server.disconnectedSessionTTL`` without shutting it
down, so its uploaded file stays in the upload manager for good. The janitor closes such sessions just
before that, removes uploads of session ids nobody knows, and empties the upload cache when no session
is left. The real-server figures are in tests/browser/test_browser_memory.py.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from ui import cache, memory


class FakeManager:
    def __init__(self):
        self.active: set[str] = set()
        self.stored: set[str] = set()
        self.closed: list[str] = []
        self._session_storage = SimpleNamespace(_cache=SimpleNamespace(expire=lambda: None))

    @staticmethod
    def _infos(ids):
        return [SimpleNamespace(session=SimpleNamespace(id=i)) for i in sorted(ids)]

    def list_active_sessions(self):
        return self._infos(self.active)

    def list_sessions(self):
        return self._infos(self.active | self.stored)

    def close_session(self, sid):
        self.stored.discard(sid)
        self.closed.append(sid)


class FakeUploads:
    def __init__(self):
        self.file_storage = {}

    def remove_session_files(self, sid):
        self.file_storage.pop(sid, None)


@pytest.fixture
def world(monkeypatch):
    mgr, uploads, cleared = FakeManager(), FakeUploads(), []
    monkeypatch.setattr(cache, "release_uploads", lambda live: cleared.append(set(live)) or 0)
    runtime = SimpleNamespace(_session_mgr=mgr, uploaded_file_mgr=uploads)
    return memory.Janitor(runtime, ttl=120), mgr, uploads, cleared


def test_a_closed_tab_is_shut_down_one_sweep_before_streamlit_would_forget_it(world):
    janitor, mgr, uploads, cleared = world
    mgr.active, mgr.stored = {"a"}, {"b"}
    uploads.file_storage = {"a": {"f": 1}, "b": {"g": 2}}
    assert janitor.sweep(now=0)["closed"] == 0  # b's tab just closed: it may still reconnect
    assert janitor.sweep(now=60)["closed"] == 0
    did = janitor.sweep(now=120 - memory.sweep_seconds(120))
    assert did["closed"] == 1 and mgr.closed == ["b"]
    assert "a" in uploads.file_storage  # the open tab keeps its file
    assert cleared[-1] == {"a"}  # the registry keeps what the open tab holds, drops the rest


def test_a_reconnected_tab_is_left_alone(world):
    janitor, mgr, uploads, _ = world
    mgr.stored = {"b"}
    janitor.sweep(now=0)
    mgr.stored, mgr.active = set(), {"b"}  # the tab came back
    janitor.sweep(now=50)
    mgr.active, mgr.stored = set(), {"b"}  # and closed again: its clock starts again
    assert janitor.sweep(now=100)["closed"] == 0
    assert janitor.sweep(now=100 + 120)["closed"] == 1


def test_uploads_of_forgotten_sessions_go_and_the_registry_hears_that_nobody_is_left(world):
    janitor, mgr, uploads, cleared = world
    uploads.file_storage = {"gone": {"f": b"x" * 10}}  # forgotten by Streamlit without a shutdown
    did = janitor.sweep(now=0)
    assert did == {"closed": 0, "orphan_uploads": 1, "datasets_freed": 0}
    assert uploads.file_storage == {} and cleared == [set()]


def test_sweep_period_and_allocator():
    assert memory.sweep_seconds(120) == 30 and memory.sweep_seconds(8) == 2 and memory.sweep_seconds(1) == 1
    assert memory.trim_allocator() in (True, False)


def test_no_janitor_without_a_streamlit_server():
    memory.start_janitor.clear()
    assert memory.start_janitor() is None  # plain Python / AppTest: no runtime, no thread


def test_release_empties_a_shut_down_sessions_state_fragments_and_widget_metadata():
    from streamlit.runtime.state.session_state import SessionState

    state = SessionState()
    state["dataset"] = object()
    state._new_widget_state.widget_metadata["w"] = object()
    fragments = SimpleNamespace(cleared=[])
    fragments.clear = lambda: fragments.cleared.append(True)
    session = SimpleNamespace(session_state=state, _fragment_storage=fragments)
    memory.release(session)
    assert "dataset" not in state and not state._new_widget_state.widget_metadata
    assert fragments.cleared == [True]
    memory.release(SimpleNamespace())  # anything else: nothing to do


# ------------------------------------------------------------- parsed uploads tied to their sessions
def _loads(registry, key, session, made):
    return registry.get(key, session, lambda: made.append(key) or object())


def test_a_closed_sessions_upload_is_freed_while_another_session_stays():
    """Issue 25, 8: the shared cache kept up to 4 files until no session was left at all."""
    registry, made = cache.UploadRegistry(), []
    a1 = _loads(registry, ("d1", "a.csv"), "a", made)
    assert _loads(registry, ("d1", "a.csv"), "a", made) is a1  # a session's reruns share it
    b1 = _loads(registry, ("d2", "b.csv"), "b", made)
    shared = _loads(registry, ("d3", "c.csv"), "c", made)
    assert _loads(registry, ("d3", "c.csv"), "b", made) is shared  # b moves on to c's file: shared
    assert made == [("d1", "a.csv"), ("d2", "b.csv"), ("d3", "c.csv")]
    assert set(registry.sessions()) == {("d1", "a.csv"), ("d3", "c.csv")}  # nobody holds b's first file
    assert registry.release({"b", "c"}) == 1  # a's tab closed; b and c still connected
    assert registry.sessions() == {("d3", "c.csv"): frozenset({"b", "c"})}
    assert registry.release({"c"}) == 0  # b gone, c still holds the shared file
    assert registry.release(set()) == 1 and registry.sessions() == {}
    del a1, b1


def test_a_refused_file_is_not_kept_and_nothing_is_held_for_it():
    from engine.errors import DataError

    registry = cache.UploadRegistry()

    def bad():
        raise DataError("no")

    with pytest.raises(DataError):
        registry.get(("d", "x.csv"), "a", bad)
    assert registry.sessions() == {}


def test_the_janitor_frees_a_closed_tabs_upload_while_another_tab_is_open(world, monkeypatch):
    janitor, mgr, _, _ = world
    registry = cache.UploadRegistry()
    monkeypatch.setattr(cache, "release_uploads", registry.release)
    big = {s: registry.get((s, "f.csv"), s, object) for s in ("a", "b", "c")}
    mgr.active, mgr.stored = {"c"}, {"a", "b"}  # two tabs closed, one open
    janitor.sweep(now=0)
    assert set(registry.sessions()) == {("a", "f.csv"), ("b", "f.csv"), ("c", "f.csv")}  # may reconnect
    did = janitor.sweep(now=120)
    assert did["closed"] == 2 and did["datasets_freed"] == 2
    assert registry.sessions() == {("c", "f.csv"): frozenset({"c"})}
    del big
