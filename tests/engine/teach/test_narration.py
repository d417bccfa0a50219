"""Narration (engine/teach/narration.py) and its translation tables (engine/teach/i18n.py): exact sentences."""

from __future__ import annotations

import re

import pytest

import engine
from engine.teach import i18n
from engine.errors import ConfigError
from engine.teach.narration import (ROW_NOUNS, narrate_step, narrate_step_lines, node_summary, row_noun,
                                    split_text)
from engine.teach.narration_prune_boost import learner_text, narrate_boosting_round, narrate_prune_step

PLAY_TENNIS_EN = [
    "Node 0 (14 days, 9 Yes / 5 No, entropy 0.940) is split on Outlook (Overcast / Rain / Sunny): "
    "the entropy drops from 0.940 to 0.694 and 1 of 3 branches is pure (gain 0.247); "
    "Humidity would gain only 0.152.",
    "Node 1 (4 days, 4 Yes / 0 No, entropy 0.000) becomes a leaf predicting Yes: all days have the same "
    "label. Node 2 (5 days, 3 Yes / 2 No, entropy 0.971) is split on Wind (Strong / Weak): it separates "
    "the days perfectly (gain 0.971); Temperature would gain only 0.020.",
    "Node 3 (5 days, 2 Yes / 3 No, entropy 0.971) is split on Humidity (High / Normal): it separates the "
    "days perfectly (gain 0.971); Temperature would gain only 0.571.",
    "Nodes 4, 5, 6 and 7 become leaves: all days have the same label. "
    "The tree is finished: 5 leaves, depth 2.",
]

PLAY_TENNIS_DE = [
    "Knoten 0 (14 Tage, 9 Yes / 5 No, Entropie 0,940) wird nach Outlook (Overcast / Rain / Sunny) geteilt: "
    "Die Entropie sinkt von 0,940 auf 0,694 und 1 von 3 Zweigen ist rein (Gewinn 0,247); "
    "Humidity brächte nur 0,152.",
    "Knoten 1 (4 Tage, 4 Yes / 0 No, Entropie 0,000) wird ein Blatt mit Vorhersage Yes: Alle Tage haben "
    "dieselbe Klasse. Knoten 2 (5 Tage, 3 Yes / 2 No, Entropie 0,971) wird nach Wind (Strong / Weak) "
    "geteilt: Das trennt die Tage perfekt (Gewinn 0,971); Temperature brächte nur 0,020.",
    "Knoten 3 (5 Tage, 2 Yes / 3 No, Entropie 0,971) wird nach Humidity (High / Normal) geteilt: Das trennt "
    "die Tage perfekt (Gewinn 0,971); Temperature brächte nur 0,571.",
    "Knoten 4, 5, 6 und 7 werden Blätter: Alle Tage haben dieselbe Klasse. "
    "Der Baum ist fertig: 5 Blätter, Tiefe 2.",
]


def _narrate_all(grower, **kw) -> list[str]:
    out = []
    while (rec := grower.step()) is not None:
        out.append(narrate_step(rec, grower, **kw))
    return out


@pytest.fixture(scope="module")
def tennis():
    return engine.load_sample("play_tennis")


@pytest.mark.parametrize("lang, expected", [("en", PLAY_TENNIS_EN), ("de", PLAY_TENNIS_DE)])
def test_play_tennis_id3_every_step_exact(tennis, lang, expected):
    grower = engine.Grower(tennis, engine.TreeConfig(algorithm="id3"))
    assert _narrate_all(grower, lang=lang) == expected


def test_lines_split_stops_from_the_split(tennis):
    grower = engine.Grower(tennis, engine.TreeConfig(algorithm="id3"))
    grower.step()
    lines = narrate_step_lines(grower.step(), grower)
    assert lines == [PLAY_TENNIS_EN[1].split(" Node 2")[0], "Node 2" + PLAY_TENNIS_EN[1].split(" Node 2")[1]]


