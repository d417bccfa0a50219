"""The record of a level-wise growth, kept as arrays, turned into nodes once at the end.

Growing level by level, the growers only append numbers to arrays per level (parents, statistics, the
winning splits' numbers, stop reasons); :func:`build_nodes` turns them into :class:`~engine.tree.Node`
and :class:`~engine.split.records.Split` objects in one pass, so the Python work is a few microseconds per
node and none of it is repeated.

The rows of every node are ranges of one permutation of the training rows: splitting a node partitions
its range stably (left rows first), so every node ever grown keeps a contiguous range. :class:`RowRanges`
hands out a node's rows on demand (ascending, as the step-by-step grower keeps them) and
:class:`PathMap` its path from the root, so the memory stays O(rows + nodes) however deep the tree is.
Both behave as the dicts the :class:`~engine.grow.grower.Grower` keeps: assignments and deletions made
later (stepping on from a level-wise state) override the recorded ranges.
"""

from __future__ import annotations

import gc
from collections.abc import MutableMapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from engine.tree.build import node_fields, node_values
from engine.split.records import Split, format_number
from engine.tree.node import Node

@dataclass
class FastResult:
    """What a level-wise grower hands to ``Grower._install``."""

    nodes: "NodeStore | list"   # Node objects, index == id (a NodeStore makes them when first read)
    rows: "RowRanges"    # id -> (row idx, weights)
    paths: dict          # id -> path key (a dict or a PathMap)
    order: list          # node ids in processing order (ids numbered as stepping in that order numbers them)


def split_numbers(crit, L, R, P, W):
    """The numbers :func:`engine.split.search._make_split` records, for many binary splits at once: left and right
    weights, children's impurity, gain, split info and gain ratio, from the sides' stats ``L``/``R`` and the
    parents' impurity ``P`` and weight ``W``."""
    wl, wr = crit.weight(L), crit.weight(R)
    children_imp = (crit.weighted(L) + crit.weighted(R)) / W
    gain = 1.0 * (P - children_imp)
    gain = np.where(np.abs(gain) < 1e-15, np.maximum(gain, 0.0), gain)
    with np.errstate(divide="ignore", invalid="ignore"):
        pl, pr = wl / W, wr / W
        info = -(np.where(pl > 0, pl * np.log2(np.where(pl > 0, pl, 1.0)), 0.0)
                 + np.where(pr > 0, pr * np.log2(np.where(pr > 0, pr, 1.0)), 0.0))
        base = getattr(crit, "base", 2.0)
        if base != 2.0:                  # split info in the entropy's unit: the gain ratio is base-free
            info = info / np.log2(base)
        ratio = np.where(info > 0, gain / np.where(info > 0, info, 1.0), 0.0)
    return wl, wr, children_imp, gain, info, ratio


#: stop reasons by code, as recorded per node (-1: the node was split)
STOP_CODES = ("pure", "max_depth", "min_samples_split", "min_samples_leaf", "no_split",
              "min_impurity_decrease", "chi2", "min_gain")
NO_SPLIT, MIN_DECREASE, CHI2, MIN_GAIN = 4, 5, 6, 7


