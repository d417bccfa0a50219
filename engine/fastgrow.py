"""Level-wise exact growth: the same tree as stepping a :class:`~engine.growth.Grower` to the end,
with Python overhead per level instead of per node.

Used for numeric features without missing values, breadth- or depth-first order, no validation rule
(SLIQ/SPRINT style). Each feature's row order is sorted once; when a level's nodes split, every
feature's order is partitioned stably by child (a radix ``argsort`` on the child index), so rows stay
grouped by node and sorted by value within it. For one feature and a whole level at once, cumulative
stats minus each segment's offset give every node's left-child stats at every threshold; a segmented
maximum (``np.maximum.reduceat``) then picks each node's best threshold, first on ties as in
:mod:`engine.search`. Results equal the step-by-step search exactly for integer weights and
integer-valued regression targets (every partial sum is exact); with fractional values the sums may
differ in the last bits, which can only matter for candidates whose gains tie to ~1e-12.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .nodes import make_nodes
from .splits import Split
from .featuredraw import child_key, draw_mask
from .fasthist import LevelHistograms
from .search import TIE_TOL
from .stopping import post_split_reason, pre_split_reason


def fast_eligible(grower) -> bool:
    cfg = grower.config
    return (cfg.effective_order in ("breadth", "depth") and not cfg.validation
            and all(k == "numeric" for k in grower.schema.kinds)
            and not np.isnan(grower.X).any())


@dataclass
class FastResult:
    nodes: list          # Node objects, index == id
    rows: dict           # id -> (row idx, weights)
    paths: dict          # id -> path key
    order: list          # node ids in processing order
    depth_first: bool = False   # ids already numbered as depth-first stepping numbers them


def _segment_best(g: np.ndarray, starts: np.ndarray, nd: np.ndarray, n_seg: int):
    """Per segment: max of g and the first position within TIE_TOL of it (-1 if none finite)."""
    segmax = np.maximum.reduceat(g, starts)
    finite = np.isfinite(segmax)
    bar = np.where(finite, segmax - TIE_TOL * (1.0 + np.abs(np.where(finite, segmax, 0.0))), np.inf)
    hits = np.flatnonzero(g >= bar[nd])
    first = np.full(n_seg, -1, dtype=np.int64)
    if hits.size:
        seg = nd[hits]
        lead = np.ones(hits.size, dtype=bool)
        lead[1:] = seg[1:] != seg[:-1]
        first[seg[lead]] = hits[lead]
    return segmax, first


def _ordered_cumsum(ScT: np.ndarray, order: np.ndarray, labels: np.ndarray | None = None) -> np.ndarray:
    """Cumulative stats along ``order``, one stat row at a time: (S, len(order)).

    With ``labels`` (classification with unit weights) the one-hot rows are never gathered: comparing the
    ordered labels with each class gives the same 0/1 sequence, so the same sums, at half the cost.
    """
    out = np.empty((ScT.shape[0], order.size))
    if labels is not None:
        lo = labels[order]
        for k in range(ScT.shape[0]):
            np.cumsum(lo == k, dtype=np.float64, out=out[k])
        return out
    for k in range(ScT.shape[0]):
        np.cumsum(ScT[k][order], out=out[k])
    return out


def _stable_group(order: np.ndarray, key: np.ndarray, n_keys: int) -> np.ndarray:
    """``order`` regrouped by ``key`` (stable), dropping entries with key < 0."""
    keep = key >= 0
    order, key = order[keep], key[keep]
    dtype = np.uint16 if n_keys < 65535 else np.uint32
    return order[np.argsort(key.astype(dtype), kind="stable")]


def _level_splits(crit, task, schema, jstar, G, L, R, NL, cnt, T, TOT, W, P) -> list:
    """The winning threshold split of every node of a level (None where no split is valid), with the
    same numbers :func:`engine.search._make_split` computes one node at a time."""
    n = G.size
    ok = np.isfinite(G)
    wl, wr = crit.weight(L), crit.weight(R)
    children_imp = (crit.weighted(L) + crit.weighted(R)) / W
    gain = 1.0 * (P - children_imp)
    gain = np.where(np.abs(gain) < 1e-15, np.maximum(gain, 0.0), gain)
    with np.errstate(divide="ignore", invalid="ignore"):
        pl, pr = wl / W, wr / W
        info = -(np.where(pl > 0, pl * np.log2(np.where(pl > 0, pl, 1.0)), 0.0)
                 + np.where(pr > 0, pr * np.log2(np.where(pr > 0, pr, 1.0)), 0.0))
        ratio = np.where(info > 0, gain / np.where(info > 0, info, 1.0), 0.0)
    names = schema.feature_names
    Ll, Rl, wll, wrl = L.tolist(), R.tolist(), wl.tolist(), wr.tolist()
    gl, rl, il, pl_, cl, tl = gain.tolist(), ratio.tolist(), info.tolist(), P.tolist(), children_imp.tolist(), T.tolist()
    nll, cntl, jl = NL.tolist(), cnt.tolist(), jstar.tolist()
    out = [None] * n
    for c in np.flatnonzero(ok).tolist():
        j = jl[c]
        out[c] = Split.fast(feature=names[j], feature_index=j, kind="threshold", threshold=float(tl[c]),
                       categories=(), category_codes=(),
                       gain=gl[c], gain_ratio=rl[c], split_info=il[c], impurity_parent=pl_[c],
                       impurity_children=cl[c], child_stats=(tuple(Ll[c]), tuple(Rl[c])),
                       child_weights=(wll[c], wrl[c]), child_counts=(nll[c], cntl[c] - nll[c]),
                       known_fraction=1.0, task=task)
    return out


def grow_levelwise(grower) -> FastResult:
    cfg, crit, schema = grower.config, grower.crit, grower.schema
    if cfg.split_search != "histogram":
        from .fastexact import grow_exact
        return grow_exact(grower)
    classes = grower.dataset.classes
    idx0 = np.flatnonzero(grower.w0 > 0)
    w = grower.w0[idx0]
    hist = cfg.split_search == "histogram"
    Xc = None if hist else np.ascontiguousarray(grower.X[idx0])   # histogram search reads bin codes
    Sc = grower.U[idx0] * w[:, None]
    ScT = np.ascontiguousarray(Sc.T)                  # (S, m): per-stat rows make gathers contiguous
    XcT = None if hist else np.ascontiguousarray(Xc.T)
    ylab = None
    if grower.task == "classification" and np.all(w == 1.0):
        ylab = grower.y[idx0].astype(np.int16 if len(classes) > 127 else np.int8)
    m, d = idx0.size, grower.X.shape[1]
    draw = cfg.n_features_to_draw(d) < d
    if hist:
        hs = LevelHistograms(grower, idx0, ScT, ylab, draw)
        orders = None
    else:
        orders = [np.argsort(XcT[j], kind="stable") for j in range(d)]
    root = grower._nodes[0]
    nodes, rows, paths, order = [root], {0: (idx0, w)}, {0: ()}, []
    level = [0]                                   # node ids of this level, in id order
    members = [np.arange(m)]                      # compact row positions of each level node, ascending
    node_of = np.zeros(m, dtype=np.int64)         # level-local node of each row, -1 when done
    keys = {0: 0}                                 # node id -> running CRC of its path (feature draws)
    while level:
        order.extend(level)
        L = len(level)
        reasons = [pre_split_reason(nodes[i], cfg) for i in level]
        cand = [k for k in range(L) if reasons[k] is None]
        C = len(cand)
        if C == 0:
            for k, nid in enumerate(level):
                nodes[nid] = nodes[nid].evolve(split=None, children=(), gain=None, stop_reason=reasons[k])
            break
        cmap = np.full(L, -1, dtype=np.int64)
        cmap[cand] = np.arange(C)
        if C < L:
            key = np.where(node_of >= 0, cmap[np.maximum(node_of, 0)], -1)
            if not hist:
                orders = [_stable_group(o, key[o], C) for o in orders]
        else:
            key = node_of
        cnt = np.array([members[k].size for k in cand], dtype=np.int64)
        starts = np.zeros(C, dtype=np.int64)
        np.cumsum(cnt[:-1], out=starts[1:])
        if not hist:
            M = int(cnt.sum())
            nd = np.repeat(np.arange(C), cnt)
            pos_in = np.arange(M) - starts[nd]
            n_left_all = pos_in + 1
            n_right_all = cnt[nd] - n_left_all
            size_ok = (n_left_all >= cfg.min_samples_leaf) & (n_right_all >= cfg.min_samples_leaf)
        G = np.full((C, d), -np.inf)
        THR = np.zeros((C, d))
        LEFT = np.zeros((C, d, Sc.shape[1]))
        NL = np.zeros((C, d), dtype=np.int64)
        S = Sc.shape[1]
        if hist:
            TOT = hs.totals(node_of, key, cand, members, starts)
            cum0 = None
        else:
            cum0 = _ordered_cumsum(ScT, orders[0], ylab)                   # (S, M)
            ends = starts + cnt - 1
            TOT = (cum0[:, ends] - np.concatenate([np.zeros((S, 1)), cum0[:, ends[:-1]]], axis=1)).T
        W = crit.weight(TOT)
        P = crit.from_stats(TOT)
        TOTT = np.ascontiguousarray(TOT.T)
        allowed = None
        if draw:  # features each node may use (random forests): scan feature j only in those nodes
            lvl_keys = [keys[level[k]] for k in cand]
            allowed = draw_mask(lvl_keys, cfg.random_state or 0, d, cfg.n_features_to_draw(d))
        if hist:
            G, _, LEFT, NL = hs.scan(P, W, allowed)
        for j in range(0 if hist else d):
            segs, o = np.arange(C), orders[j]
            s_cnt, s_starts, s_nd, s_nl, s_ok = cnt, starts, nd, n_left_all, size_ok
            full = allowed is None or allowed[:, j].all()
            if not full:
                segs = np.flatnonzero(allowed[:, j])
                if segs.size == 0:
                    continue
                keep = allowed[nd, j]
                o, s_cnt, s_nl, s_ok = o[keep], cnt[segs], n_left_all[keep], size_ok[keep]
                s_starts = np.zeros(segs.size, dtype=np.int64)
                np.cumsum(s_cnt[:-1], out=s_starts[1:])
                s_nd = np.repeat(np.arange(segs.size), s_cnt)
            xs = XcT[j][o]
            cum = cum0 if (j == 0 and full) else _ordered_cumsum(ScT, o, ylab)
            base = np.zeros((S, segs.size))
            base[:, 1:] = cum[:, (s_starts + s_cnt - 1)[:-1]]
            valid = s_ok.copy()
            valid[:-1] &= xs[1:] > xs[:-1]
            valid[-1] = False
            # every position at once: np.repeat of per-node values is far cheaper than gathering
            left = cum - np.repeat(base, s_cnt, axis=1)
            right = np.repeat(TOTT[:, segs], s_cnt, axis=1) - left
            with np.errstate(divide="ignore", invalid="ignore"):
                children = (crit.weighted(left.T) + crit.weighted(right.T)) / np.repeat(W[segs], s_cnt)
                g = np.where(valid, np.repeat(P[segs], s_cnt) - children, -np.inf)
            segmax, first = _segment_best(g, s_starts, s_nd, segs.size)
            ok = first >= 0
            at = segs[ok]
            G[at, j] = segmax[ok]
            f = first[ok]
            t = (xs[f] + xs[f + 1]) / 2.0
            THR[at, j] = np.where(t >= xs[f + 1], xs[f], t)
            LEFT[at, j] = (cum[:, f] - base[:, ok.nonzero()[0]]).T
            NL[at, j] = s_nl[f]
        if cfg.score == "gain_ratio":
            finite = np.isfinite(G)
            avg = np.where(finite, G, 0).sum(1) / np.maximum(finite.sum(1), 1)
            WL = crit.weight(LEFT)
            WR = W[:, None] - WL
            with np.errstate(divide="ignore", invalid="ignore"):
                pl, pr = WL / W[:, None], WR / W[:, None]
                info = -(np.where(pl > 0, pl * np.log2(np.where(pl > 0, pl, 1)), 0)
                         + np.where(pr > 0, pr * np.log2(np.where(pr > 0, pr, 1)), 0))
                ratio = np.where(info > 0, G / info, 0.0)
            score = np.where(finite & (G >= avg[:, None] - TIE_TOL), np.round(ratio, 12), -np.inf)
        else:
            score = np.round(G, 12)
        jstar = np.argmax(score, axis=1)
        if hist:
            THR[np.arange(C), jstar] = hs.thresholds(jstar)
        # decide and create children, in level order (breadth-first ids), vectorised over the level
        ci = np.arange(C)
        Gw, Lw, NLw, Tw = G[ci, jstar], LEFT[ci, jstar], NL[ci, jstar], THR[ci, jstar]
        Rw = TOT - Lw
        splits = _level_splits(crit, grower.task, schema, jstar, Gw, Lw, Rw, NLw, cnt, Tw, TOT, W, P)
        child_of_cand = np.full(C, -1, dtype=np.int64)
        new_level, n_next, parents = [], 0, []
        for k in range(L):
            nid = level[k]
            if reasons[k] is not None:
                nodes[nid] = nodes[nid].evolve(split=None, children=(), gain=None, stop_reason=reasons[k])
                continue
            c = cmap[k]
            split = splits[c]
            reason = post_split_reason(split, cfg, grower.task)
            if reason is not None:
                nodes[nid] = nodes[nid].evolve(split=None, children=(), gain=None, stop_reason=reason)
                continue
            child_of_cand[c] = n_next
            n_next += 2
            ids = (len(nodes), len(nodes) + 1)
            nodes.extend((None, None))
            parents.append((nid, c, ids))
            new_level.extend(ids)
            nodes[nid] = nodes[nid].evolve(split=split, children=ids, gain=split.gain, stop_reason=None)
        if parents:
            pc = np.array([c for _, c, _ in parents])
            child_stats = np.empty((2 * pc.size, TOT.shape[1]))
            child_stats[0::2], child_stats[1::2] = Lw[pc], Rw[pc]
            counts = np.empty(2 * pc.size, dtype=np.int64)
            counts[0::2], counts[1::2] = NLw[pc], cnt[pc] - NLw[pc]
            made = make_nodes(child_stats, counts, crit, classes)
            for i, (nid, c, ids) in enumerate(parents):
                depth = nodes[nid].depth + 1
                labels = splits[c].branch_labels()
                j, thr = int(jstar[c]), splits[c].threshold
                for b in (0, 1):
                    cid = ids[b]
                    nodes[cid] = made[2 * i + b](cid, nid, depth, labels[b])
                    step = (j, "threshold", thr, (), b)
                    paths[cid] = paths[nid] + (step,)
                    if draw:
                        keys[cid] = child_key(keys[nid], step)
        if not new_level:
            break
        # route rows to children and regroup every feature's order
        if hist:
            new_node_of = hs.route(child_of_cand, n_next)
        else:
            new_node_of = np.full(m, -1, dtype=np.int64)
            act = np.flatnonzero(key >= 0)
            kk = key[act]
            base_child = child_of_cand[kk]
            live = base_child >= 0
            act, kk, base_child = act[live], kk[live], base_child[live]
            goes_right = Xc[act, jstar[kk]] > THR[kk, jstar[kk]]
            new_node_of[act] = base_child + goes_right
        if not hist:
            orders = [_stable_group(o, new_node_of[o], n_next) for o in orders]
        grouped = _stable_group(np.arange(m), new_node_of, n_next)
        sizes = np.bincount(new_node_of[grouped], minlength=n_next)
        members = np.split(grouped, np.cumsum(sizes)[:-1])
        for cid, mem in zip(new_level, members):
            rows[cid] = (idx0[mem], w[mem])
        node_of = new_node_of
        level = new_level
    return FastResult(nodes, rows, paths, order)


def renumber_depth_first(res: FastResult) -> FastResult:
    """Ids as depth-first stepping assigns them: children numbered when their parent is split, in pre-order."""
    nodes = res.nodes
    new_id = {0: 0}
    preorder, stack, nxt = [], [0], 1
    while stack:
        nid = stack.pop()
        preorder.append(nid)
        for c in nodes[nid].children:
            new_id[c] = nxt
            nxt += 1
        stack.extend(reversed(nodes[nid].children))
    out = [None] * len(nodes)
    for old, new in new_id.items():
        n = nodes[old]
        out[new] = replace(n, id=new, parent=None if n.parent is None else new_id[n.parent],
                           children=tuple(new_id[c] for c in n.children))
    return FastResult(out, {new_id[k]: v for k, v in res.rows.items()},
                      {new_id[k]: v for k, v in res.paths.items()}, [new_id[i] for i in preorder])


__all__ = ["fast_eligible", "grow_levelwise", "renumber_depth_first", "FastResult"]
