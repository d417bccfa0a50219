"""benchmarks/load_class.py with simulated students (benchmarks/ws_student.py), run small against a real server.

A Chromium teacher and ten students that speak Streamlit's websocket protocol go through two steps of the
Play Tennis lesson: every answer must be counted exactly once (the teacher's count and each student's
score), and the figures the rig reports must be the ones of that run (no timings are asserted).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import pytest

from tests.services import unavailable

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

CLIENTS, STEPS = 10, 2


def _args(**kw) -> argparse.Namespace:
    base = dict(class_students=0, clients=CLIENTS, class_steps=STEPS, think=3.0, timeout=90.0, max_seconds=400.0,
                replicas=1, students_nice=0, idle_seconds=3.0, drop=0.0, teacher_reload=False, proxy=False,
                redis_restart=False)
    return argparse.Namespace(**{**base, **kw})


def _run(**kw) -> dict:
    pytest.importorskip("websockets")
    try:
        import playwright  # noqa: F401
    except ImportError:
        unavailable("Load-rig tests", "Playwright is not installed")
    if not Path("/usr/bin/chromium").exists():
        unavailable("Load-rig tests", "Chromium is not installed at /usr/bin/chromium")
    import load_class

    return load_class.main_class(_args(**kw))


def test_ten_simulated_students_go_through_a_lesson_and_every_answer_counts_once():
    r = _run()
    assert r["errors"] == []
    assert r["simulated"] == CLIENTS and r["students"] == CLIENTS
    # the root question and the next: every student answered each once, the teacher saw each answer
    assert r["answers"] == CLIENTS * STEPS
    assert r["students_ended"] == CLIENTS
    for name in ("answer_to_teacher", "answer_received", "reveal_to_students", "step_to_students"):
        med, p95 = r[f"{name}_median_s"], r[f"{name}_p95_s"]
        assert 0 <= med <= p95 < r["wall_s"], name
    c = r["sim_counts"]
    assert c["full_runs"] >= CLIENTS * (2 + 3 * STEPS)  # load, join, and per step: tap, reveal, step (at least)
    assert c["fragment_runs"] == 0 and c["reconnects"] == 0  # no Streamlit run polls the class: the stage route does
    assert c["route_polls"] >= CLIENTS * 3 and c["route_errors"] == 0
    assert r["idle"]["with every student"]["students"] == CLIENTS
    assert math.isfinite(r["idle_cpu_ms_per_student_s"]) and r["idle_cpu_ms_per_student_s"] > 0
    assert 0 <= r["rss_mb_per_student"] < 50
    assert r["client_cpu_s"] > 0 and r["server_cpu_s"] > 0


def test_students_who_drop_out_mid_question_and_a_reloaded_teacher_lose_no_answer():
    r = _run(drop=0.3, teacher_reload=True, idle_seconds=0)
    assert r["errors"] == []  # includes: each score counts exactly the answers received, the count is exact
    assert r["answers"] == CLIENTS * STEPS
    assert r["sim_counts"]["reconnects"] == 3 * STEPS  # 30% of the class, each question


def test_a_redis_restart_mid_question_loses_no_answer_and_counts_none_twice():
    """Two replicas sharing a Redis (append-only file) that stops for 2 s during the first question, while
    30% of the students drop out and come back and one student is a real Chromium page: taps made meanwhile
    are refused with the "read-only" sentence and made again (the Chromium student too); a page reopened
    while Redis is away follows the class when it is back; every score counts each answer once."""
    r = _run(replicas=2, redis_restart=True, idle_seconds=0, think=4.0, drop=0.3, class_students=1)
    assert r["errors"] == []
    assert r["answers"] == (CLIENTS + 1) * STEPS
    assert set(r["process_cpu_s"]) == {"redis", "replica 1", "replica 2"}
