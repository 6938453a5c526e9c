"""Adjusting p-values for multiple comparisons: numpy kernels.

The family is a set of ``H`` hypotheses (pairs of systems x measures, see
:func:`ir_cwla.comparison.compare`'s ``family``); each adjusted p-value ``p~_h`` is compared with
``alpha`` as it is. With the p-values sorted ascending, ``p_(1) <= ... <= p_(H)``:

- ``'none'``: ``p~ = p``.
- ``'bonferroni'``: ``p~ = min(1, H p)`` (family-wise error rate, FWER).
- ``'holm'`` (Holm 1979): ``p~_(i) = min(1, max_{j <= i} (H - j + 1) p_(j))`` (FWER, step-down).
- ``'bh'`` (Benjamini & Hochberg 1995): ``p~_(i) = min(1, min_{j >= i} H p_(j) / j)`` (false
  discovery rate, FDR, under independence or positive dependence).
- ``'by'`` (Benjamini & Yekutieli 2001): BH times ``c(H) = sum_{k=1..H} 1/k`` (FDR under any
  dependence).
- ``'maxt'`` and ``'maxt-stepdown'``: Westfall & Young's (1993) permutation MaxT procedures,
  as Boytsov, Belova & Westfall (2013, "Deciding on an adjustment for multiplicity in IR
  experiments", SIGIR) apply them to IR: the scores of all systems are permuted within every
  topic at random (the complete null hypothesis: the systems are exchangeable on every topic),
  the same permutation for every measure, and ``T*_h`` is the paired t statistic of hypothesis
  ``h`` on the permuted scores. Single step:

      p~_h = (#{b : max_{k in family} |T*_bk| >= |T_h|} + 1) / (B + 1)

  Step-down: with the hypotheses sorted by ``|T|`` descending, ``|T_(1)| >= ... >= |T_(H)|``,

      p~_(i) = max_{j <= i} (#{b : max_{k >= j} |T*_b(k)| >= |T_(j)|} + 1) / (B + 1)

  (the observed scores count as one of the ``B + 1`` arrangements: Phipson & Smyth 2010,
  :mod:`ir_cwla.analysis.pvalues`; an adjusted p-value is never 0).

  Both control the FWER strongly (under subset pivotality) and, unlike Bonferroni and Holm,
  take the correlation of the tests (same topics, same systems, correlated measures) into
  account, so they are less conservative.

The permutations are drawn and counted in chunks (:mod:`ir_cwla.analysis.streams`,
:mod:`ir_cwla.analysis.montecarlo`): memory does not grow with ``B`` and the counts, hence the
p-values, are the same on every executor. ``|T*| >= |T|`` is decided with a relative tolerance
of ``1e-9`` so that statistics equal in real arithmetic are not separated by rounding. The scores
are centred per topic first (:func:`ir_cwla.analysis.frame.centred`), so the adjusted p-values
are the same to the bit when a constant is added to every score (the sums of squares of
scores of 10^8 cancelled catastrophically before).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ir_cwla.analysis import executors, montecarlo, pvalues, streams

# the corrections computed from the p-values alone live below, where meta's criteria use them too
from ir_cwla.analysis.adjust import P_VALUE_CORRECTIONS, adjust
from ir_cwla.analysis.frame import centred
from ir_cwla.analysis.streams import MAXT_STREAM

__all__ = ["CORRECTIONS", "P_VALUE_CORRECTIONS", "adjust", "permuted_t", "maxt_count_task", "maxt", "T_TOLERANCE"]

CORRECTIONS = P_VALUE_CORRECTIONS + ("maxt", "maxt-stepdown")
#: Relative tolerance of ``|T*| >= |T|``.
T_TOLERANCE = 1e-9


# --------------------------------------------------------------------------- MaxT

def permuted_t(values: np.ndarray, perms: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Paired t statistics of the pairs ``(a, b)`` (``x_b - x_a``) after permuting every topic's systems.

    ``values (T, S)``, ``perms (n, T, S)`` -> ``(n, P)``; ``values`` centred per topic
    (:func:`ir_cwla.analysis.frame.centred`: no pair's statistic changes, and the sums of
    squares below do not cancel as they do for scores far from 0).

    From the permuted column sums and the Gram matrix ``G = X*^T X*`` of each trial:
    ``sum d = s_b - s_a``, ``sum d^2 = G_aa + G_bb - 2 G_ab``. A pair with zero variance on a
    trial gets 0 (mean 0) or ``+-inf``.
    """
    n_topics = values.shape[0]
    permuted = np.take_along_axis(values[None], perms, axis=2)          # (n, T, S)
    sums = permuted.sum(axis=1)                                         # (n, S)
    gram = np.matmul(permuted.transpose(0, 2, 1), permuted)            # (n, S, S)
    s = sums[:, b] - sums[:, a]
    ss = gram[:, a, a] + gram[:, b, b] - 2.0 * gram[:, a, b]
    mean = s / n_topics
    var = np.maximum(ss - s * mean, 0.0) / (n_topics - 1)
    scale = max(1.0, float(np.max(np.abs(values)))) if values.size else 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / np.sqrt(var / n_topics)
    flat = var <= (1e-12 * scale) ** 2
    return np.where(flat, np.where(np.abs(mean) <= 1e-12 * scale, 0.0, np.inf), np.abs(t))


