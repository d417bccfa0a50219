"""Why a tree model answers as it does: exact TreeSHAP and Saabas path contributions for any tree model.

A model explains itself by saying how its raw output is a sum of tree leaf values (:class:`TreeSum`):
``output_k(x) = base_k + sum_t weight_t * leaf value of tree t`` over the terms adding to column ``k``.
A grown :class:`~engine.tree.store.Tree` is one term (its class shares, or its value);
:meth:`engine.ensembles.votes.Ensemble.tree_sum` and :meth:`engine.models.model.ImportedModel.tree_sum`
describe ensembles (vote shares, weighted means) and files trained elsewhere (margins, before the link).
Any object with a ``tree_sum()`` method can be explained.

:func:`tree_shap` returns XGBoost's ``pred_contribs`` layout: one row per case, one column per feature and
a last column for the expected value, ``(n, F + 1)`` for a model with one output column (regression, a
logistic margin) and ``(n, K, F + 1)`` with K output columns (softmax margins, a grown classifier's class
shares, a forest's vote shares). Each row adds up to the raw output. :func:`path_contributions` is the
same for Saabas. The per-tree work is :class:`engine.tree.shap.TreePaths`; the job reserves its memory
from the server's budget (:func:`engine.budget.reserve`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.budget import check, reserve
from engine.errors import DataError
from engine.tree.shap import CHUNK_CELLS, TreePaths, vote_values

#: rows :func:`shap_summary` explains at most (a random sample of bigger data, said in its result)
SUMMARY_ROWS = 2_000


@dataclass(frozen=True, repr=False)
class TreeTerm:
    """One tree of a :class:`TreeSum`.

    ``weight``: multiplies its leaf values; ``outputs``: the output column each of its leaf-value columns
    adds to; ``columns``: the model feature of each of the tree's own features (None: the same order);
    ``adapt``: turns rows encoded for the model into the tree's encoding (None: the same); ``votes``: the
    leaf's class shares become a one-hot vote for its most likely class (hard voting); ``value_columns``:
    which leaf-value column feeds each of ``outputs`` (-1: none, a class the tree never saw).
    """

    tree: object
    weight: float = 1.0
    outputs: tuple[int, ...] = (0,)
    columns: tuple[int, ...] | None = None
    adapt: object = None
    votes: bool = False
    value_columns: tuple[int, ...] | None = None

    def values(self, table: np.ndarray) -> np.ndarray:
        table = vote_values(table) if self.votes else table
        if self.value_columns is None:
            return table
        cols = np.asarray(self.value_columns, dtype=np.int64)
        return np.where(cols >= 0, table[:, np.maximum(cols, 0)], 0.0)


@dataclass(frozen=True, repr=False)
class TreeSum:
    """A model's raw output as ``base + sum of weighted tree leaf values``, per output column.

    ``outputs``: the output columns' names; ``what``: what they hold (``"margin"``, ``"class share"``,
    ``"vote share"``, ``"value"``); ``encode``: rows (DataFrame, dict, array) -> float matrix in
    ``feature_names`` order; ``cover``: which node statistic weighs the branches (``"weight"`` or ``"count"``);
    ``notes``: sentences about what the explanation assumes.
    """

    terms: tuple[TreeTerm, ...]
    base: tuple[float, ...]
    outputs: tuple[str, ...]
    feature_names: tuple[str, ...]
    encode: object
    what: str = "value"
    cover: str = "weight"
    notes: tuple[str, ...] = field(default=())

    def __repr__(self) -> str:
        return f"TreeSum(trees={len(self.terms)}, outputs={len(self.outputs)}, what={self.what!r})"


def tree_sum_of(model) -> TreeSum:
    """The :class:`TreeSum` of a grown Tree, or of any model with a ``tree_sum()`` method."""
    if hasattr(model, "tree_sum"):
        return model.tree_sum()
    if hasattr(model, "walk") and hasattr(model, "schema"):
        classes = model.schema.classes if model.task == "classification" else ()
        outputs = tuple(classes) or ("value",)
        return TreeSum((TreeTerm(model, outputs=tuple(range(len(outputs)))),), (0.0,) * len(outputs), outputs,
                       model.schema.feature_names, model._encode,
                       what="class share" if classes else "value")
    raise DataError(f"A {type(model).__name__} is not a tree model the explorer can explain.")


def _explain(model, X, how: str) -> np.ndarray:
    ts = tree_sum_of(model)
    X = np.asarray(ts.encode(X), dtype=float)
    n, F, K = X.shape[0], len(ts.feature_names), len(ts.outputs)
    paths = [TreePaths(t.tree, values=t.values, cover=ts.cover) for t in ts.terms]
    chunk = max(min((p.chunk_rows() for p in paths), default=n), 1)
    need = 8 * n * K * (F + 1) * 2 + 8 * 3 * CHUNK_CELLS          # the result (twice) and one chunk's arrays
    check(need, what="Explaining these rows", advice="explain fewer rows")
    out = np.zeros((F + 1, K, n))
    with reserve(need, what="Explaining these rows", advice="explain fewer rows"):
        out[F] = np.asarray(ts.base, dtype=float)[:, None]
        for term, p in zip(ts.terms, paths):
            cols = np.arange(F) if term.columns is None else np.asarray(term.columns, dtype=np.int64)
            outs = np.asarray(term.outputs, dtype=np.int64)
            out[F, outs] += term.weight * (p.expected if how == "shap" else p.node_values[0])[:, None]
            for lo in range(0, n, chunk):
                Xc = X[lo:lo + chunk]
                Xt = Xc if term.adapt is None else term.adapt(Xc)
                feats, vals = p.shap(Xt) if how == "shap" else p.saabas(Xt)   # (U,), (U, m, W)
                if feats.size:
                    out[cols[feats][:, None], outs[None, :], lo:lo + Xc.shape[0]] += \
                        term.weight * vals.transpose(0, 2, 1)
    res = out.transpose(2, 1, 0)                                       # (n, K, F + 1)
    return np.ascontiguousarray(res[:, 0, :] if K == 1 else res)


def tree_shap(model, X) -> np.ndarray:
    """Exact path-dependent TreeSHAP values of ``model`` (a Tree, Ensemble or ImportedModel) for the rows
    ``X`` (DataFrame or encoded array): ``(n, F + 1)`` or ``(n, K, F + 1)``, the last column the expected
    value; each row adds up to the model's raw output (see the module docstring)."""
    return _explain(model, X, "shap")


def path_contributions(model, X) -> np.ndarray:
    """Saabas path contributions in :func:`tree_shap`'s layout (the last column: the root's value)."""
    return _explain(model, X, "saabas")
