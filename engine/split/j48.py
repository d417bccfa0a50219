"""C4.5's split search as Weka's J48 does it (Quinlan 1993, ch. 2-3; Quinlan 1996; Weka's ``C45Split``,
``C45ModelSelection``, ``Distribution``, ``InfoGainSplitCrit``, ``GainRatioSplitCrit``).

Each rule can be switched off on its own (``TreeConfig.c45_rules``); with all of them on the C4.5 preset
grows J48's tree (``-C 0.25 -M 2``, ``M = min_samples_leaf``, counted in case weight):

- ``min_split``: a node needs weight >= 2M; a threshold needs ``minSplit = 0.1 * W_known / classes``
  (clipped to [M, 25]) weight on each side and at least 2 minSplit rows with a known value; a multiway
  split needs at least two branches holding >= M weight;
- ``mdl``: a threshold's gain loses ``log2(candidates) / W`` (Quinlan 1996); no split unless what is
  left is positive;
- ``value_threshold``: the threshold is the largest training value at or below the cut (not the midpoint);
- ``average_gain``: gain ratio among the splits whose gain is at least the average gain minus 1e-3,
  the average taken over numeric features and nominal features with fewer values than 0.3 x the
  training rows (unless every feature is such a many-valued nominal one);
- ``all_values``: a multiway split has a branch for every value of the feature, empty ones included.

Comparisons use Weka's slack of 1e-6 (``Utils.gr``/``grOrEq``); values closer than 1e-5 are one value;
ties go to the earlier candidate and the earlier feature. J48 tries every threshold, so with any rule on
the search is exact whatever ``split_search`` says, and the level-wise growers are not used.
"""

from __future__ import annotations

import math

import numpy as np

from engine.split.records import Split
from engine.split.search import NodeData, _make_split, category_table

C45_RULES = ("min_split", "mdl", "value_threshold", "average_gain", "all_values")
SMALL = 1e-6          # Weka's Utils.SMALL
SAME_VALUE = 1e-5     # C45Split: consecutive values closer than this are not cut between
AVERAGE_SLACK = 1e-3  # C45ModelSelection: "to get a closer approximation to the original implementation"
MANY_VALUES = 0.3     # a nominal feature with >= 0.3 x rows values does not count toward the average gain


def _chain(gains: np.ndarray, start: float = 0.0) -> int:
    """Index Weka's scan keeps: a candidate replaces the best so far only when higher by more than 1e-6
    (-1 when none beats ``start``). Only candidates near the top can be kept, so only those are scanned."""
    if gains.size == 0:
        return -1
    top = float(np.max(gains))
    best, keep = start, -1
    for i in np.flatnonzero(gains > top - 1e-4).tolist():
        if gains[i] - best > SMALL:
            best, keep = float(gains[i]), i
    return keep


def _rescore(split: Split, gain: float, crit) -> Split:
    """``split`` with J48's gain (zero below 1e-6 weighted units) and the gain ratio from it."""
    w_known = sum(split.child_weights)
    if abs(gain * w_known) < SMALL:
        gain = 0.0
    total = w_known / split.known_fraction if split.known_fraction > 0 else w_known
    info = split.split_info
    ratio = 0.0 if abs(info * total) < SMALL else gain / info
    return Split.fast(**{**split.__dict__, "gain": float(gain), "gain_ratio": float(ratio)})


def j48_numeric(nd: NodeData, j: int, name: str, *, m: float, n_classes: int, rules, log_base: float,
                values: np.ndarray | None = None) -> Split | None:
    """J48's best threshold of numeric feature j at the node, or None (``C45Split.handleNumericAttribute``).

    ``values``: the sorted distinct training values of the feature (``value_threshold``)."""
    col = nd.x[:, j]
    known = ~np.isnan(col)
    n_known = int(known.sum())
    if n_known < 2:
        return None
    if nd.orders is not None and n_known == col.size:      # a big node: from the orders kept for all rows
        order = nd.orders([j])[:, 0]
    else:
        order = np.argsort(col[known], kind="stable")
    xs = col[known][order]
    sk = nd.stats[known][order]
    crit = nd.criterion
    w_rows = crit.weight(sk)
    w_known = float(w_rows.sum())
    min_split = m
    if "min_split" in rules:
        min_split = 0.1 * w_known / n_classes
        if min_split - m < SMALL:
            min_split = m
        elif min_split - 25 > SMALL:
            min_split = 25.0
        if 2 * min_split - n_known > SMALL:
            return None
    cum = np.cumsum(sk, axis=0)
    left, right = cum[:-1], cum[-1] - cum[:-1]
    wl, wr = crit.weight(left), crit.weight(right)
    valid = (xs[:-1] + SAME_VALUE < xs[1:]) & (min_split - wl < SMALL) & (min_split - wr < SMALL)
    n_cand = int(valid.sum())
    if n_cand == 0:
        return None
    idx = np.flatnonzero(valid)
    frac = w_known / nd.total_weight
    children = (crit.weighted(left[idx]) + crit.weighted(right[idx])) / w_known
    gains = frac * (float(crit.from_stats(cum[-1])) - children)
    gains = np.where(np.abs(gains * w_known) < SMALL, 0.0, gains)
    b = _chain(gains)
    if b < 0:
        return None
    gain = float(gains[b])
    if "mdl" in rules:
        gain -= math.log(n_cand, log_base) / nd.total_weight
    if gain < SMALL:
        return None
    i = int(idx[b])
    t = (xs[i] + xs[i + 1]) / 2.0
    if t == xs[i + 1]:
        t = xs[i]
    if "value_threshold" in rules and values is not None and values.size:
        k = int(np.searchsorted(values, t + SMALL, side="right")) - 1
        if k >= 0:
            t = float(values[k])
    split = _make_split(nd, j, name, "threshold", np.stack([left[i], right[i]]), (i + 1, n_known - i - 1),
                        cum[-1], threshold=t)
    return _rescore(split, gain, crit)


