"""Split search: for one node, the best split of each feature (and, on request, every candidate).

All candidates of a feature are scored at once from cumulative stats (no loop over thresholds):
sort the known values once, ``cumsum`` the row stats, and the left child of threshold i has the stats
of the first i+1 rows, the right child the rest.

Gain with missing values (C4.5): with F the known share of the node's weight,

.. math:: \\text{gain} = F \\cdot \\big(I(\\text{known}) - \\sum_c \\tfrac{w_c}{w_\\text{known}} I(c)\\big),

and the split information counts the missing weight as one more branch:
:math:`\\text{SplitInfo} = -\\sum_b \\tfrac{w_b}{w} \\log \\tfrac{w_b}{w}`, in the entropy's unit (bits or nats)
so that gain ratio = gain / SplitInfo does not depend on it.

Ties: within a feature the smallest threshold (first subset in enumeration order) wins; across
features the earlier column wins, or, for a randomised learner (``random_state`` set), the feature the
node visits first in its seeded random order (see :func:`choose`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Callable

import numpy as np

from engine.split.impurity import Criterion
from engine.split.records import Split

EXACT_SUBSET_LIMIT = 12  # multiclass subset splits: exhaustive up to this many categories
TIE_TOL = 1e-12


@dataclass(frozen=True)
class NodeData:
    """What split search needs to know about one node's rows."""

    x: np.ndarray        # (n, d) encoded features of the node's rows
    stats: np.ndarray    # (n, S) per-row stats already multiplied by the row weights
    task: str
    min_samples_leaf: int
    criterion: Criterion
    total_weight: float
    #: optional ``orders(cols)``: the rows' stable order by each feature in ``cols`` (rows x features), from a
    #: sort kept for the whole training matrix (:func:`engine.grow.roworders.node_orders`); None: sort here
    orders: Callable | None = field(default=None, repr=False, compare=False)


def _split_info(weights: np.ndarray, total: float, base: float = 2.0) -> float:
    """Split information in the entropy's unit (log base ``base``), so that gain / split info, the gain
    ratio, is the same number in bits and in nats."""
    p = weights[weights > 0] / total
    return float(-(p * np.log2(p)).sum() / np.log2(base)) if total > 0 else 0.0


def _first_best(gains: np.ndarray) -> int:
    """Index of the first candidate within TIE_TOL of the best gain."""
    best = np.max(gains)
    return int(np.flatnonzero(gains >= best - TIE_TOL * (1.0 + abs(best)))[0])


def _make_split(nd: NodeData, j: int, name: str, kind: str, child_stats: np.ndarray, child_counts,
                known_stats: np.ndarray, *, threshold=None, cats=(), codes=()) -> Split:
    crit = nd.criterion
    w_known = float(crit.weight(known_stats))
    wc = crit.weight(child_stats)
    parent_imp = float(crit.from_stats(known_stats))
    children_imp = float(crit.weighted(child_stats).sum() / w_known)
    frac = w_known / nd.total_weight if nd.total_weight > 0 else 0.0
    gain = frac * (parent_imp - children_imp)
    if abs(gain) < 1e-15:          # rounding noise around "no gain": 0 (or the tiny positive value), and
        gain = max(gain, 0.0)      # the gain ratio follows, as the level-wise growers compute it
    branch_w = np.append(wc, nd.total_weight - w_known) if frac < 1 else wc
    info = _split_info(branch_w, nd.total_weight, getattr(crit, "base", 2.0))
    return Split(
        feature=name, feature_index=j, kind=kind,
        threshold=None if threshold is None else float(threshold),
        categories=tuple(cats), category_codes=tuple(int(c) for c in codes),
        gain=float(gain), gain_ratio=float(gain / info) if info > 0 else 0.0, split_info=info,
        impurity_parent=parent_imp, impurity_children=children_imp,
        child_stats=tuple(tuple(float(v) for v in s) for s in child_stats),
        child_weights=tuple(float(v) for v in wc), child_counts=tuple(int(c) for c in child_counts),
        known_fraction=frac, task=nd.task)


def _scan(crit: Criterion, ordered_stats: np.ndarray, ordered_counts: np.ndarray, min_leaf: int,
          distinct: np.ndarray):
    """Score every cut of an ordered sequence: the left child gets items [0..i]. Returns (gain, valid)."""
    cum = np.cumsum(ordered_stats, axis=0)
    total = cum[-1]
    left, right = cum[:-1], total - cum[:-1]
    n_left = np.cumsum(ordered_counts)[:-1]
    n_right = ordered_counts.sum() - n_left
    valid = distinct & (n_left >= min_leaf) & (n_right >= min_leaf)
    w = crit.weight(total)
    children = (crit.weighted(left) + crit.weighted(right)) / w
    return float(crit.from_stats(total)) - children, valid, left, right


