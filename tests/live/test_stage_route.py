"""The stage route (live/stage_route.py): the room's stage number for a key made with the server's secret,
the same 404 for everything else, a bounded number of store reads, and Redis shared by two processes."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from live import stage_route
from live.rooms import StoreUnavailable
from live.stage_route import GONE, OFFLINE, PATH, StageMiddleware, StageVersions, key_matches, poll_key, version_of
from live.store import MemoryStore
from tests.redis_server import redis_server

ROOT = Path(__file__).resolve().parents[2]
SECRET = "a-secret-of-this-server"
SNAP = {"question": {"node": 0, "features": ["Outlook", "Humidity"]}, "tree": "{}"}


def run_async(coro):
    """``asyncio.run(coro)`` on a thread of its own: in the full suite, Playwright's sync API (the browser
    tests) leaves an event loop running on the main thread, where ``asyncio.run`` refuses to start."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


async def _elsewhere(scope, receive, send):  # the app behind the middleware (Streamlit's server)
    await send({"type": "http.response.start", "status": 299, "headers": []})
    await send({"type": "http.response.body", "body": b"the app"})


def route(store) -> StageMiddleware:
    return StageMiddleware(_elsewhere, store=lambda: store, secret=lambda: SECRET)


def get(mw: StageMiddleware, query: str, path: str = PATH, method: str = "GET") -> tuple[int, dict, str]:
    """One request through the middleware (raw ASGI: status, headers, body), with its cache emptied (each
    call is a new event loop, and a test wants a fresh read)."""
    mw.versions._known.clear()
    out = {"body": b""}

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        if message["type"] == "http.response.start":
            out["status"], out["headers"] = message["status"], {k.decode(): v.decode() for k, v in message["headers"]}
        elif message["type"] == "http.response.body":
            out["body"] += message.get("body", b"")

    scope = {"type": "http", "method": method, "path": path, "raw_path": path.encode(), "query_string": query.encode(),
             "headers": [], "scheme": "http", "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 5000),
             "root_path": "", "http_version": "1.1"}
    run_async(mw(scope, receive, send))
    return out["status"], out["headers"], out["body"].decode()


def test_a_key_is_bound_to_the_code_and_the_secret():
    key = poll_key("ABCDEF", SECRET)
    assert len(key) == stage_route.KEY_CHARS and key == poll_key("ABCDEF", SECRET)
    assert key_matches("ABCDEF", key, SECRET)
    assert not key_matches("ABCDEG", key, SECRET)                       # another code
    assert not key_matches("ABCDEF", key, "another secret")             # another server's secret
    assert not key_matches("ABCDEF", key[:-1], SECRET)
    assert not key_matches("abcdef", poll_key("abcdef", SECRET), SECRET)  # not a code: never a key
    assert not key_matches("ABCDEF" * 50, poll_key("ABCDEF" * 50, SECRET), SECRET)


def test_the_version_follows_the_rooms_stage_and_says_gone_and_offline():
    store = MemoryStore()
    code = store.create("teacher")
    first = version_of(store, code)
    assert first.isdigit()
    store.publish(code, "teacher", "round-1", SNAP)
    second = version_of(store, code)
    assert int(second) > int(first)
    store.join(code, "Ana")
    assert version_of(store, code) == second                           # another student: not a stage change
    store.close(code, "teacher")
    assert int(version_of(store, code)) > int(second)
    assert version_of(store, "ZZZZZZ") == GONE

    class Away:
        def stage(self, code):
            raise StoreUnavailable("The class server cannot be reached.")

    assert version_of(Away(), code) == OFFLINE


def test_the_route_answers_the_number_for_the_key_and_the_same_404_for_anything_else():
    store = MemoryStore()
    code = store.create("teacher")
    mw = route(store)
    status, headers, body = get(mw, f"room={code}&key={poll_key(code, SECRET)}")
    assert status == 200 and body == version_of(store, code) and headers["cache-control"] == "no-store"
    assert "set-cookie" not in headers and int(headers["content-length"]) == len(body)
    store.publish(code, "teacher", "round-1", SNAP)
    assert get(mw, f"room={code}&key={poll_key(code, SECRET)}")[2] == version_of(store, code)
    unknown = "ZZZZZZ" if code != "ZZZZZZ" else "YYYYYY"
    refused = [get(mw, q) for q in (
        f"room={code}&key={poll_key(code, 'guessed')}",                 # a room that exists, a made-up key
        f"room={unknown}&key={poll_key(unknown, 'guessed')}",           # a room that does not
        f"room={code}", "", f"room={code}&key=",
        f"room=%3Cscript%3E&key={poll_key(code, SECRET)}", "&".join(["room=A"] * 5000))]
    refused.append(get(mw, f"room={code}&key={poll_key(code, SECRET)}", method="POST"))
    assert {(s, b) for s, _h, b in refused} == {(404, "not found")}
    assert mw.versions.reads == 2                                       # the refused ones read nothing
    assert get(mw, f"room={unknown}&key={poll_key(unknown, SECRET)}")[2] == GONE  # ended, or restarted
    assert get(mw, "", path="/_stcore/health")[:3:2] == (299, "the app")  # anything else: the app's


def test_many_polls_of_one_room_cost_one_store_read_per_interval():
    reads = []

    class Counting(MemoryStore):
        def stage(self, code):
            reads.append(code)
            return super().stage(code)

    store, now = Counting(), [0.0]
    code = store.create("teacher")
    versions = StageVersions(lambda: store, seconds=0.3, rooms=3, clock=lambda: now[0])

    async def burst(n):
        return await asyncio.gather(*(versions.get(code) for _ in range(n)))

    assert len(set(run_async(burst(300)))) == 1 and len(reads) == 1   # 300 pages at once: one read
    run_async(burst(50))
    assert len(reads) == 1                                              # within the interval: the cache
    now[0] += 0.31
    store.publish(code, "teacher", "round-1", SNAP)
    assert run_async(burst(10))[0] == str(MemoryStore.stage(store, code)["n"]) and len(reads) == 2
    for other in ("AAAAAA", "BBBBBB", "CCCCCC", "DDDDDD"):
        run_async(versions.get(other))
    assert len(versions._known) <= 3                                    # bounded, whatever codes come


@pytest.fixture(scope="module")
def redis_url():
    with redis_server() as (url, _proc):
        yield url


def test_with_redis_a_step_made_by_another_process_changes_the_version_here(redis_url):
    """Two processes share the store: the teacher's (a subprocess that publishes) and this one's route."""
    from live.redis_store import RedisStore

    store = RedisStore(redis_url)
    store.client.flushdb()
    code = store.create("teacher")
    mw = route(store)
    query = f"room={code}&key={poll_key(code, SECRET)}"
    before = get(mw, query)[2]
    teacher = textwrap.dedent(f"""
        from live.redis_store import RedisStore
        RedisStore({redis_url!r}).publish({code!r}, "teacher", "round-1", {SNAP!r})
    """)
    subprocess.run([sys.executable, "-c", teacher], cwd=ROOT, check=True, timeout=60)
    after = get(mw, query)[2]
    assert before.isdigit() and after.isdigit() and int(after) > int(before)
    store.client.flushdb()                                              # a Redis that lost its rooms
    assert get(mw, query)[2] == GONE
