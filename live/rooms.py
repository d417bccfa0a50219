"""A live class as one JSON document, and the pure rules that change it.

A room is a plain ``dict`` (JSON-able, so the in-process store and Redis hold the very same thing):

- ``code``: the join code, ``CODE_LENGTH`` letters from :data:`ALPHABET` (32 letters: 32**6 ≈ 10**9);
- ``teacher``: the SHA-256 of the teacher's tokens (a list: a resumed tab gets a token of its own;
  tokens themselves are never stored), ``teacher_browser``: the digest of the browser that started the
  class (:class:`live.limits.Client`; only that browser may resume it after a reload),
  ``teacher_address``: the digest of the network address that started it (an address may hold only a
  share of the server's places, :func:`live.limits.rooms_per_address`), ``active``: when the teacher last
  acted or their page last checked in;
- ``students``: nickname key (NFKC, case-folded) -> ``{"name", "token" (hash), "joined", "client"
  (browser digest), "looks" (:func:`live.nicknames.looks`)}``;
- ``locked``: nobody new may join; ``banned``: devices the teacher removed (refused until unlocked);
  ``removed``: token hash -> nickname of removed students (their page says so);
- ``stage``: ``{"round", "status", "n"}``: the question being asked (``round`` is the teacher's id of
  the tree state), ``status`` is ``asking``, ``revealed`` or ``closed``; ``n`` grows on every change of
  stage, so a student page reruns only when the teacher moved, not on every other student's answer;
- ``snapshot``: what the teacher published for this round (tree, question; opaque here);
- ``answers``: nickname key -> ``{"feature", "threshold", "at"}`` for the current round;
- ``reveal``: what the teacher published on reveal (opaque), ``verdicts``: nickname key -> right?;
- ``scores``: nickname key -> ``[answered, right]`` over the whole class;
- ``expires``: seconds since the epoch: ``IDLE_SECONDS`` after the teacher's last activity (students'
  answers do not keep a forgotten room alive), only ``EMPTY_IDLE_SECONDS`` while no student has joined (a
  class started and left alone frees its place soon, so started-and-forgotten rooms cannot fill the
  server); a closed room stays ``CLOSED_SECONDS`` so students read "the class has ended".

Every function here takes the document, checks the request and changes the document in place (the
store runs it atomically); a refused request raises a :class:`LiveError` whose message is one sentence
for the person who asked.
"""

from __future__ import annotations

import hashlib
import math
import re
import secrets

from live import limits, nicknames

ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud and typed on phones
CODE_LENGTH = 6
MAX_NICKNAME = 24
MAX_STUDENTS = 300  # per room
MAX_ROOMS = 50  # per store (one process, or one Redis)
IDLE_SECONDS = 60 * 60  # a room whose teacher's page has been gone this long ends (see the panel)
EMPTY_IDLE_SECONDS = 10 * 60  # ... and this long when no student has joined it
MAX_TEACHER_TOKENS = 4  # the teacher's tab and its resumed reloads
CLOSED_SECONDS = 600
MAX_FEATURE = 200  # characters of a submitted feature name (the question's own names are shorter)


class LiveError(Exception):
    """A refused request; ``str(err)`` is one sentence to show as it is."""


class RoomNotFound(LiveError):
    pass


class RoomFull(LiveError):
    pass


class TooManyRooms(LiveError):
    pass


class BadNickname(LiveError):
    pass


class NotAllowed(LiveError):
    pass


class AnswerRefused(LiveError):
    pass


class StoreUnavailable(LiveError):
    """The shared store cannot be reached: the class is read-only until it is back."""


# ----------------------------------------------------------------------------- codes and tokens
def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(text: object) -> str:
    """A typed code as stored: upper case, spaces and dashes dropped; a malformed one is not found."""
    code = re.sub(r"[\s\-]", "", str(text or "")).upper()
    if len(code) != CODE_LENGTH or any(c not in ALPHABET for c in code):
        raise RoomNotFound(f"A class code is {CODE_LENGTH} letters and digits; check the code with your teacher.")
    return code


def new_token() -> str:
    return secrets.token_urlsafe(18)


def token_hash(token: object) -> str:
    return hashlib.sha256(str(token or "").encode("utf-8", "replace")).hexdigest()


