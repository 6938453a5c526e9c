"""Streaming Monte-Carlo.

Counts summed chunk by chunk give exactly the p-values of the code that kept every trial
(its copy below is the oracle), on every executor and in any order of completion;
executors hold a bounded number of results; long runs are announced up front.
"""
from __future__ import annotations

import itertools
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

from ir_cwla import meta, table1
from ir_cwla.analysis import executors, montecarlo, pairwise, streams, tukey
from ir_cwla.meta.consistency import SPLIT_CHUNK, random_halves, split_taus

from .test_meta_analyses import frame_from


# -- the oracle: the code path before streaming (every range kept, then sorted), copied ------
def kept_permuted_ranges(values, perms):
    stack = np.asarray(values, dtype=np.float64)
    single = stack.ndim == 2
    if single:
        stack = stack[None]
    n_trials, n_rows, n_cols = perms.shape
    by_row = np.ascontiguousarray(perms.transpose(1, 0, 2))
    by_row_stack = np.ascontiguousarray(stack.transpose(1, 0, 2))
    acc = np.empty((stack.shape[0], n_trials, n_cols), dtype=np.float64)
    row = np.empty_like(acc)
    np.take(by_row_stack[0], by_row[0], axis=1, out=acc, mode="clip")
    for t in range(1, n_rows):
        np.take(by_row_stack[t], by_row[t], axis=1, out=row, mode="clip")
        acc += row
    np.divide(acc, n_rows, out=acc)
    out = acc.max(axis=2) - acc.min(axis=2)
    return out[0] if single else out


def kept_null_ranges(values, trials, seed):
    n_rows, n_cols = np.shape(values)[-2:]
    sizes = streams.chunk_sizes(trials, streams.trial_chunk(n_rows * n_cols))
    parts = []
    for i, size in enumerate(sizes):
        perms = streams.permutations(streams.chunk_rng(seed, streams.PERMUTATION_STREAM, i), (size, n_rows), n_cols)
        parts.append(kept_permuted_ranges(values, perms))
    return np.concatenate(parts, axis=-1)


def kept_p_values_from_ranges(matrix, ranges):
    matrix = np.asarray(matrix, dtype=np.float64)
    means = matrix.mean(axis=0)
    diffs = np.abs(means[:, None] - means[None, :])
    ordered = np.sort(ranges)
    below = np.searchsorted(ordered, diffs - tukey.tolerance(matrix), side="left")
    return (ordered.size - below + 1) / (ordered.size + 1)


def kept_tukey(stack, trials, seed):
    """(M, S, S) p-values of every matrix of a stack, all permuted alike, as before streaming."""
    ranges = kept_null_ranges(stack, trials, seed)
    return np.stack([kept_p_values_from_ranges(m, r) for m, r in zip(stack, ranges)])


def kept_randomisation(x, trials, seed):
    a, b = np.triu_indices(x.shape[1], 1)
    diffs = x[:, a] - x[:, b]
    observed = np.abs(diffs.mean(axis=0))
    counts = 0
    for i, size in enumerate(streams.chunk_sizes(trials)):
        signs = pairwise.sign_flips(streams.chunk_rng(seed, streams.PERMUTATION_STREAM, i), (size, len(x)))
        counts = counts + (pairwise.flipped_means(diffs, signs) >= observed - tukey.tolerance(diffs)).sum(axis=0)
    return pairwise.to_square((np.asarray(counts) + 1) / (trials + 1), x.shape[1])


def kept_split_taus(values, trials, seed, chunk):
    parts = []
    for i, size in enumerate(streams.chunk_sizes(trials, chunk)):
        rng = streams.chunk_rng(seed, streams.SPLIT_STREAM, i)
        parts.append(split_taus(values, *random_halves(rng, size, values.shape[1])))
    return np.concatenate(parts, axis=0)


# -- executors that stress the streaming consumer --------------------------------------------
class MapOnly:
    """A user's executor: only ``map`` and ``parallelism`` (runs the tasks last to first)."""

    def __init__(self, parallelism):
        self.parallelism = parallelism

    def map(self, fn, shared, tasks, *, desc="", progress=True):
        return [fn(shared, t) for t in tasks[::-1]][::-1]


class Reversed(executors.StreamingExecutor):
    """Yields the results last task first (the worst completion order for an ordered consumer)."""

    def __init__(self, parallelism):
        self.parallelism = parallelism

    def stream(self, fn, shared, tasks, window=None):
        for index in reversed(range(len(tasks))):
            yield index, fn(shared, tasks[index])


