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
the search is exact whatever ``split_search`` says. The scores are computed as Weka computes them
(:func:`xlogx` = ``lnFunc``; ``oldEnt``/``newEnt``; the split entropy with the unknown weight as one more
bag) by :func:`numeric_scan` and :func:`nominal_scores`, for one node (stepping) or all open nodes of a
level at once (:mod:`engine.grow.c45grow`), the same numbers either way.
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
    (-1 when none beats ``start``)."""
    best, keep = start, -1
    for i, g in enumerate(gains.tolist()):
        if g - best > SMALL:
            best, keep = g, i
    return keep


def xlogx(a: np.ndarray) -> np.ndarray:
    """Weka's ``lnFunc``: a ln a, 0 below 1e-6."""
    a = np.asarray(a, dtype=float)
    small = a < 1e-6
    return np.where(small, 0.0, a * np.log(np.where(small, 1.0, a)))


def _old_ent(tot: np.ndarray, w: np.ndarray, ln_base: float, lf=xlogx) -> np.ndarray:
    """``EntropyBasedSplitCrit.oldEnt`` of class weights ``tot`` (n x K) of total ``w``: (w ln w - sum n ln n) / ln b."""
    acc = np.zeros(tot.shape[0])
    for k in range(tot.shape[1]):
        acc = acc + lf(tot[:, k])
    return (lf(w) - acc) / ln_base


def _new_ent_sum(acc: np.ndarray, bag: np.ndarray, bag_w: np.ndarray, lf=xlogx) -> np.ndarray:
    """One bag's terms of ``newEnt``, added in Weka's order: each class's n ln n, then minus the bag's."""
    for k in range(bag.shape[1]):
        acc = acc + lf(bag[:, k])
    return acc - lf(bag_w)


def info_gain(old: np.ndarray, new_sum: np.ndarray, w_known: np.ndarray, sum_w: np.ndarray, ln_base: float):
    """``InfoGainSplitCrit.splitCritValue``: the known share times (oldEnt - newEnt), 0 when below 1e-6 in
    weighted units, per unit of known weight."""
    unknown_rate = (sum_w - w_known) / sum_w
    num = (1 - unknown_rate) * (old - (-(new_sum / ln_base)))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.abs(num) < SMALL, 0.0, num / w_known)


def gain_ratio(gain: np.ndarray, bags_w: list, sum_w: np.ndarray, ln_base: float) -> np.ndarray:
    """``GainRatioSplitCrit.splitCritValue``: gain over the split entropy of the bags and the unknown weight."""
    known = np.zeros(sum_w.shape)
    ent = np.zeros(sum_w.shape)
    for bw in bags_w:
        known = known + bw
        ent = ent - xlogx(bw)
    ent = (ent - xlogx(sum_w - known) + xlogx(sum_w)) / ln_base
    ent = np.where(known > SMALL, ent, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.abs(ent) < SMALL, 0.0, gain / (ent / sum_w))


def _last_kept(g: np.ndarray, seg: np.ndarray, n_seg: int):
    """Weka's scan per segment (``seg``: the segment of each candidate, nondecreasing): from 0, a candidate
    is kept when above the kept one by more than 1e-6. Returns the kept candidate per segment (-1: none).

    A candidate above every earlier one of its segment by more than 1e-6 is surely kept, so the scan's
    state after the last such one is known; only the few candidates after it are scanned one by one."""
    keep = np.full(n_seg, -1, dtype=np.int64)
    if g.size == 0:
        return keep
    off = 32.0 * seg                        # gains are below 32: a running maximum restarting per segment
    run = np.maximum.accumulate(g + off) - off
    prev = np.empty_like(run)
    prev[0] = 0.0
    prev[1:] = run[:-1]
    first = np.ones(g.size, dtype=bool)
    first[1:] = seg[1:] != seg[:-1]
    prev[first] = 0.0
    prev = np.maximum(prev, 0.0)
    sure = np.flatnonzero(g > prev + SMALL + 1e-9)
    keep[seg[sure]] = sure                  # the last sure one of each segment
    best = np.where(keep >= 0, g[np.maximum(keep, 0)], 0.0)
    tail = np.flatnonzero((np.arange(g.size) > keep[seg]) & (g > best[seg] + SMALL))
    for i in tail.tolist():                 # in order: segment by segment, position by position
        s = seg[i]
        if g[i] - best[s] > SMALL:
            best[s], keep[s] = g[i], i
    return keep


