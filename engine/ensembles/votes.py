"""The ensemble record and its votes: members, their weights, the tally per class, the winner.

Every learner in this package (bagging, random forests, AdaBoost) returns an :class:`Ensemble`: a
tuple of :class:`Member` trees with vote weights, plus what training drew at random (in-bag counts,
feature subsets, seeds) so a page can show it. The combined prediction is

- classification: the weighted-majority vote :math:`H(x) = \\arg\\max_c \\sum_m z_m [h_m(x) = c]`
  (``z_m = 1`` for bagging and forests, AdaBoost's hypothesis weight otherwise); ties go to the class
  listed first;
- regression: the weighted mean :math:`\\bar f(x) = \\sum_m z_m f_m(x) / \\sum_m z_m`.

Members' predictions on the training rows are stored (``train_outputs``), so out-of-bag votes and the
ensemble-size curve need no refitting and no second prediction pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from engine.checks import whole
from engine.errors import DataError
from engine.ensembles.bootstrap import draw_bootstrap
from engine.ensembles.compiled import ColumnAdapter, CompiledTree
from engine.ensembles.stacked import StackedForest
from engine.tree.explain import TreeSum, TreeTerm


@dataclass(frozen=True, eq=False, repr=False)
class Member:
    """One tree of an ensemble: its vote weight, the features it could use, and its random seed."""

    index: int
    tree: object
    weight: float = 1.0
    features: tuple[str, ...] = ()
    seed: int | None = None

    def __repr__(self) -> str:
        return (f"Member(index={self.index}, weight={self.weight:.4g}, leaves={self.tree.n_leaves}, "
                f"depth={self.tree.depth}, features={len(self.features)})")


@dataclass(frozen=True, eq=False, repr=False)
class Ensemble:
    """A trained ensemble (see the module docstring for how it votes).

    ``in_bag[m, i]`` is how often training row ``i`` was drawn for member ``m`` (None without
    bootstrap); ``train_outputs[m, i]`` member ``m``'s prediction on training row ``i`` (class code or
    value); ``train_y`` the training targets (codes or values); ``rounds`` AdaBoost's per-round records;
    ``params`` the settings used; ``notes`` plain sentences about what happened while training.
    """

    method: str
    schema: object
    members: tuple[Member, ...]
    train_y: np.ndarray
    train_outputs: np.ndarray
    in_bag: np.ndarray | None = None
    rounds: tuple = ()
    params: dict = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def __repr__(self) -> str:
        bag = "" if self.in_bag is None else ", bootstrap"
        return (f"Ensemble(method={self.method}, task={self.task}, members={len(self.members)}, "
                f"train_rows={self.train_y.size}{bag})")

    # ----------------------------------------------------------------------------- basics
    @property
    def task(self) -> str:
        return self.schema.task

    @property
    def classes(self) -> tuple[str, ...]:
        return self.schema.classes

    @property
    def n_members(self) -> int:
        return len(self.members)

    @property
    def weights(self) -> np.ndarray:
        """Vote weight of each member (1 for bagging/forests, z for AdaBoost)."""
        return np.array([m.weight for m in self.members], dtype=float)

    @cached_property
    def _compiled(self) -> list[tuple[ColumnAdapter, CompiledTree]]:
        return [(ColumnAdapter(self.schema, m.tree.schema), CompiledTree(m.tree, self.classes)) for m in self.members]

    def encode(self, data) -> np.ndarray:
        """Encoded feature matrix of ``data``: a Dataset, a DataFrame, or an already encoded array."""
        if hasattr(data, "schema") and hasattr(data, "X") and data.schema == self.schema:
            return data.X
        if hasattr(data, "frame") and hasattr(data, "X"):
            data = data.frame
        if isinstance(data, (pd.DataFrame, pd.Series, dict)):
            return self.schema.encode(data)
        try:
            X = np.asarray(data, dtype=float)
        except (TypeError, ValueError):
            raise DataError("Rows to predict must be a table (DataFrame) or an array of numbers.") from None
        X = X[None, :] if X.ndim == 1 else X
        if X.ndim != 2 or X.shape[1] != len(self.schema.feature_names):
            got = X.shape[1] if X.ndim == 2 else "a single value"
            raise DataError(f"Expected {len(self.schema.feature_names)} feature columns, got {got}.")
        return X

    def check_upto(self, upto) -> int | None:
        """``upto`` (use the first ``upto`` members) checked: None, or a whole number >= 1 (capped at M)."""
        if upto is None:
            return None
        return min(whole("upto (the number of members to use)", upto, 1), self.n_members)

    @cached_property
    def _stacked(self) -> StackedForest | None:
        return StackedForest.build(self._compiled, self.task)

    def tree_sum(self) -> TreeSum:
        """The raw output as a sum of the members' leaf values (what :func:`engine.tree.explain.tree_shap`
        explains): the vote shares ``sum_m z_m [h_m(x) = c] / sum_m z_m`` (each leaf a one-hot vote for its
        most likely class) or the weighted mean value. A row with a missing value reaches several leaves of a
        member: the explanation then splits that member's vote between them by their shares."""
        if self.method not in ("bagging", "random_forest", "adaboost"):
            raise DataError(f"The explorer cannot explain a {self.method} ensemble as a vote.")
        w = self.weights / self.weights.sum()
        outputs = tuple(self.classes) if self.task == "classification" else ("value",)
        terms = []
        for m, z, (adapt, ct) in zip(self.members, w, self._compiled):
            cols = ct.class_columns
            terms.append(TreeTerm(m.tree, weight=float(z), outputs=tuple(range(len(outputs))),
                                  columns=tuple(adapt.columns.tolist()), adapt=None if adapt.identity else adapt,
                                  votes=self.task == "classification",
                                  value_columns=None if cols is None else tuple(cols.tolist())))
        return TreeSum(tuple(terms), (0.0,) * len(outputs), outputs, self.schema.feature_names, self.encode,
                       what="vote share" if self.task == "classification" else "value")

    # ----------------------------------------------------------------------------- votes
    def member_outputs(self, data, upto: int | None = None, n_jobs: int | None = None) -> np.ndarray:
        """(M, n) each member's prediction: class codes (int) or values (float).

        From one stacked node table (:class:`~engine.ensembles.stacked.StackedForest`, pieces of members
        and rows on ``n_jobs`` threads: None every core) where the members allow it; rows with a missing
        value, and members with category tests, one member at a time through its own tree."""
        X = np.asarray(self.encode(data), dtype=float)
        upto = self.check_upto(upto)
        k = self.n_members if upto is None else upto
        dtype = np.int64 if self.task == "classification" else float
        out = np.empty((k, X.shape[0]), dtype=dtype)
        stacked = self._stacked
        rows = slice(None)
        if stacked is not None:
            gaps = np.isnan(X).any(axis=1)
            if not gaps.any():                       # no row needs the members' own path: no copies
                return stacked.outputs(X, k, n_jobs).astype(dtype, copy=False)
            whole = np.flatnonzero(~gaps)
            out[:, whole] = stacked.outputs(X[whole], k, n_jobs)
            rows = np.flatnonzero(gaps)
        if stacked is None or rows.size:
            for m, (adapt, ct) in enumerate(self._compiled[:k]):
                out[m, rows] = ct.predict(adapt(X[rows]))
        return out

    def tally(self, outputs: np.ndarray, upto: int | None = None, members=None) -> np.ndarray:
        """Weighted votes (n, K) from member outputs (classification), using the first ``upto`` members
        or the boolean/index selection ``members``; for regression (n, 2): sum of z*f and sum of z."""
        w = self.weights
        upto = self.check_upto(upto)
        sel = np.arange(len(self.members))[: upto if upto is not None else None]
        if members is not None:
            sel = np.arange(len(self.members))[members]
        n = outputs.shape[1]
        if self.task == "classification":
            # one bincount over (member, row) cells, members in order for each row: the additions of a
            # loop over members, in the same order
            K = len(self.classes)
            cells = (outputs[sel] + (np.arange(n) * K)[None, :]).ravel()
            if (w[sel] == 1.0).all():        # sums of ones are whole numbers, exact: count instead (3x faster)
                return np.bincount(cells, minlength=n * K).reshape(n, K).astype(float)
            return np.bincount(cells, weights=np.repeat(w[sel].astype(float), n), minlength=n * K).reshape(n, K)
        return np.stack([w[sel] @ outputs[sel], np.full(n, w[sel].sum())], axis=1)

    def combine(self, votes: np.ndarray) -> np.ndarray:
        """Winning class code per row (first class on ties), or the weighted mean (regression)."""
        if self.task == "classification":
            return np.argmax(votes, axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return votes[:, 0] / votes[:, 1]

    def predict_codes(self, data, upto: int | None = None, *, n_jobs: int | None = None) -> np.ndarray:
        """Winning class codes (or mean values); ``n_jobs`` threads route the members (None: every core)."""
        return self.combine(self.tally(self.member_outputs(data, upto, n_jobs), upto))

    def predict(self, data, upto: int | None = None, *, n_jobs: int | None = None) -> np.ndarray:
        """Class labels (weighted-majority vote) or mean values of the first ``upto`` members."""
        out = self.predict_codes(data, upto, n_jobs=n_jobs)
        if self.task == "classification":
            return np.asarray(self.classes, dtype=object)[out]
        return out

    def vote_shares(self, data, upto: int | None = None) -> np.ndarray:
        """(n, K) share of the total vote weight each class gets (classification)."""
        if self.task != "classification":
            raise DataError("Vote shares exist only for classification ensembles.")
        votes = self.tally(self.member_outputs(data, upto), upto)
        return votes / np.maximum(votes.sum(axis=1, keepdims=True), 1e-300)

    # ----------------------------------------------------------------------------- out of bag
    def oob_votes(self, upto: int | None = None, outputs: np.ndarray | None = None) -> np.ndarray:
        """Votes on each training row from the members (of the first ``upto``) that did not draw it;
        ``outputs``: member outputs on (a changed copy of) the training rows instead of the stored ones."""
        outputs = self.train_outputs if outputs is None else outputs
        if self.in_bag is None:
            raise DataError("Out-of-bag votes need bootstrap samples; this ensemble used every row.")
        upto = self.check_upto(upto)
        k = self.n_members if upto is None else upto
        out_bag = self.in_bag[:k] == 0
        w = self.weights[:k]
        if self.task == "classification":
            votes = np.zeros((self.train_y.size, len(self.classes)))
            for m in range(k):
                rows = np.flatnonzero(out_bag[m])
                votes[rows, outputs[m, rows]] += w[m]
            return votes
        wm = out_bag * w[:, None]
        return np.stack([(wm * outputs[:k]).sum(0), wm.sum(0)], axis=1)

    def oob_predictions(self, upto: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(OOB prediction per training row, mask of rows with at least one out-of-bag member)."""
        votes = self.oob_votes(upto)
        has = votes.sum(axis=1) > 0 if self.task == "classification" else votes[:, 1] > 0
        return self.combine(votes), has

    def oob_score(self, upto: int | None = None) -> float:
        """OOB accuracy (classification) or OOB mean squared error (regression); NaN if no OOB row."""
        pred, has = self.oob_predictions(upto)
        if not has.any():
            return float("nan")
        return score(self.task, self.train_y[has], pred[has])

    def bootstrap_indices(self, member: int) -> np.ndarray:
        """The row indices member ``member`` drew, in drawing order (regenerated from its seed)."""
        if self.in_bag is None:
            raise DataError("This ensemble used every training row: there was no bootstrap draw.")
        m = self.members[whole("member", member, 0, self.n_members - 1)]
        return draw_bootstrap(self.train_y.size, self.params["n_draws"], m.seed)


def score(task: str, y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Accuracy (classification) or mean squared error (regression)."""
    if y_true.size == 0:
        return float("nan")
    if task == "classification":
        return float(np.mean(y_true == y_pred))
    return float(np.mean((np.asarray(y_true, float) - np.asarray(y_pred, float)) ** 2))


@dataclass(frozen=True, eq=False, repr=False)
class VoteBreakdown:
    """How the ensemble decided one row: ``members`` (member, prediction, weight, features), the
    ``tally`` per class (or mean for regression) and the ``winner``."""

    members: pd.DataFrame
    tally: pd.DataFrame
    winner: str | float
    task: str

    def __repr__(self) -> str:
        return f"VoteBreakdown(winner={self.winner!r}, members={len(self.members)})"


def vote_breakdown(ensemble: Ensemble, row, upto: int | None = None) -> VoteBreakdown:
    """Each member's prediction and weight for one row, the tally per class and the winner.

    ``row``: a one-row DataFrame/Series/dict of feature values, or one encoded row.
    """
    X = ensemble.encode(row)
    if X.shape[0] != 1:
        raise DataError(f"A vote breakdown is for one row; got {X.shape[0]} rows.")
    out = ensemble.member_outputs(X, upto)[:, 0]
    k = out.size
    w = ensemble.weights[:k]
    if ensemble.task == "classification":
        labels = np.asarray(ensemble.classes, dtype=object)
        members = pd.DataFrame({"member": np.arange(k), "prediction": labels[out], "weight": w})
        votes = np.bincount(out, weights=w, minlength=len(ensemble.classes))
        tally = pd.DataFrame({"class": list(ensemble.classes), "votes": np.bincount(out, minlength=len(ensemble.classes)),
                              "weight": votes,
                              "share": votes / max(votes.sum(), 1e-300)})
        winner = ensemble.classes[int(np.argmax(votes))]
    else:
        members = pd.DataFrame({"member": np.arange(k), "prediction": out, "weight": w})
        mean = float(w @ out / w.sum())
        tally = pd.DataFrame({"statistic": ["mean", "std", "min", "max"],
                              "value": [mean, float(out.std()), float(out.min()), float(out.max())]})
        winner = mean
    return VoteBreakdown(members, tally, winner, ensemble.task)
