"""End to end in Chromium: a teacher and two students (one on a phone-sized screen) run a live class.

Three browser contexts = three Streamlit sessions on one server. The teacher starts the class in
presenter view; the students open the join address, pick nicknames (one hostile), answer; the
teacher's count follows, Reveal shows the guesses; the students' pages follow the reveal and the next
step without a reload. Screenshots land in test-artifacts/screenshots/live_*.png.
"""

from __future__ import annotations

import re
from contextlib import contextmanager

from playwright.sync_api import expect

PHONE = {"width": 390, "height": 844}
#: what an iPhone's Safari sends: the student page plans its tree for a phone's column from it
PHONE_AGENT = ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
               "Version/18.1 Mobile/15E148 Safari/604.1")
HOSTILE = "<svg onload=alert(1)>"  # fits the 24-character limit


def _context(browser, app_url, viewport, **kw):
    ctx = browser.new_context(viewport=viewport, base_url=app_url, **kw)
    ctx.set_default_timeout(60_000)
    page = ctx.new_page()
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    return ctx, page, dialogs


def _start_class(teacher, wait_idle) -> str:
    """The teacher starts a live class in presenter view; returns the join address on its screen."""
    teacher.goto("/grow?presenter=true")
    wait_idle(teacher)
    teacher.get_by_role("button", name="Start a live class").click()
    wait_idle(teacher)
    return teacher.get_by_test_id("stCode").first.inner_text().strip()


def _join(page, address: str, nickname: str, wait_idle) -> None:
    page.goto(address)
    wait_idle(page)
    box = page.get_by_role("textbox", name="Your nickname")
    box.click()
    box.press_sequentially(nickname)
    page.get_by_role("button", name="Join").click()
    wait_idle(page)
    expect(page.get_by_text("Which feature will split node 0")).to_be_visible()


@contextmanager
def _class_of_one(browser, app_url, wait_idle, nickname: str):
    """A teacher who started a class and one student on a phone who joined it: (student, its dialogs)."""
    t_ctx, teacher, _ = _context(browser, app_url, {"width": 1600, "height": 1200})
    s_ctx, student, dialogs = _context(browser, app_url, PHONE)
    try:
        _join(student, _start_class(teacher, wait_idle), nickname, wait_idle)
        yield student, dialogs
    finally:
        t_ctx.close()
        s_ctx.close()


def _answer(page, feature: str, wait_idle) -> None:
    page.get_by_role("button", name=feature, exact=True).click()  # one tap per guess
    wait_idle(page)
    expect(page.get_by_text(re.compile(rf"Answer received: {feature}"))).to_be_visible()


