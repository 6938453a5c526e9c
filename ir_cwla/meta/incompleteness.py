"""Robustness to incomplete judgments (Buckley & Voorhees 2004; Yilmaz & Aslam 2006; Sakai 2007).

A measure is robust to incomplete judgments when it ranks the systems (nearly) as it does
on the full qrels after most judgments are thrown away. For each fraction ``f`` and trial,
the qrels are cut down to a random share ``f`` of each topic's judgments, every system is
scored again, and the system ranking is compared with the one on the full qrels (Kendall's
tau-b, tau_AP with the full ranking as the truth, RBO_ext, and the mean absolute change of
the systems' mean scores; :mod:`ir_cwla.meta.robustness`).

**Sampling (stratified by relevance).** Relevant judgments (grade >= ``relevant``) and the
others are sampled separately within each topic, keeping ``round(f * n)`` of each stratum
of ``n`` judgments (halves rounded up), at least one relevant judgment where the topic has
one and at least one judgment of a topic without relevant ones: a topic never vanishes and
the share of relevant documents stays what it was. In trial ``t`` every judgment gets a
uniform random priority (drawn in the order of judgments, by topic then doc_id)
and each stratum keeps its judgments of lowest priority, so the subsets of one trial are
nested across fractions (the 10% qrels lie inside the 20% qrels), as in Buckley & Voorhees'
experiments, and the same trial gives the same subsets whatever other fractions are asked
for. Trial ``t`` draws from ``SeedSequence(seed, spawn_key=(INCOMPLETENESS_STREAM, t))``
(:mod:`ir_cwla.analysis.streams`): exactly reproducible on every executor and independent of the
row order of the runs and qrels.

**Pool depth.** The deterministic variant keeps only the judgments of documents that at least
one run ranks within depth ``d``: the qrels a depth-``d`` pool of these runs would have
judged (of those the qrels hold).

Scores are recomputed without ranking any run again (:mod:`ir_cwla.meta.rescoring`).
"""
from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional, Union

import numpy as np
import pandas as pd

from ir_cwla.analysis import montecarlo, naming, streams
from ir_cwla.analysis.executors import get_executor
from ir_cwla.analysis.frame import Groups, resolve_groups
from ir_cwla.errors import DataError, ParameterError
from ir_cwla.meta import agreement, criteria, rescoring, robustness
from ir_cwla.meta.evaluation import Runs

#: Fractions of each topic's judgments kept by default.
FRACTIONS = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
#: Pool depths of the deterministic variant by default.
DEPTHS = (1, 3, 5, 10, 20)


# -- kernels (numpy in, numpy out) ---------------------------------------------------------
def strata(judgment_topic: np.ndarray, grades: np.ndarray, relevant: float) -> np.ndarray:
    """Stratum of each judgment: ``2 * topic + 1`` if relevant (grade >= ``relevant``), else ``2 * topic``."""
    return 2 * np.asarray(judgment_topic, dtype=np.int64) + (np.asarray(grades) >= relevant)


def keep_counts(fractions: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Judgments kept per fraction and stratum, ``(F, 2T)``, from the stratum sizes ``(2T,)``.

    ``floor(f n + 1/2)``, at least one relevant judgment where a topic has one, and at least
    one judgment of a topic without relevant ones.
    """
    fractions = np.asarray(fractions, dtype=np.float64)[:, None]
    sizes = np.asarray(sizes, dtype=np.int64)
    k = np.minimum(np.floor(fractions * sizes[None, :] + 0.5).astype(np.int64), sizes[None, :])
    rel, non = sizes[1::2], sizes[0::2]
    k[:, 1::2] = np.where(rel > 0, np.maximum(k[:, 1::2], 1), 0)
    k[:, 0::2] = np.where((rel == 0) & (non > 0), np.maximum(k[:, 0::2], 1), k[:, 0::2])
    return k


def subsample(priority: np.ndarray, stratum: np.ndarray, position: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Stratified random masks ``(F, J)`` of the judgments kept.

    Masks ``(F, J)``: in each stratum, the ``counts[f, stratum]`` judgments of lowest
    priority (ties, of probability zero, broken by the ``position`` in the judgment order).
    """
    order = np.lexsort((position, priority, stratum))
    s_sorted = stratum[order]
    first = np.r_[0, np.flatnonzero(s_sorted[1:] != s_sorted[:-1]) + 1]
    start = np.repeat(first, np.diff(np.r_[first, len(order)]))
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order)) - start
    return rank[None, :] < counts[:, stratum]


