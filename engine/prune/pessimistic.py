"""C4.5's pessimistic error pruning (Quinlan 1993, ch. 4), as Weka's J48 does it, with subtree raising.

A leaf covering N training rows (weights) of which E are misclassified is treated as a sample of a
binomial: its error rate is estimated by the upper limit U_CF(E, N) of a confidence interval at
confidence factor CF (default 0.25), and its *estimated errors* are N * U_CF(E, N) = E + addErrs(N, E).
J48's ``Stats.addErrs`` (implemented by :func:`added_errors`):

- E = 0: the exact binomial limit, N * U = N * (1 - CF^(1/N))  (so U_0.25(0, 6) = 0.206, 1.24 errors);
- 0 < E < 1: linear interpolation between E = 0 and E = 1;
- E + 0.5 >= N: N - E (the estimate is all N rows);
- otherwise Wilson's score interval with continuity correction, z = Phi^{-1}(1 - CF), f = (E + 0.5) / N:

      U = (f + z^2/(2N) + z sqrt(f/N - f^2/N + z^2/(4N^2))) / (1 + z^2/N),   addErrs = N U - E.

Pruning visits each internal node after its children. With "leaf" = the node as a majority leaf,
"subtree" = the sum of the estimated errors of its leaves, "branch" = the estimated errors of its
largest child's subtree when ALL the node's training rows are sent through it (subtree raising; leaves
relabelled with their new majority):

    if leaf <= subtree + 0.1 and leaf <= branch + 0.1:  replace the node by a leaf
    elif branch <= subtree + 0.1:                       raise the largest child's subtree (re-route
                                                        the rows, refit, and prune that subtree again)
    else:                                               keep.

Before that, J48 "collapses" top-down every subtree that does not reduce the training errors
(E_subtree >= E_leaf - 0.001).
"""

from __future__ import annotations

import math
from functools import lru_cache
from statistics import NormalDist

import numpy as np
import pandas as pd

from engine.errors import ConfigError
from engine.prune.records import PruneResult, PruneStep
from engine.prune.checks import check_flag, check_number
from engine.prune.raising import Routes, decide_by_depth
from engine.tree.store import Tree
from engine.tree.surgery import Draft, as_xy, node_rows, refit_changes

__all__ = ["added_errors", "upper_error_rate", "estimated_errors", "c45_node_table", "prune_pessimistic"]

SMALL = 1e-6     # Weka's Utils.SMALL
TOLERANCE = 0.1  # J48/C4.5 compare estimated errors with a slack of 0.1 errors


def _check_cf(cf) -> float:
    return check_number("The confidence factor CF", cf, low=0.001, high=0.5, what="a number from 0.001 to 0.5")


@lru_cache(maxsize=64)
def _z(cf: float) -> float:
    """Phi^{-1}(1 - CF): the one-sided normal quantile of the confidence factor."""
    return NormalDist().inv_cdf(1.0 - cf)


def _added(n: float, e: float, cf: float) -> float:
    """J48's ``addErrs(N, e, CF)`` for checked numbers (see module docstring)."""
    if n <= 0:
        return 0.0
    if e < 1.0:
        base = n * (1.0 - cf ** (1.0 / n))
        if e == 0.0:
            return base
        return base + e * (_added(n, 1.0, cf) - base)
    if e + 0.5 >= n:
        return max(n - e, 0.0)
    z = _z(cf)
    f = (e + 0.5) / n
    r = (f + z * z / (2 * n) + z * math.sqrt(f / n - f * f / n + z * z / (4 * n * n))) / (1 + z * z / n)
    return r * n - e


def _estimate(n: float, e: float, cf: float) -> float:
    return 0.0 if n <= 0 else e + _added(n, e, cf)


def _rate(n: float, e: float, cf: float) -> float:
    return _estimate(n, e, cf) / n if n > 0 else float("nan")


def _check_counts(n, e) -> tuple[float, float]:
    n = check_number("n (rows at the leaf)", n, low=0.0, high=1e15, what="a number of rows from 0 to 1e15")
    e = check_number("e (errors at the leaf)", e, low=0.0, high=1e15, what="a number of errors from 0 to 1e15")
    return n, e


def added_errors(n: float, e: float, cf: float = 0.25) -> float:
    """J48's ``addErrs(N, e, CF)``: the errors to add to ``e`` observed errors among ``n`` rows (see module)."""
    cf = _check_cf(cf)
    return _added(*_check_counts(n, e), cf)


def estimated_errors(n: float, e: float, cf: float = 0.25) -> float:
    """N * U_CF(E, N) = E + addErrs(N, E, CF); 0 for an empty node."""
    cf = _check_cf(cf)
    return _estimate(*_check_counts(n, e), cf)


def upper_error_rate(n: float, e: float, cf: float = 0.25) -> float:
    """U_CF(E, N): the pessimistic (upper confidence limit) error rate; NaN for an empty node."""
    n, e = _check_counts(n, e)
    return float("nan") if n <= 0 else estimated_errors(n, e, cf) / n


