"""Rank uncertainty: how sure is a system of its place in the ranking (bootstrap over topics).

Each of ``R`` resamples draws the ``T`` topics with replacement (the resamples of the
bootstrap intervals, :func:`ir_cwla.comparison.effects.bootstrap_means`); on each, the systems
are ranked by their mean score (1 = best; equal means share the best rank of their group,
"min" ranking, to within the tie tolerance). A system's rank interval at level ``L`` is the
``(1-L)/2`` and ``(1+L)/2`` quantiles of its ranks over the resamples (lower, then higher
quantile of the rank, computed with ``numpy.quantile(..., method='inverted_cdf')`` so that the
bounds are ranks that occurred).

**Separable adjacent ranks.** Sort the systems by their observed score (rank ``r``, ties by
name) and take each adjacent pair: the system at rank ``r`` (``upper``) and the one at
``r + 1`` (``lower``). Let ``share_above`` be the share of resamples in which ``upper``'s
score is strictly higher than ``lower``'s (by more than the tie tolerance). The pair is
*separable at level L* when

    1 - share_above < (1 - L) / 2,

i.e. when the percentile bootstrap interval at level ``L`` of the score difference
``upper - lower`` lies entirely above 0: the order of the two is not an accident of the
topic sample, at the two-sided level ``1 - L``. (Each adjacent pair is judged on its own:
no correction over the ``S - 1`` pairs.)

For a leaderboard the same is done with the Dynascore (Ma et al. 2021): on each resample the
accuracy column is the mean per-topic score of the resample, the other metrics (latency,
cost, ...) are kept as measured, and the Dynascore is recomputed
(:func:`ir_cwla.leaderboard.dynascore.dynascore_kernel`, the weights and directions that
:func:`ir_cwla.leaderboard.dynascore` uses on the observed table; the rates of substitution
are recomputed on each resample, as the Dynascore's definition requires). A resample on which the
Dynascore is undefined -- every system equally accurate, or a weighted metric that differs only
between systems whose resampled accuracies the rates of substitution cannot tell apart (its AMRS
is 0; :func:`ir_cwla.leaderboard.dynascore` refuses such a table) -- is left out, and the
result's ``resamples`` counts the resamples used.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Optional

import numpy as np
import pandas as pd

from ir_cwla._text import shown
from ir_cwla.analysis import streams
from ir_cwla.analysis.frame import TIE_TOLERANCE, TopicPolicy, centred, to_cube
from ir_cwla.comparison.effects import bootstrap_means
from ir_cwla.errors import DataError, NotFoundError, ParameterError


def min_ranks(scores: np.ndarray, tol: float) -> np.ndarray:
    """Ranks (1 = best) of the systems in every row of ``scores (R, S)``, "min" ranking.

    Scores within ``tol`` of the best of their group share its rank.
    """
    scores = np.atleast_2d(np.asarray(scores, dtype=np.float64))
    # rank = 1 + number of systems whose score is higher by more than tol
    higher = (scores[:, None, :] > scores[:, :, None] + tol).sum(axis=2)
    return 1 + higher


def rank_kernel(samples: np.ndarray, observed: np.ndarray, level: float, tol: float) -> dict[str, np.ndarray]:
    """Rank intervals and adjacent separability from resampled and observed scores.

    The definitions are those of the module docstring.

    Parameters
    ----------
    samples : ndarray, shape (R, S)
        The resampled scores.
    observed : ndarray, shape (S,)
        The observed scores.
    level
        The level ``L`` of the rank intervals and of separability.
    tol
        The tie tolerance.

    Returns
    -------
    dict of str to ndarray
        Arrays by system (``rank``, ``low``, ``high``, ``median``) and, for the ``S - 1`` adjacent
        pairs in observed order, ``order`` (system indices by observed rank), ``share_above`` and
        ``separable``.
    """
    observed = np.asarray(observed, dtype=np.float64)
    ranks = min_ranks(samples, tol)
    lo_q, hi_q = (1.0 - level) / 2.0, (1.0 + level) / 2.0
    low = np.quantile(ranks, lo_q, axis=0, method="inverted_cdf")
    high = np.quantile(ranks, hi_q, axis=0, method="inverted_cdf")
    median = np.quantile(ranks, 0.5, axis=0, method="inverted_cdf")
    order = np.lexsort((np.arange(len(observed)), -observed))
    upper, lower = order[:-1], order[1:]
    share_above = (samples[:, upper] > samples[:, lower] + tol).mean(axis=0)
    return {"rank": min_ranks(observed[None], tol)[0], "low": low, "high": high, "median": median,
            "order": order, "share_above": share_above, "separable": (1.0 - share_above) < lo_q}


@dataclass
class RankUncertainty:
    """Bootstrap rank intervals of every system, and which adjacent ranks are separable.

    Attributes
    ----------
    systems
        One row per system in observed order (``rank``, ``score``, ``rank_low``, ``rank_high``,
        ``rank_median``).
    adjacent
        One row per adjacent pair (``upper``, ``lower``, ``share_above``, ``separable``).
    what
        The name of the score (a measure, or the Dynascore of a measure).
    """

    systems: pd.DataFrame
    adjacent: pd.DataFrame
    what: str
    level: float
    resamples: int
    seed: object
    n_topics: int

    def table(self) -> pd.DataFrame:
        """The systems in observed order with their rank intervals and separability from the next.

        Every system but the last says whether it is separable from the next
        (``separable_from_next``).
        """
        out = self.systems.copy()
        out["separable_from_next"] = list(self.adjacent["separable"]) + [pd.NA]
        return out

    def summary(self) -> str:
        """One sentence: how many adjacent pairs are separable."""
        k, n = int(self.adjacent["separable"].sum()), len(self.adjacent)
        return (f"{k} of {n} adjacent pairs of the {self.what} ranking are separable at level {self.level:g} "
                f"({self.resamples:,} bootstrap resamples of {self.n_topics} topics)")


def _frames(what: str, systems: Sequence[str], observed: np.ndarray, kernel: dict[str, np.ndarray], level: float,
            resamples: int, seed: object, n_topics: int) -> RankUncertainty:
    names = np.asarray(systems, dtype=object)
    order = kernel["order"]
    table = pd.DataFrame({"system": names[order], "rank": kernel["rank"][order], "score": observed[order],
                          "rank_low": kernel["low"][order].astype(int), "rank_high": kernel["high"][order].astype(int),
                          "rank_median": kernel["median"][order].astype(int)})
    adjacent = pd.DataFrame({"upper": names[order[:-1]], "lower": names[order[1:]],
                             "share_above": kernel["share_above"], "separable": kernel["separable"]})
    return RankUncertainty(table.reset_index(drop=True), adjacent, what, level, resamples, seed, n_topics)


def _check_level(level: float) -> float:
    if isinstance(level, bool) or not isinstance(level, (int, float, np.floating)) or not 0 < level < 1:
        raise ParameterError(f"level must lie in (0, 1), got {shown(level)}")
    return float(level)


def rank_uncertainty(per_query: pd.DataFrame, measure: Optional[str] = None, *, level: float = 0.95,
                     resamples: int = 2000, seed: streams.Seed = 0, topics: TopicPolicy = "strict") -> RankUncertainty:
    """Bootstrap-over-topics rank intervals of every system under ``measure`` (module docstring).

    Parameters
    ----------
    per_query : long per-query frame (``name, qid, measure, value``).
    measure : the measure (``str(measure)``); may be left out when the frame has one.
    level : level of the rank intervals and of separability.
    resamples : bootstrap resamples ``R`` of the topics.
    seed : int or ``SeedSequence`` (the resamples of :func:`ir_cwla.comparison.compare`'s
        bootstrap intervals with the same seed).
    topics : ``'strict'`` or ``'intersection'``.

    Returns
    -------
    :class:`RankUncertainty`
    """
    level = _check_level(level)
    resamples = streams.check_trials(resamples, "resamples")
    cube = to_cube(per_query, topics)
    if measure is None:
        if len(cube.measures) != 1:
            raise ParameterError(f"the frame has {len(cube.measures)} measures: name one with measure= "
                                 f"({', '.join(cube.measures[:5])}{', ...' if len(cube.measures) > 5 else ''})")
        measure = cube.measures[0]
    if str(measure) not in cube.measures:
        raise NotFoundError(f"measure {measure!r} is not in the frame (it has {', '.join(cube.measures[:5])}"
                            f"{', ...' if len(cube.measures) > 5 else ''})")
    one = cube.select([str(measure)])
    shifted = centred(one.values)                # the same ranks and differences, for any constant added
    samples = bootstrap_means(shifted, resamples, seed)[:, 0, :]
    observed = one.values[0].mean(axis=0)
    tol = TIE_TOLERANCE * max(1.0, float(np.max(np.abs(shifted))))
    kernel = rank_kernel(samples, observed, level, tol)
    return _frames(str(measure), one.systems, observed, kernel, level, resamples, seed, len(one.topics))


def dynascore_rank_uncertainty(board: pd.DataFrame, per_query: pd.DataFrame, measure: Optional[str] = None, *,
                               weights: Optional[Mapping[str, float]] = None,
                               directions: Optional[Mapping[str, int]] = None, perf: str = "accuracy",
                               level: float = 0.95, resamples: int = 2000, seed: streams.Seed = 0,
                               topics: TopicPolicy = "strict") -> RankUncertainty:
    """Bootstrap rank intervals of the Dynascore ranking of a leaderboard (module docstring).

    Parameters
    ----------
    board : one row per system (index: the system names of ``per_query``), numeric columns of
        the other metrics (latency, cost, ...); the accuracy column ``perf`` is (re)computed from
        ``per_query`` and need not be there.
    per_query : per-topic scores of the accuracy ``measure``.
    weights, directions, perf : as :func:`ir_cwla.leaderboard.dynascore`.
    level, resamples, seed, topics : as :func:`rank_uncertainty`.
    """
    from ir_cwla.leaderboard.dynascore import default_direction, dynascore, dynascore_kernel

    level = _check_level(level)
    resamples = streams.check_trials(resamples, "resamples")
    cube = to_cube(per_query, topics)
    if measure is None:
        if len(cube.measures) != 1:
            raise ParameterError(f"the frame has {len(cube.measures)} measures: name the accuracy one with measure=")
        measure = cube.measures[0]
    if str(measure) not in cube.measures:
        raise NotFoundError(f"measure {measure!r} is not in the frame")
    if not isinstance(board, pd.DataFrame):
        raise ParameterError(f"board must be a DataFrame of systems x metrics, got {type(board).__name__}")
    names = [str(n) for n in board.index]
    missing = sorted(set(cube.systems) - set(names))
    extra = sorted(set(names) - set(cube.systems))
    if missing or extra:
        raise DataError(f"the leaderboard and the per-query frame name different systems (only in the frame: "
                        f"{missing[:5]}; only in the board: {extra[:5]})")
    table = board.copy()
    table.index = pd.Index(names)
    table = table.loc[list(cube.systems)]
    one = cube.select([str(measure)])
    observed_acc = one.values[0].mean(axis=0)
    table[perf] = observed_acc
    ranked = dynascore(table, weights=weights, directions=directions, perf=perf)
    used = ranked.attrs["weights"]
    # metrics the observed Dynascore weights (one it dropped as constant has weight 0 and stays out)
    metrics = [perf] + [m for m in used if m != perf and used[m] > 0]
    w = np.array([used.get(m, 0.0) for m in metrics])
    d = np.array([(directions or {}).get(m, default_direction(m)) for m in metrics], dtype=np.float64)
    fixed = table[metrics].to_numpy(dtype=np.float64)
    observed = ranked.loc[list(cube.systems), "dynascore"].to_numpy(dtype=np.float64)
    samples = np.empty((resamples, len(cube.systems)))
    acc = bootstrap_means(one.values, resamples, seed)[:, 0, :]
    values = fixed.copy()
    for r in range(resamples):
        values[:, 0] = acc[r]
        try:
            with np.errstate(divide="ignore", invalid="ignore"):
                samples[r], amrs = dynascore_kernel(values, w, d, np.zeros(len(metrics)))
        except DataError:                      # every system equally accurate on this resample
            samples[r] = np.nan
            continue
        if not np.all(amrs[1:] != 0):          # a metric that differs only between systems whose resampled
            samples[r] = np.nan                # accuracies the AMRS cannot tell apart: no Dynascore (as the
                                               # observed ranking refuses it), the resample left out
    bad = np.isnan(samples).any(axis=1)
    if bad.all():
        raise DataError("the Dynascore cannot be computed on any resample (accuracy ties every system)")
    samples = samples[~bad]
    scale = float(np.max(np.abs(samples))) if samples.size else 1.0
    kernel = rank_kernel(samples, observed, level, 1e-9 * max(1.0, scale))
    return _frames(f"Dynascore ({measure})", cube.systems, observed, kernel, level, int((~bad).sum()), seed,
                   len(one.topics))
