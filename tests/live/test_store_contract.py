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


def test_the_teachers_actions_need_the_token_and_nobody_elses(make_store):
    store = make_store()
    code = store.create("secret-T")
    ana = store.join(code, "Ana")
    store.heartbeat(code, "secret-T")
    for token in (ana, "", "secret-t"):
        for action in (store.heartbeat, lambda c, t: store.lock(c, t, True), lambda c, t: store.remove(c, t, ["ana"])):
            with pytest.raises(NotAllowed):
                action(code, token)
    assert "secret-T" not in str(store.load(code))  # only hashes are kept


def test_rooms_expire_when_the_teacher_is_idle_and_close(make_store):
    """A room lives IDLE_SECONDS (an hour, not six) after the teacher's last act or check-in; students
    answering in a forgotten room do not keep it alive."""
    assert 45 * 60 <= rooms.IDLE_SECONDS <= 90 * 60
    clock = Clock()
    store = make_store(clock=clock)
    code = store.create("T")
    store.join(code, "Ana")
    clock.now += rooms.IDLE_SECONDS - 5
    store.heartbeat(code, "T")  # the teacher's page checks in: the room lives on
    clock.now += rooms.IDLE_SECONDS - 5
    assert store.load(code)["code"] == code
    store.join(code, "Ben")  # a student's change does not move the expiry
    clock.now += 10
    with pytest.raises(RoomNotFound, match="expired"):
        store.load(code)
    with pytest.raises(RoomNotFound):
        store.join(code, "Cy")
    assert store.count() == 0
    code = store.create("T")
    store.close(code, "T")
    assert store.load(code)["stage"]["status"] == "closed"
    with pytest.raises(RoomNotFound, match="ended"):
        store.join(code, "Ana")
    clock.now += rooms.CLOSED_SECONDS + 1
    with pytest.raises(RoomNotFound):
        store.load(code)


def test_a_class_nobody_joined_ends_soon_after_its_teacher_left(make_store):
    """Finding 9: started-and-forgotten classes held their places for an hour. A class with no student
    ends EMPTY_IDLE_SECONDS after the teacher's page last checked in (the open page keeps it alive); once
    a student has joined it lives the full IDLE_SECONDS."""
    assert rooms.EMPTY_IDLE_SECONDS <= 10 * 60 < rooms.IDLE_SECONDS
    clock = Clock()
    store = make_store(clock=clock)
    empty, taught = store.create("T"), store.create("U")
    clock.now += rooms.EMPTY_IDLE_SECONDS - 5
    store.heartbeat(empty, "T")  # the teacher's page is open: waiting for the class is fine
    store.join(taught, "Ana")
    clock.now += rooms.EMPTY_IDLE_SECONDS - 5
    assert store.count() == 2 and store.load(empty)["code"] == empty
    clock.now += 10  # the page of the empty class is gone for EMPTY_IDLE_SECONDS: it ends
    with pytest.raises(RoomNotFound):
        store.load(empty)
    assert store.count() == 1 and store.load(taught)["students"]


def test_room_limit(make_store):
    clock = Clock()
    store = make_store(max_rooms=3, clock=clock)
    for i in range(3):
        store.create(f"T{i}")
        clock.now += 60
    with pytest.raises(TooManyRooms, match="3 live classes"):
        store.create("T4")
    clock.now += rooms.EMPTY_IDLE_SECONDS + 1  # expired rooms free their places
    store.create("T5")
    assert store.count() == 1


def test_a_refused_teacher_is_told_when_a_place_frees_up(make_store):
    """The refusal names an honest time: when the longest-idle class ends by itself (a full server), when
    the address's first class ends (its share), or when the start window forgets the first start."""
    clock = Clock()
    store = make_store(max_rooms=3, clock=clock)
    first = store.create("T0")
    clock.now += 120
    store.create("T1"), store.create("T2")
    clock.now += 60  # the first class ends EMPTY_IDLE_SECONDS after it began: 7 min from now
    with pytest.raises(TooManyRooms, match="frees up in about 7 min at the latest"):
        store.create("T3", browser("late", "198.51.100.30"))
    store.heartbeat(first, "T0")  # its teacher came back: now the second is the first to end
    with pytest.raises(TooManyRooms, match="frees up in about 9 min"):
        store.create("T3")
    store = make_store(max_rooms=50, clock=clock)
    school = "198.51.100.40"
    for i in range(limits.rooms_per_address(50)):
        store.create(f"S{i}", browser(f"teacher{i}", school))
        clock.now += 60
    with pytest.raises(TooManyTries, match=r"already runs 5 live classes, its share .* start in about 5 min"):
        store.create("S", browser("one more", school))
    store = make_store(clock=clock)
    script = browser("script", "198.51.100.50")
    for i in range(limits.STARTS_PER_BROWSER):
        store.close(store.create(f"X{i}", script), f"X{i}")
    with pytest.raises(TooManyTries, match=r"start a new one in about 60 min"):  # the window's first start
        store.create("X", script)


