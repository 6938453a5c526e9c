"""Pooling bias, leave one run out (Zobel 1998; Büttcher, Clarke, Yeung & Soboroff 2007).

Qrels built by pooling judge the documents the pooled runs retrieved; a new system that
finds relevant documents no pooled run found is scored as if they were not relevant. The
leave-one-run-out experiment measures how much a measure penalises that: for each run and
pool depth ``d``, the judgments of the documents that run alone retrieved within depth
``d`` (no other run ranks them within ``d``) are removed, as if the run had not been
pooled; the run is scored again under the remaining qrels, while every other system keeps
its score on the full qrels. Per measure the table reports, over the runs, the mean and
largest drop of the run's mean score and of its rank position among the systems, and the
agreement (Kendall's tau-b, tau_AP, RBO_ext) between the full ranking and the ranking in
which every run has its left-out score. A measure is less biased the smaller these drops.

Removing judgments can also raise a score (fewer relevant documents to normalise by, or a
lower top grade x_max): drops are signed.
"""
from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np
import pandas as pd

from ir_cwla._text import shown
from ir_cwla.analysis import naming, streams
from ir_cwla.analysis.executors import get_executor
from ir_cwla.analysis.frame import Groups, resolve_groups
from ir_cwla.errors import DataError, ParameterError
from ir_cwla.meta import agreement, criteria, rescoring, robustness
from ir_cwla.meta.evaluation import Runs

#: Pool depth by default (the depth NIST pooled the runs of the TREC Deep Learning tracks to).
DEPTHS = (10,)


# -- kernels -------------------------------------------------------------------------------
def contributors(judgments: np.ndarray, rank: np.ndarray, depth: int, n_judgments: int) -> np.ndarray:
    """How many runs rank each judged document within ``depth``: ``(J,)``.

    judgments/rank: per cell of the stacked rankings, the judgment id (-1 unjudged) and the
    rank (0-based). A run holds a document at most once per topic.
    """
    cells = (rank < depth) & (judgments >= 0)
    return np.bincount(judgments[cells], minlength=n_judgments)


def unique_judgments(judgments: np.ndarray, owner: np.ndarray, rank: np.ndarray, depth: int,
                     counts: np.ndarray, run: int, n_judgments: int) -> np.ndarray:
    """Mask ``(J,)`` of the judged documents that run ``run`` alone ranks within ``depth``."""
    cells = (owner == run) & (rank < depth) & (judgments >= 0)
    ids = judgments[cells]
    mask = np.zeros(n_judgments, dtype=bool)
    mask[ids[counts[ids] == 1]] = True
    return mask


# -- tasks ---------------------------------------------------------------------------------
@dataclass
class _Plan:
    collection: rescoring.Collection
    counts: dict[int, np.ndarray]
    relevant: float


def _leave_out_task(plan: _Plan, task: tuple[int, int]) -> tuple[np.ndarray, int, int]:
    """``(scores (M,), unique judged, unique relevant)`` of run ``run`` without its unique judgments."""
    depth, run = task
    c = plan.collection
    unique = unique_judgments(c.ranked.judgments, c.cell_system, c.cell_rank, depth, plan.counts[depth], run,
                              c.n_judgments)
    n_unique = int(unique.sum())
    n_relevant = int((c.qrels.grades[unique] >= plan.relevant).sum())
    if not n_unique:
        return np.full(len(c.measures), np.nan), 0, 0
    return c.means(~unique, systems=[run])[:, 0], n_unique, n_relevant


