"""The join page's watchdog script is allowed by its hash in deploy/nginx.conf's Content-Security-Policy."""

from __future__ import annotations

from tests.csp import proxy_allows, script_body
from ui.classroom.live_watchdog import (BEAT_KEY, DRAWN_KEY, W_WAKE, WATCHDOG_BUSY_SECONDS, WATCHDOG_JS,
                                        WATCHDOG_KEY, WATCHDOG_LOST_CHECKS, WATCHDOG_SECONDS)


def test_the_proxys_policy_allows_the_watchdog_by_its_hash():
    assert proxy_allows(WATCHDOG_JS)
    body = script_body(WATCHDOG_JS)
    assert f".st-key-{W_WAKE} button" in body and str(WATCHDOG_SECONDS * 1000) in body
    assert f".st-key-{BEAT_KEY}" in body and f".st-key-{DRAWN_KEY}" in body
    assert f"lost>={WATCHDOG_LOST_CHECKS:d}*k" in body and str(WATCHDOG_BUSY_SECONDS * 1000) in body


def test_the_join_pages_css_hides_the_watchdogs_texts_and_frame():
    from ui.classroom.live_student import STUDENT_CSS

    hidden = next(line for line in STUDENT_CSS.splitlines() if "display: none" in line and ".st-key-join" in line)
    selectors = {x.strip() for x in hidden.split("{")[0].split(",")}
    assert {f".st-key-{k}" for k in (BEAT_KEY, DRAWN_KEY, WATCHDOG_KEY)} <= selectors
