"""Export a tree or an ensemble made here as an ONNX model that runs without this app.

The file holds one ``ai.onnx.ml`` tree-ensemble operator (``TreeEnsembleClassifier`` for a
classification tree or vote, ``TreeEnsembleRegressor`` for regression), the missing-value graph below,
``ArgMax``/``Gather`` for the label and, for votes, one ``Mul``.

**Input** ``X``: a double tensor ``[N, F]``, one column per feature in ``schema.feature_names`` order
(the model's ``metadata_props["features"]`` lists them as JSON with their kinds and categories). A
numeric feature is its value; a categorical feature is its category *code*: the position of the label
in that feature's category list (``categories[j].index(label)``), exactly as
:meth:`engine.data.schema.FeatureSchema.encode` writes it. A missing value is NaN.

**Outputs**: classification ``label`` (string ``[N]``) and ``probabilities`` (float ``[N, K]`` in
``schema.classes`` order: a tree's leaf class shares, an ensemble's vote shares, as the app shows
them); regression ``variable`` (float ``[N, 1]``: the leaf mean, or the ensemble's weighted mean).

**How tests are written.** ``x <= t`` is ``BRANCH_LEQ`` (double thresholds). A category test
(multiway, subset or equals) becomes a chain of ``BRANCH_EQ`` nodes on the code, one per category
that does not go to the test's largest branch; the chain ends in the largest branch. A branch reached
from several categories is copied once per category (ONNX trees have one parent per node).

**Missing values as in the app.** The app sends a row with a missing value (or a category a node never
saw) down *every* branch, weighted by the branches' training shares (C4.5); ONNX's tree operators follow
one branch (the file names the largest, as the app's path view). So the file also holds, per tree, the
small graph of standard operators in :mod:`engine.tree.onnx_mix` that computes the C4.5 mix, and a
``Where`` takes its answer for exactly the rows some node routes to "missing": every row, missing values
or not, predicts as in the app.
"""

from __future__ import annotations

import json

import numpy as np

from engine.errors import ConfigError, DataError
from engine.tree.onnx_mix import mixed_tree

__all__ = ["to_onnx", "tree_to_onnx", "ensemble_to_onnx", "onnx_problem", "MAX_ONNX_NODES"]

#: The exported file's node count cap (category chains copy branches, so it can exceed the tree's).
MAX_ONNX_NODES = 2_000_000
ML_OPSET, MAIN_OPSET = 3, 17


def _onnx():
    try:
        import onnx
    except ImportError:  # pragma: no cover - onnx is in requirements.txt
        raise ConfigError("Exporting to ONNX needs the 'onnx' package: pip install onnx.") from None
    return onnx


