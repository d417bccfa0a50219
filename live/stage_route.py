"""The room's stage version over plain HTTP: how an idle student's page learns, cheaply, that the teacher moved.

``GET /api/live/stage?room=CODE&key=KEY`` answers ``text/plain``: the room's stage number (``stage["n"]``,
:mod:`live.rooms`), ``gone`` (no such room any more: ended and expired, or a store that came back empty) or
``offline`` (the store cannot be reached). Nothing else of the room: not its students, answers or tree.
The join page's script (:mod:`ui.classroom.live_watchdog`) asks every second and presses the page's
Refresh (one full Streamlit run) only when the number differs from the one its page drew; before, every
idle page ran a Streamlit fragment every 1.5 s for the same answer.

Guessing codes: ``KEY`` is an HMAC of the code under the server's cookie secret (:func:`poll_key`), which
only a page that opened the room gets (the join page's full run writes it into the page). A request with a
wrong key, a malformed code or for a code that never existed gets the same ``404`` with the same body, after
at most one HMAC and no store access: the route says nothing about which codes exist, and the join
page's wrong-code wait (:meth:`live.store.RoomStore.find`) stays the only way to try codes. Replicas share
the cookie secret (deploy/run_replicas.sh), so a key made by one is good on all; the number comes from the
shared store (Redis with ``DTX_REDIS_URL``), so any replica answers the same.

Cost and bounds: a good request reads a cached answer (:data:`CACHE_SECONDS`, per room and process) or
makes one store read (``RoomStore.stage``: a small key of its own in Redis) in a worker thread, never in the
server's event loop (a Redis that is away waits up to its timeout); at most one read per room is under way
at a time (the others wait for it), and the cache holds at most :data:`CACHE_ROOMS` rooms. So 300 students
polling one room cost the store about three reads a second per process, whatever they send.

Rate: each client has a token bucket (:class:`Buckets`): :data:`RATE` requests a second with bursts of
:data:`BURST` per browser (its address and Streamlit's XSRF cookie, as :class:`live.limits.Client`; a page
asks once a second), and :data:`ADDRESS_RATE` a second per network address whatever the cookie says (a
lecture hall behind one address polls ~300 a second; a client inventing cookies stops there; IPv6 counts
per /64, what one subscriber gets). Past its bucket a client gets ``429`` with ``Retry-After`` (whole
seconds until a token is back) and nothing is computed. Before, one process answered 3,739 requests a
second from one client. The address is the socket's peer, or what a trusted proxy says (uvicorn resolves
``X-Forwarded-For`` only for the addresses in ``DTX_TRUSTED_PROXIES``, :func:`live.limits.trust_proxies`).
An operator may set the per-browser rate as ``DTX_STAGE_RATE="<per second>,<burst>"`` (:func:`browser_rate`; the
replica tests set a slow one so that a loaded machine's slow requests still run a bucket dry).

It is an ASGI middleware (:class:`StageMiddleware`), mounted by app.py (``st.App(..., middleware=...)``, the
outermost layer): a poll is answered before Starlette's routing and Streamlit's own middleware (session
cookie, gzip), so it costs the server about what the HTTP parsing does (0.5-0.6 ms of CPU per student per
second in a load run of 100-150 students polling once a second; a loop of requests to it cost no more than
one to ``/_stcore/health``). Only the standard library here.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import ipaddress
import math
import os
import re
import threading
import time
import urllib.parse
from typing import Callable

from live import limits
from live.rooms import ALPHABET, CODE_LENGTH, LiveError, RoomNotFound

PATH = "/api/live/stage"
GONE, OFFLINE = "gone", "offline"
CACHE_SECONDS = 0.3  # a step reaches the pages at most this much later; the store sees ~3 reads/s per room
CACHE_ROOMS = 1024  # rooms kept in the cache at once (the store allows fewer live classes than this)
KEY_CHARS = 32
RATE, BURST = 4.0, 20.0  # per browser: a page asks once a second (a reload or two tabs: a few more)
ADDRESS_RATE = 600.0  # per network address: two polls a second for a full room of 300 behind one address
ENV_RATE = "DTX_STAGE_RATE"
_HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}


def browser_rate() -> tuple[float, float]:
    """``(requests a second, burst)`` of one browser's bucket: ``$DTX_STAGE_RATE`` ("0.5,10"), else
    :data:`RATE`, :data:`BURST`. A value that is not two positive numbers, or a burst below one request, keeps
    the defaults."""
    raw = os.environ.get(ENV_RATE, "").strip()
    try:
        rate, burst = (float(v) for v in raw.split(","))
    except ValueError:
        return RATE, BURST
    if not (math.isfinite(rate) and math.isfinite(burst) and rate > 0 and burst >= 1):
        return RATE, BURST
    return rate, burst


def poll_key(code: str, secret: str) -> str:
    """The key a page must send with ``code``: an HMAC-SHA256 of it under the server's ``secret``."""
    mac = hmac.new(("dtx-live-stage:" + str(secret)).encode(), str(code).encode(), hashlib.sha256)
    return mac.hexdigest()[:KEY_CHARS]


