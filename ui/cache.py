"""Cached loaders shared by all sessions.

Uploads are kept on the SHA-256 of their bytes (computed once here), never on a large DataFrame:
Streamlit would otherwise hash the whole argument on every call. Uploads live in one shared
:class:`UploadRegistry` (one object per file, no pickled copies: a 1M-row file would otherwise be
held several times), each tied to the sessions that use it, so a closed session's upload is freed
whoever else is connected; samples use ``st.cache_data``; :class:`engine.data.Dataset` is immutable, so nothing cached can be
changed by one user under another's feet. Errors are not cached: a bad file raises ``DataError`` every time.
"""

from __future__ import annotations

import hashlib
import io
import threading

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from engine.data.dataset import SAMPLES, Dataset, load_csv, load_sample


def bytes_digest(data: bytes) -> str:
    """Hex SHA-256 of ``data``: the cache key of an uploaded file."""
    return hashlib.sha256(data).hexdigest()


class UploadRegistry:
    """Parsed uploads, each with the sessions that use it: one server-wide object (``upload_registry``).

    A session holds one upload at a time: loading another moves it to the new entry, and an entry no
    session holds is dropped at once. :meth:`release` drops the sessions that have ended (the memory
    janitor calls it with the sessions Streamlit still knows), so a closed tab's data set goes even
    while other tabs stay open. Two sessions with the same file share one Dataset (immutable:
    ``frame`` hands out copies, ``X``/``y`` are read-only), and a session's reruns find it again.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[tuple[str, str], tuple[Dataset, set[str]]] = {}
        self._held: dict[str, tuple[str, str]] = {}  # session id -> the key of its upload

    def get(self, key: tuple[str, str], session: str, load) -> Dataset:
        """The Dataset of ``key`` (digest, name) for ``session``, made by ``load()`` the first time
        (a ``DataError`` from it is not kept: a bad file is refused every time)."""
        with self._lock:
            if key in self._entries:
                return self._hold(key, session)
        dataset = load()  # outside the lock: one session's parse never blocks the others
        with self._lock:
            self._entries.setdefault(key, (dataset, set()))
            return self._hold(key, session)

    def _hold(self, key, session: str) -> Dataset:
        old = self._held.get(session)
        if old is not None and old != key:
            self._let_go(old, session)
        dataset, sessions = self._entries[key]
        sessions.add(session)
        self._held[session] = key
        return dataset

    def _let_go(self, key, session: str) -> None:
        entry = self._entries.get(key)
        if entry is not None:
            entry[1].discard(session)
            if not entry[1]:
                del self._entries[key]

    def release(self, live) -> int:
        """Let go of every session not in ``live``; returns how many data sets were dropped."""
        live = set(live)
        with self._lock:
            before = len(self._entries)
            for session in [s for s in self._held if s not in live]:
                self._let_go(self._held.pop(session), session)
            return before - len(self._entries)

    def sessions(self) -> dict[tuple[str, str], frozenset[str]]:
        """Which sessions hold which upload (for tests and logs)."""
        with self._lock:
            return {key: frozenset(sessions) for key, (_, sessions) in self._entries.items()}


@st.cache_resource(show_spinner=False)
def upload_registry() -> UploadRegistry:
    """The server's one :class:`UploadRegistry`."""
    return UploadRegistry()


def _parse_upload(name: str, data: bytes) -> Dataset:
    source = io.BytesIO(data)
    source.name = name  # like Streamlit's UploadedFile: lets the engine name the data set
    # a .gz may unpack to no more than an uncompressed upload may hold (refused while unpacking)
    return load_csv(source, max_unpacked_bytes=upload_limit_bytes())


def upload_limit_bytes() -> int:
    """The upload limit (``server.maxUploadSize``, in MB) in bytes."""
    return int(st.get_option("server.maxUploadSize")) << 20


def release_uploads(live) -> int:
    """Drop the uploads of sessions not in ``live`` (``ui.memory`` calls it); returns how many went."""
    return upload_registry().release(live)


def session_id() -> str:
    """The id of the session running this script ("" outside a Streamlit script)."""
    ctx = get_script_run_ctx(suppress_warning=True)
    return ctx.session_id if ctx is not None else ""


def load_uploaded(data: bytes, name: str) -> Dataset:
    """Load an uploaded file's bytes as a Dataset, shared by content and file name and held for this
    session (see :class:`UploadRegistry`).

    Raises ``engine.errors.DataError`` with the engine's sentence when the file cannot be used.
    """
    return upload_registry().get((bytes_digest(data), name), session_id(), lambda: _parse_upload(name, data))


@st.cache_data(max_entries=32, show_spinner="Loading the sample...")
def load_sample_cached(name: str) -> Dataset:
    """One of the bundled samples (``engine.data.SAMPLES``), loaded once per server."""
    return load_sample(name)


def sample_names() -> list[str]:
    """Names of the bundled samples, in the engine's order."""
    return list(SAMPLES)
