"""The Grow page on 10,000 uploaded rows: every action works; run times are measured and written out.

No timed assertion (the machine is shared): the times of one AppTest run per action go to
``test-artifacts/grow_page_times.txt`` for the README and the report.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from ui.data import panels as panels
from tests.app.tree_charts import tree_charts
from ui.grow import views as gv
from ui import state

ROOT = Path(__file__).resolve().parents[3]
N_ROWS = 10_000


def big_csv(n: int = N_ROWS, seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 8))
    colour = rng.choice(list("abcdef"), size=n)
    signal = X[:, 0] + 0.5 * X[:, 1] ** 2 + (colour == "a") + rng.normal(scale=0.7, size=n)
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(8)])
    frame["colour"] = colour
    frame["label"] = np.where(signal > 0.8, "yes", "no")
    return frame.to_csv(index=False).encode()


def timed(at: AppTest, action) -> float:
    start = time.perf_counter()
    action()
    elapsed = time.perf_counter() - start
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return elapsed


def test_ten_thousand_rows_step_by_step_and_to_the_end():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180).run()
    at.switch_page("pages/data.py").run()
    at.file_uploader(key=panels.W_UPLOAD).set_value(("big.csv", big_csv(), "text/csv")).run()
    at.switch_page("pages/grow.py").run()
    rows = len(at.session_state[state.GROWER].dataset)
    steps = [timed(at, lambda: at.button(key="_w_grow_step").click().run()) for _ in range(8)]
    grower = at.session_state[state.GROWER]
    assert grower.n_steps == 8 and grower.tree.n_nodes == 17
    assert any(gv.REGION_KEY in (c.proto.id or "") for c in at.get("plotly_chart"))
    undo = timed(at, lambda: at.button(key="_w_grow_undo").click().run())
    assert at.session_state[state.GROWER].n_steps == 7
    to_end = timed(at, lambda: at.button(key="_w_grow_grow").click().run())
    tree = at.session_state[state.GROWER].tree
    assert at.session_state[state.GROWER].done and tree.n_nodes > gv.BIG_TREE
    # a big tree is drawn as a planned view: "+k nodes" boxes, and only as many boxes as fit
    chart = tree_charts(at)[0]
    assert 1 in chart["kinds"] and len(chart["ids"]) < 3 * gv.BIG_TREE
    rerun = timed(at, at.run)
    at.session_state["_w_grow_tab"] = "Step log"
    log_tab = timed(at, at.run)
    at.session_state["_w_grow_tab"] = "Export & share"
    export_tab = timed(at, at.run)
    lines = [
        f"Grow page, AppTest, {rows:,} training rows of {N_ROWS:,} (8 numeric + 1 categorical feature)",
        "Step (one AppTest run each): " + ", ".join(f"{t:.3f}" for t in steps) + " s",
        f"median Step: {np.median(steps):.3f} s",
        f"Undo: {undo:.3f} s; Grow to end ({tree.n_nodes:,} nodes): {to_end:.3f} s; rerun: {rerun:.3f} s",
        f"Step log tab: {log_tab:.3f} s; Export tab: {export_tab:.3f} s",
    ]
    out = ROOT / "test-artifacts"
    out.mkdir(exist_ok=True)
    (out / "grow_page_times.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def test_grow_to_end_narrates_only_the_steps_shown(monkeypatch):
    """After "Grow to end" the page narrates the latest step (and the log its latest LOG_LIMIT steps), not
    every step: each narration searches its node again (8 s for 1,500 steps before)."""
    from ui.classroom import presenter as classroom

    calls = []
    original = classroom.narrate_step_lines

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(classroom, "narrate_step_lines", counting)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180).run()
    at.switch_page("pages/data.py").run()
    at.file_uploader(key=panels.W_UPLOAD).set_value(("big.csv", big_csv(4000, seed=3), "text/csv")).run()
    at.switch_page("pages/grow.py").run()
    timed(at, lambda: at.button(key="_w_grow_grow").click().run())
    grower = at.session_state[state.GROWER]
    assert grower.done and len(grower.history) > classroom.LOG_LIMIT + 10
    assert len(calls) == 1
    at.session_state["_w_grow_tab"] = "Step log"
    timed(at, at.run)
    assert len(calls) <= 1 + classroom.LOG_LIMIT
    assert any("earlier steps are in the step log" in c.value for c in at.caption)
