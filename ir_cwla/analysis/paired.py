"""Paired two-sided tests over topics, for many pairs of systems at once: numpy kernels.

Every kernel takes the paired differences ``D[t, p] = x_t(system_p) - x_t(baseline_p)`` of
``T`` topics and ``P`` pairs (one measure) and a tolerance ``tol``: a difference with
``|d| <= tol`` is a tie (:data:`ir_cwla.analysis.frame.TIE_TOLERANCE` relative to the scores'
scale, :func:`ir_cwla.analysis.tukey.tolerance`), so that scores equal in real arithmetic and
different by rounding are never counted as a win.

- Student's paired t-test: ``t = mean(d) / (sd(d) / sqrt(T))``, ``T - 1`` degrees of freedom,
  ``p = 2 P(t_{T-1} >= |t|)`` (the statistic and p-value of ``scipy.stats.ttest_rel``).
- Wilcoxon's signed-rank test: ties (``|d| <= tol``) are dropped (Wilcoxon's own rule,
  ``zero_method='wilcox'``), then ``scipy.stats.wilcoxon`` with its defaults (exact null
  distribution for at most 50 non-zero differences without ties, else the normal
  approximation with the tie correction), so the p-values are PyTerrier's.
- Sign test: ``k`` wins out of the ``n`` topics that are not ties, ``p = min(1, 2 P(Bin(n, 1/2)
  <= min(k, n - k)))`` (``scipy.stats.binomtest(k, n).pvalue``).
- Sakai's paired bootstrap test (Sakai 2006, "Evaluating evaluation metrics based on the
  bootstrap", SIGIR; Sakai 2018, *Laboratory Experiments in IR*, Sec. 4): the differences are
  shifted to mean 0, ``w_t = d_t - mean(d)``, resampled over topics with replacement ``B``
  times (the same topic resamples for every pair and measure), and
  ``p = (#{b : |t(w*_b)| >= |t(d)|} + 1) / (B + 1)`` with ``t`` the paired t statistic (the
  observed sample counts as one of the ``B + 1``: Phipson & Smyth 2010,
  :mod:`ir_cwla.analysis.pvalues`).
- Fisher's randomisation test is :mod:`ir_cwla.analysis.pairwise` (the same sign flips for every
  pair and measure).

Constant differences (every topic the same difference): the t statistic is undefined. The
kernels then give ``t = 0, p = 1`` when every difference is a tie (the systems score alike
on every topic) and ``t = +-inf, p = 0`` otherwise (the difference is certain); Wilcoxon's
and the sign test's p-values are exact there (``p = 1`` with no non-tied topic); the adapter
warns (:class:`ir_cwla.errors.UndefinedStatisticWarning`).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ir_cwla.analysis import executors, montecarlo, pvalues, streams
from ir_cwla.analysis.streams import BOOTSTRAP_INTERVAL_STREAM, BOOTSTRAP_TEST_STREAM, MAXT_STREAM  # noqa: F401


def win_tie_loss(diffs: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Topics where the system wins (``d > tol``), ties (``|d| <= tol``) and loses, per pair."""
    d = np.asarray(diffs, dtype=np.float64)
    wins = (d > tol).sum(axis=0)
    losses = (d < -tol).sum(axis=0)
    return wins, d.shape[0] - wins - losses, losses


def constant(diffs: np.ndarray, tol: float) -> np.ndarray:
    """Pairs whose differences are the same on every topic (to within ``tol``)."""
    d = np.asarray(diffs, dtype=np.float64)
    return (d.max(axis=0) - d.min(axis=0)) <= tol


def t_statistics(diffs: np.ndarray, tol: float) -> np.ndarray:
    """Paired t statistics ``mean(d) / (sd(d) / sqrt(T))`` of every column.

    Constant columns get 0 (all ties) or ``+-inf`` (see the module docstring).
    """
    d = np.asarray(diffs, dtype=np.float64)
    n = d.shape[0]
    mean = d.mean(axis=0)
    sd = d.std(axis=0, ddof=1)
    flat = constant(d, tol)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (sd / np.sqrt(n))
    tied = np.abs(mean) <= tol
    with np.errstate(invalid="ignore"):
        return np.where(flat, np.where(tied, 0.0, np.sign(mean) * np.inf), t)