# -- result --------------------------------------------------------------------------------
@dataclass
class PoolingBias:
    """Leave-one-run-out pooling bias of every measure.

    ``runs``: one row per (depth, measure, system) with the system's mean score on the full
    qrels (``full``) and without its unique judgments (``reduced``), ``drop = full -
    reduced``, its rank positions (1 = best, ties share the best position; the others keep
    their full scores) and ``rank_drop = rank_reduced - rank_full``, and how many judged and
    relevant documents it alone retrieved (``unique_judged``, ``unique_relevant``);
    ``agreement``: one row per (depth, measure) with tau, tau_ap and rbo between the full
    ranking and the leave-one-out ranking.
    """

    runs: pd.DataFrame
    agreement: pd.DataFrame
    groups: dict[Hashable, list[str]]
    relevant: float
    persistence: float
    labels: dict[str, str] = field(default_factory=dict)

    @property
    def measures(self) -> list[str]:
        """The measures, in the order of the table."""
        return list(dict.fromkeys(self.agreement["measure"]))

    def _rows(self) -> pd.DataFrame:
        grouped = self.runs.groupby(["depth", "measure"], sort=False)
        out = pd.DataFrame({
            "mean_drop": grouped["drop"].mean(), "max_drop": grouped["drop"].max(),
            "rel_drop": grouped["drop"].mean() / grouped["full"].mean(),
            "mean_rank_drop": grouped["rank_drop"].mean(), "max_rank_drop": grouped["rank_drop"].max(),
            "mean_abs_rank_change": grouped["abs_rank_change"].mean(),
            "runs_affected": grouped["unique_judged"].apply(lambda s: int((s > 0).sum())),
        }).reset_index()
        out = out.merge(self.agreement, on=["depth", "measure"], how="left", sort=False)
        family = {m: g for g, members in self.groups.items() for m in members}
        out.insert(1, "group", out["measure"].map(family))
        position = {m: i for i, m in enumerate(self.measures)}
        order = np.lexsort((out["measure"].map(position).to_numpy(), out["depth"].to_numpy()))
        return out.iloc[order].reset_index(drop=True)

    def table(self) -> pd.DataFrame:
        """One row per (depth, measure).

        Mean and max drop of score and of rank position over the runs, ``rel_drop`` (mean drop
        / mean full score), ``mean_abs_rank_change`` (a rank that rises counts as much as one
        that falls), the runs affected (with any unique judged document), and tau, tau_ap, rbo
        of the leave-one-out ranking. ``measure`` is the measure's label
        (:func:`ir_cwla.short_name`), as in every table of :mod:`ir_cwla.meta`.
        """
        out = self._rows()
        return out.assign(measure=out["measure"].map(lambda m: self.labels.get(m, m)))

    def robustness(self, statistic: str = "mean_abs_rank_change", depth: Optional[int] = None, *,
                   test_trials: int = 2000, alpha: float = 0.05, seed: Any = 0) -> pd.DataFrame:
        """Measures of each family, least biased first.

        Measures of each family, least biased first, by ``statistic`` of :meth:`table` at
        ``depth`` (default: the first depth). Drops and changes rank lower-is-better,
        tau/tau_ap/rbo higher-is-better.

        For the statistics that are means over the runs (``mean_abs_rank_change``,
        ``mean_rank_drop``, ``mean_drop``, ``rel_drop``), ``outperforms`` counts the measures of
        the family it is significantly less biased than: a randomised Tukey HSD test
        (``test_trials`` permutations with ``seed``, p < ``alpha``) over the runs as paired rows.
        """
        table = self._rows()
        if statistic not in table.columns or statistic in ("depth", "measure", "group"):
            raise ParameterError(f"statistic must be a column of table(), got {statistic!r}")
        depth = int(table["depth"].iloc[0]) if depth is None else depth
        part = table[table["depth"] == depth].set_index("measure")
        if part.empty:
            raise ParameterError(f"no results at depth {depth}; depths: {shown(sorted(set(table['depth'])))}")
        runs = self.runs[self.runs["depth"] == depth]
        per_run = {"mean_abs_rank_change": runs["abs_rank_change"], "mean_rank_drop": runs["rank_drop"],
                   "mean_drop": runs["drop"],
                   "rel_drop": runs["drop"] / runs.groupby("measure")["full"].transform("mean")}.get(statistic)
        rows = None if per_run is None else \
            runs.assign(value=per_run).pivot(index="system", columns="measure", values="value")
        return robustness.family_ranking(part, statistic, self.groups, self.labels,
                                         higher_is_better=statistic in ("tau", "tau_ap", "rbo"), rows=rows,
                                         test_trials=test_trials, alpha=alpha, seed=seed)

    def plot(self, statistic: str = "mean_abs_rank_change", **kwargs):
        """``statistic`` of :meth:`table` per measure (bars, one colour per depth), one panel per family.

        Returns the Figure.
        """
        from ir_cwla.meta.robustness_plots import plot_pooling

        return plot_pooling(self, statistic=statistic, **kwargs)


