"""Impurity measures against hand-computed textbook values and their binary special cases."""

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from engine.errors import ConfigError
from engine.split.impurity import (CRITERIA, binary_entropy, binary_gini, binary_misclassification, entropy,
                                   gini, impurity, misclassification, variance)


def test_play_tennis_root_entropy_is_0_940():
    # Mitchell, Machine Learning, p. 57: Entropy([9+, 5-]) = 0.940
    assert impurity([9, 5], "entropy") == pytest.approx(0.940286, abs=1e-6)
    assert round(impurity([9, 5], "entropy"), 3) == 0.940


@pytest.mark.parametrize("counts,expected", [([1, 1], 1.0), ([4, 0], 0.0), ([1, 1, 1, 1], 2.0), ([3, 3], 1.0)])
def test_entropy_exact_values(counts, expected):
    assert impurity(counts, "entropy") == expected


def test_entropy_in_nats():
    assert impurity([1, 1], "entropy", base=math.e) == pytest.approx(math.log(2))


def test_gini_and_misclassification_values():
    assert impurity([9, 5], "gini") == pytest.approx(1 - (9 / 14) ** 2 - (5 / 14) ** 2)
    assert impurity([2, 2, 4], "gini") == pytest.approx(0.625)
    assert impurity([9, 5], "misclassification") == pytest.approx(5 / 14)
    assert impurity([0, 0], "gini") == 0.0 and impurity([0, 0], "entropy") == 0.0


def test_variance_is_mean_squared_deviation():
    y = [1.0, 2.0, 4.0, 7.0]
    assert impurity(y, "variance") == pytest.approx(np.var(y))


@given(st.floats(0, 1))
def test_binary_forms_are_special_cases(p):
    counts = np.array([p, 1 - p])
    assert binary_entropy(p) == pytest.approx(entropy(counts), abs=1e-12)
    assert binary_gini(p) == pytest.approx(gini(counts), abs=1e-12)
    assert binary_gini(p) == pytest.approx(2 * p * (1 - p), abs=1e-12)
    assert binary_misclassification(p) == pytest.approx(misclassification(counts), abs=1e-12)
    assert binary_misclassification(p) == pytest.approx(min(p, 1 - p), abs=1e-12)


@given(st.lists(st.integers(0, 50), min_size=2, max_size=6))
def test_vectorised_forms_match_scalar(counts):
    c = np.array(counts, dtype=float)
    stacked = np.stack([c, c[::-1]])
    for name in ("entropy", "gini", "misclassification"):
        v = CRITERIA[name].from_stats(stacked)
        assert v[0] == pytest.approx(impurity(counts, name))
        assert v[1] == pytest.approx(impurity(counts, name))  # symmetric in class order
        assert v[0] >= 0


@given(st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=30))
def test_variance_stats_agree_with_numpy(values):
    y = np.array(values)
    stats = np.array([y.size, y.sum(), (y ** 2).sum()])
    assert variance(stats) == pytest.approx(np.var(y), rel=1e-6, abs=1e-6)


def test_bad_criterion_and_counts():
    with pytest.raises(ConfigError, match="criterion must be one of"):
        impurity([1, 2], "chaos")
    with pytest.raises(ConfigError, match="non-negative"):
        impurity([-1, 2], "gini")
