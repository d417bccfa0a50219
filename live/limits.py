"""Who is asking, and how much one client may ask: the live class's limits against floods and guessing.

A :class:`Client` is what the server knows of a browser: its network ``address`` and a ``browser`` id
(a secret of that browser's cookie jar: Streamlit's own XSRF cookie, the same in every tab of the
browser). Both are kept only as short SHA-256 digests. Limits count per key (:meth:`Client.keys`) in
the room store, so every replica behind a proxy shares the counts (Redis) and the in-process store
counts the same way:

- starting classes: :data:`STARTS_PER_BROWSER` per browser and :func:`starts_per_address` per address
  (:data:`STARTS_PER_ADDRESS`, or twice a larger share) within :data:`START_WINDOW` seconds (one browser
  that starts classes in new tabs is stopped at 3, far from the server's 50);
- holding classes: one address holds at most :func:`rooms_per_address` of the server's live places at
  once (a tenth: 5 of 50; ``DTX_ROOMS_PER_ADDRESS`` sets another share), so a few addresses can never
  fill the server for everyone else (before, 5 addresses with 10 starts each filled its 50 places for an
  hour); a class nobody joined ends :data:`live.rooms.EMPTY_IDLE_SECONDS` after its teacher's page was
  last open;
- joining: :data:`NICKNAMES_PER_BROWSER` nicknames per browser and room (a student, and a spare for a
  second device or a typo), and :data:`JOINS_PER_ADDRESS` joins per address within
  :data:`JOIN_WINDOW` (a lecture hall of 300 behind one campus address still joins, with rejoins to
  spare; at 80 the 81st student of a hall was refused);
- wrong class codes: after the free tries (:data:`FREE_WRONG_CODES`, per key), each wrong code makes
  the client wait twice as long as the last (1 s, 2 s, 4 s, ... up to :data:`MAX_WRONG_CODE_WAIT`) before
  the next code is even looked at; the count forgets after :data:`WRONG_CODE_WINDOW`.

An unknown address or browser (``None``: a test) has no key of that kind and no limit on it; the other
key still counts.

The address is the socket's peer unless that peer is a proxy the operator named in
:data:`ENV_TRUSTED_PROXIES` (addresses or networks, comma-separated; deploy/run_replicas.sh sets
``127.0.0.1`` for the nginx beside the replicas): only then is the proxy's ``X-Forwarded-For`` believed.
By default no header is (uvicorn, Streamlit's server, believed ``X-Forwarded-For`` from any connection of
this machine, and the app ``X-Real-IP``: a script straight to a replica's port named a new address for
each try). :func:`trust_proxies` hands the list to the server before it starts.
"""

from __future__ import annotations

import binascii
import hashlib
import math
import os
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
ENV_TRUSTED_PROXIES = "DTX_TRUSTED_PROXIES"
LOOPBACK = "127.0.0.1"  # the address of a peer on this machine (Streamlit reports it as none)
ENV_ROOMS_PER_ADDRESS = "DTX_ROOMS_PER_ADDRESS"
ROOM_SHARE = 10  # one address holds at most 1/ROOM_SHARE of the server's live classes at once


def rooms_per_address(max_rooms: int) -> int:
    """Live classes one network address may hold at once on a server of ``max_rooms`` places: a tenth, or
    ``DTX_ROOMS_PER_ADDRESS`` when the operator sets it (a server for one school whose teachers all reach it
    from the school's one public address; at most ``max_rooms``)."""
    try:
        chosen = int(os.environ.get(ENV_ROOMS_PER_ADDRESS, "") or 0)
    except ValueError:
        chosen = 0
    return min(int(max_rooms), chosen) if chosen > 0 else max(1, int(max_rooms) // ROOM_SHARE)


def starts_per_address(max_rooms: int) -> int:
    """Classes one address may start per :data:`START_WINDOW`: :data:`STARTS_PER_ADDRESS`, or twice its share
    when the operator gave it a larger one (``DTX_ROOMS_PER_ADDRESS``: a school's teachers behind one address)."""
    return max(STARTS_PER_ADDRESS, 2 * rooms_per_address(max_rooms))


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


def browser_secret(cookie: str | None) -> str | None:
    """The browser's XSRF token inside Streamlit's cookie ``_streamlit_xsrf`` (``2|mask|masked token|time``:
    the mask changes from one page load to the next, the token does not); None when there is none."""
    value = (cookie or "").strip("\"' ")
    if not value:
        return None
    parts = value.split("|")
    if len(parts) == 4 and parts[0] == "2":
        try:
            mask, masked = binascii.a2b_hex(parts[1]), binascii.a2b_hex(parts[2])
        except (binascii.Error, ValueError):
            return None
        if not mask:
            return None
        return bytes(b ^ mask[i % len(mask)] for i, b in enumerate(masked)).hex() or None
    return value


def trust_proxies() -> str:
    """Make the server believe ``X-Forwarded-For`` only from the proxies in ``DTX_TRUSTED_PROXIES`` (none when
    unset); returns the list, comma-separated.

    Streamlit's server is uvicorn, whose ``ProxyHeadersMiddleware`` rewrites a request's peer from
    ``X-Forwarded-For`` when the peer is in ``FORWARDED_ALLOW_IPS`` (by default ``127.0.0.1,::1``: any
    connection from this machine). uvicorn reads that variable when its Config is made, before it imports
    app.py, and wraps the app in the middleware just after the import; so this runs during that import (app.py
    builds its App) and sets both the variable (for servers made later) and the middleware uvicorn's
    ``Config.load`` is about to use (the list is then ours whatever the variable was). The replica test in
    tests/browser/test_browser_hardening.py checks this against a real server.
    """
    trusted = ",".join(p.strip() for p in os.environ.get(ENV_TRUSTED_PROXIES, "").split(",") if p.strip())
    os.environ["FORWARDED_ALLOW_IPS"] = trusted
    try:
        import uvicorn.config
        from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware
    except ImportError:  # pragma: no cover - Streamlit 1.67 ships with uvicorn
        return trusted

    def named_proxies_only(app, trusted_hosts=None):  # noqa: ARG001 - uvicorn's own list is replaced
        return ProxyHeadersMiddleware(app, trusted_hosts=trusted)

    uvicorn.config.ProxyHeadersMiddleware = named_proxies_only
    return trusted
