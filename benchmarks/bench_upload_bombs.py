"""Peak memory and time of refusing (or loading) hostile uploads, each in a fresh subprocess.

Figures: the process's peak resident memory (``VmHWM``) above its resident memory just before the
load, in MB, and the wall time. Bombs (built compressed, never held unpacked here):

- quoted: ``a,b`` then one quoted cell of ~150 MB of ``x`` (gzip);
- longline: ``a,b`` then one unquoted line of ~150 MB of digits (gzip);
- commas: ``a,b`` then one line of ~150 MB of commas (empty fields, gzip);
- quotedcommas, quotedlines: one quoted cell of ~150 MB holding separators / line breaks (gzip);
- hugecell: a 2-row CSV whose one cell holds 5 MB (uncompressed);
- hugecell.gz: the same, gzip-compressed.

Run: ``python benchmarks/bench_upload_bombs.py [names...]``; ``longlinex4`` loads four at once (threads).
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def gz_stream(head: bytes, body: bytes, repeat: int, tail: bytes = b"") -> bytes:
    """``head + body * repeat + tail`` gzip-compressed without ever holding it unpacked."""
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [z.compress(head)]
    block = body * max(1, (1 << 20) // max(len(body), 1))
    per_block = len(block) // len(body)
    left = repeat
    while left > 0:
        n = min(per_block, left)
        parts.append(z.compress(block if n == per_block else body * n))
        left -= n
    parts += [z.compress(tail), z.flush()]
    return b"".join(parts)


def bomb(kind: str, megabytes: int = 150) -> bytes:
    """The bytes of one hostile upload (see the module docstring)."""
    n = (megabytes << 20) // 64
    if kind == "quoted":
        return gz_stream(b'a,b\n1,"', b"x" * 64, n, b'"\n')
    if kind == "longline":
        return gz_stream(b"a,b\n1,", b"0123456789" * 6 + b"0123", n, b"\n")
    if kind == "quotedcommas":
        return gz_stream(b'a,b\n1,"', b"x," * 32, n, b'"\n')
    if kind == "quotedlines":
        return gz_stream(b'a,b\n1,"', b"x" * 63 + b"\n", n, b'"\n')
    if kind == "commas":
        return gz_stream(b"a,b\n1,", b"," * 64, n, b"\n")
    cell = b"a,b\n1,2\n3," + b"y" * (5 << 20) + b"\n"
    if kind == "hugecell":
        return cell
    if kind == "hugecell.gz":
        return gzip.compress(cell)
    raise ValueError(kind)


CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from benchmarks.bench_upload_bombs import bomb
from engine.data.dataset import load_csv
from engine.errors import DataError

def vm(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) / 1024

from concurrent.futures import ThreadPoolExecutor

kind, times = sys.argv[2].split("x") if "x" in sys.argv[2] else (sys.argv[2], "1")
data = bomb(kind)
open("/proc/self/clear_refs", "w").write("5")  # reset the peak (VmHWM) to the current RSS
before = vm("VmRSS")
t = time.perf_counter()

def one(_):
    try:
        load_csv(data)
        return "loaded"
    except DataError as err:
        return str(err)

with ThreadPoolExecutor(int(times)) as pool:  # "longlinex4": four uploads at once, as four tabs
    outcome = list(pool.map(one, range(int(times))))[0]
print(json.dumps({"peak_mb": vm("VmHWM") - before, "seconds": time.perf_counter() - t, "outcome": outcome}))
"""


def measure(kind: str) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(ROOT), kind], capture_output=True, text=True,
                         check=True, timeout=600)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    kinds = (argv if argv is not None else sys.argv[1:]) or ["quoted", "quotedcommas", "quotedlines", "longline", "commas", "hugecell",
                                                           "hugecell.gz", "longlinex4", "quotedx4"]
    for kind in kinds:
        r = measure(kind)
        print(f"{kind:12s} +{r['peak_mb']:6.0f} MB peak  {r['seconds']:6.1f} s  {r['outcome'][:110]}")


if __name__ == "__main__":
    main()