@contextmanager
def paused_gc():
    """Python's cyclic garbage collector off for a block that makes hundreds of thousands of objects,
    none of them in cycles: otherwise every few hundred allocations trigger a pass over all of them.

    On the way out the survivors are moved to the oldest generation (``freeze`` then ``unfreeze``: two
    list splices), so the next young collection does not walk them all at once; a later full collection
    still sees everything, so nothing is kept alive."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.freeze()
            gc.unfreeze()
            gc.enable()


class _Overridable(MutableMapping):
    """A mapping over node ids backed by recorded arrays, with later assignments and deletions on top."""

    def __init__(self, n: int):
        self._n = n
        self._over: dict = {}
        self._gone: set = set()
        self._limit: set | None = None

    def _recorded(self, nid) -> bool:
        return (isinstance(nid, (int, np.integer)) and 0 <= nid < self._n and nid not in self._gone
                and (self._limit is None or nid in self._limit))

    def _compute(self, nid):
        raise NotImplementedError

    def __getitem__(self, nid):
        if nid in self._over:
            return self._over[nid]
        if not self._recorded(nid):
            raise KeyError(nid)
        return self._compute(int(nid))

    def __setitem__(self, nid, value):
        self._over[nid] = value

    def __delitem__(self, nid):
        if nid in self._over:
            del self._over[nid]
            if self._recorded(nid):
                self._gone.add(nid)
        elif self._recorded(nid):
            self._gone.add(nid)
        else:
            raise KeyError(nid)

    def __iter__(self):
        yield from self._over
        ids = range(self._n) if self._limit is None else sorted(self._limit)
        yield from (i for i in ids if i not in self._over and self._recorded(i))

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def restricted(self, keep) -> "_Overridable":
        """A copy that only knows the recorded ids in ``keep`` (later assignments start afresh)."""
        keep = set(keep)
        new = self._copy()
        new._limit = keep if self._limit is None else keep & self._limit
        new._gone = set(self._gone)
        new._over = {k: v for k, v in self._over.items() if k in keep}
        return new

    def _copy(self) -> "_Overridable":
        raise NotImplementedError


class RowRanges(_Overridable):
    """Node id -> (row indices into the training data, weights), from ranges of one permutation."""

    def __init__(self, idx0: np.ndarray, w: np.ndarray, perm: np.ndarray, lo: np.ndarray, hi: np.ndarray):
        super().__init__(lo.size)
        self._idx0, self._w, self._perm, self._lo, self._hi = idx0, w, perm, lo, hi

    def _compute(self, nid):
        s = np.sort(self._perm[self._lo[nid]:self._hi[nid]])
        return self._idx0[s], self._w[s]

    def _copy(self) -> "RowRanges":
        return RowRanges(self._idx0, self._w, self._perm, self._lo, self._hi)

    def owners(self, ids: np.ndarray, n_rows: int) -> np.ndarray:
        """For each of the ``n_rows`` training rows, which of the nodes ``ids`` (disjoint ranges as
        recorded, e.g. the leaves) holds it, or -1."""
        ids = np.asarray(ids, dtype=np.int64)
        size = self._hi[ids] - self._lo[ids]
        at = np.repeat(self._lo[ids] - (np.cumsum(size) - size), size) + np.arange(int(size.sum()))
        out = np.full(n_rows, -1, dtype=np.int64)
        out[self._idx0[self._perm[at]]] = np.repeat(ids, size)
        return out

    def renumbered(self, new_id: np.ndarray) -> "RowRanges":
        lo, hi = np.empty_like(self._lo), np.empty_like(self._hi)
        lo[new_id], hi[new_id] = self._lo, self._hi
        return RowRanges(self._idx0, self._w, self._perm, lo, hi)


class PathMap(_Overridable):
    """Node id -> path from the root, as the growers key it: a tuple of steps
    ``(feature index, "threshold", threshold, (), child)``; built on demand, remembered."""

    def __init__(self, parent: np.ndarray, feature: np.ndarray, threshold: np.ndarray, branch: np.ndarray):
        super().__init__(parent.size)
        self._parent, self._feature, self._threshold, self._branch = parent, feature, threshold, branch
        self._memo: dict = {0: ()}

    def _compute(self, nid):
        chain = []
        while nid not in self._memo:
            chain.append(nid)
            nid = int(self._parent[nid])
        path = self._memo[nid]
        for c in reversed(chain):
            p = int(self._parent[c])
            path = path + ((int(self._feature[p]), "threshold", float(self._threshold[p]), (),
                            int(self._branch[c])),)
            self._memo[c] = path
        return path

    def _copy(self) -> "PathMap":
        new = PathMap(self._parent, self._feature, self._threshold, self._branch)
        new._memo = self._memo
        return new


def depth_first_ids(first_child: np.ndarray) -> tuple[np.ndarray, list[int]]:
    """Ids as depth-first stepping assigns them (children numbered when their parent is split), and the
    order in which stepping processes the nodes (pre-order), from each node's first child (-1: leaf;
    the second child is ``first_child + 1``)."""
    fc = first_child.tolist()
    new_id = np.zeros(len(fc), dtype=np.int64)
    preorder, stack, nxt = [], [0], 1
    while stack:
        nid = stack.pop()
        preorder.append(nid)
        c = fc[nid]
        if c >= 0:
            new_id[c], new_id[c + 1] = nxt, nxt + 1
            nxt += 2
            stack.append(c + 1)
            stack.append(c)
    return new_id, [int(new_id[i]) for i in preorder]


class NodeStore(Sequence):
    """The nodes of a level-wise growth as a read-only sequence (index == id) that makes its
    :class:`~engine.tree.Node` and :class:`~engine.split.records.Split` objects only when a node is first read,
    all at once (:func:`build_nodes`).

    Fitting a tree to predict with it (a forest's members, a benchmark, a tree never shown) then costs no
    object at all: :meth:`routing` hands :class:`~engine.tree.Tree` its prediction tables straight from the
    arrays. It compares equal to the tuple of its nodes.
    """

    def __init__(self, root: Node, **fields):
        self._root, self._fields, self._made = root, fields, None

    def _all(self) -> list:
        if self._made is None:
            self._made = build_nodes(self._root, **self._fields)
        return self._made

    def leaf_mask(self) -> np.ndarray:
        return self._fields["split_of"] < 0

    def shape(self) -> tuple[np.ndarray, np.ndarray]:
        """(leaf mask, depth) per node: what a tree's size and depth need, with no node object made."""
        return self.leaf_mask(), self._fields["depth"]

    def importance_terms(self):
        """(root weight, [(feature index, node weight, gain)] of the split nodes in pre-order): what
        :attr:`engine.tree.Tree.feature_importances` sums, with no node object made."""
        f = self._fields
        split_of, fc, sp = f["split_of"], f["first_child"].tolist(), f["splits"]
        weight = f["crit"].weight(np.asarray(f["stats"], dtype=float))
        feats, gains, at = sp["feature"].tolist(), sp["gain"].tolist(), split_of.tolist()
        terms, stack = [], [0]
        while stack:
            nid = stack.pop()
            if at[nid] < 0:
                continue
            terms.append((feats[at[nid]], float(weight[nid]), gains[at[nid]]))
            stack.extend((fc[nid] + 1, fc[nid]))
        return self._root.weight, terms

    def compact(self) -> "NodeStore":
        """Keep the recorded arrays in the smallest dtypes that hold them exactly (an ensemble keeps dozens
        of these): node ids and counts as int32, branches as int8, whole class counts (and whole child
        weights) as the smallest unsigned integer that holds the largest (uint8/uint16/uint32). Every reader
        turns them back into the numbers they were (floats where floats were recorded), so nodes, routing
        tables and importances are unchanged. Returns itself; a store whose nodes were made stays as it is."""
        if self._made is not None:
            return self
        f = self._fields
        for key in ("parent", "depth", "n_rows", "split_of", "first_child"):
            f[key] = _narrow(f[key], np.int32)
        f["branch"] = _narrow(f["branch"], np.int8)
        f["stats"] = whole_counts(f["stats"])
        sp = dict(f["splits"])
        for key in ("node", "feature", "n_left", "n_right", "first_child"):
            sp[key] = _narrow(sp[key], np.int32)
        for key in ("w_left", "w_right"):
            sp[key] = whole_counts(sp[key])
        f["splits"] = sp
        return self

    @property
    def n_splits(self) -> int:
        return int(np.count_nonzero(self._fields["split_of"] >= 0))

    @property
    def materialised(self) -> bool:
        return self._made is not None

    def __len__(self) -> int:
        return len(self._fields["split_of"])

    def __getitem__(self, i):
        return self._all()[i]

    def __iter__(self):
        return iter(self._all())

    def __eq__(self, other):
        if isinstance(other, (Sequence, list)) and not isinstance(other, str):
            return len(self) == len(other) and tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self):
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"NodeStore({len(self)} nodes{'' if self._made is None else ', made'})"

    def routing(self):
        """Prediction tables indexed by node id, as :attr:`engine.tree.Tree._arrays` builds them from nodes:
        (feature, threshold, is a threshold split, is a leaf, children (n, 2), value table)."""
        f = self._fields
        split_of, sp = f["split_of"], f["splits"]
        leaf = split_of < 0
        inner = np.flatnonzero(~leaf)
        at = split_of[inner]
        n = split_of.size
        feat, thr = np.zeros(n, dtype=np.int64), np.zeros(n)
        feat[inner] = np.asarray(sp["feature"], dtype=np.int64)[at]
        thr[inner] = np.asarray(sp["threshold"], dtype=float)[at]
        child = np.zeros((n, 2), dtype=np.int64)
        child[inner, 0] = f["first_child"][inner]
        child[inner, 1] = f["first_child"][inner] + 1
        values = node_values(np.asarray(f["stats"], dtype=float), f["crit"], len(f["classes"]))
        return feat, thr, ~leaf, leaf, child, values


