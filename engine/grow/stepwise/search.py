"""A node's search, as the step-by-step Grower runs it: the rows and stats the search reads
(:meth:`NodeSearch.node_data`; a big node's orders filtered off the kept whole-data sort), the features a node
may use (a seeded draw for ``max_features``), every feature's best split (exact, histogram, or J48's rules),
the winner by the configured score, and the stopping rule that closes the node instead (with validation
rows, whether the split helps on them). Results are cached per node path, so replaying a log costs little.

:class:`NodeSearch` is a part of :class:`~engine.grow.grower.Grower` and reads its state (``_rows``,
``_paths``, ``_nodes``, ``config``, ...).
"""

from __future__ import annotations

from functools import cached_property, partial

import numpy as np

from engine.grow.featuredraw import draw_mask, feature_ranks, path_key
from engine.grow.parallel import thread_map, threads_for
from engine.grow.sorting.kept import SORT_CACHE_LIMIT, kept_bins, node_orders, presorted
from engine.grow.stopping import post_split_reason, pre_split_reason, validation_gain
from engine.split.histogram import best_histogram, make_bins, searched_exactly
from engine.split.j48 import counts_toward_average, j48_search
from engine.split.records import Split
from engine.split.search import NodeData, best_categorical, best_numeric, best_numeric_all, choose
from engine.tree.build import route_rows, unit_stats


#: a step searches a node of at least this many rows (and an eighth of the data) from the kept column orders
BIG_NODE_ROWS = 2_000


class NodeSearch:
    """What a Grower knows of a node's search (see the module docstring)."""

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


__all__ = ["BIG_NODE_ROWS", "NodeSearch"]
