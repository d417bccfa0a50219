"""Load test of a live class: one teacher and N student browsers run the Play Tennis lesson together.

Run through ``benchmarks/load_test.py``:

    python benchmarks/load_test.py --class-students 40                 # one server process
    python benchmarks/load_test.py --class-students 40 --replicas 2    # two replicas sharing a Redis
    python benchmarks/load_test.py --class-students 5 --clients 145 --replicas 3 --proxy  # a lecture hall

``--clients N`` adds N simulated students that speak Streamlit's websocket protocol (benchmarks/hall.py:
joining, answering, the faults ``--drop``, ``--teacher-reload``, ``--redis-restart``, the idle CPU per
student; ``--proxy`` puts deploy/nginx.conf in front of the replicas). The list below is the Chromium part.

1. Starts the app (with ``--replicas 2``: a ``redis-server`` on a free port and two app processes with
   ``DTX_REDIS_URL``; the teacher uses replica 0 and student i replica i % 2, so every answer crosses
   processes through Redis).
2. The teacher opens the Grow page in presenter view and presses **Start a live class**; the students
   open the join address (four at a time), pick nicknames and wait for the question. The teacher has a
   Chromium of its own; the 40 students share another (one context, so one renderer process, each),
   started under Linux's SCHED_IDLE policy (``chrt --idle 0``; ``--students-nice N`` instead runs it at
   ``nice -n N``, and 0 at the same priority as the server): in a class the teacher's screen, the server
   and each phone are separate machines, and here 41 tabs share the server's 2 cores. The students' tabs
   must not starve the server and the teacher's screen; what the students wait for is then bounded by
   their own share of the CPU, as on real phones. Nice 10 is not enough for that: the kernel weighs each
   thread, and 40 tabs' threads at nice 10 (weight 110 each) outweigh the server's busy thread (1024), so
   in a step every tab's request waited on a server that got a fraction of a core.
3. For each of the teacher's steps: when there is a question, every student answers after a random
   think time of 0-``--think`` seconds (a random feature); the teacher's page is polled every 50 ms
   and the latency of the j-th answer is the time from the j-th click until the teacher's count
   showed j answers. The teacher then presses Reveal (time until every student shows the verdict) and
   Step (time until every student shows the new step). At the end the teacher presses **End class**:
   every student must show that the class ended, with their score (time until all do).
4. Errors: exception boxes, error alerts, JavaScript errors and browser dialogs on any page, and
   students who never saw what they waited for. Must be 0.
5. Server CPU seconds and resident memory (all app processes and Redis), before, peak and after; and,
   to see where the time goes, the CPU seconds of this run's Chromium (its renderers, one per tab, and
   the rest) and the time from a student's click to their own "Answer received".
6. Diagnostics: each student's websocket is decoded (Streamlit's protobuf messages): the run requests the
   page sent (with the triggers they carry) and the runs it got are kept, and written next to the
   screenshot of a student who got stuck (test-artifacts/load-class-stuck-NN.<step>.<try>.log). Full runs
   whose end a page never got (Streamlit dropped their messages) are counted. With ``DTX_LIVE_DEBUG=1``
   the server logs every answer and every run of the join page (test-artifacts/load-test-server-*.log):
   together they say whether a lost tap reached the server.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack, contextmanager

import numpy as np

from hall import AWAY, REFUSED, Hall, RedisServer, nginx_proxy, report_lines as hall_report
from load_test import (ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, ERROR_SELECTOR, IDLE_JS, Errors, cpu_seconds, free_port,
                       new_page, rss_mb, streamlit_server)

COUNT_RE = re.compile(r"Answered: (\d+) of (\d+)")
# 41 tabs in one headless Chromium: without these, tabs not in front get their timers throttled (down to
# one wake-up a minute after 5 minutes), and a student's once-a-second poll with them.
NO_THROTTLING = ["--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                 "--disable-backgrounding-occluded-windows", "--disable-features=IntensiveWakeUpThrottling"]
PHONE = {"width": 390, "height": 844}


@contextmanager
def redis_process():
    binary = shutil.which("redis-server")
    if binary is None:
        raise RuntimeError("redis-server is not installed (apt-get install redis-server)")
    port = free_port()
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
                             "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        yield f"redis://127.0.0.1:{port}/0", proc.pid
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def chromium_cpu() -> dict[str, float]:
    """CPU seconds so far of the Chromium processes this run started (renderers and the rest)."""
    try:
        import psutil
    except ImportError:
        return {"renderers": 0.0, "other": 0.0}
    out = {"renderers": 0.0, "other": 0.0}
    for proc in psutil.Process(os.getpid()).children(recursive=True):
        try:
            if "chrom" not in proc.name().lower():
                continue
            t = proc.cpu_times()
            kind = "renderers" if "--type=renderer" in proc.cmdline() else "other"
            out[kind] += t.user + t.system
        except psutil.Error:
            continue
    return out


def niced_chromium(nice: int | None) -> str:
    """The path of a Chromium that runs at ``nice``, or under SCHED_IDLE when ``nice`` is None (a two-line
    wrapper in test-artifacts/); Chromium itself for nice 0."""
    if nice is not None and nice <= 0:
        return CHROMIUM
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    wrapper = ARTIFACTS / ("chromium-idle.sh" if nice is None else f"chromium-nice{nice:d}.sh")
    run = "chrt --idle 0" if nice is None else f"nice -n {nice:d}"
    wrapper.write_text(f'#!/bin/sh\nexec {run} "{CHROMIUM}" "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


def pct(values, q):
    return float(np.percentile(values, q)) if values else None


async def idle(page, timeout_ms, step: int | None = None):
    """Until the page is not running (and, with ``step``, shows that step's status line)."""
    await page.wait_for_timeout(100)
    await page.wait_for_function(IDLE_JS, arg=step, timeout=timeout_ms, polling=100)


async def check(page, who, errors, where):
    n = await page.locator(ERROR_SELECTOR).count()
    if n:
        texts = await page.locator(ERROR_SELECTOR).all_inner_texts()
        errors.add(who, f"{n} error element(s) {where}: {' | '.join(t[:120] for t in texts)}")


TRACE_LINES = 3000


def dump_servers(pids: list[int]) -> None:
    """Once per run, when a student is first found stuck: every thread's stack of each server process
    (``py-spy dump``, if installed) in test-artifacts/load-class-server-<pid>.txt."""
    if getattr(dump_servers, "done", False) or not shutil.which("py-spy"):
        return
    dump_servers.done = True
    for pid in pids:
        out = subprocess.run(["py-spy", "dump", "--pid", str(pid)], capture_output=True, text=True, timeout=60)
        (ARTIFACTS / f"load-class-server-{pid:d}.txt").write_text(out.stdout + out.stderr)


async def script_state(page) -> str | None:
    return await page.evaluate("document.querySelector(\"[data-testid='stApp']\")"
                               "?.getAttribute('data-test-script-state')")


def trace_websocket(ws, keep, tally) -> None:
    """Keep a line per run request the page sends (its fragment, whether a timer sent it, the triggers it
    carries) and per run the server starts or finishes, decoded from Streamlit's protobuf messages: when a
    tap gets no answer, the trace says whether the browser sent it and what the server ran.

    ``tally("missed")`` is called when a full run started and the next thing the page got was a fragment's
    run, without the full run's end: Streamlit dropped the rest of its messages (the page's watchdog then
    redraws it); ``tally("refresh")`` when the page sent a press of its Refresh (mostly the watchdog's)."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    full = []  # the full run in progress, if any

    def decode(cls, payload):
        msg = cls()
        msg.ParseFromString(payload)
        return msg, msg.WhichOneof("type")

    def sent(payload):
        if isinstance(payload, str):
            return
        msg, kind = decode(BackMsg, payload)
        if kind == "rerun_script":
            cs = msg.rerun_script
            triggers = [w.id.rsplit("-", 1)[-1] for w in cs.widget_states.widgets
                        if w.WhichOneof("value") == "trigger_value" and w.trigger_value]
            keep(f"sent rerun fragment={cs.fragment_id[-6:] or '-'} auto={cs.is_auto_rerun:d} triggers={triggers}")
            if any(t.endswith("_w_join_wake") for t in triggers):
                tally("refresh")
        elif kind != "app_heartbeat":
            keep(f"sent {kind}")

    def received(payload):
        if isinstance(payload, str):
            return
        msg, kind = decode(ForwardMsg, payload)
        run = msg.metadata.run
        tag = f"run {run.script_run_id[-6:]} fragments={[f[-6:] for f in run.fragment_ids]}"
        if kind == "new_session":
            keep(f"recv new_session {tag}")
            if full and run.fragment_ids:
                keep(f"MISSED the end of full run {full[0][-6:]}")
                tally("missed")
            full[:] = [] if run.fragment_ids else [run.script_run_id]
        elif kind == "script_finished":
            if full and full[0] == run.script_run_id:
                full.clear()
            keep(f"recv script_finished {ForwardMsg.ScriptFinishedStatus.Name(msg.script_finished)} {tag}")
        elif kind == "session_status_changed":
            keep(f"recv running={msg.session_status_changed.script_is_running:d}")
        elif kind == "delta" and b"Answer received" in payload:
            keep(f"recv 'Answer received' {tag}")

    keep(f"websocket opened {ws.url[-40:]}")
    ws.on("framesent", sent)
    ws.on("framereceived", received)
    ws.on("close", lambda _ws: keep("websocket closed"))


async def teacher_count(page) -> int | None:
    text = await page.locator(".st-key-live_panel").inner_text()
    m = COUNT_RE.search(text)
    return int(m.group(1)) if m else None


async def run_class(urls: list[str], pids: list[int], args) -> dict:
    from playwright.async_api import async_playwright

    timeout_ms = args.timeout * 1000
    errors, rng = Errors(), random.Random(0)
    chromium_retaps = [0]  # Chromium students' taps again after the read-only warning (the class server away)
    answered: dict[int, int] = {}  # taps that showed "Answer received", per Chromium student page
    answer_lat, received_lat, reveal_lat, step_lat, end_lat = [], [], [], [], []
    rss_before = sum(rss_mb(p) for p in pids)
    cpu_before = sum(cpu_seconds(p) for p in pids)
    peak = rss_before
    done = asyncio.Event()
    notes, phases = [], []
    # per kind, a page per event: "missed" a full run whose end it never got, "refresh" a press of Refresh
    tallies: dict[str, list] = {"missed": [], "refresh": []}
    logs: dict = {}  # each student page's trace (trace_websocket), by id(page)
    requests_seen: list = []  # (seconds since start, page, resource type, url) of the students' HTTP requests

    def cpu_now():
        return chromium_cpu(), sum(cpu_seconds(p) for p in pids)

    def phase_cpu(name, t0, before):
        (b, server_before), (a, server_after) = before, cpu_now()
        return (f"{name}: {time.perf_counter() - t0:.1f} s until every student showed it; CPU meanwhile: "
                f"tabs' renderers {a['renderers'] - b['renderers']:.1f} s, rest of Chromium "
                f"{a['other'] - b['other']:.1f} s, server {server_after - server_before:.1f} s")

    async def watch_memory():
        nonlocal peak
        while not done.is_set():
            peak = max(peak, sum(rss_mb(p) for p in pids))
            await asyncio.sleep(0.5)

    async with async_playwright() as p:
        t_browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                            args=CHROMIUM_ARGS + NO_THROTTLING)
        browser = await p.chromium.launch(executable_path=niced_chromium(args.students_nice), headless=True,
                                          args=CHROMIUM_ARGS + NO_THROTTLING)
        watcher = asyncio.create_task(watch_memory())
        browser_before = chromium_cpu()
        hall = Hall(args, errors, server_cpu=lambda: sum(cpu_seconds(p) for p in pids),
                    server_rss=lambda: sum(rss_mb(p) for p in pids))
        contexts = []
        t_start = time.perf_counter()
        where, students = "start", []
        try:
            t_ctx, teacher = await new_page(t_browser, urls[0], "teacher", errors, {"width": 1600, "height": 1100},
                                            timeout_ms)
            contexts.append(t_ctx)
            await teacher.goto("/grow?presenter=true")
            await idle(teacher, timeout_ms)
            await teacher.get_by_role("button", name="Start a live class").click()
            await idle(teacher, timeout_ms)
            code = (await teacher.get_by_test_id("stCode").first.inner_text()).strip().rsplit("=", 1)[1]
            await hall.measure_idle("teacher alone", 0)


            def watch_page(page):
                """Keep a student's last console lines and websocket messages (written out if they get stuck)."""
                lines = logs.setdefault(id(page), [])

                def keep(text):
                    lines.append(f"{time.perf_counter() - t_start:7.1f} s {text}")
                    del lines[:-TRACE_LINES]

                page.on("console", lambda m: keep(f"console {m.type}: {m.text[:300]}"))
                page.on("websocket", lambda ws: trace_websocket(ws, keep, lambda kind: tallies[kind].append(page)))
                # every HTTP request a student page makes (what a phase's traffic is: written to load-class-requests.tsv)
                page.on("request", lambda r: requests_seen.append(
                    (time.perf_counter() - t_start, id(page), r.resource_type, r.url.split("?")[0][-90:])))

            async def keep_stuck(page, kind, log_suffix):
                """A stuck student's evidence: the servers' stacks (once), a screenshot
                (load-class-<kind>-NN.png), the page's trace beside it; returns (who, screenshot, page text)."""
                i = students.index(page)
                dump_servers(pids)
                shot = ARTIFACTS / f"load-class-{kind}-{i:02d}.png"
                await page.screenshot(path=str(shot))
                shot.with_suffix(log_suffix).write_text("\n".join(logs.get(id(page), [])) + "\n")
                text = " ".join((await page.locator("[data-testid='stMain']").inner_text()).split())
                return f"student {i:02d}", shot, text

            async def waits_for(page, locator, what, latencies, t0):
                """Until ``locator`` shows on a student's page (latency kept); else an error with a screenshot."""
                try:
                    await locator.wait_for(timeout=timeout_ms)
                    latencies.append(time.perf_counter() - t0)
                except Exception:  # noqa: BLE001 - one stuck student is an error, the class goes on
                    who, shot, text = await keep_stuck(page, "missed", ".log")
                    errors.add(who, f"{what} did not show in {args.timeout:.0f} s (script {await script_state(page)}; "
                                    f"{shot.name}): {text[:200]}")

            async def check_all(where):
                for i, pg in enumerate([teacher, *students]):
                    await check(pg, "teacher" if i == 0 else f"student {i - 1:02d}", errors, where)

            where = "joining"
            gate = asyncio.Semaphore(4)  # students arrive a few at a time, as in a lecture hall

            async def join(i):
                async with gate:
                    await join_now(i)

            async def join_now(i):
                ctx, page = await new_page(browser, urls[i % len(urls)], f"student {i:02d}", errors,
                                           PHONE if i % 2 else {"width": 1280, "height": 800}, timeout_ms)
                contexts.append(ctx)
                watch_page(page)
                try:
                    await page.goto(f"/?room={code}")  # the students' link (app.py serves the join page at the root)
                    await idle(page, timeout_ms)
                    box = page.get_by_role("textbox", name="Your nickname")
                    await box.click()
                    await box.press_sequentially(f"s{i:02d}")
                    await page.get_by_role("button", name="Join").click()
                    await page.get_by_text("You: ").wait_for(timeout=timeout_ms)
                except Exception:
                    ARTIFACTS.mkdir(parents=True, exist_ok=True)  # what the student saw (load-class-join-NN.png)
                    await page.screenshot(path=str(ARTIFACTS / f"load-class-join-{i:02d}.png"))
                    raise
                students.append(page)

            await asyncio.gather(*(join(i) for i in range(args.class_students)))
            await hall.join_all(code, urls)
            joined = time.perf_counter() - t_start
            await hall.measure_idle("with every student", len(students) + len(hall.sims))
            for step in range(1, args.class_steps + 1):
                where = f"step {step}: question"
                panel_box = teacher.locator(".st-key-live_panel")
                await panel_box.get_by_text(re.compile(r"Question: which feature|only closes leaves|tree is finished")
                                            ).first.wait_for(timeout=timeout_ms)
                panel = await panel_box.inner_text()
                if "Question: which feature" not in panel:
                    notes.append(f"step {step}: no question on the teacher's panel: "
                                 + " ".join(panel.split())[-160:])
                if "Question: which feature" in panel:
                    await asyncio.gather(*(s.get_by_text("Which feature will split node").wait_for(timeout=timeout_ms)
                                           for s in students), hall.all_see(r"Which feature will split node", None, None))
                    clicks, seen = [], []
                    stop = asyncio.Event()

                    async def poll():
                        while not stop.is_set():
                            n = await teacher_count(teacher)
                            if n is not None and (not seen or n > seen[-1][1]):
                                seen.append((time.perf_counter(), n))
                            await asyncio.sleep(0.05)

                    async def answer(page):
                        """Tap a random feature and wait for "Answer received". While the class server is away
                        (a Redis restart) the tap gets the read-only warning and the question goes: the student
                        taps again when the page shows it again (the page's script redraws it); when the server
                        is back by the tap's own run, the page says "tap again" over the question. A person
                        taps again then, and as the simulated students do (hall.until_received). An error only when 45 s
                        pass without "Answer received"; then one more try."""
                        await asyncio.sleep(rng.uniform(0, args.think))
                        buttons = page.locator("[class*='st-key-_w_join_send_'] button")
                        got, away = page.get_by_text("Answer received"), page.get_by_text(re.compile(AWAY))
                        refused = page.get_by_text(re.compile(REFUSED))
                        drawn = page.locator(".st-key-join_drawn")
                        tapped = []  # the click in ``clicks`` that waits for its answer
                        for attempt in (1, 2):
                            end = time.perf_counter() + min(timeout_ms, 45_000) / 1000
                            left = lambda: max(1.0, (end - time.perf_counter()) * 1000)  # noqa: E731
                            try:
                                while True:
                                    await buttons.first.wait_for(timeout=left())
                                    t = page.locator("[data-testid='stNumberInput'] input")
                                    if await t.count():
                                        await t.fill("50")
                                    tapped.append(time.perf_counter())
                                    clicks.append(tapped[0])
                                    pick = buttons.nth(rng.randrange(await buttons.count()))
                                    logs[id(page)].append(f"{tapped[0] - t_start:7.1f} s TAP {await pick.inner_text()!r} "
                                                          f"(script {await script_state(page)})")
                                    before = (await drawn.text_content() or "").strip()
                                    await pick.click()
                                    # the tap's own run first (its marker is new): a "tap again" from before
                                    # the tap is still on the page until then
                                    await page.wait_for_function(
                                        "([s, b]) => { const e = document.querySelector(s);"
                                        " return !!e && e.textContent.trim() !== b; }",
                                        arg=[".st-key-join_drawn", before], timeout=left())
                                    await got.or_(away).or_(refused).first.wait_for(timeout=left())
                                    t_click = tapped.pop()
                                    if await got.count():
                                        received_lat.append(time.perf_counter() - t_click)
                                        answered[id(page)] = answered.get(id(page), 0) + 1
                                        return
                                    clicks.remove(t_click)  # refused while the server was away: not a tap that counts
                                    chromium_retaps[0] += 1
                                    while await away.count() and time.perf_counter() < end:
                                        await asyncio.sleep(0.2)
                                    if time.perf_counter() >= end:
                                        raise TimeoutError("the class server stayed away")
                            except Exception:  # noqa: BLE001 - recorded, then one more try as a student would
                                while tapped:
                                    clicks.remove(tapped.pop())
                                who, shot, text = await keep_stuck(page, "stuck", f".{step:d}.{attempt:d}.log")
                                errors.add(who, f"step {step}: no 'Answer received' 45 s after a guess "
                                                f"(try {attempt}; {shot.name}): {text[:160]}")

                    poller = asyncio.create_task(poll())
                    everyone = len(students) + len(hall.sims)
                    reload = asyncio.create_task(hall.teacher_reload(teacher, step, timeout_ms))
                    await asyncio.gather(*(answer(s) for s in students),
                                         hall.answer_all(step, rng, clicks, received_lat))
                    deadline = time.perf_counter() + args.timeout
                    while (not seen or seen[-1][1] < everyone) and time.perf_counter() < deadline:
                        await asyncio.sleep(0.05)
                    await reload
                    stop.set()
                    await poller
                    if not seen or seen[-1][1] != everyone:
                        errors.add("teacher", f"step {step}: the count reached {seen[-1][1] if seen else 0} "
                                              f"of {everyone}")
                    for j, t_click in enumerate(sorted(clicks), start=1):
                        shown = next((t for t, n in seen if n >= j), None)
                        if shown is not None:
                            answer_lat.append(max(0.0, shown - t_click))
                    where = f"step {step}: reveal"
                    t0, cpu0 = time.perf_counter(), cpu_now()
                    await teacher.get_by_role("button", name="Reveal").click()

                    async def sees_reveal(page):
                        await waits_for(page, page.locator("[data-testid='stAlert']").filter(
                            has_text=re.compile(r"Right|Not this time|feature is right|could not")).first,
                            f"step {step}: the reveal", reveal_lat, t0)

                    await asyncio.gather(*(sees_reveal(s) for s in students),
                                         hall.all_see(hall.VERDICT, reveal_lat, t0, f"step {step}: the reveal"))
                    phases.append(phase_cpu(f"step {step}: Reveal", t0, cpu0))
                    await idle(teacher, timeout_ms)
                if await teacher.locator(".st-key-_w_grow_step button").is_disabled():
                    break
                where = f"step {step}: step"
                t0, cpu0 = time.perf_counter(), cpu_now()
                notes.append(f"step {step}: Step pressed at {t0 - t_start:.1f} s")
                await teacher.locator(".st-key-_w_grow_step button").click()

                async def sees_step(page):
                    await waits_for(page, page.get_by_text(re.compile(rf"^Step {step} ·")), f"step {step}: the step",
                                    step_lat, t0)

                await asyncio.gather(*(sees_step(s) for s in students),
                                     hall.all_see(rf"^Step {step} ·", step_lat, t0, f"step {step}: the step"))
                phases.append(phase_cpu(f"step {step}: Step", t0, cpu0))
                await idle(teacher, timeout_ms, step)  # the teacher's whole page shows the step (its next question)
                await check_all(f"after step {step}")
            # the end of the lesson: every student sees that the class ended, with their score
            where = "end of class"
            t0, cpu0 = time.perf_counter(), cpu_now()
            await teacher.get_by_role("button", name="End class").click()
            await asyncio.gather(*(waits_for(s, s.get_by_text(re.compile(r"ended the class\. Your score: \d+ of \d+")),
                                             "the end of the class", end_lat, t0) for s in students),
                                 hall.all_see(hall.ENDED, end_lat, t0, "the end of the class"))
            for i, pg in enumerate(students):  # every tap counted once: the score's "of" is the taps answered
                hall.check_score(f"student {i:02d}", await pg.locator("[data-testid='stMain']").inner_text(),
                                 answered.get(id(pg), 0))
            hall.check_sim_scores()
            phases.append(phase_cpu("End class", t0, cpu0))
            await idle(teacher, timeout_ms)
            await teacher.get_by_role("button", name="Start a live class").wait_for(timeout=timeout_ms)
            await check_all("after the end of the class")
        except Exception as exc:  # noqa: BLE001 - a stuck page is an error of the run
            errors.add("run", f"{where}: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}")
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            for i, pg in enumerate([teacher, *students][:3] if "teacher" in locals() else []):
                await pg.screenshot(path=str(ARTIFACTS / f"load-class-{i}.png"))
        finally:
            done.set()
            await watcher
            browser_after = chromium_cpu()
            traces = ARTIFACTS / "load-class-traces"
            traces.mkdir(parents=True, exist_ok=True)
            (ARTIFACTS / "load-class-requests.tsv").write_text("".join(
                f"{t:.1f}\t{students.index(pg) if pg in students else -1}\t{kind}\t{url}\n"
                for t, pid, kind, url in requests_seen
                for pg in [next((s for s in students if id(s) == pid), None)]))
            for i, pg in enumerate(students):
                (traces / f"student-{i:02d}.log").write_text("\n".join(logs.get(id(pg), [])) + "\n")
            for task in asyncio.all_tasks():
                if task.get_coro().__name__ == "poll":
                    task.cancel()
            await hall.close()
            for ctx in contexts:
                await ctx.close()
            await browser.close()
            await t_browser.close()
        wall = time.perf_counter() - t_start
    return {"students": args.class_students + len(hall.sims), "browsers": args.class_students,
            "simulated": len(hall.sims), **hall.figures(wall), "chromium_retaps": chromium_retaps[0],
            "replicas": args.replicas, "errors": errors.items, "wall_s": wall,
            "join_all_s": joined if "joined" in locals() else None,
            "answers": len(answer_lat), "answer_to_teacher_median_s": statistics.median(answer_lat) if answer_lat else None,
            "answer_to_teacher_p95_s": pct(answer_lat, 95),
            "answer_received_median_s": statistics.median(received_lat) if received_lat else None,
            "answer_received_p95_s": pct(received_lat, 95),
            "reveal_to_students_median_s": statistics.median(reveal_lat) if reveal_lat else None,
            "reveal_to_students_p95_s": pct(reveal_lat, 95),
            "step_to_students_median_s": statistics.median(step_lat) if step_lat else None,
            "step_to_students_p95_s": pct(step_lat, 95),
            "step_to_students_max_s": max(step_lat) if step_lat else None,
            "reveal_to_students_max_s": max(reveal_lat) if reveal_lat else None,
            "end_to_students_median_s": statistics.median(end_lat) if end_lat else None,
            "end_to_students_max_s": max(end_lat) if end_lat else None, "students_ended": len(end_lat),
            "students_nice": args.students_nice, "notes": notes, "phases": phases,
            **{f"{kind}_count": len(pages) for kind, pages in tallies.items()},
            **{f"{kind}_pages": len({id(pg) for pg in pages}) for kind, pages in tallies.items()},
            "server_cpu_s": sum(cpu_seconds(p) for p in pids) - cpu_before,
            "chromium_renderers_cpu_s": browser_after["renderers"] - browser_before["renderers"],
            "chromium_other_cpu_s": browser_after["other"] - browser_before["other"],
            "rss_before_mb": rss_before, "rss_peak_mb": peak, "rss_after_mb": sum(rss_mb(p) for p in pids),
            "load_average_1_5_15": os.getloadavg()}


def report(r: dict) -> str:
    f = lambda v: "n/a" if v is None else f"{v:.2f} s"  # noqa: E731
    return "\n".join([
        f"Live class: 1 teacher + {r['students']} students on {r['replicas']} process(es) "
        f"{'(Redis)' if r['replicas'] > 1 else '(in-process store)'}, {r['wall_s']:.0f} s in all; "
        + ("students' Chromium under SCHED_IDLE" if r['students_nice'] is None
           else f"students' Chromium at nice {r['students_nice']}"),
        f"  errors: {len(r['errors'])}", *[f"    {e}" for e in r["errors"][:20]],
        f"  student's click -> teacher's count ({r['answers']} answers): median {f(r['answer_to_teacher_median_s'])},"
        f" p95 {f(r['answer_to_teacher_p95_s'])}",
        f"  student's click -> own 'Answer received': median {f(r['answer_received_median_s'])}, "
        f"p95 {f(r['answer_received_p95_s'])}",
        f"  Reveal -> every student: median {f(r['reveal_to_students_median_s'])}, "
        f"p95 {f(r['reveal_to_students_p95_s'])}, last {f(r['reveal_to_students_max_s'])}",
        f"  Step -> every student: median {f(r['step_to_students_median_s'])}, p95 {f(r['step_to_students_p95_s'])}, "
        f"last {f(r['step_to_students_max_s'])}",
        f"  End class -> every student sees it with their score: {r['students_ended']} of {r['students']}, "
        f"median {f(r['end_to_students_median_s'])}, last {f(r['end_to_students_max_s'])}",
        f"  full runs whose end a student's page never got (Streamlit dropped their messages; the page's "
        f"watchdog redraws it): {r['missed_count']} on {r['missed_pages']} pages; presses of Refresh "
        f"(the watchdog's): {r['refresh_count']} on {r['refresh_pages']} pages; taps again after the read-only "
        f"warning (the class server away): {r.get('chromium_retaps', 0)}",
        f"  server CPU {r['server_cpu_s']:.0f} s; RSS before {r['rss_before_mb']:.0f} MB, peak "
        f"{r['rss_peak_mb']:.0f} MB, after {r['rss_after_mb']:.0f} MB",
        f"  Chromium CPU {r['chromium_renderers_cpu_s'] + r['chromium_other_cpu_s']:.0f} s "
        f"({r['chromium_renderers_cpu_s']:.0f} s in the {r['students'] + 1} tabs' renderers); "
        f"server {r['server_cpu_s']:.0f} s, over {r['wall_s']:.0f} s on {os.cpu_count()} cores",
        "  load average (1, 5, 15 min) at the end: " + ", ".join(f"{x:.1f}" for x in r["load_average_1_5_15"]),
        *hall_report(r), *[f"  {p}" for p in r["phases"]], *[f"  note: {n}" for n in r["notes"]],
    ])


def main_class(args) -> dict:
    with ExitStack() as stack:
        env = {}
        pids = []
        processes = args.processes = {}
        if args.replicas > 1 or getattr(args, "redis_restart", False):
            folder = stack.enter_context(tempfile.TemporaryDirectory())
            redis = args.redis_server = RedisServer(folder)
            redis.start()
            stack.callback(redis.stop)
            env["DTX_REDIS_URL"] = redis.url
            processes["redis"] = lambda: redis.proc.pid if redis.proc else -1
        urls = []
        for i in range(args.replicas):
            url, pid = stack.enter_context(streamlit_server(env=env))
            urls.append(url)
            pids.append(pid)
            processes[f"replica {i + 1}"] = lambda pid=pid: pid
        if getattr(args, "proxy", False):
            proxy, nginx_pid = stack.enter_context(nginx_proxy(urls, ARTIFACTS / "load-class-nginx"))
            processes["nginx"] = lambda: nginx_pid
            urls = [proxy]
        if "redis" in processes and not getattr(args, "redis_restart", False):  # a restarted one has a new pid
            pids.append(processes["redis"]())  # (its CPU is still in the per-process figures)
        print(f"servers {urls}; 1 teacher + {args.class_students} students in Chromium + {args.clients} simulated, "
              f"up to {args.class_steps} steps",
              file=sys.stderr, flush=True)
        return asyncio.run(asyncio.wait_for(run_class(urls, pids, args), timeout=args.max_seconds))
