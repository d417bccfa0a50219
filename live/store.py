"""Where live rooms are kept: one interface, an in-process store, and the choice between it and Redis.

:class:`RoomStore` offers ``create`` (a new room with a fresh code), ``load`` (a copy of a room),
``stage`` (a copy of just the room's stage: what a student's page polls for, without reading the
tree snapshot, the answers and the scores) and ``update(code, change)`` (runs ``change(room)``
atomically: nobody else changes the room in between, and a change that raises leaves the room as it
was). The class actions (join, publish, answer, reveal,
lock, remove, close, resume) are methods on top of these, written once for every store with the rules of
:mod:`live.rooms`; so are the per-client limits of :mod:`live.limits`, on three small counters every
store provides (``_hit``: count in a window, ``_hold``/``_held``: a wait that runs out).

:class:`MemoryStore` keeps rooms in this process (one lock per room, one for the directory) and is the
default; :mod:`live.backend` picks it or :class:`live.redis_store.RedisStore` (``DTX_REDIS_URL``).
"""

from __future__ import annotations

import copy
import math
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable

from live import limits, roster, rooms
from live.limits import Client
from live.rooms import LiveError, NotAllowed, RoomNotFound, TooManyRooms

NOT_FOUND = "No class has that code (it may have ended or expired): check the code with your teacher."
UNKNOWN = Client()


class TooManyTries(NotAllowed):
    """A client over one of the limits of :mod:`live.limits`; the sentence says how long to wait."""


