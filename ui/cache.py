"""Cached loaders shared by all sessions.

Uploads are cached on the SHA-256 of their bytes (computed once here), never on a large DataFrame:
Streamlit would otherwise hash the whole argument on every call. Uploads use ``st.cache_resource``
(one shared object, no pickled copies: a 1M-row file would otherwise be held several times) and
samples ``st.cache_data``; :class:`engine.data.Dataset` is immutable, so nothing cached can be
changed by one user under another's feet. Errors are not cached: a bad file raises ``DataError`` every time.
"""

from __future__ import annotations

import hashlib
import io

import streamlit as st

from engine.data.dataset import SAMPLES, Dataset, load_csv, load_sample


def bytes_digest(data: bytes) -> str:
    """Hex SHA-256 of ``data``: the cache key of an uploaded file."""
    return hashlib.sha256(data).hexdigest()


@st.cache_resource(max_entries=4, show_spinner=False)
def _load_uploaded(digest: str, name: str, _data: bytes) -> Dataset:
    # cache_resource, not cache_data: cache_data would pickle the Dataset into the cache and unpickle a
    # copy for every caller, holding two or three copies of a 1M-row table; a Dataset is immutable
    # (``frame`` hands out copies, ``X``/``y`` are read-only), so sessions can share the one object.
    # ``_data`` is not hashed (leading underscore); ``digest`` stands for it in the cache key.
    source = io.BytesIO(_data)
    source.name = name  # like Streamlit's UploadedFile: lets the engine name the data set
    # a .gz may unpack to no more than an uncompressed upload may hold (refused while unpacking)
    return load_csv(source, max_unpacked_bytes=upload_limit_bytes())


def upload_limit_bytes() -> int:
    """The upload limit (``server.maxUploadSize``, in MB) in bytes."""
    return int(st.get_option("server.maxUploadSize")) << 20


def clear_upload_cache() -> int:
    """Forget every cached upload (``ui.memory`` calls it when no session is left); returns 1."""
    _load_uploaded.clear()
    return 1


def load_uploaded(data: bytes, name: str) -> Dataset:
    """Load an uploaded file's bytes as a Dataset (cached by content and file name).

    Raises ``engine.errors.DataError`` with the engine's sentence when the file cannot be used.
    """
    return _load_uploaded(bytes_digest(data), name, data)


@st.cache_data(max_entries=32, show_spinner="Loading the sample...")
def load_sample_cached(name: str) -> Dataset:
    """One of the bundled samples (``engine.data.SAMPLES``), loaded once per server."""
    return load_sample(name)


def sample_names() -> list[str]:
    """Names of the bundled samples, in the engine's order."""
    return list(SAMPLES)