def clean_nickname(text: object) -> str:
    """The nickname as shown (:func:`live.nicknames.clean`: invisible and direction characters removed).

    Raises :class:`BadNickname` when nothing is left or it is longer than ``MAX_NICKNAME``.
    """
    name = nicknames.clean(text)
    if not name:
        raise BadNickname("Type a nickname (letters, digits or signs) to join the class.")
    if len(name) > MAX_NICKNAME:
        raise BadNickname(f"A nickname is at most {MAX_NICKNAME} characters; this one has {len(name)}.")
    return name


def nickname_key(name: str) -> str:
    return nicknames.fold(clean_nickname(name))


# ------------------------------------------------------------------------------------ the rules
def new_room(code: str, teacher_token: str, now: float, browser: str | None = None,
             address: str | None = None) -> dict:
    return {"code": code, "teacher": [token_hash(teacher_token)], "teacher_browser": browser,
            "teacher_address": address, "created": now, "active": now, "expires": now + EMPTY_IDLE_SECONDS,
            "students": {}, "locked": False, "banned": [], "removed": {},
            "stage": {"round": "", "status": "asking", "n": 0}, "snapshot": None,
            "answers": {}, "reveal": None, "verdicts": {}, "scores": {}}


def idle_seconds(room: dict) -> int:
    """How long the room lives after the teacher's last activity: shorter while nobody has joined."""
    return IDLE_SECONDS if room.get("students") else EMPTY_IDLE_SECONDS


def touch(room: dict, now: float) -> None:
    """Move the expiry after a change: from the teacher's last activity (or the end of the class)."""
    room["expires"] = (now + CLOSED_SECONDS if is_closed(room)
                       else float(room.get("active", room.get("created", now))) + idle_seconds(room))


def is_closed(room: dict) -> bool:
    return room["stage"]["status"] == "closed"


def is_expired(room: dict, now: float) -> bool:
    return now >= float(room.get("expires", 0))


def check_teacher(room: dict, teacher_token: str) -> None:
    known = room["teacher"] if isinstance(room["teacher"], list) else [room["teacher"]]
    h = token_hash(teacher_token)
    if not any(secrets.compare_digest(k, h) for k in known):  # every one compared: no early exit
        raise NotAllowed("Only the teacher who started this class can do that.")


def teacher_acts(room: dict, teacher_token: str, now: float) -> None:
    """Check the teacher's token and note the activity that keeps the room alive."""
    check_teacher(room, teacher_token)
    room["active"] = now


def resume(room: dict, browser: str | None) -> str:
    """A new teacher token for the browser that started the class (a reloaded tab); others are refused.

    The address bar no longer carries the token: a link copied from the projector opens the class's
    tree in another browser, never its controls.
    """
    if not browser or not secrets.compare_digest(str(room.get("teacher_browser") or ""), browser):
        raise NotAllowed("Only the browser that started this class can take it back: the teacher's controls "
                         "do not travel in links.")
    _open(room)
    token = new_token()
    known = room["teacher"] if isinstance(room["teacher"], list) else [room["teacher"]]
    room["teacher"] = (known + [token_hash(token)])[-MAX_TEACHER_TOKENS:]
    return token


def _open(room: dict) -> None:
    if is_closed(room):
        raise RoomNotFound("The teacher has ended this class.")


def student_view(room: dict, key: str) -> dict:
    """The room as one student's page keeps it between runs (to show it read-only while the store is away):
    without the other students' entries, answers, scores and verdicts. Each page kept the whole room, so a
    class's memory grew with the square of its size (~0.4 MB per student at 300)."""
    view = dict(room)
    for part in ("students", "answers", "scores", "verdicts"):
        whole = room.get(part) or {}
        view[part] = {key: whole[key]} if key in whole else {}
    return view


def student_of(room: dict, student_token: str) -> str:
    """The nickname key of the student holding ``student_token``."""
    h = token_hash(student_token)
    for key, s in room["students"].items():
        if secrets.compare_digest(s["token"], h):
            return key
    raise NotAllowed("This browser has not joined the class (or the class was started again): join with a nickname.")


