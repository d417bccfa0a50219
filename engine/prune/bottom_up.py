"""Generic bottom-up pruning with an evaluation function f(T, m) (Shalev-Shwartz & Ben-David, sec. 18.2.2).

    for each internal node j, in a bottom-up walk (every node after its descendants):
        T := the tree among these that minimises f(T', m):
             T' = T with j replaced by a leaf predicting class k   (for every class k; two classes:
                                                                   "a leaf of either class")
             T' = T with j replaced by its left subtree / right subtree (each child for multiway splits)
             T' = T                                                 (keep)

Ties go to the smaller tree (then: the majority-class leaf, other leaves, children, keep). A raised
subtree moves up unchanged (its leaves keep their labels); its statistics are recomputed from the
training rows when those are given. For regression there is one leaf option (the mean) and only the
validation f applies. Choices of f (m = number of rows f is computed on):

- ``"validation"``: error rate (regression: mean squared error) on the validation rows;
- ``"mdl"``: the MDL bound L_S(T) + sqrt((|T| + ln(2/delta)) / (2m)), L_S the training error,
  |T| = 5n + 1 + (n-1) ceil(log2 d') bits for n nodes choosing among d' tests (m + 1 per real-valued
  feature: :func:`engine.prune.mdl.tree_tests`, :func:`engine.prune.mdl.mdl_error_bound`);
- ``"pessimistic"``: C4.5's estimated errors summed over the leaves, over m
  (:func:`engine.prune.pessimistic.estimated_errors`, leaves' N and E from the training rows reaching them).

Only the rows reaching j change prediction, so each option is scored on j's rows (see
:class:`engine.prune.scoring.RowScorer`) and the rest of f is carried along.
"""

from __future__ import annotations

import numpy as np

from engine.errors import ConfigError
from engine.prune.records import PruneResult, PruneStep, postorder_internal
from engine.prune.pessimistic import _check_cf, _estimate
from engine.prune.checks import check_choice, check_number
from engine.prune.scoring import RowScorer
from engine.prune.mdl import mdl_error_bound, tree_tests
from engine.tree.store import Tree
from engine.tree.surgery import Draft, as_xy, leaf_predicting, node_rows, refit_changes

__all__ = ["EVALUATIONS", "prune_bottom_up"]

#: Evaluation functions f(T, m) by name, with a description for people.
EVALUATIONS = {
    "validation": "validation error (classification) or mean squared error (regression)",
    "mdl": "MDL bound  L_S(T) + sqrt((|T| + ln(2/δ)) / (2m))",
    "pessimistic": "C4.5 pessimistic estimate: sum of N·U_CF(E, N) over the leaves, / m",
}


class _F:
    """f(T, m) of the current tree, and of the tree with one node's rows re-scored by an option."""

    def __init__(self, tree: Tree, evaluation: str, train, validation, delta: float, cf: float, sample_weight):
        self.kind, self.delta, self.cf = evaluation, delta, cf
        rows = validation if evaluation == "validation" else train
        X, y = as_xy(tree, rows)
        if y.size == 0:
            raise ConfigError(f"The {evaluation} evaluation has no rows to work on.")
        self.d = tree_tests(tree, int(y.size))       # d': m + 1 tests per real-valued feature
        weights = None if evaluation == "validation" else sample_weight
        estimate = (lambda n, e: _estimate(n, e, cf)) if evaluation == "pessimistic" else None
        self.scorer = RowScorer(tree, X, y, weights, estimate=estimate)
        self.m = int(y.size)
        self.total_weight = float(self.scorer.sw.sum())
        self.n_nodes = tree.n_nodes
        self.est_total = sum(self.scorer.option_for(tree, n.id).est for n in tree.leaves) if estimate else 0.0

    def value(self, idx=None, w=None, keep=None, option=None) -> float:
        """f of the current tree, or (with arguments) of the tree after swapping ``keep`` for ``option``."""
        swap = option is not None
        if self.kind == "pessimistic":
            return (self.est_total - keep.est + option.est if swap else self.est_total) / self.total_weight
        loss = self.scorer.loss_after(idx, w, keep, option) if swap else self.scorer.total_loss
        if self.kind == "validation":
            return loss / self.total_weight
        n_nodes = self.n_nodes - keep.n_nodes + option.n_nodes if swap else self.n_nodes
        return mdl_error_bound(min(max(loss / self.total_weight, 0.0), 1.0), n_nodes, self.d, self.m, self.delta).bound

    def commit(self, j: int, keep, option, moved_leaf=None) -> None:
        self.est_total += option.est - keep.est
        self.n_nodes += option.n_nodes - keep.n_nodes
        self.scorer.commit(j, keep, option, moved_leaf=moved_leaf)