def pooling_bias(runs: Runs, qrels: Any, measures: Sequence[Any], depths: Sequence[int] = DEPTHS, *,
                 relevant: float = 1, persistence: float = agreement.PERSISTENCE, groups: Groups = None,
                 labels: naming.Labels = None, executor: Any = None, n_jobs: Optional[int] = None,
                 scheduler: Optional[str] = None, progress: bool = True) -> PoolingBias:
    """Leave-one-run-out pooling bias of every measure (Zobel 1998; Büttcher et al. 2007).

    Parameters
    ----------
    runs, qrels, measures
        As :func:`ir_cwla.meta.incompleteness`.
    depths
        Pool depths ``d``: a run's unique documents are those no other run ranks within ``d``.
    relevant
        The grade from which a unique judged document counts as relevant (reported only).
    persistence
        RBO's ``p``.
    groups, labels
        Families and display names for the tables and panels.
    executor, n_jobs, scheduler
        Where the (depth, run) tasks run (default in-process).
    progress
        Show a tqdm progress bar.
    """
    depths = robustness.check_depths(depths)
    if not depths:
        raise ParameterError("depths: give at least one pool depth")
    persistence = agreement.check_persistence(persistence)
    relevant = robustness.check_relevant(relevant)
    workers = get_executor(executor, n_jobs=n_jobs, scheduler=scheduler)
    collection = rescoring.prepare(runs, qrels, measures, depth=max(depths))
    n_s = len(collection.systems)
    if n_s < 2:
        raise DataError(f"need at least 2 systems, got {n_s}: {list(collection.systems)}")
    measures_ = list(collection.measures)
    families = resolve_groups(measures_, groups)          # a bad groups= fails before the work, not after
    labels_ = naming.resolve_labels(measures_, labels)
    full = collection.means()                                             # (M, S)
    robustness.check_constant(full, measures_)

    counts = {d: contributors(collection.ranked.judgments, collection.cell_rank, d, collection.n_judgments)
              for d in depths}
    plan = _Plan(collection, counts, float(relevant))
    tasks = [(d, s) for d in depths for s in range(n_s)]
    parts = workers.map(_leave_out_task, plan, tasks, desc="leave one run out", progress=progress)

    frames, agree = [], []
    rank_full = robustness.rank_positions(full)                              # (M, S)
    for k, d in enumerate(depths):
        block = parts[k * n_s:(k + 1) * n_s]
        reduced = np.stack([p[0] for p in block], axis=1)                # (M, S), NaN: nothing removed
        reduced = np.where(np.isnan(reduced), full, reduced)
        rank_left = robustness.rank_if_replaced(full, reduced)               # each run left out alone
        n_m = len(measures_)
        frames.append(pd.DataFrame({
            "depth": d, "measure": np.repeat(measures_, n_s), "system": np.tile(collection.systems, n_m),
            "full": full.ravel(), "reduced": reduced.ravel(), "drop": (full - reduced).ravel(),
            "rank_full": rank_full.ravel(), "rank_reduced": rank_left.ravel(),
            "rank_drop": (rank_left - rank_full).ravel(), "abs_rank_change": np.abs(rank_left - rank_full).ravel(),
            "unique_judged": np.tile([p[1] for p in block], n_m),
            "unique_relevant": np.tile([p[2] for p in block], n_m)}))
        stats = robustness.compare(full, reduced, persistence)
        robustness.warn_degenerate(int(stats["degenerate"].sum()), n_m, f"leave-one-out rankings at depth {d}")
        agree.append(pd.DataFrame({"depth": d, "measure": measures_,
                                   **{s: stats[s] for s in ("tau", "tau_ap", "rbo")}}))
    return PoolingBias(runs=pd.concat(frames, ignore_index=True), agreement=pd.concat(agree, ignore_index=True),
                       groups=families, relevant=float(relevant), persistence=persistence, labels=labels_)


# -- the criterion ------------------------------------------------------------------------------

def _section(result: PoolingBias, summary: pd.DataFrame) -> list:
    return [criteria.Text("For each run, the judged documents that no other run retrieved within depth d are removed "
                          "and the run re-scored: the drop of its score and of its rank position, over runs "
                          "(randomised Tukey HSD over the runs)."),
            criteria.Figure(result.plot, "mean |rank change| of a left-out run", "pooling_bias.png"),
            criteria.Table(summary, "pooling bias (smallest mean |rank change| first)", "pooling_bias_robustness.csv"),
            criteria.Table(result.table(), "drop of score and rank of a left-out run, per measure", "pooling_bias.csv")]


CRITERION = criteria.register_criterion(criteria.Criterion(
    "pooling_bias", "pooling bias (leave one run out)",
    "Is a run that did not contribute to the pool scored lower than it deserves, and how far does it drop?",
    compute=lambda inputs, depths, test_trials: pooling_bias(
        inputs.runs, inputs.qrels, inputs.measures, depths=depths, groups=inputs.groups,
        executor=inputs.executor, progress=inputs.progress),
    summary=lambda result, inputs, depths, test_trials: result.robustness(
        test_trials=test_trials, alpha=inputs.alpha, seed=inputs.seed),
    section=_section, needs=("runs", "qrels"),
    options=(criteria.Option("depths", DEPTHS, "pool depths", cli="bias_depths", parse=criteria.numbers(int),
                             check=robustness.check_depths, metavar="D,D,..."),
             criteria.Option("test_trials", 2000, "permutations of the randomised Tukey HSD tests",
                             check=streams.check_trials)), best=("mean_abs_rank_change", False), order=50), replace=True)
