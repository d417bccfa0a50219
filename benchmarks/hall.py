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
import shutil
import socket
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

from ws_student import WsStudent

QUESTION = "Which feature will split node"
AWAY = r"cannot be reached|too busy right now"
REFUSED = r"did not reach the class server"  # a tap refused, the server back by the page's run: tap again
VERDICT = r"Right|Not this time|feature is right|could not|You did not answer"
ENDED = r"ended the class\. Your score: \d+ of \d+"
JOIN_GATE = 10  # students opening the page at once (a hall fills in a minute, not in a millisecond)


def client_cpu() -> float:
    t = os.times()
    return t.user + t.system


async def next_page(s: WsStudent, deadline: float) -> None:
    """Until the page's next full run ends (at most 5 s, or ``deadline``); a page that still says the class
    server is away then gets a Refresh."""
    s.changed.clear()
    try:
        await asyncio.wait_for(s.changed.wait(), timeout=max(0.1, min(5.0, deadline - time.monotonic())))
    except TimeoutError:
        if re.search(AWAY, s.text()):
            await s.refresh()


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
        self.processes = dict(getattr(args, "processes", {}) or {})  # label -> callable giving the pid
        self.cpu0 = {k: process_cpu(pid()) for k, pid in self.processes.items()}
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
        """Server CPU over ``--idle-seconds`` of nothing happening (the pages' stage polls only)."""
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
            buttons = await self.until_buttons(s)
            if not buttons:
                self.errors.add(s.nickname, f"step {step}: no answer buttons: {s.text()[:160]!r}")
                return
            feature = sorted(buttons)[int(pick * len(buttons)) % len(buttons)]
            s.counts["_tapped_at"] = s.shown_at
            t = await s.answer(feature)
            clicks.append(t)
            if dropped and not before:  # gone right after the tap, back a moment later: a tap the server
                await s.disconnect()  # never ran (the socket closed first) shows the question again: tap again
                await asyncio.sleep(1.0 + pick)
                await s.reconnect()
                s.counts["_tapped_at"] = -1.0
            await self.until_received(s, feature, step)
            if "Answer received" not in s.text():
                self.errors.add(s.nickname, f"step {step}: no 'Answer received' after the tap: {s.text()[:160]!r}")
                return
            received.append(max(0.0, s.shown_at - t))
            self.answered[s.nickname] += 1

        await asyncio.gather(*(one(*p) for p in plan), self.redis_restart(step))

    async def until_buttons(self, s: WsStudent) -> dict[str, str]:
        """The question's buttons, once the page shows them (at most 45 s: while the class server is away
        the page is read-only, without them; it follows by itself when the server is back)."""
        deadline = time.monotonic() + min(self.args.timeout, 45)
        while not s.answer_buttons() and time.monotonic() < deadline:
            await next_page(s, deadline)
        return s.answer_buttons()

    async def until_received(self, s: WsStudent, feature: str, step: int) -> None:
        """Until the page says "Answer received" (at most 45 s): while the class server is away (a Redis
        restart) the page says so and shows no buttons; when the question is back without the answer, the
        student taps again, as a person would."""
        deadline = time.monotonic() + min(self.args.timeout, 45)
        while "Answer received" not in s.text() and time.monotonic() < deadline:
            if not re.search(AWAY, s.text()) and re.search(QUESTION, s.text()) and feature in s.answer_buttons() \
                    and s.counts.get("_tapped_at") != s.shown_at:
                if s.counts.get("_tapped_at") is not None:
                    s.counts["retaps"] += 1
                s.counts["_tapped_at"] = s.shown_at  # one tap per page drawn
                await s.answer(feature)
            await next_page(s, deadline)

    async def redis_restart(self, step: int) -> None:
        """``--redis-restart``: Redis stops for 2 s in the middle of the first question's answers."""
        redis = getattr(self.args, "redis_server", None)
        if not getattr(self.args, "redis_restart", False) or redis is None or step != 1:
            return
        await asyncio.sleep(self.args.think / 2)
        await redis.restart()

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
                  ("full_runs", "fragment_runs", "route_polls", "route_errors", "messages", "missed", "refresh",
                   "reconnects", "retaps", "refused_double")}
        out = {"sim_counts": counts, "sim_join_s": self.join_s, "idle": self.idle,
               "client_cpu_s": client_cpu() - self.client_cpu0,
               "process_cpu_s": {k: process_cpu(pid()) - self.cpu0[k] for k, pid in self.processes.items()}}
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
             f"fragment runs, asked the stage route {c['route_polls']} times ({c['route_errors']} failed), "
             f"missed {c['missed']} runs' ends, pressed Refresh {c['refresh']} times, reconnected "
             f"{c['reconnects']} times (and tapped again {c['retaps']} times: the tap was lost with the connection or refused while "
             f"the class server was away; {c['refused_double']} of those were refused as a second answer)"]
    for label, d in r["idle"].items():
        lines.append(f"  idle class ({label}, {d['students']} students): server {d['server_cpu_s'] / d['wall_s']:.2f} "
                     f"CPU s per s, load client {d['client_cpu_s'] / d['wall_s']:.2f}; load average {d['load_average_1']:.1f}")
    if "idle_cpu_ms_per_student_s" in r:
        lines.append(f"  server CPU per idle student: {r['idle_cpu_ms_per_student_s']:.1f} ms per second "
                     f"(load client: {r['client_idle_cpu_ms_per_student_s']:.1f} ms)")
    if "rss_mb_per_student" in r:
        lines.append(f"  server memory per student: {r['rss_mb_per_student']:.2f} MB (RSS after the joins)")
    lines.append(f"  load client CPU (this process) {r['client_cpu_s']:.0f} s; per process: "
                 + ", ".join(f"{k} {v:.0f} s" for k, v in r["process_cpu_s"].items()))
    return lines


