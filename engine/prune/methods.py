"""Every pruning method by name: :data:`METHODS` for the page's picker, :func:`prune` to run one."""

from __future__ import annotations

from engine.prune.bottom_up import prune_bottom_up
from engine.prune.checks import check_choice
from engine.prune.cost_complexity import prune_ccp
from engine.prune.pessimistic import prune_pessimistic
from engine.prune.records import PruneResult
from engine.prune.reduced_error import prune_manual, prune_reduced_error
from engine.tree.store import Tree

__all__ = ["METHODS", "prune"]

#: Pruning methods by name, with a one-line description (the page's method picker uses these).
METHODS = {
    "reduced_error": "Reduced-error pruning on the validation rows",
    "cost_complexity": "Cost-complexity (weakest-link) pruning",
    "pessimistic": "C4.5 pessimistic error pruning",
    "bottom_up": "Bottom-up pruning with an evaluation function f(T, m)",
    "manual": "Prune by hand",
}



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
        return prune_ccp(tree, **kwargs)
    if method == "pessimistic":
        return prune_pessimistic(tree, **kwargs)
    return prune_bottom_up(tree, **kwargs)
