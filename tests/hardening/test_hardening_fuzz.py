"""Hardening: every value a widget can send reaches an engine entry point that checks it again.

A widget limits what a polite browser sends, but the engine is the last line: a tampered websocket
message, a stale session value or a bug in a page can hand it anything. Each entry point below is
called with one parameter replaced by a hostile value (wrong type, NaN, infinities, negative, huge,
text, containers, arrays, objects) while the others stay valid. The only acceptable outcomes:

- it works (the value happened to be acceptable), or
- it raises an :class:`engine.errors.EngineError` subclass whose message is one readable sentence.

Any other exception type (TypeError, KeyError, IndexError, ValueError that is not a ConfigError,
MemoryError, ...) is a bug: the app would show its apology box instead of saying what is wrong.
Huge counts (folds, runs, repeats, members, points) must be refused by a limit, not attempted.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine import ensembles as ens
from engine.evaluate import validation as evaluation, metrics, stability
from engine.prune import (records as pruning, bottom_up as pruning_bottomup, pessimistic as pruning_c45,
                          cost_complexity as pruning_ccp)
from engine.prune import mdl as prune_mdl, methods as prune_methods
from engine.teach import theory
from engine.config import TreeConfig
from engine.evaluate.curves import depth_curve, growth_curve, learning_curve
from engine.errors import ConfigError, DataError, EngineError
from engine.split.gain import candidate_scan, explain_gain
from engine.teach.quiz import QuizAnswer, judge, make_question

# ------------------------------------------------------------------------------- hostile values
class Opaque:
    """Some object the engine has never heard of (with a stable repr for test ids)."""

    def __repr__(self) -> str:
        return "Opaque()"


NASTY = [
    None, True, False, 0, -1, -(10**12), 10**12, 10**40, 1.5, -0.5, 0.0, 1e-300, 1e300,
    float("nan"), float("inf"), float("-inf"), "", "x", "0", "1", "-1", "nan", " ", "\x00",
    "<script>alert(1)</script>", "]; n0 -> n1 [", [], [0], [1, 2], (1,), {}, {"a": 1}, set(),
    b"\x00", np.nan, np.int64(-5), np.int64(10**12), np.float64("nan"), np.array([1, 2]),
    np.array([]), np.zeros((2, 2)), Opaque(), complex(1, 2), pd.NA, pd.Timestamp("2024-01-01"),
]

hostile = st.one_of(
    st.sampled_from(NASTY),
    st.integers(min_value=-(10**30), max_value=-1),
    st.integers(min_value=10**6, max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.lists(st.integers(-3, 30), max_size=4),
    st.dictionaries(st.text(max_size=4), st.integers(-2, 2), max_size=3),
)

FUZZ = settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                        HealthCheck.too_slow])


def assert_sentence(err: BaseException) -> None:
    """An engine error's message: plain, non-empty, short, ending like a sentence."""
    msg = str(err)
    assert msg.strip(), f"{type(err).__name__} without a message"
    assert "Traceback" not in msg and len(msg) < 600, msg
    assert msg.rstrip().endswith((".", "?", "!")), msg


def only_engine_errors(call, value) -> None:
    """``call(value)`` works or raises an EngineError with a sentence; anything else fails the test."""
    try:
        call(value)
    except EngineError as err:
        assert_sentence(err)
    except Exception as err:  # noqa: BLE001 - the point of the test
        pytest.fail(f"{type(err).__name__} escaped for {value!r}: {err}")


# ----------------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def tennis():
    return engine.load_sample("play_tennis")


@pytest.fixture(scope="module")
def numeric():
    return engine.load_sample("play_tennis_numeric")


@pytest.fixture(scope="module")
def iris_split():
    return engine.load_sample("iris").split(test_size=0.3, validation_size=0.2, seed=0)


@pytest.fixture(scope="module")
def diabetes():
    return engine.load_sample("diabetes").subset(np.arange(120))


@pytest.fixture(scope="module")
def iris_tree(iris_split):
    return engine.fit_tree(iris_split.train, TreeConfig(max_depth=4))


@pytest.fixture(scope="module")
def forest(iris_split):
    return ens.fit_random_forest(iris_split.train, n_estimators=5, random_state=0)


