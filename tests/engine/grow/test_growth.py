"""Grower: stepping, stopping rules, undo/expand/collapse, and invariants over whole trees."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import engine
from engine.errors import ConfigError, DataError

from tests.engine.conftest import random_dataset

CONFIGS = [
    engine.TreeConfig(),
    engine.TreeConfig(algorithm="id3"),
    engine.TreeConfig(algorithm="c45", min_samples_leaf=2),
    engine.TreeConfig(algorithm="cart", categorical_split="equals", order="depth"),
    engine.TreeConfig(max_depth=3, min_impurity_decrease=0.02, order="best"),
    engine.TreeConfig(algorithm="id3", chi2_alpha=0.1),
    engine.TreeConfig(max_leaf_nodes=4),
    engine.TreeConfig(criterion="misclassification", min_samples_split=5),
]


def check_invariants(grower):
    tree = grower.tree
    cfg = grower.config
    for node in tree.walk():
        idx, w = grower.node_rows(node.id)
        assert node.n_node_samples == idx.size
        assert node.weight == pytest.approx(w.sum())
        if node.is_leaf:
            continue
        # every split's gain reaches min_gain, its weighted decrease (scikit-learn's) min_impurity_decrease
        assert node.split.gain >= cfg.min_gain - 1e-12
        assert node.weight / tree.root.weight * node.split.gain >= cfg.min_impurity_decrease - 1e-12
        if cfg.c45_rules:     # J48: at least two branches hold M case weight (the others may be empty)
            assert sum(w >= cfg.min_samples_leaf - 1e-6 for w in node.split.child_weights) >= 2
        assert len(node.children) == node.split.n_children
        kids = [grower.node_rows(c) for c in node.children]
        # children partition the parent's rows (weights add up; without missing values the sets are disjoint)
        assert sum(k[1].sum() for k in kids) == pytest.approx(w.sum())
        col = grower.X[idx, node.split.feature_index]
        if not np.isnan(col).any():
            allrows = np.concatenate([k[0] for k in kids])
            assert np.array_equal(np.sort(allrows), np.sort(idx))
        for c in node.children:
            assert tree.node(c).parent == node.id and tree.node(c).depth == node.depth + 1
        if cfg.max_depth is not None:
            assert node.depth < cfg.max_depth
    for leaf in tree.leaves:
        assert leaf.stop_reason in engine.grow.stopping.STOP_REASONS or leaf.stop_reason is None
        if cfg.max_depth is not None:
            assert leaf.depth <= cfg.max_depth
        assert leaf.n_node_samples >= cfg.min_samples_leaf or leaf.id == 0 or cfg.c45_rules
    if cfg.max_leaf_nodes is not None:
        assert tree.n_leaves <= cfg.max_leaf_nodes


@pytest.mark.parametrize("cfg", CONFIGS, ids=repr)
@pytest.mark.parametrize("sample", ["play_tennis", "restaurant", "iris", "titanic_small", "ski"])
def test_invariants_on_samples(sample, cfg):
    ds = engine.load_sample(sample)
    g = engine.Grower(ds, cfg).grow()
    assert g.done
    check_invariants(g)


@settings(max_examples=40)
@given(st.integers(0, 10_000), st.sampled_from(range(len(CONFIGS))), st.booleans(), st.booleans())
def test_invariants_random(seed, ci, categorical, missing):
    ds = random_dataset(seed, categorical=categorical, missing=0.1 if missing else 0.0)
    g = engine.Grower(ds, CONFIGS[ci]).grow()
    check_invariants(g)


@settings(max_examples=30)
@given(st.integers(0, 10_000), st.booleans())
def test_full_tree_fits_consistent_training_data(seed, categorical):
    ds = random_dataset(seed, categorical=categorical)
    X = ds.X
    # drop contradictory rows (same features, different labels)
    keys = [tuple(r) for r in np.nan_to_num(X, nan=-999)]
    first = {}
    for k, label in zip(keys, ds.y):
        first.setdefault(k, set()).add(label)
    ok = np.array([len(first[k]) == 1 for k in keys])
    if ok.sum() < 2:
        return
    sub = ds.subset(np.flatnonzero(ok))
    for cfg in (engine.TreeConfig(), engine.TreeConfig(algorithm="id3")):
        tree = engine.fit_tree(sub, cfg)
        assert (tree.predict_codes(sub.X) == sub.y).all()


def test_step_closes_stopping_nodes_and_reports_finish(tennis):
    g = engine.Grower(tennis, engine.TreeConfig(algorithm="id3"))
    recs = []
    while (r := g.step()) is not None:
        recs.append(r)
    assert [r.action for r in recs] == ["split", "split", "split", "finish"]
    assert recs[1].stopped == ((1, "pure"),)        # Overcast closed before Rain is split
    assert recs[-1].split is None and len(recs[-1].stopped) == 4
    assert g.step() is None and g.done


def test_undo_reset_expand_collapse(tennis):
    g = engine.Grower(tennis, engine.TreeConfig(algorithm="id3"))
    g.step(); g.step()
    assert g.tree.n_nodes == 6
    assert g.undo() and g.tree.n_nodes == 4 and g.n_steps == 1
    humidity = [s for s in g.candidates(0) if s.feature == "Humidity"][0]
    rec = g.expand(0, humidity)                       # replace the root split
    assert rec.action == "forced" and g.tree.root.split.feature == "Humidity"
    assert [r.action for r in g.history][-1] == "forced"
    g.grow()
    assert g.tree.root.split.feature == "Humidity"
    g.collapse(0)
    assert g.tree.n_nodes == 1 and g.tree.root.stop_reason == "collapsed" and g.done
    assert g.undo() and g.tree.root.split.feature == "Humidity" and g.done
    g.reset()
    assert g.n_steps == 0 and g.tree.n_nodes == 1 and not g.done
    assert not g.undo()


def test_forced_threshold_from_scan():
    ds = engine.load_sample("iris")
    g = engine.Grower(ds, engine.TreeConfig())
    scan = engine.split.gain.candidate_scan(g, 0, "sepal_length")
    row = scan.iloc[3]
    best = g.candidates(0)[0]
    forced = engine.Split(feature="sepal_length", feature_index=ds.feature_names.index("sepal_length"),
                          kind="threshold", threshold=float(row["threshold"]))
    rec = g.expand(0, forced)
    assert rec.split.gain == pytest.approx(row["gain"])
    assert rec.split.gain <= best.gain
    assert sum(rec.split.child_counts) == len(ds)


def test_expand_rejects_empty_child(tennis):
    g = engine.Grower(engine.load_sample("iris"), engine.TreeConfig())
    bad = engine.Split(feature="sepal_length", feature_index=0, kind="threshold", threshold=100.0)
    with pytest.raises(ConfigError, match="empty"):
        g.expand(0, bad)
    with pytest.raises(ConfigError, match="no node"):
        g.collapse(99)


def test_validation_rule_uses_validation_rows():
    ds = engine.load_sample("noisy_moons")
    split = ds.split(test_size=0.2, validation_size=0.25, seed=0)
    full = engine.fit_tree(split.train, engine.TreeConfig())
    pruned = engine.fit_tree(split.train, engine.TreeConfig(validation=True), validation_data=split.validation)
    assert pruned.n_leaves < full.n_leaves
    assert any(l.stop_reason == "validation" for l in pruned.leaves)
    with pytest.raises(ConfigError, match="validation"):
        engine.Grower(split.train, engine.TreeConfig(validation=True))


def test_chi2_stops_insignificant_splits():
    ds = engine.load_sample("noisy_moons")
    t = engine.fit_tree(ds, engine.TreeConfig(chi2_alpha=0.01))
    assert t.n_leaves < engine.fit_tree(ds).n_leaves
    assert all(n.split.p_value <= 0.01 for n in t.internal_nodes)
    assert any(l.stop_reason == "chi2" for l in t.leaves)


def test_every_stop_reason_is_reachable():
    ds = engine.load_sample("noisy_moons")
    seen = set()
    for cfg in [engine.TreeConfig(max_depth=2), engine.TreeConfig(min_samples_split=40),
                engine.TreeConfig(min_samples_leaf=30), engine.TreeConfig(min_impurity_decrease=0.05),
                engine.TreeConfig(max_leaf_nodes=3), engine.TreeConfig()]:
        seen |= {l.stop_reason for l in engine.fit_tree(ds, cfg).leaves}
    assert {"pure", "max_depth", "min_samples_split", "min_samples_leaf", "min_impurity_decrease",
            "max_leaf_nodes"} <= seen


def test_sample_weight_is_used(tennis):
    w = np.ones(len(tennis))
    w[tennis.y == tennis.classes.index("No")] = 3.0
    tree = engine.fit_tree(tennis, engine.TreeConfig(max_depth=0), sample_weight=w)
    assert tree.root.prediction == "No" and tree.root.weight == pytest.approx(9 + 15)
    with pytest.raises(DataError):
        engine.Grower(tennis, sample_weight=-w)


def test_max_features_is_deterministic_and_restricts_features():
    ds = engine.load_sample("wine")
    cfg = engine.TreeConfig(max_features=2, random_state=7)
    g1 = engine.Grower(ds, cfg).grow()
    g2 = engine.Grower(ds, cfg)
    while g2.step():
        pass
    assert [n.split.describe() for n in g1.tree.internal_nodes] == [n.split.describe() for n in g2.tree.internal_nodes]
    for node in g2.tree.internal_nodes:
        allowed = g2._features_for(node.id)
        assert len(allowed) == 2 and node.split.feature_index in allowed


def test_config_validation_messages():
    with pytest.raises(ConfigError, match="max_depth must be a whole number"):
        engine.TreeConfig(max_depth=-1)
    with pytest.raises(ConfigError, match="algorithm must be one of"):
        engine.TreeConfig(algorithm="c50")
    with pytest.raises(ConfigError, match="chi2_alpha"):
        engine.TreeConfig(chi2_alpha=2)
    with pytest.raises(ConfigError, match="max_features"):
        engine.TreeConfig(max_features=0)
    with pytest.raises(ConfigError, match="regression"):
        engine.TreeConfig(criterion="variance").resolved("classification")
    assert engine.TreeConfig(algorithm="id3").resolved().criterion == "entropy"
    assert engine.TreeConfig(criterion="gini").resolved("regression").criterion == "variance"


def test_config_whole_numbers_have_upper_limits():
    """INT_LIMITS bounds every whole-number setting (the Grow page's inputs and share links use the same)."""
    from engine.config import INT_LIMITS

    for name, (low, high) in INT_LIMITS.items():
        assert engine.TreeConfig(**{name: high}).to_dict()[name] == high
        for bad in (low - 1, high + 1):
            with pytest.raises(ConfigError, match=f"{name} must be a whole number from {low:,} to {high:,}"):
                engine.TreeConfig(**{name: bad})
    cfg = engine.TreeConfig(max_depth=3)
    assert engine.TreeConfig.from_dict(cfg.to_dict()) == cfg
