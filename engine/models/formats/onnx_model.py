"""ONNX tree models: a graph with one ``ai.onnx.ml`` ``TreeEnsembleClassifier`` or ``TreeEnsembleRegressor``.

Read with the ``onnx`` package (no runtime is needed). Each operator tree becomes an engine Tree:
``BRANCH_LEQ``/``BRANCH_LT`` send the true branch left, ``BRANCH_GTE``/``BRANCH_GT`` the false one (the
engine's test is always ``x <= t``); float32 inputs are compared as onnxruntime compares them
(:mod:`~engine.models.formats.floats`). ``BRANCH_EQ``/``BRANCH_NEQ`` are category tests, readable on
the categorical features of a file this app exported (its ``metadata_props["features"]`` names the
features and their categories); a missing value goes where ``nodes_missing_value_tracks_true`` says.

How the leaves combine (onnxruntime's rules):

- regressor, one target, ``SUM``/``AVERAGE``, ``post_transform NONE``: additive, identity link,
  ``base_values`` the base score (one tree and no base: a single tree);
- classifier, ``NONE``: the sum of the leaves' class weights. Every tree's leaves must carry weights
  summing to one number per tree (scikit-learn's trees and forests, this app's trees and votes): read as
  one tree, a vote (one-hot leaves: this app's forests and AdaBoost) or a soft vote;
- classifier, ``SOFTMAX``: additive with a softmax link (one member per tree and class it scores);
- two classes with every weight on one class id (scikit-learn's binary files): that id's sum is the
  second class's score; ``NONE`` gives ``(1 - s, s)``, ``LOGISTIC`` an additive logistic model.

Other operators around the ensemble are refused unless they only reshape its answer (``Cast``,
``ZipMap``, ``Identity``, ``Mul``/``ArgMax``/``Gather``). A file this app exported also holds a graph of
standard operators that mixes branches for rows with missing values (C4.5); it is not read back: the
reopened model sends a missing value down the branch the operator names (the largest one).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import replace

import numpy as np

from engine.data.schema import FeatureSchema
from engine.errors import ConfigError, DataError
from engine.models.build import member_schema, tree_from_arrays
from engine.models.formats.floats import f32_leq_bound, f32_lt_bound, f64_lt_bound
from engine.models.formats.onnx_tensors import check_attributes, check_model
from engine.models.limits import MAX_CATEGORY_LABELS, MAX_FEATURES, check_json_size, count
from engine.models.model import ImportedModel

__all__ = ["is_onnx", "read_onnx"]

ENSEMBLES = ("TreeEnsembleClassifier", "TreeEnsembleRegressor")
OURS = "decision-tree-explorer"      # this app's files add a graph for missing values (read from the operator)
PASSIVE = {"Cast", "ZipMap", "Identity", "ArgMax", "Gather", "Mul", "Reshape", "Flatten"}
TRUE_LEFT = {"BRANCH_LEQ": True, "BRANCH_LT": True, "BRANCH_EQ": True,
             "BRANCH_GTE": False, "BRANCH_GT": False, "BRANCH_NEQ": False}


def is_onnx(data: bytes) -> bool:
    """An ONNX ModelProto opens with ``ir_version`` (field 1, varint) and names an operator domain."""
    return len(data) > 16 and data[0] == 0x08 and (b"ai.onnx" in data or b"TreeEnsemble" in data)


def _onnx():
    try:
        import onnx
        from onnx import helper, numpy_helper
    except ImportError:  # pragma: no cover - onnx is in requirements.txt
        raise ConfigError("Opening ONNX models needs the 'onnx' package: pip install onnx.") from None
    return onnx, helper, numpy_helper


def _attributes(node) -> dict:
    _, helper, numpy_helper = _onnx()
    out = {}
    for a in node.attribute:
        value = numpy_helper.to_array(a.t) if a.type == a.TENSOR else helper.get_attribute_value(a)
        out[a.name] = value.decode() if isinstance(value, bytes) else value
    return out


def _pick(attrs: dict, name: str, required: bool = True):
    for key in (f"{name}_as_tensor", name):
        if key in attrs and len(np.atleast_1d(attrs[key])):
            return np.atleast_1d(np.asarray(attrs[key]))
    if required:
        raise DataError(f"The ONNX model's tree ensemble has no {name}.")
    return None


def _parse(data: bytes):
    onnx, _, _ = _onnx()
    try:
        model = onnx.load_from_string(data)
    except Exception:                                      # protobuf's DecodeError and friends
        raise DataError("The ONNX model file is damaged or cut short: it could not be read as a whole.") from None
    check_model(model)                                     # no tensor outside the file, none larger than it
    ensembles = [n for n in model.graph.node if n.op_type in ENSEMBLES and n.domain == "ai.onnx.ml"]
    if len(ensembles) != 1:
        raise DataError("This ONNX model holds no TreeEnsembleClassifier or TreeEnsembleRegressor operator, "
                        "so it has no trees to show." if not ensembles else f"This ONNX model combines {len(ensembles)} tree ensembles with other "
                        "operators, which the explorer cannot show as one set of trees.")
    others = sorted({n.op_type for n in model.graph.node if n is not ensembles[0] and n.op_type not in PASSIVE})
    if others and model.producer_name != OURS:
        raise DataError(f"This ONNX model does more than run a tree ensemble (it also uses {', '.join(others[:4])}), "
                        "so its trees alone would not predict as the file does.")
    check_attributes(ensembles[0])
    return model, ensembles[0]


def _input_is_double(model, node) -> bool:
    name = node.input[0]
    for n in model.graph.node:
        if name in n.output and n.op_type == "Cast":
            return dict((a.name, a.i) for a in n.attribute).get("to") == 11
    for value in model.graph.input:
        if value.name == name:
            return value.type.tensor_type.elem_type == 11
    return False


def _schema(model, n_features: int, task: str, classes: tuple[str, ...]) -> FeatureSchema:
    meta = {p.key: p.value for p in model.metadata_props}
    names = [f"x{j}" for j in range(n_features)]
    kinds, cats = ["numeric"] * n_features, [()] * n_features
    if "features" in meta:
        check_json_size(meta["features"], "ONNX model's feature list")
        try:
            features = json.loads(meta["features"])
            names = [str(f["name"]) for f in features]
            kinds = [str(f["kind"]) for f in features]
            cats = [tuple(str(c) for c in f["categories"]) for f in features]
        except (ValueError, KeyError, TypeError):
            raise DataError("The ONNX model's feature list (metadata 'features') is damaged.") from None
        count(len(names), MAX_FEATURES, "input columns")
        count(sum(map(len, cats)), MAX_CATEGORY_LABELS, "category labels")
        if len(names) < n_features:
            raise DataError("The ONNX model tests more features than its feature list names.")
    return FeatureSchema(feature_names=tuple(names), kinds=tuple(kinds), categories=tuple(cats),
                         target=meta.get("target", "prediction"), task=task, classes=classes)


def _trees(attrs: dict, schema: FeatureSchema, double: bool, leaf_prefix: str, width: int):
    """Per operator tree: the arrays ``tree_from_arrays`` takes, leaf values (n, width) in the tree's order."""
    tree_ids = _pick(attrs, "nodes_treeids").astype(np.int64)
    node_ids = _pick(attrs, "nodes_nodeids").astype(np.int64)
    features = _pick(attrs, "nodes_featureids").astype(np.int64)
    values = _pick(attrs, "nodes_values").astype(np.float64)
    modes = [m.decode() if isinstance(m, bytes) else str(m) for m in _pick(attrs, "nodes_modes")]
    true_ids = _pick(attrs, "nodes_truenodeids").astype(np.int64)
    false_ids = _pick(attrs, "nodes_falsenodeids").astype(np.int64)
    tracks = _pick(attrs, "nodes_missing_value_tracks_true", required=False)
    tracks = np.zeros(tree_ids.size, dtype=bool) if tracks is None else tracks.astype(bool)
    if not (tree_ids.size == node_ids.size == features.size == values.size == len(modes) == true_ids.size
            == false_ids.size == tracks.size):
        raise DataError("The ONNX model's tree ensemble lists node attributes of different lengths.")
    leaf_tree = _pick(attrs, f"{leaf_prefix}_treeids").astype(np.int64)
    leaf_node = _pick(attrs, f"{leaf_prefix}_nodeids").astype(np.int64)
    leaf_id = _pick(attrs, f"{leaf_prefix}_ids").astype(np.int64)
    leaf_w = _pick(attrs, f"{leaf_prefix}_weights").astype(np.float64)
    if not leaf_tree.size == leaf_node.size == leaf_id.size == leaf_w.size or (leaf_id < 0).any() \
            or (leaf_id >= width).any():
        raise DataError("The ONNX model's leaf weights do not fit its trees or its outputs.")
    weights = defaultdict(lambda: np.zeros(width))
    for t, n, k, w in zip(leaf_tree.tolist(), leaf_node.tolist(), leaf_id.tolist(), leaf_w.tolist()):
        weights[(t, n)][k] += w
    by_tree = defaultdict(list)
    for i, t in enumerate(tree_ids.tolist()):
        by_tree[t].append(i)
    for t in sorted(by_tree):
        rows = by_tree[t]
        local = {int(node_ids[i]): k for k, i in enumerate(rows)}
        if len(local) != len(rows):
            raise DataError(f"Tree {t} of the ONNX model lists a node twice.")
        n = len(rows)
        left, right = np.full(n, -1), np.full(n, -1)
        feat, thr, miss_left = np.zeros(n, dtype=np.int64), np.zeros(n), np.ones(n, dtype=bool)
        vals = np.full((n, width), np.nan)
        sets = {}
        children = set()
        for k, i in enumerate(rows):
            mode = modes[i]
            if mode == "LEAF":
                vals[k] = weights.get((t, int(node_ids[i])), np.zeros(width))
                continue
            if mode not in TRUE_LEFT:
                raise DataError(f"Tree {t} of the ONNX model uses the test {mode}, which the explorer cannot read.")
            try:
                yes, no = local[int(true_ids[i])], local[int(false_ids[i])]
            except KeyError:
                raise DataError(f"A node of tree {t} of the ONNX model points to a child that does not exist.") from None
            children |= {yes, no}
            left[k], right[k] = (yes, no) if TRUE_LEFT[mode] else (no, yes)
            feat[k] = features[i]
            if not 0 <= feat[k] < len(schema.feature_names):
                raise DataError(f"A node of tree {t} of the ONNX model tests feature {int(feat[k])}, which the "
                                "model does not have.")
            nan_true = bool(tracks[i]) or mode == "BRANCH_NEQ"          # NaN != v is true
            miss_left[k] = nan_true == TRUE_LEFT[mode]
            v = values[i]
            if mode in ("BRANCH_EQ", "BRANCH_NEQ"):
                j = int(feat[k])
                if not schema.is_categorical(j) or not float(v).is_integer():
                    raise DataError(f"Tree {t} of the ONNX model tests a number for equality; the explorer reads "
                                    "equality tests only on category codes of the features a file lists.")
                sets[k] = [int(v)]
            elif mode in ("BRANCH_LEQ", "BRANCH_GT"):
                thr[k] = float(f32_leq_bound(v)) if not double else v
            else:
                thr[k] = float(f32_lt_bound(v)) if not double else float(f64_lt_bound(v))
        roots = sorted(set(range(n)) - children)
        if len(roots) != 1:
            raise DataError(f"Tree {t} of the ONNX model has {len(roots)} roots; a tree has one.")
        yield t, dict(left=left, right=right, feature=feat, threshold=thr, missing_left=miss_left,
                      category_sets=sets, root=roots[0]), vals


