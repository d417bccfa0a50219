"""benchmarks/bench_app.py runs on tiny data: its pieces return the figures it prints (no timings checked)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_app  # noqa: E402


def test_make_frame_is_like_bench_fit(tmp_path):
    frame = bench_app.make_frame(3_000)
    assert frame.shape == (3_000, 21) and list(frame.columns[:2]) == ["f0", "f1"]
    assert sorted(frame["y"].unique()) == ["c0", "c1", "c2"]
    counts = frame["y"].value_counts().to_numpy()
    assert counts.min() > 900  # three classes cut at the quantiles
    path = bench_app.write_csv(500, tmp_path)
    assert path.read_text().splitlines()[0].startswith("f0,f1,")


def test_load_child_measures_the_engine_load(tmp_path):
    path = bench_app.write_csv(2_000, tmp_path)
    out = bench_app.child_load("engine", path)
    assert set(out) == {"load_s", "total_s", "peak_mb", "after_mb", "file_mb"}
    assert out["file_mb"] > 0 and out["peak_mb"] >= 0 and out["total_s"] >= out["load_s"]


def test_step_and_breakdown_children_grow_the_tree(tmp_path):
    path = bench_app.write_csv(2_000, tmp_path)
    steps = bench_app.child_steps(path, "histogram", 2)
    assert steps["search"] == "histogram" and steps["rows"] == 1_500 and steps["nodes"] == 5
    assert len(steps["times"]) == 2
    parts = bench_app.child_breakdown(2_000, "exact", 2)
    assert set(parts) == {"step", "diagram", "regions", "gain_table", "scan"}
    assert all(len(v) == 2 and np.all(np.asarray(v) >= 0) for v in parts.values())
