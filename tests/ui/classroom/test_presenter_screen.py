"""Presenter view learns the window's width from one constant page script (ui.classroom.presenter.SCREEN_JS)."""

from __future__ import annotations

from tests.csp import proxy_allows, script_body
from ui.classroom.presenter import PRESENTER_CSS, PROBE, SCREEN_JS


def test_the_proxys_policy_allows_the_screen_script_and_its_input_takes_no_room():
    assert proxy_allows(SCREEN_JS)  # its sha256 is in deploy/dtx-site.inc's script-src
    body = script_body(SCREEN_JS)
    assert f".st-key-{PROBE}" in body and "window.innerWidth" in body
    assert "data-test-script-state" in body  # it types only while the app is idle (no run is cut short)
    assert f".st-key-{PROBE}," in PRESENTER_CSS and f":has(> .st-key-{PROBE})" in PRESENTER_CSS
