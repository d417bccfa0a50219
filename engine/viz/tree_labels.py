"""The text and fill of a tree diagram's boxes: short lines that fit a box, the full hover, the fill colour.

A box holds ``#id n=rows``, then what the node tests (its feature: the test's value sits on the
branches) or predicts, on at most two lines of :data:`LINE_CHARS` characters, then its impurity; the
hover holds everything the DOT box shows (branch, test, n, counts or mean, impurity, stop reason).
Every piece of user text is escaped for Plotly (:func:`engine.viz.regions.escape`).
"""

from __future__ import annotations

import re

import numpy as np

from engine.grow.stopping import STOP_REASONS
from engine.viz import palette
from engine.viz.regions import escape

__all__ = ["box_text", "hover_text", "fill_of", "short_branch", "short", "LINE_CHARS"]

LINE_CHARS = 9  # longest line of text inside a box
IMPURITY_SHORT = {"entropy": "H", "gini": "gini", "misclassification": "err", "variance": "var"}


_NUMBER = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")


def short_branch(text: str) -> str:
    """A branch label made short: thresholds to 4 significant digits and ``<=`` as ``≤`` (``<= 1.04755`` ->
    ``≤ 1.048``); the hover keeps the exact test."""
    return _NUMBER.sub(lambda m: f"{float(m.group()):.4g}", text).replace("<=", "≤").replace(">=", "≥")


def short(text, limit: int = LINE_CHARS) -> str:
    s = str(text)
    return s if len(s) <= limit else s[: max(limit - 1, 1)] + "…"


def _num(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 1e4 else f"{v:.4g}"



def _wrap2(text: str, width: int = LINE_CHARS) -> list[str]:
    """``text`` on at most two lines of ``width`` characters, broken after a space, ``_``, ``-`` or ``.``
    (``petal_`` / ``length``); a word a little too long is cut with an ellipsis (``versicol…``), a long one
    without a break goes on in the second line; what is left over is cut with an ellipsis."""
    if len(text) <= width:
        return [text]
    cut = max(text.rfind(c, 0, width) for c in " _-.") + 1
    if cut < width // 2:
        if len(text) <= width + 3:
            return [short(text, width)]
        cut = width
    return [text[:cut].rstrip(), short(text[cut:].lstrip(), width)]


def box_text(tree, node, *, compact, show_ids, open_ids) -> list[str]:
    """``#id n=rows`` / what the node tests or predicts (two short lines at most) / impurity (not compact).

    Every line keeps to about :data:`LINE_CHARS` characters, so the boxes of a 30-node tree carry their
    text at 1366 pixels wide; hover shows the whole test and numbers."""
    first = (f"#{node.id} " if show_ids else "") + f"n={node.n_node_samples:,}"
    if not node.is_leaf:
        name = str(node.split.feature)
    elif node.id in open_ids:
        name = "open"
    elif tree.task == "regression":
        name = _num(float(node.prediction))
    else:
        name = str(node.prediction)
    lines = [first] + [escape(s) for s in _wrap2(name)]
    if not compact:
        value = f"{node.impurity:.4g}" if tree.task == "regression" else f"{node.impurity:.3f}"
        lines.append(f"{IMPURITY_SHORT.get(node.criterion, node.criterion[:4])} {value}")
    return lines



def fill_of(value, classes, memo: dict) -> str:
    """:func:`palette.node_fill`, remembered per (majority class, purity to 3 digits) within one figure."""
    v = np.asarray(value, dtype=float)
    total = v.sum()
    if v.size == 0 or not np.isfinite(total) or total <= 0:
        return palette.OPEN
    k = int(np.argmax(v))
    key = (k, round(float(v[k] / total), 3))
    if key not in memo:
        memo[key] = palette.node_fill(value, classes)
    return memo[key]


def hover_text(tree, node, open_ids, names) -> str:
    """Everything the DOT box shows: branch, test or prediction, n, counts or mean, impurity, stop reason."""
    lines = [f"branch: {escape(node.branch)}"] if node.parent is not None and node.branch else []
    if not node.is_leaf:
        lines.append(f"#{node.id}  {escape(node.split.describe())}")
    elif node.id in open_ids:
        lines.append(f"#{node.id}  open (majority {escape(node.prediction)})" if tree.task != "regression"
                     else f"#{node.id}  open (mean {_num(float(node.value[0]))})")
    elif tree.task == "regression":
        lines.append(f"#{node.id}  predict {_num(float(node.prediction))}")
    else:
        lines.append(f"#{node.id}  class = {escape(node.prediction)}")
    lines.append(f"n = {node.n_node_samples:,}")
    if tree.task == "regression":
        lines.append(f"mean = {_num(float(node.value[0]))}")
    else:
        counts = ", ".join(f"{c} {_count(v)}" for c, v in zip(names, node.stats))
        lines.append(counts if len(names) <= 6 else "[" + ", ".join(_count(v) for v in node.stats) + "]")
    lines.append(f"{node.criterion} = {node.impurity:.3f}")
    if node.is_leaf and node.stop_reason is not None:
        lines.append(f"stop: {escape(STOP_REASONS.get(node.stop_reason, node.stop_reason))}")
    return "<br>".join(lines)


def _count(v: float) -> str:
    return str(int(round(v))) if abs(v - round(v)) < 1e-9 else f"{v:.1f}"
