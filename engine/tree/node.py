"""A tree's node: its rows' statistics and its split, frozen, with a readable repr.

:class:`Node` is what :class:`~engine.tree.store.Tree` stores and what every grower and pruning method
builds; :func:`first_argmax` is the tie rule a node's prediction and a tree's mixed prediction share.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.split.records import Split

__all__ = ["Node", "first_argmax"]


def first_argmax(values: np.ndarray, tol: float = 1e-12) -> np.ndarray:
    """Per row, the first column within ``tol`` of the row's maximum.

    A row reaching several leaves (missing values) mixes their class shares; when the classes tie
    exactly, rounding noise must not pick the winner: ties go to the first class, as in a node's own
    prediction.
    """
    top = values.max(axis=1, keepdims=True)
    return np.argmax(values >= top - tol, axis=1)


@dataclass(frozen=True, repr=False)
class Node:
    """One node: its rows' statistics, and its split (None for a leaf)."""

    id: int
    parent: int | None
    depth: int
    branch: str
    stats: tuple[float, ...]
    weight: float
    n_node_samples: int
    impurity: float
    value: tuple[float, ...]
    prediction: str | float
    criterion: str = "gini"
    split: Split | None = None
    children: tuple[int, ...] = ()
    gain: float | None = None
    stop_reason: str | None = None

    @property
    def is_leaf(self) -> bool:
        return not self.children

    def as_leaf(self, stop_reason: str | None = None) -> "Node":
        return self.evolve(split=None, children=(), gain=None, stop_reason=stop_reason)

    @classmethod
    def fast(cls, **fields) -> "Node":
        """Build a node from all its fields without the frozen-dataclass ``__init__`` (hot loops only)."""
        new = object.__new__(cls)
        new.__dict__.update(fields)
        return new

    def evolve(self, **changes) -> "Node":
        """A copy with ``changes`` (a fast ``dataclasses.replace`` for the growers' hot loops)."""
        new = object.__new__(Node)
        new.__dict__.update(self.__dict__)
        new.__dict__.update(changes)
        return new

    def to_dict(self) -> dict:
        return {
            "id": self.id, "parent": self.parent, "depth": self.depth, "branch": self.branch,
            "stats": list(self.stats), "weight": self.weight, "n_node_samples": self.n_node_samples,
            "impurity": self.impurity, "value": list(self.value), "prediction": self.prediction,
            "criterion": self.criterion, "split": None if self.split is None else self.split.to_dict(),
            "children": list(self.children), "gain": self.gain, "stop_reason": self.stop_reason,
        }

    @classmethod
    def from_dict(cls, d: dict) -> "Node":
        return cls(
            id=int(d["id"]), parent=None if d["parent"] is None else int(d["parent"]),
            depth=int(d["depth"]), branch=str(d["branch"]), stats=tuple(float(v) for v in d["stats"]),
            weight=float(d["weight"]), n_node_samples=int(d["n_node_samples"]),
            impurity=float(d["impurity"]), value=tuple(float(v) for v in d["value"]),
            prediction=d["prediction"] if isinstance(d["prediction"], str) else float(d["prediction"]),
            criterion=str(d.get("criterion", "gini")),
            split=None if d.get("split") is None else Split.from_dict(d["split"]),
            children=tuple(int(c) for c in d.get("children", ())),
            gain=None if d.get("gain") is None else float(d["gain"]),
            stop_reason=d.get("stop_reason"))

    def __repr__(self) -> str:
        test = f", split={self.split.describe().replace(' ', '')}" if self.split else ""
        stop = f", stop={self.stop_reason}" if self.is_leaf and self.stop_reason else ""
        return (f"Node(id={self.id}, depth={self.depth}, n={self.n_node_samples}, "
                f"{self.criterion}={self.impurity:.3g}{test}{stop})")
