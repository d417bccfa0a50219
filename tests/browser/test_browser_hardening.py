"""End to end in Chromium: hostile text stays text, and the replica setup of deploy/ really works.

- A file whose column names and values are Markdown, LaTeX, HTML, DOT syntax and ``javascript:``
  links is uploaded through the real uploader and grown on the Grow page: no dialog opens (no script
  ran), no KaTeX formula, bold/italic element or ``javascript:`` link is made from the data, the
  diagram's SVG shows the names literally, and no exception or error box appears.
- ``deploy/nginx.conf`` (the file itself, with test ports put in) in front of two replicas started
  with one shared cookie secret: requests without the cookie are spread over the replicas, a browser
  with the cookie stays on one, and a whole session (upload with XSRF check, websocket, steps) works
  through the proxy. Skipped locally when nginx is not installed (``apt-get install nginx-light``), a failure under CI.
- The replicas share a throw-away ``redis-server`` through ``DTX_REDIS_URL``: a teacher on one
  replica starts a live class, a student on the other joins it, answers, and follows the reveal.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
import sys
import time
import urllib.request
from contextlib import ExitStack
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.redis_server import redis_server
from tests.services import unavailable

TREES = "[class*='st-key-'][class*='_tree'] .js-plotly-plot"  # the interactive tree diagrams

ROOT = Path(__file__).resolve().parents[2]
HOSTILE_FILE = ROOT / "tests" / "data" / "awkward" / "markup_names.csv"


def no_injected_markup(page) -> None:
    """Nothing the data could have turned into markup or script is on the page."""
    expect(page.get_by_test_id("stException")).to_have_count(0)
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    assert page.locator("a[href^='javascript']").count() == 0
    assert page.locator("script:text('alert')").count() == 0
    main = page.get_by_test_id("stMain")
    for token in ("bold", "hb1"):
        assert main.locator(f"strong:text-is('{token}'), em:text-is('{token}')").count() == 0
    # the app's own formulas (st.latex) are fine; a formula made of the column name "$x$" is not
    formulas = [t.strip() for t in main.locator(".katex annotation").all_text_contents()]
    assert "x" not in formulas, formulas


def test_hostile_upload_is_shown_literally(page, wait_idle, screenshot):
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto("/")
    wait_idle(page)
    page.get_by_test_id("stSidebar").get_by_role("link", name="Data").click()
    wait_idle(page)
    page.locator(".st-key-_w_data_upload [data-testid='stFileUploaderDropzoneInput']").set_input_files(str(HOSTILE_FILE))
    expect(page.get_by_text(re.compile(r"Loaded .*markup_names"))).to_be_visible(timeout=60_000)  # a busy machine
    wait_idle(page)
    # the loading note names the column '$x$' literally (not as a formula)
    expect(page.get_by_text("Column '$x$' counts the rows", exact=False)).to_be_visible()
    no_injected_markup(page)
    screenshot(page, "hardening-hostile-data")

    page.get_by_test_id("stSidebar").get_by_role("link", name="Grow").click()
    wait_idle(page)
    step = page.locator(".st-key-_w_grow_step button")
    for _ in range(2):
        if step.is_disabled():
            break
        step.click()
        wait_idle(page)
    svg_text = " ".join(t or "" for t in page.locator(TREES).first.locator("text").all_text_contents())
    assert any(name in svg_text for name in ("**bold**", "{}|<>", ":red[z]", "[a](javascript:alert(1))")), svg_text
    no_injected_markup(page)
    # Plotly treats a $...$ pair as TeX and, without MathJax, dropped it: the names must survive
    plot_text = " ".join(t or "" for t in page.locator(".st-key-grow_regions, .st-key-grow_fit").first
                         .locator("text").all_text_contents())
    assert "$x$" in plot_text and '"]; n0 -> n1 [' in plot_text, plot_text
    # the class labels are formulas in a spreadsheet, but text here
    assert "=1+1" in svg_text or "@cmd" in svg_text
    screenshot(page, "hardening-hostile-grow", full_page=False)
    assert not dialogs, dialogs


# ------------------------------------------------------------------------------------- replicas
def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_healthy(url: str, proc, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"a process behind {url} exited early", pytrace=False)
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                if resp.read().strip() == b"ok":
                    return
        except OSError:
            time.sleep(0.25)
    pytest.fail(f"{url} did not answer within {timeout:.0f}s", pytrace=False)


@pytest.fixture
def proxied_replicas(tmp_path, request):
    """Two replicas (shared cookie secret, one Redis for live classes) behind deploy/nginx.conf;
    yields (proxy URL, replica ports). An indirect parameter (a dict) adds to the replicas' environment."""
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if nginx is None:
        unavailable("The replica tests", "nginx is not installed (apt-get install nginx-light; .ci/run does)")
    ports = [_free_port(), _free_port()]
    proxy_port = _free_port()
    stack = ExitStack()
    redis_url, _ = stack.enter_context(redis_server())
    env = {**os.environ, "STREAMLIT_SERVER_COOKIE_SECRET": secrets.token_hex(16), "DTX_REDIS_URL": redis_url,
           "DTX_TRUSTED_PROXIES": "127.0.0.1",  # as deploy/run_replicas.sh
           **getattr(request, "param", {})}
    procs = []
    logs = tmp_path / "logs"
    logs.mkdir()
    try:
        for port in ports:
            log = open(logs / f"replica-{port}.log", "wb")
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                 "--server.address", "127.0.0.1", "--server.port", str(port), "--server.fileWatcherType",
                 "none", "--browser.gatherUsageStats", "false"], cwd=ROOT, env=env, stdout=log,
                stderr=subprocess.STDOUT))
        for port, proc in zip(ports, procs):
            _wait_healthy(f"http://127.0.0.1:{port}", proc)
        conf = (ROOT / "deploy" / "nginx.conf").read_text(encoding="utf-8")
        servers = re.findall(r"^\s*server 127\.0\.0\.1:\d+ .*;$", conf, flags=re.M)
        assert len(servers) == 3, "the example config lists three replicas"
        conf = conf.replace(servers[0], f"        server 127.0.0.1:{ports[0]} max_fails=3 fail_timeout=10s;")
        conf = conf.replace(servers[1], f"        server 127.0.0.1:{ports[1]} max_fails=3 fail_timeout=10s;")
        conf = conf.replace(servers[2], "")
        conf = conf.replace("listen 127.0.0.1:8080;", f"listen 127.0.0.1:{proxy_port};")
        prefix = tmp_path / "nginx"
        prefix.mkdir()
        tls_port, conf = _enable_tls(conf, prefix)
        site = (ROOT / "deploy" / "dtx-site.inc").read_text(encoding="utf-8")
        debug = "# add_header X-Dtx-Replica $upstream_addr always;"
        assert debug in site, "the replica header stays off in the shipped file"
        site = site.replace(debug, debug[2:])  # this test asks which replica answered
        (prefix / "nginx.conf").write_text(conf, encoding="utf-8")
        (prefix / "dtx-site.inc").write_text(site, encoding="utf-8")
        procs.append(subprocess.Popen([nginx, "-p", str(prefix), "-c", "nginx.conf", "-g", "daemon off;"],
                                      stdout=open(logs / "nginx.log", "wb"), stderr=subprocess.STDOUT))
        url = f"http://127.0.0.1:{proxy_port}"
        _wait_healthy(url, procs[-1])
        yield url, ports, f"https://127.0.0.1:{tls_port}"
    finally:
        for proc in reversed(procs):
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
        stack.close()


