"""Quiz: before a step, guess the split; then compare with the gain table and keep a running score.

A question (:func:`make_question`) names the node the next ``Grower.step()`` will split and its
candidate features in column order, *without* scores (the ranking would give the answer away).
The answer key travels inside the question (hidden from its repr), so judging is a pure function:

- the feature is right when it is the winner's, or ties with it (same score, within 1e-12 relative;
  the grower then takes the earlier column, but the pick is just as good);
- with ``ask_threshold`` (every algorithm but ID3) a numeric feature also needs a threshold t. Let
  :math:`c_1 < \\dots < c_m` be the feature's candidate thresholds at the node (midpoints between
  neighbouring distinct values that leave enough rows on each side) and :math:`c_k` the best one. The
  guess is right when :math:`c_{k-1} < t < c_{k+1}`: every such t sends the node's rows the same way
  as :math:`c_k` or the neighbours' gap. Without a lower neighbour the bound is the node's smallest
  value (inclusive), without an upper one its largest value (exclusive: t = max sends every row left).
  Several equally good thresholds give several windows; any of them counts.

:class:`QuizScore` is the running score (a frozen value: ``score = score.add(result)``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from engine.errors import ConfigError
from engine.split.search import TIE_TOL, eligible


@dataclass(frozen=True)
class Window:
    """Accepted thresholds: ``lo < t < hi`` (``lo <= t`` when ``lo_closed``) around ``best``."""

    lo: float
    hi: float
    best: float
    lo_closed: bool = False

    def contains(self, t: float) -> bool:
        above = t >= self.lo if self.lo_closed else t > self.lo
        return above and t < self.hi

    def __repr__(self) -> str:
        return f"Window({'[' if self.lo_closed else '('}{self.lo:g}, {self.hi:g}), best={self.best:g})"


@dataclass(frozen=True)
class AnswerKey:
    """What counts as right: the winning feature and its test, the features tying with it, and for
    each accepted numeric feature its threshold windows (empty when thresholds are not asked)."""

    winner: str
    winner_test: str
    accepted: tuple[str, ...]
    windows: tuple[tuple[str, tuple[Window, ...]], ...] = ()

    def windows_of(self, feature: str) -> tuple[Window, ...]:
        return dict(self.windows).get(feature, ())


@dataclass(frozen=True)
class QuizQuestion:
    """The node about to be split and the features to choose from (column order, no scores).

    ``numeric`` lists the features that need a threshold (only when ``ask_threshold``); ``ranges``
    gives each one's (smallest, largest) value at the node, for the input widget.
    """

    node_id: int
    features: tuple[str, ...]
    ask_threshold: bool
    numeric: tuple[str, ...] = ()
    ranges: tuple[tuple[str, float, float], ...] = ()
    n_rows: int = 0
    key: AnswerKey = field(default=None, repr=False, compare=False)

    def needs_threshold(self, feature: str) -> bool:
        return self.ask_threshold and feature in self.numeric

    def range_of(self, feature: str) -> tuple[float, float]:
        lo, hi = dict((f, (a, b)) for f, a, b in self.ranges)[feature]
        return lo, hi


@dataclass(frozen=True)
class QuizAnswer:
    feature: str
    threshold: float | None = None


@dataclass(frozen=True)
class QuizResult:
    """The verdict: ``correct`` needs the feature (and, when asked, the threshold) right."""

    node_id: int
    answer: QuizAnswer
    correct: bool
    feature_correct: bool
    threshold_correct: bool | None
    winner: str
    winner_test: str
    windows: tuple[Window, ...] = ()

    def __repr__(self) -> str:
        verdict = "correct" if self.correct else "wrong"
        return f"QuizResult(node {self.node_id}: {self.answer.feature} -> {verdict}, winner {self.winner_test})"


@dataclass(frozen=True)
class QuizScore:
    """Running score: questions asked, answered right, and features right (threshold aside)."""

    asked: int = 0
    correct: int = 0
    features_correct: int = 0
    results: tuple[QuizResult, ...] = ()

    def add(self, result: QuizResult) -> "QuizScore":
        return QuizScore(self.asked + 1, self.correct + int(result.correct),
                         self.features_correct + int(result.feature_correct), self.results + (result,))

    @property
    def share(self) -> float:
        """Share of right answers (0 before the first question)."""
        return self.correct / self.asked if self.asked else 0.0

    def __repr__(self) -> str:
        return f"QuizScore({self.correct}/{self.asked} correct, {self.features_correct} features right)"


# ---------------------------------------------------------------------------------- building
def next_split(grower):
    """``(node_id, split, ranked candidates)`` the next ``grower.step()`` will split, or None when the
    next step only closes nodes (or nothing is open). Changes nothing: it walks the frontier in the
    grower's order with the grower's cached evaluations, exactly as ``step`` does."""
    frontier = list(grower.open_nodes)
    if not frontier:
        return None
    order = grower.config.effective_order
    evals = {nid: grower._evaluate(nid) for nid in frontier}
    live = [nid for nid in frontier if evals[nid][0] is None]
    if order == "depth":
        live = live[::-1]
    elif order == "best":
        total = grower.tree.root.weight
        keys = {nid: grower.tree.node(nid).weight / total * evals[nid][1].gain for nid in live}
        live = _best_first(live, keys)
    limit = grower.config.max_leaf_nodes
    n_leaves = grower.tree.n_leaves
    for nid in live:
        split = evals[nid][1]
        if limit is not None and n_leaves + split.n_children - 1 > limit:
            continue
        return nid, split, list(evals[nid][2])
    return None


def _best_first(nodes, keys):
    """Nodes in the order ``Grower._pick`` takes them: largest key first, earlier node on (near) ties."""
    out, rest = [], list(nodes)
    while rest:
        best = rest[0]
        for nid in rest[1:]:
            if keys[nid] > keys[best] + 1e-12:
                best = nid
        out.append(best)
        rest.remove(best)
    return out


def threshold_windows(thresholds, gains, lo: float, hi: float) -> tuple[Window, ...]:
    """Windows around every best threshold (gain within 1e-12 relative of the maximum).

    ``thresholds`` are the candidate thresholds (any order), ``lo``/``hi`` the node's smallest and
    largest value of the feature.
    """
    thr = np.asarray(thresholds, dtype=float)
    g = np.asarray(gains, dtype=float)
    if thr.size == 0:
        return ()
    order = np.argsort(thr, kind="stable")
    thr, g = thr[order], g[order]
    best = np.max(g)
    out = []
    for k in np.flatnonzero(g >= best - TIE_TOL * (1.0 + abs(best))):
        low = (float(thr[k - 1]), False) if k > 0 else (float(lo), True)
        high = float(thr[k + 1]) if k + 1 < thr.size else float(hi)
        out.append(Window(low[0], high, float(thr[k]), lo_closed=low[1]))
    return tuple(out)


def _score(split, score: str) -> float:
    return split.gain_ratio if score == "gain_ratio" else split.gain


def make_question(grower) -> QuizQuestion | None:
    """The question for the grower's next step, or None when the next step splits nothing."""
    from engine.split.gain import candidate_scan

    nxt = next_split(grower)
    if nxt is None:
        return None
    node_id, winner, ranked = nxt
    score = grower.config.score
    ok = grower.eligible_flags(node_id) if grower.config.c45_rules else eligible(ranked, score)
    top = _score(winner, score)
    accepted = tuple(s.feature for s, e in zip(ranked, ok)
                     if e and _score(s, score) >= top - TIE_TOL * (1.0 + abs(top)))
    schema = grower.schema
    features = tuple(s.feature for s in sorted(ranked, key=lambda s: s.feature_index))
    ask = grower.config.algorithm != "id3"
    numeric = tuple(f for f in features if schema.kinds[schema.index(f)] == "numeric") if ask else ()
    idx, w = grower.node_rows(node_id)
    ranges, windows = [], []
    for f in numeric:
        col = grower.X[idx, schema.index(f)]
        col = col[~np.isnan(col)]
        lo, hi = (float(col.min()), float(col.max())) if col.size else (math.nan, math.nan)
        ranges.append((f, lo, hi))
        if f in accepted:
            scan = candidate_scan(grower, node_id, f)
            windows.append((f, threshold_windows(scan["threshold"], scan["gain"], lo, hi)))
    test = winner.feature if winner.kind == "multiway" else winner.describe()  # not "Outlook = ?"
    key = AnswerKey(winner.feature, test, accepted, tuple(windows))
    return QuizQuestion(node_id, features, ask, numeric, tuple(ranges), int(idx.size), key)


