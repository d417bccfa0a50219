"""Giving memory back when tabs close: closed sessions, their uploads, the upload cache, the allocator.

What held a server's memory after every tab had closed (measured with ``benchmarks/bench_memory.py``):

- Streamlit keeps a closed tab's session (its ``session_state``: data set, tree, ensembles) for
  ``server.disconnectedSessionTTL`` seconds so that a reconnecting tab finds it, and after that only
  forgets it in its session storage, lazily and *without shutting it down*: the uploaded file's bytes
  stay in the upload manager for good (keyed by the session id), and the session object with its
  state stays until the storage happens to be written to again;
- the shared upload cache (:func:`ui.cache.load_uploaded`) kept up to four parsed data sets whether
  or not a session still used them, and was emptied only when no session was left: with one tab open,
  two closed tabs' 161 MB uploads stayed (348 MB against 172 MB idle). Each upload is now tied to
  the sessions that hold it (:class:`ui.cache.UploadRegistry`) and freed when the last one ends;
- Streamlit's message loop keeps the last session it flushed in a loop variable until another
  session arrives, so even a shut-down session's object stays, with its ``session_state``, its
  stored fragments (whose closures hold the tree) and its widgets' metadata (whose format functions
  hold the data set): :func:`release` empties them;
- the level-wise grower's sort cache (``engine.grow.roworders``) kept a matrix's order (up to 80 MB)
  after the matrix was freed (fixed there with a weak-reference callback);
- glibc's ``malloc`` keeps memory freed by big numpy/pandas buffers in its arenas instead of giving
  it back to the system.

600,000 uploaded rows (89 MB) in one tab, a Step, tab closed (``bench_memory.py --ttl 8``): 536 MB
-> 226 MB (idle 166 MB) ten seconds later; before, 889 MB stayed 889 MB for 200 s with two tabs.

:func:`start_janitor` (called from ``app.py``; once per server process) runs :meth:`Janitor.sweep` every
:func:`sweep_seconds` (on Streamlit's event loop, from a daemon thread): it shuts down sessions whose tab has been closed for about
the TTL (as Streamlit's own close does: uploaded files, media and session state go), drops uploaded
files of session ids Streamlit no longer knows, drops the parsed uploads that only ended sessions held
(whoever else is connected), and
asks the allocator to return free memory (``malloc_trim``). Nothing here touches a live session.
Streamlit's session manager is reached through its runtime object, which has no public API for
this; every access is guarded, so an upgrade that changes it turns the janitor off (logged), never
breaks the app.
"""

from __future__ import annotations

import concurrent.futures
import ctypes
import ctypes.util
import functools
import gc
import logging
import threading
import time
from dataclasses import dataclass, field

import streamlit as st

LOG = logging.getLogger("dtexplorer")


def sweep_seconds(ttl: float) -> float:
    """How often to sweep for a session TTL of ``ttl`` seconds: a quarter of it, 1 to 30 s."""
    return float(min(30.0, max(1.0, ttl / 4)))


@dataclass
class Janitor:
    """The sweeping state of one server: when each stored (closed-tab) session was first seen."""

    runtime: object
    ttl: float
    closed_since: dict[str, float] = field(default_factory=dict)
    sweeps: int = 0

    def sweep(self, now: float | None = None) -> dict[str, int]:
        """One pass (see the module docstring); returns what it did, for logs and tests."""
        now = time.monotonic() if now is None else now
        mgr = self.runtime._session_mgr
        active = {info.session.id for info in mgr.list_active_sessions()}
        sessions = {info.session.id: info.session for info in mgr.list_sessions()}
        stored = set(sessions) - active
        for sid in list(self.closed_since):
            if sid not in stored:
                del self.closed_since[sid]
        # close a little before Streamlit would silently forget the session (one sweep early)
        due = [sid for sid in stored if now - self.closed_since.setdefault(sid, now)
               >= self.ttl - sweep_seconds(self.ttl)]
        for sid in due:
            mgr.close_session(sid)
            self.closed_since.pop(sid, None)
            release(sessions[sid])
        known = {info.session.id for info in mgr.list_sessions()}
        files = getattr(self.runtime.uploaded_file_mgr, "file_storage", {})
        orphans = [sid for sid in list(files) if sid not in known]
        for sid in orphans:
            self.runtime.uploaded_file_mgr.remove_session_files(sid)
        storage = getattr(getattr(mgr, "_session_storage", None), "_cache", None)
        if hasattr(storage, "expire"):
            storage.expire()  # drop forgotten sessions' objects (and their session_state) now
        from ui.cache import release_uploads

        freed = release_uploads(known)  # data sets only ended sessions held, whoever else is connected
        self.sweeps += 1
        return {"closed": len(due), "orphan_uploads": len(orphans), "datasets_freed": freed}


