"""The randomised (paired) Tukey HSD test: numpy kernels, and their streaming driver.

Given a topics x systems score matrix ``X`` (paired: every row is one topic, or one trial),
the test asks for every pair of columns whether their mean difference is larger than what
the *largest* difference among all columns reaches by chance (Carterette 2012, Alg. 1;
Sakai 2018, Sec. 7; Sakai's Discpower ``Random-test``):

    for b = 1..B:   X*_b = X with the entries of every row permuted independently
                    r_b  = max_j mean_t X*_b[t, j] - min_j mean_t X*_b[t, j]
    p(a, b) = (#{b : r_b >= |mean(X[:, a]) - mean(X[:, b])|} + 1) / (B + 1)

Comparing every pair against the distribution of the range controls the family-wise error
rate over all pairs. With two columns the range is the absolute mean difference under a
random sign flip per row, so the test *is* the paired randomisation test (Fisher). The
p-value counts the observed arrangement as one of the ``B + 1`` (Phipson & Smyth 2010,
:mod:`ir_cwla.analysis.pvalues`): it is never 0. It is the *two-way* test: the scores are
permuted within each topic (topics are blocks), unlike the one-way Tukey HSD test of ranx and
``scipy.stats.tukey_hsd`` (:mod:`ir_cwla.analysis.oneway`), which pools every system's scores
over the topics.

The scores are centred per topic first (:func:`ir_cwla.analysis.frame.centred`): neither the
ranges nor the differences change, and the p-values are the same to the bit when a constant is
added to every score.

Equality of the permuted range and an observed difference is decided with a relative
tolerance of :data:`TIE_TOLERANCE` (so that ties that are exact in real arithmetic, e.g.
two identical runs, are not lost to floating-point rounding).

Trials are drawn in the fixed chunks of :mod:`ir_cwla.analysis.streams`, all columns of a row
being permuted by one draw of :func:`ir_cwla.analysis.streams.permutations`; the same seed gives
the same permutations for every matrix of the same shape (common random numbers across
measures). The ranges are never kept: each chunk only counts, per pair, its trials with
``r_b >= |difference| - tol`` (:func:`exceedances`), the counts are summed as chunks finish
(:mod:`ir_cwla.analysis.montecarlo`), so memory does not grow with ``B``
and the p-values are the same whichever executor runs the chunks, in whatever order.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ir_cwla.analysis import executors, montecarlo, pvalues, streams
from ir_cwla.analysis.frame import TIE_TOLERANCE, centred
from ir_cwla.errors import DataError


def tolerance(values: np.ndarray) -> float:
    """Absolute tolerance for comparisons of means of ``values``."""
    scale = float(np.max(np.abs(values))) if values.size else 0.0
    return TIE_TOLERANCE * max(1.0, scale)


def pair_indices(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices ``(a, b)`` of the ``n (n - 1) / 2`` pairs ``a < b``, row-major."""
    return np.triu_indices(n, k=1)


def to_square(values: np.ndarray, n: int, diagonal: float = 1.0) -> np.ndarray:
    """A symmetric ``(n, n)`` matrix from the values of the pairs ``a < b``."""
    a, b = pair_indices(n)
    out = np.full((n, n), diagonal, dtype=np.float64)
    out[a, b] = values
    out[b, a] = values
    return out


def by_row(values: np.ndarray) -> np.ndarray:
    """An ``(M, T, S)`` stack in the layout :func:`ranges_by_row` reads: ``(T, S, M)``, contiguous."""
    return np.ascontiguousarray(np.asarray(values, dtype=np.float64).transpose(1, 2, 0))