# ----------------------------------------------------------------------------------- judging
def judge(question: QuizQuestion, answer: QuizAnswer) -> QuizResult:
    """Score one answer (pure; see the module docstring for the rules)."""
    if not isinstance(answer.feature, str) or answer.feature not in question.features:
        raise ConfigError(f"Pick one of the candidate features ({', '.join(question.features)}), "
                          f"not {answer.feature!r}.")
    key = question.key
    feature_ok = answer.feature in key.accepted
    threshold_ok = None
    if question.needs_threshold(answer.feature):
        t = answer.threshold
        try:
            bad = t is None or isinstance(t, bool) or not math.isfinite(float(t))
        except (TypeError, ValueError):
            bad = True
        if bad:
            raise ConfigError(f"Give a threshold for {answer.feature}: a number between its smallest and "
                              "largest value at this node.")
        windows = key.windows_of(answer.feature)
        threshold_ok = feature_ok and any(w.contains(float(t)) for w in windows)
    correct = feature_ok if threshold_ok is None else threshold_ok
    shown = key.windows_of(answer.feature) if feature_ok else key.windows_of(key.winner)
    return QuizResult(question.node_id, answer, bool(correct), bool(feature_ok), threshold_ok, key.winner,
                      key.winner_test, shown)


def reveal_table(gain_table: pd.DataFrame, result: QuizResult) -> pd.DataFrame:
    """The node's gain table (``Grower.gain_table``) with a ``pick`` column marking the answer's row,
    next to the table's own ``winner`` column; rows keep the table's ranking."""
    out = gain_table.copy()
    out.insert(1, "pick", out["feature"] == result.answer.feature)
    return out
