"""Parameter checks shared by the engine's entry points.

A widget limits what a polite browser sends, but a value can also come from a shared link, a stale
session, another page's bug or a tampered websocket message. So each entry point checks its
parameters again, here, and a wrong one becomes a :class:`~engine.errors.ConfigError` sentence that
names the parameter, shows the value and says what is allowed -- never a ``TypeError`` from deep
inside numpy, and never an attempt at a billion folds.

- :func:`shown` -- a short one-line ``repr`` for messages (arrays and long text are cut).
- :func:`whole` -- a whole number in ``[low, high]`` (``bool`` is not a number here).
- :func:`real` -- a finite real number in a range (open or closed ends).
- :func:`choice` -- one of a few allowed strings.
- :func:`flag` -- ``True`` or ``False`` (numpy booleans too).
- :func:`node_id` -- the id of a node that exists in a tuple of nodes (``None`` = removed).
- :func:`rows` -- a data set (an engine ``Dataset``), else a ``DataError``.
- :func:`tree_config` -- a ``TreeConfig`` (a default for None), never truth-tested.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from engine.errors import ConfigError, DataError

__all__ = ["shown", "whole", "real", "choice", "flag", "node_id", "is_whole", "rows"]

_SHOWN_LIMIT = 40


def shown(value, limit: int = _SHOWN_LIMIT) -> str:
    """``repr(value)`` on one line, at most ``limit`` characters (``...`` marks a cut)."""
    try:
        text = " ".join(repr(value).split())
    except Exception:  # noqa: BLE001 - a hostile __repr__ must not hide the real message
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def is_whole(value) -> bool:
    """True for Python and numpy integers, False for ``bool`` and everything else."""
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def whole(name: str, value, low: int | None = None, high: int | None = None, *,
          allow_none: bool = False, error=ConfigError) -> int | None:
    """``value`` as an ``int`` when it is a whole number with ``low <= value <= high``."""
    if value is None and allow_none:
        return None
    if not is_whole(value) or (low is not None and value < low) or (high is not None and value > high):
        if low is not None and high is not None:
            allowed = f"a whole number from {low:,} to {high:,}"
        elif low is not None:
            allowed = f"a whole number >= {low:,}"
        elif high is not None:
            allowed = f"a whole number <= {high:,}"
        else:
            allowed = "a whole number"
        raise error(f"{name} must be {allowed}{' or None' if allow_none else ''}; got {shown(value)}.")
    return int(value)


def real(name: str, value, low: float | None = None, high: float | None = None, *, low_open: bool = False,
         high_open: bool = False, allow_none: bool = False, error=ConfigError) -> float | None:
    """``value`` as a finite ``float`` inside the range (``*_open`` excludes that end)."""
    if value is None and allow_none:
        return None
    ok = isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
    if ok:
        v = float(value)
        ok = (math.isfinite(v)
              and (low is None or (v > low if low_open else v >= low))
              and (high is None or (v < high if high_open else v <= high)))
    if not ok:
        if low is not None and high is not None:
            allowed = (f"a number {'above' if low_open else 'from'} {low:g} "
                       f"{'and below' if high_open else 'to'} {high:g}")
        elif low is not None:
            allowed = f"a number {'>' if low_open else '>='} {low:g}"
        elif high is not None:
            allowed = f"a number {'<' if high_open else '<='} {high:g}"
        else:
            allowed = "a finite number"
        raise error(f"{name} must be {allowed}{' or None' if allow_none else ''}; got {shown(value)}.")
    return float(value)


def choice(name: str, value, allowed, *, allow_none: bool = False, error=ConfigError) -> str | None:
    """``value`` when it is one of the ``allowed`` strings (compared as strings, never truth-tested)."""
    if value is None and allow_none:
        return None
    allowed = tuple(allowed)
    if not isinstance(value, str) or value not in allowed:
        extra = " or None" if allow_none else ""
        raise error(f"{name} must be one of {', '.join(map(str, allowed))}{extra}; got {shown(value)}.")
    return value


def flag(name: str, value, *, error=ConfigError) -> bool:
    """``value`` as a ``bool`` when it is ``True``/``False`` (Python or numpy)."""
    if not isinstance(value, (bool, np.bool_)):
        raise error(f"{name} must be True or False; got {shown(value)}.")
    return bool(value)


def node_id(value, nodes, *, where: str = "the tree", error=ConfigError) -> int:
    """``value`` as an ``int`` when ``nodes[value]`` exists (is not ``None``).

    Node ids come from selectboxes, links and clicks; ``True`` (== 1), ``1.0`` or ``"1"`` are refused
    rather than silently taken for node 1.
    """
    if not is_whole(value) or not 0 <= value < len(nodes) or nodes[int(value)] is None:
        raise error(f"There is no node {shown(value)} in {where}.")
    return int(value)


def rows(name: str, value, *, allow_none: bool = False, error=DataError):
    """``value`` when it is a data set (rows with a target: an engine ``Dataset``), or None if allowed."""
    if value is None and allow_none:
        return None
    if not all(hasattr(value, a) for a in ("frame", "X", "y", "task", "schema", "__len__")) \
            or isinstance(value, type):
        raise error(f"{name} must be a data set (rows with a target column); got {shown(value)}.")
    return value