def min_split_sizes(w_known: np.ndarray, n_classes: int, m: float, rules) -> np.ndarray:
    """``C45Split``'s minSplit per node: 0.1 x the known weight / classes, clipped to [M, 25]."""
    if "min_split" not in rules:
        return np.full(w_known.shape, float(m))
    ms = 0.1 * w_known / n_classes
    return np.where(ms - m < SMALL, float(m), np.where(ms - 25 > SMALL, 25.0, ms))


def numeric_scan(xs, cls_w, w, seg_len, sum_w, *, m: float, n_classes: int, rules, ln_base: float,
                 table: np.ndarray | None = None):
    """J48's best threshold in each segment of sorted known values (``C45Split.handleNumericAttribute``).

    ``xs`` (T,), ``cls_w`` (T, K) the rows' class weights, ``w`` (T,) their weights, sorted by value within
    each segment (a node), ``seg_len`` rows per segment, ``sum_w`` each node's whole weight (missing values
    included). ``table``: ``xlogx(0, 1, 2, ...)`` up to the total weight, read instead of computing
    logarithms when every weight is a whole number (the same numbers). Returns per segment: the flat index of the last row going left (-1: no split), the gain
    (MDL-corrected), the gain ratio, the left and right class weights."""
    C = seg_len.size
    K = cls_w.shape[1]
    starts = np.zeros(C, dtype=np.int64)
    np.cumsum(seg_len[:-1], out=starts[1:])
    seg = np.repeat(np.arange(C), seg_len)
    has = seg_len > 0
    ends = starts + seg_len - 1
    fractional = bool(np.any(w != np.round(w)))
    lf = xlogx if table is None or fractional else (lambda a: table[np.asarray(a).astype(np.int64)])
    if C > 1 and fractional:  # fractional weights: each segment's own running sum, as for one node
        cum, wcum = np.empty_like(cls_w), np.empty_like(w)
        for a, b in zip(starts[has].tolist(), (ends[has] + 1).tolist()):
            np.cumsum(cls_w[a:b], axis=0, out=cum[a:b])
            np.cumsum(w[a:b], out=wcum[a:b])
    else:
        cum = np.cumsum(cls_w, axis=0)
        wcum = np.cumsum(w)
        if C > 1:                           # whole numbers: running sums within each segment, exactly
            base_c, base_w = np.zeros((C, K)), np.zeros(C)
            inner = has & (starts > 0)
            base_c[inner] = cum[starts[inner] - 1]
            base_w[inner] = wcum[starts[inner] - 1]
            cum -= base_c[seg]
            wcum -= base_w[seg]
    tot = np.zeros((C, K))
    wk = np.zeros(C)
    tot[has] = cum[ends[has]]
    wk[has] = wcum[ends[has]]
    ms = min_split_sizes(wk, n_classes, m, rules)
    ok_seg = has & ~(2 * ms - seg_len > SMALL) & (seg_len >= 2)
    T = xs.size
    valid = np.zeros(T, dtype=bool)
    if T > 1:
        valid[:-1] = (xs[:-1] + SAME_VALUE < xs[1:]) & (seg[:-1] == seg[1:])
    valid &= ok_seg[seg]
    wl = wcum
    wr = wk[seg] - wcum
    valid &= (wl - ms[seg] > -SMALL) & (wr - ms[seg] > -SMALL)
    idx = np.flatnonzero(valid)
    sg = seg[idx]
    n_cand = np.bincount(sg, minlength=C)
    L = cum[idx]
    R = tot[sg] - L
    new = _new_ent_sum(_new_ent_sum(np.zeros(idx.size), L, wl[idx], lf), R, wr[idx], lf)
    gains = info_gain(_old_ent(tot, wk, ln_base, lf)[sg], new, wk[sg], sum_w[sg], ln_base)
    kept = _last_kept(gains, sg, C)
    pos = np.full(C, -1, dtype=np.int64)
    gain = np.zeros(C)
    at = np.flatnonzero(kept >= 0)
    gain[at] = gains[kept[at]]
    if "mdl" in rules:
        gain[at] -= np.log(n_cand[at]) / math.log(2.0) / sum_w[at]
    at = at[gain[at] - 0.0 >= SMALL]        # Utils.smOrEq(infoGain, 0): no split
    pos[at] = idx[kept[at]]
    left = np.zeros((C, K))
    right = np.zeros((C, K))
    left[at] = cum[pos[at]]
    right[at] = tot[at] - left[at]
    lw, rw = np.zeros(C), np.zeros(C)
    lw[at] = wcum[pos[at]]
    rw[at] = wk[at] - lw[at]
    ratio = np.zeros(C)
    ratio[at] = gain_ratio(gain[at], [lw[at], rw[at]], sum_w[at], ln_base)
    gain[pos < 0] = 0.0
    return pos, gain, ratio, left, right


