"""A level-wise growth's arrays made into what the Grower installs: a ``FastResult`` of a
:class:`~engine.grow.levelstore.NodeStore`, its rows (:class:`~engine.grow.levelstore.RowRanges`) and paths,
ids renumbered depth-first when the expansion order is depth-first.
"""

from __future__ import annotations

import numpy as np

from engine.grow.levelstore import FastResult, NodeStore, PathMap, RowRanges, depth_first_ids

def level_result(grower, root, data, perm, n_nodes, lv_parent, lv_branch, lv_stats, lv_n, lv_pre, lv_lo, lv_hi,
            post_ids, post_codes, sp):
    cat = np.concatenate
    parent, branch, stats = cat(lv_parent), cat(lv_branch), cat(lv_stats)
    n_rows, reason, lo, hi = cat(lv_n), cat(lv_pre).astype(np.int8), cat(lv_lo), cat(lv_hi)
    if post_ids:
        reason[cat(post_ids)] = cat(post_codes)
    S = data.S
    # a split's sides are its children's stats (kept once, in ``stats``: nodes x classes, not three times)
    splits = {k: (cat(v) if v else np.zeros(0)) for k, v in sp.items()}
    split_of = np.full(n_nodes, -1, dtype=np.int64)
    split_of[splits["node"].astype(np.int64)] = np.arange(splits["node"].size)
    first_child = np.full(n_nodes, -1, dtype=np.int64)
    first_child[splits["node"].astype(np.int64)] = splits["first_child"]
    depth = cat([np.full(a.size, i) for i, a in enumerate(lv_parent)])
    feature = np.zeros(n_nodes, dtype=np.int64)
    threshold = np.zeros(n_nodes)
    feature[splits["node"].astype(np.int64)] = splits["feature"]
    threshold[splits["node"].astype(np.int64)] = splits["threshold"]
    order = list(range(n_nodes))
    if grower.config.effective_order == "depth":
        new_id, order = depth_first_ids(first_child)
        parent = np.where(parent >= 0, new_id[np.maximum(parent, 0)], -1)
        parent, branch, stats, n_rows, reason, depth, feature, threshold = (
            _moved(a, new_id) for a in (parent, branch, stats, n_rows, reason, depth, feature, threshold))
        split_of = _moved(split_of, new_id)
        first_child = _moved(np.where(first_child >= 0, new_id[np.maximum(first_child, 0)], -1), new_id)
        lo, hi = _moved(lo, new_id), _moved(hi, new_id)
    nodes = NodeStore(root, parent=parent, depth=depth, branch=branch, stats=stats, n_rows=n_rows,
                      reason=reason, split_of=split_of, splits=splits, first_child=first_child,
                      crit=grower.crit, classes=grower.dataset.classes,
                      names=grower.schema.feature_names, task=grower.task)
    rows = RowRanges(data.idx0, data.w, perm, lo, hi)
    paths = PathMap(parent, feature, threshold, branch)
    return FastResult(nodes, rows, paths, order)


def _moved(a: np.ndarray, new_id: np.ndarray) -> np.ndarray:
    out = np.empty_like(a)
    out[new_id] = a
    return out


__all__ = ["level_result"]