def trial_masks(seed: streams.Seed, trial: int, order: np.ndarray, stratum: np.ndarray,
                counts: np.ndarray) -> np.ndarray:
    """The masks ``(F, J)`` of trial ``trial``.

    Priorities drawn in the ``order`` of judgments from the trial's own stream.
    """
    rng = streams.chunk_rng(seed, streams.INCOMPLETENESS_STREAM, trial)
    priority = np.empty(len(order))
    priority[order] = rng.random(len(order))
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    return subsample(priority, stratum, position, counts)


# -- tasks ---------------------------------------------------------------------------------
@dataclass
class _Plan:
    collection: rescoring.Collection
    seed: np.random.SeedSequence
    order: np.ndarray
    stratum: np.ndarray
    counts: np.ndarray


def _task(plan: _Plan, task: tuple[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """One incompleteness trial as a task.

    ``('trial', t)``: means ``(F, M, S)`` and judgments kept ``(F,)`` of trial t's subsets;
    ``('depth', d)``: the same, ``(1, M, S)`` and ``(1,)``, for the depth-d pool.
    """
    kind, value = task
    if kind == "trial":
        masks = trial_masks(plan.seed, value, plan.order, plan.stratum, plan.counts)
    else:
        masks = plan.collection.pool(value)[None, :]
    return np.stack([plan.collection.means(mask) for mask in masks]), masks.sum(axis=1)


# -- result --------------------------------------------------------------------------------
@dataclass
class Incompleteness:
    """Agreement of the system rankings on reduced qrels with the ranking on the full qrels.

    ``trials``: one row per (fraction, trial, measure) with ``tau``, ``tau_ap``, ``rbo``,
    ``abs_change``, ``rel_change`` and ``judgments`` (the share of judgments kept); ``depths``: one row per
    (pool depth, measure), the same columns; ``full``: systems x measures mean scores on the
    full qrels.
    """

    trials: pd.DataFrame
    depths: pd.DataFrame
    full: pd.DataFrame
    groups: dict[Hashable, list[str]]
    n_trials: int
    seed: Any
    relevant: float
    persistence: float
    degenerate: int = 0
    labels: dict[str, str] = field(default_factory=dict)

    @property
    def measures(self) -> list[str]:
        """The measures, in the order of the full-qrels scores."""
        return list(self.full.columns)

    def _decorate(self, table: pd.DataFrame, key: str) -> pd.DataFrame:
        family = {m: g for g, members in self.groups.items() for m in members}
        table.insert(1, "group", table["measure"].map(family))
        position = {m: i for i, m in enumerate(self.measures)}
        order = table[key].to_numpy(), table["measure"].map(position).to_numpy()
        return table.iloc[np.lexsort((order[1], order[0]))].reset_index(drop=True)

    def _named(self, table: pd.DataFrame) -> pd.DataFrame:
        """``table`` with its measures named by their labels, as every table of :mod:`ir_cwla.meta`."""
        return table.assign(measure=table["measure"].map(lambda m: self.labels.get(m, m)))

    def _fraction_rows(self) -> pd.DataFrame:
        stats = list(robustness.STATISTICS) + ["judgments"]
        grouped = self.trials.groupby(["fraction", "measure"], sort=False)
        out = grouped[stats].mean().reset_index()
        out.insert(out.columns.get_loc("tau") + 1, "tau_sd", grouped["tau"].std(ddof=1).to_numpy())
        out["trials"] = self.n_trials
        return self._decorate(out, "fraction")

    def _depth_rows(self) -> pd.DataFrame:
        return self._decorate(self.depths.copy(), "depth")

    def table(self) -> pd.DataFrame:
        """One row per (fraction, measure).

        The means over trials of ``tau``, ``tau_ap``, ``rbo``, ``abs_change`` and
        ``rel_change``, the standard deviation of tau, and the share of judgments kept.
        ``measure`` is the measure's label (:func:`ir_cwla.short_name`), as in every table of
        :mod:`ir_cwla.meta`.
        """
        return self._named(self._fraction_rows())

    def depth_table(self) -> pd.DataFrame:
        """One row per (pool depth, measure).

        ``tau``, ``tau_ap``, ``rbo``, ``abs_change``, ``rel_change`` and the share of
        judgments in the pool (``measure``: its label).
        """
        return self._named(self._depth_rows())

    def robustness(self, statistic: str = "tau", kind: str = "fraction", *, test_trials: int = 2000,
                   alpha: float = 0.05) -> pd.DataFrame:
        """Measures of each family, most robust first, by ``statistic`` averaged over the fractions.

        Measures of each family, most robust first, by ``statistic`` averaged over the
        fractions (the area under its curve; ``kind='depth'``: over the pool depths).

        For fractions, ``outperforms`` counts the measures of the family it is significantly
        more robust than: a randomised Tukey HSD test (``test_trials`` permutations, p <
        ``alpha``) over the trials, each trial's value averaged over the fractions (every
        measure saw the same random subsets, so trials are paired, as the splits of the
        consistency test are).
        """
        if statistic not in robustness.STATISTICS:
            raise ParameterError(f"statistic must be one of {robustness.STATISTICS}, got {statistic!r}")
        if kind not in ("fraction", "depth"):
            raise ParameterError(f"kind must be 'fraction' or 'depth', got {kind!r}")
        higher = statistic not in ("abs_change", "rel_change")
        if kind == "depth":
            means = self._depth_rows().groupby("measure")[[statistic]].mean()
            return robustness.family_ranking(means, statistic, self.groups, self.labels, higher)
        per_trial = self.trials.pivot_table(index="trial", columns="measure", values=statistic, aggfunc="mean")
        means = per_trial.mean(axis=0).to_frame(statistic)
        return robustness.family_ranking(means, statistic, self.groups, self.labels, higher, rows=per_trial,
                                         test_trials=test_trials, alpha=alpha,
                                         seed=streams.derive(self.seed, streams.INCOMPLETENESS_STREAM))

    def plot(self, statistic: str = "tau", kind: str = "fraction", **kwargs):
        """Curves of ``statistic`` against the judgments kept, one panel per family.

        Curves of ``statistic`` against the fraction of judgments kept (``kind='depth'``: the
        pool depth), one line per measure, one panel per family. Returns the Figure.
        """
        from ir_cwla.meta.robustness_plots import plot_incompleteness

        return plot_incompleteness(self, statistic=statistic, kind=kind, **kwargs)


def check_fractions(fractions: Union[float, Sequence[float]]) -> tuple[float, ...]:
    """The fractions of judgments to keep, checked, as a tuple."""
    if isinstance(fractions, (int, float, np.floating)):
        fractions = (float(fractions),)
    out = []
    for f in fractions:
        if isinstance(f, (bool, np.bool_)) or not isinstance(f, (int, float, np.floating)) or not 0 < f <= 1:
            raise ParameterError(f"fractions must lie in (0, 1], got {f!r}")
        out.append(float(f))
    if not out:
        raise ParameterError("fractions: give at least one fraction")
    return tuple(sorted(set(out)))


def incompleteness(runs: Runs, qrels: Any, measures: Sequence[Any], fractions: Sequence[float] = FRACTIONS,
                   trials: int = 20, seed: streams.Seed = 0, *, depths: Sequence[int] = DEPTHS,
                   relevant: float = 1, persistence: float = agreement.PERSISTENCE, groups: Groups = None,
                   labels: naming.Labels = None, executor: Any = None, n_jobs: Optional[int] = None,
                   scheduler: Optional[str] = None, progress: bool = True) -> Incompleteness:
    """How well each measure ranks the systems with a fraction of the judgments.

    Parameters
    ----------
    runs
        ``{name: run}``, a list of TREC run files or a directory of them (as
        :func:`ir_cwla.meta.evaluate`).
    qrels
        A TREC qrels file or frame (as :func:`ir_cwla.meta.evaluate`).
    measures
        ir-measures measures or their names; C/W/L/A measures are re-scored by the
        engine without ranking again, others (e.g. ``nDCG@10``) by ir-measures.
    fractions
        Shares of each topic's judgments kept, in (0, 1].
    trials
        Random subsets per fraction (nested across fractions within a trial). Every trial's
        scores are kept, so ``trials`` is refused up front when they would exceed
        :data:`ir_cwla.analysis.montecarlo.MAX_RESULT_BYTES`; the first trial is timed and a
        :class:`~ir_cwla.errors.LongRunWarning` gives the estimated wall time when it is long.
    seed
        Int or ``SeedSequence``; trial ``t`` draws from its own stream, so the result is
        the same on every executor and for every row order of the inputs.
    depths
        Pool depths of the deterministic variant (``()`` to skip it).
    relevant
        The grade from which a judgment counts as relevant for the stratified sampling.
    persistence
        RBO's ``p``.
    groups
        Families of measures for the tables and panels (e.g. ``meta.browsing_model``).
    executor, n_jobs, scheduler
        Where the trials run (default in-process).
    progress
        Show tqdm progress bars.

    Raises
    ------
    ParameterError
        Fractions outside (0, 1], ``trials < 1``, depths below 1.
    DataError
        Fewer than 2 systems, or a measure that ties every system on the full qrels.
    """
    fractions = check_fractions(fractions)
    trials = streams.check_trials(trials)
    depths = robustness.check_depths(depths)

    persistence = agreement.check_persistence(persistence)
    relevant = robustness.check_relevant(relevant)
    workers = get_executor(executor, n_jobs=n_jobs, scheduler=scheduler)
    root = streams.as_seed_sequence(seed)
    collection = rescoring.prepare(runs, qrels, measures, depth=max(depths, default=0))
    if len(collection.systems) < 2:
        raise DataError(f"need at least 2 systems, got {len(collection.systems)}: {list(collection.systems)}")
    measures_ = list(collection.measures)
    # kept per trial, before any trial runs: the F x M x S mean scores, and a row of the long
    # table (about 100 bytes) per (share, measure)
    n_f, n_m, n_s = len(fractions), len(measures_), len(collection.systems)
    montecarlo.check_result_memory("incompleteness", trials, n_f * n_m * (8 * n_s + 100),
                                   f"scores and agreements ({n_f} shares x {n_m} measures x {n_s} systems)")
    families = resolve_groups(measures_, groups)          # a bad groups= fails before the work, not after
    labels_ = naming.resolve_labels(measures_, labels)

    full = collection.means()
    robustness.check_constant(full, measures_)
    qrels_ = collection.qrels
    stratum = strata(qrels_.judgment_topic, qrels_.grades, relevant)
    counts = keep_counts(np.asarray(fractions), np.bincount(stratum, minlength=2 * len(collection.topics)))
    plan = _Plan(collection, root, collection.judgment_order(), stratum, counts)

    tasks = [("trial", t) for t in range(trials)] + [("depth", d) for d in depths]
    results: list = [None] * len(tasks)

    def store(index: int, result: Any) -> None:
        results[index] = result

    montecarlo.run_tasks(workers, _task, plan, tasks, store, what="incompleteness", progress=progress)
    parts, pooled = results[:trials], results[trials:]
    reduced = np.stack([p[0] for p in parts], axis=1)                     # (F, trials, M, S)
    kept = np.stack([p[1] for p in parts], axis=1) / collection.n_judgments  # (F, trials)
    stats = robustness.compare(full, reduced, persistence)
    long = pd.DataFrame({
        "fraction": np.repeat(fractions, trials * n_m),
        "trial": np.tile(np.repeat(np.arange(trials), n_m), n_f),
        "measure": np.tile(measures_, n_f * trials),
        **{s: stats[s].ravel() for s in robustness.STATISTICS},
        "judgments": np.repeat(kept.ravel(), n_m)})
    degenerate = int(stats["degenerate"].sum())
    robustness.warn_degenerate(degenerate, stats["degenerate"].size, "(fraction, trial, measure) subsets")

    if depths:
        dstats = robustness.compare(full, np.concatenate([p[0] for p in pooled]), persistence)
        depth_frame = pd.DataFrame({
            "depth": np.repeat(depths, n_m), "measure": np.tile(measures_, len(depths)),
            **{s: dstats[s].ravel() for s in robustness.STATISTICS},
            "judgments": np.repeat([int(p[1][0]) / collection.n_judgments for p in pooled], n_m)})
        robustness.warn_degenerate(int(dstats["degenerate"].sum()), dstats["degenerate"].size,
                                   "(depth, measure) pools")
    else:
        depth_frame = pd.DataFrame(columns=["depth", "measure", *robustness.STATISTICS, "judgments"])

    return Incompleteness(trials=long, depths=depth_frame,
                          full=pd.DataFrame(full.T, index=pd.Index(collection.systems, name="name"),
                                            columns=pd.Index(measures_, name="measure")),
                          groups=families, n_trials=trials, seed=seed,
                          relevant=float(relevant), persistence=persistence, degenerate=degenerate,
                          labels=labels_)


# -- the criterion ------------------------------------------------------------------------------

def _section(result: Incompleteness, summary: pd.DataFrame) -> list:
    return [criteria.Text(f"Each topic keeps a random share of its judgments (relevant and non-relevant sampled "
                          f"apart, at least one relevant kept), {result.n_trials} trials per share; every system is "
                          "re-scored and its ranking compared with the one on the full qrels (Kendall's tau, "
                          "tau_AP, RBO). Also: only the judgments of documents some run ranks within depth d. "
                          "(k): significantly more robust than k measures of its family (randomised Tukey HSD "
                          "over the paired trials)."),
            criteria.Figure(result.plot, "tau with the full-qrels ranking against the share of judgments kept",
                            "incompleteness.png"),
            criteria.Figure(lambda: result.plot(kind="depth"), "tau against the pool depth",
                            "incompleteness_depth.png"),
            criteria.Table(summary, "robustness to incomplete judgments (mean tau over the shares, best first)",
                           "incompleteness_robustness.csv"),
            criteria.Table(result.table(), "agreement with the full-qrels ranking per share of judgments",
                           "incompleteness.csv"),
            criteria.Table(result.depth_table(), "agreement per pool depth", "incompleteness_depth.csv")]


CRITERION = criteria.register_criterion(criteria.Criterion(
    "incompleteness", "robustness to incomplete judgments",
    "Does a measure keep its ranking of the systems when only a share of the judgments is kept?",
    compute=lambda inputs, fractions, trials, depths, test_trials: incompleteness(
        inputs.runs, inputs.qrels, inputs.measures, fractions=fractions, trials=trials, depths=depths,
        groups=inputs.groups, seed=inputs.seed, executor=inputs.executor, progress=inputs.progress),
    summary=lambda result, inputs, test_trials=2000, **options: result.robustness(
        "tau", test_trials=test_trials, alpha=inputs.alpha),
    section=_section, needs=("runs", "qrels"),
    options=(criteria.Option("fractions", FRACTIONS, "shares of each topic's judgments kept",
                             parse=criteria.numbers(float), check=lambda v, what: check_fractions(v), metavar="F,F,..."),
             criteria.Option("trials", 20, "random subsets per share of judgments", cli="fraction_trials",
                             check=streams.check_tested_trials),
             criteria.Option("depths", DEPTHS, "pool depths of the depth-pooled variant", cli="pool_depths",
                             parse=criteria.numbers(int), check=robustness.check_depths,
                             metavar="D,D,..."),
             criteria.Option("test_trials", 2000, "permutations of the randomised Tukey HSD tests",
                             check=streams.check_trials)), best=("tau", True), order=40), replace=True)
