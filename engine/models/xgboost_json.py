"""XGBoost's own model files (``Booster.save_model`` / ``XGBModel.save_model`` as ``.json`` or ``.ubj``),
read without xgboost.

The file is one object: ``learner`` holds ``feature_names``, ``learner_model_param`` (``base_score``,
``num_class``, ``num_feature``, ``num_target``), ``objective.name`` and ``gradient_booster`` (``gbtree``, or
``dart`` wrapping one with a ``weight_drop`` per tree). Its ``model`` lists ``trees`` and ``tree_info`` (the
output column each tree adds to). A tree is parallel arrays over its nodes: ``left_children`` /
``right_children`` (-1 at a leaf), ``split_indices`` (feature), ``split_conditions`` (the threshold, or the
leaf value at a leaf), ``default_left`` (where a missing value goes), ``sum_hessian`` (cover) and
``loss_changes`` (gain).

The rules the reader follows:

- XGBoost compares in float32: a row goes left when ``float32(x) < t``. The engine's test is
  ``x <= t'`` on float64, so ``t'`` is the largest float64 whose float32 rounding is below ``t``
  (:func:`left_bound`); every float64 input then goes the way XGBoost sends it.
- ``base_score`` is stored in the objective's output space (a probability for logistic objectives, a mean
  for Poisson/Gamma/Tweedie) and turned into a margin by the objective's inverse link: logit, log, or as is
  (squared error, softmax). XGBoost 3 writes it as a list, one per output (``"[4E-1]"``), older versions as
  one number (``"5E-1"``), which every softmax column then starts from.
- Classes are ``0 .. K-1``: XGBoost trains on label-encoded targets and does not store the labels.
"""

from __future__ import annotations

import json
import math

import numpy as np

from engine.data.schema import FeatureSchema
from engine.errors import DataError
from engine.models.build import member_schema, tree_from_arrays
from engine.models.checks import MAX_NODES
from engine.models.formats.floats import f32_lt_bound
from engine.models.limits import MAX_CLASSES, MAX_FEATURES, check_json_size, count
from engine.models.model import ImportedModel
from engine.models.formats.ubjson import loads as ubjson_loads

#: objective -> (task, link, how base_score becomes a margin)
OBJECTIVES = {
    "binary:logistic": ("classification", "logistic", "logit"),
    "binary:logitraw": ("classification", "logistic", "logit"),
    "reg:logistic": ("regression", "logistic", "logit"),
    "multi:softprob": ("classification", "softmax", "identity"),
    "multi:softmax": ("classification", "softmax", "identity"),
    "reg:squarederror": ("regression", "identity", "identity"),
    "reg:linear": ("regression", "identity", "identity"),
    "reg:squaredlogerror": ("regression", "identity", "identity"),
    "reg:pseudohubererror": ("regression", "identity", "identity"),
    "reg:absoluteerror": ("regression", "identity", "identity"),
    "reg:quantileerror": ("regression", "identity", "identity"),
    "count:poisson": ("regression", "exp", "log"),
    "reg:gamma": ("regression", "exp", "log"),
    "reg:tweedie": ("regression", "exp", "log"),
}


def _head(data: bytes) -> bytes:
    return data.lstrip(b"\xef\xbb\xbf \t\r\n")


def is_json(data: bytes) -> bool:
    head = _head(data[:65536])[:4096]              # sniff a prefix: never copy the file
    return head.startswith(b"{") and head[1:].lstrip().startswith(b'"') and b'"learner"' in head


def is_ubjson(data: bytes) -> bool:
    return data[:1] == b"{" and data[1:2] in (b"i", b"U", b"I", b"l", b"L") and b"learner" in data[:64]


def declared_nodes(data: bytes, limit: int = MAX_NODES) -> int:
    """The nodes an XGBoost JSON document's trees list, counted on its bytes before it is parsed: the
    entries of each ``"left_children"`` array (its commas, plus one), stopping once past ``limit``."""
    key, total, at = b'"left_children"', 0, 0
    while total <= limit:
        at = data.find(key, at)
        start = data.find(b"[", at) if at >= 0 else -1
        end = data.find(b"]", start) if start >= 0 else -1
        if end < 0:
            break
        commas = data.count(b",", start, end)
        total += commas + (1 if commas or data[start + 1:end].strip() else 0)
        at = end
    return total


def _refuse_nodes(n: int) -> None:
    if n > MAX_NODES:
        raise DataError(f"The model has more than {MAX_NODES:,} nodes; the explorer opens models up to that size.")


