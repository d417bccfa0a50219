"""scikit-learn tree estimators (already loaded by the trusted skops reader) as ImportedModels.

Read from the fitted attributes only (scikit-learn is not imported here):

- ``DecisionTree*``/``ExtraTree*``: ``tree_`` arrays. scikit-learn compares ``float32(x) <= t``, turned
  into exact float64 bounds (:func:`~engine.models.formats.floats.f32_leq_bound`); a missing value goes
  where ``missing_go_to_left`` says. Classifier leaves hold class shares (``value`` normalised);
- ``RandomForest*``/``ExtraTrees*``: a soft vote (the mean of the members' shares or values);
- ``GradientBoosting*``: additive; margins start at the initial estimator's raw prediction and add
  ``learning_rate`` times each tree's leaf; the loss's link (logistic, softmax, identity; the
  exponential loss's half-logit as a logistic link on doubled margins);
- ``HistGradientBoosting*``: additive from ``_predictors`` (leaves already shrunk) and
  ``_baseline_prediction``, float64 thresholds; category splits are refused;
- ``AdaBoostClassifier`` (SAMME): member ``m`` gives ``w_m`` to its class and ``-w_m/(K-1)`` to the
  others; scikit-learn's probabilities are ``softmax(f / (K-1))`` of those sums over ``W = sum w_m``
  (two classes: the same with ``K = 2``), i.e. a softmax of ``K/((K-1)^2 W)`` times each class's votes.
  Each member becomes one tree per class scoring 1 where its leaf predicts that class;
- ``AdaBoostRegressor`` (a weighted median of its trees) is refused: no model kind expresses a median.
"""

from __future__ import annotations

import numpy as np

from engine.data.schema import FeatureSchema
from engine.errors import DataError
from engine.models.build import member_schema, tree_from_arrays
from engine.models.formats.floats import f32_leq_bound
from engine.models.limits import MAX_CLASSES, MAX_FEATURES, count
from engine.models.model import ImportedModel

__all__ = ["convert"]

LINKS = {"IdentityLink": "identity", "LogLink": "exp", "LogitLink": "logistic", "MultinomialLogit": "softmax",
         "HalfLogitLink": "logistic"}


def _label(value) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "True" if value else "False"
    if isinstance(value, (int, np.integer)) or (isinstance(value, (float, np.floating)) and float(value).is_integer()):
        return str(int(value))
    return str(value)


def _schema(est, task: str) -> FeatureSchema:
    n = count(getattr(est, "n_features_in_", 0), MAX_FEATURES, "input columns")
    count(len(getattr(est, "classes_", ())), MAX_CLASSES, "classes")
    names = getattr(est, "feature_names_in_", None)
    names = tuple(str(v) for v in names) if names is not None else tuple(f"x{j}" for j in range(n))
    classes = tuple(_label(c) for c in est.classes_) if task == "classification" else ()
    if task == "classification" and len(set(classes)) != len(classes):
        raise DataError("The model's class labels are not distinct once written as text.")
    return FeatureSchema(feature_names=names, kinds=("numeric",) * len(names), categories=((),) * len(names),
                         target="prediction", task=task, classes=classes)


def _finite(threshold: np.ndarray) -> np.ndarray:
    """An infinite threshold (scikit-learn's split of the missing values from all others) as the largest
    finite one: every number still goes the same way."""
    big = np.finfo(np.float64).max
    return np.clip(np.asarray(threshold, dtype=float), -big, big)


def _tree(est, schema: FeatureSchema, where: str, values=None):
    """An engine Tree of one fitted ``DecisionTree*``; ``values`` replaces its leaf values if given."""
    t = est.tree_
    if int(t.n_outputs) != 1:
        raise DataError("The model predicts several targets at once; the explorer opens one-target models.")
    left, right = np.asarray(t.children_left), np.asarray(t.children_right)
    if values is None:
        v = np.asarray(t.value, dtype=float)[:, 0, :]
        if schema.task == "classification":
            total = v.sum(axis=1, keepdims=True)
            v = v / np.where(total == 0, 1.0, total)
        values = v
    missing = getattr(t, "missing_go_to_left", None)
    return tree_from_arrays(schema=schema, left=left, right=right, feature=np.asarray(t.feature),
                            threshold=np.where(left >= 0, _finite(f32_leq_bound(np.asarray(t.threshold, dtype=float))), 0.0),
                            missing_left=None if missing is None else np.asarray(missing, dtype=bool),
                            values=values, weight=np.asarray(t.weighted_n_node_samples, dtype=float),
                            count=np.asarray(t.n_node_samples), impurity=np.asarray(t.impurity, dtype=float),
                            criterion=str(getattr(est, "criterion", "")) or None, where=where)


def _link(est) -> tuple[str, float]:
    """(link, margin factor) of a boosting estimator's loss."""
    name = type(getattr(getattr(est, "_loss", None), "link", None)).__name__
    if name not in LINKS:
        raise DataError(f"The model's loss ({type(getattr(est, '_loss', None)).__name__}) has a link the explorer "
                        "does not know.")
    return LINKS[name], 2.0 if name == "HalfLogitLink" else 1.0


def _single(est, task):
    schema = _schema(est, task)
    return ImportedModel(trees=(_tree(est, schema, "the tree"),), schema=schema, kind="single", source="scikit-learn",
                         objective=type(est).__name__)


def _forest(est, task):
    schema = _schema(est, task)
    trees = tuple(_tree(m, schema, f"tree {i}") for i, m in enumerate(est.estimators_))
    return ImportedModel(trees=trees, schema=schema, kind="soft_vote", source="scikit-learn",
                         objective=type(est).__name__)