def _enable_tls(conf: str, prefix: Path) -> tuple[int, str]:
    """The shipped TLS example (between its markers) uncommented, on a free port, with a fresh self-signed
    certificate; returns (port, config)."""
    openssl = shutil.which("openssl")
    if openssl is None:
        unavailable("The replica tests", "openssl is not installed (apt-get install openssl)")
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                    "-keyout", str(prefix / "key.pem"), "-out", str(prefix / "cert.pem")], check=True,
                   capture_output=True, timeout=60)
    begin, end = conf.index("# TLS-BEGIN"), conf.index("# TLS-END")
    block = "\n".join(line.replace("# ", "", 1) for line in conf[begin:end].splitlines()[1:])
    port = _free_port()
    block = (block.replace("listen 443 ssl", f"listen 127.0.0.1:{port} ssl")
             .replace("/etc/ssl/certs/dtx.pem", str(prefix / "cert.pem"))
             .replace("/etc/ssl/private/dtx.key", str(prefix / "key.pem")))
    assert "server {" in block and "include dtx-site.inc;" in block, block
    return port, conf[:begin] + block + "\n" + conf[end:]


def _replica_of(url: str, cookie: str | None = None) -> tuple[str, str | None]:
    req = urllib.request.Request(f"{url}/_stcore/health", headers={"Cookie": cookie} if cookie else {})
    with urllib.request.urlopen(req, timeout=10) as resp:
        ours = [c for c in resp.headers.get_all("Set-Cookie") or [] if c.startswith("dtx_replica=")]
        for header, value in SECURITY_HEADERS.items():
            assert value in (resp.headers.get(header) or ""), (header, resp.headers.get(header))
        assert resp.headers.get("Server") == "nginx", resp.headers.get("Server")  # server_tokens off: no version
        policy = resp.headers.get("Permissions-Policy") or ""
        assert all(f"{device}=()" in policy for device in NO_DEVICES), policy
        return resp.headers["X-Dtx-Replica"], (ours[0] if ours else None)