def test_the_operator_may_give_one_address_a_larger_share(monkeypatch):
    """A server for one school, whose teachers all come from its one public address."""
    monkeypatch.delenv(limits.ENV_ROOMS_PER_ADDRESS, raising=False)
    assert limits.rooms_per_address(50) == 5 and limits.rooms_per_address(3) == 1
    for value, share in (("50", 50), ("80", 50), ("0", 5), ("many", 5), ("12", 12)):
        monkeypatch.setenv(limits.ENV_ROOMS_PER_ADDRESS, value)
        assert limits.rooms_per_address(50) == share, value
        assert limits.starts_per_address(50) == max(limits.STARTS_PER_ADDRESS, 2 * share)


def test_five_addresses_cannot_fill_the_server(make_store):
    """Finding 9: 10 starts per address and 50 places, so 5 addresses filled the server for an hour and every
    other teacher was told "This server already runs 50 live classes". An address holds at most its share."""
    store = make_store(max_rooms=rooms.MAX_ROOMS)
    held = 0
    for a in range(5):
        for i in range(limits.STARTS_PER_ADDRESS):  # a new browser (no cookies) for every start
            try:
                store.create(f"H{a}-{i}", browser(f"hostile{a}-{i}", f"203.0.113.{a + 10}"))
                held += 1
            except TooManyTries as err:
                assert "network address" in str(err)
    assert held == store.count() == 5 * limits.rooms_per_address(rooms.MAX_ROOMS) <= rooms.MAX_ROOMS // 2
    code = store.create("teacher", browser("a sixth teacher", "198.51.100.60"))
    assert store.load(code)["teacher_address"] == browser("x", "198.51.100.60").address


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
    # direction marks and isolates, zero-width and filler characters go; white space becomes one space
    assert rooms.clean_nickname("\u2067Ana\u2069\u200d\u3164\ufe0f\tBen\u2028") == "Ana Ben"
    assert rooms.clean_nickname("Zo\u0301\u0301\u0301\u0301\u0301e") == "Z\u00f3\u0301\u0301e"  # NFC, 2 marks kept
    assert rooms.nickname_key("\uff21\uff4e\uff41") == "ana"  # full-width: NFKC


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


# ------------------------------------------------------------------ issue 25: floods, takeover, look-alikes
from live import limits, roster  # noqa: E402
from live.limits import Client  # noqa: E402
from live.store import TooManyTries  # noqa: E402


def browser(name: str, address: str | None = None) -> Client:
    return Client.of(address, f"xsrf-{name}")


def test_one_browser_cannot_start_many_classes(make_store):
    """The flood of the issue: one browser starting classes in new tabs (48 in 180 s) is stopped after
    STARTS_PER_BROWSER, far below the server's limit; another browser on the same network still starts
    one, and the network address as a whole stops at STARTS_PER_ADDRESS."""
    store = make_store(max_rooms=50)
    attacker = browser("attacker", "203.0.113.7")
    made = []
    with pytest.raises(TooManyTries, match="started 3 live classes"):
        for i in range(48):
            made.append(store.create(f"T{i}", attacker))
    assert len(made) == limits.STARTS_PER_BROWSER <= 3 and store.count() == 3
    colleague = browser("colleague", "203.0.113.7")
    store.create("C", colleague)  # the same school network: still allowed
    with pytest.raises(TooManyTries, match="network address"):
        for i in range(50):  # a script that drops its cookies: a new browser every time, one address
            store.create(f"S{i}", browser(f"script{i}", "203.0.113.7"))
    assert store.count() <= limits.STARTS_PER_ADDRESS <= 10  # refused tries count too
    store.create("X", browser("elsewhere", "198.51.100.1"))  # other addresses are not affected


def test_one_browser_cannot_join_many_students_and_a_network_is_capped(make_store):
    assert limits.JOINS_PER_ADDRESS >= rooms.MAX_STUDENTS  # a full lecture hall behind one address joins
    store = make_store(max_students=limits.JOINS_PER_ADDRESS + 10)
    code = store.create("T")
    flood = browser("flood", "203.0.113.9")
    joined = 0
    with pytest.raises(NotAllowed, match="already joined the class with 2 nicknames"):
        for i in range(50):
            store.join(code, f"fake{i}", flood)
            joined += 1
    assert joined == limits.NICKNAMES_PER_BROWSER == 2
    # a classroom behind one address: every student has a browser of their own
    for i in range(limits.JOINS_PER_ADDRESS - 3):  # the flood's three tries (one refused) count too
        store.join(code, f"student{i}", browser(f"s{i}", "203.0.113.9"))
    with pytest.raises(TooManyTries, match="from this network"):
        store.join(code, "one too many", browser("late", "203.0.113.9"))
    store.join(code, "other network", browser("x", "198.51.100.2"))