# ----------------------------------------------------------------------------------- TreeConfig
CONFIG_FIELDS = [f for f in TreeConfig.__dataclass_fields__]


@pytest.mark.parametrize("field", CONFIG_FIELDS)
@FUZZ
@given(value=hostile)
def test_tree_config_field_only_raises_config_error(field, value):
    try:
        cfg = TreeConfig(**{field: value})
    except ConfigError as err:
        assert_sentence(err)
        assert field in str(err), f"the message should name {field}: {err}"
        return
    except Exception as err:  # noqa: BLE001
        pytest.fail(f"TreeConfig({field}={value!r}) raised {type(err).__name__}: {err}")
    # accepted: then it is a value a grower can use
    kept = getattr(cfg, field)
    # c45_rules is a set of rule names: a list or set is kept as a (hashable) tuple of the same names
    assert kept is value or kept == value or (field == "c45_rules" and sorted(kept) == sorted(value))


@FUZZ
@given(data=st.one_of(hostile, st.dictionaries(st.sampled_from(CONFIG_FIELDS + ["bogus", 3]), hostile,
                                               max_size=3)))
def test_tree_config_from_dict_only_raises_config_error(data):
    try:
        TreeConfig.from_dict(data)
    except ConfigError as err:
        assert_sentence(err)
    except Exception as err:  # noqa: BLE001
        pytest.fail(f"TreeConfig.from_dict({data!r}) raised {type(err).__name__}: {err}")


@FUZZ
@given(values=st.fixed_dictionaries({}, optional={f: hostile for f in CONFIG_FIELDS}))
def test_any_accepted_config_grows_a_tree(tennis, values):
    """Whatever TreeConfig accepts must also be usable: growth raises at most an EngineError."""
    try:
        cfg = TreeConfig(**values)
    except ConfigError:
        return
    cfg = TreeConfig(**{**cfg.to_dict(), "max_depth": 3 if cfg.max_depth is None else min(cfg.max_depth, 3)})
    only_engine_errors(lambda _: engine.fit_tree(tennis, cfg), None)


# ------------------------------------------------------------------------------------ Dataset
@pytest.mark.parametrize("param", ["test_size", "validation_size", "seed"])
@FUZZ
@given(value=hostile)
def test_dataset_split(tennis, param, value):
    only_engine_errors(lambda v: tennis.split(**{param: v}), value)


@pytest.mark.parametrize("method", ["with_kinds", "with_target", "with_task", "with_features", "subset"])
@FUZZ
@given(value=hostile)
def test_dataset_edits(tennis, method, value):
    only_engine_errors(lambda v: getattr(tennis, method)(v), value)


@FUZZ
@given(kinds=st.dictionaries(st.sampled_from(["Outlook", "Temp", "Play", "nope", "", 3]),
                             st.one_of(st.sampled_from(["numeric", "categorical", "ignore", "target"]), hostile),
                             max_size=3))
def test_dataset_with_kinds_values(numeric, kinds):
    only_engine_errors(numeric.with_kinds, kinds)


LOAD_PARAMS = ["target", "kinds", "task", "max_columns", "max_categories", "max_rows"]


@pytest.mark.parametrize("param", LOAD_PARAMS)
@FUZZ
@given(value=hostile)
def test_load_csv_options(param, value):
    csv = b"colour,size,label\nred,1,yes\nblue,2,no\nred,3,yes\ngreen,4,no\n"
    only_engine_errors(lambda v: engine.load_csv(csv, **{param: v}), value)


@FUZZ
@given(value=hostile)
def test_load_csv_source(value):
    if isinstance(value, str) and value:
        value = "/nonexistent/" + value  # never read a real file by accident
    only_engine_errors(engine.load_csv, value)


@pytest.mark.parametrize("value", ["/", "/proc/self/mem", "/dev/null", "/nonexistent.csv"])
def test_load_csv_odd_paths(value):
    only_engine_errors(engine.load_csv, value)


# ------------------------------------------------------------------------------------- Grower
@pytest.fixture
def grower(tennis):
    g = engine.Grower(tennis, TreeConfig(algorithm="id3"))
    g.step()
    g.step()
    return g


