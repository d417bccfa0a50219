"""Textbook examples: Mitchell's Play Tennis with ID3 (gains at the root, the tree, a new day)."""

import math

import numpy as np
import pandas as pd
import pytest

import engine
from engine.prune.pessimistic import prune_pessimistic
from engine.split.gain import explain_gain, explain_impurity


@pytest.fixture(scope="module")
def tennis():
    return engine.load_sample("play_tennis")


def test_root_gains_match_mitchell(tennis):
    table = engine.gain_table(tennis, engine.TreeConfig(algorithm="id3")).set_index("feature")
    # Mitchell p. 60: Gain(S, Outlook) = 0.246, Humidity 0.151, Wind 0.048, Temperature 0.029
    assert table.loc["Outlook", "gain"] == pytest.approx(0.246750, abs=1e-6)
    assert table.loc["Humidity", "gain"] == pytest.approx(0.151836, abs=1e-6)
    assert table.loc["Wind", "gain"] == pytest.approx(0.048127, abs=1e-6)
    assert table.loc["Temperature", "gain"] == pytest.approx(0.029223, abs=1e-6)
    assert table["winner"].sum() == 1 and table.loc["Outlook", "winner"]
    assert table.loc["Outlook", "impurity_parent"] == pytest.approx(0.940286, abs=1e-6)


def test_id3_tree_is_the_textbook_tree(tennis):
    g = engine.Grower(tennis, engine.TreeConfig(algorithm="id3"))
    rec = g.step()
    assert rec.split.feature == "Outlook" and rec.runner_up.feature == "Humidity"
    tree = g.grow().tree
    root = tree.root
    by_branch = {tree.node(c).branch: tree.node(c) for c in root.children}
    assert set(by_branch) == {"Sunny", "Overcast", "Rain"}
    assert by_branch["Overcast"].is_leaf and by_branch["Overcast"].prediction == "Yes"
    assert by_branch["Sunny"].split.feature == "Humidity"
    assert by_branch["Rain"].split.feature == "Wind"
    assert tree.n_leaves == 5 and tree.depth == 2
    # every leaf is pure and says so
    assert all(leaf.stop_reason == "pure" for leaf in tree.leaves)


def test_prediction_for_a_new_day(tennis):
    tree = engine.fit_tree(tennis, engine.TreeConfig(algorithm="id3"))
    day = pd.DataFrame([{"Outlook": "Sunny", "Temperature": "Cool", "Humidity": "High", "Wind": "Strong"}])
    assert tree.predict(day)[0] == "No"   # Mitchell p. 59
    path = tree.decision_path(day)
    assert [t for _, t in path][:2] == ["Outlook = Sunny", "Humidity = High"]


def test_arithmetic_text_has_the_real_numbers(tennis):
    g = engine.Grower(tennis, engine.TreeConfig(algorithm="id3"))
    outlook = g.candidates(0)[0]
    assert explain_gain(outlook, "entropy") == "0.940 - (4/14 * 0.000 + 5/14 * 0.971 + 5/14 * 0.971) = 0.247"
    assert explain_impurity([9, 5], "entropy") == "-(9/14 log2(9/14) + 5/14 log2(5/14)) = 0.940"
    assert "\\tfrac{4}{14}" in explain_gain(outlook, "entropy", latex=True)


def test_gain_ratio_shrinks_the_day_id_advantage():
    ds = engine.load_sample("play_tennis_day").with_kinds({"Day": "categorical"})
    gain_tab = engine.gain_table(ds, engine.TreeConfig(algorithm="id3")).set_index("feature")
    assert gain_tab["gain"].idxmax() == "Day"              # ID3's gain is fooled by the id column
    assert gain_tab.loc["Day", "gain"] == pytest.approx(0.940286, abs=1e-6)
    # the lecture notes' C4.5 (J48's rules off): every candidate counts toward the average gain
    c45 = engine.gain_table(ds, engine.TreeConfig(algorithm="c45", c45_rules=())).set_index("feature")
    assert c45.loc["Day", "gain_ratio"] == pytest.approx(0.940286 / 3.807355, abs=1e-5)
    assert c45.loc["Outlook", "gain_ratio"] == pytest.approx(0.246750 / 1.577406, abs=1e-5)
    # the ratio shrinks Day's lead over Outlook from 3.8x (gain) to 1.6x; with Quinlan's average-gain
    # filter (average 0.283) only Day is eligible here, so C4.5 still splits on it
    assert gain_tab.loc["Day", "gain"] / gain_tab.loc["Outlook", "gain"] > 3.8
    assert c45.loc["Day", "gain_ratio"] / c45.loc["Outlook", "gain_ratio"] < 1.6
    assert list(c45.loc[c45["eligible"]].index) == ["Day"] and c45.loc["Day", "winner"]


