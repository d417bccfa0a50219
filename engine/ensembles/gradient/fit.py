"""Gradient boosting (Friedman 2001), one round at a time, with the engine's own regression trees.

::

    F_0 = the constant that minimises the loss (mean; log-odds of the prior; log class priors)
    for m = 1..M:
        r_i  = -dL(y_i, F)/dF at F_{m-1}(x_i)          # pseudo-residuals (y - F for squared error)
        h_m  = a regression tree grown on (x_i, r_i)    # variance criterion, depth max_depth
        set each leaf's value: the mean of r (squared error) or one Newton step (log-loss)
        F_m  = F_{m-1} + learning_rate * h_m
    predict F_M (regression), sigmoid / softmax of F_M (classes)

With K > 2 classes every round grows K trees, one per class column of F (on as many threads as the
cores allow; they depend only on F_{m-1}). ``subsample < 1`` fits each round on ``int(subsample * N)``
rows drawn without replacement by ``numpy.random.default_rng(random_state)`` (stochastic gradient
boosting); the other rows get weight 0 for that round. The losses are in
:mod:`engine.ensembles.gradient.losses`, the residual data a tree grows on in
:mod:`engine.ensembles.gradient.target`. Every round's tree can be grown again split by split with
:func:`round_grower` (the same tree, with the usual gain tables of variance reduction on the residuals).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import replace

import numpy as np

from engine.budget import check_trees, reserving
from engine.config import TreeConfig
from engine.config import tree_config as check_config
from engine.errors import ConfigError, DataError
from engine.grow.grower import Grower
from engine.grow.parallel import check_n_jobs, tree_threads
from engine.threads import thread_map
from engine.ensembles.bagging import (Progress, _training_outputs, check_count, check_dataset, check_fraction,
                                     check_seed)
from engine.ensembles.compiled import CompiledTree
from engine.ensembles.votes import Member
from engine.ensembles.gradient.losses import make_loss
from engine.ensembles.gradient.model import GBRound, GradientEnsemble
from engine.ensembles.gradient.target import ResidualData

MAX_ROUNDS = 5000


def check_rate(value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < value <= 10 or math.isnan(value):
        raise ConfigError(f"learning_rate must be a number in (0, 10], e.g. 0.1; got {value!r}.")
    return float(value)


def round_config(tree_config: TreeConfig | None, max_depth, min_samples_leaf) -> TreeConfig:
    """The trees' settings: ``tree_config`` (default CART) with this depth and leaf size, no validation rule."""
    cfg = check_config(tree_config)
    return replace(cfg, max_depth=check_count("max_depth", max_depth, 30),
                   min_samples_leaf=check_count("min_samples_leaf", min_samples_leaf, 10**9),
                   max_leaf_nodes=None, validation=False)


def residual_target(dataset, k: int, n_columns: int) -> str:
    """The name of round trees' target: "residual", or "residual (class c)" for class column k."""
    return "residual" if n_columns == 1 else f"residual ({dataset.classes[k]})"


def set_leaf_values(tree, X, r, p, w, loss, leaves_of=None):
    """The tree with each leaf's value replaced by ``loss.leaf_value`` of its in-sample rows (Newton step);
    unchanged for squared error, where the tree's mean residual is already the step. ``leaves_of()``: the
    leaf each in-sample row reached while growing (:meth:`Grower.training_leaves`), or None: rows routed."""
    if loss.leaf_value(r[:1], p[:1], np.ones(1)) is None:
        return tree
    leaf = None if leaves_of is None else leaves_of()
    if leaf is None:
        leaf = tree.apply(X)
    changed = {}
    for node in tree.leaves:
        rows = np.flatnonzero((leaf == node.id) & (w > 0))
        v = loss.leaf_value(r[rows], p[rows], w[rows]) if rows.size else 0.0
        changed[node.id] = node.evolve(value=(v,), prediction=v)
    return tree.replace_nodes(changed)


def round_grower(ens: GradientEnsemble, dataset, r: int, k: int = 0) -> Grower:
    """A fresh :class:`Grower` for round ``r``'s tree (class column ``k``) on the residuals it was grown on,
    ready to be stepped split by split: the same tree as ``ens``'s when grown to the end (before the
    Newton leaf values of log-loss). ``dataset`` is the training data the ensemble was fitted on."""
    raw = ens.raw(dataset, r)
    y = np.asarray(dataset.y)
    res = ens.loss.residuals(y, raw)[:, k]
    rd = ens.rounds[r]
    w = np.ones(len(dataset)) if rd.in_sample is None else rd.in_sample.astype(float)
    cfg = TreeConfig.from_dict(ens.params["tree_config"])
    return Grower(ResidualData(dataset, res, residual_target(dataset, k, ens.n_columns)), cfg, sample_weight=w)


def _same_columns(X: np.ndarray) -> np.ndarray:
    """A round tree's columns are the training data's: no adapting."""
    return X


def _in_sample(rng, n: int, subsample: float) -> np.ndarray | None:
    if subsample >= 1.0:
        return None
    mask = np.zeros(n, dtype=bool)
    mask[rng.choice(n, size=max(1, int(subsample * n)), replace=False)] = True
    return mask


