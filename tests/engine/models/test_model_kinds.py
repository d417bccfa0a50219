"""The model kinds a reader can build (single, vote, soft_vote, additive), checked against scikit-learn:
its fitted trees are turned into engine trees with tree_from_arrays, exactly as a reader does, and the
engine's predictions must equal scikit-learn's; plus the constructor's refusals."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from engine.errors import DataError
from engine.models import ImportedModel, member_schema, member_votes, tree_from_arrays, contributions

from tests.engine.models.conftest import numeric_data

sk_ensemble = pytest.importorskip("sklearn.ensemble")
sk_tree = pytest.importorskip("sklearn.tree")


def schema_for(d: int, classes=()) -> engine.FeatureSchema:
    return engine.FeatureSchema(feature_names=tuple(f"x{j}" for j in range(d)), kinds=("numeric",) * d,
                                categories=((),) * d, target="y",
                                task="classification" if classes else "regression", classes=tuple(classes))


def from_sklearn(est, schema, *, scale=1.0, values=None):
    t = est.tree_
    v = t.value[:, 0, :] if values is None else values
    if schema.task == "classification":
        v = v / v.sum(axis=1, keepdims=True)
    miss = getattr(t, "missing_go_to_left", np.ones(t.node_count, dtype=np.uint8))
    return tree_from_arrays(schema=schema, left=t.children_left, right=t.children_right, feature=t.feature,
                            threshold=t.threshold, missing_left=miss.astype(bool), values=v * scale,
                            weight=t.weighted_n_node_samples, count=t.n_node_samples, impurity=t.impurity,
                            criterion="gini" if schema.task == "classification" else "variance")


def test_single_tree_with_missing_values_predicts_as_sklearn():
    X, _, y3, _ = numeric_data(11, d=4)
    est = sk_tree.DecisionTreeClassifier(max_depth=6, random_state=0).fit(X, y3)
    schema = schema_for(4, ("0", "1", "2"))
    m = ImportedModel(trees=(from_sklearn(est, schema),), schema=schema, kind="single", source="test")
    np.testing.assert_allclose(m.predict_proba(X), est.predict_proba(X), atol=1e-12)
    assert (m.predict(X).astype(int) == est.predict(X)).all()
    assert m.trees[0].n_leaves == est.get_n_leaves() and m.trees[0].root.n_node_samples == len(X)


def test_soft_vote_forest_predicts_as_sklearn_and_shows_member_votes():
    X, y2, _, _ = numeric_data(12, d=4)
    rf = sk_ensemble.RandomForestClassifier(n_estimators=15, max_depth=5, random_state=0).fit(X, y2)
    schema = schema_for(4, ("0", "1"))
    m = ImportedModel(trees=tuple(from_sklearn(e, schema) for e in rf.estimators_), schema=schema,
                      kind="soft_vote")
    np.testing.assert_allclose(m.predict_proba(X), rf.predict_proba(X), atol=1e-12)
    votes = member_votes(m, X[:1])
    assert len(votes.members) == 15 and set(votes.members.columns) >= {"member", "prediction", "p(0)", "p(1)"}
    assert votes.tally["share"].to_numpy() == pytest.approx(rf.predict_proba(X[:1])[0])
    with pytest.raises(DataError, match="members vote"):
        contributions(m, X[:1])


def test_forest_regressor_is_a_weighted_mean():
    X, _, _, yr = numeric_data(13, d=4)
    rf = sk_ensemble.RandomForestRegressor(n_estimators=8, max_depth=6, random_state=0).fit(X, yr)
    schema = schema_for(4)
    m = ImportedModel(trees=tuple(from_sklearn(e, schema) for e in rf.estimators_), schema=schema, kind="soft_vote")
    np.testing.assert_allclose(m.predict(X), rf.predict(X), rtol=1e-12)
    assert member_votes(m, X[:1]).winner == pytest.approx(rf.predict(X[:1])[0])


def test_hard_vote_counts_member_winners():
    X, _, y3, _ = numeric_data(14, d=4)
    rf = sk_ensemble.RandomForestClassifier(n_estimators=9, max_depth=3, random_state=1).fit(X, y3)
    schema = schema_for(4, ("0", "1", "2"))
    m = ImportedModel(trees=tuple(from_sklearn(e, schema) for e in rf.estimators_), schema=schema, kind="vote")
    member = np.stack([e.predict_proba(X).argmax(axis=1) for e in rf.estimators_])
    expected = np.stack([(member == k).mean(axis=0) for k in range(3)], axis=1)
    np.testing.assert_allclose(m.predict_proba(X), expected)
    assert member_votes(m, X[:1]).tally["votes"].sum() == 9


def test_gradient_boosting_as_an_additive_model():
    X, y2, _, _ = numeric_data(15, d=4)
    X = np.nan_to_num(X)                                   # sklearn's GradientBoosting takes no NaN
    gb = sk_ensemble.GradientBoostingClassifier(n_estimators=20, max_depth=3, random_state=0).fit(X, y2)
    schema = schema_for(4, ("0", "1"))
    ms = member_schema(schema)
    trees = tuple(from_sklearn(e, ms, values=e.tree_.value[:, 0, :]) for e in gb.estimators_[:, 0])
    base = float(gb._raw_predict_init(X[:1])[0, 0])
    m = ImportedModel(trees=trees, schema=schema, kind="additive", link="logistic", base_score=(base,),
                      weights=(gb.learning_rate,) * len(trees))
    np.testing.assert_allclose(m.predict_proba(X), gb.predict_proba(X), atol=1e-12)
    np.testing.assert_allclose(m.decision_function(X)[:, 0], gb.decision_function(X), atol=1e-12)


@pytest.mark.parametrize("change,match", [
    (dict(kind="boosted"), "kind"),
    (dict(link="probit"), "link"),
    (dict(kind="single", trees=None), "exactly one tree"),
    (dict(base_score=(float("nan"),)), "base score"),
    (dict(link="softmax"), "softmax"),
    (dict(tree_outputs=(3,)), "output that does not exist"),
    (dict(weights=(1.0, 2.0)), "one weight per tree"),
    (dict(link="identity"), "logistic or softmax"),
])
def test_contradicting_pieces_are_refused(change, match):
    schema = schema_for(1, ("0", "1"))
    tree = tree_from_arrays(schema=member_schema(schema), left=[1, -1, -1], right=[2, -1, -1], feature=[0, 0, 0],
                            threshold=[0.0, 0, 0], missing_left=[True] * 3, values=[np.nan, -1.0, 1.0])
    fields = dict(trees=(tree,), schema=schema, kind="additive", link="logistic", base_score=(0.0,))
    fields.update(change)
    if fields["trees"] is None:
        fields["trees"] = (tree, tree)
    with pytest.raises(DataError, match=match):
        ImportedModel(**fields)


def test_a_member_predicting_something_else_is_refused():
    schema = schema_for(1, ("0", "1"))
    tree = tree_from_arrays(schema=schema, left=[-1], right=[-1], feature=[0], threshold=[0.0],
                            missing_left=[True], values=[[0.5, 0.5]])
    with pytest.raises(DataError, match="predicts something other"):
        ImportedModel(trees=(tree,), schema=schema, kind="additive", link="logistic", base_score=(0.0,))