EXECUTORS = [None, MapOnly(3), Reversed(5), Reversed(64)]


@pytest.fixture(scope="module")
def stack():
    """Four measures over 9 systems and 13 topics, with exact ties (a duplicated system, rounding)."""
    rng = np.random.default_rng(21)
    x = rng.random((4, 13, 9)) + np.linspace(0, 0.3, 9)
    x[:, :, 4] = x[:, :, 2]
    x[1] = np.round(x[1], 1)
    return x


@pytest.mark.parametrize("n_systems", [2, 3])
def test_ties_between_range_and_difference_count_as_before(n_systems):
    """Few topics with scores on a grid.

    Many permuted ranges equal an observed difference in real arithmetic, and
    only the tolerance decides whether they count.
    """
    rng = np.random.default_rng(n_systems)
    grid = np.round(rng.random((3, 5, n_systems)), 1)
    a, b = np.triu_indices(n_systems, 1)
    expected = kept_tukey(grid, 2000, 1)
    assert (tukey.stack_p_values(grid, 2000, 1) == expected[:, a, b]).all()
    for m in range(3):
        assert (pairwise.stack_p_values(grid, 2000, 1)[m] == kept_randomisation(grid[m], 2000, 1)[a, b]).all()
    # the case matters: without the tolerance the counts differ
    ranges = kept_null_ranges(grid, 2000, 1)
    means = grid.mean(axis=1)
    diffs = np.abs(means[:, a] - means[:, b])
    assert ((ranges[:, :, None] >= diffs[:, None, :]) != (ranges[:, :, None] >= diffs[:, None, :] - 1e-12)).any()


@pytest.mark.parametrize("executor", EXECUTORS, ids=["in-process", "map-only", "reversed", "reversed-64"])
def test_tukey_counts_equal_the_kept_ranges(stack, executor):
    a, b = np.triu_indices(9, 1)
    expected = kept_tukey(stack, 2000, 3)
    p = tukey.stack_p_values(stack, 2000, 3, executor)
    assert (p == expected[:, a, b]).all()
    assert (meta.randomised_tukey_hsd(stack[1], trials=2000, seed=3) == expected[1]).all()
    assert (meta.randomised_tukey_hsd(stack[0], trials=450, seed=np.random.SeedSequence(8))
            == kept_tukey(stack[:1], 450, np.random.SeedSequence(8))[0]).all()


@pytest.mark.parametrize("executor", EXECUTORS, ids=["in-process", "map-only", "reversed", "reversed-64"])
def test_randomisation_counts_equal_the_kept_code(stack, executor):
    a, b = np.triu_indices(9, 1)
    p = pairwise.stack_p_values(stack, 2000, 6, executor)
    for m in range(len(stack)):
        assert (p[m] == kept_randomisation(stack[m], 2000, 6)[a, b]).all()
    assert (meta.paired_randomisation_test(stack[2], trials=2000, seed=6) == kept_randomisation(stack[2], 2000, 6)).all()


@pytest.mark.parametrize("executor", EXECUTORS, ids=["in-process", "map-only", "reversed", "reversed-64"])
def test_analyses_equal_the_kept_code(stack, executor):
    names = ["alpha", "beta", "gamma", "delta"]                       # canonical order: by name
    frame = frame_from(dict(zip(names, stack)))
    order = sorted(range(4), key=lambda i: names[i])
    ordered = stack[order]
    a, b = np.triu_indices(9, 1)
    disc = meta.discriminative_power(frame, trials=2000, seed=4, executor=executor, progress=False)
    assert (disc.pairs["p_value"].to_numpy() == kept_tukey(ordered, 2000, 4)[:, a, b].ravel()).all()
    rand = meta.discriminative_power(frame, trials=600, seed=4, test="randomisation", executor=executor,
                                     progress=False)
    expected = np.concatenate([kept_randomisation(x, 600, 4)[a, b] for x in ordered])
    assert (rand.pairs["p_value"].to_numpy() == expected).all()

    groups = {"alpha": "A", "gamma": "A", "beta": "B", "delta": "B"}
    cons = meta.consistency(frame, trials=250, test_trials=2000, seed=5, groups=groups, executor=executor,
                            progress=False)
    taus = kept_split_taus(ordered, 250, np.random.SeedSequence(5), SPLIT_CHUNK)
    assert (cons.taus.to_numpy() == taus).all()
    test_seed = streams.derive(5, streams.CONSISTENCY_TEST_STREAM)
    for group in ("A", "B"):
        members = [m for m in cons.taus.columns if groups[m] == group]
        expected = kept_tukey(cons.taus[members].to_numpy()[None], 2000, test_seed)[0]
        assert (cons.p_values[group].to_numpy() == expected).all()


