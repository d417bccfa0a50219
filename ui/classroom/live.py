"""What the teacher's and the students' live-class screens share: the store, the snapshot, the address.

- :func:`store` is the process's room store (:func:`live.store.get_store`: in this process, or Redis
  with ``DTX_REDIS_URL``); every call into it may raise a :class:`live.rooms.LiveError` whose message
  is one sentence, shown with :func:`show_live_error` (a dead Redis is a warning: the class goes
  read-only until it is back).
- The teacher publishes a *snapshot* of the tree state (:func:`make_snapshot`: the tree as JSON, the
  node about to be split, the quiz question without its answer key, the status line); students turn it
  back into a tree (:func:`snapshot_tree`) and a question (:func:`snapshot_question`).
- :func:`client` is who asks (:class:`live.limits.Client`): the network address (``st.context.ip_address``:
  the socket's peer, or the ``X-Forwarded-For`` of a proxy named in ``DTX_TRUSTED_PROXIES``, see
  :func:`live.limits.trust_proxies`; a peer on this machine, which Streamlit reports as none, is the
  loopback address) and the browser (Streamlit's XSRF cookie, one per browser, never shown). The store's
  limits count by it, and only the browser that started a class can take it back after a reload. Headers
  a client sends itself (``X-Real-IP``, a forged ``X-Forwarded-For``) are never read here: before, any
  connection from this machine could name its own address in ``X-Real-IP`` (1,096 code guesses a minute
  straight to a replica port).
- :func:`join_address` is the student page's address for a code (``DTX_PUBLIC_URL`` when set, else the
  address the teacher's browser uses), :func:`qr_png` its QR code.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import urllib.parse

import plotly.graph_objects as go
import plotly.io as pio
import streamlit as st

from engine.teach.quiz import QuizQuestion
from engine.tree.serialize import tree_from_json, tree_to_json
from live import limits
from live.limits import Client, browser_secret
from live.rooms import LiveError, StoreUnavailable
from live.backend import get_store
from live import stage_route
from ui.widgets import md_escape

ENV_PUBLIC_URL = "DTX_PUBLIC_URL"
ROOM_PARAM = "room"
TREE_CACHE = "_live_tree_cache"  # student session: (round, tree)
XSRF_COOKIE = "_streamlit_xsrf"  # set by Streamlit for every browser (server.enableXsrfProtection)


def store():
    return get_store()


def cookie_secret() -> str:
    """The server's cookie secret (``server.cookieSecret``: the same on every replica, deploy/run_replicas.sh)."""
    return str(st.get_option("server.cookieSecret"))


def poll_key(code: str) -> str:
    """The key this room's pages send to the stage route (:mod:`live.stage_route`)."""
    return stage_route.poll_key(code, cookie_secret())


def stage_middleware() -> list:
    """What app.py serves beside the app: the stage route (:mod:`live.stage_route`) for the join page's
    script, from the same store and for keys made with the same secret as the pages. Called as app.py builds
    its ``st.App``, before the server starts: it also sets which proxies the server believes
    (:func:`live.limits.trust_proxies`)."""
    from starlette.middleware import Middleware

    limits.trust_proxies()

    return [Middleware(stage_route.StageMiddleware, store=store, secret=cookie_secret)]


def client() -> Client:
    """Who asks: the network address and the browser (digests only; see the module docstring)."""
    ctx = st.context

    def text(value) -> str:  # a string, or "" (no client, as in a test run)
        return value.strip() if isinstance(value, str) else ""

    address = text(ctx.ip_address)
    if not address and text(ctx.headers.get("Host")):  # a real connection whose peer is on this machine
        address = limits.LOOPBACK
    return Client.of(address or None, browser_secret(text(ctx.cookies.get(XSRF_COOKIE)) or None))


def show_live_error(err: LiveError) -> None:
    if isinstance(err, StoreUnavailable):
        st.warning(md_escape(err), icon=":material/cloud_off:")
    else:
        st.error(md_escape(err), icon=":material/error:")