def test_wrong_codes_make_the_next_try_wait_longer_and_longer(make_store):
    clock = Clock()
    store = make_store(clock=clock)
    code = store.create("T")
    wrong = "ABCDEF" if code != "ABCDEF" else "ABCDEG"
    guesser = browser("guesser", "203.0.113.5")
    for _ in range(limits.FREE_WRONG_CODES["browser"]):
        with pytest.raises(RoomNotFound):
            store.find(wrong, guesser)
    waits = []
    for _ in range(4):
        with pytest.raises(RoomNotFound):
            store.find(wrong, guesser)  # looked at: the wait starts after it
        with pytest.raises(TooManyTries, match=r"wait \d+ s"):
            store.find(code, guesser)  # even the right code waits: nothing is learnt meanwhile
        waits.append(max(store._held("wait:" + k) for _, k in guesser.keys()))
        _pass(store, clock, waits[-1])
    assert waits[0] > 0 and all(b > 1.5 * a for a, b in zip(waits, waits[1:])), waits
    assert store.find(code, guesser)["code"] == code
    assert store.find(code.lower(), browser("student", "203.0.113.5"))["code"] == code  # others are not slowed
    assert limits.wrong_code_wait("browser", 40) == limits.MAX_WRONG_CODE_WAIT


def _pass(store, clock, seconds: float) -> None:
    """Let ``seconds`` pass for the store (Redis keeps its own time for the counters' expiry)."""
    import time

    clock.now += seconds + 0.01
    if not isinstance(store, MemoryStore):
        time.sleep(seconds + 0.05)


def test_lock_and_remove(make_store):
    store = make_store()
    code = store.create("T")
    ana_browser, eve_browser = browser("ana"), browser("eve")
    store.join(code, "Ana", ana_browser)
    eve = store.join(code, "Eve", eve_browser)
    store.publish(code, "T", "r1", SNAP)
    store.answer(code, eve, "r1", "Outlook")
    with pytest.raises(NotAllowed):
        store.remove(code, eve, ["eve"])  # a student cannot remove anyone
    assert store.remove(code, "T", ["eve", "nobody"]) == ["Eve"]
    room = store.load(code)
    assert "eve" not in room["students"] and "eve" not in room["answers"] and "eve" not in room["scores"]
    assert roster.removed_name(room, eve) == "Eve"  # her page can say so
    with pytest.raises(NotAllowed, match="removed you"):
        store.join(code, "Eve2", eve_browser)  # not back under a new name from the same browser
    with pytest.raises(NotAllowed):
        store.answer(code, eve, "r1", "Wind")
    store.lock(code, "T", True)
    with pytest.raises(NotAllowed, match="locked"):
        store.join(code, "Ben", browser("ben"))
    with pytest.raises(NotAllowed):
        store.lock(code, "wrong", False)
    store.lock(code, "T", False)  # unlocking lets everyone in again, the removed too
    store.join(code, "Ben", browser("ben"))
    store.join(code, "Eve again", eve_browser)


def test_only_the_browser_that_started_a_class_resumes_it(make_store):
    store = make_store()
    mine, other = browser("teacher"), browser("projector-viewer")
    code = store.create("T", mine)
    ana = store.join(code, "Ana")
    room, token = store.resume(code.lower(), mine)
    assert room["code"] == code and token != "T"
    store.publish(code, token, "r1", SNAP)  # the resumed tab has the controls
    store.publish(code, "T", "r2", SNAP)  # and the first tab keeps them
    for who in (other, Client(), Client.of("203.0.113.1", None)):
        with pytest.raises(NotAllowed, match="Only the browser that started"):
            store.resume(code, who)
    with pytest.raises(NotAllowed):
        store.close(code, ana)
    assert "xsrf" not in str(store.load(code)) and token not in str(store.load(code))


@pytest.mark.parametrize("lookalike", ["\u0410lice", "\uff41\uff4c\uff49\uff43\uff45", "ALICE", "A\u200blice",
                                       "\u202eAlice", "Al\u0456ce", "A\u2060lice\u3164"])
def test_look_alike_nicknames_are_refused(make_store, lookalike):
    store = make_store()
    code = store.create("T")
    store.join(code, "Alice")
    with pytest.raises(BadNickname, match="looks just like it"):
        store.join(code, lookalike)
    store.join(code, "Alicia")
    store.join(code, "Sam")
    with pytest.raises(BadNickname):
        store.join(code, "Sarn")  # "m" and "rn": UTS #39 skeletons meet
    store.join(code, "AI")
    with pytest.raises(BadNickname):
        store.join(code, "Al")  # capital I and small l


