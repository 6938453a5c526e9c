"""Ranking agreement of two topic-disjoint collections of the same systems (the SynDL design).

SynDL (Rahmani et al.) pairs TREC DL 2021's 53 NIST-judged topics with 424 *other* topics judged
by GPT-4 and asks whether the 63 runs are ranked alike. :func:`disjoint_agreement` answers it per
measure, with its uncertainty and beside what topic sampling alone would give:

* **agreement**: Kendall's tau-b (:mod:`ir_cwla.meta.kendall`) between the systems' mean scores
  on collection ``a`` and on collection ``b``, and tau_AP (Yilmaz et al. 2008,
  :mod:`ir_cwla.meta.agreement`) with ``a``'s ranking as the truth;
* **interval**: a bootstrap over the topics of both collections, each resampled on its own
  (``bootstrap`` replicates, the recipe of :mod:`ir_cwla.meta.twosets`): the bootstrap standard
  error and the normal interval ``tau -+ z_{1-alpha/2} se`` clipped to [-1, 1] (as
  :func:`ir_cwla.meta.assessor_variation`, which says why not the percentile interval);
* **null** (``null='a'``, the default: the human collection): the agreement that two collections
  of the same assessor would show. Each of ``null_trials`` replicates draws two topic sets from
  collection ``a`` alone, of the sizes ``T_a`` and ``T_b`` of the compared collections, and takes
  tau (and tau_AP, the first set as the truth) between the systems' means on them. *Where
  possible* (``T_a + T_b`` at most the null collection's topics) the two sets are disjoint random
  subsets, drawn without replacement (one Fisher-Yates permutation per replicate,
  ``Generator.permuted``, the first ``T_a`` topics and the next ``T_b``); otherwise, as for
  DL21's 53 + 424 topics from the 53 NIST ones, each set is drawn with replacement from the null
  collection (the bootstrap's plug-in of the topic population: ``Generator.integers``, ``T_a``
  then ``T_b`` positions). ``null_sets`` in the result says which. Reported: the null's median,
  its percentile interval ``((1 - level) / 2, (1 + level) / 2)`` and the one-sided Monte-Carlo
  p-value ``p = (1 + #{null <= observed}) / (1 + null_trials)`` (Phipson & Smyth 2010): a small
  p says the two collections disagree more than topic sampling within ``a`` explains.

Replicates on which a ranking ties every system (tau undefined) are left out of that statistic's
interval and null, and counted (``defined_*`` columns) with one
:class:`~ir_cwla.errors.UndefinedStatisticWarning`.

**Random streams.** Both the bootstrap (stream :data:`~ir_cwla.analysis.streams.TWO_SETS_STREAM`) and
the null (:data:`~ir_cwla.analysis.streams.DISJOINT_NULL_STREAM`) are split into chunks of
:data:`~ir_cwla.analysis.streams.CHUNK` replicates, chunk ``c`` drawn from
``default_rng(SeedSequence(seed, spawn_key=(stream, c)))``, so a result depends only on the seed
and the data, never on the executor; every measure sees the same replicates, and alternatives of
the same topic counts are resampled alike.
"""
from __future__ import annotations

import warnings
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any, Optional, Union

import numpy as np
import pandas as pd

from ir_cwla.analysis import montecarlo, naming, pvalues, streams
from ir_cwla.analysis.executors import get_executor
from ir_cwla.analysis.frame import Groups, check_alpha, resolve_groups
from ir_cwla.errors import DataError, ParameterError, UndefinedStatisticWarning
from ir_cwla.meta import agreement, criteria, kendall, twosets
from ir_cwla.meta.assessors import chosen_alternatives

#: The statistics compared, in table order.
STATISTICS = ("tau", "tau_ap")
#: Where the null's two topic sets come from (see the module docstring).
NULLS = ("a", "b")

Frames = Union[pd.DataFrame, Mapping[str, pd.DataFrame]]


