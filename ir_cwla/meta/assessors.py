"""Robustness to a change of assessor (Voorhees 2000).

Robustness to a change of assessor (Voorhees 2000, "Variations in relevance judgments and the
measurement of retrieval effectiveness").

Given a reference qrels (e.g. NIST's) and one or more alternative qrels of the same topics (a
second assessor, crowd workers, an LLM), :func:`assessor_variation` scores every run under
both and asks, for every measure and alternative, whether the measure still ranks the systems
the same way:

* **ranking agreement** of the systems' mean scores under the alternative with those under the
  reference, taken as the truth: Kendall's tau-b, tau_AP and RBO_ext
  (:mod:`ir_cwla.meta.agreement`, :func:`ir_cwla.meta.robustness.compare`, as the robustness
  criteria), and the mean absolute change of the means (``abs_change``, ``rel_change``);
* **per-topic score correlation**: Pearson's r and Spearman's rho between the reference's and
  the alternative's scores over all (system, topic) cells of the compared topics (Spearman: the
  Pearson correlation of the cells' average ranks, ties sharing the mean of their ranks, as
  ``scipy.stats.spearmanr``);
* **rank moves**: every system's rank position (1 = best; tied means share the best position,
  :func:`ir_cwla.meta.robustness.rank_positions`) under both, its ``move = rank_alternative -
  rank_reference`` (positive: it falls), the system that moves most (``max_rank_move``, the
  largest ``|move|``, the first system by name among equals) and the mean ``|move|``;
* **discriminative power and consistency under both**: the system pairs significant at
  ``alpha`` (randomised Tukey HSD, :mod:`ir_cwla.analysis.tukey`, ``test_trials`` permutations)
  under the reference and under the alternative, and the mean tau between random topic halves
  (:mod:`ir_cwla.meta.consistency`, ``splits`` splits), both with the same seed: the
  permutations and splits depend only on the seed and the shape of the score matrix, so the
  reference and the alternative are tested on the same ones (common random numbers), and the
  reference's numbers are those of :func:`ir_cwla.meta.discriminative_power` and
  :func:`ir_cwla.meta.consistency` on its scores of the same topics with the same seed;
* **uncertainty**: a bootstrap over the compared topics (``bootstrap`` replicates): each
  replicate draws as many topics as there are, uniformly with replacement, and computes tau-b
  between the two rankings by the means over the drawn topics. Reported: the bootstrap standard
  error ``tau_se`` (the standard deviation of the replicates, ddof=1) and the normal interval
  ``tau -+ z_{1 - alpha/2} tau_se``, clipped to [-1, 1] (Efron & Tibshirani 1993, Sec. 13.2).
  Percentile intervals are not used: a resample repeats some topics and drops others, which makes
  the means noisier and lowers tau on nearly every replicate, so the replicates sit below the
  estimate (on DL19, the mean over several alternatives wholly) while their spread still measures
  its uncertainty. Within each family of measures, which measures keep the reference ranking
  significantly better than others is told by a simultaneous paired test over the same
  replicates (the bootstrap max-|t| test of Westfall & Young 1993, single step): for the pairs
  ``(i, j)`` of a family, with ``d = tau_i - tau_j`` observed, ``d_b`` on replicate ``b``, centred
  at their mean (which removes the common downward shift) and ``se`` their standard deviation,
  the adjusted p-value of a pair is the share of replicates whose ``max over the pairs of |d_b -
  mean(d_b)| / se`` reaches its ``|d| / se``; a pair with ``p < alpha`` differs, any other
  difference is a tie. This controls the family-wise error rate at ``alpha`` within each family.

**Judged pairs** (``judged=``). Alternatives may judge only part of the reference's pool (or
pairs the reference did not judge). ``'shared'`` (default): both qrels are restricted to the
pairs both judged, so both score the same judged pairs (x_max and R, e.g. for AP, come from
those pairs); ``'policy'``: each qrels as it is, a document one of them did not judge being
unjudged there and scored by the measure's own unjudged policy (``CWLA(unjudged='zero')``, the
default, ``'condense'``, ...; ir-measures' measures count it as non-relevant); the reference's
scores are then those of the whole reference qrels. Either way the two are compared **on the
topics both judged** (``'shared'``: the topics with at least one shared pair): an alternative
that judges a few topics is compared with the reference's ranking of the systems on those
topics. The tables and the report say which choice was made.

**Scoring.** Every run is ranked once against the union of the pairs of all the qrels
(:func:`ir_cwla.meta.rescoring.prepare`), and each qrels is a re-grading of that union
(:meth:`ir_cwla.gains.Qrels.regraded`, :meth:`ir_cwla.gains.Rankings.regrade`): scores equal
evaluating every run with each qrels from scratch (``tests/test_meta_assessors.py`` checks it
bit for bit against :class:`ir_cwla.scoring.Scorer`). Measures that are not C/W/L/A are scored
by ir-measures on each qrels frame.

**Random streams.** The bootstrap's ``bootstrap`` replicates are split into chunks of
:data:`ir_cwla.analysis.streams.CHUNK`; chunk ``c`` draws ``Generator.integers(0, T, size=(chunk,
T))`` (topic positions in the sorted list of the ``T`` compared topics) from
``default_rng(SeedSequence(seed, spawn_key=(ASSESSOR_STREAM, c)))``. Alternatives compared on
the same number of topics are resampled alike (common random numbers), so an alternative's
result does not depend on which others are compared with it, and every measure sees the same
replicates (what the paired test needs).
"""
from __future__ import annotations

import os
import warnings
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np
import pandas as pd

from ir_cwla.analysis import montecarlo, naming, pvalues, streams, tukey
from ir_cwla.analysis.executors import get_executor
from ir_cwla.analysis.frame import Groups, check_alpha, resolve_groups
from ir_cwla.errors import (
    DataError,
    InputWarning,
    MeasureError,
    NotFoundError,
    ParameterError,
    UndefinedStatisticWarning,
)
from ir_cwla.meta import agreement, criteria, kendall, rescoring, robustness
from ir_cwla.meta.consistency import split_matrix
from ir_cwla.meta.evaluation import Runs, as_measures, read_qrels
from ir_cwla.meta.grades import check_grade_map, check_scales, parse_grade_map
from ir_cwla.meta.labels import as_qrels_mapping, qrels_name
from ir_cwla.provider import check_grades_for_backends

