"""Tests of engine.teach.theory and engine.viz.theory_figs: hand-computed values, invariants, validation."""

from __future__ import annotations

import math
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import ConfigError
from engine.teach.theory import (CRITERIA_COMPARED, description_length, impurity_curves, ln_boolean_functions,
                                 ln_conjunctions, ln_decision_trees, ln_k_dl, node_share, pac_sample_size,
                                 pac_table, split_gains, tree_mdl_bound, zero_gain_example)
from engine.prune.mdl import MDLBound, mdl_error_bound
from engine.viz.theory_figs import gains_figure, impurity_curves_figure, pac_figure, split_chords_figure


# ----------------------------------------------------------------- private oracles (test-only)
def _entropy(counts) -> float:
    c = np.asarray(counts, dtype=float)
    p = c[c > 0] / c.sum()
    return float(-(p * np.log2(p)).sum())


def _gini(counts) -> float:
    c = np.asarray(counts, dtype=float)
    return float(1.0 - ((c / c.sum()) ** 2).sum())


def _misclass_fraction(counts) -> Fraction:
    return Fraction(int(sum(counts) - max(counts)), int(sum(counts)))


# ----------------------------------------------------------------- impurity curves
def test_curves_columns_and_textbook_values():
    curves = impurity_curves(201)
    assert list(curves.columns) == ["p", "misclassification", "entropy", "entropy_half", "gini"]
    assert len(curves) == 201 and curves["p"].iloc[0] == 0.0 and curves["p"].iloc[-1] == 1.0
    mid = curves.iloc[100]
    assert mid["p"] == pytest.approx(0.5)
    assert mid["entropy"] == pytest.approx(1.0) and mid["entropy_half"] == pytest.approx(0.5)
    assert mid["gini"] == pytest.approx(0.5) and mid["misclassification"] == pytest.approx(0.5)
    assert curves.iloc[[0, -1]][["misclassification", "entropy", "gini"]].to_numpy().max() == 0.0
    p = curves["p"].to_numpy()
    np.testing.assert_allclose(curves["gini"], 2 * p * (1 - p), atol=1e-12)
    np.testing.assert_allclose(curves["misclassification"], np.minimum(p, 1 - p), atol=1e-12)
    np.testing.assert_allclose(curves["entropy_half"], curves["entropy"] / 2)
    # H(1/4) = 2 - (3/4) log2 3, by hand
    assert impurity_curves(5)["entropy"].iloc[1] == pytest.approx(2 - 0.75 * math.log2(3))


@pytest.mark.parametrize("bad", [1, 0, -3, 2.5, "10", True, 10**7])
def test_curves_reject_bad_point_counts(bad):
    with pytest.raises(ConfigError, match="n_points"):
        impurity_curves(bad)


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=400).map(lambda k: 2 * k + 1))
def test_curves_symmetric_and_ordered(n_points):
    curves = impurity_curves(n_points)
    for col in ["misclassification", "entropy", "entropy_half", "gini"]:
        np.testing.assert_allclose(curves[col].to_numpy(), curves[col].to_numpy()[::-1], atol=1e-12)
    # true inequalities: H(p) >= 4p(1-p) = 2 gini >= 2 min(p, 1-p); gini >= misclassification
    assert np.all(curves["entropy"] >= 2 * curves["gini"] - 1e-12)
    assert np.all(curves["gini"] >= curves["misclassification"] - 1e-12)
    assert np.all(curves["entropy"] >= 2 * curves["misclassification"] - 1e-12)
    assert np.all(curves[["misclassification", "entropy_half", "gini"]].to_numpy() <= 0.5 + 1e-12)


