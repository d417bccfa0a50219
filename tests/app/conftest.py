"""Fixtures shared by the page AppTests."""

from __future__ import annotations

import pytest
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage


@pytest.fixture
def downloads(monkeypatch):
    """File name -> bytes of every file a download button handed to Streamlit's media storage; a
    deferred download (data made when the button is clicked) is called here, as a click would."""
    files: dict[str, bytes] = {}
    original = MemoryMediaFileStorage.load_and_get_id
    original_deferred = MediaFileManager.add_deferred

    def capture(self, path_or_data, mimetype, kind, filename=None):
        if isinstance(path_or_data, bytes):
            files[filename] = path_or_data
        return original(self, path_or_data, mimetype, kind, filename)

    def capture_deferred(self, data_callable, mimetype, coordinates, file_name=None, **kw):
        files[file_name] = data_callable()
        return original_deferred(self, data_callable, mimetype, coordinates, file_name=file_name, **kw)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", capture)
    monkeypatch.setattr(MediaFileManager, "add_deferred", capture_deferred)
    return files