@pytest.mark.slow   # 2000-trial analyses of the 37 DL19 runs, twice
def test_dl19_at_2000_trials_equals_the_kept_code(dl19_qrels_path, dl19_run_paths):
    """The criterion of issue 14 on real data: 37 systems x 43 topics x 39 measures."""
    frame = meta.evaluate(dl19_run_paths, dl19_qrels_path, table1(), progress=False)
    cube = meta.to_cube(frame)
    a, b = np.triu_indices(len(cube.systems), 1)
    disc = meta.discriminative_power(frame, trials=2000, seed=0, progress=False)
    assert (disc.pairs["p_value"].to_numpy() == kept_tukey(cube.values, 2000, 0)[:, a, b].ravel()).all()
    cons = meta.consistency(frame, trials=200, test_trials=2000, seed=0, groups=meta.browsing_model, progress=False)
    test_seed = streams.derive(0, streams.CONSISTENCY_TEST_STREAM)
    for group, members in cons.groups.items():
        expected = kept_tukey(cons.taus[members].to_numpy()[None], 2000, test_seed)[0]
        assert (cons.p_values[group].to_numpy() == expected).all(), group


# -- the plan of tasks ------------------------------------------------------------------------
@pytest.mark.parametrize("trials, chunk, n_items, parallelism", [
    (1, 200, 1, 1), (2000, 200, 39, 1), (2000, 200, 39, 2), (12345, 7, 3, 4), (10**6, 200, 5, 2)])
def test_plan_covers_every_chunk_and_item_once(trials, chunk, n_items, parallelism):
    tasks = montecarlo.plan(0, streams.PERMUTATION_STREAM, trials, chunk, n_items, parallelism)
    sizes = streams.chunk_sizes(trials, chunk)
    cells = sorted((i, (c, n)) for task in tasks for i in task.items for c, _, n in task.chunks)
    assert cells == sorted(itertools.product(range(n_items), enumerate(sizes)))
    assert all(len(task.chunks) <= montecarlo.MAX_CHUNKS_PER_TASK for task in tasks)
    assert all(task.trials == sum(n for _, _, n in task.chunks) for task in tasks)
    if len(sizes) >= montecarlo.TASKS_PER_WORKER * parallelism:
        assert len({task.chunks for task in tasks}) >= montecarlo.TASKS_PER_WORKER * parallelism


def test_a_bad_seed_or_trials_is_refused_before_any_work(stack):
    frame = frame_from({"a": stack[0], "b": stack[1]})
    for call in (meta.discriminative_power, meta.consistency):
        with pytest.raises(ValueError, match="seed"):
            call(frame, seed=-2, progress=False)
        with pytest.raises(ValueError, match="trials"):
            call(frame, trials=0, progress=False)
    with pytest.raises(ValueError, match="seed"):
        meta.discriminative_power(frame, seed="x", test="t-test", progress=False)


# -- bounded memory: executors never run ahead of the consumer by more than the window --------
def touch_and_return(folder, task):
    Path(folder, f"{task:04d}").touch()
    return task


def started(folder):
    return len(os.listdir(folder))


def test_in_process_stream_is_lazy(tmp_path):
    results = executors.InProcess().stream(touch_and_return, str(tmp_path), list(range(50)), window=4)
    assert next(results) == (0, 0) and started(tmp_path) == 1
    assert [i for i, _ in results] == list(range(1, 50)) and started(tmp_path) == 50


def test_process_stream_submits_at_most_the_window(tmp_path):
    results = executors.LocalProcesses(2).stream(touch_and_return, str(tmp_path), list(range(40)), window=3)
    got = [next(results), next(results)]
    time.sleep(1.0)                                   # workers would run ahead here if they could
    assert 2 <= started(tmp_path) <= 2 + 3
    got += list(results)
    assert sorted(got) == [(i, i) for i in range(40)] and started(tmp_path) == 40


def test_a_failing_task_stops_the_stream():
    with pytest.raises(ZeroDivisionError):
        list(executors.LocalProcesses(2).stream(divide, 1.0, [1, 2, 0, 4, 5], window=2))
    with pytest.raises(ZeroDivisionError):
        executors.InProcess().map(divide, 1.0, [1, 0], progress=False)


