"""Hostile model files of issue 40 (findings 1-6), made small where the point allows: each is built here
from the formats' own rules, never held unpacked when it is a bomb.

- :func:`onnx_external`: a TreeEnsembleRegressor whose ``nodes_values_as_tensor`` is stored "externally", in a
  file named relative to the working directory (the reader must refuse it before anything is read);
- :func:`skops_bomb`: a real skops tree whose first array is ``megabytes`` of deflated zeros;
- :func:`skops_features`, :func:`xgboost_features`: tiny files declaring ``n`` input columns;
- :func:`json_of_empty_lists`, :func:`ubjson_of_empty_lists`: an XGBoost-looking document holding a list of
  ``megabytes`` of empty lists;
- :func:`pickle_run`: a protocol-0 pickle of ``megabytes`` of NONE opcodes then STOP;
- :func:`lightgbm_categorical`: ``features`` categorical features and ``trees`` one-split trees, tree ``t``
  splitting on feature ``t % features`` (the reader's work was features x trees);
- :func:`xgboost_big_tree`: a valid one-tree XGBoost JSON of ``nodes`` nodes (a complete binary tree).
"""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np


def onnx_external(location: str = ".streamlit/config.toml", length: int | None = 3) -> bytes:
    """A one-split ONNX regressor whose three node values are the first bytes of ``location``."""
    from onnx import TensorProto, helper

    values = TensorProto(name="v", data_type=TensorProto.UINT8, dims=[3], data_location=TensorProto.EXTERNAL)
    for key, value in [("location", location), ("offset", "0")] + ([("length", str(length))] if length else []):
        values.external_data.add(key=key, value=value)
    node = helper.make_node(
        "TreeEnsembleRegressor", ["X"], ["Y"], domain="ai.onnx.ml", n_targets=1,
        nodes_treeids=[0, 0, 0], nodes_nodeids=[0, 1, 2], nodes_featureids=[0, 0, 0],
        nodes_modes=["BRANCH_LEQ", "LEAF", "LEAF"], nodes_truenodeids=[1, 0, 0], nodes_falsenodeids=[2, 0, 0],
        nodes_values_as_tensor=values, target_treeids=[0, 0], target_nodeids=[1, 2], target_ids=[0, 0],
        target_weights=[1.0, 2.0])
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [None, 1])],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [None, 1])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.ml", 3)])
    return model.SerializeToString()


def _skops_tree() -> bytes:
    import skops.io as sio
    from sklearn.tree import DecisionTreeRegressor

    X = np.random.default_rng(0).normal(size=(60, 3))
    return sio.dumps(DecisionTreeRegressor(max_depth=2, random_state=0).fit(X, X[:, 0]))


def skops_bomb(megabytes: int = 1024, declared: int | None = None) -> bytes:
    """A skops tree whose first array member is replaced by a .npy of ``megabytes`` MB of zeros, deflated
    (~1 KB per MB): its header declares that shape, so skops reads all of it. ``declared``: the unpacked
    size the zip's central directory then claims for that member (a lie; ``megabytes`` < 2048)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(_skops_tree())) as src, zipfile.ZipFile(out, "w") as dst:
        infos = src.infolist()
        target = next(i.filename for i in infos if i.filename.endswith(".npy"))
        for info in infos:
            if info.filename != target:
                dst.writestr(info, src.read(info))
                continue
            head = io.BytesIO()
            np.lib.format.write_array_header_1_0(head, {"descr": "<f8", "fortran_order": False,
                                                        "shape": ((megabytes << 20) // 8,)})
            bomb = zipfile.ZipInfo(target)
            bomb.compress_type = zipfile.ZIP_DEFLATED
            block = bytes(1 << 20)
            with dst.open(bomb, "w", force_zip64=declared is None) as f:
                f.write(head.getvalue())
                for _ in range(megabytes):
                    f.write(block)
    data = bytearray(out.getvalue())
    if declared is not None:                 # the central directory entry's uncompressed size (offset 24)
        at = data.index(b"PK\x01\x02")
        while not data[at + 46:].startswith(target.encode()):
            at = data.index(b"PK\x01\x02", at + 4)
        data[at + 24:at + 28] = declared.to_bytes(4, "little")
    return bytes(data)


def skops_features(n: int = 10**7) -> bytes:
    """A skops tree whose ``n_features_in_`` says ``n``."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(_skops_tree())) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            content = src.read(info)
            if info.filename == "schema.json":
                schema = json.loads(content)
                schema["content"]["content"]["n_features_in_"]["content"] = str(n)
                content = json.dumps(schema).encode()
            dst.writestr(info, content)
    return out.getvalue()