def test_row_noun_defaults_to_rows_and_can_be_chosen(tennis):
    grower = engine.Grower(tennis, engine.TreeConfig(algorithm="id3"))
    text = narrate_step(grower.step(), grower, noun="row")
    assert text.startswith("Node 0 (14 rows, 9 Yes / 5 No, entropy 0.940)")
    assert row_noun(tennis) == "day" and row_noun("ski") == "row" and row_noun("iris") == "flower"
    assert set(ROW_NOUNS.values()) <= set(i18n.NOUNS)
    assert set(ROW_NOUNS) <= set(engine.SAMPLES)
    with pytest.raises(ConfigError, match="noun must be one of"):
        narrate_step(grower.history[0], grower, noun="lemming")


def test_unknown_language_is_a_config_error(tennis):
    grower = engine.Grower(tennis, engine.TreeConfig(algorithm="id3"))
    rec = grower.step()
    with pytest.raises(ConfigError, match="lang must be one of de, en, not 'fr'"):
        narrate_step(rec, grower, lang="fr")


def test_c45_names_the_feature_the_average_gain_filter_excluded():
    ds = engine.load_sample("play_tennis_numeric")
    # the lecture notes' C4.5 (J48's rules off, which would drop Temperature's threshold after the MDL
    # correction and cut Humidity at the training value 75)
    grower = engine.Grower(ds, engine.TreeConfig(algorithm="c45", c45_rules=(), min_samples_leaf=1))
    texts = _narrate_all(grower)
    assert texts[0] == (
        "Node 0 (14 days, 9 Yes / 5 No, entropy 0.940) is split on Outlook (Overcast / Rain / Sunny): "
        "the entropy drops from 0.940 to 0.694 and 1 of 3 branches is pure (gain ratio 0.156, gain 0.247); "
        "no other feature passes the average-gain filter; Temperature has a higher gain ratio (0.305) but a "
        "gain below the average, so it may not compete.")
    assert texts[2] == (
        "Node 3 (5 days, 2 Yes / 3 No, entropy 0.971) is split on Humidity at 77.5: it separates the days "
        "perfectly (gain ratio 1.000, gain 0.971); no other feature passes the average-gain filter.")
    grower.reset()
    de = _narrate_all(grower, lang="de")
    assert de[2] == (
        "Knoten 3 (5 Tage, 2 Yes / 3 No, Entropie 0,971) wird nach Humidity bei 77,5 geteilt: Das trennt die "
        "Tage perfekt (Gewinnverhältnis 1,000, Gewinn 0,971); kein anderes Merkmal besteht den Filter des "
        "durchschnittlichen Gewinns.")


def test_j48_narration_uses_j48s_filter():
    ds = engine.load_sample("play_tennis_numeric")
    texts = _narrate_all(engine.Grower(ds, engine.TreeConfig(algorithm="c45")))
    assert texts[0].startswith("Node 0 (14 days, 9 Yes / 5 No, entropy 0.940) is split on Outlook")
    assert "Humidity at 75:" in texts[2]


def test_cart_threshold_tie_and_max_depth_leaves():
    grower = engine.Grower(engine.load_sample("iris"), engine.TreeConfig(algorithm="cart", max_depth=2))
    texts = _narrate_all(grower)
    assert texts[0] == (
        "Node 0 (150 flowers, 50 setosa / 50 versicolor / 50 virginica, Gini 0.667) is split on petal_length "
        "at 2.45: the Gini impurity drops from 0.667 to 0.333 and 1 of 2 branches is pure (gain 0.333); "
        "petal_width would score just as much (0.333), but the earlier column wins the tie.")
    assert texts[1].endswith("is split on petal_width at 1.75: the Gini impurity drops from 0.500 to 0.110 "
                             "(gain 0.390); petal_length would gain only 0.374.")
    assert texts[2] == ("Nodes 3 and 4 become leaves: the maximum depth is reached. "
                        "The tree is finished: 3 leaves, depth 2.")


def test_cart_subset_split_and_single_leaf_with_reason():
    grower = engine.Grower(engine.load_sample("restaurant"), engine.TreeConfig(algorithm="cart", max_depth=2))
    texts = _narrate_all(grower)
    assert texts[0].startswith("Node 0 (12 visits, 6 No / 6 Yes, Gini 0.500) is split on Pat ({Full, None} "
                               "vs. the rest): ")
    assert ("Node 4 (4 visits, 2 No / 2 Yes, Gini 0.500) becomes a leaf predicting No: the maximum depth is "
            "reached.") in texts[-1]