def _narrow(a, dtype) -> np.ndarray:
    """``a`` as ``dtype`` when every value fits (integers only), else unchanged."""
    a = np.asarray(a)
    if a.dtype.kind not in "iu" or a.dtype.itemsize <= np.dtype(dtype).itemsize:
        return a
    info = np.iinfo(dtype)
    if a.size and (a.min() < info.min or a.max() > info.max):
        return a
    return a.astype(dtype)


def whole_counts(a) -> np.ndarray:
    """Float counts that are all whole numbers >= 0 (class counts of unweighted or bootstrap rows) as the
    smallest unsigned integer type that holds the largest; anything else (regression sums, fractional
    weights) unchanged."""
    a = np.asarray(a)
    if a.dtype.kind != "f" or not a.size:
        return a
    top = a.max()
    if not (a.min() >= 0 and top < 2**32 and np.array_equal(a, np.floor(a))):
        return a
    return a.astype(np.min_scalar_type(int(top)))


#: split numbers recorded as floats: read back as floats whatever dtype :meth:`NodeStore.compact` keeps them in
FLOAT_SPLIT_KEYS = ("threshold", "gain", "gain_ratio", "split_info", "impurity_parent", "impurity_children",
                    "w_left", "w_right")


def build_nodes(root: Node, *, parent, depth, branch, stats, n_rows, reason, split_of, splits,
                first_child, crit, classes, names, task) -> list:
    """Node objects for nodes ``0..N-1`` from the per-node arrays (the root's own numbers are kept).

    ``split_of[i]`` indexes the arrays in ``splits`` for a split node (-1 for a leaf); ``splits`` holds
    ``feature, threshold, gain, gain_ratio, split_info, impurity_parent, impurity_children, w_left,
    w_right, n_left, n_right`` (a split's sides' stats are its children's rows of ``stats``); ``reason`` holds codes into :data:`STOP_CODES`.
    """
    with paused_gc():
        return _build_nodes(root, parent, depth, branch, stats, n_rows, reason, split_of, splits, first_child,
                            crit, classes, names, task)


