"""Building blocks of the level-wise exact grower (engine.grow.fastexact, engine.grow.levelstore) and the Grower
state they leave behind.

- ``Criterion.weighted_cols`` and ``stopping.pre_split_codes`` are the vectorised twins of the per-node
  functions stepping uses: they must agree to the bit / to the code;
- ``fastexact.segment_best`` against a plain loop;
- ``RowRanges`` / ``PathMap`` against the dicts the Grower used to keep (a model-based test);
- ``depth_first_ids`` against depth-first stepping's numbering;
- a Grower after a level-wise ``grow()`` (undo, step, expand, collapse) against a stepped one;
- ``NodeStore``: a level-wise tree predicts from arrays, equal to the same tree made of node objects.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import engine
from engine.grow.fastexact import segment_best
from engine.grow.fastgrow import fast_eligible
from engine.split.impurity import get_criterion, gini
from engine.grow.levelstore import PathMap, RowRanges, depth_first_ids
from engine.split.search import TIE_TOL
from engine.grow.stopping import EPS, PRE_SPLIT, pre_split_codes, pre_split_reason

from tests.engine.conftest import random_dataset
from tests.engine.grow.test_fastgrow import stepped


def bits(a) -> np.ndarray:
    """The float64 bit patterns, at least 1-d (so -0.0 != 0.0 and NaNs compare by payload)."""
    return np.ascontiguousarray(np.asarray(a, dtype=np.float64)).view(np.int64)


# ----- Criterion.weighted_cols ---------------------------------------------------------------------

CLASSIFICATION_CRITERIA = [get_criterion("entropy"), get_criterion("entropy", base=math.e), get_criterion("gini"),
                           get_criterion("misclassification")]


@st.composite
def class_counts(draw):
    """(nodes, K) class counts: integers or fractions, with many zeros (empty classes, empty nodes)."""
    k = draw(st.sampled_from([1, 2, 3, 5, 16, 17, 24]))
    n = draw(st.integers(1, 12))
    values = st.one_of(st.just(0.0), st.integers(0, 9).map(float),
                       st.floats(0.0, 50.0, allow_nan=False, allow_infinity=False))
    stats = draw(hnp.arrays(np.float64, (n, k), elements=values))
    if draw(st.booleans()):
        stats[draw(st.integers(0, n - 1))] = 0.0          # an empty node
    return stats


@st.composite
def regression_stats(draw):
    """(nodes, 3) stats (w, sum w*y, sum w*y^2) of random weighted rows, and some of empty nodes."""
    n = draw(st.integers(1, 10))
    rows = []
    for _ in range(n):
        m = draw(st.integers(0, 6))
        y = np.array(draw(st.lists(st.floats(-100, 100), min_size=m, max_size=m)))
        w = np.array(draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0]), min_size=m, max_size=m)))
        rows.append((w.sum(), (w * y).sum(), (w * y * y).sum()))
    return np.array(rows, dtype=float).reshape(n, 3)


def check_weighted_cols(crit, stats):
    cols = [stats[:, k] for k in range(stats.shape[1])]
    vec = crit.weighted_cols(cols)
    # the same bits as the per-node search's crit.weighted on the stacked stats ...
    assert np.array_equal(bits(vec), bits(crit.weighted(stats)))
    # ... whatever the columns' memory layout (the level-wise scan passes 1-d arrays it built itself) ...
    fortran = np.asfortranarray(stats)
    assert np.array_equal(bits(crit.weighted_cols([fortran[:, k].copy() for k in range(stats.shape[1])])), bits(vec))
    assert np.array_equal(bits(crit.weighted_cols(list(np.ascontiguousarray(stats.T)))), bits(vec))
    # ... and node by node (stepping scores one node at a time)
    for i in range(stats.shape[0]):
        assert bits(crit.weighted(stats[i])).ravel()[0] == bits(vec)[i]
        assert bits(crit.weighted_cols([c[i:i + 1] for c in cols]))[0] == bits(vec)[i]
    # and it is w * I(node) (weights below 1e-150 excepted: see test_gini_of_a_tiny_weight), with w the
    # node weight the rest of the engine uses (crit.weight), to the bit
    w = crit.weight(stats)
    usual = (w == 0) | (w > 1e-150)
    np.testing.assert_allclose(vec[usual], (w * crit.from_stats(stats))[usual], rtol=1e-9, atol=1e-9)
    assert np.array_equal(bits(vec), bits(weighted_reference(crit, stats)))


def weighted_reference(crit, stats):
    """``w * I`` written out per criterion from ``crit.weight`` (the same operations, in the same order)."""
    w = crit.weight(stats)
    ok = w > 0
    ws = np.where(ok, w, 1.0)
    if crit.name == "entropy":
        return w * crit.from_stats(stats)
    if crit.name == "gini":
        ss = np.zeros(w.shape)
        for k in range(stats.shape[1]):
            ss += stats[:, k] * stats[:, k]
        return np.where(ok, np.maximum(w - ss / ws, 0.0), 0.0)
    if crit.name == "misclassification":
        return np.where(ok, w - stats.max(axis=1), 0.0)
    return np.where(ok, np.maximum(stats[:, 2] - stats[:, 1] * stats[:, 1] / ws, 0.0), 0.0)


@settings(max_examples=40)
@given(class_counts(), st.sampled_from(range(len(CLASSIFICATION_CRITERIA))))
def test_weighted_cols_equals_weighted_classification(stats, ci):
    check_weighted_cols(CLASSIFICATION_CRITERIA[ci], stats)


@settings(max_examples=40)
@given(regression_stats())
def test_weighted_cols_equals_weighted_regression(stats):
    check_weighted_cols(get_criterion("variance"), stats)


@pytest.mark.parametrize("crit", CLASSIFICATION_CRITERIA, ids=lambda c: f"{c.name}-{c.base:.2f}")
def test_weighted_cols_many_classes_exact_values(crit):
    """More than 16 classes (a summed stack instead of a column loop): known values."""
    stats = np.zeros((3, 20))
    stats[0, :] = 1.0                    # 20 classes of one row each
    stats[1, 7] = 5.0                    # pure
    stats[2, [0, 19]] = 2.0              # two classes, two rows each
    vec = crit.weighted_cols([stats[:, k] for k in range(20)])
    expected = {"entropy": [20 * math.log(20) / math.log(crit.base), 0.0, 4 * math.log(2) / math.log(crit.base)],
                "gini": [20 * (1 - 1 / 20), 0.0, 4 * 0.5],
                "misclassification": [19.0, 0.0, 2.0]}[crit.name]
    np.testing.assert_allclose(vec, expected, rtol=1e-13, atol=1e-13)
    assert vec[1] == 0.0 and not np.signbit(vec[1])


def test_gini_of_a_tiny_weight():
    """w*w underflows below ~1.5e-154: the impurity still comes out right (it was 0/0 = NaN)."""
    assert gini(np.array([0.0, 2.4e-179])) == 0.0
    assert gini(np.array([1e-170, 1e-170])) == pytest.approx(0.5)
    ds = random_dataset(3, n=40)
    tiny = engine.Grower(ds, sample_weight=np.full(len(ds), 1e-170)).grow().tree
    unit = engine.Grower(ds).grow().tree
    assert tiny.nodes[0].impurity == pytest.approx(unit.nodes[0].impurity)


# ----- stopping.pre_split_codes --------------------------------------------------------------------

IMPURITIES = st.one_of(st.sampled_from([0.0, EPS / 2, EPS, math.nextafter(EPS, 1.0), 2 * EPS, 0.5, 1.0]),
                       st.floats(0.0, 2.0))


@settings(max_examples=150)
@given(st.lists(st.tuples(IMPURITIES, st.integers(0, 8), st.integers(0, 40)), min_size=1, max_size=20),
       st.one_of(st.none(), st.integers(0, 6)), st.integers(0, 12), st.integers(1, 8), st.booleans())
def test_pre_split_codes_equal_pre_split_reason(nodes, max_depth, min_split, min_leaf, real_config):
    if real_config:
        cfg = engine.TreeConfig(max_depth=max_depth, min_samples_split=max(min_split, 2), min_samples_leaf=min_leaf)
    else:         # the fields pre_split_reason reads, also values TreeConfig refuses (min_samples_split < 2)
        cfg = SimpleNamespace(max_depth=max_depth, min_samples_split=min_split, min_samples_leaf=min_leaf)
    objs = [SimpleNamespace(impurity=i, depth=d, n_node_samples=n) for i, d, n in nodes]
    imp, depth, n = (np.array(v) for v in zip(*nodes))
    codes = pre_split_codes(imp, depth, n, cfg)
    expected = []
    for node in objs:
        reason = pre_split_reason(node, cfg)
        expected.append(-1 if reason is None else PRE_SPLIT.index(reason))
    assert codes.tolist() == expected
    assert codes.shape == imp.shape


# ----- fastexact.segment_best ----------------------------------------------------------------------

def segment_best_loop(g, lengths):
    """Per segment: its max and the first position within TIE_TOL of it (-1 if no value is finite)."""
    maxes, firsts, start = [], [], 0
    for n in lengths:
        seg = [float(v) for v in g[start:start + n]]
        top = max(seg)
        maxes.append(top)
        first = -1
        if math.isfinite(top):
            first = start + next(i for i, v in enumerate(seg) if v >= top - TIE_TOL * (1.0 + abs(top)))
        firsts.append(first)
        start += n
    return maxes, firsts


@st.composite
def gain_segment(draw):
    """Gains of one (feature, node) pair: -inf (invalid thresholds), values near a common top (just inside
    and just outside the relative tie tolerance) and others."""
    top = draw(st.one_of(st.sampled_from([0.0, 0.5, 1.0, 3.7, 250.0, 1e6]), st.floats(-10.0, 1e6)))
    near = st.sampled_from([0.0, 0.5, 0.9, 1.1, 1.5, 3.0]).map(lambda k: top - k * TIE_TOL * (1.0 + abs(top)))
    value = st.one_of(st.just(-math.inf), near, st.floats(-1.0, 1.0))
    return draw(st.lists(value, min_size=1, max_size=8))


@settings(max_examples=100)
@given(st.lists(gain_segment(), min_size=1, max_size=10))
def test_segment_best_equals_a_loop(segments):
    g = np.array([v for s in segments for v in s], dtype=float)
    lengths = np.array([len(s) for s in segments])
    starts = np.r_[0, np.cumsum(lengths)[:-1]]
    segmax, first = segment_best(g, starts, lengths)
    maxes, firsts = segment_best_loop(g, lengths)
    assert segmax.tolist() == maxes
    assert first.tolist() == firsts


def test_segment_best_examples():
    g = np.array([0.1, 0.3, 0.3 + 1e-14, -np.inf, -np.inf, 2.0, 1.0, 2.0 - 1e-9])
    segmax, first = segment_best(g, np.array([0, 3, 5]), np.array([3, 2, 3]))
    assert first.tolist() == [1, -1, 5]       # near-tie: the first; all -inf: none; a gap of 1e-9 is no tie
    assert segmax[1] == -np.inf


# ----- RowRanges / PathMap behave like the dicts the Grower keeps ------------------------------------

@st.composite
def row_ranges(draw):
    m = draw(st.integers(1, 25))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    idx0 = np.sort(rng.choice(2 * m, size=m, replace=False))          # rows with weight > 0
    w = rng.integers(1, 4, size=m).astype(float)
    perm = rng.permutation(m)
    n_nodes = draw(st.integers(1, 8))
    lo = rng.integers(0, m + 1, size=n_nodes)
    hi = lo + rng.integers(0, m + 1, size=n_nodes)
    hi = np.minimum(hi, m)
    lo[0], hi[0] = 0, m
    model = {}
    for i in range(n_nodes):
        s = np.sort(perm[lo[i]:hi[i]])
        model[i] = (idx0[s], w[s])
    return RowRanges(idx0, w, perm, lo, hi), model


@st.composite
def path_maps(draw):
    n_nodes = draw(st.integers(1, 12))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    parent = np.array([-1] + [int(rng.integers(0, i)) for i in range(1, n_nodes)])
    feature = rng.integers(0, 5, size=n_nodes)
    threshold = np.round(rng.normal(size=n_nodes), 2)
    branch = rng.integers(0, 2, size=n_nodes)
    model = {0: ()}
    for i in range(1, n_nodes):        # parents come first
        p = parent[i]
        model[i] = model[p] + ((int(feature[p]), "threshold", float(threshold[p]), (), int(branch[i])),)
    return PathMap(parent, feature, threshold, branch), model


def same_value(a, b) -> bool:
    if isinstance(a, tuple) and a and isinstance(a[0], np.ndarray):
        return len(a) == len(b) and all(np.array_equal(x, y) and x.dtype == y.dtype for x, y in zip(a, b))
    return a == b


def assert_like(mapping, model, probe_ids):
    ids = list(mapping)
    assert len(ids) == len(set(ids)) == len(mapping) == len(model)
    assert set(ids) == set(model)
    assert sorted(mapping.keys()) == sorted(model)
    for k, v in model.items():
        assert k in mapping and np.int64(k) in mapping
        assert same_value(mapping[k], v) and same_value(mapping[np.int64(k)], v)
    for k in probe_ids:
        if k not in model:
            assert k not in mapping and mapping.get(k) is None
            with pytest.raises(KeyError):
                mapping[k]


OPS = st.lists(st.one_of(
    st.tuples(st.just("set"), st.integers(-1, 14)),
    st.tuples(st.just("del"), st.integers(-1, 14)),
    st.tuples(st.just("pop"), st.integers(-1, 14)),
    st.tuples(st.just("restrict"), st.sets(st.integers(0, 14), max_size=10)),
), max_size=14)


def run_ops(mapping, model, ops, probe_ids, make_value):
    """Apply ``ops`` to the store and to its dict model alike and compare after each. A restriction is a
    copy (the Grower restricts in ``_install``): the store it was taken from must not change while the
    copy is edited."""
    earlier = []
    for n, (op, arg) in enumerate(ops):
        if op == "set":
            value = make_value(n)
            mapping[arg] = value
            model[arg] = value
        elif op in ("del", "pop"):
            if arg in model:
                expected = model.pop(arg)
                got = mapping.pop(arg) if op == "pop" else mapping[arg]
                if op == "del":
                    del mapping[arg]
                assert same_value(got, expected)
            else:
                with pytest.raises(KeyError):
                    if op == "pop":
                        mapping.pop(arg)
                    else:
                        del mapping[arg]
                assert mapping.pop(arg, "absent") == "absent"
        else:
            earlier.append((mapping, dict(model)))
            mapping = mapping.restricted(arg)
            model = {k: v for k, v in model.items() if k in arg}
        assert_like(mapping, model, probe_ids)
    for old, old_model in earlier:
        assert_like(old, old_model, probe_ids)


@settings(max_examples=120)
@given(row_ranges(), OPS)
def test_row_ranges_behave_like_a_dict(store, ops):
    mapping, model = store
    assert_like(mapping, model, range(-1, 16))
    run_ops(mapping, model, ops, range(-1, 16), lambda n: (np.array([100 + n]), np.array([float(n)])))


@settings(max_examples=120)
@given(path_maps(), OPS)
def test_path_map_behaves_like_a_dict(store, ops):
    mapping, model = store
    assert_like(mapping, model, range(-1, 16))
    for path in (mapping[k] for k in model):      # hashable keys of plain Python numbers, as stepping's
        for f, kind, t, codes, b in path:
            assert type(f) is int and type(t) is float and type(b) is int and kind == "threshold" and codes == ()
    run_ops(mapping, model, ops, range(-1, 16), lambda n: ((n, "threshold", 0.5, (), 1),))


def test_restricted_twice_keeps_later_assignments():
    """An id assigned after a first restriction (a child made by stepping on) survives a second one whose
    keep holds it, as in a dict (it was dropped before dd67a03: overrides were filtered by the
    intersection of both keeps)."""
    perm = np.arange(4)
    rows = RowRanges(np.arange(4), np.ones(4), perm, np.array([0, 0, 2]), np.array([4, 2, 4]))
    once = rows.restricted({0, 1})
    once[7] = (np.array([3]), np.array([1.0]))
    twice = once.restricted({0, 7})
    assert 7 in twice and twice[7][0].tolist() == [3]
    assert sorted(twice) == [0, 7] and 1 not in twice


def test_restricted_forgets_overrides_outside_keep_and_keeps_deletions():
    perm = np.array([2, 0, 3, 1])
    rows = RowRanges(np.arange(4), np.ones(4), perm, np.array([0, 0, 2]), np.array([4, 2, 4]))
    rows[1] = (np.array([9]), np.array([2.0]))
    rows[5] = (np.array([8]), np.array([1.0]))
    del rows[2]
    kept = rows.restricted({0, 1, 2})
    assert sorted(kept) == [0, 1] and kept[1][0].tolist() == [9]
    assert kept[0][0].tolist() == [0, 1, 2, 3]
    assert sorted(rows) == [0, 1, 5]                      # the original is untouched


def test_row_ranges_renumbered():
    idx0, w = np.array([1, 4, 5, 7, 9]), np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    perm = np.array([4, 2, 0, 3, 1])
    lo, hi = np.array([0, 0, 3, 0]), np.array([5, 3, 5, 1])
    rows = RowRanges(idx0, w, perm, lo, hi)
    new_id = np.array([0, 3, 1, 2])
    moved = rows.renumbered(new_id)
    for old in range(4):
        assert same_value(moved[int(new_id[old])], rows[old])
    assert moved[3][0].tolist() == [1, 5, 9] and moved[3][1].tolist() == [1.0, 3.0, 5.0]
    assert sorted(moved) == [0, 1, 2, 3]


# ----- depth_first_ids -----------------------------------------------------------------------------

def depth_first_stepping(first_child):
    """Depth-first stepping on a tree given by breadth-first first children: ids as Grower._split gives
    them, and the processing order (frontier[-1], children pushed reversed)."""
    new_id, order, frontier, nxt = {0: 0}, [], [0], 1
    while frontier:
        bfs = frontier.pop()
        order.append(new_id[bfs])
        c = first_child[bfs]
        if c >= 0:
            new_id[c], new_id[c + 1] = nxt, nxt + 1
            nxt += 2
            frontier.extend([c + 1, c])
    return [new_id[i] for i in range(len(first_child))], order


@pytest.mark.parametrize("first_child, new_id, order", [
    ([-1], [0], [0]),
    ([1, -1, -1], [0, 1, 2], [0, 1, 2]),
    # 0 -> 1, 2; 1 -> 3, 4; 2 -> 5, 6; 3 -> 7, 8: 3's children come before 2's in depth-first ids
    ([1, 3, 5, 7, -1, -1, -1, -1, -1], [0, 1, 2, 3, 4, 7, 8, 5, 6], [0, 1, 3, 5, 6, 4, 2, 7, 8]),
    # 0 -> 1, 2; 2 -> 3, 4; 4 -> 5, 6: a right spine
    ([1, -1, 3, -1, 5, -1, -1], [0, 1, 2, 3, 4, 5, 6], [0, 1, 2, 3, 4, 5, 6]),
    # 0 -> 1, 2; 1 -> 3, 4; 2 -> 5, 6; 4 -> 7, 8; 5 -> 9, 10
    ([1, 3, 5, -1, 7, 9, -1, -1, -1, -1, -1], [0, 1, 2, 3, 4, 7, 8, 5, 6, 9, 10],
     [0, 1, 3, 4, 5, 6, 2, 7, 9, 10, 8]),
])
def test_depth_first_ids_hand_made(first_child, new_id, order):
    ids, got_order = depth_first_ids(np.array(first_child))
    assert ids.tolist() == new_id and got_order == order
    assert depth_first_stepping(first_child) == (new_id, order)


@settings(max_examples=80)
@given(st.lists(st.booleans(), max_size=40))
def test_depth_first_ids_equal_depth_first_stepping(splits_wanted):
    first_child, level, nxt = [-1], [0], 1       # breadth-first numbering, level by level
    wanted = iter(splits_wanted)
    while level:
        new_level = []
        for nid in level:
            if next(wanted, False):
                first_child[nid] = nxt
                first_child.extend([-1, -1])
                new_level += [nxt, nxt + 1]
                nxt += 2
        level = new_level
    ids, order = depth_first_ids(np.array(first_child))
    assert (ids.tolist(), order) == depth_first_stepping(first_child)
    assert sorted(order) == list(range(len(first_child)))


# ----- a Grower after a level-wise grow() equals a stepped one ------------------------------------------

def assert_same_state(a, b):
    """Same nodes (every field), rows and paths of every node, frontier and history."""
    na, nb = a.tree.nodes, b.tree.nodes
    assert len(na) == len(nb)
    for x, y in zip(na, nb):
        assert (x is None) == (y is None)
        if x is None:
            continue
        assert x == y
        ia, wa = a.node_rows(x.id)
        ib, wb = b.node_rows(x.id)
        assert np.array_equal(ia, ib) and np.array_equal(wa, wb)
        assert a._paths[x.id] == b._paths[x.id]
    assert a.open_nodes == b.open_nodes
    assert sorted(a._rows) == sorted(b._rows) and sorted(a._paths) == sorted(b._paths)
    assert [(r.action, r.node_id, r.children, r.stopped) for r in a.history] == \
        [(r.action, r.node_id, r.children, r.stopped) for r in b.history]


GROWER_CONFIGS = [
    engine.TreeConfig(),
    engine.TreeConfig(order="depth"),
    engine.TreeConfig(max_features="sqrt", random_state=7),
    engine.TreeConfig(max_features="sqrt", order="depth", random_state=2, max_depth=7),
    engine.TreeConfig(min_samples_leaf=3),
    engine.TreeConfig(algorithm="c45", c45_rules=(), order="depth"),
    engine.TreeConfig(algorithm="c45", c45_rules=(), chi2_alpha=0.5),
    engine.TreeConfig(chi2_alpha=0.2, order="depth"),
    engine.TreeConfig(min_gain=0.01),
]


def case(seed, ci, regression, weighted):
    cfg = GROWER_CONFIGS[ci]
    if regression and (cfg.algorithm == "c45" or cfg.chi2_alpha is not None):
        cfg = engine.TreeConfig(order=cfg.order, min_samples_leaf=2)
    rng = np.random.default_rng(seed)
    ds = random_dataset(seed, n=int(rng.integers(40, 150)), d=int(rng.integers(2, 5)), regression=regression,
                        int_values=bool(seed % 2))
    w = None
    if weighted:                           # integer weights (exact sums), zeros drop rows
        w = rng.integers(0, 4, size=len(ds)).astype(float)
        w[0] = 1.0
    return ds, cfg, w


def grown(ds, cfg, w):
    g = engine.Grower(ds, cfg, sample_weight=w)
    assert fast_eligible(g)
    g.grow()
    assert isinstance(g._rows, RowRanges) and isinstance(g._paths, PathMap)    # the level-wise result
    return g


def partly_stepped(ds, cfg, w, k):
    g = engine.Grower(ds, cfg, sample_weight=w)
    for _ in range(k):
        g.step()
    return g


@settings(max_examples=12)
@given(st.integers(0, 10_000), st.sampled_from(range(len(GROWER_CONFIGS))), st.booleans(), st.booleans())
def test_grown_then_undo_and_step_equal_stepping(seed, ci, regression, weighted):
    ds, cfg, w = case(seed, ci, regression, weighted)
    fast, slow = grown(ds, cfg, w), stepped(ds, cfg, w)
    assert_same_state(fast, slow)
    assert fast.step() is None and fast.done
    k = len(slow.history)
    if k < 3:
        return
    fast.undo()
    fast.undo()
    if k - 2 > 20:              # undo re-installs the level-wise result, cut to k - 2 records
        assert isinstance(fast._rows, RowRanges)
    partial = partly_stepped(ds, cfg, w, k - 2)
    assert_same_state(fast, partial)
    assert fast.step() is not None
    partial.step()
    assert_same_state(fast, partial)
    fast.step()
    assert_same_state(fast, slow)


@pytest.mark.parametrize("ci", range(len(GROWER_CONFIGS)))
def test_undo_reinstalls_the_level_wise_result(ci):
    """Enough steps for undo to take the level-wise path (more than 20 actions left), then step on."""
    cfg = GROWER_CONFIGS[ci]
    ds = random_dataset(5, n=160, d=3)
    w = np.random.default_rng(ci).integers(0, 3, size=len(ds)).astype(float) if ci % 2 else None
    fast = grown(ds, cfg, w)
    k = len(fast.history)
    assert k > 24
    fast.undo()
    fast.undo()
    fast.undo()
    assert isinstance(fast._rows, RowRanges) and fast._rows._limit is not None
    partial = partly_stepped(ds, cfg, w, k - 3)
    assert_same_state(fast, partial)
    for _ in range(2):
        fast.step()
        partial.step()
        assert_same_state(fast, partial)


def forced_leaf(g):
    """The first leaf that has a candidate split, and that candidate."""
    for node in g.tree.nodes:
        if node is not None and node.is_leaf:
            cands = g.candidates(node.id)
            if cands:
                return node.id, cands[0]
    return None, None


@settings(max_examples=10)
@given(st.integers(0, 10_000), st.sampled_from(range(len(GROWER_CONFIGS))), st.booleans(), st.booleans(),
       st.booleans())
def test_grown_then_expand_and_collapse_equal_stepping(seed, ci, regression, weighted, partly_undone):
    ds, cfg, w = case(seed, ci, regression, weighted)
    fast, slow = grown(ds, cfg, w), stepped(ds, cfg, w)
    if partly_undone and len(slow.history) > 24:      # expand/collapse on a cut (restricted) state too
        for g in (fast, slow):
            g.undo()
            g.undo()
        assert isinstance(fast._rows, RowRanges) and fast._rows._limit is not None
    assert_same_state(fast, slow)
    leaf, split = forced_leaf(fast)
    if leaf is not None:
        leaf_slow, split_slow = forced_leaf(slow)
        assert leaf_slow == leaf and split_slow.same_test(split)
        fast.expand(leaf, split)
        slow.expand(leaf, split_slow)
        assert_same_state(fast, slow)
        fast.step()
        slow.step()
        assert_same_state(fast, slow)
    inner = [n.id for n in fast.tree.nodes if n is not None and not n.is_leaf and n.id != 0]
    if inner:
        target = inner[len(inner) // 2]
        gone = [n.id for n in fast.tree.nodes if n is not None and n.id != target and _below(fast, n.id, target)]
        fast.collapse(target)
        slow.collapse(target)
        assert_same_state(fast, slow)
        for nid in gone:
            assert nid not in fast._rows
            with pytest.raises(engine.ConfigError):
                fast.node_rows(nid)
        leaf, split = forced_leaf(fast)          # re-grow under the collapsed node by hand
        if leaf is not None:
            fast.expand(leaf, split)
            slow.expand(leaf, forced_leaf(slow)[1])
            assert_same_state(fast, slow)
    fast.undo()
    slow.undo()
    assert_same_state(fast, slow)


def _below(g, nid, ancestor) -> bool:
    nodes = g.tree.nodes
    while nodes[nid].parent is not None:
        nid = nodes[nid].parent
        if nid == ancestor:
            return True
    return False


@pytest.mark.parametrize("order", ["breadth", "depth"])
@pytest.mark.parametrize("name", ["iris", "diabetes"])
def test_path_map_equals_stepping_paths(name, order):
    ds = engine.load_sample(name)
    cfg = engine.TreeConfig(order=order, max_depth=6)
    fast, slow = grown(ds, cfg, None), stepped(ds, cfg)
    assert sorted(fast._paths) == sorted(slow._paths)
    for nid, path in slow._paths.items():
        assert fast._paths[nid] == path
        assert hash(fast._paths[nid]) == hash(path)


# ----- NodeStore: node objects made when first read ---------------------------------------------------

@pytest.mark.parametrize("regression", [False, True])
@pytest.mark.parametrize("order", ["breadth", "depth"])
def test_fitted_tree_predicts_from_arrays_without_making_nodes(regression, order):
    """A level-wise tree predicts from its store's arrays (no node object made), exactly as the same tree
    built from node objects; reading a node then makes them all."""
    from engine.ensembles.compiled import CompiledTree
    from engine.grow.levelstore import NodeStore

    ds = random_dataset(11, n=300, d=4, regression=regression)
    cfg = engine.TreeConfig(order=order, max_features=3, random_state=4)
    tree = engine.fit_tree(ds, cfg)
    store = tree.nodes
    assert isinstance(store, NodeStore) and not store.materialised
    out = tree.predict(ds.X)
    leaves = tree.apply(ds.X)
    flat = CompiledTree(tree, ds.classes).values(ds.X)
    assert not store.materialised                       # prediction and compiling made no node
    plain = engine.Tree(tuple(store), tree.schema, tree.criterion)
    assert store.materialised
    assert np.array_equal(out, plain.predict(ds.X)) and np.array_equal(leaves, plain.apply(ds.X))
    assert np.array_equal(flat, CompiledTree(plain, ds.classes).values(ds.X))
    for a, b in zip(tree._arrays, plain._arrays, strict=True):   # the tables themselves, not only answers
        assert a.dtype == b.dtype and np.array_equal(a, b)
    assert tree == plain and hash(tree) == hash(plain) and store == tuple(plain.nodes)
    assert len(store) == len(plain.nodes) and store.n_splits == len(plain.internal_nodes)


def test_node_store_pickles_and_missing_values_still_route_fractionally():
    import pickle

    ds = random_dataset(3, n=200, d=3)
    tree = engine.fit_tree(ds, engine.TreeConfig())
    back = pickle.loads(pickle.dumps(tree))
    assert back == tree
    X = ds.X.copy()
    X[::7, 0] = np.nan                                   # rows that go down every branch (C4.5)
    plain = engine.Tree(tuple(tree.nodes), tree.schema, tree.criterion)
    assert np.array_equal(back.predict_proba(X), plain.predict_proba(X))


def test_grower_makes_history_and_nodes_on_first_use():
    ds = random_dataset(8, n=250, d=3)
    g = engine.Grower(ds, engine.TreeConfig()).grow()
    assert g._lazy is not None
    n_steps = g.n_steps
    assert n_steps == len(g.history) == len(stepped(ds, engine.TreeConfig()).history)   # counted before made
    assert g._lazy is None
    assert g.tree.nodes == tuple(g._nodes) and g.step() is None
    again = engine.Grower(ds, engine.TreeConfig()).grow()
    store = again.tree.nodes
    again.reset()                        # the pending result is dropped, not made into objects first
    assert not store.materialised and again.tree.n_nodes == 1


def test_grower_hands_out_one_tree_object_per_state():
    """``Grower.tree`` is the same object until the tree may change (pages key caches on it)."""
    ds = random_dataset(9, n=120, d=3)
    g = engine.Grower(ds, engine.TreeConfig())
    root_only = g.tree
    assert g.tree is root_only
    g.step()
    one = g.tree
    assert one is not root_only and g.tree is one and one.fingerprint != root_only.fingerprint
    g.step()
    two = g.tree
    assert two is not one and len(two.internal_nodes) == 2
    g.collapse(two.root.children[0] if not two.node(two.root.children[0]).is_leaf else two.root.children[1])
    assert g.tree is not two and len(g.tree.internal_nodes) == 1
    g.undo()
    assert g.tree == two and g.tree.fingerprint == two.fingerprint
    g.reset()
    assert g.tree == root_only
    g.grow()
    grown = g.tree
    assert g.tree is grown and grown == stepped(ds, engine.TreeConfig()).tree
