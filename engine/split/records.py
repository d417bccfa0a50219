"""The split record: which test a node applies, where each row goes, and the numbers that chose it.

Four kinds of test:

- ``threshold``: numeric ``x <= t`` (child 0) / ``x > t`` (child 1), t a midpoint between consecutive
  distinct values;
- ``multiway``: one child per category present at the node (ID3 / C4.5), child i <- ``categories[i]``;
- ``subset``: binary ``x in S`` (child 0) / ``x not in S`` (child 1), S = ``categories`` (CART);
- ``equals``: one-vs-rest ``x == v`` (child 0) / ``x != v`` (child 1), v = ``categories[0]``.

A missing value (NaN) routes to -1: the row goes down every branch with fractional weight
(see :func:`engine.tree.Tree.predict_proba`). In a multiway split a category not seen at the node also
routes to -1.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from engine.split.significance import chi2_test
from engine.split.wording import format_number, quote, values_text

__all__ = ["Split", "KINDS", "format_number"]

KINDS = ("threshold", "multiway", "subset", "equals")


@dataclass(frozen=True, repr=False)
class Split:
    """A node's test with the statistics that justified it (all gains in the criterion's units)."""

    feature: str
    feature_index: int
    kind: str
    threshold: float | None = None
    categories: tuple[str, ...] = ()
    category_codes: tuple[int, ...] = ()
    gain: float = 0.0
    gain_ratio: float = 0.0
    split_info: float = 0.0
    impurity_parent: float = 0.0
    impurity_children: float = 0.0
    child_stats: tuple[tuple[float, ...], ...] = ()
    child_weights: tuple[float, ...] = ()
    child_counts: tuple[int, ...] = ()
    known_fraction: float = 1.0
    task: str = "classification"

    @cached_property
    def _chi2(self) -> tuple[float, int, float]:
        if self.task != "classification" or not self.child_stats:
            return float("nan"), 0, float("nan")
        return chi2_test(self.child_stats)

    @property
    def chi2(self) -> float:
        """Pearson's chi-square of the children x classes table (see :mod:`engine.split.significance`)."""
        return self._chi2[0]

    @property
    def dof(self) -> int:
        return self._chi2[1]

    @property
    def p_value(self) -> float:
        return self._chi2[2]

    @classmethod
    def fast(cls, **fields) -> "Split":
        """Build a split from all its fields without the frozen-dataclass ``__init__`` (hot loops only)."""
        new = object.__new__(cls)
        new.__dict__.update(fields)
        return new

    @property
    def n_children(self) -> int:
        return len(self.child_weights)

    def describe(self) -> str:
        """The test as text: ``Humidity <= 72.5``, ``Outlook = ?``, ``Color in {red, blue}``; a value holding
        a comma or a quote is quoted (``country in {"Hong Kong, China", Japan}``)."""
        if self.kind == "threshold":
            return f"{self.feature} <= {format_number(self.threshold)}"
        if self.kind == "multiway":
            return f"{self.feature} = ?"
        if self.kind == "equals":
            return f"{self.feature} = {quote(self.categories[0])}"
        return f"{self.feature} in {{{values_text(self.categories)}}}"

    def branch_labels(self) -> tuple[str, ...]:
        """Edge labels, one per child."""
        if self.kind == "threshold":
            t = format_number(self.threshold)
            return (f"<= {t}", f"> {t}")
        if self.kind == "multiway":
            return tuple(self.categories)
        if self.kind == "equals":
            return (f"= {quote(self.categories[0])}", f"!= {quote(self.categories[0])}")
        return ("in", "not in")

    def condition(self, child: int) -> str:
        """The test a row passes to reach ``child``, e.g. ``Outlook = Sunny``."""
        if self.kind == "threshold":
            op = "<=" if child == 0 else ">"
            return f"{self.feature} {op} {format_number(self.threshold)}"
        if self.kind == "multiway":
            return f"{self.feature} = {quote(self.categories[child])}"
        if self.kind == "equals":
            return f"{self.feature} {'=' if child == 0 else '!='} {quote(self.categories[0])}"
        op = "in" if child == 0 else "not in"
        return f"{self.feature} {op} {{{values_text(self.categories)}}}"

    def route(self, column) -> np.ndarray:
        """Child index of each value of this feature's (encoded) column; -1 where the row is missing."""
        col = np.asarray(column, dtype=float)
        missing = np.isnan(col)
        if self.kind == "threshold":
            out = np.where(col <= self.threshold, 0, 1)
        else:
            safe = np.where(missing, 0, col).astype(np.int64)
            size = max(int(safe.max(initial=0)), max(self.category_codes, default=0)) + 1
            lookup = np.full(size, -1 if self.kind == "multiway" else 1, dtype=np.int64)
            if self.kind == "multiway":
                lookup[list(self.category_codes)] = np.arange(len(self.category_codes))
            else:
                lookup[list(self.category_codes)] = 0
            out = lookup[np.clip(safe, 0, size - 1)]
            out = np.where(safe < 0, -1, out)
        return np.where(missing, -1, out).astype(np.int64)

    def same_test(self, other: "Split") -> bool:
        return (self.feature == other.feature and self.kind == other.kind
                and self.threshold == other.threshold and self.category_codes == other.category_codes)

    def to_dict(self) -> dict:
        return {
            "feature": self.feature, "feature_index": self.feature_index, "kind": self.kind,
            "threshold": self.threshold, "categories": list(self.categories),
            "category_codes": list(self.category_codes), "gain": self.gain, "gain_ratio": self.gain_ratio,
            "split_info": self.split_info, "impurity_parent": self.impurity_parent,
            "impurity_children": self.impurity_children,
            "child_stats": [list(s) for s in self.child_stats], "child_weights": list(self.child_weights),
            "child_counts": list(self.child_counts), "known_fraction": self.known_fraction,
            "task": self.task,
        }

    @classmethod
    def from_dict(cls, d: dict) -> "Split":
        return cls(
            feature=str(d["feature"]), feature_index=int(d["feature_index"]), kind=str(d["kind"]),
            threshold=None if d.get("threshold") is None else float(d["threshold"]),
            categories=tuple(str(c) for c in d.get("categories", ())),
            category_codes=tuple(int(c) for c in d.get("category_codes", ())),
            gain=float(d.get("gain", 0.0)), gain_ratio=float(d.get("gain_ratio", 0.0)),
            split_info=float(d.get("split_info", 0.0)),
            impurity_parent=float(d.get("impurity_parent", 0.0)),
            impurity_children=float(d.get("impurity_children", 0.0)),
            child_stats=tuple(tuple(float(v) for v in s) for s in d.get("child_stats", ())),
            child_weights=tuple(float(v) for v in d.get("child_weights", ())),
            child_counts=tuple(int(v) for v in d.get("child_counts", ())),
            known_fraction=float(d.get("known_fraction", 1.0)),
            task=str(d.get("task", "classification")),
        )

    def __repr__(self) -> str:
        return f"Split({self.describe()}, gain={self.gain:.4g}, gain_ratio={self.gain_ratio:.4g})"
