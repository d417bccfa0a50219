"""What a forest's or bagging's members keep (issue 41 item 1): the same predictions, probabilities and
out-of-bag figures as before the members were made compact, on fixed seeds, and the compact forms
themselves (small dtypes, no routing tables or compiled copies kept beside the stacked table)."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest

import engine
from engine.ensembles import fit_bagging, fit_random_forest
from engine.ensembles.forest import impurity_importances


def _data(task: str = "classification", n: int = 1200, seed: int = 3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6)).round(3)
    signal = X[:, 0] + X[:, 1] * X[:, 2] - np.abs(X[:, 3]) + rng.normal(scale=0.6, size=n)
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(6)])
    frame["colour"] = np.array(["red", "green", "blue"])[rng.integers(0, 3, n)]
    if task == "classification":
        frame["y"] = np.array(["a", "b", "c"])[np.searchsorted(np.quantile(signal, [1 / 3, 2 / 3]), signal)]
    else:
        frame["y"] = signal
    return engine.Dataset.from_frame(frame, target="y", task=task)


def _numeric(ds):
    return ds.with_features(tuple(f for f in ds.feature_names if f != "colour"))


def _digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        a = np.asarray(a)
        h.update((a.astype(np.float64) if a.dtype.kind == "f" else a.astype(np.int64)).tobytes())
    return h.hexdigest()[:16]


def _fingerprint(ens, ds, rows):
    """predict, vote shares / values, member outputs, OOB predictions and score on fixed rows."""
    X = np.array(ens.encode(rows), dtype=float)
    X[::7, 1] = np.nan                         # rows with a missing value take the members' own path
    parts = [ens.predict_codes(X), ens.member_outputs(X), ens.train_outputs]
    if ens.task == "classification":
        parts.append(ens.vote_shares(X))
    pred, has = ens.oob_predictions()
    parts += [pred[has], has]
    for m in (ens.members[0], ens.members[-1]):     # a member's own tree, as the pages draw and explain it
        if m.features == ens.schema.feature_names:
            parts.append(m.tree.predict_proba(X) if ens.task == "classification" else m.tree.predict(X))
    parts.append([m.tree.n_leaves for m in ens.members])
    parts.append(impurity_importances(ens).to_numpy())
    return _digest(*parts), round(ens.oob_score(), 12)


# recorded on the code before the members were made compact (same seeds, same data)
BEFORE = {
    "forest": ("d50b164df127b1ba", 0.617056856187),
    "forest_per_tree": ("d7ae8640dd6c07c1", 0.412013536379),
    "forest_categorical": ("8c01a83156281cef", 0.571307300509),
    "bagging": ("fa090ace7f2048f9", 0.604895104895),
    "bagging_regression": ("0d1f05ab1d9bdcec", 1.944149516948),
}


def _fit(case):
    if case == "forest":
        ds = _numeric(_data())
        return fit_random_forest(ds, n_estimators=12, random_state=5, n_jobs=1), ds
    if case == "forest_per_tree":
        ds = _numeric(_data())
        return fit_random_forest(ds, n_estimators=9, per_tree_features=True, random_state=2, n_jobs=1), ds
    if case == "forest_categorical":
        ds = _data()
        return fit_random_forest(ds, n_estimators=8, random_state=1, n_jobs=1), ds
    if case == "bagging":
        ds = _numeric(_data())
        return fit_bagging(ds, n_estimators=7, random_state=4, n_jobs=1), ds
    if case == "bagging_regression":
        ds = _numeric(_data("regression"))
        return fit_bagging(ds, n_estimators=6, random_state=4, n_jobs=1), ds
    raise KeyError(case)


@pytest.mark.parametrize("case", sorted(BEFORE))
def test_compact_members_predict_vote_and_score_out_of_bag_as_before(case):
    ens, ds = _fit(case)
    assert _fingerprint(ens, ds, ds) == BEFORE[case]


@pytest.mark.parametrize("case", sorted(BEFORE))
def test_the_same_ensemble_from_worker_processes(case):
    ens, ds = _fit(case)
    again = (fit_random_forest if case.startswith("forest") else fit_bagging)(
        ds, n_estimators=ens.n_members, random_state=ens.params["random_state"], n_jobs=2,
        **({"per_tree_features": True} if case == "forest_per_tree" else {}))
    assert np.array_equal(ens.train_outputs, again.train_outputs)
    assert [m.tree.fingerprint for m in ens.members] == [m.tree.fingerprint for m in again.members]


def test_a_forest_keeps_small_dtypes_and_no_second_or_third_copy_of_its_trees():
    ens, _ = _fit("forest")
    assert ens.train_outputs.dtype == np.uint8          # 3 classes: codes 0..2
    assert ens.in_bag.dtype == np.uint8                 # a row drawn at most a handful of times
    assert "_compiled" not in ens.__dict__              # routing tables are made when a path needs them
    stacked = ens.__dict__["_stacked"]
    assert stacked.feature.dtype.itemsize <= 4 and stacked.first.dtype == np.int32
    assert stacked.leaf_output.dtype == np.uint8
    for m in ens.members:
        assert "_arrays" not in m.tree.__dict__         # no per-tree routing table beside the stacked one
        assert not m.tree.nodes.materialised            # no node object until a tree is drawn
        fields = m.tree.nodes._fields
        assert fields["stats"].dtype == np.uint16       # whole class counts up to ~1,200 (root): 2 bytes
        assert fields["first_child"].dtype == np.int32 and fields["parent"].dtype == np.int32
    ens.members[0].tree.nodes[0]                        # drawing one member makes its nodes, and only its
    assert ens.members[0].tree.nodes.materialised and not ens.members[1].tree.nodes.materialised


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_a_compact_node_store_makes_the_same_nodes_tables_and_importances(task):
    import copy

    ds = _numeric(_data(task, n=900))
    weights = np.bincount(np.random.default_rng(0).integers(0, len(ds), len(ds)), minlength=len(ds)).astype(float)
    tree = engine.Grower(ds, engine.TreeConfig(algorithm="cart"), sample_weight=weights).grow().tree
    assert hasattr(tree.nodes, "compact")
    plain = copy.deepcopy(tree.nodes)
    small = copy.deepcopy(tree.nodes).compact()
    assert small._fields["first_child"].dtype == np.int32
    if task == "classification":
        assert small._fields["stats"].dtype == np.uint16 and small._fields["splits"]["w_left"].dtype == np.uint16
    for a, b in zip(plain.routing(), small.routing()):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    assert plain.importance_terms() == small.importance_terms()
    assert tuple(plain) == tuple(small)              # every Node and Split field, floats as floats
    assert [type(v) for v in vars(small[1].split).values()] == [type(v) for v in vars(plain[1].split).values()]