def test_teacher_and_two_students(browser, app_url, wait_idle, screenshot):
    t_ctx, teacher, t_dialogs = _context(browser, app_url, {"width": 1600, "height": 1200})
    p_ctx, phone, p_dialogs = _context(browser, app_url, PHONE, is_mobile=True, has_touch=True,
                                       device_scale_factor=2, user_agent=PHONE_AGENT)
    l_ctx, laptop, l_dialogs = _context(browser, app_url, {"width": 1280, "height": 800})
    try:
        address = _start_class(teacher, wait_idle)
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/\?room=[A-Z2-9]{6}", address), address
        expect(teacher.get_by_test_id("stImage")).to_have_count(1)  # the QR code
        assert "class=" in teacher.url and "teacher=" not in teacher.url  # the code only: the projector shows it

        _join(phone, address, "Ana", wait_idle)
        _join(laptop, address, HOSTILE, wait_idle)
        expect(laptop.get_by_text(f"You: {HOSTILE} · score 0 of 0")).to_be_visible()
        expect(phone.get_by_test_id("stSidebar")).to_be_hidden()
        expect(teacher.get_by_text(re.compile(r"2 students present · Answered: 0 of 2"))).to_be_visible(timeout=10_000)
        screenshot(phone, "live_phone_question")

        # a guess reruns the page, but the unchanged tree's chart is kept as it is (not drawn again)
        phone.locator(".st-key-join_diagram .js-plotly-plot").evaluate("el => { el.dataset.before = 'answer'; }")
        _answer(phone, "Outlook", wait_idle)
        assert phone.locator(".st-key-join_diagram .js-plotly-plot[data-before='answer']").count() == 1
        _answer(laptop, "Wind", wait_idle)
        expect(teacher.get_by_text(re.compile(r"Answered: 2 of 2"))).to_be_visible(timeout=10_000)
        teacher.get_by_test_id("stSelectbox").filter(has_text="Your own guess").click()  # the teacher plays along
        teacher.get_by_role("option", name="Wind").click()
        wait_idle(teacher)
        teacher.get_by_role("button", name="Reveal").click()
        wait_idle(teacher)
        expect(teacher.get_by_text(re.compile(r"Right: 1 of 2 \(50%\)"))).to_be_visible()
        expect(teacher.locator(".st-key-live_votes .js-plotly-plot")).to_have_count(1, timeout=30_000)  # the guesses
        expect(teacher.locator(".st-key-live_votes").get_by_text("teacher")).to_be_visible()  # under Wind
        teacher.get_by_test_id("stCheckbox").filter(has_text="Show class scores").get_by_text("Show class scores").click()
        wait_idle(teacher)
        expect(teacher.get_by_text("Ana", exact=True)).to_have_count(0)  # names are in the table's canvas
        teacher.wait_for_timeout(500)
        screenshot(teacher, "live_teacher_reveal")

        # the students follow the reveal without reloading
        expect(phone.get_by_text(re.compile(r"Right: node 0 is split on Outlook"))).to_be_visible(timeout=10_000)
        expect(laptop.get_by_text(re.compile(r"Not this time: you picked Wind"))).to_be_visible(timeout=10_000)
        wait_idle(phone)
        screenshot(phone, "live_phone_reveal")
        # the phone's tree is planned for its column (the chart is at least as wide as its plan, so every box
        # holds its text) and has no mode bar over the root box; the laptop keeps the usual plan and mode bar
        for page, plan, bars in ((phone, 320, 0), (laptop, 560, 1)):
            chart = page.locator(".st-key-join_diagram .js-plotly-plot")
            planned, drawn = chart.evaluate("gd => [gd.layout.meta.plan_width, gd.getBoundingClientRect().width]")
            assert planned == plan and drawn >= planned, (planned, drawn)
            expect(page.locator(".st-key-join_diagram .modebar")).to_have_count(bars)

        # the teacher steps: a new question reaches both students
        teacher.locator(".st-key-_w_grow_step button").click()
        wait_idle(teacher)
        for page in (phone, laptop):
            expect(page.get_by_text(re.compile(r"Which feature will split node \d+"))).to_be_visible(timeout=10_000)
            expect(page.get_by_role("button", name="Humidity", exact=True)).to_be_visible()
        wait_idle(laptop)
        screenshot(laptop, "live_laptop_next_question")
        wait_idle(phone)
        screenshot(phone, "live_phone_next_question")
        for page in (teacher, phone, laptop):
            expect(page.get_by_test_id("stException")).to_have_count(0)
            assert page.locator("svg[onload]").count() == 0
        assert t_dialogs == p_dialogs == l_dialogs == []
    finally:
        for ctx in (t_ctx, p_ctx, l_ctx):
            ctx.close()


def _run_requests(page) -> list[float]:
    """When the page sent each run request (Streamlit's BackMsg rerun_script) from now on."""
    import time

    from streamlit.proto.BackMsg_pb2 import BackMsg
    sent: list[float] = []

    def frame(payload):
        if isinstance(payload, bytes):
            msg = BackMsg()
            msg.ParseFromString(payload)
            if msg.WhichOneof("type") == "rerun_script":
                sent.append(time.monotonic())

    page.on("websocket", lambda ws: ws.on("framesent", frame))
    return sent


def _follow(page) -> dict:
    """The join page's script's tally (ui.classroom.live_watchdog): polls of the stage route, presses, why."""
    return page.evaluate("() => window.__dtxFollow || {polls: 0, presses: 0, why: []}")


class _Blackout:
    """Drops what the server sends to a page over its websocket while ``on`` (a lost update), passes the rest.
    Install before the page opens its websocket."""

    def __init__(self, page) -> None:
        self.on, self.dropped = False, 0
        page.route_web_socket(re.compile(r".*/_stcore/stream"), self._route)

    def _route(self, ws) -> None:
        server = ws.connect_to_server()
        ws.on_message(lambda m: server.send(m))
        server.on_message(self._forward(ws))

    def _forward(self, ws):
        def forward(message):
            if self.on:
                self.dropped += 1
            else:
                ws.send(message)
        return forward


