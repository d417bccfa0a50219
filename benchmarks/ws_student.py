"""A simulated student of a live class that speaks Streamlit's own websocket protocol (no browser).

One :class:`WsStudent` is what a student's tab is to the server: a websocket on ``/_stcore/stream`` with
a cookie of its own (the ``_streamlit_xsrf`` cookie is the browser id the app's limits count by), the
run requests a page sends (``BackMsg.rerun_script`` with the query string, the widget states and the
triggers of the buttons it presses) and the messages it gets back (``ForwardMsg``: ``new_session`` at the
start of each run, ``delta`` elements, ``script_finished``, ``page_info_changed`` when the app writes the
address, ``auto_rerun`` for the poll fragment's timer). It keeps the timers as Streamlit's frontend
does (a full run clears them, the fragment's ``auto_rerun`` arms them again), so the server does for it
exactly the work it does for a real page: every poll, every full run, the tree diagram's figure.

What it "shows" is the text of the elements of its last *finished* full run (markdown, captions, text,
alerts), as a page that got the whole run: :meth:`WsStudent.wait_for` returns when that text matches.
Like the join page's watchdog it presses **Refresh** when a full run's end never came (Streamlit dropped
its messages) or the poll fell silent. Exception boxes and error alerts count as errors.

Costs the load machine about a millisecond per message: a few hundred of them fit in one process, where
a few dozen Chromium tabs fill two cores.
"""

from __future__ import annotations

import asyncio
import random
import re
import secrets
import time
import urllib.parse

from streamlit.proto.Alert_pb2 import Alert
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

WAKE_KEY = "_w_join_wake"  # the page's Refresh (ui.classroom.live_watchdog.W_WAKE)
SEND_KEY = "_w_join_send_"  # the answer buttons (ui.classroom.live_student)
STAGE_PATH = "/api/live/stage"  # live.stage_route.PATH
# as ui.classroom.live_watchdog: POLL_SECONDS, WATCHDOG_SECONDS, WATCHDOG_LOST_SECONDS, WATCHDOG_BUSY_SECONDS,
# WATCHDOG_BACKOFF
POLL_SECONDS, SILENT_SECONDS, LOST_SECONDS, BUSY_SECONDS, BACKOFF = 1.0, 8.0, 3.0, 30.0, 4
MARKER = re.compile(r"^(\d+) (\d+|offline) ([A-Z0-9]+) ([0-9a-f]+)$")  # the page's last text (drawn_marker)
_ESCAPED = re.compile(r"\\(.)")


def _text_of(element) -> tuple[str | None, bool]:
    """(the text an element shows, whether it is an error) for the kinds the join page uses."""
    kind = element.WhichOneof("type")
    if kind == "markdown":
        return _ESCAPED.sub(r"\1", element.markdown.body).replace("**", ""), False
    if kind == "text":
        return element.text.body, False
    if kind == "alert":
        return _ESCAPED.sub(r"\1", element.alert.body), element.alert.format == Alert.ERROR
    if kind == "exception":
        return f"{element.exception.type}: {element.exception.message}", True
    if kind == "heading":
        return element.heading.body, False
    return None, False