class _Builder:
    """Accumulates the flat node and leaf-weight lists of a tree-ensemble operator, tree by tree."""

    def __init__(self, outer_schema):
        self.outer = outer_schema
        self.nodes = {k: [] for k in ("treeids", "nodeids", "featureids", "values", "modes", "truenodeids",
                                      "falsenodeids", "missing_value_tracks_true")}
        self.leaves = {k: [] for k in ("treeids", "nodeids", "ids", "weights")}

    def _node(self, tree_id, node_id, mode, feature=0, value=0.0, true=0, false=0, missing_true=0):
        if len(self.nodes["nodeids"]) >= MAX_ONNX_NODES:
            raise DataError(f"This model would need more than {MAX_ONNX_NODES:,} ONNX nodes (category tests "
                            "copy branches); prune it or merge categories before exporting.")
        for key, v in zip(self.nodes, (tree_id, node_id, feature, value, mode, true, false, missing_true)):
            self.nodes[key].append(v)

    def add_tree(self, tree_id: int, tree, leaf_targets) -> None:
        """Append ``tree`` (an engine Tree, possibly over a subset of the outer schema's features) as
        ONNX tree ``tree_id``; ``leaf_targets(node)`` gives a leaf's ``[(target id, weight), ...]``."""
        inner = tree.schema
        columns = [self.outer.index(name) for name in inner.feature_names]
        counter = [0]

        def new_id():
            counter[0] += 1
            return counter[0] - 1

        # explicit stack of (engine node id, onnx id): deep trees need no recursion
        stack = [(0, new_id())]
        while stack:
            nid, oid = stack.pop()
            node = tree.nodes[nid]
            if node.is_leaf:
                self._node(tree_id, oid, "LEAF")
                for target, weight in leaf_targets(node):
                    for key, v in zip(self.leaves, (tree_id, oid, target, weight)):
                        self.leaves[key].append(v)
                continue
            split = node.split
            col = columns[split.feature_index]
            cw = np.asarray(split.child_weights, dtype=float)
            largest = int(np.argmax(cw)) if cw.size and cw.sum() > 0 else 0
            if split.kind == "threshold":
                left, right = new_id(), new_id()
                self._node(tree_id, oid, "BRANCH_LEQ", col, float(split.threshold), left, right,
                           int(largest == 0))
                stack += [(node.children[1], right), (node.children[0], left)]
                continue
            chain = self._category_chain(split, inner, split.feature_index, col, largest)
            if not chain:                              # every code goes to the largest branch
                stack.append((node.children[largest], oid))
                continue
            for i, (code, child) in enumerate(chain):
                true_id, false_id = new_id(), new_id()
                self._node(tree_id, oid, "BRANCH_EQ", col, float(code), true_id, false_id, 0)
                stack.append((node.children[child], true_id))
                oid = false_id
            stack.append((node.children[largest], oid))

    def _category_chain(self, split, inner, j_inner, col, largest):
        """(outer code, child index) for every code of the outer schema that the split sends to a branch
        other than ``largest``; codes the tree never saw go with the missing values (to ``largest``)."""
        inner_pos = {label: c for c, label in enumerate(inner.categories[j_inner])}
        outer_labels = self.outer.categories[col]
        inner_codes = np.array([inner_pos.get(label, -1) for label in outer_labels], dtype=float)
        inner_codes[inner_codes < 0] = np.nan
        route = split.route(inner_codes) if inner_codes.size else np.empty(0, dtype=np.int64)
        return [(code, int(child)) for code, child in enumerate(route.tolist()) if child >= 0 and child != largest]


def _features_json(schema) -> str:
    return json.dumps([{"name": n, "kind": k, "categories": list(c) if k == "categorical" else []}
                       for n, k, c in zip(schema.feature_names, schema.kinds, schema.categories)])


def _mixed(helper, TP, schema, members, vote: bool):
    """The C4.5 graphs of ``members`` [(tree, leaf value, vote weight)] summed: each member's answer, or for a
    vote its weight on its first largest class; and per row whether any member routed it to -1."""
    ops, inits, answers, splits = [], [], [], []
    for i, (tree, value, z) in enumerate(members):
        o, ini, answer, split = mixed_tree(helper, TP, tree, schema, value, f"m{i}_")
        ops, inits, splits = ops + o, inits + ini, splits + [split]
        if vote:
            K = len(schema.classes)
            inits += [helper.make_tensor(f"m{i}_classes", TP.INT64, [1, K], list(range(K))),
                      helper.make_tensor(f"m{i}_z", TP.DOUBLE, [], [z])]
            ops += [helper.make_node("ArgMax", [answer], [f"m{i}_win"], axis=1, keepdims=1),
                    helper.make_node("Equal", [f"m{i}_win", f"m{i}_classes"], [f"m{i}_hot"]),
                    helper.make_node("Cast", [f"m{i}_hot"], [f"m{i}_hotd"], to=TP.DOUBLE),
                    helper.make_node("Mul", [f"m{i}_hotd", f"m{i}_z"], [f"m{i}_vote"])]
            answer = f"m{i}_vote"
        answers.append(answer)
    ops.append(helper.make_node("Sum", answers, ["mix_answer"]))
    ops += [helper.make_node("Cast", [s], [s + "_d"], to=TP.DOUBLE) for s in splits]
    ops += [helper.make_node("Max", [s + "_d" for s in splits], ["mix_any"]),
            helper.make_node("Cast", ["mix_any"], ["mix_split"], to=TP.BOOL),
            helper.make_node("Unsqueeze", ["mix_split", "mix_axis"], ["mix_rows"]),
            helper.make_node("Cast", ["mix_answer"], ["mix_answer_f"], to=TP.FLOAT)]
    inits.append(helper.make_tensor("mix_axis", TP.INT64, [1], [1]))
    return ops, inits


