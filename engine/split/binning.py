"""Binning for histogram split search: every numeric feature coded once into at most ``max_bins`` bins.

If a feature has at most ``max_bins`` distinct values the edges are the midpoints between consecutive
distinct values (so nothing is lost); otherwise the edges are midpoints between distinct values near its
quantiles. A row with value v falls in bin ``b = #edges < v``, so ``x <= edge[b]`` holds exactly for the
bins ``<= b``. Codes are ``uint8`` when ``max_bins <= 255`` (else ``uint16``), stored feature by feature;
the largest value of the type (:func:`missing_code`) marks a missing value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, repr=False)
class Bins:
    """Bin edges per feature (empty for categorical features) and every row's bin code.

    ``codes`` is an (n, d) view of a feature-major (d, n) array (``codes.T`` is contiguous); a missing
    value (and every row of a categorical feature) holds :func:`missing_code`.
    """

    edges: tuple[np.ndarray, ...]
    codes: np.ndarray  # (n, d) uint8 / uint16, Fortran order

    @property
    def missing(self) -> int:
        return missing_code(self.codes)

    def __repr__(self) -> str:
        return f"Bins(features={len(self.edges)}, bins={[e.size + 1 for e in self.edges]})"


SAMPLE_ROWS = 200_000


def missing_code(codes: np.ndarray) -> int:
    """The code of a missing value in a bin-code array: the largest value of its unsigned type."""
    return int(np.iinfo(codes.dtype).max)


def code_dtype(max_bins: int):
    """``uint8`` up to 255 bins (codes 0..254, 255 = missing), else ``uint16`` (``max_bins`` <= 65,535)."""
    return np.uint8 if max_bins <= 255 else np.uint16


def _sorted_distinct(s: np.ndarray) -> np.ndarray:
    """The distinct values of a sorted array (what ``np.unique`` returns for it)."""
    keep = np.empty(s.size, dtype=bool)
    keep[:1] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


def _sample_rows(n: int) -> np.ndarray:
    """Positions of the ``SAMPLE_ROWS``-row sample of n known values, in row order: the rows
    ``default_rng(0).choice(n, SAMPLE_ROWS, replace=False)`` picks (the same values as
    ``choice(known, ...)``, read with far fewer cache misses)."""
    return np.sort(np.random.default_rng(0).choice(n, SAMPLE_ROWS, replace=False))


def _sorted_quantiles(s: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``np.quantile(s, q)`` (the default "linear" method) of a sorted array, without numpy's partition:
    the same virtual indexes ``(n - 1) * q``, neighbours and two-sided interpolation, so the same bits."""
    n = s.size
    vi = (n - 1) * q
    prev = np.floor(vi)
    nxt = prev + 1
    top = vi >= n - 1
    prev[top], nxt[top] = -1, -1
    prev, nxt = prev.astype(np.intp), nxt.astype(np.intp)
    gamma = vi - prev
    a, b = s[prev], s[nxt]
    diff = b - a
    out = a + diff * gamma
    np.subtract(b, diff * (1 - gamma), out=out, where=gamma >= 0.5)
    return out


def _edges_from_sorted(s: np.ndarray, u: np.ndarray, max_bins: int) -> np.ndarray:
    """Midpoints between consecutive distinct values ``u`` of the sorted values ``s``, all of them or
    those nearest the ``max_bins``-quantiles of ``s``."""
    if u.size <= 1:
        return np.zeros(0)
    if u.size <= max_bins:
        lo, hi = u[:-1], u[1:]
    else:
        q = _sorted_quantiles(s, np.linspace(0, 1, max_bins + 1)[1:-1])
        i = np.unique(np.clip(np.searchsorted(u, q, side="right"), 1, u.size - 1))
        lo, hi = u[i - 1], u[i]
    mid = (lo + hi) / 2.0
    return np.where(mid >= hi, lo, mid)


def bin_edges(col: np.ndarray, max_bins: int) -> np.ndarray:
    """Edges for one numeric column (NaN ignored): at most ``max_bins - 1`` midpoints.

    Above ``SAMPLE_ROWS`` known values, a fixed random sample of that size decides: if it already holds
    more than ``max_bins`` distinct values the quantile edges come from the sample (as LightGBM and
    scikit-learn's histogram boosting do); otherwise every distinct value is used, so nothing is lost.
    """
    known = col[~np.isnan(col)]
    if known.size > SAMPLE_ROWS:
        s = np.sort(known[_sample_rows(known.size)])
        u = _sorted_distinct(s)
        if u.size > max_bins:
            return _edges_from_sorted(s, u, max_bins)
    s = np.sort(known)
    return _edges_from_sorted(s, _sorted_distinct(s), max_bins)