GROWER_NODE_CALLS = {
    "expand": lambda g, v: g.expand(v, g.candidates(0)[0]),
    "collapse": lambda g, v: g.collapse(v),
    "candidates": lambda g, v: g.candidates(v),
    "gain_table": lambda g, v: g.gain_table(v),
    "node_rows": lambda g, v: g.node_rows(v),
    "candidate_scan": lambda g, v: candidate_scan(g, v, "Outlook"),
    "tree.node": lambda g, v: g.tree.node(v),
    "tree.prune_to_leaf": lambda g, v: g.tree.prune_to_leaf(v),
    "tree.subtree_ids": lambda g, v: g.tree.subtree_ids(v),
    "tree.walk": lambda g, v: list(g.tree.walk(v)),
}
BAD_IDS = [-1, -(10**20), 99, 10**20, 1.5, 1.0, "0", "", None, True, np.int64(99), np.int64(-1),
           float("nan"), float("inf"), [0], (0,), np.array([0]), Opaque()]


@pytest.mark.parametrize("call", sorted(GROWER_NODE_CALLS))
@pytest.mark.parametrize("node_id", BAD_IDS, ids=repr)
def test_node_ids_are_checked(grower, call, node_id):
    history = len(grower.history)
    before = grower.tree.to_dict()
    only_engine_errors(lambda v: GROWER_NODE_CALLS[call](grower, v), node_id)
    if call in ("expand", "collapse") and not isinstance(node_id, (int, np.integer)):
        # a refused id changes nothing
        assert len(grower.history) == history and grower.tree.to_dict() == before


def test_node_id_true_is_not_node_one(grower):
    """``True == 1`` in Python; a checkbox value must not select node 1."""
    with pytest.raises(ConfigError):
        grower.collapse(True)
    with pytest.raises((ConfigError, DataError)):
        grower.tree.node(True)


@FUZZ
@given(split=hostile)
def test_expand_with_something_that_is_not_a_split(grower, split):
    before = grower.tree.to_dict()
    only_engine_errors(lambda v: grower.expand(0, v), split)
    assert grower.tree.to_dict() == before


def test_expand_with_a_split_from_another_data_set(grower, numeric):
    other = engine.Grower(numeric, TreeConfig(algorithm="c45")).candidates(0)[0]
    only_engine_errors(lambda v: grower.expand(0, v), other)


@FUZZ
@given(feature=st.one_of(hostile, st.sampled_from(["Play", "play", "Outlook ", "Temperature"])))
def test_candidate_scan_feature(grower, feature):
    only_engine_errors(lambda v: candidate_scan(grower, 0, v), feature)


@pytest.mark.parametrize("param", ["sample_weight", "validation_data", "config"])
@FUZZ
@given(value=hostile)
def test_grower_construction(tennis, param, value):
    only_engine_errors(lambda v: engine.Grower(tennis, **{param: v}), value)


@FUZZ
@given(value=hostile)
def test_tree_predict_and_paths(iris_tree, value):
    only_engine_errors(iris_tree.predict, value)
    only_engine_errors(iris_tree.apply, value)
    only_engine_errors(iris_tree.decision_path, value)
    only_engine_errors(lambda v: iris_tree.regions(v, "petal_width"), value)
    only_engine_errors(lambda v: explain_gain(engine.Grower(engine.load_sample("play_tennis"),
                                                            TreeConfig()).candidates(0)[0], v), value)


@FUZZ
@given(feature=hostile, threshold=hostile)
def test_quiz_answers(tennis, feature, threshold):
    q = make_question(engine.Grower(engine.load_sample("play_tennis_numeric"), TreeConfig(algorithm="c45")))
    only_engine_errors(lambda _: judge(q, QuizAnswer(feature, threshold)), None)