# ----------------------------------------------------------------- split gains
def test_zero_gain_example_exact_values():
    ex = zero_gain_example()
    assert ex.parent == (40, 20) and ex.left == (10, 0) and ex.right == (30, 20)
    assert repr(ex) == "GainExample(parent=(40, 20), left=(10, 0), right=(30, 20))"
    g = ex.gains().set_index("criterion")
    assert list(g.index) == list(CRITERIA_COMPARED)
    assert g.loc["misclassification", "gain"] == 0.0
    # Fraction oracle: 20/60 - (10/60 * 0 + 50/60 * 20/50) is exactly zero
    exact = _misclass_fraction(ex.parent) - (Fraction(10, 60) * _misclass_fraction(ex.left)
                                             + Fraction(50, 60) * _misclass_fraction(ex.right))
    assert exact == 0
    h = lambda p: -p * math.log2(p) - (1 - p) * math.log2(1 - p)  # noqa: E731
    assert g.loc["entropy", "parent"] == pytest.approx(h(2 / 3))
    assert g.loc["entropy", "right"] == pytest.approx(h(0.6))
    assert g.loc["entropy", "gain"] == pytest.approx(h(2 / 3) - 5 / 6 * h(0.6))
    assert g.loc["entropy", "gain"] == pytest.approx(0.10917, abs=1e-5)
    assert g.loc["gini", "parent"] == pytest.approx(4 / 9)
    assert g.loc["gini", "weighted_children"] == pytest.approx(0.4)
    assert g.loc["gini", "gain"] == pytest.approx(2 / 45)
    assert g.loc["gini", "arithmetic"] == (
        "I(40, 20) - [10/60 × I(10, 0) + 50/60 × I(30, 20)] = 0.4444 - "
        "[10/60 × 0.0000 + 50/60 × 0.4800] = 0.4444 - 0.4000 = 0.0444"
    )


def test_three_classes_match_oracle():
    g = split_gains([5, 7, 8], [4, 1, 2]).set_index("criterion")
    right = [1, 6, 6]
    for name, fn in [("entropy", _entropy), ("gini", _gini)]:
        expected = fn([5, 7, 8]) - (7 / 20 * fn([4, 1, 2]) + 13 / 20 * fn(right))
        assert g.loc[name, "gain"] == pytest.approx(expected)
        assert g.loc[name, "right"] == pytest.approx(fn(right))
    assert g.loc["misclassification", "gain"] == pytest.approx(12 / 20 - (3 + 7) / 20)


counts_pair = st.lists(st.integers(0, 60), min_size=2, max_size=4).flatmap(
    lambda parent: st.tuples(st.just(parent), st.tuples(*[st.integers(0, c) for c in parent]))
).filter(lambda pl: 0 < sum(pl[1]) < sum(pl[0]))


@settings(max_examples=200, deadline=None)
@given(counts_pair)
def test_gains_nonnegative_and_concavity(pair):
    parent, left = pair
    right = [p - l for p, l in zip(parent, left)]
    g = split_gains(parent, list(left)).set_index("criterion")
    assert np.all(g["gain"] >= -1e-12)
    n, nl = sum(parent), sum(left)
    lp = np.array(left) / nl
    rp = np.array(right) / (n - nl)
    if np.abs(lp - rp).max() > 1e-9:  # strict concavity: different children -> positive gain
        assert g.loc["entropy", "gain"] > 0 and g.loc["gini", "gain"] > 0
    # misclassification: zero exactly when both children keep the parent's (unique) majority class
    major = int(np.argmax(parent))
    unique = lambda c: sorted(c)[-1] > sorted(c)[-2]  # noqa: E731
    if unique(parent) and unique(left) and unique(right) and np.argmax(left) == np.argmax(right) == major:
        assert g.loc["misclassification", "gain"] == 0.0
    oracle = _entropy(parent) - (nl * _entropy(left) + (n - nl) * _entropy(right)) / n
    assert g.loc["entropy", "gain"] == pytest.approx(oracle, abs=1e-9)


