"""The text and fill of a tree diagram's boxes: short lines that fit a box, the full hover, the fill colour.

A box holds ``#id n=rows``, then what the node tests (its feature: the test's value sits on the
branches) or predicts, on at most two lines of :data:`LINE_CHARS` characters, then its impurity; the
hover holds everything the DOT box shows (branch, test, n, counts or mean, impurity, stop reason).
Branch labels say what they test (:func:`branch_label`): ``≤ 16.795`` / ``> 16.795`` (the threshold with
the digits that keep every data value on its side, :func:`engine.split.wording.format_number`), ``Sunny``,
``∈ {Thur, Fri}`` / ``∉ {Thur, Fri}``: a category set by its shorter side (``∉ {Europe}``), and when the
set does not fit the room, its count and as many values as fit (``∈ 71 values: Afghanistan, …``, or
``∈ 71 values``); the hover has the whole list.

Text is measured, not guessed (:func:`text_px`): the diagram's font is Verdana / DejaVu Sans (the same
metrics), whose advance widths per character are in :data:`EM`; :func:`fit` cuts a line with an
ellipsis until it fits a width in CSS pixels, so a planned box always holds its whole text.
Every piece of user text is escaped for Plotly (:func:`engine.viz.text.escape`) after it is fitted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from engine.grow.stopping import STOP_REASONS
from engine.split.records import format_number
from engine.split.wording import plural, set_text, shorter_side, values_text
from engine.tree.paths import values_at
from engine.viz import palette
from engine.viz.text import escape

__all__ = ["box_lines", "wrap2", "hover_text", "hover_lines", "fill_of", "short_branch", "short", "branch_label",
           "text_px", "fit", "node_name", "fold_name",
           "FONT_FAMILY", "LINE_CHARS", "BoxSize", "box_size"]

FONT_FAMILY = "Verdana, 'DejaVu Sans', 'Bitstream Vera Sans', sans-serif"  # one metric: EM below
# advance widths of ASCII 32..126 in DejaVu Sans (= Verdana's metrics), in 1/100 em, rounded up
_EM_ASCII = (32, 41, 46, 84, 64, 96, 78, 28, 40, 40, 50, 84, 32, 37, 32, 34, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64,
             34, 34, 84, 84, 84, 54, 100, 69, 69, 70, 78, 64, 58, 78, 76, 30, 30, 66, 56, 87, 75, 79, 61, 79, 70,
             64, 62, 74, 69, 99, 69, 62, 69, 40, 34, 40, 84, 50, 50, 62, 64, 55, 64, 62, 36, 64, 64, 28, 28, 58,
             28, 98, 64, 62, 64, 64, 42, 53, 40, 64, 60, 82, 60, 60, 53, 64, 34, 64, 84)
EM = {chr(32 + i): w / 100 for i, w in enumerate(_EM_ASCII)}
SAFETY = 1.06  # fonts differ a little (Verdana vs DejaVu, hinting): plan 6% wider than measured

LINE_CHARS = 9  # longest line of text inside a box (a plan with room to spare may widen its boxes)
SAMPLE_NAME = "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz"  # average letters, to size a line of a name
HOVER_CHARS = 80  # longest line of a hover's list of values
IMPURITY_SHORT = {"entropy": "H", "gini": "gini", "misclassification": "err", "variance": "var"}


_NUMBER = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")


def short_branch(text: str) -> str:
    """A branch label with ``≤``/``≥`` for ``<=``/``>=`` and its numbers as :func:`format_number` writes
    them: never rounded onto a neighbouring data value (``<= 16.795`` stays ``≤ 16.795``, not ``≤ 16.8``)."""
    return _NUMBER.sub(lambda m: format_number(float(m.group())), text).replace("<=", "≤").replace(">=", "≥")


def short(text, limit: int = LINE_CHARS) -> str:
    s = str(text)
    return s if len(s) <= limit else s[: max(limit - 1, 1)] + "…"


def text_px(text: str, font: float) -> float:
    """Width of ``text`` (one line, unescaped) in CSS pixels at ``font`` px; a character outside ASCII
    counts as 1 em (``≤ ∈ …`` are 0.84-1 em), so the estimate never falls short."""
    return SAFETY * font * sum(EM.get(c, 1.0) for c in str(text))


def fit(text: str, max_px: float, font: float) -> str:
    """``text`` if it fits ``max_px`` at ``font``, else its longest prefix that fits with ``…`` after it."""
    s = str(text)
    if text_px(s, font) <= max_px:
        return s
    budget = max_px / (SAFETY * font) - EM.get("…", 1.0)
    used, k = 0.0, 0
    for k, c in enumerate(s):
        used += EM.get(c, 1.0)
        if used > budget:
            break
    return s[:k].rstrip() + "…" if k else "…"


def branch_label(tree, node, room: float | None = None, font: float = 11.0) -> tuple[str, str]:
    """``(short, full)`` label of the branch into ``node``: what its parent's test says for this child.

    Threshold: ``≤ 2.45`` / ``> 2.45``; multiway: the category; equals and subset: the shorter side of the
    values a row at the parent can hold, ``∈ {Thur, Fri}`` / ``∉ {Thur, Fri}``, ``= Thur`` / ``≠ Thur``; a set
    wider than ``room`` CSS px (at ``font`` px) becomes its count and the values that fit
    (``∈ 71 values: Afghanistan, …``), else the count alone (``∈ 71 values``). ``full`` is the whole condition
    (``day ∈ {Thur, Fri}``), for the hover.
    """
    if node.parent is None:
        return "", ""
    split = tree.nodes[node.parent].split
    kids = tree.nodes[node.parent].children
    if split is None or node.id not in kids:
        return short_branch(node.branch), str(node.branch)
    child = list(kids).index(node.id)
    if split.kind in ("subset", "equals"):
        # the shorter side among the values a row at the parent can still hold (the tests above it on the
        # same feature sent the others away): "∉ {Chad}" rather than "∈ 67 values" of which 66 are elsewhere
        reach = values_at(tree, node.parent, split.feature_index)
        inside = set(split.categories)
        positive, shown = shorter_side([v for v in reach if v in inside] if reach else split.categories, reach)
        positive = positive == (child == 0)
        text = set_text(positive, shown, symbols=True)
        return _fit_set(text, positive, shown, room, font), f"{split.feature} {text}"
    full = short_branch(split.condition(child)).replace("!=", "≠")
    if split.kind == "multiway":
        return str(split.categories[child]), full
    return short_branch(split.branch_labels()[child]), full


def _fit_set(text: str, positive: bool, values, room: float | None, font: float) -> str:
    """``text`` if it fits ``room``; else ``∈ 71 values: a, b, …`` with the values that fit, or
    ``∈ 71 values``."""
    if room is None or text_px(text, font) <= room or len(values) < 2:
        return text
    head = f"{'∈' if positive else '∉'} {plural(len(values), 'value')}"
    if text_px(f"{head}: {values_text(values[:1])}, …", font) > room:
        return head
    k = 1
    while k < len(values) - 1 and text_px(f"{head}: {values_text(values[:k + 1])}, …", font) <= room:
        k += 1
    return f"{head}: {values_text(values[:k])}, …"


def hover_lines(text: str, width: int = HOVER_CHARS) -> str:
    """``text`` escaped for Plotly, broken after ``, `` into lines of about ``width`` characters (``<br>``),
    so a test on 142 countries is a block beside the pointer, not one line wider than the screen."""
    lines, line = [], ""
    for part in str(text).split(", "):
        if line and len(line) + 2 + len(part) > width:
            lines.append(line + ",")
            line = part
        else:
            line = f"{line}, {part}" if line else part
    lines.append(line)
    return "<br>".join(escape(x) for x in lines)


def _num(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 1e4 else f"{v:.4g}"


def count_text(node) -> str:
    """``n=rows``; a tree read from a model file without row counts (XGBoost) shows its weight, ``w=cover``."""
    if node.n_node_samples == 0 and node.weight > 0:
        return f"w={_num(float(node.weight))}"
    return f"n={node.n_node_samples:,}"



def wrap2(text: str, width: int = LINE_CHARS) -> list[str]:
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


def box_lines(tree, node, *, compact, show_ids, open_ids, chars: int = LINE_CHARS) -> list[str]:
    """``#id n=rows`` / what the node tests or predicts (two short lines at most) / impurity (not compact).

    Unescaped (the figure fits each line to its box, then escapes it); a name keeps to about ``chars``
    (:data:`LINE_CHARS`, or the plan's :attr:`BoxSize.chars`) characters a line; hover shows the whole test."""
    first = (f"#{node.id} " if show_ids else "") + count_text(node)
    if not node.is_leaf:
        name = str(node.split.feature)
    elif node.id in open_ids:
        name = "open"
    elif tree.task == "regression":
        name = _num(float(node.prediction))
    else:
        name = str(node.prediction)
    lines = [first] + wrap2(name, chars)
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
    lines = [f"branch: {hover_lines(branch_label(tree, node)[1])}"] if node.parent is not None and node.branch else []
    if not node.is_leaf:
        lines.append(f"#{node.id}  {hover_lines(node.split.describe())}")
    elif node.id in open_ids:
        lines.append(f"#{node.id}  open (majority {escape(node.prediction)})" if tree.task != "regression"
                     else f"#{node.id}  open (mean {_num(float(node.value[0]))})")
    elif tree.task == "regression":
        lines.append(f"#{node.id}  predict {_num(float(node.prediction))}")
    else:
        lines.append(f"#{node.id}  class = {escape(node.prediction)}")
    lines.append(f"n = {node.n_node_samples:,}" if count_text(node).startswith("n=")
                 else f"weight (cover) = {_num(float(node.weight))}")
    if tree.task == "regression":
        lines.append(f"mean = {_num(float(node.value[0]))}")
    else:
        counts = ", ".join(f"{c} {_count(v)}" for c, v in zip(names, node.stats))
        lines.append(counts if len(names) <= 6 else "[" + ", ".join(_count(v) for v in node.stats) + "]")
    lines.append(f"{node.criterion} = {node.impurity:.3f}")
    if node.is_leaf and node.stop_reason is not None:
        lines.append(f"stop: {escape(STOP_REASONS.get(node.stop_reason, node.stop_reason))}")
    return "<br>".join(lines)


SPOKEN_CLASSES = 6  # a spoken name lists the counts of at most this many classes (the biggest ones)
SPOKEN_BRANCH = 120  # characters of a branch's whole condition a spoken name keeps (else its short form)


def node_name(tree, node, *, open_ids=(), known: bool = True) -> str:
    """What a sighted reader reads in a node's box and on the branch into it, as one plain sentence for a screen
    reader (the ARIA tree of :mod:`ui.access.aria_tree`): ``Node 2, tests Humidity: 5 rows, entropy 0.971, 3 Yes / 2 No;
    branch Outlook = Sunny``; a leaf says what it predicts and why it stopped, an open leaf (``open_ids``) that it
    is open. ``known=False``: a model file's node without row counts (its test or prediction only). Not escaped:
    the caller puts it into text, never into HTML."""
    if not node.is_leaf:
        what = f"tests {node.split.feature}"
    elif node.id in open_ids:
        what = "open leaf, not split yet" + ("" if tree.task == "regression" else f", majority {node.prediction}")
    elif tree.task == "regression":
        what = f"leaf, predicts {_num(float(node.prediction))}"
    else:
        what = f"leaf, predicts {node.prediction}"
    parts = []
    if known:
        parts.append(plural(node.n_node_samples, "row") if count_text(node).startswith("n=")
                     else f"weight {_num(float(node.weight))}")
        parts.append(f"{node.criterion} {node.impurity:.4g}" if tree.task == "regression"
                     else f"{node.criterion} {node.impurity:.3f}")
        if tree.task == "regression":
            parts.append(f"mean {_num(float(node.value[0]))}")
        else:
            parts.append(_spoken_counts(tree.schema.classes, node.stats))
    text = f"Node {node.id}, {what}" + (": " + ", ".join(parts) if parts else "")
    if node.is_leaf and node.id not in open_ids and node.stop_reason is not None:
        text += f"; stopped: {STOP_REASONS.get(node.stop_reason, node.stop_reason)}"
    if node.parent is not None:
        short_text, full = branch_label(tree, node)
        if full:
            text += f"; branch {full if len(full) <= SPOKEN_BRANCH else short_text}"
    return text


def fold_name(node, hidden: int) -> str:
    """The spoken name of a ``+k nodes`` box: how many nodes below ``node`` the view does not draw."""
    return f"{plural(hidden, 'more node')} below node {node.id}, not drawn; Enter shows them"


def _spoken_counts(classes, stats) -> str:
    """``3 Yes / 2 No`` in the classes' order; past :data:`SPOKEN_CLASSES` classes the biggest ones and how
    many other classes there are."""
    pairs = list(zip(classes, stats))
    if len(pairs) > SPOKEN_CLASSES:
        top = sorted(range(len(pairs)), key=lambda k: -float(pairs[k][1]))[:SPOKEN_CLASSES - 1]
        rest = len(pairs) - len(top)
        return " / ".join(f"{_count(pairs[k][1])} {pairs[k][0]}" for k in sorted(top)) + f" / {rest} other classes"
    return " / ".join(f"{_count(v)} {c}" for c, v in pairs)


def _count(v: float) -> str:
    return str(int(round(v))) if abs(v - round(v)) < 1e-9 else f"{v:.1f}"


@dataclass(frozen=True)
class BoxSize:
    """Pixel sizes of one view: font, box, the label band above a box, one level, the gap between columns."""

    font: float
    lines: int
    box_w: float
    box_h: float
    line_h: float
    strip_h: float
    label_h: float
    level_h: float
    gap_x: float
    pad: float
    chars: int = LINE_CHARS  # characters of a name a line holds (box_lines' ``chars``)

    @property
    def pitch(self) -> float:
        """Distance between the centres of two neighbouring columns."""
        return self.box_w + self.gap_x


def box_size(tree, *, font: float, compact: bool = False, show_ids: bool = True,
             name_chars: int = LINE_CHARS) -> BoxSize:
    """Sizes for ``tree`` at ``font`` px: a box has the line ``#id n=rows``, one or two lines of a name (two
    only if a feature or class name of the tree needs them), and the impurity unless ``compact``; it is as
    wide as the widest first line (the biggest id and n; of a tree read with covers, every node's
    ``w=cover``), a ``+k nodes`` count, or ``name_chars`` average
    characters of a name (a line of a name holds ``name_chars`` characters), plus padding; the label band is
    one line; a level is band + box + gap."""
    schema = tree.schema
    names = list(schema.feature_names) + ([] if tree.task == "regression" else [str(c) for c in schema.classes])
    lines = 1 + max([len(wrap2(n, name_chars)) for n in names] + [1]) + (0 if compact else 1)
    root = tree.root
    ids = f"#{len(tree.nodes) - 1} " if show_ids else ""
    counts = [count_text(root)]
    if count_text(root).startswith("w="):  # a cover is no whole number: "w=77.53" may be wider than the root's
        counts = {count_text(n) for n in tree.nodes if n is not None}
    first = max(text_px(ids + c, font) for c in counts)
    widest = max(first, text_px(f"+{len(tree.nodes):,} nodes", font),
                 text_px("gini 0.000", font), text_px(SAMPLE_NAME[:name_chars] + "…", font))
    big = font >= 16  # presenter view: tighter lines and gaps, so a projector shows 8 levels in ~620 px
    pad = 4.0 if big else max(4.0, round(font * 0.4))
    line_h = round(font * (1.15 if big else 1.3), 1)
    strip_h = 4.0 if big else max(4.0, round(font * 0.4))
    box_h = lines * line_h + strip_h + 2 * pad
    label_h = line_h + 2
    gap_y = 4.0 if big else max(10.0, round(font * 0.9))
    return BoxSize(font=float(font), lines=lines, box_w=float(np.ceil(widest + 2 * pad)), box_h=box_h, line_h=line_h,
                   strip_h=strip_h, label_h=label_h, level_h=label_h + box_h + gap_y, gap_x=max(8.0, round(font * 0.7)),
                   pad=pad, chars=int(name_chars))