def key_matches(code: str, key: str, secret: str) -> bool:
    """Whether ``key`` is ``code``'s key (constant-time; False for anything malformed)."""
    if not isinstance(code, str) or not isinstance(key, str) or len(code) != CODE_LENGTH \
            or any(c not in ALPHABET for c in code) or len(key) != KEY_CHARS:
        return False
    return hmac.compare_digest(poll_key(code, secret), key)


def version_of(store, code: str) -> str:
    """The room's stage number as text, :data:`GONE` or :data:`OFFLINE` (one store read)."""
    try:
        return str(int(store.stage(code)["n"]))
    except RoomNotFound:
        return GONE
    except LiveError:  # StoreUnavailable, or any other sentence of the store: the class is away for now
        return OFFLINE


class StageVersions:
    """Each room's version, read from the store at most once per ``seconds`` and per room, one read at a time.

    ``get`` is called in the server's event loop; the read itself runs in a worker thread.
    """

    def __init__(self, store: Callable[[], object], *, seconds: float = CACHE_SECONDS, rooms: int = CACHE_ROOMS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.store, self.seconds, self.rooms, self.clock = store, seconds, rooms, clock
        self._known: dict[str, tuple[float, str]] = {}  # code -> (when read, version)
        self._reading: dict[str, asyncio.Future] = {}
        self._lock = threading.Lock()
        self.reads = 0

    def __repr__(self) -> str:
        return f"StageVersions(rooms={len(self._known)}, reads={self.reads}, seconds={self.seconds})"

    def _read(self, code: str) -> str:
        version = version_of(self.store(), code)
        with self._lock:
            self.reads += 1
            if len(self._known) >= self.rooms:
                self._known.clear()  # bounded: a flood of rooms costs a few reads, never memory
            self._known[code] = (self.clock(), version)
        return version

    async def get(self, code: str) -> str:
        with self._lock:
            known = self._known.get(code)
        if known is not None and self.clock() - known[0] < self.seconds:
            return known[1]
        pending = self._reading.get(code)
        if pending is None:
            pending = asyncio.ensure_future(asyncio.to_thread(self._read, code))
            self._reading[code] = pending
            pending.add_done_callback(lambda _f, code=code: self._reading.pop(code, None))
        return await asyncio.shield(pending)


class Buckets:
    """Token buckets by key: ``take(key)`` is 0 when the request may go on, else the seconds until it may.

    Each key refills ``rate`` tokens a second up to ``burst``. At most ``keys`` keys are kept: when more come,
    the full buckets (clients that stopped asking) are dropped, and if that leaves more than half all of them
    (a flood of invented keys costs no memory and one scan per ``keys / 2`` new keys, only a fresh burst to
    everyone).
    """

    def __init__(self, rate: float, burst: float, *, keys: int = 10_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self.keys, self.clock = float(rate), float(burst), int(keys), clock
        self._buckets: dict[str, list[float]] = {}  # key -> [tokens, when counted]
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Buckets(rate={self.rate:g}/s, burst={self.burst:g}, keys={len(self._buckets)})"

    def take(self, key: str) -> float:
        now = self.clock()
        with self._lock:
            bucket = self._buckets.get(key)
            if bucket is None:
                if len(self._buckets) >= self.keys:
                    self._forget(now)
                bucket = self._buckets[key] = [self.burst, now]
            bucket[0] = min(self.burst, bucket[0] + (now - bucket[1]) * self.rate)
            bucket[1] = now
            if bucket[0] >= 1.0:
                bucket[0] -= 1.0
                return 0.0
            return (1.0 - bucket[0]) / self.rate

    def _forget(self, now: float) -> None:
        self._buckets = {k: b for k, b in self._buckets.items()
                         if b[0] + (now - b[1]) * self.rate < self.burst}
        if len(self._buckets) >= self.keys // 2:
            self._buckets.clear()


def client_keys(scope) -> tuple[str, str]:
    """(address key, browser key) of a request: the peer's address (an IPv6 one by its /64) and the browser
    (Streamlit's XSRF cookie, :func:`live.limits.browser_secret`) at that address."""
    client = scope.get("client")
    address = str(client[0]) if client else ""
    if ":" in address:
        try:
            address = str(ipaddress.ip_network(f"{address}/64", strict=False))
        except ValueError:
            pass
    cookie = ""
    for name, value in scope.get("headers") or ():
        if name == b"cookie":
            cookie = _XSRF.search(value.decode("latin-1"))
            cookie = cookie.group(1) if cookie else ""
            break
    return address, f"{address} {limits.browser_secret(cookie) or ''}"


_XSRF = re.compile(r"(?:^|;)\s*_streamlit_xsrf=([^;]{1,200})")


def _query(raw: bytes) -> tuple[str, str]:
    """(room, key) of a query string; ("", "") for anything longer or stranger than a page sends."""
    if len(raw) > 200:
        return "", ""
    try:
        query = urllib.parse.parse_qs(raw.decode("ascii"), max_num_fields=4)
    except (UnicodeDecodeError, ValueError):
        return "", ""
    return (query.get("room") or [""])[0], (query.get("key") or [""])[0]


class StageMiddleware:
    """The route as the outermost ASGI layer: a request for :data:`PATH` is answered here, before Starlette's
    routing and Streamlit's own middleware (its session cookie, gzip), which cost more than the answer;
    everything else goes on to ``app``."""

    def __init__(self, app, store: Callable[[], object], secret: Callable[[], str]) -> None:
        self.app, self.secret = app, secret
        self.versions = StageVersions(store)
        self.browsers, self.addresses = Buckets(*browser_rate()), Buckets(ADDRESS_RATE, ADDRESS_RATE)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope["path"] != PATH:
            await self.app(scope, receive, send)
            return
        address, browser = client_keys(scope)
        wait = self.addresses.take(address) or self.browsers.take(browser)
        extra = []
        if wait:
            status, body = 429, b"too many requests"
            extra = [(b"retry-after", str(max(1, math.ceil(wait))).encode())]
        else:
            code, key = _query(scope.get("query_string", b""))
            if scope["method"] != "GET" or not key_matches(code, key, self.secret()):
                status, body = 404, b"not found"
            else:
                status, body = 200, (await self.versions.get(code)).encode()
        await send({"type": "http.response.start", "status": status, "headers": [
            (b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode()),
            *[(k.lower().encode(), v.encode()) for k, v in _HEADERS.items()], *extra]})
        await send({"type": "http.response.body", "body": body})
