"""Growth: which node is expanded next, and the step-by-step record of why.

``Grower`` grows a tree one split at a time. The frontier holds the open leaves; ``order`` picks the next
one (breadth-first: oldest first; depth-first: newest first, left child before right; best-first: the
open node whose best split has the largest weighted gain ``w_node / w_root * gain``, ties by id). A step
closes the open nodes that must stop (recording why, see :mod:`engine.grow.stopping`) until one node is
split. Everything is deterministic: ties between features go to the earlier column (with ``random_state``
set, to the feature the node visits first in its seeded random order), ties between thresholds to the
smallest. With J48's rules (``config.c45_rules``, the C4.5 preset) a node is searched by
:func:`engine.split.j48.j48_search`. ``undo`` replays the action log minus its last entry; split searches are
cached per node path, so replaying costs little.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property, partial, wraps

import numpy as np
import pandas as pd

from engine.budget import check_trees, classes_text, reserve, reserving, set_pilot, step_bytes
from engine.checks import node_id as check_node_id
from engine.checks import shown
from engine.config import TreeConfig
from engine.errors import ConfigError, DataError
from engine.split.histogram import best_histogram, make_bins, searched_exactly
from engine.grow.featuredraw import draw_mask, feature_ranks, path_key
from engine.grow.fastgrow import fast_eligible, grow_levelwise
from engine.split.impurity import get_criterion
from engine.grow.allocator import roomy_heap
from engine.grow.parallel import check_n_jobs, thread_map, threads_for, tree_threads
from engine.grow.levelstore import NodeStore, RowRanges, paused_gc
from engine.tree.build import check_target_scale, make_node, route_rows, unit_stats
from engine.grow.sorting.kept import SORT_CACHE_LIMIT, kept_bins, node_orders, presorted
from engine.split.j48 import counts_toward_average, j48_search
from engine.split.search import NodeData, best_categorical, best_numeric, best_numeric_all, choose
from engine.split.records import Split
from engine.grow.stopping import post_split_reason, pre_split_reason, validation_gain
from engine.tree.store import Tree


#: a step searches a node of at least this many rows (and an eighth of the data) from the kept column orders
BIG_NODE_ROWS = 2_000


@dataclass(frozen=True)
class StepRecord:
    """One growth step: the node split (or the leaves closed), with why.

    ``runner_up`` (the second-best feature's split) and ``gain_table`` are computed when first asked for.
    """

    index: int
    action: str  # "split" | "forced" | "collapse" | "finish"
    node_id: int | None  # a "finish" record's node: the leaf chosen by step(node_id) that closed, others still open
    split: Split | None
    children: tuple[int, ...]
    stopped: tuple[tuple[int, str], ...]
    _grower: "Grower" = field(default=None, repr=False, compare=False)

    @cached_property
    def runner_up(self) -> Split | None:
        if self.action != "split" or self._grower is None:
            return None
        ranked = self._grower.candidates(self.node_id)
        return ranked[1] if len(ranked) > 1 else None

    @cached_property
    def gain_table(self):
        """The node's gain table (one row per feature)."""
        if self.node_id is None or self.split is None or self._grower is None:
            return None
        return self._grower.gain_table(self.node_id)


def _changes_state(method):
    """Marks a public Grower method that may change the tree: the cached ``tree`` is made again after it."""

    @wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        finally:
            self.__dict__.pop("_tree_cache", None)
    return wrapper


class _MadeOnUse:
    """A Grower's list (nodes or history): made from a pending level-wise result (``_lazy``) when first
    read or replaced."""

    def __set_name__(self, owner, name):
        self.slot = name + "_v"

    def __get__(self, grower, owner=None):
        if grower is None:
            return self
        if grower._lazy is not None:
            grower._materialise()
        return grower.__dict__[self.slot]

    def __set__(self, grower, value):
        if grower._lazy is not None:
            grower._materialise()
        grower.__dict__[self.slot] = value


class Grower:
    """Grow a tree on ``dataset`` step by step (see module docstring)."""

    def __init__(self, dataset, config: TreeConfig | None = None, *, sample_weight=None,
                 validation_data=None, n_jobs: int | None = None):
        config = TreeConfig() if config is None else config
        # cores for this one tree (threads; None: all, unless trees already share the cores): the tree is
        # the same for every value (engine.grow.parallel.tree_threads)
        self.n_jobs = check_n_jobs(n_jobs)
        if not isinstance(config, TreeConfig):
            raise ConfigError("config must be a TreeConfig.")
        if len(dataset) == 0:
            raise DataError("There are no rows to learn from.")
        if not dataset.feature_names:
            raise DataError("There is no feature to split on: mark at least one column numeric or categorical.")
        self.dataset = dataset
        self.config = config.resolved(dataset.task, len(dataset))
        if self.config.validation and dataset.task != "classification":
            raise ConfigError("validation=True compares accuracy on the validation rows, so it works for "
                              "classification only; turn validation stopping off for a regression target.")
        if self.config.validation and validation_data is None:
            raise ConfigError("validation=True needs validation rows: set a validation share on the Data page.")
        self.schema = dataset.schema
        self.task = dataset.task
        self.crit = get_criterion(self.config.criterion, self.task, self.config.entropy_base)
        self.X = dataset.X
        self.y = dataset.y
        if self.task == "regression":
            check_target_scale(np.asarray(self.y, dtype=float), dataset.target)
        try:
            w = np.ones(len(dataset)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
        except (TypeError, ValueError):
            w = np.array([np.nan])  # refused just below, with the same sentence
        if w.shape != (len(dataset),) or not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
            raise DataError("sample_weight must hold one non-negative number per row, not all zero.")
        self.w0 = w
        self.val = None
        if validation_data is not None and self.config.validation:
            self.val = self._encode_validation(validation_data)
        self._cache: dict = {}
        self._actions: list = []
        self._lazy = None         # a level-wise result whose nodes and records are not made yet
        self.reset()

    def _encode_validation(self, vd):
        if vd.schema == self.schema:
            return vd.X, vd.y
        if vd.target not in vd.frame.columns:
            raise DataError(f"The validation rows have no column '{vd.target}'.")
        labels = vd.frame[vd.target].astype("string").str.strip()
        codes = pd.Categorical(labels, categories=list(self.dataset.classes)).codes.astype(np.int64)
        return self.schema.encode(vd.frame), codes

    # ----- public API -----------------------------------------------------------------------------
    @_changes_state
    def reset(self) -> "Grower":
        """Back to a single open root; the action log is cleared."""
        self._actions = []
        self._rebuild()
        return self

    @_changes_state
    def step(self, node_id: int | None = None) -> StepRecord | None:
        """Decide the next open leaf in the expansion order, or the open leaf ``node_id``: split it with its
        best split, or close it when a stopping rule holds (a "finish" record names the reason)."""
        if node_id is not None:
            node_id = self._node_id(node_id)
            if node_id not in self._frontier:
                raise ConfigError(f"Node {node_id} is not an open leaf; only open leaves can be split next "
                                  f"(open now: {len(self._frontier)}).")
        with reserve(step_bytes(self.dataset, self.config),
                            what=f"A step on {len(self.dataset):,} rows{classes_text(self.dataset)}",
                            advice="set a max depth or grow the tree to the end"), roomy_heap():
            rec = self._step(node_id)   # a big node's search makes arrays of many megabytes
        if rec is not None:
            self._actions.append(("step",) if node_id is None else ("step", node_id))
        return rec

    @_changes_state
    @reserving
    def grow(self, max_steps: int | None = None) -> "Grower":
        """Step until nothing is open (or ``max_steps`` steps were taken). Growing to the end is refused
        with a :class:`ConfigError` when the tree's estimated memory passes the budget (:mod:`engine.budget`)."""
        if max_steps is None:
            check_trees(self.dataset, self.config, what=f"Growing this tree to the end on "
                               f"{int(np.count_nonzero(self.w0 > 0)):,} rows{classes_text(self.dataset)}",
                               kept_trees=1, shown=1, n_rows=int(np.count_nonzero(self.w0 > 0)),
                               labels=self._unit_weights)
        if max_steps is None and all(a == ("step",) for a in self._actions) and fast_eligible(self):
            # automatic steps only: the level-wise result ends in the same state (see ``_install``)
            if self._actions:
                self._rebuild()
            with paused_gc(), roomy_heap():
                self._install(grow_levelwise(self, self.threads))
            return self
        n = 0
        while (max_steps is None or n < max_steps) and self.step() is not None:
            n += 1
        return self

    @_changes_state
    def undo(self) -> bool:
        """Take back the last action (step, forced split or collapse); False if there is none."""
        if not self._actions:
            return False
        actions = self._actions[:-1]
        if len(actions) > 20 and all(a == ("step",) for a in actions) and fast_eligible(self):
            self._rebuild()
            with paused_gc(), roomy_heap():
                self._install(grow_levelwise(self), n_records=len(actions))
            return True
        self._rebuild()
        for a in actions:
            self._apply(a)
        self._actions = actions
        return True

    @_changes_state
    def expand(self, node_id: int, split: Split) -> StepRecord:
        """Force ``split`` at ``node_id`` (replacing its subtree if it has one)."""
        if not isinstance(split, Split):
            raise ConfigError(f"A forced split must be one of the node's candidate splits; got {shown(split)}.")
        rec = self._expand(node_id, split)
        self._actions.append(("expand", node_id, split))
        return rec

    @_changes_state
    def collapse(self, node_id: int) -> StepRecord:
        """Make ``node_id`` a leaf again (its subtree is removed); it is not reopened."""
        rec = self._collapse(node_id)
        self._actions.append(("collapse", node_id))
        return rec

    def candidates(self, node_id: int) -> list[Split]:
        """Every feature's best split at the node, ranked by the configured score."""
        return list(self._evaluate(self._node_id(node_id))[2])

    def gain_table(self, node_id: int = 0, all_candidates: bool = False):
        from engine.split.gain import gain_table_for
        return gain_table_for(self, self._node_id(node_id), all_candidates=all_candidates)

    def searches_histogram(self, node_id: int) -> bool:
        """Whether the node's numeric features are searched by histogram: ``split_search="histogram"``
        and more than ``max_bins`` rows of positive weight (smaller nodes are searched exactly, see
        :func:`engine.split.histogram.searched_exactly`)."""
        if self.config.split_search != "histogram":
            return False
        _, w = self.node_rows(node_id)
        return not searched_exactly(int(np.count_nonzero(w > 0)), self.config.max_bins)

    def node_rows(self, node_id: int):
        """(row indices into the training data, weights) of the rows reaching ``node_id``."""
        self._node(node_id)
        return self._rows[node_id]

    def node_data(self, node_id: int) -> NodeData:
        idx, w = self.node_rows(node_id)
        if idx.size == len(self.X) and self._unit_weights:
            # every row, in order (rows are kept ascending), weight 1: the read-only matrices as they are,
            # not copies (a 1M-row root would copy ~200 MB)
            x, stats = self.X, self.U
        else:
            x, stats = self.X[idx], self.U[idx] * w[:, None]
        orders = None
        if idx.size >= max(BIG_NODE_ROWS, len(self.X) // 8) and self._sorted_columns is not None:
            orders = partial(node_orders, self._sorted_columns, idx, len(self.X))
        return NodeData(x, stats, self.task, self.config.min_samples_leaf, self.crit, float(w.sum()), orders)

    @cached_property
    def _sorted_columns(self) -> np.ndarray | None:
        """Every column's stable row order (features x rows, sorted once, shared with the level-wise grower's
        cache), from which a big node's orders are filtered instead of sorted; None above the cache's size."""
        n, d = self.X.shape
        if n * d > SORT_CACHE_LIMIT:
            return None
        return presorted(self.X, np.ones(n, dtype=bool), np.int32, self.threads)

    def training_leaves(self) -> np.ndarray | None:
        """The leaf each training row reached while growing (-1: weight 0), read off the row ranges of a
        level-wise growth (no routing); None in any other state (stepped, edited, missing values)."""
        lazy = self._lazy
        if lazy is None or not isinstance(lazy.nodes, NodeStore) or not isinstance(self._rows, RowRanges):
            return None
        leaves = np.flatnonzero(lazy.nodes.leaf_mask())
        return self._rows.owners(leaves, len(self.X))

    @cached_property
    def _unit_weights(self) -> bool:
        return bool(np.all(self.w0 == 1.0))

    @cached_property
    def U(self) -> np.ndarray:
        """Per-row stats before weighting (:func:`engine.tree.build.unit_stats`), read-only (shared with the
        root's node data), made when first read: the level-wise growers on class counts read the labels
        instead (1M rows of 3 classes: 24 MB and ~20 ms saved)."""
        U = unit_stats(self.y, self.task, len(self.dataset.classes))
        U.flags.writeable = False
        return U

    @property
    def n_stats(self) -> int:
        """Stats per row: one per class, or (1, y, y^2) for regression."""
        return len(self.dataset.classes) if self.task == "classification" else 3

    @cached_property
    def bins(self):
        """Bin edges and codes of the numeric features (histogram split search), computed once (and kept for
        the next tree on the same read-only matrix, :func:`engine.grow.sorting.kept.kept_bins`)."""
        threads = threads_for(self.X.size, self.threads)
        return kept_bins(self.X, (tuple(self.schema.kinds), self.config.max_bins),
                         lambda: make_bins(self.X, self.schema.kinds, self.config.max_bins,
                                           map_fn=partial(thread_map, threads=threads), groups=threads))

    @property
    def threads(self) -> int:
        """Threads this tree's growth uses (:func:`engine.grow.parallel.tree_threads` of ``n_jobs``)."""
        return tree_threads(self.n_jobs)

    @property
    def tree(self) -> Tree:
        """The tree as it stands (the same object until a step, undo, reset, grow, expand or collapse)."""
        tree = self.__dict__.get("_tree_cache")
        if tree is None:
            if self._lazy is not None and isinstance(self._lazy.nodes, NodeStore):
                tree = Tree(self._lazy.nodes, self.schema, self.crit.name)     # nodes made when first read
            else:
                tree = Tree(tuple(self._nodes), self.schema, self.crit.name)
            self.__dict__["_tree_cache"] = tree
        return tree

    @property
    def history(self) -> tuple[StepRecord, ...]:
        return tuple(self._history)

    @property
    def open_nodes(self) -> tuple[int, ...]:
        return tuple(self._frontier)

    @property
    def done(self) -> bool:
        return not self._frontier

    @property
    def n_steps(self) -> int:
        return len(self._actions)

    @property
    def actions(self) -> tuple:
        """The action log that replays to this tree: ``("step",)``, ``("step", node)``, ``("expand", node,
        split)``, ``("collapse", node)`` (an undone action is no longer in it); lesson files store it."""
        return tuple(self._actions)

    def __repr__(self) -> str:
        t = self.tree
        return f"Grower(steps={self.n_steps}, nodes={t.n_nodes}, leaves={t.n_leaves}, open={len(self._frontier)})"

    # ----- internals --------------------------------------------------------------------------------
    def _rebuild(self):
        idx = np.flatnonzero(self.w0 > 0)
        w = self.w0[idx]
        if self.task == "classification" and self._unit_weights:             # every row kept, weight 1
            stats = np.bincount(self.y, minlength=self.n_stats).astype(float)  # = the one-hot rows' sum, exactly
        elif idx.size == self.w0.size:                                      # every row kept: no gather
            stats = (self.U * w[:, None]).sum(0)
        else:
            stats = (self.U[idx] * w[:, None]).sum(0)
        root = make_node(node_id=0, parent=None, depth=0, branch="", stats=stats,
                         n_rows=idx.size, crit=self.crit, classes=self.dataset.classes)
        self._lazy = None          # a pending level-wise result is replaced, not made into objects first
        self._nodes = [root]
        self._rows = {0: (idx, w)}
        self._paths = {0: ()}
        self._val_rows = {}
        if self.val is not None:
            self._val_rows[0] = (np.arange(self.val[1].size), np.ones(self.val[1].size))
        self._frontier = [0]
        self._history = []

    def _install(self, res, n_records: int | None = None):
        """Set the state to that of stepping (``n_records`` records, or to the end) from a level-wise result.

        Breadth-/depth-first decisions do not depend on the order, so the first k records of the full
        processing order are exactly what k calls of ``step()`` produce.
        """
        if n_records is None:
            return self._install_all(res)
        nodes = list(res.nodes)
        history, stopped, processed, exists = [], [], set(), {0}
        for nid in res.order:
            if n_records is not None and len(history) >= n_records:
                break
            node = nodes[nid]
            processed.add(nid)
            if node.is_leaf:
                stopped.append((nid, node.stop_reason))
                continue
            exists.update(node.children)
            history.append(StepRecord(len(history), "split", nid, node.split, node.children,
                                      tuple(stopped), self))
            stopped = []
        if stopped and (n_records is None or len(history) < n_records):
            history.append(StepRecord(len(history), "finish", None, None, (), tuple(stopped)))
        pending = [nid for nid in res.order if nid in exists and nid not in processed]
        for nid in pending:
            nodes[nid] = nodes[nid].as_leaf(None)
        keep = exists | processed
        self._nodes = [n if i in keep else None for i, n in enumerate(nodes)]
        while self._nodes and self._nodes[-1] is None:
            self._nodes.pop()
        self._rows = _kept(res.rows, keep, n_records is None)
        self._paths = _kept(res.paths, keep, n_records is None)
        self._frontier = pending if self.config.effective_order == "breadth" else pending[::-1]
        self._history = history
        self._actions = [("step",)] * len(history)

    def _install_all(self, res):
        """:meth:`_install` to the end: every node is kept and none stays open. The nodes and the history
        are made when first read (see :class:`~engine.grow.levelstore.NodeStore`): ``tree`` alone needs neither."""
        self._lazy = res
        self._rows = res.rows
        self._paths = res.paths
        self._frontier = []
        nodes = res.nodes
        n_splits = nodes.n_splits if isinstance(nodes, NodeStore) else sum(1 for n in nodes if n.children)
        self._actions = [("step",)] * (n_splits + 1)      # a record per split, and the last one closing leaves
        self.__dict__.pop("_nodes_v", None)
        self.__dict__.pop("_history_v", None)

    def _materialise(self):
        """The nodes and step records of a level-wise growth installed by :meth:`_install_all` (one pass)."""
        res, self._lazy = self._lazy, None
        new, setd = object.__new__, object.__setattr__
        nodes = res.nodes
        history, stopped = [], []
        with paused_gc():
            for nid in res.order:
                node = nodes[nid]
                children = node.children
                if not children:
                    stopped.append((nid, node.stop_reason))
                    continue
                rec = new(StepRecord)
                setd(rec, "__dict__", {"index": len(history), "action": "split", "node_id": nid,
                                       "split": node.split, "children": children, "stopped": tuple(stopped),
                                       "_grower": self})
                history.append(rec)
                stopped = []
        if stopped:
            history.append(StepRecord(len(history), "finish", None, None, (), tuple(stopped)))
        self.__dict__["_nodes_v"] = list(nodes)
        self.__dict__["_history_v"] = history

    # The node list and the history: plain lists, made from a level-wise result on first use.
    _nodes = _MadeOnUse()
    _history = _MadeOnUse()

    def _apply(self, action):
        if action[0] == "step":
            self._step(action[1] if len(action) > 1 else None)
        elif action[0] == "expand":
            self._expand(action[1], action[2])
        else:
            self._collapse(action[1])

    def _node_id(self, node_id) -> int:
        return check_node_id(node_id, self._nodes, where="the tree")

    def _node(self, node_id):
        return self._nodes[self._node_id(node_id)]

    def _features_for(self, node_id) -> list[int]:
        return self._features_from_path(self._paths[node_id])

    def _features_from_path(self, path) -> list[int]:
        """Features a node may use: all, or (max_features) a draw seeded by random_state and the node's path
        (see :mod:`engine.grow.featuredraw`)."""
        d = len(self.schema.feature_names)
        k = self.config.n_features_to_draw(d)
        if k >= d:
            return list(range(d))
        mask = draw_mask([path_key(path)], self.config.random_state or 0, d, k)[0]
        return np.flatnonzero(mask).tolist()

    def _evaluate(self, node_id):
        """(reason or None, best split or None, ranked candidates); cached per node path."""
        key = self._paths[node_id]
        if key in self._cache:
            return self._cache[key]
        node = self._node(node_id)
        ranked: list[Split] = []
        nd = self.node_data(node_id)
        feats = self._features_for(node_id)
        names = self.schema.feature_names
        ranks = self._visit_ranks(node_id)
        if self.config.c45_rules:
            best, ranked, _ = self._j48_search(nd, feats, ranks)
        elif self.searches_histogram(node_id):
            idx, _ = self._rows[node_id]
            codes = self.bins.codes[idx]
            found = {j: best_histogram(nd, codes, j, names[j], self.bins.edges[j].size + 1)
                     for j in feats if self.schema.kinds[j] == "numeric"}
        else:
            dense = [j for j in feats if self.schema.kinds[j] == "numeric" and not np.isnan(nd.x[:, j]).any()]
            found = dict(zip(dense, best_numeric_all(nd, dense, [names[j] for j in dense])))
        if not self.config.c45_rules:
            for j in feats:
                if j in found:
                    s = found[j]
                elif self.schema.kinds[j] == "numeric":
                    s = best_numeric(nd, j, names[j])
                else:
                    s = best_categorical(nd, j, names[j], self.schema.categories[j], self.config.categorical_split)
                if s is not None:
                    ranked.append(s)
            best, _, ranked = choose(ranked, self.config.score, ranks)
        share = node.weight / self._nodes[0].weight if self._nodes[0].weight > 0 else 0.0
        reason = pre_split_reason(node, self.config) or post_split_reason(best, self.config, self.task, share)
        if reason is None and self.val is not None:
            reason = self._validation_reason(node_id, best)
        result = (reason, best, tuple(ranked))
        if len(self._cache) > 100_000:
            self._cache.clear()
        self._cache[key] = result
        return result

    def _visit_ranks(self, node_id):
        """A randomised learner's (``random_state`` set) seeded order of visiting features at the node, which
        breaks ties between equally good features (:func:`engine.grow.featuredraw.feature_ranks`); else None."""
        if self.config.random_state is None:
            return None
        d = len(self.schema.feature_names)
        return feature_ranks([path_key(self._paths[node_id])], self.config.random_state, d)[0]

    def _j48_search(self, nd, feats, ranks=None):
        """(winner, ranked splits, eligibility) by J48's rules (:mod:`engine.split.j48`); with ``ranks`` the
        features are visited in that order (ties go to the first visited)."""
        if ranks is not None:
            feats = sorted(feats, key=lambda j: ranks[j])
        return j48_search(nd, feats, self.schema, m=float(self.config.min_samples_leaf),
                          n_classes=len(self.dataset.classes), rules=self.config.c45_rules,
                          log_base=self.crit.base, counted=self._j48_counted, values=self._training_values)

    def eligible_flags(self, node_id: int) -> list[bool]:
        """For each of :meth:`candidates`: does it pass the score's filter (C4.5: the average gain)?"""
        from engine.split.search import eligible
        node_id = self._node_id(node_id)
        if self.config.c45_rules:
            return self._j48_search(self.node_data(node_id), self._features_for(node_id),
                                    self._visit_ranks(node_id))[2]
        return eligible(self.candidates(node_id), self.config.score)

    @cached_property
    def _j48_counted(self) -> list[bool]:
        return counts_toward_average(self.schema.kinds, self.schema.categories, int((self.w0 > 0).sum()))

    def _training_values(self, j: int) -> np.ndarray:
        """Sorted distinct training values of numeric feature j (rows of positive weight), kept per feature."""
        memo = self.__dict__.setdefault("_values_memo", {})
        if j not in memo:
            col = self.X[self.w0 > 0, j]
            memo[j] = np.unique(col[~np.isnan(col)])
        return memo[j]

    def _validation_reason(self, node_id, split):
        vx, vy = self.val
        vrows = self._val_rows[node_id]
        children = route_rows(split, vx[vrows[0], split.feature_index], *vrows)
        classes = self.dataset.classes
        parent_pred = classes.index(self._nodes[node_id].prediction)
        child_preds = [int(np.argmax(s)) for s in split.child_stats]
        return None if validation_gain(parent_pred, child_preds, vy, vrows, children) > 1e-12 else "validation"

    def _pick(self):
        if self.config.effective_order == "breadth":
            return self._frontier[0]
        if self.config.effective_order == "depth":
            return self._frontier[-1]
        total = self._nodes[0].weight
        best, best_key = None, None
        for nid in self._frontier:
            reason, split, _ = self._evaluate(nid)
            if reason is not None:
                return nid  # close stopping nodes first
            key = self._nodes[nid].weight / total * split.gain
            if best is None or key > best_key + 1e-12:
                best, best_key = nid, key
        return best

    def _n_leaves(self) -> int:
        return sum(1 for n in self._nodes if n is not None and n.is_leaf)

    def _step(self, first: int | None = None) -> StepRecord | None:
        stopped = []
        while self._frontier:
            nid = self._pick() if first is None else first
            reason, split, ranked = self._evaluate(nid)
            if reason is None and self.config.max_leaf_nodes is not None:
                if self._n_leaves() + split.n_children - 1 > self.config.max_leaf_nodes:
                    reason = "max_leaf_nodes"
            if reason is not None:
                self._close(nid, reason)
                stopped.append((nid, reason))
                if first is not None:  # the chosen leaf stops: nothing else is decided
                    break
                continue
            children = self._split(nid, split)
            rec = StepRecord(len(self._history), "split", nid, split, children, tuple(stopped), self)
            self._history.append(rec)
            return rec
        if stopped:
            # the chosen leaf closed while others stay open: the record names it (the tree is not finished)
            closed = first if first is not None and self._frontier else None
            rec = StepRecord(len(self._history), "finish", closed, None, (), tuple(stopped))
            self._history.append(rec)
            return rec
        return None

    def _close(self, nid, reason):
        self._frontier.remove(nid)
        self._nodes[nid] = self._nodes[nid].as_leaf(reason)

    def _split(self, nid, split: Split) -> tuple[int, ...]:
        node = self._nodes[nid]
        if nid in self._frontier:
            self._frontier.remove(nid)
        idx, w = self._rows[nid]
        parts = route_rows(split, self.X[idx, split.feature_index], idx, w)
        vparts = None
        if self.val is not None:
            vidx, vw = self._val_rows[nid]
            vparts = route_rows(split, self.val[0][vidx, split.feature_index], vidx, vw)
        labels = split.branch_labels()
        ids = []
        for c, (cidx, cw) in enumerate(parts):
            cid = len(self._nodes)
            child = make_node(node_id=cid, parent=nid, depth=node.depth + 1, branch=labels[c],
                              stats=(self.U[cidx] * cw[:, None]).sum(0), n_rows=cidx.size, crit=self.crit,
                              classes=self.dataset.classes)
            if child.weight <= 0 and self.task == "classification":   # an empty branch: the parent's class
                child = replace(child, value=node.value, prediction=node.prediction)
            self._nodes.append(child)
            self._rows[cid] = (cidx, cw)
            self._paths[cid] = self._paths[nid] + ((split.feature_index, split.kind, split.threshold,
                                                    split.category_codes, c),)
            if vparts is not None:
                self._val_rows[cid] = vparts[c]
            ids.append(cid)
        self._nodes[nid] = replace(node, split=split, children=tuple(ids), gain=split.gain, stop_reason=None)
        if self.config.effective_order == "depth":
            self._frontier.extend(reversed(ids))
        else:
            self._frontier.extend(ids)
        return tuple(ids)

    def _remove_subtree(self, nid):
        node = self._nodes[nid]
        for c in node.children:
            self._remove_subtree(c)
            self._nodes[c] = None
            self._rows.pop(c, None)
            self._val_rows.pop(c, None)
            if c in self._frontier:
                self._frontier.remove(c)

    def _collapse(self, node_id) -> StepRecord:
        node = self._node(node_id)
        if node.is_leaf:
            raise ConfigError(f"Node {node_id} is already a leaf; there is nothing to collapse.")
        self._remove_subtree(node_id)
        self._nodes[node_id] = self._nodes[node_id].as_leaf("collapsed")
        if node_id in self._frontier:
            self._frontier.remove(node_id)
        rec = StepRecord(len(self._history), "collapse", node_id, None, (), ())
        self._history.append(rec)
        return rec

    def _expand(self, node_id, split: Split) -> StepRecord:
        from engine.split.gain import evaluate_test
        node = self._node(node_id)
        split = evaluate_test(self, node_id, split)
        if not node.is_leaf:
            self._remove_subtree(node_id)
        children = self._split(node_id, split)
        rec = StepRecord(len(self._history), "forced", node_id, split, children, (), self)
        self._history.append(rec)
        return rec


def _kept(mapping, keep: set, everything: bool):
    """The entries of a level-wise result's rows/paths for the nodes in ``keep``."""
    if everything:
        return mapping
    if hasattr(mapping, "restricted"):        # engine.grow.levelstore maps: no copy of what they hold
        return mapping.restricted(keep)
    return {i: v for i, v in mapping.items() if i in keep}


def fit_tree(dataset, config: TreeConfig | None = None, *, sample_weight=None, validation_data=None,
             n_jobs: int | None = None) -> Tree:
    """Grow a tree to completion: ``Grower(dataset, config, ...).grow().tree``; ``n_jobs``: cores for this
    tree (None: all; the tree is the same for every value)."""
    return Grower(dataset, config, sample_weight=sample_weight, validation_data=validation_data,
                  n_jobs=n_jobs).grow().tree


def pilot_share(dataset, config: TreeConfig, n_rows: int) -> tuple[float, float]:
    """Leaves per row, and nodes of the widest level per row, of a tree of ``config`` grown on ``n_rows`` rows
    drawn from ``dataset`` (seed 0): the memory budget's measure of how big and how wide a fully grown tree
    gets on this data (:func:`engine.budget.expected_shape`)."""
    cfg = replace(config, validation=False, random_state=0)
    cache = getattr(dataset, "_cache", {})          # the data set's derived values (not pickled, not shared)
    key = ("pilot_shape", int(n_rows), repr(sorted(cfg.to_dict().items())))
    if key not in cache:
        rows = np.sort(np.random.default_rng(0).choice(len(dataset), size=min(int(n_rows), len(dataset)),
                                                        replace=False))
        tree = Grower(dataset.subset(rows), cfg, n_jobs=1).grow().tree
        widest = int(np.bincount([node.depth for node in tree.nodes]).max())
        cache[key] = (tree.n_leaves / len(rows), widest / len(rows))
    return cache[key]


set_pilot(pilot_share)