def _xgboost_doc(trees: list, n_features: int, names: list | None = None) -> dict:
    return {"learner": {
        "feature_names": names or [], "gradient_booster": {"name": "gbtree", "model": {
            "gbtree_model_param": {"num_parallel_tree": "1", "num_trees": str(len(trees))},
            "tree_info": [0] * len(trees), "trees": trees}},
        "learner_model_param": {"base_score": "5E-1", "num_class": "0", "num_feature": str(n_features),
                                "num_target": "1"},
        "objective": {"name": "reg:squarederror"}}, "version": [2, 1, 0]}


def _stump() -> dict:
    return {"left_children": [1, -1, -1], "right_children": [2, -1, -1], "split_indices": [0, 0, 0],
            "split_conditions": [0.5, -1.0, 1.0], "default_left": [0, 0, 0], "sum_hessian": [2.0, 1.0, 1.0],
            "loss_changes": [1.0, 0.0, 0.0], "split_type": [0, 0, 0], "tree_param": {"size_leaf_vector": "1"}}


def xgboost_features(n: int = 10**9) -> bytes:
    """A 400-byte XGBoost JSON whose ``num_feature`` is ``n`` and which names no features."""
    return json.dumps(_xgboost_doc([_stump()], n), separators=(",", ":")).encode()


def xgboost_big_tree(nodes: int = 500_000, seed: int = 0) -> bytes:
    """A valid XGBoost JSON of one complete binary tree of ``nodes`` (odd) nodes on 10 features."""
    n = nodes | 1
    rng = np.random.default_rng(seed)
    i = np.arange(n)
    internal = 2 * i + 2 < n
    left = np.where(internal, 2 * i + 1, -1)
    right = np.where(internal, 2 * i + 2, -1)
    tree = {"left_children": left.tolist(), "right_children": right.tolist(),
            "split_indices": np.where(internal, rng.integers(0, 10, n), 0).tolist(),
            "split_conditions": np.round(rng.normal(size=n), 6).tolist(),
            "default_left": internal.astype(int).tolist(), "sum_hessian": np.round(rng.uniform(1, 9, n), 3).tolist(),
            "loss_changes": np.round(rng.uniform(0, 1, n), 4).tolist(), "split_type": [0] * n,
            "base_weights": np.zeros(n).tolist(), "parents": ([2147483647] + ((i[1:] - 1) // 2).tolist()),
            "tree_param": {"num_nodes": str(n), "size_leaf_vector": "1"}}
    return json.dumps(_xgboost_doc([tree], 10, [f"f{j}" for j in range(10)])).encode()


def json_of_empty_lists(megabytes: int = 190) -> bytes:
    body = b",".join([b"[]"] * ((megabytes << 20) // 3))
    return b'{"learner": {"feature_names": [' + body + b"]}}"


def ubjson_of_empty_lists(megabytes: int = 50) -> bytes:
    """UBJSON ``{"learner": {"x": [[], [], ...]}}`` (untyped containers, two bytes each)."""
    body = b"[]" * ((megabytes << 20) // 2)
    return b"{U\x07learner{U\x01x[" + body + b"]}}"


def pickle_run(megabytes: int = 190) -> bytes:
    return b"N" * (megabytes << 20) + b"."


def lightgbm_categorical(features: int = 2000, trees: int = 2000) -> bytes:
    """A LightGBM regression text file: ``trees`` trees of one category split (codes {1} left) each."""
    names = " ".join(f"c{j}" for j in range(features))
    infos = " ".join(["0:1:2"] * features)
    head = (f"tree\nversion=v4\nnum_class=1\nnum_tree_per_iteration=1\nlabel_index=0\n"
            f"max_feature_idx={features - 1}\nobjective=regression\nfeature_names={names}\nfeature_infos={infos}\n\n")
    blocks = [f"Tree={t}\nnum_leaves=2\nnum_cat=1\nsplit_feature={t % features}\nsplit_gain=1\nthreshold=0\n"
              f"decision_type=1\nleft_child=-1\nright_child=-2\nleaf_value=0.1 -0.1\nleaf_weight=1 1\n"
              f"leaf_count=1 1\ninternal_value=0\ninternal_weight=2\ninternal_count=2\ncat_boundaries=0 1\n"
              f"cat_threshold=2\nis_linear=0\nshrinkage=1\n\n" for t in range(trees)]
    cats = ",".join(str(j) for j in range(features))
    tail = f"end of trees\n\nparameters:\n[boosting: gbdt]\n[categorical_feature: {cats}]\nend of parameters\n"
    return (head + "".join(blocks) + tail).encode()
