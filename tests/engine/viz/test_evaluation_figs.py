"""engine.viz.eval_figs: the figures show the numbers they are given (read back from the figure objects)."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from engine.evaluate.curves import growth_curve, learning_curve
from engine.errors import ConfigError
from engine.evaluate.validation import cross_validate
from engine.evaluate.metrics import evaluate
from engine.evaluate.stability import instability
from engine.viz import eval_figs
from engine.viz.palette import OKABE_ITO


@pytest.fixture(scope="module")
def iris():
    split = engine.load_sample("iris").split(test_size=0.3, seed=0)
    return split, engine.fit_tree(split.train, engine.TreeConfig(max_depth=2))


def test_confusion_figure_counts_labels_and_shares(iris):
    split, tree = iris
    ev = evaluate(tree, split.test, "test")
    fig = eval_figs.confusion_figure(ev)
    heat = fig.data[0]
    assert list(heat.x) == list(heat.y) == list(split.train.classes)
    z = np.asarray(heat.z, dtype=float)
    np.testing.assert_allclose(z.sum(axis=1), 1.0)
    np.testing.assert_allclose(z, ev.confusion / ev.confusion.sum(axis=1, keepdims=True))
    assert heat.text[0][0].startswith(f"{ev.confusion[0, 0]}<br>")
    assert fig.layout.yaxis.autorange == "reversed"
    assert fig.layout.title.text == f"test: accuracy {ev.scores['accuracy']:.3f} on 45 rows"
    assert heat.colorscale[0][1] == "#FFFFFF"


def test_predicted_actual_figure_and_wrong_task(iris):
    split = engine.load_sample("diabetes").split(test_size=0.25, seed=0)
    tree = engine.fit_tree(split.train, engine.TreeConfig(max_depth=3))
    ev = evaluate(tree, split.test, "test")
    fig = eval_figs.predicted_actual_figure(ev)
    diagonal, points = fig.data
    assert list(diagonal.x) == list(diagonal.y)
    np.testing.assert_allclose(points.x, ev.y_true)
    np.testing.assert_allclose(points.y, ev.y_pred)
    small = eval_figs.predicted_actual_figure(ev, max_points=50, seed=1)
    assert len(small.data[1].x) == 50
    with pytest.raises(ConfigError, match="regression chart"):
        eval_figs.predicted_actual_figure(evaluate(iris[1], iris[0].test))
    with pytest.raises(ConfigError, match="only for classification"):
        eval_figs.confusion_figure(ev)


def test_cv_figure_bars_and_mean(iris):
    cv = cross_validate(iris[0].train, engine.TreeConfig(max_depth=2), k=3, seed=0)
    fig = eval_figs.cv_figure(cv)
    train, test = fig.data
    np.testing.assert_allclose(test.y, cv.folds["test_accuracy"])
    assert test.marker.color == OKABE_ITO[1] and train.marker.color == OKABE_ITO[0]
    assert fig.layout.shapes[1].y0 == pytest.approx(cv.mean())
    assert f"test mean {cv.mean():.3f} ± {cv.std():.3f}" in fig.layout.title.text
    fig = eval_figs.cv_figure(cv, "macro_f1")
    np.testing.assert_allclose(fig.data[1].y, cv.folds["test_macro_f1"])


def test_growth_curve_figure_lines_best_star_and_current(iris):
    split, _ = iris
    tree = engine.fit_tree(split.train)
    table = growth_curve(tree, [("train", split.train), ("test", split.test)])
    fig = eval_figs.growth_curve_figure(table, metric="error", x="n_leaves",
                                        current={"x": 3, "label": "step 2", "scores": {"test": 0.1}})
    lines = [t for t in fig.data if t.mode == "lines+markers"]
    assert [t.name for t in lines] == ["train", "test"]
    np.testing.assert_allclose(lines[1].y, table["test_error"])
    star = next(t for t in fig.data if t.name == "best test")
    assert star.y[0] == pytest.approx(table["test_error"].min())
    assert star.x[0] == table["n_leaves"].iloc[int(np.argmin(table["test_error"]))]
    current = [t for t in fig.data if t.marker.symbol == "diamond"]
    assert len(current) == 1 and current[0].y == (0.1,)
    assert fig.layout.shapes[0].x0 == 3 and fig.layout.annotations[0].text == "step 2"
    assert fig.layout.xaxis.title.text == "number of leaves"
    with pytest.raises(ConfigError, match="x must be one of"):
        eval_figs.growth_curve_figure(table, metric="error", x="width")
    with pytest.raises(ConfigError, match="no R² column"):
        eval_figs.growth_curve_figure(table, metric="r2")


def test_learning_curve_figure_band(iris):
    split, _ = iris
    runs, summary = learning_curve(split.train, split.test, engine.TreeConfig(max_depth=3), sizes=(0.3, 1.0),
                                   repeats=3, seed=0)
    fig = eval_figs.learning_curve_figure(summary, metric="accuracy", runs=runs)
    bands = [t for t in fig.data if t.fill == "toself"]
    assert len(bands) == 2 and all(t.mode == "lines" for t in bands)
    test_band = np.asarray(bands[1].y)
    mean, std = summary["test_mean"].to_numpy(), summary["test_std"].to_numpy()
    np.testing.assert_allclose(test_band, np.concatenate([mean + std, (mean - std)[::-1]]))
    means = [t for t in fig.data if t.name and t.name.endswith("(mean)")]
    assert [t.name for t in means] == ["train (mean)", "test (mean)"]


def test_instability_figure(iris):
    split, _ = iris
    res = instability(split.train, split.test, engine.TreeConfig(max_depth=3), runs=5, seed=0)
    fig = eval_figs.instability_figure(res)
    roots, runs = fig.data
    assert sum(roots.x) == 5 and list(runs.x) == [1, 2, 3, 4, 5]
    np.testing.assert_allclose(runs.y, res.runs["agreement"])
    blue = [c == OKABE_ITO[0] for c in runs.marker.color]
    assert blue == res.runs["same_root_feature"].tolist()
    assert res.original["root_feature"] in fig.layout.title.text


def test_user_text_is_escaped_in_figures():
    import pandas as pd
    frame = pd.DataFrame({"<i>x</i>": [1.0, 2, 3, 4, 5, 6, 7, 8], "y": ["<b>a</b>", "b%{x}"] * 4})
    ds = engine.Dataset.from_frame(frame, target="y")
    tree = engine.fit_tree(ds)
    fig = eval_figs.confusion_figure(evaluate(tree, ds))
    assert list(fig.data[0].x) == ["&lt;b&gt;a&lt;/b&gt;", "b%\u200b{x}"]
    res = instability(ds, ds, engine.TreeConfig(), runs=2, method="subsample", fraction=0.2, seed=0)
    fig = eval_figs.instability_figure(res)
    assert "<i>" not in fig.layout.title.text and "&lt;i&gt;x&lt;/i&gt;" in fig.layout.title.text
    assert all("<i>" not in str(v) for v in fig.data[0].y)
