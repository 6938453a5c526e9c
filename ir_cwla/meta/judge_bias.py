"""Judge bias: whether the systems built on an LLM judge's own model family gain under its qrels.

Given the per-query scores of the same runs under a reference assessor's qrels (NIST's) and under
a judge's (GPT-4's), on the same topics or on disjoint ones (:mod:`ir_cwla.meta.twosets`), and the
runs that use the judge's model family in their pipeline (:func:`runs_using` reads TREC DL 2023's
``run-models.csv``), :func:`judge_bias` asks, per measure, whether those runs move up under the
judge relative to the other runs:

* **per run** (:attr:`JudgeBias.runs`): its mean score and rank position (1 = best, ties sharing
  the best position, :func:`ir_cwla.meta.robustness.rank_positions`) under both, its
  ``rank_change = rank_reference - rank_judged`` (positive: it moves up under the judge) and
  ``score_change = mean_judged - mean_reference``;
* **effect**: ``effect_rank`` = the mean rank change of the family's runs minus that of the
  other runs (rank positions: the share of the runs is ``effect_rank / S``), and ``effect_score``
  the same for the score change (a judge that grades everything more generously moves every
  score: the difference between the groups removes that common shift);
* **permutation test** of each effect over the group labels: under the null that the judge
  treats the family as any other run, every assignment of the ``k`` family labels to the ``S``
  runs is equally likely. ``alternative='greater'`` (default; the family gains), ``'less'`` or
  ``'two-sided'`` (``|effect|``). With at most ``exact_limit`` assignments (``C(S, k)``) every one
  is enumerated (``itertools.combinations`` of the sorted runs) and ``p`` is the share reaching the
  observed effect (itself included); otherwise ``trials`` random assignments give the
  Monte-Carlo ``p = (1 + #{effect_perm reaches effect}) / (1 + trials)`` (Phipson & Smyth 2010).
  ``p_holm`` adjusts the measures' p-values of a call for multiplicity (Holm 1979);
* **interval** of each effect: a two-way bootstrap (``bootstrap`` replicates): each replicate
  resamples the topics of both collections (paired when they are the same topics, each on its
  own when disjoint), ranks the runs again, and then resamples the runs within each group
  (``k`` of the family's, ``S - k`` of the others', with replacement); the percentile interval
  ``((1 - level) / 2, (1 + level) / 2)`` of the replicates' effects. It covers both the topics'
  sampling and which runs happened to be built on the family.

**Random streams.** Permutations: chunk ``c`` of :data:`~ir_cwla.analysis.streams.CHUNK` assignments
draws ``streams.permutations(rng, (chunk,), S)`` from ``default_rng(SeedSequence(seed,
spawn_key=(JUDGE_BIAS_STREAM, c)))`` (the recipe of :mod:`ir_cwla.analysis.streams`), the family
being the runs at the first ``k`` positions. Bootstrap: chunk ``c`` of stream
:data:`~ir_cwla.analysis.streams.TWO_SETS_STREAM` draws the topics (:func:`ir_cwla.meta.twosets.draws_of`)
and then ``integers(0, k, (chunk, k))`` and ``integers(0, S - k, (chunk, S - k))`` from the same
generator. Every measure sees the same permutations and replicates.
"""
from __future__ import annotations

import itertools
import math
import os
import re
import warnings
from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional, Union

import numpy as np
import pandas as pd

from ir_cwla.analysis import montecarlo, naming, pvalues, streams
from ir_cwla.analysis.executors import get_executor
from ir_cwla.analysis.frame import Groups, check_alpha, resolve_groups
from ir_cwla.errors import (
    ArgumentTypeError,
    DataError,
    InputError,
    InputWarning,
    NotFoundError,
    ParameterError,
)
from ir_cwla.meta import criteria, robustness, twosets

#: The alternatives of the permutation test.
ALTERNATIVES = ("greater", "less", "two-sided")
#: Up to this many label assignments, the permutation test enumerates them all.
EXACT_LIMIT = 100_000

