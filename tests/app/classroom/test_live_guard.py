"""AppTest of issue 25's live-class guards, through the pages: floods, lock and remove, wrong codes,
look-alike nicknames, the idle expiry said in the panel. Each page runs as a client of its own (a
browser id and an address in its session state: AppTest sends no cookies), as in test_live_class."""

from __future__ import annotations

from live import limits, rooms
import live.backend as live_store
from tests.app.classroom.test_live_class import (  # noqa: F401 - fresh_store is the autouse fixture
    fresh_store, ok, params_of, start_class, student, teacher, texts)
from ui.classroom import live_roster


def test_one_browser_starting_classes_in_new_tabs_is_stopped_at_three():
    started = []
    for tab in range(limits.STARTS_PER_BROWSER + 2):
        t = teacher(browser="one browser", address="203.0.113.7")
        t.button(key="_w_live_start").click().run()
        ok(t)
        if "_live_teacher" in t.session_state:
            started.append(t.session_state["_live_teacher"]["code"])
        else:
            assert any("has started 3 live classes in the last 60 minutes" in e for e in texts(t, "error")), tab
    assert len(started) == limits.STARTS_PER_BROWSER == 3 and live_store._STORE.count() == 3
    other = teacher(browser="a colleague", address="203.0.113.7")  # the same school network
    other.button(key="_w_live_start").click().run()
    assert "_live_teacher" in ok(other).session_state


def test_one_browser_joining_fake_students_is_stopped_at_two():
    _, code = start_class()
    pages = [student(code, f"fake{i}", browser="flooder") for i in range(5)]
    assert len(live_store._STORE.load(code)["students"]) == limits.NICKNAMES_PER_BROWSER == 2
    assert any("already joined the class with 2 nicknames" in e for e in texts(pages[-1], "error"))


def test_remove_and_lock_from_the_teachers_score_table():
    t, code = start_class()
    ana = student(code, "Ana")
    eve = student(code, "Eve", browser="eve's phone")
    t.run()
    t.toggle(key=live_roster.W_SCORES).set_value(True).run()
    t.multiselect(key=live_roster.W_REMOVE).set_value(["eve"]).run()
    t.button(key="_w_live_remove_go").click().run()
    ok(t)
    assert list(t.dataframe[-1].value["nickname"]) == ["Ana"]
    assert any("Removed: Eve" in s for s in texts(t, "success"))
    assert any("1 removed student cannot join again" in c for c in texts(t, "caption"))
    ok(eve.run())
    assert any("removed you from this class" in w for w in texts(eve, "warning")) and not eve.text_input
    again = student(code, "Eve2", browser="eve's phone")  # a new tab, a new name, the same browser
    assert any("removed you from this class" in e for e in texts(again, "error"))
    assert "eve2" not in live_store._STORE.load(code)["students"]
    t.toggle(key=f"{live_roster.W_LOCK}_0").set_value(True).run()
    assert live_store._STORE.load(code)["locked"] is True
    ben = student(code, "Ben")
    assert any("locked this class" in e for e in texts(ben, "error"))
    ok(ana.run())
    assert "You: Ana · score 0 of 0" in texts(ana, "text")  # those inside stay
    t.run()
    t.toggle(key=f"{live_roster.W_LOCK}_1").set_value(False).run()  # unlock: everyone may join, Eve too
    ok(t)
    assert "You: Eve2 · score 0 of 0" in texts(student(code, "Eve2", browser="eve's phone"), "text")
    assert "You: Ben · score 0 of 0" in texts(student(code, "Ben"), "text")


def test_wrong_codes_slow_the_next_try_on_the_join_page():
    _, code = start_class()
    wrong = "ABCDEF" if code != "ABCDEF" else "ABCDEG"
    for _ in range(limits.FREE_WRONG_CODES["browser"] + 1):
        s = student(wrong, browser="guesser")
        assert any("No class has that code" in e for e in texts(s, "error"))
    s = student(code, browser="guesser")  # the right code, too soon after the wrong ones
    assert any("Too many wrong class codes from here: wait 1 s" in e for e in texts(s, "error"))
    assert s.text_input(key="_w_join_code") and not [t for t in s.text_input if t.key == "_w_join_nick"]
    live_store._STORE.clock.now += 2  # the wait runs out (the in-process store's clock)
    assert s.run().text_input(key="_w_join_nick")
    assert student(code, browser="a classmate").text_input(key="_w_join_nick")  # other browsers never waited


def test_look_alike_nicknames_are_refused_and_hidden_characters_never_shown():
    t, code = start_class()
    student(code, "Alice")
    for lookalike in ("\u0410lice", "\uff41\uff4c\uff49\uff43\uff45", "ALICE"):
        s = student(code, lookalike)
        assert any("looks just like it" in e for e in texts(s, "error")), lookalike
    sneaky = student(code, "\u202eB\u200bo\u2066b\u3164")  # bidi override, zero-width space, isolate, filler
    assert "You: Bob · score 0 of 0" in texts(sneaky, "text")
    t.toggle(key=live_roster.W_SCORES).set_value(True).run()
    assert sorted(t.dataframe[-1].value["nickname"]) == ["Alice", "Bob"]
    assert sorted(t.multiselect(key=live_roster.W_REMOVE).options) == ["Alice", "Bob"]


def test_the_panel_says_when_a_forgotten_class_ends():
    t, code = start_class()
    minutes = rooms.IDLE_SECONDS // 60
    assert 45 <= minutes <= 90
    assert any(f"Ends by itself {minutes:d} min after this page was last open "
               f"({rooms.EMPTY_IDLE_SECONDS // 60:d} min while no student has joined)" in c
               for c in texts(t, "caption"))
    assert params_of(t)["class"] == code


def test_wrong_codes_typed_on_a_shared_address_do_not_stop_a_class_in_progress():
    """A school behind one address: other pages' typos make new tries wait, never the pages that follow
    the class already."""
    _, code = start_class()
    wrong = "ABCDEF" if code != "ABCDEF" else "ABCDEG"
    ana = student(code, "Ana", address="198.51.100.20")
    for i in range(limits.FREE_WRONG_CODES["address"] + 2):
        student(wrong, browser=f"typo {i}", address="198.51.100.20")
    late = student(code, browser="late", address="198.51.100.20")
    assert any("Too many wrong class codes" in e for e in texts(late, "error"))
    ok(ana.run())
    assert "You: Ana · score 0 of 0" in texts(ana, "text") and not ana.error


def test_an_address_holding_its_share_is_told_when_it_can_start_again():
    """Finding 9 through the page: an address holds at most a tenth of the server's classes; its next teacher
    reads why and when (the first of its classes ends by itself 10 min after its page was last open, while
    nobody has joined), and a teacher elsewhere still starts one."""
    share = limits.rooms_per_address(rooms.MAX_ROOMS)
    for i in range(share):
        t = teacher(browser=f"teacher {i}", address="203.0.113.70")
        t.button(key="_w_live_start").click().run()
        assert "_live_teacher" in ok(t).session_state
    late = teacher(browser="one more", address="203.0.113.70")
    late.button(key="_w_live_start").click().run()
    assert "_live_teacher" not in ok(late).session_state
    assert any(f"already runs {share:d} live classes, its share of this server's {rooms.MAX_ROOMS:d}" in e
               and "start in about 10 min" in e for e in texts(late, "error")), texts(late, "error")
    elsewhere = teacher(browser="another school", address="198.51.100.70")
    elsewhere.button(key="_w_live_start").click().run()
    assert "_live_teacher" in ok(elsewhere).session_state