# ------------------------------------------------------------------------------ the servers around
class RedisServer:
    """``redis-server`` on a free loopback port that can be restarted on the same port mid-lesson
    (``--redis-restart``), with its append-only file so that a restart keeps the rooms (as a real
    deployment's Redis must)."""

    def __init__(self, folder) -> None:
        self.folder, self.port, self.proc = folder, free_port(), None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed (apt-get install redis-server)")
        self.proc = subprocess.Popen([binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                                      "--appendonly", "yes", "--appendfsync", "always", "--dir", str(self.folder)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()  # SIGTERM: Redis writes its append-only file and exits
            self.proc.wait(timeout=20)
            self.proc = None

    async def restart(self, down_seconds: float = 2.0) -> None:
        await asyncio.to_thread(self.stop)
        await asyncio.sleep(down_seconds)
        await asyncio.to_thread(self.start)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def nginx_proxy(urls: list[str], folder: Path):
    """deploy/nginx.conf (sticky sessions by cookie) in front of the replicas at ``urls``; yields (url, pid)."""
    binary = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if binary is None:
        raise RuntimeError("nginx is not installed (apt-get install nginx-light)")
    conf = (Path(__file__).resolve().parents[1] / "deploy" / "nginx.conf").read_text(encoding="utf-8")
    servers = re.findall(r"^\s*server 127\.0\.0\.1:\d+ .*;$", conf, flags=re.M)
    upstream = "\n".join(f"        server {u.split('//')[1]} max_fails=3 fail_timeout=10s;" for u in urls)
    conf = conf.replace(servers[0], upstream)
    for line in servers[1:]:
        conf = conf.replace(line, "")
    port = free_port()
    conf = conf.replace("listen 127.0.0.1:8080;", f"listen 127.0.0.1:{port};")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "nginx.conf").write_text(conf, encoding="utf-8")
    shutil.copy(Path(__file__).resolve().parents[1] / "deploy" / "dtx-site.inc", folder / "dtx-site.inc")
    proc = subprocess.Popen([binary, "-p", str(folder), "-c", "nginx.conf", "-g", "daemon off;"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"nginx did not start; see {folder}/nginx-error.log")
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}", proc.pid
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def process_cpu(pid: int) -> float:
    """CPU seconds of a process and its children (nginx's workers), 0 when it is gone (a restarted Redis)."""
    try:
        import psutil

        proc = psutil.Process(pid)
        total = 0.0
        for p in [proc, *proc.children(recursive=True)]:
            t = p.cpu_times()
            total += t.user + t.system
        return total
    except Exception:  # noqa: BLE001 - gone meanwhile
        return 0.0