def test_on_a_phone_the_back_link_is_on_top_and_leads_to_the_explorer(browser, app_url, wait_idle):
    """The app's header (its toolbar spans the width) lay over the student page's back link: a tap reached
    the toolbar. The student page has no header, so the link is the element at its own centre."""
    ctx, phone, dialogs = _context(browser, app_url, PHONE, is_mobile=True, has_touch=True, user_agent=PHONE_AGENT)
    try:
        phone.goto("/join")
        wait_idle(phone)
        expect(phone.get_by_test_id("stHeader")).to_be_hidden()
        link = phone.locator('[data-testid="stPageLink-NavLink"]:visible').first
        box = link.bounding_box()
        assert box and box["y"] >= 0
        assert phone.evaluate("([x, y]) => document.elementFromPoint(x, y).closest('[data-testid=stPageLink-NavLink]')"
                              " !== null", [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2])
        link.tap()
        wait_idle(phone)
        expect(phone).to_have_url(re.compile(r"/(home)?$"))
        assert dialogs == []
    finally:
        ctx.close()


def test_an_idle_student_page_runs_nothing_and_still_follows_a_step(browser, app_url, wait_idle):
    """An idle student's page sends no run request: its script asks the stage route (plain HTTP) every
    POLL_SECONDS, and presses Refresh once when the teacher reveals (one full run, then idle again), and
    once when the teacher steps."""
    from ui.classroom.live_watchdog import POLL_SECONDS
    t_ctx, teacher, _ = _context(browser, app_url, {"width": 1600, "height": 1200})
    s_ctx, student, dialogs = _context(browser, app_url, PHONE)
    sent, asked = _run_requests(student), []
    try:
        _join(student, _start_class(teacher, wait_idle), "Eve", wait_idle)
        student.wait_for_timeout(2_000)
        student.on("request", lambda r: asked.append(r.url) if "/api/live/stage?" in r.url else None)
        before, marker, n_sent = _follow(student), student.locator(".st-key-join_drawn").text_content(), len(sent)
        assert n_sent >= 2                                                   # the page's load and the join
        student.wait_for_timeout(6_000)
        assert len(sent) == n_sent                                           # no Streamlit run while idle
        assert len(asked) >= 6 / POLL_SECONDS - 2 and _follow(student)["polls"] > before["polls"]
        assert student.locator(".st-key-join_drawn").text_content() == marker
        teacher.get_by_role("button", name="Reveal").click()
        wait_idle(teacher)
        expect(student.get_by_text("You did not answer this one.", exact=False)).to_be_visible(timeout=15_000)
        wait_idle(student)
        after = _follow(student)
        assert after["presses"] == before["presses"] + 1 and after["why"][-1] == "stage"
        assert len(sent) == n_sent + 1                                       # the one press, one full run
        student.wait_for_timeout(3_000)
        assert len(sent) == n_sent + 1 and _follow(student)["presses"] == after["presses"]  # idle again
        teacher.locator(".st-key-_w_grow_step button").click()                # and the Step: the next question
        wait_idle(teacher)
        expect(student.get_by_text(re.compile(r"Which feature will split node [1-9]"))).to_be_visible(timeout=15_000)
        wait_idle(student)
        assert _follow(student)["why"][-1] == "stage" and len(sent) == n_sent + 2
        assert dialogs == []
    finally:
        t_ctx.close()
        s_ctx.close()


def test_a_student_page_that_lost_a_steps_update_repairs_itself(browser, app_url, wait_idle):
    """Everything the server sends the page is dropped while the teacher reveals (the press the stage change
    causes, and its run, come to nothing). While its press got nothing back the page does not press again
    (a server that is behind: a press would only queue one more run), for the doubled WATCHDOG_SECONDS;
    then it presses again, and shows the reveal."""
    from ui.classroom.live_watchdog import WATCHDOG_SECONDS
    t_ctx, teacher, _ = _context(browser, app_url, {"width": 1600, "height": 1200})
    s_ctx, student, dialogs = _context(browser, app_url, PHONE)
    blackout = _Blackout(student)
    try:
        _join(student, _start_class(teacher, wait_idle), "Fay", wait_idle)
        student.wait_for_timeout(1_500)  # the page's script runs, and watches the tap's request and its answer
        _answer(student, "Outlook", wait_idle)
        blackout.on = True
        teacher.get_by_role("button", name="Reveal").click()
        wait_idle(teacher)
        student.wait_for_function("() => (window.__dtxFollow || {presses: 0}).presses > 0", timeout=10_000)
        student.wait_for_timeout(WATCHDOG_SECONDS * 1000 + 2_000)  # past the half (doubled) wait after a press
        blackout.on = False
        assert blackout.dropped > 0 and _follow(student)["presses"] == 1  # the server is behind: no second press
        expect(student.get_by_text("Which feature will split node 0")).to_be_visible()  # the old page: update lost
        expect(student.get_by_text(re.compile(r"Right: node 0 is split on Outlook"))).to_be_visible(
            timeout=(4 * WATCHDOG_SECONDS + 5) * 1000)
        assert _follow(student)["why"].count("stage") >= 2
        assert dialogs == []
    finally:
        t_ctx.close()
        s_ctx.close()


