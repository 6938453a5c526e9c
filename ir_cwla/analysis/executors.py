"""Where the independent tasks of an analysis run: in-process, local processes, or Dask.

Every analysis is written as ``executor.map(fn, shared, tasks)`` or
``executor.stream(fn, shared, tasks, window)``: ``fn(shared, task)`` is a pure module-level
function, ``shared`` the data every task reads, ``tasks`` small descriptions of the work (a
run file, a chunk of trials with its seed). ``map`` returns the results in task order;
``stream`` yields ``(index, result)`` pairs as tasks finish, with at most ``window`` tasks
submitted and not yet yielded, so a consumer that folds the results as they come (the
Monte-Carlo tests sum exceedance counts, :mod:`ir_cwla.analysis.montecarlo`) holds a bounded
number of them whatever the number of tasks. Each task derives its random stream from the
seed and its own index (:mod:`ir_cwla.analysis.streams`), so the result is bit-for-bit the same
on every executor.

- :class:`InProcess` (default): one task after the other.
- :class:`LocalProcesses` (``n_jobs=k``): a pool of ``k`` processes; ``shared`` is sent
  once to each process through the pool initializer.
- :class:`Dask` (``executor=client`` or ``scheduler='tcp://host:8786'``): ``shared`` is
  scattered once to every worker (``client.scatter(..., broadcast=True)``) and the tasks
  are submitted with ``client.submit(..., retries=...)``. A task that raises is retried up to
  ``retries`` times; a task whose worker dies is rescheduled on another worker by the
  scheduler (up to ``distributed.scheduler.allowed-failures`` deaths, 3 by default), and
  the broadcast copy of ``shared`` on the surviving workers keeps the data available; where
  the scheduler kept only one copy (its active memory manager drops replicas) and that
  worker died, ``shared`` is scattered again and the tasks not yet returned are resubmitted
  (up to ``retries`` times). The result is unchanged because no task depends on which worker
  runs it.

``dask.distributed`` is optional (``pip install ir-cwla[dask]``) and imported only here,
only when a Dask executor is asked for.
"""
from __future__ import annotations

import itertools
import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import CancelledError
from typing import Any, Optional, Protocol

from ir_cwla._progress import progress_bar
from ir_cwla._text import shown
from ir_cwla.errors import ArgumentTypeError, MissingDependencyError, ParameterError


class Executor(Protocol):
    """Runs ``fn(shared, task)`` for every task and returns the results in task order.

    ``parallelism`` (how many tasks run at once) only guides how finely work is split. An
    executor may also offer ``stream`` (see :class:`StreamingExecutor`); :func:`stream` falls
    back to ``map`` (which holds every result) for one that does not.
    """

    @property
    def parallelism(self) -> int:
        """How many tasks run at once."""
        ...

    def map(self, fn: Callable[[Any, Any], Any], shared: Any, tasks: Sequence[Any], *,
            desc: str = "", progress: bool = True) -> list:
        """The results of ``fn(shared, task)`` for every task, in task order."""
        ...


class StreamingExecutor:
    """An executor whose ``map`` collects its ``stream``.

    Subclasses define ``stream`` (and ``parallelism``) only.
    """

    def stream(self, fn: Callable[[Any, Any], Any], shared: Any, tasks: Sequence[Any],
               window: Optional[int] = None) -> Iterator[tuple[int, Any]]:
        """Yields ``(index, result)`` of each task as tasks finish, in any order.

        Yields ``(index, fn(shared, tasks[index]))`` as tasks finish, in any order, with at
        most ``window`` tasks (``None``: all) submitted and not yet yielded.
        """
        raise NotImplementedError

    def map(self, fn: Callable[[Any, Any], Any], shared: Any, tasks: Sequence[Any], *,
            desc: str = "", progress: bool = True) -> list:
        """The results of ``fn(shared, task)`` for every task, in task order (from :meth:`stream`)."""
        results: list = [None] * len(tasks)
        with progress_bar(progress=progress, total=len(tasks), desc=desc, leave=False) as bar:
            for index, result in self.stream(fn, shared, tasks):
                results[index] = result
                bar.update()
        return results