def ranges_by_row(rows: np.ndarray, perms: np.ndarray) -> np.ndarray:
    """Range (max - min) of the column means of each row-permuted matrix of a stack.

    rows:  ``(T, S, M)`` stack of ``M`` matrices, by topic, then system (:func:`by_row`).
    perms: ``(b, T, S)`` permutation of each row's columns, one per trial.
    Returns ``(M, b)`` ranges. Every matrix of the stack is permuted alike.

    The permuted column sums ``sum_t X[t, perm[:, t, :]]`` are accumulated row by row, in
    row order, into two work arrays reused throughout; one gather per row moves, for each
    permuted column, the contiguous scores of all ``M`` matrices at once. Each matrix's
    result is the same whatever the rest of the stack, and there are no large temporaries
    (which are slow where freed memory goes back to the OS at once, as in Dask workers).
    """
    n_trials, n_rows, n_cols = perms.shape
    perm_rows = np.ascontiguousarray(perms.transpose(1, 0, 2))          # (T, b, S)
    acc = np.empty((n_trials, n_cols, rows.shape[2]), dtype=np.float64)  # (b, S, M)
    row = np.empty_like(acc)
    np.take(rows[0], perm_rows[0], axis=0, out=acc, mode="clip")
    for t in range(1, n_rows):
        np.take(rows[t], perm_rows[t], axis=0, out=row, mode="clip")
        acc += row
    np.divide(acc, n_rows, out=acc)
    return (acc.max(axis=1) - acc.min(axis=1)).T


def permuted_ranges(values: np.ndarray, perms: np.ndarray) -> np.ndarray:
    """:func:`ranges_by_row` of a ``(T, S)`` matrix (-> ``(b,)``) or an ``(M, T, S)`` stack (-> ``(M, b)``)."""
    stack = np.asarray(values, dtype=np.float64)
    single = stack.ndim == 2
    out = ranges_by_row(by_row(stack[None] if single else stack), perms)
    return out[0] if single else out


def chunk_ranges(values: np.ndarray, seed: streams.Seed, index: int, size: int,
                 stream: int = streams.PERMUTATION_STREAM) -> np.ndarray:
    """The permuted ranges of trial chunk ``index`` (``size`` trials) of ``stream``.

    values: ``(T, S)`` or ``(M, T, S)``; returns ``(size,)`` or ``(M, size)``.
    """
    n_rows, n_cols = np.shape(values)[-2:]
    perms = streams.permutations(streams.chunk_rng(seed, stream, index), (size, n_rows), n_cols)
    return permuted_ranges(values, perms)


def thresholds(matrix: np.ndarray, a: Optional[np.ndarray] = None, b: Optional[np.ndarray] = None) -> np.ndarray:
    """``|mean_a - mean_b| - tol`` of the pairs ``(a, b)`` of columns (default: every pair ``a < b``).

    A trial counts for the pair when its range reaches this (the tolerance keeps exact
    ties, see the module docstring).
    """
    matrix = np.asarray(matrix, dtype=np.float64)
    means = matrix.mean(axis=0)
    if a is None or b is None:
        a, b = pair_indices(matrix.shape[1])
    return np.abs(means[np.asarray(a)] - means[np.asarray(b)]) - tolerance(matrix)


def exceedances(ranges: np.ndarray, limits: np.ndarray) -> np.ndarray:
    """``#{r in ranges[m] : r >= limits[m, p]}`` for ranges ``(M, b)`` and limits ``(M, P)`` -> ``(M, P)``."""
    ordered = np.sort(ranges, axis=1)
    out = np.empty(limits.shape, dtype=np.int64)
    for m in range(len(ordered)):
        out[m] = ordered.shape[1] - np.searchsorted(ordered[m], limits[m], side="left")
    return out


def count_task(shared: tuple[np.ndarray, np.ndarray], task: montecarlo.Task) -> np.ndarray:
    """For the stack's items ``task.items``: how many of the task's trials reach each pair's limit.

    shared: ``(rows, limits)``, the stack in :func:`by_row` layout ``(T, S, M)`` and the
    :func:`thresholds` of every matrix ``(M, P)``. Returns ``(len(task.items), P)`` counts.
    This is the unit of work an executor runs.
    """
    rows, limits = shared
    items = list(task.items)
    if items != list(range(rows.shape[2])):
        rows, limits = np.ascontiguousarray(rows[:, :, items]), limits[items]
    counts = np.zeros(limits.shape, dtype=np.int64)
    for skip, size, rng in task.draws():
        perms = streams.permutations(rng, (skip + size, rows.shape[0]), rows.shape[1])[skip:]
        counts += exceedances(ranges_by_row(rows, perms), limits)
    return counts