NO_COUNTS = ("The ONNX file gives no row counts or covers, so an inner node's class shares or value are not "
             "known from the file; open the CSV the model was trained on to count them from its rows.")


def _no_counts(read):
    """An ONNX tree ensemble stores only its leaves' weights: mark the model's inner values unknown."""
    def wrapped(data: bytes) -> ImportedModel:
        out = read(data)
        return replace(out, inner_values=False, notes=(*out.notes, NO_COUNTS))
    wrapped.__doc__, wrapped.__name__ = read.__doc__, read.__name__
    return wrapped


@_no_counts
def read_onnx(data: bytes) -> ImportedModel:
    """The ImportedModel of an ONNX tree-ensemble file (see the module docstring for what is read)."""
    model, node = _parse(data)
    attrs = _attributes(node)
    post = str(attrs.get("post_transform", "NONE"))
    base = attrs.get("base_values_as_tensor", attrs.get("base_values"))
    base = np.zeros(0) if base is None else np.atleast_1d(np.asarray(base, dtype=float))
    double = _input_is_double(model, node)
    n_features = int(_pick(attrs, "nodes_featureids").max(initial=0)) + 1
    shape = model.graph.input[0].type.tensor_type.shape.dim if model.graph.input else []
    width = shape[1].dim_value if len(shape) == 2 and shape[1].dim_value > 0 else 0
    if n_features > max(width, 1) and (width or n_features > MAX_FEATURES):
        raise DataError(f"The ONNX model tests feature number {n_features - 1:,}, but its input has "
                        f"{width or MAX_FEATURES:,} columns at most.")
    n_features = count(max(n_features, width), MAX_FEATURES, "input columns")
    if node.op_type == "TreeEnsembleRegressor":
        return _regressor(model, attrs, post, base, double, n_features)
    labels = attrs.get("classlabels_strings") or [str(int(c)) for c in attrs.get("classlabels_int64s", [])]
    classes = tuple(c.decode() if isinstance(c, bytes) else str(c) for c in labels)
    if len(classes) < 2:
        raise DataError("The ONNX classifier lists fewer than two class labels.")
    schema = _schema(model, n_features, "classification", classes)
    ids = set(np.atleast_1d(_pick(attrs, "class_ids")).astype(int).tolist())
    binary = len(classes) == 2 and len(ids) == 1
    trees = list(_trees(attrs, schema, double, "class", 1 if binary else len(classes)))
    if binary:
        return _binary(schema, trees, post, base)
    if post == "SOFTMAX":
        return _additive(schema, trees, "softmax", base, len(classes))
    if post != "NONE" or base.any():
        raise DataError(f"The ONNX classifier's post_transform {post} (with these base values) has no "
                        "equivalent among the explorer's model kinds.")
    return _vote(schema, trees)


