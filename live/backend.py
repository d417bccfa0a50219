"""Which room store this process uses: Redis at ``DTX_REDIS_URL`` when it is set, else in-process.

The store is shared by every session of the process on purpose: it is the class, not one user's
state (per-user state stays in ``st.session_state``).
"""

from __future__ import annotations

import os
import threading

from live.store import MemoryStore, RoomStore

ENV_REDIS_URL = "DTX_REDIS_URL"

_STORE: RoomStore | None = None
_STORE_LOCK = threading.Lock()


def get_store() -> RoomStore:
    """The process's store: Redis at ``DTX_REDIS_URL`` when it is set, else in this process."""
    global _STORE
    with _STORE_LOCK:
        if _STORE is None:
            url = os.environ.get(ENV_REDIS_URL, "").strip()
            if url:
                from live.redis_store import RedisStore  # only then is the redis client needed

                _STORE = RedisStore(url)
            else:
                _STORE = MemoryStore()
        return _STORE