def release(session) -> None:
    """Empty a shut-down session's state and stored fragments (their closures hold the tree).

    Streamlit's message loop keeps the last session it flushed in a loop variable until the next
    session arrives, so a closed session's object can outlive it with everything in it; nothing reads
    a shut-down session's state again.
    """
    for name in ("session_state", "_fragment_storage"):
        part = getattr(session, name, None)
        if hasattr(part, "clear"):
            part.clear()
    # SessionState.clear() keeps the widgets' metadata, whose format functions may hold the data set
    widgets = getattr(getattr(session, "session_state", None), "_new_widget_state", None)
    metadata = getattr(widgets, "widget_metadata", None)
    if isinstance(metadata, dict):
        metadata.clear()


@functools.lru_cache(maxsize=1)
def _libc():
    """The C library when it is glibc (has ``malloc_trim``), else None."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:
        return None
    return libc if libc is not None and hasattr(libc, "malloc_trim") else None


def trim_allocator() -> bool:
    """Ask glibc's malloc to return free memory to the system; False where there is no glibc."""
    libc = _libc()
    if libc is None:
        return False
    libc.malloc_trim(0)
    return True


def _run(janitor: Janitor, period: float, stop: threading.Event, loop) -> None:
    """Every ``period`` seconds: the sweep on Streamlit's event loop (its session manager and session
    storage are not thread-safe; Streamlit itself closes sessions from other threads this way), then
    the garbage collection and the allocator trim here, off the loop."""
    while not stop.wait(period):
        done: concurrent.futures.Future = concurrent.futures.Future()

        def on_loop() -> None:
            try:
                done.set_result(janitor.sweep())
            except Exception as exc:  # noqa: BLE001 - handed to the janitor thread below
                done.set_exception(exc)

        try:
            loop.call_soon_threadsafe(on_loop)
            did = done.result(timeout=120)
        except Exception:  # noqa: BLE001 - a Streamlit upgrade changed its internals: stop sweeping
            LOG.exception("Memory janitor stopped: Streamlit's session manager is not what it expected")
            return
        if any(did.values()):
            gc.collect()
        trim_allocator()


@st.cache_resource(show_spinner=False)
def start_janitor() -> threading.Event | None:
    """Start the sweeping thread once per server process (``None`` without a Streamlit server, as in
    AppTest). Returns the event that stops it."""
    from streamlit.runtime import Runtime

    if not Runtime.exists():
        return None
    try:
        runtime = Runtime.instance()
        runtime._session_mgr.list_sessions  # noqa: B018 - fail here, not in the thread
        loop = runtime._get_async_objs().eventloop
        ttl = float(st.get_option("server.disconnectedSessionTTL"))
    except Exception:  # noqa: BLE001
        LOG.exception("Memory janitor not started: Streamlit's session manager is not what it expected")
        return None
    stop = threading.Event()
    threading.Thread(target=_run, args=(Janitor(runtime, ttl), sweep_seconds(ttl), stop, loop),
                     name="dtx-memory-janitor", daemon=True).start()
    return stop