def stream(executor: Executor, fn: Callable[[Any, Any], Any], shared: Any, tasks: Sequence[Any],
           window: Optional[int] = None) -> Iterator[tuple[int, Any]]:
    """``(index, result)`` pairs from any executor, streaming where it can.

    ``executor.stream(...)``, or ``enumerate(executor.map(...))`` for an executor without ``stream``
    (a user's own: it then holds every result until the last task is done).
    """
    if hasattr(executor, "stream"):
        return executor.stream(fn, shared, tasks, window)
    return enumerate(executor.map(fn, shared, tasks, progress=False))


def _window(window: Optional[int], n_tasks: int) -> int:
    if window is None:
        return max(1, n_tasks)
    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise ParameterError(f"window must be an int >= 1 or None, got {shown(window)}")
    return window


class InProcess(StreamingExecutor):
    """Runs the tasks one after the other in this process (the default), lazily.

    A task runs when the consumer asks for its result.
    """

    parallelism = 1

    def stream(self, fn: Callable[[Any, Any], Any], shared: Any, tasks: Sequence[Any],
               window: Optional[int] = None) -> Iterator[tuple[int, Any]]:
        """Yields ``(index, fn(shared, task))`` for every task, one after the other, when asked."""
        _window(window, len(tasks))
        for index, task in enumerate(tasks):
            yield index, fn(shared, task)

    def __repr__(self) -> str:
        return "InProcess()"


# -- local processes -----------------------------------------------------------------------
_SHARED: Any = None


def _init_worker(shared: Any) -> None:
    global _SHARED
    _SHARED = shared


def _run_in_worker(item: tuple[Callable[[Any, Any], Any], Any]) -> Any:
    fn, task = item
    return fn(_SHARED, task)


class LocalProcesses(StreamingExecutor):
    """A pool of ``n_jobs`` local processes per ``map``/``stream`` call; ``shared`` is sent once per process.

    Uses Python's default start method (``fork`` on Linux up to Python 3.13, where workers
    start at once with the parent's modules; ``spawn``/``forkserver`` elsewhere).
    """

    def __init__(self, n_jobs: int):
        if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs < 1:
            raise ParameterError(f"n_jobs must be an int >= 1, got {shown(n_jobs)}")
        self.parallelism = n_jobs

    def stream(self, fn: Callable[[Any, Any], Any], shared: Any, tasks: Sequence[Any],
               window: Optional[int] = None) -> Iterator[tuple[int, Any]]:
        """Yields ``(index, fn(shared, task))`` as the local processes finish the tasks, in any order."""
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

        window = _window(window, len(tasks))
        if not tasks:
            return
        pool = ProcessPoolExecutor(max_workers=min(self.parallelism, len(tasks)),
                                   mp_context=multiprocessing.get_context(),
                                   initializer=_init_worker, initargs=(shared,))
        todo = enumerate(tasks)
        pending: dict[Any, int] = {}
        try:
            while True:
                for index, task in itertools.islice(todo, window - len(pending)):
                    pending[pool.submit(_run_in_worker, (fn, task))] = index
                if not pending:
                    break
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    yield pending.pop(future), future.result()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def __repr__(self) -> str:
        return f"LocalProcesses(n_jobs={self.parallelism})"


# -- Dask ----------------------------------------------------------------------------------
def _run_on_dask(task: Any, shared: Any, fn: Callable[[Any, Any], Any]) -> Any:
    return fn(shared, task)


