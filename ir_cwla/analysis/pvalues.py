"""Monte-Carlo p-values, their Monte-Carlo error, and decisions that could flip within it.

Every randomised test of ir_cwla (Fisher's randomisation test, Sakai's bootstrap test, the
randomised Tukey HSD test, Westfall & Young's MaxT and step-down procedures) counts the ``b``
of its ``B`` random trials whose statistic reaches the observed one, and turns the count into a
p-value here, by one rule:

    p = (b + 1) / (B + 1)

(Phipson & Smyth 2010, "Permutation p-values should never be zero", *Statistical Applications
in Genetics and Molecular Biology* 9(1), eq. 2: the observed arrangement is one of the
arrangements the test draws from, so the p-value of a test of ``B`` random trials is never
below ``1 / (B + 1)``, and a test at level ``alpha`` keeps its size). ``b / B`` can be 0, and no
correction for multiple comparisons raises a 0.

**Monte-Carlo error.** ``b`` is binomial, ``Bin(B, p*)`` with ``p*`` the p-value an infinite
number of trials would give, so the standard deviation of ``p`` over the seeds is
``sqrt(B p* (1 - p*)) / (B + 1)``; :func:`monte_carlo_sd` estimates it with ``p`` for ``p*``.
For a percentile of ``R`` bootstrap resamples (an interval bound) the order statistic at rank
``R q`` moves by about ``sqrt(R q (1 - q))`` ranks from seed to seed (its rank is binomial), so
:func:`quantile_sd` takes half the distance between the quantiles at
``q -+ sqrt(q (1 - q) / R)`` of the resamples (the binomial, or order-statistic, estimate of
the standard error of a sample quantile: Maritz & Jarrett 1978; Hyndman & Fan 1996 for the
interpolation, numpy's default).

**Decisions that could flip.** A decision (adjusted ``p < alpha``; an interval excluding 0)
*could flip* within the Monte-Carlo error when moving the Monte-Carlo estimates by
:data:`FLIP_Z` of their standard deviations (about 99.7 % of seeds for 3) could change it
(:func:`could_flip`, :func:`interval_could_flip`).
"""
from __future__ import annotations

import numpy as np

#: How many Monte-Carlo standard deviations a decision must stay clear of to be called stable.
FLIP_Z = 3.0


def monte_carlo_p(counts: np.ndarray, trials: int | np.ndarray) -> np.ndarray:
    """``(counts + 1) / (trials + 1)``: the Monte-Carlo p-value of ``counts`` of ``trials`` trials (module docstring).

    ``trials`` may be an array beside ``counts`` where each p-value has its own number of trials
    (e.g. the null draws that were defined).
    """
    return (np.asarray(counts, dtype=np.float64) + 1.0) / (np.asarray(trials, dtype=np.float64) + 1.0)


def monte_carlo_sd(p: np.ndarray, trials: int) -> np.ndarray:
    """``sqrt(B p (1 - p)) / (B + 1)``: the Monte-Carlo standard deviation of ``p`` over seeds (``B = trials``).

    0 for ``trials = 0`` (an exact p-value has no Monte-Carlo error).
    """
    p = np.asarray(p, dtype=np.float64)
    if trials <= 0:
        return np.zeros_like(p)
    return np.sqrt(trials * p * (1.0 - p)) / (trials + 1.0)


def quantile_sd(samples: np.ndarray, q: float, axis: int = 0) -> np.ndarray:
    """Monte-Carlo standard deviation of the ``q`` quantile of ``samples`` along ``axis`` (module docstring)."""
    n = np.shape(samples)[axis]
    step = np.sqrt(q * (1.0 - q) / n)
    low, high = np.quantile(samples, [max(0.0, q - step), min(1.0, q + step)], axis=axis)
    return (high - low) / 2.0


def could_flip(low: np.ndarray, high: np.ndarray, alpha: float) -> np.ndarray:
    """Where ``p < alpha`` differs between the two ends of a band ``[low, high]`` of adjusted p-values."""
    return (np.asarray(low) < alpha) & (np.asarray(high) >= alpha)


def interval_could_flip(low: np.ndarray, high: np.ndarray, low_sd: np.ndarray, high_sd: np.ndarray,
                        z: float = FLIP_Z) -> np.ndarray:
    """Where whether ``[low, high]`` contains 0 could change if a bound moves by ``z`` of its Monte-Carlo sd.

    The interval contains 0 when ``low <= 0 <= high``: that can change with ``low`` where
    ``high >= 0`` and ``|low| <= z sd(low)``, and with ``high`` where ``low <= 0`` and
    ``|high| <= z sd(high)``.
    """
    low, high = np.asarray(low), np.asarray(high)
    by_low = (high >= 0) & (np.abs(low) <= z * np.asarray(low_sd))
    by_high = (low <= 0) & (np.abs(high) <= z * np.asarray(high_sd))
    return by_low | by_high