def _model(builder: _Builder, schema, *, regression: bool, scale: float | None, doc: str, extra: dict,
           members, vote: bool) -> bytes:
    """The ONNX model bytes around ``builder``'s trees (``scale``: the Mul that turns votes into shares);
    rows some member routes to -1 (missing values) take the C4.5 graphs' answer instead (``Where``)."""
    onnx = _onnx()
    helper, TP = onnx.helper, onnx.TensorProto
    nodes = builder.nodes
    attrs = dict(nodes_treeids=nodes["treeids"], nodes_nodeids=nodes["nodeids"],
                 nodes_featureids=nodes["featureids"], nodes_modes=nodes["modes"],
                 nodes_truenodeids=nodes["truenodeids"], nodes_falsenodeids=nodes["falsenodeids"],
                 nodes_missing_value_tracks_true=nodes["missing_value_tracks_true"],
                 nodes_values_as_tensor=helper.make_tensor("nodes_values", TP.DOUBLE, [len(nodes["values"])],
                                                           nodes["values"]),
                 post_transform="NONE")
    leaves = builder.leaves
    n_features = len(schema.feature_names)
    x = helper.make_tensor_value_info("X", TP.DOUBLE, ["N", n_features])
    mix_ops, inits = _mixed(helper, TP, schema, members, vote)
    weights = helper.make_tensor("leaf_weights", TP.DOUBLE, [len(leaves["weights"])], leaves["weights"])
    if regression:
        op = helper.make_node("TreeEnsembleRegressor", ["X"], ["one_path_variable"], domain="ai.onnx.ml",
                              n_targets=1, target_treeids=leaves["treeids"], target_nodeids=leaves["nodeids"],
                              target_ids=leaves["ids"], target_weights_as_tensor=weights, aggregate_function="SUM",
                              **attrs)
        graph_nodes = [op, *mix_ops, helper.make_node("Where", ["mix_rows", "mix_answer_f", "one_path_variable"],
                                                      ["variable"])]
        outputs = [helper.make_tensor_value_info("variable", TP.FLOAT, ["N", 1])]
    else:
        K = len(schema.classes)
        raw = "probabilities" if scale is None else "votes"
        op = helper.make_node("TreeEnsembleClassifier", ["X"], ["operator_label", "one_path_" + raw],
                              domain="ai.onnx.ml",
                              classlabels_strings=list(schema.classes), class_treeids=leaves["treeids"],
                              class_nodeids=leaves["nodeids"], class_ids=leaves["ids"],
                              class_weights_as_tensor=weights, **attrs)
        graph_nodes = [op, *mix_ops, helper.make_node("Where", ["mix_rows", "mix_answer_f", "one_path_" + raw], [raw])]
        inits.append(helper.make_tensor("class_labels", TP.STRING, [K], [c.encode() for c in schema.classes]))
        if scale is not None:
            inits.append(helper.make_tensor("vote_share", TP.FLOAT, [], [scale]))
            graph_nodes.append(helper.make_node("Mul", ["votes", "vote_share"], ["probabilities"]))
        # the label is the first class with the largest share, as in the app (onnxruntime's own label
        # output reads two-class scores by another rule)
        graph_nodes += [helper.make_node("ArgMax", ["probabilities"], ["class_index"], axis=1, keepdims=0),
                        helper.make_node("Gather", ["class_labels", "class_index"], ["label"], axis=0)]
        outputs = [helper.make_tensor_value_info("label", TP.STRING, ["N"]),
                   helper.make_tensor_value_info("probabilities", TP.FLOAT, ["N", K])]
    graph = helper.make_graph(graph_nodes, "decision_tree_explorer", [x], outputs, initializer=inits)
    model = helper.make_model(graph, producer_name="decision-tree-explorer", doc_string=doc,
                              opset_imports=[helper.make_opsetid("", MAIN_OPSET),
                                             helper.make_opsetid("ai.onnx.ml", ML_OPSET)])
    model.ir_version = 8
    meta = {"features": _features_json(schema), "task": schema.task,
            "classes": json.dumps(list(schema.classes)), **extra}
    helper.set_model_props(model, meta)
    onnx.checker.check_model(model)
    return model.SerializeToString()


