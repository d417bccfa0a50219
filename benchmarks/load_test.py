"""Load test: a class of students on one server at once (run by hand, not part of the test suite).

    python benchmarks/load_test.py                                  # 20 users x 10 steps, 500 reruns
    python benchmarks/load_test.py --users 4 --steps 3 --reruns 40  # a quick look
    python benchmarks/load_test.py --class-students 40 [--replicas 2]  # a live class (benchmarks/load_class.py)
    python benchmarks/load_test.py --clients 145 --class-students 5 --replicas 3 --proxy  # a lecture hall:
                                 # simulated students (benchmarks/ws_student.py, benchmarks/hall.py)

1. Starts ``streamlit run app.py`` on a free port of 127.0.0.1 (loopback only; the server is stopped
   at the end, whatever happens).
2. Drives ``--users`` concurrent Playwright browser contexts (one browser session each) in Debian's
   Chromium (``/usr/bin/chromium``, headless, ``--no-sandbox``). User i opens the app, goes to the Data
   page and either picks sample i (``Use this sample``) or uploads its own file (CSV in several
   flavours: semicolons with decimal commas, UTF-16, gzip, missing values, a regression target, up
   to 5,000 rows), then opens Grow and presses Step ``--steps`` times, waiting each time until the
   page shows the new step and the app is idle. When a small tree is finished before that, the
   remaining presses are Undo (still one server run each).
3. Counts errors after every action: Streamlit exception boxes (``stException``), error alerts
   (``stAlertContentError``), JavaScript page errors and any browser dialog (an ``alert()`` would
   mean injected script). Must be 0.
4. Reports the median and 95th percentile of the action latency (click -> page updated and idle)
   and the server's resident memory (psutil if installed, else /proc) before, at peak and after.
5. Then ``--reruns`` reruns in ONE session (Step and Undo alternately on a mid-size sample) with the
   server's memory sampled every 50 reruns: the growth after a warm-up must stay under
   ``--max-growth-mb``.

Everything is bounded: each wait has a timeout, the whole run stops after ``--max-seconds``. The
figures are printed and written to ``test-artifacts/load_test.json``. Exit status 1 when an error
was seen, the memory grew too much or the time ran out.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]
SAMPLES = ["ski", "iris", "titanic_small", "noisy_moons", "wine", "breast_cancer", "diabetes",
           "play_tennis_numeric", "restaurant", "play_tennis", "play_tennis_day"]
IDLE_JS = """(step) => {
  const app = document.querySelector("[data-testid='stApp']");
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  return step === null || document.body.innerText.includes('Step ' + step + ' \u00b7');
}"""
ERROR_SELECTOR = "[data-testid='stException'], [data-testid='stAlertContentError']"


# ---------------------------------------------------------------------------------------- server
def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid: int) -> float:
    """Resident memory of a process in MB (psutil if installed, else /proc/<pid>/status)."""
    try:
        import psutil

        return psutil.Process(pid).memory_info().rss / 2**20
    except ImportError:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far, in seconds."""
    try:
        import psutil

        t = psutil.Process(pid).cpu_times()
        return t.user + t.system
    except ImportError:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def streamlit_server(timeout: float = 120.0, env: dict | None = None):
    """``streamlit run app.py`` on 127.0.0.1:<free port> (``env`` added to the environment); yields
    (url, pid), stops it afterwards."""
    port = free_port()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log_path = ARTIFACTS / f"load-test-server-{port}.log"
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
           "--server.port", str(port), "--server.address", "127.0.0.1", "--server.fileWatcherType", "none",
           "--browser.gatherUsageStats", "false"]
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})})
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                    if resp.read().strip() == b"ok":
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start; see {log_path}")
            time.sleep(0.25)
        yield url, proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=20)