def stack_counts(stack: np.ndarray, trials: int, seed: streams.Seed, executor: Any = None, *,
                 pairs: Optional[tuple[np.ndarray, np.ndarray]] = None, start: int = 0,
                 what: str = "Tukey HSD", progress: bool = False) -> np.ndarray:
    """How many of ``trials`` permutations reach each pair's difference, for every matrix of a stack.

    ``stack (M, T, S)``, every matrix permuted alike (its scores centred per topic first);
    ``pairs`` the columns ``(a, b)`` of the pairs (default every ``a < b``); ``start`` the first
    trial (a run continued from ``start`` trials adds what a single run of ``start + trials``
    counts beyond them). Counted chunk by chunk on ``executor`` (default in-process): memory
    does not grow with ``trials``. Returns ``(M, P)`` int64 counts.
    """
    workers = executors.get_executor(executor)
    stack = centred(stack)
    n_m, n_rows, n_cols = stack.shape
    a, b = pairs if pairs is not None else pair_indices(n_cols)
    limits = np.stack([thresholds(matrix, a, b) for matrix in stack])
    tasks = montecarlo.plan(seed, streams.PERMUTATION_STREAM, trials, streams.trial_chunk(n_rows * n_cols),
                            n_m, workers.parallelism, start=start)
    return montecarlo.sum_counts(workers, count_task, (by_row(stack), limits), tasks, limits.shape,
                                 what=what, progress=progress)


def stack_p_values(stack: np.ndarray, trials: int, seed: streams.Seed, executor: Any = None, *,
                   what: str = "Tukey HSD", progress: bool = False) -> np.ndarray:
    """Randomised Tukey HSD p-values ``(M, P)`` of the pairs ``a < b`` of every matrix of a stack.

    ``(count + 1) / (trials + 1)`` of :func:`stack_counts` (all matrices permuted alike).
    """
    return pvalues.monte_carlo_p(stack_counts(stack, trials, seed, executor, what=what, progress=progress), trials)


def check_matrix(matrix: np.ndarray, rows: str = "topics", cols: str = "systems") -> np.ndarray:
    """A finite 2-d float array with at least 2 rows and 2 columns, or a clear error."""
    x = np.asarray(matrix, dtype=np.float64)
    if x.ndim != 2:
        raise DataError(f"expected a 2-d {rows} x {cols} matrix, got shape {x.shape}")
    if x.shape[0] < 2:
        raise DataError(f"need at least 2 {rows} (rows), got {x.shape[0]}")
    if x.shape[1] < 2:
        raise DataError(f"need at least 2 {cols} (columns), got {x.shape[1]}")
    if not np.isfinite(x).all():
        r, c = np.argwhere(~np.isfinite(x))[0]
        raise DataError(f"matrix has {int((~np.isfinite(x)).sum())} NaN/infinite values "
                         f"(first at row {r}, column {c})")
    return x


def randomised_tukey_hsd(matrix: np.ndarray, trials: int = 2000, seed: streams.Seed = 0, *,
                         progress: bool = False) -> np.ndarray:
    """Randomised paired Tukey HSD test (Carterette 2012; Sakai 2018) over a score matrix.

    Parameters
    ----------
    matrix
        Topics x systems array (rows are paired observations, e.g. topics or trials).
    trials
        Number of random permutations B.
    seed
        Int or ``numpy.random.SeedSequence``; the same seed gives the same p-values.
    progress
        Show a progress bar (trials are counted chunk by chunk, in memory independent
        of ``trials``; a run estimated to take long is announced, see
        :mod:`ir_cwla.analysis.montecarlo`).

    Returns
    -------
    systems x systems array of p-values, ``p[a, b] = (#{b: r_b >= |mean_a - mean_b|} + 1) / (B + 1)``
    where ``r_b`` is the range of the column means after permuting every row at random
    (diagonal 1).
    """
    x = check_matrix(matrix)
    trials = streams.check_trials(trials)
    return to_square(stack_p_values(x[None], trials, seed, progress=progress)[0], x.shape[1])