# ------------------------------------------------------------------------------------ pruning
def prune_calls(split, tree):
    return {
        "reduced_error.validation": lambda v: prune_methods.prune_reduced_error(tree, v),
        "manual.node_ids": lambda v: prune_methods.prune_manual(tree, v),
        "manual.node_id": lambda v: prune_methods.prune_manual(tree, [v]),
        "prune.method": lambda v: prune_methods.prune(tree, v),
        "ccp.alpha": lambda v: pruning_ccp.prune_ccp(tree, v),
        "ccp_path.train": lambda v: pruning_ccp.ccp_path(tree, train=v),
        "ccp_path.validation": lambda v: pruning_ccp.ccp_path(tree, validation=v),
        "ccp_cv.k": lambda v: pruning_ccp.ccp_cross_validate(split.train, TreeConfig(max_depth=3), k=v),
        "ccp_cv.seed": lambda v: pruning_ccp.ccp_cross_validate(split.train, TreeConfig(max_depth=3), k=3,
                                                                seed=v),
        "ccp_cv.config": lambda v: pruning_ccp.ccp_cross_validate(split.train, v, k=3),
        "pessimistic.cf": lambda v: pruning_c45.prune_pessimistic(tree, cf=v),
        "pessimistic.subtree_raising": lambda v: pruning_c45.prune_pessimistic(tree, subtree_raising=v),
        "pessimistic.collapse": lambda v: pruning_c45.prune_pessimistic(tree, collapse=v),
        "pessimistic.train": lambda v: pruning_c45.prune_pessimistic(tree, train=v),
        "c45_node_table.cf": lambda v: pruning_c45.c45_node_table(tree, v),
        "upper_error_rate.n": lambda v: pruning_c45.upper_error_rate(v, 1, 0.25),
        "upper_error_rate.e": lambda v: pruning_c45.upper_error_rate(10, v, 0.25),
        "upper_error_rate.cf": lambda v: pruning_c45.upper_error_rate(10, 1, v),
        "bottom_up.evaluation": lambda v: pruning_bottomup.prune_bottom_up(
            tree, evaluation=v, train=split.train, validation=split.validation),
        "bottom_up.delta": lambda v: pruning_bottomup.prune_bottom_up(tree, evaluation="mdl", train=split.train,
                                                                      delta=v),
        "bottom_up.cf": lambda v: pruning_bottomup.prune_bottom_up(tree, evaluation="pessimistic",
                                                                   train=split.train, cf=v),
        "bottom_up.validation": lambda v: pruning_bottomup.prune_bottom_up(tree, validation=v),
    }


PRUNE_CALLS = sorted(prune_calls(None, None))


@pytest.mark.parametrize("name", PRUNE_CALLS)
@settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(value=hostile)
def test_pruning_entry_points(iris_split, iris_tree, name, value):
    only_engine_errors(prune_calls(iris_split, iris_tree)[name], value)


def test_pruning_never_changes_the_tree(iris_split, iris_tree):
    before = iris_tree.to_dict()
    for call in prune_calls(iris_split, iris_tree).values():
        for value in (None, -1, "x", float("nan")):
            try:
                call(value)
            except EngineError:
                pass
    assert iris_tree.to_dict() == before


# --------------------------------------------------------------------------------- evaluation
def evaluation_calls(split, tree, reg):
    cfg = TreeConfig(max_depth=3)
    tr, te = (split.train, split.test) if split is not None else (None, None)
    return {
        "evaluate.dataset": lambda v: metrics.evaluate(tree, v),
        "score.metric": lambda v: metrics.score(tree, te, v),
        "check_metric": lambda v: metrics.check_metric(v, "classification"),
        "cross_validate.k": lambda v: evaluation.cross_validate(tr, cfg, k=v),
        "cross_validate.seed": lambda v: evaluation.cross_validate(tr, cfg, k=3, seed=v),
        "cross_validate.config": lambda v: evaluation.cross_validate(tr, v, k=3),
        "cross_validate.regression_k": lambda v: evaluation.cross_validate(reg, cfg, k=v),
        "kfold.n": lambda v: evaluation.kfold_indices(v, 3),
        "kfold.k": lambda v: evaluation.kfold_indices(20, v),
        "kfold.y": lambda v: evaluation.kfold_indices(4, 2, y=v),
        "holdout.test_size": lambda v: evaluation.holdout(tr, None, test_size=v),
        "holdout.seed": lambda v: evaluation.holdout(tr, None, seed=v),
        "fit_for_evaluation.seed": lambda v: evaluation.fit_for_evaluation(tr, cfg, seed=v),
        "learning_curve.sizes": lambda v: learning_curve(tr, te, cfg, sizes=v, repeats=1),
        "learning_curve.repeats": lambda v: learning_curve(tr, te, cfg, sizes=(0.5,), repeats=v),
        "learning_curve.seed": lambda v: learning_curve(tr, te, cfg, sizes=(0.5,), repeats=1, seed=v),
        "learning_curve.metric": lambda v: learning_curve(tr, te, cfg, sizes=(0.5,), repeats=1, metric=v),
        "learning_curve.test": lambda v: learning_curve(tr, v, cfg, sizes=(0.5,), repeats=1),
        "instability.runs": lambda v: stability.instability(tr, te, cfg, runs=v),
        "instability.method": lambda v: stability.instability(tr, te, cfg, runs=2, method=v),
        "instability.fraction": lambda v: stability.instability(tr, te, cfg, runs=2, fraction=v),
        "instability.seed": lambda v: stability.instability(tr, te, cfg, runs=2, seed=v),
        "instability.metric": lambda v: stability.instability(tr, te, cfg, runs=2, metric=v),
        "perturb.method": lambda v: stability.perturb(tr, v),
        "perturb.fraction": lambda v: stability.perturb(tr, "flip", fraction=v),
        "growth_curve.sets": lambda v: growth_curve(tree, v),
        "growth_curve.order": lambda v: growth_curve(tree, [("test", te)], order=v),
        "depth_curve.sets": lambda v: depth_curve(tree, v),
    }


