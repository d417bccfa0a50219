"""Server memory around big uploads, measured on a real ``streamlit run app.py`` (run by hand).

1. start the app on a free loopback port; "idle" = its resident memory (VmRSS) once a first browser
   tab has loaded the Introduction page and closed again (the app's modules are imported then);
2. ``--tabs`` Chromium tabs each upload a CSV of ``--rows`` rows x 20 numbers (about 148 MB per
   million rows) on the Data page and press Step once on the Grow page; the tabs are closed;
3. the server's memory is sampled every 5 s for ``--watch`` seconds after the last tab closed;
4. one tab uploads a gzip "bomb" (1.5 MB that unpacks to ``--bomb-mb`` MB of CSV rows) and the
   server's peak (VmHWM, reset just before) over its memory before the upload is reported.

Prints one JSON object. Streamlit keeps a closed tab's session for ``server.disconnectedSessionTTL``
seconds (120 by default) so that a reconnecting tab finds its state; pass ``--ttl`` to change it.

    python benchmarks/bench_memory.py --rows 600000 --tabs 2 --watch 200
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def status(pid: int) -> dict[str, float]:
    """VmRSS and VmHWM of ``pid`` in MB."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
    return {k: int(fields[k].split()[0]) / 1024 for k in ("VmRSS", "VmHWM")}


def reset_peak(pid: int) -> None:
    Path(f"/proc/{pid}/clear_refs").write_text("5")  # VmHWM := VmRSS (own processes, or root)


def gzip_bomb(path: Path, megabytes: int) -> Path:
    """A .csv.gz of ``megabytes`` MB of rows "1,2,a" without holding them unpacked."""
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b"1,2,a\n" * (1 << 18)
    with open(path, "wb") as out:
        out.write(z.compress(b"x,y,label\n"))
        for _ in range(megabytes * (1 << 20) // len(block)):
            out.write(z.compress(block))
        out.write(z.flush())
    return path


def start_server(port: int, ttl: int | None, log: Path, env: dict | None = None) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
           "--server.port", str(port), "--server.address", "127.0.0.1", "--server.fileWatcherType", "none",
           "--browser.gatherUsageStats", "false"]
    if ttl is not None:
        cmd += ["--server.disconnectedSessionTTL", str(ttl)]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=open(log, "wb"), stderr=subprocess.STDOUT,
                            env={**os.environ, **(env or {})})
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                if resp.read().strip() == b"ok":
                    return proc
        except OSError:
            time.sleep(0.25)
    proc.kill()
    raise SystemExit("the server did not start")


def wait_idle(page) -> None:
    page.wait_for_timeout(300)
    page.wait_for_selector(IDLE, timeout=300_000)


def upload_and_step(browser, url: str, path: Path, *, step: bool = True) -> None:
    context = browser.new_context(base_url=url, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(300_000)
    page = context.new_page()
    try:
        page.goto("/")
        wait_idle(page)
        page.get_by_test_id("stSidebar").get_by_role("link", name="Data").click()
        wait_idle(page)
        page.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(str(path))
        page.wait_for_function("() => /Loaded|could not|more than/.test(document.body.innerText)", timeout=300_000)
        wait_idle(page)
        if step:
            page.get_by_test_id("stSidebar").get_by_role("link", name="Grow").click()
            wait_idle(page)
            page.locator(".st-key-_w_grow_step button").click()
            wait_idle(page)
    finally:
        context.close()


def measure(args) -> dict:
    from playwright.sync_api import sync_playwright

    from benchmarks.bench_app import write_csv

    folder = Path(tempfile.mkdtemp(prefix="dtx-mem-"))
    csv = write_csv(args.rows, folder)
    bomb = gzip_bomb(folder / "bomb.csv.gz", args.bomb_mb)
    port = free_port()
    proc = start_server(port, args.ttl, folder / "server.log")
    url = f"http://127.0.0.1:{port}"
    out: dict = {"rows": args.rows, "file_mb": round(csv.stat().st_size / 2**20, 1), "tabs": args.tabs,
                 "bomb_gz_mb": round(bomb.stat().st_size / 2**20, 2), "bomb_unpacked_mb": args.bomb_mb}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                        args=["--no-sandbox", "--disable-dev-shm-usage"])
            context = browser.new_context(base_url=url)
            page = context.new_page()
            page.goto("/")
            wait_idle(page)
            context.close()
            time.sleep(5)
            out["idle_mb"] = round(status(proc.pid)["VmRSS"], 1)
            for _ in range(args.tabs):
                upload_and_step(browser, url, csv)
            out["after_tabs_mb"] = round(status(proc.pid)["VmRSS"], 1)
            start, samples = time.monotonic(), {}
            while time.monotonic() - start < args.watch:
                samples[round(time.monotonic() - start)] = round(status(proc.pid)["VmRSS"], 1)
                time.sleep(5)
            samples[round(time.monotonic() - start)] = round(status(proc.pid)["VmRSS"], 1)
            out["after_close_mb"] = samples
            before = status(proc.pid)["VmRSS"]
            reset_peak(proc.pid)
            t0 = time.monotonic()
            upload_and_step(browser, url, bomb, step=False)
            out["bomb_seconds"] = round(time.monotonic() - t0, 1)
            out["bomb_peak_over_before_mb"] = round(status(proc.pid)["VmHWM"] - before, 1)
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=600_000)
    ap.add_argument("--tabs", type=int, default=2)
    ap.add_argument("--watch", type=int, default=200, help="seconds to watch memory after the tabs close")
    ap.add_argument("--ttl", type=int, default=None, help="server.disconnectedSessionTTL (default: Streamlit's)")
    ap.add_argument("--bomb-mb", type=int, default=1024)
    print(json.dumps(measure(ap.parse_args(argv)), indent=1))


if __name__ == "__main__":
    main()
