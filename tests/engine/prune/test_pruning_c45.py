"""C4.5 pessimistic pruning: J48's upper confidence limits against hand computation, Quinlan's example, raising."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import engine
from engine.errors import ConfigError
from engine.prune.pessimistic import (added_errors, c45_node_table, estimated_errors, prune_pessimistic,
                                      upper_error_rate)
from engine.tree.surgery import refit

Z75 = 0.6744897501960817  # Phi^{-1}(0.75), the z of CF = 0.25 (normal tables: 0.6745)


def test_zero_errors_use_the_exact_binomial_limit():
    # U_CF(0, N) solves (1 - U)^N = CF: U = 1 - CF^(1/N)
    assert upper_error_rate(6, 0) == pytest.approx(0.206299, abs=1e-6)   # Quinlan: 0.206
    assert estimated_errors(6, 0) == pytest.approx(1.237797, abs=1e-6)   # 6 * 0.206 = 1.24 errors
    assert added_errors(6, 0) == pytest.approx(6 * (1 - 0.25 ** (1 / 6)))
    assert upper_error_rate(9, 0) == pytest.approx(0.142756, abs=1e-6)   # Quinlan: 0.143
    assert upper_error_rate(1, 0) == 0.75                                # Quinlan: 0.750
    assert upper_error_rate(2, 0, cf=0.5) == pytest.approx(1 - math.sqrt(0.5))


def test_wilson_upper_limit_by_hand():
    # e = 1, N = 16, CF = 0.25: f = 1.5/16 = 0.09375
    n, e, z = 16, 1, Z75
    f = (e + 0.5) / n
    inner = f / n - f * f / n + z * z / (4 * n * n)          # 0.0058594 - 0.0005493 + 0.0004443 = 0.0057544
    assert inner == pytest.approx(0.0057544, abs=1e-7)
    r = (f + z * z / (2 * n) + z * math.sqrt(inner)) / (1 + z * z / n)   # 0.159133 / 1.028434 = 0.154733
    assert r == pytest.approx(0.154733, abs=1e-6)
    assert estimated_errors(16, 1) == pytest.approx(r * n) == pytest.approx(2.475715, abs=1e-6)
    # CF = 0.5 gives z = 0: U = (e + 0.5) / N exactly (the continuity correction alone)
    assert estimated_errors(10, 2, cf=0.5) == pytest.approx(2.5)


def test_interpolation_and_the_high_end():
    base = 16 * (1 - 0.25 ** (1 / 16))
    assert added_errors(16, 0.5) == pytest.approx(base + 0.5 * (2.475715 - 1 - base), abs=1e-6)
    assert added_errors(6, 5.6) == pytest.approx(0.4) and estimated_errors(6, 5.6) == pytest.approx(6.0)
    assert added_errors(0, 0) == 0.0 and estimated_errors(0, 0) == 0.0 and math.isnan(upper_error_rate(0, 0))
    for bad in (0, 0.6, -0.1, "0.25", True):
        with pytest.raises(ConfigError, match="confidence factor CF"):
            added_errors(6, 0, cf=bad)


def quinlan_tree():
    """Quinlan (1993, sec. 4.2): a test whose three leaves cover 6, 9 and 1 rows, none misclassified; 15 vs 1."""
    frame = pd.DataFrame({"education": ["n"] * 6 + ["y"] * 9 + ["u"],
                          "party": ["democrat"] * 15 + ["republican"]})
    ds = engine.Dataset.from_frame(frame, target="party", kinds={"education": "categorical"})
    tree = engine.fit_tree(ds, engine.TreeConfig(algorithm="id3"))
    assert [n.stats for n in tree.leaves] == [(6.0, 0.0), (0.0, 1.0), (9.0, 0.0)]
    return ds, tree


def test_quinlans_example_is_pruned_to_a_leaf():
    ds, tree = quinlan_tree()
    subtree = 6 * (1 - 0.25 ** (1 / 6)) + 9 * (1 - 0.25 ** (1 / 9)) + 0.75   # 1.238 + 1.285 + 0.750 = 3.273
    assert subtree == pytest.approx(3.2726, abs=1e-4)
    table = c45_node_table(tree).set_index("node")
    assert table.loc[0, "N"] == 16 and table.loc[0, "E"] == 1
    assert table.loc[0, "leaf_estimate"] == pytest.approx(2.475715, abs=1e-6)
    assert table.loc[0, "subtree_estimate"] == pytest.approx(subtree)
    assert table.loc[tree.leaves[0].id, "U"] == pytest.approx(0.206299, abs=1e-6)
    res = prune_pessimistic(tree)
    assert res.tree.n_nodes == 1 and res.is_subtree
    (step,) = res.steps
    assert step.action == "replace by leaf" and step.number("subtree estimate") == pytest.approx(subtree)
    assert step.number("leaf estimate") == pytest.approx(2.475715, abs=1e-6)
    assert res.node_table.set_index("node").loc[0, "decision"] == "replace by leaf"
    # CF = 0.5 (z = 0): the leaf's estimate is the continuity-corrected 1.5 errors, still below the subtree's
    loose = prune_pessimistic(tree, cf=0.5).steps[0]
    assert loose.number("leaf estimate") == pytest.approx(1.5)
    assert loose.number("subtree estimate") == pytest.approx(
        6 * (1 - 0.5 ** (1 / 6)) + 9 * (1 - 0.5 ** (1 / 9)) + 0.5)


def test_collapse_cuts_subtrees_that_do_not_reduce_training_errors():
    ds = engine.load_sample("titanic_small")
    tree = engine.fit_tree(ds, engine.TreeConfig(algorithm="c45"))
    res = prune_pessimistic(tree, collapse=True)
    for s in res.steps:
        if s.action == "collapse":
            assert s.number("E subtree") >= s.number("E leaf") - 1e-3
    plain = prune_pessimistic(tree, collapse=False)
    assert all(s.action != "collapse" for s in plain.steps) and plain.is_subtree and res.is_subtree


def raising_tree():
    """Root forced on a (90 rows vs 10); y = (b > 0.5) everywhere, so each side splits on b."""
    a = np.array([0] * 90 + [1] * 10)
    b = np.array([0.2] * 45 + [0.8] * 45 + [0.2] * 5 + [0.8] * 5)
    ds = engine.Dataset.from_frame(pd.DataFrame({"a": a, "b": b, "y": np.where(b > 0.5, "yes", "no")}), target="y")
    grower = engine.Grower(ds, engine.TreeConfig(algorithm="cart"))
    grower.expand(0, next(s for s in grower.candidates(0) if s.feature == "a"))
    tree = grower.grow().tree
    assert [(n.split.feature if n.split else n.stats) for n in tree.walk()] == [
        "a", "b", (45.0, 0.0), (0.0, 45.0), "b", (5.0, 0.0), (0.0, 5.0)]
    return ds, tree


def test_subtree_raising_by_hand():
    ds, tree = raising_tree()
    assert prune_pessimistic(tree).tree.n_nodes == 7  # without raising nothing is cut
    res = prune_pessimistic(tree, subtree_raising=True, train=ds)
    assert [s.action for s in res.steps] == ["keep", "keep", "raise child 0 (node 1)", "keep"]
    raise_step = res.steps[2]
    subtree = 2 * 45 * (1 - 0.25 ** (1 / 45)) + 2 * 5 * (1 - 0.25 ** (1 / 5))    # 2.730 + 2.421 = 5.152
    branch = 2 * 50 * (1 - 0.25 ** (1 / 50))                                       # all 100 rows: 2.735
    assert raise_step.number("subtree estimate") == pytest.approx(subtree)
    assert raise_step.number("largest branch estimate") == pytest.approx(branch)
    pruned = res.tree
    assert pruned.root.split.feature == "b" and [n.stats for n in pruned.leaves] == [(50.0, 0.0), (0.0, 50.0)]
    assert pruned.root.stats == (50.0, 50.0) and not res.is_subtree
    assert dict(res.summary)["estimated errors after"] == pytest.approx(branch)
    again = refit(pruned, ds.X, ds.y)  # numbers already follow the re-routed rows
    assert [n.stats for n in again.walk()] == [n.stats for n in pruned.walk()]
    assert np.mean(pruned.predict(ds.X) == np.where(ds.X[:, 1] > 0.5, "yes", "no")) == 1.0
    assert "then keep" in res.node_table.set_index("node").loc[0, "decision"]


def test_raising_needs_training_rows_and_classification():
    ds, tree = raising_tree()
    with pytest.raises(ConfigError, match="training rows"):
        prune_pessimistic(tree, subtree_raising=True)
    reg = engine.load_sample("diabetes")
    with pytest.raises(ConfigError, match="classification tree"):
        prune_pessimistic(engine.fit_tree(reg, engine.TreeConfig(max_depth=2)))


def test_pessimistic_pruning_on_samples_never_mutates_and_prunes_noise():
    ds = engine.load_sample("noisy_moons")
    tree = engine.fit_tree(ds)
    before = tree.to_dict()
    for raising in (False, True):
        res = prune_pessimistic(tree, subtree_raising=raising, train=ds)
        assert tree.to_dict() == before
        assert res.tree.n_leaves < tree.n_leaves / 2
        assert res.is_subtree or raising
        summary = dict(res.summary)
        assert summary["estimated errors after"] < summary["estimated errors before"]


# ----- subtree raising decided a depth at a time (engine/prune/raising.py) equals node by node ----------
def _raising_cases():
    from tests.engine.test_j48_oracle_large import generated
    return {
        "numeric": generated(3000, 5, 3, 11, noise=0.1),
        "categorical": generated(3000, 5, 4, 12, noise=0.1, categorical=2),
        "missing": generated(3000, 5, 3, 13, noise=0.1, missing=0.05, categorical=2),
        "missing_heavy": generated(1500, 5, 5, 14, noise=0.1, missing=0.2, categorical=1),
        "titanic_small": engine.load_sample("titanic_small"),
        "golf": engine.load_sample("golf"),
    }


@pytest.mark.parametrize("name", ["numeric", "categorical", "missing", "missing_heavy", "titanic_small", "golf"])
@pytest.mark.parametrize("cf", [0.25, 0.5])
def test_raising_by_depth_equals_node_by_node(name, cf, monkeypatch):
    from engine.prune import pessimistic
    from engine.prune.raising import Routes
    ds = _raising_cases()[name]
    tree = engine.fit_tree(ds, engine.TreeConfig(algorithm="c45", min_samples_leaf=1))
    fast = pessimistic.prune_pessimistic(tree, cf=cf, subtree_raising=True, train=ds)
    monkeypatch.setattr(Routes, "usable", staticmethod(lambda draft: False))
    slow = pessimistic.prune_pessimistic(tree, cf=cf, subtree_raising=True, train=ds)
    assert fast.tree.to_dict() == slow.tree.to_dict()
    assert sorted((s.node_id, s.action) for s in fast.steps) == sorted((s.node_id, s.action) for s in slow.steps)
    for a, b in zip(sorted(fast.steps, key=lambda s: (s.node_id, s.index)),
                    sorted(slow.steps, key=lambda s: (s.node_id, s.index))):
        assert dict(a.numbers) == pytest.approx(dict(b.numbers), abs=1e-9)


def test_largest_branch_of_equal_weights_is_the_last():
    """J48's Distribution.maxBag: of equally heavy branches the last one is raised."""
    from engine.prune.pessimistic import _max_bag
    assert _max_bag([5.0, 5.0]) == 1
    assert _max_bag([5.0, 5.0 - 1e-9, 3.0]) == 1
    assert _max_bag([6.0, 5.0]) == 0
    assert _max_bag([1.0, 3.0, 3.0, 2.0]) == 2