def _build_nodes(root, parent, depth, branch, stats, n_rows, reason, split_of, splits, first_child, crit,
                 classes, names, task) -> list:
    st, wt, imp, values, preds = node_fields(stats, crit, classes)
    sp = {k: (np.asarray(v, dtype=float if k in FLOAT_SPLIT_KEYS else v.dtype).tolist()
              if isinstance(v, np.ndarray) else v) for k, v in splits.items()}
    # a split's sides are its children's stats: the same tuples (equal numbers), not copies
    at = np.full(len(sp["feature"]), -1, dtype=np.int64)
    at[split_of[split_of >= 0]] = np.flatnonzero(split_of >= 0)
    lefts = [st[i] for i in first_child[at].tolist()] if at.size else []
    rights = [st[i + 1] for i in first_child[at].tolist()] if at.size else []
    new, setd = object.__new__, object.__setattr__
    split_objs, branch_labels = [], []
    for j, t, g, gr, si, ip, ic, lft, rgt, wl, wr, nl, nr in zip(
            sp["feature"], sp["threshold"], sp["gain"], sp["gain_ratio"], sp["split_info"], sp["impurity_parent"],
            sp["impurity_children"], lefts, rights, sp["w_left"], sp["w_right"], sp["n_left"],
            sp["n_right"]):
        obj = new(Split)
        setd(obj, "__dict__", {
            "feature": names[j], "feature_index": j, "kind": "threshold", "threshold": t, "categories": (),
            "category_codes": (), "gain": g, "gain_ratio": gr, "split_info": si, "impurity_parent": ip,
            "impurity_children": ic, "child_stats": (lft, rgt), "child_weights": (wl, wr),
            "child_counts": (nl, nr), "known_fraction": 1.0, "task": task})
        split_objs.append(obj)
        label = format_number(t)
        branch_labels.append(("<= " + label, "> " + label))
    stop_names = STOP_CODES + (None,)          # code -1 -> None
    so, fc = split_of.tolist(), first_child.tolist()
    rs = reason.tolist()
    name = crit.name
    root_fields = dict(root.__dict__)
    if so[0] >= 0:
        root_fields.update(split=split_objs[so[0]], children=(fc[0], fc[0] + 1), gain=split_objs[so[0]].gain,
                           stop_reason=None)
    else:
        root_fields.update(split=None, children=(), gain=None, stop_reason=stop_names[rs[0]])
    nodes = [new(Node)]
    setd(nodes[0], "__dict__", root_fields)
    append = nodes.append
    for i, p, dp, b, s, c, r, st_i, w_i, im_i, v_i, pr_i, n_i in zip(
            range(1, len(so)), parent.tolist()[1:], depth.tolist()[1:], branch.tolist()[1:], so[1:], fc[1:],
            rs[1:], st[1:], wt[1:], imp[1:], values[1:], preds[1:], n_rows.tolist()[1:]):
        if s >= 0:
            obj = split_objs[s]
            fields = {"id": i, "parent": p, "depth": dp, "branch": branch_labels[so[p]][b], "stats": st_i,
                      "weight": w_i, "n_node_samples": n_i, "impurity": im_i, "value": v_i, "prediction": pr_i,
                      "criterion": name, "split": obj, "children": (c, c + 1), "gain": obj.gain,
                      "stop_reason": None}
        else:
            fields = {"id": i, "parent": p, "depth": dp, "branch": branch_labels[so[p]][b], "stats": st_i,
                      "weight": w_i, "n_node_samples": n_i, "impurity": im_i, "value": v_i, "prediction": pr_i,
                      "criterion": name, "split": None, "children": (), "gain": None,
                      "stop_reason": stop_names[r]}
        node = new(Node)
        setd(node, "__dict__", fields)
        append(node)
    return nodes


__all__ = ["FastResult", "NodeStore", "RowRanges", "PathMap", "STOP_CODES", "build_nodes", "depth_first_ids", "paused_gc",
           "split_numbers"]