def test_regression_node_summary_uses_mean_and_variance():
    grower = engine.Grower(engine.load_sample("diabetes"), engine.TreeConfig(max_depth=1))
    text = narrate_step(grower.step(), grower)
    root = grower.tree.root
    assert text.startswith(f"Node 0 (442 patients, mean {root.value[0]:.1f}, variance {root.impurity:.1f}) "
                           "is split on s5 at 4.60015: the variance drops from ")
    assert narrate_step(grower.step(), grower) == (
        "Nodes 1 and 2 become leaves: the maximum depth is reached. The tree is finished: 2 leaves, depth 1.")


def test_many_branches_are_counted_and_long_node_lists_cut():
    ds = engine.load_sample("play_tennis_day").with_kinds({"Day": "categorical"})
    grower = engine.Grower(ds, engine.TreeConfig(algorithm="id3"))
    texts = _narrate_all(grower)
    assert texts[0] == ("Node 0 (14 days, 9 Yes / 5 No, entropy 0.940) is split on Day (14 branches): it "
                        "separates the days perfectly (gain 0.940); Outlook would gain only 0.247.")
    assert texts[1] == ("Nodes 1, 2, 3, 4, 5, 6, 7 and 7 more become leaves: all days have the same label. "
                        "The tree is finished: 14 leaves, depth 1.")


def test_forced_split_compares_with_the_best_choice(tennis):
    grower = engine.Grower(tennis, engine.TreeConfig(algorithm="id3"))
    wind = next(s for s in grower.candidates(0) if s.feature == "Wind")
    assert narrate_step(grower.expand(0, wind), grower) == (
        "Node 0 (14 days, 9 Yes / 5 No, entropy 0.940) is split by hand on Wind (Strong / Weak): the entropy "
        "drops from 0.940 to 0.892 (gain 0.048); the best choice would have been Outlook (gain 0.247).")
    best = grower.candidates(0)[0]
    assert narrate_step(grower.expand(0, best), grower, lang="de").endswith(
        "(Gewinn 0,247); das ist auch die beste Wahl.")


def test_forced_threshold_names_the_best_threshold():
    ds = engine.load_sample("play_tennis_numeric")
    grower = engine.Grower(ds, engine.TreeConfig(algorithm="cart"))
    hum = next(s for s in grower.candidates(0) if s.feature == "Humidity")
    forced = engine.Split(feature="Humidity", feature_index=hum.feature_index, kind="threshold", threshold=90.0)
    text = narrate_step(grower.expand(0, forced), grower)
    assert "is split by hand on Humidity at 90: " in text
    assert text.endswith(f"the best choice would have been {split_text(grower.candidates(0)[0])} "
                         f"(gain {grower.candidates(0)[0].gain:.3f}).")


def test_collapse(tennis):
    grower = engine.Grower(tennis, engine.TreeConfig(algorithm="id3")).grow()
    assert narrate_step(grower.collapse(2), grower) == (
        "Node 2 (5 days, 3 Yes / 2 No, entropy 0.971) is collapsed by hand into a leaf predicting Yes.")
    grower.undo()
    assert narrate_step(grower.collapse(0), grower, lang="de") == (
        "Knoten 0 (14 Tage, 9 Yes / 5 No, Entropie 0,940) wird von Hand zu einem Blatt mit Vorhersage Yes "
        "zusammengefasst.")


def test_prune_steps(tennis):
    tree = engine.fit_tree(tennis, engine.TreeConfig(algorithm="id3"))
    assert narrate_prune_step(tree, 2, alpha=0.0714, noun="day") == (
        "Pruning node 2 (5 days, 3 Yes / 2 No, entropy 0.971) to a leaf predicting Yes removes 1 leaf; its "
        "effective α = 0.0714 is the smallest in the tree.")
    assert narrate_prune_step(tree, 0, measure="validation", before=0.1, after=0.3, noun="day", lang="de") == (
        "Knoten 0 (14 Tage, 9 Yes / 5 No, Entropie 0,940) wird zu einem Blatt mit Vorhersage Yes gestutzt, "
        "dabei fallen 4 Blätter weg; der Validierungsfehler geht von 0,100 auf 0,300.")
    assert narrate_prune_step(tree, 3, measure="pessimistic", before=0.5, after=2.5, pruned=False) == (
        "Node 3 (5 rows, 2 Yes / 3 No, entropy 0.971) keeps its subtree: as a leaf, the estimated error would "
        "go from 0.500 to 2.500.")
    with pytest.raises(ConfigError, match="already a leaf"):
        narrate_prune_step(tree, 1)
    with pytest.raises(ConfigError, match="measure must be one of"):
        narrate_prune_step(tree, 2, measure="vibes", before=1, after=2)
    with pytest.raises(ConfigError, match="before and after"):
        narrate_prune_step(tree, 2, measure="validation", before=1)
    with pytest.raises(ConfigError, match="before and after"):
        narrate_prune_step(tree, 2, pruned=False)


