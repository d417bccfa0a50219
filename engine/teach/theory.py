"""Theory behind tree learning: impurity curves, a zero-gain split, PAC sample sizes, an MDL bound.

Everything here is a small, exact computation a lecture states as a formula:

* two-class impurity curves over p = P(class 1) in [0, 1];
* the gains one split earns under each criterion (why strict concavity matters);
* PAC sample complexity N >= (ln(1/delta) + ln|H|) / epsilon for finite classes H, with |H| always
  handled as ln|H| (2^(2^n) never becomes an integer);
* the minimum-description-length generalisation bound of a tree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real

import numpy as np
import pandas as pd

from engine.errors import ConfigError
from engine.prune.mdl import MDLBound, description_length, mdl_error_bound, tree_tests
from engine.prune.mdl import check_open_unit, check_whole  # the same whole-number and (0, 1) checks
from engine.split.impurity import binary_entropy, binary_gini, binary_misclassification, impurity

#: The three classification criteria compared on this page, in teaching order.
CRITERIA_COMPARED = ("misclassification", "entropy", "gini")
_ROUND_OFF = 1e-12  # |gain| below this is floating-point noise of an exact zero


# --------------------------------------------------------------------------- impurity curves
def impurity_curves(n_points: int = 201) -> pd.DataFrame:
    """Two-class impurity as a function of p = share of the first class, on an even grid of [0, 1].

    Columns (all in [0, 1] except entropy, which peaks at 1 bit):

    * ``misclassification`` = min(p, 1 - p)
    * ``entropy``            = -p log2 p - (1 - p) log2 (1 - p)   (0 log 0 = 0)
    * ``entropy_half``       = entropy / 2  (scaled so it also peaks at 0.5, like the others)
    * ``gini``               = 1 - p^2 - (1 - p)^2 = 2 p (1 - p)

    All three are 0 at a pure node (p = 0 or 1) and maximal at p = 1/2. Entropy and Gini are
    strictly concave; misclassification is concave but linear on each half, which is why it can
    report zero gain for a useful split (see :func:`split_gains`).
    """
    n_points = check_whole("n_points", n_points, low=2, high=100_001)
    p = np.linspace(0.0, 1.0, n_points)
    entropy = np.asarray(binary_entropy(p), dtype=float)
    return pd.DataFrame({
        "p": p,
        "misclassification": np.asarray(binary_misclassification(p), dtype=float),
        "entropy": entropy,
        "entropy_half": entropy / 2.0,
        "gini": np.asarray(binary_gini(p), dtype=float),
    })


# --------------------------------------------------------------------------- gains of one split
def _counts(name: str, counts) -> np.ndarray:
    arr = np.asarray(counts)
    if arr.ndim != 1 or arr.size < 2:
        raise ConfigError(f"{name} must list one count per class, at least two classes; got {counts!r}.")
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.complexfloating):
        raise ConfigError(f"{name} must contain numbers; got {counts!r}.")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(arr != np.round(arr)):
        raise ConfigError(f"{name} must be non-negative whole numbers; got {counts!r}.")
    return arr.astype(np.int64)


def _fmt_counts(c: np.ndarray) -> str:
    return ", ".join(str(int(v)) for v in c)


def parse_counts(text: str, *, name: str = "counts") -> tuple[int, ...]:
    """'40, 20' -> (40, 20): class counts typed by a person (commas, semicolons or spaces)."""
    parts = [t for t in str(text).replace(";", ",").replace(",", " ").split() if t]
    try:
        values = tuple(int(t) for t in parts)
    except ValueError:
        raise ConfigError(f"{name} must be whole numbers separated by commas, like 40, 20; got {text!r}.") from None
    return tuple(int(v) for v in _counts(name, values))


def split_gains(parent_counts, left_counts) -> pd.DataFrame:
    """Impurity decrease of a two-way split under misclassification, entropy (bits) and Gini.

    The right child gets what the left one does not: ``right = parent - left``. For each criterion I
    (one row each) the table holds I(parent), I(left), I(right), the weighted children

        I_children = n_L / n * I(left) + n_R / n * I(right),

    the gain Delta = I(parent) - I_children, and ``arithmetic``: the same sum with the real numbers.

    Why the criteria disagree (strict concavity). With p the first-class share, the parent's p is
    the weighted mean of the children's: p = (n_L p_L + n_R p_R) / n. I_children is therefore a point
    on the chord between (p_L, I(p_L)) and (p_R, I(p_R)), read at p; the gain is how far the curve
    lies above that chord. Entropy and Gini are *strictly* concave, so the curve is strictly above
    every chord and the gain is positive whenever p_L != p_R. Misclassification min(p, 1 - p) is
    linear on each side of 1/2: when both children keep the parent's majority class, both ends of
    the chord sit on the same straight piece, the chord *is* the curve and the gain is exactly 0,
    even if one child is pure. Round-off below 1e-12 is reported as 0.

    Raises ConfigError unless counts are non-negative whole numbers with one entry per class,
    ``left <= parent`` entrywise and both children non-empty.
    """
    parent = _counts("parent_counts", parent_counts)
    left = _counts("left_counts", left_counts)
    if left.shape != parent.shape:
        raise ConfigError(
            f"left_counts must have one count per class like parent_counts ({parent.size}); got {left.size}."
        )
    if np.any(left > parent):
        raise ConfigError(
            f"left_counts ({_fmt_counts(left)}) cannot exceed parent_counts ({_fmt_counts(parent)}) in any class: "
            "a child holds only rows of its parent."
        )
    right = parent - left
    n, n_left, n_right = int(parent.sum()), int(left.sum()), int(right.sum())
    if n_left == 0 or n_right == 0:
        side = "left" if n_left == 0 else "right"
        raise ConfigError(f"The {side} child is empty; move at least one row to each child.")
    rows = []
    for crit in CRITERIA_COMPARED:
        i_parent, i_left, i_right = (float(impurity(c, crit)) for c in (parent, left, right))
        weighted = (n_left * i_left + n_right * i_right) / n
        gain = i_parent - weighted
        if abs(gain) < _ROUND_OFF:
            gain = 0.0
        arithmetic = (
            f"I({_fmt_counts(parent)}) - [{n_left}/{n} × I({_fmt_counts(left)}) + "
            f"{n_right}/{n} × I({_fmt_counts(right)})] = {i_parent:.4f} - "
            f"[{n_left}/{n} × {i_left:.4f} + {n_right}/{n} × {i_right:.4f}] = "
            f"{i_parent:.4f} - {weighted:.4f} = {gain:.4f}"
        )
        rows.append({
            "criterion": crit, "parent": i_parent, "left": i_left, "right": i_right,
            "weighted_children": weighted, "gain": gain, "arithmetic": arithmetic,
        })
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class GainExample:
    """Class counts of a parent and its two children (right = parent - left)."""

    parent: tuple[int, ...]
    left: tuple[int, ...]
    right: tuple[int, ...]

    def gains(self) -> pd.DataFrame:
        """The :func:`split_gains` table of this split."""
        return split_gains(self.parent, self.left)


def zero_gain_example() -> GainExample:
    """Parent (40, 20) split into (10, 0) and (30, 20): misclassification gain exactly 0.

    Both children keep the parent's majority class, so misclassification counts 20 errors before
    and 0 + 20 after: Delta = 20/60 - (10/60 * 0 + 50/60 * 20/50) = 0, although the split isolates
    ten pure rows. Entropy: 0.9183 - 50/60 * 0.9710 = 0.1092 bits; Gini: 4/9 - 50/60 * 0.48 = 2/45.
    """
    return GainExample(parent=(40, 20), left=(10, 0), right=(30, 20))


def node_share(tree, node_id: int) -> float | None:
    """p = share of the first class at a node of a two-class tree (weighted counts), else None."""
    classes = getattr(tree.schema, "classes", ())
    if tree.schema.task != "classification" or len(classes) != 2:
        return None
    stats = np.asarray(tree.node(node_id).stats, dtype=float)  # tree.node checks the id
    total = float(stats.sum())
    return float(stats[0] / total) if total > 0 else None


# --------------------------------------------------------------------------- PAC sample complexity
def pac_sample_size(ln_h: float, epsilon: float, delta: float) -> int:
    """Smallest N with N >= (ln(1/delta) + ln|H|) / epsilon.

    For a finite class H and a learner that returns any hypothesis consistent with N i.i.d.
    examples, P(some consistent h has error > epsilon) <= |H| (1 - epsilon)^N <= |H| e^(-epsilon N),
    which is <= delta once N >= (ln(1/delta) + ln|H|) / epsilon. ``ln_h`` is ln|H| (natural log).
    """
    if isinstance(ln_h, bool) or not isinstance(ln_h, Real) or not math.isfinite(ln_h) or ln_h < 0:
        raise ConfigError(f"ln_h (the natural log of the class size) must be a finite number >= 0; got {ln_h!r}.")
    epsilon = check_open_unit("epsilon", epsilon)
    delta = check_open_unit("delta", delta)
    bound = (math.log(1.0 / delta) + float(ln_h)) / epsilon
    if not math.isfinite(bound):
        raise ConfigError(f"The sample size for ln|H| = {ln_h:.4g} is too large to represent; use a smaller n.")
    return max(1, math.ceil(bound - 1e-9 * max(1.0, bound)))


def ln_boolean_functions(n: int) -> float:
    """ln|H| for all Boolean functions of n Boolean inputs: |H| = 2^(2^n), so ln|H| = 2^n ln 2."""
    n = check_whole("n", n, low=0, high=1000)
    return math.ldexp(math.log(2.0), n)


def ln_conjunctions(n: int) -> float:
    """ln|H| for conjunctions of literals over n Boolean inputs: each input appears positive,
    negated or not at all, |H| = 3^n, ln|H| = n ln 3."""
    return check_whole("n", n, low=0, high=10**9) * math.log(3.0)


def ln_decision_trees(n_nodes: int, d: int) -> float:
    """ln|H| for binary trees with at most n nodes over d features: ln|H| <= |T| ln 2.

    Counting argument: every such tree has a codeword of at most |T| = description_length(n, d)
    bits (|T| grows with n), and a prefix-free code has at most 2^|T| codewords that short
    (Kraft: sum 2^(-len) <= 1), so |H| <= 2^|T|.
    """
    return description_length(n_nodes, d) * math.log(2.0)


def ln_k_dl(n: int, k: int) -> float:
    """ln|H| bound for k-decision lists over n Boolean inputs (Russell & Norvig, ch. 19).

    A test is a conjunction of at most k of the 2n literals: |Conj(n, k)| = sum_{i=0..k} C(2n, i).
    A k-DL chooses for each test the outcome Yes, No or "not used" (3 ways) and an order of the
    tests (|Conj|! ways): |k-DL(n)| <= 3^|Conj| |Conj|!, so
        ln|k-DL(n)| <= |Conj| ln 3 + ln(|Conj|!) = |Conj| ln 3 + lgamma(|Conj| + 1).
    """
    n = check_whole("n", n, low=1, high=100_000)
    k = check_whole("k", k, low=0)
    conj = sum(math.comb(2 * n, i) for i in range(min(k, 2 * n) + 1))
    if conj > 1e300:
        raise ConfigError(f"There are too many conjunctions for n = {n}, k = {k}; use a smaller n or k.")
    c = float(conj)
    return c * math.log(3.0) + math.lgamma(c + 1.0)


def pac_table(*, n_values, epsilon: float, delta: float, k: int = 2, tree_nodes: int = 15) -> pd.DataFrame:
    """Long table of PAC sample sizes N as the number n of Boolean inputs grows.

    Classes: conjunctions (3^n), k-decision lists, trees of at most ``tree_nodes`` nodes over the n
    inputs, and all Boolean functions 2^(2^n). Trees are counted as the functions they compute, so
    their ln|H| is min(|T| ln 2, 2^n ln 2): no class exceeds all Boolean functions. Columns: n, hypothesis_class, ln_H, N (float64,
    exact for N < 2^53; N can exceed any integer type). ``n_values`` must be whole numbers >= 1.
    """
    values = sorted({check_whole("n", v, low=1, high=1000) for v in np.atleast_1d(np.asarray(n_values)).tolist()})
    if not values:
        raise ConfigError("n_values must contain at least one number of inputs.")
    check_open_unit("epsilon", epsilon)
    check_open_unit("delta", delta)
    k = check_whole("k", k, low=0)
    tree_nodes = check_whole("tree_nodes", tree_nodes, low=1, high=100_000)
    classes = {
        "Conjunctions (3^n)": ln_conjunctions,
        f"{k}-decision lists": lambda n: ln_k_dl(n, k),
        f"Trees with ≤ {tree_nodes} nodes": lambda n: min(ln_decision_trees(tree_nodes, n), ln_boolean_functions(n)),
        "All Boolean functions (2^(2^n))": ln_boolean_functions,
    }
    rows = []
    for name, ln_fn in classes.items():
        for n in values:
            ln_h = ln_fn(n)
            rows.append({"n": n, "hypothesis_class": name, "ln_H": ln_h,
                         "N": float(pac_sample_size(ln_h, epsilon, delta))})
    return pd.DataFrame(rows)


def tree_mdl_bound(tree, X, y, delta: float = 0.05) -> MDLBound:
    """:func:`mdl_error_bound` of a classification ``engine.tree.Tree`` on its training rows.

    n = tree.n_nodes, m = len(y), d = d' the tests a node can choose from (:func:`engine.prune.mdl.tree_tests`:
    m + 1 per real-valued feature, as the lecture notes reduce it), and L_S(T) = share of rows whose
    prediction differs from y (y as class codes or labels).
    """
    if tree.schema.task != "classification":
        raise ConfigError("The MDL bound is about the 0-1 error, so it needs a classification tree.")
    y = np.asarray(y)
    if y.ndim != 1 or y.size == 0:
        raise ConfigError(f"y must be a non-empty list of classes; got {y.size} values.")
    predicted = np.asarray(tree.predict(X))
    if predicted.shape != y.shape:
        raise ConfigError(f"X has {predicted.size} rows but y has {y.size}; give one class per row.")
    if np.issubdtype(y.dtype, np.integer) and not np.issubdtype(predicted.dtype, np.number):
        y = np.asarray(tree.schema.classes, dtype=object)[y]  # class codes -> labels
    error = float(np.mean(predicted.astype(str) != y.astype(str)))
    return mdl_error_bound(error, tree.n_nodes, tree_tests(tree, int(y.size)), int(y.size), delta)
