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
    monkeypatch.setattr(cache, "clear_upload_cache", lambda: cleared.append(1) or 1)
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
    assert cleared == []  # a session is left: the cache stays


def test_a_reconnected_tab_is_left_alone(world):
    janitor, mgr, uploads, _ = world
    mgr.stored = {"b"}
    janitor.sweep(now=0)
    mgr.stored, mgr.active = set(), {"b"}  # the tab came back
    janitor.sweep(now=50)
    mgr.active, mgr.stored = set(), {"b"}  # and closed again: its clock starts again
    assert janitor.sweep(now=100)["closed"] == 0
    assert janitor.sweep(now=100 + 120)["closed"] == 1


def test_uploads_of_forgotten_sessions_go_and_the_cache_empties_when_nobody_is_left(world):
    janitor, mgr, uploads, cleared = world
    uploads.file_storage = {"gone": {"f": b"x" * 10}}  # forgotten by Streamlit without a shutdown
    did = janitor.sweep(now=0)
    assert did == {"closed": 0, "orphan_uploads": 1, "cache_cleared": 1}
    assert uploads.file_storage == {} and cleared == [1]


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