def j48_nominal(nd: NodeData, j: int, name: str, labels: tuple[str, ...], *, m: float, rules) -> Split | None:
    """J48's multiway split of nominal feature j, or None (``C45Split.handleEnumeratedAttribute``)."""
    present, stats, counts = category_table(nd, j)
    if present.size == 0:
        return None
    crit = nd.criterion
    if "all_values" in rules:
        full = np.zeros((len(labels), nd.stats.shape[1]))
        full[present] = stats
        n = np.zeros(len(labels), dtype=np.int64)
        n[present] = counts
        present, stats, counts = np.arange(len(labels)), full, n
    if int((crit.weight(stats) > m - SMALL).sum()) < 2:
        return None
    split = _make_split(nd, j, name, "multiway", stats, counts, stats.sum(axis=0),
                        cats=[labels[c] for c in present], codes=present)
    return _rescore(split, split.gain, crit)


def counts_toward_average(kinds, categories, n_rows: int) -> list[bool]:
    """Per feature: does its gain count toward C4.5's average gain (``C45ModelSelection``)? Numeric ones do;
    nominal ones with fewer values than 0.3 x the training rows do; if every feature is a nominal one with
    that many values, all count."""
    many = [k != "numeric" and not (MANY_VALUES * n_rows - len(c) > SMALL) for k, c in zip(kinds, categories)]
    if all(many):
        return [True] * len(many)
    return [not x for x in many]


def j48_choose(splits: list[Split], counted: list[bool], rules):
    """(winner or None, average gain, eligible flags) by C4.5's rule: the highest gain ratio among the splits
    whose gain is at least the average (over the ``counted`` ones) minus 1e-3; no winner without a
    positive gain ratio or when no split counts."""
    if not splits:
        return None, float("nan"), []
    if "average_gain" in rules:
        pool = [s.gain for s, c in zip(splits, counted) if c]
        slack = AVERAGE_SLACK
    else:
        pool, slack = [s.gain for s in splits], 1e-12
    if not pool:
        return None, float("nan"), [False] * len(splits)
    avg = float(sum(pool) / len(pool))
    ok = [s.gain >= avg - slack for s in splits]
    ratios = np.array([s.gain_ratio if e else -np.inf for s, e in zip(splits, ok)])
    b = _chain(ratios[np.isfinite(ratios)]) if np.isfinite(ratios).any() else -1
    if b < 0:
        return None, avg, ok
    return [s for s, e in zip(splits, ok) if e][b], avg, ok


def j48_search(nd: NodeData, feats: list[int], schema, *, m: float, n_classes: int, rules, log_base: float,
               counted: list[bool], values) -> tuple[Split | None, list[Split], list[bool]]:
    """Every usable feature's J48 split at the node: (winner or None, splits ranked winner first, each
    ranked split's eligibility). ``counted``: :func:`counts_toward_average` for every feature;
    ``values(j)``: the sorted distinct training values of numeric feature j."""
    found, flags = [], []
    for j in feats:
        name = schema.feature_names[j]
        if schema.kinds[j] == "numeric":
            s = j48_numeric(nd, j, name, m=m, n_classes=n_classes, rules=rules, log_base=log_base,
                            values=values(j))
        else:
            s = j48_nominal(nd, j, name, schema.categories[j], m=m, rules=rules)
        if s is not None:
            found.append(s)
            flags.append(counted[j])
    best, _, ok = j48_choose(found, flags, rules)
    order = sorted(range(len(found)), key=lambda i: (found[i] is not best, not ok[i],
                                                     -round(found[i].gain_ratio, 12), i))
    return best, [found[i] for i in order], [ok[i] for i in order]