def threshold_at(xs: np.ndarray, i: int, values: np.ndarray | None, rules) -> float:
    """J48's threshold after row i of the sorted known values: the midpoint (the lower value if the midpoint
    rounds onto the upper), then (``value_threshold``) the largest training value at or below it."""
    t = (xs[i] + xs[i + 1]) / 2.0
    if t == xs[i + 1]:
        t = xs[i]
    if "value_threshold" in rules and values is not None and values.size:
        k = int(np.searchsorted(values, t + SMALL, side="right")) - 1
        if k >= 0:
            t = float(values[k])
    return float(t)


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
    w_rows = nd.criterion.weight(sk)
    pos, gain, ratio, left, right = numeric_scan(
        xs, sk, w_rows, np.array([n_known]), np.array([nd.total_weight]), m=m, n_classes=n_classes,
        rules=rules, ln_base=math.log(log_base))
    i = int(pos[0])
    if i < 0:
        return None
    t = threshold_at(xs, i, values, rules)
    split = _make_split(nd, j, name, "threshold", np.stack([left[0], right[0]]), (i + 1, n_known - i - 1),
                        left[0] + right[0], threshold=t)
    return Split.fast(**{**split.__dict__, "gain": float(gain[0]), "gain_ratio": float(ratio[0])})


def nominal_scores(table: np.ndarray, sum_w: np.ndarray, *, m: float, ln_base: float):
    """J48's score of multiway splits from their tables (nodes x values x classes of known weight) and the
    nodes' whole weights: (usable: two branches hold M, gain, gain ratio) per node
    (``C45Split.handleEnumeratedAttribute``)."""
    bags = table.sum(axis=2)
    usable = (bags - m > -SMALL).sum(axis=1) > 1
    tot = table.sum(axis=1)
    wk = bags.sum(axis=1)
    new = np.zeros(table.shape[0])
    for v in range(table.shape[1]):
        new = _new_ent_sum(new, table[:, v, :], bags[:, v])
    gain = info_gain(_old_ent(tot, wk, ln_base), new, wk, sum_w, ln_base)
    ratio = gain_ratio(gain, [bags[:, v] for v in range(table.shape[1])], sum_w, ln_base)
    return usable, np.where(usable, gain, 0.0), np.where(usable, ratio, 0.0)


def j48_nominal(nd: NodeData, j: int, name: str, labels: tuple[str, ...], *, m: float, rules,
                log_base: float = 2.0) -> Split | None:
    """J48's multiway split of nominal feature j, or None (``C45Split.handleEnumeratedAttribute``)."""
    present, stats, counts = category_table(nd, j)
    if present.size == 0:
        return None
    full = np.zeros((len(labels), nd.stats.shape[1]))
    full[present] = stats
    usable, gain, ratio = nominal_scores(full[None], np.array([nd.total_weight]), m=m,
                                         ln_base=math.log(log_base))
    if not usable[0]:
        return None
    if "all_values" in rules:
        n = np.zeros(len(labels), dtype=np.int64)
        n[present] = counts
        present, stats, counts = np.arange(len(labels)), full, n
    split = _make_split(nd, j, name, "multiway", stats, counts, stats.sum(axis=0),
                        cats=[labels[c] for c in present], codes=present)
    return Split.fast(**{**split.__dict__, "gain": float(gain[0]), "gain_ratio": float(ratio[0])})


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
            s = j48_nominal(nd, j, name, schema.categories[j], m=m, rules=rules, log_base=log_base)
        if s is not None:
            found.append(s)
            flags.append(counted[j])
    best, _, ok = j48_choose(found, flags, rules)
    order = sorted(range(len(found)), key=lambda i: (found[i] is not best, not ok[i],
                                                     -round(found[i].gain_ratio, 12), i))
    return best, [found[i] for i in order], [ok[i] for i in order]
