"""AdaBoost, line by line as in the lecture notes (and SAMME for more than two classes).

::

    w_j = 1/N for every training row j
    for m = 1..M:
        h_m   = L(rows, w)                                  # weighted base learner (a stump by default)
        error = sum of w_j over the rows h_m misclassifies
        for every row j that h_m classifies correctly:  w_j = w_j * error / (1 - error)
        w     = normalise(w)                                # sum 1 again
        z_m   = ln((1 - error) / error)
    H(x) = weighted-majority vote of h_1..h_M with weights z_1..z_M

With K > 2 classes a learner only needs error < 1 - 1/K (better than guessing), and SAMME (Zhu et al.
2009) adds :math:`\\ln(K-1)`: :math:`z_m = \\ln\\frac{1-e}{e} + \\ln(K-1)`; correct rows are multiplied
by :math:`e^{-z_m} = \\frac{e}{(1-e)(K-1)}`, which is the lecture's :math:`e/(1-e)` when K = 2.

Two edge cases are handled explicitly and explained in the round's ``note``:

- error = 0: the learner is right on every row; z would be infinite and every weight would become
  0. It is kept with z computed from error = ``ERROR_FLOOR`` (``1e-10``, so z = 23.03 for K = 2) and
  boosting stops (the weights cannot change any more);
- error >= 1 - 1/K (1/2 for two classes): the learner is no better than chance, z <= 0; it is not
  kept and boosting stops. If this happens in round 1 there is nothing to boost (ConfigError).

Base learners: ``"stump"`` (one split, chosen by the configured criterion on the weighted rows),
``"tree"`` (depth ``max_depth``), ``"random_stump"`` (a random feature, ``n_thresholds`` random
thresholds among the midpoints between its distinct values, or random values v for tests ``x = v``
of a categorical feature; the best of those by weighted gain). Every round records the learner, its
weighted error, z, the row weights it was trained on and the weights after the update.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from engine.budget import check_trees, classes_text, reserving
from engine.checks import choice
from engine.config import tree_config as check_config
from engine.config import TreeConfig
from engine.errors import ConfigError
from engine.split.gain import evaluate_test
from engine.grow.grower import Grower, fit_tree
from engine.split.records import Split
from engine.split.wording import plural
from engine.ensembles.bagging import Progress, check_count, check_dataset, check_seed
from engine.ensembles.compiled import CompiledTree
from engine.ensembles.votes import Ensemble, Member

BASES = ("stump", "tree", "random_stump")
ERROR_FLOOR = 1e-10


@dataclass(frozen=True, eq=False, repr=False)
class StumpDraw:
    """What a randomised stump drew: the feature, the candidate tests with their gains, the winner."""

    feature: str | None
    tests: tuple[str, ...]
    gains: tuple[float, ...]
    chosen: int
    skipped: tuple[str, ...] = ()

    def __repr__(self) -> str:
        pick = self.tests[self.chosen] if self.chosen >= 0 else "none"
        return f"StumpDraw(feature={self.feature!r}, tests={len(self.tests)}, chosen={pick!r})"


@dataclass(frozen=True, eq=False, repr=False)
class BoostRound:
    """One AdaBoost round (``index`` 0-based).

    ``weights``: the row weights the learner was trained on (sum 1); ``next_weights``: after the
    update and normalisation; ``factor``: what correct rows were multiplied by; ``kept``: whether the
    learner joined the vote (``member`` is its index among the members, -1 if not kept).
    """

    index: int
    learner: str
    error: float
    z: float
    factor: float
    kept: bool
    member: int
    weights: np.ndarray
    next_weights: np.ndarray
    misclassified: np.ndarray
    note: str = ""
    draw: StumpDraw | None = None

    def __repr__(self) -> str:
        return (f"BoostRound(index={self.index}, learner={self.learner!r}, error={self.error:.4f}, "
                f"z={self.z:.4f}, kept={self.kept})")


def hypothesis_weight(error: float, n_classes: int = 2) -> float:
    """:math:`z = \\ln((1-e)/e) + \\ln(K-1)` (the lecture's formula for K = 2)."""
    e = min(max(float(error), ERROR_FLOOR), 1 - ERROR_FLOOR)
    return math.log((1 - e) / e) + math.log(max(n_classes - 1, 1))


def describe_learner(tree) -> str:
    """A stump's test ("Humidity <= 72.5 -> Yes | No"), or the depth and leaves of a deeper tree."""
    root = tree.root
    if root.is_leaf:
        return f"always {root.prediction}"
    if tree.depth == 1:
        preds = " | ".join(str(tree.nodes[c].prediction) for c in root.children)
        return f"{root.split.describe()} -> {preds}"
    return f"tree of depth {tree.depth} with {plural(tree.n_leaves, 'leaf', 'leaves')}, root: {root.split.describe()}"


def random_stump(dataset, config: TreeConfig, weights: np.ndarray, rng, n_thresholds: int):
    """(stump tree, StumpDraw): a random feature with usable values, ``n_thresholds`` random candidate
    tests on it, the best by weighted gain (features with a single value are skipped and listed)."""
    grower = Grower(dataset, replace(config, max_depth=1), sample_weight=weights)
    X, names, kinds = dataset.X, dataset.feature_names, dataset.schema.kinds
    skipped = []
    for j in rng.permutation(len(names)).tolist():
        col = X[weights > 0, j]
        values = np.unique(col[~np.isnan(col)])
        if values.size < 2:
            skipped.append(names[j])
            continue
        if kinds[j] == "numeric":
            mids = (values[:-1] + values[1:]) / 2
            pick = np.sort(rng.choice(mids.size, size=min(n_thresholds, mids.size), replace=False))
            tests = [Split(feature=names[j], feature_index=j, kind="threshold", threshold=float(mids[i]))
                     for i in pick]
        else:
            codes = np.sort(rng.choice(values.astype(np.int64), size=min(n_thresholds, values.size), replace=False))
            labels = dataset.schema.categories[j]
            tests = [Split(feature=names[j], feature_index=j, kind="equals", categories=(labels[c],),
                           category_codes=(int(c),)) for c in codes]
        scored = []
        for s in tests:
            try:
                scored.append(evaluate_test(grower, 0, s))
            except ConfigError:  # a candidate leaving a child empty (only missing values on one side)
                continue
        if not scored:
            skipped.append(names[j])
            continue
        gains = [s.gain for s in scored]
        best = int(np.argmax(gains))
        grower.expand(0, scored[best])
        grower.grow()
        draw = StumpDraw(names[j], tuple(s.describe() for s in scored), tuple(gains), best, tuple(skipped))
        return grower.tree, draw
    return grower.grow().tree, StumpDraw(None, (), (), -1, tuple(skipped))


#: what each round keeps beside its tree, per row: its new row weights (8 bytes; the weights before are the
#: previous round's, shared), its mistakes (1), its predictions (8) and their row in the ensemble's final
#: outputs table (8, made from them at the end while they are alive); per class: its learner's class tables.
#: Measured 1.8 MB a round on 75,000 rows (25 bytes a row) and 0.35 MB on 3,750 rows with 1,000 classes
ROUND_BYTES_PER_ROW = 8 + 1 + 8 + 8
ROUND_BYTES_PER_CLASS = 200


@reserving
def fit_adaboost(dataset, *, n_rounds: int = 50, base: str = "stump", max_depth: int = 1, n_thresholds: int = 5,
                 tree_config: TreeConfig | None = None, random_state: int = 0,
                 progress: Progress = None) -> Ensemble:
    """AdaBoost (SAMME for K > 2) with ``n_rounds`` rounds of the base learner ``base``.

    ``tree_config`` sets the criterion/algorithm of the base trees (default CART); its depth is
    replaced by 1 (stumps) or ``max_depth`` (``base="tree"``).
    """
    check_dataset(dataset)
    if dataset.task != "classification":
        raise ConfigError("AdaBoost here is for classes; for a numeric target use bagging or a random forest.")
    n_rounds = check_count("n_rounds", n_rounds)
    choice("base", base, BASES)
    depth = 1 if base != "tree" else check_count("max_depth", max_depth, 50)
    n_thresholds = check_count("n_thresholds", n_thresholds, 1000)
    rng = np.random.default_rng(check_seed(random_state))
    cfg = replace(check_config(tree_config), max_depth=depth, max_leaf_nodes=None, validation=False)
    check_trees(dataset, cfg, what=f"AdaBoost with {n_rounds:,} rounds of depth-{depth} trees on "
                       f"{len(dataset):,} rows{classes_text(dataset)}", n_trees=n_rounds,
                       kept_trees=n_rounds, shown=1, trees_word="rounds (Rounds M)",
                       kept_extra=ROUND_BYTES_PER_ROW * len(dataset) + ROUND_BYTES_PER_CLASS * len(dataset.classes),
                       records=False)       # rounds run here, one after the other; their tables are kept_extra
    X, y = dataset.X, np.asarray(dataset.y)
    n, k = y.size, len(dataset.classes)
    w = np.full(n, 1.0 / n)
    members, rounds, outputs = [], [], []
    for r in range(n_rounds):
        seed = int(rng.integers(0, 2**31 - 1))
        draw = None
        if base == "random_stump":
            tree, draw = random_stump(dataset, cfg, w, np.random.default_rng(seed), n_thresholds)
        else:
            tree = fit_tree(dataset, replace(cfg, random_state=seed), sample_weight=w)
        pred = CompiledTree(tree).predict(X)
        wrong = pred != y
        error = float(w[wrong].sum())
        text = describe_learner(tree)
        if error <= ERROR_FLOOR:
            z = hypothesis_weight(ERROR_FLOOR, k)
            note = (f"Round {r + 1} makes no mistake on the weighted rows (error 0): z would be infinite, so it "
                    f"is capped at {z:.2f} (error taken as {ERROR_FLOOR:g}) and boosting stops here.")
            rounds.append(BoostRound(r, text, error, z, 0.0, True, len(members), w, w, wrong, note, draw))
            members.append(Member(len(members), tree, z, dataset.feature_names, seed))
            outputs.append(pred)
        elif error >= 1 - 1 / k - 1e-12:
            note = (f"Round {r + 1}'s learner is no better than chance (error {error:.3f} >= {1 - 1 / k:.3f}), "
                    "so z would not be positive: it is left out and boosting stops.")
            if not members:
                raise ConfigError(f"AdaBoost cannot start: the first learner's weighted error is {error:.3f}, "
                                  "no better than chance. Try deeper base trees or other features.")
            rounds.append(BoostRound(r, text, error, 0.0, 1.0, False, -1, w, w, wrong, note, draw))
        else:
            z = hypothesis_weight(error, k)
            factor = math.exp(-z)  # = error / (1 - error) for two classes
            new_w = np.where(wrong, w, w * factor)
            new_w = new_w / new_w.sum()
            rounds.append(BoostRound(r, text, error, z, factor, True, len(members), w, new_w, wrong, "", draw))
            members.append(Member(len(members), tree, z, dataset.feature_names, seed))
            outputs.append(pred)
            w = new_w
        if progress is not None:
            progress(r + 1, n_rounds)
        if rounds[-1].note:
            break
    params = {"n_rounds": n_rounds, "base": base, "max_depth": depth, "n_thresholds": n_thresholds,
              "random_state": random_state, "tree_config": cfg.to_dict(), "n_classes": k}
    notes = tuple(rd.note for rd in rounds if rd.note)
    return Ensemble("adaboost", dataset.schema, tuple(members), y.copy(), np.array(outputs, dtype=np.int64),
                    None, tuple(rounds), params, notes)
