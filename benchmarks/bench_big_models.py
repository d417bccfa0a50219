"""Opening model files near the explorer's 1,000,000-node limit (issue 41 item 5): time and peak memory.

The files are made by the libraries themselves, many deep trees on random data (so nearly every tree is
full): XGBoost ``Booster.save_model`` as JSON and UBJSON, LightGBM's text (ten grown trees of 1,000 leaves,
repeated: see :func:`make_lightgbm`), each about ``--nodes`` nodes (default 990,000) in all; plus one XGBoost
tree of that many nodes written from the format's rules (:func:`tests.hardening.hostile_models.xgboost_big_tree`), which xgboost loads and
predicts (checked here before it is timed). Each file is opened in a fresh subprocess capped at 4 GB of
address space (:func:`benchmarks.bench_model_limits.measure`): the figures are the child's peak resident
memory above its memory just before ``load_model``, its CPU and wall seconds. ``--use`` also predicts
1,000 rows and breaks one row into tree contributions (the Evaluate page and the waterfall) in the
same child, after the opening, and reports the peak over all of it.

Run: ``python benchmarks/bench_big_models.py [--nodes N] [--use] [--keep DIR] [--root DIR]``
(``--keep`` keeps the files in DIR and reuses them on the next run; ``--root`` runs another checkout's
engine, e.g. the code before a change exported with ``git archive``).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_model_limits import measure  # noqa: E402

ROWS, FEATURES, DEPTH = 40_000, 10, 10     # depth 10: up to 2,047 nodes a tree


def _data(seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(ROWS, FEATURES))
    return X, X[:, 0] + rng.normal(size=ROWS)


def _xgboost_nodes(booster) -> int:
    doc = json.loads(booster.save_raw("json"))
    return sum(len(t["left_children"]) for t in doc["learner"]["gradient_booster"]["model"]["trees"])


def make_xgboost(nodes: int, folder: Path) -> list[Path]:
    import xgboost as xgb

    X, y = _data()
    params = {"objective": "reg:squarederror", "max_depth": DEPTH, "min_child_weight": 0, "lambda": 0,
              "eta": 0.05, "nthread": 2, "tree_method": "hist", "max_bin": 256}
    dm = xgb.DMatrix(X, y)
    booster, rounds = None, 0
    while True:                 # later trees are smaller (the residuals shrink): add rounds until near ``nodes``
        have = _xgboost_nodes(booster) if booster is not None else 0
        if have >= 0.97 * nodes:
            break
        more = max(1, int((nodes - have) / (have / rounds if rounds else 2 ** (DEPTH + 1))))
        booster = xgb.train(params, dm, more, xgb_model=booster)
        rounds += more
    while _xgboost_nodes(booster) > nodes and rounds > 1:              # stay under the limit
        rounds -= max(1, rounds // 100)
        booster = booster[:rounds]
    out = [folder / "xgboost.json", folder / "xgboost.ubj"]
    for path in out:
        booster.save_model(str(path))
    return out


def make_lightgbm(nodes: int, folder: Path, trained: int = 10) -> list[Path]:
    """``trained`` trees of 1,000 leaves grown by LightGBM, then repeated (renumbered) up to ``nodes``:
    growing 500 such trees takes many minutes on a shared 2-core machine and reads no differently.
    The file is checked by loading it in LightGBM and predicting with it."""
    import lightgbm as lgb

    X, y = _data(1)
    leaves = 1000
    params = {"objective": "regression", "num_leaves": leaves, "max_depth": -1, "min_data_in_leaf": 2,
              "min_sum_hessian_in_leaf": 0, "learning_rate": 0.05, "num_threads": 2, "verbose": -1}
    text = lgb.train(params, lgb.Dataset(X, y), trained).model_to_string()
    head, rest = text.split("\nTree=0\n", 1)
    body, tail = rest.split("\nend of trees", 1)
    blocks = [b.strip() for b in ("Tree=0\n" + body).split("\n\n") if b.strip()]
    sizes = [2 * int(b.split("num_leaves=")[1].split("\n")[0]) - 1 for b in blocks]
    count = 0
    while sum(sizes[t % len(sizes)] for t in range(count + 1)) <= nodes:
        count += 1
    out = [f"Tree={t}\n" + blocks[t % len(blocks)].split("\n", 1)[1] for t in range(count)]
    head = "\n".join(line for line in head.split("\n") if not line.startswith("tree_sizes="))
    path = folder / "lightgbm.txt"
    path.write_text(head + "\n\n" + "\n\n".join(out) + "\n\n\nend of trees" + tail)
    booster = lgb.Booster(model_file=str(path))
    assert booster.num_trees() == count
    booster.predict(X[:2])
    print(f"  lightgbm: {count} trees ({trained} grown), {sum(sizes[t % len(sizes)] for t in range(count)):,} nodes",
          flush=True)
    return [path]


def make_one_tree(nodes: int, folder: Path) -> list[Path]:
    """One complete binary tree of ``nodes`` nodes: the arrays of
    :func:`tests.hardening.hostile_models.xgboost_big_tree` put into a one-round model XGBoost saved (so the
    file has every field XGBoost writes), checked by loading it in XGBoost and predicting with it."""
    import xgboost as xgb

    from tests.hardening.hostile_models import xgboost_big_tree

    X, y = _data(2)
    doc = json.loads(xgb.train({"max_depth": 2}, xgb.DMatrix(X, y), 1).save_raw("json"))
    tree = doc["learner"]["gradient_booster"]["model"]["trees"][0]
    big = json.loads(xgboost_big_tree(nodes - 1))["learner"]["gradient_booster"]["model"]["trees"][0]
    tree.update({k: v for k, v in big.items() if k != "tree_param"})
    tree["tree_param"]["num_nodes"] = str(len(big["left_children"]))
    path = folder / "xgboost-one-tree.json"
    path.write_text(json.dumps(doc))
    booster = xgb.Booster(model_file=str(path))
    booster.predict(xgb.DMatrix(X[:2]))
    return [path]


USE = r"""
import numpy as np
from engine.models.explain import contributions
X = np.random.default_rng(0).normal(size=(1000, len(m.feature_names)))
m.predict(X)
contributions(m, X[:1])
"""


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=990_000)
    ap.add_argument("--use", action="store_true", help="also predict 1,000 rows and one waterfall")
    ap.add_argument("--keep", type=Path, help="folder to keep (and reuse) the files in")
    ap.add_argument("--root", type=Path, default=ROOT, help="checkout whose engine opens the files")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        files = []
        for make, names in [(make_xgboost, ["xgboost.json", "xgboost.ubj"]), (make_lightgbm, ["lightgbm.txt"]),
                            (make_one_tree, ["xgboost-one-tree.json"])]:
            paths = [folder / n for n in names]
            if not all(p.exists() for p in paths):
                t = time.perf_counter()
                paths = make(args.nodes, folder)
                print(f"  made {', '.join(p.name for p in paths)} in {time.perf_counter() - t:.0f} s", flush=True)
            files += paths
        for path in files:
            r = measure(path, args.root.resolve(), extra=USE if args.use else "")
            print(f"{path.name:24s} {path.stat().st_size / 2**20:7.1f} MB file  +{r['peak_mb']:6.0f} MB peak  "
                  f"{r['cpu']:6.2f} s CPU  {r['seconds']:6.2f} s  {r.get('nodes', 0):,} nodes  {r['outcome'][:90]}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