def test_a_student_page_that_lost_a_taps_run_redraws_itself(browser, app_url, wait_idle):
    """The run of a tap is done on the server (the answer is stored) but its messages never reach the page
    (dropped, until well after the run ended): the page still shows the question, and presses Refresh
    ("lost") WATCHDOG_LOST_SECONDS after its tap when it heard from the server since, or, as here, where
    nothing came back (as for a tap queued on a busy server), WATCHDOG_BUSY_SECONDS after it; then it shows
    "Answer received", counted once."""
    from ui.classroom.live_watchdog import WATCHDOG_BUSY_SECONDS
    t_ctx, teacher, _ = _context(browser, app_url, {"width": 1600, "height": 1200})
    s_ctx, student, dialogs = _context(browser, app_url, PHONE)
    blackout = _Blackout(student)
    try:
        _join(student, _start_class(teacher, wait_idle), "Gus", wait_idle)
        blackout.on = True
        student.get_by_role("button", name="Outlook", exact=True).click()
        expect(teacher.get_by_text(re.compile(r"Answered: 1 of 1"))).to_be_visible(timeout=15_000)
        student.wait_for_timeout(3_000)  # the tap's run is over (its callback stored the answer at its start)
        blackout.on = False
        assert _follow(student)["presses"] == 0
        expect(student.get_by_text(re.compile(r"Answer received: Outlook"))).to_be_visible(
            timeout=(WATCHDOG_BUSY_SECONDS + 10) * 1000)
        assert "lost" in _follow(student)["why"]
        expect(teacher.get_by_text(re.compile(r"Answered: 1 of 1"))).to_be_visible()
        assert dialogs == []
    finally:
        t_ctx.close()
        s_ctx.close()


