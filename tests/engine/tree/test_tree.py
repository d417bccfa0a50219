"""Tree: prediction (with missing values), rules, regions, JSON round trip, importances."""

import json

import numpy as np
import pandas as pd
import pytest

import engine
from engine.errors import DataError
from engine.tree.paths import rules_text
from engine.tree.serialize import tree_from_json, tree_to_json

from tests.engine.conftest import frame_dataset


def test_missing_values_go_down_every_branch(tennis):
    tree = engine.fit_tree(tennis, engine.TreeConfig(algorithm="id3"))
    day = pd.DataFrame([{"Outlook": None, "Temperature": "Cool", "Humidity": "High", "Wind": "Weak"}])
    proba = tree.predict_proba(day)[0]
    # Outlook unknown: Sunny 5/14 -> Humidity High -> No; Overcast 4/14 -> Yes; Rain 5/14 -> Wind Weak -> Yes
    no = tennis.classes.index("No")
    assert proba[no] == pytest.approx(5 / 14)
    assert proba.sum() == pytest.approx(1.0)
    assert tree.predict(day)[0] == "Yes"
    assert tree.apply(day)[0] in [n.id for n in tree.leaves]


def test_unseen_category_is_treated_as_missing(tennis):
    tree = engine.fit_tree(tennis, engine.TreeConfig(algorithm="id3"))
    a = pd.DataFrame([{"Outlook": "Snow", "Temperature": "Cool", "Humidity": "High", "Wind": "Weak"}])
    b = a.assign(Outlook=None)
    assert np.allclose(tree.predict_proba(a), tree.predict_proba(b))


def test_c45_gain_with_missing_values_is_scaled_by_known_fraction():
    # Quinlan 1993 ch. 3: Outlook unknown on one of 14 cases -> gain = 13/14 * (0.961 - 0.747) = 0.199
    ds = engine.load_sample("play_tennis_numeric")
    df = ds.frame.copy()
    df.loc[5, "Outlook"] = None        # Quinlan's case: Overcast, 72, 90, true, Play
    ds2 = frame_dataset(df, target=ds.target)
    table = engine.gain_table(ds2, engine.TreeConfig(algorithm="c45")).set_index("feature")
    h = engine.split.impurity([8, 5])                                   # 0.961 on the 13 known cases
    children = 10 / 13 * engine.split.impurity([2, 3])                  # sunny and rain 0.971, overcast 0
    assert table.loc["Outlook", "gain"] == pytest.approx(13 / 14 * (h - children), abs=1e-12)
    assert round(table.loc["Outlook", "gain"], 3) == 0.199
    # split info counts the unknown as an extra branch: 1.809 bits in Quinlan's text
    assert table.loc["Outlook", "split_info"] == pytest.approx(1.809, abs=1e-3)
    g = engine.Grower(ds2, engine.TreeConfig(algorithm="c45")).grow()
    # the case with unknown Outlook goes down every branch with fractional weight
    root = g.tree.root
    if root.split.feature == "Outlook":
        assert sum(g.tree.node(c).weight for c in root.children) == pytest.approx(14.0)


def test_rules_and_disjunction(tennis):
    tree = engine.fit_tree(tennis, engine.TreeConfig(algorithm="id3"))
    rules = tree.rules()
    assert len(rules) == tree.n_leaves
    assert rules[0].text() == "IF Outlook = Overcast THEN Yes"
    by_class = tree.rules(by_class=True)
    assert by_class["No"] == "(Outlook = Rain AND Wind = Strong) OR (Outlook = Sunny AND Humidity = High)"
    text = rules_text(tree)
    assert "No <=> (Outlook = Rain AND Wind = Strong)" in text


def test_regions_cover_the_plane_and_match_predictions():
    ds = engine.load_sample("ski")
    x, y = ds.feature_names[:2]
    tree = engine.fit_tree(ds, engine.TreeConfig(max_depth=4))
    regions = tree.regions(x, y)
    assert len(regions) == tree.n_leaves
    assert all(not r.other_conditions for r in regions)
    rng = np.random.default_rng(0)
    pts = np.column_stack([rng.uniform(ds.X[:, 0].min(), ds.X[:, 0].max(), 300),
                           rng.uniform(ds.X[:, 1].min(), ds.X[:, 1].max(), 300)])
    leaves = tree.apply(pts)
    for (px, py), leaf in zip(pts, leaves):
        inside = [r.leaf for r in regions if r.x0 < px <= r.x1 and r.y0 < py <= r.y1]
        assert inside == [leaf]
    with pytest.raises(DataError, match="not a feature"):
        tree.regions("nope", y)


