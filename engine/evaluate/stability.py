"""Instability: small changes in the training rows can give a very different tree.

Each run perturbs the training rows and grows a tree with the same configuration; the trees are
compared with the tree grown on the unchanged rows (the *original*) on the test rows. Perturbations
(``fraction`` = share of rows affected, at least one row):

- ``bootstrap``: draw n rows with replacement (row i gets weight = times drawn, about 36.8% get 0);
- ``subsample``: leave out ``fraction`` of the rows;
- ``flip``: classification: give ``fraction`` of the rows another class, drawn uniformly from the
  other classes; regression: give them the target of another row drawn at random;
- ``jitter``: add Gaussian noise N(0, (0.25 sd_j)^2) to every numeric feature j of ``fraction`` of
  the rows (sd_j = the feature's standard deviation on the training rows).

Per run: the root split, the size, the test score and how far the predictions moved:
classification ``agreement`` = share of test rows with the same predicted class as the original;
regression ``mean_abs_change`` = mean |prediction - original prediction|. The vote of all runs
(majority class, or mean value) is scored too: averaging unstable trees is what bagging and random
forests do. All randomness comes from ``numpy.random.default_rng(seed)``.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from engine.checks import choice, shown, whole
from engine.checks import rows as check_rows
from engine.errors import ConfigError, DataError
from engine.evaluate.validation import _check_seed, fit_for_evaluation
from engine.budget import check_trees, classes_text, reserving
from engine.grow.parallel import check_n_jobs, concurrency, run_tasks
from engine.evaluate.metrics import check_metric, default_metric, evaluate, regression_scores, true_codes

PERTURBATIONS: dict[str, str] = {
    "bootstrap": "bootstrap sample (rows drawn with replacement)",
    "subsample": "leave out a share of the rows",
    "flip": "flip the class (regression: swap the target) of a share of the rows",
    "jitter": "add noise to the numeric features of a share of the rows",
}
JITTER_SCALE = 0.25  # noise sd as a multiple of each numeric feature's sd
MAX_RUNS = 1000  # the page offers up to 50; the engine refuses more than this whatever it is sent


def _rebuilt(dataset, frame):
    """A data set like ``dataset`` (same kinds, target, task) over an edited copy of its table."""
    from engine.data.dataset import Dataset
    return Dataset.from_frame(frame, target=dataset.target, kinds=dataset.kinds, task=dataset.task,
                              name=dataset.name)


def perturb(dataset, method: str, *, fraction: float = 0.05, rng=None):
    """``(data, sample_weight or None, rows_changed)``: one perturbed copy of the training rows."""
    choice("method", method, PERTURBATIONS)
    if isinstance(fraction, bool) or not isinstance(fraction, numbers.Real) or not 0 < fraction <= 0.5:
        raise ConfigError(f"fraction must be a share between 0 and 0.5 (e.g. 0.05); got {shown(fraction)}.")
    rng = rng if rng is not None else np.random.default_rng(0)
    n = len(dataset)
    if method == "bootstrap":
        weight = np.bincount(rng.integers(0, n, size=n), minlength=n).astype(float)
        return dataset, weight, int(np.count_nonzero(weight == 0))
    k = max(1, int(round(fraction * n)))
    chosen = np.sort(rng.choice(n, size=k, replace=False))
    if method == "subsample":
        if n - k < 2:
            raise DataError(f"Leaving out {k} of {n} rows leaves too few to learn from; use a smaller share.")
        weight = np.ones(n)
        weight[chosen] = 0.0
        return dataset, weight, k
    frame = dataset.frame.copy()
    if method == "flip":
        target = frame.columns.get_loc(dataset.target)
        if dataset.task == "classification":
            K = len(dataset.classes)
            if K < 2:
                raise DataError("Flipping classes needs at least two classes.")
            codes = (dataset.y[chosen] + rng.integers(1, K, size=k)) % K
            frame.iloc[chosen, target] = np.asarray(dataset.classes, dtype=object)[codes]
        else:
            frame.iloc[chosen, target] = dataset.y[rng.integers(0, n, size=k)]
        return _rebuilt(dataset, frame), None, k
    numeric = [c for c in dataset.feature_names if dataset.kind(c) == "numeric"]
    if not numeric:
        raise ConfigError("jitter changes numeric features, and this data has none: use bootstrap, "
                          "subsample or flip.")
    for col in numeric:
        values = frame[col].to_numpy(dtype=float, na_value=np.nan, copy=True)
        sd = float(np.nanstd(values)) if np.isfinite(values).any() else 0.0
        values[chosen] = values[chosen] + rng.normal(0.0, JITTER_SCALE * sd, size=k)
        frame[col] = values
    return _rebuilt(dataset, frame), None, k


def _root_text(tree) -> tuple[str, str]:
    root = tree.root
    if root.is_leaf:
        return "(a single leaf)", "(none)"
    return root.split.describe(), root.split.feature


@dataclass(frozen=True, repr=False)
class InstabilityResult:
    """Trees grown on perturbed training rows, compared with the original tree on the test rows.

    ``runs``: run, root, root_feature, same_root (the same test), same_root_feature, n_leaves, depth,
    test_score, rows_changed and
    ``agreement`` (classification) or ``mean_abs_change`` (regression). ``original``: the same
    fields for the unperturbed tree. ``vote_score``: test score of the runs' vote (majority class or
    mean prediction). ``unstable_share``: share of test rows predicted differently by at least one run.
    """

    method: str
    fraction: float
    seed: int
    task: str
    metric: str
    original: dict
    runs: pd.DataFrame = field(compare=False)
    vote_score: float
    unstable_share: float

    @property
    def same_root_share(self) -> float:
        """Share of runs whose root test is exactly the original's (feature and threshold/categories)."""
        return float(self.runs["same_root"].mean())

    @property
    def same_root_feature_share(self) -> float:
        """Share of runs whose root splits on the original's root feature (thresholds may differ)."""
        return float(self.runs["same_root_feature"].mean())

    @property
    def change_column(self) -> str:
        return "agreement" if self.task == "classification" else "mean_abs_change"

    def root_counts(self, by: str = "root_feature") -> pd.DataFrame:
        """How many runs put each feature (``by="root"``: each exact test) at the root, most frequent first.

        Columns: the ``by`` column, runs, and ``splits`` (the distinct root tests, joined by " | ").
        """
        if by not in ("root", "root_feature"):
            raise ConfigError(f"by must be 'root' or 'root_feature'; got {by!r}.")
        groups = self.runs.groupby(by, sort=False)["root"]
        table = pd.DataFrame({by: list(groups.groups), "runs": groups.size().to_numpy(),
                              "splits": [" | ".join(dict.fromkeys(v)) for _, v in groups]})
        return table.sort_values("runs", ascending=False, kind="stable").reset_index(drop=True)

    def __repr__(self) -> str:
        change = self.runs[self.change_column].mean()
        return (f"InstabilityResult(method={self.method!r}, runs={len(self.runs)}, "
                f"same_root_feature={self.same_root_feature_share:.2f}, same_root={self.same_root_share:.2f}, "
                f"{self.change_column}={change:.3f}, seed={self.seed})")