def test_j48_rules_refuse_the_day_column():
    # J48 (the C4.5 preset): a multiway split needs two branches holding at least M = 2 cases, and Day's
    # fourteen values hold one each, so Day is no candidate and Outlook wins, as in Weka
    ds = engine.load_sample("play_tennis_day").with_kinds({"Day": "categorical"})
    j48 = engine.gain_table(ds, engine.TreeConfig(algorithm="c45")).set_index("feature")
    assert "Day" not in j48.index and j48.loc["Outlook", "winner"]
    assert j48.loc["Outlook", "gain_ratio"] == pytest.approx(0.246750 / 1.577406, abs=1e-5)
    # with M = 1 Day may split, but with 14 values for 14 rows it does not count toward the average gain
    # (C45ModelSelection: >= 0.3 x rows values), so the average is Outlook's, Humidity's and Wind's ...
    m1 = engine.gain_table(ds, engine.TreeConfig(algorithm="c45", min_samples_leaf=1)).set_index("feature")
    counted = m1.drop(index="Day")["gain"].mean()
    assert list(m1.index[m1["eligible"]]) == [f for f in m1.index if m1.loc[f, "gain"] >= counted - 1e-3]


def test_restaurant_root_is_patrons():
    # Russell & Norvig: Patrons has the highest information gain (0.541 bits) at the root
    ds = engine.load_sample("restaurant")
    table = engine.gain_table(ds, engine.TreeConfig(algorithm="id3")).set_index("feature")
    assert table["gain"].idxmax() == "Pat"
    assert table.loc["Pat", "gain"] == pytest.approx(0.540852, abs=1e-5)
    assert table.loc["Type", "gain"] == pytest.approx(0.0, abs=1e-12)


def test_quinlan_golf_with_an_unknown_outlook():
    # Quinlan (1993), ch. 3: the golf data with the 6th case's outlook unknown gives
    #   outlook = sunny: humidity <= 75: Play (2.0); humidity > 75: Don't Play (3.4/0.4)
    #   outlook = overcast: Play (3.2);  outlook = rain: windy = true: Don't Play (2.4/0.4); false: Play (3.0)
    ds = engine.load_sample("golf")
    tree = engine.fit_tree(ds, engine.TreeConfig(algorithm="c45"))
    pruned = prune_pessimistic(tree, subtree_raising=True, train=ds).tree
    for t in (tree, pruned):
        assert t.root.split.feature == "Outlook" and t.n_leaves == 5
        sunny = t.node(t.root.children[t.root.split.categories.index("sunny")])
        assert sunny.split.describe() == "Humidity <= 75"      # the largest training value below the cut
        leaves = {(leaf.prediction, round(leaf.weight, 1), round(leaf.weight - max(leaf.stats), 1))
                  for leaf in t.leaves}
        assert leaves == {("Play", 2.0, 0.0), ("Don't Play", 3.4, 0.4), ("Play", 3.2, 0.0),
                          ("Don't Play", 2.4, 0.4), ("Play", 3.0, 0.0)}
    # a sunny day with humidity unknown: 2.0/5.4 x Play + 3.4/5.4 x (0.4/3.4 Play) = 2.4/5.4 = 0.444 with
    # the leaf weights rounded as printed; unrounded (2 + 5/13)/(5 + 5/13) = 0.443
    row = pd.DataFrame({"Outlook": ["sunny"], "Temperature": [70.0], "Humidity": [np.nan], "Windy": ["false"]})
    p_play = pruned.predict_proba(row)[0][list(ds.classes).index("Play")]
    assert p_play == pytest.approx((2 + 5 / 13) / (5 + 5 / 13), abs=1e-9)
    assert round(p_play, 2) == 0.44 and abs(p_play - 0.444) < 0.002
    # the midpoint rule of the lecture notes cuts at 77.5 instead
    notes = engine.fit_tree(ds, engine.TreeConfig(algorithm="c45", c45_rules=("min_split", "average_gain")))
    assert "Humidity <= 77.5" in [n.split.describe() for n in notes.internal_nodes]


@pytest.mark.parametrize("base", [2.0, math.e, 10.0])
def test_gain_ratio_is_the_same_in_every_entropy_base(base):
    # Outlook on Play Tennis: gain 0.2467 bits / split info 1.5774 bits = 0.1564, whatever the log's base
    ds = engine.load_sample("play_tennis")
    for rules in ((), None):
        table = engine.gain_table(ds, engine.TreeConfig(algorithm="c45", entropy_base=base, c45_rules=rules,
                                                        min_samples_leaf=1)).set_index("feature")
        assert table.loc["Outlook", "gain_ratio"] == pytest.approx(0.246750 / 1.577406, abs=1e-5)
        assert table.loc["Outlook", "gain"] == pytest.approx(0.246750 * math.log(2) / math.log(base), abs=1e-5)
    num = engine.load_sample("iris")      # the level-wise grower records the same numbers
    tree = engine.fit_tree(num, engine.TreeConfig(criterion="entropy", score="gain_ratio", entropy_base=base))
    bits = engine.fit_tree(num, engine.TreeConfig(criterion="entropy", score="gain_ratio"))
    assert [n.split.gain_ratio for n in tree.internal_nodes] == pytest.approx(
        [n.split.gain_ratio for n in bits.internal_nodes], rel=1e-9)