Family = Union[str, Collection[str], Callable[[str], bool]]


# -- run metadata ------------------------------------------------------------------------------------
def read_run_models(source: Union[str, os.PathLike, pd.DataFrame], run_column: str = "run_id",
                    models_column: str = "LLM", separator: str = "/") -> dict[str, list[str]]:
    """``{run: [models its pipeline used]}`` from a table such as TREC DL 2023's ``run-models.csv``.

    ``source``: a CSV or tab-separated file (the delimiter is sniffed) or a frame, with a column of
    run ids and one of models separated by ``separator`` (``MonoT5/GPT-3.5/GPT-4``); ``-`` or an
    empty cell means none. A run listed twice is an :class:`~ir_cwla.errors.InputError`.
    """
    if isinstance(source, pd.DataFrame):
        frame, name = source, "run models"
    else:
        name = os.fspath(source)
        try:
            frame = pd.read_csv(name, sep=None, engine="python", dtype=str, keep_default_na=False)
        except (OSError, ValueError, pd.errors.ParserError) as ex:
            raise InputError(f"run models file {name} cannot be read as CSV or TSV: {ex}") from None
    missing = [c for c in (run_column, models_column) if c not in frame.columns]
    if missing:
        raise InputError(f"{name} lacks the column(s) {missing} (it has {list(frame.columns)}); pass run_column= and "
                         "models_column=")
    out: dict[str, list[str]] = {}
    for line, (run, models) in enumerate(zip(frame[run_column].astype(str), frame[models_column].astype(str)), 2):
        run = run.strip()
        if run in out:
            raise InputError(f"{name}, line {line}: run {run!r} is listed twice")
        out[run] = [m.strip() for m in models.split(separator) if m.strip() and m.strip() != "-"]
    return out


def _matcher(family: Family) -> Callable[[str], bool]:
    if callable(family):
        return family
    if isinstance(family, str):
        pattern = re.compile(family, re.IGNORECASE)
        return lambda model: pattern.fullmatch(model) is not None
    if isinstance(family, Collection):
        names = {str(f).lower() for f in family}
        return lambda model: model.lower() in names
    raise ArgumentTypeError(f"family must be a regular expression, a collection of model names or a function, got "
                            f"{type(family).__name__}")


def runs_using(run_models: Union[Mapping[str, Sequence[str]], str, os.PathLike, pd.DataFrame], family: Family,
               **read: Any) -> dict[str, bool]:
    """``{run: True if its pipeline uses a model of the family}``.

    ``run_models``: ``{run: [models]}`` or what :func:`read_run_models` reads (``read`` are its
    options); ``family``: a regular expression a model's whole name must match, case ignored
    (``'GPT.*'``: GPT-3.5, GPT-4, GPT; ``'GPT-4'``: GPT-4 only), a collection of model names, or a
    function of the model name.
    """
    models = run_models if isinstance(run_models, Mapping) else read_run_models(run_models, **read)
    match = _matcher(family)
    return {str(run): any(match(str(m)) for m in used) for run, used in models.items()}