@pytest.mark.parametrize("parent, left, match", [
    ([40, 20], [10, -1], "non-negative whole numbers"),
    ([40, 20], [10.5, 0], "non-negative whole numbers"),
    ([40, 20], [50, 0], "cannot exceed"),
    ([40, 20], [0, 0], "left child is empty"),
    ([40, 20], [40, 20], "right child is empty"),
    ([40, 20], [10, 0, 1], "one count per class"),
    ([40], [10], "at least two classes"),
    (["a", "b"], [1, 0], "must contain numbers"),
    ([40, float("nan")], [1, 0], "non-negative whole numbers"),
])
def test_split_gains_validation(parent, left, match):
    with pytest.raises(ConfigError, match=match):
        split_gains(parent, left)


# ----------------------------------------------------------------- PAC
def test_pac_hand_computed():
    # conjunctions over n=10: ln|H| = 10 ln 3 = 10.986; (ln 20 + 10.986) / 0.1 = 139.8 -> 140
    assert pac_sample_size(ln_conjunctions(10), 0.1, 0.05) == 140
    # all Boolean functions of 2 inputs: |H| = 16; (ln 20 + ln 16) / 0.1 = 57.7 -> 58
    assert ln_boolean_functions(2) == pytest.approx(math.log(16))
    assert pac_sample_size(ln_boolean_functions(2), 0.1, 0.05) == 58
    # an exact integer bound is not rounded up: (ln(1/e^-2) + 0) / 0.5 = 4
    assert pac_sample_size(0.0, 0.5, math.exp(-2)) == 4
    # 1-DL over 2 inputs: |Conj| = C(4,0) + C(4,1) = 5; ln|H| = 5 ln 3 + ln 5!
    assert ln_k_dl(2, 1) == pytest.approx(5 * math.log(3) + math.log(120))
    assert ln_k_dl(2, 9) == pytest.approx(ln_k_dl(2, 4))  # k beyond 2n adds nothing
    assert ln_decision_trees(7, 4) == pytest.approx(48 * math.log(2))


def test_ln_sizes_never_overflow():
    assert ln_boolean_functions(200) == pytest.approx(2.0**200 * math.log(2))
    assert math.isfinite(ln_boolean_functions(1000))
    assert math.isfinite(ln_k_dl(1000, 3))
    assert pac_sample_size(ln_boolean_functions(100), 0.01, 0.01) > 10**31


@settings(max_examples=100, deadline=None)
@given(st.floats(0, 1e6), st.floats(0.001, 0.999), st.floats(0.001, 0.999))
def test_pac_is_smallest_integer_meeting_bound(ln_h, eps, delta):
    n = pac_sample_size(ln_h, eps, delta)
    bound = (math.log(1 / delta) + ln_h) / eps
    assert n >= bound * (1 - 1e-9) and (n - 1 < bound or n == 1)


@pytest.mark.parametrize("call, match", [
    (lambda: pac_sample_size(3.0, 0.0, 0.05), r"epsilon must be between 0 and 1 \(exclusive\); got 0.0."),
    (lambda: pac_sample_size(3.0, 0.1, 1.5), r"delta must be between 0 and 1 \(exclusive\); got 1.5."),
    (lambda: pac_sample_size(-1.0, 0.1, 0.5), "ln_h"),
    (lambda: pac_sample_size(float("inf"), 0.1, 0.5), "ln_h"),
    (lambda: ln_boolean_functions(-1), "n must be between 0 and 1000"),
    (lambda: ln_k_dl(0, 1), "n must be between"),
    (lambda: ln_k_dl(3, 1.5), "k must be a whole number"),
    (lambda: pac_table(n_values=[], epsilon=0.1, delta=0.1), "at least one"),
    (lambda: pac_table(n_values=[0, 3], epsilon=0.1, delta=0.1), "n must be between 1"),
])
def test_pac_validation(call, match):
    with pytest.raises(ConfigError, match=match):
        call()


