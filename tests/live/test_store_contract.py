"""The same contract for both stores: the in-process one and Redis (a real redis-server on a free port)."""

from __future__ import annotations

import threading

import pytest

from live import rooms
from live.rooms import AnswerRefused, BadNickname, NotAllowed, RoomFull, RoomNotFound, StoreUnavailable, TooManyRooms
from live.store import MemoryStore
from tests.redis_server import redis_server


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def redis_url():
    with redis_server() as (url, _proc):
        yield url


@pytest.fixture(params=["memory", "redis"])
def make_store(request):
    made = []

    def make(**kw):
        if request.param == "memory":
            store = MemoryStore(**kw)
        else:
            from live.redis_store import RedisStore

            url = request.getfixturevalue("redis_url")
            store = RedisStore(url, **kw)
            store.client.flushdb()
        made.append(store)
        return store

    yield make


SNAP = {"question": {"node": 0, "features": ["Outlook", "Humidity"]}, "tree": "{}"}


def test_code_is_hard_to_guess_and_typed_codes_are_forgiving(make_store):
    store = make_store()
    code = store.create("teacher-token")
    assert len(code) >= 6 and len(rooms.ALPHABET) >= 30 and set(code) <= set(rooms.ALPHABET)
    assert len({store.create(f"t{i}") for i in range(20)}) == 20
    typed = f" {code[:3].lower()}-{code[3:].lower()} "
    assert store.load(rooms.normalize_code(typed))["code"] == code
    with pytest.raises(RoomNotFound):
        rooms.normalize_code("ABC")
    with pytest.raises(RoomNotFound, match="No class has that code"):
        store.load("ZZZZZZ" if code != "ZZZZZZ" else "YYYYYY")


def test_join_answer_reveal_scores(make_store):
    store = make_store()
    code = store.create("T")
    ana, ben = store.join(code, "Ana"), store.join(code, "  Ben  ")
    assert store.publish(code, "T", "r1", SNAP) is True
    assert store.publish(code, "T", "r1", SNAP) is False  # nothing new: the stage stays
    n = store.load(code)["stage"]["n"]
    store.answer(code, ana, "r1", "Outlook")
    store.answer(code, ben, "r1", "Humidity", 70.5)
    room = store.load(code)
    assert room["stage"]["n"] == n  # answers do not move the stage (students do not rerun)
    assert room["answers"]["ben"] == {"feature": "Humidity", "threshold": 70.5, "at": pytest.approx(room["answers"]["ben"]["at"])}
    store.reveal(code, "T", "r1", {"winner": "Outlook"}, {"ana": True, "ben": False, "ghost": True})
    room = store.load(code)
    assert room["stage"]["status"] == "revealed" and room["verdicts"] == {"ana": True, "ben": False}
    assert rooms.score_rows(room) == [{"nickname": "Ana", "answered": 1, "right": 1},
                                      {"nickname": "Ben", "answered": 1, "right": 0}]
    # a new round clears answers and the reveal, keeps the scores
    store.publish(code, "T", "r2", SNAP)
    room = store.load(code)
    assert room["answers"] == {} and room["reveal"] is None and room["stage"]["status"] == "asking"
    assert room["scores"]["ana"] == [1, 1]


def test_refusals(make_store):
    store = make_store(max_students=2)
    code = store.create("T")
    ana = store.join(code, "Ana")
    with pytest.raises(BadNickname, match="already uses"):
        store.join(code, "ANA")
    with pytest.raises(BadNickname):
        store.join(code, "\u200b \n\t")
    with pytest.raises(BadNickname, match="at most"):
        store.join(code, "x" * (rooms.MAX_NICKNAME + 1))
    store.join(code, "Ben")
    with pytest.raises(RoomFull, match="full"):
        store.join(code, "Cy")
    with pytest.raises(AnswerRefused):  # nothing asked yet
        store.answer(code, ana, "", "Outlook")
    store.publish(code, "T", "r1", SNAP)
    with pytest.raises(AnswerRefused, match="moved on"):
        store.answer(code, ana, "r0", "Outlook")
    with pytest.raises(NotAllowed):
        store.answer(code, "not-a-token", "r1", "Outlook")
    for bad in (float("nan"), float("inf"), "x", [1]):
        with pytest.raises(AnswerRefused, match="must be a number"):
            store.answer(code, ana, "r1", "Outlook", bad)
    with pytest.raises(AnswerRefused, match="Pick one"):
        store.answer(code, ana, "r1", "x" * (rooms.MAX_FEATURE + 1))
    store.answer(code, ana, "r1", "Outlook")
    with pytest.raises(AnswerRefused, match="already answered"):
        store.answer(code, ana, "r1", "Humidity")
    with pytest.raises(NotAllowed, match="Only the teacher"):
        store.publish(code, ana, "r2", SNAP)  # a student's token is not the teacher's
    with pytest.raises(NotAllowed):
        store.reveal(code, "wrong", "r1", {}, {})
    with pytest.raises(NotAllowed):
        store.close(code, ana)
    store.reveal(code, "T", "r1", {}, {"ana": True})
    with pytest.raises(AnswerRefused, match="already been revealed"):
        store.reveal(code, "T", "r1", {}, {"ana": True})
    assert store.load(code)["scores"]["ana"] == [1, 1]  # counted once
    with pytest.raises(AnswerRefused, match="already been revealed"):
        store.answer(code, ana, "r1", "Outlook")


