"""Pure pieces of the live class's screens: the join address, the question's round trip, the QR code."""

from __future__ import annotations

import os

import numpy as np
import plotly.graph_objects as go
import pytest

from engine.config import TreeConfig
from engine.data.dataset import load_sample
from engine.grow.grower import Grower
from engine.teach.quiz import QuizAnswer, judge, make_question
from ui.classroom import live


def test_join_address_follows_the_page_or_the_public_url(monkeypatch):
    monkeypatch.delenv(live.ENV_PUBLIC_URL, raising=False)
    assert live.join_address("ABCDEF", "https://class.example.org/dtx/grow?presenter=true&teacher=SECRET") \
        == "https://class.example.org/dtx/?room=ABCDEF"  # the root: /join would cost two 404s per load
    assert live.join_address("ABCDEF", "http://10.0.0.5:8501/grow") == "http://10.0.0.5:8501/?room=ABCDEF"
    assert live.is_local_address(live.join_address("ABCDEF", None))
    monkeypatch.setenv(live.ENV_PUBLIC_URL, "https://trees.school.example/")
    assert live.join_address("ABCDEF", "http://localhost:8501/grow") == "https://trees.school.example/?room=ABCDEF"


@pytest.mark.parametrize("sample", ["play_tennis", "iris"])
def test_a_question_travels_without_its_answer_key(sample):
    g = Grower(load_sample(sample), TreeConfig())
    q = make_question(g)
    snap = live.make_snapshot(g, q, "Step 0", sample)
    back = live.snapshot_question(snap)
    assert back.key is None and "winner" not in str(snap["question"])
    assert (back.node_id, back.features, back.numeric, back.ranges, back.n_rows) == \
        (q.node_id, q.features, q.numeric, q.ranges, q.n_rows)
    # the teacher's question judges what a student picked from the student's copy
    f = back.features[0]
    t = back.range_of(f)[0] if back.needs_threshold(f) else None
    assert judge(q, QuizAnswer(f, t)).node_id == q.node_id
    assert live.snapshot_question({"question": None}) is None


def test_qr_code_is_a_png():
    png = live.qr_png(live.join_address("ABCDEF", "http://10.0.0.5:8501/grow"))
    assert png.startswith(b"\x89PNG") and len(png) > 200


def test_a_students_reveal_table_is_escaped_text_with_three_decimals():
    """``st.table`` reads every cell as Markdown: a hostile column name from an uploaded CSV stays text."""
    import pandas as pd

    from ui.classroom.live_student import student_gain_table

    evil = "[x](http://evil.example) <img src=x onerror=alert(1)> *b*"
    raw = pd.DataFrame({"mark": ["★ winner", ""], "feature": [evil, "Wind"], "split": [f"{evil} <= 2.5", "Wind = ?"],
                        "gain": [0.24675, 0.048]})
    shown = student_gain_table(raw)
    assert list(shown.columns) == ["", "Feature", "Best split of the feature", "Gain"]
    assert list(shown["Gain"]) == ["0.247", "0.048"]
    for cell in (shown["Feature"][0], shown["Best split of the feature"][0]):
        assert "\\[x\\]" in cell and "\\<img" in cell and "\\*b\\*" in cell
    assert "Best split of the feature" not in student_gain_table(raw.drop(columns="split")).columns


def test_the_browser_is_known_by_its_xsrf_token_whatever_the_mask():
    """Streamlit re-masks its XSRF cookie on every page load; the token inside (the browser) stays."""
    import os

    from streamlit.web.server.starlette.starlette_app_utils import generate_xsrf_token_string

    token = os.urandom(16)
    first, second = generate_xsrf_token_string(token, 1), generate_xsrf_token_string(token, 1)
    assert live.browser_secret(first) == live.browser_secret(second) == token.hex()
    assert live.browser_secret(generate_xsrf_token_string(os.urandom(16), 1)) != token.hex()
    assert live.browser_secret(None) is None and live.browser_secret("2|zz|zz|1") is None


def test_headers_a_client_sends_never_name_its_address(monkeypatch):
    """Finding 10: ``X-Real-IP`` was believed from any connection of this machine, so a script straight to a
    replica's port named a new address for every try. Only the server's own view counts: the peer, or what a
    trusted proxy said (uvicorn resolves that into ``ip_address``); a peer on this machine is the loopback
    address, whatever it sends."""
    from types import SimpleNamespace

    from live.limits import LOOPBACK, Client

    def seen(ip, headers):
        monkeypatch.setattr(live, "st", SimpleNamespace(context=SimpleNamespace(
            ip_address=ip, headers=headers, cookies={live.XSRF_COOKIE: "plain-token"})))
        return live.client()

    host = {"Host": "127.0.0.1:8501"}
    assert seen(None, {**host, "X-Real-IP": "198.51.100.7"}) == Client.of(LOOPBACK, "plain-token")
    forwarded = seen(None, {**host, "X-Forwarded-For": "10.0.0.1, 198.51.100.8"})
    assert forwarded.address == Client.of(LOOPBACK, None).address
    assert seen("203.0.113.4", {**host, "X-Real-IP": "198.51.100.7"}).address == Client.of("203.0.113.4", None).address
    assert seen(None, {}) == Client.of(None, "plain-token")  # no connection at all (a test run): unknown