def test_boosting_rounds(tennis):
    stump = engine.fit_tree(tennis, engine.TreeConfig(max_depth=1))
    assert learner_text(stump) == "the stump Outlook ({Rain, Sunny} vs. the rest)"
    deep = engine.fit_tree(tennis, engine.TreeConfig(algorithm="id3"))
    assert learner_text(deep, "de") == "Ein Baum mit 5 Blättern"
    assert narrate_boosting_round(2, stump, error=0.214, alpha=0.65, n_wrong=3, n_rows=14, factor=3.67,
                                  noun="day") == (
        "Round 2: the stump Outlook ({Rain, Sunny} vs. the rest) misclassifies 3 of 14 days (weighted error "
        "0.214), so its vote weight is α = 0.650; the weights of the misclassified days grow by a factor of "
        "3.670 before normalising.")
    assert narrate_boosting_round(2, "Humidity <= 75", error=0.25, alpha=0.549, n_wrong=2.5, n_rows=14,
                                  lang="de", noun="day") == (
        "Runde 2: Humidity <= 75 klassifiziert 2,5 der 14 Tage falsch (gewichteter Fehler 0,250), daher ist "
        "sein Stimmgewicht α = 0,549.")
    assert narrate_boosting_round(3, stump, error=0.0, alpha=0.0, n_wrong=0, n_rows=14) == (
        "Round 3: the stump Outlook ({Rain, Sunny} vs. the rest) classifies all rows correctly (weighted error "
        "0); boosting stops here because nothing is left to correct.")
    assert narrate_boosting_round(4, "h", error=0.5, alpha=0.0, n_wrong=7, n_rows=14, lang="de") == (
        "Runde 4: h ist nicht besser als Raten (gewichteter Fehler 0,500); das Boosting endet hier.")
    assert "weighted error 0.600" in narrate_boosting_round(4, "h", error=0.6, alpha=0, n_wrong=9, n_rows=14,
                                                            chance=2 / 3)
    with pytest.raises(ConfigError, match="between 0 and 1"):
        narrate_boosting_round(1, "h", error=1.5, alpha=0, n_wrong=1, n_rows=2)


# ------------------------------------------------------------------------------ i18n tables
def test_every_language_has_every_message_with_the_same_placeholders():
    en = i18n.MESSAGES["en"]
    for lang, table in i18n.MESSAGES.items():
        assert set(table) == set(en), lang
        for msg_id, template in table.items():
            assert i18n.placeholders(template) == i18n.placeholders(en[msg_id]), (lang, msg_id)
    assert set(i18n.LANGUAGES) == set(i18n.MESSAGES) == set(i18n.DECIMAL)
    for forms in i18n.NOUNS.values():
        assert set(forms) == set(i18n.MESSAGES)


def test_plural_pairs_are_complete():
    for table in i18n.MESSAGES.values():
        stems = {k.rsplit(".", 1)[0] for k in table if k.endswith((".one", ".other"))}
        for stem in stems:
            assert f"{stem}.one" in table and f"{stem}.other" in table


def test_every_stop_reason_has_a_sentence():
    from engine.grow.stopping import STOP_REASONS
    for table in i18n.MESSAGES.values():
        for reason in STOP_REASONS:
            assert f"reason.{reason}" in table


