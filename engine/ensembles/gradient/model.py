"""The boosted model: a start value plus the learning rate times the sum of its trees' leaf values.

:class:`GradientEnsemble` is an :class:`engine.ensembles.votes.Ensemble` (its ``members`` are the trees,
``rounds`` the per-round records, ``params`` the settings) whose prediction is a running sum instead of
a vote. Round m's raw output (the margin) is

.. math:: F_m(x) = F_0 + \\nu \\sum_{j \\le m} h_j(x)

with one column per class for multinomial log-loss (K trees a round, member ``m * K + k`` is class k's
tree of round m). ``predict_proba`` is sigmoid/softmax of F, ``predict`` the value (regression) or the most
probable class (first on ties).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from engine.errors import DataError
from engine.ensembles.compiled import CompiledTree
from engine.ensembles.votes import Ensemble
from engine.tree.explain import TreeSum, TreeTerm
from engine.ensembles.gradient.losses import make_loss


@dataclass(frozen=True, eq=False, repr=False)
class GBRound:
    """One boosting round (``index`` 0-based): its trees (member indices, K for multinomial), the loss
    on the training rows before and after it (and on the test rows if given), and the rows it fitted on
    (``in_sample``, None when every row was used)."""

    index: int
    members: tuple[int, ...]
    train_loss_before: float
    train_loss: float
    test_loss: float = float("nan")
    in_sample: np.ndarray | None = None

    def __repr__(self) -> str:
        return (f"GBRound(index={self.index}, trees={len(self.members)}, train_loss={self.train_loss:.6g}, "
                f"test_loss={self.test_loss:.6g})")


@dataclass(frozen=True, eq=False, repr=False)
class GradientEnsemble(Ensemble):
    """A gradient-boosted ensemble (see the module docstring); ``init_raw`` is F_0 (one value per column)."""

    init_raw: np.ndarray = field(default_factory=lambda: np.zeros(1))
    learning_rate: float = 0.1
    loss_name: str = "squared_error"

    def __repr__(self) -> str:
        return (f"GradientEnsemble(task={self.task}, loss={self.loss_name}, rounds={self.n_rounds}, "
                f"learning_rate={self.learning_rate:g}, train_rows={self.train_y.size})")

    @property
    def loss(self):
        return make_loss(self.loss_name, self.task, len(self.classes))

    @property
    def n_columns(self) -> int:
        """Raw output columns: K for multinomial log-loss, else 1."""
        return int(self.init_raw.size)

    @property
    def n_rounds(self) -> int:
        return len(self.rounds)

    @cached_property
    def _trees(self) -> list[CompiledTree]:
        return [CompiledTree(m.tree) for m in self.members]

    def check_rounds(self, upto) -> int:
        """``upto`` rounds checked (None: all; 0 is the start value alone)."""
        if upto is None:
            return self.n_rounds
        if isinstance(upto, bool) or not isinstance(upto, (int, np.integer)) or upto < 0:
            raise DataError(f"upto (rounds to use) must be a whole number >= 0; got {upto!r}.")
        return min(int(upto), self.n_rounds)

    def round_outputs(self, data, r: int) -> np.ndarray:
        """(n, columns) round ``r``'s trees' leaf values (before the learning rate) on ``data``."""
        X = np.asarray(self.encode(data), dtype=float)
        return np.stack([self._trees[m].values(X)[:, 0] for m in self.rounds[r].members], axis=1)

    def staged_raw(self, data):
        """F_0, F_1, ..., F_M on ``data`` (each (n, columns)), one tree pass per round."""
        X = np.asarray(self.encode(data), dtype=float)
        raw = np.tile(self.init_raw, (X.shape[0], 1))
        yield raw.copy()
        for r in range(self.n_rounds):
            raw += self.learning_rate * self.round_outputs(X, r)
            yield raw.copy()

    def raw(self, data, upto: int | None = None) -> np.ndarray:
        """F_upto on ``data`` (n, columns): the margin (log-odds for two classes), the value for regression."""
        upto = self.check_rounds(upto)
        X = np.asarray(self.encode(data), dtype=float)
        raw = np.tile(self.init_raw, (X.shape[0], 1))
        for r in range(upto):
            raw += self.learning_rate * self.round_outputs(X, r)
        return raw

    decision_function = raw

    def _from_raw(self, raw: np.ndarray, codes: bool) -> np.ndarray:
        if self.task == "regression":
            return raw[:, 0]
        if raw.shape[1] == 1:
            out = (raw[:, 0] > 0).astype(np.int64)      # p > 1/2; at exactly 1/2 the first class
        else:
            out = np.argmax(raw, axis=1)
        return out if codes else np.asarray(self.classes, dtype=object)[out]

    def predict_codes(self, data, upto: int | None = None, *, n_jobs: int | None = None) -> np.ndarray:
        return self._from_raw(self.raw(data, upto), codes=True)

    def predict(self, data, upto: int | None = None, *, n_jobs: int | None = None) -> np.ndarray:
        """Values (regression) or class labels of the first ``upto`` rounds (None: all)."""
        return self._from_raw(self.raw(data, upto), codes=False)

    def predict_proba(self, data, upto: int | None = None) -> np.ndarray:
        """(n, K) class probabilities (sigmoid or softmax of the raw output)."""
        if self.task != "classification":
            raise DataError("Class probabilities exist only when the target is a class.")
        return self.loss.probabilities(self.raw(data, upto))

    vote_shares = predict_proba

    def staged_predict(self, data):
        """Predictions after rounds 1, 2, ..., M (as scikit-learn's ``staged_predict``)."""
        for k, raw in enumerate(self.staged_raw(data)):
            if k:
                yield self._from_raw(raw, codes=False)

    def member_outputs(self, data, upto: int | None = None, n_jobs: int | None = None) -> np.ndarray:
        """(members, n) each tree's leaf value (before the learning rate) on ``data``."""
        X = np.asarray(self.encode(data), dtype=float)
        k = len(self.members) if upto is None else self.check_rounds(upto) * self.n_columns
        return np.stack([t.values(X)[:, 0] for t in self._trees[:k]]) if k else np.empty((0, X.shape[0]))

    def tally(self, outputs: np.ndarray, upto: int | None = None, members=None) -> np.ndarray:
        """From :meth:`member_outputs`: class probabilities (n, K), or for regression (n, 2) the value and 1,
        so the vote-based figures (the decision map) draw the boosted model as they draw a vote."""
        k = outputs.shape[0] // self.n_columns
        raw = self.init_raw[None, :] + self.learning_rate * outputs.T.reshape(outputs.shape[1], k, self.n_columns).sum(1)
        if self.task == "classification":
            return self.loss.probabilities(raw)
        return np.stack([raw[:, 0], np.ones(raw.shape[0])], axis=1)

    def combine(self, votes: np.ndarray) -> np.ndarray:
        """Most probable class code (first on ties) or the value, from :meth:`tally`'s table."""
        return np.argmax(votes, axis=1) if self.task == "classification" else votes[:, 0]

    def waterfall(self, row, column: int = 0, upto: int | None = None) -> pd.DataFrame:
        """One row's raw output ``column`` as steps ``base score``, ``tree 1`` .. ``tree upto`` (round r's tree
        of that column) with ``start``, ``contribution`` (learning rate x leaf value) and ``end``: the layout
        of :meth:`engine.models.explain.Contributions.waterfall`, so the same waterfall chart draws it."""
        X = np.asarray(self.encode(row), dtype=float)
        if X.shape[0] != 1:
            raise DataError(f"A breakdown is for one row; got {X.shape[0]} rows.")
        if not 0 <= int(column) < self.n_columns:
            raise DataError(f"column must be 0..{self.n_columns - 1}; got {column!r}.")
        base, contrib = self.contributions(X, int(column))
        c = contrib[0, :self.check_rounds(upto)]
        ends = base + np.cumsum(c)
        steps = pd.DataFrame({"step": [f"tree {r + 1}" for r in range(c.size)],
                              "start": np.concatenate([[base], ends[:-1]]) if c.size else [], "contribution": c,
                              "end": ends})
        head = pd.DataFrame({"step": ["base score"], "start": [0.0], "contribution": [base], "end": [base]})
        return pd.concat([head, steps], ignore_index=True)

    def contributions(self, data, column: int = 0) -> tuple[float, np.ndarray]:
        """(F_0, (n, rounds) each round's learning rate x leaf value) of raw column ``column``: the start
        value plus a row's contributions is its raw output."""
        X = np.asarray(self.encode(data), dtype=float)
        cols = [self.learning_rate * self._trees[rd.members[column]].values(X)[:, 0] for rd in self.rounds]
        return float(self.init_raw[column]), (np.stack(cols, axis=1) if cols else np.empty((X.shape[0], 0)))

    def tree_sum(self):
        """The raw output (the margin; the value for regression) as F_0 plus each tree's leaf values times the
        learning rate, tree ``m * K + k`` adding to column k (what :func:`engine.tree.explain.tree_shap`
        explains, in XGBoost's layout: log-odds of the second class for two classes)."""
        if self.task == "regression":
            outputs = ("value",)
        else:
            outputs = tuple(self.classes) if self.n_columns > 1 else (self.classes[1],)
        terms = tuple(TreeTerm(self.members[m].tree, weight=float(self.learning_rate), outputs=(k,))
                      for rd in self.rounds for k, m in enumerate(rd.members))
        return TreeSum(terms, tuple(float(v) for v in self.init_raw), outputs, self.schema.feature_names,
                       self.encode, what="value" if self.task == "regression" else "margin")

    def losses(self, data, y) -> np.ndarray:
        """The loss after 0, 1, ..., M rounds on rows ``data`` with targets ``y`` (codes or values)."""
        y = np.asarray(y)
        return np.array([self.loss.loss(y, raw) for raw in self.staged_raw(data)])

    def to_onnx(self) -> bytes:
        """ONNX model bytes (:func:`engine.ensembles.gradient.onnx_boost.boosting_to_onnx`)."""
        from engine.ensembles.gradient.onnx_boost import boosting_to_onnx   # onnx is imported on export only
        return boosting_to_onnx(self)

    def oob_votes(self, upto=None, outputs=None):
        raise DataError("Gradient boosting uses no bootstrap: there are no out-of-bag votes.")