# -- kernels (numpy in, numpy out) ---------------------------------------------------------------
def statistics_rows(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """tau-b and tau_AP (``first`` the truth) between the rows of two ``(B, S)`` means: ``(B, 2)``."""
    return np.stack([kendall.tau_b_rows(first, second), agreement.tau_ap_rows(first, second)], axis=1)


def replicate_statistics(a: np.ndarray, b: np.ndarray, draws_a: np.ndarray, draws_b: np.ndarray,
                         matrix_a: Optional[np.ndarray] = None, matrix_b: Optional[np.ndarray] = None) -> np.ndarray:
    """The statistics of every replicate and measure: ``(B, M, 2)``.

    ``a``, ``b``: ``(M, T_a, S)`` and ``(M, T_b, S)`` cubes (``b`` may be ``a``: the null);
    ``draws_a``, ``draws_b``: ``(B, k_a)`` and ``(B, k_b)`` topic positions into each.
    """
    n_m = a.shape[0]
    out = np.empty((draws_a.shape[0], n_m, 2))
    work_a = np.empty((draws_a.shape[0], draws_a.shape[1], a.shape[2]))
    work_b = np.empty((draws_b.shape[0], draws_b.shape[1], b.shape[2]))
    for m in range(n_m):
        first = twosets.resample_means(a[m], draws_a, work_a)
        second = twosets.resample_means(b[m], draws_b, work_b)
        out[:, m] = statistics_rows(first, second)
    return out


def null_draws(rng: np.random.Generator, size: int, n_topics: int, k_a: int, k_b: int
               ) -> tuple[np.ndarray, np.ndarray, str]:
    """The null's two topic sets of ``size`` replicates (module docstring): ``(first, second, how)``."""
    if k_a + k_b <= n_topics:
        order = rng.permuted(np.broadcast_to(np.arange(n_topics, dtype=np.intp), (size, n_topics)), axis=1)
        return order[:, :k_a], order[:, k_a:k_a + k_b], "disjoint"
    return rng.integers(0, n_topics, size=(size, k_a)), rng.integers(0, n_topics, size=(size, k_b)), "resampled"


@dataclass(frozen=True)
class _Data:
    """What the tasks read: the compared cubes ``(K, M, T, S)`` of alternatives of one topic count."""

    a: np.ndarray
    b: np.ndarray
    relation: str
    null: Optional[np.ndarray] = None
    sizes: tuple[int, int] = (0, 0)


def _bootstrap_task(data: _Data, task: montecarlo.Task) -> np.ndarray:
    """``(trials, len(items), M, 2)``: the bootstrap statistics of the task's replicates."""
    parts = []
    for size, rng in task.rngs():
        draws_a, draws_b = twosets.draws_of(rng, size, data.a.shape[2], data.b.shape[2], data.relation)
        parts.append(np.stack([replicate_statistics(data.a[k], data.b[k], draws_a, draws_b) for k in task.items],
                              axis=1))
    return np.concatenate(parts, axis=0)


def _null_task(data: _Data, task: montecarlo.Task) -> np.ndarray:
    """``(trials, 1, M, 2)``: the null statistics of the task's replicates."""
    assert data.null is not None
    parts = []
    for size, rng in task.rngs():
        first, second, _ = null_draws(rng, size, data.null.shape[1], *data.sizes)
        parts.append(replicate_statistics(data.null, data.null, first, second)[:, None])
    return np.concatenate(parts, axis=0)


def _run(task_fn: Any, data: _Data, stream: int, trials: int, n_items: int, shape: tuple[int, ...], root: Any,
         workers: Any, what: str, progress: bool) -> np.ndarray:
    out = np.empty((trials, n_items) + shape)
    tasks = montecarlo.plan(root, stream, trials, streams.CHUNK, n_items, workers.parallelism)

    def store(task: montecarlo.Task, result: np.ndarray) -> None:
        start = task.chunks[0][0] * streams.CHUNK
        out[start:start + task.trials, list(task.items)] = result

    montecarlo.run(workers, task_fn, data, tasks, store, what=what, progress=progress)
    return out


# -- the result -------------------------------------------------------------------------------------
@dataclass
class DisjointAgreement:
    """Ranking agreement of topic-disjoint collections, per alternative and measure, beside a null.

    ``agreement``: one row per (alternative, measure): ``topics_a``, ``topics_b``, ``tau`` with its
    bootstrap ``tau_se``, ``tau_low``, ``tau_high``, the null's ``null_tau`` (median),
    ``null_tau_low``, ``null_tau_high`` and ``p_tau``, the same for ``tau_ap``, and ``defined_*``
    (replicates on which each statistic was defined); ``replicates`` and ``nulls``: per
    alternative, the ``(bootstrap, M, 2)`` and ``(null_trials, M, 2)`` statistics.
    """

    agreement: pd.DataFrame
    replicates: dict[str, np.ndarray]
    nulls: dict[str, np.ndarray]
    measures: list[str]
    alternatives: list[str]
    reference: str
    null: str
    null_sets: dict[str, str]
    groups: dict[Hashable, list[str]]
    alpha: float
    bootstrap: int
    null_trials: int
    seed: Any
    labels: dict[str, str] = field(default_factory=dict)

    @property
    def level(self) -> float:
        """Level of the intervals: ``1 - alpha``."""
        return 1.0 - self.alpha

    def _chosen(self, alternative: Any) -> list[str]:
        return chosen_alternatives(alternative, self.alternatives)

    def table(self, alternative: Any = None) -> pd.DataFrame:
        """One row per (alternative, measure), measures by their labels, in the canonical order.

        Columns: ``alternative``, ``group``, ``measure``, ``topics_a``, ``topics_b``, ``null_sets``,
        then for ``tau`` and ``tau_ap``: the estimate, ``_se``, ``_low``, ``_high`` (bootstrap),
        ``null_`` median and ``null_..._low``/``_high`` (percentile), ``p_`` (one-sided, Phipson-Smyth).
        """
        chosen = self._chosen(alternative)
        part = self.agreement[self.agreement["alternative"].isin(chosen)]
        rank = {a: i for i, a in enumerate(chosen)}
        position = {m: i for i, m in enumerate(self.measures)}
        order = np.lexsort((part["measure"].map(position).to_numpy(), part["alternative"].map(rank).to_numpy()))
        out = part.iloc[order].reset_index(drop=True)
        family = {m: g for g, members in self.groups.items() for m in members}
        out.insert(1, "group", out["measure"].map(family))
        return out.assign(measure=out["measure"].map(lambda m: self.labels.get(m, m)))

    def plot(self, statistic: str = "tau", **kwargs: Any):
        """Every measure's agreement with its interval, beside the null's band; one panel per alternative."""
        from ir_cwla.meta.judges_plots import plot_disjoint

        return plot_disjoint(self, statistic=statistic, **kwargs)


# -- the analysis --------------------------------------------------------------------------------------
def _frames(other: Frames, name: Optional[str]) -> dict[str, pd.DataFrame]:
    if isinstance(other, pd.DataFrame):
        return {name or "b": other}
    if isinstance(other, Mapping):
        if name is not None:
            raise ParameterError("name names a single alternative; with a mapping, its keys are the names")
        if not other:
            raise ParameterError("per_query_b is an empty mapping: give at least one per-query frame")
        return {str(k): v for k, v in other.items()}
    raise ParameterError(f"per_query_b must be a per-query DataFrame or a mapping name -> DataFrame, got "
                         f"{type(other).__name__}")


def _check_defined(values: np.ndarray, measures: Sequence[str], what: str) -> None:
    undefined = [m for m, v in zip(measures, values) if np.isnan(v)]
    if undefined:
        raise DataError(f"measures {undefined} give every system the same mean score on {what}: there is no ranking "
                        "to compare; drop them (measures=)")


def disjoint_agreement(per_query_a: pd.DataFrame, per_query_b: Frames, *, measures: Optional[Sequence[Any]] = None,
                       bootstrap: int = 1000, null_trials: int = 1000, null: str = "a", seed: streams.Seed = 0,
                       alpha: float = 0.05, groups: Groups = None, labels: naming.Labels = None,
                       reference_name: str = "a", name: Optional[str] = None, executor: Any = None,
                       n_jobs: Optional[int] = None, scheduler: Optional[str] = None,
                       progress: bool = False) -> DisjointAgreement:
    """How alike two topic-disjoint collections rank the same systems, per measure, beside a null.

    Parameters
    ----------
    per_query_a : per-query frame (``name, qid, measure, value``) of the reference collection (the
        human one), as ``pt.Experiment(..., perquery=True)``, :func:`ir_cwla.meta.evaluate` or
        :func:`ir_cwla.meta.read_score_files` give it.
    per_query_b : the same for the other collection (other topics, another assessor), or a mapping
        ``{name: frame}`` of several.
    measures : the measures to compare (default: those of ``per_query_a``, which ``b`` must hold).
    bootstrap : topic resamples of both collections for the intervals.
    null_trials : replicates of the null (two topic sets of ``a``'s, or ``b``'s with ``null='b'``).
    null : which collection the null's topic sets come from: ``'a'`` (the reference) or ``'b'``.
    seed : int or ``SeedSequence``; every number is reproducible from it on every executor.
    alpha : the intervals have level ``1 - alpha``.
    groups, labels : families of measures and display names, as every analysis of :mod:`ir_cwla.meta`.
    reference_name, name : how the result names ``a`` and a single ``b``.
    executor, n_jobs, scheduler : where the resamples run (default in-process).
    progress : show tqdm progress bars.

    Returns
    -------
    :class:`DisjointAgreement` (module docstring).

    Raises
    ------
    DataError: frames of different systems, topics that overlap, a measure absent from one frame or
    tying every system. ParameterError: bad trials, seed, alpha or null.
    """
    bootstrap = streams.check_trials(bootstrap, "bootstrap")
    null_trials = streams.check_trials(null_trials, "null_trials")
    null = check_null(null)
    alpha = check_alpha(alpha)
    root = streams.as_seed_sequence(seed)
    workers = get_executor(executor, n_jobs=n_jobs, scheduler=scheduler)
    others = _frames(per_query_b, name)
    pairs = {alt: twosets.align(per_query_a, frame, measures, (reference_name, alt), allow=("disjoint",))
             for alt, frame in others.items()}
    first = next(iter(pairs.values()))
    measures_ = list(first.measures)
    for alt, pair in pairs.items():
        if list(pair.measures) != measures_:
            raise DataError(f"alternative {alt} holds other measures than the first ({list(pair.measures)} against "
                            f"{measures_})")
    families = resolve_groups(measures_, groups)
    labels_ = naming.resolve_labels(measures_, labels)
    n_m = len(measures_)
    level = 1.0 - alpha
    z = NormalDist().inv_cdf((1 + level) / 2)

    rows, replicates, nulls, null_sets = [], {}, {}, {}
    by_size: dict[tuple[int, int], list[str]] = {}
    for alt, pair in pairs.items():
        by_size.setdefault((len(pair.a.topics), len(pair.b.topics)), []).append(alt)
    undefined = 0
    null_cache: dict[tuple[int, int], np.ndarray] = {}
    for (n_a, n_b), members in by_size.items():
        stack_a = np.stack([pairs[m].a.values for m in members])
        stack_b = np.stack([pairs[m].b.values for m in members])
        boot = _run(_bootstrap_task, _Data(stack_a, stack_b, "disjoint"), streams.TWO_SETS_STREAM, bootstrap,
                    len(members), (n_m, 2), root, workers, "disjoint bootstrap", progress)
        for i, alt in enumerate(members):
            pair = pairs[alt]
            source = pair.a if null == "a" else pair.b
            if null == "b" or (n_a, n_b) not in null_cache:       # the reference's null is the same for all
                null_cache[(n_a, n_b)] = _run(
                    _null_task, _Data(stack_a[:0], stack_b[:0], "disjoint", source.values, (n_a, n_b)),
                    streams.DISJOINT_NULL_STREAM, null_trials, 1, (n_m, 2), root, workers, "disjoint null",
                    progress)[:, 0]
            null_stats = null_cache[(n_a, n_b)]
            null_sets[alt] = "disjoint" if n_a + n_b <= len(source.topics) else "resampled"
            observed = statistics_rows(pair.a.values.mean(axis=1), pair.b.values.mean(axis=1))     # (M, 2)
            _check_defined(observed[:, 0], measures_, f"{reference_name} or {alt}")
            reps = boot[:, i]
            replicates[alt], nulls[alt] = reps, null_stats
            undefined += int(np.isnan(reps).sum() + np.isnan(null_stats).sum())
            columns: dict[str, Any] = {"alternative": alt, "measure": measures_, "topics_a": n_a, "topics_b": n_b,
                                       "null_sets": null_sets[alt]}
            for j, stat in enumerate(STATISTICS):
                est, rep, nul = observed[:, j], reps[:, :, j], null_stats[:, :, j]
                defined = np.isfinite(rep)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    se = np.nanstd(rep, axis=0, ddof=1)
                    nlow, nmid, nhigh = np.nanquantile(nul, [(1 - level) / 2, 0.5, (1 + level) / 2], axis=0)
                low, high = np.clip(est - z * se, -1.0, 1.0), np.clip(est + z * se, -1.0, 1.0)
                finite_null = np.isfinite(nul)
                count = (np.where(finite_null, nul, np.inf) <= est[None, :] + 1e-12).sum(axis=0)
                p = pvalues.monte_carlo_p(count, finite_null.sum(axis=0))
                columns.update({stat: est, f"{stat}_se": se, f"{stat}_low": low, f"{stat}_high": high,
                                f"null_{stat}": nmid, f"null_{stat}_low": nlow, f"null_{stat}_high": nhigh,
                                f"p_{stat}": p, f"defined_{stat}": defined.sum(axis=0).astype(np.int64),
                                f"defined_null_{stat}": finite_null.sum(axis=0).astype(np.int64)})
            rows.append(pd.DataFrame(columns))
    if undefined:
        warnings.warn(f"{undefined} (replicate, measure, statistic) cases of the bootstrap or the null tie every "
                      "system: left out of the intervals and p-values (columns defined_*)", UndefinedStatisticWarning,
                      stacklevel=2)
    table = pd.concat(rows, ignore_index=True)
    order = {a: i for i, a in enumerate(others)}
    table = table.iloc[np.argsort(table["alternative"].map(order).to_numpy(), kind="stable")].reset_index(drop=True)
    return DisjointAgreement(agreement=table, replicates=replicates, nulls=nulls, measures=measures_,
                             alternatives=list(others), reference=reference_name, null=null, null_sets=null_sets,
                             groups=families, alpha=alpha, bootstrap=bootstrap, null_trials=null_trials, seed=seed,
                             labels=labels_)


# -- the criterion ---------------------------------------------------------------------------------------
def disjoint_scores(inputs: Any) -> dict[str, pd.DataFrame]:
    """The alternative scores whose topics are disjoint from the reference's (the others are score_variation's)."""
    topics = set(inputs.per_query["qid"].astype(str))
    return {n: f for n, f in (inputs.alternative_scores or {}).items() if not topics & set(f["qid"].astype(str))}


def _section(result: DisjointAgreement, summary: pd.DataFrame) -> list:
    sets = ", ".join(f"{a}: {s}" for a, s in result.null_sets.items())
    return [criteria.Text(f"The systems ranked by their mean score on the reference collection ({result.reference}) "
                          f"and on each topic-disjoint collection ({', '.join(result.alternatives)}), compared by "
                          f"Kendall's tau-b and tau_AP, with {result.level:.0%} bootstrap (normal) intervals over both "
                          f"collections' topics ({result.bootstrap} resamples, seed {result.seed}); beside it, the null: "
                          f"the same statistics between two topic sets of the sizes compared, drawn from "
                          f"{'the reference' if result.null == 'a' else 'the other collection'} alone "
                          f"({result.null_trials} trials; {sets}), its median and {result.level:.0%} interval, and the "
                          "one-sided p-value of the observed agreement under it: a small p says the collections "
                          "disagree more than topic sampling does."),
            criteria.Figure(result.plot, "tau between the two collections' rankings, per measure, beside the null",
                            "disjoint.png"),
            criteria.Table(result.table(), "agreement of topic-disjoint collections, per alternative and measure",
                           "disjoint.csv")]


def _summary(result: DisjointAgreement) -> pd.DataFrame:
    return result.table()[["alternative", "group", "measure", "topics_a", "topics_b", "tau", "tau_low", "tau_high",
                           "null_tau", "null_tau_low", "null_tau_high", "p_tau", "tau_ap", "null_tau_ap", "p_tau_ap"]]


def check_null(null: Any, what: str = "null") -> str:
    """``null`` checked against :data:`NULLS`."""
    if null not in NULLS:
        raise ParameterError(f"{what} must be one of {NULLS}, got {null!r}")
    return str(null)


CRITERION = criteria.register_criterion(criteria.Criterion(
    "disjoint_agreement", "agreement of topic-disjoint collections",
    "Do two collections of the same systems on different topics, judged by different assessors, rank the systems "
    "alike, beyond what topic sampling explains?",
    compute=lambda inputs, bootstrap, null_trials, null: disjoint_agreement(
        inputs.per_query, disjoint_scores(inputs), measures=None, bootstrap=bootstrap, null_trials=null_trials,
        null=null, reference_name="reference", **criteria.shared_settings(inputs)),
    summary=lambda result, inputs, **options: _summary(result), section=_section, needs=("alternative_scores",),
    applies=lambda inputs: bool(disjoint_scores(inputs)),
    options=(criteria.Option("bootstrap", 1000, "disjoint agreement: topic resamples of both collections",
                             cli="disjoint_bootstrap", check=streams.check_trials),
             criteria.Option("null_trials", 1000, "disjoint agreement: topic-set pairs of the null",
                             check=streams.check_trials),
             criteria.Option("null", "a", "disjoint agreement: the collection the null's topic sets come from "
                             "('a': the reference, 'b': the alternative)", cli="disjoint_null", check=check_null,
                             metavar="{a,b}")), order=62), replace=True)