def maxt_count_task(shared: dict, task: montecarlo.Task) -> np.ndarray:
    """Counts of the task's permutations for every hypothesis.

    ``(1, 2 H)``, single-step counts then step-down counts (in hypothesis order). ``shared``
    holds the cube ``values (M, T, S)``, the pairs ``a, b``, the hypotheses' ``measure`` and
    ``pair`` indices, their observed limits ``|T| - tol``, and ``families``: for each family the
    hypotheses by ``|T|`` descending.
    """
    values, a, b = shared["values"], shared["a"], shared["b"]
    measure, pair, limits, families = shared["measure"], shared["pair"], shared["limits"], shared["families"]
    n_m, n_topics, n_systems = values.shape
    h = len(measure)
    single = np.zeros(h, dtype=np.int64)
    step = np.zeros(h, dtype=np.int64)
    for skip, size, rng in task.draws():
        perms = streams.permutations(rng, (skip + size, n_topics), n_systems)[skip:]
        stats = np.empty((size, h))
        for m in range(n_m):
            rows = np.flatnonzero(measure == m)
            if len(rows):
                stats[:, rows] = permuted_t(values[m], perms, a, b)[:, pair[rows]]
        for members in families:
            block = stats[:, members]                                   # sorted by |T| descending
            single[members] += (block.max(axis=1)[:, None] >= limits[members]).sum(axis=0)
            tail_max = np.maximum.accumulate(block[:, ::-1], axis=1)[:, ::-1]
            step[members] += (tail_max >= limits[members]).sum(axis=0)
    return np.concatenate([single, step])[None]


def maxt_counts(values: np.ndarray, a: np.ndarray, b: np.ndarray, measure: np.ndarray, pair: np.ndarray,
                observed: np.ndarray, families: list[np.ndarray], trials: int, seed: streams.Seed,
                executor: Any = None, *, start: int = 0, progress: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The permutation counts of Westfall & Young's MaxT, single step and step-down (module docstring).

    Parameters
    ----------
    values : ``(M, T, S)`` scores of the systems the family involves (all are permuted; centred
        per topic here).
    a, b : the pairs (column indices; the statistic is that of ``x_b - x_a``).
    measure, pair : for each hypothesis ``h``, its measure index and pair index.
    observed : ``|T_h|``, the observed paired t statistics.
    families : index arrays of the hypotheses of each family (disjoint, covering all).
    trials : permutations ``B``; seed: int or ``SeedSequence``; start: the first permutation
        (a run continued from ``start`` permutations).

    Returns
    -------
    ``(single_step, step_down)`` counts, each ``(H,)`` int64: for hypothesis ``h``, the
    permutations whose maximum over its family (over the hypotheses from ``h`` on, by ``|T|``
    descending) reaches ``|T_h|``.
    """
    observed = np.abs(np.asarray(observed, dtype=np.float64))
    finite = np.where(np.isfinite(observed), observed, 0.0)
    limits = observed - T_TOLERANCE * np.maximum(1.0, finite)
    ordered = [np.asarray(f, dtype=np.intp)[np.argsort(-observed[f], kind="stable")] for f in families]
    shared = {"values": np.ascontiguousarray(centred(values)), "a": np.asarray(a), "b": np.asarray(b),
              "measure": np.asarray(measure), "pair": np.asarray(pair), "limits": limits, "families": ordered}
    n_m, n_topics, n_systems = np.shape(values)
    cells = max(n_topics * n_systems, n_systems * n_systems, len(observed))
    workers = executors.get_executor(executor)
    tasks = montecarlo.plan(seed, MAXT_STREAM, trials, streams.trial_chunk(cells), 1, workers.parallelism, start=start)
    counts = montecarlo.sum_counts(workers, maxt_count_task, shared, tasks, (1, 2 * len(observed)),
                                   what="MaxT permutations", progress=progress)[0]
    h = len(observed)
    return counts[:h], counts[h:]


def maxt_p_values(single: np.ndarray, step: np.ndarray, observed: np.ndarray, families: list[np.ndarray],
                  trials: int) -> tuple[np.ndarray, np.ndarray]:
    """Adjusted p-values ``(count + 1) / (trials + 1)`` of :func:`maxt_counts`, the step-down's made monotone."""
    observed = np.abs(np.asarray(observed, dtype=np.float64))
    single_p = pvalues.monte_carlo_p(single, trials)
    step_p = pvalues.monte_carlo_p(step, trials)
    for members in families:                                           # monotone along the order
        order = np.asarray(members, dtype=np.intp)[np.argsort(-observed[members], kind="stable")]
        step_p[order] = np.maximum.accumulate(step_p[order])
    return single_p, step_p


def maxt(values: np.ndarray, a: np.ndarray, b: np.ndarray, measure: np.ndarray, pair: np.ndarray,
         observed: np.ndarray, families: list[np.ndarray], trials: int, seed: streams.Seed,
         executor: Any = None, *, progress: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Westfall & Young MaxT adjusted p-values, single step and step-down (module docstring).

    The parameters are those of :func:`maxt_counts`; returns ``(single_step, step_down)``
    adjusted p-values, each ``(H,)``.
    """
    single, step = maxt_counts(values, a, b, measure, pair, observed, families, trials, seed, executor,
                               progress=progress)
    return maxt_p_values(single, step, observed, families, trials)
