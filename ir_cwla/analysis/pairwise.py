"""Per-pair significance tests over a topics x systems matrix: numpy kernels.

Unlike the randomised Tukey HSD test (:mod:`ir_cwla.analysis.tukey`), these test each pair of
systems on its own, without correction for multiple comparisons; they are offered for
comparison with it.

- Paired randomisation test (Fisher; Smucker et al. 2007): with ``d_t = x_ta - x_tb``,
  ``p = (#{b : |mean_t s_bt d_t| >= |mean_t d_t|} + 1) / (B + 1)`` for random signs ``s_bt = +-1``
  (the observed signs are one of the ``B + 1`` arrangements: Phipson & Smyth 2010,
  :mod:`ir_cwla.analysis.pvalues`).
  The signs come from the same stream as the Tukey test's permutations (one per topic row,
  shared by all pairs), so for two systems the two tests give identical p-values. Like the
  Tukey test's, the trials are only counted, chunk by chunk (:mod:`ir_cwla.analysis.montecarlo`).
- Paired t-test (Student): ``t = mean(d) / (sd(d) / sqrt(T))`` with ``T - 1`` degrees of
  freedom, two-sided (:func:`ir_cwla.analysis.paired.t_test`); a pair whose differences are all
  equal gets ``p = 1`` if they are 0 and ``p = 0`` otherwise.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ir_cwla.analysis import executors, montecarlo, paired, pvalues, streams
from ir_cwla.analysis.frame import centred
from ir_cwla.analysis.tukey import check_matrix, pair_indices, to_square, tolerance


def sign_flips(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Random signs +-1 drawn as 2-item permutations (the Tukey stream's recipe for 2 columns)."""
    return 1.0 - 2.0 * streams.permutations(rng, shape, 2)[..., 0]


def flipped_means(diffs: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """``|mean_t s_bt d_tp|`` for signs ``(b, T)`` and paired differences ``(T, P)`` -> ``(b, P)``.

    Accumulated topic by topic (no BLAS), so the sums are bit-identical on every machine.
    """
    acc = np.zeros((signs.shape[0], diffs.shape[1]), dtype=np.float64)
    term = np.empty_like(acc)
    for t in range(diffs.shape[0]):
        np.multiply(signs[:, t, None], diffs[t][None, :], out=term)
        acc += term
    np.divide(acc, diffs.shape[0], out=acc)
    return np.abs(acc, out=acc)


def count_task(shared: tuple[np.ndarray, np.ndarray, np.ndarray], task: montecarlo.Task) -> np.ndarray:
    """Counts of the task's sign flips that reach each pair's observed difference.

    For the matrices ``task.items`` of an ``(M, T, S)`` stack and the pairs ``(a, b)`` of
    ``shared = (stack, a, b)``: how many of the task's sign flips reach each pair's observed
    difference, ``(len(task.items), P)``: the unit of work an executor runs.

    A trial counts when ``|mean_t s_bt d_tp| >= |mean_t d_tp| - tol``, ``tol`` from the
    differences of the measure (:func:`ir_cwla.analysis.tukey.tolerance`). One measure's
    differences ``(T, P)`` are held at a time.
    """
    values, a, b = shared
    counts = np.zeros((len(task.items), len(a)), dtype=np.int64)
    for row, m in enumerate(task.items):
        diffs = values[m][:, a] - values[m][:, b]
        limits = np.abs(diffs.mean(axis=0)) - tolerance(diffs)
        for skip, size, rng in task.draws():
            signs = sign_flips(rng, (skip + size, diffs.shape[0]))[skip:]
            counts[row] += (flipped_means(diffs, signs) >= limits).sum(axis=0)
    return counts


def stack_counts(stack: np.ndarray, trials: int, seed: streams.Seed, executor: Any = None, *,
                 pairs: Optional[tuple[np.ndarray, np.ndarray]] = None, start: int = 0,
                 what: str = "randomisation test", progress: bool = False) -> np.ndarray:
    """How many of ``trials`` sign flips reach each pair's difference, for every matrix of a stack.

    ``stack (M, T, S)`` (the same sign flips for all), ``pairs`` the columns ``(a, b)`` (default
    every ``a < b``), ``start`` the first trial (see :func:`ir_cwla.analysis.tukey.stack_counts`);
    counted chunk by chunk on ``executor`` (default in-process): memory does not grow with
    ``trials``. Returns ``(M, P)`` int64 counts.
    """
    workers = executors.get_executor(executor)
    a, b = pairs if pairs is not None else pair_indices(stack.shape[2])
    a, b = np.asarray(a, dtype=np.intp), np.asarray(b, dtype=np.intp)
    tasks = montecarlo.plan(seed, streams.PERMUTATION_STREAM, trials, streams.CHUNK, stack.shape[0], workers.parallelism,
                            start=start)
    return montecarlo.sum_counts(workers, count_task, (np.asarray(stack, dtype=np.float64), a, b), tasks,
                                 (stack.shape[0], len(a)), what=what, progress=progress)


def stack_p_values(stack: np.ndarray, trials: int, seed: streams.Seed, executor: Any = None, *,
                   what: str = "randomisation test", progress: bool = False) -> np.ndarray:
    """Paired randomisation p-values ``(M, P)`` of the pairs ``a < b`` of every matrix of a stack.

    ``(count + 1) / (trials + 1)`` of :func:`stack_counts` (the same sign flips for all).
    """
    return pvalues.monte_carlo_p(stack_counts(stack, trials, seed, executor, what=what, progress=progress), trials)


def paired_randomisation_test(matrix: np.ndarray, trials: int = 2000, seed: streams.Seed = 0, *,
                              progress: bool = False) -> np.ndarray:
    """Two-sided paired randomisation test for every pair of columns (no multiplicity correction).

    Parameters
    ----------
    matrix
        Topics x systems scores.
    trials
        Random sign flips B per pair (the same flips for every pair).
    seed
        Int or ``numpy.random.SeedSequence``.
    progress
        Show a progress bar.

    Returns
    -------
    systems x systems p-values (diagonal 1).
    """
    x = check_matrix(matrix)
    trials = streams.check_trials(trials)
    return to_square(stack_p_values(x[None], trials, seed, progress=progress)[0], x.shape[1])


def paired_t_test(matrix: np.ndarray) -> np.ndarray:
    """Two-sided paired t-test for every pair of columns: systems x systems p-values (diagonal 1).

    The t-test of :func:`ir_cwla.analysis.paired.t_test` (``x_a - x_b``, the tie tolerance of the
    matrix's centred scores).
    """
    x = check_matrix(matrix)
    a, b = pair_indices(x.shape[1])
    _, p = paired.t_test(x[:, a] - x[:, b], tolerance(centred(x)))
    return to_square(p, x.shape[1])