def _check_tree(tree) -> None:
    if not hasattr(tree, "nodes") or not hasattr(tree, "schema") or tree.nodes[0] is None:
        raise DataError("Only a tree or an ensemble made by this app can be exported to ONNX.")
    _check_classes(tree.schema)


def _check_classes(schema) -> None:
    # onnxruntime aborts the whole process on a classifier with one class label: never write one
    if schema.task == "classification" and len(schema.classes) < 2:
        raise DataError("A model that knows only one class cannot be exported to ONNX (its classifier "
                        "operator needs at least two); every row would get that class anyway.")


INPUT_DOC = ("Input X: doubles [N, F], columns in metadata_props['features'] order; a categorical feature is "
             "its category's position in that feature's list; a missing value is NaN and, as an unseen "
             "category, goes down every branch weighted by its training share (C4.5).")


def tree_to_onnx(tree) -> bytes:
    """ONNX model bytes of one engine :class:`~engine.tree.Tree` (grown, pruned or edited by hand)."""
    _check_tree(tree)
    builder = _Builder(tree.schema)
    if tree.task == "regression":
        builder.add_tree(0, tree, lambda node: [(0, float(node.value[0]))])
    else:
        builder.add_tree(0, tree, lambda node: list(enumerate(float(v) for v in node.value)))
    value = (lambda n: [float(n.value[0])]) if tree.task == "regression" else (lambda n: list(n.value))
    return _model(builder, tree.schema, regression=tree.task == "regression", scale=None,
                  doc="A decision tree exported by the decision-tree explorer. " + INPUT_DOC,
                  extra={"kind": "tree"}, members=[(tree, value, 1.0)], vote=False)


def ensemble_to_onnx(ensemble) -> bytes:
    """ONNX model bytes of an engine :class:`~engine.ensembles.votes.Ensemble` (bagging, random forest,
    AdaBoost): classification as the weighted majority vote (``probabilities`` = vote shares), regression
    as the weighted mean of the members."""
    schema = ensemble.schema
    _check_classes(schema)
    if not ensemble.members:
        raise DataError("This ensemble has no members to export.")
    total = float(ensemble.weights.sum())
    if not np.isfinite(total) or total <= 0:
        raise DataError("This ensemble's vote weights do not add up to a positive number, so it cannot be exported.")
    builder = _Builder(schema)
    classes = list(schema.classes)
    members = []
    for m in ensemble.members:
        _check_tree(m.tree)
        z = float(m.weight)
        if ensemble.task == "regression":
            builder.add_tree(m.index, m.tree, lambda node, z=z: [(0, z * float(node.value[0]) / total)])
            members.append((m.tree, lambda node, z=z: [z * float(node.value[0]) / total], z))
        else:
            own = list(m.tree.schema.classes)

            def vote(node, z=z, own=own):
                values = np.asarray(node.value, dtype=float)
                winner = own[int(np.argmax(values >= values.max() - 1e-12))]   # first_argmax, as the member
                return [(k, z if c == winner else 0.0) for k, c in enumerate(classes)]
            builder.add_tree(m.index, m.tree, vote)
            members.append((m.tree, lambda node, own=own: [node.value[own.index(c)] if c in own else 0.0
                                                           for c in classes], z))
    regression = ensemble.task == "regression"
    return _model(builder, schema, regression=regression, scale=None if regression else 1.0 / total,
                  doc=f"A {ensemble.method} ensemble of {ensemble.n_members} trees exported by the "
                      "decision-tree explorer. " + INPUT_DOC,
                  extra={"kind": "vote", "method": str(ensemble.method)}, members=members,
                  vote=not regression)


def onnx_problem(model) -> str | None:
    """The sentence :func:`to_onnx` would refuse ``model`` with (checked without building the file), or None."""
    try:
        _check_classes(model.schema) if hasattr(model, "members") else _check_tree(model)
    except DataError as err:
        return str(err)
    return None


def to_onnx(model) -> bytes:
    """ONNX model bytes of a tree or an ensemble (see the module docstring for the file's input and outputs);
    a model with its own ``to_onnx`` (gradient boosting: a sum, not a vote) writes itself."""
    if callable(getattr(model, "to_onnx", None)):
        return model.to_onnx()
    if hasattr(model, "members"):
        return ensemble_to_onnx(model)
    _check_tree(model)
    return tree_to_onnx(model)
