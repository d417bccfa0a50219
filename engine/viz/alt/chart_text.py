"""A Plotly figure's text alternative: a description with its key numbers, and its data as a table.

Generic over the traces the app draws, so every chart gets one from the figure it already builds; the
numbers are the figure's own (what a sighted user reads off the marks), not recomputed. Plotly's label
markup (``<b>``, ``<br>``, escaped user text ``&lt;``) becomes plain text.
"""

from __future__ import annotations

import html
import re

import numpy as np
import pandas as pd

#: Above this many marks (points, cells) in one chart the table sums each series up instead of listing them.
MAX_ROWS = 2_000
#: Values named in a description, at most (the table holds them all).
MAX_NAMED = 6
_TAG = re.compile(r"<[^>]*>")


def plain(text) -> str:
    """Plotly label text as plain text: ``<br>`` a space, other tags dropped, entities decoded, spaces collapsed."""
    if text is None:
        return ""
    s = re.sub(r"<br\s*/?>", " ", str(text), flags=re.I)
    return " ".join(html.unescape(_TAG.sub("", s)).split())


def _num(v) -> str:
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    try:
        f = float(v)
    except (TypeError, ValueError):
        return plain(v)
    if not np.isfinite(f):
        return "none"
    return f"{int(f):,}" if f.is_integer() and abs(f) < 1e15 else f"{f:.4g}"


def _axis_title(fig, axis: str) -> str:
    ax = getattr(fig.layout, axis, None)
    title = getattr(getattr(ax, "title", None), "text", None) if ax is not None else None
    return plain(title) or axis[0]


def _array(values) -> np.ndarray:
    return np.asarray([] if values is None else values, dtype=object).ravel()


def _series_name(trace, i: int) -> str:
    return plain(trace.name) or f"series {i + 1}"


def _xy_frame(trace, xname: str, yname: str) -> pd.DataFrame:
    x, y = _array(trace.x), _array(trace.y)
    n = max(len(x), len(y))
    x = x if len(x) == n else np.arange(n)
    y = y if len(y) == n else np.arange(n)
    if getattr(trace, "orientation", None) == "h":  # horizontal bars: the value is x
        return pd.DataFrame({yname: [plain(v) if isinstance(v, str) else v for v in y], xname: x})
    return pd.DataFrame({xname: [plain(v) if isinstance(v, str) else v for v in x], yname: y})


def _histogram(trace, xname: str) -> pd.DataFrame:
    x = pd.to_numeric(pd.Series(_array(trace.x)), errors="coerce").dropna().to_numpy(float)
    counts, edges = np.histogram(x, bins=int(trace.nbinsx or 30)) if x.size else (np.array([]), np.array([0.0]))
    return pd.DataFrame({f"{xname} from": edges[:-1], "to": edges[1:], "rows": counts})


def _heatmap(trace) -> pd.DataFrame:
    z = np.asarray(trace.z, dtype=float) if trace.z is not None else np.zeros((0, 0))
    if z.ndim != 2:
        z = z.reshape(1, -1)
    cols = [plain(v) for v in _array(trace.x)] if trace.x is not None and len(trace.x) == z.shape[1] \
        else [str(j) for j in range(z.shape[1])]
    rows = [plain(v) for v in _array(trace.y)] if trace.y is not None and len(trace.y) == z.shape[0] \
        else [str(i) for i in range(z.shape[0])]
    text = np.asarray(trace.text, dtype=object) if trace.text is not None else None
    if text is not None and text.shape == z.shape:  # the cells' own text (a confusion matrix: "5 (83%)")
        z = np.vectorize(plain, otypes=[object])(text)
    frame = pd.DataFrame(z, columns=pd.Index(cols).astype(str), index=rows)
    frame = frame.loc[:, ~frame.columns.duplicated()]
    return frame.reset_index(names="row")


def _visible(fig) -> list:
    return [t for t in fig.data if t.visible in (None, True)]


def _sizes(fig) -> int:
    total = 0
    for t in _visible(fig):
        if t.type == "heatmap":
            total += int(np.size(t.z)) if t.z is not None else 0
        else:
            total += max(len(_array(t.x)), len(_array(t.y)))
    return total


def _summary(fig, xname: str, yname: str) -> pd.DataFrame:
    """One row per series: how many marks and the range of each axis (a chart too big to list)."""
    rows = []
    for i, t in enumerate(_visible(fig)):
        if t.type == "heatmap":
            z = np.asarray(t.z, dtype=float)
            rows.append({"series": _series_name(t, i), "marks": int(z.size), f"{xname} min": None,
                         f"{xname} max": None, f"{yname} min": float(np.nanmin(z)) if z.size else None,
                         f"{yname} max": float(np.nanmax(z)) if z.size else None})
            continue
        x = pd.to_numeric(pd.Series(_array(t.x)), errors="coerce")
        y = pd.to_numeric(pd.Series(_array(t.y)), errors="coerce")
        rows.append({"series": _series_name(t, i), "marks": int(max(len(x), len(y))),
                     f"{xname} min": x.min(), f"{xname} max": x.max(), f"{yname} min": y.min(), f"{yname} max": y.max()})
    return pd.DataFrame(rows)


