"""The C4.5 preset's level-wise growth (engine.grow.c45grow) gives exactly the tree, history, row sets and
gain tables that stepping node by node gives: numeric, categorical and missing-value data, case weights,
J48's rules one by one, and the app's use (some steps by hand, then Grow to end; undo)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import engine
from engine.grow.fastgrow import fast_eligible
from tests.engine.grow.test_fastgrow import stepped
from tests.engine.test_j48_oracle_large import generated

RULES = ("min_split", "mdl", "value_threshold", "average_gain", "all_values")


def assert_identical(fast, slow):
    a, b = fast.tree.to_dict(), slow.tree.to_dict()
    assert a == b
    assert [(r.action, r.node_id, r.children, r.stopped) for r in fast.history] == \
        [(r.action, r.node_id, r.children, r.stopped) for r in slow.history]
    for nid in range(len(fast.tree.nodes)):
        ia, wa = fast.node_rows(nid)
        ib, wb = slow.node_rows(nid)
        assert np.array_equal(ia, ib) and np.array_equal(wa, wb)


DATA = {
    "numeric": dict(n=1500, d=5, k=3, seed=1),
    "categorical": dict(n=1500, d=5, k=4, seed=2, categorical=2),
    "missing": dict(n=1500, d=5, k=3, seed=3, missing=0.06, categorical=2),
    "missing_heavy": dict(n=800, d=5, k=5, seed=4, missing=0.25, categorical=1),
}


@pytest.mark.parametrize("name", list(DATA))
@pytest.mark.parametrize("rules", [None, (), *[tuple(r for r in RULES if r != off) for off in RULES]])
def test_levelwise_equals_stepping(name, rules):
    ds = generated(**DATA[name])
    cfg = engine.TreeConfig(algorithm="c45", c45_rules=rules) if rules is not None else \
        engine.TreeConfig(algorithm="c45")
    fast = engine.Grower(ds, cfg)
    if not cfg.resolved(ds.task, len(ds)).c45_rules:
        return                      # no J48 rule: the other level-wise grower's business
    assert fast_eligible(fast)
    fast.grow()
    assert_identical(fast, stepped(ds, cfg))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([0.0, 0.1, 0.3]), st.integers(0, 2), st.integers(1, 5),
       st.booleans())
def test_levelwise_equals_stepping_random(seed, missing, categorical, m, weighted):
    ds = generated(300, 5, 3, seed, missing=missing, categorical=categorical, noise=0.1)
    cfg = engine.TreeConfig(algorithm="c45", min_samples_leaf=m)
    w = np.random.default_rng(seed).integers(0, 4, size=len(ds)).astype(float) if weighted else None
    if w is not None and w.sum() == 0:
        w[0] = 1.0
    fast = engine.Grower(ds, cfg, sample_weight=w)
    assert fast_eligible(fast)
    fast.grow()
    assert_identical(fast, stepped(ds, cfg, w))


@pytest.mark.parametrize("sample", ["golf", "titanic_small", "play_tennis", "restaurant", "iris", "breast_cancer"])
def test_samples_levelwise_equals_stepping(sample):
    ds = engine.load_sample(sample)
    cfg = engine.TreeConfig(algorithm="c45")
    fast = engine.Grower(ds, cfg).grow()
    slow = stepped(ds, cfg)
    assert_identical(fast, slow)
    for nid in (0, *fast.tree.nodes[0].children):     # gain tables read the same numbers
        assert fast.gain_table(nid).equals(slow.gain_table(nid))


def test_steps_by_hand_then_grow_to_end_and_undo():
    """The Grow page: a few steps, then Grow to end, then undo, all as stepping would leave them."""
    ds = generated(**DATA["missing"])
    cfg = engine.TreeConfig(algorithm="c45")
    g = engine.Grower(ds, cfg)
    for _ in range(3):
        g.step()
    g.grow()
    assert_identical(g, stepped(ds, cfg))
    g.undo()
    ref = engine.Grower(ds, cfg)
    for _ in range(len(g.history)):
        ref.step()
    assert g.tree.to_dict() == ref.tree.to_dict()
    assert g.open_nodes == ref.open_nodes


def test_depth_first_and_random_ties_still_step():
    ds = generated(**DATA["numeric"])
    for cfg in (engine.TreeConfig(algorithm="c45", order="depth"), engine.TreeConfig(algorithm="c45", random_state=1)):
        assert not fast_eligible(engine.Grower(ds, cfg))


@pytest.mark.parametrize("extra", [dict(max_depth=4), dict(chi2_alpha=0.05), dict(min_impurity_decrease=0.002),
                                   dict(min_samples_split=40), dict(min_gain=0.02), dict(entropy_base=math.e),
                                   dict(min_samples_leaf=7)])
def test_levelwise_equals_stepping_with_stopping_rules(extra):
    ds = generated(**DATA["missing"])
    cfg = engine.TreeConfig(algorithm="c45", **extra)
    fast = engine.Grower(ds, cfg)
    assert fast_eligible(fast)
    fast.grow()
    assert_identical(fast, stepped(ds, cfg))


@pytest.mark.parametrize("name", ["numeric", "missing"])
def test_every_n_jobs_grows_the_same_c45_tree_and_threads_share_the_features(name, monkeypatch):
    """The level's feature scans and the children's orders run on n_jobs threads; the tree is the same."""
    from engine import threads as engine_threads
    from engine.grow import c45grow

    seen = []
    real = c45grow.thread_map
    monkeypatch.setattr(c45grow, "thread_map", lambda fn, items, threads: seen.append(threads) or real(fn, items, threads))
    monkeypatch.setattr(engine_threads, "THREAD_MIN_WORK", 0)
    ds = generated(**DATA[name])
    cfg = engine.TreeConfig(algorithm="c45")
    grown = {}
    for k in (1, 2, 3):
        seen.clear()
        grown[k] = engine.Grower(ds, cfg, n_jobs=k).grow()
        assert seen and set(seen) == {k}
    for k in (2, 3):
        assert_identical(grown[k], grown[1])
