"""Building blocks shared by the growers: per-row stats, node construction and routing rows to children.

Per-row stats (see :mod:`engine.split.impurity`): classification uses one-hot class indicators, regression
``(1, y, y^2)``; multiplied by the row weights and summed they give a node's stats.
"""

from __future__ import annotations

import numpy as np

from engine.errors import DataError
from engine.split.impurity import Criterion
from engine.split.records import Split
from engine.tree.node import Node


def unit_stats(y: np.ndarray, task: str, n_classes: int) -> np.ndarray:
    """Per-row stats before weighting: one-hot (n, K) or (1, y, y^2) (n, 3)."""
    if task == "classification":
        out = np.zeros((y.size, n_classes))
        out[np.arange(y.size), y.astype(np.int64)] = 1.0
        return out
    y = y.astype(float)
    return np.stack([np.ones_like(y), y, y * y], axis=1)


#: a numeric target's largest size: the variance squares the values (1e200 squared overflows to inf,
#: 1e-200 squared underflows to 0), so sizes outside [TARGET_TINY, TARGET_HUGE] are refused, not scaled:
#: every impurity and gain shown would be in a unit the user never chose
TARGET_HUGE, TARGET_TINY = 1e100, 1e-100


def check_target_scale(y: np.ndarray, name: str) -> None:
    """Refuse a numeric target whose squares overflow (or underflow) double precision, with one sentence."""
    size = float(np.max(np.abs(y))) if y.size else 0.0
    if size > TARGET_HUGE:
        raise DataError(f"The target '{name}' has values as large as {size:.3g}: the variance squares them, "
                        f"which overflows beyond about 1e308. Divide the column by a power of ten (rescale its "
                        f"unit) so its values stay below {TARGET_HUGE:.0e} in size, and load it again.")
    if 0.0 < size < TARGET_TINY:
        raise DataError(f"The target '{name}' has no value larger than {size:.3g} in size: the variance "
                        f"squares them, which underflows to 0. Multiply the column by a power of ten (rescale "
                        f"its unit) so its values reach at least {TARGET_TINY:.0e}, and load it again.")


def make_node(*, node_id: int, parent, depth: int, branch: str, stats: np.ndarray, n_rows: int,
              crit: Criterion, classes: tuple[str, ...]) -> Node:
    """A leaf node with statistics ``stats`` (its split is added later)."""
    stats = np.asarray(stats, dtype=float)
    weight = float(crit.weight(stats))
    imp = float(crit.from_stats(stats))
    if crit.task == "regression":
        mean = stats[1] / weight if weight > 0 else 0.0
        value, prediction = (float(mean),), float(mean)
    else:
        value = tuple((stats / weight).tolist()) if weight > 0 else tuple([1.0 / len(classes)] * len(classes))
        prediction = classes[int(np.argmax(stats))] if classes else ""
    return Node(id=node_id, parent=parent, depth=depth, branch=branch, stats=tuple(stats.tolist()),
                weight=weight, n_node_samples=int(n_rows), impurity=imp, value=value,
                prediction=prediction, criterion=crit.name)


def node_fields(stats: np.ndarray, crit: Criterion, classes: tuple[str, ...]):
    """Per row of ``stats`` (many nodes at once): stats tuple, weight, impurity, value and prediction, as
    lists; the numbers equal what :func:`make_node` computes node by node."""
    stats = np.asarray(stats, dtype=float)
    weight = crit.weight(stats)
    imp = crit.from_stats(stats)
    table = node_values(stats, crit, len(classes), weight)
    if crit.task == "regression":
        values = [(m,) for m in table[:, 0].tolist()]
        preds = table[:, 0].tolist()
    else:
        values = row_tuples(table)
        preds = [classes[i] for i in np.argmax(stats, axis=1).tolist()] if classes else [""] * len(stats)
    return row_tuples(stats), weight.tolist(), imp.tolist(), values, preds


#: above this many columns, :func:`row_tuples` shares one zero among the rows' zeros
SHARED_ZERO_ABOVE = 32


def row_tuples(a: np.ndarray) -> list[tuple]:
    """The rows of a 2-D array as tuples of floats (``[tuple(r) for r in a.tolist()]``). With many
    columns (classes) the zeros are one shared float object: a node of a 1,000-class tree then costs
    its tuple's 8 KB of pointers, not 1,000 new floats as well (32 KB), for tuples that compare equal."""
    if a.ndim != 2 or a.shape[1] <= SHARED_ZERO_ABOVE:
        return [tuple(r) for r in a.tolist()]
    rows, cols = np.nonzero(a)
    vals, cols = a[rows, cols].tolist(), cols.tolist()
    bounds = np.searchsorted(rows, np.arange(a.shape[0] + 1)).tolist()
    blank = [0.0] * a.shape[1]
    out = []
    for i in range(a.shape[0]):
        row = blank.copy()
        for c, v in zip(cols[bounds[i]:bounds[i + 1]], vals[bounds[i]:bounds[i + 1]]):
            row[c] = v
        out.append(tuple(row))
    return out


def node_values(stats: np.ndarray, crit: Criterion, n_classes: int, weight: np.ndarray | None = None) -> np.ndarray:
    """Each node's ``value`` as a table: class shares (nodes, K), or the mean as one column (nodes, 1);
    the numbers :func:`make_node` gives (an empty node: uniform shares, mean 0)."""
    weight = crit.weight(stats) if weight is None else weight
    safe = np.where(weight > 0, weight, 1.0)
    if crit.task == "regression":
        return np.where(weight > 0, stats[:, 1] / safe, 0.0)[:, None]
    return np.where(weight[:, None] > 0, stats / safe[:, None], 1.0 / max(n_classes, 1))


def make_nodes(stats: np.ndarray, n_rows: np.ndarray, crit: Criterion, classes: tuple[str, ...]):
    """Vectorised :func:`make_node` for many nodes: returns one factory ``(id, parent, depth, branch) -> Node``
    per row of ``stats``."""
    st, w, im, values, preds = node_fields(stats, crit, classes)
    nr = np.asarray(n_rows).tolist()
    name = crit.name

    def factory(i):
        return lambda node_id, parent, depth, branch: Node.fast(
            id=node_id, parent=parent, depth=depth, branch=branch, stats=st[i], weight=w[i],
            n_node_samples=int(nr[i]), impurity=im[i], value=values[i], prediction=preds[i], criterion=name,
            split=None, children=(), gain=None, stop_reason=None)
    return [factory(i) for i in range(len(st))]


def route_rows(split: Split, column: np.ndarray, idx: np.ndarray, w: np.ndarray):
    """Partition a node's rows among the children: list of (idx, w) per child.

    Rows with a missing value go to every child with weight multiplied by the child's share of the
    known weight (C4.5 fractional instances).
    """
    route = split.route(column)
    cw = np.asarray(split.child_weights, dtype=float)
    share = cw / cw.sum() if cw.sum() > 0 else np.full(cw.size, 1.0 / max(cw.size, 1))
    miss = route < 0
    out = []
    for c in range(split.n_children):
        sel = route == c
        if miss.any():
            sel = sel | miss
            wc = np.where(miss[sel], w[sel] * share[c], w[sel])
        else:
            wc = w[sel]
        keep = wc > 0
        out.append((idx[sel][keep], wc[keep]))
    return out
