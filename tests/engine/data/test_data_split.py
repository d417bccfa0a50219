"""engine.data: split, subset, encode, the with_* variants, from_frame, and the bundled samples."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from engine.data.dataset import SAMPLES, Dataset, DataSplit, load_csv, load_sample
from engine.errors import ConfigError, DataError
from engine.data.schema import FeatureSchema


# ---------------------------------------------------------------------------------- split
def test_split_is_stratified_and_partitions_rows():
    ds = load_sample("iris")
    split = ds.split(test_size=0.2, validation_size=0.2, seed=5)
    assert isinstance(split, DataSplit)
    assert (len(split.train), len(split.validation), len(split.test)) == (90, 30, 30)
    for part in (split.train, split.validation, split.test):
        counts = np.bincount(part.y, minlength=3)
        assert counts.max() - counts.min() == 0  # 50/50/50 -> exactly equal shares
        assert part.classes == ds.classes and part.categories == ds.categories
    ids = np.concatenate([p.row_ids for p in (split.train, split.validation, split.test)])
    assert sorted(ids.tolist()) == list(range(150))


def test_split_proportions_match_class_shares_on_unbalanced_data():
    ds = load_sample("breast_cancer")  # 357 benign, 212 malignant
    split = ds.split(test_size=0.25, seed=0)
    assert len(split.test) == round(569 * 0.25)
    share = np.bincount(split.test.y) / len(split.test)
    full = np.bincount(ds.y) / len(ds)
    assert np.abs(share - full).max() < 0.01
    assert split.validation is None


def test_split_deterministic_for_a_seed_and_different_across_seeds():
    ds = load_sample("noisy_moons")
    a = ds.split(test_size=0.3, seed=11)
    b = ds.split(test_size=0.3, seed=11)
    c = ds.split(test_size=0.3, seed=12)
    assert np.array_equal(a.test.row_ids, b.test.row_ids)
    assert not np.array_equal(a.test.row_ids, c.test.row_ids)


def test_split_regression_and_zero_test_size():
    ds = load_sample("diabetes")
    split = ds.split(test_size=0.1, validation_size=0.0, seed=0)
    assert len(split.test) == 44 and len(split.train) == 398
    whole = ds.split(test_size=0.0)
    assert whole.test is None and whole.validation is None and len(whole.train) == len(ds)


def test_split_with_single_row_class_does_not_crash():
    rows = "\n".join([f"{i},{'a' if i < 10 else 'b'}" for i in range(19)] + ["19,c"])
    ds = load_csv(("x,t\n" + rows + "\n").encode())
    split = ds.split(test_size=0.5, seed=0)
    assert len(split.test) == 10
    assert "c" in set(split.train.frame["t"])  # the lone row stays in training
    assert np.bincount(split.test.y, minlength=3).tolist() == [5, 5, 0]


@pytest.mark.parametrize("kw,message", [
    (dict(test_size=1.0), "test_size must be a fraction"),
    (dict(test_size=-0.1), "test_size must be a fraction"),
    (dict(test_size="0.2"), "test_size must be a fraction"),
    (dict(test_size=0.6, validation_size=0.4), r"test_size \+ validation_size must be below 1"),
    (dict(seed=-1), "seed must be a whole number"),
])
def test_split_bad_parameters(kw, message):
    with pytest.raises(ConfigError, match=message):
        load_sample("iris").split(**kw)


def test_split_too_small_for_sizes():
    ds = load_csv(b"x,t\n1,a\n2,b\n")
    with pytest.raises(DataError, match="no row to train on"):
        ds.split(test_size=0.9)


# ------------------------------------------------------------------------- subset, encode
def test_subset_keeps_encoding_and_row_ids():
    ds = load_sample("play_tennis")
    sub = ds.subset([13, 0, 2])
    assert sub.row_ids.tolist() == [13, 0, 2]
    assert np.array_equal(sub.X, ds.X[[13, 0, 2]])
    assert sub.categories == ds.categories and sub.classes == ds.classes
    only_no = ds.subset(ds.y == 0)
    assert only_no.classes == ("No", "Yes") and len(only_no) == 5
    assert len(ds.subset([])) == 0 and ds.subset([]).X.shape == (0, 4)
    for bad in ([14], [-1], [0.5], [[0, 1]], np.ones(3, dtype=bool), "rows"):
        with pytest.raises(DataError):
            ds.subset(bad)


def test_encode_other_frames():
    ds = load_sample("play_tennis_numeric")
    new = pd.DataFrame({"Outlook": [" Sunny ", "Snow", None], "Temperature": ["70", "warm", 71.5],
                        "Humidity": [80, 90, np.inf], "Windy": [True, False, "True"], "extra": [1, 2, 3]})
    X = ds.encode(new)
    assert X.shape == (3, 4)
    assert X[0].tolist() == [2.0, 70.0, 80.0, 1.0]
    assert np.isnan(X[1, 0]) and np.isnan(X[1, 1]) and X[1, 3] == 0.0
    assert np.isnan(X[2, 0]) and np.isnan(X[2, 2])
    with pytest.raises(DataError, match="'Humidity'"):
        ds.encode(new.drop(columns="Humidity"))
    assert np.array_equal(ds.encode(ds.frame), ds.X)


def test_schema_matches_dataset():
    ds = load_sample("titanic_small")
    schema = ds.schema
    assert isinstance(schema, FeatureSchema)
    assert schema.feature_names == ds.feature_names and schema.classes == ds.classes
    assert schema.categories[schema.index("sex")] == ("female", "male")
    assert FeatureSchema.from_dict(schema.to_dict()) == schema


# -------------------------------------------------------------------------------- variants
def test_with_kinds_round_trip():
    ds = load_sample("play_tennis_numeric")
    cat = ds.with_kinds({"Humidity": "categorical"})
    assert cat.kind("Humidity") == "categorical" and cat.categories["Humidity"][:3] == ("65", "70", "75")
    back = cat.with_kinds({"Humidity": "numeric"})
    assert np.array_equal(back.X, ds.X) and back.kinds == ds.kinds
    ignored = ds.with_kinds({"Outlook": "ignore"})
    assert ignored.feature_names == ("Temperature", "Humidity", "Windy")
    with pytest.raises(DataError, match="Column 'Outlook' cannot be numeric: 'Sunny' is not a number"):
        ds.with_kinds({"Outlook": "numeric"})
    with pytest.raises(ConfigError, match="'numeric', 'categorical' or 'ignore'"):
        ds.with_kinds({"Outlook": "text"})
    with pytest.raises(DataError, match="There is no column 'Nope'"):
        ds.with_kinds({"Nope": "numeric"})


def test_with_target_and_task():
    ds = load_sample("play_tennis_numeric")
    hum = ds.with_target("Humidity")
    assert hum.task == "regression" and hum.kind("Play") == "categorical" and "Humidity" not in hum.kinds
    assert hum.y.dtype == np.float64 and hum.y[0] == 70.0
    assert hum.with_task("classification").classes[:2] == ("65", "70")
    assert hum.with_target("Play").kinds == ds.kinds
    with pytest.raises(DataError, match="There is no column 'Rain'"):
        ds.with_target("Rain")
    with pytest.raises(DataError, match="cannot be predicted as a number"):
        ds.with_task("regression")


def test_with_target_restores_rows_missing_only_the_old_target():
    ds = load_csv(b"a,b,t\n1,x,p\n2,,\n3,y,q\n4,x,p\n")
    assert len(ds) == 3
    assert len(ds.with_target("a")) == 4


def test_with_features():
    ds = load_sample("play_tennis_day")
    two = ds.with_features(["Day", "Wind"])
    assert two.feature_names == ("Day", "Wind") and two.kind("Outlook") == "ignore"
    assert two.kind("Day") == "categorical"
    with pytest.raises(DataError, match="at least one feature"):
        ds.with_features([])
    with pytest.raises(DataError, match="not feature columns"):
        ds.with_features(["Play"])


def test_from_frame_same_rules():
    frame = pd.DataFrame({"id": [f"r{i}" for i in range(8)], "n": [1, 2, None, 4, 5, 6, 7, 8],
                          "b": [True, False] * 4, "t": [0, 1] * 4})
    ds = Dataset.from_frame(frame, name="mine")
    assert ds.name == "mine" and ds.kinds == {"id": "ignore", "n": "numeric", "b": "categorical"}
    assert ds.classes == ("0", "1") and ds.categories["b"] == ("False", "True")
    with pytest.raises(DataError):
        Dataset.from_frame(pd.DataFrame({"a": [1, 2]}))
    with pytest.raises(DataError):
        Dataset.from_frame("not a frame")


# --------------------------------------------------------------------------------- samples
@pytest.mark.parametrize("name", list(SAMPLES))
def test_every_sample_loads_as_described(name):
    info = SAMPLES[name]
    ds = load_sample(name)
    assert (len(ds), len(ds.feature_names)) == (info.rows, info.features)
    assert ds.target == info.target and ds.task == info.task and ds.name == name
    assert info.algorithm in ("id3", "c45", "cart") and info.description


def test_textbook_samples():
    tennis = load_sample("play_tennis")
    assert np.bincount(tennis.y).tolist() == [5, 9]  # Mitchell: [9+, 5-]
    sunny = tennis.subset(tennis.frame["Outlook"].to_numpy() == "Sunny")
    assert np.bincount(sunny.y).tolist() == [3, 2]  # Mitchell's S_sunny = [2+, 3-]
    rest = load_sample("restaurant")
    assert np.bincount(rest.y).tolist() == [6, 6] and rest.kind("Example") == "ignore"
    pat = rest.frame.groupby("Pat")["WillWait"].apply(lambda s: (s == "Yes").sum()).to_dict()
    assert pat == {"Full": 2, "None": 0, "Some": 4}  # AIMA: Patrons is the best first attribute
    titanic = load_sample("titanic_small")
    assert np.isnan(titanic.X).any(axis=0).sum() >= 3  # age, fare and embarked have gaps


def test_sklearn_copies_match_the_oracle():
    datasets = pytest.importorskip("sklearn.datasets")
    iris = load_sample("iris")
    ref = datasets.load_iris()
    assert np.allclose(iris.X, ref.data) and np.array_equal(iris.y, ref.target)
    diabetes = load_sample("diabetes")
    ref = datasets.load_diabetes(scaled=False)
    assert np.allclose(diabetes.X, ref.data) and np.allclose(diabetes.y, ref.target)
    wine = load_sample("wine")
    assert np.allclose(wine.X, datasets.load_wine().data)


def test_unknown_sample():
    with pytest.raises(DataError, match="no sample data set 'nope'"):
        load_sample("nope")


ODD_ARGUMENTS = [None, 1, -1, 1.5, "x", "", [], [1, 2], {"a": 1}, {"age": None}, np.array([1, 2]),
                 np.array([True]), object(), float("nan"), b"bytes", slice(0, 3), {1: 2}]


@pytest.mark.parametrize("method", ["kind", "subset", "with_kinds", "with_target", "with_task",
                                    "with_features", "encode", "split"])
def test_methods_raise_only_engine_errors_on_odd_arguments(method):
    from engine.errors import EngineError

    ds = load_sample("titanic_small")
    for value in ODD_ARGUMENTS:
        try:
            getattr(ds, method)(value)
        except EngineError as err:
            assert str(err).endswith(".")