def test_answer_after_reveal_is_refused_for_a_student_who_had_not_answered(make_store):
    store = make_store()
    code = store.create("T")
    ana, ben = store.join(code, "Ana"), store.join(code, "Ben")
    store.publish(code, "T", "r1", SNAP)
    store.answer(code, ana, "r1", "Outlook")
    store.reveal(code, "T", "r1", {}, {"ana": True})
    with pytest.raises(AnswerRefused, match="already been revealed"):
        store.answer(code, ben, "r1", "Outlook")


def test_teacher_resumes_with_the_token_and_nobody_else(make_store):
    store = make_store()
    code = store.create("secret-T")
    ana = store.join(code, "Ana")
    assert store.teacher_room(code.lower(), "secret-T")["code"] == code
    for token in (ana, "", "secret-t"):
        with pytest.raises(NotAllowed):
            store.teacher_room(code, token)
    assert "secret-T" not in str(store.load(code))  # only hashes are kept


def test_rooms_expire_when_idle_and_close(make_store):
    clock = Clock()
    store = make_store(clock=clock)
    code = store.create("T")
    clock.now += rooms.IDLE_SECONDS - 5
    store.join(code, "Ana")  # a change keeps the room alive
    clock.now += rooms.IDLE_SECONDS - 5
    assert store.load(code)["code"] == code
    clock.now += 10
    with pytest.raises(RoomNotFound, match="expired"):
        store.load(code)
    with pytest.raises(RoomNotFound):
        store.join(code, "Ben")
    assert store.count() == 0
    code = store.create("T")
    store.close(code, "T")
    assert store.load(code)["stage"]["status"] == "closed"
    with pytest.raises(RoomNotFound, match="ended"):
        store.join(code, "Ana")
    clock.now += rooms.CLOSED_SECONDS + 1
    with pytest.raises(RoomNotFound):
        store.load(code)


def test_room_limit(make_store):
    clock = Clock()
    store = make_store(max_rooms=3, clock=clock)
    for i in range(3):
        store.create(f"T{i}")
    with pytest.raises(TooManyRooms, match="3 live classes"):
        store.create("T4")
    clock.now += rooms.IDLE_SECONDS + 1  # expired rooms free their places
    store.create("T5")
    assert store.count() == 1


def test_concurrent_joins_and_answers_lose_nothing(make_store):
    store = make_store(max_students=30)
    code = store.create("T")
    store.publish(code, "T", "r1", SNAP)
    tokens, errors = {}, []

    def student(i):
        try:
            tok = store.join(code, f"s{i}")
            tokens[i] = tok
            store.answer(code, tok, "r1", "Outlook")
        except rooms.LiveError as err:
            errors.append(err)

    threads = [threading.Thread(target=student, args=(i,)) for i in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    room = store.load(code)
    assert len(room["students"]) == 30 and len(room["answers"]) == 30
    assert len(errors) == 10 and all(isinstance(e, RoomFull) for e in errors)


def test_a_failed_change_leaves_the_room_as_it_was(make_store):
    store = make_store()
    code = store.create("T")

    def half_done(room):
        room["students"]["x"] = {"name": "x", "token": "h", "joined": 0}
        raise AnswerRefused("no")

    with pytest.raises(AnswerRefused):
        store.update(code, half_done)
    assert store.load(code)["students"] == {}


def test_redis_going_away_is_a_sentence():
    from live.redis_store import RedisStore

    with redis_server() as (url, proc):
        store = RedisStore(url, timeout=0.5)
        code = store.create("T")
        proc.terminate()
        proc.wait(timeout=10)
        for action in (lambda: store.load(code), lambda: store.stage(code), lambda: store.join(code, "Ana"),
                       lambda: store.create("T2"),
                       store.count):
            with pytest.raises(StoreUnavailable, match="cannot be reached"):
                action()


def test_nicknames_are_cleaned_not_trusted():
    assert rooms.clean_nickname("  <b>Ana</b>\x00\u202e  ") == "<b>Ana</b>"
    assert rooms.nickname_key("ÄNA") == "äna"


def test_the_stage_alone_follows_the_room(make_store):
    """``stage`` (what a student's poll reads) is the room's stage after every change, a copy, and
    refused like ``load`` for an unknown, expired or closed-and-expired room."""
    clock = Clock()
    store = make_store(clock=clock)
    code = store.create("t")
    assert store.stage(code) == store.load(code)["stage"]
    token = store.join(code, "Ana")
    for change in (lambda: store.publish(code, "t", "r1", SNAP),
                   lambda: store.answer(code, token, "r1", "Outlook"),
                   lambda: store.reveal(code, "t", "r1", {"winner": "Outlook"}, {rooms.nickname_key("Ana"): True}),
                   lambda: store.publish(code, "t", "r2", SNAP),
                   lambda: store.close(code, "t")):
        before = store.stage(code)
        change()
        assert store.stage(code) == store.load(code)["stage"]
        assert store.stage(code)["n"] >= before["n"]
    assert store.stage(code)["status"] == "closed"
    copy = store.stage(code)
    copy["n"] = -1
    assert store.stage(code)["n"] != -1
    with pytest.raises(RoomNotFound):
        store.stage("ABCDEF")
    clock.now += rooms.CLOSED_SECONDS + 1
    with pytest.raises(RoomNotFound):
        store.stage(code)
