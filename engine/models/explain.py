"""How an imported model reached its answer for one row.

- :func:`contributions` (boosted, ``additive`` models): the base score, then each tree's contribution
  (``weight * leaf value``) to its output column and the running sum, ending at the margin the link turns
  into the answer: the rows of a waterfall chart.
- :func:`member_votes` (``single``/``vote``/``soft_vote``): each member's prediction, weight and (for
  classifiers) class distribution, the tally per class and the winner, as the engine's own
  :class:`~engine.ensembles.votes.VoteBreakdown`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from engine.ensembles.votes import VoteBreakdown
from engine.errors import DataError
from engine.models.checks import output_names
from engine.models.links import apply_link


@dataclass(frozen=True, eq=False, repr=False)
class Contributions:
    """One row's boosted answer, tree by tree.

    ``table``: one row per tree in model order with ``tree``, ``round``, ``output`` (the column it adds to:
    a class for softmax, the positive class for logistic, ``value`` for regression), ``leaf`` (node id it
    reached), ``leaf_value``, ``weight``, ``contribution`` (= weight * leaf value) and ``running_sum`` (the
    output's margin after that tree, base score included). ``base``/``margin``: per output, before and after
    the trees; ``answer``: class probabilities (dict class -> p) or the predicted value; ``prediction``: the
    predicted class or value; ``link``: the link applied to the margins.
    """

    table: pd.DataFrame
    base: dict
    margin: dict
    answer: dict | float
    prediction: str | float
    link: str

    def waterfall(self, output=None) -> pd.DataFrame:
        """Steps of one output's waterfall: ``base score``, each tree (label ``tree t``), with ``start``,
        ``contribution`` and ``end``; ``output`` defaults to the first (the only one unless softmax)."""
        name = next(iter(self.base)) if output is None else output
        if name not in self.base:
            raise DataError(f"The model has no output {output!r}; its outputs are {', '.join(map(str, self.base))}.")
        rows = self.table[self.table["output"] == name]
        ends = rows["running_sum"].to_numpy()
        starts = np.concatenate([[self.base[name]], ends[:-1]])
        steps = pd.DataFrame({"step": [f"tree {t}" for t in rows["tree"]], "start": starts,
                              "contribution": rows["contribution"].to_numpy(), "end": ends})
        head = pd.DataFrame({"step": ["base score"], "start": [0.0], "contribution": [self.base[name]],
                             "end": [self.base[name]]})
        return pd.concat([head, steps], ignore_index=True)

    def __repr__(self) -> str:
        return f"Contributions(trees={len(self.table)}, link={self.link}, prediction={self.prediction!r})"


def _one_row(model, row) -> np.ndarray:
    X = model.encode(row)
    if X.shape[0] != 1:
        raise DataError(f"A breakdown is for one row; got {X.shape[0]} rows.")
    return X


def contributions(model, row) -> Contributions:
    """Each tree's contribution to a boosted model's margin for one ``row`` (DataFrame/Series/dict or array)."""
    if model.kind != "additive":
        raise DataError("Tree contributions exist for boosted models; a forest's members vote (see member_votes).")
    X = _one_row(model, row)
    leaf_value = model.leaf_values(X)[:, 0, 0]
    leaves = model.apply(X)[0]
    w = np.asarray(model.weights, dtype=float)
    outs = np.asarray(model.tree_outputs, dtype=np.int64)
    contrib = w * leaf_value
    names = output_names(model)
    running = np.empty_like(contrib)
    margin = np.array(model.base_score, dtype=float)
    for t in range(contrib.size):
        margin[outs[t]] += contrib[t]
        running[t] = margin[outs[t]]
    table = pd.DataFrame({"tree": np.arange(contrib.size), "round": np.arange(contrib.size) // model.trees_per_round,
                          "output": [names[o] for o in outs], "leaf": leaves, "leaf_value": leaf_value,
                          "weight": w, "contribution": contrib, "running_sum": running})
    answer = apply_link(model.link, margin[None, :], model.task)
    if model.task == "classification":
        probs = answer[0]
        out, prediction = dict(zip(model.classes, probs.tolist())), model.classes[int(np.argmax(probs))]
    else:
        out = prediction = float(answer[0])
    return Contributions(table, dict(zip(names, model.base_score)), dict(zip(names, margin.tolist())), out,
                         prediction, model.link)


def member_votes(model, row) -> VoteBreakdown:
    """Each member's prediction, weight and class distribution for one ``row``, the tally and the winner.

    ``vote`` models tally hard votes (weight per predicted class); ``soft_vote`` and ``single`` add the
    members' weighted class distributions (the tally's ``weight`` column; ``share`` is the probability).
    """
    if model.kind == "additive":
        raise DataError("A boosted model's trees do not vote; they add up (see contributions).")
    X = _one_row(model, row)
    vals = model.leaf_values(X)[:, 0, :]                          # (T, width)
    w = np.asarray(model.weights, dtype=float)
    members = pd.DataFrame({"member": np.arange(len(w))})
    if model.task == "regression":
        members["prediction"], members["weight"] = vals[:, 0], w
        mean = float(w @ vals[:, 0] / w.sum())
        tally = pd.DataFrame({"statistic": ["mean", "std", "min", "max"],
                              "value": [mean, float(vals[:, 0].std()), float(vals[:, 0].min()), float(vals[:, 0].max())]})
        return VoteBreakdown(members, tally, mean, model.task)
    classes = list(model.classes)
    codes = np.argmax(vals, axis=1)
    members["prediction"] = np.asarray(classes, dtype=object)[codes]
    members["weight"] = w
    for k, c in enumerate(classes):
        members[f"p({c})"] = vals[:, k]
    counts = np.bincount(codes, minlength=len(classes))
    weight = np.bincount(codes, weights=w, minlength=len(classes)) if model.kind == "vote" else w @ vals
    share = weight / max(weight.sum(), 1e-300)
    tally = pd.DataFrame({"class": classes, "votes": counts, "weight": weight, "share": share})
    return VoteBreakdown(members, tally, classes[int(np.argmax(share))], model.task)
