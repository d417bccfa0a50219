"""Time ``engine.load_csv`` against ``pandas.read_csv`` on the same CSV file, with peak memory.

    python benchmarks/bench_load.py                          # 100k and 1M rows x 21 columns, 3 runs each
    python benchmarks/bench_load.py --sizes 1000000 --repeat 5
    python benchmarks/bench_load.py --sizes 1000000 --source bytes   # the file already in memory, as an upload
    python benchmarks/bench_load.py --shape id --sizes 2000000       # a unique text id column (issue 40.13)

The file: 20 columns of full-precision floats (``numpy`` normal draws, as ``DataFrame.to_csv`` writes
them, about 19 characters each) and a 3-class text target, 1M rows = about 395 MB, written once into a
temp folder (``--folder`` to keep it). Each run is a fresh process (warmed by loading a 50-row CSV both ways, as a running app is) that
reads the file from disk:
``load_csv(path)`` (size checks, parsing, cleaning, kinds, the encoded ``X``) or ``pandas.read_csv(path)``
(defaults, C engine; from a path pandas 3.1 parses big files on threads too). ``--source bytes``: the file is
read into memory before the clock starts, as the app's uploads are, and both read those bytes
(``load_csv(data)``, ``pandas.read_csv(io.BytesIO(data))``, which parses on one thread). Reported per mode: the median wall and CPU seconds over ``--repeat`` runs (modes
alternate, so both see the same load) and the median peak memory: the process's high-water mark (VmHWM)
over its resident memory just before the call. Ratio = ours / pandas (below 1.5 is the issue-26 aim).
The load average is printed before and after: on a shared machine read the ratios, not the seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODES = ("load_csv", "pandas")


def write_csv(n: int, folder: Path, shape: str = "numbers") -> Path:
    import numpy as np
    import pandas as pd

    if shape == "id":  # issue 40.13: a unique text id, a small number and a 3-class target (2M rows: 27 MB)
        path = folder / f"load_{n}_id.csv"
        if not path.exists():
            rng = np.random.default_rng(0)
            x, y = rng.integers(0, 100, n).tolist(), np.array(["a", "b", "c"])[rng.integers(0, 3, n)].tolist()
            path.write_text("id,x,y\n" + "".join(f"u{i},{a},{b}\n" for i, a, b in zip(range(n), x, y)))
        return path
    path = folder / f"load_{n}x21.csv"
    if not path.exists():
        rng = np.random.default_rng(0)
        frame = pd.DataFrame(rng.normal(size=(n, 20)), columns=[f"f{i}" for i in range(20)])
        frame["y"] = np.array(["a", "b", "c"])[rng.integers(0, 3, n)]
        frame.to_csv(path, index=False)
    return path


def _status() -> dict[str, float]:
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines())
    return {k: int(fields[k].split()[0]) / 1024 for k in ("VmRSS", "VmHWM")}


def child(mode: str, path: str, root: str, source: str = "path") -> dict:
    sys.path.insert(0, root)
    import pandas as pd

    import engine

    import io

    tiny = b"x,z,y\n" + b"".join(b"%d,%d.5,%s\n" % (i, i, b"ab"[i % 2:i % 2 + 1]) for i in range(50))
    engine.load_csv(tiny)  # warm, as in the app's server: lazy imports and first-call costs paid here
    pd.read_csv(io.BytesIO(tiny))
    try:
        Path("/proc/self/clear_refs").write_text("5")  # VmHWM := VmRSS, after the imports
    except OSError:
        pass
    data = Path(path).read_bytes() if source == "bytes" else None
    before = _status()["VmRSS"]
    wall, cpu = time.perf_counter(), time.process_time()
    if mode == "load_csv":
        ds = engine.load_csv(path if data is None else data)
        ds.X  # noqa: B018 - the learners' matrix is part of loading
    else:
        pd.read_csv(path if data is None else io.BytesIO(data))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"wall": wall, "cpu": cpu, "peak_mb": _status()["VmHWM"] - before}


def run_child(mode: str, path: Path, root: Path, source: str = "path") -> dict:
    proc = subprocess.run([sys.executable, __file__, "--child", mode, str(path), str(root), source],
                          capture_output=True, text=True, cwd=root)
    if proc.returncode != 0:
        raise SystemExit(f"child {mode} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--folder", default=None, help="where the CSV files are written (default: a temp dir)")
    ap.add_argument("--root", default=str(ROOT), help="the project checkout whose engine is timed (to compare "
                    "two versions)")
    ap.add_argument("--source", choices=("path", "bytes"), default="path",
                    help="read from the file's path (the issue's comparison) or from its bytes in memory (an upload)")
    ap.add_argument("--shape", choices=("numbers", "id"), default="numbers",
                    help="numbers: 20 float columns and a text target; id: a unique text id, a small number and "
                    "a text target (issue 40.13's file: 2,000,000 rows are 27 MB)")
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(*args.child)))
        return
    folder = Path(args.folder or tempfile.mkdtemp(prefix="bench_load_"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores; "
          f"files in {folder}; read from the {args.source}")
    print(f"{'rows':>9s} {'file MB':>8s} {'mode':>9s} {'wall s':>7s} {'cpu s':>6s} {'peak MB':>8s} "
          f"{'wall x':>7s} {'cpu x':>6s} {'runs (wall s)':>s}")
    for n in args.sizes:
        path = write_csv(n, folder, args.shape)
        runs: dict[str, list[dict]] = {m: [] for m in MODES}
        for _ in range(args.repeat):
            for mode in MODES:
                runs[mode].append(run_child(mode, path, Path(args.root), args.source))
        med = {m: {k: statistics.median(r[k] for r in runs[m]) for k in ("wall", "cpu", "peak_mb")} for m in MODES}
        for mode in MODES:
            m, p = med[mode], med["pandas"]
            print(f"{n:9,d} {path.stat().st_size / 2**20:8.0f} {mode:>9s} {m['wall']:7.2f} {m['cpu']:6.2f} "
                  f"{m['peak_mb']:8.0f} {m['wall'] / p['wall']:7.2f} {m['cpu'] / p['cpu']:6.2f} "
                  f"{' '.join(format(r['wall'], '.2f') for r in runs[mode])}", flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
