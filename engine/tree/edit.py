"""Editing trees for pruning: cut a subtree to a leaf, raise a child's subtree, relabel a leaf; and a
tree's classes given other names (:func:`rename_classes`, how an imported model's classes are shown).

:class:`engine.tree.Tree` is immutable and each ``replace_nodes`` copies the node tuple, so an algorithm
that makes thousands of edits works on a :class:`Draft` (a mutable list of the same nodes, edited in
place) and calls :meth:`Draft.freeze` once at the end. :func:`cut` and :func:`raise_child` are the
one-edit versions on a Tree. Node ids never change; removed ids become ``None``.
"""

from __future__ import annotations

from dataclasses import replace

from engine.errors import DataError
from engine.tree.node import Node
from engine.tree.store import Tree

__all__ = ["Draft", "cut", "raise_child", "leaf_predicting", "rename_classes"]


class Draft:
    """A tree being edited in place; reads like a Tree (``nodes``, ``node``, ``walk``, ``task``, ``schema``)."""

    def __init__(self, tree: Tree):
        self.nodes: list[Node | None] = list(tree.nodes)
        self.schema = tree.schema
        self.criterion = tree.criterion

    @property
    def task(self) -> str:
        return self.schema.task

    def node(self, node_id: int) -> Node:
        if not 0 <= int(node_id) < len(self.nodes) or self.nodes[node_id] is None:
            raise DataError(f"There is no node {node_id} in this tree.")
        return self.nodes[node_id]

    def walk(self, start: int = 0):
        """Nodes reachable from ``start`` in pre-order (as :meth:`engine.tree.Tree.walk`)."""
        stack = [start]
        while stack:
            n = self.nodes[stack.pop()]
            yield n
            stack.extend(reversed(n.children))

    def set(self, node: Node) -> None:
        self.nodes[node.id] = node

    def update(self, changed: dict) -> None:
        for i, n in changed.items():
            self.nodes[i] = n

    def cut(self, node_id: int, reason: str = "pruned") -> Node:
        """Make ``node_id`` a leaf; its descendants become None. Returns the new leaf."""
        node = self.node(node_id)
        for c in node.children:
            for n in list(self.walk(c)):
                self.nodes[n.id] = None
        self.nodes[node_id] = leaf = node.as_leaf(reason)
        return leaf

    def raise_child(self, node_id: int, child_index: int) -> None:
        """Put the subtree of ``node_id``'s ``child_index``-th child in its place (see :func:`raise_child`)."""
        node = self.node(node_id)
        if node.is_leaf:
            raise DataError(f"Node {node_id} is a leaf; it has no subtree to raise.")
        if not 0 <= child_index < len(node.children):
            raise DataError(f"Node {node_id} has {len(node.children)} children; there is no child {child_index}.")
        child = self.node(node.children[child_index])
        moved = [n for g in child.children for n in self.walk(g)]
        for c in node.children:
            if c != child.id:
                for n in list(self.walk(c)):
                    self.nodes[n.id] = None
        self.nodes[child.id] = None
        self.nodes[node_id] = replace(child, id=node_id, parent=node.parent, depth=node.depth, branch=node.branch)
        for n in moved:
            self.nodes[n.id] = replace(n, depth=n.depth - 1, parent=node_id if n.parent == child.id else n.parent)

    def freeze(self) -> Tree:
        """The edited tree (the node tuple keeps its length: removed ids are None)."""
        return Tree(tuple(self.nodes), self.schema, self.criterion)


def cut(tree: Tree, node_id: int, reason: str = "pruned") -> Tree:
    """``node_id``'s subtree replaced by a leaf: like ``Tree.prune_to_leaf``, and the removed
    descendants' entries become ``None`` (so ``tree.nodes`` holds no unreachable nodes)."""
    draft = Draft(tree)
    draft.cut(node_id, reason)
    return draft.freeze()


def raise_child(tree: Tree, node_id: int, child_index: int) -> Tree:
    """Replace ``node_id`` by the subtree of its ``child_index``-th child ("subtree raising").

    The child's content moves up into ``node_id``'s place (keeping ``node_id``, its parent, depth and
    branch label); the child's descendants keep their ids and move one level up; the child's own id and
    the other children's subtrees are removed. Statistics are left as they were: call
    :func:`engine.tree.surgery.refit` to route the node's rows through the raised subtree.
    """
    draft = Draft(tree)
    draft.raise_child(node_id, child_index)
    return draft.freeze()


def leaf_predicting(node: Node, prediction, classes: tuple[str, ...], reason: str = "pruned") -> Node:
    """``node`` as a leaf that predicts ``prediction`` (a class label, or a value for regression).

    Its statistics stay those of the rows that reach it; a classification leaf gets the one-hot value
    of the class, so the tree predicts that class there.
    """
    leaf = node.as_leaf(reason)
    if not classes:
        return replace(leaf, value=(float(prediction),), prediction=float(prediction))
    if prediction not in classes:
        raise DataError(f"{prediction!r} is not one of the classes {', '.join(classes)}.")
    k = classes.index(prediction)
    value = tuple(1.0 if i == k else 0.0 for i in range(len(classes)))
    return replace(leaf, value=value, prediction=prediction)


def rename_classes(tree: Tree, names: dict[str, str]) -> Tree:
    """``tree`` with its classes called ``names[c]`` (a class missing from ``names`` keeps its name): the
    schema's classes and every node's prediction, in the same order, so rules, boxes and hover name them.

    Shares, counts and ids are unchanged; the tree itself when nothing is renamed (or it is a regression
    tree). The new names must stay distinct (DataError otherwise: two classes would read as one).
    """
    classes = tree.schema.classes
    new = tuple(str(names.get(c, c)) for c in classes)
    if tree.task != "classification" or new == classes:
        return tree
    if len(set(new)) != len(new):
        raise DataError("Two of the tree's classes would get the same name; each class needs its own.")
    by = dict(zip(classes, new))
    nodes = tuple(None if n is None else n.evolve(prediction=by.get(n.prediction, n.prediction)) for n in tree.nodes)
    return Tree(nodes, replace(tree.schema, classes=new), tree.criterion)