def test_pac_table_shape_and_consistency():
    table = pac_table(n_values=[3, 1, 2, 8], epsilon=0.1, delta=0.05, k=2, tree_nodes=7)
    assert list(table.columns) == ["n", "hypothesis_class", "ln_H", "N"]
    assert table["hypothesis_class"].nunique() == 4 and len(table) == 16
    for _, row in table.iterrows():
        assert row["N"] == pac_sample_size(row["ln_H"], 0.1, 0.05)
    wide = table.pivot(index="n", columns="hypothesis_class", values="ln_H")
    assert list(wide.index) == [1, 2, 3, 8]
    assert (wide.diff().dropna() >= 0).all().all()  # N grows with n for every class
    boolean = wide["All Boolean functions (2^(2^n))"]
    assert (wide["Trees with ≤ 7 nodes"] <= boolean + 1e-9).all()
    assert wide.loc[8, "Trees with ≤ 7 nodes"] == pytest.approx(ln_decision_trees(7, 8))


# ----------------------------------------------------------------- MDL
def test_description_length_by_hand():
    assert description_length(7, 4) == 35 + 1 + 6 * 2
    assert description_length(1, 10) == 6
    assert description_length(3, 1) == 16  # one feature: no bits to name it
    assert description_length(5, 5) == 25 + 1 + 4 * 3


def test_mdl_bound_by_hand_and_repr():
    b = mdl_error_bound(0.1, 7, 4, 100, delta=0.05)
    slack = math.sqrt((48 + math.log(40)) / 200)
    assert b.description_length == 48 and b.slack == pytest.approx(slack) and slack == pytest.approx(0.50837, abs=1e-5)
    assert b.bound == pytest.approx(0.1 + slack) and not b.vacuous
    assert repr(b) == ("MDLBound(bound=0.6084, train_error=0.1, slack=0.5084, description_length=48, "
                       "n_nodes=7, d=4, m=100, delta=0.05)")
    assert b.arithmetic() == "0.1000 + sqrt((48 + ln(2/0.05)) / (2 × 100)) = 0.1000 + 0.5084 = 0.6084"
    with pytest.raises(AttributeError):
        b.bound = 0.0  # frozen
    assert mdl_error_bound(0.0, 31, 8, 10).vacuous
    assert mdl_error_bound(0.2, 3, 2, 10**6).bound == pytest.approx(0.2, abs=0.01)


@pytest.mark.parametrize("args, match", [
    ((0.1, 7, 4, 100, 1.5), r"^delta must be between 0 and 1 \(exclusive\); got 1.5.$"),
    ((1.2, 7, 4, 100), "train_error must be between 0 and 1"),
    ((0.1, 0, 4, 100), "n_nodes must be at least 1"),
    ((0.1, 3, 0, 100), "d must be at least 1"),
    ((0.1, 3, 2, 0), "m must be at least 1"),
    ((0.1, 3.5, 2, 10), "n_nodes must be a whole number"),
])
def test_mdl_validation(args, match):
    with pytest.raises(ConfigError, match=match):
        mdl_error_bound(*args)


def _fake_tree(predictions, classes=("no", "yes"), task="classification", stats=(9.0, 5.0)):
    schema = SimpleNamespace(task=task, classes=classes, feature_names=("a", "b", "c"),
                             kinds=("numeric", "categorical", "categorical"), categories=((), ("u", "v"), ("p", "q", "r")))
    return SimpleNamespace(schema=schema, n_nodes=5, predict=lambda X: np.asarray(predictions, dtype=object),
                           node=lambda i: SimpleNamespace(stats=stats), walk=lambda: iter(()))


def test_tree_mdl_bound_with_codes_and_labels():
    tree = _fake_tree(["no", "yes", "yes", "no"])
    by_codes = tree_mdl_bound(tree, None, np.array([0, 1, 0, 0]))
    # d' = (m + 1) for the real-valued a + 1 test b = u + 3 tests c = v (binary tests x = v: no multiway node)
    assert by_codes.train_error == 0.25 and by_codes.m == 4 and by_codes.d == 5 + 1 + 3 and by_codes.n_nodes == 5
    assert by_codes == mdl_error_bound(0.25, 5, 9, 4)
    assert tree_mdl_bound(tree, None, ["no", "yes", "yes", "no"], delta=0.1).train_error == 0.0
    with pytest.raises(ConfigError, match="classification tree"):
        tree_mdl_bound(_fake_tree([1.0], task="regression"), None, [1.0])
    with pytest.raises(ConfigError, match="one class per row"):
        tree_mdl_bound(tree, None, [0, 1])


