"""A lecture hall for benchmarks/load_class.py: many simulated students (benchmarks/ws_student.py) in the
same lesson as the Chromium teacher and the few Chromium students, and the faults of a real hall.

:class:`Hall` joins ``--clients`` simulated students (ten at a time, spread over the replicas' addresses
as nginx's sticky hash spreads browsers), measures the server's CPU while the class sits idle (teacher
alone, then everyone: the poll's cost per student per second), lets each student answer every question
after a random 1-``--think`` s, waits until each one shows the reveal, the step and the end (a finished
full run with that text), and checks at the end that every student's score counts exactly the taps that
showed "Answer received" (a lost or a double-counted answer shows there).

Faults: ``--drop F`` makes a fraction F of the students lose their connection during each question and
come back as a reloaded tab (half before their tap, half right after it: the tap must stay, once);
``--teacher-reload`` reloads the teacher's tab in the middle of the first question's answers.
"""

from __future__ import annotations

import asyncio
import os
import re
import time

from ws_student import WsStudent

QUESTION = "Which feature will split node"
VERDICT = r"Right|Not this time|feature is right|could not|You did not answer"
ENDED = r"ended the class\. Your score: \d+ of \d+"
JOIN_GATE = 10  # students opening the page at once (a hall fills in a minute, not in a millisecond)


def client_cpu() -> float:
    t = os.times()
    return t.user + t.system


class Hall:
    VERDICT, ENDED = VERDICT, ENDED

    def __init__(self, args, errors, *, server_cpu, server_rss) -> None:
        self.args, self.errors = args, errors
        self.server_cpu, self.server_rss = server_cpu, server_rss
        self.sims: list[WsStudent] = []
        self.answered: dict[str, int] = {}
        self.idle: dict[str, dict] = {}
        self.rss_join = (None, None)
        self.client_cpu0 = client_cpu()
        self.join_s = None

    # ------------------------------------------------------------------------------- joining
    async def join_all(self, code: str, urls: list[str]) -> None:
        n = getattr(self.args, "clients", 0) or 0
        if not n:
            return
        gate = asyncio.Semaphore(JOIN_GATE)
        rss0, t0 = self.server_rss(), time.perf_counter()

        async def one(i: int) -> None:
            s = WsStudent(urls[i % len(urls)], code, f"p{i:03d}", timeout=self.args.timeout)
            async with gate:
                try:
                    await s.join()
                except Exception as exc:  # noqa: BLE001 - a student who cannot join is an error of the run
                    self.errors.add(s.nickname, f"joining: {type(exc).__name__}: {exc}"[:240])
                    await s.close()
                    return
            self.sims.append(s)
            self.answered[s.nickname] = 0

        await asyncio.gather(*(one(i) for i in range(n)))
        self.join_s = time.perf_counter() - t0
        await asyncio.sleep(3)  # let the joins' memory settle before reading it
        self.rss_join = (rss0, self.server_rss())

    async def measure_idle(self, label: str, students: int) -> None:
        """Server CPU over ``--idle-seconds`` of nothing happening (polls only)."""
        seconds = getattr(self.args, "idle_seconds", 0) or 0
        if not seconds:
            return
        cpu0, c0, t0 = self.server_cpu(), client_cpu(), time.perf_counter()
        await asyncio.sleep(seconds)
        wall = time.perf_counter() - t0
        self.idle[label] = {"students": students, "server_cpu_s": self.server_cpu() - cpu0, "wall_s": wall,
                            "client_cpu_s": client_cpu() - c0, "load_average_1": os.getloadavg()[0]}

    # ------------------------------------------------------------------------------ the lesson
    async def all_see(self, pattern: str, latencies: list | None, t0: float | None, what: str = "") -> None:
        """Until every simulated student shows ``pattern`` (latency from ``t0`` kept); else an error each."""
        async def one(s: WsStudent) -> None:
            try:
                t = await s.wait_for(pattern)
            except TimeoutError:
                self.errors.add(s.nickname, f"{what or pattern} did not show in {self.args.timeout:.0f} s: "
                                            f"{s.text()[:160]!r}")
                return
            if latencies is not None and t0 is not None:
                latencies.append(max(0.0, t - t0))

        await asyncio.gather(*(one(s) for s in self.sims))

    def droppers(self, step: int) -> set[str]:
        frac = getattr(self.args, "drop", 0.0) or 0.0
        k = round(frac * len(self.sims))
        if not k:
            return set()
        start = (step * k) % len(self.sims)  # other students each question
        return {self.sims[(start + j) % len(self.sims)].nickname for j in range(k)}

    async def answer_all(self, step: int, rng, clicks: list, received: list) -> None:
        drop = self.droppers(step)
        plan = [(s, rng.uniform(1.0, self.args.think), rng.random()) for s in self.sims]

        async def one(s: WsStudent, think: float, pick: float) -> None:
            await asyncio.sleep(think)
            dropped = s.nickname in drop
            before = dropped and pick < 0.5
            if before:  # gone and back before tapping: the page comes back with the question
                await s.reconnect()
                await s.wait_for(QUESTION)
            buttons = s.answer_buttons()
            if not buttons:
                self.errors.add(s.nickname, f"step {step}: no answer buttons: {s.text()[:160]!r}")
                return
            feature = sorted(buttons)[int(pick * len(buttons)) % len(buttons)]
            t = await s.answer(feature)
            clicks.append(t)
            if dropped and not before:  # gone right after the tap, back a moment later
                await s.disconnect()
                await asyncio.sleep(1.0 + pick)
                await s.reconnect()
                try:  # a tap the server never ran (the socket closed first) shows the question again: tap again
                    await s.wait_for(f"Answer received|{QUESTION}")
                except TimeoutError:
                    pass
                if "Answer received" not in s.text() and feature in s.answer_buttons():
                    s.counts["retaps"] += 1
                    t = await s.answer(feature)
            try:
                seen = await s.wait_for("Answer received", timeout=min(self.args.timeout, 45))
            except TimeoutError:
                self.errors.add(s.nickname, f"step {step}: no 'Answer received' 45 s after the tap: "
                                            f"{s.text()[:160]!r}")
                return
            received.append(max(0.0, seen - t))
            self.answered[s.nickname] += 1

        await asyncio.gather(*(one(*p) for p in plan))

    async def teacher_reload(self, teacher, step: int, timeout_ms: float) -> None:
        """``--teacher-reload``: the teacher's tab reloads halfway through the first question's answers."""
        if not getattr(self.args, "teacher_reload", False) or step != 1:
            return
        await asyncio.sleep(self.args.think / 2)
        await teacher.reload()
        await teacher.locator(".st-key-live_panel").get_by_text("Answered:").wait_for(timeout=timeout_ms)

    # ------------------------------------------------------------------------------- the checks
    def check_score(self, who: str, text: str, answered: int) -> None:
        m = re.search(r"Your score: (\d+) of (\d+)", text)
        if m is None:
            self.errors.add(who, "no score at the end")
        elif int(m.group(2)) != answered:
            kind = "lost" if int(m.group(2)) < answered else "double-counted"
            self.errors.add(who, f"{kind} answers: the score counts {m.group(2)} answers, {answered} were received")

    def check_sim_scores(self) -> None:
        for s in self.sims:
            self.check_score(s.nickname, s.text(), self.answered[s.nickname])

    async def close(self) -> None:
        for s in self.sims:
            for e in s.errors:
                self.errors.add(s.nickname, e)
        await asyncio.gather(*(s.close() for s in self.sims), return_exceptions=True)

    # ------------------------------------------------------------------------------- the figures
    def figures(self, wall: float) -> dict:
        n = len(self.sims)
        counts = {k: sum(s.counts[k] for s in self.sims) for k in
                  ("full_runs", "fragment_runs", "messages", "missed", "refresh", "reconnects", "retaps")}
        out = {"sim_counts": counts, "sim_join_s": self.join_s, "idle": self.idle,
               "client_cpu_s": client_cpu() - self.client_cpu0}
        alone, full = self.idle.get("teacher alone"), self.idle.get("with every student")
        if alone and full and full["students"]:
            per = (full["server_cpu_s"] / full["wall_s"] - alone["server_cpu_s"] / alone["wall_s"]) / full["students"]
            out["idle_cpu_ms_per_student_s"] = per * 1000  # CPU ms per student per second of idle class
            out["client_idle_cpu_ms_per_student_s"] = full["client_cpu_s"] / full["wall_s"] / full["students"] * 1000
        if self.rss_join[0] is not None and n:
            out["rss_mb_per_student"] = (self.rss_join[1] - self.rss_join[0]) / n
        return out