class WsStudent:
    """One simulated student tab on ``base`` (``http://127.0.0.1:PORT``), following class ``code``."""

    def __init__(self, base: str, code: str, nickname: str, *, timeout: float = 120.0) -> None:
        self.base, self.code, self.nickname, self.timeout = base, code, nickname, timeout
        self.query = f"room={code}"
        self.cookie = secrets.token_hex(16)  # this "browser"'s XSRF cookie: its id for the app's limits
        self.ws = None
        self.shown: list[str] = []  # texts of the last finished full run
        self.shown_at = 0.0
        self.changed = asyncio.Event()  # set whenever a full run finishes
        self.errors: list[str] = []
        self.buttons: dict[str, tuple[str, str]] = {}  # widget id -> (label, key) of the last full run
        self.inputs: dict[str, str] = {}  # label -> widget id (text and number inputs)
        self.counts = {"full_runs": 0, "fragment_runs": 0, "route_polls": 0, "route_errors": 0, "messages": 0,
                       "missed": 0, "refresh": 0, "reconnects": 0, "retaps": 0, "refused_double": 0}
        self.marker: tuple[str, str, str, str] | None = None  # (run, stage, code, key) the last run ended with
        self._http = None  # (reader, writer): the keep-alive connection of the stage polls
        self._sent = self._got = self._pressed = 0.0  # when the page last sent a run request / got a message
        self._expect: tuple[float, tuple | None] | None = None  # a run asked for: (when, marker then)
        self._k = 1  # the press back-off
        self._texts: list[str] = []
        self._pending_buttons: dict[str, tuple[str, str]] = {}
        self._pending_inputs: dict[str, str] = {}
        self._full_run: str | None = None  # the full run in progress
        self._in_fragment = False  # whether the messages now are a fragment's run
        self._timers: dict[str, asyncio.Task] = {}
        self._reader: asyncio.Task | None = None
        self._watch: asyncio.Task | None = None
        self._closing = False

    def __repr__(self) -> str:
        return f"WsStudent({self.nickname!r}, shown={' | '.join(self.shown)[:80]!r})"

    # ------------------------------------------------------------------------------ connection
    async def connect(self) -> None:
        from websockets.asyncio.client import connect

        url = self.base.replace("http", "ws", 1) + "/_stcore/stream"
        self.ws = await connect(url, subprotocols=["streamlit"], max_size=None, open_timeout=self.timeout,
                                additional_headers={"Cookie": f"_streamlit_xsrf={self.cookie}; dtx_replica={self.cookie}"},
                                ping_interval=None)
        self._closing = False
        self.shown, self.buttons, self.inputs = [], {}, {}  # a new page: nothing drawn until its first run ends
        self._full_run, self._in_fragment = None, False
        self._reader = asyncio.create_task(self._read())
        if self._watch is None:
            self._watch = asyncio.create_task(self._follow())
        await self.rerun()  # a page load: the whole script for the address

    async def disconnect(self) -> None:
        """The tab's network goes away (the server ends the session, as for a closed tab)."""
        self._closing = True
        for task in self._timers.values():
            task.cancel()
        self._timers.clear()
        if self._reader is not None:
            self._reader.cancel()
        if self.ws is not None:
            await self.ws.close()
        self._close_http()

    async def reconnect(self) -> None:
        """Come back, as a reloaded tab: a new session on the same address (``?room=..&me=TOKEN``)."""
        await self.disconnect()
        self.counts["reconnects"] += 1
        await self.connect()

    async def close(self) -> None:
        await self.disconnect()
        if self._watch is not None:
            self._watch.cancel()

    # ---------------------------------------------------------------------------------- sending
    async def rerun(self, *, fragment: str = "", widgets: list[WidgetState] = (), auto: bool = False) -> None:
        msg = BackMsg()
        cs = msg.rerun_script
        cs.query_string = self.query
        cs.fragment_id = fragment
        cs.is_auto_rerun = auto
        cs.widget_states.widgets.extend(widgets)
        if self.ws is not None and not self._closing:
            self._sent = time.monotonic()
            if widgets and self._expect is None:  # a press or a tap: its run must end with a new marker
                self._expect = (self._sent, self.marker)
            try:
                await self.ws.send(msg.SerializeToString())
            except Exception as exc:  # noqa: BLE001 - a closed socket: the watchdog or the caller reconnects
                self.errors.append(f"send failed: {type(exc).__name__}")

    def widget_id(self, key_suffix: str) -> str | None:
        return next((wid for wid, (_label, key) in self.buttons.items() if key.endswith(key_suffix)), None)

    async def press(self, widget_id: str, extra: list[WidgetState] = ()) -> None:
        state = WidgetState(id=widget_id, trigger_value=True)
        await self.rerun(widgets=[state, *extra])

    # --------------------------------------------------------------------------------- receiving
    async def _read(self) -> None:
        try:
            async for payload in self.ws:
                if isinstance(payload, bytes):
                    self._handle(payload)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - a dropped connection: counted, the watchdog reconnects
            if not self._closing:
                self.errors.append(f"websocket: {type(exc).__name__}: {exc}"[:200])

    def _handle(self, payload: bytes) -> None:
        msg = ForwardMsg()
        msg.ParseFromString(payload)
        self.counts["messages"] += 1
        self._got = time.monotonic()
        kind = msg.WhichOneof("type")
        run = msg.metadata.run
        if kind == "new_session":
            self._in_fragment = bool(run.fragment_ids)
            if run.fragment_ids:
                self.counts["fragment_runs"] += 1
            else:
                self.counts["full_runs"] += 1
                self._full_run = run.script_run_id
                self._texts, self._pending_buttons, self._pending_inputs = [], {}, {}
                for task in self._timers.values():  # a full run clears the fragments' timers
                    task.cancel()
                self._timers.clear()
        elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            element = msg.delta.new_element
            text, is_error = _text_of(element)
            if is_error and "already answered" in (text or ""):
                self.counts["refused_double"] += 1  # a tap made again after a lost connection: refused, once
            elif is_error:
                self.errors.append(f"error shown: {text}"[:200])
            if self._in_fragment or self._full_run is None:
                return  # a fragment's elements (the poll's hidden beat); deltas carry no run id
            if text is not None:
                self._texts.append(text)
            etype = element.WhichOneof("type")
            if etype == "button":
                key = element.button.id.rsplit("-", 1)[-1]
                self._pending_buttons[element.button.id] = (element.button.label, key)
            elif etype in ("text_input", "number_input"):
                widget = getattr(element, etype)
                self._pending_inputs[widget.label] = widget.id
        elif kind == "script_finished":
            if self._full_run is not None and run.script_run_id == self._full_run:
                self._full_run = None
                if msg.script_finished == ForwardMsg.FINISHED_SUCCESSFULLY:
                    self.shown, self.shown_at = self._texts, time.perf_counter()
                    self.buttons, self.inputs = self._pending_buttons, self._pending_inputs
                    m = MARKER.match(self.shown[-1]) if self.shown else None
                    self.marker = m.groups() if m else None
                    self._expect, self._k = None, 1
                    self.changed.set()
        elif kind == "page_info_changed":
            self.query = msg.page_info_changed.query_string
        elif kind == "auto_rerun":
            fid, every = msg.auto_rerun.fragment_id, msg.auto_rerun.interval
            old = self._timers.pop(fid, None)
            if old is not None:
                old.cancel()
            self._timers[fid] = asyncio.ensure_future(self._poll(fid, every))
        elif kind == "stop_auto_rerun":
            task = self._timers.pop(msg.stop_auto_rerun.fragment_id, None)
            if task is not None:
                task.cancel()

    async def _poll(self, fragment_id: str, every: float) -> None:
        while True:
            await asyncio.sleep(every)
            await self.rerun(fragment=fragment_id, auto=True)

    async def refresh(self, why: str = "") -> None:
        """Press the page's Refresh (what the join page's script does); a reload when it has none."""
        wake = self.widget_id(WAKE_KEY)
        self.counts["refresh"] += 1
        if why == "lost":
            self.counts["missed"] += 1
        self._pressed, self._k = time.monotonic(), min(2 * self._k, BACKOFF)
        if wake is None:
            await self.rerun()
        else:
            await self.press(wake)

    # ----------------------------------------------------------------------- the page's script
    def _close_http(self) -> None:
        if self._http is not None:
            self._http[1].close()
            self._http = None

    async def _get(self, path: str) -> tuple[int, str]:
        """One GET on the keep-alive connection (opened again when the server closed it)."""
        parts = urllib.parse.urlsplit(self.base)
        for attempt in (0, 1):
            try:
                if self._http is None:
                    self._http = await asyncio.open_connection(parts.hostname, parts.port or 80)
                reader, writer = self._http
                writer.write(f"GET {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nCookie: _streamlit_xsrf={self.cookie}; "
                             f"dtx_replica={self.cookie}\r\n\r\n".encode())
                await writer.drain()
                head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
                length = re.search(r"(?im)^content-length: *(\d+)", head)
                body = await reader.readexactly(int(length.group(1))) if length else b""
                if re.search(r"(?im)^connection: *close", head) or not length:
                    self._close_http()
                return int(head.split(" ", 2)[1]), body.decode()
            except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError, IndexError):
                self._close_http()
                if attempt:
                    raise
        raise OSError("unreachable")

    async def _poll_stage(self) -> str | None:
        marker = self.marker
        if marker is None:
            return None
        try:
            status, body = await asyncio.wait_for(
                self._get(f"{STAGE_PATH}?room={marker[2]}&key={marker[3]}"), timeout=SILENT_SECONDS)
        except (OSError, TimeoutError, asyncio.IncompleteReadError):
            self._close_http()
            self.counts["route_errors"] += 1
            return None
        if status != 200:
            self.counts["route_errors"] += 1
            return None
        self.counts["route_polls"] += 1
        return body.strip() if self.marker == marker else None  # a run that ended meanwhile drew a newer stage

    async def _follow(self) -> None:
        """What the join page's script does, every POLL_SECONDS: ask the stage route; press Refresh when the
        stage is not the one the page drew, or when a run asked for (a tap, a press) never ended: not while a
        run is under way, not while the server is behind (sent, nothing back), and after a press only when
        half the (doubling) wait passed. A dropped socket gets a reconnect."""
        await asyncio.sleep(random.uniform(0, POLL_SECONDS))  # pages do not poll in step
        while True:
            await asyncio.sleep(POLL_SECONDS)
            if self._closing or self.ws is None:
                continue
            if self._reader is not None and self._reader.done():
                await self.reconnect()
                continue
            want = await self._poll_stage()
            now, marker = time.monotonic(), self.marker
            wait = SILENT_SECONDS * self._k
            behind = self._sent > self._got and now - self._sent < wait  # its last request got nothing back yet
            if self._full_run is not None or behind or (self._pressed and now - self._pressed <= wait / 2):
                continue
            shown = marker[1] if marker else None
            if want is not None and shown is not None and want != shown \
                    and not (want.isdigit() and shown.isdigit() and int(want) < int(shown)):
                await self.refresh("stage")
            elif self._expect is not None and self.marker == self._expect[1] \
                    and now - self._expect[0] > (LOST_SECONDS if self._got > self._expect[0] else BUSY_SECONDS * self._k):
                self._expect = None
                await self.refresh("lost")

    # ------------------------------------------------------------------------------- the lesson
    def text(self) -> str:
        return "\n".join(self.shown)

    async def wait_for(self, pattern: str | re.Pattern, timeout: float | None = None) -> float:
        """Until the last finished full run shows ``pattern``; returns when (perf_counter)."""
        rx = re.compile(pattern, re.M) if isinstance(pattern, str) else pattern
        deadline = time.monotonic() + (timeout or self.timeout)
        while not rx.search(self.text()):
            self.changed.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{self.nickname}: {rx.pattern!r} not shown; page: {self.text()[:200]!r}")
            try:
                await asyncio.wait_for(self.changed.wait(), timeout=left)
            except TimeoutError:
                continue
        return self.shown_at

    async def join(self) -> None:
        """Open the class's address, type the nickname, press Join; until the page says "You: ..."."""
        await self.connect()
        await self.wait_for("pick a nickname to join")
        box, join = self.inputs.get("Your nickname"), self.widget_id("FormSubmitter:join_form-Join")
        if join is None:
            join = next((wid for wid, (label, _k) in self.buttons.items() if label == "Join"), None)
        if box is None or join is None:
            raise RuntimeError(f"{self.nickname}: no nickname form on the page: {self.text()[:200]!r}")
        await self.press(join, [WidgetState(id=box, string_value=self.nickname)])
        await self.wait_for(r"^You: ", timeout=self.timeout)

    def answer_buttons(self) -> dict[str, str]:
        """feature -> widget id of the question's answer buttons on the page now."""
        return {_ESCAPED.sub(r"\1", label): wid for wid, (label, key) in self.buttons.items()
                if SEND_KEY in key}

    async def answer(self, feature: str, threshold: float | None = 50.0) -> float:
        """Tap ``feature`` (with a threshold in the number box when there is one); returns the tap's time."""
        wid = self.answer_buttons()[feature]
        extra = [WidgetState(id=box, double_value=threshold) for label, box in self.inputs.items()
                 if label.startswith("Threshold") and threshold is not None]
        t = time.perf_counter()
        await self.press(wid, extra)
        return t

    def score(self) -> tuple[int, int] | None:
        """(right, answered) from the page's "You: name · score R of A" line."""
        m = re.search(r"score (\d+) of (\d+)", self.text())
        return (int(m.group(1)), int(m.group(2))) if m else None
