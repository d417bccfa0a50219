"""Reading a tree as logic and as geometry: rules (conjunctions per leaf) and regions (rectangles).

A tree is a disjunction of conjunctions: each leaf is the conjunction of the tests on its path, and a
class is the disjunction of the conjunctions of its leaves. A rule says each feature once
(:func:`merged_conditions`): the thresholds on a path become the tightest bounds (``3 < x <= 7``), the
category tests the values left after all of them (``country in {Chile, Peru}``, by the shorter side of
the feature's values), values holding a comma or a quote are quoted.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.checks import shown
from engine.errors import DataError
from engine.split.records import format_number
from engine.split.wording import set_text, shorter_side


@dataclass(frozen=True)
class Rule:
    """The path to one leaf: ``if cond_1 and ... and cond_k then prediction``."""

    leaf: int
    conditions: tuple[str, ...]
    prediction: str | float
    n_node_samples: int
    weight: float
    purity: float

    @property
    def if_text(self) -> str:
        """The conditions joined by ``AND`` (``TRUE`` for the root alone)."""
        return " AND ".join(self.conditions) if self.conditions else "TRUE"

    @property
    def then_text(self) -> str:
        """The prediction as text (a number as :func:`format_number` writes it, to 6 decimals at most)."""
        return self.prediction if isinstance(self.prediction, str) else format_number(round(self.prediction, 6))

    def text(self) -> str:
        return f"IF {self.if_text} THEN {self.then_text}"

    def __repr__(self) -> str:
        return f"Rule(leaf={self.leaf}, {self.text()!r})"


def _paths(tree):
    """``(leaf, ((split, child index), ...))`` for every leaf, in pre-order."""
    stack = [(0, ())]
    while stack:
        nid, steps = stack.pop()
        node = tree.nodes[nid]
        if node.is_leaf:
            yield node, steps
            continue
        for c, child in reversed(list(enumerate(node.children))):
            stack.append((child, steps + ((node.split, c),)))


def _universe(schema, split) -> tuple[str, ...]:
    """All values of ``split``'s categorical feature (empty if the schema does not list them)."""
    j = split.feature_index
    if schema is not None and 0 <= j < len(schema.categories) and schema.feature_names[j] == split.feature:
        return tuple(schema.categories[j])
    return ()


def narrow(values, split, child: int) -> tuple[str, ...]:
    """The values among ``values`` that the categorical ``split`` sends to ``child``."""
    if split.kind == "multiway":
        return tuple(v for v in values if v == split.categories[child])
    inside = set(split.categories)
    return tuple(v for v in values if (v in inside) == (child == 0))


def steps_to(tree, node_id: int) -> tuple:
    """``((split, child index), ...)`` from the root down to ``node_id``."""
    steps, nid = [], node_id
    while tree.nodes[nid].parent is not None:
        parent = tree.nodes[tree.nodes[nid].parent]
        steps.append((parent.split, list(parent.children).index(nid)))
        nid = parent.id
    return tuple(reversed(steps))


def values_at(tree, node_id: int, feature_index: int) -> tuple[str, ...]:
    """The values of a categorical feature that a row reaching ``node_id`` can hold: the feature's values
    less those the tests above the node on that feature sent elsewhere (empty if the schema lists none)."""
    cats = tree.schema.categories
    values = tuple(cats[feature_index]) if 0 <= feature_index < len(cats) else ()
    for split, child in steps_to(tree, node_id):
        if split.feature_index == feature_index and split.kind != "threshold":
            values = narrow(values, split, child)
    return values


def merged_conditions(steps, schema=None) -> tuple[str, ...]:
    """One condition per feature tested on a path of ``(split, child index)`` steps, in the order the
    features first appear: ``x <= 7``, ``x > 3`` or ``3 < x <= 7`` (the tightest bounds); for a category
    the values every test on the path lets through, written by the shorter side of the feature's values
    (``= v``, ``!= v``, ``in {...}``, ``not in {...}``); without the feature's values in ``schema`` the
    values let in and those sent away are kept apart."""
    order, bounds, kept, dropped, universes = [], {}, {}, {}, {}
    for split, child in steps:
        f = split.feature
        if f not in order:
            order.append(f)
        if split.kind == "threshold":
            lo, hi = bounds.get(f, (-np.inf, np.inf))
            t = float(split.threshold)
            bounds[f] = (lo, min(hi, t)) if child == 0 else (max(lo, t), hi)
            continue
        universes.setdefault(f, _universe(schema, split))
        if split.kind == "multiway":
            keep = {split.categories[child]}
        elif child == 0:
            keep = set(split.categories)
        else:
            dropped.setdefault(f, set()).update(split.categories)
            continue
        kept[f] = keep if f not in kept else kept[f] & keep
    out = []
    for f in order:
        if f in bounds:
            lo, hi = bounds[f]
            low = f"{format_number(lo)} < " if lo > -np.inf else ""
            out.append(f"{low}{f} <= {format_number(hi)}" if hi < np.inf else f"{f} > {format_number(lo)}")
            continue
        universe, gone = universes[f], dropped.get(f, set())
        if universe:
            inside = [v for v in universe if v in kept.get(f, universe) and v not in gone]
            out.append(f"{f} {set_text(*shorter_side(inside, universe))}")
        elif f in kept:
            out.append(f"{f} {set_text(True, sorted(kept[f] - gone))}")
        else:
            out.append(f"{f} {set_text(False, sorted(gone))}")
    return tuple(out)


def rules(tree, by_class: bool = False):
    """One :class:`Rule` per leaf (pre-order), each feature said once (:func:`merged_conditions`); with
    ``by_class`` a dict class -> disjunction text."""
    out = []
    schema = getattr(tree, "schema", None)
    for leaf, steps in _paths(tree):
        conds = merged_conditions(steps, schema)
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