def t_test(diffs: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided paired t-test of every column of ``diffs``: ``(t, p)``."""
    from scipy import stats  # here: scipy.stats costs a second to import

    t = t_statistics(diffs, tol)
    p = 2.0 * stats.t.sf(np.abs(t), df=np.asarray(diffs).shape[0] - 1)
    return t, np.minimum(p, 1.0)


def wilcoxon_test(diffs: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided Wilcoxon signed-rank test of every column.

    ``(W, p)``, ``W`` the smaller of the rank sums of positive and negative
    differences (scipy's statistic).

    Differences within ``tol`` of 0 are set to 0 and ``scipy.stats.wilcoxon`` (its defaults:
    ``zero_method='wilcox'`` drops them) runs on each column, as PyTerrier calls it on the two
    columns of scores (one column at a time: scipy picks the exact or the normal method once
    for all the columns of a call). A column with no difference beyond ``tol`` gets ``W = 0, p = 1``.
    """
    from scipy import stats

    d = np.asarray(diffs, dtype=np.float64)
    d = np.where(np.abs(d) <= tol, 0.0, d)
    stat = np.zeros(d.shape[1])
    p = np.ones(d.shape[1])
    for j in np.flatnonzero((d != 0).any(axis=0)):
        result = stats.wilcoxon(d[:, j])
        stat[j], p[j] = float(result.statistic), float(result.pvalue)
    return stat, p


def sign_test(diffs: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided sign test of every column: ``(wins, p)``, ties dropped."""
    from scipy import stats

    wins, _, losses = win_tie_loss(diffs, tol)
    n = wins + losses
    k = np.minimum(wins, losses)
    p = np.where(n > 0, np.minimum(1.0, 2.0 * stats.binom.cdf(k, np.maximum(n, 1), 0.5)), 1.0)
    return wins.astype(np.float64), p


# --------------------------------------------------------------------------- bootstrap

def resample_counts(rng: np.random.Generator, size: int, n_topics: int) -> np.ndarray:
    """Multiplicities of the topics in ``size`` bootstrap resamples.

    ``(size, T)`` multiplicities of the topics in ``size`` resamples of ``T`` topics drawn with
    replacement: each resample is ``rng.integers(0, T, T)`` (the recipe is part of the
    reproducibility contract).
    """
    draws = rng.integers(0, n_topics, size=(size, n_topics))
    flat = (np.arange(size)[:, None] * n_topics + draws).ravel()
    return np.bincount(flat, minlength=size * n_topics).reshape(size, n_topics).astype(np.float64)


def resampled_t(counts: np.ndarray, centred: np.ndarray, tol: float) -> np.ndarray:
    """Paired t statistics of the resamples ``counts (b, T)`` of centred differences ``(T, P)`` -> ``(b, P)``.

    A resample with zero variance gets 0 (mean 0) or ``+-inf``.
    """
    n = centred.shape[0]
    s1 = counts @ centred                       # (b, P) sums
    s2 = counts @ (centred * centred)
    mean = s1 / n
    var = np.maximum(s2 - n * mean * mean, 0.0) / (n - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / np.sqrt(var / n)
    flat = var <= (tol * tol)
    with np.errstate(invalid="ignore"):
        return np.where(flat, np.where(np.abs(mean) <= tol, 0.0, np.sign(mean) * np.inf), t)


def bootstrap_count_task(shared: tuple[np.ndarray, np.ndarray, float], task: montecarlo.Task) -> np.ndarray:
    """Counts of the task's bootstrap resamples that reach each pair's ``|t|``.

    For the measures ``task.items``: how many of the task's resamples reach each pair's
    ``|t|`` (shared: centred differences ``(M, T, P)``, observed ``|t| - tol_t`` ``(M, P)``, tol).
    """
    centred, limits, tol = shared
    counts = np.zeros((len(task.items), centred.shape[2]), dtype=np.int64)
    for skip, size, rng in task.draws():
        weights = resample_counts(rng, skip + size, centred.shape[1])[skip:]
        for row, m in enumerate(task.items):
            counts[row] += (np.abs(resampled_t(weights, centred[m], tol)) >= limits[m]).sum(axis=0)
    return counts


def bootstrap_counts(diffs: np.ndarray, trials: int, seed: streams.Seed, executor: Any = None, *,
                     tol: float = 0.0, start: int = 0, progress: bool = False) -> np.ndarray:
    """How many of ``trials`` bootstrap resamples reach each pair's ``|t|`` (Sakai's paired bootstrap test).

    Parameters
    ----------
    diffs : ``(M, T, P)`` paired differences (measures, topics, pairs).
    trials : bootstrap resamples ``B`` (the same topic resamples for every pair and measure).
    seed : int or ``SeedSequence``.
    executor : where the chunks of resamples run (:func:`ir_cwla.analysis.executors.get_executor`).
    tol : tie tolerance of the differences.
    start : the first resample (a run continued from ``start`` resamples).

    Returns
    -------
    ``(M, P)`` int64 counts ``#{b : |t(w*_b)| >= |t(d)|}`` with ``w = d - mean(d)``.
    """
    d = np.asarray(diffs, dtype=np.float64)
    centred = d - d.mean(axis=1, keepdims=True)
    observed = np.abs(np.stack([t_statistics(m, tol) for m in d]))
    limits = observed - 1e-9 * np.maximum(1.0, np.where(np.isfinite(observed), observed, 0.0))
    workers = executors.get_executor(executor)
    chunk = streams.trial_chunk(d.shape[1] * max(d.shape[2], 1))
    tasks = montecarlo.plan(seed, BOOTSTRAP_TEST_STREAM, trials, chunk, d.shape[0], workers.parallelism, start=start)
    return montecarlo.sum_counts(workers, bootstrap_count_task, (centred, limits, tol), tasks, observed.shape,
                                 what="paired bootstrap test", progress=progress)


def bootstrap_test(diffs: np.ndarray, trials: int, seed: streams.Seed, executor: Any = None, *,
                   tol: float = 0.0, progress: bool = False) -> np.ndarray:
    """Sakai's two-sided paired bootstrap test of every pair of every measure.

    ``(M, P)`` p-values ``(count + 1) / (trials + 1)`` of :func:`bootstrap_counts`.
    """
    return pvalues.monte_carlo_p(bootstrap_counts(diffs, trials, seed, executor, tol=tol, progress=progress), trials)