def test_redis_restarted_empty_means_the_class_is_gone_not_unreachable():
    """Issue 25 item 9: after Redis comes back empty, the room is not found (the class is gone), which
    the pages tell apart from an unreachable server (read-only, wait)."""
    import subprocess

    from live.redis_store import RedisStore

    with redis_server() as (url, proc):
        store = RedisStore(url, timeout=0.5)
        code = store.create("T")
        store.join(code, "Ana")
        proc.terminate()
        proc.wait(timeout=10)
        with pytest.raises(StoreUnavailable):
            store.stage(code)
        port = url.rsplit(":", 1)[1].split("/")[0]
        again = subprocess.Popen([proc.args[0], "--port", port, "--bind", "127.0.0.1", "--save", "",
                                  "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            import time

            for _ in range(200):
                try:
                    store.client.ping()
                    break
                except Exception:
                    time.sleep(0.05)
            for action in (lambda: store.stage(code), lambda: store.load(code), lambda: store.join(code, "Ben")):
                with pytest.raises(RoomNotFound, match="No class has that code"):
                    action()
        finally:
            again.terminate()
            again.wait(timeout=10)


def test_two_taps_of_one_student_at_once_count_once(make_store):
    """A student's two tabs (or two replicas taking the same student's taps) answering at the same moment:
    one answer is stored, the other refused as a second answer."""
    store = make_store()
    code = store.create("T")
    ana = store.join(code, "Ana")
    store.publish(code, "T", "r1", SNAP)
    outcomes, gate = [], threading.Barrier(8)

    def tap(feature):
        gate.wait()
        try:
            store.answer(code, ana, "r1", feature)
            outcomes.append(feature)
        except AnswerRefused as err:
            outcomes.append(str(err))

    threads = [threading.Thread(target=tap, args=(f,)) for f in ["Outlook", "Humidity"] * 4]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stored = store.load(code)["answers"]
    assert list(stored) == ["ana"] and outcomes.count(stored["ana"]["feature"]) >= 1
    assert sum(o in ("Outlook", "Humidity") for o in outcomes) == 1
    assert sum("already answered" in o for o in outcomes) == 7


def test_an_answer_leaves_the_rooms_json_alone_and_a_new_question_in_between_refuses_it(redis_url, monkeypatch):
    """Redis: an answer adds one field to the room's answers and does not rewrite the room (at 300 students
    the rewrite of every answer made the replicas' attempts collide); a question published by another replica
    between the answer's check and its write makes it check again, and the answer is refused, not stored
    under the new question."""
    from live.redis_store import PREFIX, RedisStore

    store, other = RedisStore(redis_url), RedisStore(redis_url)
    store.client.flushdb()
    code = store.create("T")
    ana, ben = store.join(code, "Ana"), store.join(code, "Ben")
    store.publish(code, "T", "r1", SNAP)
    before = store.client.get(PREFIX + code)
    store.answer(code, ana, "r1", "Outlook")
    assert store.client.get(PREFIX + code) == before
    assert store.load(code)["answers"]["ana"]["feature"] == "Outlook"

    real, calls = rooms.answer, []

    def answer_then_a_new_question(room, *args):
        calls.append(1)
        real(room, *args)  # checked against the round on screen...
        if len(calls) == 1:
            other.publish(code, "T", "r2", SNAP)  # ...and another replica asks the next question meanwhile
    monkeypatch.setattr(rooms, "answer", answer_then_a_new_question)
    with pytest.raises(AnswerRefused, match="moved on"):
        store.answer(code, ben, "r1", "Outlook")
    assert len(calls) == 2 and store.load(code)["answers"] == {}
    monkeypatch.setattr(rooms, "answer", real)
    store.answer(code, ben, "r2", "Humidity")
    store.reveal(code, "T", "r2", {}, {"ben": True})
    assert store.load(code)["scores"] == {"ana": [0, 0], "ben": [1, 1]}  # her r1 answer was never revealed


def test_refusals_come_in_the_rules_order_in_every_store(make_store):
    """An answer in an ended class is refused because the class ended, whoever sends it (a stranger's token
    too), and a stranger in a running class is told to join: the same sentences from both stores."""
    store = make_store()
    code = store.create("T")
    ana = store.join(code, "Ana")
    store.publish(code, "T", "r1", SNAP)
    with pytest.raises(NotAllowed, match="not joined"):
        store.answer(code, "not-a-token", "r1", "Outlook")
    store.close(code, "T")
    for token in (ana, "not-a-token"):
        with pytest.raises(rooms.LiveError) as caught:
            store.answer(code, token, "r1", "Outlook")
        assert "not joined" not in str(caught.value) and "ended" in str(caught.value)