# what deploy/nginx.conf adds to every answer (parts of the values)
SECURITY_HEADERS = {"X-Frame-Options": "SAMEORIGIN", "Content-Security-Policy": "frame-ancestors 'self'",
                    "X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin",
                    "Permissions-Policy": "camera=()"}
# devices the app never uses, each refused by the Permissions-Policy header
NO_DEVICES = ("camera", "microphone", "geolocation", "payment", "usb", "serial", "hid", "midi",
              "accelerometer", "gyroscope", "magnetometer", "display-capture", "browsing-topics")


def test_replicas_behind_nginx_keep_each_browser_on_one_replica(proxied_replicas, browser, wait_idle, tmp_path):
    url, ports, _ = proxied_replicas
    # without the cookie: spread over both replicas (20 fresh keys all on one: chance 2 in a million)
    seen = {_replica_of(url)[0] for _ in range(20)}
    assert seen == {f"127.0.0.1:{p}" for p in ports}, seen
    # with the cookie the proxy handed out: always the same replica
    first, set_cookie = _replica_of(url)
    assert set_cookie and set_cookie.startswith("dtx_replica=") and "HttpOnly" in set_cookie
    cookie = set_cookie.split(";", 1)[0]
    assert {_replica_of(url, cookie)[0] for _ in range(10)} == {first}

    # a whole session through the proxy: websocket, upload (XSRF-checked), steps
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=url)
    context.set_default_timeout(90_000)
    page = context.new_page()
    refused = []  # the proxy's Content-Security-Policy must not block anything the app itself loads, and
    # every name in its Permissions-Policy must be one Chromium knows (an unknown one is a console error)
    page.on("console", lambda msg: refused.append(msg.text) if (
        "Content Security Policy" in msg.text or "Permissions-Policy" in msg.text) else None)
    try:
        page.goto("/")
        wait_idle(page)
        page.get_by_test_id("stSidebar").get_by_role("link", name="Data").click()
        wait_idle(page)
        csv = tmp_path / "proxied.csv"
        csv.write_text("x,y,colour,label\n" + "".join(
            f"{i % 7},{(i * 3) % 11},{'rgb'[i % 3]},{'ab'[(i % 7 > 3) ^ (i % 3 == 0)]}\n" for i in range(60)),
            encoding="utf-8")
        page.locator(".st-key-_w_data_upload [data-testid='stFileUploaderDropzoneInput']").set_input_files(str(csv))
        expect(page.get_by_text(re.compile(r"Loaded .*proxied"))).to_be_visible(timeout=60_000)  # a busy machine
        wait_idle(page)
        page.get_by_test_id("stSidebar").get_by_role("link", name="Grow").click()
        wait_idle(page)
        for i in (1, 2):
            page.locator(".st-key-_w_grow_step button").click()
            wait_idle(page)
            expect(page.get_by_text(re.compile(rf"Step {i} · "))).to_be_visible()
        expect(page.get_by_test_id("stException")).to_have_count(0)
        expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
        # the interactive tree diagram draws under the CSP (no console message about it, see `refused`)
        expect(page.locator(".st-key-grow_diagram [data-testid='stPlotlyChart']").first).to_be_visible()
        # the wheel script (ui/wheel.py) ran under the policy too: its listeners are on the page
        assert page.evaluate("() => Object.keys(window.__dtxWheel || {}).sort()") == [
            "pointerdown", "pointermove", "wheel"]
        cookies = {c["name"]: c["value"] for c in context.cookies()}
        assert "dtx_replica" in cookies and "_streamlit_xsrf" in cookies
        assert refused == [], "\n".join(refused)
        # the browser applies the Permissions-Policy: the page may use none of these devices
        allowed = page.evaluate("f => f.filter(x => document.featurePolicy.allowedFeatures().includes(x))",
                                list(NO_DEVICES))
        assert allowed == [], allowed
    finally:
        context.close()


