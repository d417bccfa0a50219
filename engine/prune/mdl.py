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

__all__ = ["MDLBound", "description_length", "mdl_error_bound", "check_whole", "check_open_unit"]


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
    """Bits to write down a binary tree of n nodes over d features (the lecture notes' code).

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
