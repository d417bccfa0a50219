"""Float32 tests as exact float64 thresholds.

scikit-learn casts rows to float32 before its trees compare them, and onnxruntime compares float32
inputs with float32 thresholds. The engine compares float64 values with ``x <= t``. For each test the
functions here give the largest float64 ``b`` such that ``x <= b`` holds exactly for the float64 values
``x`` the float32 test sends left, so a float64 row goes where the original runtime sends it.
"""

from __future__ import annotations

import numpy as np

__all__ = ["f32_leq_bound", "f32_lt_bound", "f64_lt_bound"]


def _below_f32_bound(u32: np.ndarray) -> np.ndarray:
    """Largest float64 ``x`` with ``float32(x) < u32`` (round half to even), elementwise."""
    u32 = np.asarray(u32, dtype=np.float32)
    below = np.nextafter(u32, np.float32(-np.inf))
    mid = (below.astype(np.float64) + u32.astype(np.float64)) / 2.0          # exact in float64
    return np.where(mid.astype(np.float32) == below, mid, np.nextafter(mid, -np.inf))


def f32_leq_bound(t) -> np.ndarray:
    """Bound for ``float32(x) <= t`` (``t`` float64 or float32): left iff ``x <= bound``."""
    t = np.asarray(t, dtype=np.float64)
    t32 = t.astype(np.float32)
    t32 = np.where(t32.astype(np.float64) > t, np.nextafter(t32, np.float32(-np.inf)), t32)  # largest f32 <= t
    with np.errstate(over="ignore"):
        above = np.nextafter(t32, np.float32(np.inf))
    out = _below_f32_bound(above)
    return np.where(np.isinf(t32), t, out)


def f32_lt_bound(t) -> np.ndarray:
    """Bound for ``float32(x) < float32(t)``: left iff ``x <= bound``."""
    return _below_f32_bound(np.asarray(t, dtype=np.float64).astype(np.float32))


def f64_lt_bound(t) -> np.ndarray:
    """Bound for ``x < t`` on float64: the float just below ``t``."""
    return np.nextafter(np.asarray(t, dtype=np.float64), -np.inf)