#: How the judged pairs of the two qrels are handled (module docstring); ``'scores'``: the
#: alternatives were given as per-topic scores (:func:`score_variation`), not qrels.
JUDGED = ("shared", "policy")
#: What :attr:`AssessorVariation.agreement` reports per (alternative, measure), in table order.
STATISTICS = ("tau", "tau_ap", "rbo", "abs_change", "rel_change", "pearson", "spearman", "max_rank_move",
              "mean_abs_rank_move")
#: Statistics for which a smaller value is better.
LOWER_IS_BETTER = ("abs_change", "rel_change", "max_rank_move", "mean_abs_rank_move")


# -- kernels (numpy in, numpy out) ---------------------------------------------------------
def pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r between the rows of ``x`` and ``y`` (``(K, N)`` each): ``(K,)``.

    ``r = sum (x - mean x)(y - mean y) / sqrt(sum (x - mean x)^2 sum (y - mean y)^2)``; NaN
    where a row is constant.
    """
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    dx = x - x.mean(axis=1, keepdims=True)
    dy = y - y.mean(axis=1, keepdims=True)
    num = (dx * dy).sum(axis=1)
    den = np.sqrt((dx * dx).sum(axis=1) * (dy * dy).sum(axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def average_ranks(x: np.ndarray) -> np.ndarray:
    """Average ranks 1..N of every row of ``x``, ties sharing the mean of their ranks.

    Ranks 1..N of every row of ``x`` (``(K, N)``), equal values sharing the mean of their ranks
    (``scipy.stats.rankdata(method='average')`` row by row).
    """
    x = np.asarray(x, dtype=np.float64)
    k, n = x.shape
    order = np.argsort(x, axis=1, kind="stable")
    xs = np.take_along_axis(x, order, axis=1)
    new = np.ones((k, n), dtype=bool)
    new[:, 1:] = xs[:, 1:] != xs[:, :-1]
    position = np.arange(n)
    first = np.maximum.accumulate(np.where(new, position, 0), axis=1)            # first rank of the tie group
    ends = np.ones((k, n), dtype=bool)
    ends[:, :-1] = new[:, 1:]
    last = np.minimum.accumulate(np.where(ends, position, n)[:, ::-1], axis=1)[:, ::-1]
    out = np.empty((k, n))
    np.put_along_axis(out, order, (first + last) / 2.0 + 1.0, axis=1)
    return out


def spearman_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's rho between the rows of ``x`` and ``y``: Pearson's r of their average ranks."""
    return pearson_rows(average_ranks(x), average_ranks(y))


