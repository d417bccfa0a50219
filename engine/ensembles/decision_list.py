"""Decision lists (k-DL) learned with DECISION-LIST-LEARNING (Russell & Norvig, lecture notes).

::

    DECISION-LIST-LEARNING(examples):
        if examples is empty: return the trivial decision list (the default class)
        t = a test (conjunction of at most k literals) that matches a non-empty subset examples_t
            of examples whose rows all have one class
        if there is no such t: return failure
        o = that class
        return  (t, o)  followed by  DECISION-LIST-LEARNING(examples - examples_t)

Literals come from :mod:`engine.ensembles.literals` (one-hot categories, quantile thresholds). Among
the tests that qualify we prefer the one covering the most rows, then the shorter test, then the
first in the fixed literal order (lexicographic in the literals' positions). The search is vectorised:
with ``L`` the (literals x rows) 0/1 matrix of the rows left and ``Y`` their one-hot classes, the class
counts of every pair test are ``(L * Y[:, c]) @ L.T`` and of every triple ``(L * L_i * Y[:, c]) @ L.T``
for each first literal i; a test qualifies when one class count equals its coverage.

The final default (when every row is covered) is the most frequent class of the training rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.errors import ConfigError, DataError
from engine.ensembles.literals import Literal, check_int, literal_matrix, make_literals, monomial_text

#: Upper bound on literals^k * rows per search step (keeps one step interactive).
SEARCH_BUDGET = 1e9


@dataclass(frozen=True, eq=False)
class DLRule:
    """One entry ``if test then prediction``; ``rows``: positions (in the training data) it removed."""

    index: int
    test: tuple[Literal, ...]
    prediction: str
    rows: np.ndarray

    @property
    def n_covered(self) -> int:
        return int(self.rows.size)

    def text(self) -> str:
        return f"if {monomial_text(self.test)} then {self.prediction}"

    def __repr__(self) -> str:
        return f"DLRule({self.index}: {self.text()!r}, covers {self.n_covered})"


@dataclass(frozen=True, eq=False)
class DecisionList:
    """An ordered list of rules and a default class; the first rule whose test holds decides."""

    rules: tuple[DLRule, ...]
    default: str
    schema: object

    def __repr__(self) -> str:
        return f"DecisionList(rules={len(self.rules)}, default={self.default!r})"

    def text(self) -> str:
        lines = [f"{r.index + 1}. {r.text()}" for r in self.rules]
        return "\n".join(lines + [f"else {self.default}"])

    def rule_of(self, data) -> np.ndarray:
        """Index of the first rule that fires on each row (-1: the default)."""
        X = self.schema.encode(data.frame if hasattr(data, "frame") else data) \
            if not isinstance(data, np.ndarray) else data
        out = np.full(X.shape[0], -1, dtype=np.int64)
        for r in self.rules:
            hit = literal_matrix(r.test, self.schema, X).all(axis=0) & (out < 0)
            out[hit] = r.index
        return out

    def predict(self, data) -> np.ndarray:
        """Class label of each row (a DataFrame, a Dataset or an encoded matrix)."""
        which = self.rule_of(data)
        labels = np.array([r.prediction for r in self.rules] + [self.default], dtype=object)
        return labels[np.where(which < 0, len(self.rules), which)]


class DecisionListLearner:
    """DECISION-LIST-LEARNING one rule at a time: ``step()``, ``undo()``, ``run()``.

    ``failure`` holds the plain-sentence reason when no test qualifies for the rows left.
    """

    def __init__(self, dataset, *, k: int = 2, n_thresholds: int = 3, negations: bool = True):
        if dataset.task != "classification":
            raise ConfigError("Decision lists predict classes; choose a categorical target for them.")
        if len(dataset) == 0:
            raise DataError("There are no rows to learn from.")
        self.k = check_int("k", k, 1, 3)
        self.dataset = dataset
        self.literals = make_literals(dataset, n_thresholds=n_thresholds, negations=negations)
        self.masks = literal_matrix(self.literals, dataset.schema, dataset.X)
        self.y = np.asarray(dataset.y)
        self.classes = dataset.classes
        size = float(len(self.literals)) ** self.k * len(dataset)
        if size > SEARCH_BUDGET:
            raise ConfigError(f"k = {self.k} with {len(self.literals)} literals over {len(dataset)} rows is too "
                              "large a search for one step; use a smaller k or fewer thresholds.")
        counts = np.bincount(self.y, minlength=len(self.classes))
        self.default = self.classes[int(np.argmax(counts))]
        self.reset()

    def reset(self) -> "DecisionListLearner":
        self._rules: list[DLRule] = []
        self.failure: str | None = None
        return self

    @property
    def rules(self) -> tuple[DLRule, ...]:
        return tuple(self._rules)

    @property
    def remaining(self) -> np.ndarray:
        """Positions of the training rows no rule has covered yet."""
        left = np.ones(len(self.y), dtype=bool)
        for r in self._rules:
            left[r.rows] = False
        return np.flatnonzero(left)

    @property
    def done(self) -> bool:
        return self.failure is not None or self.remaining.size == 0

    @property
    def decision_list(self) -> DecisionList:
        return DecisionList(self.rules, self.default, self.dataset.schema)

    def step(self) -> DLRule | None:
        """Add the next rule; None (and ``failure`` set) when no test qualifies, or when done."""
        if self.done:
            return None
        rows = self.remaining
        found = best_test(self.masks[:, rows], self.y[rows], len(self.classes), self.k)
        if found is None:
            self.failure = self._failure_text(rows)
            return None
        idx, cls = found
        test = tuple(self.literals[i] for i in idx)
        covered = rows[self.masks[list(idx)][:, rows].all(axis=0)]
        rule = DLRule(len(self._rules), test, self.classes[cls], covered)
        self._rules.append(rule)
        return rule

    def undo(self) -> bool:
        """Take back the last rule (or the failure); False if there is nothing to undo."""
        if self.failure is not None:
            self.failure = None
            return True
        if not self._rules:
            return False
        self._rules.pop()
        return True

    def run(self, max_steps: int | None = None) -> "DecisionListLearner":
        n = 0
        while (max_steps is None or n < max_steps) and self.step() is not None:
            n += 1
        return self

    def _failure_text(self, rows: np.ndarray) -> str:
        ids = self.dataset.row_ids[rows]
        shown = ", ".join(str(i) for i in ids[:12]) + (f" and {ids.size - 12} more" if ids.size > 12 else "")
        text = (f"No test of at most {self.k} literal{'s' if self.k > 1 else ''} covers only rows of one class "
                f"among the {rows.size} rows left (rows {shown}), so these rows are not a {self.k}-decision list "
                "over these literals: try a larger k or more thresholds.")
        _, group = np.unique(np.packbits(self.masks[:, rows].T, axis=1), axis=0, return_inverse=True)
        pairs = np.unique(np.stack([group.ravel(), self.y[rows]], axis=1), axis=0)
        if np.unique(pairs[:, 0]).size < pairs.shape[0]:
            text += " Some of them agree on every literal but have different classes, which no list can separate."
        return text


def best_test(L: np.ndarray, y: np.ndarray, n_classes: int, k: int):
    """(literal indices, class) of the preferred qualifying test on these rows, or None."""
    Lf = L.astype(np.float32)
    Y = np.zeros((y.size, n_classes), dtype=np.float32)
    Y[np.arange(y.size), y] = 1.0
    best = None  # (coverage, size, indices, class)

    def consider(cover, size, idx, cls):
        nonlocal best
        if cover > 0 and (best is None or cover > best[0]):
            best = (cover, size, idx, cls)

    total1 = Lf.sum(axis=1)
    per1 = Lf @ Y
    pure1 = (per1.max(axis=1) == total1) & (total1 > 0)
    if pure1.any():
        i = int(np.argmax(np.where(pure1, total1, -1)))
        consider(total1[i], 1, (i,), int(np.argmax(per1[i])))
    if k >= 2:
        found = _best_pairs(Lf, Y, Lf, start=0)
        if found is not None:
            consider(found[0], 2, found[1], found[2])
    if k >= 3:
        for i in range(Lf.shape[0] - 2):
            sub = Lf[i + 1:] * Lf[i]
            found = _best_pairs(sub, Y, Lf[i + 1:], start=i + 1)
            if found is not None and (best is None or found[0] > best[0]):
                consider(found[0], 3, (i,) + found[1], found[2])
    return None if best is None else (best[2], best[3])


def _best_pairs(A: np.ndarray, Y: np.ndarray, B: np.ndarray, start: int):
    """Best pure test among conjunctions (row a of A) AND (literal b of B) with a < b (positions in B)."""
    total = A @ B.T
    per = np.stack([(A * Y[:, c]) @ B.T for c in range(Y.shape[1])])
    pure = (per.max(axis=0) == total) & (total > 0)
    pure &= np.triu(np.ones_like(pure, dtype=bool), 1)  # a < b (A and B index the same literals)
    if not pure.any():
        return None
    score = np.where(pure, total, -1)
    flat = int(np.argmax(score))
    a, b = divmod(flat, score.shape[1])
    return float(total[a, b]), (start + a, start + b), int(np.argmax(per[:, a, b]))


def learn_decision_list(dataset, *, k: int = 2, n_thresholds: int = 3, negations: bool = True) -> DecisionList:
    """Run DECISION-LIST-LEARNING to the end; DataError with the reason if it fails."""
    learner = DecisionListLearner(dataset, k=k, n_thresholds=n_thresholds, negations=negations).run()
    if learner.failure is not None:
        raise DataError(learner.failure)
    return learner.decision_list