def _leaf_errors(node) -> tuple[float, float]:
    """(N, E) of a node as a leaf predicting its value's class, from its training class counts."""
    stats = node.stats
    n = float(np.sum(stats)) if len(stats) >= 8 else float(sum(stats))
    value = node.value
    return n, n - float(stats[value.index(max(value))])


def _subtree_sums(tree, cf: float, start: int = 0) -> dict[int, tuple[float, float]]:
    """{node id: (training errors, estimated errors) summed over its subtree's leaves}, in one pass."""
    sums: dict[int, tuple[float, float]] = {}
    for node in reversed(list(tree.walk(start))):  # children before parents
        if node.is_leaf:
            n, e = _leaf_errors(node)
            sums[node.id] = (e, _estimate(n, e, cf))
        else:
            parts = [sums[c] for c in node.children]
            sums[node.id] = (sum(p[0] for p in parts), sum(p[1] for p in parts))
    return sums


def c45_node_table(tree: Tree, cf: float = 0.25) -> pd.DataFrame:
    """Per node of ``tree``: node, depth, test, N, E (training errors as a leaf), U = U_CF(E, N),
    leaf_estimate = N U, subtree_estimate (sum over the subtree's leaves; = leaf_estimate at a leaf)."""
    cf = _check_cf(cf)
    if tree.task != "classification":
        raise ConfigError("Pessimistic error pruning counts misclassified rows, so it needs a classification tree.")
    sums = _subtree_sums(tree, cf)
    rows = []
    for node in tree.walk():
        n, e = _leaf_errors(node)
        rows.append({"node": node.id, "depth": node.depth,
                     "test": node.split.describe() if node.split else f"leaf: {node.prediction}",
                     "N": n, "E": e, "U": _rate(n, e, cf), "leaf_estimate": _estimate(n, e, cf),
                     "subtree_estimate": sums[node.id][1]})
    return pd.DataFrame(rows)


def _branch_estimate(draft, node_id: int, child_index: int, X, y, rows, sums, cf: float) -> float:
    """Estimated errors of the child's subtree when ALL the node's rows go through it (J48's
    ``getEstimatedErrorsForBranch``): each leaf is judged on the class counts of the rows it then receives.
    A row with a missing value goes whole into the child and, at each test below, down every branch in
    proportion to the known weight of the rows sent through (uniformly when none is known), as J48's
    ``resetDistribution`` does."""
    node = draft.nodes[node_id]
    idx, w = rows.get(node_id, (np.zeros(0, dtype=np.int64), np.zeros(0)))
    k = len(draft.schema.classes)
    total = 0.0
    stack = [(node.children[child_index], idx, w)]
    while stack:
        nid, r, rw = stack.pop()
        cur = draft.nodes[nid]
        if cur.is_leaf:
            counts = np.bincount(y[r], weights=rw, minlength=k)
            n = float(counts.sum())
            total += _estimate(n, n - float(counts.max(initial=0.0)), cf)
            continue
        route = cur.split.route(X[r, cur.split.feature_index])
        m = len(cur.children)
        known = np.bincount(route[route >= 0], weights=rw[route >= 0], minlength=m)
        share = known / known.sum() if known.sum() > 1e-6 else np.full(m, 1.0 / m)
        miss = route < 0
        for c, child in enumerate(cur.children):
            sel = (route == c) | (miss & (share[c] > 1e-6))
            cw = np.where(miss[sel], rw[sel] * share[c], rw[sel])
            stack.append((child, r[sel], cw))
    return total


def _sm_or_eq(a: float, b: float) -> bool:
    """Weka's ``Utils.smOrEq``: a <= b with a slack of 1e-6."""
    return a - b < SMALL


def _max_bag(weights) -> int:
    """J48's largest branch (``Distribution.maxBag``): scanning left to right, a branch at least as heavy as
    the heaviest so far (within 1e-6) takes over, so of equally heavy branches the last one wins."""
    best, keep = 0.0, 0
    for i, w in enumerate(weights):
        if w - best > -SMALL:
            best, keep = w, i
    return keep


def _collapse(draft, steps: list, sums) -> None:
    """J48's collapse(): top-down, cut subtrees whose training errors are not below the node's own."""
    stack = [0]
    while stack:
        node = draft.nodes[stack.pop()]
        if node.is_leaf:
            continue
        e_sub, e_leaf = sums[node.id][0], _leaf_errors(node)[1]
        if e_sub >= e_leaf - 1e-3:
            draft.cut(node.id)
            steps.append(PruneStep(len(steps), node.id, "collapse", (("E subtree", e_sub), ("E leaf", e_leaf)),
                                   "The subtree makes no fewer training errors than the node alone."))
        else:
            stack.extend(node.children)