def test_formatting_helpers():
    assert i18n.fmt(0.97095, "de") == "0,971" and i18n.fmt(0.97095) == "0.971"
    assert i18n.fmt(5929.88) == "5929.9" and i18n.fmt(-0.0001) == "0.000" and i18n.fmt(float("nan")) == "–"
    assert i18n.fmt_count(5.0) == "5" and i18n.fmt_count(2.5, "de") == "2,5"
    assert i18n.fmt_value(72.5, "de") == "72,5" and i18n.fmt_value(84.0) == "84"
    assert i18n.join_words(["a"]) == "a" and i18n.join_words(["a", "b", "c"], "de") == "a, b und c"
    assert i18n.noun("day", 1) == "day" and i18n.noun("day", 2, "de") == "Tage"
    with pytest.raises(ConfigError, match="no message 'nope'"):
        i18n.t("nope")


@pytest.mark.parametrize("name, algorithm", [
    ("restaurant", "id3"), ("titanic_small", "c45"), ("ski", "cart"), ("wine", "cart"), ("diabetes", "cart")])
@pytest.mark.parametrize("lang", ["en", "de"])
def test_every_step_on_the_samples_is_narrated_with_the_gain_table_numbers(name, algorithm, lang):
    grower = engine.Grower(engine.load_sample(name), engine.TreeConfig(algorithm=algorithm, max_depth=3))
    while (rec := grower.step()) is not None:
        text = narrate_step(rec, grower, lang=lang)
        assert text.endswith(".")
        if rec.split is None or rec.split.kind != "subset":
            assert "{" not in text and "}" not in text
        if rec.split is not None:
            assert i18n.fmt(rec.split.gain, lang) in text
            assert text.count(i18n.t("node", lang, id=rec.node_id)) >= 1
        for nid, _ in rec.stopped:
            assert re.search(rf"\b{nid}\b", text)
    assert node_summary(grower.tree, 0, lang=lang).startswith(i18n.t("node", lang, id=0) + " (")


def test_adaboost_rounds_of_the_ensemble_engine():
    from engine.ensembles.boosting import fit_adaboost
    from engine.teach.narration_prune_boost import narrate_boost_round

    ens = fit_adaboost(engine.load_sample("ski"), n_rounds=2)
    first = ens.rounds[0]
    assert narrate_boost_round(first) == (
        "Round 1: the stump Altitude <= 2440 -> bad | good misclassifies 20 of 80 rows (weighted error 0.250), "
        "so its vote weight is α = 1.099; the weights of the correctly classified rows are multiplied by "
        "0.333; after normalising, the misclassified rows carry 0.500 of the total weight.")
    assert narrate_boost_round(first, lang="de") == (
        "Runde 1: Der Stumpf Altitude <= 2440 -> bad | good klassifiziert 20 der 80 Zeilen falsch (gewichteter "
        "Fehler 0,250), daher ist sein Stimmgewicht α = 1,099; die Gewichte der richtig klassifizierten Zeilen "
        "werden mit 0,333 multipliziert; nach dem Normieren tragen die falsch klassifizierten Zeilen 0,500 des "
        "Gesamtgewichts.")
    deep = fit_adaboost(engine.load_sample("ski"), n_rounds=1, base="tree", max_depth=2).rounds[0]
    assert narrate_boost_round(deep).startswith(f"Round 1: the learner ({deep.learner}) misclassifies ")