@reserving
def instability(train, test, config, *, runs: int = 10, method: str = "bootstrap", fraction: float = 0.05,
                seed: int = 0, metric: str | None = None, progress=None, n_jobs: int | None = None,
                should_stop=None) -> InstabilityResult:
    """Grow ``runs`` trees on perturbed copies of ``train`` and compare them with the original tree.

    ``progress(done, total)`` is called after each tree (the original counts as the first). ``n_jobs``
    trees grow at once (None: all cores); the perturbations are drawn before any tree grows, so the
    result does not depend on ``n_jobs``.
    """
    if check_rows("test", test, allow_none=True) is None or len(test) == 0:
        raise DataError("Comparing trees needs test rows: set a test share on the Data page.")
    whole("runs", runs, 1, MAX_RUNS)
    choice("method", method, PERTURBATIONS)
    metric = check_metric(default_metric(train.task) if metric is None else metric, train.task)
    seed = _check_seed(seed)
    rng = np.random.default_rng(seed)
    check_trees(train, config, what=f"Comparing {int(runs) + 1} trees on {len(train):,} rows"
                       f"{classes_text(train)}", n_trees=int(runs) + 1, kept_trees=int(runs) + 1,
                       trees_word="runs", at_once=concurrency(n_jobs, int(runs) + 1, len(train) * (int(runs) + 1)))
    tasks = [(train, None, config, seed, test, metric)]
    changes = []
    for r in range(int(runs)):
        data, weight, changed = perturb(train, method, fraction=fraction, rng=rng)
        tasks.append((data, weight, config, seed + r + 1, test, metric))
        changes.append(changed)
    grown = run_tasks(_fit_and_score, tasks, n_jobs=check_n_jobs(n_jobs), progress=progress,
                      should_stop=should_stop, rows=len(train) * len(tasks), shared=(test,))
    reference, ref_pred, ref_score = grown[0]
    ref_root, ref_feature = _root_text(reference)
    original = {"root": ref_root, "root_feature": ref_feature, "n_leaves": reference.n_leaves,
                "depth": reference.depth, "test_score": ref_score}
    records, preds = [], []
    for r, ((tree, pred, test_score), changed) in enumerate(zip(grown[1:], changes)):
        preds.append(pred)
        root, feature = _root_text(tree)
        rec = {"run": r + 1, "root": root, "root_feature": feature, "same_root": root == ref_root,
               "same_root_feature": feature == ref_feature,
               "n_leaves": tree.n_leaves, "depth": tree.depth,
               "test_score": test_score, "rows_changed": changed}
        if train.task == "classification":
            rec["agreement"] = float(np.mean(pred == ref_pred))
        else:
            rec["mean_abs_change"] = float(np.mean(np.abs(pred.astype(float) - ref_pred.astype(float))))
        records.append(rec)
    preds = np.asarray(preds)
    unstable = float(np.mean(np.any(preds != ref_pred[None, :], axis=0)))
    return InstabilityResult(method, float(fraction), seed, train.task, metric, original,
                             pd.DataFrame(records), _vote_score(preds, test, reference, metric), unstable)


def _fit_and_score(data, weight, config, seed: int, test, metric: str):
    """One tree of :func:`instability`: (tree, its predictions on ``test``, its test score)."""
    tree = fit_for_evaluation(data, config, seed=seed, sample_weight=weight)
    return tree, tree.predict(test.frame), evaluate(tree, test).scores[metric]


def _vote_score(preds: np.ndarray, test, tree, metric: str) -> float:
    """Score of the runs' majority vote (classification, ties to the first class) or mean (regression)."""
    if tree.task == "regression":
        return regression_scores(test.y, preds.astype(float).mean(axis=0))[metric]
    classes = np.asarray(tree.schema.classes, dtype=object)
    votes = np.stack([(preds == c).sum(axis=0) for c in classes], axis=1)
    winner = np.argmax(votes, axis=1)
    y = true_codes(tree, test)
    cm_acc = float(np.mean(winner == y))
    if metric == "accuracy":
        return cm_acc
    if metric == "error":
        return 1.0 - cm_acc
    from engine.evaluate.metrics import confusion_matrix, per_class_scores
    report = per_class_scores(confusion_matrix(y, winner, len(classes)), classes)
    return float(report["f1"].iloc[-2])
