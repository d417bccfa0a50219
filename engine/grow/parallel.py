"""Many independent trees on all cores (or on a Dask cluster): one call, results in task order.

Forests, bagging, cross-validation folds, learning curves, instability runs and cost-complexity
cross-validation all grow trees that do not depend on each other. :func:`run_tasks` hands them to
`joblib <https://joblib.readthedocs.io>`_ (the library scikit-learn uses):

- ``n_jobs``: how many at once. ``-1`` = every core (``-2`` all but one, as in joblib), ``1`` = in this
  process, one after the other, with no pool at all; ``None`` (the default everywhere) = every core
  when the tasks hold at least ``POOL_ABOVE_ROWS`` rows between them (``rows``), else in this process:
  starting workers and shipping the data costs more than a few small trees;
- processes (joblib's "loky" backend): a tree's Python work does not hold the calling process's
  GIL, so a Streamlit server stays responsive for other sessions while a forest trains; big numpy
  arrays reach the workers as read-only memory maps instead of copies;
- a Dask cluster when one is configured: :func:`dask_scheduler` reads the environment variable
  ``DTX_DASK_SCHEDULER`` (e.g. ``tcp://10.0.0.5:8786``) or the ``scheduler`` argument, and the tasks
  run under ``joblib.parallel_config(backend="dask")`` on all the cluster's workers (unless
  ``n_jobs=1`` or the job is small, which stay in this process). The address is the server
  operator's to set, never a page's: a web page must not make the server connect to any host;
- every task's randomness is fixed before it starts (callers draw each member's seed up front), and
  results come back in task order, so a parallel run returns exactly what the serial one returns;
- ``progress(done, total)`` is called in the caller's process as results arrive, in order; if it raises
  (a Streamlit session that went away raises from its progress bar) the pool cancels the tasks not yet
  started and the exception propagates; ``should_stop()`` returning True does the same with
  :class:`Cancelled`.

One tree on all cores: :func:`thread_map` runs the independent pieces of one level of one tree (features,
chunks of (feature, node) pairs) on threads of one small pool, started once per process and shared by
every tree and session. The pieces are numpy calls that release the GIL (bincount, sorts, gathers,
cumulative sums), and each writes its own part of the output, so any number of threads gives the same
tree. The calling thread works too and never waits for a pool busy with another tree: pieces not yet
taken when it runs out are withdrawn. :func:`tree_threads` says how many threads a tree uses: its
``n_jobs``, else 1 inside :func:`run_tasks`'s workers and serial runs with ``n_jobs=1`` (the cores are
the trees'), else every core.
"""

from __future__ import annotations

import contextvars
import numbers
import os
import pickle
import tempfile
import uuid
import warnings
from contextlib import contextmanager, nullcontext
from typing import Callable, Iterable

from engine.errors import ConfigError
from engine.threads import THREAD_MIN_WORK, cpu_count, thread_map, threads_for  # noqa: F401 - part of this module's interface
from engine.grow.allocator import roomy_heap

SCHEDULER_ENV = "DTX_DASK_SCHEDULER"
#: with ``n_jobs=None``, tasks that hold fewer rows than this between them run in the calling process.
POOL_ABOVE_ROWS = 50_000
#: seconds to wait for a configured Dask scheduler before giving up with a ConfigError.
CONNECT_TIMEOUT = 10
_clients: dict[str, object] = {}


class Cancelled(RuntimeError):
    """Raised by :func:`run_tasks` when ``should_stop()`` said to stop."""


def check_n_jobs(n_jobs) -> int | None:
    """``n_jobs`` checked: None (all cores) or a whole number other than 0 (negative counts back from all)."""
    if n_jobs is None:
        return None
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise ConfigError(f"n_jobs must be a whole number: 1 for one core, -1 (or None) for all cores, "
                          f"-2 for all but one; got {n_jobs!r}.")
    return int(n_jobs)


def effective_n_jobs(n_jobs, n_tasks: int | None = None) -> int:
    """How many tasks run at once on this machine for ``n_jobs`` (at most ``n_tasks``)."""
    n_jobs = check_n_jobs(n_jobs)
    cores = cpu_count()
    k = cores if n_jobs is None else (n_jobs if n_jobs > 0 else max(1, cores + 1 + n_jobs))
    return max(1, min(k, n_tasks)) if n_tasks is not None else max(1, k)


def concurrency(n_jobs, n_tasks: int, rows: int | None = None) -> int:
    """How many of ``n_tasks`` tasks :func:`run_tasks` runs at once for ``n_jobs`` and ``rows`` (each holds
    its working memory meanwhile; a memory estimate multiplies by it)."""
    n_jobs = check_n_jobs(n_jobs)
    if n_tasks <= 1 or n_jobs == 1 or (n_jobs is None and rows is not None and rows < POOL_ABOVE_ROWS):
        return 1
    return effective_n_jobs(n_jobs, n_tasks)


#: threads a tree uses when its ``n_jobs`` is None: set to 1 where trees already share the cores
_TREE_THREADS: contextvars.ContextVar = contextvars.ContextVar("tree_threads", default=None)


def tree_threads(n_jobs=None) -> int:
    """Threads one tree uses for ``n_jobs`` (checked as everywhere; None: see the module docstring)."""
    n_jobs = check_n_jobs(n_jobs)
    if n_jobs is None:
        n_jobs = _TREE_THREADS.get()
    return effective_n_jobs(n_jobs)


@contextmanager
def trees_share_cores():
    """Inside: a tree grown with ``n_jobs=None`` uses one thread (its siblings use the other cores)."""
    token = _TREE_THREADS.set(1)
    try:
        yield
    finally:
        _TREE_THREADS.reset(token)


