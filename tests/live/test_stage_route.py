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
from live.stage_route import (GONE, OFFLINE, PATH, Buckets, StageMiddleware, StageVersions, client_keys, key_matches,
                               poll_key, version_of)
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


def get(mw: StageMiddleware, query: str, path: str = PATH, method: str = "GET", *, peer: str = "127.0.0.1",
        cookie: str | None = None) -> tuple[int, dict, str]:
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
             "headers": [(b"cookie", cookie.encode())] if cookie else [], "scheme": "http",
             "server": ("127.0.0.1", 80), "client": (peer, 5000),
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


def test_each_client_is_answered_from_its_own_bucket():
    """Finding 11: one process answered 3,739 requests a second from one client. A browser gets a burst of
    BURST and RATE a second after it (a page asks once a second), then 429 with Retry-After and nothing
    computed; another browser at the same address, or another address, is not slowed."""
    store = MemoryStore()
    code = store.create("teacher")
    mw = route(store)
    query = f"room={code}&key={poll_key(code, SECRET)}"
    ana = "_streamlit_xsrf=2|00010203|0a0b0c0d|1; dtx_replica=x"
    assert stage_route.RATE >= 3 * 1  # well above a page's one poll a second
    answered = [get(mw, query, cookie=ana) for _ in range(int(stage_route.BURST) + 5)]
    assert [s for s, _h, _b in answered[:int(stage_route.BURST)]] == [200] * int(stage_route.BURST)
    status, headers, body = answered[-1]
    assert status == 429 and int(headers["retry-after"]) >= 1 and body == "too many requests"
    assert get(mw, query, cookie="_streamlit_xsrf=2|00010203|0a0b0c0e|1")[0] == 200  # a classmate's browser
    assert get(mw, query, cookie=ana, peer="198.51.100.9")[0] == 200                  # the same cookie elsewhere


def test_a_client_inventing_cookies_stops_at_its_address_bucket():
    now = [0.0]
    mw = route(MemoryStore())
    mw.addresses = Buckets(50, 50, clock=lambda: now[0])
    statuses = [get(mw, "room=ABCDEF&key=0", cookie=f"_streamlit_xsrf=invented{i}")[0] for i in range(60)]
    assert statuses.count(404) == 50 and statuses[-1] == 429
    assert get(mw, "room=ABCDEF&key=0", peer="2001:db8::1")[0] == 404
    now[0] += 1.0  # a second later the address has 50 more
    assert get(mw, "room=ABCDEF&key=0")[0] == 404


def test_buckets_refill_forget_idle_clients_and_stay_bounded():
    now = [0.0]
    b = Buckets(2, 4, keys=3, clock=lambda: now[0])
    assert [b.take("a") for _ in range(4)] == [0.0] * 4
    assert b.take("a") == pytest.approx(0.5)  # one token back in half a second at 2 a second
    now[0] += 0.5
    assert b.take("a") == 0.0
    for key in ("b", "c", "d", "e"):
        b.take(key)
    assert len(b._buckets) <= 3
    # IPv6 counts per /64 (one subscriber's prefix); the browser is the XSRF token, whatever its mask
    one = client_keys({"client": ("2001:db8:1:2::5", 1), "headers": []})
    two = client_keys({"client": ("2001:db8:1:2:ffff::9", 1), "headers": []})
    assert one == two and one[0] == "2001:db8:1:2::/64"
    from streamlit.web.server.starlette.starlette_app_utils import generate_xsrf_token_string
    import os

    token = os.urandom(16)
    masked = [client_keys({"client": ("198.51.100.1", 1), "headers": [
        (b"cookie", f"a=b; _streamlit_xsrf={generate_xsrf_token_string(token, 1)}".encode())]}) for _ in range(2)]
    assert masked[0] == masked[1] and masked[0][1].endswith(token.hex())


def test_an_operator_may_set_the_browsers_rate_and_a_bad_value_keeps_the_default(monkeypatch):
    from live import stage_route

    monkeypatch.setenv(stage_route.ENV_RATE, "0.5,10")
    assert stage_route.browser_rate() == (0.5, 10.0)
    for bad in ("", "fast", "1", "0,10", "-1,5", "2,0.5", "nan,5", "1,2,3"):
        monkeypatch.setenv(stage_route.ENV_RATE, bad)
        assert stage_route.browser_rate() == (stage_route.RATE, stage_route.BURST), bad