def test_binary_tests_count_thresholds_and_categorical_tests():
    from engine.prune.mdl import binary_tests, description_length, tree_tests
    assert binary_tests(["numeric"] * 4, [0] * 4, 150) == 4 * 151                  # iris: d' = d (m + 1)
    assert binary_tests(["categorical"] * 2, [3, 2], 14, "equals") == 3 + 1
    assert binary_tests(["categorical"] * 2, [4, 2], 14, "subset") == 7 + 1
    assert binary_tests(["categorical"] * 2, [4, 2], 14, "multiway") == 2
    iris = pytest.importorskip("engine").load_sample("iris")
    tree = pytest.importorskip("engine").fit_tree(iris)
    bound = tree_mdl_bound(tree, iris.X, iris.y)
    assert bound.d == tree_tests(tree, 150) == 604
    assert bound.description_length == description_length(tree.n_nodes, 604) == 5 * tree.n_nodes + 1 + (tree.n_nodes - 1) * 10


def test_node_share():
    assert node_share(_fake_tree([], stats=(9.0, 5.0)), 0) == pytest.approx(9 / 14)
    assert node_share(_fake_tree([], classes=("a", "b", "c"), stats=(1.0, 1.0, 1.0)), 0) is None


def test_real_tree_bound_matches_hand_count():
    growth = pytest.importorskip("engine.grow.grower")
    data = pytest.importorskip("engine.data")
    frame = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6, 7, 8], "z": [0, 1, 0, 1, 0, 1, 0, 1],
                          "y": ["a", "a", "a", "b", "b", "b", "b", "a"]})
    ds = data.Dataset.from_frame(frame, target="y")
    tree = growth.fit_tree(ds)
    b = tree_mdl_bound(tree, ds.X, ds.y)
    predicted = np.asarray(tree.predict(ds.X)).astype(str)
    expected_error = float(np.mean(predicted != np.asarray(ds.classes)[ds.y]))
    assert b == mdl_error_bound(expected_error, tree.n_nodes, 2 * (8 + 1), 8)    # two real-valued features
    assert node_share(tree, 0) == pytest.approx(4 / 8)


# ----------------------------------------------------------------- figures
def test_figures():
    fig = impurity_curves_figure(marked_p=0.3)
    assert [t.name for t in fig.data][:4] == ["Misclassification min(p, 1−p)", "Entropy H(p) (bits)",
                                              "Entropy / 2", "Gini 2p(1−p)"]
    marker = fig.data[-1]
    np.testing.assert_allclose(marker.y, [0.3, _entropy([3, 7]), _entropy([3, 7]) / 2, 0.42])
    assert fig.layout.shapes[0].x0 == 0.3
    assert len(impurity_curves_figure().data) == 4
    ex = zero_gain_example()
    gains = ex.gains()
    bars = gains_figure(gains).data[0]
    np.testing.assert_allclose(bars.y, gains["gain"])
    chords = split_chords_figure(ex.parent, ex.left)
    gaps = [t for t in chords.data if t.marker.symbol == "diamond"]
    g = gains.set_index("criterion")["gain"]
    assert [abs(t.y[1] - t.y[0]) for t in gaps] == pytest.approx([g["misclassification"], g["entropy"] / 2, g["gini"]])
    with pytest.raises(ConfigError):
        split_chords_figure([1, 2, 3], [1, 0, 0])
    pac = pac_figure(pac_table(n_values=range(1, 6), epsilon=0.1, delta=0.05))
    assert pac.layout.yaxis.type == "log" and len(pac.data) == 4