# ----------------------------------------------------------------------------------------- files
def upload_files(folder: Path, count: int) -> list[Path]:
    """``count`` different files a student might upload (different sizes, separators, encodings)."""
    rng = np.random.default_rng(0)
    out = []
    for i in range(count):
        n = [300, 800, 1500, 3000, 5000][i % 5]
        x = rng.normal(size=(n, 4))
        colour = rng.choice(["red", "green", "blue", "black"], n)
        label = np.where(x[:, 0] + 0.5 * x[:, 1] + (colour == "red") > 0.3, "yes", "no")
        frame = pd.DataFrame({"a": x[:, 0].round(3), "b": x[:, 1].round(3), "c": x[:, 2].round(3),
                              "d": x[:, 3].round(3), "colour": colour, "label": label})
        kind = i % 5
        if kind == 1:  # a regression target with missing values
            frame["label"] = (3 * x[:, 0] + x[:, 1] ** 2 + rng.normal(size=n)).round(3)
            frame.loc[rng.choice(n, n // 20, replace=False), "b"] = np.nan
        path = folder / f"student_{i:02d}.csv"
        if kind == 2:  # Excel in Germany: semicolons and decimal commas
            path.write_text(frame.to_csv(index=False, sep=";", decimal=","), encoding="utf-8")
        elif kind == 3:  # "Unicode text" from Excel: UTF-16 with tabs
            path = path.with_suffix(".txt")
            path.write_bytes(frame.to_csv(index=False, sep="\t").encode("utf-16"))
        elif kind == 4:
            path = path.with_suffix(".csv.gz")
            path.write_bytes(gzip.compress(frame.to_csv(index=False).encode("utf-8")))
        else:
            path.write_text(frame.to_csv(index=False), encoding="utf-8")
        out.append(path)
    return out


# ------------------------------------------------------------------------------------------ users
class Errors:
    def __init__(self):
        self.items: list[str] = []

    def add(self, who: str, what: str) -> None:
        self.items.append(f"{who}: {what}")


async def wait_idle(page, step: int | None, timeout_ms: float) -> None:
    await page.wait_for_timeout(100)  # let a just-sent rerun start
    await page.wait_for_function(IDLE_JS, arg=step, timeout=timeout_ms, polling=100)


async def count_errors(page, who: str, errors: Errors, where: str) -> None:
    n = await page.locator(ERROR_SELECTOR).count()
    if n:
        texts = await page.locator(ERROR_SELECTOR).all_inner_texts()
        errors.add(who, f"{n} error element(s) {where}: {' | '.join(t[:120] for t in texts)}")


async def open_data_page(page, timeout_ms: float) -> None:
    await page.goto("/")
    await wait_idle(page, None, timeout_ms)
    await page.get_by_test_id("stSidebar").get_by_role("link", name="Data").click()
    await wait_idle(page, None, timeout_ms)


async def new_page(browser, url, who, errors, viewport, timeout_ms):
    """A fresh browser context and page for one simulated person; its JavaScript errors and dialogs count
    as ``errors`` under ``who``."""
    ctx = await browser.new_context(viewport=viewport, base_url=url)
    ctx.set_default_timeout(timeout_ms)
    page = await ctx.new_page()
    page.on("pageerror", lambda exc: errors.add(who, f"JavaScript error: {exc}"))

    async def on_dialog(dialog):
        errors.add(who, f"a browser dialog opened: {dialog.message!r}")
        await dialog.dismiss()

    page.on("dialog", on_dialog)
    return ctx, page


async def run_user(browser, url: str, i: int, source, steps: int, timeout_ms: float, errors: Errors,
                   latencies: list[float], counts: dict) -> None:
    who = f"user {i:02d} ({source if isinstance(source, str) else source.name})"
    context, page = await new_page(browser, url, who, errors, {"width": 1280, "height": 900}, timeout_ms)
    try:
        await open_data_page(page, timeout_ms)
        if isinstance(source, str):
            box = page.locator(".st-key-_w_data_sample input")
            await box.click()
            await box.fill(source)
            await box.press("Enter")
            await wait_idle(page, None, timeout_ms)
            await page.get_by_role("button", name="Use this sample").click()
            await page.get_by_text(f"Loaded the sample {source}").wait_for(timeout=timeout_ms)
        else:
            await page.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(str(source))
            await page.get_by_text("Loaded ", exact=False).filter(has_text=source.name.split(".")[0]).first \
                .wait_for(timeout=timeout_ms)
        await wait_idle(page, None, timeout_ms)
        await count_errors(page, who, errors, "after loading")
        await page.get_by_test_id("stSidebar").get_by_role("link", name="Grow").click()
        await wait_idle(page, 0, timeout_ms)
        step_button = page.locator(".st-key-_w_grow_step button")
        undo_button = page.locator(".st-key-_w_grow_undo button")
        shown = 0
        for _ in range(steps):
            use_undo = await step_button.is_disabled()
            button, expected = (undo_button, shown - 1) if use_undo else (step_button, shown + 1)
            t0 = time.perf_counter()
            await button.click()
            await wait_idle(page, expected, timeout_ms)
            latencies.append(time.perf_counter() - t0)
            counts["undo" if use_undo else "step"] += 1
            shown = expected
            await count_errors(page, who, errors, f"after {'Undo' if use_undo else 'Step'} -> step {shown}")
    except Exception as exc:  # noqa: BLE001 - a stuck or failed user is an error of the run
        errors.add(who, f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}")
        try:
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            await page.screenshot(path=str(ARTIFACTS / f"load-test-user-{i:02d}.png"))
        except Exception:  # noqa: BLE001 - the screenshot is only a hint
            pass
    finally:
        await context.close()


async def concurrent_phase(url: str, pid: int, args, files: list[Path]) -> dict:
    from playwright.async_api import async_playwright

    errors, latencies, counts = Errors(), [], {"step": 0, "undo": 0}
    sources = [SAMPLES[i] if i < min(len(SAMPLES), args.users - len(files)) else None for i in range(args.users)]
    uploads = iter(files)
    sources = [s if s is not None else next(uploads) for s in sources]
    peak = rss_mb(pid)
    before = peak
    cpu_before = cpu_seconds(pid)
    done = asyncio.Event()

    async def watch_memory():
        nonlocal peak
        while not done.is_set():
            peak = max(peak, rss_mb(pid))
            await asyncio.sleep(0.5)

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        watcher = asyncio.create_task(watch_memory())
        t0 = time.perf_counter()
        try:
            await asyncio.gather(*(run_user(browser, url, i, src, args.steps, args.timeout * 1000, errors,
                                            latencies, counts) for i, src in enumerate(sources)))
        finally:
            done.set()
            await watcher
            await browser.close()
        wall = time.perf_counter() - t0
    after = rss_mb(pid)
    cpu = cpu_seconds(pid) - cpu_before
    n_actions = counts["step"] + counts["undo"]
    return {"server_cpu_s": cpu, "server_cpu_per_action_s": cpu / n_actions if n_actions else None,
            "users": args.users, "samples": [s for s in sources if isinstance(s, str)],
            "uploads": [s.name for s in sources if not isinstance(s, str)], "actions": counts,
            "errors": errors.items, "latency_median_s": statistics.median(latencies) if latencies else None,
            "latency_p95_s": float(np.percentile(latencies, 95)) if latencies else None,
            "latency_max_s": max(latencies) if latencies else None, "wall_s": wall,
            "rss_before_mb": before, "rss_peak_mb": peak, "rss_after_mb": after}


async def rerun_phase(url: str, pid: int, args) -> dict:
    """``args.reruns`` reruns in one session (Step and Undo alternately on "ski"); memory every 50."""
    from playwright.async_api import async_playwright

    errors, samples, latencies = Errors(), [], []
    who = "rerun session"
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        context = await browser.new_context(viewport={"width": 1280, "height": 900}, base_url=url)
        context.set_default_timeout(args.timeout * 1000)
        page = await context.new_page()
        page.on("pageerror", lambda exc: errors.add(who, f"JavaScript error: {exc}"))
        try:
            await page.goto("/grow?data=ski")
            await wait_idle(page, 0, args.timeout * 1000)
            step_button = page.locator(".st-key-_w_grow_step button")
            undo_button = page.locator(".st-key-_w_grow_undo button")
            shown = 0
            for r in range(args.reruns):
                button, expected = (step_button, shown + 1) if r % 2 == 0 else (undo_button, shown - 1)
                t0 = time.perf_counter()
                await button.click()
                await wait_idle(page, expected, args.timeout * 1000)
                latencies.append(time.perf_counter() - t0)
                shown = expected
                if r % 50 == 49 or r == args.reruns - 1:
                    samples.append((r + 1, rss_mb(pid)))
                    await count_errors(page, who, errors, f"after rerun {r + 1}")
        except Exception as exc:  # noqa: BLE001
            errors.add(who, f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}")
        finally:
            await context.close()
            await browser.close()
    warm = [m for r, m in samples if r >= min(100, args.reruns // 2)] or [m for _, m in samples]
    growth = (warm[-1] - warm[0]) if len(warm) >= 2 else 0.0
    return {"reruns": args.reruns, "errors": errors.items, "rss_by_rerun_mb": samples,
            "growth_after_warmup_mb": growth,
            "rerun_median_s": statistics.median(latencies) if latencies else None}


def report(result: dict) -> str:
    c, r = result["concurrent"], result["reruns"]
    lines = [
        f"Concurrent: {c['users']} users ({len(c['samples'])} samples, {len(c['uploads'])} uploads), "
        f"{c['actions']['step']} Step + {c['actions']['undo']} Undo actions in {c['wall_s']:.0f} s",
        f"  errors: {len(c['errors'])}",
        *[f"    {e}" for e in c["errors"][:20]],
        f"  latency per action: median {c['latency_median_s']:.2f} s, p95 {c['latency_p95_s']:.2f} s, "
        f"max {c['latency_max_s']:.2f} s" if c["latency_median_s"] is not None else "  no latencies",
        f"  server RSS: before {c['rss_before_mb']:.0f} MB, peak {c['rss_peak_mb']:.0f} MB, "
        f"after {c['rss_after_mb']:.0f} MB",
        f"  server CPU: {c['server_cpu_s']:.0f} s in all "
        f"({(c['server_cpu_per_action_s'] or 0):.2f} s per action, loading and page views included); "
        "the rest of the latency is the machine's other load (the browsers run on it too)",
        f"Reruns: {r['reruns']} in one session, errors {len(r['errors'])}, "
        f"median {r['rerun_median_s'] or float('nan'):.2f} s per rerun",
        *[f"    {e}" for e in r["errors"][:10]],
        "  server RSS by rerun: " + ", ".join(f"{n}: {m:.0f} MB" for n, m in r["rss_by_rerun_mb"]),
        f"  growth after warm-up: {r['growth_after_warmup_mb']:+.1f} MB",
    ]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--users", type=int, default=20)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--reruns", type=int, default=500)
    ap.add_argument("--timeout", type=float, default=180.0, help="seconds per wait")
    ap.add_argument("--max-seconds", type=float, default=1800.0, help="the whole run stops after this")
    ap.add_argument("--max-growth-mb", type=float, default=100.0)
    ap.add_argument("--class-students", type=int, default=0, help="run a live class with this many students "
                    "(and one teacher) instead of the users and reruns")
    ap.add_argument("--class-steps", type=int, default=8, help="teacher's steps in the live class")
    ap.add_argument("--think", type=float, default=6.0, help="students answer after 0..think seconds "
                    "(simulated ones after 1..think)")
    ap.add_argument("--clients", type=int, default=0, help="live class: this many simulated students besides "
                    "the Chromium ones (Streamlit's websocket protocol, benchmarks/ws_student.py)")
    ap.add_argument("--idle-seconds", type=float, default=10.0, help="live class: seconds the class sits idle "
                    "(teacher alone, then everyone) to measure the poll's server CPU; 0: skip")
    ap.add_argument("--drop", type=float, default=0.0, help="live class: fraction of the simulated students "
                    "that disconnect and come back during each question")
    ap.add_argument("--teacher-reload", action="store_true", help="live class: reload the teacher's tab "
                    "during the first question")
    ap.add_argument("--replicas", type=int, default=1, help="live class: 1 process, or 2-3 sharing a Redis")
    ap.add_argument("--proxy", action="store_true", help="live class: everyone through deploy/nginx.conf (sticky "
                    "sessions) instead of straight to the replicas")
    ap.add_argument("--redis-restart", action="store_true", help="live class: restart Redis (append-only file) "
                    "during the first question")
    ap.add_argument("--students-nice", type=int, default=None, help="live class: the students' Chromium runs at "
                    "this nice level (0: same priority as the server and teacher); by default under SCHED_IDLE "
                    "(separate devices in a real class: they never take the server's CPU)")
    args = ap.parse_args(argv)
    if args.class_students or args.clients:
        if not 0 <= args.class_students <= 60 or not 0 <= args.clients <= 300 \
                or args.class_students + args.clients > 300 or args.replicas not in (1, 2, 3):
            ap.error("class-students 0..60, clients 0..300 (300 in all), replicas 1..3")
        from load_class import main_class, report as class_report

        result = main_class(args)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        name = f"load_class_{args.class_students}+{args.clients}x{args.replicas}.json"
        (ARTIFACTS / name).write_text(json.dumps(result, indent=2, default=str), encoding="utf-8")
        print(class_report(result))
        return 1 if result["errors"] else 0
    if not 1 <= args.users <= 40 or not 1 <= args.steps <= 50 or not 0 <= args.reruns <= 2000:
        ap.error("users 1..40, steps 1..50, reruns 0..2000")
    if not Path(CHROMIUM).exists():
        print(f"Chromium is not installed at {CHROMIUM}", file=sys.stderr)
        return 2

    async def everything(url, pid, files):
        conc = await concurrent_phase(url, pid, args, files)
        reruns = await rerun_phase(url, pid, args) if args.reruns else {
            "reruns": 0, "errors": [], "rss_by_rerun_mb": [], "growth_after_warmup_mb": 0.0, "rerun_median_s": None}
        return {"concurrent": conc, "reruns": reruns}

    with tempfile.TemporaryDirectory() as tmp, streamlit_server() as (url, pid):
        files = upload_files(Path(tmp), max(0, args.users - len(SAMPLES)))
        print(f"server {url} (pid {pid}), RSS {rss_mb(pid):.0f} MB; {args.users} users x {args.steps} actions, "
              f"then {args.reruns} reruns", flush=True)
        try:
            result = asyncio.run(asyncio.wait_for(everything(url, pid, files), timeout=args.max_seconds))
        except TimeoutError:
            print(f"The run did not finish within {args.max_seconds:.0f} s.", file=sys.stderr)
            return 1
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "load_test.json").write_text(json.dumps(result, indent=2, default=str), encoding="utf-8")
    print(report(result))
    failed = result["concurrent"]["errors"] or result["reruns"]["errors"] \
        or result["reruns"]["growth_after_warmup_mb"] > args.max_growth_mb
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