def report_lines(r: dict) -> list[str]:
    """The hall's lines of the report (nothing when no simulated student took part)."""
    if not r.get("simulated"):
        return []
    c = r["sim_counts"]
    lines = [f"  simulated students: {r['simulated']} (+ {r['browsers']} in Chromium), joined in "
             f"{r['sim_join_s'] or 0:.0f} s; their pages ran {c['full_runs']} full runs and {c['fragment_runs']} "
             f"polls, missed {c['missed']} runs' ends, pressed Refresh {c['refresh']} times, reconnected "
             f"{c['reconnects']} times (and tapped again {c['retaps']} times: the tap was lost with the connection)"]
    for label, d in r["idle"].items():
        lines.append(f"  idle class ({label}, {d['students']} students): server {d['server_cpu_s'] / d['wall_s']:.2f} "
                     f"CPU s per s, load client {d['client_cpu_s'] / d['wall_s']:.2f}; load average {d['load_average_1']:.1f}")
    if "idle_cpu_ms_per_student_s" in r:
        lines.append(f"  server CPU per idle student: {r['idle_cpu_ms_per_student_s']:.1f} ms per second "
                     f"(load client: {r['client_idle_cpu_ms_per_student_s']:.1f} ms)")
    if "rss_mb_per_student" in r:
        lines.append(f"  server memory per student: {r['rss_mb_per_student']:.2f} MB (RSS after the joins)")
    lines.append(f"  load client CPU (this process) {r['client_cpu_s']:.0f} s")
    return lines
