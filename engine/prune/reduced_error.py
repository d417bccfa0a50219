"""Reduced-error pruning (Quinlan 1987) on validation rows, and pruning by hand.

Both return a :class:`~engine.prune.records.PruneResult` with one :class:`~engine.prune.records.PruneStep`
per decision; the tree they are given is never changed.
"""

from __future__ import annotations

from engine.errors import ConfigError
from engine.prune.checks import check_node_ids
from engine.prune.records import PruneResult, PruneStep, loss_name, postorder_internal, score_of
from engine.prune.scoring import RowScorer
from engine.tree.store import Tree
from engine.tree.surgery import Draft, as_xy

__all__ = ["prune_reduced_error", "prune_manual"]


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
    before = score_of(tree, scorer.total_loss, y.size)
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
                   (f"{name} as leaf", loss_leaf), (f"validation {what} after", score_of(tree, scorer.total_loss, y.size)))
        note = (f"The leaf '{node.prediction}' makes {'no more' if prune else 'more'} validation {name} "
                f"than the subtree, so the subtree is {'cut' if prune else 'kept'}.")
        steps.append(PruneStep(len(steps), j, "replace by leaf" if prune else "keep", numbers, note))
    current = draft.freeze()
    after = score_of(tree, scorer.total_loss, y.size)
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
