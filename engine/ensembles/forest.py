"""Random forests: bagging plus random feature subsets, and two kinds of feature importance.

Two ways to decorrelate the trees (``k`` features out of ``d``, default :math:`k = \\lfloor\\sqrt d\\rfloor`):

- per split (Breiman 2001, the usual one): every node of every tree draws ``k`` features and picks
  the best split among them only (``TreeConfig.max_features``; the draw is seeded by the tree's seed
  and the node's path, so it is reproducible and can be listed node by node);
- per tree (the lecture notes' variant): tree ``i`` may use only a random subset :math:`A_i` of ``k``
  features for all of its splits (``per_tree_features=True``; the tree is grown on
  ``dataset.with_features(A_i)``; ``Member.features`` records :math:`A_i`).

Importances:

- impurity-based: the mean over trees of each tree's normalised weighted impurity decrease
  :math:`\\mathrm{imp}_j = \\frac1M \\sum_m \\sum_{t \\text{ splits on } j} \\frac{w_t}{w_\\text{root}} \\Delta_t`
  (features a tree could not use count 0);
- permutation (Breiman): shuffle column j of the training rows, let every row be voted on only by the
  trees that did not draw it (out of bag), and report the drop of the OOB accuracy (or the rise of
  the OOB mean squared error); averaged over ``n_repeats`` shuffles. A feature the forest does not
  rely on scores about 0; unlike impurity importance it is not biased towards many-valued features.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from engine.config import tree_config as check_config
from engine.config import TreeConfig
from engine.errors import ConfigError, DataError
from engine.ensembles.bagging import Progress, check_count, check_seed, fit_bagged
from engine.ensembles.votes import Ensemble, score


def fit_random_forest(dataset, *, n_estimators: int = 100, max_features="sqrt", per_tree_features: bool = False,
                      max_samples: float = 1.0, bootstrap: bool = True, tree_config: TreeConfig | None = None,
                      random_state: int = 0, progress: Progress = None, n_jobs: int | None = None,
                      should_stop=None) -> Ensemble:
    """A random forest of ``n_estimators`` trees (CART unless ``tree_config`` says otherwise).

    ``max_features``: k as in ``TreeConfig.max_features`` ("sqrt", "log2", a count or a fraction).
    ``per_tree_features``: draw the k features once per tree instead of at every split.
    ``n_jobs``: members grown at once (None: all cores); the forest is the same for every value.
    """
    base = check_config(tree_config)
    if not isinstance(base, TreeConfig):
        raise ConfigError("tree_config must be a TreeConfig.")
    if max_features is None:
        raise ConfigError("max_features must be 'sqrt', 'log2', a whole number >= 1 or a fraction in (0, 1] "
                          "for a random forest; got None (that would be plain bagging).")
    probe = replace(base, max_features=max_features)  # validates max_features with TreeConfig's message
    if not isinstance(per_tree_features, bool):
        raise ConfigError(f"per_tree_features must be True or False; got {per_tree_features!r}.")
    k = probe.n_features_to_draw(len(dataset.feature_names)) if dataset.feature_names else 1
    params = {"max_features": max_features, "k_features": k,
              "feature_sampling": "tree" if per_tree_features else "node"}
    if per_tree_features:
        return fit_bagged(dataset, method="random_forest", n_estimators=n_estimators, max_samples=max_samples,
                          bootstrap=bootstrap, tree_config=replace(base, max_features=None),
                          random_state=random_state, feature_subset_size=k, progress=progress, params=params,
                          n_jobs=n_jobs, should_stop=should_stop)
    return fit_bagged(dataset, method="random_forest", n_estimators=n_estimators, max_samples=max_samples,
                      bootstrap=bootstrap, tree_config=probe, random_state=random_state, progress=progress,
                      params=params, n_jobs=n_jobs, should_stop=should_stop)


def node_feature_draws(ensemble: Ensemble, dataset, member: int) -> pd.DataFrame:
    """The features each internal node of one member could choose from (the per-split draws).

    The draws are a function of the member's seed and the node's path, so they are recovered by
    growing the member again with the engine's grower on ``dataset`` (the training rows) and reading
    which features it offered each node. Columns: node, depth, drawn (features offered), chosen.
    """
    from engine.grow.grower import Grower

    m = ensemble.members[member]
    cfg = TreeConfig.from_dict({**ensemble.params["tree_config"], "random_state": m.seed})
    data = dataset if len(m.features) == len(dataset.feature_names) else dataset.with_features(m.features)
    weights = None if ensemble.in_bag is None else ensemble.in_bag[member].astype(float)
    grower = Grower(data, cfg, sample_weight=weights).grow()
    names = data.feature_names
    rows = []
    for node in grower.tree.internal_nodes:
        drawn = [names[j] for j in grower._features_from_path(grower._paths[node.id])]
        rows.append({"node": node.id, "depth": node.depth, "drawn": ", ".join(drawn),
                     "chosen": node.split.feature})
    return pd.DataFrame(rows, columns=["node", "depth", "drawn", "chosen"])


def impurity_importances(ensemble: Ensemble) -> pd.Series:
    """Mean over members of the trees' impurity-based importances (each tree's sums to 1)."""
    names = list(ensemble.schema.feature_names)
    total = pd.Series(0.0, index=names)
    for m in ensemble.members:
        total = total.add(pd.Series(m.tree.feature_importances), fill_value=0.0)
    return (total / max(ensemble.n_members, 1)).reindex(names).rename("impurity_importance")


def permutation_importances(ensemble: Ensemble, dataset, *, oob: bool = True, n_repeats: int = 3,
                            random_state: int = 0, progress: Progress = None) -> pd.DataFrame:
    """Drop in score when one feature's column is shuffled; one row per feature.

    ``oob=True``: ``dataset`` must be the training rows and only out-of-bag votes count (see the
    module docstring). ``oob=False``: any labelled rows (e.g. the test rows) and the full vote.
    Columns: feature, importance (mean drop of accuracy, or rise of MSE), std over repeats, baseline.
    """
    n_repeats = check_count("n_repeats", n_repeats, 100)
    rng = np.random.default_rng(check_seed(random_state))
    X = ensemble.encode(dataset).copy()
    y = _targets(ensemble, dataset)
    if oob:
        if ensemble.in_bag is None:
            raise DataError("Out-of-bag importances need bootstrap samples; use oob=False with test rows.")
        if X.shape[0] != ensemble.train_y.size:
            raise DataError("Out-of-bag importances are computed on the training rows the ensemble was fit on.")

    def evaluate(outputs):
        if oob:
            votes = ensemble.oob_votes(outputs=outputs)
            has = votes.sum(1) > 0 if ensemble.task == "classification" else votes[:, 1] > 0
            return score(ensemble.task, y[has], ensemble.combine(votes)[has])
        return score(ensemble.task, y, ensemble.combine(ensemble.tally(outputs)))

    baseline = evaluate(ensemble.member_outputs(X))
    sign = 1.0 if ensemble.task == "classification" else -1.0
    names = ensemble.schema.feature_names
    rows = []
    for j, name in enumerate(names):
        drops = []
        original = X[:, j].copy()
        for _ in range(n_repeats):
            X[:, j] = original[rng.permutation(original.size)]
            drops.append(sign * (baseline - evaluate(ensemble.member_outputs(X))))
        X[:, j] = original
        rows.append({"feature": name, "importance": float(np.mean(drops)), "std": float(np.std(drops)),
                     "baseline": baseline})
        if progress is not None:
            progress(j + 1, len(names))
    return pd.DataFrame(rows)


def _targets(ensemble: Ensemble, dataset) -> np.ndarray:
    if hasattr(dataset, "schema") and dataset.schema.target == ensemble.schema.target and hasattr(dataset, "y"):
        if dataset.task != ensemble.task:
            raise DataError("These rows have a different task than the ensemble.")
        if ensemble.task == "regression" or dataset.classes == ensemble.classes:
            return np.asarray(dataset.y)
        labels = dataset.frame[dataset.target].astype("string")
        return pd.Categorical(labels, categories=list(ensemble.classes)).codes.astype(np.int64)
    raise DataError("Importances need labelled rows: pass a Dataset with the ensemble's target column.")