def _step_triggers_sent(page) -> list[bool]:
    """For each run request the page sends: whether it carries the Grow toolbar's Step trigger."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    sent: list[bool] = []

    def frame(payload):
        if isinstance(payload, str):
            return
        msg = BackMsg()
        msg.ParseFromString(payload)
        if msg.WhichOneof("type") == "rerun_script":
            sent.append(any(w.id.endswith("_w_grow_step") and w.WhichOneof("value") == "trigger_value"
                            and w.trigger_value for w in msg.rerun_script.widget_states.widgets))

    page.on("websocket", lambda ws: ws.on("framesent", frame))
    return sent


#: records the page's interval timers, so a test can fire the teacher panel's poll at a chosen moment
RECORD_INTERVALS = """(() => {
    const set = window.setInterval, clear = window.clearInterval;
    window.__polls = new Map();
    window.setInterval = function (fn, ms, ...rest) {
        const id = set.call(this, fn, ms, ...rest);
        if (String(fn).includes('sendUpdateWidgetsMessage')) window.__polls.set(id, fn);
        return id;
    };
    window.clearInterval = function (id) { window.__polls.delete(id); return clear.call(this, id); };
})();"""


def test_one_step_press_steps_once_when_the_panel_poll_carries_it_too(browser, app_url, wait_idle):
    """Streamlit's browser sends a button's trigger on a zero-delay timer, and every run request carries
    all widget states: the teacher panel's once-a-second poll (a fragment's run_every interval) that fires
    in between sends the Step trigger too, and the server ran the Step callback for both (run A of issue
    17: one press, two steps). Made certain here: Step is clicked and the poll's timer function called in
    the same task, as when the poll's timer comes due between the click and the trigger's own send."""
    t_ctx, teacher, _ = _context(browser, app_url, {"width": 1600, "height": 1200})
    teacher.add_init_script(RECORD_INTERVALS)
    sent = _step_triggers_sent(teacher)
    try:
        _start_class(teacher, wait_idle)
        status = teacher.get_by_text(re.compile(r"^Step \d+ ·"))
        for n in (1, 2, 3):
            before = len(sent)
            assert teacher.evaluate("""() => {
                const polls = [...window.__polls.values()];
                document.querySelector('.st-key-_w_grow_step button').click();
                polls.forEach(poll => poll());
                return polls.length;
            }""") == 1
            teacher.wait_for_timeout(2500)  # a second run of the callback would have landed by now
            wait_idle(teacher)
            # the press went out at least twice (the poll carried it; on a slow server a later poll may carry
            # it again before the run clears it) and the tree stepped exactly once
            assert sum(sent[before:]) >= 2, sent[before:]
            expect(status).to_have_text(re.compile(rf"^Step {n} ·"))
    finally:
        t_ctx.close()


def test_the_teacher_reloads_and_keeps_the_class_which_the_address_gives_nobody_else(browser, app_url, wait_idle,
                                                                                   screenshot):
    """Issue 25 item 6 (takeover): the address carries the class code, not the teacher's token. A reload
    of the teacher's tab resumes the class (the browser that started it is known by its cookie); the
    same address in another browser (someone who read it off the projector) gets no Reveal and no End
    class. The teacher then removes a student, whose page says so without a reload."""
    t_ctx, teacher, _ = _context(browser, app_url, {"width": 1600, "height": 1200})
    o_ctx, other, _ = _context(browser, app_url, {"width": 1280, "height": 900})
    s_ctx, student, dialogs = _context(browser, app_url, PHONE)
    try:
        address = _start_class(teacher, wait_idle)
        code = address.rsplit("=", 1)[1]
        assert re.search(rf"[?&]class={code}(&|$)", teacher.url) and "teacher=" not in teacher.url
        _join(student, address, "Bo", wait_idle)
        teacher.reload()
        wait_idle(teacher)
        expect(teacher.get_by_text(re.compile(r"1 student present"))).to_be_visible(timeout=15_000)
        expect(teacher.get_by_role("button", name="End class")).to_be_visible()
        assert teacher.get_by_test_id("stCode").first.inner_text().strip() == address
        other.goto(teacher.url.replace(app_url, ""))
        wait_idle(other)
        expect(other.get_by_text(re.compile("Only the browser that started this class"))).to_be_visible()
        expect(other.get_by_role("button", name="End class")).to_have_count(0)
        expect(other.get_by_role("button", name="Reveal")).to_have_count(0)
        assert "class=" not in other.url
        wait_idle(other)
        screenshot(other, "live_other_browser_no_control")

        scores = teacher.get_by_test_id("stCheckbox").filter(has_text="Show class scores")
        for _ in range(3):  # a click that lands while the page redraws can be lost: look, then click again
            if scores.locator("input").is_checked():
                break
            scores.get_by_text("Show class scores").click()
            wait_idle(teacher)
            teacher.wait_for_timeout(1000)
        picker = teacher.get_by_test_id("stMultiSelect").filter(has_text="Remove students")
        expect(picker).to_be_visible(timeout=30_000)
        picker.click()
        teacher.get_by_role("option", name="Bo").click()
        teacher.keyboard.press("Escape")
        wait_idle(teacher)
        teacher.get_by_role("button", name="Remove", exact=True).click()
        wait_idle(teacher)
        expect(teacher.get_by_text("Removed: Bo")).to_be_visible()
        expect(student.get_by_text(re.compile("The teacher removed you from this class"))).to_be_visible(timeout=15_000)
        screenshot(teacher, "live_teacher_removed")
        assert dialogs == []
    finally:
        for ctx in (t_ctx, o_ctx, s_ctx):
            ctx.close()


def test_a_student_page_says_the_class_is_gone_when_redis_comes_back_empty(browser, wait_idle, screenshot):
    """Issue 25 item 9: start a class on a server using Redis, a student joins, Redis dies (the page goes
    read-only and says the server cannot be reached), Redis comes back EMPTY on the same port: the
    student's page, without a reload, says that the class is gone and offers the code form."""
    import subprocess

    from tests.browser.conftest import streamlit_server
    from tests.redis_server import redis_server

    with redis_server() as (redis_url, proc), streamlit_server({"DTX_REDIS_URL": redis_url}) as url:
        t_ctx, teacher, _ = _context(browser, url, {"width": 1600, "height": 1200})
        s_ctx, student, dialogs = _context(browser, url, PHONE)
        again = None
        try:
            _join(student, _start_class(teacher, wait_idle), "Ana", wait_idle)
            proc.terminate()
            proc.wait(timeout=10)
            expect(student.get_by_text(re.compile("cannot be reached"))).to_be_visible(timeout=30_000)
            port = redis_url.rsplit(":", 1)[1].split("/")[0]
            again = subprocess.Popen([proc.args[0], "--port", port, "--bind", "127.0.0.1", "--save", "",
                                      "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            expect(student.get_by_text(re.compile("The class you were in is gone"))).to_be_visible(timeout=30_000)
            expect(student.get_by_role("textbox", name="Class code")).to_be_visible()
            expect(teacher.get_by_text(re.compile("No class has that code"))).to_be_visible(timeout=30_000)
            wait_idle(student)
            screenshot(student, "live_phone_class_gone")
            assert dialogs == []
        finally:
            t_ctx.close()
            s_ctx.close()
            if again is not None:
                again.terminate()
                again.wait(timeout=10)