def _gradient_boosting(est, task):
    schema = _schema(est, task)
    link, factor = _link(est)
    stages = np.asarray(est.estimators_, dtype=object)
    n_stages, k = stages.shape
    zero = np.zeros((1, int(est.n_features_in_)), dtype=np.float32)
    base = np.asarray(est._raw_predict_init(zero), dtype=float).reshape(-1) * factor
    ms = member_schema(schema)
    trees = tuple(_tree(stages[s, c], ms, f"tree {s * k + c}") for s in range(n_stages) for c in range(k))
    return ImportedModel(trees=trees, schema=schema, kind="additive", link=link, base_score=tuple(base.tolist()),
                         tree_outputs=tuple(c for _ in range(n_stages) for c in range(k)), trees_per_round=k,
                         weights=(float(est.learning_rate) * factor,) * len(trees), source="scikit-learn",
                         objective=f"{type(est).__name__} ({type(est._loss).__name__})")


def _hist_tree(predictor, schema, where):
    nodes = predictor.nodes
    if np.asarray(nodes["is_categorical"]).any():
        raise DataError("The histogram gradient boosting model splits on categories, which the explorer does "
                        "not read yet; train it with numeric features (e.g. ordinal codes) instead.")
    leaf = np.asarray(nodes["is_leaf"]).astype(bool)
    left = np.where(leaf, -1, np.asarray(nodes["left"], dtype=np.int64))
    right = np.where(leaf, -1, np.asarray(nodes["right"], dtype=np.int64))
    values = np.where(leaf, nodes["value"], np.nan).astype(float)[:, None]
    return tree_from_arrays(schema=schema, left=left, right=right, feature=np.asarray(nodes["feature_idx"]),
                            threshold=np.where(leaf, 0.0, _finite(nodes["num_threshold"])),
                            missing_left=np.asarray(nodes["missing_go_to_left"]).astype(bool), values=values,
                            count=np.asarray(nodes["count"]), gain=np.asarray(nodes["gain"], dtype=float),
                            criterion="variance", where=where)


def _hist_gradient_boosting(est, task):
    schema = _schema(est, task)
    link, factor = _link(est)
    if factor != 1.0:
        raise DataError("The histogram gradient boosting model's loss has a link the explorer does not know.")
    rounds = est._predictors
    k = len(rounds[0]) if rounds else 1
    ms = member_schema(schema)
    trees = tuple(_hist_tree(p, ms, f"tree {r * k + c}") for r, rnd in enumerate(rounds) for c, p in enumerate(rnd))
    base = np.asarray(est._baseline_prediction, dtype=float).reshape(-1)
    return ImportedModel(trees=trees, schema=schema, kind="additive", link=link, base_score=tuple(base.tolist()),
                         tree_outputs=tuple(c for _ in rounds for c in range(k)), trees_per_round=k,
                         source="scikit-learn", objective=f"{type(est).__name__} ({type(est._loss).__name__})")


def _adaboost(est, task):
    if task == "regression":
        raise DataError("AdaBoost regression predicts a weighted median of its trees, which the explorer's "
                        "model kinds (votes, means and sums) cannot express.")
    schema = _schema(est, task)
    ms = member_schema(schema)
    K = len(schema.classes)
    w = np.asarray(est.estimator_weights_, dtype=float)[: len(est.estimators_)]
    scale = K / ((K - 1) ** 2 * w.sum())       # f_c = K/(K-1) * (votes for c)/W + a constant; softmax(f/(K-1))
    trees, outputs, weights = [], [], []
    for m, (member, wm) in enumerate(zip(est.estimators_, w)):
        if type(member).__name__ not in ("DecisionTreeClassifier", "ExtraTreeClassifier"):
            raise DataError("The AdaBoost model's members are not decision trees, so it cannot be shown as trees.")
        v = np.asarray(member.tree_.value, dtype=float)[:, 0, :]
        winner = np.argmax(v, axis=1)                            # the member's predicted class per node
        for c in range(K):
            trees.append(_tree(member, ms, f"member {m}", values=(winner == c).astype(float)[:, None]))
            outputs.append(c)
            weights.append(float(wm) * scale)
    return ImportedModel(trees=tuple(trees), schema=schema, kind="additive", link="softmax",
                         base_score=(0.0,) * K, tree_outputs=tuple(outputs), trees_per_round=K,
                         weights=tuple(weights), source="scikit-learn", objective="AdaBoostClassifier (SAMME)")


BUILDERS = {
    "DecisionTreeClassifier": _single, "DecisionTreeRegressor": _single, "ExtraTreeClassifier": _single,
    "ExtraTreeRegressor": _single, "RandomForestClassifier": _forest, "RandomForestRegressor": _forest,
    "ExtraTreesClassifier": _forest, "ExtraTreesRegressor": _forest, "GradientBoostingClassifier": _gradient_boosting,
    "GradientBoostingRegressor": _gradient_boosting, "HistGradientBoostingClassifier": _hist_gradient_boosting,
    "HistGradientBoostingRegressor": _hist_gradient_boosting, "AdaBoostClassifier": _adaboost,
    "AdaBoostRegressor": _adaboost,
}


def convert(est) -> ImportedModel:
    """The ImportedModel of a fitted scikit-learn tree estimator (see the module docstring)."""
    name = type(est).__name__
    if name not in BUILDERS:
        raise DataError(f"A {name[:80]} is not one of the scikit-learn tree models the explorer opens.")
    if not hasattr(est, "n_features_in_"):
        raise DataError(f"The {name} in this file was never fitted, so it has no trees to show.")
    return BUILDERS[name](est, "classification" if name.endswith("Classifier") else "regression")
