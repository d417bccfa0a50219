"""engine.tree.edit.rename_classes: a tree's classes under other names (how an imported model's classes are
shown as the data's labels), with its shares, counts and predictions otherwise unchanged."""

from __future__ import annotations

import numpy as np
import pytest

from engine.config import TreeConfig
from engine.data.dataset import load_sample
from engine.errors import DataError
from engine.grow.grower import fit_tree
from engine.tree.edit import rename_classes


@pytest.fixture(scope="module")
def iris():
    ds = load_sample("iris")
    return ds, fit_tree(ds, TreeConfig(max_depth=3))


def test_classes_predictions_and_rules_take_the_new_names(iris):
    ds, tree = iris
    names = {"setosa": "A", "virginica": "C"}
    new = rename_classes(tree, names)
    assert new.schema.classes == ("A", "versicolor", "C")
    for old, n in zip(tree.walk(), new.walk()):
        assert n.prediction == names.get(old.prediction, old.prediction)
        assert n.value == old.value and n.stats == old.stats and n.split == old.split
    expected = np.array([names.get(p, p) for p in tree.predict(ds.frame)], dtype=object)
    assert (new.predict(ds.frame) == expected).all()
    assert {r.text().rsplit(" THEN ", 1)[1] for r in new.rules()} <= {"A", "versicolor", "C"}


def test_nothing_renamed_is_the_same_tree_and_two_classes_cannot_share_a_name(iris):
    _, tree = iris
    assert rename_classes(tree, {}) is tree and rename_classes(tree, {"setosa": "setosa"}) is tree
    with pytest.raises(DataError, match="same name"):
        rename_classes(tree, {"setosa": "virginica"})
