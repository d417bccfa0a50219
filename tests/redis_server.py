"""A throw-away ``redis-server`` for tests: free port, no persistence, stopped afterwards.

Missing binary or client: skipped locally with the reason, a failure under ``CI=true`` (``.ci/run``
installs Debian's redis-server).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from contextlib import contextmanager

import pytest

from tests import services


def unavailable(reason: str):
    services.unavailable("Redis tests", reason)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def redis_server():
    """Yield ``redis://127.0.0.1:<port>/0`` of a fresh server; stop it at the end."""
    binary = shutil.which("redis-server") or ("/usr/bin/redis-server" if os.path.exists("/usr/bin/redis-server")
                                              else None)
    if binary is None:
        unavailable("redis-server is not installed (apt-get install redis-server)")
    try:
        import redis
    except ImportError:
        unavailable("the redis client is not installed (pip install -r requirements.txt)")
    port = free_port()
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=1)
        deadline = time.monotonic() + 20
        while True:
            try:
                client.ping()
                break
            except redis.exceptions.ConnectionError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("redis-server did not start", pytrace=False)
                time.sleep(0.05)
        client.close()
        yield url, proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