def test_the_server_believes_forwarded_addresses_only_from_named_proxies(monkeypatch):
    from live import limits

    monkeypatch.delenv(limits.ENV_TRUSTED_PROXIES, raising=False)
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "127.0.0.1,::1")  # uvicorn's own default: any local connection
    assert limits.trust_proxies() == "" and os.environ["FORWARDED_ALLOW_IPS"] == ""
    monkeypatch.setenv(limits.ENV_TRUSTED_PROXIES, " 127.0.0.1 , 10.0.0.0/8,")
    assert limits.trust_proxies() == "127.0.0.1,10.0.0.0/8" == os.environ["FORWARDED_ALLOW_IPS"]


IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
          "Version/18.1 Mobile/15E148 Safari/604.1")
ANDROID_PHONE = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
                 "Chrome/131.0.0.0 Mobile Safari/537.36")
ANDROID_TABLET = ("Mozilla/5.0 (Linux; Android 14; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) "
                  "Chrome/131.0.0.0 Safari/537.36")
IPAD = ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) "
        "Version/18.1 Safari/605.1.15")  # iPadOS asks for desktop pages by default
DESKTOP = ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 "
           "Safari/537.36")


@pytest.mark.parametrize("agent, phone", [(IPHONE, True), (ANDROID_PHONE, True), (ANDROID_TABLET, False),
                                          (IPAD, False), (DESKTOP, False), (None, False), ("", False)])
def test_a_phone_is_known_by_its_user_agent(monkeypatch, agent, phone):
    from types import SimpleNamespace

    headers = {} if agent is None else {"User-Agent": agent}
    monkeypatch.setattr(live, "st", SimpleNamespace(context=SimpleNamespace(headers=headers)))
    assert live.on_phone() is phone


def test_on_a_phone_every_drawn_box_fits_the_phones_column():
    """The phone plan is as wide as the narrowest phones' column (360 CSS px less the page's paddings), and
    the text of every box it draws fits in the box (the plan's own rule) at that width."""
    from engine.viz.tree_figure import FONT_PX
    from engine.viz.tree_layout import plan_view

    assert live.PHONE_WIDTH <= 360 - 2 * 0.8 * 16
    tree = Grower(load_sample("titanic_small"), TreeConfig(max_depth=5)).grow().tree
    plan = plan_view(tree, width=live.PHONE_WIDTH, height=600, font=FONT_PX[False], show_ids=True)
    assert 1 < len(plan.drawn) < len(tree.nodes)            # the rest behind "+k nodes" boxes
    half = plan.size.box_w / 2
    assert min(plan.x) - half >= 0 and max(plan.x) + half <= live.PHONE_WIDTH


def test_a_rounds_figure_is_built_once_for_every_student_and_old_ones_go():
    live._shared_figure.clear()
    built = []

    def build(name):
        return lambda: built.append(name) or go.Figure(layout_title_text=name)

    first = live.shared_figure(("round 1", None), build("r1"))
    assert live.shared_figure(("round 1", None), build("again")) is first  # the next student: no new build
    assert live.shared_figure(("round 1", 0), build("r1 highlighted")) is not first  # another view: its own
    for i in range(2, live.FIGURES_KEPT + 1):
        live.shared_figure((f"round {i}", None), build(f"r{i}"))
    assert built == ["r1", "r1 highlighted"] + [f"r{i}" for i in range(2, live.FIGURES_KEPT + 1)]
    live.shared_figure(("round 1", None), build("r1 again"))  # the oldest was dropped: built anew
    assert built[-1] == "r1 again"
    live._shared_figure.clear()


def test_a_shared_figure_makes_its_dict_once_and_it_is_the_figures_dict(monkeypatch):
    """st.plotly_chart asks for to_dict() on every run; a shared figure answers with one dict, the same as a
    plain figure's, and the chart's JSON is unchanged."""
    import plotly.io as pio

    plain = go.Figure(go.Scatter(x=np.arange(5.0), y=np.arange(5.0) ** 2, text=list("abcde")),
                      layout_title_text="tree")
    shared = live.SharedFigure(plain)
    calls = []
    real = go.Figure.to_dict
    monkeypatch.setattr(go.Figure, "to_dict", lambda self: calls.append(1) or real(self))
    first = shared.to_dict()
    assert shared.to_dict() is first and shared.to_dict() is first and len(calls) == 1
    assert pio.to_json(first, validate=False) == pio.to_json(real(plain), validate=False)


def test_a_shared_tree_figure_serializes_without_a_cleaning_pass():
    """The tree diagram's dict is plain JSON values, which orjson (Plotly's JSON engine when installed) takes
    as they are: Plotly keeps a bar's base as an object array, which orjson refuses, so every run's to_json
    cleaned the whole dict first. The JSON is unchanged."""
    import plotly.io as pio

    from engine.viz.tree_figure import tree_figure

    def arrays(value) -> int:
        if isinstance(value, dict):
            return sum(arrays(v) for v in value.values())
        if isinstance(value, (list, tuple)):
            return sum(arrays(v) for v in value)
        return int(isinstance(value, np.ndarray))

    g = Grower(load_sample("play_tennis"), TreeConfig())
    g.step()
    plain = tree_figure(g.tree, fit_height=True, compact=False, big=False, show_ids=True, uirevision="t")
    assert any(isinstance(t.base, np.ndarray) and t.base.dtype == object for t in plain.data if t.type == "bar")
    figure = live.SharedFigure(plain)
    shared = figure.to_dict()
    assert arrays(go.Figure.to_dict(figure)) > 0 and arrays(shared) == 0
    assert pio.to_json(shared, validate=False) == pio.to_json(go.Figure.to_dict(figure), validate=False)

