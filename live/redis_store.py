"""Rooms in Redis, for replicas behind a proxy: the same rules as the in-process store.

Each room is one JSON string under ``dtx:room:<CODE>`` whose Redis expiry follows the room's own
``expires``, and its stage a small one under ``dtx:stage:<CODE>``, written in the same transaction
with the same expiry (a student's poll reads only that); a sorted set ``dtx:rooms`` (code -> expiry)
counts the live rooms for the limit, and ``dtx:n:<key>`` the per-client counters of
:mod:`live.limits` (an integer with the window's expiry). ``update`` is optimistic: WATCH the key, read, change, write in
MULTI/EXEC, and start again when another replica wrote in between (so two students joining at once can
never both get the last seat, and no answer is lost). Any Redis failure becomes
:class:`live.rooms.StoreUnavailable` with a sentence; the client waits at most ``timeout`` seconds, so a
page never hangs on a dead server.
"""

from __future__ import annotations

import json
import math

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from live import rooms
from live.rooms import RoomNotFound, StoreUnavailable, TooManyRooms
from live.store import NOT_FOUND, RoomStore

PREFIX = "dtx:room:"
STAGE_PREFIX = "dtx:stage:"
DIRECTORY = "dtx:rooms"
COUNTER_PREFIX = "dtx:n:"
MAX_ATTEMPTS = 200  # WATCH conflicts tolerated per update (40 students answering at once: a few each)
UNAVAILABLE = ("The class server (Redis) cannot be reached, so the class is read-only for now: "
               "it continues when the server is back.")


class RedisStore(RoomStore):
    def __init__(self, url: str, *, timeout: float = 2.0, **kw) -> None:
        super().__init__(**kw)
        self.url = url
        self.client = redis.Redis.from_url(
            url, socket_timeout=timeout, socket_connect_timeout=timeout, decode_responses=True,
            retry=Retry(ExponentialBackoff(cap=0.2, base=0.02), 1))

    def __repr__(self) -> str:
        return f"RedisStore({self.url!r})"

    def _call(self, fn, *args):
        try:
            return fn(*args)
        except redis.exceptions.WatchError:
            raise
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError) as exc:
            raise StoreUnavailable(UNAVAILABLE) from exc
        except redis.exceptions.RedisError as exc:
            raise StoreUnavailable(UNAVAILABLE) from exc

    def _ttl_ms(self, room: dict) -> int:
        return max(1, int(math.ceil((float(room["expires"]) - self.clock()) * 1000)))

    # ------------------------------------------------------------------------------- the three
    def _insert(self, room: dict) -> bool:
        return self._call(self._insert_now, room)

    def _insert_now(self, room: dict) -> bool:
        now = self.clock()
        key = PREFIX + room["code"]
        with self.client.pipeline() as pipe:
            while True:
                try:
                    pipe.watch(DIRECTORY, key)
                    pipe.zremrangebyscore(DIRECTORY, "-inf", now)
                    if pipe.exists(key):
                        pipe.unwatch()
                        return False
                    if pipe.zcard(DIRECTORY) >= self.max_rooms:
                        pipe.unwatch()
                        raise TooManyRooms(f"This server already runs {self.max_rooms} live classes: end one "
                                           "or try again later.")
                    pipe.multi()
                    self._write(pipe, room)
                    pipe.execute()
                    return True
                except redis.exceptions.WatchError:
                    continue

    def _write(self, pipe, room: dict) -> None:
        """Queue the room, its stage and its directory entry in ``pipe`` (inside MULTI)."""
        ttl = self._ttl_ms(room)
        pipe.set(PREFIX + room["code"], json.dumps(room), px=ttl)
        pipe.set(STAGE_PREFIX + room["code"], json.dumps({**room["stage"], "expires": room["expires"]}), px=ttl)
        pipe.zadd(DIRECTORY, {room["code"]: room["expires"]})

    def _decode(self, text: str | None) -> dict:
        if text is None:
            raise RoomNotFound(NOT_FOUND)
        room = json.loads(text)
        if rooms.is_expired(room, self.clock()):
            raise RoomNotFound(NOT_FOUND)
        return room

    def load(self, code: str) -> dict:
        return self._decode(self._call(self.client.get, PREFIX + code))

    def stage(self, code: str) -> dict:
        stage = self._decode(self._call(self.client.get, STAGE_PREFIX + code))
        del stage["expires"]
        return stage

    def update(self, code: str, change):
        return self._call(self._update_now, code, change)

    def _update_now(self, code: str, change):
        key = PREFIX + code
        with self.client.pipeline() as pipe:
            for _ in range(MAX_ATTEMPTS):
                try:
                    pipe.watch(key)
                    room = self._decode(pipe.get(key))
                    result = change(room)  # may raise a LiveError: the room stays as it was
                    rooms.touch(room, self.clock())
                    pipe.multi()
                    self._write(pipe, room)
                    pipe.execute()
                    return result
                except redis.exceptions.WatchError:
                    continue
                finally:
                    pipe.reset()
        raise StoreUnavailable("The class server is too busy right now: try again in a moment.")

    def _hit(self, key: str, window: float) -> int:
        def hit():
            with self.client.pipeline() as pipe:  # MULTI: the window starts with the first hit, once
                pipe.set(COUNTER_PREFIX + key, 0, nx=True, px=max(1, int(window * 1000)))
                pipe.incr(COUNTER_PREFIX + key)
                return int(pipe.execute()[1])
        return self._call(hit)

    def _hold(self, key: str, seconds: float) -> None:
        self._call(lambda: self.client.set(COUNTER_PREFIX + key, 1, px=max(1, int(seconds * 1000))))

    def _held(self, key: str) -> float:
        left = int(self._call(self.client.pttl, COUNTER_PREFIX + key))
        return max(0.0, left / 1000)

    def count(self) -> int:
        now = self.clock()
        self._call(self.client.zremrangebyscore, DIRECTORY, "-inf", now)
        return int(self._call(self.client.zcard, DIRECTORY))
