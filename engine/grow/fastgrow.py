"""Level-wise growth: the same tree as stepping a :class:`~engine.grow.grower.Grower` to the end, with Python
overhead per level instead of per node.

Used for numeric features without missing values, breadth- or depth-first order, no validation rule.
Exact search grows in :func:`engine.grow.fastexact.grow_exact`; histogram search here, with the bin-code
scans of :mod:`engine.grow.fasthist`: per level, every row only carries the level node it is in; each node's
best edge per feature, the winners' node-local thresholds and the routing to children come from the
bin codes. Nodes are made per level; their rows are ranges of one permutation built at the end.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from engine.tree.build import make_nodes
from engine.split.records import Split
from engine.grow.fastexact import feature_choice, grow_exact
from engine.grow.featuredraw import child_key, draw_mask, feature_ranks
from engine.grow.fasthist import LevelHistograms
from engine.grow.levelstore import FastResult, depth_first_ids, split_numbers
from engine.grow.stopping import post_split_reason, pre_split_reason


def fast_eligible(grower) -> bool:
    cfg = grower.config
    return (cfg.effective_order in ("breadth", "depth") and not cfg.validation and not cfg.c45_rules
            and all(k == "numeric" for k in grower.schema.kinds)
            and not np.isnan(grower.X).any())


def _level_splits(crit, task, schema, jstar, G, L, R, NL, cnt, T, TOT, W, P) -> list:
    """The winning threshold split of every node of a level (None where no split is valid), with the
    same numbers :func:`engine.split.search._make_split` computes one node at a time."""
    n = G.size
    ok = np.isfinite(G)
    wl, wr, children_imp, gain, info, ratio = split_numbers(crit, L, R, P, W)
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
    """The whole tree, level by level; exact search is :func:`engine.grow.fastexact.grow_exact`."""
    cfg, crit, schema = grower.config, grower.crit, grower.schema
    if cfg.split_search != "histogram":
        return grow_exact(grower)
    classes = grower.dataset.classes
    idx0 = np.flatnonzero(grower.w0 > 0)
    w = grower.w0[idx0]
    ScT = ylab = None
    if grower.task == "classification" and np.all(w == 1.0):     # class counts from the labels
        ylab = grower.y[idx0].astype(np.int16 if len(classes) > 127 else np.int8)
    else:
        ScT = np.ascontiguousarray((grower.U[idx0] * w[:, None]).T)    # (S, m): per-stat rows
    m, d = idx0.size, grower.X.shape[1]
    draw = cfg.n_features_to_draw(d) < d
    hs = LevelHistograms(grower, idx0, ScT, ylab, draw)
    root = grower._nodes[0]
    nodes, paths, order = [root], {0: ()}, []
    level = [0]                                   # node ids of this level, in id order
    sizes = np.array([m])                         # rows of each level node
    node_of = np.zeros(m, dtype=np.int64)         # level-local node of each row, -1 when done
    keys = {0: 0}                                 # node id -> key of its path (feature draws)
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
        key = np.where(node_of >= 0, cmap[np.maximum(node_of, 0)], -1) if C < L else node_of
        cnt = sizes[cand]
        TOT = hs.totals(node_of, key, cand, level)
        W = crit.weight(TOT)
        P = crit.from_stats(TOT)
        allowed = None
        if draw:  # features each node may use (random forests): scan feature j only in those nodes
            lvl_keys = [keys[level[k]] for k in cand]
            allowed = draw_mask(lvl_keys, cfg.random_state or 0, d, cfg.n_features_to_draw(d))
        G, _, LEFT, NL = hs.scan(P, W, allowed)
        ranks = None
        if cfg.random_state is not None:   # ties between features go to the node's seeded random order
            ranks = feature_ranks([keys[level[k]] for k in cand], cfg.random_state, d)
        jstar = feature_choice(cfg, crit, G, LEFT, W, ranks)
        # decide and create children, in level order (breadth-first ids), vectorised over the level
        ci = np.arange(C)
        Gw, Lw, NLw, Tw = G[ci, jstar], LEFT[ci, jstar], NL[ci, jstar], hs.thresholds(jstar)
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
            reason = post_split_reason(split, cfg, grower.task, nodes[nid].weight / root.weight)
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
                    if draw or cfg.random_state is not None:
                        keys[cid] = child_key(keys[nid], step)
        if not new_level:
            break
        node_of, sizes = hs.route(child_of_cand, n_next)
        level = new_level
    res = FastResult(nodes, hs.row_ranges(nodes, w, node_of, level[0]), paths, order)
    return renumber_depth_first(res) if cfg.effective_order == "depth" else res


def renumber_depth_first(res: FastResult) -> FastResult:
    """Ids as depth-first stepping assigns them: children numbered when their parent is split, in pre-order
    (the level-wise ids of a node's two children are consecutive, as :func:`levelstore.depth_first_ids` needs)."""
    nodes = res.nodes
    new_id, order = depth_first_ids(np.array([n.children[0] if n.children else -1 for n in nodes], dtype=np.int64))
    ids = new_id.tolist()
    out = [None] * len(nodes)
    for old, n in enumerate(nodes):
        out[ids[old]] = replace(n, id=ids[old], parent=None if n.parent is None else ids[n.parent],
                                children=tuple(ids[c] for c in n.children))
    return FastResult(out, res.rows.renumbered(new_id), {ids[k]: v for k, v in res.paths.items()}, order)


__all__ = ["fast_eligible", "grow_levelwise", "renumber_depth_first", "FastResult"]
