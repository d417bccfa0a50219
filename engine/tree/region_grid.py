"""A region plot's geometry on a grid of cells: a sample of rows spread over classes and cells, and many
leaf rectangles merged into few.

A fully grown tree on noisy data has thousands of leaves and the data tens of thousands of rows; a region
plot of all of them is megabytes the browser redraws on every click, for detail finer than a pixel. Both
pieces here work on a ``grid x grid`` division of the plot's box (x0, x1, y0, y1):

- :func:`stratified_rows` keeps ``max_points`` rows spread like the data: every (class, cell) stratum gets its
  share (largest remainder), sparse cells and rare classes first get one row each, so outliers stay visible.
- :func:`merge_rectangles` snaps rectangles to the grid's lines (an error of at most half a cell, about a
  pixel when the grid matches the plot's size), unions those of one colour (a coverage count per cell) and
  returns the union as few rectangles (runs of covered cells per grid row, equal runs of consecutive rows
  joined); :func:`grid_edges` returns the snapped rectangles' edges as line segments, each drawn once.

numpy only; vectorised except for loops over the grid's rows and lines.
"""

from __future__ import annotations

import numpy as np

GRID = 240  # cells per axis: about one to two pixels each in a region plot 300-500 px wide


def _cells(values: np.ndarray, lo: float, hi: float, grid: int) -> np.ndarray:
    """The grid cell (0 .. grid-1) of each value in [lo, hi]."""
    span = hi - lo if hi > lo else 1.0
    return np.clip(((values - lo) / span * grid).astype(np.int64), 0, grid - 1)


def stratified_rows(xs: np.ndarray, ys: np.ndarray, strata: np.ndarray, box, max_points: int, *, grid: int = 8,
                    seed: int = 0) -> np.ndarray:
    """Sorted positions of ``max_points`` of the rows (all when they fit), spread over ``strata`` x grid cells.

    ``xs``, ``ys``: finite coordinates; ``strata``: an integer code per row (its class; zeros for none).
    Each (code, cell) stratum gets ``max_points`` times its share of the rows, rounded down; the rows left
    go first to strata that got none, then by the largest remainder. Within a stratum the rows are a
    deterministic random choice (``numpy.random.default_rng(seed)``).
    """
    n = xs.size
    if n <= max_points:
        return np.arange(n)
    cell = _cells(xs, box[0], box[1], grid) * grid + _cells(ys, box[2], box[3], grid)
    key = np.asarray(strata, dtype=np.int64) * (grid * grid) + cell
    groups, group_of, counts = np.unique(key, return_inverse=True, return_counts=True)
    share = counts * (max_points / n)
    quota = np.floor(share).astype(np.int64)
    left = max_points - int(quota.sum())
    if left > 0:  # empty strata first, then the largest remainders (ties: the earlier stratum)
        order = np.lexsort((-(share - quota), quota > 0))
        quota[order[:left]] += 1
    rng = np.random.default_rng(seed)
    shuffled = rng.permutation(n)
    by_group = shuffled[np.argsort(group_of[shuffled], kind="stable")]  # each group's rows, in random order
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    rank = np.arange(n) - np.repeat(starts, counts)  # a row's place within its group's random order
    keep = by_group[rank < np.repeat(quota, counts)]
    return np.sort(keep)


def snap(rects: np.ndarray, box, grid: int = GRID) -> np.ndarray:
    """``rects`` (rows of x0, x1, y0, y1, inside ``box``) as grid line indices (i0, i1, j0, j1), rounded to the
    nearest line; a rectangle thinner than half a cell may come out empty (i0 == i1 or j0 == j1)."""
    rects = np.asarray(rects, dtype=float).reshape(-1, 4)
    sx = grid / (box[1] - box[0]) if box[1] > box[0] else 0.0
    sy = grid / (box[3] - box[2]) if box[3] > box[2] else 0.0
    ij = np.empty(rects.shape, dtype=np.int64)
    ij[:, :2] = np.rint((rects[:, :2] - box[0]) * sx)
    ij[:, 2:] = np.rint((rects[:, 2:] - box[2]) * sy)
    return np.clip(ij, 0, grid)