def numeric_candidates(nd: NodeData, j: int):
    """All valid thresholds of numeric feature j: (thresholds, gains_known, left, right, n_left, known)."""
    col = nd.x[:, j]
    known = ~np.isnan(col)
    xk = col[known]
    if xk.size < 2:
        return None
    if nd.orders is not None and xk.size == col.size:
        order = nd.orders([j])[:, 0]
    else:
        order = np.argsort(xk, kind="stable")
    xs = xk[order]
    sk = nd.stats[known][order]
    gain, valid, left, right = _scan(nd.criterion, sk, np.ones(xs.size, dtype=np.int64),
                                     nd.min_samples_leaf, xs[1:] > xs[:-1])
    if not valid.any():
        return None
    idx = np.flatnonzero(valid)
    thr = (xs[idx] + xs[idx + 1]) / 2.0
    thr = np.where(thr >= xs[idx + 1], xs[idx], thr)  # rounding guard, as scikit-learn
    return thr, gain[idx], left[idx], right[idx], idx + 1, known


def best_numeric(nd: NodeData, j: int, name: str) -> Split | None:
    cand = numeric_candidates(nd, j)
    if cand is None:
        return None
    thr, gains, left, right, n_left, known = cand
    b = _first_best(gains)
    n_known = int(known.sum())
    stats = np.stack([left[b], right[b]])
    return _make_split(nd, j, name, "threshold", stats, (n_left[b], n_known - n_left[b]),
                       left[b] + right[b], threshold=thr[b])


#: cells (rows x features x stats) one vectorised numeric search holds at once: ~32 MB per array
BLOCK_CELLS = 4_000_000