class RoomStore(ABC):
    """Rooms by code; see the module docstring. ``clock`` returns seconds since the epoch."""

    def __init__(self, *, max_rooms: int = rooms.MAX_ROOMS, max_students: int = rooms.MAX_STUDENTS,
                 clock: Callable[[], float] = time.time) -> None:
        self.max_rooms = int(max_rooms)
        self.max_students = int(max_students)
        self.clock = clock

    # --------------------------------------------------------------------- what a store provides
    @abstractmethod
    def _insert(self, room: dict) -> bool:
        """Store a new room unless its code is taken (False); raises what :meth:`_refuse_room` says when
        the store is full or the room's ``teacher_address`` already holds its share."""

    @abstractmethod
    def load(self, code: str) -> dict:
        """A copy of the room; raises RoomNotFound when there is none or it has expired."""

    @abstractmethod
    def stage(self, code: str) -> dict:
        """A copy of ``load(code)["stage"]``, read without the rest of the room; raises as ``load``."""

    @abstractmethod
    def update(self, code: str, change: Callable[[dict], object]) -> object:
        """Run ``change(room)`` atomically, store the result, move its expiry; returns what it returned."""

    @abstractmethod
    def count(self) -> int:
        """Rooms alive now."""

    @abstractmethod
    def _hit(self, key: str, window: float) -> int:
        """Count one more under ``key``; the count starts at 1 and is forgotten ``window`` s after it began."""

    @abstractmethod
    def _hold(self, key: str, seconds: float) -> None:
        """Start a wait of ``seconds`` under ``key``."""

    @abstractmethod
    def _held(self, key: str) -> float:
        """Seconds left of the wait under ``key`` (0 when none)."""

    # ------------------------------------------------------------------------------ the limits
    def _refuse_room(self, now: float, expiries: list[float], mine: list[float]) -> LiveError | None:
        """Why a new room cannot be stored (None: it can): ``expiries`` of every live room, ``mine`` those of
        the rooms of the new room's address. The sentence says when a place frees up: when the first of those
        rooms ends by itself (its teacher gone: :func:`live.rooms.touch`), the soonest it can."""
        share = limits.rooms_per_address(self.max_rooms)
        if len(mine) >= share:
            return TooManyTries(f"This network address already runs {len(mine):d} live classes, its share of this "
                                f"server's {self.max_rooms:d}: end one of them, or start in "
                                f"{limits.wait_text(min(mine) - now)}, when the first of them ends by itself.")
        if len(expiries) >= self.max_rooms:
            return TooManyRooms(f"This server already runs {self.max_rooms:d} live classes: a place frees up in "
                                f"{limits.wait_text(min(expiries) - now)} at the latest, when the longest-idle "
                                "class ends by itself (or sooner, when a teacher ends one).")
        return None

    def _over(self, client: Client, what: str, window: float, allowed: dict[str, int]) -> str | None:
        """Count a request of ``client``; the kind of key ("browser", "address") that went over, if any."""
        over = None
        for kind, key in client.keys():
            if self._hit(f"{what}:{key}", window) > allowed[kind] and over is None:
                over = kind
        return over

    def find(self, typed: str, client: Client = UNKNOWN) -> dict:
        """The room of a typed code, for a student's page; wrong codes make this client wait longer and
        longer (:func:`live.limits.wrong_code_wait`) before the next code is even looked at."""
        wait = max([self._held(f"wait:{key}") for _kind, key in client.keys()], default=0.0)
        if wait > 0:
            raise TooManyTries(f"Too many wrong class codes from here: wait {math.ceil(wait):d} s, then try again.")
        try:
            return self.load(rooms.normalize_code(typed))
        except RoomNotFound:
            for kind, key in client.keys():
                delay = limits.wrong_code_wait(kind, self._hit(f"wrong:{key}", limits.WRONG_CODE_WINDOW))
                if delay:
                    self._hold(f"wait:{key}", delay)
            raise

    # ------------------------------------------------------------------------------ the actions
    def create(self, teacher_token: str, client: Client = UNKNOWN) -> str:
        over = self._over(client, "start", limits.START_WINDOW,
                          {"browser": limits.STARTS_PER_BROWSER, "address": limits.starts_per_address(self.max_rooms)})
        if over:
            n = limits.STARTS_PER_BROWSER if over == "browser" else limits.starts_per_address(self.max_rooms)
            left = max(self._held(f"start:{key}") for kind, key in client.keys() if kind == over)
            raise TooManyTries(f"This {'browser' if over == 'browser' else 'network address'} has started {n:d} "
                               f"live classes in the last {limits.START_WINDOW // 60:d} minutes: "
                               f"carry on with one of them, or start a new one in {limits.wait_text(left)}.")
        for _ in range(20):
            code = rooms.new_code()
            if self._insert(rooms.new_room(code, teacher_token, self.clock(), client.browser, client.address)):
                return code
        raise TooManyRooms("No free class code was found; try again.")  # ~never: 10**9 codes

    def resume(self, code: str, client: Client) -> tuple[dict, str]:
        """The room and a fresh teacher token, for the browser that started it (a reloaded tab)."""
        token = self.update(rooms.normalize_code(code), lambda r: rooms.resume(r, client.browser))
        return self.load(rooms.normalize_code(code)), token

    def _as_teacher(self, code: str, teacher_token: str, change):
        """Run a teacher's ``change`` (token checked, activity noted: the room lives on)."""
        def run(room):
            rooms.teacher_acts(room, teacher_token, self.clock())
            return change(room)
        return self.update(code, run)

    def join(self, code: str, nickname: str, client: Client = UNKNOWN) -> str:
        code = rooms.normalize_code(code)
        if self._over(client, "join", limits.JOIN_WINDOW, {"browser": 10 ** 9, "address": limits.JOINS_PER_ADDRESS}):
            raise TooManyTries(f"More than {limits.JOINS_PER_ADDRESS:d} students joined from this network in "
                               f"{limits.JOIN_WINDOW // 60:d} minutes: wait a few minutes, then try again.")
        return self.update(code, lambda r: rooms.join(r, nickname, self.clock(), self.max_students, client.browser))

    def publish(self, code: str, teacher_token: str, round_id: str, snapshot: dict | None) -> bool:
        return self._as_teacher(code, teacher_token, lambda r: rooms.publish(r, teacher_token, round_id, snapshot))

    def answer(self, code: str, student_token: str, round_id: str, feature: str,
               threshold: float | None = None) -> None:
        self.update(rooms.normalize_code(code),
                    lambda r: rooms.answer(r, student_token, round_id, feature, threshold, self.clock()))

    def reveal(self, code: str, teacher_token: str, round_id: str, payload: dict,
               verdicts: dict[str, bool]) -> None:
        self._as_teacher(code, teacher_token, lambda r: rooms.reveal(r, teacher_token, round_id, payload, verdicts))

    def lock(self, code: str, teacher_token: str, locked: bool) -> None:
        self._as_teacher(code, teacher_token, lambda r: roster.lock(r, teacher_token, locked))

    def remove(self, code: str, teacher_token: str, keys: list[str]) -> list[str]:
        return self._as_teacher(code, teacher_token, lambda r: roster.remove(r, teacher_token, list(keys)))

    def heartbeat(self, code: str, teacher_token: str) -> None:
        """The teacher's page is still open: the room lives another ``rooms.IDLE_SECONDS``."""
        self._as_teacher(code, teacher_token, lambda r: None)

    def close(self, code: str, teacher_token: str) -> None:
        self._as_teacher(code, teacher_token, lambda r: rooms.close(r, teacher_token))