# ------------------------------------------------------------------------------------- snapshot
def question_dict(question: QuizQuestion | None) -> dict | None:
    """The question as JSON, without its answer key (that stays in the teacher's session)."""
    if question is None:
        return None
    return {"node_id": int(question.node_id), "features": list(question.features),
            "ask_threshold": bool(question.ask_threshold), "numeric": list(question.numeric),
            "ranges": [[f, float(lo), float(hi)] for f, lo, hi in question.ranges], "n_rows": int(question.n_rows)}


def snapshot_question(snapshot: dict | None) -> QuizQuestion | None:
    """The question a snapshot carries (no answer key: students cannot judge themselves)."""
    q = (snapshot or {}).get("question")
    if not q:
        return None
    return QuizQuestion(int(q["node_id"]), tuple(q["features"]), bool(q["ask_threshold"]), tuple(q["numeric"]),
                        tuple((f, float(lo), float(hi)) for f, lo, hi in q["ranges"]), int(q["n_rows"]))


def make_snapshot(grower, question: QuizQuestion | None, status: str, dataset_name: str) -> dict:
    return {"tree": tree_to_json(grower.tree), "question": question_dict(question), "status": status,
            "dataset": str(dataset_name), "done": bool(grower.done)}


def round_id(grower, setting: str) -> str:
    """Names the tree state a question is about: another step, undo, data set or setting is another round.

    Built from what the state *is* (``setting`` names the data set, split and config; the tree's splits
    and stop reasons), not from a counter of this session, so a teacher who reloads the tab mid-question
    gets the same id back and the answers already given stay. A digest, not ``hash()``: string hashes
    differ between processes, and a reload may land on another replica.
    """
    tree = grower.tree
    shape = repr((setting, [(n.id, n.stop_reason, None if n.split is None else
                             (n.split.feature_index, n.split.kind, n.split.threshold, n.split.category_codes))
                            for n in tree.walk()]))
    return f"{grower.n_steps}:{hashlib.sha256(shape.encode()).hexdigest()[:16]}"


def snapshot_tree(round_key: str, snapshot: dict):
    """The published tree (parsed once per round and session)."""
    cached = st.session_state.get(TREE_CACHE)
    if cached and cached[0] == round_key:
        return cached[1]
    tree = tree_from_json(snapshot["tree"])
    st.session_state[TREE_CACHE] = (round_key, tree)
    return tree


FIGURES_KEPT = 64


def shared_figure(signature: tuple, build):
    """The figure of ``signature`` built once for every session of this process (``build()`` the first time).

    A class's students all draw the same tree: at a Step, 150 pages each built the same Plotly figure
    (~30 ms of a ~50 ms page run). A figure is never changed after it is built (``st.plotly_chart`` only
    reads it), and it holds the published tree, not a user's state. Streamlit's resource cache keeps the
    last :data:`FIGURES_KEPT` (no module-level container changed per user: the hardening scan checks that).
    """
    return _shared_figure(signature, build)


@st.cache_resource(max_entries=FIGURES_KEPT, show_spinner=False)
def _shared_figure(signature: tuple, _build):
    return SharedFigure(_build())


class SharedFigure(go.Figure):
    """A figure that never changes, drawn by many sessions: its dict is made once.

    ``st.plotly_chart`` asks a figure for ``to_dict()`` on every run: a deep copy with every array encoded
    (~5 ms of a ~20 ms student page run at a Step, for each of the class's students). The dict is only
    read by Streamlit (serialized to the chart's JSON), so one dict serves every run and session.

    The dict is made of plain JSON values (one trip through Plotly's JSON): Plotly keeps a bar's ``base``
    as a numpy array of objects, which orjson refuses, so each run's ``plotly.io.to_json`` fell back to a
    cleaning pass over the whole dict (~0.9 ms of a 15-20 ms run, with the GIL held). The chart's JSON is the
    same either way.
    """

    def to_dict(self):
        cached = getattr(self, "_dict_once", None)
        if cached is None:
            cached = self._dict_once = json.loads(pio.to_json(super().to_dict(), validate=False))
        return cached


