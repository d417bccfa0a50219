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

This module holds the Grower's state and the actions on it (step, grow, undo, expand, collapse); a node's
search, the step records and setting a level-wise result as the state are its parts in :mod:`engine.grow.stepwise`.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cached_property

import numpy as np
import pandas as pd

from engine.budget import check_trees, classes_text, reserve, reserving, set_pilot, step_bytes
from engine.checks import node_id as check_node_id
from engine.checks import shown
from engine.config import TreeConfig
from engine.errors import ConfigError, DataError
from engine.grow.allocator import roomy_heap
from engine.grow.fastgrow import fast_eligible, grow_levelwise
from engine.grow.levelstore import NodeStore, RowRanges, paused_gc
from engine.grow.parallel import check_n_jobs, tree_threads
from engine.grow.stepwise.install import LevelwiseInstall
from engine.grow.stepwise.records import StepRecord, changes_state
from engine.grow.stepwise.search import BIG_NODE_ROWS, NodeSearch  # noqa: F401  (importable here, as always)
from engine.split.impurity import get_criterion
from engine.split.records import Split
from engine.tree.build import check_target_scale, make_node, route_rows
from engine.tree.store import Tree


class Grower(NodeSearch, LevelwiseInstall):
    """Grow a tree on ``dataset`` step by step (see module docstring): the state and the actions on it; a node's
    search is :class:`~engine.grow.stepwise.search.NodeSearch`'s, setting a level-wise result as the state
    :class:`~engine.grow.stepwise.install.LevelwiseInstall`'s."""

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
    @changes_state
    def reset(self) -> "Grower":
        """Back to a single open root; the action log is cleared."""
        self._actions = []
        self._rebuild()
        return self

    @changes_state
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

    @changes_state
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

    @changes_state
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

    @changes_state
    def expand(self, node_id: int, split: Split) -> StepRecord:
        """Force ``split`` at ``node_id`` (replacing its subtree if it has one)."""
        if not isinstance(split, Split):
            raise ConfigError(f"A forced split must be one of the node's candidate splits; got {shown(split)}.")
        rec = self._expand(node_id, split)
        self._actions.append(("expand", node_id, split))
        return rec

    @changes_state
    def collapse(self, node_id: int) -> StepRecord:
        """Make ``node_id`` a leaf again (its subtree is removed); it is not reopened."""
        rec = self._collapse(node_id)
        self._actions.append(("collapse", node_id))
        return rec

    def node_rows(self, node_id: int):
        """(row indices into the training data, weights) of the rows reaching ``node_id``."""
        self._node(node_id)
        return self._rows[node_id]

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