GRID_PER_EDGE, CELL_SCAN = 16, 8


def _uniform_cells(edges: np.ndarray, K: int):
    """A monotone map of values to K cells of equal width between the first and last edge."""
    lo, span = edges[0], edges[-1] - edges[0]
    # a span of a few subnormals would overflow (K - 1) / span: the largest finite scale still orders them
    tiny = (K - 1) / np.finfo(np.float64).max
    scale = ((K - 1) / span if span > tiny else np.finfo(np.float64).max) if 0 < span < np.inf else 1.0

    def cell(v):
        t = np.subtract(v, lo)
        t *= scale
        np.clip(t, 0, K - 1, out=t)
        return t.astype(np.intp)
    return cell


def _log_cells(edges: np.ndarray, K: int):
    """A monotone map of values to K cells of equal width in the bits of ``v - edges[0]`` (a logarithmic
    grid: for skewed columns, whose edges crowd near the low end)."""
    lo = edges[0]
    pos = edges[edges > lo] - lo
    if pos.size == 0:
        return None
    b0 = int(pos[0].view(np.int64))
    shift = max(0, (int(pos[-1].view(np.int64)) - b0).bit_length() - (K - 1).bit_length() + 1)

    def cell(v):
        t = np.subtract(v, lo)
        np.maximum(t, 0.0, out=t)
        t += 0.0                  # -0.0 -> +0.0: the bits of every t >= 0 then grow with t
        b = t.view(np.int64)
        b -= b0
        b >>= shift
        return np.clip(b, 0, K - 1, out=b)
    return cell


def _coder(edges: np.ndarray):
    """A function ``code(v) = #edges < v`` (``np.searchsorted(edges, v, "left")``) for known values v.

    Exact, and several times faster than a binary search per value: a map ``cell(v)`` that never
    decreases with v sends values to K cells (a uniform grid, or a logarithmic one for skewed columns,
    whichever crowds fewer edges in one cell). Edges in a lower cell are below every value of the cell and
    edges in a higher cell above, so the code starts at ``#edges in lower cells`` (a table) and advances
    past the cell's own edges with one comparison each. If some cell holds more than ``CELL_SCAN`` edges
    under both maps, the binary search is used.
    """
    E = edges.size
    if E == 0:
        return lambda v: np.zeros(v.size, dtype=np.intp)
    if not np.isfinite(edges).all():
        return lambda v: np.searchsorted(edges, v, side="left")
    K = GRID_PER_EDGE * E + 16
    best = None
    for make in (_uniform_cells, _log_cells):
        cell = make(edges, K)
        if cell is not None:
            with np.errstate(over="ignore"):             # v - edges[0] may overflow to inf: still monotone
                occ = np.bincount(cell(edges), minlength=K)
            if best is None or occ.max() < best[1].max():
                best = (cell, occ)
    cell, occ = best
    if occ.max() > CELL_SCAN:
        return lambda v: np.searchsorted(edges, v, side="left")
    start = np.zeros(K, dtype=np.intp)
    np.cumsum(occ[:-1], out=start[1:])
    pad = np.append(edges, np.inf)
    n_scan = int(occ.max())

    def code(v):
        with np.errstate(over="ignore"):
            c = start.take(cell(v))
        step = pad.take(c) < v
        c += step
        rows = np.flatnonzero(step) if n_scan > 1 else None
        for _ in range(n_scan - 1):  # only rows that passed an edge can pass the next one
            if rows.size == 0:
                break
            step = pad.take(c[rows]) < v[rows]
            c[rows] += step
            rows = rows[step]
        return c
    return code


def _apply(code, col: np.ndarray, out: np.ndarray, nan: np.ndarray | None = None) -> np.ndarray:
    """``out[:] = code(col)``, with :func:`missing_code` where ``nan`` (a mask or None) holds."""
    if nan is None:
        out[:] = code(col)
    else:
        known = np.flatnonzero(~nan)
        out[:] = missing_code(out)
        out[known] = code(col[known])
    return out