def bootstrap_taus(reference: np.ndarray, other: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """Kendall's tau-b between reference and other system rankings on topic resamples.

    tau-b between the system rankings by the means of ``reference`` and of ``other`` (``(M, T,
    S)`` cubes over the same topics) over the topics of each row of ``draws`` (``(B, T)`` topic
    positions): ``(B, M)``, NaN where a ranking ties every system.

    Means are sums over the drawn topics in their order (numpy's reduction, no BLAS), so a
    replicate's value never depends on the other replicates of its chunk.
    """
    n_m, n_t, n_s = reference.shape
    b = draws.shape[0]
    work = kendall.PairSigns(b, n_s)
    gathered = np.empty((b, draws.shape[1], n_s))
    means = [np.empty((b, n_s)), np.empty((b, n_s))]
    out = np.empty((b, n_m))
    for m in range(n_m):
        for cube, mean in zip((reference, other), means):
            np.take(cube[m], draws, axis=0, out=gathered, mode="clip")
            np.add.reduce(gathered, axis=1, out=mean)
            np.divide(mean, draws.shape[1], out=mean)
        out[:, m] = work.tau_b(means[0], means[1])
    return out


def simultaneous_p_values(replicates: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """Simultaneous adjusted p-values of the differences between bootstrap statistics.

    Adjusted p-values ``(k, k)`` of the differences between the ``k`` columns of ``replicates``
    (``(B, k)`` bootstrap replicates of ``k`` paired statistics, e.g. the taus of the measures of
    a family on the same topic resamples), for the ``observed`` statistics ``(k,)``.

    The single-step bootstrap max-|t| test (Westfall & Young 1993): for every pair ``i < j``,
    ``d = observed_i - observed_j``, ``d_b`` the same on replicate ``b``, ``mean`` and ``se`` the
    mean and standard deviation (ddof=1) of the ``d_b``; ``T_b = max over the pairs of |d_b -
    mean| / se`` and ``p_ij = (1 + #{b : T_b >= |d_ij| / se_ij}) / (B + 1)`` (the Monte-Carlo
    p-value of :func:`ir_cwla.analysis.pvalues.monte_carlo_p`, never 0). A pair whose replicates
    never differ (``se = 0``) has ``p = 1`` if ``d = 0`` and ``p = 1 / (B + 1)`` otherwise (no
    replicate reaches it). The diagonal is 1.
    """
    replicates = np.asarray(replicates, dtype=np.float64)
    observed = np.asarray(observed, dtype=np.float64)
    n_b, k = replicates.shape
    out = np.ones((k, k))
    if k < 2:
        return out
    a, b = np.triu_indices(k, 1)
    d = observed[a] - observed[b]
    d_b = replicates[:, a] - replicates[:, b]                       # (B, P)
    se = d_b.std(axis=0, ddof=1) if n_b > 1 else np.zeros(len(a))
    tol = 1e-12 * max(1.0, float(np.abs(replicates).max(initial=0.0)))
    varies = se > tol
    with np.errstate(divide="ignore", invalid="ignore"):
        t_obs = np.where(varies, np.abs(d) / np.where(varies, se, 1.0), 0.0)
        t_b = np.where(varies, np.abs(d_b - d_b.mean(axis=0)) / np.where(varies, se, 1.0), 0.0)
    largest = t_b.max(axis=1)
    reached = (largest[:, None] >= t_obs[None, :] - 1e-12).sum(axis=0)
    p = pvalues.monte_carlo_p(np.where(varies, reached, 0), n_b)
    p = np.where(varies | (np.abs(d) > tol), p, 1.0)
    out[a, b] = out[b, a] = p
    return out


def normal_interval(estimate: np.ndarray, replicates: np.ndarray, level: float
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A normal bootstrap interval ``(se, low, high)``.

    ``(se, low, high)``: the bootstrap standard error of ``estimate`` (the standard deviation,
    ddof=1, of each column of ``replicates``) and the normal interval ``estimate -+ z se`` with
    ``z`` the ``(1 + level) / 2`` quantile of the standard normal, clipped to [-1, 1].
    """
    from statistics import NormalDist

    se = replicates.std(axis=0, ddof=1) if len(replicates) > 1 else np.full(replicates.shape[1], np.nan)
    z = NormalDist().inv_cdf((1 + level) / 2)
    return se, np.clip(estimate - z * se, -1.0, 1.0), np.clip(estimate + z * se, -1.0, 1.0)


# -- tasks ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Bootstrap:
    """The cubes of the alternatives compared on one number of topics: ``(K, M, T, S)`` each."""

    reference: np.ndarray
    other: np.ndarray


def _bootstrap_task(data: _Bootstrap, task: montecarlo.Task) -> np.ndarray:
    """The taus and tau_APs of the task's bootstrap replicates for the alternatives ``task.items``.

    ``(task.trials, len(task.items), M, 2)`` (tau, tau_AP) of the task's replicates for the
    alternatives ``task.items``: the unit of work an executor runs.
    """
    n_t = data.reference.shape[2]
    parts = []
    for size, rng in task.rngs():
        draws = rng.integers(0, n_t, size=(size, n_t))
        parts.append(np.stack([bootstrap_agreement(data.reference[k], data.other[k], draws) for k in task.items],
                              axis=1))
    return np.concatenate(parts, axis=0)


def bootstrap_agreement(reference: np.ndarray, other: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """Kendall's tau-b and tau_AP (the reference as the truth) on topic resamples: ``(B, M, 2)``.

    As :func:`bootstrap_taus`, with tau_AP (:func:`ir_cwla.meta.agreement.tau_ap_rows`) of the
    same means beside tau; NaN where a ranking ties every system.
    """
    n_m, n_t, n_s = reference.shape
    b = draws.shape[0]
    work = kendall.PairSigns(b, n_s)
    gathered = np.empty((b, draws.shape[1], n_s))
    means = [np.empty((b, n_s)), np.empty((b, n_s))]
    out = np.empty((b, n_m, 2))
    for m in range(n_m):
        for cube, mean in zip((reference, other), means):
            np.take(cube[m], draws, axis=0, out=gathered, mode="clip")
            np.add.reduce(gathered, axis=1, out=mean)
            np.divide(mean, draws.shape[1], out=mean)
        out[:, m, 0] = work.tau_b(means[0], means[1])
        out[:, m, 1] = agreement.tau_ap_rows(means[0], means[1])
    return out


def chosen_alternatives(alternative: Any, alternatives: Sequence[str]) -> list[str]:
    """The alternatives a result's method is asked for: all (None), one name, or several; unknown ones refused."""
    if alternative is None:
        return list(alternatives)
    names = [alternative] if isinstance(alternative, str) else list(alternative)
    unknown = [n for n in names if n not in alternatives]
    if unknown or not names:
        raise NotFoundError(f"no alternative {unknown[0] if unknown else '(none given)'!r}; the alternatives are "
                            f"{list(alternatives)}")
    return names


def checked_settings(test_trials: int, splits: int, bootstrap: int, alpha: float, persistence: float, seed: Any,
                     executor: Any, n_jobs: Optional[int], scheduler: Optional[str]) -> tuple:
    """The settings both entry points check, in order: trials, splits, resamples, alpha, RBO's p, seed, executor."""
    return (streams.check_trials(test_trials, "test_trials"), streams.check_trials(splits, "splits"),
            streams.check_trials(bootstrap, "bootstrap"), check_alpha(alpha), agreement.check_persistence(persistence),
            streams.as_seed_sequence(seed), get_executor(executor, n_jobs=n_jobs, scheduler=scheduler))


# -- result --------------------------------------------------------------------------------
@dataclass
class AssessorVariation:
    """How every measure's ranking of the systems survives a change of assessor.

    ``agreement``: one row per (alternative, measure) with the statistics of :data:`STATISTICS`,
    ``moved_system`` (the system of ``max_rank_move``), ``tau_se``, ``tau_low``/``tau_high``
    (bootstrap standard error and normal interval), ``tau_ap_se``, ``tau_ap_low``/``tau_ap_high`` (the
    same for tau_AP), ``significant_reference``/``significant_alternative`` (system pairs with p <
    alpha) and ``consistency_reference``/``consistency_alternative`` (mean tau between topic
    halves); ``moves``: one row per (alternative, measure, system) with its mean score and rank
    position under both and its ``move``; ``coverage``: one row per alternative with the topics
    compared and the pairs each qrels judged on them; ``replicates``: per alternative, the
    bootstrap taus ``(bootstrap, measures)``; ``replicates_tau_ap``: the same of tau_AP.
    """

    agreement: pd.DataFrame
    moves: pd.DataFrame
    coverage: pd.DataFrame
    replicates: dict[str, np.ndarray]
    measures: list[str]
    alternatives: list[str]
    reference: str
    judged: str
    groups: dict[Hashable, list[str]]
    alpha: float
    test_trials: int
    splits: int
    bootstrap: int
    seed: Any
    persistence: float
    labels: dict[str, str] = field(default_factory=dict)
    #: Per alternative, the topics it was compared on (sorted).
    topics: dict[str, list[str]] = field(default_factory=dict)
    replicates_tau_ap: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def level(self) -> float:
        """Level of the bootstrap intervals: ``1 - alpha``."""
        return 1.0 - self.alpha

    def _chosen(self, alternative: Any) -> list[str]:
        return chosen_alternatives(alternative, self.alternatives)

    def _decorate(self, table: pd.DataFrame) -> pd.DataFrame:
        family = {m: g for g, members in self.groups.items() for m in members}
        table.insert(1, "group", table["measure"].map(family))
        return table

    def _named(self, table: pd.DataFrame) -> pd.DataFrame:
        """``table`` with its measures named by their labels, as every table of :mod:`ir_cwla.meta`."""
        return table.assign(measure=table["measure"].map(lambda m: self.labels.get(m, m)))

    def _measure(self, name: str) -> str:
        """A measure given by its name (``str(measure)``) or its label."""
        if name in self.measures:
            return name
        by_label = {self.labels.get(m, m): m for m in self.measures}
        if name not in by_label:
            raise NotFoundError(f"no measure {name!r}; the measures are {list(by_label)}")
        return by_label[name]

    def table(self, alternative: Any = None) -> pd.DataFrame:
        """One row per (alternative, measure): agreement of the rankings with the reference.

        One row per (alternative, measure), alternatives in the order given, measures in the
        canonical order: ``judged`` (how the pairs were handled), ``topics`` (compared), the
        ranking agreement with the reference (``tau`` and its interval, ``tau_ap``, ``rbo``), the
        change of the means, the per-topic correlations, the rank moves, and the significant
        pairs and consistency under the reference and the alternative. ``measure`` is the
        measure's label (:func:`ir_cwla.short_name`), as in every table of :mod:`ir_cwla.meta`.
        """
        return self._named(self._rows(alternative))

    def _rows(self, alternative: Any = None) -> pd.DataFrame:
        chosen = self._chosen(alternative)
        part = self.agreement[self.agreement["alternative"].isin(chosen)]
        rank = {a: i for i, a in enumerate(chosen)}
        position = {m: i for i, m in enumerate(self.measures)}
        order = np.lexsort((part["measure"].map(position).to_numpy(), part["alternative"].map(rank).to_numpy()))
        out = part.iloc[order].reset_index(drop=True)
        out.insert(1, "judged", self.judged)
        return self._decorate(out)

    def moves_table(self, alternative: Any = None, measure: Optional[str] = None) -> pd.DataFrame:
        """One row per (alternative, measure, system).

        Mean score and rank under both, and the move, the systems of each (alternative,
        measure) sorted by ``|move|``, largest first (``measure``: the label; the argument may
        be the label or ``str(measure)``).
        """
        part = self.moves[self.moves["alternative"].isin(self._chosen(alternative))]
        if measure is not None:
            part = part[part["measure"] == self._measure(measure)]
        part = part.assign(_abs=part["move"].abs())
        keys = ["alternative", "measure"]
        ordered = part.sort_values(keys + ["_abs", "system"], ascending=[True, True, False, True], kind="stable")
        rank = {a: i for i, a in enumerate(self.alternatives)}
        position = {m: i for i, m in enumerate(self.measures)}
        order = np.lexsort((-ordered["_abs"].to_numpy(), ordered["measure"].map(position).to_numpy(),
                            ordered["alternative"].map(rank).to_numpy()))
        return self._named(ordered.iloc[order].drop(columns="_abs").reset_index(drop=True))

    def robustness(self, statistic: str = "tau", alternative: Any = None) -> pd.DataFrame:
        """Measures of each family, most assessor-robust first.

        Measures of each family, most assessor-robust first, by ``statistic`` averaged over the
        alternatives (``alternative``: one name, or several, to average over those only).

        For ``'tau'``: ``tau_se``, ``tau_low``/``tau_high``, the bootstrap standard error and normal
        interval of the mean tau (the mean over the alternatives on each replicate), and ``outperforms``/``better_than``: the
        measures of the family whose mean tau it beats significantly (the simultaneous bootstrap
        test of the module docstring, p < alpha); a difference that is not significant is a tie.
        """
        if statistic not in STATISTICS and statistic not in ("consistency_alternative", "significant_alternative"):
            raise ParameterError(f"statistic must be one of {STATISTICS}, got {statistic!r}")
        chosen = self._chosen(alternative)
        part = self.agreement[self.agreement["alternative"].isin(chosen)]
        means = part.groupby("measure")[[statistic]].mean()
        higher = statistic not in LOWER_IS_BETTER
        out = robustness.family_ranking(means, statistic, self.groups, self.labels, higher)
        raw = [self._measure(label) for label in out["measure"]]          # the table names them by label
        if statistic == "tau":
            position = {m: i for i, m in enumerate(self.measures)}
            rows = np.mean([self.replicates[a] for a in chosen], axis=0)               # (B, M)
            estimate = means.loc[self.measures, "tau"].to_numpy()
            se, low, high = normal_interval(estimate, rows, self.level)
            for offset, (column, values) in enumerate((("tau_se", se), ("tau_low", low), ("tau_high", high)), 1):
                out.insert(out.columns.get_loc("tau") + offset, column, [values[position[m]] for m in raw])
            beats: dict[str, list[str]] = {}
            for members in self.groups.values():
                cols = [position[m] for m in members]
                observed = means.loc[members, "tau"].to_numpy()
                p = simultaneous_p_values(rows[:, cols], observed)
                for i, m in enumerate(members):
                    beats[m] = [o for j, o in enumerate(members) if observed[i] > observed[j] and p[i, j] < self.alpha]
            out["outperforms"] = [len(beats[m]) for m in raw]
            out["better_than"] = [", ".join(self.labels.get(b, b) for b in beats[m]) for m in raw]
        out["judged"] = self.judged
        out["alternatives"] = len(chosen)
        return out

    def p_values(self, group: Hashable, alternative: Any = None) -> pd.DataFrame:
        """The simultaneous test's adjusted p-values between the measures of one family.

        The simultaneous test's adjusted p-values between the measures of one family (the mean
        tau over the alternatives, as :meth:`robustness`).
        """
        if group not in self.groups:
            raise NotFoundError(f"no family {group!r}; the families are {list(self.groups)}")
        chosen = self._chosen(alternative)
        members = self.groups[group]
        position = [self.measures.index(m) for m in members]
        rows = np.mean([self.replicates[a] for a in chosen], axis=0)[:, position]
        observed = self.agreement[self.agreement["alternative"].isin(chosen)].groupby("measure")["tau"].mean()
        labels = [self.labels.get(m, m) for m in members]
        return pd.DataFrame(simultaneous_p_values(rows, observed.loc[members].to_numpy()), index=labels,
                            columns=labels)

    def plot(self, statistic: str = "tau", **kwargs):
        """``statistic`` of every measure under every alternative, one panel per family.

        ``statistic`` of every measure under every alternative (with the bootstrap interval for
        tau), one panel per family, one colour per aggregation. Returns the Figure.
        """
        from ir_cwla.meta.robustness_plots import plot_assessors

        return plot_assessors(self, statistic=statistic, **kwargs)


# -- the analysis --------------------------------------------------------------------------
def check_judged(judged: Any, what: str = "judged") -> str:
    """``judged`` checked against :data:`JUDGED`; a :class:`ParameterError` otherwise."""
    if judged not in JUDGED:
        raise ParameterError(f"{what} must be one of {JUDGED}, got {judged!r}")
    return str(judged)


def _alternatives(alternatives: Any) -> dict[str, pd.DataFrame]:
    """``{name: checked qrels frame}``: a mapping name -> qrels, a list of qrels, or one qrels."""
    if isinstance(alternatives, (str, os.PathLike, pd.DataFrame)):
        alternatives = [alternatives]
    out = as_qrels_mapping(alternatives, "alternatives")
    if not out:
        raise ParameterError("alternatives: give at least one alternative qrels")
    return out


def _union(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """The (topic, doc_id) pairs of all the qrels, each once (the first qrels' grade), sorted."""
    stacked = pd.concat([f[["query_id", "doc_id", "relevance"]] for f in frames], ignore_index=True)
    stacked = stacked.assign(query_id=stacked["query_id"].astype(str), doc_id=stacked["doc_id"].astype(str))
    first = stacked.drop_duplicates(["query_id", "doc_id"], keep="first")
    return first.sort_values(["query_id", "doc_id"], kind="stable").reset_index(drop=True)


def _restricted(frame: pd.DataFrame, union: Any, keep: np.ndarray) -> pd.DataFrame:
    """The lines of a qrels frame whose judgment (in ``union``'s numbering) ``keep`` marks, in their order."""
    topic_idx = union.topic_index.get_indexer(frame["query_id"].astype(str).to_numpy())
    ids = union.judgment_ids(topic_idx, frame["doc_id"].astype(str).to_numpy())
    return frame[keep[ids]]


def _check_ranking(means: np.ndarray, measures: Sequence[str], reference: str, alternative: str) -> None:
    tau = kendall.tau_b_rows(means, means)
    constant = [m for m, t in zip(measures, tau) if np.isnan(t)]
    if constant:
        raise DataError(f"measures {constant} give every system the same mean score under {reference} on the topics "
                        f"of {alternative}: there is no ranking to compare; drop them")


def _check_shared_pairs(reference: pd.DataFrame, other: pd.DataFrame, ref_name: str, name: str,
                        judged_only: bool = False) -> None:
    """A :class:`DataError` if the two qrels list no (topic, doc_id) pair in common (``judged_only``: none at all).

    It says so when their topic ids differ only in how they are written (``01`` and ``1``).
    """
    def pairs(frame: pd.DataFrame) -> pd.MultiIndex:
        return pd.MultiIndex.from_arrays([frame["query_id"].astype(str), frame["doc_id"].astype(str)])

    if not judged_only and len(pairs(reference).intersection(pairs(other))):
        return
    hint = "are they qrels of the same topics and documents?"
    ours, theirs = set(reference["query_id"].astype(str)), set(other["query_id"].astype(str))
    if not ours & theirs and {t.lstrip("0") for t in ours} & {t.lstrip("0") for t in theirs}:
        hint = (f"their topic ids are written differently: {min(ours)!r} in {ref_name}, {min(theirs)!r} in {name}; "
                "map them with --alt-topic-map")
    raise DataError(f"qrels {ref_name} and {name} share no judged (topic, doc_id) pair: there is nothing to "
                    f"compare ({hint})")


def assessor_variation(runs: Runs, qrels: Any, alternatives: Any, measures: Sequence[Any], *,
                       judged: str = "shared", test_trials: int = 2000, splits: int = 200, bootstrap: int = 500,
                       seed: streams.Seed = 0, alpha: float = 0.05, persistence: float = agreement.PERSISTENCE,
                       groups: Groups = None, labels: naming.Labels = None, reference_name: Optional[str] = None,
                       executor: Any = None, n_jobs: Optional[int] = None, scheduler: Optional[str] = None,
                       progress: bool = True, grade_map: Any = None) -> AssessorVariation:
    """How each measure's ranking of the systems changes when other assessors judge.

    Parameters
    ----------
    runs : ``{name: run}``, a list of TREC run files or a directory of them (as
        :func:`ir_cwla.meta.evaluate`).
    qrels : the reference qrels (a TREC file, a frame, an ``irds:`` id: anything
        :func:`ir_cwla.io.as_qrels_frame` reads), e.g. NIST's.
    alternatives : qrels of other assessors: a mapping ``{name: qrels}``, a list of qrels (named
        by their file names) or one qrels.
    measures : ir-measures measures or their names; C/W/L/A measures are re-graded by the engine
        without ranking again, others (e.g. ``nDCG@10``) scored by ir-measures.
    judged : ``'shared'`` (both qrels restricted to the pairs both judged) or ``'policy'`` (each
        as it is, the measure's unjudged policy for the rest); module docstring.
    test_trials : permutations of the randomised Tukey HSD test of the discriminative power.
    splits : random topic halves of the consistency.
    bootstrap : topic resamples of the intervals and of the paired test.
    seed : int or ``SeedSequence``: every random draw is reproducible from it, on every executor
        and whatever the row order of the inputs.
    alpha : significance level of the tests; the intervals have level ``1 - alpha``.
    persistence : RBO's ``p``.
    groups : families of measures compared with each other (e.g. ``meta.browsing_model``).
    labels : display names of the measures.
    reference_name : how tables name the reference (default: its file name, or ``'reference'``).
    executor, n_jobs, scheduler : where the tests, splits and resamples run (default in-process).
    progress : show tqdm progress bars.
    grade_map : the alternatives' grades mapped before use (``{5: 3}`` or ``{name: {5: 3}}``); a
        grade outside the reference's scale that is not mapped is an error (:mod:`ir_cwla.meta.grades`).
    """
    judged = check_judged(judged)
    test_trials, splits, bootstrap, alpha, persistence, root, workers = checked_settings(
        test_trials, splits, bootstrap, alpha, persistence, seed, executor, n_jobs, scheduler)
    parsed, _ = as_measures(measures)
    ref_name = reference_name or qrels_name(qrels, "reference")
    reference = read_qrels(qrels, parsed)
    others = _alternatives(alternatives)
    sources = dict(alternatives) if isinstance(alternatives, Mapping) else {}
    others = check_scales(reference, others, grade_map, sources, ref_name, say_narrower=False)
    for name, frame in others.items():
        check_grades_for_backends(frame, parsed, name)
        _check_shared_pairs(reference, frame, ref_name, name)       # before the runs are scored (and warned about)
    collection = rescoring.prepare(runs, _union([reference, *others.values()]), measures)
    n_s = len(collection.systems)
    if n_s < 2:
        raise DataError(f"need at least 2 systems, got {n_s}: {list(collection.systems)}")
    measures_ = list(collection.measures)
    families = resolve_groups(measures_, groups)          # a bad groups= fails before the work, not after
    labels_ = naming.resolve_labels(measures_, labels)
    union = collection.qrels
    max_rels = [m["max_rel"] for m in collection.parsed if "max_rel" in m.params]
    ref_grading = union.grades_from(reference)
    ref_mask = ref_grading.mask
    topic_of = union.judgment_topic
    n_topics = len(collection.topics)

    def variant(frame: pd.DataFrame, what: str):
        """The qrels ``frame`` as a re-grading of the union (R summed in the frame's own order)."""
        graded = union.regraded(*union.grades_from(frame))
        for max_rel in max_rels:
            try:
                graded.check_max_rel(max_rel)
            except MeasureError as ex:
                raise MeasureError(f"qrels {what}: {ex}") from None
        return graded

    whole_reference = variant(reference, ref_name)
    reference_cube = collection.cube(qrels=whole_reference) if judged == "policy" else None
    judged_ref = np.bincount(topic_of[ref_mask], minlength=n_topics)

    plans: list[dict] = []
    for name, frame in others.items():
        mask = union.grades_from(frame).mask
        both = mask & ref_mask
        judged_alt = np.bincount(topic_of[mask], minlength=n_topics)
        judged_both = np.bincount(topic_of[both], minlength=n_topics)
        if not both.any():
            _check_shared_pairs(reference, frame, ref_name, name, judged_only=True)
        if judged == "shared":
            compared = np.flatnonzero(judged_both > 0)
        else:
            compared = np.flatnonzero((judged_alt > 0) & (judged_ref > 0))
        left_out = np.flatnonzero((judged_alt > 0) & (judged_ref == 0))
        if len(left_out):
            warnings.warn(f"{name}: {len(left_out)} topic(s) that {ref_name} does not judge are left out (e.g. "
                          f"{collection.topics[left_out[0]]!r})", InputWarning, stacklevel=2)
        if len(compared) < 2:
            raise DataError(f"{name} and {ref_name} judge {len(compared)} topic(s) in common: comparing rankings "
                            "needs at least 2")
        if judged == "shared":
            # each qrels cut down to the pairs both judged, in its own line order
            ref_cube = collection.cube(qrels=variant(_restricted(reference, union, both), ref_name), topics=compared)
            alt_cube = collection.cube(qrels=variant(_restricted(frame, union, both), name), topics=compared)
        else:
            assert reference_cube is not None
            ref_cube = reference_cube[:, compared]
            alt_cube = collection.cube(qrels=variant(frame, name), topics=compared)
        _check_ranking(ref_cube.mean(axis=1), measures_, ref_name, name)
        plans.append({"name": name, "topics": compared, "reference": ref_cube, "other": alt_cube,
                      "coverage": {"alternative": name, "judged": judged, "topics": len(compared),
                                   "topics_left_out": len(left_out),
                                   "judged_reference": int(judged_ref[compared].sum()),
                                   "judged_alternative": int(judged_alt[compared].sum()),
                                   "judged_both": int(judged_both[compared].sum())}})
    return _variation(plans, measures_, list(collection.systems), list(collection.topics), families, labels_,
                      ref_name, judged, alpha, test_trials, splits, bootstrap, seed, root, workers, persistence,
                      progress)


def _variation(plans: list[dict], measures_: list[str], system_names: list[str], topic_names: list[str],
               families: dict[Hashable, list[str]], labels_: dict[str, str], ref_name: str, judged: str, alpha: float,
               test_trials: int, splits: int, bootstrap: int, seed: Any, root: Any, workers: Any, persistence: float,
               progress: bool) -> AssessorVariation:
    """The statistics of every (alternative, measure) of the plans (each its two cubes on its topics)."""
    n_m, n_s = len(measures_), len(system_names)
    by_size: dict[int, list[int]] = {}
    for k, plan in enumerate(plans):
        by_size.setdefault(len(plan["topics"]), []).append(k)
    significant: dict[int, np.ndarray] = {}
    consistency_means: dict[int, np.ndarray] = {}
    replicates: dict[int, np.ndarray] = {}
    replicates_ap: dict[int, np.ndarray] = {}
    undefined_splits = 0
    for members in by_size.values():
        stack = np.concatenate([np.concatenate([plans[k]["reference"], plans[k]["other"]]) for k in members])
        p = tukey.stack_p_values(stack, test_trials, root, workers, what=f"Tukey HSD ({len(members)} x 2 qrels)",
                                 progress=progress)
        counts = (p < alpha).sum(axis=1).reshape(len(members), 2, n_m)
        taus = split_matrix(stack, splits, root, workers, progress=progress)
        undefined_splits += int(np.isnan(taus).sum())
        means = np.where(np.isnan(taus), 0.0, taus).mean(axis=0).reshape(len(members), 2, n_m)
        boot = np.empty((bootstrap, len(members), n_m, 2))
        data = _Bootstrap(np.stack([plans[k]["reference"] for k in members]),
                          np.stack([plans[k]["other"] for k in members]))
        tasks = montecarlo.plan(root, streams.ASSESSOR_STREAM, bootstrap, streams.CHUNK, len(members),
                                workers.parallelism)

        def store(task: montecarlo.Task, result: np.ndarray, boot: np.ndarray = boot) -> None:
            start = task.chunks[0][0] * streams.CHUNK
            boot[start:start + task.trials, list(task.items)] = result

        montecarlo.run(workers, _bootstrap_task, data, tasks, store, what="assessor bootstrap", progress=progress)
        for i, k in enumerate(members):
            significant[k], consistency_means[k], replicates[k] = counts[i], means[i], boot[:, i, :, 0]
            replicates_ap[k] = boot[:, i, :, 1]
    if undefined_splits:
        warnings.warn(f"{undefined_splits} (split, measure) cases of the consistency with one half tying all systems "
                      "count as tau = 0", UndefinedStatisticWarning, stacklevel=3)

    rows, move_rows, degenerate, undefined_boot, undefined_r = [], [], 0, 0, 0
    systems = np.asarray(system_names, dtype=object)
    for k, plan in enumerate(plans):
        ref_means, alt_means = plan["reference"].mean(axis=1), plan["other"].mean(axis=1)      # (M, S)
        stats = robustness.compare(ref_means, alt_means, persistence)
        degenerate += int(stats["degenerate"].sum())
        cells_ref = plan["reference"].reshape(n_m, -1)
        cells_alt = plan["other"].reshape(n_m, -1)
        pearson, spearman = pearson_rows(cells_ref, cells_alt), spearman_rows(cells_ref, cells_alt)
        undefined_r += int(np.isnan(pearson).sum())
        rank_ref, rank_alt = robustness.rank_positions(ref_means), robustness.rank_positions(alt_means)
        move = rank_alt - rank_ref
        largest = np.argmax(np.abs(move), axis=1)                   # the first system by name among equals
        boot = replicates[k]
        undefined_boot += int(np.isnan(boot).sum())
        boot = np.where(np.isnan(boot), 0.0, boot)
        replicates[k] = boot
        se, low, high = normal_interval(stats["tau"], boot, 1.0 - alpha)
        boot_ap = replicates_ap[k]
        undefined_boot += int(np.isnan(boot_ap).sum())
        boot_ap = np.where(np.isnan(boot_ap), 0.0, boot_ap)
        replicates_ap[k] = boot_ap
        se_ap, low_ap, high_ap = normal_interval(stats["tau_ap"], boot_ap, 1.0 - alpha)
        rows.append(pd.DataFrame({
            "alternative": plan["name"], "measure": measures_, "topics": len(plan["topics"]),
            "tau": stats["tau"], "tau_se": se, "tau_low": low, "tau_high": high, "tau_ap": stats["tau_ap"],
            "tau_ap_se": se_ap, "tau_ap_low": low_ap, "tau_ap_high": high_ap, "rbo": stats["rbo"],
            "abs_change": stats["abs_change"], "rel_change": stats["rel_change"],
            "pearson": pearson, "spearman": spearman,
            "max_rank_move": np.abs(move)[np.arange(n_m), largest], "moved_system": systems[largest],
            "moved_by": move[np.arange(n_m), largest], "mean_abs_rank_move": np.abs(move).mean(axis=1),
            "significant_reference": significant[k][0], "significant_alternative": significant[k][1],
            "consistency_reference": consistency_means[k][0], "consistency_alternative": consistency_means[k][1]}))
        move_rows.append(pd.DataFrame({
            "alternative": plan["name"], "measure": np.repeat(measures_, n_s), "system": np.tile(systems, n_m),
            "mean_reference": ref_means.ravel(), "mean_alternative": alt_means.ravel(),
            "rank_reference": rank_ref.ravel(), "rank_alternative": rank_alt.ravel(), "move": move.ravel()}))
    robustness.warn_degenerate(degenerate, len(plans) * n_m, "(alternative, measure) rankings")
    if undefined_r:
        warnings.warn(f"{undefined_r} (alternative, measure) per-topic correlations are undefined (constant scores): "
                      "NaN", UndefinedStatisticWarning, stacklevel=3)
    if undefined_boot:
        warnings.warn(f"{undefined_boot} bootstrap (replicate, measure, statistic) cases tie every system: counted as "
                      "tau = 0 (tau_AP = 0)",
                      UndefinedStatisticWarning, stacklevel=3)
    table = pd.concat(rows, ignore_index=True)
    for column in ("max_rank_move", "moved_by", "significant_reference", "significant_alternative"):
        table[column] = table[column].astype(np.int64)
    return AssessorVariation(
        agreement=table, moves=pd.concat(move_rows, ignore_index=True),
        coverage=pd.DataFrame([plan["coverage"] for plan in plans]),
        replicates={plan["name"]: replicates[k] for k, plan in enumerate(plans)}, measures=measures_,
        alternatives=[plan["name"] for plan in plans], reference=ref_name, judged=judged, groups=families,
        alpha=alpha, test_trials=test_trials, splits=splits, bootstrap=bootstrap, seed=seed, persistence=persistence,
        labels=labels_, topics={plan["name"]: [topic_names[i] for i in plan["topics"]] for plan in plans},
        replicates_tau_ap={plan["name"]: replicates_ap[k] for k, plan in enumerate(plans)})


def score_variation(reference: Any, alternatives: Any, measures: Optional[Sequence[Any]] = None, *,
                    test_trials: int = 2000, splits: int = 200, bootstrap: int = 500, seed: streams.Seed = 0,
                    alpha: float = 0.05, persistence: float = agreement.PERSISTENCE, groups: Groups = None,
                    labels: naming.Labels = None, reference_name: str = "reference", executor: Any = None,
                    n_jobs: Optional[int] = None, scheduler: Optional[str] = None,
                    progress: bool = True) -> AssessorVariation:
    """:func:`assessor_variation` from per-topic scores, where the runs themselves are not available.

    ``reference``: the per-query frame (``name, qid, measure, value``) of the systems under the
    reference qrels, e.g. ``trec_eval -q`` files read by :func:`ir_cwla.meta.read_score_files`;
    ``alternatives``: ``{name: per-query frame}`` of the same systems under other assessors' qrels.
    Each alternative is compared on the topics both frames score (the others are left out with
    one :class:`~ir_cwla.errors.InputWarning` naming how many); the statistics, intervals and
    random streams are those of :func:`assessor_variation`, whose table says ``judged='scores'``.
    """
    from ir_cwla.analysis import frame as frames

    test_trials, splits, bootstrap, alpha, persistence, root, workers = checked_settings(
        test_trials, splits, bootstrap, alpha, persistence, seed, executor, n_jobs, scheduler)
    if isinstance(alternatives, pd.DataFrame) or not hasattr(alternatives, "items") or not alternatives:
        raise ParameterError("alternatives: a mapping {name: per-query frame} of at least one alternative")
    found = [str(m) for m in pd.unique(reference["measure"])]
    wanted = found if measures is None else [str(m) for m in measures]
    from ir_cwla.meta.twosets import resolve_measures

    wanted = resolve_measures(wanted, found)
    ref_cube = frames.to_cube(reference[reference["measure"].astype(str).isin(wanted)])
    measures_ = list(ref_cube.measures)
    plans: list[dict] = []
    for name, frame in alternatives.items():
        name = str(name)
        missing = [m for m in measures_ if m not in set(map(str, pd.unique(frame["measure"])))]
        if missing:
            raise DataError(f"alternative {name} has no scores for {missing[:5]}; pass measures= to compare the "
                            "measures both hold")
        alt_cube = frames.to_cube(frame[frame["measure"].astype(str).isin(measures_)])
        if alt_cube.systems != ref_cube.systems:
            differ = sorted(set(alt_cube.systems) ^ set(ref_cube.systems))
            raise DataError(f"alternative {name} and {reference_name} score different systems (differ in "
                            f"{differ[:5]})")
        shared = sorted(set(alt_cube.topics) & set(ref_cube.topics))
        if len(shared) < 2:
            raise DataError(f"{name} and {reference_name} score {len(shared)} topic(s) in common: comparing rankings "
                            "needs at least 2 (topics of one collection judged by two assessors; for disjoint topics "
                            "use meta.disjoint_agreement)")
        left_out = len(set(alt_cube.topics) | set(ref_cube.topics)) - len(shared)
        if left_out:
            warnings.warn(f"{name}: {left_out} topic(s) scored under only one of {name} and {reference_name} are left "
                          "out", InputWarning, stacklevel=2)
        ref_part = ref_cube.values[:, [ref_cube.topics.index(t) for t in shared]]
        alt_part = alt_cube.values[:, [alt_cube.topics.index(t) for t in shared]]
        _check_ranking(ref_part.mean(axis=1), measures_, reference_name, name)
        index = [ref_cube.topics.index(t) for t in shared]
        plans.append({"name": name, "topics": index, "reference": ref_part, "other": alt_part,
                      "coverage": {"alternative": name, "judged": "scores", "topics": len(shared),
                                   "topics_left_out": left_out}})
    families = resolve_groups(measures_, groups)
    labels_ = naming.resolve_labels(measures_, labels)
    return _variation(plans, measures_, list(ref_cube.systems), list(ref_cube.topics), families, labels_,
                      reference_name, "scores", alpha, test_trials, splits, bootstrap, seed, root, workers,
                      persistence, progress)


# -- the criterion ------------------------------------------------------------------------------
_JUDGED_TEXT = {"shared": "both qrels restricted to the pairs both judged (judged='shared')",
                "policy": "each qrels as it is, a document one of them did not judge scored by the measure's "
                          "unjudged policy (judged='policy')",
                "scores": "the per-topic scores given for each (no qrels: judged='scores')"}


def _section(result: AssessorVariation, summary: pd.DataFrame) -> list:
    coverage = result.coverage.copy()
    return [criteria.Text(f"Every run scored with the reference qrels ({result.reference}) and with each alternative "
                          f"({', '.join(result.alternatives)}), {_JUDGED_TEXT[result.judged]}, on the topics both "
                          "judge; the system ranking under the alternative compared with the reference's (Kendall's "
                          f"tau, tau_AP, RBO), with a {result.level:.0%} bootstrap (normal) interval over the topics "
                          f"({result.bootstrap} resamples, seed {result.seed}). (k): keeps the reference ranking "
                          "significantly better than k measures of its family (simultaneous bootstrap test, alpha = "
                          f"{result.alpha:g}); other differences are ties. Also: Pearson and Spearman correlation of "
                          "the per-topic scores over the (system, topic) cells, the system that moves most, and the "
                          f"significant system pairs (randomised Tukey HSD, {result.test_trials} trials) and "
                          f"consistency (mean tau over {result.splits} topic halves) under both, with the same seed."),
            criteria.Figure(result.plot, "tau between the reference ranking and each alternative's, per measure",
                            "assessors.png"),
            criteria.Table(summary, "robustness to a change of assessor (mean tau over the alternatives, best first)",
                           "assessors_robustness.csv"),
            criteria.Table(coverage, "topics and judged pairs compared per alternative", "assessors_coverage.csv",
                           precision=0),
            criteria.Table(result.table(), "agreement with the reference, per alternative and measure",
                           "assessors.csv")]


def _judges_table(result: AssessorVariation) -> pd.DataFrame:
    """Per measure, the alternatives ranked by tau (best first) with its interval: one row each."""
    table = result.table()
    order = np.lexsort((table["alternative"].to_numpy(), -table["tau"].to_numpy(),
                        table["measure"].map({result.labels.get(m, m): i for i, m in enumerate(result.measures)})
                        .to_numpy()))
    out = table.iloc[order][["measure", "alternative", "topics", "tau", "tau_low", "tau_high", "tau_ap",
                              "tau_ap_low", "tau_ap_high"]].reset_index(drop=True)
    out.insert(1, "rank", out.groupby("measure", sort=False).cumcount() + 1)
    return out


def _sections(result: AssessorVariation, summary: pd.DataFrame) -> list:
    blocks = _section(result, summary)
    if len(result.alternatives) > 1:
        blocks.append(criteria.Table(_judges_table(result), "the alternatives ranked by their tau with the reference's "
                                     "ranking, per measure (best first; intervals as above)", "assessors_judges.csv"))
    return blocks


GRADE_MAP = criteria.Option("grade_map", None, "alternative qrels: grades mapped before use (GRADE=GRADE pairs, e.g. "
                            "5=3,10=3); a grade outside the reference's scale is an error otherwise",
                            parse=parse_grade_map, check=check_grade_map, metavar="G=G,...")

CRITERION = criteria.register_criterion(criteria.Criterion(
    "assessor_variation", "robustness to a change of assessor",
    "Does a measure rank the systems the same way when other assessors judge (Voorhees 2000)?",
    compute=lambda inputs, judged, test_trials, splits, bootstrap, grade_map: assessor_variation(
        inputs.runs, inputs.qrels, inputs.alternatives, inputs.measures, judged=judged, test_trials=test_trials,
        splits=splits, bootstrap=bootstrap, grade_map=grade_map, **criteria.shared_settings(inputs)),
    summary=lambda result, inputs, **options: result.robustness("tau"),
    section=_sections, needs=("runs", "qrels", "alternatives"),
    options=(criteria.Option("judged", "shared", "alternative qrels: compare on the pairs both judged ('shared') or "
                             "each qrels as it is, unjudged documents under the measure's policy ('policy')",
                             cli="alt_judged", check=check_judged, metavar="{shared,policy}"),
             criteria.Option("test_trials", 2000, "permutations of the randomised Tukey HSD tests",
                             check=streams.check_trials),
             criteria.Option("splits", 200, "alternative qrels: random topic halves of the consistency under each",
                             cli="alt_splits", check=streams.check_trials),
             criteria.Option("bootstrap", 500, "alternative qrels: topic resamples of the intervals and paired tests",
                             cli="alt_bootstrap", check=streams.check_trials), GRADE_MAP), best=("tau", True), order=60), replace=True)


def _same_topic_scores(inputs: Any) -> dict[str, pd.DataFrame]:
    """The alternative scores that share topics with the reference's (the others are disjoint_agreement's)."""
    topics = set(inputs.per_query["qid"].astype(str))
    return {n: f for n, f in (inputs.alternative_scores or {}).items()
            if topics & set(f["qid"].astype(str))}


SCORES_CRITERION = criteria.register_criterion(criteria.Criterion(
    "score_variation", "robustness to a change of assessor, from per-topic scores",
    "Does a measure rank the systems the same way under another assessor's per-topic scores of the same topics?",
    compute=lambda inputs, test_trials, splits, bootstrap: score_variation(
        inputs.per_query, _same_topic_scores(inputs), inputs.measures or None, test_trials=test_trials, splits=splits,
        bootstrap=bootstrap, labels=None, **criteria.shared_settings(inputs)),
    summary=lambda result, inputs, **options: result.robustness("tau"),
    section=_sections, needs=("alternative_scores",), applies=lambda inputs: bool(_same_topic_scores(inputs)),
    options=(criteria.Option("test_trials", 2000, "permutations of the randomised Tukey HSD tests",
                             check=streams.check_trials),
             criteria.Option("splits", 200, "alternative qrels: random topic halves of the consistency under each",
                             cli="alt_splits", check=streams.check_trials),
             criteria.Option("bootstrap", 500, "alternative qrels: topic resamples of the intervals and paired tests",
                             cli="alt_bootstrap", check=streams.check_trials)), order=61), replace=True)

