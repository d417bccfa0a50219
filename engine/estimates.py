"""What a job's arrays will take, estimated before it starts: the memory budget's measures (:mod:`engine.budget`
checks a job against the budget and reserves the estimate from the server's pool).

A tree's arrays grow with rows x classes (the per-row class indicators the search sums) and nodes x
classes (every node keeps its class counts, the split records their sides', prediction a table of class
shares). Nodes are bounded by the rows: a tree has at most ``2 L - 1`` nodes with
``L = min(rows / min_samples_leaf, 2**max_depth, max_leaf_nodes)`` leaves. A target with one class per
few rows (an id column chosen as the target) makes both products huge: 5,000 rows with 1,000 classes
give ~10,000 nodes x 1,000 classes per tree, and a forest keeps one such tree per member.

:func:`tree_bytes` is that estimate for one tree (working arrays while it grows: about 52 bytes a row and
searched feature, plus rows x classes; and what a grown tree keeps), with the leaves a fully grown tree makes
and the width of its widest level measured by a pilot tree on :data:`PILOT_ROWS` rows (:func:`expected_shape`).
A shown tree's node objects are made after it grew and come on top of what growing left resident
(:func:`job_bytes`). The constants are calibrated on peak resident memory measured by
``benchmarks/bench_budget.py`` (its table is in docs/USER_GUIDE.md; ``tests/engine/test_budget_rss.py`` checks
measured <= estimate <= 1.5 x measured, twice, on the rows with a margin).
"""

from __future__ import annotations

import math

import numpy as np

MB = 1 << 20

#: bytes per node x stat kept by a grown tree: its stats (float64) and the levels' stats they are concatenated
#: from (engine.grow.fastexact: both alive when the tree is done; measured with tracemalloc, 8.5 bytes a cell stay
#: alive afterwards; the heap keeps the rest). It was 32 when the node objects a shown tree makes were taken as
#: reusing the grower's freed arrays (a max instead of a sum, see :func:`job_bytes`)
KEPT_PER_CELL = 8 * 2
#: bytes per node x stat of the node objects a shown tree makes: two tuples (its stats and its values, e.g. class
#: shares) of a pointer and a new float object (24 bytes) a stat; above :data:`SHOWN_SHARED_ZERO_ABOVE` stats, one
#: zero is shared by all (``engine.tree.build.row_tuples``) and a stat costs its two pointers (measured: 1.4 KB a
#: node with 2 classes, 2.2 KB with 10, 4.9 KB with 200, 15-16 KB with 1,000)
SHOWN_PER_CELL = 2 * (8 + 24)
SHOWN_PER_SHARED_CELL = 2 * 8
#: ``engine.tree.build.SHARED_ZERO_ABOVE`` (this module imports no grower; a test checks they agree)
SHOWN_SHARED_ZERO_ABOVE = 32
#: bytes per node of a shown tree's objects besides its stats: a Node, its Split, their dicts and labels
#: (measured 1.2-1.3 KB a node on the 2-class signal)
SHOWN_PER_NODE = 1300
#: bytes per row x feature while a tree grows: sorted orders, their gathers per level, the row positions
#: (measured: 12 MB for 10k rows x 20 features, 92 MB for 100k, 279 MB for 300k, exact search, 2 classes)
WORKING_PER_ROW_FEATURE = 52
#: bytes per node kept by a grown tree besides its stats (its arrays, the flat copy that predicts)
KEPT_PER_NODE = 300
#: bytes per node a forest's or bagging's member keeps once grown (engine.grow.levelstore.NodeStore.compact:
#: int32 node arrays, the split records, its share of the stacked table that predicts, allocator slack;
#: measured 105 bytes a node with the rows' tables for 50 members of 22,000 nodes); its class counts add
#: the smallest unsigned integer that holds the rows (1, 2 or 4 bytes a class)
COMPACT_PER_NODE = 130
#: bytes per row x stat while a tree grows: indicators, their weighted copy, integer copies, a node's gathers
WORKING_PER_ROW_STAT = 8 * 6
#: the same for a class target of unit weights (a single tree on the data as it is): its search counts classes
#: from the labels (engine.grow.fastexact), so only the rows' class indicators are made
LABELS_PER_ROW_STAT = 8
#: bytes per level node x feature x stat: each feature's best left side at every node of a level
LEVEL_PER_CELL = 8 * 2
#: one scan of a level's class counts (engine.grow.exact.scan.SCAN_BYTES; beyond 2 classes), a fixed allowance
#: per tree
SCAN_BYTES = 100 * MB
PER_TREE = 64 << 10
#: a job of many trees: its task records, result tables and the pool's messages (measured 7-14 MB at 10k rows)
MANY_TREES_FIXED = 12 * MB
#: each worker process growing trees at once: its heap's slack and the results it sends back
WORKER_FIXED = 4 * MB
#: any job: the grower's thread pool and allocator arenas, its records, the pilot tree (:func:`expected_shape`;
#: measured on the 2-class signal's 7,500 rows: 3.7 MB for the grower's set-up, 2.8 MB more with the pilot, 19 MB
#: grown, of which 8.9 MB are the tree's working and kept arrays)
JOB_FIXED = 13 * MB
#: bytes per row x feature of the copies of the data a worker process receives (its table and matrix)
SHIPPED_PER_CELL = 8 * 3


