"""The randomised (paired) Tukey HSD test: pure numpy kernels.

Given a topics x systems score matrix ``X`` (paired: every row is one topic, or one trial),
the test asks for every pair of columns whether their mean difference is larger than what
the *largest* difference among all columns reaches by chance (Carterette 2012, Alg. 1;
Sakai 2018, Sec. 7; Sakai's Discpower ``Random-test``):

    for b = 1..B:   X*_b = X with the entries of every row permuted independently
                    r_b  = max_j mean_t X*_b[t, j] - min_j mean_t X*_b[t, j]
    p(a, b) = #{b : r_b >= |mean(X[:, a]) - mean(X[:, b])|} / B

Comparing every pair against the distribution of the range controls the family-wise error
rate over all pairs. With two columns the range is the absolute mean difference under a
random sign flip per row, so the test *is* the paired randomisation test (Fisher).

Equality of the permuted range and an observed difference is decided with a relative
tolerance of :data:`TIE_TOLERANCE` (so that ties that are exact in real arithmetic, e.g.
two identical runs, are not lost to floating-point rounding).

Trials are drawn in the fixed chunks of :mod:`ir_cwla.meta.streams`, all columns of a row
being permuted by one draw of :func:`ir_cwla.meta.streams.permutations`; the same seed gives
the same permutations for every matrix of the same shape (common random numbers across
measures), and the same p-values whichever executor runs the chunks.
"""
from __future__ import annotations

import numpy as np

from ir_cwla.meta import streams
from ir_cwla.meta.frame import TIE_TOLERANCE

#: Relative tolerance for ``range >= |difference|`` (scaled by ``max(1, max|X|)``).


def tolerance(values: np.ndarray) -> float:
    """Absolute tolerance for comparisons of means of ``values``."""
    scale = float(np.max(np.abs(values))) if values.size else 0.0
    return TIE_TOLERANCE * max(1.0, scale)


def permuted_ranges(values: np.ndarray, perms: np.ndarray) -> np.ndarray:
    """Range (max - min) of the column means of each row-permuted matrix.

    values: ``(T, S)`` matrix or ``(M, T, S)`` stack of matrices (one per measure).
    perms:  ``(b, T, S)`` permutation of each row's columns, one per trial.
    Returns ``(b,)`` or ``(M, b)`` ranges. Every matrix of a stack is permuted alike.

    The permuted column sums ``sum_t X[t, perm[:, t, :]]`` are accumulated row by row, in
    row order, for all matrices of the stack at once (one gather per row), into two work
    arrays reused throughout: each matrix's result is the same whatever the rest of the
    stack, and there are no large temporaries (which are slow where freed memory goes back
    to the OS at once, as in Dask workers).
    """
    stack = np.asarray(values, dtype=np.float64)
    single = stack.ndim == 2
    if single:
        stack = stack[None]
    n_trials, n_rows, n_cols = perms.shape
    by_row = np.ascontiguousarray(perms.transpose(1, 0, 2))          # (T, b, S)
    by_row_stack = np.ascontiguousarray(stack.transpose(1, 0, 2))     # (T, M, S)
    acc = np.empty((stack.shape[0], n_trials, n_cols), dtype=np.float64)
    row = np.empty_like(acc)
    np.take(by_row_stack[0], by_row[0], axis=1, out=acc, mode="clip")
    for t in range(1, n_rows):
        np.take(by_row_stack[t], by_row[t], axis=1, out=row, mode="clip")
        acc += row
    np.divide(acc, n_rows, out=acc)
    out = acc.max(axis=2) - acc.min(axis=2)
    return out[0] if single else out


def chunk_ranges(values: np.ndarray, seed: streams.Seed, index: int, size: int,
                 stream: int = streams.PERMUTATION_STREAM) -> np.ndarray:
    """The permuted ranges of trial chunk ``index`` (``size`` trials) of ``stream``.

    values: ``(T, S)`` or ``(M, T, S)``. This is the unit of work an executor runs.
    """
    n_rows, n_cols = np.shape(values)[-2:]
    perms = streams.permutations(streams.chunk_rng(seed, stream, index), (size, n_rows), n_cols)
    return permuted_ranges(values, perms)


def null_ranges(values: np.ndarray, trials: int, seed: streams.Seed,
                stream: int = streams.PERMUTATION_STREAM) -> np.ndarray:
    """All ``trials`` permuted ranges (``(trials,)`` or ``(M, trials)``), chunk after chunk."""
    n_rows, n_cols = np.shape(values)[-2:]
    sizes = streams.chunk_sizes(trials, streams.trial_chunk(n_rows * n_cols))
    parts = [chunk_ranges(values, seed, i, size, stream) for i, size in enumerate(sizes)]
    return np.concatenate(parts, axis=-1)


def p_values_from_ranges(matrix: np.ndarray, ranges: np.ndarray) -> np.ndarray:
    """Tukey HSD p-values ``(S, S)`` of the columns of ``matrix`` given the null ``ranges``.

    ``p[a, b] = #{r >= |mean_a - mean_b| - tol} / len(ranges)``; the diagonal is 1.
    """
    matrix = np.asarray(matrix, dtype=np.float64)
    means = matrix.mean(axis=0)
    diffs = np.abs(means[:, None] - means[None, :])
    ordered = np.sort(ranges)
    below = np.searchsorted(ordered, diffs - tolerance(matrix), side="left")
    return (ordered.size - below) / ordered.size


def check_matrix(matrix: np.ndarray, rows: str = "topics", cols: str = "systems") -> np.ndarray:
    """A finite 2-d float array with at least 2 rows and 2 columns, or a clear error."""
    x = np.asarray(matrix, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"expected a 2-d {rows} x {cols} matrix, got shape {x.shape}")
    if x.shape[0] < 2:
        raise ValueError(f"need at least 2 {rows} (rows), got {x.shape[0]}")
    if x.shape[1] < 2:
        raise ValueError(f"need at least 2 {cols} (columns), got {x.shape[1]}")
    if not np.isfinite(x).all():
        r, c = np.argwhere(~np.isfinite(x))[0]
        raise ValueError(f"matrix has {int((~np.isfinite(x)).sum())} NaN/infinite values "
                         f"(first at row {r}, column {c})")
    return x


def randomised_tukey_hsd(matrix: np.ndarray, trials: int = 2000, seed: streams.Seed = 0) -> np.ndarray:
    """Randomised paired Tukey HSD test (Carterette 2012; Sakai 2018) over a score matrix.

    Parameters
    ----------
    matrix: topics x systems array (rows are paired observations, e.g. topics or trials).
    trials: number of random permutations B.
    seed:   int or ``numpy.random.SeedSequence``; the same seed gives the same p-values.

    Returns
    -------
    systems x systems array of p-values, ``p[a, b] = #{b: r_b >= |mean_a - mean_b|} / B``
    where ``r_b`` is the range of the column means after permuting every row at random.
    """
    x = check_matrix(matrix)
    trials = streams.check_trials(trials)
    return p_values_from_ranges(x, null_ranges(x, trials, seed))