def _ancestors(tree, j: int):
    node = tree.nodes[j]
    while node.parent is not None:
        yield node.parent
        node = tree.nodes[node.parent]


def _child_name(node, c: int) -> str:
    if node.split.n_children == 2:
        return ("left", "right")[c] + " subtree"
    return f"child {c} subtree"


def prune_bottom_up(tree: Tree, *, evaluation: str = "validation", train=None, validation=None,
                    delta: float = 0.05, cf: float = 0.25, sample_weight=None) -> PruneResult:
    """Bottom-up pruning of ``tree`` with ``evaluation`` f (see module docstring); logs every option's f.

    ``train``/``validation``: Dataset or (X, y). "validation" needs validation rows; "mdl" and
    "pessimistic" need the training rows and a classification tree.
    """
    check_choice("evaluation", evaluation, tuple(EVALUATIONS))
    if evaluation == "validation" and validation is None:
        raise ConfigError("The validation evaluation needs validation rows: set a validation share on the Data page.")
    if evaluation != "validation":
        if tree.task != "classification":
            raise ConfigError(f"The {evaluation} evaluation counts misclassified rows, so it needs a classification tree.")
        if train is None:
            raise ConfigError(f"The {evaluation} evaluation is computed on the training rows: give them.")
    delta = check_number("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True,
                         what="a number between 0 and 1 (exclusive)")
    cf = _check_cf(cf)
    f = _F(tree, evaluation, train, validation, delta, cf, sample_weight)
    classes = tree.schema.classes
    before, draft, steps, raised = f.value(), Draft(tree), [], set()
    for j in postorder_internal(tree):
        node = draft.node(j)
        idx, w = f.scorer.rows(j)
        keep = f.scorer.keep(draft, j)
        options = []  # (label, option, what to do: class index | None (mean) | ("child", c) | "keep")
        if classes:
            majority = int(np.argmax(node.value))
            for k in [majority] + [k for k in range(len(classes)) if k != majority]:
                value = node.value if k == majority else np.eye(len(classes))[k]
                options.append((f"leaf {classes[k]}", f.scorer.leaf(j, value, idx, w), k))
        else:
            options.append(("leaf (mean)", f.scorer.leaf(j, node.value, idx, w), None))
        for c in range(len(node.children)):
            options.append((_child_name(node, c), f.scorer.raised(draft, j, c), ("child", c)))
        options.append(("keep", keep, "keep"))
        scores = [f.value(idx, w, keep, opt) for _, opt, _ in options]
        best_f = min(scores)
        near = [i for i, s in enumerate(scores) if s <= best_f + 1e-12 * (1.0 + abs(best_f))]
        pick = min(near, key=lambda i: (options[i][1].n_nodes, i))
        label, option, how = options[pick]
        moved = None
        if isinstance(how, tuple):
            child = draft.node(node.children[how[1]])
            moved = child.id if child.is_leaf else None
            draft.raise_child(j, how[1])
            raised.add(j)
        elif how is None or (how != "keep" and how == int(np.argmax(node.value))):
            draft.cut(j)
        elif how != "keep":
            draft.cut(j)
            draft.set(leaf_predicting(node, classes[how], classes))
        f.commit(j, keep, option, moved)
        numbers = tuple((f"f {lab}", s) for (lab, _, _), s in zip(options, scores)) + (
            ("f after", f.value()), ("nodes after", float(f.n_nodes)))
        if how == "keep":
            action = "keep"
        else:
            action = f"replace by {label}" + (" (majority)" if classes and how == int(np.argmax(node.value)) else "")
        steps.append(PruneStep(len(steps), j, action, numbers,
                               f"Best of {len(options)} options: {label} with f = {scores[pick]:.4f}."))
    current = draft.freeze()
    if raised and train is not None:  # the raised subtrees' numbers follow the training rows now reaching them
        X, y = as_xy(tree, train)
        w = np.ones(y.size) if sample_weight is None else np.asarray(sample_weight, dtype=float)
        routes = node_rows(current, X, idx=np.flatnonzero(w > 0), weights=w[w > 0])
        alive = {j for j in raised if current.nodes[j] is not None}
        tops = [j for j in alive if all(a not in alive for a in _ancestors(current, j))]
        draft = Draft(current)
        for j in tops:
            draft.update(refit_changes(current, X, y, w, start=j, entering=routes[j], keep_predictions=True))
        current = draft.freeze()
    return PruneResult("bottom_up", tree, current, tuple(steps),
                       (("evaluation", evaluation), ("delta", float(delta)), ("CF", cf), ("m", f.m)),
                       (("f before", before), ("f after", f.value())))