EVAL_CALLS = sorted(evaluation_calls(None, None, None))


@pytest.mark.parametrize("name", EVAL_CALLS)
@settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(value=hostile)
def test_evaluation_entry_points(iris_split, iris_tree, diabetes, name, value):
    only_engine_errors(evaluation_calls(iris_split, iris_tree, diabetes)[name], value)


# --------------------------------------------------------------------------------- ensembles
def ensemble_calls(split, forest):
    tr = split.train if split is not None else None
    small = TreeConfig(max_depth=2)
    return {
        "bagging.n_estimators": lambda v: ens.fit_bagging(tr, n_estimators=v, tree_config=small),
        "bagging.max_samples": lambda v: ens.fit_bagging(tr, n_estimators=2, max_samples=v, tree_config=small),
        "bagging.bootstrap": lambda v: ens.fit_bagging(tr, n_estimators=2, bootstrap=v, tree_config=small),
        "bagging.tree_config": lambda v: ens.fit_bagging(tr, n_estimators=2, tree_config=v),
        "bagging.random_state": lambda v: ens.fit_bagging(tr, n_estimators=2, random_state=v, tree_config=small),
        "forest.max_features": lambda v: ens.fit_random_forest(tr, n_estimators=2, max_features=v,
                                                               tree_config=small),
        "forest.per_tree": lambda v: ens.fit_random_forest(tr, n_estimators=2, max_features=v,
                                                           per_tree_features=True, tree_config=small),
        "forest.n_estimators": lambda v: ens.fit_random_forest(tr, n_estimators=v, tree_config=small),
        "adaboost.n_rounds": lambda v: ens.fit_adaboost(tr, n_rounds=v),
        "adaboost.base": lambda v: ens.fit_adaboost(tr, n_rounds=2, base=v),
        "adaboost.max_depth": lambda v: ens.fit_adaboost(tr, n_rounds=2, base="tree", max_depth=v),
        "adaboost.n_thresholds": lambda v: ens.fit_adaboost(tr, n_rounds=2, base="random_stump",
                                                            n_thresholds=v),
        "adaboost.random_state": lambda v: ens.fit_adaboost(tr, n_rounds=2, random_state=v),
        "predict.upto": lambda v: forest.predict(split.test, upto=v),
        "predict.data": lambda v: forest.predict(v),
        "oob_score.upto": lambda v: forest.oob_score(v),
        "vote_breakdown.row": lambda v: ens.vote_breakdown(forest, v),
        "vote_breakdown.upto": lambda v: ens.vote_breakdown(forest, split.test.frame.iloc[[0]], upto=v),
        "size_curve.test": lambda v: ens.size_curve(forest, v),
        "permutation.n_repeats": lambda v: ens.permutation_importances(forest, tr, n_repeats=v),
        "permutation.random_state": lambda v: ens.permutation_importances(forest, tr, n_repeats=1,
                                                                          random_state=v),
        "bootstrap_indices.m": lambda v: forest.bootstrap_indices(v),
        "decision_list.k": lambda v: ens.DecisionListLearner(tr, k=v),
        "decision_list.n_thresholds": lambda v: ens.DecisionListLearner(tr, k=1, n_thresholds=v),
        "kdt.k": lambda v: ens.fit_kdt(tr, k=v, n_thresholds=1),
        "kdt.n_thresholds": lambda v: ens.fit_kdt(tr, k=1, n_thresholds=v),
        "make_literals.n_thresholds": lambda v: ens.make_literals(tr, n_thresholds=v),
    }


