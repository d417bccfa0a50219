"""One memory budget for a session's heavy work: estimate a job's arrays before it starts, refuse it if too big.

The estimates (what one tree, a forest, a step take: :func:`~engine.estimates.tree_bytes`,
:func:`~engine.estimates.job_bytes`, calibrated on measured peak memory) are in :mod:`engine.estimates`, and
importable from here as they always were. The jobs that grow many trees (:func:`check_trees`: forests, bagging,
AdaBoost, cross-validation, learning curves, instability, cost-complexity cross-validation) and a single grown
tree add them up and call :func:`check` before any tree grows: over the budget, a :class:`ConfigError` says
what would be needed and what to change (fewer trees, a max depth, a target with fewer classes).

The budget is ``DTX_MEMORY_BUDGET_MB`` megabytes (default 500) of the server's environment; the
operator sets it, never a page.

One budget for the whole server, too: six sessions each running a job under the per-job budget still add
up. :data:`POOL` is this process's memory pool (``DTX_SERVER_MEMORY_MB``, default half of the machine's
memory, at most :data:`SERVER_CAP_MB`); one process has one pool (replicas each have theirs). A job reserves
its estimate from it for as long as it runs (:func:`reserve`, a context manager; the engine's heavy entry
points are wrapped with :func:`reserving`, and :func:`check_trees` inside them reserves what it estimated).
When the pool is full the job waits up to :data:`WAIT_SECONDS` for others to finish, then is refused with a
sentence saying how busy the server is. Nested jobs (a forest's members each growing a tree, pruning's
cross-validation growing the whole tree first) share the outermost reservation, which grows to the largest
estimate met inside. A reservation is given back when its job ends, by an error, a stopped session or
normally.
"""

from __future__ import annotations

import contextvars
import functools
import math
import os
import threading
import time
from contextlib import contextmanager
from dataclasses import replace

from engine.errors import ConfigError
# the estimates, importable from here as they always were
from engine.estimates import (COMPACT_PER_NODE, JOB_FIXED, KEPT_PER_CELL, KEPT_PER_NODE, LABELS_PER_ROW_STAT,
                              LEVEL_PER_CELL, LEVEL_SHARE, MANY_TREES_FIXED, MB, ONE_SCAN_ROWS, PER_TREE,
                              PILOT_MAX_CLASSES, PILOT_ROWS, SCAN_BYTES, SHIPPED_PER_CELL, SHOWN_PER_CELL,
                              SHOWN_PER_NODE, SHOWN_PER_SHARED_CELL, SHOWN_SHARED_ZERO_ABOVE, WORKER_FIXED,
                              WORKING_PER_ROW_FEATURE, WORKING_PER_ROW_STAT, expected_shape, expected_share,
                              job_bytes, leaf_share, max_leaves, n_stats, scan_bytes, scanned_in_place, set_pilot,
                              shown_per_cell, step_bytes, tree_bytes)  # noqa: F401

#: more classes than this is probably not a target (the Data page warns): real class targets (species,
#: digits, letters, diagnosis groups) have a few dozen at most, every class needs rows of its own to be
#: learned, and at 200 classes a default random forest on a few thousand rows already passes 500 MB
MANY_CLASSES = 200
BUDGET_ENV = "DTX_MEMORY_BUDGET_MB"
DEFAULT_BUDGET_MB = 500


def budget_bytes() -> int:
    """The budget in bytes: ``$DTX_MEMORY_BUDGET_MB`` megabytes (a number > 0), else 500 MB."""
    chosen = _env_bytes(BUDGET_ENV, example=500)
    return DEFAULT_BUDGET_MB * MB if chosen is None else chosen


def _env_bytes(name: str, *, example: int) -> int | None:
    """``$name`` megabytes in bytes, None when unset; anything but a number above 0 is a ConfigError that names
    the variable and an ``example`` value."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    try:
        mb = float(raw)
    except ValueError:
        mb = float("nan")
    if not math.isfinite(mb) or mb <= 0:
        raise ConfigError(f"The server's {name} must be a number of megabytes above 0, e.g. {example}; "
                          f"got {raw!r}.")
    return int(mb * MB)


SERVER_ENV = "DTX_SERVER_MEMORY_MB"
#: the default server pool is half the machine's memory, but not more than this (MB)
SERVER_CAP_MB = 8192
#: how long a job waits for room in a full pool before it is refused (seconds)
WAIT_SECONDS = 15.0


def machine_bytes() -> int:
    """The machine's memory (MemTotal), or 4 GB where the system does not say."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 4 << 30


