"""A level-wise growth's result (:func:`engine.grow.fastgrow.grow_levelwise`) set as a Grower's state.

:meth:`LevelwiseInstall._install` makes the state stepping would reach: to the end, or the first ``k``
records (an undo of a long run of automatic steps). Installed to the end, the node list and the history are
made only when first read (:class:`MadeOnUse`): the tree alone needs neither, it reads the
:class:`~engine.grow.levelstore.NodeStore`'s arrays.

:class:`LevelwiseInstall` is a part of :class:`~engine.grow.grower.Grower` and sets its state.
"""

from __future__ import annotations

from engine.grow.levelstore import NodeStore, paused_gc
from engine.grow.stepwise.records import StepRecord


class MadeOnUse:
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


class LevelwiseInstall:
    """Setting a Grower's state from a level-wise result (see the module docstring)."""

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
    _nodes = MadeOnUse()
    _history = MadeOnUse()


def _kept(mapping, keep: set, everything: bool):
    """The entries of a level-wise result's rows/paths for the nodes in ``keep``."""
    if everything:
        return mapping
    if hasattr(mapping, "restricted"):        # engine.grow.levelstore maps: no copy of what they hold
        return mapping.restricted(keep)
    return {i: v for i, v in mapping.items() if i in keep}


__all__ = ["LevelwiseInstall", "MadeOnUse"]