class Dask(StreamingExecutor):
    """Runs the tasks on a ``dask.distributed`` cluster through ``client``.

    retries: how often a task that raised is resubmitted (worker deaths are handled by the
        scheduler, see the module docstring).
    """

    def __init__(self, client: Any, retries: int = 3):
        self.client = client
        self.retries = retries

    @property
    def parallelism(self) -> int:
        """The number of threads of the Dask cluster's workers (at least 1)."""
        return max(1, sum(self.client.nthreads().values()))

    def stream(self, fn: Callable[[Any, Any], Any], shared: Any, tasks: Sequence[Any],
               window: Optional[int] = None) -> Iterator[tuple[int, Any]]:
        """Yields ``(index, fn(shared, task))`` as the Dask workers finish the tasks, in any order."""
        from distributed import as_completed

        window = _window(window, len(tasks))
        if not tasks:
            return
        # one copy per worker, not per task; a fresh key (hash=False), so that data released by an
        # earlier map with the same content is never mistaken for this one
        scattered = [self.client.scatter([shared], broadcast=True, hash=False)[0]]
        todo = enumerate(tasks)
        live: dict[str, tuple[int, Any]] = {}          # key -> (task index, future) of unyielded tasks

        def submit(items: Iterable[tuple[int, Any]]) -> list:
            futures = []
            for index, task in items:
                future = self.client.submit(_run_on_dask, task, shared=scattered[0], fn=fn, retries=self.retries,
                                            pure=False)
                live[future.key] = (index, future)
                futures.append(future)
            return futures

        finished = as_completed(submit(itertools.islice(todo, window)), loop=self.client.loop)
        lost = 0
        try:
            while True:
                try:
                    for future in finished:
                        result = future.result()
                        index, _ = live.pop(future.key)
                        for new in submit(itertools.islice(todo, 1)):
                            finished.add(new)
                        yield index, result
                    return
                except CancelledError:
                    # the scheduler may keep a single copy of scattered data (its active memory
                    # manager drops the others), which a worker's death then loses with every task
                    # waiting for it: scatter it again and resubmit the tasks not yet returned
                    if lost >= self.retries or scattered[0].status not in ("lost", "cancelled", "error"):
                        raise
                    lost += 1
                    again = sorted(index for index, _ in live.values())
                    live.clear()
                    scattered[0] = self.client.scatter([shared], broadcast=True, hash=False)[0]
                    finished = as_completed(submit((i, tasks[i]) for i in again), loop=self.client.loop)
        finally:
            if live:                                    # the consumer stopped early or a task failed
                self.client.cancel([future for _, future in live.values()])

    def __repr__(self) -> str:
        return f"Dask({self.client!r})"


def item_blocks(n_items: int, other_tasks: int, parallelism: int, tasks_per_worker: int = 2
                ) -> list[tuple[int, ...]]:
    """Consecutive blocks of ``range(n_items)`` to cross with the other tasks.

    Consecutive blocks of ``range(n_items)`` (e.g. measures) to cross with ``other_tasks``
    tasks (runs, trial chunks): one block in-process, more when the other tasks alone give
    fewer than ``tasks_per_worker`` tasks per worker. Blocking never changes a result, only
    the speed.
    """
    n_blocks = 1 if parallelism <= 1 else \
        min(n_items, max(1, -(-tasks_per_worker * parallelism // max(1, other_tasks))))
    size = -(-n_items // n_blocks)
    return [tuple(range(i, min(i + size, n_items))) for i in range(0, n_items, size)]


_CLIENTS: dict[str, Any] = {}


def connect(address: str) -> Any:
    """A ``dask.distributed.Client`` connected to the scheduler at ``address``, reused across calls."""
    client = _CLIENTS.get(address)
    if client is None or client.status not in ("running", "connecting", "newly-created"):
        try:
            from distributed import Client
        except ImportError as ex:  # pragma: no cover - depends on the environment
            raise MissingDependencyError("scheduler= needs dask.distributed: pip install 'ir-cwla[dask]'") from ex
        client = _CLIENTS[address] = Client(address, set_as_default=False)
    return client


def _is_dask_client(obj: Any) -> bool:
    return type(obj).__name__ == "Client" and hasattr(obj, "scatter") and hasattr(obj, "submit")


def get_executor(executor: Optional[Any] = None, *, n_jobs: Optional[int] = None,
                 scheduler: Optional[str] = None) -> Executor:
    """The executor to use.

    executor: ``None`` (see below), an Executor (``map``/``parallelism``), or a
        ``dask.distributed.Client``.
    n_jobs: run on that many local processes (``-1``: one per CPU; ``1``: in-process).
    scheduler: address of a Dask scheduler (``'tcp://host:8786'``) to connect to.
    """
    given = sum(x is not None for x in (executor, n_jobs, scheduler))
    if given > 1:
        raise ParameterError("pass at most one of executor, n_jobs and scheduler")
    if scheduler is not None:
        return Dask(connect(scheduler))
    if n_jobs is not None:
        if n_jobs == -1:
            n_jobs = os.cpu_count() or 1
        return InProcess() if n_jobs == 1 else LocalProcesses(n_jobs)
    if executor is None:
        return InProcess()
    if _is_dask_client(executor):
        return Dask(executor)
    if hasattr(executor, "map") and hasattr(executor, "parallelism"):
        return executor
    raise ArgumentTypeError(f"unsupported executor {executor!r}: pass None, a dask.distributed.Client, "
                    "or an object with map(fn, shared, tasks) and parallelism")
