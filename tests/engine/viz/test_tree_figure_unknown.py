"""An ONNX tree read without its CSV keeps no shares or weights for its inner nodes (issue 36): the diagram
draws those boxes neutral instead of the unweighted mean of the leaves (shares, colour, ``w=1``)."""

from __future__ import annotations

import base64
import json

import numpy as np

import engine
from engine.viz.tree_figure import NODE, tree_figure
from tests.model_files import model_file


def onnx_tree():
    data, _, _ = model_file("onnx_tree_array")
    model = engine.load_model(data)
    assert not model.inner_values
    return model.trees[0]


def array(a) -> np.ndarray:
    """A spec's array: a list, or Plotly's base64 typed array (``bdata``, with its ``shape``)."""
    if isinstance(a, dict) and "bdata" in a:
        out = np.frombuffer(base64.b64decode(a["bdata"]), dtype=np.dtype(a["dtype"]))
        return out.reshape([int(k) for k in str(a.get("shape", out.size)).split(",")])
    return np.asarray(a)


def boxes(spec: dict) -> dict[int, tuple[str, str]]:
    """node id -> (box text, hover) of the drawn node boxes (not the "+k nodes" ones)."""
    trace = next(t for t in spec["data"] if t.get("name") == "box text")
    custom = array(trace["customdata"]).reshape(-1, 2)
    return {int(i): (txt, hov) for (i, kind), txt, hov in zip(custom, trace["text"], trace["hovertext"])
            if kind == NODE}


def share_ids(spec: dict) -> set[int]:
    """Ids of the nodes that carry a class-share bar segment of non-zero width."""
    ids = set()
    for t in spec["data"]:
        if t.get("type") == "bar" and str(t.get("name", "")).startswith("class "):
            custom = array(t["customdata"]).reshape(-1, 2)
            width = np.atleast_1d(array(t["width"]).astype(float))
            ids |= {int(i) for (i, _), w in zip(custom, np.broadcast_to(width, len(custom))) if w > 0}
    return ids


def test_inner_boxes_of_a_tree_without_inner_shares_show_no_shares_weight_or_colour():
    tree = onnx_tree()
    spec = json.loads(tree_figure(tree, unknown_inner=True).to_json())
    drawn = boxes(spec)
    inner = [i for i in drawn if not tree.nodes[i].is_leaf]
    leaves = [i for i in drawn if tree.nodes[i].is_leaf]
    assert inner and leaves
    for i in inner:
        text, hover = drawn[i]
        assert "w=" not in text and "n=" not in text, text
        assert "not in the file" in hover and "weight (cover)" not in hover
        assert "0 " not in hover.split("<br>")[-1] and "gini" not in hover, hover   # no made-up counts
    for i in leaves:                                # a leaf's shares are the model's own: still shown
        text, hover = drawn[i]
        assert "class = " in hover and "shares: " in hover and "n = 0" not in hover, hover
        assert "n=" not in text, text                  # but not a row count the file does not hold
    assert share_ids(spec) == set(leaves)
    widths = {t["line"]["width"] for t in spec["data"] if str(t.get("name", "")).startswith("branches ")}
    assert widths <= {1, 3}                         # no branch drawn thick by a made-up weight


def test_the_same_tree_drawn_as_before_keeps_its_shares_when_its_inner_values_are_known():
    tree = onnx_tree()
    spec = json.loads(tree_figure(tree).to_json())
    drawn = boxes(spec)
    assert share_ids(spec) == set(drawn)
    assert all("not in the file" not in hover for _, hover in drawn.values())
