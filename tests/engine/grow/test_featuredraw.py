"""engine.grow.featuredraw: node keys (vectorised == one by one) and the per-node feature draws."""

import numpy as np
from hypothesis import given, settings, strategies as st

from engine.grow.featuredraw import child_key, child_keys, draw_mask, path_key


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 50), st.floats(allow_nan=False, allow_infinity=False), st.integers(0, 1)),
                min_size=1, max_size=30),
       st.integers(0, 2**64 - 1))
def test_child_keys_equal_child_key_one_by_one(steps, parent):
    feats, thrs, kids = zip(*steps)
    many = child_keys(np.full(len(steps), parent, dtype=np.uint64), feats, thrs, kids)
    one = [child_key(parent, (f, "threshold", t, (), c)) for f, t, c in steps]
    assert many.tolist() == one


def test_keys_tell_steps_apart():
    base = child_key(0, (1, "threshold", 0.5, (), 0))
    others = [child_key(0, (1, "threshold", 0.5, (), 1)), child_key(0, (2, "threshold", 0.5, (), 0)),
              child_key(0, (1, "threshold", 0.25, (), 0)), child_key(7, (1, "threshold", 0.5, (), 0)),
              child_key(0, (1, "subset", None, ("a",), 0)), child_key(0, (1, "subset", None, ("b",), 0))]
    assert len({base, *others}) == 7
    assert path_key(()) == 0
    assert path_key(((1, "threshold", 0.5, (), 0), (3, "multiway", None, ("x",), 2))) == \
        child_key(base, (3, "multiway", None, ("x",), 2))


def test_draws_are_k_subsets_and_even():
    """Every node gets exactly k features; over many nodes each feature is drawn k/d of the time."""
    rng = np.random.default_rng(0)
    parents = rng.integers(0, 2**63, size=4000, dtype=np.uint64)
    keys = child_keys(parents, rng.integers(0, 20, 4000), rng.normal(size=4000), rng.integers(0, 2, 4000))
    mask = draw_mask(keys, 3, 20, 4)
    assert (mask.sum(1) == 4).all()
    share = mask.mean(0)
    assert np.all(np.abs(share - 0.2) < 0.03)            # 4000 draws: the standard error is ~0.006
    assert not np.array_equal(mask, draw_mask(keys, 4, 20, 4))     # the seed matters