def divide(x, task):
    return x / task


# -- up-front honesty -------------------------------------------------------------------------
def test_a_long_run_is_announced_once_with_its_estimate(stack, monkeypatch):
    monkeypatch.setattr(montecarlo, "WARN_AFTER_SECONDS", 0.0)
    frame = frame_from({"a": stack[0], "b": stack[1]})
    with pytest.warns(montecarlo.LongRunWarning) as record:
        meta.discriminative_power(frame, trials=3000, seed=0, progress=False)
    assert len(record) == 1
    message = str(record[0].message)
    assert message.startswith("randomised Tukey HSD: 3,000 trials will take about ") and "n_jobs=" in message
    assert record[0].filename == __file__                             # points at the user's call
    with pytest.warns(montecarlo.LongRunWarning) as record:
        meta.consistency(frame, trials=300, test_trials=500, seed=0, progress=False)
    assert [str(w.message).split(":")[0] for w in record] == ["consistency splits", "Tukey HSD (1 families of 2)"]
    with pytest.warns(montecarlo.LongRunWarning, match="randomisation test: 1,000 trials"):
        meta.paired_randomisation_test(stack[0], trials=1000, seed=0)


def test_a_short_run_says_nothing(stack):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        meta.randomised_tukey_hsd(stack[0], trials=2000, seed=0)


def test_estimate_and_its_wording():
    # 100 tasks of 2 s on 2 workers, 1 s spent so far: the other 98 take 49 rounds of 2 s
    assert montecarlo.estimate_seconds(100, 2.0, 1.0, 2) == 99.0
    assert montecarlo.estimate_seconds(1, 5.0, 5.5, 4) == 5.5
    assert montecarlo.duration(42.4) == "about 42 s"
    assert montecarlo.duration(1500) == "about 25 min"
    assert montecarlo.duration(3 * 3600 + 20 * 60 + 10) == "about 3 h 20 min"


class RecordingBar:
    made: list = []

    def __init__(self, iterable=None, total=None, disable=False, **kwargs):
        self.total, self.disable, self.updates = total, disable, []
        RecordingBar.made.append(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, n=1):
        self.updates.append(n)


def test_progress_bar_counts_trials_and_follows_the_flag(stack, monkeypatch):
    from ir_cwla import _progress as progress

    monkeypatch.setattr(progress, "tqdm", RecordingBar)
    RecordingBar.made = []
    meta.randomised_tukey_hsd(stack[0], trials=2345, seed=0, progress=True)
    [bar] = RecordingBar.made
    # disable=None: tqdm draws the bar when stderr is a terminal (ir_cwla.progress)
    assert bar.total == 2345 == sum(bar.updates) and bar.disable is None and len(bar.updates) > 1
    RecordingBar.made = []
    meta.discriminative_power(frame_from({"a": stack[0], "b": stack[1]}), trials=100, progress=False)
    assert RecordingBar.made == []          # progress=False: a silent stand-in, no tqdm at all


def test_memory_does_not_grow_with_trials(stack):
    """What is kept between chunks is the counts: the result of a task is (items, pairs)."""
    tasks = montecarlo.plan(0, streams.PERMUTATION_STREAM, 10**6, 200, 4, 1)
    shared = (tukey.by_row(stack), np.stack([tukey.thresholds(m) for m in stack]))
    out = tukey.count_task(shared, montecarlo.Task(tasks[0].seed, tasks[0].stream, tasks[0].items,
                                                   tasks[0].chunks[:2]))
    assert out.shape == (4, 36) and out.dtype == np.int64 and out.max() <= 400
    assert len(tasks) == 10**6 // 200 // montecarlo.MAX_CHUNKS_PER_TASK


def test_shuffled_consumption_of_counts_is_exact():
    """Integer counts add up the same in any order (floating-point sums would not)."""
    x = np.random.default_rng(0).random((11, 6))
    reference = meta.randomised_tukey_hsd(x, trials=5000, seed=1)
    tasks = montecarlo.plan(1, streams.PERMUTATION_STREAM, 5000, streams.trial_chunk(x.size), 1, 3)
    shared = (tukey.by_row(x[None]), tukey.thresholds(x)[None])
    parts = [tukey.count_task(shared, t) for t in tasks]
    rng = np.random.default_rng(2)
    for _ in range(3):
        total = sum(parts[i] for i in rng.permutation(len(parts)))
        assert (pairwise.to_square((total[0] + 1) / 5001, 6) == reference).all()
