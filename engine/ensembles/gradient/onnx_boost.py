"""A gradient-boosted ensemble as an ONNX model (the layout of :mod:`engine.ensembles.onnx_export`).

One ``TreeEnsembleRegressor`` with one target per raw column sums ``learning_rate x leaf value`` over the
trees, starting from F_0 (``base_values``): the output ``raw`` is the margin F (N, K). Regression's
``variable`` is F itself; two classes take ``probabilities = [1 - sigmoid(F), sigmoid(F)]`` and the label
"second class where F > 0"; K classes ``Softmax(F)`` and the first class with the largest F. Rows with a
missing value (or a category a node never saw) take the C4.5 mix of every tree (:mod:`engine.tree.onnx_mix`)
instead, as the app predicts them. Numbers leave the file as floats (32 bits), as the other exports.
"""

from __future__ import annotations

import json

from engine.errors import DataError
from engine.ensembles.onnx_export import (INPUT_DOC, MAIN_OPSET, ML_OPSET, _Builder, _check_classes,
                                          _features_json, _mixed, _onnx)


def boosting_to_onnx(ens) -> bytes:
    """ONNX model bytes of a :class:`~engine.ensembles.gradient.model.GradientEnsemble` (see the module docstring)."""
    schema = ens.schema
    _check_classes(schema)
    if not ens.members:
        raise DataError("This ensemble has no trees to export.")
    onnx = _onnx()
    helper, TP = onnx.helper, onnx.TensorProto
    K, lr = ens.n_columns, float(ens.learning_rate)
    builder, members = _Builder(schema), []
    for rd in ens.rounds:
        for k, m in enumerate(rd.members):
            tree = ens.members[m].tree
            builder.add_tree(m, tree, lambda node, k=k: [(k, lr * float(node.value[0]))])
            members.append((tree, lambda node, k=k: [lr * float(node.value[0]) if j == k else 0.0 for j in range(K)],
                            1.0))
    nodes, leaves = builder.nodes, builder.leaves
    op = helper.make_node(
        "TreeEnsembleRegressor", ["X"], ["one_path_raw"], domain="ai.onnx.ml", n_targets=K,
        nodes_treeids=nodes["treeids"], nodes_nodeids=nodes["nodeids"], nodes_featureids=nodes["featureids"],
        nodes_modes=nodes["modes"], nodes_truenodeids=nodes["truenodeids"], nodes_falsenodeids=nodes["falsenodeids"],
        nodes_missing_value_tracks_true=nodes["missing_value_tracks_true"],
        nodes_values_as_tensor=helper.make_tensor("nodes_values", TP.DOUBLE, [len(nodes["values"])], nodes["values"]),
        target_treeids=leaves["treeids"], target_nodeids=leaves["nodeids"], target_ids=leaves["ids"],
        target_weights_as_tensor=helper.make_tensor("leaf_weights", TP.DOUBLE, [len(leaves["weights"])],
                                                    leaves["weights"]),
        base_values_as_tensor=helper.make_tensor("base_values", TP.DOUBLE, [K], [float(v) for v in ens.init_raw]),
        aggregate_function="SUM", post_transform="NONE")
    mix_ops, inits = _mixed(helper, TP, schema, members, vote=False)
    inits.append(helper.make_tensor("start_raw", TP.FLOAT, [1, K], [float(v) for v in ens.init_raw]))
    graph = [op, *mix_ops, helper.make_node("Add", ["mix_answer_f", "start_raw"], ["mix_raw"]),
             helper.make_node("Where", ["mix_rows", "mix_raw", "one_path_raw"], ["raw"])]
    outputs = [helper.make_tensor_value_info("raw", TP.FLOAT, ["N", K])]
    if ens.task == "regression":
        graph.append(helper.make_node("Identity", ["raw"], ["variable"]))
        outputs.append(helper.make_tensor_value_info("variable", TP.FLOAT, ["N", 1]))
    else:
        C = len(schema.classes)
        inits += [helper.make_tensor("class_labels", TP.STRING, [C], [c.encode() for c in schema.classes]),
                  helper.make_tensor("one", TP.FLOAT, [], [1.0]), helper.make_tensor("zero", TP.FLOAT, [], [0.0])]
        if K == 1:
            graph += [helper.make_node("Sigmoid", ["raw"], ["p1"]), helper.make_node("Sub", ["one", "p1"], ["p0"]),
                      helper.make_node("Concat", ["p0", "p1"], ["probabilities"], axis=1),
                      helper.make_node("Greater", ["raw", "zero"], ["positive"]),
                      helper.make_node("Cast", ["positive"], ["positive_i"], to=TP.INT64),
                      helper.make_node("Flatten", ["positive_i"], ["positive_2d"], axis=0),
                      helper.make_node("Squeeze", ["positive_2d", "squeeze_axis"], ["class_index"])]
            inits.append(helper.make_tensor("squeeze_axis", TP.INT64, [1], [0]))
        else:
            graph += [helper.make_node("Softmax", ["raw"], ["probabilities"], axis=1),
                      helper.make_node("ArgMax", ["raw"], ["class_index"], axis=1, keepdims=0)]
        graph.append(helper.make_node("Gather", ["class_labels", "class_index"], ["label"], axis=0))
        outputs = [helper.make_tensor_value_info("label", TP.STRING, ["N"]),
                   helper.make_tensor_value_info("probabilities", TP.FLOAT, ["N", C])] + outputs
    model = helper.make_model(
        helper.make_graph(graph, "decision_tree_explorer", [helper.make_tensor_value_info("X", TP.DOUBLE,
                                                                                           ["N", len(schema.feature_names)])],
                          outputs, initializer=inits),
        producer_name="decision-tree-explorer",
        doc_string=f"Gradient boosting ({ens.n_rounds} rounds, {ens.loss_name}) exported by the decision-tree "
                   "explorer; output raw is the margin F. " + INPUT_DOC,
        opset_imports=[helper.make_opsetid("", MAIN_OPSET), helper.make_opsetid("ai.onnx.ml", ML_OPSET)])
    model.ir_version = 8
    helper.set_model_props(model, {"features": _features_json(schema), "task": schema.task,
                                   "classes": json.dumps(list(schema.classes)), "kind": "boosting",
                                   "method": "gradient_boosting", "learning_rate": repr(lr)})
    onnx.checker.check_model(model)
    return model.SerializeToString()
