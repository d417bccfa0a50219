"""Peak memory and time of opening (or refusing) the hostile model files of issue 40, each in a fresh
subprocess capped at 4 GB of address space.

Figures: the child's peak resident memory (``VmHWM``, reset after the file's bytes are read and the
format libraries onnx, skops and scikit-learn are imported, as in a server that has opened a model) above
its resident memory just before ``load_model``, in MB, its CPU seconds and wall seconds, and the first words of
the outcome. The files come from :mod:`tests.hardening.hostile_models`.

Run: ``python benchmarks/bench_model_limits.py [case ...] [--root DIR]`` (``--root`` runs another checkout's
engine on the same files, e.g. the code before a change, exported with ``git archive``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.hardening import hostile_models as H  # noqa: E402

CASES = {
    "onnx-external": lambda: H.onnx_external(".streamlit/config.toml"),
    "onnx-external-missing": lambda: H.onnx_external("no/such/file"),
    "skops-bomb-4g": lambda: H.skops_bomb(4096),
    "skops-features-1e7": lambda: H.skops_features(10**7),
    "xgb-features-1e7": lambda: H.xgboost_features(10**7),
    "xgb-features-1e9": lambda: H.xgboost_features(10**9),
    "json-empty-lists-190mb": lambda: H.json_of_empty_lists(190),
    "ubjson-empty-lists-50mb": lambda: H.ubjson_of_empty_lists(50),
    "pickle-run-190mb": lambda: H.pickle_run(190),
    "lgb-cat-500x500": lambda: H.lightgbm_categorical(500, 500),
    "lgb-cat-2000x2000": lambda: H.lightgbm_categorical(2000, 2000),
    "xgb-tree-500k": lambda: H.xgboost_big_tree(500_000),
    "xgb-tree-1m": lambda: H.xgboost_big_tree(999_999),
}

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
from engine import load_model
from engine.errors import EngineError

def vm(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) / 1024

import onnx, skops.io, sklearn.ensemble, sklearn.tree  # noqa: E401,F401 - loaded as a server has them
data = open(sys.argv[2], "rb").read()
open("/proc/self/clear_refs", "w").write("5")
before = vm("VmRSS")
t, c = time.perf_counter(), time.process_time()
try:
    m = load_model(data)
    exec(sys.argv[3] if len(sys.argv) > 3 else "")
    outcome = f"opened: {m.n_trees} trees, {len(m.feature_names)} features"
    seconds, cpu = time.perf_counter() - t, time.process_time() - c
    nodes = sum(tree.n_nodes for tree in m.trees)
except EngineError as err:
    outcome = "refused: " + str(err)
except BaseException as err:
    outcome = f"raised {type(err).__name__}: {err}"
if not outcome.startswith("opened"):
    seconds, cpu, nodes = time.perf_counter() - t, time.process_time() - c, 0
print(json.dumps({"peak_mb": vm("VmHWM") - before, "cpu": cpu, "seconds": seconds, "outcome": outcome,
                  "nodes": nodes}))
"""


def measure(path: Path, root: Path, cap: int = 4 * 2**30, extra: str = "") -> dict:
    """Open ``path`` with ``root``'s engine in a capped child (``extra``: code run on the model ``m`` after
    opening, inside the timing and the peak)."""
    out = subprocess.run(["prlimit", f"--as={cap}", sys.executable, "-c", CHILD, str(root), str(path), extra],
                         capture_output=True, text=True, timeout=900, cwd=ROOT)
    lines = out.stdout.strip().splitlines()
    if out.returncode or not lines:
        return {"peak_mb": float("nan"), "cpu": float("nan"), "seconds": float("nan"),
                "outcome": f"child died ({out.returncode}): {out.stderr.strip()[-200:]}"}
    return json.loads(lines[-1])


def main(argv: list[str]) -> None:
    root = ROOT
    if "--root" in argv:
        i = argv.index("--root")
        root = Path(argv[i + 1]).resolve()
        argv = argv[:i] + argv[i + 2:]
    with tempfile.TemporaryDirectory() as tmp:
        for name in argv or list(CASES):
            path = Path(tmp) / name
            path.write_bytes(CASES[name]())
            r = measure(path, root)
            print(f"{name:24s} {path.stat().st_size / 2**20:8.2f} MB file  +{r['peak_mb']:7.0f} MB peak  "
                  f"{r['cpu']:6.2f} s CPU  {r['seconds']:6.2f} s  {r['outcome'][:110]}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
