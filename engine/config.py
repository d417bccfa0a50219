"""Tree configuration: one frozen object, validated in one place.

Presets (``algorithm``) fill what is left ``None``:

=========  ===========  ===========  ==================  ======================================
preset     criterion    score        categorical split   numeric features
=========  ===========  ===========  ==================  ======================================
id3        entropy      gain         multiway            binarised at the best threshold x <= t
c45        entropy      gain_ratio   multiway            thresholds; Quinlan's average-gain filter
cart       gini         gain         subset (binary)     thresholds
=========  ===========  ===========  ==================  ======================================

Regression always uses ``variance``. ``split_search``: "exact" (every midpoint), "histogram" (bin edges,
``max_bins`` per feature; much faster on large data; nodes of at most ``max_bins`` rows are searched
exactly) or "auto" (histogram above ``histogram_above_rows``
rows, see :meth:`TreeConfig.resolved`). Stopping rules combine: a node becomes a leaf when it is pure, or
``depth == max_depth``, or it has fewer than ``min_samples_split`` rows, or no split leaves at least
``min_samples_leaf`` rows in every child, or the best gain is below ``min_gain`` or its weighted
decrease below ``min_impurity_decrease``, or the
split's chi-square test is not significant at ``chi2_alpha``, or (``validation=True``) the split does not
improve accuracy on the validation rows at the node, or ``max_leaf_nodes`` leaves exist already.

``min_impurity_decrease`` is scikit-learn's: a node is split only if ``w_node / w_root * gain`` (the
weighted impurity decrease N_t/N * (I - N_tL/N_t I_L - N_tR/N_t I_R)) reaches it. ``min_gain`` is the
lecture notes' "minimum gain at a node": the node's own gain must reach it.

``c45_rules`` (the C4.5 preset: all of :data:`engine.split.j48.C45_RULES`; the others: none) grows the
tree as Weka's J48 does, each rule switchable (see :mod:`engine.split.j48`); with any rule on,
``min_samples_leaf`` is J48's M, counted in case weight, and defaults to 2 on the C4.5 preset.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, fields, replace

from engine.checks import shown, whole
from engine.errors import ConfigError

# The impurity measures by name (engine.split.impurity.CRITERIA holds one Criterion for each of them).
CRITERION_NAMES = ("entropy", "gini", "misclassification", "variance")
ALGORITHMS = ("id3", "c45", "cart")
SCORES = ("gain", "gain_ratio")
CATEGORICAL_SPLITS = ("multiway", "subset", "equals")
ORDERS = ("breadth", "depth", "best")
SPLIT_SEARCHES = ("exact", "histogram", "auto")
#: J48's rules (engine.split.j48.C45_RULES, repeated here: config sits below the split package)
C45_RULES = ("min_split", "mdl", "value_threshold", "average_gain", "all_values")
PRESETS = {
    "id3": {"criterion": "entropy", "score": "gain", "categorical_split": "multiway"},
    "c45": {"criterion": "entropy", "score": "gain_ratio", "categorical_split": "multiway"},
    "cart": {"criterion": "gini", "score": "gain", "categorical_split": "subset"},
}
#: A row count no data set reaches (the loader stops at 2,000,000 rows unless told otherwise): the upper
#: limit of the settings that count rows or leaves.
MAX_COUNT = 1_000_000_000
#: (lowest, highest) of every whole-number setting. One place for these limits: TreeConfig refuses a
#: value outside them, the Grow page's inputs stop at them (ui/grow/settings.py) and a shared link
#: beyond them is refused with the warning every bad setting gets (ui/classroom/share.py).
INT_LIMITS = {
    "max_depth": (0, 10_000),
    "min_samples_split": (2, MAX_COUNT),
    "min_samples_leaf": (1, MAX_COUNT),
    "max_leaf_nodes": (2, MAX_COUNT),
    "max_bins": (2, 65_535),
    "histogram_above_rows": (0, MAX_COUNT),
    "random_state": (0, 2**63 - 1),
}


def _check_int(name, value, allow_none=False):
    low, high = INT_LIMITS[name]
    whole(name, value, low, high, allow_none=allow_none)


def _check_choice(name, value, allowed, allow_none=False):
    if value is None and allow_none:
        return
    if not isinstance(value, str) or value not in allowed:  # never truth-test arrays or pd.NA
        raise ConfigError(f"{name} must be one of {', '.join(allowed)}; got {shown(value)}.")


@dataclass(frozen=True)
class TreeConfig:
    """How to grow a tree. Keyword-only; every value is checked on construction."""

    algorithm: str = "cart"
    criterion: str | None = None
    score: str | None = None
    categorical_split: str | None = None
    max_depth: int | None = None
    min_samples_split: int = 2
    min_samples_leaf: int | None = None
    min_impurity_decrease: float = 0.0
    min_gain: float = 0.0
    c45_rules: tuple[str, ...] | None = None
    max_leaf_nodes: int | None = None
    chi2_alpha: float | None = None
    validation: bool = False
    order: str = "breadth"
    max_features: int | float | str | None = None
    random_state: int | None = None
    entropy_base: float = 2.0
    split_search: str = "exact"
    max_bins: int = 255
    histogram_above_rows: int = 100_000

    def __post_init__(self):
        _check_choice("algorithm", self.algorithm, ALGORITHMS)
        _check_choice("criterion", self.criterion, CRITERION_NAMES, allow_none=True)
        _check_choice("score", self.score, SCORES, allow_none=True)
        _check_choice("categorical_split", self.categorical_split, CATEGORICAL_SPLITS, allow_none=True)
        for name in ("max_depth", "min_samples_split", "min_samples_leaf", "max_leaf_nodes", "max_bins",
                     "histogram_above_rows", "random_state"):
            _check_int(name, getattr(self, name), allow_none=name in ("max_depth", "min_samples_leaf",
                                                                      "max_leaf_nodes", "random_state"))
        for name in ("min_impurity_decrease", "min_gain"):
            mid = getattr(self, name)
            if isinstance(mid, bool) or not isinstance(mid, numbers.Real) or not (mid >= 0) or mid == float("inf"):
                raise ConfigError(f"{name} must be a number >= 0; got {shown(mid)}.")
        rules = self.c45_rules
        if rules is not None:
            if isinstance(rules, str) or not isinstance(rules, (tuple, list)) \
                    or any(not isinstance(r, str) or r not in C45_RULES for r in rules):
                raise ConfigError(f"c45_rules must be None or a list drawn from {', '.join(C45_RULES)}; "
                                  f"got {shown(rules)}.")
            object.__setattr__(self, "c45_rules", tuple(r for r in C45_RULES if r in rules))
        a = self.chi2_alpha
        if a is not None and (isinstance(a, bool) or not isinstance(a, numbers.Real) or not 0 < a < 1):
            raise ConfigError(f"chi2_alpha must be between 0 and 1 (e.g. 0.05) or None; got {shown(a)}.")
        if not isinstance(self.validation, bool):
            raise ConfigError(f"validation must be True or False; got {shown(self.validation)}.")
        _check_choice("order", self.order, ORDERS)
        _check_choice("split_search", self.split_search, SPLIT_SEARCHES)
        b = self.entropy_base
        if isinstance(b, bool) or not isinstance(b, numbers.Real) or not b > 1 or b == float("inf"):
            raise ConfigError(f"entropy_base must be a number > 1 (2 for bits, e for nats); got {shown(b)}.")
        mf = self.max_features
        ok = (mf is None or (isinstance(mf, str) and mf in ("sqrt", "log2"))
              or (isinstance(mf, numbers.Integral) and not isinstance(mf, bool) and mf >= 1)
              or (isinstance(mf, numbers.Real) and not isinstance(mf, (bool, numbers.Integral)) and 0 < mf <= 1))
        if not ok:
            raise ConfigError(
                "max_features must be None, 'sqrt', 'log2', a whole number >= 1 or a fraction in (0, 1]; "
                f"got {shown(mf)}.")

    def resolved(self, task: str = "classification", n_rows: int | None = None) -> "TreeConfig":
        """The same configuration with the preset's defaults filled in for ``task``; ``split_search="auto"``
        becomes "histogram" when ``n_rows`` exceeds ``histogram_above_rows``, else "exact". Histogram search
        hands nodes of at most ``max_bins`` rows to the exact search, so it is not the slow path on deep
        trees either (measured 200k x 20: histogram 0.83x exact at full depth, 0.4x at depth 8).
        """
        preset = PRESETS[self.algorithm]
        criterion = self.criterion or preset["criterion"]
        if task == "regression":
            criterion = "variance"
        elif criterion == "variance":
            raise ConfigError("criterion 'variance' is for regression; the target here is a class.")
        search = self.split_search
        rules = self.c45_rules
        if rules is None:
            rules = C45_RULES if self.algorithm == "c45" and task == "classification" else ()
        if task != "classification":
            rules = ()
        score, cat = self.score or preset["score"], self.categorical_split or preset["categorical_split"]
        if rules and (score != "gain_ratio" or cat != "multiway"):
            raise ConfigError("J48's rules (c45_rules) choose among multiway splits by gain ratio; with "
                              f"score {score!r} and categorical split {cat!r} switch them off (c45_rules=()).")
        leaf = self.min_samples_leaf
        if leaf is None:
            leaf = 2 if self.algorithm == "c45" and rules else 1
        if search == "auto":
            search = "histogram" if n_rows is not None and n_rows > self.histogram_above_rows else "exact"
        return replace(
            self, criterion=criterion, score=self.score or preset["score"], split_search=search,
            categorical_split=self.categorical_split or preset["categorical_split"], c45_rules=rules,
            min_samples_leaf=leaf)

    @property
    def effective_order(self) -> str:
        """Expansion order actually used: ``max_leaf_nodes`` needs best-first growth."""
        return "best" if self.max_leaf_nodes is not None else self.order

    def n_features_to_draw(self, d: int) -> int:
        """How many features each node may consider (random forests), out of ``d``."""
        import math
        mf = self.max_features
        if mf is None:
            return d
        if mf == "sqrt":
            return max(1, int(math.sqrt(d)))
        if mf == "log2":
            return max(1, int(math.log2(d))) if d > 1 else 1
        if isinstance(mf, numbers.Integral):
            return min(d, int(mf))
        return max(1, int(mf * d))

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, d: dict) -> "TreeConfig":
        if not isinstance(d, dict):
            raise ConfigError(f"Tree settings must be a mapping of setting names to values; got {shown(d)}.")
        known = {f.name for f in fields(cls)}
        unknown = {k for k in d if not isinstance(k, str) or k not in known}
        if unknown:
            raise ConfigError(f"unknown setting(s): {', '.join(sorted(map(str, unknown)))}.")
        return cls(**d)


def tree_config(value, default=None, *, name: str = "tree_config"):
    """``value`` when it is a ``TreeConfig``; ``default`` (or ``TreeConfig()``) for None."""
    if value is None:
        return TreeConfig() if default is None else default
    if not isinstance(value, TreeConfig):
        raise ConfigError(f"{name} must be tree settings (a TreeConfig); got {shown(value)}.")
    return value