def _cookie_for(url: str, replica: str) -> str:
    """A dtx_replica cookie value that nginx sends to ``replica`` (host:port)."""
    for _ in range(200):
        where, set_cookie = _replica_of(url)
        if where == replica:
            return set_cookie.split(";", 1)[0].split("=", 1)[1]
    pytest.fail(f"no cookie led to {replica}")


def test_live_class_across_replicas_through_redis(proxied_replicas, browser, wait_idle, screenshot):
    url, ports, _ = proxied_replicas
    pages, contexts = [], []
    try:
        for port, viewport in zip(ports, ({"width": 1600, "height": 1100}, {"width": 390, "height": 844})):
            ctx = browser.new_context(viewport=viewport, base_url=url)
            ctx.set_default_timeout(90_000)
            ctx.add_cookies([{"name": "dtx_replica", "value": _cookie_for(url, f"127.0.0.1:{port}"),
                              "url": url}])
            contexts.append(ctx)
            pages.append(ctx.new_page())
        teacher, student = pages
        refused = []  # the join page's watchdog script runs under the proxy's policy (allowed by its hash)
        student.on("console", lambda msg: refused.append(msg.text) if "Content Security Policy" in msg.text else None)
        teacher.goto("/grow?presenter=true")
        wait_idle(teacher)
        teacher.get_by_role("button", name="Start a live class").click()
        wait_idle(teacher)
        address = teacher.get_by_test_id("stCode").first.inner_text().strip()
        code = address.rsplit("=", 1)[1]
        student.goto(f"/join?room={code}")  # through the proxy, to the other replica
        wait_idle(student)
        box = student.get_by_role("textbox", name="Your nickname")
        box.click()
        box.press_sequentially("Ana")
        student.get_by_role("button", name="Join").click()
        wait_idle(student)
        expect(student.get_by_text("Which feature will split node 0")).to_be_visible()
        student.get_by_role("button", name="Outlook", exact=True).click()
        wait_idle(student)
        expect(teacher.get_by_text(re.compile(r"1 student present · Answered: 1 of 1"))).to_be_visible(
            timeout=15_000)
        teacher.get_by_role("button", name="Reveal").click()
        wait_idle(teacher)
        expect(student.get_by_text(re.compile(r"Right: node 0 is split on Outlook"))).to_be_visible(timeout=15_000)
        # the student's page learnt of the reveal from the stage route, through the proxy, from Redis
        follow = student.evaluate("() => window.__dtxFollow")
        assert follow["polls"] > 0 and "stage" in follow["why"], follow
        teacher.locator(".st-key-_w_grow_step button").click()
        wait_idle(teacher)
        expect(student.get_by_text(re.compile(r"Which feature will split node \d+"))).to_be_visible(timeout=15_000)
        # each browser really stayed on its own replica
        for ctx, port in zip(contexts, ports):
            cookie = next(c["value"] for c in ctx.cookies() if c["name"] == "dtx_replica")
            assert _replica_of(url, f"dtx_replica={cookie}")[0] == f"127.0.0.1:{port}"
        wait_idle(student)
        screenshot(student, "live_replica_student")
        for page in pages:
            expect(page.get_by_test_id("stException")).to_have_count(0)
        assert refused == [], "\n".join(refused)
    finally:
        for ctx in contexts:
            ctx.close()