def test_regions_note_other_features():
    ds = engine.load_sample("iris")
    tree = engine.fit_tree(ds, engine.TreeConfig(max_depth=3))
    regs = tree.regions("sepal_length", "sepal_width")
    assert any(r.other_conditions for r in regs)


@pytest.mark.parametrize("sample,cfg", [("play_tennis", engine.TreeConfig(algorithm="id3")),
                                        ("titanic_small", engine.TreeConfig(algorithm="c45")),
                                        ("restaurant", engine.TreeConfig()),
                                        ("diabetes", engine.TreeConfig(max_depth=4))])
def test_json_round_trip(sample, cfg):
    ds = engine.load_sample(sample)
    tree = engine.fit_tree(ds, cfg)
    back = tree_from_json(tree_to_json(tree))
    assert back.to_dict() == json.loads(tree_to_json(tree)) or back.n_nodes == tree.n_nodes
    assert np.array_equal(np.asarray(back.predict(ds.frame)), np.asarray(tree.predict(ds.frame)))
    assert engine.Tree.from_dict(tree.to_dict()).n_leaves == tree.n_leaves


@pytest.mark.parametrize("mutate,message", [
    (lambda d: d.update(format="x"), "not a tree saved"),
    (lambda d: d["nodes"][0].update(children=[99]), "damaged"),
    (lambda d: d["nodes"][0]["split"].update(feature_index=42), "damaged"),
    (lambda d: d["nodes"][0].update(stats="abc"), "damaged"),
    (lambda d: d.update(nodes=[]), "between 1 and"),
    (lambda d: d["schema"].update(task="poetry"), "'classification' or 'regression'"),
])
def test_json_import_is_validated(tennis, mutate, message):
    d = json.loads(tree_to_json(engine.fit_tree(tennis, engine.TreeConfig(algorithm="id3"))))
    mutate(d)
    with pytest.raises(DataError, match=message):
        tree_from_json(json.dumps(d))


def test_json_import_rejects_garbage():
    for bad in (b"\x89PNG....", "not json", "[1, 2]", "{}"):
        with pytest.raises(DataError):
            tree_from_json(bad)


def test_node_repr_and_prune_to_leaf(tennis):
    tree = engine.fit_tree(tennis, engine.TreeConfig(algorithm="id3"))
    assert repr(tree.root) == "Node(id=0, depth=0, n=14, entropy=0.94, split=Outlook=?)"
    small = tree.prune_to_leaf(0)
    assert small.n_nodes == 1 and small.root.stop_reason == "pruned" and tree.n_nodes == 8


def test_predict_requires_feature_columns(tennis):
    tree = engine.fit_tree(tennis)
    with pytest.raises(DataError, match="no column 'Temperature'"):
        tree.predict(pd.DataFrame({"Outlook": ["Sunny"]}))


def test_sparse_prediction_equals_dense_leaf_weights():
    ds = engine.load_sample("titanic_small")          # missing values: fractional paths
    for cfg in (engine.TreeConfig(algorithm="c45"), engine.TreeConfig()):
        tree = engine.fit_tree(ds, cfg)
        ids, W = tree.leaf_weights(ds.X)
        dense = W @ np.array([tree.node(i).value for i in ids])
        assert np.allclose(tree.predict_proba(ds.X), dense)
        assert np.array_equal(tree.apply(ds.X), ids[np.argmax(W, axis=1)])


def test_prediction_on_a_tree_with_many_leaves_needs_no_dense_matrix():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.normal(size=30_000), "b": rng.normal(size=30_000)})
    df["y"] = rng.normal(size=30_000)
    ds = frame_dataset(df, task="regression")
    tree = engine.fit_tree(ds, engine.TreeConfig())
    assert tree.n_leaves > 20_000                       # a dense rows x leaves matrix would need > 4 GB
    assert np.allclose(tree.predict(ds.X), ds.y)
