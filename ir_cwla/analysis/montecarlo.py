"""Streaming Monte-Carlo: trial chunks run as tasks and are folded into the result as they finish.

A randomised procedure over ``trials`` trials draws them in the fixed chunks of
:mod:`ir_cwla.analysis.streams` (the reproducibility contract). :func:`plan` groups consecutive
chunks into tasks (crossed with blocks of items, e.g. measures); the grouping depends on the
executor's parallelism only to balance the work and never changes a result. :func:`run` hands
each task's result to a consumer as soon as it arrives, with at most
``WINDOW_PER_WORKER x parallelism`` tasks submitted and not yet consumed
(:func:`ir_cwla.analysis.executors.stream`). The randomised tests return, per task, how many of
its trials reach each pair's observed difference; :func:`sum_counts` adds these integer
counts, so memory does not grow with ``trials`` and the sum (hence ``p = count / trials``) is
exactly the same in whatever order the tasks finish.

Up front, the first task to finish is timed (inside the worker, so that the start-up of a
process pool or a cluster does not count), the wall time of the whole run is estimated from
it, and one :class:`LongRunWarning` states the estimate when it exceeds
:data:`WARN_AFTER_SECONDS` (:func:`run` for trial chunks, :func:`run_tasks` for other tasks,
e.g. incompleteness's trials). ``progress=True`` shows a tqdm bar counting trials.

What a procedure keeps per trial (consistency's trials x measures taus, incompleteness's
scores of every trial, a bootstrap's resamples) is estimated before any work
(:func:`check_result_memory`): beyond :data:`MAX_RESULT_BYTES` (2 GiB; a module setting) the
call is a :class:`~ir_cwla.errors.ParameterError` that states the estimate and the most trials
the limit allows, instead of a MemoryError after minutes of work.
"""
from __future__ import annotations

import math
import os
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import FrameType
from typing import Any, Optional

import numpy as np

from ir_cwla._progress import progress_bar
from ir_cwla.analysis import executors, streams
from ir_cwla.errors import LongRunWarning, ParameterError

#: Estimated wall times above this many seconds are announced by a warning when the first task is done.
WARN_AFTER_SECONDS = 600.0
#: At most this many chunks per task: the first estimate and the progress bar come early.
MAX_CHUNKS_PER_TASK = 25
#: Tasks per worker the chunks are spread over when there are few chunks (load balance).
TASKS_PER_WORKER = 4
#: Tasks per worker submitted and not yet consumed: bounds the results held at once.
WINDOW_PER_WORKER = 4
#: The most memory (bytes) a randomised procedure may keep for its trials; a call estimated to
#: keep more is refused before any work (:func:`check_result_memory`). Raise it to allow more.
MAX_RESULT_BYTES = 2 ** 31