def dask_scheduler(scheduler: str | None = None) -> str | None:
    """The Dask scheduler address to use: ``scheduler`` if given, else ``$DTX_DASK_SCHEDULER``, else None."""
    address = scheduler if scheduler is not None else os.environ.get(SCHEDULER_ENV, "")
    if not isinstance(address, str):
        raise ConfigError(f"The Dask scheduler address must be text such as 'tcp://host:8786'; got {address!r}.")
    return address.strip() or None


def _dask_context(address: str):
    """``joblib.parallel_config(backend="dask")`` with a client connected to ``address`` (one per address)."""
    try:
        from dask.distributed import Client
    except ImportError:
        raise ConfigError(f"A Dask scheduler is configured ({address}) but dask.distributed is not installed: "
                          f"pip install 'dask[distributed]', or unset {SCHEDULER_ENV}.") from None
    import joblib

    client = _clients.get(address)
    if client is None or client.status not in ("running", "connecting"):
        try:
            client = Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise ConfigError(f"Could not reach the Dask scheduler at {address}: {exc}") from None
        _clients[address] = client
    return joblib.parallel_config(backend="dask", client=client)


class _Shared:
    """Stands in a task for a big argument every task shares (the training data): the object is pickled
    once to a file, and each worker reads it once per run instead of receiving it with every task."""

    def __init__(self, path: str, token: str):
        self.path, self.token = path, token


_worker_cache: dict[str, object] = {}


def _resolve(arg):
    if not isinstance(arg, _Shared):
        return arg
    if arg.token not in _worker_cache:
        with open(arg.path, "rb") as fh:
            obj = pickle.load(fh)
        _worker_cache.clear()                    # only the current run's data stays in a worker
        _worker_cache[arg.token] = obj
    return _worker_cache[arg.token]


class _Task:
    """``fn`` run in a worker process: shared arguments read once per worker, and :func:`roomy_heap` kept on
    for the worker's life, so a tree reuses the big blocks the previous tree freed (as the serial loop does)."""

    def __init__(self, fn: Callable):
        self.fn = fn

    def __call__(self, *args):
        global _worker_heap
        if _worker_heap is None:
            _worker_heap = roomy_heap()
            _worker_heap.__enter__()
        with trees_share_cores():             # the pool's processes share the cores: one thread per tree
            return self.fn(*(_resolve(a) for a in args))


_worker_heap = None


@contextmanager
def _shared_files(tasks: list, shared: tuple):
    """The tasks with each object of ``shared`` (by identity) replaced by a :class:`_Shared` file reference."""
    if not shared:
        yield tasks
        return
    folder = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    refs, paths = {}, []
    try:
        for obj in shared:
            fd, path = tempfile.mkstemp(prefix="dtx-shared-", suffix=".pkl", dir=folder)
            paths.append(path)
            with os.fdopen(fd, "wb") as fh:
                pickle.dump(obj, fh, protocol=pickle.HIGHEST_PROTOCOL)
            refs[id(obj)] = _Shared(path, uuid.uuid4().hex)
        yield [tuple(refs.get(id(a), a) if any(a is o for o in shared) else a for a in t) for t in tasks]
    finally:
        for path in paths:
            try:
                os.unlink(path)
            except OSError:
                pass


def run_tasks(fn: Callable, tasks: Iterable[tuple], *, n_jobs=None, progress=None,
              should_stop: Callable[[], bool] | None = None, scheduler: str | None = None,
              rows: int | None = None, shared: tuple = ()) -> list:
    """``[fn(*t) for t in tasks]``, run ``n_jobs`` at a time (see the module docstring); ``rows``: the
    training rows of all tasks together (decides ``n_jobs=None``; unknown = use the pool); ``shared``:
    objects that appear in many tasks (the data), sent to each worker process once, not with every task."""
    tasks = list(tasks)
    total = len(tasks)
    n_jobs = check_n_jobs(n_jobs)
    address = dask_scheduler(scheduler)
    small = n_jobs is None and rows is not None and rows < POOL_ABOVE_ROWS
    jobs = 1 if small or n_jobs == 1 else (-1 if address else effective_n_jobs(n_jobs, total))
    out = []

    def arrived(result) -> None:
        out.append(result)
        if progress is not None:
            progress(len(out), total)
        if should_stop is not None and len(out) < total and should_stop():
            raise Cancelled("The work was stopped before it finished.")

    if jobs == 1 or total <= 1:
        with roomy_heap(), (trees_share_cores() if n_jobs == 1 else nullcontext()):
            for t in tasks:
                if should_stop is not None and should_stop():
                    raise Cancelled("The work was stopped before it finished.")
                arrived(fn(*t))
        return out
    import joblib

    context = _dask_context(address) if address else nullcontext()
    with context, _shared_files(tasks, () if address else shared) as tasks:
        parallel = joblib.Parallel(n_jobs=jobs, return_as="generator", batch_size=1,
                                   **({} if address else {"backend": "loky"}))
        task = fn if address else _Task(fn)    # a cluster's workers (other machines) get the data in each task
        results = parallel(joblib.delayed(task)(*t) for t in tasks)
        try:
            for result in results:
                arrived(result)
        finally:
            with warnings.catch_warnings():       # joblib warns that cancelled tasks' work is lost: intended
                warnings.simplefilter("ignore", UserWarning)
                results.close()          # after an exception above: cancel what has not started
    return out


__all__ = ["run_tasks", "check_n_jobs", "concurrency", "effective_n_jobs", "cpu_count", "dask_scheduler", "Cancelled",
           "SCHEDULER_ENV", "POOL_ABOVE_ROWS", "THREAD_MIN_WORK", "thread_map", "threads_for", "tree_threads",
           "trees_share_cores"]
