"""Region plots, the regression step function and the Grow-page figures: structure, colours, caps, escaping."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.errors import ConfigError, DataError
from engine.split.gain import candidate_scan
from engine.viz import palette
from engine.viz.figures import class_distribution_figure, gain_bar_figure, threshold_scan_figure
from engine.viz.regions import region_figure, region_points, regression_fit_figure, sample_rows
from engine.viz.text import escape


def points(fig):
    """(x, y, customdata rows) of every scatter trace that carries row ids."""
    xs, ys, ids = [], [], []
    for tr in fig.data:
        if tr.customdata is not None and tr.type in ("scatter", "scattergl"):
            xs.append(np.asarray(tr.x, dtype=float))
            ys.append(np.asarray(tr.y, dtype=float))
            ids.append(np.asarray(tr.customdata)[:, 0].astype(int))
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(ids)


@pytest.fixture(scope="module")
def ski():
    ds = engine.load_sample("ski")
    return ds, engine.fit_tree(ds, engine.TreeConfig(max_depth=3))


@pytest.fixture(scope="module")
def iris():
    ds = engine.load_sample("iris")
    return ds, engine.fit_tree(ds)


def big_data(n=30_000, seed=1):
    rng = np.random.default_rng(seed)
    x, y = rng.uniform(0, 10, n), rng.uniform(-5, 5, n)
    label = np.where((x > 5) ^ (y > 0), "a", "b")
    return engine.Dataset.from_frame(pd.DataFrame({"x": x, "y": y, "label": label}), target="label")


# ----------------------------------------------------------------------------------------- regions
def test_region_figure_structure(ski):
    ds, tree = ski
    x, y = ds.feature_names
    regions = tree.regions(x, y)
    leaf = regions[0].leaf
    fig = region_figure(tree, ds.frame, ds.frame[ds.target], x, y, highlight_leaves=[leaf],
                        query={x: 6, y: 1500})
    shapes = fig.layout.shapes
    assert len(shapes) == len(regions)
    colors = palette.class_colors(ds.classes)
    for shape, region in zip(shapes, regions):
        assert shape.fillcolor == palette.rgba(colors[region.prediction], 0.22)
        assert shape.line.width == (3.5 if region.leaf == leaf else 0.8)
    class_traces = [tr for tr in fig.data if tr.name in ds.classes]
    assert [tr.name for tr in class_traces] == list(ds.classes)
    symbols = palette.class_symbols(ds.classes)
    for tr in class_traces:
        assert tr.marker.color == colors[tr.name] and tr.marker.symbol == symbols[tr.name]
        assert isinstance(tr, go.Scatter)
    px, py, ids = points(fig)
    assert sorted(ids) == list(range(len(ds.frame)))
    np.testing.assert_allclose(px, ds.frame[x].to_numpy(dtype=float)[ids])
    np.testing.assert_allclose(py, ds.frame[y].to_numpy(dtype=float)[ids])
    labels = ds.frame[ds.target].astype(str).to_numpy()
    for tr in class_traces:
        assert set(labels[np.asarray(tr.customdata)[:, 0]]) == {tr.name}
    star = [tr for tr in fig.data if tr.name == "query"]
    assert len(star) == 1 and star[0].marker.symbol == "star" and list(star[0].x) == [6.0]
    assert not fig.layout.annotations  # only x and y are split on: no note
    assert fig.layout.xaxis.title.text == x and fig.layout.template.layout.paper_bgcolor is not None


def test_rectangles_cover_the_data_box_and_contain_their_rows(ski):
    ds, tree = ski
    x, y = ds.feature_names
    fig = region_figure(tree, ds.frame, ds.frame[ds.target], x, y)
    (x0, x1), (y0, y1) = fig.layout.xaxis.range, fig.layout.yaxis.range
    area = sum((s.x1 - s.x0) * (s.y1 - s.y0) for s in fig.layout.shapes)
    assert area == pytest.approx((x1 - x0) * (y1 - y0))
    leaf_of = tree.apply(ds.frame)
    by_leaf = {int(s.name.split()[1]): s for s in fig.layout.shapes}
    for i, leaf in enumerate(leaf_of):
        s = by_leaf[int(leaf)]
        assert s.x0 <= ds.frame[x].iloc[i] <= s.x1 and s.y0 <= ds.frame[y].iloc[i] <= s.y1


@settings(max_examples=15)
@given(st.integers(0, 10_000), st.integers(2, 6), st.integers(1, 10))
def test_region_tiling_property(seed, depth, leaf):
    rng = np.random.default_rng(seed)
    n = 60
    frame = pd.DataFrame({"u": rng.normal(size=n), "v": rng.integers(0, 5, n).astype(float),
                          "c": rng.choice(["p", "q", "r"], n)})
    ds = engine.Dataset.from_frame(frame, target="c")
    tree = engine.fit_tree(ds, engine.TreeConfig(max_depth=depth, min_samples_leaf=leaf))
    fig = region_figure(tree, ds.frame, ds.frame["c"], "u", "v")
    (x0, x1), (y0, y1) = fig.layout.xaxis.range, fig.layout.yaxis.range
    area = sum((s.x1 - s.x0) * (s.y1 - s.y0) for s in fig.layout.shapes)
    assert area == pytest.approx((x1 - x0) * (y1 - y0))
    assert len(fig.layout.shapes) == tree.n_leaves
    assert sorted(points(fig)[2]) == list(range(n))


def test_other_features_note(iris):
    ds, tree = iris
    fig = region_figure(tree, ds.frame, ds.frame[ds.target], "petal_length", "sepal_width")
    text = fig.layout.annotations[0].text
    assert "also splits on other features" in text and "different leaves" in text
    assert "showing" not in text


def test_sampling_cap_webgl_and_determinism():
    ds = big_data()
    tree = engine.fit_tree(ds, engine.TreeConfig(max_depth=3))
    fig = region_figure(tree, ds.frame, ds.frame["label"], "x", "y", max_points=20_000, seed=3)
    _, _, ids = points(fig)
    assert ids.size == 20_000 and np.unique(ids).size == 20_000 and ids.max() < 30_000
    assert all(isinstance(tr, go.Scattergl) for tr in fig.data if tr.name in ("a", "b"))
    assert "showing 20,000 of 30,000 rows" in fig.layout.annotations[0].text
    again = points(region_figure(tree, ds.frame, ds.frame["label"], "x", "y", max_points=20_000, seed=3))[2]
    other = points(region_figure(tree, ds.frame, ds.frame["label"], "x", "y", max_points=20_000, seed=4))[2]
    assert np.array_equal(np.sort(ids), np.sort(again)) and not np.array_equal(np.sort(ids), np.sort(other))
    small = region_figure(tree, ds.frame, ds.frame["label"], "x", "y", max_points=4_000)
    assert all(isinstance(tr, go.Scatter) for tr in small.data)
    assert points(small)[2].size == 4_000


def test_sample_rows():
    assert np.array_equal(sample_rows(5, 10), np.arange(5))
    s = sample_rows(100, 7, seed=1)
    assert s.size == 7 and np.all(np.diff(s) > 0)
    with pytest.raises(DataError):
        sample_rows(10, 0)


def test_hostile_names_are_escaped():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"<b>x</b>&y": rng.normal(size=50), "%{y}": rng.normal(size=50),
                          "t": rng.choice(["<i>a</i>", "b&c"], 50)})
    ds = engine.Dataset.from_frame(frame, target="t")
    tree = engine.fit_tree(ds, engine.TreeConfig(max_depth=2))
    fig = region_figure(tree, ds.frame, ds.frame["t"], "<b>x</b>&y", "%{y}", label_name="<t>")
    assert fig.layout.xaxis.title.text == "&lt;b&gt;x&lt;/b&gt;&amp;y"
    assert "%{y}" not in fig.layout.yaxis.title.text and "{y}" in fig.layout.yaxis.title.text
    names = {tr.name for tr in fig.data if tr.customdata is not None}
    assert names == {"&lt;i&gt;a&lt;/i&gt;", "b&amp;c"}
    for tr in fig.data:
        if tr.hovertemplate:
            assert "<b>" not in tr.hovertemplate and "<i>" not in tr.hovertemplate
            assert tr.hovertemplate.count("%{") == tr.hovertemplate.count("%{x}") + tr.hovertemplate.count(
                "%{y}") + tr.hovertemplate.count("%{customdata[0]}")
    assert fig.layout.legend.title.text == "&lt;t&gt;"
    assert escape("a\nb<") == "a b&lt;"


def test_missing_values_and_bad_input(ski):
    ds, tree = ski
    x, y = ds.feature_names
    frame = ds.frame.copy()
    frame.loc[frame.index[:5], x] = np.nan
    fig = region_figure(tree, frame, frame[ds.target], x, y)
    assert points(fig)[2].size == len(frame) - 5
    assert "5 rows with a missing" in fig.layout.annotations[0].text
    with pytest.raises(DataError):
        region_figure(tree, ds.frame, ds.frame[ds.target][:-1], x, y)
    with pytest.raises(DataError):
        region_figure(tree, ds.frame.drop(columns=[x]), ds.frame[ds.target], x, y)
    tennis = engine.load_sample("play_tennis")
    with pytest.raises(DataError):
        region_figure(engine.fit_tree(tennis), tennis.frame, None, "Outlook", "Wind")
    grey = region_figure(tree, ds.frame, None, x, y)
    assert points(grey)[2].size == len(ds.frame)


def test_regression_regions_use_the_value_scale():
    ds = engine.load_sample("diabetes")
    tree = engine.fit_tree(ds, engine.TreeConfig(max_depth=2))
    fig = region_figure(tree, ds.frame, ds.frame[ds.target], "bmi", "s5")
    rows = [tr for tr in fig.data if tr.customdata is not None]
    assert len(rows) == 1
    np.testing.assert_allclose(rows[0].marker.color, ds.frame[ds.target].to_numpy(dtype=float))
    vals = [r.value[0] for r in tree.regions("bmi", "s5")]
    fills = {s.fillcolor for s in fig.layout.shapes}
    lo = palette.rgba(palette.value_color(min(vals), min(vals), max(vals)), 0.22)
    assert lo in fills and len(fills) > 1


@pytest.mark.parametrize("sample", ["ski", "diabetes"])
def test_region_points_kept_from_another_tree_give_the_same_figure(sample):
    """The point traces do not depend on the splits: computed for a stump and reused for a deeper
    tree of the same rows, the figure is the one computed from scratch (regression: the colour range
    still follows the deeper tree's leaves)."""
    ds = engine.load_sample(sample)
    numeric = [f for f in ds.feature_names if ds.kind(f) == "numeric"]
    x, y = numeric[0], numeric[1]
    labels = ds.frame[ds.target]
    kept = region_points(engine.fit_tree(ds, engine.TreeConfig(max_depth=1)), ds.frame, labels, x, y, seed=2)
    deep = engine.fit_tree(ds, engine.TreeConfig(max_depth=3))
    fresh = region_figure(deep, ds.frame, labels, x, y, seed=2, highlight_leaves=[deep.leaves[0].id])
    reused = region_figure(deep, ds.frame, None, x, y, points=kept, highlight_leaves=[deep.leaves[0].id])
    assert reused.to_json() == fresh.to_json()
    assert "RegionPoints(traces=" in repr(kept)


# ----------------------------------------------------------------------------------------- step function
def test_regression_fit_figure_is_the_tree_along_one_feature():
    ds = engine.load_sample("diabetes")
    one = ds.with_features(["bmi"])
    tree = engine.fit_tree(one, engine.TreeConfig(max_depth=3))
    fig = regression_fit_figure(tree, one.frame, one.target, "bmi", query={"bmi": 30.0})
    rows, line, star = fig.data
    assert rows.name == "rows" and np.asarray(rows.customdata).shape == (len(ds.frame), 1)
    cuts = sorted(n.split.threshold for n in tree.internal_nodes)
    lx, ly = np.asarray(line.x, dtype=float), np.asarray(line.y, dtype=float)
    assert line.line.shape == "hv" and np.allclose(lx[1:-1], cuts)
    mids = (lx[:-1] + lx[1:]) / 2
    assert np.allclose(ly[:-1], tree.predict(np.asarray(mids)[:, None]))
    assert set(np.round(ly, 9)) == {round(float(leaf.value[0]), 9) for leaf in tree.leaves}
    assert star.y[0] == pytest.approx(tree.predict(np.array([[30.0]]))[0])
    assert not fig.layout.annotations  # the tree uses only bmi
    full = engine.fit_tree(ds, engine.TreeConfig(max_depth=3))
    note = regression_fit_figure(full, ds.frame, ds.target, "bmi").layout.annotations[0].text
    assert "median" in note
    with pytest.raises(DataError):
        regression_fit_figure(engine.fit_tree(engine.load_sample("iris")), ds.frame, ds.target, "bmi")


def test_regression_fit_on_a_categorical_feature():
    rng = np.random.default_rng(0)
    colour = rng.choice(["red", "green", "blue"], 90)
    target = np.select([colour == "red", colour == "green"], [1.0, 5.0], 9.0) + rng.normal(0, 0.1, 90)
    ds = engine.Dataset.from_frame(pd.DataFrame({"colour": colour, "v": target}), target="v",
                                   task="regression")
    tree = engine.fit_tree(ds, engine.TreeConfig())
    fig = regression_fit_figure(tree, ds.frame, ds.frame["v"].to_numpy(), "colour")
    pred = fig.data[1]
    assert list(pred.x) == list(ds.categories["colour"])
    expected = {c: target[colour == c].mean() for c in ("blue", "green", "red")}
    assert np.allclose(pred.y, [expected[c] for c in pred.x], atol=1e-9)


# ----------------------------------------------------------------------------------------- grow figures
@pytest.fixture(scope="module")
def weather():
    ds = engine.load_sample("play_tennis_numeric")
    return ds, engine.Grower(ds, engine.TreeConfig(algorithm="c45"))


def test_threshold_scan_numeric(weather):
    _, g = weather
    scan = candidate_scan(g, 0, "Humidity")
    fig = threshold_scan_figure(scan, chosen=82.5)
    curve, best = fig.data
    assert np.allclose(curve.x, scan["threshold"]) and np.allclose(curve.y, scan["gain"])
    assert list(np.asarray(curve.customdata)[:, 0]) == list(range(len(scan)))
    assert best.x[0] == scan["threshold"].iloc[scan["gain"].argmax()] == 82.5
    assert best.y[0] == pytest.approx(0.102244, abs=1e-6)
    assert len(fig.layout.shapes) == 1 and fig.layout.shapes[0].x0 == 82.5
    assert len(threshold_scan_figure(scan).layout.shapes) == 0


def test_threshold_scan_categorical_and_empty(weather):
    ds, _ = weather
    g = engine.Grower(ds, engine.TreeConfig(algorithm="cart"))
    scan = candidate_scan(g, 0, "Outlook")
    fig = threshold_scan_figure(scan, chosen=scan["split"].iloc[0])
    (bars,) = fig.data
    assert bars.type == "bar" and list(bars.y) == [escape(s) for s in scan["split"]]
    assert list(bars.marker.color) == ["#0072B2"] + ["#B8B8B8"] * (len(scan) - 1)
    default = threshold_scan_figure(scan).data[0].marker.color
    assert default[int(scan["gain"].argmax())] == "#0072B2" and list(default).count("#0072B2") == 1
    empty = threshold_scan_figure(scan.iloc[:0])
    assert not empty.data and "No candidate split" in empty.layout.annotations[0].text
    with pytest.raises(ConfigError):
        threshold_scan_figure(scan, score="nope")


def test_class_distribution(weather):
    ds, _ = weather
    g = engine.Grower(ds, engine.TreeConfig(algorithm="c45"))
    g.step()
    tree = g.tree
    fig = class_distribution_figure(tree, 0)
    assert [tr.name for tr in fig.data] == list(ds.classes) and fig.layout.barmode == "stack"
    colors = palette.class_colors(ds.classes)
    assert [tr.marker.color for tr in fig.data] == [colors[c] for c in ds.classes]
    ids = [0, *tree.root.children]
    totals = np.sum([np.asarray(tr.y, dtype=float) for tr in fig.data], axis=0)
    assert np.allclose(totals, [tree.node(i).weight for i in ids])
    assert list(fig.data[0].x)[1:] == [f"#{c}: {tree.node(c).branch}" for c in tree.root.children]
    leaf = class_distribution_figure(tree, tree.root.children[0])
    assert all(len(tr.x) == 1 for tr in leaf.data)


def test_regression_distribution_matches_the_rows():
    ds = engine.load_sample("diabetes")
    g = engine.Grower(ds, engine.TreeConfig(max_depth=2))
    g.step()
    fig = class_distribution_figure(g.tree, 0)
    (bars,) = fig.data
    for k, nid in enumerate([0, *g.tree.root.children]):
        rows, _ = g.node_rows(nid)
        yv = ds.y[rows]
        assert bars.y[k] == pytest.approx(yv.mean())
        assert bars.error_y.array[k] == pytest.approx(yv.std(), rel=1e-6)


def test_gain_bars(weather):
    _, g = weather
    table = g.gain_table(0)
    fig = gain_bar_figure(table, "gain")
    (bars,) = fig.data
    assert list(bars.y) == list(table["feature"]) and np.allclose(bars.x, table["gain"])
    assert list(bars.marker.color).count("#0072B2") == 1
    assert bars.marker.color[int(np.flatnonzero(table["winner"])[0])] == "#0072B2"
    hatched = [s == "/" for s in bars.marker.pattern.shape]
    assert hatched == list(~table["eligible"].to_numpy(dtype=bool)) and any(hatched)
    ratio = gain_bar_figure(table, "gain_ratio").data[0]
    assert np.allclose(ratio.x, table["gain_ratio"])
    with pytest.raises(ConfigError):
        gain_bar_figure(table, "bogus")
    assert "No feature" in gain_bar_figure(table.iloc[:0]).layout.annotations[0].text


def test_query_star_needs_two_numbers(ski):
    ds, tree = ski
    x, y = ds.feature_names
    def names(query):
        return [tr.name for tr in region_figure(tree, ds.frame, None, x, y, query=query).data]
    assert "query" in names({x: "4", y: 1000})
    assert "query" not in names({x: "April", y: 1000})
    assert "query" not in names({x: float("nan"), y: 1000})
    assert "query" not in names({x: 4})


@pytest.mark.parametrize("regression", [False, True])
def test_many_regions_are_drawn_as_filled_traces(regression):
    """Above SHAPE_LIMIT rectangles the regions become one filled trace per colour and one outline trace
    (a layout shape each took seconds to validate), merged on a grid: they still tile the box, in far fewer
    pieces than leaves, and the highlighted leaf keeps its border shape."""
    from engine.viz import regions as rg

    rng = np.random.default_rng(4)
    n = 3000
    frame = pd.DataFrame({"u": rng.normal(size=n), "v": rng.normal(size=n)})
    if regression:
        frame["t"] = rng.normal(size=n)
    else:
        frame["t"] = rng.choice(["p", "q", "r"], n)
    ds = engine.Dataset.from_frame(frame, target="t", task="regression" if regression else "classification")
    tree = engine.fit_tree(ds, engine.TreeConfig())
    assert tree.n_leaves > rg.SHAPE_LIMIT
    leaf = tree.leaves[0].id
    fig = region_figure(tree, ds.frame, ds.frame["t"], "u", "v", highlight_leaves=[leaf])
    fills = [t for t in fig.data if t.fill == "toself"]
    assert fills and len(fills) <= (rg.TRACE_SHADES if regression else 3)
    (x0, x1), (y0, y1) = fig.layout.xaxis.range, fig.layout.yaxis.range
    area = 0.0
    for t in fills:
        xs, ys = np.asarray(t.x, dtype=float).reshape(-1, 6), np.asarray(t.y, dtype=float).reshape(-1, 6)
        assert np.isnan(xs[:, 5]).all()                      # one closed piece per rectangle
        area += float(((xs[:, 1] - xs[:, 0]) * (ys[:, 2] - ys[:, 1])).sum())
    assert area == pytest.approx((x1 - x0) * (y1 - y0))
    assert sum(np.asarray(t.x).size // 6 for t in fills) < tree.n_leaves  # same-class neighbours merged
    assert [s.name for s in fig.layout.shapes] == ["highlighted region"]
    r = next(r for r in tree.regions("u", "v") if r.leaf == leaf)
    s = fig.layout.shapes[0]
    assert (s.x0, s.x1, s.y0, s.y1) == pytest.approx((max(r.x0, x0), min(r.x1, x1), max(r.y0, y0), min(r.y1, y1)))
    notes = " ".join(a.text for a in fig.layout.annotations)
    assert ("shades of the value scale" in notes) == regression
