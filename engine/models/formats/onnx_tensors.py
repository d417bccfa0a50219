"""Checks on a parsed ONNX model before any of its tensors or attribute lists is turned into numbers.

An ONNX tensor may keep its bytes outside the file (``data_location = EXTERNAL`` with a ``location``):
``onnx.numpy_helper.to_array`` then opens that path relative to the working directory and reads it, so a
model file could make the server read its own files (``.streamlit/config.toml``, ``.git/config``) into
thresholds, or probe which exist. :func:`check_model` walks every tensor anywhere in the model (graph
initializers, sparse initializers, node attributes, subgraphs of attributes, functions, training graphs)
and refuses, before anything is read:

- any tensor with external data or a ``data_location`` other than the default;
- any tensor whose declared shape does not match the data stored in the file (``raw_data`` length, or the
  length of its typed field), so no shape is ever allocated beyond the bytes that are there;
- any attribute list longer than the model's limits allow (:data:`~engine.models.checks.MAX_NODES` node
  entries; ten times that for leaf weights), checked on the parsed protobuf, before Python lists are made.
"""

from __future__ import annotations

from engine.errors import DataError
from engine.models.checks import MAX_NODES

__all__ = ["check_model", "check_attributes"]

_FOUR_BIT = {21, 22, 23}                        # UINT4, INT4, FLOAT4E2M1: two per byte
_TYPED = ("float_data", "int32_data", "string_data", "int64_data", "double_data", "uint64_data")


def _graphs_and_attributes(model):
    """Every tensor in ``model`` (dense, and sparse ones' values and indices), found without recursion."""
    graphs = [model.graph] + [g for t in model.training_info for g in (t.initialization, t.algorithm)]
    nodes = [n for f in model.functions for n in f.node]
    attrs = [a for f in model.functions for a in f.attribute_proto]
    while graphs or nodes or attrs:
        if graphs:
            g = graphs.pop()
            yield from g.initializer
            for sp in g.sparse_initializer:
                yield from (sp.values, sp.indices)
            nodes.extend(g.node)
        elif nodes:
            attrs.extend(nodes.pop().attribute)
        else:
            a = attrs.pop()
            if a.HasField("t"):
                yield a.t
            yield from a.tensors
            for sp in [a.sparse_tensor] * a.HasField("sparse_tensor") + list(a.sparse_tensors):
                yield from (sp.values, sp.indices)
            graphs.extend([a.g] * a.HasField("g") + list(a.graphs))


def _check_tensor(t) -> None:
    from onnx import TensorProto, helper

    if t.data_location != TensorProto.DEFAULT or len(t.external_data):
        raise DataError("The ONNX model keeps some of its numbers in another file (external data); the explorer "
                        "reads only what is inside the model file, so it was not opened.")
    if t.HasField("segment"):
        raise DataError("The ONNX model stores a tensor in segments, which the explorer does not read.")
    n = 1
    for d in t.dims:
        if d < 0:
            raise DataError("The ONNX model file is damaged: a tensor has a negative dimension.")
        n *= d
    if t.data_type == TensorProto.STRING:
        stored, expected = len(t.string_data), n
    elif t.HasField("raw_data"):
        try:
            bits = 4 if t.data_type in _FOUR_BIT else 8 * helper.tensor_dtype_to_np_dtype(t.data_type).itemsize
        except (KeyError, TypeError, ValueError):
            raise DataError("The ONNX model file holds a tensor of a type the explorer does not know.") from None
        stored, expected = len(t.raw_data), (n * bits + 7) // 8
    else:
        stored = sum(len(getattr(t, f)) for f in _TYPED)
        expected = 2 * n if t.data_type in (TensorProto.COMPLEX64, TensorProto.COMPLEX128) else n
    if stored != expected:
        raise DataError(f"The ONNX model file is damaged: a tensor declares {n:,} values but holds "
                        f"{'bytes for ' if t.HasField('raw_data') else ''}{stored:,}.")


def check_model(model) -> None:
    """Raise DataError unless every tensor of ``model`` lies inside the file and matches its shape."""
    for tensor in _graphs_and_attributes(model):
        _check_tensor(tensor)


def check_attributes(node) -> None:
    """Raise DataError when a tree-ensemble attribute lists more entries than a model within the limits has."""
    for a in node.attribute:
        size = len(a.ints) + len(a.floats) + len(a.strings) + (a.t.dims[0] if len(a.t.dims) == 1 else 0)
        limit = MAX_NODES if a.name.startswith("nodes_") else 10 * MAX_NODES
        if size > limit:
            raise DataError(f"The ONNX model's {a.name[:40]} lists {size:,} entries; the explorer opens models of "
                            f"at most {MAX_NODES:,} nodes.")
