"""Reading a tree's dict (as ``Tree.to_dict`` writes it) back into validated nodes.

A tree file from a user is data, never code: the format tag, the node count, every node's fields and types,
that children point to existing nodes whose parent is the node, and that split feature indices and
category codes fit the schema are all checked; anything else raises ``DataError``.
"""

from __future__ import annotations

import math

from engine.data.schema import FeatureSchema
from engine.errors import DataError
from engine.split.records import KINDS
from engine.tree.node import Node

FORMAT = "decision-tree-explorer/1"
MAX_NODES = 200_000


def tree_parts_from_dict(d) -> tuple[tuple[Node | None, ...], FeatureSchema, str]:
    """``(nodes, schema, criterion)`` of a tree dict, every field, id and link checked."""
    if not isinstance(d, dict) or d.get("format") != FORMAT:
        raise DataError("This is not a tree saved by this app (the format tag is missing or different).")
    raw_nodes = d.get("nodes")
    if not isinstance(raw_nodes, list) or not raw_nodes or len(raw_nodes) > MAX_NODES:
        raise DataError(f"The tree file must hold between 1 and {MAX_NODES:,} nodes.")
    try:
        schema = FeatureSchema.from_dict(d["schema"])
        nodes = [None if n is None else Node.from_dict(n) for n in raw_nodes]
        criterion = str(d["criterion"])
    except DataError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError):
        raise DataError("The tree file is damaged: a node or the schema lacks a field or has a wrong type.") from None
    n_feat = len(schema.feature_names)
    for i, n in enumerate(nodes):
        if n is None:
            continue
        if n.id != i:
            raise DataError(f"The tree file is damaged: node {i} says its id is {n.id}.")
        if not all(math.isfinite(v) for v in n.stats + n.value):
            raise DataError(f"The tree file is damaged: node {i} has non-finite statistics.")
        for c in n.children:
            if not 0 < c < len(nodes) or nodes[c] is None or nodes[c].parent != i:
                raise DataError(f"The tree file is damaged: node {i} lists a child {c} that does not belong to it.")
        if n.children:
            s = n.split
            if s is None or s.kind not in KINDS or not 0 <= s.feature_index < n_feat:
                raise DataError(f"The tree file is damaged: node {i} has children but no valid split.")
            if schema.feature_names[s.feature_index] != s.feature:
                raise DataError(f"The tree file is damaged: node {i} tests an unknown feature.")
            expected = len(s.categories) if s.kind == "multiway" else 2
            if len(n.children) != expected:
                raise DataError(f"The tree file is damaged: node {i} has the wrong number of children.")
            if s.kind == "threshold" and (s.threshold is None or not math.isfinite(s.threshold)):
                raise DataError(f"The tree file is damaged: node {i} has no valid threshold.")
            n_cat = len(schema.categories[s.feature_index])
            if s.kind != "threshold" and not all(0 <= c < n_cat for c in s.category_codes):
                raise DataError(f"The tree file is damaged: node {i} uses an unknown category.")
            if len(s.child_weights) != len(n.children):
                raise DataError(f"The tree file is damaged: node {i}'s split does not match its children.")
    if nodes[0] is None or nodes[0].parent is not None:
        raise DataError("The tree file is damaged: it has no root node.")
    width = len(schema.classes) if schema.task == "classification" else 1
    if any(n is not None and len(n.value) != width for n in nodes):
        raise DataError("The tree file is damaged: a node's prediction does not fit the classes.")
    return tuple(nodes), schema, criterion