def best_numeric_all(nd: NodeData, cols: list[int], names: list[str]) -> list[Split | None]:
    """Best threshold split of several numeric features without missing values, all at once.

    Same arithmetic as :func:`best_numeric`, vectorised over the features: one ``argsort`` along the
    rows, one ``cumsum`` of the gathered stats (n, f, S) — in blocks of features, so that a big node's
    transient arrays stay bounded (every feature is searched independently: the blocks change nothing).
    """
    if not cols:
        return []
    per_block = max(1, BLOCK_CELLS // max(1, nd.x.shape[0] * nd.stats.shape[1]))
    if len(cols) > per_block:
        return [s for b in range(0, len(cols), per_block)
                for s in _best_numeric_block(nd, cols[b:b + per_block], names[b:b + per_block])]
    return _best_numeric_block(nd, cols, names)


def _best_numeric_block(nd: NodeData, cols: list[int], names: list[str]) -> list[Split | None]:
    Xn = nd.x[:, cols]
    n = Xn.shape[0]
    if n < 2:
        return [None] * len(cols)
    order = nd.orders(cols) if nd.orders is not None else np.argsort(Xn, axis=0, kind="stable")
    xs = np.take_along_axis(Xn, order, axis=0)
    cum = np.cumsum(nd.stats[order], axis=0)                  # (n, f, S)
    total = cum[-1]
    left = cum[:-1]
    right = total[None] - left
    n_left = np.arange(1, n)[:, None]
    valid = (xs[1:] > xs[:-1]) & (n_left >= nd.min_samples_leaf) & (n - n_left >= nd.min_samples_leaf)
    crit = nd.criterion
    children = (crit.weighted(left) + crit.weighted(right)) / crit.weight(total)[None]
    gain = np.where(valid, crit.from_stats(total)[None] - children, -np.inf)
    best = gain.max(axis=0)
    out = []
    for c, j in enumerate(cols):
        if not np.isfinite(best[c]):
            out.append(None)
            continue
        b = int(np.flatnonzero(gain[:, c] >= best[c] - TIE_TOL * (1.0 + abs(best[c])))[0])
        t = (xs[b, c] + xs[b + 1, c]) / 2.0
        t = xs[b, c] if t >= xs[b + 1, c] else t
        stats = np.stack([left[b, c], right[b, c]])
        out.append(_make_split(nd, j, names[c], "threshold", stats, (b + 1, n - b - 1), total[c], threshold=t))
    return out


def category_table(nd: NodeData, j: int):
    """Per-category stats and row counts of categorical feature j at the node (known rows)."""
    col = nd.x[:, j]
    known = ~np.isnan(col)
    codes = col[known].astype(np.int64)
    k = int(codes.max(initial=-1)) + 1
    stats = np.stack([np.bincount(codes, weights=nd.stats[known][:, s], minlength=k)
                      for s in range(nd.stats.shape[1])], axis=1) if k else np.zeros((0, nd.stats.shape[1]))
    counts = np.bincount(codes, minlength=k)
    present = np.flatnonzero(counts > 0)
    return present, stats[present], counts[present]


def categorical_candidates(nd: NodeData, j: int, mode: str):
    """Candidate partitions of categorical feature j: list of (left_codes tuple, gain) or multiway."""
    present, stats, counts = category_table(nd, j)
    if present.size < 2:
        return present, stats, counts, []
    crit = nd.criterion
    total = stats.sum(axis=0)
    if mode == "equals":
        masks = np.eye(present.size, dtype=bool)
    elif nd.task == "regression" or stats.shape[1] == 2 or present.size > EXACT_SUBSET_LIMIT:
        # Breiman's ordering: by mean target / share of class 1 (optimal for two classes and
        # regression); above the exact limit for multiclass, by share of the node's majority class.
        w = crit.weight(stats)
        if nd.task == "regression":
            key = stats[:, 1] / w
        else:
            cls = 1 if stats.shape[1] == 2 else int(np.argmax(total))
            key = stats[:, cls] / w
        order = np.argsort(key, kind="stable")
        masks = np.zeros((present.size - 1, present.size), dtype=bool)
        for i in range(present.size - 1):
            masks[i, order[: i + 1]] = True
    else:
        # exhaustive: subsets holding the first category (each partition once)
        rest = range(1, present.size)
        rows = [(0,) + c for r in range(0, present.size - 1) for c in combinations(rest, r)]
        masks = np.zeros((len(rows), present.size), dtype=bool)
        for i, r in enumerate(rows):
            masks[i, list(r)] = True
    left = masks.astype(float) @ stats
    right = total - left
    n_left = masks.astype(np.int64) @ counts
    n_right = counts.sum() - n_left
    w = crit.weight(total)
    gains = float(crit.from_stats(total)) - (crit.weighted(left) + crit.weighted(right)) / w
    valid = (n_left >= nd.min_samples_leaf) & (n_right >= nd.min_samples_leaf)
    return present, stats, counts, [(masks[i], float(gains[i])) for i in np.flatnonzero(valid)]


def best_categorical(nd: NodeData, j: int, name: str, labels: tuple[str, ...], mode: str) -> Split | None:
    if mode == "multiway":
        present, stats, counts = category_table(nd, j)
        if present.size < 2 or counts.min() < nd.min_samples_leaf:
            return None
        return _make_split(nd, j, name, "multiway", stats, counts, stats.sum(axis=0),
                           cats=[labels[c] for c in present], codes=present)
    present, stats, counts, cands = categorical_candidates(nd, j, mode)
    if not cands:
        return None
    b = _first_best(np.array([g for _, g in cands]))
    mask = cands[b][0]
    child = np.stack([stats[mask].sum(axis=0), stats[~mask].sum(axis=0)])
    kind = "equals" if mode == "equals" else "subset"
    return _make_split(nd, j, name, kind, child, (counts[mask].sum(), counts[~mask].sum()),
                       stats.sum(axis=0), cats=[labels[c] for c in present[mask]], codes=present[mask])


def choose(splits: list[Split], score: str, ranks=None) -> tuple[Split | None, Split | None, list[Split]]:
    """Rank candidate splits; return (winner, runner-up, ranked list).

    ``score="gain"``: highest gain. ``score="gain_ratio"``: Quinlan's C4.5 rule, highest gain ratio among
    the splits whose gain is at least the average gain of all candidates. Ties keep column order, or the
    order of ``ranks`` (``ranks[feature_index]``: when the node visits the feature) when given.
    """
    if not splits:
        return None, None, []
    if score == "gain_ratio":
        avg = float(np.mean([s.gain for s in splits]))
        key = [(s.gain >= avg - TIE_TOL, s.gain_ratio) for s in splits]
    else:
        key = [(True, s.gain) for s in splits]
    tie = (lambda i: i) if ranks is None else (lambda i: int(ranks[splits[i].feature_index]))
    order = sorted(range(len(splits)),
                   key=lambda i: (not key[i][0], -round(key[i][1], 12), tie(i), i))
    ranked = [splits[i] for i in order]
    return ranked[0], (ranked[1] if len(ranked) > 1 else None), ranked


def eligible(splits: list[Split], score: str) -> list[bool]:
    """Which splits pass the score's filter (all for gain; gain >= average for gain ratio)."""
    if score != "gain_ratio" or not splits:
        return [True] * len(splits)
    avg = float(np.mean([s.gain for s in splits]))
    return [s.gain >= avg - TIE_TOL for s in splits]
