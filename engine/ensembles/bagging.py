"""Bagging (bootstrap aggregating): M trees, each grown on a bootstrap sample, combined by a vote.

For member m = 1..M:

1. draw ``n_draws = round(max_samples * N)`` row indices uniformly *with replacement* from the N
   training rows (the bootstrap sample); ``in_bag[m, i]`` counts how often row i was drawn;
2. grow a tree with the engine's own grower, passing the counts as ``sample_weight`` (a row drawn
   twice weighs 2; rows with count 0 are out of bag (OOB) and not seen by the tree);
3. the ensemble predicts by majority vote (classification) or mean (regression).

With ``max_samples = 1`` a row stays out of a sample with probability :math:`(1 - 1/N)^N \\approx
e^{-1} \\approx 0.368`, so every tree has about a third of the rows as its own test set: the OOB
prediction of row i is the vote of the trees that did not draw it, and the OOB error estimates the
test error without a held-out set.

Randomness: member m gets the seed ``seeds[m]`` drawn from ``numpy.random.default_rng(random_state)``;
its bootstrap indices are ``default_rng(seed).integers(0, N, n_draws)`` (see :func:`engine.ensembles.bootstrap.draw_bootstrap`,
so they can be shown again exactly) and its tree's ``random_state`` is the same seed.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import replace
from typing import Callable

import numpy as np

from engine.config import tree_config as check_config
from engine.config import TreeConfig
from engine.errors import ConfigError, DataError
from engine.grow.grower import Grower
from engine.tree.build import check_target_scale
from engine.budget import check_trees, classes_text, reserving
from engine.grow.parallel import check_n_jobs, concurrency, run_tasks
from engine.ensembles.bootstrap import draw_bootstrap
from engine.ensembles.compiled import ColumnAdapter, CompiledTree
from engine.ensembles.stacked import StackedForest
from engine.ensembles.votes import Ensemble, Member

Progress = Callable[[int, int], None] | None
MAX_MEMBERS = 5000
METHOD_NAMES = {"bagging": "bagged ensemble", "random_forest": "random forest"}


def member_seeds(random_state: int, n: int) -> np.ndarray:
    """One seed per member, drawn from ``default_rng(random_state)``."""
    return np.random.default_rng(random_state).integers(0, 2**31 - 1, size=n)


def check_count(name: str, value, high: int = MAX_MEMBERS) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 1 <= value <= high:
        raise ConfigError(f"{name} must be a whole number from 1 to {high}; got {value!r}.")
    return int(value)


def check_seed(random_state) -> int:
    if isinstance(random_state, bool) or not isinstance(random_state, numbers.Integral) or random_state < 0:
        raise ConfigError(f"random_state must be a whole number >= 0; got {random_state!r}.")
    return int(random_state)


def check_fraction(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < value <= 1:
        raise ConfigError(f"{name} must be a fraction in (0, 1], e.g. 1.0 for N draws; got {value!r}.")
    return float(value)


def check_dataset(dataset) -> None:
    if len(dataset) == 0:
        raise DataError("There are no training rows to learn from.")
    if not dataset.feature_names:
        raise DataError("There is no feature to learn from: mark at least one column numeric or categorical.")
    if dataset.task == "regression":
        check_target_scale(np.asarray(dataset.y, dtype=float), dataset.target)


@reserving
def fit_bagged(dataset, *, method: str, n_estimators: int, max_samples: float, bootstrap: bool,
               tree_config: TreeConfig, random_state: int, feature_subset_size: int | None = None,
               progress: Progress = None, params: dict | None = None, n_jobs: int | None = None,
               should_stop=None) -> Ensemble:
    """Shared loop of bagging and random forests (see the module docstring).

    Members grow ``n_jobs`` at a time (None: all cores; see :func:`engine.grow.parallel.run_tasks`, which
    also explains ``progress`` and ``should_stop``); the result does not depend on ``n_jobs``.

    ``feature_subset_size``: if set, member m may only use a random subset A_m of this many features
    (drawn with ``default_rng([seed, 1])``) and is grown on ``dataset.with_features(A_m)``.
    """
    check_dataset(dataset)
    n_estimators = check_count("n_estimators", n_estimators)
    max_samples = check_fraction("max_samples", max_samples)
    random_state = check_seed(random_state)
    if not isinstance(bootstrap, bool):
        raise ConfigError(f"bootstrap must be True or False; got {bootstrap!r}.")
    if not isinstance(tree_config, TreeConfig):
        raise ConfigError("tree_config must be a TreeConfig.")
    if tree_config.validation:
        raise ConfigError("Ensemble members cannot use validation=True; switch that rule off for ensembles.")
    n_jobs = check_n_jobs(n_jobs)
    n = len(dataset)
    n_draws = max(1, int(round(max_samples * n)))
    check_trees(dataset, tree_config, what=f"A {METHOD_NAMES.get(method, method)} of {n_estimators:,} trees "
                       f"on {n:,} rows{classes_text(dataset)}", n_trees=n_estimators,
                       kept_trees=n_estimators, shown=1, n_rows=grown_rows(n, n_draws, bootstrap),
                       trees_word="trees (Members M)", shipped_rows=n, compact=True,
                       kept_extra=n * (int(bootstrap) + output_dtype(dataset).itemsize),
                       at_once=concurrency(n_jobs, n_estimators, n * n_estimators))
    names = dataset.feature_names
    seeds = member_seeds(random_state, n_estimators)
    in_bag = np.zeros((n_estimators, n), dtype=np.uint8) if bootstrap else None
    outputs = np.empty((n_estimators, n), dtype=output_dtype(dataset))
    members = []
    subset = feature_subset_size if feature_subset_size is not None and feature_subset_size < len(names) else None
    tasks = [(dataset, tree_config, int(seed), n_draws if bootstrap else 0, subset) for seed in seeds.tolist()]
    grown = run_tasks(grow_member, tasks, n_jobs=n_jobs, progress=progress, should_stop=should_stop,
                      rows=n * n_estimators, shared=(dataset,))
    for m, (seed, (tree, feats, out)) in enumerate(zip(seeds.tolist(), grown)):
        if bootstrap:
            counts = np.bincount(draw_bootstrap(n, n_draws, seed), minlength=n)
            if counts.max() > np.iinfo(in_bag.dtype).max:      # a row drawn 256+ times: only on a few rows
                in_bag = in_bag.astype(np.min_scalar_type(int(counts.max())))
            in_bag[m] = counts
        members.append(Member(m, tree, 1.0, tuple(feats), int(seed)))
        outputs[m] = out
    settings = dict(params or {})
    settings.update(n_estimators=n_estimators, max_samples=max_samples, n_draws=n_draws, bootstrap=bootstrap,
                    random_state=random_state, tree_config=tree_config.to_dict())
    notes = []
    if bootstrap:
        always = int((in_bag > 0).all(0).sum())
        if always:
            notes.append(f"{always} training rows were drawn by every member, so they have no out-of-bag vote.")
    ensemble = Ensemble(method, dataset.schema, tuple(members), np.asarray(dataset.y).copy(), outputs, in_bag,
                        (), settings, tuple(notes))
    ensemble.__dict__["_stacked"] = StackedForest.build(_flat_members(members, dataset), dataset.task,
                                                           sum(m.tree.n_nodes for m in members))
    return ensemble


def output_dtype(dataset) -> np.dtype:
    """The members' predictions on the training rows: class codes in the smallest unsigned integer type that
    holds them (uint8 up to 256 classes: 1 byte a row and member), regression values as floats."""
    if dataset.task != "classification":
        return np.dtype(float)
    return np.min_scalar_type(max(len(dataset.classes) - 1, 0))


def _flat_members(members, dataset):
    """Each member's flat routing table, made one at a time for :meth:`StackedForest.build` and not kept on
    its tree: the stacked table is the one copy a forest keeps (a member's own tables are made again when a
    row with a missing value, or a page, needs them)."""
    for m in members:
        yield ColumnAdapter(dataset.schema, m.tree.schema), CompiledTree(m.tree, dataset.classes)
        m.tree.__dict__.pop("_arrays", None)


def grown_rows(n: int, n_draws: int, bootstrap: bool) -> int:
    """Distinct rows a member grows on: ``n (1 - exp(-draws / n))`` of a bootstrap sample (63% of N for N
    draws; rows drawn twice are one row of weight 2), else all ``n``."""
    return max(1, math.ceil(n * -math.expm1(-n_draws / n))) if bootstrap else n


def grow_member(dataset, tree_config: TreeConfig, seed: int, n_draws: int, feature_subset_size: int | None):
    """One member, everything drawn from its ``seed`` (so it can run in any process, in any order):
    (tree, the features it could use, its prediction on every training row). ``n_draws`` 0 = no bootstrap."""
    names = dataset.feature_names
    counts = None
    if n_draws:
        counts = np.bincount(draw_bootstrap(len(dataset), n_draws, seed), minlength=len(dataset))
    feats, data = names, dataset
    if feature_subset_size is not None:
        pick = np.random.default_rng([seed, 1]).choice(len(names), size=feature_subset_size, replace=False)
        feats = tuple(names[j] for j in sorted(pick.tolist()))
        data = dataset.with_features(feats)
    grower = Grower(data, replace(tree_config, random_state=int(seed)),
                    sample_weight=None if counts is None else counts.astype(float)).grow()
    tree = grower.tree
    adapter, flat = ColumnAdapter(dataset.schema, tree.schema), CompiledTree(tree, dataset.classes)
    out = _training_outputs(grower, adapter, flat, dataset.X).astype(output_dtype(dataset), copy=False)
    compact = getattr(tree.nodes, "compact", None)
    if compact is not None:       # what a member keeps (and a worker sends back): small dtypes, no routing table
        compact()
        tree.__dict__.pop("_arrays", None)
    return tree, tuple(feats), out


def _training_outputs(grower, adapter, flat, X) -> np.ndarray:
    """A member's prediction on every training row: the rows it grew on are read off their leaves, the
    others (out of bag) routed down the tree."""
    leaves = grower.training_leaves()
    if leaves is None:
        return flat.predict(adapter(X))
    out = np.empty(leaves.size, dtype=np.int64 if grower.task == "classification" else float)
    seen = leaves >= 0
    out[seen] = flat.predict_leaves(leaves[seen])
    if not seen.all():
        out[~seen] = flat.predict(adapter(X[~seen]))
    return out


def fit_bagging(dataset, *, n_estimators: int = 10, max_samples: float = 1.0, bootstrap: bool = True,
                tree_config: TreeConfig | None = None, random_state: int = 0,
                progress: Progress = None, n_jobs: int | None = None, should_stop=None) -> Ensemble:
    """Bagging of ``n_estimators`` trees grown with ``tree_config`` (default: CART, fully grown).

    ``max_samples``: bootstrap sample size as a fraction of the training rows (1.0 = N draws).
    ``bootstrap=False`` trains every member on all rows (then all members are equal unless the
    config draws features, and there is no out-of-bag estimate).
    ``progress(done, total)`` is called after each member; ``n_jobs`` members grow at once (None: all
    cores, 1: one after the other); the same seed gives the same ensemble for every ``n_jobs``.
    """
    return fit_bagged(dataset, method="bagging", n_estimators=n_estimators, max_samples=max_samples,
                      bootstrap=bootstrap, tree_config=check_config(tree_config), random_state=random_state,
                      progress=progress, n_jobs=n_jobs, should_stop=should_stop)
