"""Hardening of the ONNX and skops readers: files damaged at random (bytes flipped, cut, spliced; tree
attributes changed; skops schemas naming other types) open as a model that predicts or are refused with one
DataError sentence, and a skops file naming an untrusted type is never loaded."""

from __future__ import annotations

import functools
import io
import json
import zipfile

import numpy as np
import onnx
import pytest
from hypothesis import given
from hypothesis import strategies as st

import engine
from engine.ensembles import fit_random_forest
from engine.ensembles.onnx_export import to_onnx
from engine.errors import EngineError
from tests.hardening.test_hardening_models import FUZZ, NUMBERS, damaged, opens_or_refuses

sio = pytest.importorskip("skops.io")
from sklearn import ensemble, tree  # noqa: E402

X = np.random.default_rng(0).normal(size=(300, 3))
y = (X[:, 0] > 0).astype(int) + (X[:, 1] > 1)


@functools.lru_cache(maxsize=1)
def files() -> dict[str, bytes]:
    """The model files to damage (made once; not a fixture, so hypothesis never prints them)."""
    ds = engine.load_sample("play_tennis")
    out = {"onnx-tree": to_onnx(engine.fit_tree(ds, engine.TreeConfig(algorithm="id3"))),
           "onnx-forest": to_onnx(fit_random_forest(ds, n_estimators=3, random_state=0)),
           "skops-forest": sio.dumps(ensemble.RandomForestClassifier(3, max_depth=3, random_state=0).fit(X, y)),
           "skops-hgb": sio.dumps(ensemble.HistGradientBoostingClassifier(max_iter=3).fit(X, y)),
           "skops-tree": sio.dumps(tree.DecisionTreeRegressor(max_depth=3).fit(X, X[:, 2]))}
    return out


@pytest.mark.parametrize("name", ["onnx-tree", "onnx-forest", "skops-forest", "skops-hgb"])
@FUZZ
@given(data=st.data())
def test_flipped_cut_and_spliced_bytes(name, data):
    opens_or_refuses(damaged(files()[name], data))


ONNX_KEYS = ["nodes_featureids", "nodes_truenodeids", "nodes_falsenodeids", "nodes_treeids", "nodes_nodeids",
             "class_ids", "class_nodeids", "class_treeids", "nodes_missing_value_tracks_true"]


@pytest.mark.parametrize("name", ["onnx-tree", "onnx-forest"])
@FUZZ
@given(data=st.data())
def test_onnx_tree_attributes_changed(name, data):
    model = onnx.load_from_string(files()[name])
    node = model.graph.node[0]
    key = data.draw(st.sampled_from(ONNX_KEYS))
    attr = next(a for a in node.attribute if a.name == key)
    value = data.draw(NUMBERS)
    if not isinstance(value, int) or not -(2**63) <= value < 2**63:
        value = 0
    attr.ints[data.draw(st.integers(0, len(attr.ints) - 1))] = value
    opens_or_refuses(model.SerializeToString())


def _with_schema(blob: bytes, change) -> bytes:
    src = zipfile.ZipFile(io.BytesIO(blob))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        for item in src.namelist():
            content = src.read(item)
            if item == "schema.json":
                content = json.dumps(change(json.loads(content))).encode()
            dst.writestr(item, content)
    return out.getvalue()


@FUZZ
@given(data=st.data())
def test_a_skops_schema_naming_another_type_is_refused_unloaded(data, monkeypatch):
    monkeypatch.setattr(sio, "loads", lambda *a, **k: pytest.fail("an untrusted file was loaded"))
    module, cls = data.draw(st.sampled_from([("os", "system"), ("builtins", "eval"), ("subprocess", "Popen"),
                                             ("sklearn.pipeline", "Pipeline"), ("numpy", "load")]))
    depth = data.draw(st.integers(0, 3))

    def change(schema):
        node = schema
        for _ in range(depth):                                # somewhere down the object tree
            children = [v for v in node.get("content", {}).values() if isinstance(v, dict)] \
                if isinstance(node.get("content"), dict) else []
            if not children:
                break
            node = children[0]
        node["__module__"], node["__class__"] = module, cls
        return schema

    with pytest.raises(EngineError) as err:
        engine.load_model(_with_schema(files()["skops-tree"], change))
    assert "not loaded" in str(err.value) or "damaged" in str(err.value)
