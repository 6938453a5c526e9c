"""Effect sizes and intervals of paired differences: numpy kernels.

For the differences ``d_t`` (system minus baseline) of ``n`` topics, mean ``dbar`` and
standard deviation ``s_d`` (``n - 1`` in the denominator):

- t interval (level ``L``): ``dbar +- t_{(1+L)/2, n-1} s_d / sqrt(n)`` (the interval of
  ``scipy.stats.ttest_rel(...).confidence_interval(L)``).
- Percentile bootstrap interval: the ``(1-L)/2`` and ``(1+L)/2`` quantiles (linear
  interpolation, ``numpy.quantile``'s default) of the mean difference over ``R`` resamples of
  the topics with replacement (the same resamples for every pair and measure; Efron &
  Tibshirani 1993, Sec. 13.3; ``scipy.stats.bootstrap(..., method='percentile')``).
- Cohen's d for paired data, ``d_z = dbar / s_d`` (Cohen 1988; Lakens 2013, "Calculating and
  reporting effect sizes", Frontiers in Psychology 4:863, eq. 6).
- Sakai's standardised mean difference ``ES_E2 = dbar / sqrt(V_E)`` with ``V_E`` the residual
  variance of the two-way ANOVA without replication over all the systems compared
  (:mod:`ir_cwla.analysis.anova`; Sakai 2018, *Laboratory Experiments in IR*, Sec. 5.2.2). With
  two systems ``V_E = s_d^2 / 2``, so ``ES_E2 = sqrt(2) d_z``.
"""
from __future__ import annotations

import numpy as np

from ir_cwla.analysis import streams
from ir_cwla.analysis.paired import BOOTSTRAP_INTERVAL_STREAM, resample_counts


def t_interval(diffs: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """``level`` t intervals of the mean of every column of ``diffs (T, P)``: ``(low, high)``."""
    from scipy import stats  # here: scipy.stats costs a second to import

    d = np.asarray(diffs, dtype=np.float64)
    n = d.shape[0]
    half = stats.t.ppf((1.0 + level) / 2.0, n - 1) * d.std(axis=0, ddof=1) / np.sqrt(n)
    mean = d.mean(axis=0)
    return mean - half, mean + half


def cohen_dz(diffs: np.ndarray, tol: float) -> np.ndarray:
    """``mean(d) / sd(d)`` per column.

    0 when every difference is a tie, ``+-inf`` when the differences are
    constant and not 0.
    """
    d = np.asarray(diffs, dtype=np.float64)
    mean = d.mean(axis=0)
    sd = d.std(axis=0, ddof=1)
    flat = (d.max(axis=0) - d.min(axis=0)) <= tol
    with np.errstate(divide="ignore", invalid="ignore"):
        out = mean / sd
        return np.where(flat, np.where(np.abs(mean) <= tol, 0.0, np.sign(mean) * np.inf), out)


def bootstrap_means(values: np.ndarray, resamples: int, seed: streams.Seed, start: int = 0) -> np.ndarray:
    """Mean score of every system on ``resamples`` resamples of the topics: ``(M, T, S)`` -> ``(R, M, S)``.

    Resample ``r`` draws ``T`` topics with replacement, in chunks of :data:`ir_cwla.analysis.streams.CHUNK` from
    stream ``BOOTSTRAP_INTERVAL_STREAM`` (:func:`ir_cwla.analysis.paired.resample_counts`), the same for
    every measure. ``start`` skips the first ``start`` resamples of the stream: the resamples
    ``start, ..., start + resamples - 1`` continue a run of ``start`` (together they are those of a
    single run of ``start + resamples``).
    """
    x = np.asarray(values, dtype=np.float64)
    n_m, n_t, n_s = x.shape
    flat = x.transpose(1, 0, 2).reshape(n_t, n_m * n_s)
    out = np.empty((resamples, n_m, n_s))
    done = 0
    for index, skip, size in streams.chunk_pieces(resamples, streams.CHUNK, start):
        counts = resample_counts(streams.chunk_rng(seed, BOOTSTRAP_INTERVAL_STREAM, index), skip + size, n_t)[skip:]
        out[done:done + size] = (counts @ flat).reshape(size, n_m, n_s) / n_t
        done += size
    return out


def percentile_interval(samples: np.ndarray, level: float, axis: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The ``(1-level)/2`` and ``(1+level)/2`` quantiles of ``samples`` along ``axis``."""
    low, high = np.quantile(samples, [(1.0 - level) / 2.0, (1.0 + level) / 2.0], axis=axis)
    return low, high
