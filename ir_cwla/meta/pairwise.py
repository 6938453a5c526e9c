"""Per-pair significance tests over a topics x systems matrix: pure numpy kernels.

Unlike the randomised Tukey HSD test (:mod:`ir_cwla.meta.tukey`), these test each pair of
systems on its own, without correction for multiple comparisons; they are offered for
comparison with it.

- Paired randomisation test (Fisher; Smucker et al. 2007): with ``d_t = x_ta - x_tb``,
  ``p = #{b : |mean_t s_bt d_t| >= |mean_t d_t|} / B`` for random signs ``s_bt = +-1``.
  The signs come from the same stream as the Tukey test's permutations (one per topic row,
  shared by all pairs), so for two systems the two tests give identical p-values.
- Paired t-test (Student): ``t = mean(d) / (sd(d) / sqrt(T))`` with ``T - 1`` degrees of
  freedom, two-sided; a pair whose differences are all equal gets ``p = 1`` if they are 0
  and ``p = 0`` otherwise.
"""
from __future__ import annotations

import numpy as np
from scipy import stats

from ir_cwla.meta import streams
from ir_cwla.meta.tukey import check_matrix, tolerance


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


def chunk_exceedances(diffs: np.ndarray, seed: streams.Seed, index: int, size: int) -> np.ndarray:
    """How many of chunk ``index``'s sign flips reach each pair's observed difference: ``(P,)``."""
    rng = streams.chunk_rng(seed, streams.PERMUTATION_STREAM, index)
    signs = sign_flips(rng, (size, diffs.shape[0]))
    observed = np.abs(diffs.mean(axis=0))
    return (flipped_means(diffs, signs) >= observed - tolerance(diffs)).sum(axis=0)


def paired_randomisation_test(matrix: np.ndarray, trials: int = 2000, seed: streams.Seed = 0) -> np.ndarray:
    """Two-sided paired randomisation test for every pair of columns (no multiplicity correction).

    Parameters
    ----------
    matrix: topics x systems scores.
    trials: random sign flips B per pair (the same flips for every pair).
    seed:   int or ``numpy.random.SeedSequence``.

    Returns
    -------
    systems x systems p-values (diagonal 1).
    """
    x = check_matrix(matrix)
    trials = streams.check_trials(trials)
    a, b = pair_indices(x.shape[1])
    diffs = x[:, a] - x[:, b]
    counts = sum(chunk_exceedances(diffs, seed, i, size)
                 for i, size in enumerate(streams.chunk_sizes(trials)))
    return to_square(np.asarray(counts) / trials, x.shape[1])


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
    p = 2.0 * stats.t.sf(np.abs(t), df=n - 1)
    p = np.where(constant, np.where(np.abs(mean) <= tolerance(x), 1.0, 0.0), p)
    return to_square(p, x.shape[1])
