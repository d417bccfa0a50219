"""Cost-complexity (weakest-link) pruning (Breiman et al. 1984, CART ch. 3; scikit-learn's ``ccp_alpha``).

The cost-complexity of a tree T for a complexity parameter alpha >= 0 is

    R_alpha(T) = R(T) + alpha |leaves(T)|,     R(T) = sum over leaves t of (w_t / W) * impurity(t)

(w_t = weighted rows at t, W at the root; impurity in the tree's criterion, as scikit-learn). Cutting
the subtree T_t of an internal node t to a leaf pays off once alpha reaches

    g(t) = (R(t) - R(T_t)) / (|leaves(T_t)| - 1),    R(t) = (w_t / W) * impurity(t).

Weakest-link pruning repeatedly cuts the node with the smallest g(t) (the first in pre-order on ties,
one node per step as scikit-learn's ``cost_complexity_pruning_path``) until only the root is left; the
g values are the path's alphas. ``prune_ccp(tree, alpha)`` cuts along the path while g <= alpha.
Cross-validation follows Breiman: grow a tree on each fold's training part, prune it at the geometric
midpoint sqrt(alpha_k alpha_{k+1}) of each interval of the main path, score the held-out rows, and pick
the smallest tree within one standard error of the best (the 1-SE rule).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np
import pandas as pd

from engine.errors import ConfigError
from engine.budget import check_trees, classes_text, reserving
from engine.grow.parallel import check_n_jobs, concurrency, run_tasks
from engine.data.folds import kfold_indices  # the Evaluate page's folds: same partition for the same seed
from engine.prune.records import PruneResult, PruneStep
from engine.prune.checks import check_int, check_number, shown
from engine.prune.scoring import Option, RowScorer
from engine.tree.store import Tree
from engine.tree.surgery import Draft, as_xy

__all__ = ["CCPPath", "ccp_path", "prune_ccp", "CCPCrossValidation", "ccp_cross_validate"]


def _weakest_links(tree: Tree):
    """The whole weakest-link sequence: (pruned node id, g, R(T) after, leaves after, nodes after) per step,
    and R(T_0).

    Vectorised over nodes in pre-order (a subtree is the contiguous block [p, p + size)); ancestors are
    updated by walking up the parent chain.
    """
    order = [n.id for n in tree.walk()]
    pos = {nid: p for p, nid in enumerate(order)}
    nodes = [tree.nodes[i] for i in order]
    total = nodes[0].weight
    r_node = np.array([n.weight * n.impurity / total for n in nodes]) if total > 0 else np.zeros(len(nodes))
    parent = np.array([-1 if n.parent is None else pos[n.parent] for n in nodes])
    size = np.ones(len(nodes), dtype=np.int64)
    is_leaf = np.array([n.is_leaf for n in nodes])
    n_leaves = np.zeros(len(nodes), dtype=np.int64)
    r_branch = np.where(is_leaf, r_node, 0.0)
    for p in range(len(nodes) - 1, 0, -1):  # children come after parents in pre-order
        size[parent[p]] += size[p]
        n_leaves[parent[p]] += 1 if is_leaf[p] else n_leaves[p]
        r_branch[parent[p]] += r_branch[p]
    candidate = ~is_leaf
    n_below = size.copy()  # nodes of each subtree as it is now
    start = float(r_branch[0])
    steps = []
    while candidate[0]:
        with np.errstate(divide="ignore", invalid="ignore"):
            g = np.where(candidate, (r_node - r_branch) / np.maximum(n_leaves - 1, 1), np.inf)
        p = int(np.argmin(g))
        alpha = float(g[p])
        candidate[p:p + size[p]] = False
        removed, diff, gone = n_leaves[p] - 1, r_node[p] - r_branch[p], n_below[p] - 1
        n_leaves[p], r_branch[p], n_below[p] = 0, r_node[p], 1
        a = parent[p]
        while a >= 0:
            n_leaves[a] -= removed
            r_branch[a] += diff
            n_below[a] -= gone
            a = parent[a]
        steps.append((order[p], alpha, float(r_branch[0]), int(max(n_leaves[0], 1)), int(n_below[0])))
    return steps, start


@dataclass(frozen=True, repr=False)
class CCPPath:
    """The weakest-link path of ``original``: row 0 is the full tree (alpha 0), row i the tree after i cuts.

    ``table`` columns: step, alpha (g of the node cut at that step), pruned_node, n_leaves, n_nodes,
    impurity (R(T), total weighted leaf impurity), and when rows were given ``train_<metric>`` /
    ``validation_<metric>`` with metric "accuracy" (classification) or "mse" (regression).
    """

    original: Tree
    ccp_alphas: np.ndarray
    impurities: np.ndarray
    n_leaves: np.ndarray
    pruned_nodes: tuple[int, ...]
    metric: str
    table: pd.DataFrame = field(compare=False)

    @cached_property
    def trees(self) -> tuple[Tree, ...]:
        """The tree of every row of the path (ids stable; cut nodes' descendants are None)."""
        draft, out = Draft(self.original), [self.original]
        for nid in self.pruned_nodes[1:]:
            draft.cut(nid)
            out.append(draft.freeze())
        return tuple(out)

    def index_for(self, alpha: float) -> int:
        """Row of the tree ``prune_ccp(original, alpha)`` returns: the last row before the first alpha_i > alpha."""
        above = np.flatnonzero(self.ccp_alphas > alpha)
        return int(above[0] - 1) if above.size else len(self.ccp_alphas) - 1

    def tree_at(self, alpha: float) -> Tree:
        """The pruned tree for ``alpha`` (built from the original by the path's first cuts)."""
        draft = Draft(self.original)
        for nid in self.pruned_nodes[1:self.index_for(alpha) + 1]:
            draft.cut(nid)
        return draft.freeze()

    @property
    def distinct_alphas(self) -> np.ndarray:
        """The path's alphas without repeats (each gives one distinct pruned tree)."""
        return np.unique(self.ccp_alphas)

    def best_by_validation(self) -> int:
        """Row with the best validation score (accuracy up, MSE down); ties go to the smaller tree."""
        col = f"validation_{self.metric}"
        if col not in self.table:
            raise ConfigError("This path was computed without validation rows; give validation rows to choose alpha.")
        v = self.table[col].to_numpy(dtype=float)
        best = np.nanmax(v) if self.metric == "accuracy" else np.nanmin(v)
        return int(np.flatnonzero(np.isclose(v, best, rtol=0, atol=1e-12))[-1])

    def __repr__(self) -> str:
        return (f"CCPPath({len(self.ccp_alphas)} trees, alphas {self.ccp_alphas[0]:.3g}..{self.ccp_alphas[-1]:.3g}, "
                f"leaves {self.n_leaves[0]}..{self.n_leaves[-1]})")


def _cut_rows(scorer: RowScorer, draft: Draft, nid: int) -> None:
    """Score cutting ``nid`` (a node of ``draft``) to its leaf; the draft is then cut too.

    A row that reaches the node whole gets the leaf's value; only rows split by a missing value above
    need their share of the current subtree, which is routed node by node.
    """
    idx, w = scorer.rows(nid)
    node = draft.nodes[nid]
    leaf = scorer.leaf(nid, node.value, idx, w)
    partial = w < 1.0
    values = scorer.P[idx].copy()
    if partial.any():
        values[partial] = scorer.subtree(draft, nid, idx[partial], w[partial], 0).values
    scorer.apply(idx, w, Option(values, (), 0), leaf)
    draft.cut(nid)


def _path_scores(tree: Tree, pruned, X, y) -> np.ndarray:
    """Accuracy / MSE of each tree of the path on (X, y), updating only the rows of each cut node."""
    scorer, draft = RowScorer(tree, X, y), Draft(tree)
    out = [scorer.total_loss]
    for nid in pruned[1:]:
        _cut_rows(scorer, draft, nid)
        out.append(scorer.total_loss)
    loss = np.array(out) / max(y.size, 1)
    return 1.0 - loss if tree.task == "classification" else loss


def ccp_path(tree: Tree, *, train=None, validation=None) -> CCPPath:
    """The cost-complexity pruning path of ``tree`` (same alphas and impurities as scikit-learn's
    ``cost_complexity_pruning_path`` on the same tree), with train/validation scores per tree when
    ``train`` / ``validation`` rows are given (a Dataset or an (X, y) pair)."""
    steps, start = _weakest_links(tree)
    alphas = np.array([0.0] + [s[1] for s in steps])
    imps = np.array([start] + [s[2] for s in steps])
    leaves = np.array([tree.n_leaves] + [s[3] for s in steps], dtype=np.int64)
    pruned = (-1,) + tuple(s[0] for s in steps)
    metric = "accuracy" if tree.task == "classification" else "mse"
    path = CCPPath(tree, alphas, imps, leaves, pruned, metric, pd.DataFrame())
    table = pd.DataFrame({"step": np.arange(alphas.size), "alpha": alphas, "pruned_node": pruned,
                          "n_leaves": leaves, "n_nodes": [tree.n_nodes] + [s[4] for s in steps],
                          "impurity": imps})
    for name, rows in (("train", train), ("validation", validation)):
        if rows is not None:
            X, y = as_xy(tree, rows)
            if y.size:
                table[f"{name}_{metric}"] = _path_scores(tree, pruned, X, y)
    object.__setattr__(path, "table", table)
    return path


def prune_ccp(tree: Tree, alpha: float) -> PruneResult:
    """The subtree of ``tree`` for complexity ``alpha``: cut weakest links while g(t) <= alpha.

    This is scikit-learn's ``ccp_alpha``: the largest subtree on the path whose cut alphas are all <= alpha.
    The log has one step per cut node with g(t), R(t), R(T_t) and the leaves removed.
    """
    alpha = check_number("alpha", alpha, low=0.0, what="a number >= 0")
    steps, _ = _weakest_links(tree)
    draft, log, total = Draft(tree), [], tree.root.weight
    for nid, g, impurity_after, leaves_after, _ in steps:
        if g > alpha:
            break
        node = draft.node(nid)
        sub_leaves = [n for n in draft.walk(nid) if n.is_leaf]
        r_t = node.weight * node.impurity / total if total > 0 else 0.0
        r_branch = sum(n.weight * n.impurity for n in sub_leaves) / total if total > 0 else 0.0
        draft.cut(nid)
        log.append(PruneStep(len(log), nid, "replace by leaf", (
            ("g(t)", g), ("R(t)", r_t), ("R(T_t)", r_branch), ("leaves removed", float(len(sub_leaves) - 1)),
            ("R(T) after", impurity_after), ("leaves after", float(leaves_after))),
            f"g({nid}) = ({r_t:.4g} - {r_branch:.4g}) / ({len(sub_leaves)} - 1) = {g:.4g} <= alpha = {alpha:.4g}."))
    current = draft.freeze()
    start = sum(n.weight * n.impurity for n in tree.leaves) / total if total > 0 else 0.0
    r_after = sum(n.weight * n.impurity for n in current.leaves) / total if total > 0 else 0.0
    return PruneResult("cost_complexity", tree, current, tuple(log), (("alpha", float(alpha)),),
                       (("R(T) after", r_after), ("R_alpha(T) before", start + float(alpha) * tree.n_leaves),
                        ("R_alpha(T) after", r_after + float(alpha) * current.n_leaves)))


# ------------------------------------------------------------------------------- cross-validation
@dataclass(frozen=True, repr=False)
class CCPCrossValidation:
    """k-fold cross-validation of the main path's subtrees (Breiman's method, see module docstring).

    ``table``: one row per distinct alpha of the main path: alpha, midpoint (sqrt(alpha_k alpha_{k+1}),
    inf for the last), n_leaves, cv_error (error rate or MSE over all held-out rows), se (Breiman:
    std of the per-row losses / sqrt(N)), and fold_1..fold_k (each fold's error). ``best_index``:
    smallest cv_error (ties: smaller tree); ``one_se_index``: smallest tree with cv_error <=
    cv_error[best] + se[best].
    """

    path: CCPPath
    k: int
    seed: int
    table: pd.DataFrame = field(compare=False)
    best_index: int = 0
    one_se_index: int = 0

    @property
    def alpha_min(self) -> float:
        return float(self.table["alpha"].iloc[self.best_index])

    @property
    def alpha_1se(self) -> float:
        return float(self.table["alpha"].iloc[self.one_se_index])

    def __repr__(self) -> str:
        return (f"CCPCrossValidation(k={self.k}, alpha_min={self.alpha_min:.4g}, alpha_1se={self.alpha_1se:.4g}, "
                f"{len(self.table)} subtrees)")


@reserving
def ccp_cross_validate(dataset, config=None, *, k: int = 5, seed: int = 0, tree: Tree | None = None,
                       n_jobs: int | None = None, progress=None, should_stop=None) -> CCPCrossValidation:
    """Choose alpha by ``k``-fold cross-validation on ``dataset`` (the training rows) with the 1-SE rule.

    ``tree``: the main tree (default: ``fit_tree(dataset, config)``). Each fold's tree is grown with the
    same ``config`` on the other folds (validation-based stopping is switched off: folds have no
    validation rows) and pruned at each midpoint; its held-out rows give per-row losses. ``n_jobs``
    folds at once (None: all cores; :func:`engine.grow.parallel.run_tasks`), the same result for any value.
    """
    from engine.config import TreeConfig
    from engine.grow.grower import fit_tree

    if config is not None and not isinstance(config, TreeConfig):
        raise ConfigError(f"config must be a TreeConfig; got {shown(config)}.")
    config = config or TreeConfig()
    k = check_int("k (the number of folds)", k, low=2, high=max(len(dataset), 2),
                  what=f"a whole number from 2 to the number of rows ({len(dataset)})")
    seed = check_int("seed", seed, low=0, what="a whole number 0 or larger")
    grow_config = replace(config, validation=False) if config.validation else config
    n = len(dataset)
    busy = concurrency(n_jobs, k, n * (k - 1))
    # the whole tree is kept while the folds' trees grow, with its node objects (ccp_path reads them; measured:
    # 548 MB for 1,000 classes on 3,750 rows, when one kept tree was counted: estimated 481 MB)
    check_trees(dataset, grow_config, what=f"Cross-validating the pruning with {k} folds of {n:,} rows"
                       f"{classes_text(dataset)}", n_trees=k + (tree is None), kept_trees=1 + busy, shown=1,
                       n_rows=n - n // k, at_once=busy)
    tree = tree if tree is not None else fit_tree(dataset, grow_config)
    path = ccp_path(tree)
    alphas = path.distinct_alphas
    mids = np.append(np.sqrt(alphas[:-1] * alphas[1:]), np.inf)
    n = len(dataset)
    X, y = as_xy(tree, dataset)
    folds = kfold_indices(n, k, seed=seed, y=y if tree.task == "classification" else None)
    losses = np.zeros((alphas.size, n))
    fold_err = np.zeros((alphas.size, k))
    tasks = [(dataset, np.setdiff1d(np.arange(n), held), X[held], y[held], grow_config, mids) for held in folds]
    fits = run_tasks(_fold_losses, tasks, n_jobs=check_n_jobs(n_jobs), progress=progress,
                     should_stop=should_stop, rows=n * (k - 1), shared=(dataset,))
    for f, (held, row_losses) in enumerate(zip(folds, fits)):
        losses[:, held] = row_losses
        fold_err[:, f] = row_losses.mean(axis=1)
    cv = losses.mean(axis=1)
    se = losses.std(axis=1) / math.sqrt(n)
    best = int(np.flatnonzero(cv <= cv.min() + 1e-12)[-1])
    one_se = int(np.flatnonzero(cv <= cv[best] + se[best] + 1e-12)[-1])
    table = pd.DataFrame({"alpha": alphas, "midpoint": mids,
                          "n_leaves": [int(path.n_leaves[path.index_for(a)]) for a in alphas],
                          "cv_error": cv, "se": se})
    for f in range(k):
        table[f"fold_{f + 1}"] = fold_err[:, f]
    return CCPCrossValidation(path, int(k), int(seed), table, best, one_se)


def _fold_losses(dataset, train_idx, X_held, y_held, grow_config, mids) -> np.ndarray:
    """One fold of :func:`ccp_cross_validate`: (len(mids), held rows) losses of the fold's tree pruned
    at each midpoint (0/1 error or squared error)."""
    from engine.grow.grower import fit_tree

    fold_tree = fit_tree(dataset.subset(train_idx), grow_config)
    steps, _ = _weakest_links(fold_tree)
    scorer, draft, s = RowScorer(fold_tree, X_held, y_held), Draft(fold_tree), 0
    out = np.empty((mids.size, y_held.size))
    for i, mid in enumerate(mids):
        while s < len(steps) and steps[s][1] <= mid:
            _cut_rows(scorer, draft, steps[s][0])
            s += 1
        if fold_tree.task == "classification":
            out[i] = np.argmax(scorer.P, axis=1) != y_held
        else:
            out[i] = (scorer.P[:, 0] - y_held) ** 2
    return out
