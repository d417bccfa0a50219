"""k-DT: decision trees whose node tests are conjunctions of up to k literals, by reduction.

The reduction of the lecture notes: introduce one new Boolean variable per monomial (conjunction of
at most k literals, see :mod:`engine.ensembles.literals`), rewrite every row as the values of those
variables, and grow an ordinary decision tree on the new data set. A node that tests variable
:math:`m = l_1 \\wedge \\dots \\wedge l_j` tests the conjunction, so the tree is a k-DT over the original
features; with k = 1 it is a tree over the literals themselves.

The new variables are numeric 0/1 columns (1 = the monomial holds), so a node's test reads
``(A = v AND x <= 3) <= 0.5`` with the "false" branch first; :meth:`KDTResult.rules` rewrites the paths
as ``NOT (A = v AND x <= 3)`` / ``(A = v AND x <= 3)``. (0/1 numbers rather than "true"/"false" labels
make loading and growing an order of magnitude faster: the level-wise builder applies.)

The new data set keeps only useful variables: a monomial that is true on every training row or on
none cannot split anything, and of monomials that are true on exactly the same training rows only
the first is kept (shorter first, then the fixed literal order), which is also the one a tie in the
grower would pick. The tree is grown by :class:`engine.grow.grower.Grower` on
``Dataset.from_frame(new_frame)`` -- no second tree implementation.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from engine.config import tree_config as check_config
from engine.config import TreeConfig
from engine.data.dataset import Dataset
from engine.errors import ConfigError, DataError
from engine.grow.grower import Grower
from engine.ensembles.literals import Literal, check_int, literal_matrix, make_literals, monomial_text

MAX_COLUMNS = 1000


@dataclass(frozen=True, eq=False)
class KDTResult:
    """A k-DT: the monomials behind the new variables, the expanded training data and the grower."""

    k: int
    literals: tuple[Literal, ...]
    monomials: tuple[tuple[Literal, ...], ...]
    columns: tuple[str, ...]
    n_candidates: int
    expanded: Dataset
    grower: Grower
    schema: object

    def __repr__(self) -> str:
        return (f"KDTResult(k={self.k}, literals={len(self.literals)}, variables={len(self.monomials)} "
                f"of {self.n_candidates} monomials, tree={self.tree!r})")

    @property
    def tree(self):
        return self.grower.tree

    def expand(self, data) -> pd.DataFrame:
        """The new Boolean variables (1.0 = the monomial holds, else 0.0) of rows with the original features."""
        frame = data.frame if hasattr(data, "frame") else data
        X = self.schema.encode(frame)
        return pd.DataFrame({name: monomial_mask(mono, self.schema, X).astype(float)
                             for name, mono in zip(self.columns, self.monomials)}, index=frame.index)

    def predict(self, data) -> np.ndarray:
        return self.tree.predict(self.expand(data))

    def rules(self) -> list[str]:
        """``IF NOT (A = v AND x <= 3) AND B = w THEN class`` for every leaf of the tree."""
        out = []
        for rule in self.tree.rules():
            conds = []
            for node_id, child in _path_steps(self.tree, rule.leaf):
                name = self.tree.nodes[node_id].split.feature
                conds.append(name if child == 1 else f"NOT {name}")
            pred = rule.prediction if isinstance(rule.prediction, str) else f"{rule.prediction:.4g}"
            out.append(f"IF {' AND '.join(conds) or 'TRUE'} THEN {pred}")
        return out


def _path_steps(tree, leaf: int) -> list[tuple[int, int]]:
    """(node id, child position) pairs from the root to ``leaf``."""
    steps, node = [], tree.nodes[leaf]
    while node.parent is not None:
        parent = tree.nodes[node.parent]
        steps.append((parent.id, parent.children.index(node.id)))
        node = parent
    return steps[::-1]


def monomial_mask(monomial, schema, X: np.ndarray) -> np.ndarray:
    return literal_matrix(monomial, schema, X).all(axis=0)


def column_name(monomial) -> str:
    return f"({monomial_text(monomial)})" if len(monomial) > 1 else monomial_text(monomial)


def enumerate_monomials(masks: np.ndarray, k: int):
    """(kept index tuples, their masks, number of candidates) over the literal masks (see module doc)."""
    n_lit = masks.shape[0]
    kept, kept_masks, seen, n_candidates = [], [], set(), 0
    for size in range(1, k + 1):
        for idx in combinations(range(n_lit), size):
            n_candidates += 1
            mask = masks[list(idx)].all(axis=0)
            if not mask.any() or mask.all():
                continue
            key = np.packbits(mask).tobytes()
            if key in seen:
                continue
            seen.add(key)
            kept.append(idx)
            kept_masks.append(mask)
            if len(kept) > MAX_COLUMNS:
                raise ConfigError(f"k = {k} over {n_lit} literals gives more than {MAX_COLUMNS} distinct "
                                  "monomials; use a smaller k or fewer thresholds.")
    return kept, kept_masks, n_candidates


def fit_kdt(dataset, *, k: int = 2, n_thresholds: int = 3, negations: bool = True,
            tree_config: TreeConfig | None = None, grow: bool = True) -> KDTResult:
    """Build the monomial variables of ``dataset`` and a grower on them (grown unless ``grow=False``).

    ``tree_config`` defaults to ID3 (entropy, gain).
    """
    k = check_int("k", k, 1, 3)
    if len(dataset) == 0:
        raise DataError("There are no rows to learn from.")
    literals = make_literals(dataset, n_thresholds=n_thresholds, negations=negations)
    masks = literal_matrix(literals, dataset.schema, dataset.X)
    kept, kept_masks, n_candidates = enumerate_monomials(masks, k)
    if not kept:
        raise DataError("No monomial is true on some rows and false on others, so no test can split the rows.")
    monomials = tuple(tuple(literals[i] for i in idx) for idx in kept)
    names = [column_name(m) for m in monomials]
    target = dataset.target
    while target in names:
        target = f"{target}_"
    frame = pd.DataFrame({name: mask.astype(float) for name, mask in zip(names, kept_masks)},
                         index=dataset.frame.index)
    frame[target] = dataset.frame[dataset.target].to_numpy()
    expanded = Dataset.from_frame(frame, target=target, kinds={n: "numeric" for n in names},
                                  task=dataset.task, name=f"{dataset.name} ({k}-monomials)",
                                  max_columns=MAX_COLUMNS + 1)
    cfg = check_config(tree_config, TreeConfig(algorithm="id3"))
    grower = Grower(expanded, cfg)
    if grow:
        grower.grow()
    return KDTResult(k, literals, monomials, tuple(names), n_candidates, expanded, grower, dataset.schema)