@reserving
def fit_gradient_boosting(dataset, *, n_estimators: int = 100, learning_rate: float = 0.1, max_depth: int = 3,
                          min_samples_leaf: int = 1, subsample: float = 1.0, loss: str | None = None,
                          random_state: int = 0, tree_config: TreeConfig | None = None, test=None,
                          progress: Progress = None, n_jobs: int | None = None) -> GradientEnsemble:
    """Gradient boosting with ``n_estimators`` rounds (see the module docstring).

    ``loss``: "squared_error" (numeric target, the default there) or "log_loss" (classes, the default there;
    multinomial with K > 2 classes). ``tree_config``: the trees' other settings (default CART; depth and leaf
    size are replaced). ``test``: rows with the same columns whose loss is recorded after every round.
    ``n_jobs``: threads for a round's K trees (None: every core); the model does not depend on it.
    """
    check_dataset(dataset)
    n_estimators = check_count("n_estimators", n_estimators, MAX_ROUNDS)
    learning_rate = check_rate(learning_rate)
    subsample = check_fraction("subsample", subsample)
    random_state = check_seed(random_state)
    n_jobs = check_n_jobs(n_jobs)
    cfg = round_config(tree_config, max_depth, min_samples_leaf)
    lossf = make_loss(loss, dataset.task, len(dataset.classes))
    X, y = dataset.X, np.asarray(dataset.y)
    n, K = len(dataset), lossf.n_trees
    threads = min(K, tree_threads(n_jobs))
    n_in = n if subsample >= 1 else max(1, int(subsample * n))
    # beside its tree, a round keeps its in-sample mask (1 byte a row with subsample); the loop holds F, the
    # residuals, the probabilities and a round's outputs (8 bytes a row and column each), counted per tree
    extra = (n if subsample < 1 else 0) + math.ceil(5 * 8 * n * K / (n_estimators * K))
    check_trees(ResidualData(dataset, np.zeros(n)), cfg, what=f"Gradient boosting with {n_estimators:,} rounds of "
                f"depth-{cfg.max_depth} trees on {n:,} rows" + (f" ({K} trees a round)" if K > 1 else ""),
                n_trees=n_estimators * K, kept_trees=n_estimators * K, shown=1, n_rows=n_in,
                trees_word="rounds (Rounds M)", kept_extra=extra, at_once=threads, records=False)
    rng = np.random.default_rng(random_state)
    ones = np.ones(n)
    init = lossf.init_raw(y, ones)
    raw = np.tile(init, (n, 1))
    Xt = yt = raw_t = None
    if test is not None and len(test):
        if getattr(test, "schema", None) != dataset.schema:
            raise DataError("The test rows must come from the same data set as the training rows (a split of it), "
                            "with the same columns, kinds and classes.")
        Xt, yt = np.asarray(test.X, dtype=float), np.asarray(test.y)
        raw_t = np.tile(init, (Xt.shape[0], 1))
    members, rounds = [], []
    names = [residual_target(dataset, k, K) for k in range(K)]
    shared: dict = {}      # the rounds' ResidualData cache: one budget pilot tree for the whole fit
    before = lossf.loss(y, raw)
    for m in range(n_estimators):
        mask = _in_sample(rng, n, subsample)
        w = ones if mask is None else mask.astype(float)
        res = lossf.residuals(y, raw)
        prob = lossf.probabilities(raw)

        def grow(k, res=res, prob=prob, w=w):
            g = Grower(ResidualData(dataset, res[:, k], names[k], shared), cfg, sample_weight=w,
                       n_jobs=1 if threads > 1 else n_jobs).grow()
            return set_leaf_values(g.tree, X, res[:, k], prob[:, k], w, lossf, g.training_leaves), g

        grown = thread_map(grow, range(K), threads)
        ids = []
        for k, (tree, g) in enumerate(grown):
            flat = CompiledTree(tree)
            # F moves by the tree's value at each row: the rows it grew on read their leaf's value (no routing)
            raw[:, k] += learning_rate * _training_outputs(g, _same_columns, flat, X)
            if raw_t is not None:
                raw_t[:, k] += learning_rate * flat.values(Xt)[:, 0]
            ids.append(len(members))
            members.append(Member(len(members), tree, learning_rate, dataset.feature_names, m))
        after = lossf.loss(y, raw)
        rounds.append(GBRound(m, tuple(ids), before, after,
                              lossf.loss(yt, raw_t) if raw_t is not None else float("nan"), mask))
        before = after
        if progress is not None:
            progress(m + 1, n_estimators)
    params = {"n_estimators": n_estimators, "learning_rate": learning_rate, "max_depth": cfg.max_depth,
              "min_samples_leaf": cfg.min_samples_leaf, "subsample": subsample, "loss": lossf.name,
              "random_state": random_state, "tree_config": cfg.to_dict(), "n_classes": len(dataset.classes)}
    return GradientEnsemble("gradient_boosting", dataset.schema, tuple(members), y.copy(), np.empty((0, n)),
                            None, tuple(rounds), params, (), init_raw=init, learning_rate=learning_rate,
                            loss_name=lossf.name)