def n_stats(dataset) -> int:
    """Stats a node keeps: one per class, or 3 for a numeric target (weight, sum, sum of squares)."""
    return len(dataset.classes) if dataset.task == "classification" else 3


def leaf_share(dataset) -> float:
    """Leaves per row to expect of a tree grown to the end: the target's Gini impurity 1 - sum p_k^2 for
    classes (the chance that two rows differ in class; rows of one class need no leaf of their own), 1 for
    a numeric target. Measured fully grown CART trees on class noise have 0.3-0.4 leaves a row with 2-3
    classes (Gini 0.5-0.67) and 0.97 on an id-like target of 1,000 classes (Gini 0.999)."""
    if dataset.task != "classification" or len(dataset) == 0:
        return 1.0
    counts = np.bincount(np.asarray(dataset.y), minlength=len(dataset.classes)).astype(float)
    p = counts / counts.sum()
    return float(min(1.0, max(1.0 - float(p @ p), 1.0 / len(dataset))))


#: rows of the pilot tree that measures how many leaves a fully grown tree makes per row on this data
PILOT_ROWS = 1000
#: above this many classes no pilot is grown (slow with a count per class; such a target is id-like noise,
#: whose leaves per row its impurity already gives)
PILOT_MAX_CLASSES = 50
_pilot = None


def set_pilot(fn) -> None:
    """Register ``fn(dataset, config, n_rows) -> (leaves per row, widest level's nodes per row)`` (engine.grow's
    pilot tree on a sample; this module cannot import the grower, which imports it)."""
    global _pilot
    _pilot = fn


def expected_share(dataset, config=None) -> float:
    """Leaves per row to expect of a tree of ``config`` on ``dataset``: above :data:`PILOT_ROWS` rows, those of a
    pilot tree grown on a sample of that many rows (a learnable target makes far fewer leaves than its
    impurity says: the 2-class signal of ``benchmarks/bench_fit.py`` has 0.12 a row, not 0.5; the share falls
    as rows grow, so the sample's share is an upper bound), else :func:`leaf_share`."""
    return expected_shape(dataset, config)[0]


#: a level's open nodes per row when no pilot tree measures them: every open node holds 2 rows at least
LEVEL_SHARE = 0.5


def expected_shape(dataset, config=None) -> tuple[float, float]:
    """(leaves, nodes of the widest level) per row to expect of a tree of ``config`` on ``dataset``: the leaves of
    :func:`expected_share`, and the widest level of the same pilot tree (measured: 0.038 a row on 1,000 rows
    of the 2-class signal, 0.026 in the tree on 7,500 and 0.021 on 75,000; 0.082 with 10 classes, 0.064 on
    75,000: it falls as rows grow too), else :data:`LEVEL_SHARE`."""
    share = leaf_share(dataset)
    if _pilot is None or config is None or len(dataset) <= PILOT_ROWS or n_stats(dataset) > PILOT_MAX_CLASSES:
        return share, LEVEL_SHARE
    leaves, widest = _pilot(dataset, config, PILOT_ROWS)
    return min(share, max(1.0 / PILOT_ROWS, float(leaves))), min(LEVEL_SHARE, max(1.0 / PILOT_ROWS, float(widest)))


