"""Parameter checks shared by the pruning methods: every bad value becomes one plain ConfigError sentence.

Each check names the parameter, shows the value given (one short line) and says what is allowed.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from engine.errors import ConfigError

__all__ = ["shown", "check_number", "check_int", "check_flag", "check_choice", "check_node_ids"]


def shown(value) -> str:
    """``repr(value)`` on one line, at most 60 characters (for error messages)."""
    try:
        text = " ".join(repr(value).split())
    except Exception:  # noqa: BLE001 - a broken __repr__ must not hide the real message
        text = f"a {type(value).__name__}"
    return text if len(text) <= 60 else text[:57] + "..."


def _real(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def check_number(name: str, value, *, low: float, high: float = math.inf, low_open: bool = False,
                 high_open: bool = False, what: str) -> float:
    """``value`` as a float in the interval; otherwise ConfigError("<name> must be <what>; got ...")."""
    ok = _real(value) and not math.isnan(float(value))
    if ok:
        v = float(value)
        ok = (v > low if low_open else v >= low) and (v < high if high_open else v <= high)
    if not ok:
        raise ConfigError(f"{name} must be {what}; got {shown(value)}.")
    return float(value)


def check_int(name: str, value, *, low: int, high: int | None = None, what: str) -> int:
    """``value`` as a whole number in [low, high]; otherwise a ConfigError sentence."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, np.integer)) \
            or value < low or (high is not None and value > high):
        raise ConfigError(f"{name} must be {what}; got {shown(value)}.")
    return int(value)


def check_flag(name: str, value) -> bool:
    """``value`` must be True or False."""
    if not isinstance(value, (bool, np.bool_)):
        raise ConfigError(f"{name} must be True or False; got {shown(value)}.")
    return bool(value)


def check_choice(name: str, value, allowed) -> str:
    """``value`` must be one of the strings ``allowed``."""
    if not isinstance(value, str) or value not in allowed:
        raise ConfigError(f"{name} must be one of {', '.join(allowed)}; got {shown(value)}.")
    return value


def check_node_ids(node_ids, n_slots: int) -> list[int]:
    """One node id or a list of them, each a whole number in [0, n_slots)."""
    items = [node_ids] if isinstance(node_ids, (numbers.Integral, np.integer)) else node_ids
    if isinstance(items, (str, bytes, dict, set)) or not hasattr(items, "__iter__"):
        raise ConfigError(f"node_ids must be a node id or a list of node ids; got {shown(node_ids)}.")
    try:
        items = list(np.asarray(items, dtype=object).ravel()) if isinstance(items, np.ndarray) else list(items)
    except TypeError:
        raise ConfigError(f"node_ids must be a node id or a list of node ids; got {shown(node_ids)}.") from None
    out = []
    for v in items:
        v = check_int("A node id", v, low=-(10**18), what="a whole number")
        if not 0 <= v < n_slots:
            raise ConfigError(f"There is no node {v} in the tree; node ids run from 0 to {n_slots - 1}.")
        out.append(v)
    return out