def _tree(schema, arrays, vals, where):
    return tree_from_arrays(schema=schema, values=vals, where=where, **arrays)


def _vote(schema, trees) -> ImportedModel:
    """NONE: sum of leaf class weights; each tree's leaves must sum to one number c_t (its weight)."""
    members, weights, one_hot = [], [], True
    for t, arrays, vals in trees:
        leaf = ~np.isnan(vals).any(axis=1)
        sums = vals[leaf].sum(axis=1)
        c = float(sums.max(initial=0.0))
        if c <= 0 or not np.allclose(sums[sums != 0], c, rtol=1e-5, atol=1e-9):
            raise DataError(f"The leaves of tree {t} of the ONNX classifier do not share one total, so the "
                            "model is not a vote of class distributions the explorer can show.")
        d = vals.copy()
        d[leaf] = vals[leaf] / c
        one_hot &= bool(np.allclose(d[leaf].max(axis=1), 1.0))      # shares summing to 1 with a 1: one-hot
        members.append(_tree(schema, arrays, d, f"tree {t}"))
        weights.append(c)
    kind = "single" if len(members) == 1 else "vote" if one_hot else "soft_vote"
    return ImportedModel(trees=tuple(members), schema=schema, kind=kind, weights=tuple(weights), source="ONNX",
                         objective="TreeEnsembleClassifier")


