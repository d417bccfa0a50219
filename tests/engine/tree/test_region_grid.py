"""The region plot's grid geometry: a sample spread over classes and cells, leaf rectangles merged per colour."""

from __future__ import annotations

import numpy as np
import pytest

from engine.tree.region_grid import GRID, grid_edges, merge_rectangles, stratified_rows


def test_stratified_rows_keep_rare_classes_and_sparse_cells():
    rng = np.random.default_rng(0)
    n = 20_000
    xs, ys = rng.normal(size=n), rng.normal(size=n)
    cls = np.zeros(n, dtype=np.int64)
    cls[:12] = 1  # a class of 12 rows: a uniform sample of 3,000 would keep ~2 of them
    xs[-5:], ys[-5:] = 9.0, 9.0  # five outliers alone in their corner
    box = (xs.min(), xs.max(), ys.min(), ys.max())
    rows = stratified_rows(xs, ys, cls, box, 3000, seed=1)
    assert rows.size == 3000 and np.unique(rows).size == 3000 and np.all(np.diff(rows) > 0)
    cells = {(int((x - box[0]) / (box[1] - box[0]) * 8), int((y - box[2]) / (box[3] - box[2]) * 8))
             for x, y in zip(xs[:12], ys[:12])}
    assert np.sum(cls[rows] == 1) >= len(cells) >= 3  # each (class, cell) stratum of the rare class keeps a row
    assert np.any(rows >= n - 5)  # the lone corner is drawn
    assert np.array_equal(rows, stratified_rows(xs, ys, cls, box, 3000, seed=1))
    assert not np.array_equal(rows, stratified_rows(xs, ys, cls, box, 3000, seed=2))
    assert np.array_equal(stratified_rows(xs[:50], ys[:50], cls[:50], box, 3000), np.arange(50))


def test_merged_rectangles_cover_the_union_and_are_fewer():
    box = (0.0, 1.0, 0.0, 1.0)
    # a 10 x 10 checkerboard's dark squares plus every light square of the bottom row: same colour
    cells = [(i / 10, (i + 1) / 10, j / 10, (j + 1) / 10) for i in range(10) for j in range(10)
             if (i + j) % 2 == 0 or j == 0]
    merged = merge_rectangles(np.array(cells), box, grid=100)
    area = float(((merged[:, 1] - merged[:, 0]) * (merged[:, 3] - merged[:, 2])).sum())
    assert area == pytest.approx(len(cells) / 100)
    assert len(merged) < len(cells)  # the bottom row is one rectangle
    # overlapping rectangles: the union's area, not the sum
    over = merge_rectangles(np.array([(0, 0.5, 0, 1), (0.25, 1, 0, 0.5)]), box, grid=GRID)
    assert float(((over[:, 1] - over[:, 0]) * (over[:, 3] - over[:, 2])).sum()) == pytest.approx(0.75)


def test_grid_edges_draw_each_shared_border_once():
    box = (0.0, 1.0, 0.0, 1.0)
    rects = np.array([(0, 0.5, 0, 1), (0.5, 1, 0, 0.5), (0.5, 1, 0.5, 1)])
    xs, ys = grid_edges(rects, box, grid=10)
    seg = np.column_stack([xs, ys]).reshape(-1, 3, 2)[:, :2]
    assert np.isnan(xs[2::3]).all()
    length = float(np.abs(seg[:, 1] - seg[:, 0]).sum())
    assert length == pytest.approx(4 + 1 + 0.5)  # the outer square, x = 0.5 once, y = 0.5 on the right half