#: The tree on a phone: planned for the narrowest phones' column (a 360 CSS px screen less the student page's
#: paddings), since Plotly shrinks a chart narrower than its plan while its text keeps its size (the boxes'
#: text ran past their edges at 560); what does not fit is a "+k nodes" box to tap.
PHONE_WIDTH = 320
#: What phones' browsers put in their User-Agent ("Mobi", as MDN advises: Android phones' Chrome and Firefox,
#: iOS Safari; iPhone/iPod for browsers that leave it out). Tablets say neither and are wide enough for the usual plan.
PHONE_AGENT = re.compile(r"Mobi|iPhone|iPod")


def on_phone() -> bool:
    """Whether this page's browser says it is a phone (its User-Agent; no header, as in a test run: no)."""
    agent = st.context.headers.get("User-Agent")
    return isinstance(agent, str) and PHONE_AGENT.search(agent) is not None


def draw_tree(tree, highlight: int | None, key: str, round_key: str, phone: bool = False) -> None:
    """The one place the live class draws a tree (the app's interactive tree diagram, read-only here), with
    the figure shared by every page that shows the same round, highlight and view (:func:`shared_figure`);
    the view (focus, folds, navigation) stays each page's own. ``phone``: planned :data:`PHONE_WIDTH` wide,
    without Plotly's mode bar (on a phone it covers the root box; a double tap resets a zoom)."""
    from engine.viz.tree_figure import tree_figure
    from ui import tree_view

    chart = f"{key}_tree"
    width = PHONE_WIDTH if phone else tree_view.WIDTH
    plan = tree_view.plan_for(tree, key=chart, width=width)  # as tree_view.tree_chart(tree, key=chart, caption=False)
    tree_view.navigation(tree, plan, key=chart)
    signature = (round_key, highlight, chart, plan.focus, plan.items, plan.hidden, plan.width, plan.height)
    fig = shared_figure(signature, lambda: tree_figure(tree, plan=plan, fit_height=True, compact=False, big=False,
                                                       show_ids=True, uirevision=chart, highlight=highlight))
    tree_view.show_figure(fig, key=chart, tree=tree, plan=plan, label="The class's tree",
                          config={**tree_view.CONFIG, "displayModeBar": False} if phone else None)


# ------------------------------------------------------------------------------------- address
def join_address(code: str, page_url: str | None = None) -> str:
    """``<app>/?room=CODE``: from ``DTX_PUBLIC_URL`` when set, else from the page's own address.

    The app's root serves the students' page for a ``room`` (app.py's ``root_page``): a link to ``/join``
    would cost two 404s on every load (Streamlit's frontend tries ``/join`` as the app's base path first).
    """
    base = os.environ.get(ENV_PUBLIC_URL, "").strip()
    if not base:
        parts = urllib.parse.urlsplit(page_url or "http://localhost:8501/")
        path = parts.path.rsplit("/", 1)[0] if "/" in parts.path else ""
        base = urllib.parse.urlunsplit((parts.scheme or "http", parts.netloc or "localhost:8501", path, "", ""))
    return f"{base.rstrip('/')}/?{urllib.parse.urlencode({ROOM_PARAM: code})}"


def is_local_address(url: str) -> bool:
    host = (urllib.parse.urlsplit(url).hostname or "").lower()
    return host in ("localhost", "127.0.0.1", "::1", "0.0.0.0")


def qr_png(text: str, scale: int = 8) -> bytes:
    import segno

    buf = io.BytesIO()
    segno.make(text, error="m").save(buf, kind="png", scale=scale, border=2)
    return buf.getvalue()


def spaced(code: str) -> str:
    """``ABC DEF``: easier to read from the back row."""
    return f"{code[:3]} {code[3:]}"