def join(room: dict, nickname: str, now: float, max_students: int = MAX_STUDENTS, browser: str | None = None,
         per_browser: int = limits.NICKNAMES_PER_BROWSER) -> str:
    """Add a student; returns their token (kept by their browser, only its hash is stored).

    ``browser`` is the digest of the joining browser (:class:`live.limits.Client`): a device the teacher
    removed stays out until the room is unlocked, and one browser holds at most ``per_browser``
    nicknames. A nickname that looks like one already in the class (:func:`live.nicknames.looks`) is
    refused like the same one.
    """
    _open(room)
    if room.get("locked"):
        raise NotAllowed("The teacher has locked this class: nobody new can join now.")
    if browser and browser in room.get("banned", ()):  # see live.roster.remove
        raise NotAllowed("The teacher removed you from this class: you can join again only when they unlock it.")
    name = clean_nickname(nickname)
    key, looks = nicknames.fold(name), nicknames.looks(name)
    if key in room["students"] or any(set(looks) & set(s.get("looks") or nicknames.looks(s["name"]))
                                      for s in room["students"].values()):
        raise BadNickname("Someone in the class already uses that nickname, or one that looks just like it: "
                          "pick another one.")
    if browser and sum(s.get("client") == browser for s in room["students"].values()) >= per_browser:
        raise NotAllowed(f"This browser has already joined the class with {per_browser} nicknames: "
                         "one student, one nickname.")
    if len(room["students"]) >= max_students:
        raise RoomFull(f"The class is full ({max_students} students): ask your teacher.")
    token = new_token()
    room["students"][key] = {"name": name, "token": token_hash(token), "joined": now, "client": browser,
                             "looks": looks}
    room["scores"].setdefault(key, [0, 0])
    return token


def publish(room: dict, teacher_token: str, round_id: str, snapshot: dict | None) -> bool:
    """The teacher's tree and question; a new ``round_id`` starts a new question (answers cleared).

    Returns True when the stage changed.
    """
    check_teacher(room, teacher_token)
    _open(room)
    stage = room["stage"]
    if stage["round"] == str(round_id):
        if room["snapshot"] != snapshot:
            room["snapshot"] = snapshot
            stage["n"] += 1
            return True
        return False
    room.update(snapshot=snapshot, answers={}, reveal=None, verdicts={})
    room["stage"] = {"round": str(round_id), "status": "asking", "n": stage["n"] + 1}
    return True


def answer(room: dict, student_token: str, round_id: str, feature: str, threshold: float | None,
           now: float) -> None:
    _open(room)
    key = student_of(room, student_token)
    stage = room["stage"]
    if stage["round"] != str(round_id) or not (room["snapshot"] or {}).get("question"):
        raise AnswerRefused("The teacher has moved on to another question: answer the one on screen now.")
    if stage["status"] == "revealed":
        raise AnswerRefused("The answer has already been revealed: wait for the next question.")
    if key in room["answers"]:
        raise AnswerRefused("You have already answered this question: one answer each.")
    if not isinstance(feature, str) or not feature or len(feature) > MAX_FEATURE:
        raise AnswerRefused("Pick one of the features offered.")
    try:
        t = None if threshold is None else float(threshold)
    except (TypeError, ValueError):
        t = math.nan
    if t is not None and not math.isfinite(t):
        raise AnswerRefused("The threshold must be a number.")
    room["answers"][key] = {"feature": feature, "threshold": t, "at": now}


def reveal(room: dict, teacher_token: str, round_id: str, payload: dict, verdicts: dict[str, bool]) -> None:
    """Close the question: publish the teacher's reveal and count each answer once in the scores."""
    check_teacher(room, teacher_token)
    _open(room)
    stage = room["stage"]
    if stage["round"] != str(round_id):
        raise AnswerRefused("The tree has moved on since the question was asked: reveal the current one.")
    if stage["status"] == "revealed":
        raise AnswerRefused("This question has already been revealed.")
    verdicts = {k: bool(v) for k, v in verdicts.items() if k in room["answers"]}
    for key, right in verdicts.items():
        score = room["scores"].setdefault(key, [0, 0])
        score[0] += 1
        score[1] += int(right)
    room.update(reveal=payload, verdicts=verdicts)
    room["stage"] = {**stage, "status": "revealed", "n": stage["n"] + 1}


def close(room: dict, teacher_token: str) -> None:
    check_teacher(room, teacher_token)
    room["stage"] = {**room["stage"], "status": "closed", "n": room["stage"]["n"] + 1}


def score_rows(room: dict) -> list[dict]:
    """The class score table, best first: nickname (as typed), answered, right."""
    rows = [{"nickname": nicknames.clean(s["name"]), "answered": room["scores"].get(k, [0, 0])[0],
             "right": room["scores"].get(k, [0, 0])[1]} for k, s in room["students"].items()]
    return sorted(rows, key=lambda r: (-r["right"], r["answered"], r["nickname"].casefold()))