def size_text(n_bytes: float) -> str:
    """``'3.2 GiB'``, ``'120 MiB'``, ``'512 B'``."""
    for unit, scale in (("TiB", 2 ** 40), ("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:.3g} {unit}"
    return f"{n_bytes:.0f} B"


def check_result_memory(what: str, trials: int, bytes_per_trial: int, kept: str = "results",
                        name: str = "trials") -> None:
    """Refuses, before any work, a call whose results would take too much memory.

    Refuses, before any work, a call whose ``trials`` would keep more than
    :data:`MAX_RESULT_BYTES` (``bytes_per_trial`` each, ``kept`` saying what): a
    :class:`ParameterError` with the estimate and the most ``name`` the limit allows.
    """
    need = trials * bytes_per_trial
    if need > MAX_RESULT_BYTES:
        most = max(1, MAX_RESULT_BYTES // max(1, bytes_per_trial))
        raise ParameterError(f"{what}: {trials:,} {name} would keep about {size_text(need)} of {kept} "
                             f"({size_text(bytes_per_trial)} per trial), above the limit of "
                             f"{size_text(MAX_RESULT_BYTES)} (ir_cwla.analysis.montecarlo.MAX_RESULT_BYTES); pass at "
                             f"most {most:,} {name}, or raise the limit")


@dataclass(frozen=True)
class Task:
    """Chunks ``(index, skip, size)`` of ``stream`` below ``seed``, for the items (e.g. measures) ``items``.

    A chunk is the trials ``skip, ..., skip + size - 1`` of chunk ``index`` of the stream
    (``skip`` is 0 but where a run of trials that continues an earlier one starts inside a chunk,
    :func:`plan`'s ``start``).
    """

    seed: np.random.SeedSequence
    stream: int
    items: tuple[int, ...]
    chunks: tuple[tuple[int, int, int], ...]

    @property
    def trials(self) -> int:
        """The number of trials of the task's chunks."""
        return sum(size for _, _, size in self.chunks)

    def draws(self):
        """``(skip, size, generator)`` of every chunk, in order (see :func:`ir_cwla.analysis.streams.chunk_rng`).

        A kernel draws ``skip + size`` trials from the generator and keeps the last ``size``:
        numpy's generators draw a batch element after element, so the first ``n`` trials of a
        chunk are the same whatever the size of the batch they are drawn in, and a run of
        trials continued from ``start`` counts exactly the trials a single run would
        (tests/test_mc_error.py checks the property).
        """
        return ((skip, size, streams.chunk_rng(self.seed, self.stream, index)) for index, skip, size in self.chunks)

    def rngs(self):
        """``(size, generator)`` of every chunk, in order, for tasks that start at a chunk's beginning."""
        for index, skip, size in self.chunks:
            if skip:
                raise ParameterError("a task that starts inside a chunk draws through draws(), not rngs()")
            yield size, streams.chunk_rng(self.seed, self.stream, index)


def plan(seed: streams.Seed, stream: int, trials: int, chunk: int, n_items: int, parallelism: int,
         start: int = 0) -> list[Task]:
    """The tasks of ``trials`` trials in chunks of ``chunk`` over ``n_items`` items.

    The trials are ``start, ..., start + trials - 1`` of the stream (``start`` > 0 continues an
    earlier run of ``start`` trials: the two runs' counts add up to those of a single run of
    ``start + trials``). Consecutive chunks are grouped into at most :data:`MAX_CHUNKS_PER_TASK`
    per task, into more tasks than that when the executor has the workers for them; items are
    split into blocks only when there are too few chunk groups to keep every worker busy
    (:func:`ir_cwla.analysis.executors.item_blocks`).
    """
    root = streams.as_seed_sequence(seed)
    pieces = streams.chunk_pieces(trials, chunk, start)
    n_groups = min(len(pieces), max(math.ceil(len(pieces) / MAX_CHUNKS_PER_TASK), TASKS_PER_WORKER * parallelism))
    bounds = np.linspace(0, len(pieces), n_groups + 1).round().astype(int)
    groups = [tuple(pieces[lo:hi]) for lo, hi in zip(bounds[:-1], bounds[1:])]
    blocks = executors.item_blocks(n_items, len(groups), parallelism, tasks_per_worker=TASKS_PER_WORKER)
    return [Task(root, stream, block, group) for block in blocks for group in groups]


def _timed(shared: Any, item: tuple[Callable[[Any, Any], Any], Any]) -> tuple[float, Any]:
    fn, task = item
    start = time.perf_counter()
    result = fn(shared, task)
    return time.perf_counter() - start, result


def run(executor: Any, fn: Callable[[Any, Task], Any], shared: Any, tasks: Sequence[Task],
        consume: Callable[[Task, Any], None], *, what: str, progress: bool) -> None:
    """Runs ``fn(shared, task)`` for every task on ``executor``, consuming results as they arrive.

    Runs ``fn(shared, task)`` for every task on ``executor`` and calls ``consume(task, result)``
    as results arrive (in any order), warning up front when the run will take long.
    """
    trials = sum(task.trials for task in tasks)
    workers = max(1, int(executor.parallelism))
    start = time.perf_counter()
    with progress_bar(progress=progress, total=trials, desc=what, unit="trial", unit_scale=True, leave=False) as bar:
        results = executors.stream(executor, _timed, shared, [(fn, task) for task in tasks],
                                   window=WINDOW_PER_WORKER * workers)
        for done, (index, (seconds, result)) in enumerate(results):
            if done == 0:
                _announce(what, tasks, index, seconds, time.perf_counter() - start, workers)
            consume(tasks[index], result)
            bar.update(tasks[index].trials)


def run_tasks(executor: Any, fn: Callable[[Any, Any], Any], shared: Any, tasks: Sequence[Any],
              consume: Callable[[int, Any], None], *, what: str, progress: bool) -> None:
    """:func:`run` for tasks that are not trial chunks.

    ``consume(index, result)`` as results arrive, the first task timed and one
    :class:`LongRunWarning` when the estimated wall time of all of them (each taken to cost
    what the first did) exceeds :data:`WARN_AFTER_SECONDS`.
    """
    workers = max(1, int(executor.parallelism))
    start = time.perf_counter()
    with progress_bar(progress=progress, total=len(tasks), desc=what, leave=False) as bar:
        results = executors.stream(executor, _timed, shared, [(fn, task) for task in tasks],
                                   window=WINDOW_PER_WORKER * workers)
        for done, (index, (seconds, result)) in enumerate(results):
            if done == 0:
                estimate = estimate_seconds(len(tasks), seconds, time.perf_counter() - start, workers)
                if estimate > WARN_AFTER_SECONDS:
                    warnings.warn(f"{what}: {len(tasks):,} tasks will take {duration(estimate)} (the first took "
                                  f"{seconds:.2f} s; {workers} worker(s)). Pass fewer trials, or more workers "
                                  "(n_jobs=, scheduler=); ir_cwla.analysis.montecarlo.WARN_AFTER_SECONDS "
                                  f"({WARN_AFTER_SECONDS:g} s) sets when this is said.", LongRunWarning,
                                  stacklevel=_caller_level())
            consume(index, result)
            bar.update()


def sum_counts(executor: Any, fn: Callable[[Any, Task], np.ndarray], shared: Any, tasks: Sequence[Task],
               shape: tuple[int, ...], *, what: str, progress: bool) -> np.ndarray:
    """The sum over tasks of the integer counts ``fn(shared, task)`` (rows: the task's items)."""
    counts = np.zeros(shape, dtype=np.int64)

    def add(task: Task, result: np.ndarray) -> None:
        counts[list(task.items)] += result

    run(executor, fn, shared, tasks, add, what=what, progress=progress)
    return counts


def estimate_seconds(n_tasks: int, first_task_seconds: float, elapsed: float, workers: int) -> float:
    """Wall time of ``n_tasks`` like the first.

    ``elapsed`` so far, then the tasks not yet started (all but one per worker) at
    ``first_task_seconds`` each, ``workers`` at a time.
    """
    return elapsed + first_task_seconds * math.ceil(max(0, n_tasks - workers) / workers)


def duration(seconds: float) -> str:
    """``'about 3 h 20 min'``, ``'about 12 min'``, ``'about 40 s'``."""
    if seconds >= 3600:
        hours, minutes = divmod(round(seconds / 60), 60)
        return f"about {hours} h {minutes} min"
    if seconds >= 60:
        return f"about {round(seconds / 60)} min"
    return f"about {seconds:.0f} s"


def _announce(what: str, tasks: Sequence[Task], first: int, seconds: float, elapsed: float, workers: int) -> None:
    estimate = estimate_seconds(len(tasks), seconds, elapsed, workers)
    if estimate <= WARN_AFTER_SECONDS:
        return
    trials = sum(task.trials for task in tasks)
    warnings.warn(f"{what}: {trials:,} trials will take {duration(estimate)} (the first task, {tasks[first].trials:,} "
                  f"trials, took {seconds:.2f} s; {len(tasks):,} tasks on {workers} worker(s)). Pass fewer trials, or "
                  "more workers (n_jobs=, scheduler=); ir_cwla.analysis.montecarlo.WARN_AFTER_SECONDS "
                  f"({WARN_AFTER_SECONDS:g} s) sets when this is said.", LongRunWarning, stacklevel=_caller_level())


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _caller_level() -> int:
    """The ``stacklevel`` of the first frame outside the ir_cwla package (the user's call)."""
    frame: Optional[FrameType] = sys._getframe(1)
    level = 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE + os.sep):
        frame, level = frame.f_back, level + 1
    return level
