"""Curves: scores while a tree grows (overfitting curve) and as the training set grows (learning curve).

**Overfitting curve without regrowing.** Growing is deterministic, and a node's own statistics do not
change when it is split later, so the tree after ``s`` steps is the final tree with every node that was
split at step ``>= s`` turned back into a leaf. Each evaluation row is routed through the final tree
once (:func:`node_memberships`: the rows, with C4.5 weights for missing values, reaching every node).
Keeping each row's current prediction

    P(row) = sum over the current leaves v of w(row, v) * value(v)

a split of node v at step s changes only the rows reaching v:

    P(row) <- P(row) - w(row, v) value(v) + sum_children w(row, c) value(c)

so the whole curve costs O(sum over rows of the path length) instead of one prediction pass per
step. Scores after each step follow from running sums: correct predictions (accuracy), squared and
absolute errors (MSE, MAE, R^2 = 1 - SSE / SST).

**Learning curve.** For each training-set size, several random subsets (drawn without replacement
with ``numpy.random.default_rng(seed)``) each grow a tree that is scored on the fixed test rows;
the curve is the mean over the subsets with a band of one standard deviation.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from engine.checks import choice, shown, whole
from engine.checks import rows as check_rows
from engine.errors import ConfigError, DataError
from engine.evaluate.validation import _check_seed, fit_for_evaluation
from engine.budget import check_trees, classes_text, reserving
from engine.grow.parallel import check_n_jobs, concurrency, run_tasks
from engine.evaluate.metrics import evaluate, metrics_for, r2_from_sums, true_codes
from engine.tree.node import first_argmax

MAX_REPEATS = 100  # the page offers up to 20 subsets per size; the engine refuses more than this


def node_memberships(tree, X) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """node id -> (row positions, weights) of the rows of ``X`` that reach the node.

    A row whose value is missing at a split goes down every branch with its weight times the
    branch's share of the training weight (as in :meth:`engine.tree.Tree.leaf_weights`).
    """
    return _memberships(tree, tree._encode(X))[0]


def _memberships(tree, X):
    """(node_memberships, fractional): ``fractional`` is True when some row was split by a missing value."""
    out: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    fractional = False
    stack = [(0, np.arange(X.shape[0]), np.ones(X.shape[0]))]
    while stack:
        nid, rows, w = stack.pop()
        out[nid] = (rows, w)
        node = tree.nodes[nid]
        if node.is_leaf:
            continue
        route = node.split.route(X[rows, node.split.feature_index])
        miss = route < 0
        if not miss.any():
            for c, child in enumerate(node.children):
                sel = route == c
                stack.append((child, rows[sel], w[sel]))
            continue
        fractional = True
        cw = np.asarray(node.split.child_weights, dtype=float)
        share = cw / cw.sum() if cw.sum() > 0 else np.full(cw.size, 1.0 / cw.size)
        for c, child in enumerate(node.children):
            sel = (route == c) | miss
            stack.append((child, rows[sel], w[sel] * np.where(miss[sel], share[c], 1.0)))
    return out, fractional


def split_order(grower) -> list[int]:
    """Internal nodes of ``grower.tree`` in the order their (last) split happened in its history.

    Forced splits replace earlier ones and collapsed nodes are gone, so each internal node is placed
    at its last split; a parent always comes before its children.
    """
    tree = grower.tree
    internal = {n.id for n in tree.internal_nodes}
    last = {}
    for rec in grower.history:
        if rec.action in ("split", "forced") and rec.node_id in internal:
            last[rec.node_id] = rec.index
    missing = internal - set(last)
    order = sorted(last, key=last.get)
    pos = {nid: i for i, nid in enumerate(order)}
    if missing or any(tree.nodes[n].parent is not None and pos[tree.nodes[n].parent] > pos[n] for n in order):
        return level_order(tree)
    return order


def _node_list(order) -> list[int]:
    """``order`` as a list of whole numbers (node ids), or a ConfigError sentence."""
    if isinstance(order, (str, bytes, dict, set)) or not hasattr(order, "__iter__"):
        raise ConfigError(f"order must be a list of internal node ids; got {shown(order)}.")
    return [whole("A node id in order", v, 0) for v in order]


def _named_sets(sets) -> list:
    """``sets`` as a list of (name, Dataset or None) pairs, or a DataError sentence."""
    pairs = list(sets) if isinstance(sets, (list, tuple)) else None
    if pairs is None or not all(isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str) for p in pairs):
        raise DataError(f"sets must be a list of (name, rows) pairs, e.g. [('test', test)]; got {shown(sets)}.")
    return [(name, check_rows(f"The '{name}' rows", ds, allow_none=True)) for name, ds in pairs]


def level_order(tree) -> list[int]:
    """Internal nodes by depth, then id: after all splits of depth < d the tree is the tree cut at depth d."""
    return [n.id for n in sorted(tree.internal_nodes, key=lambda n: (n.depth, n.id))]


def _structure(tree, order) -> pd.DataFrame:
    order = [int(v) for v in order]
    internal = {n.id for n in tree.internal_nodes}
    if set(order) != internal or len(order) != len(internal):
        raise ConfigError("order must list every internal node of the tree exactly once.")
    seen = {0}
    for v in order:
        if v not in seen:
            raise ConfigError(f"order splits node {v} before its parent.")
        seen.update(tree.nodes[v].children)
    kids = np.array([len(tree.nodes[v].children) for v in order], dtype=np.int64)
    depth = np.array([tree.nodes[v].depth + 1 for v in order], dtype=np.int64)
    return pd.DataFrame({
        "step": np.arange(len(order) + 1),
        "node_id": np.concatenate([[-1], order]).astype(np.int64),
        "n_leaves": 1 + np.concatenate([[0], np.cumsum(kids - 1)]),
        "n_nodes": 1 + np.concatenate([[0], np.cumsum(kids)]),
        "depth": np.maximum.accumulate(np.concatenate([[0], depth])),
    })


def _scores_along(tree, order, dataset) -> dict[str, np.ndarray]:
    """Every metric of the task after each step (index 0 = the root alone) on ``dataset``."""
    X = dataset.X if dataset.schema == tree.schema else tree.schema.encode(dataset.frame)
    mem, fractional = _memberships(tree, X)
    if tree.task == "classification":
        y = true_codes(tree, dataset)
        sums = (_incremental(tree, order, mem, y) if fractional
                else _cumulated(tree, order, mem, lambda v, rows: np.count_nonzero(y[rows] == first_argmax(v[None])[0])))
        acc = sums[0] / max(y.size, 1)
        # macro F1 needs the whole confusion matrix: it is not tracked along the curve
        return {"accuracy": acc, "error": 1.0 - acc}
    y = np.asarray(dataset.y, dtype=float)
    if fractional:
        sse, sae = _incremental(tree, order, mem, y)
    else:
        sse = _cumulated(tree, order, mem, lambda v, rows: float(((y[rows] - v[0]) ** 2).sum()))[0]
        sae = _cumulated(tree, order, mem, lambda v, rows: float(np.abs(y[rows] - v[0]).sum()))[0]
    sse, sae = np.maximum(sse, 0.0), np.maximum(sae, 0.0)
    n = y.size
    sst = float(((y - y.mean()) ** 2).sum())
    return {"r2": np.array([r2_from_sums(s, sst, n) for s in sse]), "mse": sse / n, "mae": sae / n}


def _cumulated(tree, order, mem, loss) -> tuple[np.ndarray]:
    """Running total of a per-node loss when every row reaches exactly one node per level.

    ``loss(value, rows)`` is the total loss of ``rows`` predicted by a leaf with ``value``; splitting v
    changes the total by sum_children loss(c) - loss(v).
    """
    node_loss = {nid: loss(np.asarray(tree.nodes[nid].value, dtype=float), rows) for nid, (rows, _) in mem.items()}
    delta = [sum(node_loss[c] for c in tree.nodes[v].children) - node_loss[v] for v in order]
    return (node_loss[0] + np.concatenate([[0.0], np.cumsum(np.asarray(delta, dtype=float))]),)


def _incremental(tree, order, mem, y) -> tuple[np.ndarray, ...]:
    """Running totals with fractional rows: each row's prediction is updated at every split it reaches.

    Classification: (correct counts,); regression: (SSE, SAE).
    """
    value = {nid: np.asarray(tree.nodes[nid].value, dtype=float) for nid in mem}
    P = mem[0][1][:, None] * value[0][None, :]
    classify = tree.task == "classification"

    def losses(rows):
        if classify:
            return ((first_argmax(P[rows]) == y[rows]).astype(float),)
        err = y[rows] - P[rows, 0]
        return err * err, np.abs(err)

    current = losses(np.arange(y.size))
    totals = [[float(c.sum())] for c in current]
    for v in order:
        rows, w = mem[v]
        P[rows] -= w[:, None] * value[v]
        for c in tree.nodes[v].children:
            if c in mem and mem[c][0].size:
                P[mem[c][0]] += mem[c][1][:, None] * value[c]
        new = losses(rows)
        for tot, cur, nw in zip(totals, current, new):
            tot.append(tot[-1] + float(nw.sum() - cur[rows].sum()))
            cur[rows] = nw
    return tuple(np.asarray(t, dtype=float) for t in totals)


def growth_curve(tree, sets, *, order=None) -> pd.DataFrame:
    """Scores of the tree after each split, from the root alone to ``tree`` itself.

    ``sets``: ``(name, Dataset)`` pairs (e.g. ``[("train", train), ("test", test)]``); empty or None
    data sets are skipped. ``order``: internal node ids in the order they were split (parents first;
    default :func:`level_order`; use :func:`split_order` for a grower's own history).
    Columns: step, node_id (split at this step, -1 for the root-only tree), n_leaves, n_nodes, depth,
    then ``<set>_<metric>`` for every metric of the task (classification: accuracy, error;
    regression: r2, mse, mae).
    """
    order = level_order(tree) if order is None else _node_list(order)
    table = _structure(tree, order)
    for name, ds in _named_sets(sets):
        if ds is None or len(ds) == 0:
            continue
        if ds.task != tree.task:
            raise DataError(f"The tree does {tree.task} but the '{name}' rows have a {ds.task} target.")
        for metric, values in _scores_along(tree, order, ds).items():
            table[f"{name}_{metric}"] = values
    return table


def overfitting_curve(grower, sets) -> pd.DataFrame:
    """:func:`growth_curve` of a grower's tree in the order of its own history (the Grow page's steps)."""
    return growth_curve(grower.tree, sets, order=split_order(grower))


def depth_curve(tree, sets) -> pd.DataFrame:
    """Scores of the tree cut at depth 0, 1, ..., tree.depth (one row per depth).

    With breadth- or depth-first growth and no ``max_leaf_nodes``, the tree cut at depth d is the tree
    grown with ``max_depth = d``.
    """
    table = growth_curve(tree, sets, order=level_order(tree))
    return table.groupby("depth", sort=True).tail(1).reset_index(drop=True)


# -------------------------------------------------------------------------------- learning curve
def _check_sizes(sizes) -> np.ndarray:
    try:
        s = np.asarray(sorted(set(float(v) for v in sizes)), dtype=float)
    except (TypeError, ValueError):
        raise ConfigError(f"sizes must be fractions between 0 and 1, e.g. (0.1, 0.5, 1.0); got {sizes!r}.") from None
    if s.size == 0 or s[0] <= 0 or s[-1] > 1:
        raise ConfigError(f"sizes must be fractions between 0 and 1, e.g. (0.1, 0.5, 1.0); got {sizes!r}.")
    return s


@reserving
def learning_curve(train, test, config, *, sizes=(0.1, 0.25, 0.5, 0.75, 1.0), repeats: int = 5,
                   seed: int = 0, metric: str | None = None, progress=None, n_jobs: int | None = None,
                   should_stop=None):
    """Scores against training-set size: ``(runs, summary)`` DataFrames.

    ``runs``: one row per fitted tree: fraction, n_train, repeat, n_leaves, train_score, test_score.
    ``summary``: one row per size: fraction, n_train, and mean/std/min/max of the test and train
    scores. The full training set is fitted once (every subset of that size is the same).
    ``progress(done, total)`` is called after each fit; ``n_jobs`` trees grow at once (None: all cores);
    every subset is drawn before the fits start, so the result does not depend on ``n_jobs``.
    """
    if check_rows("test", test, allow_none=True) is None or len(test) == 0:
        raise DataError("A learning curve needs test rows: set a test share on the Data page.")
    metric = metrics_for(train.task)[0] if metric is None else metric
    choice("metric", metric, metrics_for(train.task))
    whole("repeats", repeats, 1, MAX_REPEATS)
    fractions = _check_sizes(sizes)
    rng = np.random.default_rng(_check_seed(seed))
    n = len(train)
    counts = sorted({int(min(n, max(2, round(f * n)))) for f in fractions})
    plan = [(m / n, m, r) for m in counts for r in range(1 if m == n else int(repeats))]
    tasks = [(train, test, np.sort(rng.choice(n, size=m, replace=False)) if m < n else None, config,
              int(seed) + i, metric, {"fraction": f, "n_train": m, "repeat": r}) for i, (f, m, r) in enumerate(plan)]
    check_trees(train, config, what=f"A learning curve of {len(tasks)} trees on up to {n:,} rows"
                       f"{classes_text(train)}", n_trees=len(tasks), shipped_rows=n + len(test),
                       at_once=concurrency(n_jobs, len(tasks), sum(m for _, m, _ in plan)))
    records = run_tasks(_learning_run, tasks, n_jobs=check_n_jobs(n_jobs), progress=progress,
                        should_stop=should_stop, rows=sum(m for _, m, _ in plan),
                        shared=(train, test))
    runs = pd.DataFrame(records)
    summary = runs.groupby("n_train", sort=True).agg(
        fraction=("fraction", "first"), runs=("repeat", "size"),
        test_mean=("test_score", "mean"), test_std=("test_score", lambda s: float(np.std(s))),
        test_min=("test_score", "min"), test_max=("test_score", "max"),
        train_mean=("train_score", "mean"), train_std=("train_score", lambda s: float(np.std(s))),
        leaves_mean=("n_leaves", "mean")).reset_index()
    return runs, summary


def _learning_run(train, test, rows, config, seed: int, metric: str, record: dict) -> dict:
    """One fit of :func:`learning_curve` on ``train``'s ``rows`` (None: all of them), scored on both parts."""
    part = train if rows is None else train.subset(rows)
    tree = fit_for_evaluation(part, config, seed=seed)
    return {**record, "n_leaves": tree.n_leaves, "train_score": evaluate(tree, part).scores[metric],
            "test_score": evaluate(tree, test).scores[metric]}
