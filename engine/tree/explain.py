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
import pandas as pd

from engine.budget import check, reserve
from engine.errors import ConfigError, DataError
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


def _output_index(ts: TreeSum, output) -> int:
    if output is None:
        return 0
    if output in ts.outputs:
        return ts.outputs.index(output)
    raise ConfigError(f"The model has no output {output!r}; its outputs are {', '.join(map(str, ts.outputs))}.")


@dataclass(frozen=True, repr=False)
class RowExplanation:
    """One row's answer explained twice. ``table``: one line per feature with ``path`` (Saabas) and ``shap``
    (TreeSHAP) contributions and each one's rank by size (1 = largest); ``expected``: what both start from
    (the cover-weighted mean answer, the root's value); ``raw``: the answer they add up to; ``output`` and
    ``what``: which output column is explained and what it holds."""

    table: pd.DataFrame
    expected: float
    raw: float
    output: str
    what: str

    def __repr__(self) -> str:
        return f"RowExplanation(output={self.output!r}, expected={self.expected:.4g}, raw={self.raw:.4g})"

    @property
    def ranks_differ(self) -> bool:
        """Whether the two order some pair of features the other way round (one puts ``a`` above ``b`` by size,
        the other ``b`` above ``a``; ties and features neither moves are not a disagreement)."""
        t = self.table
        p, s = t["path"].abs().round(12).to_numpy(), t["SHAP"].abs().round(12).to_numpy()
        keep = np.flatnonzero((p > 0) | (s > 0))
        keep = keep[np.argsort(-(p[keep] + s[keep]), kind="stable")[:300]]
        p, s = p[keep], s[keep]
        return bool(((p[:, None] > p[None, :]) & (s[:, None] < s[None, :])).any())

    def swapped(self) -> tuple[str, str] | None:
        """A pair (a, b) the path contributions put a above b and SHAP b above a (the largest such), or None."""
        t = self.table
        p, s = t["path"].abs().round(12).to_numpy(), t["SHAP"].abs().round(12).to_numpy()
        pairs = np.argwhere((p[:, None] > p[None, :]) & (s[:, None] < s[None, :]))
        if not pairs.size:
            return None
        a, b = pairs[np.argmax(p[pairs[:, 0]] + s[pairs[:, 1]])]
        return str(t["feature"].iloc[a]), str(t["feature"].iloc[b])


def explain_row(model, row, output=None) -> RowExplanation:
    """Saabas and TreeSHAP side by side for one ``row`` and one output column (default: the first)."""
    ts = tree_sum_of(model)
    k = _output_index(ts, output)
    X = np.asarray(ts.encode(row), dtype=float)
    if X.shape[0] != 1:
        raise DataError(f"An explanation is for one row; got {X.shape[0]} rows.")
    phi, path = tree_shap(model, X), path_contributions(model, X)
    phi, path = (phi[0, k], path[0, k]) if phi.ndim == 3 else (phi[0], path[0])
    table = pd.DataFrame({"feature": list(ts.feature_names), "path": path[:-1], "SHAP": phi[:-1]})
    for col in ("path", "SHAP"):
        table[f"{col} rank"] = table[col].abs().round(12).rank(ascending=False, method="min").astype(int)
    return RowExplanation(table, float(phi[-1]), float(phi.sum()), str(ts.outputs[k]), ts.what)


def split_importances(model) -> pd.Series:
    """Impurity (or gain) importances of any tree model: each tree's ``feature_importances`` (weighted
    decrease of impurity, summing to 1), averaged over the trees with their absolute weights, per model feature."""
    ts = tree_sum_of(model)
    total = np.zeros(len(ts.feature_names))
    for t in ts.terms:
        imp = np.array(list(t.tree.feature_importances.values()))
        cols = np.arange(imp.size) if t.columns is None else np.asarray(t.columns, dtype=np.int64)
        np.add.at(total, cols, abs(t.weight) * imp)
    s = total.sum()
    return pd.Series(total / s if s > 0 else total, index=list(ts.feature_names), name="split importance")


def shap_summary(model, X, *, max_rows: int = SUMMARY_ROWS, seed: int = 0) -> tuple[pd.DataFrame, int, bool]:
    """Mean |SHAP| per feature over the rows of ``X`` (a random sample of ``max_rows`` when there are more):
    (table with ``feature``, ``mean |SHAP|`` (summed over the output columns) and one column per output when
    there are several; rows explained; whether they are a sample)."""
    ts = tree_sum_of(model)
    X = np.asarray(ts.encode(X), dtype=float)
    sampled = X.shape[0] > max_rows
    if sampled:
        X = X[np.sort(np.random.default_rng(seed).choice(X.shape[0], max_rows, replace=False))]
    phi = np.abs(tree_shap(model, X))
    phi = phi[:, None, :] if phi.ndim == 2 else phi                        # (n, K, F + 1)
    mean = phi[:, :, :-1].mean(axis=0)                                      # (K, F)
    table = pd.DataFrame({"feature": list(ts.feature_names), "mean |SHAP|": mean.sum(axis=0)})
    if mean.shape[0] > 1:
        for k, name in enumerate(ts.outputs):
            table[str(name)] = mean[k]
    return table, int(X.shape[0]), sampled
