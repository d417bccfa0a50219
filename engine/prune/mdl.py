"""The minimum-description-length (Occam) bound on a tree's true error, as the lecture notes state it.

``description_length(n, d)`` counts the bits of a binary tree's code; ``mdl_error_bound`` turns a training
error into a bound that holds with probability >= 1 - delta. Bottom-up pruning (``f = MDL``) minimises it,
and the Theory page shows it (:mod:`engine.teach.theory` builds on this module).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Integral, Real

from engine.errors import ConfigError

__all__ = ["MDLBound", "description_length", "mdl_error_bound", "binary_tests", "tree_tests", "check_whole",
           "check_open_unit"]


def check_whole(name: str, value, *, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise ConfigError(f"{name} must be a whole number; got {value!r}.")
    if value < low or (high is not None and value > high):
        allowed = f"at least {low}" if high is None else f"between {low} and {high}"
        raise ConfigError(f"{name} must be {allowed}; got {value}.")
    return int(value)


def check_open_unit(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not 0.0 < float(value) < 1.0:
        raise ConfigError(f"{name} must be between 0 and 1 (exclusive); got {value!r}.")
    return float(value)


def description_length(n_nodes: int, d: int) -> int:
    """Bits to write down a tree of n nodes whose tests come from d possible ones (the lecture notes' code;
    d binary features, or d' of :func:`binary_tests` for real-valued and categorical features).

        |T| = 5 n + 1 + (n - 1) ceil(log2 d)

    * ``5 n``: a fixed budget per node for its shape and content flags (internal or leaf, which
      children follow, the leaf's label, the branch a threshold sends "yes");
    * ``+ 1``: the end-of-tree marker that makes the code prefix-free;
    * ``(n - 1) ceil(log2 d)``: the index of a feature (ceil(log2 d) bits) for each node that can
      test one; a tree with n nodes has at least one leaf, so at most n - 1 tests.

    Any prefix-free code satisfies Kraft's inequality sum_T 2^(-|T|) <= 1, which is all the MDL
    bound needs. (Shalev-Shwartz & Ben-David, ch. 18, use (n + 1) log2(d + 3) instead.)
    """
    n_nodes = check_whole("n_nodes", n_nodes, low=1)
    d = check_whole("d", d, low=1)
    return 5 * n_nodes + 1 + (n_nodes - 1) * math.ceil(math.log2(d))


def binary_tests(kinds, n_values, m: int, categorical: str = "multiway") -> int:
    """d': how many tests a node can choose from, the alphabet the code names with ceil(log2 d') bits.

    The lecture notes' code is for d binary features. Their reduction of a real-valued feature: with m
    training rows at most m + 1 thresholds x <= t split them differently, so it is m + 1 binary tests, and
    d real-valued features give d' = d (m + 1). A categorical feature with k values gives, by the kind of
    categorical test: ``"equals"`` k tests x = v (1 when k = 2), ``"subset"`` 2^(k-1) - 1 tests x in S,
    ``"multiway"`` one test with k children. A multiway test fixes how many subtrees follow it, so the
    code stays prefix-free with n counting every node (the bound needs nothing more).
    """
    m = check_whole("m", m, low=1)
    total = 0
    for kind, k in zip(kinds, n_values):
        if kind == "numeric":
            total += m + 1
        elif categorical == "multiway":
            total += 1
        elif categorical == "subset":
            total += 2 ** (max(int(k), 2) - 1) - 1
        else:
            total += 1 if k <= 2 else int(k)
    return max(total, 1)


def tree_tests(tree, m: int) -> int:
    """:func:`binary_tests` for a tree's features: its categorical tests are of the kind its nodes use
    (multiway if any node splits many ways, else subsets if any node uses one, else x = v)."""
    kinds = {n.split.kind for n in tree.walk() if n.split is not None}
    categorical = "multiway" if "multiway" in kinds else "subset" if "subset" in kinds else "equals"
    schema = tree.schema
    return binary_tests(schema.kinds, [len(c) for c in schema.categories], m, categorical)


# --------------------------------------------------------------------------- MDL bound
@dataclass(frozen=True, repr=False)
class MDLBound:
    """L_D(T) <= bound = train_error + slack with probability >= 1 - delta (see mdl_error_bound)."""

    train_error: float
    description_length: int
    n_nodes: int
    d: int
    m: int
    delta: float
    slack: float
    bound: float

    @property
    def vacuous(self) -> bool:
        """True when the bound is >= 1 and so says nothing about a 0-1 error."""
        return self.bound >= 1.0

    def arithmetic(self) -> str:
        """The bound with its numbers: train error + sqrt((|T| + ln(2/delta)) / (2m))."""
        return (
            f"{self.train_error:.4f} + sqrt(({self.description_length} + ln(2/{self.delta:g})) / "
            f"(2 × {self.m})) = {self.train_error:.4f} + {self.slack:.4f} = {self.bound:.4f}"
        )

    def __repr__(self) -> str:
        return (
            f"MDLBound(bound={self.bound:.4g}, train_error={self.train_error:.4g}, slack={self.slack:.4g}, "
            f"description_length={self.description_length}, n_nodes={self.n_nodes}, d={self.d}, "
            f"m={self.m}, delta={self.delta:g})"
        )


def mdl_error_bound(train_error: float, n_nodes: int, d: int, m: int, delta: float = 0.05) -> MDLBound:
    """Occam/MDL bound on the true 0-1 error of a tree T from its training error L_S(T):

        L_D(T) <= L_S(T) + sqrt((|T| + ln(2/delta)) / (2m)),   |T| = description_length(n, d)

    holding with probability >= 1 - delta over m i.i.d. training rows, simultaneously for every tree
    (Shalev-Shwartz & Ben-David, Thm 7.7): Hoeffding for each tree at confidence delta 2^(-|T|),
    then a union bound, which Kraft's inequality keeps below delta; ln 2^|T| <= |T|.
    """
    if isinstance(train_error, bool) or not isinstance(train_error, Real) or not 0.0 <= float(train_error) <= 1.0:
        raise ConfigError(f"train_error must be between 0 and 1; got {train_error!r}.")
    n_nodes = check_whole("n_nodes", n_nodes, low=1)
    d = check_whole("d", d, low=1)
    m = check_whole("m", m, low=1)
    delta = check_open_unit("delta", delta)
    length = description_length(n_nodes, d)
    slack = math.sqrt((length + math.log(2.0 / delta)) / (2.0 * m))
    return MDLBound(float(train_error), length, n_nodes, d, m, delta, slack, float(train_error) + slack)