def max_leaves(n_rows: int, config=None, share: float = 1.0) -> int:
    """Most leaves a tree of ``config`` can have on ``n_rows`` rows (each leaf holds a row at least), of
    which ``share`` (:func:`leaf_share`) are expected of a tree grown to the end."""
    leaves = max(1, math.ceil(int(n_rows) * float(share)))
    if config is not None:
        msl = getattr(config, "min_samples_leaf", None) or 1
        leaves = max(1, min(leaves, int(n_rows) // max(1, int(msl))))
        depth = getattr(config, "max_depth", None)
        if depth is not None:
            leaves = min(leaves, 2 ** min(int(depth), 62))
        if getattr(config, "max_leaf_nodes", None) is not None:
            leaves = min(leaves, int(config.max_leaf_nodes))
    return leaves


def shown_per_cell(stats: int) -> int:
    """Bytes a stat of a node's objects costs (:data:`SHOWN_PER_CELL`, or with many stats
    :data:`SHOWN_PER_SHARED_CELL`)."""
    return SHOWN_PER_CELL if int(stats) <= SHOWN_SHARED_ZERO_ABOVE else SHOWN_PER_SHARED_CELL


def tree_bytes(*, n_rows: int, n_features: int, stats: int, config=None, shown: bool = False,
               share: float = 1.0, compact: bool = False, labels: bool = False,
               width: float = LEVEL_SHARE) -> tuple[int, int]:
    """(working, kept) bytes of one tree grown on ``n_rows`` rows: the arrays alive while it grows, and
    what the grown tree keeps (with ``shown``, also the node objects a diagram or a table reads; with
    ``compact``, what an ensemble's member keeps: :data:`COMPACT_PER_NODE`); ``share``: leaves expected per
    row (:func:`leaf_share`); ``labels``: a class target of unit weights (its search reads the labels, no
    weighted copy of the class indicators: :data:`LABELS_PER_ROW_STAT`); ``width``: the widest level's open
    nodes per row (:func:`expected_shape`)."""
    leaves = max_leaves(n_rows, config, share)
    nodes = 2 * leaves - 1
    d = max(1, int(n_features))
    if compact:
        kept = nodes * (COMPACT_PER_NODE + stats * np.min_scalar_type(max(1, int(n_rows))).itemsize) + PER_TREE
    else:
        per_cell = KEPT_PER_CELL + (shown_per_cell(stats) if shown else 0)
        kept = nodes * (stats * per_cell + (SHOWN_PER_NODE if shown else KEPT_PER_NODE)) + PER_TREE
    # features searched: a tree drawing k of them per node touches about 2 k features' sorted orders at once
    draw = config.n_features_to_draw(d) if config is not None and getattr(config, "max_features", None) else d
    d = max(1, min(d, 2 * int(draw)))
    # the widest level's open nodes (each has 2 rows at least; fewer where a pilot tree measured them)
    level = max(1, min(leaves, n_rows // 2, math.ceil(int(n_rows) * float(width))))
    per_row_stat = LABELS_PER_ROW_STAT if labels else WORKING_PER_ROW_STAT
    working = (n_rows * d * WORKING_PER_ROW_FEATURE + n_rows * stats * per_row_stat
               + level * d * stats * LEVEL_PER_CELL + scan_bytes(n_rows, d, stats))
    return int(working), int(kept)


def scan_bytes(n_rows: int, n_features: int, stats: int) -> int:
    """One scan of a level's class counts beyond 2 classes (left and right sums of each class for every
    position), at most :data:`SCAN_BYTES`."""
    return min(SCAN_BYTES, 16 * max(0, int(stats) - 2) * max(1, int(n_features)) * int(n_rows))


#: ``engine.grow.exact.scan.MIN_CHUNK``: a level of at most this many positions (rows x features searched) that
#: fits one scan (:data:`SCAN_BYTES`) is scanned by the thread growing the tree, not cut into pieces for others
ONE_SCAN_ROWS = 1 << 16


def scanned_in_place(n_rows: int, n_features: int, stats: int) -> bool:
    """Whether every level of a tree on ``n_rows`` rows is scanned in one piece, on the growing thread (its
    positions fit :data:`ONE_SCAN_ROWS` and one scan of ``engine.grow.exact.scan.scan_rows``; a level cut into
    pieces is scanned on other threads too). The arrays the grown tree keeps then reuse the heap its biggest
    scan freed; scans on other threads leave theirs in those threads' heaps (measured: a 200-class tree on
    7,500 rows peaks at 50 MB on one thread or two; a 1,000-class tree on 3,750 rows, whose levels are cut,
    at 125 MB grown on one thread, 225 MB on two)."""
    per_row = 8 * (2 * int(stats) + 12)
    fits = ONE_SCAN_ROWS if stats <= 3 else min(ONE_SCAN_ROWS, max(1024, SCAN_BYTES // per_row))
    return int(n_rows) * max(1, int(n_features)) <= fits


def step_bytes(dataset, config=None) -> int:
    """Bytes one step of a grower may hold at once: a tree's working arrays on all of ``dataset``'s rows (the
    root's search is the biggest), what :class:`engine.Grower.step` reserves from the server's pool."""
    working, _ = tree_bytes(n_rows=len(dataset), n_features=len(dataset.feature_names), stats=n_stats(dataset),
                            config=config, share=leaf_share(dataset))
    return JOB_FIXED + working


def job_bytes(*, n_rows: int, n_features: int, stats: int, config=None, n_trees: int = 1,
              kept_trees: int = 0, at_once: int = 1, shown: int = 0, share: float = 1.0,
              shipped_rows: int | None = None, kept_extra: int = 0, records: bool = True,
              compact: bool = False, labels: bool = False, width: float = LEVEL_SHARE) -> int:
    """Bytes of a job growing ``n_trees`` trees of ``n_rows`` rows, ``at_once`` at a time, keeping
    ``kept_trees`` of them (``shown`` of those with their node objects); ``share``: :func:`leaf_share`;
    ``shipped_rows``: rows of data each worker process receives when trees grow at once (default ``n_rows``);
    ``kept_extra``: bytes the job keeps beside each kept tree (AdaBoost's row weights and predictions, a
    forest's in-bag counts and training predictions); ``records``: count :data:`MANY_TREES_FIXED` for a job
    of many trees (False for a job that grows its trees one after the other in this process and counts its
    tables in ``kept_extra``: AdaBoost); ``compact``: the kept trees are an ensemble's compact members
    (those growing at once are whole until they are done); ``labels``, ``width``: see :func:`tree_bytes`."""
    kw = dict(n_rows=n_rows, n_features=n_features, stats=stats, config=config, share=share, labels=labels,
              width=width)
    working, kept = tree_bytes(**kw)
    shown_kept = tree_bytes(**kw, shown=True)[1]
    at_once = max(1, min(int(at_once), int(n_trees)))
    # while trees grow, those growing at once hold their working arrays and the trees alive keep theirs;
    # node objects are made when a grown tree is read: for the ``shown`` trees on top of what growing left
    # resident, and for at least the trees growing at once in any case, as Grower.grow counts its tree (a job
    # is never allowed whose single tree is refused)
    if compact:
        member = tree_bytes(**kw, compact=True)[1]
        alive = int(kept_trees) * (member + int(kept_extra)) + at_once * kept
    else:
        alive = max(int(kept_trees), at_once) * kept + int(kept_trees) * int(kept_extra)
    fixed = JOB_FIXED
    if n_trees > 1:
        shipped = int(n_rows if shipped_rows is None else shipped_rows)
        fixed += (MANY_TREES_FIXED if records else 0) + (at_once * (WORKER_FIXED + SHIPPED_PER_CELL * shipped * max(1, int(n_features)))
                                     if at_once > 1 else 0)
    # the node objects of the ``shown`` trees are made after growing, on top of what growing left resident:
    # the freed working arrays stay in the process's heap (engine.grow.allocator) and the objects do not
    # reuse them (measured: a 2-class tree on 7,500 rows peaks at 19 MB grown, 22 MB with its objects;
    # 200 classes: 50 MB, then 121 MB). A compact ensemble makes them for the members a page draws, one
    # at a time, after they grew
    objects = shown_kept - kept
    if compact:
        return int(fixed + max(at_once * working + alive, alive + int(shown) * objects))
    grown = at_once * working + alive
    d = max(1, int(n_features))
    if n_trees == 1 and scanned_in_place(n_rows, d, stats):
        scan = scan_bytes(n_rows, d, stats)       # the kept arrays reuse the freed scan's heap
        grown = working - scan + max(scan, alive)
    return int(fixed + max(grown + int(shown) * objects, alive + at_once * objects))


__all__ = ["MB", "expected_shape", "expected_share", "job_bytes", "leaf_share", "max_leaves", "n_stats", "scan_bytes",
           "scanned_in_place", "set_pilot", "shown_per_cell", "step_bytes", "tree_bytes"]