def bin_codes(col: np.ndarray, edges: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out[i] = #edges < col[i]`` (see :func:`_coder`); NaN gets :func:`missing_code` of ``out``."""
    nan = np.isnan(col)
    return _apply(_coder(edges), col, out, nan if nan.any() else None)


BLOCK_ROWS = 1 << 15


def make_bins(X: np.ndarray, kinds, max_bins: int, map_fn=None, groups: int = 1) -> Bins:
    """Edges (:func:`bin_edges`) and codes (:func:`bin_codes`) of every numeric column of X (n, d).

    The same edges and codes as column by column, read in row blocks (one column of a C-ordered X
    touches every cache line of X). Above ``SAMPLE_ROWS`` rows all columns share one sample (LightGBM's
    ``bin_construct_sample_cnt``); where it holds at most ``max_bins`` distinct values, the column is coded
    with their midpoints and checked to hold no other value (then those are all its distinct values). A
    column with a missing value, or a value its sample missed, is binned again on its own
    (:func:`bin_edges`, :func:`bin_codes`). ``map_fn(fn, items)``: ``[fn(x) for x in items]``, or the same
    on threads (:func:`engine.grow.parallel.thread_map`): ``groups`` groups of columns are coded at once,
    with the same edges and codes.
    """
    n, d = X.shape
    dtype = code_dtype(max_bins)
    codes = np.empty((d, n), dtype=dtype)
    edges = [np.zeros(0)] * d
    numeric = [j for j, kind in enumerate(kinds) if kind == "numeric"]
    codes[[j for j in range(d) if j not in numeric]] = np.iinfo(dtype).max
    if not numeric or n == 0:
        return Bins(tuple(edges), codes.T)
    rows = _sample_rows(n) if n > SAMPLE_ROWS else None
    parts = [g.tolist() for g in np.array_split(numeric, max(1, min(len(numeric), groups)))]
    redo = set().union(*(map_fn or (lambda f, it: [f(x) for x in it]))(
        lambda cols: _code_columns(X, cols, rows, max_bins, edges, codes), parts))
    for j in redo:
        edges[j] = bin_edges(X[:, j], max_bins)
        bin_codes(X[:, j], edges[j], codes[j])
    return Bins(tuple(edges), codes.T)


def _code_columns(X: np.ndarray, numeric: list, rows, max_bins: int, edges: list, codes: np.ndarray) -> set:
    """:func:`make_bins` of the columns ``numeric`` (``rows``: the shared sample's rows, None below
    ``SAMPLE_ROWS``): writes their ``edges`` and ``codes``; returns the columns to bin again on their own."""
    n, d = X.shape
    check, redo = {}, set()                               # check: column -> distinct sample values
    if rows is not None:                                  # assume no NaN; a column with one is redone below
        if X.T.flags.c_contiguous:                        # Fortran order: gather within each column
            sample = np.empty((len(numeric), rows.size))      # (X.T[numeric] would copy the columns whole first)
            for i, j in enumerate(numeric):
                np.take(X[:, j], rows, out=sample[i])
        else:                                            # (np.take would first copy X in C order)
            sample = (np.take(X, rows, axis=0) if len(numeric) == d else X[rows][:, numeric]).T.copy()
        sample.sort(axis=1)
        for j, s in zip(numeric, sample):
            if np.isnan(s[-1]):                          # NaN sorts last
                redo.add(j)
                continue
            u = _sorted_distinct(s)
            edges[j] = _edges_from_sorted(s, u, max_bins)
            if u.size <= max_bins:
                check[j] = u
    else:
        for j in numeric:
            edges[j] = bin_edges(X[:, j], max_bins)
    coders = {j: _coder(edges[j]) for j in numeric}
    cols = np.array(numeric)
    fortran = X.T.flags.c_contiguous                      # columns already contiguous: read them as they are
    buf = None if fortran else np.empty((cols.size, min(n, BLOCK_ROWS)))
    for s in range(0, n, BLOCK_ROWS):
        if fortran:
            block = X.T[:, s:s + BLOCK_ROWS]
        else:
            block = buf[:, :min(BLOCK_ROWS, n - s)]
            np.copyto(block, (X[s:s + BLOCK_ROWS] if cols.size == d else X[s:s + BLOCK_ROWS, cols]).T)
        for i, j in enumerate(numeric):
            if j in redo:
                continue
            v, out = block[j if fortran else i], codes[j, s:s + BLOCK_ROWS]
            with np.errstate(over="ignore", invalid="ignore"):
                unknown = np.isnan(v.sum())
            if unknown:                                  # NaN (or inf - inf): this column is redone below
                redo.add(j)
                continue
            _apply(coders[j], v, out)
            if j in check and not np.array_equal(check[j].take(out), v):
                redo.add(j)                              # a value the sample missed: sort it whole
    return redo


__all__ = ["Bins", "SAMPLE_ROWS", "bin_codes", "bin_edges", "code_dtype", "make_bins", "missing_code"]
