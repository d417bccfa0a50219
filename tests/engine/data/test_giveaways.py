"""Features that give a classification target away (issue 36, item 8): each of their values goes with one
class, and they have many values (gapminder's country for continent) or one per class (the target renamed)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.express as px
import pytest

import engine
from engine.data import build
from engine.data.build import Giveaway
from engine.data.dataset import SAMPLES, load_sample


def test_gapminder_country_gives_the_continent_away():
    ds = engine.Dataset.from_frame(px.data.gapminder(), target="continent")
    found = {g.column: g for g in ds.giveaways()}
    assert found["country"] == Giveaway("country", 142, False)
    # its codes too (iso_num is numeric), but not the year or the measurements
    assert set(found) == {"country", "iso_alpha", "iso_num"}
    assert ds.with_kinds({"country": "ignore", "iso_alpha": "ignore", "iso_num": "ignore"}).giveaways() == []
    # a tree on country alone is perfect on the test rows: what the warning is about
    split = ds.with_features(["country"]).split(test_size=0.3, seed=1)
    tree = engine.Grower(split.train, engine.TreeConfig(algorithm="cart")).grow().tree
    assert (tree.predict_codes(split.test.X) == split.test.y).mean() == 1.0


@pytest.mark.parametrize("target", ["sex", "smoker", "day", "time", "size"])
def test_tips_has_no_giveaway_for_any_label_target(target):
    ds = engine.Dataset.from_frame(px.data.tips(), target=target)
    assert ds.task == "classification" and ds.giveaways() == []


@pytest.mark.parametrize("name", list(SAMPLES))
def test_no_bundled_sample_raises_a_false_alarm(name):
    assert load_sample(name).giveaways() == []


def test_a_relabelled_target_is_found_even_with_few_values():
    frame = px.data.iris().drop(columns=["species_id"])
    frame["code"] = frame["species"].map({"setosa": 10, "versicolor": 20, "virginica": 30})
    frame.loc[3, "code"] = np.nan  # a missing value does not hide it
    ds = engine.Dataset.from_frame(frame, target="species")
    assert ds.giveaways() == [Giveaway("code", 3, True)]
    assert engine.Dataset.from_frame(px.data.iris(), target="species").giveaways() == [
        Giveaway("species_id", 3, True)]
    assert ds.with_target("sepal_width").giveaways() == []  # regression: no classes to give away


def test_values_seen_once_or_mixed_are_no_giveaway():
    rng = np.random.default_rng(0)
    n = 400
    y = rng.choice(["a", "b"], size=n)
    frame = pd.DataFrame({
        "measure": rng.normal(size=n),                    # a new value on every row: pure, but by construction
        "halves": np.repeat(np.arange(n // 2), 2),        # pairs of rows, mixed classes
        "ten": np.arange(n) % 10,                         # ten values, each with both classes
        "y": y,
    })
    assert engine.Dataset.from_frame(frame, target="y").giveaways() == []
    frame["group"] = np.where(y == "a", 0, 100) + rng.integers(0, 12, n)  # 24 values, each one class
    assert engine.Dataset.from_frame(frame, target="y").giveaways() == [Giveaway("group", 24, False)]


def test_looking_at_the_first_rows_first_finds_the_same(monkeypatch):
    frame = px.data.gapminder().sample(frac=1.0, random_state=3).reset_index(drop=True)
    ds = engine.Dataset.from_frame(frame, target="continent")
    expected = ds.giveaways()
    monkeypatch.setattr(build, "GIVEAWAY_SAMPLE", 300)
    assert build.giveaways(ds.frame, ds.kinds, ds.y, len(ds.classes)) == expected
    # a country seen with two continents below the first rows is no giveaway
    frame.loc[len(frame) - 1, "country"] = frame.loc[frame["continent"] != frame.loc[len(frame) - 1, "continent"],
                                                     "country"].iloc[0]
    ds = engine.Dataset.from_frame(frame, target="continent")
    assert "country" not in {g.column for g in build.giveaways(ds.frame, ds.kinds, ds.y, len(ds.classes))}
