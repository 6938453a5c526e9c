"""Per-pair significance tests over a topics x systems matrix: numpy kernels.

Unlike the randomised Tukey HSD test (:mod:`ir_cwla.analysis.tukey`), these test each pair of
systems on its own, without correction for multiple comparisons; they are offered for
comparison with it.

- Paired randomisation test (Fisher; Smucker et al. 2007): with ``d_t = x_ta - x_tb``,
  ``p = #{b : |mean_t s_bt d_t| >= |mean_t d_t|} / B`` for random signs ``s_bt = +-1``.
  The signs come from the same stream as the Tukey test's permutations (one per topic row,
  shared by all pairs), so for two systems the two tests give identical p-values. Like the
  Tukey test's, the trials are only counted, chunk by chunk (:mod:`ir_cwla.analysis.montecarlo`).
- Paired t-test (Student): ``t = mean(d) / (sd(d) / sqrt(T))`` with ``T - 1`` degrees of
  freedom, two-sided; a pair whose differences are all equal gets ``p = 1`` if they are 0
  and ``p = 0`` otherwise.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ir_cwla.analysis import executors, montecarlo, streams
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


def count_task(values: np.ndarray, task: montecarlo.Task) -> np.ndarray:
    """Counts of the task's sign flips that reach each pair's observed range.

    For the matrices ``task.items`` of an ``(M, T, S)`` stack: how many of the task's sign flips
    reach each pair's observed difference, ``(len(task.items), P)``: the unit of work an executor runs.

    A trial counts when ``|mean_t s_bt d_tp| >= |mean_t d_tp| - tol``, ``tol`` from the
    differences of the measure (:func:`ir_cwla.analysis.tukey.tolerance`). One measure's
    differences ``(T, P)`` are held at a time.
    """
    a, b = pair_indices(values.shape[2])
    counts = np.zeros((len(task.items), len(a)), dtype=np.int64)
    for row, m in enumerate(task.items):
        diffs = values[m][:, a] - values[m][:, b]
        limits = np.abs(diffs.mean(axis=0)) - tolerance(diffs)
        for size, rng in task.rngs():
            counts[row] += (flipped_means(diffs, sign_flips(rng, (size, diffs.shape[0]))) >= limits).sum(axis=0)
    return counts


def stack_p_values(stack: np.ndarray, trials: int, seed: streams.Seed, executor: Any = None, *,
                   what: str = "randomisation test", progress: bool = False) -> np.ndarray:
    """Paired randomisation p-values of every matrix of an ``(M, T, S)`` stack.

    Paired randomisation p-values ``(M, P)`` of the pairs ``a < b`` of every matrix of an
    ``(M, T, S)`` stack (the same sign flips for all), counted chunk by chunk on ``executor``
    (default in-process): memory does not grow with ``trials``.
    """
    workers = executors.get_executor(executor)
    n_pairs = stack.shape[2] * (stack.shape[2] - 1) // 2
    tasks = montecarlo.plan(seed, streams.PERMUTATION_STREAM, trials, streams.CHUNK, stack.shape[0], workers.parallelism)
    counts = montecarlo.sum_counts(workers, count_task, stack, tasks, (stack.shape[0], n_pairs),
                                   what=what, progress=progress)
    return counts / trials


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
    """Two-sided paired t-test for every pair of columns: systems x systems p-values."""
    x = check_matrix(matrix)
    n = x.shape[0]
    a, b = pair_indices(x.shape[1])
    diffs = x[:, a] - x[:, b]
    mean = diffs.mean(axis=0)
    sd = diffs.std(axis=0, ddof=1)
    constant = sd <= tolerance(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(constant, 0.0, mean / (sd / np.sqrt(n)))
    from scipy import stats  # here: scipy.stats costs 50 MB and a second to import

    p = 2.0 * stats.t.sf(np.abs(t), df=n - 1)
    p = np.where(constant, np.where(np.abs(mean) <= tolerance(x), 1.0, 0.0), p)
    return to_square(p, x.shape[1])