def server_bytes() -> int:
    """The server's pool in bytes: ``$DTX_SERVER_MEMORY_MB`` megabytes, else half the machine's memory capped
    at :data:`SERVER_CAP_MB` (and never below the per-job budget)."""
    chosen = _env_bytes(SERVER_ENV, example=4000)
    return max(min(machine_bytes() // 2, SERVER_CAP_MB * MB), budget_bytes()) if chosen is None else chosen


class Pool:
    """One process's memory pool: thread-safe bookkeeping of the bytes its running jobs reserved.

    ``total`` None reads :func:`server_bytes` at every reservation (the operator's setting); ``wait`` None
    is :data:`WAIT_SECONDS`. ``high_water`` is the most ever reserved at once (for measurements)."""

    def __init__(self, total: int | None = None, wait: float | None = None):
        self._total, self._wait = total, wait
        self._cond = threading.Condition()
        self.used = 0
        self.jobs = 0
        self.high_water = 0

    @property
    def total(self) -> int:
        return int(self._total) if self._total is not None else server_bytes()

    def acquire(self, n_bytes: int, *, what: str, advice: str, new_job: bool = True) -> None:
        """Take ``n_bytes`` (for a job that held nothing yet: ``new_job``), waiting (bounded) while other jobs
        hold the room; a ConfigError when it does not come (or could never come: the job alone is larger than
        the pool)."""
        n_bytes, total = max(0, int(n_bytes)), self.total
        if n_bytes > total:
            raise ConfigError(f"{what} would need about {size_text(n_bytes)} of memory, more than this whole "
                              f"server's {size_text(total)} ({SERVER_ENV}): {advice}.")
        wait = WAIT_SECONDS if self._wait is None else float(self._wait)
        deadline = time.monotonic() + wait
        with self._cond:
            while self.used + n_bytes > total:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise ConfigError(
                        f"The server is busy with other users' heavy work: {size_text(self.used)} of "
                        f"{size_text(total)} in use by {self.jobs:,} job{'s' if self.jobs != 1 else ''}, and "
                        f"{what[:1].lower() + what[1:]} needs about {size_text(n_bytes)}; try again in a "
                        f"minute, or {advice}.")
                self._cond.wait(left)
            self.used += n_bytes
            self.jobs += bool(new_job)
            self.high_water = max(self.high_water, self.used)

    def release(self, n_bytes: int) -> None:
        """Give back one job's ``n_bytes`` (all it held)."""
        with self._cond:
            self.used = max(0, self.used - int(n_bytes))
            self.jobs = max(0, self.jobs - 1)
            self._cond.notify_all()


#: this process's pool (every session of a Streamlit server shares it)
POOL = Pool()


class Reservation:
    """The bytes one job holds in a :class:`Pool`; :meth:`need` grows it to an estimate, :meth:`close`
    gives everything back. Made and closed by :func:`reserve`."""

    def __init__(self, pool: Pool):
        self.pool, self.held, self.closed = pool, 0, False

    def need(self, n_bytes: float, *, what: str = "This job", advice: str = "use a smaller job") -> None:
        """Hold at least ``n_bytes`` (reserving the difference from the pool; nothing when it holds enough)."""
        extra = int(n_bytes) - self.held
        if extra > 0 and not self.closed:
            self.pool.acquire(extra, what=what, advice=advice, new_job=self.held == 0)
            self.held += extra

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            if self.held:
                self.pool.release(self.held)
            self.held = 0

    def __repr__(self) -> str:
        return f"Reservation(held={size_text(self.held) if self.held else '0 MB'}, closed={self.closed})"


_CURRENT: contextvars.ContextVar = contextvars.ContextVar("dtx_reservation", default=None)


@contextmanager
def reserve(n_bytes: float = 0, *, what: str = "This job", advice: str = "use a smaller job",
            pool: Pool | None = None):
    """Hold ``n_bytes`` of the server's pool while the ``with`` block runs (see the module docstring); yields
    the :class:`Reservation`. Inside another reservation of this thread, that one grows instead (a nested
    job is part of the outer one). Raises a ConfigError when the pool stays full."""
    outer = _CURRENT.get()
    if outer is not None and not outer.closed:
        outer.need(n_bytes, what=what, advice=advice)
        yield outer
        return
    held = Reservation(POOL if pool is None else pool)
    token = _CURRENT.set(held)
    try:
        held.need(n_bytes, what=what, advice=advice)
        yield held
    finally:
        _CURRENT.reset(token)
        held.close()


def reserving(fn):
    """Run ``fn`` inside a :func:`reserve` scope: the :func:`check_trees` calls it makes reserve their estimate
    there, and it is given back when ``fn`` returns or raises."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with reserve():
            return fn(*args, **kwargs)
    return wrapper


def classes_text(dataset) -> str:
    """``" with 1,000 classes"`` for a class target, else ``""`` (for the refusal's first words)."""
    return f" with {len(dataset.classes):,} classes" if dataset.task == "classification" else ""


def size_text(n_bytes: float) -> str:
    """``"1.2 GB"`` / ``"350 MB"``."""
    return f"{n_bytes / 1024 ** 3:.1f} GB" if n_bytes >= 1024 ** 3 else f"{max(1, round(n_bytes / MB)):,} MB"


def check(n_bytes: float, *, what: str, advice: str) -> None:
    """Refuse a job that needs more than the budget: one sentence with ``what`` it is, the estimate, the
    budget and ``advice`` (what to change)."""
    limit = budget_bytes()
    if n_bytes > limit:
        raise ConfigError(f"{what} would need about {size_text(n_bytes)} of memory, more than this server's "
                          f"budget of {size_text(limit)} per job ({BUDGET_ENV}): {advice}.")


def check_trees(dataset, config, *, what: str, n_trees: int = 1, kept_trees: int = 0, at_once: int = 1,
                shown: int = 0, n_rows: int | None = None, trees_word: str = "",
                shipped_rows: int | None = None, kept_extra: int = 0, records: bool = True,
                compact: bool = False, labels: bool = False) -> int:
    """:func:`check` for a job growing ``n_trees`` trees on (about) ``n_rows`` rows of ``dataset`` (default all
    of them) with ``config``; the advice names the most trees and the deepest max depth that would fit.
    Within a :func:`reserve` scope (:func:`reserving`), the estimate is then reserved from the server's pool
    (waiting for room, or refused when it stays full). ``labels``: the trees grow on a class target with
    unit weights (:func:`tree_bytes`). Returns the estimate in bytes."""
    n = len(dataset) if n_rows is None else int(n_rows)
    d, s = len(dataset.feature_names), n_stats(dataset)
    share, width = expected_shape(dataset, config)

    def need(cfg, trees, kept, busy, shown_):
        return job_bytes(n_rows=n, n_features=d, stats=s, config=cfg, n_trees=trees, kept_trees=kept,
                         at_once=busy, shown=shown_, share=share, shipped_rows=shipped_rows,
                         kept_extra=kept_extra, records=records, compact=compact,
                         labels=labels and dataset.task == "classification", width=width)

    total = need(config, n_trees, kept_trees, at_once, shown)
    if total <= budget_bytes():
        held = _CURRENT.get()
        if held is not None and not held.closed:
            held.need(total, what=what, advice=f"use fewer {trees_word.split(' (')[0]}" if trees_word and n_trees > 1
                      else "set a max depth (Grow page settings)")
        return total
    tips = []
    if trees_word and n_trees > 1:
        best = 0
        for m in range(n_trees - 1, 0, -1):
            if need(config, m, min(kept_trees, m), at_once, min(shown, m)) <= budget_bytes():
                best = m
                break
        if best:
            tips.append(f"at most {best:,} {trees_word}")
    depth_now = getattr(config, "max_depth", None)
    for depth in range(min(depth_now if depth_now is not None else 40, 40) - 1, 0, -1):
        cfg = replace(config, max_depth=depth)
        if need(cfg, n_trees, kept_trees, at_once, shown) <= budget_bytes():
            tips.append(f"a max depth of {depth} (Grow page settings)")
            break
    if dataset.task == "classification":
        tips.append(f"a target with fewer classes (this one has {s:,}; an id-like column is no target)")
    else:
        tips.append("fewer rows")
    check(total, what=what, advice="use " + ", or ".join(tips))


__all__ = ["MANY_CLASSES", "BUDGET_ENV", "SERVER_ENV", "classes_text", "DEFAULT_BUDGET_MB", "budget_bytes", "check",
           "check_trees", "job_bytes", "leaf_share", "max_leaves", "n_stats", "size_text", "tree_bytes", "Pool",
           "POOL", "Reservation", "reserve", "reserving", "server_bytes", "step_bytes"]
