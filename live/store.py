"""Where live rooms are kept: one interface, an in-process store, and the choice between it and Redis.

:class:`RoomStore` offers ``create`` (a new room with a fresh code), ``load`` (a copy of a room),
``stage`` (a copy of just the room's stage: what a student's page polls for, without reading the
tree snapshot, the answers and the scores) and ``update(code, change)`` (runs ``change(room)``
atomically: nobody else changes the room in between, and a change that raises leaves the room as it
was). The class actions (join, publish, answer, reveal,
close) are methods on top of these three, written once for every store with the rules of
:mod:`live.rooms`.

:class:`MemoryStore` keeps rooms in this process (one lock per room, one for the directory) and is the
default; :mod:`live.backend` picks it or :class:`live.redis_store.RedisStore` (``DTX_REDIS_URL``).
"""

from __future__ import annotations

import copy
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable

from live import rooms
from live.rooms import RoomNotFound, TooManyRooms

NOT_FOUND = "No class has that code (it may have ended or expired): check the code with your teacher."


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
        """Store a new room unless its code is taken (False); raises TooManyRooms at the limit."""

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

    # ------------------------------------------------------------------------------ the actions
    def create(self, teacher_token: str) -> str:
        for _ in range(20):
            code = rooms.new_code()
            if self._insert(rooms.new_room(code, teacher_token, self.clock())):
                return code
        raise TooManyRooms("No free class code was found; try again.")  # ~never: 10**9 codes

    def teacher_room(self, code: str, teacher_token: str) -> dict:
        """The room, if ``teacher_token`` is its teacher's (resuming after a reload)."""
        room = self.load(rooms.normalize_code(code))
        rooms.check_teacher(room, teacher_token)
        return room

    def join(self, code: str, nickname: str) -> str:
        return self.update(rooms.normalize_code(code),
                           lambda r: rooms.join(r, nickname, self.clock(), self.max_students))

    def publish(self, code: str, teacher_token: str, round_id: str, snapshot: dict | None) -> bool:
        return self.update(code, lambda r: rooms.publish(r, teacher_token, round_id, snapshot))

    def answer(self, code: str, student_token: str, round_id: str, feature: str,
               threshold: float | None = None) -> None:
        self.update(rooms.normalize_code(code),
                    lambda r: rooms.answer(r, student_token, round_id, feature, threshold, self.clock()))

    def reveal(self, code: str, teacher_token: str, round_id: str, payload: dict,
               verdicts: dict[str, bool]) -> None:
        self.update(code, lambda r: rooms.reveal(r, teacher_token, round_id, payload, verdicts))

    def close(self, code: str, teacher_token: str) -> None:
        self.update(code, lambda r: rooms.close(r, teacher_token))


class MemoryStore(RoomStore):
    """Rooms in a dict of this process; a lock per room, expired rooms dropped when met."""

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self._rooms: dict[str, dict] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._directory = threading.Lock()

    def _sweep(self, now: float) -> None:
        for code in [c for c, r in self._rooms.items() if rooms.is_expired(r, now)]:
            del self._rooms[code]
            del self._locks[code]

    def _insert(self, room: dict) -> bool:
        with self._directory:
            self._sweep(self.clock())
            if room["code"] in self._rooms:
                return False
            if len(self._rooms) >= self.max_rooms:
                raise TooManyRooms(f"This server already runs {self.max_rooms} live classes: end one or "
                                   "try again later.")
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
