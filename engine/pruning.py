"""Pruning: a grown tree in, a smaller (or differently shaped) NEW tree out, with a log of every decision.

Every method returns a :class:`PruneResult`: the original and the pruned tree (node ids are kept, so
the two can be drawn side by side with the removed nodes marked) and a tuple of :class:`PruneStep`
records, one per decision, with the numbers that decided it. The trees are never mutated.

Methods (see each function):

- :func:`prune_reduced_error` (this module): reduced-error pruning on validation rows.
- :func:`prune_manual` (this module): cut the subtrees below the chosen nodes.
- :func:`engine.pruning_ccp.prune_ccp`, :func:`engine.pruning_ccp.ccp_path`,
  :func:`engine.pruning_ccp.ccp_cross_validate`: cost-complexity (weakest-link) pruning.
- :func:`engine.pruning_c45.prune_pessimistic`: C4.5's pessimistic error pruning with subtree raising.
- :func:`engine.pruning_bottomup.prune_bottom_up`: bottom-up pruning with an evaluation function f(T, m).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .errors import ConfigError
from .pruning_checks import check_choice, check_node_ids
from .pruning_scoring import RowScorer
from .tree import Tree
from .treeops import Draft, as_xy, collapsed_ids, is_subtree_of, removed_ids

__all__ = ["PruneStep", "PruneResult", "prune", "prune_reduced_error", "prune_manual", "postorder_internal",
           "loss_name", "METHODS"]

#: Pruning methods by name, with a one-line description (the page's method picker uses these).
METHODS = {
    "reduced_error": "Reduced-error pruning on the validation rows",
    "cost_complexity": "Cost-complexity (weakest-link) pruning",
    "pessimistic": "C4.5 pessimistic error pruning",
    "bottom_up": "Bottom-up pruning with an evaluation function f(T, m)",
    "manual": "Prune by hand",
}


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


def _score(tree: Tree, loss: float, total_weight: float) -> float:
    """Accuracy (classification) or mean squared error (regression) from a total loss."""
    if total_weight <= 0:
        return float("nan")
    return 1.0 - loss / total_weight if tree.task == "classification" else loss / total_weight


def prune_reduced_error(tree: Tree, validation) -> PruneResult:
    """Reduced-error pruning (Quinlan 1987): bottom-up, cut a subtree to a leaf unless that hurts validation.

    Visit the internal nodes after their descendants. At node j compare the validation loss of the
    rows reaching j with j's (already pruned) subtree and with j as a leaf predicting its training
    majority class (regression: its training mean). Replace the subtree by the leaf when

        loss(leaf) <= loss(subtree)      (errors, or squared errors for regression)

    i.e. while validation accuracy does not drop; ties prune, preferring the smaller tree. Only rows
    reaching j change prediction, so comparing j's rows is comparing the whole tree. A node no
    validation row reaches ties, so it is pruned. ``validation`` is a Dataset or an (X, y) pair.
    """
    if validation is None:
        raise ConfigError("Reduced-error pruning needs validation rows: set a validation share on the Data page.")
    X, y = as_xy(tree, validation)
    if y.size == 0:
        raise ConfigError("Reduced-error pruning needs validation rows; there are none.")
    scorer = RowScorer(tree, X, y)
    name, what = loss_name(tree), "accuracy" if tree.task == "classification" else "MSE"
    before = _score(tree, scorer.total_loss, y.size)
    draft, steps = Draft(tree), []
    for j in postorder_internal(tree):
        node = draft.node(j)
        idx, w = scorer.rows(j)
        keep = scorer.keep(draft, j)
        leaf = scorer.leaf(j, node.value, idx, w)
        loss_keep = scorer.loss(idx, scorer.P[idx])
        loss_leaf = scorer.loss(idx, scorer.new_values(idx, w, keep, leaf))
        prune = loss_leaf <= loss_keep + 1e-9 * (1.0 + abs(loss_keep))
        if prune:
            draft.cut(j)
        scorer.commit(j, keep, leaf if prune else keep)
        numbers = (("validation rows", float(w.sum())), (f"{name} with subtree", loss_keep),
                   (f"{name} as leaf", loss_leaf), (f"validation {what} after", _score(tree, scorer.total_loss, y.size)))
        note = (f"The leaf '{node.prediction}' makes {'no more' if prune else 'more'} validation {name} "
                f"than the subtree, so the subtree is {'cut' if prune else 'kept'}.")
        steps.append(PruneStep(len(steps), j, "replace by leaf" if prune else "keep", numbers, note))
    current = draft.freeze()
    after = _score(tree, scorer.total_loss, y.size)
    return PruneResult("reduced_error", tree, current, tuple(steps), (("validation rows", int(y.size)),),
                       ((f"validation {what} before", before), (f"validation {what} after", after)))


def prune_manual(tree: Tree, node_ids) -> PruneResult:
    """Cut the subtree below each of ``node_ids`` (in the given order): each becomes a leaf."""
    draft, steps, leaves = Draft(tree), [], tree.n_leaves
    for j in check_node_ids(node_ids, len(tree.nodes)):
        if draft.nodes[j] is None:
            raise ConfigError(f"There is no node {j} in the tree (it may have been pruned already).")
        node = draft.node(j)
        if node.is_leaf:
            raise ConfigError(f"Node {j} is already a leaf; choose an internal node to prune below.")
        below = list(draft.walk(j))
        leaves -= sum(1 for n in below if n.is_leaf) - 1
        draft.cut(j)
        steps.append(PruneStep(len(steps), j, "replace by leaf",
                               (("nodes removed", float(len(below) - 1)), ("leaves after", float(leaves))),
                               f"Pruned by hand below node {j}; it now predicts '{node.prediction}'."))
    return PruneResult("manual", tree, draft.freeze(), tuple(steps))


def prune(tree: Tree, method: str, **kwargs) -> PruneResult:
    """Run the pruning method called ``method`` (a key of :data:`METHODS`) with its keyword arguments.

    reduced_error: ``validation``; cost_complexity: ``alpha``; pessimistic: ``cf``, ``subtree_raising``,
    ``collapse``, ``train``; bottom_up: ``evaluation``, ``train``, ``validation``, ``delta``, ``cf``;
    manual: ``node_ids``.
    """
    check_choice("method", method, tuple(METHODS))
    if method == "reduced_error":
        return prune_reduced_error(tree, **kwargs)
    if method == "manual":
        return prune_manual(tree, **kwargs)
    if method == "cost_complexity":
        from .pruning_ccp import prune_ccp
        return prune_ccp(tree, **kwargs)
    if method == "pessimistic":
        from .pruning_c45 import prune_pessimistic
        return prune_pessimistic(tree, **kwargs)
    from .pruning_bottomup import prune_bottom_up
    return prune_bottom_up(tree, **kwargs)
