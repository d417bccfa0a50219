"""Who is asking, and how much one client may ask: the live class's limits against floods and guessing.

A :class:`Client` is what the server knows of a browser: its network ``address`` and a ``browser`` id
(a secret of that browser's cookie jar: Streamlit's own XSRF cookie, the same in every tab of the
browser). Both are kept only as short SHA-256 digests. Limits count per key (:meth:`Client.keys`) in
the room store, so every replica behind a proxy shares the counts (Redis) and the in-process store
counts the same way:

- starting classes: :data:`STARTS_PER_BROWSER` per browser and :data:`STARTS_PER_ADDRESS` per address
  within :data:`START_WINDOW` seconds (one browser that starts classes in new tabs is stopped at 3,
  far from the server's 50);
- holding classes: one address holds at most :func:`rooms_per_address` of the server's live places at
  once (a tenth: 5 of 50), so a few addresses can never fill the server for everyone else (before, 5
  addresses with 10 starts each filled its 50 places for an hour); a class nobody joined ends
  :data:`live.rooms.EMPTY_IDLE_SECONDS` after its teacher's page was last open;
- joining: :data:`NICKNAMES_PER_BROWSER` nicknames per browser and room (a student, and a spare for a
  second device or a typo), and :data:`JOINS_PER_ADDRESS` joins per address within
  :data:`JOIN_WINDOW` (a lecture hall of 300 behind one campus address still joins, with rejoins to
  spare; at 80 the 81st student of a hall was refused);
- wrong class codes: after the free tries (:data:`FREE_WRONG_CODES`, per key), each wrong code makes
  the client wait twice as long as the last (1 s, 2 s, 4 s, ... up to :data:`MAX_WRONG_CODE_WAIT`) before
  the next code is even looked at; the count forgets after :data:`WRONG_CODE_WINDOW`.

An unknown address or browser (``None``: a test, a local run) has no key of that kind and no limit on
it; the other key still counts.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

START_WINDOW = 3600
STARTS_PER_BROWSER = 3
STARTS_PER_ADDRESS = 10
JOIN_WINDOW = 600
JOINS_PER_ADDRESS = 400  # >= live.rooms.MAX_STUDENTS (tests/live/test_store_contract.py)
NICKNAMES_PER_BROWSER = 2
WRONG_CODE_WINDOW = 900
FREE_WRONG_CODES = {"browser": 3, "address": 30}  # per key kind: a school's network shares one address
MAX_WRONG_CODE_WAIT = 60
ROOM_SHARE = 10  # one address holds at most 1/ROOM_SHARE of the server's live classes at once


def rooms_per_address(max_rooms: int) -> int:
    """Live classes one network address may hold at once on a server of ``max_rooms`` places."""
    return max(1, int(max_rooms) // ROOM_SHARE)


def wait_text(seconds: float) -> str:
    """``about 7 min`` / ``40 s``: how long until something frees up, for a refusal's sentence."""
    seconds = max(1, math.ceil(seconds))
    return f"{seconds:d} s" if seconds < 60 else f"about {math.ceil(seconds / 60):d} min"


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:24]


@dataclass(frozen=True)
class Client:
    """A browser as the server sees it (digests only); ``Client()`` is an unknown one."""

    address: str | None = None
    browser: str | None = None

    @classmethod
    def of(cls, address: str | None, browser_secret: str | None) -> "Client":
        return cls(digest(address) if address else None, digest(browser_secret) if browser_secret else None)

    def keys(self) -> list[tuple[str, str]]:
        """``(kind, key)`` for each thing known: ``("browser", "b:...")``, ``("address", "a:...")``."""
        return ([("browser", "b:" + self.browser)] if self.browser else []) + \
               ([("address", "a:" + self.address)] if self.address else [])


def wrong_code_wait(kind: str, wrong: int) -> float:
    """Seconds to wait after the ``wrong``-th wrong code of a key of this ``kind`` (0: none)."""
    over = wrong - FREE_WRONG_CODES[kind]
    return 0.0 if over <= 0 else float(min(2 ** (over - 1), MAX_WRONG_CODE_WAIT))
