"""ImportedModel: a tree model trained elsewhere (XGBoost, LightGBM, scikit-learn, ONNX), held as the
engine's own :class:`~engine.tree.store.Tree` objects and predicted by the engine.

Four kinds of model (``kind``):

- ``"single"``: one tree; its leaf ``value`` is the answer (class shares, or a number);
- ``"vote"``: hard weighted majority :math:`\\arg\\max_c \\sum_m w_m [h_m(x) = c]` (regression: the
  weighted mean), as the engine's own :class:`~engine.ensembles.votes.Ensemble`;
- ``"soft_vote"``: the weighted mean of the members' leaf values, i.e. of their class distributions
  (scikit-learn's forests) or numbers (forest regressors);
- ``"additive"``: boosting. Output column ``k`` starts at ``base_score[k]`` and each tree adds
  ``weights[t] * leaf value`` to its column ``tree_outputs[t]`` (the *margin*); then the ``link`` turns
  margins into the answer: ``identity`` (the margin), ``logistic`` (one column, :math:`p = 1/(1+e^{-m})`;
  a classifier's classes are ``(negative, positive)``), ``softmax`` (K columns, :math:`p_k = e^{m_k}/\\sum_j
  e^{m_j}`), ``exp`` (:math:`e^m`, Poisson/Gamma/Tweedie regression).

How a reader builds one (the contract every format reader keeps)
-----------------------------------------------------------------
1. A :class:`~engine.data.schema.FeatureSchema` for the inputs: ``feature_names`` in the model's
   column order, ``kinds`` (``"categorical"`` where the model tests category sets; its ``categories``
   are the labels whose positions are the codes the model tests), ``task`` and, for classifiers,
   ``classes`` in the model's own class order (probability column ``k`` is ``classes[k]``).
2. Each tree through :func:`engine.models.build.tree_from_arrays` (it checks the structure and makes the
   nodes). The Tree fields that matter, should a reader build nodes itself:

   - ``nodes[i].id == i``, root 0, ``parent``/``depth``/``branch`` consistent, binary splits only;
   - internal nodes: ``split.kind`` ``"threshold"`` (left iff ``x <= threshold``; a reader whose format
     says ``x < t`` must give the largest value that still goes left) or ``"subset"`` (left iff the
     category code is in ``category_codes``; any other code goes right);
   - ``split.child_weights`` is **one-hot**: ``(1.0, 0.0)`` sends a missing value (NaN) left,
     ``(0.0, 1.0)`` right. These are the shares :meth:`Tree.predict` sends missing rows with, so the
     tree alone predicts as the library does;
   - ``value``: classification members (``single``/``vote``/``soft_vote`` classifiers) hold class shares
     in ``classes`` order; every other member (regressors and all ``additive`` members) holds
     ``(number,)`` — the leaf score *before* ``weights`` scales it. Member trees of an additive model use a
     regression schema (same features, ``task="regression"``);
   - ``weight`` (cover / hessian sum / sample weight) and ``n_node_samples`` (0 when the file has no
     counts), ``gain`` where the file has it, ``impurity`` NaN when unknown.
3. ``ImportedModel(trees=..., schema=..., kind=..., link=..., base_score=..., tree_outputs=...,
   trees_per_round=..., weights=..., source=..., objective=...)``; the constructor checks that the
   pieces agree and raises :class:`~engine.errors.DataError` with one sentence when they do not.

Prediction (``predict``, ``predict_proba``, ``decision_function``) runs on all trees at once through
:class:`engine.models.compiled.CompiledForest`, which is made from the Tree objects (never from the
file), so what the diagram shows is what predicts.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from engine.data.schema import FeatureSchema
from engine.ensembles.votes import Member
from engine.errors import DataError
from engine.models.checks import KINDS, LINKS, check_model, output_names
from engine.models.compiled import CompiledForest
from engine.models.links import apply_link
from engine.models.matching import ColumnMatch, match_columns
from engine.tree.explain import TreeSum, TreeTerm
from engine.tree.store import Tree

__all__ = ["ImportedModel", "KINDS", "LINKS"]



@dataclass(frozen=True, eq=False, repr=False, kw_only=True)
class ImportedModel:
    """A tree model read from a file (see the module docstring for the fields' contract).

    ``trees``: the members as engine Trees; ``schema``: inputs, task and classes; ``kind``: how the
    members combine; ``link``/``base_score``/``tree_outputs``/``trees_per_round``: additive models only
    (``base_score`` one margin per output column; ``tree_outputs[t]`` the column tree ``t`` adds to,
    default ``t % trees_per_round``); ``weights``: per-tree multiplier of its leaf value (additive) or
    vote weight (default 1 each); ``source``: the file format; ``objective``: the training objective as
    the file names it; ``notes``: plain sentences about what was read; ``inner_values``: False when the
    file weighs no node (ONNX keeps leaves only), so an inner node's shares or value, a mean of its
    leaves that cannot be weighted, are not the model's (a data set's rows can count them:
    :func:`engine.models.build.refit_inner`).
    """

    trees: tuple[Tree, ...]
    schema: FeatureSchema
    kind: str
    link: str = "identity"
    base_score: tuple[float, ...] = ()
    tree_outputs: tuple[int, ...] = ()
    trees_per_round: int = 1
    weights: tuple[float, ...] = ()
    source: str = ""
    objective: str = ""
    notes: tuple[str, ...] = ()
    inner_values: bool = True

    def __post_init__(self):
        check_model(self)

    # ------------------------------------------------------------------------------ basics
    @property
    def feature_names(self) -> tuple[str, ...]:
        return self.schema.feature_names

    @property
    def task(self) -> str:
        return self.schema.task

    @property
    def classes(self) -> tuple[str, ...]:
        """Class labels in the original model's order (empty for regression)."""
        return self.schema.classes

    @property
    def n_trees(self) -> int:
        return len(self.trees)

    @property
    def n_outputs(self) -> int:
        """Margin columns: K for softmax, 1 otherwise (additive); classes or 1 for the voting kinds."""
        if self.kind == "additive":
            return len(self.base_score)
        return len(self.classes) if self.task == "classification" else 1

    @property
    def n_rounds(self) -> int:
        return -(-self.n_trees // max(self.trees_per_round, 1))

    @property
    def members(self) -> tuple[Member, ...]:
        """The trees as :class:`~engine.ensembles.votes.Member` records (index, tree, weight, features)."""
        return tuple(Member(index=i, tree=t, weight=w, features=self.feature_names)
                     for i, (t, w) in enumerate(zip(self.trees, self.weights)))

    def tree_round(self, t: int) -> int:
        """Boosting round of tree ``t`` (its position among the rounds of ``trees_per_round`` trees)."""
        return t // max(self.trees_per_round, 1)

    def __repr__(self) -> str:
        extra = f", link={self.link}, outputs={self.n_outputs}" if self.kind == "additive" else ""
        classes = f", classes={len(self.classes)}" if self.task == "classification" else ""
        return (f"ImportedModel(source={self.source!r}, kind={self.kind}, task={self.task}{classes}, "
                f"trees={self.n_trees}, features={len(self.feature_names)}{extra})")

    def tree_sum(self) -> TreeSum:
        """The raw output as a sum of tree leaf values (what :func:`engine.tree.explain.tree_shap` explains):
        the margins before the link (``additive``), else the weighted mean of the members' class shares or
        values (``single``/``soft_vote``) or of their one-hot votes (``vote``: the vote shares). LightGBM's
        branches are weighed by their row counts, as its own contributions are; the others by cover."""
        counts = self.source.startswith("LightGBM") and all(t.root.n_node_samples > 0 for t in self.trees)
        common = dict(feature_names=self.feature_names, encode=self.encode, cover="count" if counts else "weight")
        if self.kind == "additive":
            terms = tuple(TreeTerm(t, weight=w, outputs=(o,)) for t, w, o in zip(self.trees, self.weights, self.tree_outputs))
            return TreeSum(terms, self.base_score, output_names(self), what="margin", **common)
        classes = self.task == "classification"
        total = sum(self.weights)
        votes = classes and self.kind == "vote"
        outputs = tuple(self.classes) if classes else ("value",)
        terms = tuple(TreeTerm(t, weight=w / total, outputs=tuple(range(len(outputs))), votes=votes)
                      for t, w in zip(self.trees, self.weights))
        what = ("vote share" if votes else "class share") if classes else "value"
        return TreeSum(terms, (0.0,) * len(outputs), outputs, what=what, **common)

    # ------------------------------------------------------------------------------ prediction
    @cached_property
    def compiled(self):
        return CompiledForest(self.trees)

    def match_columns(self, columns, target: str | None = None) -> ColumnMatch:
        """Which of ``columns`` feeds each feature (:func:`engine.models.matching.match_columns`): by name,
        by the library's renaming (LightGBM's ``_``), or by position when the model's names are generic."""
        return match_columns(self.feature_names, columns, target)

    def encode(self, data, columns: ColumnMatch | None = None) -> np.ndarray:
        """Float matrix (n, d) in ``feature_names`` order: a DataFrame/Series/dict is encoded with the
        schema (category labels become codes), an array must already have the d columns in order.

        A DataFrame is read through ``columns`` (a :class:`~engine.models.matching.ColumnMatch`), or when
        it lacks some of the model's names through the match :meth:`match_columns` finds (the library's
        renaming, or position for generic names and exactly d columns)."""
        if isinstance(data, pd.DataFrame):
            if columns is None and not set(self.feature_names) <= set(map(str, data.columns)):
                found = self.match_columns(data.columns)
                columns = found if found.ok else None
            if columns is not None:
                data = columns.frame(data)
        if isinstance(data, (pd.DataFrame, pd.Series, dict)):
            return self.schema.encode(data)
        return self.trees[0]._encode(data)        # an array: its checks are the trees' own (same columns)

    def leaf_values(self, data) -> np.ndarray:
        """(n_trees, n, width) each tree's leaf value for each row (unscaled by ``weights``)."""
        return self.compiled.values(self.encode(data))

    def apply(self, data) -> np.ndarray:
        """(n, n_trees) the leaf node id each row reaches in each tree."""
        return self.compiled.leaves(self.encode(data)).T

    def decision_function(self, data) -> np.ndarray:
        """Additive models: the margins (n, n_outputs) before the link; base score plus tree sums."""
        if self.kind != "additive":
            raise DataError("Margins exist only for boosted (additive) models.")
        vals = self.leaf_values(data)[:, :, 0]                     # (T, n)
        w = np.asarray(self.weights, dtype=float)[:, None]
        margin = np.tile(np.asarray(self.base_score, dtype=float), (vals.shape[1], 1))
        for k in range(self.n_outputs):
            sel = np.asarray(self.tree_outputs) == k
            if sel.any():
                margin[:, k] += (vals[sel] * w[sel]).sum(axis=0)
        return margin

    def _answer(self, data, columns: ColumnMatch | None = None) -> np.ndarray:
        """Classification: (n, K) probabilities; regression: (n,) values."""
        if columns is not None:
            data = self.encode(data, columns)
        if self.kind == "additive":
            return apply_link(self.link, self.decision_function(data), self.task)
        vals = self.leaf_values(data)                               # (T, n, width)
        w = np.asarray(self.weights, dtype=float)
        if self.task == "classification" and self.kind == "vote":
            codes = np.argmax(vals, axis=2)                        # first class on ties, as Ensemble
            K = len(self.classes)
            votes = np.zeros((vals.shape[1], K))
            for t in range(vals.shape[0]):
                votes[np.arange(vals.shape[1]), codes[t]] += w[t]
            return votes / np.maximum(votes.sum(axis=1, keepdims=True), 1e-300)
        mean = np.tensordot(w, vals, axes=1) / w.sum()              # (n, width)
        if self.task == "regression":
            return mean[:, 0]
        return mean / np.maximum(mean.sum(axis=1, keepdims=True), 1e-300)

    def predict_proba(self, data, columns: ColumnMatch | None = None) -> np.ndarray:
        """(n, K) class probabilities in ``classes`` order (the original model's), classifiers only;
        ``columns``: how a DataFrame's columns feed the features (see :meth:`encode`)."""
        if self.task != "classification":
            raise DataError("Class probabilities exist only for classification models.")
        return self._answer(data, columns)

    def predict(self, data, columns: ColumnMatch | None = None) -> np.ndarray:
        """Class labels (first class on ties) or predicted values; ``columns`` as in :meth:`predict_proba`."""
        out = self._answer(data, columns)
        if self.task == "regression":
            return out
        return np.asarray(self.classes, dtype=object)[np.argmax(out, axis=1)]
