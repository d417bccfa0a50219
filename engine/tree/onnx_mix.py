"""A tree's C4.5 routing of missing values as a small graph of standard ONNX operators.

A row whose value is missing at a node (or whose category the node never saw) goes down every branch, its
weight multiplied by the branch's share of the training weight, and the answer is the weighted mix of the
leaves it reaches (:meth:`engine.tree.Tree.predict_proba`). With ``route_n(x)`` the branch node ``n``
sends row ``x`` to (-1: missing), edge ``(n, c)`` has the factor

    f_nc(x) = [route_n(x) = c] + [route_n(x) = -1] * share_n[c]

and a leaf's weight is the product of the factors on its path, computed as ``exp(sum of log f)`` level by
level (a node's log-weight is its parent's plus its edge's; ``log 0`` is clipped to -1e300, so a sum is
finite or -inf and its exp 0). The answer is ``weights @ leaf values``; the graph grows with the tree's
nodes, and its work with rows x nodes. Every node's route is computed for every row at once:
a threshold node compares, a category node looks its code up in a table (the route of every code, a
default for codes beyond the list, -1 for NaN and negative codes). The graph also says per row whether
any node routed it to -1: only those rows need this graph (ONNX's tree operators follow one branch).
The ``onnx`` helper module is passed in, so this module imports nothing outside the engine.
"""

from __future__ import annotations

import numpy as np

__all__ = ["mixed_tree"]


def _tables(tree, outer, internal, columns, adapted: bool):
    """Per internal node: its route table over the outer codes (+ default, + missing), all in one array."""
    flat, offsets, sizes = [], [], []
    for node in internal:
        split = node.split
        offsets.append(len(flat))
        if split.kind == "threshold":
            table = [-1.0, -1.0]
        else:
            pos = {label: c for c, label in enumerate(tree.schema.categories[split.feature_index])}
            labels = outer.categories[columns[split.feature_index]]
            codes = np.array([pos.get(label, np.nan) for label in labels], dtype=float)
            route = split.route(codes).astype(float) if codes.size else np.empty(0)
            default = -1.0 if adapted or split.kind == "multiway" else 1.0
            table = route.tolist() + [default, -1.0]
        sizes.append(len(table) - 2)
        flat += table
    return np.array(flat), np.array(offsets, dtype=np.int64), np.array(sizes, dtype=float)


def _levels(tree, internal):
    """Edges (node position, child) with their shares, and the tree level by level: per depth, each
    node's parent position in the level above, the edge into it, and which of the level's nodes are leaves."""
    position = {n.id: i for i, n in enumerate(internal)}
    edges, shares, levels = [], [], []
    level = [tree.root]
    while True:
        nxt, parents, into = [], [], []
        for p, n in enumerate(level):
            if n.is_leaf:
                continue
            cw = np.asarray(n.split.child_weights, dtype=float)
            share = cw / cw.sum() if cw.size and cw.sum() > 0 else np.full(len(n.children), 1.0 / len(n.children))
            for c, child in enumerate(n.children):
                edges.append((position[n.id], c))
                shares.append(float(share[c]))
                nxt.append(tree.nodes[child])
                parents.append(p)
                into.append(len(edges) - 1)
        if not nxt:
            return edges, shares, levels
        levels.append((parents, into, [k for k, n in enumerate(nxt) if n.is_leaf], [n for n in nxt if n.is_leaf]))
        level = nxt