# -- kernels -------------------------------------------------------------------------------------------
def group_effect(changes: np.ndarray, members: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Mean of ``changes[..., members]`` minus mean of ``changes[..., others]``.

    ``changes``: ``(..., S)``; ``members``, ``others``: ``(B, k)`` and ``(B, S - k)`` run positions
    (one assignment per row). Returns ``(B, ...)`` (numpy's sums in the order given).
    """
    lead = changes.shape[:-1]
    flat = changes.reshape(-1, changes.shape[-1])                     # (L, S)
    first = np.add.reduce(flat[:, members], axis=-1) / members.shape[1]      # (L, B)
    second = np.add.reduce(flat[:, others], axis=-1) / others.shape[1]
    return np.moveaxis((first - second).reshape(lead + (members.shape[0],)), -1, 0)


def changes_of(reference_means: np.ndarray, judged_means: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(rank_change, score_change)`` of every run (last axis) from two ``(..., S)`` arrays of means."""
    rank_change = robustness.rank_positions(reference_means) - robustness.rank_positions(judged_means)
    return rank_change.astype(np.float64), judged_means - reference_means


def reaches(values: np.ndarray, observed: np.ndarray, alternative: str) -> np.ndarray:
    """Whether each replicate's effect reaches the observed one in the direction of ``alternative``."""
    tol = 1e-12 * np.maximum(1.0, np.abs(observed))
    if alternative == "greater":
        return values >= observed - tol
    if alternative == "less":
        return values <= observed + tol
    return np.abs(values) >= np.abs(observed) - tol


def holm(p: np.ndarray) -> np.ndarray:
    """Holm's (1979) step-down adjusted p-values of one family of tests."""
    p = np.asarray(p, dtype=np.float64)
    order = np.argsort(p, kind="stable")
    n = len(p)
    adjusted = np.maximum.accumulate(np.minimum(1.0, (n - np.arange(n)) * p[order]))
    out = np.empty(n)
    out[order] = adjusted
    return out


def exact_counts(changes: np.ndarray, observed: np.ndarray, k: int, alternative: str, block: int = 4096
                 ) -> np.ndarray:
    """How many of all ``C(S, k)`` assignments of the family's labels reach ``observed``: ``(2, M)``.

    The assignments are ``itertools.combinations(range(S), k)`` (the observed one among them),
    taken ``block`` at a time.
    """
    n_s = changes.shape[-1]
    counts = np.zeros(observed.shape, dtype=np.int64)
    combos = itertools.combinations(range(n_s), k)
    while True:
        chosen = np.array(list(itertools.islice(combos, block)), dtype=np.intp).reshape(-1, k)
        if not len(chosen):
            return counts
        mask = np.zeros((len(chosen), n_s), dtype=bool)
        mask[np.arange(len(chosen))[:, None], chosen] = True
        rest = np.nonzero(~mask)[1].reshape(len(chosen), n_s - k)
        counts += reaches(group_effect(changes, chosen, rest), observed[None], alternative).sum(axis=0)


@dataclass(frozen=True)
class _Data:
    """What the tasks read."""

    changes: np.ndarray          # (2, M, S): rank and score changes, observed
    observed: np.ndarray         # (2, M): the observed effects
    k: int
    alternative: str
    reference: np.ndarray        # (M, T_a, S)
    judged: np.ndarray           # (M, T_b, S)
    relation: str
    members: np.ndarray          # positions of the family's runs
    others: np.ndarray


def _permutation_task(data: _Data, task: montecarlo.Task) -> np.ndarray:
    """``(1, 2, M)`` counts of the task's random assignments that reach the observed effects."""
    s = data.changes.shape[-1]
    counts = np.zeros((2, data.changes.shape[1]), dtype=np.int64)
    for size, rng in task.rngs():
        order = streams.permutations(rng, (size,), s)
        effects = group_effect(data.changes, order[:, :data.k], order[:, data.k:])       # (size, 2, M)
        counts += reaches(effects, data.observed[None], data.alternative).sum(axis=0)
    return counts[None]


def _bootstrap_task(data: _Data, task: montecarlo.Task) -> np.ndarray:
    """``(trials, 1, 2, M)``: the effects of the task's two-way bootstrap replicates."""
    n_m = data.reference.shape[0]
    parts = []
    for size, rng in task.rngs():
        draws_a, draws_b = twosets.draws_of(rng, size, data.reference.shape[1], data.judged.shape[1], data.relation)
        pick_g = data.members[rng.integers(0, len(data.members), size=(size, len(data.members)))]
        pick_o = data.others[rng.integers(0, len(data.others), size=(size, len(data.others)))]
        out = np.empty((size, 2, n_m))
        for m in range(n_m):
            ref = twosets.resample_means(data.reference[m], draws_a)
            jud = twosets.resample_means(data.judged[m], draws_b)
            changes = np.stack(changes_of(ref, jud))                           # (2, size, S)
            rows = np.arange(size)
            first = changes[:, rows[:, None], pick_g].mean(axis=-1)           # (2, size)
            second = changes[:, rows[:, None], pick_o].mean(axis=-1)
            out[:, :, m] = (first - second).T
        parts.append(out[:, None])
    return np.concatenate(parts, axis=0)


# -- the result --------------------------------------------------------------------------------------------
@dataclass
class JudgeBias:
    """Whether the runs of the judge's model family move up under the judge, per measure.

    ``effects``: one row per measure (:meth:`table`); ``runs``: one row per (measure, run) with
    its group, means, ranks and changes (:meth:`runs_table`); ``replicates``: the bootstrap
    effects ``(bootstrap, 2, M)`` (rank, score).
    """

    effects: pd.DataFrame
    runs: pd.DataFrame
    replicates: np.ndarray
    measures: list[str]
    family: list[str]
    reference: str
    judged: str
    relation: str
    alternative: str
    exact: bool
    trials: int
    bootstrap: int
    seed: Any
    alpha: float
    groups: dict[Hashable, list[str]]
    labels: dict[str, str] = field(default_factory=dict)

    @property
    def level(self) -> float:
        """Level of the intervals: ``1 - alpha``."""
        return 1.0 - self.alpha

    def _named(self, table: pd.DataFrame) -> pd.DataFrame:
        return table.assign(measure=table["measure"].map(lambda m: self.labels.get(m, m)))

    def table(self) -> pd.DataFrame:
        """One row per measure: the groups' sizes, the effects with intervals, the permutation p-values.

        ``effect_rank`` (positions; positive: the family moves up under the judge),
        ``effect_rank_low``/``_high``, ``p_rank``, ``p_rank_holm``, then the same for ``effect_score``;
        ``mean_rank_change_family``/``_others``; ``test``: ``'exact'`` or ``'monte-carlo'``.
        """
        out = self.effects.copy()
        family = {m: g for g, members in self.groups.items() for m in members}
        out.insert(0, "group", out["measure"].map(family))
        return self._named(out)

    def runs_table(self, measure: Optional[str] = None) -> pd.DataFrame:
        """One row per (measure, run), the runs of each measure by rank change, largest gain first."""
        part = self.runs
        if measure is not None:
            by_label = {self.labels.get(m, m): m for m in self.measures}
            key = measure if measure in self.measures else by_label.get(measure)
            if key is None:
                raise NotFoundError(f"no measure {measure!r}; the measures are {list(by_label)}")
            part = part[part["measure"] == key]
        position = {m: i for i, m in enumerate(self.measures)}
        order = np.lexsort((part["run"].to_numpy(), -part["rank_change"].to_numpy(),
                            part["measure"].map(position).to_numpy()))
        return self._named(part.iloc[order].reset_index(drop=True))

    def plot(self, measure: Optional[str] = None, **kwargs: Any):
        """Ranks under both (one measure) and the effects of every measure with their intervals."""
        from ir_cwla.meta.judges_plots import plot_judge_bias

        return plot_judge_bias(self, measure=measure, **kwargs)


# -- the analysis ---------------------------------------------------------------------------------------
def _membership(family_runs: Any, systems: Sequence[str]) -> np.ndarray:
    """A boolean per system from ``{run: bool}`` (covering every system) or a collection of run names."""
    if isinstance(family_runs, Mapping):
        lacking = [s for s in systems if s not in family_runs]
        if lacking:
            raise DataError(f"run metadata says nothing of {len(lacking)} scored run(s): {lacking[:5]}; every run "
                            "needs a group (in the judge's family or not)")
        extra = sorted(set(map(str, family_runs)) - set(systems))
        if extra:
            warnings.warn(f"run metadata lists {len(extra)} run(s) that are not scored, not used: {extra[:5]}",
                          InputWarning, stacklevel=3)
        return np.array([bool(family_runs[s]) for s in systems])
    if isinstance(family_runs, (str, bytes)) or not isinstance(family_runs, Collection):
        raise ArgumentTypeError("family_runs must be a mapping run -> bool or a collection of run names, got "
                                f"{type(family_runs).__name__}")
    names = {str(r) for r in family_runs}
    unknown = sorted(names - set(systems))
    if unknown:
        raise DataError(f"family_runs names run(s) that are not scored: {unknown[:5]}")
    return np.array([s in names for s in systems])


def judge_bias(reference: pd.DataFrame, judged: pd.DataFrame, family_runs: Any, *,
               measures: Optional[Sequence[Any]] = None, alternative: str = "greater", trials: int = 10000,
               bootstrap: int = 2000, exact_limit: int = EXACT_LIMIT, seed: streams.Seed = 0, alpha: float = 0.05,
               groups: Groups = None, labels: naming.Labels = None, reference_name: str = "reference",
               judged_name: str = "judge", executor: Any = None, n_jobs: Optional[int] = None,
               scheduler: Optional[str] = None, progress: bool = False) -> JudgeBias:
    """Whether runs built on the judge's model family move up under the judge's qrels.

    Parameters
    ----------
    reference, judged : per-query frames (``name, qid, measure, value``) of the same runs under the
        reference assessor's qrels and under the judge's, on the same or on disjoint topics.
    family_runs : ``{run: bool}`` for every run (:func:`runs_using`), or the names of the family's runs.
    measures : the measures to test (default: those of ``reference``).
    alternative : ``'greater'`` (the family gains), ``'less'`` or ``'two-sided'``.
    trials : random label assignments when there are more than ``exact_limit``.
    bootstrap : replicates of the two-way bootstrap of the effects' intervals.
    exact_limit : up to this many assignments ``C(S, k)`` the test enumerates them all.
    seed, alpha, groups, labels : as every analysis of :mod:`ir_cwla.meta`.
    reference_name, judged_name : how the tables name the two.
    executor, n_jobs, scheduler, progress : where the random work runs.

    Returns
    -------
    :class:`JudgeBias` (the module docstring says what each number is).

    Raises
    ------
    DataError: runs without a group, an empty group, frames of other systems, measures tying every
    run. ParameterError: a bad alternative, trials, seed or alpha.
    """
    alternative = check_alternative(alternative)
    trials = streams.check_trials(trials, "trials")
    bootstrap = streams.check_trials(bootstrap, "bootstrap")
    exact_limit = streams.check_trials(exact_limit, "exact_limit")
    alpha = check_alpha(alpha)
    root = streams.as_seed_sequence(seed)
    workers = get_executor(executor, n_jobs=n_jobs, scheduler=scheduler)
    pair = twosets.align(reference, judged, measures, (reference_name, judged_name))
    systems = list(pair.systems)
    inside = _membership(family_runs, systems)
    k, n_s = int(inside.sum()), len(systems)
    if k == 0 or k == n_s:
        raise DataError(f"{'no' if k == 0 else 'every'} scored run is in the judge's family: a comparison needs runs "
                        f"in both groups ({n_s} runs)")
    measures_ = list(pair.measures)
    families = resolve_groups(measures_, groups)
    labels_ = naming.resolve_labels(measures_, labels)
    ref_means, jud_means = pair.a.values.mean(axis=1), pair.b.values.mean(axis=1)           # (M, S)
    for what, means in ((reference_name, ref_means), (judged_name, jud_means)):
        tied = [m for m, row in zip(measures_, means) if np.ptp(row) <= 1e-12 * max(1.0, float(np.abs(row).max()))]
        if tied:
            raise DataError(f"measures {tied} give every run the same mean score under {what}: drop them (measures=)")
    rank_change, score_change = changes_of(ref_means, jud_means)
    changes = np.stack([rank_change, score_change])                                          # (2, M, S)
    members, others = np.flatnonzero(inside), np.flatnonzero(~inside)
    observed = group_effect(changes, members[None], others[None])[0]                          # (2, M)
    data = _Data(changes, observed, k, alternative, pair.a.values, pair.b.values, pair.relation, members, others)

    total = math.comb(n_s, k)
    exact = total <= exact_limit
    if exact:
        p = exact_counts(changes, observed, k, alternative) / total
    else:
        tasks = montecarlo.plan(root, streams.JUDGE_BIAS_STREAM, trials, streams.CHUNK, 1, workers.parallelism)
        counts = montecarlo.sum_counts(workers, _permutation_task, data, tasks, (1, 2, len(measures_)),
                                       what="judge bias permutations", progress=progress)[0]
        p = pvalues.monte_carlo_p(counts, trials)
    replicates = np.empty((bootstrap, 1, 2, len(measures_)))
    tasks = montecarlo.plan(root, streams.TWO_SETS_STREAM, bootstrap, streams.CHUNK, 1, workers.parallelism)

    def store(task: montecarlo.Task, result: np.ndarray) -> None:
        start = task.chunks[0][0] * streams.CHUNK
        replicates[start:start + task.trials] = result

    montecarlo.run(workers, _bootstrap_task, data, tasks, store, what="judge bias bootstrap", progress=progress)
    replicates = replicates[:, 0]
    level = 1.0 - alpha
    low, high = np.quantile(replicates, [(1 - level) / 2, (1 + level) / 2], axis=0)           # (2, M) each
    table = pd.DataFrame({
        "measure": measures_, "runs": n_s, "family_runs": k, "topics_reference": len(pair.a.topics),
        "topics_judged": len(pair.b.topics), "topics": pair.relation,
        "mean_rank_change_family": rank_change[:, members].mean(axis=1),
        "mean_rank_change_others": rank_change[:, others].mean(axis=1),
        "effect_rank": observed[0], "effect_rank_low": low[0], "effect_rank_high": high[0],
        "p_rank": p[0], "p_rank_holm": holm(p[0]),
        "effect_score": observed[1], "effect_score_low": low[1], "effect_score_high": high[1],
        "p_score": p[1], "p_score_holm": holm(p[1]),
        "test": "exact" if exact else "monte-carlo", "alternative": alternative})
    run_rows = pd.DataFrame({
        "measure": np.repeat(measures_, n_s), "run": np.tile(systems, len(measures_)),
        "family": np.tile(inside, len(measures_)),
        "mean_reference": ref_means.ravel(), "mean_judged": jud_means.ravel(),
        "rank_reference": robustness.rank_positions(ref_means).ravel(),
        "rank_judged": robustness.rank_positions(jud_means).ravel(),
        "rank_change": rank_change.ravel().astype(np.int64), "score_change": score_change.ravel()})
    return JudgeBias(effects=table, runs=run_rows, replicates=replicates, measures=measures_,
                     family=[s for s, i in zip(systems, inside) if i], reference=reference_name, judged=judged_name,
                     relation=pair.relation, alternative=alternative, exact=exact, trials=trials, bootstrap=bootstrap,
                     seed=seed, alpha=alpha, groups=families, labels=labels_)


# -- the criterion ---------------------------------------------------------------------------------------
@dataclass
class JudgeBiasSet:
    """The criterion's result: one :class:`JudgeBias` per alternative judge, and the family asked for."""

    results: dict[str, JudgeBias]
    family: str

    def table(self) -> pd.DataFrame:
        """Every alternative's :meth:`JudgeBias.table`, one after the other (column ``alternative`` first)."""
        return pd.concat([r.table().assign(alternative=name) for name, r in self.results.items()],
                         ignore_index=True).pipe(lambda t: t[["alternative"] + [c for c in t.columns
                                                                                if c != "alternative"]])

    def plot(self, alternative: Optional[str] = None, **kwargs: Any):
        """:meth:`JudgeBias.plot` of one alternative (default: the first)."""
        name = alternative or next(iter(self.results))
        if name not in self.results:
            raise NotFoundError(f"no alternative {name!r}; the alternatives are {list(self.results)}")
        return self.results[name].plot(**kwargs)


def _compute(inputs: Any, family: str, trials: int, bootstrap: int, alternative: str) -> JudgeBiasSet:
    settings = {k: v for k, v in criteria.shared_settings(inputs).items() if k != "groups"}
    members = runs_using(inputs.run_models, family)
    return JudgeBiasSet({name: judge_bias(inputs.per_query, frame, members, measures=None, alternative=alternative,
                                          trials=trials, bootstrap=bootstrap, groups=inputs.groups,
                                          reference_name="reference", judged_name=name, **settings)
                         for name, frame in (inputs.alternative_scores or {}).items()}, family)


def _section(result: JudgeBiasSet, summary: pd.DataFrame) -> list:
    first = next(iter(result.results.values()))
    blocks: list = [criteria.Text(
        f"Runs whose pipeline uses a model matching {result.family!r} (the judge's family: "
        f"{', '.join(first.family)}) against the other runs: the family's mean rank change under each judge's scores "
        "relative to the reference's minus the others' (positions; positive: the family moves up), with a "
        f"{first.level:.0%} two-way bootstrap interval (topics, then runs within the groups; {first.bootstrap} "
        f"replicates) and a permutation test over the group labels ({'exact' if first.exact else first.trials} "
        f"assignments, alternative {first.alternative}; Holm over the measures); seed {first.seed}.")]
    for name, r in result.results.items():
        blocks.append(criteria.Figure(r.plot, f"ranks under the reference and under {name}, and the family's effect "
                                      "per measure", f"judge_bias_{len(blocks)}.png"))
    blocks.append(criteria.Table(result.table(), "the judge's family against the other runs, per measure",
                                 "judge_bias.csv"))
    blocks.append(criteria.Table(pd.concat([r.runs_table().assign(alternative=n) for n, r in result.results.items()],
                                           ignore_index=True), "every run's ranks and changes", "judge_bias_runs.csv"))
    return blocks


def check_alternative(value: Any, what: str = "alternative") -> str:
    """The permutation test's alternative, checked against :data:`ALTERNATIVES`."""
    if value not in ALTERNATIVES:
        raise ParameterError(f"{what} must be one of {ALTERNATIVES}, got {value!r}")
    return str(value)


CRITERION = criteria.register_criterion(criteria.Criterion(
    "judge_bias", "judge bias towards its model family",
    "Do runs built on the judge's own model family move up under the judge's qrels relative to the others?",
    compute=_compute, summary=lambda result, inputs, **options: result.table()[
        ["alternative", "group", "measure", "runs", "family_runs", "effect_rank", "effect_rank_low", "effect_rank_high",
         "p_rank", "p_rank_holm", "effect_score", "p_score"]],
    section=_section, needs=("alternative_scores", "run_models"),
    options=(criteria.Option("family", "GPT.*", "judge bias: the judge's model family, a regular expression a model "
                             "name of run-models matches whole, case ignored (GPT.*: GPT-3.5, GPT-4)", cli="judge_family",
                             parse=str, metavar="REGEX"),
             criteria.Option("trials", 10000, "judge bias: random label assignments of the permutation test (when "
                             "there are more than 100,000)", cli="bias_trials", check=streams.check_trials),
             criteria.Option("bootstrap", 2000, "judge bias: replicates of the two-way bootstrap",
                             cli="bias_bootstrap", check=streams.check_trials),
             criteria.Option("alternative", "greater", "judge bias: the permutation test's alternative",
                             cli="bias_alternative", check=check_alternative, metavar="{greater,less,two-sided}")),
    order=63), replace=True)
