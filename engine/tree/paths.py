"""Reading a tree as logic and as geometry: rules (conjunctions per leaf) and regions (rectangles).

A tree is a disjunction of conjunctions: each leaf is the conjunction of the tests on its path, and a
class is the disjunction of the conjunctions of its leaves.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.checks import shown
from engine.errors import DataError
from engine.split.records import format_number


@dataclass(frozen=True)
class Rule:
    """The path to one leaf: ``if cond_1 and ... and cond_k then prediction``."""

    leaf: int
    conditions: tuple[str, ...]
    prediction: str | float
    n_node_samples: int
    weight: float
    purity: float

    def text(self) -> str:
        cond = " AND ".join(self.conditions) if self.conditions else "TRUE"
        pred = self.prediction if isinstance(self.prediction, str) else format_number(round(self.prediction, 6))
        return f"IF {cond} THEN {pred}"

    def __repr__(self) -> str:
        return f"Rule(leaf={self.leaf}, {self.text()!r})"


def _paths(tree):
    stack = [(0, ())]
    while stack:
        nid, conds = stack.pop()
        node = tree.nodes[nid]
        if node.is_leaf:
            yield node, conds
            continue
        for c, child in reversed(list(enumerate(node.children))):
            stack.append((child, conds + (node.split.condition(c),)))


def rules(tree, by_class: bool = False):
    """One :class:`Rule` per leaf (pre-order); with ``by_class`` a dict class -> disjunction text."""
    out = []
    for leaf, conds in _paths(tree):
        purity = max(leaf.value) if tree.task == "classification" else float("nan")
        out.append(Rule(leaf.id, conds, leaf.prediction, leaf.n_node_samples, leaf.weight, purity))
    if not by_class:
        return out
    if tree.task != "classification":
        raise DataError("Rules grouped by class exist only for classification trees.")
    grouped = {}
    for cls in tree.schema.classes:
        terms = ["(" + (" AND ".join(r.conditions) or "TRUE") + ")" for r in out if r.prediction == cls]
        grouped[cls] = " OR ".join(terms) if terms else "FALSE"
    return grouped


def rules_text(tree) -> str:
    """All rules as plain text, one per line, followed by the disjunction per class."""
    lines = [r.text() for r in rules(tree)]
    if tree.task == "classification":
        lines.append("")
        lines += [f"{cls} <=> {expr}" for cls, expr in rules(tree, by_class=True).items()]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Region:
    """A leaf's rectangle in the (x, y) plane; infinite bounds mean unbounded.

    ``other_conditions`` lists tests on other features along the path: if non-empty the rectangle is
    only part of the story (rows in it may go elsewhere depending on those features).
    """

    leaf: int
    x0: float
    x1: float
    y0: float
    y1: float
    prediction: str | float
    value: tuple[float, ...]
    other_conditions: tuple[str, ...]


def regions(tree, x: str, y: str) -> list[Region]:
    """Axis-aligned rectangles of the leaves over two numeric features."""
    schema = tree.schema
    for name in (x, y):
        if not isinstance(name, str) or name not in schema.feature_names:  # never truth-test arrays
            raise DataError(f"{shown(name)} is not a feature of this tree.")
        if schema.kinds[schema.index(name)] != "numeric":
            raise DataError(f"'{name}' is not numeric: regions need two numeric features.")
    xi, yi = schema.index(x), schema.index(y)
    out = []
    stack = [(0, -np.inf, np.inf, -np.inf, np.inf, ())]
    while stack:
        nid, x0, x1, y0, y1, other = stack.pop()
        node = tree.nodes[nid]
        if node.is_leaf:
            out.append(Region(nid, x0, x1, y0, y1, node.prediction, node.value, other))
            continue
        s = node.split
        for c, child in enumerate(node.children):
            if s.kind == "threshold" and s.feature_index == xi:
                b = (x0, min(x1, s.threshold), y0, y1) if c == 0 else (max(x0, s.threshold), x1, y0, y1)
                stack.append((child, *b, other))
            elif s.kind == "threshold" and s.feature_index == yi:
                b = (x0, x1, y0, min(y1, s.threshold)) if c == 0 else (x0, x1, max(y0, s.threshold), y1)
                stack.append((child, *b, other))
            else:
                stack.append((child, x0, x1, y0, y1, other + (s.condition(c),)))
    return sorted(out, key=lambda r: r.leaf)