def test_prune_results_of_the_pruning_engine(tennis):
    from engine.teach.narration_prune_boost import narrate_prune_result
    from engine.prune.reduced_error import prune_manual, prune_reduced_error
    from engine.prune.pessimistic import prune_pessimistic
    from engine.prune.cost_complexity import prune_ccp

    tree = engine.fit_tree(tennis, engine.TreeConfig(algorithm="id3"))
    assert narrate_prune_result(prune_manual(tree, [2, 3]), noun="day") == [
        "Pruning node 2 (5 days, 3 Yes / 2 No, entropy 0.971) to a leaf predicting Yes removes 1 leaf.",
        "Pruning node 3 (5 days, 2 Yes / 3 No, entropy 0.971) to a leaf predicting No removes 1 leaf."]
    ccp = prune_ccp(tree, alpha=1.0)
    lines = narrate_prune_result(ccp, lang="de", noun="day")
    assert len(lines) == len(ccp.steps) >= 1
    for line, step in zip(lines, ccp.steps):
        assert f"Knoten {step.node_id} (" in line
        assert f"α = {step.number('g(t)'):.4g}".replace(".", ",") in line
    assert "dabei fallen 4 Blätter weg" in lines[-1]  # the root is the weakest link: 5 -> 1 leaf

    moons = engine.load_sample("noisy_moons").split(test_size=0.25, validation_size=0.25, seed=0)
    big = engine.fit_tree(moons.train, engine.TreeConfig())
    rep = prune_reduced_error(big, moons.validation)
    lines = narrate_prune_result(rep, noun="point")
    assert len(lines) == len(rep.steps)
    for line, step in zip(lines, rep.steps):
        errors = (int(step.numbers[1][1]), int(step.numbers[2][1]))
        if step.action == "keep":
            assert line.endswith(f"keeps its subtree: as a leaf, the validation error would go from "
                                 f"{errors[0]} to {errors[1]}.")
        else:
            assert line.startswith(f"Pruning node {step.node_id} (")
            assert line.endswith(f"the validation error goes from {errors[0]} to {errors[1]}.")
    raised = prune_pessimistic(big, subtree_raising=True, train=moons.train)
    lines = narrate_prune_result(raised)
    first_raise = next(i for i, s in enumerate(raised.steps) if s.action.startswith("raise"))
    assert lines[first_raise] == f"Node {raised.steps[first_raise].node_id}: {raised.steps[first_raise].note}"
    assert all("estimated error" in line for line in lines[:first_raise])


def test_a_leaf_closed_by_hand_does_not_finish_the_tree(tennis):
    # Split node 1 now (the inspector's button): node 1 (Overcast) is pure and closes; 2 and 3 stay open
    grower = engine.Grower(tennis, engine.TreeConfig(algorithm="id3"))
    grower.step()
    rec = grower.step(1)
    assert rec.action == "finish" and rec.node_id == 1 and set(grower.open_nodes) == {2, 3}
    text = narrate_step(rec, grower)
    assert "finished" not in text
    assert text == ("Node 1 (4 days, 4 Yes / 0 No, entropy 0.000) becomes a leaf predicting Yes: all days have "
                    "the same label. Other leaves are still open: Step goes on with them.")
    assert "fertig" not in narrate_step(rec, grower, lang="de")
    # closing the last open leaf by hand does finish it
    grower.grow()
    last = grower.history[-1]
    assert last.node_id is None and "The tree is finished" in narrate_step(last, grower)


def test_gradient_boosting_rounds_in_english_and_german():
    from engine.ensembles import fit_gradient_boosting
    from engine.teach.narration_prune_boost import narrate_gradient_round, narrate_gradient_start
    split = engine.load_sample("diabetes").split(test_size=0.3, seed=1)
    ens = fit_gradient_boosting(split.train, n_estimators=4, max_depth=1, test=split.test)
    assert narrate_gradient_start(ens, noun="patient") == "Start: F₀ = 145.3 for all patients, the mean of the target."
    assert narrate_gradient_start(ens, noun="patient", lang="de") == (
        "Start: F₀ = 145,3 für alle Patienten, der Mittelwert des Ziels.")
    assert narrate_gradient_round(ens, 1, noun="patient") == (
        "Round 2: a tree with 2 leaves is grown on the pseudo-residuals (target − F) of 309 patients, first split "
        "bmi at 27.35; learning rate 0.1 × each leaf's value is added to the running prediction F. The training "
        "loss goes from 5179.0 to 4926.6; the test loss is 6503.5; it is lowest after round 4.")
    assert narrate_gradient_round(ens, 1, noun="patient", lang="de") == (
        "Runde 2: Auf den Pseudo-Residuen (Ziel − F) von 309 Patienten wird ein Baum mit 2 Blättern gelernt, "
        "erster Split bmi bei 27,35; Lernrate 0,1 × Blattwert wird zur laufenden Vorhersage F addiert. Der "
        "Trainingsverlust geht von 5179,0 auf 4926,6; der Testverlust ist 6503,5; am kleinsten ist er nach Runde 4.")
    iris = fit_gradient_boosting(engine.load_sample("iris"), n_estimators=2, subsample=0.5)
    text = narrate_gradient_round(iris, 0, noun="flower")
    assert text.startswith("Round 1: 3 trees (one per class, ") and " of 75 flowers, " in text
    assert "one Newton step: sum of the residuals / sum of p(1 − p)." in text
