"""Rooms in Redis, for replicas behind a proxy: the same rules as the in-process store.

Each room is one JSON string under ``dtx:room:<CODE>`` whose Redis expiry follows the room's own
``expires``, its stage a small one under ``dtx:stage:<CODE>`` and the current question's answers a hash
``dtx:answers:<CODE>`` (student key -> JSON answer), written in the same transaction with the same expiry
(a student's poll reads only the stage); a sorted set ``dtx:rooms`` (code -> expiry)
counts the live rooms for the limit, ``dtx:held:<address>`` (code -> expiry) those one network address
started (its share, :func:`live.limits.rooms_per_address`), and ``dtx:n:<key>`` the per-client counters of
:mod:`live.limits` (an integer with the window's expiry). ``update`` is optimistic: WATCH the keys, read, change, write in
MULTI/EXEC, and start again when another replica wrote in between (so two students joining at once can
never both get the last seat, and no answer is lost); ``load`` reads the room and its answers in one
MULTI, so a room is always read whole.

An answer does not rewrite the room: it WATCHes only the stage, checks the answer against the room
(:func:`live.rooms.answer`, the rules every store shares) and adds one field with HSETNX, so one answer per
student holds even when two replicas take two taps at once. Before, each answer rewrote the whole room
(~70 kB of JSON at 300 students) under a WATCH of it: with a hall answering at once every replica's
attempts collided, each retry decoding and encoding the room again, and 67% of a replica's samples were
in that loop (taps waited 13 s at the median with 300 students on three replicas). Any Redis failure becomes
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
from live.rooms import LiveError, RoomNotFound, StoreUnavailable
from live.store import NOT_FOUND, RoomStore

PREFIX = "dtx:room:"
STAGE_PREFIX = "dtx:stage:"
ANSWERS_PREFIX = "dtx:answers:"
DIRECTORY = "dtx:rooms"
COUNTER_PREFIX = "dtx:n:"
HELD_PREFIX = "dtx:held:"
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
        key, held = PREFIX + room["code"], self._held_key(room)
        with self.client.pipeline() as pipe:
            while True:
                try:
                    pipe.watch(DIRECTORY, key, *([held] if held else []))
                    pipe.zremrangebyscore(DIRECTORY, "-inf", now)
                    if pipe.exists(key):
                        pipe.unwatch()
                        return False
                    if held:
                        pipe.zremrangebyscore(held, "-inf", now)
                    refused = self._refuse_room(
                        now, [e for _c, e in pipe.zrange(DIRECTORY, 0, -1, withscores=True)],
                        [e for _c, e in pipe.zrange(held, 0, -1, withscores=True)] if held else [])
                    if refused is not None:
                        pipe.unwatch()
                        raise refused
                    pipe.multi()
                    self._write(pipe, room)
                    pipe.execute()
                    return True
                except redis.exceptions.WatchError:
                    continue

    def _write(self, pipe, room: dict, answers_before: dict | None = None) -> None:
        """Queue the room, its stage, its answers (when they changed from ``answers_before``) and its
        directory entry in ``pipe`` (inside MULTI)."""
        ttl, code = self._ttl_ms(room), room["code"]
        pipe.set(PREFIX + code, json.dumps({**room, "answers": {}}), px=ttl)
        pipe.set(STAGE_PREFIX + code, json.dumps({**room["stage"], "expires": room["expires"]}), px=ttl)
        answers = room["answers"]
        if answers != answers_before:
            pipe.delete(ANSWERS_PREFIX + code)
            if answers:
                pipe.hset(ANSWERS_PREFIX + code, mapping={k: json.dumps(v) for k, v in answers.items()})
        pipe.pexpire(ANSWERS_PREFIX + code, ttl)
        pipe.zadd(DIRECTORY, {code: room["expires"]})
        held = self._held_key(room)
        if held:  # no room outlives IDLE_SECONDS after its last write, so neither does the set
            pipe.zadd(held, {code: room["expires"]})
            pipe.expire(held, max(rooms.IDLE_SECONDS, rooms.CLOSED_SECONDS))

    @staticmethod
    def _held_key(room: dict) -> str | None:
        """The sorted set (code -> expiry) of the rooms started from the room's network address."""
        address = room.get("teacher_address")
        return HELD_PREFIX + address if address else None

    def _decode(self, text: str | None) -> dict:
        if text is None:
            raise RoomNotFound(NOT_FOUND)
        room = json.loads(text)
        if rooms.is_expired(room, self.clock()):
            raise RoomNotFound(NOT_FOUND)
        return room

    def load(self, code: str) -> dict:
        def read():
            with self.client.pipeline() as pipe:  # MULTI: the room and its answers as of one moment
                pipe.get(PREFIX + code)
                pipe.hgetall(ANSWERS_PREFIX + code)
                return pipe.execute()
        text, answers = self._call(read)
        return self._with_answers(self._decode(text), answers)

    @staticmethod
    def _with_answers(room: dict, answers: dict) -> dict:
        room["answers"] = {k: json.loads(v) for k, v in answers.items()}
        return room

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
                    pipe.watch(key, ANSWERS_PREFIX + code)
                    room = self._with_answers(self._decode(pipe.get(key)), pipe.hgetall(ANSWERS_PREFIX + code))
                    before = {k: dict(v) for k, v in room["answers"].items()}
                    result = change(room)  # may raise a LiveError: the room stays as it was
                    rooms.touch(room, self.clock())
                    pipe.multi()
                    self._write(pipe, room, before)
                    pipe.execute()
                    return result
                except redis.exceptions.WatchError:
                    continue
                finally:
                    pipe.reset()
        raise StoreUnavailable("The class server is too busy right now: try again in a moment.")

    def answer(self, code: str, student_token: str, round_id: str, feature: str,
               threshold: float | None = None) -> None:
        """One student's answer: checked by :func:`live.rooms.answer` against the room as it is, stored with
        HSETNX while the stage is unchanged (WATCH): a new question, a reveal or the end in between makes it
        check again; a second answer (another tab, another replica) is refused as in every store."""
        code = rooms.normalize_code(code)
        self._call(self._answer_now, code, student_token, round_id, feature, threshold)

    def _answer_now(self, code: str, student_token: str, round_id: str, feature: str, threshold) -> None:
        answers = ANSWERS_PREFIX + code
        with self.client.pipeline() as pipe:
            for _ in range(MAX_ATTEMPTS):
                try:
                    pipe.watch(STAGE_PREFIX + code)  # written by every change of the room
                    room = self._decode(pipe.get(PREFIX + code))
                    try:
                        key = rooms.student_of(room, student_token)
                    except LiveError:  # rooms.answer says why, in the rules' own order (an ended class first)
                        key = None
                    room["answers"] = {key: {}} if key is not None and pipe.hexists(answers, key) else {}
                    rooms.answer(room, student_token, round_id, feature, threshold, self.clock())
                    pipe.multi()
                    pipe.hsetnx(answers, key, json.dumps(room["answers"][key]))
                    pipe.pexpire(answers, self._ttl_ms(room))
                    stored = pipe.execute()[0]
                    if not stored:  # another tab of the same student won the race: refused as a second answer
                        room["answers"] = {key: {}}
                        rooms.answer(room, student_token, round_id, feature, threshold, self.clock())
                    return
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
