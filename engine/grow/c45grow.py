"""Level-wise growth with J48's rules (the C4.5 preset): the tree stepping a Grower to the end gives, with
the numeric work done for all open nodes of a level at once.

A level is a set of (row, node) copies: a row whose value is missing on a node's test goes down every
branch with its weight times the branch's share of the known weight (C4.5's fractional cases), so it is
a copy in each child. Copies are kept grouped by node, rows ascending, as stepping keeps a node's rows.
For each numeric feature the copies are also kept sorted by value within each node (missing values
last); a level's thresholds are scored by :func:`engine.split.j48.numeric_scan` over all nodes at once,
its multiway splits by :func:`engine.split.j48.nominal_scores`, and the feature chosen per node by
J48's average-gain filter and gain-ratio scan, vectorised over nodes. Nodes, splits, row sets and paths
are made once per node (no work per node that grows with its rows beyond its own rows).

Used for classification with ``c45_rules``, breadth- or depth-first order, every feature at every node, no
``random_state`` tie order and no validation rule (the rest steps). With whole-number weights every sum is
exact and the tree equals stepping's bit for bit; with fractional cases (missing values) a node's running
sums are taken from one long sum, which can differ from stepping's in the last bits only.
"""

from __future__ import annotations

import math

import numpy as np

from engine.grow.levelstore import FastResult, split_numbers
from engine.grow.parallel import thread_map, threads_for
from engine.grow.stopping import post_split_reason, pre_split_reason
from engine.split.j48 import SMALL, AVERAGE_SLACK, nominal_scores, numeric_scan, threshold_at, xlogx
from engine.split.records import Split
from engine.split.search import NodeData, _make_split
from engine.tree.build import make_nodes


def c45_eligible(grower) -> bool:
    cfg = grower.config
    d = len(grower.schema.feature_names)
    return bool(cfg.c45_rules) and grower.task == "classification" and not cfg.validation \
        and cfg.effective_order == "breadth" and cfg.n_features_to_draw(d) >= d \
        and cfg.random_state is None


class _Level:
    """The copies of one level: rows, weights, node (0..C-1) of each, grouped by node; per numeric feature
    the copies' order by value within each node."""

    def __init__(self, rows, w, node, orders):
        self.rows, self.w, self.node, self.orders = rows, w, node, orders


def _choose(G, R, valid, counted, rules):
    """Per node: the chosen feature (-1: none) by J48's rule (:func:`engine.split.j48.j48_choose`)."""
    C, d = G.shape
    acc, cnt = np.zeros(C), np.zeros(C, dtype=np.int64)
    avg_rule = "average_gain" in rules
    for j in range(d):
        v = valid[:, j] & (counted[j] if avg_rule else True)
        acc = acc + np.where(v, G[:, j], 0.0)
        cnt += v
    with np.errstate(divide="ignore", invalid="ignore"):
        avg = acc / cnt
    slack = AVERAGE_SLACK if avg_rule else 1e-12
    best, pick = np.zeros(C), np.full(C, -1, dtype=np.int64)
    for j in range(d):
        take = valid[:, j] & (cnt > 0) & (G[:, j] >= avg - slack) & (R[:, j] - best > SMALL)
        best = np.where(take, R[:, j], best)
        pick = np.where(take, j, pick)
    return pick


