"""The teacher's hold on who is in a live class: lock the room, remove students (rules on the room document).

Like :mod:`live.rooms`, each function changes the room in place and raises a
:class:`live.rooms.LiveError` with one sentence when the request is refused; the store runs it
atomically. A removed student's token hash stays in ``removed`` (their page says so) and their browser in
``banned``, which :func:`live.rooms.join` refuses until the teacher unlocks.
"""

from __future__ import annotations

from live.rooms import check_teacher, token_hash


def removed_name(room: dict, student_token: str) -> str | None:
    """The nickname of a student the teacher removed, if ``student_token`` was theirs."""
    return room.get("removed", {}).get(token_hash(student_token))


def lock(room: dict, teacher_token: str, locked: bool) -> None:
    """Lock the room (nobody new joins) or unlock it, which also lets removed students join again."""
    check_teacher(room, teacher_token)
    room["locked"] = bool(locked)
    if not locked:
        room["banned"] = []


def remove(room: dict, teacher_token: str, keys: list[str]) -> list[str]:
    """Remove students (by nickname key): their page says so, and their device stays out until unlock.

    Returns the nicknames removed.
    """
    check_teacher(room, teacher_token)
    gone = []
    for key in keys:
        student = room["students"].pop(key, None)
        if student is None:
            continue
        gone.append(student["name"])
        room.setdefault("removed", {})[student["token"]] = student["name"]
        if student.get("client") and student["client"] not in room.setdefault("banned", []):
            room["banned"].append(student["client"])
        for part in ("answers", "verdicts", "scores"):
            room[part].pop(key, None)
    if gone:  # a new stage number: the removed student's page follows and says so
        room["stage"] = {**room["stage"], "n": room["stage"]["n"] + 1}
    return gone