def read_json(data: bytes) -> ImportedModel:
    check_json_size(data, "XGBoost JSON model file")
    _refuse_nodes(declared_nodes(data))                   # before the document is parsed
    try:
        doc = json.loads(_head(data).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise DataError("The XGBoost JSON model file is damaged or cut short: it is not complete JSON.") from None
    return from_document(doc, "XGBoost JSON")


def read_ubjson(data: bytes) -> ImportedModel:
    return from_document(ubjson_loads(data), "XGBoost UBJSON")


def left_bound(t: float) -> float:
    """The largest float64 ``x`` with ``float32(x) < float32(t)`` (round half to even), so that
    ``x <= left_bound(t)`` is XGBoost's ``float32(x) < t``."""
    t32 = np.float32(t)
    below = np.nextafter(t32, np.float32(-np.inf))
    mid = (float(below) + float(t32)) / 2.0                   # exact in float64
    return mid if np.float32(mid) == below else float(np.nextafter(mid, -np.inf))


def _numbers(text, what: str) -> list[float]:
    if isinstance(text, (int, float)):
        return [float(text)]
    try:
        return [float(v) for v in str(text).strip().strip("[]").split(",") if v.strip()]
    except ValueError:
        raise DataError(f"The XGBoost model file is damaged: its {what} is not a number.") from None


def _margin(value: float, how: str) -> float:
    if how == "logit":
        if not 0.0 < value < 1.0:
            raise DataError(f"The XGBoost model's base_score {value} is not a probability between 0 and 1.")
        return math.log(value / (1.0 - value))
    if how == "log":
        if not value > 0.0:
            raise DataError(f"The XGBoost model's base_score {value} is not positive.")
        return math.log(value)
    return value


def from_document(doc, source: str) -> ImportedModel:
    if not isinstance(doc, dict) or not isinstance(doc.get("learner"), dict):
        raise DataError(f"The {source} file has no 'learner': it is not an XGBoost model.")
    learner = doc["learner"]
    params = learner.get("learner_model_param", {})
    objective = str(learner.get("objective", {}).get("name", ""))
    if objective not in OBJECTIVES:
        raise DataError(f"The XGBoost objective {objective[:60]!r} is not supported; the explorer reads "
                        f"{', '.join(sorted(OBJECTIVES))}.")
    task, link, how = OBJECTIVES[objective]
    if int(params.get("num_target", 1) or 1) > 1:
        raise DataError("XGBoost models with several targets are not supported; open a single-target model.")
    booster = learner.get("gradient_booster", {})
    weights = None
    if booster.get("name") == "dart":
        weights = [float(w) for w in booster.get("weight_drop", [])]
        booster = booster.get("gbtree", {})
    if booster.get("name") != "gbtree":
        raise DataError(f"The XGBoost booster {str(booster.get('name'))[:40]!r} has no trees; only tree boosters "
                        f"(gbtree, dart) can be explored.")
    model = booster["model"]
    raw_trees = model["trees"]
    n_feat = count(params["num_feature"], MAX_FEATURES, "input columns")
    names = [str(n) for n in learner.get("feature_names") or []] or [f"f{i}" for i in range(n_feat)]
    if len(names) != n_feat or n_feat < 1:
        raise DataError("The XGBoost model file is damaged: it names a different number of features than it uses.")
    n_class = count(params.get("num_class", 0) or 0, MAX_CLASSES, "classes")
    K = n_class if link == "softmax" else 1
    if link == "softmax" and n_class < 2:
        raise DataError("The XGBoost multi-class model file is damaged: it has fewer than two classes.")
    classes = tuple(str(k) for k in range(max(n_class, 2))) if task == "classification" else ()
    schema = FeatureSchema(feature_names=tuple(names), kinds=("numeric",) * n_feat, categories=((),) * n_feat,
                           target="target", task=task, classes=classes)
    base = _numbers(params.get("base_score", 0.5), "base_score")
    if len(base) == 1:
        base = base * K
    if len(base) != K:
        raise DataError(f"The XGBoost model file is damaged: it has {len(base)} base scores for {K} outputs.")
    base = tuple(_margin(float(np.float32(b)), how) for b in base)
    _refuse_nodes(sum(len(t.get("left_children", ())) for t in raw_trees))
    mschema = member_schema(schema)
    trees = []
    for i in range(len(raw_trees)):
        trees.append(_tree(raw_trees[i], mschema, i))
        raw_trees[i] = None                               # the parsed lists go as their tree is made
    trees = tuple(trees)
    outputs = tuple(int(c) for c in model.get("tree_info", [0] * len(trees)))
    per_round = K * max(int(model.get("gbtree_model_param", {}).get("num_parallel_tree", 1) or 1), 1)
    return ImportedModel(trees=trees, schema=schema, kind="additive", link=link, base_score=base,
                         tree_outputs=outputs, trees_per_round=per_round, weights=weights or (), source=source,
                         objective=objective)


def _tree(raw: dict, schema: FeatureSchema, i: int):
    where = f"tree {i}"
    if any(int(s) != 0 for s in raw.get("split_type", [])):
        raise DataError(f"XGBoost trees with categorical splits are not supported yet ({where} has one); "
                        f"one-hot encode the categories or open the model as ONNX.")
    if int(raw.get("tree_param", {}).get("size_leaf_vector", 1) or 1) > 1:
        raise DataError("XGBoost multi-output trees (a vector in each leaf) are not supported.")
    left = np.asarray(raw["left_children"], dtype=np.int64)
    right = np.asarray(raw["right_children"], dtype=np.int64)
    cond = np.asarray(raw["split_conditions"], dtype=float)
    if cond.shape != left.shape:
        raise DataError(f"The XGBoost model file is damaged: {where}'s arrays have different lengths.")
    leaf = left < 0
    with np.errstate(invalid="ignore", over="ignore"):
        threshold = np.where(leaf | np.isnan(cond), 0.0, f32_lt_bound(cond))   # left_bound of each, at once
    threshold[~leaf & np.isnan(cond)] = np.nan           # refused by the builder, with the node named
    values = np.where(leaf, cond, np.nan)
    return tree_from_arrays(schema=schema, left=left, right=right, feature=raw["split_indices"],
                            threshold=threshold, missing_left=np.asarray(raw["default_left"]).astype(bool),
                            values=values, weight=raw.get("sum_hessian"), gain=raw.get("loss_changes"),
                            where=where)