class MemoryStore(RoomStore):
    """Rooms in a dict of this process; a lock per room, expired rooms dropped when met."""

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self._rooms: dict[str, dict] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._directory = threading.Lock()
        self._marks: dict[str, list] = {}  # key -> [count, until] of _hit and _hold

    def _sweep(self, now: float) -> None:
        for code in [c for c, r in self._rooms.items() if rooms.is_expired(r, now)]:
            del self._rooms[code]
            del self._locks[code]

    def _insert(self, room: dict) -> bool:
        with self._directory:
            self._sweep(self.clock())
            if room["code"] in self._rooms:
                return False
            address = room.get("teacher_address")
            refused = self._refuse_room(self.clock(), [float(r["expires"]) for r in self._rooms.values()],
                                        [float(r["expires"]) for r in self._rooms.values()
                                         if address and r.get("teacher_address") == address])
            if refused is not None:
                raise refused
            self._rooms[room["code"]] = room
            self._locks[room["code"]] = threading.Lock()
            return True

    def _lock_of(self, code: str) -> threading.Lock:
        with self._directory:
            lock = self._locks.get(code)
            if lock is None:
                raise RoomNotFound(NOT_FOUND)
            return lock

    def _current(self, code: str) -> dict:
        """The stored room (hold its lock): read after taking the lock, so no change is lost."""
        with self._directory:
            room = self._rooms.get(code)
        if room is None or rooms.is_expired(room, self.clock()):
            raise RoomNotFound(NOT_FOUND)
        return room

    def load(self, code: str) -> dict:
        with self._lock_of(code):
            return copy.deepcopy(self._current(code))

    def stage(self, code: str) -> dict:
        with self._lock_of(code):
            return dict(self._current(code)["stage"])

    def update(self, code: str, change):
        with self._lock_of(code):
            work = copy.deepcopy(self._current(code))
            result = change(work)
            rooms.touch(work, self.clock())
            with self._directory:
                if code in self._rooms:  # not swept meanwhile
                    self._rooms[code] = work
            return result

    def count(self) -> int:
        with self._directory:
            self._sweep(self.clock())
            return len(self._rooms)

    def _mark(self, key: str, now: float) -> list | None:
        """The live mark under ``key`` (hold the directory lock); old marks are dropped now and then."""
        if len(self._marks) > 10_000:
            self._marks = {k: m for k, m in self._marks.items() if m[1] > now}
        mark = self._marks.get(key)
        return mark if mark is not None and mark[1] > now else None

    def _hit(self, key: str, window: float) -> int:
        now = self.clock()
        with self._directory:
            mark = self._mark(key, now) or [0, now + window]
            mark[0] += 1
            self._marks[key] = mark
            return mark[0]

    def _hold(self, key: str, seconds: float) -> None:
        with self._directory:
            self._marks[key] = [1, self.clock() + seconds]

    def _held(self, key: str) -> float:
        now = self.clock()
        with self._directory:
            mark = self._mark(key, now)
            return 0.0 if mark is None else mark[1] - now