def _runs(row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(starts, ends) of the runs of True in a boolean row."""
    edges = np.diff(np.concatenate(([0], row.view(np.int8), [0])))
    return np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)


def merge_rectangles(rects: np.ndarray, box, grid: int = GRID) -> np.ndarray:
    """The union of ``rects`` (rows of x0, x1, y0, y1) snapped to the grid, as few rectangles (same columns).

    Runs of covered cells per grid row; a run equal to the one right below it extends that rectangle upward.
    """
    ij = snap(rects, box, grid)
    ij = ij[(ij[:, 0] < ij[:, 1]) & (ij[:, 2] < ij[:, 3])]
    if ij.size == 0:
        return np.empty((0, 4))
    cover = np.zeros((grid + 1, grid + 1), dtype=np.int32)  # 2-D difference array, rows = y
    np.add.at(cover, (ij[:, 2], ij[:, 0]), 1)
    np.add.at(cover, (ij[:, 2], ij[:, 1]), -1)
    np.add.at(cover, (ij[:, 3], ij[:, 0]), -1)
    np.add.at(cover, (ij[:, 3], ij[:, 1]), 1)
    covered = cover.cumsum(axis=0).cumsum(axis=1)[:grid, :grid] > 0
    done, open_runs = [], {}  # (i0, i1) -> j0 of the rectangle growing upward
    for j in range(grid + 1):
        runs = set(zip(*map(np.ndarray.tolist, _runs(covered[j])))) if j < grid else set()
        for run in list(open_runs):
            if run not in runs:
                done.append((*run, open_runs.pop(run), j))
        for run in runs - open_runs.keys():
            open_runs[run] = j
    out = np.array(done, dtype=float)
    xs = box[0] + out[:, :2] * ((box[1] - box[0]) / grid)
    ys = box[2] + out[:, 2:] * ((box[3] - box[2]) / grid)
    return np.column_stack([xs, ys])


def grid_edges(rects: np.ndarray, box, grid: int = GRID) -> tuple[np.ndarray, np.ndarray]:
    """The edges of ``rects`` snapped to the grid, each stretch of a grid line drawn once: x and y of line
    segments separated by NaN (a gap in a Plotly line trace)."""
    ij = snap(rects, box, grid)
    ij = ij[(ij[:, 0] < ij[:, 1]) & (ij[:, 2] < ij[:, 3])]
    segments = []
    for lines, a0, a1, along in ((ij[:, [2, 3]], ij[:, 0], ij[:, 1], "x"), (ij[:, [0, 1]], ij[:, 2], ij[:, 3], "y")):
        marks = np.zeros((grid + 1, grid + 1), dtype=np.int32)  # per grid line: a difference array along it
        for k in (0, 1):
            np.add.at(marks, (lines[:, k], a0), 1)
            np.add.at(marks, (lines[:, k], a1), -1)
        on = marks.cumsum(axis=1)[:, :grid] > 0
        for line in np.flatnonzero(on.any(axis=1)):
            for s, e in zip(*_runs(on[line])):
                segments.append((along, line, s, e))
    sx, sy = (box[1] - box[0]) / grid, (box[3] - box[2]) / grid
    xs, ys = [], []
    for along, line, s, e in segments:
        if along == "x":  # a horizontal stretch of the line y = line
            xs += [box[0] + s * sx, box[0] + e * sx, np.nan]
            ys += [box[2] + line * sy] * 2 + [np.nan]
        else:
            xs += [box[0] + line * sx] * 2 + [np.nan]
            ys += [box[2] + s * sy, box[2] + e * sy, np.nan]
    return np.array(xs, dtype=float), np.array(ys, dtype=float)
