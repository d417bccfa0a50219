"""What every pruning method returns: a grown tree in, a smaller (or differently shaped) NEW tree out, with a log.

Every method returns a :class:`PruneResult`: the original and the pruned tree (node ids are kept, so
the two can be drawn side by side with the removed nodes marked) and a tuple of :class:`PruneStep`
records, one per decision, with the numbers that decided it. The trees are never mutated.

Methods (see each function):

- :func:`engine.prune.reduced_error.prune_reduced_error`: reduced-error pruning on validation rows.
- :func:`engine.prune.reduced_error.prune_manual`: cut the subtrees below the chosen nodes.
- :func:`engine.prune.methods.prune` runs any of them by name.
- :func:`engine.prune.cost_complexity.prune_ccp`, :func:`engine.prune.cost_complexity.ccp_path`,
  :func:`engine.prune.cost_complexity.ccp_cross_validate`: cost-complexity (weakest-link) pruning.
- :func:`engine.prune.pessimistic.prune_pessimistic`: C4.5's pessimistic error pruning with subtree raising.
- :func:`engine.prune.bottom_up.prune_bottom_up`: bottom-up pruning with an evaluation function f(T, m).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from engine.tree.store import Tree
from engine.tree.surgery import as_xy, collapsed_ids, is_subtree_of, removed_ids

__all__ = ["PruneStep", "PruneResult", "postorder_internal", "loss_name", "score_of"]

def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


@dataclass(frozen=True, repr=False)
class PruneStep:
    """One pruning decision at one node: what was done, and the numbers that decided it.

    ``numbers`` holds (name, value) pairs in display order, e.g. ``(("errors with subtree", 4.0),
    ("errors as leaf", 3.0))``; ``note`` is a sentence for people.
    """

    index: int
    node_id: int
    action: str
    numbers: tuple[tuple[str, float], ...] = ()
    note: str = ""

    def number(self, name: str) -> float:
        """The value called ``name`` (KeyError if this step has none)."""
        return dict(self.numbers)[name]

    def as_dict(self) -> dict:
        return {"step": self.index, "node": self.node_id, "action": self.action,
                **dict(self.numbers), "note": self.note}

    def __repr__(self) -> str:
        nums = ", ".join(f"{k}={_fmt(v)}" for k, v in self.numbers[:4])
        return f"PruneStep(#{self.index} node {self.node_id}: {self.action}{', ' + nums if nums else ''})"


@dataclass(frozen=True, repr=False)
class PruneResult:
    """What a pruning method did: ``original`` -> ``tree``, decision by decision (``steps``).

    ``settings`` are the method's parameters, ``summary`` its headline numbers (e.g. validation
    accuracy before and after); ``node_table`` holds per-node numbers where a method has them
    (C4.5's estimated errors), else None.
    """

    method: str
    original: Tree
    tree: Tree
    steps: tuple[PruneStep, ...]
    settings: tuple[tuple[str, object], ...] = ()
    summary: tuple[tuple[str, float], ...] = ()
    node_table: pd.DataFrame | None = field(default=None, compare=False)

    @property
    def removed(self) -> tuple[int, ...]:
        """Ids of the original's nodes that are gone from the pruned tree."""
        return removed_ids(self.original, self.tree)

    @property
    def collapsed(self) -> tuple[int, ...]:
        """Ids of the original's internal nodes that are leaves of the pruned tree."""
        return collapsed_ids(self.original, self.tree)

    @property
    def marked(self) -> tuple[int, ...]:
        """Tops of the original's subtrees that are gone entirely (what a "before" diagram greys out).

        After subtree raising the raised child's own id is gone but its descendants live on, so it is
        not a top; its removed siblings are.
        """
        gone = set(self.removed)
        whole = {i for i in gone if all(n.id in gone for n in self.original.walk(i))}
        return tuple(sorted(i for i in whole if self.original.nodes[i].parent not in whole))

    def scores(self, parts: dict) -> pd.DataFrame:
        """Accuracy (classification) or MSE (regression) before and after, on each named set of rows.

        ``parts``: name -> Dataset or (X, y) (None or empty sets are skipped). Columns: part, rows,
        metric, before, after.
        """
        rows = []
        for name, data in parts.items():
            if data is None:
                continue
            X, y = as_xy(self.original, data)
            if y.size == 0:
                continue
            out = {"part": name, "rows": int(y.size)}
            for when, tree in (("before", self.original), ("after", self.tree)):
                if tree.task == "classification":
                    out["metric"], out[when] = "accuracy", float(np.mean(tree.predict_codes(X) == y))
                else:
                    out["metric"], out[when] = "MSE", float(np.mean((tree.predict(X) - y) ** 2))
            rows.append(out)
        return pd.DataFrame(rows, columns=["part", "rows", "metric", "before", "after"])

    @property
    def is_subtree(self) -> bool:
        """True when the pruned tree is the original with subtrees cut (false after subtree raising)."""
        return is_subtree_of(self.tree, self.original)

    def log_frame(self) -> pd.DataFrame:
        """One row per step: step, node, action, the step's numbers (columns in first-seen order), note."""
        rows = [s.as_dict() for s in self.steps]
        cols = ["step", "node", "action"]
        for s in self.steps:
            cols += [k for k, _ in s.numbers if k not in cols]
        return pd.DataFrame(rows, columns=cols + ["note"])

    def __repr__(self) -> str:
        return (f"PruneResult({self.method}: {self.original.n_leaves} -> {self.tree.n_leaves} leaves, "
                f"{len(self.steps)} steps)")


def postorder_internal(tree: Tree, start: int = 0) -> list[int]:
    """Ids of the internal nodes of ``start``'s subtree, every node after its descendants (left to right)."""
    order, stack = [], [start]
    while stack:
        node = tree.nodes[stack.pop()]
        if not node.is_leaf:
            order.append(node.id)
            stack.extend(node.children)
    return order[::-1]


def loss_name(tree: Tree) -> str:
    """What the scorer's loss counts: "errors" (classification) or "squared error" (regression)."""
    return "errors" if tree.task == "classification" else "squared error"


def score_of(tree: Tree, loss: float, total_weight: float) -> float:
    """Accuracy (classification) or mean squared error (regression) from a total loss."""
    if total_weight <= 0:
        return float("nan")
    return 1.0 - loss / total_weight if tree.task == "classification" else loss / total_weight