def mixed_tree(helper, TP, tree, outer, leaf_value, prefix: str):
    """(graph nodes, initializers, name of the (N, width) double answer, name of the (N,) bool "a node
    routed the row to -1") for ``tree`` over input ``X`` in ``outer``'s columns; ``leaf_value(node)`` is a
    leaf's answer vector. Trees without splits answer their leaf and route nothing to -1."""
    columns = [outer.index(name) for name in tree.schema.feature_names]
    nodes = list(tree.walk())
    internal = [n for n in nodes if not n.is_leaf]
    leaves = [n for n in nodes if n.is_leaf]
    ops, inits = [], []

    def const(name, array, kind=TP.DOUBLE):
        array = np.asarray(array)
        inits.append(helper.make_tensor(prefix + name, kind, list(array.shape), array.ravel().tolist()))
        return prefix + name

    def op(kind, inputs, output, **attrs):
        ops.append(helper.make_node(kind, inputs, [prefix + output], **attrs))
        return prefix + output

    if not internal:
        V = const("V", np.array([leaf_value(n) for n in leaves], dtype=float).reshape(len(leaves), -1))
        nan_rows = op("IsNaN", [op("Gather", ["X", const("c0", [0], TP.INT64)], "c0v", axis=1)], "c0n")
        ones = op("Add", [op("Mul", [op("Cast", [nan_rows], "c0d", to=TP.DOUBLE), const("z", 0.0)], "zeros"),
                          const("o", 1.0)], "ones")
        split = op("Squeeze", [op("Less", [ones, const("z2", 0.0)], "never"), const("ax", [1], TP.INT64)], "split")
        return ops, inits, op("MatMul", [ones, V], "answer"), split
    table, offsets, sizes = _tables(tree, outer, internal, columns, outer != tree.schema)
    thr = np.array([n.split.threshold if n.split.kind == "threshold" else 0.0 for n in internal])
    G = op("Gather", ["X", const("feat", [columns[n.split.feature_index] for n in internal], TP.INT64)], "G", axis=1)
    nan = op("IsNaN", [G], "nan")
    minus = const("minus", -1.0)
    right = op("Where", [op("LessOrEqual", [G, const("thr", thr)], "le"), const("zero", 0.0), const("one", 1.0)],
               "right")
    r_thr = op("Where", [nan, minus, right], "r_thr")
    size = const("size", sizes)
    missing_slot = op("Add", [size, const("one_b", 1.0)], "missing_slot")
    code = op("Min", [op("Floor", [G], "code_f"), size], "code_a")            # codes beyond the list: default
    code = op("Where", [op("Less", [G, const("zero_b", 0.0)], "neg"), missing_slot, code], "code_b")
    code = op("Where", [nan, missing_slot, code], "code_c")
    index = op("Add", [op("Cast", [code], "code_i", to=TP.INT64), const("off", offsets, TP.INT64)], "index")
    r_cat = op("Gather", [const("table", table), index], "r_cat", axis=0)
    is_cat = const("is_cat", np.array([n.split.kind != "threshold" for n in internal]), TP.BOOL)
    route = op("Where", [is_cat, r_cat, r_thr], "route")
    edges, shares, levels = _levels(tree, internal)
    R = op("Gather", [route, const("edge_node", [e[0] for e in edges], TP.INT64)], "R", axis=1)
    hit = op("Cast", [op("Equal", [R, const("edge_child", [float(e[1]) for e in edges])], "eq")], "hit", to=TP.DOUBLE)
    gone = op("Cast", [op("Equal", [R, minus], "eqm")], "gone", to=TP.DOUBLE)
    factor = op("Add", [hit, op("Mul", [gone, const("share", shares)], "spread")], "factor")
    logs = op("Max", [op("Log", [factor], "log"), const("floor", -1e300)], "logs")
    # log-weights level by level: a node's is its parent's plus its edge's; the leaves' are gathered
    above, parts, order = None, [], []
    for d, (parents, into, leaf_pos, leaf_nodes) in enumerate(levels):
        edge = op("Gather", [logs, const(f"into{d}", into, TP.INT64)], f"edge{d}", axis=1)
        here = edge if above is None else op("Add", [op("Gather", [above, const(f"up{d}", parents, TP.INT64)],
                                                         f"from{d}", axis=1), edge], f"level{d}")
        if leaf_pos:
            parts.append(op("Gather", [here, const(f"leaf{d}", leaf_pos, TP.INT64)], f"leaves{d}", axis=1))
            order += leaf_nodes
        above = here
    leaf_logs = parts[0] if len(parts) == 1 else op("Concat", parts, "leaf_logs", axis=1)
    weights = op("Exp", [leaf_logs], "weights")
    V = const("V", np.array([leaf_value(n) for n in order], dtype=float).reshape(len(order), -1))
    any_gone = op("ReduceMax", [op("Cast", [op("Equal", [route, minus], "eqr")], "neg1", to=TP.DOUBLE)], "any",
                  axes=[1], keepdims=0)
    split = op("Cast", [any_gone], "split", to=TP.BOOL)
    return ops, inits, op("MatMul", [weights, V], "answer"), split