def figure_table(fig, *, max_rows: int = MAX_ROWS) -> pd.DataFrame:
    """The data behind the figure's visible marks: one row per bar / point / step (with its series when there
    are several), a heatmap as its matrix, a histogram as its bins; above ``max_rows`` marks, one summary row
    per series (count and ranges)."""
    xname, yname = _axis_title(fig, "xaxis"), _axis_title(fig, "yaxis")
    if yname == xname:
        yname = f"{yname} (y)"
    traces = _visible(fig)
    if _sizes(fig) > max_rows:
        return _summary(fig, xname, yname)
    heat = [t for t in traces if t.type == "heatmap"]
    if heat and len(heat) == len(traces):
        return _heatmap(heat[0])
    parts = []
    for i, t in enumerate(traces):
        if t.type == "heatmap":
            continue
        part = _histogram(t, xname) if t.type == "histogram" else _xy_frame(t, xname, yname)
        if len(traces) > 1:
            part.insert(0, "series", _series_name(t, i))
        parts.append(part)
    if not parts:
        return pd.DataFrame()
    table = pd.concat(parts, ignore_index=True)
    return _numeric(table.loc[:, ~table.columns.duplicated()])


def _floats(values: np.ndarray) -> np.ndarray:
    """The values as floats (NaN where one is not a number); numpy's cast first, pandas only for mixed arrays."""
    try:
        return np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        return pd.to_numeric(pd.Series(values), errors="coerce").to_numpy(dtype=float)


def _trace_sentence(t, i: int, many: bool, xname: str) -> str:
    name = f"{_series_name(t, i)}: " if many else ""
    if t.type == "heatmap":
        z = np.asarray(t.z, dtype=float) if t.z is not None else np.zeros(0)
        if not z.size or np.isnan(z).all():
            return f"{name}an empty grid"
        grid = f"{name}a {z.shape[0]} by {z.shape[-1]} grid"
        if z.size <= MAX_NAMED * 2 and z.ndim == 2:  # a small matrix is said cell by cell, as drawn
            cells = _heatmap(t)
            return grid + ": " + ", ".join(f"{r} / {c} {_num(cells.loc[i, c])}" for i, r in enumerate(cells["row"])
                                           for c in cells.columns[1:])
        return f"{grid} of values from {_num(np.nanmin(z))} to {_num(np.nanmax(z))}"
    if t.type == "histogram":
        return f"{name}a histogram of {len(_array(t.x)):,} values"
    horizontal = getattr(t, "orientation", None) == "h"
    cats, vals = (_array(t.y), _array(t.x)) if horizontal else (_array(t.x), _array(t.y))
    numbers = _floats(vals)
    if not numbers.size or np.isnan(numbers).all():
        return f"{name}{len(vals):,} marks"
    if len(cats) != len(vals):
        cats = np.arange(len(vals))
    if t.type in ("bar", "waterfall") and len(vals) <= MAX_NAMED:
        return name + ", ".join(f"{plain(c)} {_num(v)}" for c, v in zip(cats, vals))
    lo, hi = int(np.nanargmin(numbers)), int(np.nanargmax(numbers))
    points = "points" if _kind(t) == "points" else "values"
    return (f"{name}{len(vals):,} {points}, highest {_num(vals[hi])} at {_num(cats[hi])}, "
            f"lowest {_num(vals[lo])} at {_num(cats[lo])}")


def _kind(t) -> str:
    if t.type == "scatter":
        return "lines" if "lines" in (t.mode or "lines") else "points"
    return {"bar": "bars", "heatmap": "a heatmap", "waterfall": "a waterfall", "histogram": "a histogram"}.get(
        t.type, t.type)


def _numeric(frame: pd.DataFrame) -> pd.DataFrame:
    """Columns whose every value is a number become numeric (the arrays arrive as objects)."""
    for col in frame.columns:
        if frame[col].dtype == object:
            try:
                frame[col] = pd.to_numeric(frame[col])
            except (TypeError, ValueError):
                pass
    return frame


def describe(fig, *, lead: str = "") -> str:
    """A sentence or three a screen reader can say for the chart: its title (or ``lead``), its axes and, per
    series (the first :data:`MAX_NAMED`), the key numbers (each bar's value, or a line's highest and lowest)."""
    title = plain(getattr(fig.layout.title, "text", None)) or lead or "A chart"
    xname, yname = _axis_title(fig, "xaxis"), _axis_title(fig, "yaxis")
    traces = [t for t in _visible(fig) if max(len(_array(t.x)), len(_array(t.y)), np.size(t.z) if t.type == "heatmap" and t.z is not None else 0)]
    kinds = list(dict.fromkeys(_kind(t) for t in traces))
    head = f"{title}: {' and '.join(kinds) or 'an empty chart'} of {yname} against {xname}"
    many = len(traces) > 1
    parts = [_trace_sentence(t, i, many, xname) for i, t in enumerate(traces[:MAX_NAMED])]
    more = [f"and {len(traces) - MAX_NAMED} more series"] if len(traces) > MAX_NAMED else []
    return head + (": " + "; ".join(parts + more) if parts else "") + "."
