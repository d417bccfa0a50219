"""The tree as a passive store of frozen nodes, and everything that reads or edits one.

``node`` (:class:`Node`), ``store`` (:class:`Tree`: structure, prediction, rules, regions),
``build`` (nodes from row statistics, shared by the growers), ``paths`` (rules and regions),
``decode`` and ``serialize`` (validated dict/JSON round trip), ``edit`` (cut, raise, relabel) and
``surgery`` (route rows, refit numbers, compare trees) for pruning, ``region_grid`` (a region plot's
sample of rows and merged leaf rectangles on a grid). A tree never changes: every
edit returns a new one with the same node ids.
"""

from engine.tree.node import Node
from engine.tree.store import Tree
from engine.tree.serialize import tree_from_json, tree_to_json

__all__ = [
    "Node", "Tree", "tree_from_json", "tree_to_json",
]