def test_the_proxy_reuses_its_connections_to_a_replica(proxied_replicas):
    """Every student page polls the stage route each second: nginx must pass those requests on its
    keep-alive connections to the replica (``keepalive`` in the upstream block), not close one per request
    (a ``Connection: close`` sent upstream for requests without an Upgrade header made each poll a new
    connection, which the replica closed: one TIME_WAIT socket on its port per request)."""
    import http.client

    import psutil

    url, ports, _ = proxied_replicas
    replica = f"127.0.0.1:{ports[0]}"
    cookie = f"dtx_replica={_cookie_for(url, replica)}"

    def closed_by_replica() -> int:
        return sum(1 for c in psutil.net_connections(kind="tcp")
                   if c.laddr and c.laddr.port == ports[0] and c.status == psutil.CONN_TIME_WAIT)

    before = closed_by_replica()
    conn = http.client.HTTPConnection(url.split("//")[1], timeout=10)
    try:
        for _ in range(20):
            conn.request("GET", "/api/live/stage?room=ABCDEF&key=0", headers={"Cookie": cookie})
            resp = conn.getresponse()
            resp.read()
            assert resp.status == 404 and resp.headers.get("X-Dtx-Replica") == replica
    finally:
        conn.close()
    assert closed_by_replica() - before < 5


# ------------------------------------------------------------------ issue 40: who asks, how often, what leaks
def _stage_polls(base: str, n: int, *, source: str = "127.0.0.1", spoof: bool = False,
                 context=None) -> tuple[dict[int, int], list[str]]:
    """``n`` stage-route requests on one connection from ``source`` (a loopback address of this machine),
    each with made-up ``X-Forwarded-For``/``X-Real-IP`` when ``spoof``; the count of each status and the
    Retry-After values seen."""
    import http.client
    import random

    host, port = base.split("//")[1].split(":")
    conn = (http.client.HTTPSConnection(host, int(port), timeout=10, context=context, source_address=(source, 0))
            if base.startswith("https") else http.client.HTTPConnection(host, int(port), timeout=10,
                                                                           source_address=(source, 0)))
    statuses, waits = {}, []
    try:
        for _ in range(n):
            made_up = f"198.51.{random.randrange(256)}.{random.randrange(256)}"
            conn.request("GET", "/api/live/stage?room=ABCDEF&key=0",
                         headers={"X-Forwarded-For": made_up, "X-Real-IP": made_up} if spoof else {})
            resp = conn.getresponse()
            resp.read()
            statuses[resp.status] = statuses.get(resp.status, 0) + 1
            if resp.status == 429:
                waits.append(resp.headers.get("Retry-After"))
    finally:
        conn.close()
    return statuses, waits


# a slow bucket (one request every 5 s after 8): on a loaded machine a request through the proxy can take a
# quarter of a second, and at the default 4 a second the bucket refilled as fast as the test could ask (CI)
SLOW_BUCKET = {"DTX_STAGE_RATE": "0.2,8"}


def test_a_replica_counts_the_socket_whatever_headers_it_is_sent():
    """Findings 10 and 11 straight to a replica's port (no proxy named: the default): made-up X-Forwarded-For
    and X-Real-IP headers named a new client for every request (1,096 code guesses a minute), and the stage
    route had no limit at all (3,739 requests a second). Now the socket's address counts, its bucket runs dry
    after a burst (429 with Retry-After), and another address of this machine still gets answers."""
    from tests.browser.conftest import streamlit_server

    with streamlit_server({"DTX_TRUSTED_PROXIES": "", **SLOW_BUCKET}) as url:
        statuses, waits = _stage_polls(url, 60, spoof=True)
        assert statuses.get(429, 0) >= 10 and set(statuses) == {404, 429}, statuses
        assert all(w and w.isdigit() and int(w) >= 1 for w in waits), waits
        assert _stage_polls(url, 5, source="127.0.0.2")[0] == {404: 5}  # a client of its own


@pytest.mark.parametrize("proxied_replicas", [SLOW_BUCKET], indirect=True)
def test_behind_the_proxy_only_its_word_counts(proxied_replicas):
    """Through nginx (named in DTX_TRUSTED_PROXIES, as deploy/run_replicas.sh does) the address is the one
    nginx saw: headers the client made up do not spread it over many buckets, and another address is
    another client."""
    url, _, _ = proxied_replicas
    statuses, _ = _stage_polls(url, 60, spoof=True)
    assert statuses.get(429, 0) >= 10, statuses
    assert _stage_polls(url, 5, source="127.0.0.2")[0] == {404: 5}