def grow_c45(grower) -> FastResult:
    """The whole tree (see the module docstring): a ``FastResult`` for ``Grower._install``."""
    cfg, crit, schema, task = grower.config, grower.crit, grower.schema, grower.task
    X = grower.X
    y = np.asarray(grower.y, dtype=np.int64)
    U = grower.U
    classes = grower.dataset.classes
    K = len(classes)
    rules = cfg.c45_rules
    m = float(cfg.min_samples_leaf)
    ln_base = math.log(crit.base)
    counted = grower._j48_counted
    d = X.shape[1]
    kinds = schema.kinds
    numeric = [j for j in range(d) if kinds[j] == "numeric"]
    root = grower._nodes[0]
    idx0, w0 = grower._rows[0]
    nodes, rows, paths = [root], {0: (idx0, w0)}, {0: ()}
    reason0 = pre_split_reason(root, cfg)
    if reason0 is not None:
        nodes[0] = root.as_leaf(reason0)
        return FastResult(nodes, rows, paths, [0])
    n_total = X.shape[0]
    XT = np.ascontiguousarray(X.T)          # a feature's values in one run: faster gathers
    lvl = _Level(idx0, w0, np.zeros(idx0.size, dtype=np.int64),
                 {j: np.argsort(X[idx0, j], kind="stable") for j in numeric})
    ids = [0]
    root_w = root.weight
    # n ln n of every whole weight up to the root's, read by the scans instead of logarithms
    ln_table = xlogx(np.arange(int(root_w) + 2, dtype=float)) if np.all(w0 == np.round(w0)) else None
    while ids:
        C = len(ids)
        sum_w = np.array([float(rows[i][1].sum()) for i in ids])
        ycl = y[lvl.rows]
        G = np.zeros((C, d))
        RT = np.zeros((C, d))
        valid = np.zeros((C, d), dtype=bool)
        found = {}

        def scan(j: int) -> None:             # one feature: writes its own column and entry only
            o = lvl.orders[j]
            xs = XT[j][lvl.rows[o]]
            kn = ~np.isnan(xs)
            ko = o[kn]
            xs = xs[kn]
            seg_len = np.bincount(lvl.node[ko], minlength=C)
            cls_w = np.zeros((ko.size, K))
            cls_w[np.arange(ko.size), ycl[ko]] = lvl.w[ko]
            pos, gain, ratio, left, right = numeric_scan(xs, cls_w, lvl.w[ko], seg_len, sum_w, m=m, n_classes=K,
                                                          rules=rules, ln_base=ln_base, table=ln_table)
            valid[:, j] = pos >= 0
            G[:, j], RT[:, j] = gain, ratio
            found[j] = (pos, xs, seg_len, left, right)
        thread_map(scan, numeric, threads_for(lvl.rows.size * len(numeric), grower.threads))
        for j in range(d):
            if kinds[j] == "numeric":
                continue
            V = len(schema.categories[j])
            codes = XT[j][lvl.rows]
            kn = ~np.isnan(codes)
            key = (lvl.node[kn] * V + codes[kn].astype(np.int64)) * K + ycl[kn]
            table = np.bincount(key, weights=lvl.w[kn], minlength=C * V * K).reshape(C, V, K)
            counts = np.bincount(key // K, minlength=C * V).reshape(C, V)
            usable, gain, ratio = nominal_scores(table, sum_w, m=m, ln_base=ln_base)
            valid[:, j] = usable
            G[:, j], RT[:, j] = gain, ratio
            found[j] = (table, counts)
        pick = _choose(G, RT, valid, counted, rules)
        # ----- the splits, node by node (records, stopping), then the copies routed to the children
        plans = []
        made = _numeric_records(grower, found, pick, sum_w, G, RT)
        for c, nid in enumerate(ids):
            node = nodes[nid]
            j = int(pick[c])
            split = made.get(c)
            if split is None and j >= 0:
                split = _split_record(grower, found[j], j, c, float(sum_w[c]), G[c, j], RT[c, j])
            share = node.weight / root_w if root_w > 0 else 0.0
            reason = post_split_reason(split, cfg, task, share)
            if reason is not None:
                nodes[nid] = node.as_leaf(reason)
                continue
            plans.append((c, nid, split))
        if not plans:
            break
        lvl, ids = _children(grower, lvl, plans, nodes, rows, paths, X, U, classes, numeric, n_total)
    return FastResult(nodes, rows, paths, list(range(len(nodes))))


def _numeric_records(grower, found, pick, sum_w, G, RT) -> dict:
    """The winning thresholds of the level's nodes without missing values at the node, as
    :func:`_split_record` (``_make_split``) makes them, many at once (:func:`engine.grow.levelstore.split_numbers`)."""
    out = {}
    schema, crit, task, rules = grower.schema, grower.crit, grower.task, grower.config.c45_rules
    for j in set(pick[pick >= 0].tolist()):
        if schema.kinds[j] != "numeric":
            continue
        pos, xs, seg_len, left, right = found[j]
        cs = np.flatnonzero(pick == j)
        L, R = left[cs], right[cs]
        known = L + R
        W, P = crit.weight(known), crit.from_stats(known)
        whole = W == sum_w[cs]
        if not whole.any():
            continue
        cs, L, R, W, P = cs[whole], L[whole], R[whole], W[whole], P[whole]
        wl, wr, cimp, _, info, _ = split_numbers(crit, L, R, P, W)
        starts = np.zeros(seg_len.size, dtype=np.int64)
        np.cumsum(seg_len[:-1], out=starts[1:])
        n_left = pos[cs] - starts[cs] + 1
        n_right = seg_len[cs] - n_left
        values = grower._training_values(j)
        name = schema.feature_names[j]
        for k, c in enumerate(cs.tolist()):
            out[c] = Split.fast(
                feature=name, feature_index=j, kind="threshold", threshold=threshold_at(xs, int(pos[c]), values, rules),
                categories=(), category_codes=(), gain=float(G[c, j]), gain_ratio=float(RT[c, j]),
                split_info=float(info[k]), impurity_parent=float(P[k]), impurity_children=float(cimp[k]),
                child_stats=(tuple(L[k].tolist()), tuple(R[k].tolist())), child_weights=(float(wl[k]), float(wr[k])),
                child_counts=(int(n_left[k]), int(n_right[k])), known_fraction=1.0, task=task)
    return out


def _split_record(grower, found, j: int, c: int, sum_w: float, gain: float, ratio: float) -> Split:
    """The winning split of the level's node c, as stepping records it (``j48_numeric``/``j48_nominal``)."""
    schema, rules = grower.schema, grower.config.c45_rules
    nd = NodeData(None, None, grower.task, grower.config.min_samples_leaf, grower.crit, sum_w)
    name = schema.feature_names[j]
    if schema.kinds[j] == "numeric":
        pos, xs, seg_len, left, right = found
        start = int(seg_len[:c].sum())
        i, n_known = int(pos[c]), int(seg_len[c])
        t = threshold_at(xs, i, grower._training_values(j), rules)
        split = _make_split(nd, j, name, "threshold", np.stack([left[c], right[c]]),
                            (i - start + 1, n_known - (i - start) - 1), left[c] + right[c], threshold=t)
    else:
        table, counts = found
        labels = schema.categories[j]
        present = np.arange(len(labels)) if "all_values" in rules else np.flatnonzero(counts[c] > 0)
        stats = table[c][present]
        split = _make_split(nd, j, name, "multiway", stats, counts[c][present], stats.sum(axis=0),
                            cats=[labels[v] for v in present], codes=present)
    return Split.fast(**{**split.__dict__, "gain": float(gain), "gain_ratio": float(ratio)})


def _children(grower, lvl: _Level, plans, nodes, rows, paths, X, U, classes, numeric, n_total):
    """Split the planned nodes of the level: their children (nodes, rows, paths) and the next level."""
    C = int(lvl.node.max()) + 1 if lvl.node.size else 0
    n_plan = len(plans)
    B = np.zeros(C, dtype=np.int64)
    base = np.zeros(C, dtype=np.int64)
    feat = np.zeros(C, dtype=np.int64)
    thr = np.zeros(C)
    is_split = np.zeros(C, dtype=bool)
    nominal = np.zeros(C, dtype=bool)
    max_b = max(p[2].n_children for p in plans)
    share = np.zeros((C, max_b))
    V = max([len(grower.schema.categories[p[2].feature_index]) for p in plans if p[2].kind == "multiway"], default=1)
    lut = np.full((C, V), -1, dtype=np.int64)
    total = 0
    for c, _, split in plans:
        B[c], base[c], feat[c], is_split[c] = split.n_children, total, split.feature_index, True
        total += split.n_children
        cw = np.asarray(split.child_weights, dtype=float)
        share[c, :cw.size] = cw / cw.sum() if cw.sum() > 0 else np.full(cw.size, 1.0 / max(cw.size, 1))
        if split.kind == "threshold":
            thr[c] = split.threshold
        else:
            nominal[c] = True
            lut[c, list(split.category_codes)] = np.arange(len(split.category_codes))
    sel = np.flatnonzero(is_split[lvl.node])
    cn = lvl.node[sel]
    v = X[lvl.rows[sel], feat[cn]]
    miss = np.isnan(v)
    safe = np.where(miss, 0, v)
    branch = np.where(nominal[cn], lut[cn, np.clip(safe, 0, V - 1).astype(np.int64) * nominal[cn]],
                      (safe > thr[cn]).astype(np.int64))
    kn = ~miss
    src = [sel[kn]]
    child = [base[cn[kn]] + branch[kn]]
    weight = [lvl.w[sel[kn]]]
    if miss.any():
        ms, mc = sel[miss], cn[miss]
        for b in range(max_b):
            wb = lvl.w[ms] * share[mc, b]
            keep = (b < B[mc]) & (wb > 0)
            src.append(ms[keep])
            child.append(base[mc[keep]] + b)
            weight.append(wb[keep])
    src, child, weight = np.concatenate(src), np.concatenate(child), np.concatenate(weight)
    new_rows = lvl.rows[src]
    o = np.argsort(child * n_total + new_rows)
    src, child, weight, new_rows = src[o], child[o], weight[o], new_rows[o]
    n_child = np.bincount(child, minlength=total)
    starts = np.zeros(total + 1, dtype=np.int64)
    np.cumsum(n_child, out=starts[1:])
    crit, cfg = grower.crit, grower.config
    open_local = []
    next_ids = []
    if np.all(weight == np.round(weight)):        # whole numbers: the children's sums exactly, at once
        K = U.shape[1]
        kid_stats = np.bincount(child * K + grower.y[new_rows].astype(np.int64), weights=weight,
                                minlength=total * K).reshape(total, K)
    else:                                         # fractions: each child's own sum, as stepping makes it
        kid_stats = np.array([(U[new_rows[a:b]] * weight[a:b, None]).sum(0)
                              for a, b in zip(starts[:-1].tolist(), starts[1:].tolist())]).reshape(total, U.shape[1])
    factories = make_nodes(kid_stats, n_child, crit, classes)
    for c, nid, split in plans:
        node = nodes[nid]
        labels = split.branch_labels()
        kids = []
        for b in range(split.n_children):
            k = base[c] + b
            cidx, cw = new_rows[starts[k]:starts[k + 1]], weight[starts[k]:starts[k + 1]]
            cid = len(nodes)
            kid = factories[k](cid, nid, node.depth + 1, labels[b])
            if kid.weight <= 0:               # an empty branch: the parent's class
                kid = kid.evolve(value=node.value, prediction=node.prediction)
            reason = pre_split_reason(kid, cfg)
            if reason is not None:
                kid = kid.as_leaf(reason)
            else:
                open_local.append(k)
                next_ids.append(cid)
            nodes.append(kid)
            rows[cid] = (cidx, cw)
            paths[cid] = paths[nid] + ((split.feature_index, split.kind, split.threshold, split.category_codes, b),)
            kids.append(cid)
        nodes[nid] = node.evolve(split=split, children=tuple(kids), gain=split.gain, stop_reason=None)
    if not next_ids:
        return _Level(None, None, None, {}), []
    local = np.full(total, -1, dtype=np.int64)
    local[np.asarray(open_local)] = np.arange(len(open_local))
    nl = local[child]
    keep = nl >= 0
    src, nl, weight, new_rows = src[keep], nl[keep], weight[keep], new_rows[keep]
    T_parent = lvl.rows.size
    node_key = nl * T_parent

    def child_order(j: int):                 # the children's rows in feature j's order, node by node
        rank = np.empty(T_parent, dtype=np.int64)
        rank[lvl.orders[j]] = np.arange(T_parent)
        return np.argsort(node_key + rank[src])
    orders = dict(zip(numeric, thread_map(child_order, numeric, threads_for(T_parent * len(numeric), grower.threads))))
    return _Level(new_rows, weight, nl, orders), next_ids