def _additive(schema, trees, link, base, n_out) -> ImportedModel:
    """One member per (tree, output column) that tree scores; base values start the margins."""
    ms = member_schema(schema)
    members, outputs = [], []
    for t, arrays, vals in trees:
        for k in range(n_out):
            col = vals[:, [k]]
            if np.nan_to_num(col).any() or n_out == 1:
                members.append(_tree(ms, arrays, col, f"tree {t}"))
                outputs.append(k)
    base_score = tuple(float(b) for b in (base if base.size else np.zeros(n_out)))
    if len(base_score) != n_out:
        raise DataError(f"The ONNX model has {len(base_score)} base values for {n_out} outputs.")
    if not members:
        raise DataError("The ONNX model's trees score no output.")
    return ImportedModel(trees=tuple(members), schema=schema, kind="additive", link=link, base_score=base_score,
                         tree_outputs=tuple(outputs), trees_per_round=1, source="ONNX",
                         objective=f"tree ensemble, {link} link")


def _binary(schema, trees, post, base) -> ImportedModel:
    if post == "LOGISTIC":
        return _additive(schema, trees, "logistic", base[:1], 1)
    if post != "NONE" or base.any():
        raise DataError(f"The ONNX two-class model's post_transform {post} has no equivalent among the "
                        "explorer's model kinds.")
    members = []
    for t, arrays, vals in trees:                         # positive-class score s: shares (1 - T s, T s)
        s = vals * len(trees)
        members.append(_tree(schema, arrays, np.hstack([1.0 - s, s]), f"tree {t}"))
    kind = "single" if len(members) == 1 else "soft_vote"
    return ImportedModel(trees=tuple(members), schema=schema, kind=kind, source="ONNX",
                         objective="TreeEnsembleClassifier")


def _regressor(model, attrs, post, base, double, n_features) -> ImportedModel:
    if int(attrs.get("n_targets", 1)) != 1:
        raise DataError("The ONNX regressor predicts several targets; the explorer opens one-target models.")
    aggregate = str(attrs.get("aggregate_function", "SUM"))
    if post != "NONE" or aggregate not in ("SUM", "AVERAGE"):
        raise DataError(f"The ONNX regressor's {aggregate} of trees with post_transform {post} has no "
                        "equivalent among the explorer's model kinds.")
    schema = _schema(model, n_features, "regression", ())
    trees = list(_trees(attrs, schema, double, "target", 1))
    if len(trees) == 1 and not base.any():
        t, arrays, vals = trees[0]
        return ImportedModel(trees=(_tree(schema, arrays, vals, "the tree"),), schema=schema, kind="single",
                             source="ONNX", objective="TreeEnsembleRegressor")
    out = _additive(schema, trees, "identity", base[:1], 1)
    if aggregate == "AVERAGE":
        out = replace(out, weights=(1.0 / len(trees),) * len(trees))
    return out