def _answers(base: str, context=None) -> list[tuple[str, int, dict[str, list[str]], bytes]]:
    """What the proxy answers to a browser's usual requests, a CORS preflight and the metrics page:
    (request, status, headers by lower-case name)."""
    import http.client

    host, port = base.split("//")[1].split(":")
    out = []
    for method, path, headers in (("GET", "/", {}), ("GET", "/_stcore/health", {}),
                                  ("OPTIONS", "/_stcore/upload_file/x/y", {"Origin": base,
                                   "Access-Control-Request-Method": "PUT",
                                   "Access-Control-Request-Headers": "x-xsrftoken"}),
                                  ("OPTIONS", "/_stcore/health", {"Origin": "https://elsewhere.example"}),
                                  ("GET", "/_stcore/metrics", {}), ("GET", "/_stcore/metrics/", {}),
                                  ("GET", "/_stcore/%6detrics", {}), ("GET", "/no/such/page", {})):
        conn = (http.client.HTTPSConnection(host, int(port), timeout=10, context=context)
                if base.startswith("https") else http.client.HTTPConnection(host, int(port), timeout=10))
        try:
            conn.request(method, path, headers=headers)
            resp = conn.getresponse()
            body = resp.read()
            seen: dict[str, list[str]] = {}
            for name, value in resp.getheaders():
                seen.setdefault(name.lower(), []).append(value)
            out.append((f"{method} {path}", resp.status, seen, body))
        finally:
            conn.close()
    return out


def test_the_proxy_tells_no_internal_address_and_keeps_metrics_inside(proxied_replicas):
    """Finding 12: the upload route's CORS preflight named a replica (http://localhost:<port>), and
    /_stcore/metrics (session counts, caches) was open to anyone."""
    url, ports, _ = proxied_replicas
    internal = [f":{p}" for p in ports] + ["localhost", "127.0.0.1"]
    for request, status, headers, body in _answers(url):
        shown = {k: v for k, v in headers.items() if k != "x-dtx-replica"}  # the test's own debug header
        assert not any(word in value for values in shown.values() for value in values for word in internal), \
            (request, shown)
        if "metrics" in request:
            assert status == 404 and b"session" not in body, (request, status)
    assert "access-control-allow-origin" not in dict((r, h) for r, _s, h, _b in _answers(url))[
        "OPTIONS /_stcore/upload_file/x/y"]


def test_over_tls_cookies_are_secure_and_browsers_are_told_https_only(proxied_replicas):
    """Finding 12: no HSTS in the config, and the _streamlit_xsrf and dtx_replica cookies without Secure.
    The shipped TLS example (uncommented, with a throw-away certificate) sends both; plain http sends no
    HSTS (browsers ignore it there) and the same cookies without Secure (they would not be stored)."""
    import ssl

    url, _, tls_url = proxied_replicas
    unverified = ssl.create_default_context()
    unverified.check_hostname, unverified.verify_mode = False, ssl.CERT_NONE
    tls = {r: (s, h) for r, s, h, _b in _answers(tls_url, unverified)}
    status, headers = tls["GET /_stcore/health"]
    assert status == 200 and headers["strict-transport-security"][0].startswith("max-age=31536000"), headers
    cookies = {c.split("=", 1)[0]: c for c in headers["set-cookie"]}
    assert set(cookies) >= {"_streamlit_xsrf", "dtx_replica"}, cookies
    assert all("; Secure" in c or "; secure" in c for c in cookies.values()), cookies
    assert all("strict-transport-security" in h for _s, h in tls.values())  # on every answer, errors too
    plain = {r: h for r, _s, h, _b in _answers(url)}["GET /_stcore/health"]
    assert "strict-transport-security" not in plain
    assert not any("secure" in c.lower() for c in plain["set-cookie"]), plain["set-cookie"]
    # the whole site over TLS: headers of deploy/dtx-site.inc, no internal address either
    assert _stage_polls(tls_url, 3, context=unverified)[0] == {404: 3}