class _Pruning:
    """What one run of :func:`prune_pessimistic` works on: the draft, its sums and rows, the steps."""

    def __init__(self, draft, cf, sums, steps, X, y, rows, raising):
        self.draft, self.cf, self.sums, self.steps = draft, cf, sums, steps
        self.X, self.y, self.rows, self.raising = X, y, rows, raising

    def visit(self, nid: int, branch: float, largest) -> bool:
        """J48's decision at an internal node whose children are pruned; True when it raised a child
        (the raised subtree must then be pruned again)."""
        draft, cf, sums = self.draft, self.cf, self.sums
        node = draft.nodes[nid]
        n, e = _leaf_errors(node)
        leaf = _estimate(n, e, cf)
        subtree = sum(sums[c][1] for c in node.children)
        numbers = [("N", n), ("E", e), ("U", _rate(n, e, cf)), ("leaf estimate", leaf),
                   ("subtree estimate", subtree)]
        if self.raising:
            numbers.append(("largest branch estimate", branch))
        raised = False
        if _sm_or_eq(leaf, subtree + TOLERANCE) and _sm_or_eq(leaf, branch + TOLERANCE):
            draft.cut(nid)
            sums[nid] = (e, leaf)
            action, note = "replace by leaf", f"As a leaf: {leaf:.3f} estimated errors <= {subtree:.3f} (subtree) + 0.1."
        elif _sm_or_eq(branch, subtree + TOLERANCE):
            X, y, rows = self.X, self.y, self.rows
            child = node.children[largest]
            draft.raise_child(nid, largest)
            draft.update(refit_changes(draft, X, y, start=nid, entering=rows[nid]))
            rows.update(node_rows(draft, X, start=nid, idx=rows[nid][0], weights=rows[nid][1]))
            sums.update(_subtree_sums(draft, cf, start=nid))
            raised = True
            action = f"raise child {largest} (node {child})"
            note = (f"Raising the largest branch: {branch:.3f} estimated errors <= {subtree:.3f} (subtree) + 0.1; "
                    f"the raised subtree is pruned again.")
        else:
            sums[nid] = (sum(sums[c][0] for c in node.children), subtree)
            action, note = "keep", f"The subtree's {subtree:.3f} estimated errors beat the leaf's {leaf:.3f}."
        self.steps.append(PruneStep(len(self.steps), nid, action, tuple(numbers), note))
        return raised

    def largest(self, nid: int):
        node = self.draft.nodes[nid]
        return _max_bag([self.draft.nodes[c].weight for c in node.children]) if self.raising else None

    def node_by_node(self, start: int = 0) -> None:
        """Post-order from ``start``: each node's branch estimate by routing its rows (any data)."""
        draft = self.draft
        stack = [(start, "enter")]
        while stack:
            nid, phase = stack.pop()
            node = draft.nodes[nid]
            if node is None or node.is_leaf:
                continue
            if phase == "enter":
                stack.append((nid, "decide"))
                stack.extend((c, "enter") for c in reversed(node.children))
                continue
            largest = self.largest(nid)
            branch = math.inf if largest is None else _branch_estimate(
                draft, nid, largest, self.X, self.y, self.rows, self.sums, self.cf)
            if self.visit(nid, branch, largest):
                stack.append((nid, "enter"))


def prune_pessimistic(tree: Tree, *, cf: float = 0.25, subtree_raising: bool = False, collapse: bool = True,
                      train=None, sample_weight=None) -> PruneResult:
    """C4.5 / J48 pessimistic error pruning (see module docstring) of a classification tree.

    Without subtree raising only the nodes' training class counts are needed. ``subtree_raising=True``
    re-routes training rows, so ``train`` (the Dataset or (X, y) the tree was grown on, with
    ``sample_weight`` if it was weighted) is required. The result's ``node_table`` is
    :func:`c45_node_table` of the original tree with each node's decision.
    """
    cf = _check_cf(cf)
    subtree_raising, collapse = check_flag("subtree_raising", subtree_raising), check_flag("collapse", collapse)
    if tree.task != "classification":
        raise ConfigError("Pessimistic error pruning counts misclassified rows, so it needs a classification tree.")
    table = c45_node_table(tree, cf)
    X = y = rows = None
    if subtree_raising:
        if train is None:
            raise ConfigError("Subtree raising sends the training rows through the raised subtree: give the training rows.")
        X, y = as_xy(tree, train)
        w = np.ones(y.size) if sample_weight is None else np.asarray(sample_weight, dtype=float)
        rows = node_rows(tree, X, idx=np.flatnonzero(w > 0), weights=w[w > 0])
    steps: list[PruneStep] = []
    draft = Draft(tree)
    if collapse:
        _collapse(draft, steps, _subtree_sums(tree, cf))
    sums = _subtree_sums(draft, cf)  # (E, estimate) of every current subtree, kept up to date below
    run = _Pruning(draft, cf, sums, steps, X, y, rows, subtree_raising)
    if subtree_raising and Routes.usable(draft):
        decide_by_depth(run, _z(cf))
    else:
        run.node_by_node()
    decision: dict[int, str] = {}
    for s in steps:
        decision[s.node_id] = f"{decision[s.node_id]}, then {s.action}" if s.node_id in decision else s.action
    table["decision"] = [decision.get(i, "") for i in table["node"]]
    return PruneResult("pessimistic", tree, draft.freeze(), tuple(steps),
                       (("CF", cf), ("subtree raising", bool(subtree_raising)), ("collapse", bool(collapse))),
                       (("estimated errors before", float(table["subtree_estimate"].iloc[0])),
                        ("estimated errors after", sums[0][1])),
                       node_table=table)