ENSEMBLE_CALLS = sorted(ensemble_calls(None, None))


@pytest.mark.parametrize("name", ENSEMBLE_CALLS)
@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(value=hostile)
def test_ensemble_entry_points(iris_split, forest, name, value):
    only_engine_errors(ensemble_calls(iris_split, forest)[name], value)


# ------------------------------------------------------------------------------------- theory
THEORY_CALLS = {
    "impurity_curves.n_points": lambda v: theory.impurity_curves(v),
    "parse_counts": lambda v: theory.parse_counts(v),
    "split_gains.parent": lambda v: theory.split_gains(v, (10, 0)),
    "split_gains.left": lambda v: theory.split_gains((40, 20), v),
    "node_share.node_id": lambda v: theory.node_share(engine.fit_tree(engine.load_sample("play_tennis")), v),
    "pac_sample_size.ln_h": lambda v: theory.pac_sample_size(v, 0.1, 0.05),
    "pac_sample_size.epsilon": lambda v: theory.pac_sample_size(10.0, v, 0.05),
    "pac_sample_size.delta": lambda v: theory.pac_sample_size(10.0, 0.1, v),
    "pac_table.n_values": lambda v: theory.pac_table(n_values=v, epsilon=0.1, delta=0.05),
    "pac_table.k": lambda v: theory.pac_table(n_values=[2, 3], epsilon=0.1, delta=0.05, k=v),
    "pac_table.tree_nodes": lambda v: theory.pac_table(n_values=[2, 3], epsilon=0.1, delta=0.05, tree_nodes=v),
    "description_length.n": lambda v: prune_mdl.description_length(v, 4),
    "description_length.d": lambda v: prune_mdl.description_length(7, v),
    "mdl.train_error": lambda v: prune_mdl.mdl_error_bound(v, 7, 4, 100),
    "mdl.n_nodes": lambda v: prune_mdl.mdl_error_bound(0.1, v, 4, 100),
    "mdl.m": lambda v: prune_mdl.mdl_error_bound(0.1, 7, 4, v),
    "mdl.delta": lambda v: prune_mdl.mdl_error_bound(0.1, 7, 4, 100, v),
    "impurity.counts": lambda v: engine.split.impurity(v, "gini"),
    "impurity.criterion": lambda v: engine.split.impurity([3, 4], v),
    "impurity.base": lambda v: engine.split.impurity([3, 4], "entropy", base=v),
}


@pytest.mark.parametrize("name", sorted(THEORY_CALLS))
@FUZZ
@given(value=hostile)
def test_theory_entry_points(name, value):
    only_engine_errors(THEORY_CALLS[name], value)


# ------------------------------------------------------------------------------ narration/i18n
@FUZZ
@given(lang=hostile, noun=hostile)
def test_narration_language_and_noun(lang, noun):
    from engine.teach.narration import narrate_step

    g = engine.Grower(engine.load_sample("play_tennis"), TreeConfig(algorithm="id3"))
    rec = g.step()
    only_engine_errors(lambda _: narrate_step(rec, g, lang=lang), None)
    only_engine_errors(lambda _: narrate_step(rec, g, noun=noun), None)


def test_the_fuzzed_surface_is_large():
    """Guard against the tables above silently shrinking."""
    total = (len(CONFIG_FIELDS) + len(GROWER_NODE_CALLS) + len(PRUNE_CALLS) + len(EVAL_CALLS)
             + len(ENSEMBLE_CALLS) + len(THEORY_CALLS))
    assert total >= 100
