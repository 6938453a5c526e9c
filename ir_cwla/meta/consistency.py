"""System ranking consistency across disjoint topic sets (Chen & Sakai, Section 5; Algorithm 1; Table 3).

Following Sakai (2021): for each of B trials, split the topics T at random into T1 with
``n1 = floor(|T| / 2)`` topics and T2 = T - T1; rank the systems by their mean score over
T1 and over T2 and record Kendall's tau-b between the two rankings. The same B splits are
used for every measure, giving a B x |M| matrix of taus; a paired randomised Tukey HSD test
over that matrix (trials as the paired rows, measures as the columns; Carterette 2012)
tells which differences in mean tau are significant, within each family of measures.

A split in which one half ties *all* systems has an undefined tau; it counts as tau = 0
(no agreement) and is reported in :attr:`Consistency.degenerate`, with a warning.
"""
from __future__ import annotations

import warnings
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np
import pandas as pd

from ir_cwla.analysis import montecarlo, naming, streams, tukey
from ir_cwla.analysis.executors import get_executor
from ir_cwla.analysis.frame import Groups, TopicPolicy, check_alpha, resolve_groups, to_cube
from ir_cwla.errors import ParameterError, UndefinedStatisticWarning
from ir_cwla.meta import agreement as agreements
from ir_cwla.meta import criteria, kendall

#: Splits per chunk (part of the reproducibility contract, like streams.CHUNK; fewer for very
#: large collections, see streams.trial_chunk).
SPLIT_CHUNK = 100


# -- kernels (numpy in, numpy out) ---------------------------------------------------------
def random_halves(rng: np.random.Generator, n_splits: int, n_topics: int) -> tuple[np.ndarray, np.ndarray]:
    """``n_splits`` random splits of ``range(n_topics)``.

    Sorted index arrays of the two halves, ``(n_splits, floor(n/2))`` and
    ``(n_splits, n - floor(n/2))``.
    """
    order = streams.permutations(rng, (n_splits,), n_topics)
    n1 = n_topics // 2
    return np.sort(order[:, :n1], axis=1), np.sort(order[:, n1:], axis=1)


def split_taus(values: np.ndarray, first: np.ndarray, second: np.ndarray, agreement: str = "tau",
               persistence: float = agreements.PERSISTENCE) -> np.ndarray:
    """tau-b between the rankings by mean over ``first`` and over ``second`` topics.

    (``agreement='tau_ap'``: tau_AP averaged over both directions; ``'rbo'``: RBO_ext with
    ``persistence``; :mod:`ir_cwla.meta.agreement`.)

    values: ``(M, T, S)`` scores; first/second: ``(b, n1)``/``(b, n2)`` topic indices.
    Returns ``(b, M)`` (NaN where a half ties all systems). Work arrays are reused across
    measures (see :class:`ir_cwla.meta.kendall.PairSigns`).
    """
    n_m, _, n_s = values.shape
    b = first.shape[0]
    halves = [np.empty((b, idx.shape[1], n_s)) for idx in (first, second)]
    means = [np.empty((b, n_s)) for _ in (first, second)]
    work = kendall.PairSigns(b, n_s)
    out = np.empty((b, n_m), dtype=np.float64)
    for m, matrix in enumerate(values):
        for idx, half, mean in zip((first, second), halves, means):
            np.take(matrix, idx, axis=0, out=half, mode="clip")
            np.add.reduce(half, axis=1, out=mean)
            np.divide(mean, idx.shape[1], out=mean)
        out[:, m] = work.tau_b(means[0], means[1]) if agreement == "tau" else \
            agreements.rows(agreement, means[0], means[1], persistence, symmetric=True)
    return out


@dataclass(frozen=True)
class SplitData:
    """What every split task reads: the score cube and the statistic comparing the two halves."""

    values: np.ndarray
    agreement: str = "tau"
    persistence: float = agreements.PERSISTENCE


def split_task(data: SplitData, task: montecarlo.Task) -> np.ndarray:
    """The taus ``(task.trials, len(task.items))`` of the task's split chunks for the measures ``task.items``.

    The unit of work an executor runs.
    """
    values = data.values
    items = list(task.items)
    if items != list(range(values.shape[0])):
        values = values[items]
    return np.concatenate([split_taus(values, *random_halves(rng, size, values.shape[1]), data.agreement,
                                      data.persistence)
                           for size, rng in task.rngs()], axis=0)


def split_matrix(values: np.ndarray, trials: int, seed: streams.Seed, executor: Any, agreement: str = "tau",
                 persistence: float = agreements.PERSISTENCE, *, progress: bool = False) -> np.ndarray:
    """The taus of ``trials`` random topic splits of a score cube, on ``executor``.

    The taus ``(trials, M)`` of ``trials`` random topic splits of a score cube ``(M, T, S)``
    (NaN where a half ties every system), chunk by chunk on ``executor``.

    The splits depend only on ``seed`` and the number of topics and systems: two cubes of the
    same shape are split alike, whatever their measures (common random numbers).
    """
    n_m, n_t, n_s = values.shape
    montecarlo.check_result_memory("consistency splits", trials, 8 * n_m, f"taus ({n_m} measures, float64)")
    chunk = min(SPLIT_CHUNK, streams.trial_chunk(max(n_t * n_s, n_s * (n_s - 1) // 2)))
    tasks = montecarlo.plan(streams.as_seed_sequence(seed), streams.SPLIT_STREAM, trials, chunk, n_m,
                            executor.parallelism)
    taus = np.empty((trials, n_m))

    def store(task: montecarlo.Task, result: np.ndarray) -> None:
        start = task.chunks[0][0] * chunk
        taus[start:start + task.trials, list(task.items)] = result

    montecarlo.run(executor, split_task, SplitData(values, agreement, persistence), tasks, store,
                   what="consistency splits", progress=progress)
    return taus


def family_tests(taus: pd.DataFrame, families: dict[Hashable, list[str]], trials: int, seed: streams.Seed,
                 executor: Any, progress: bool) -> dict[Hashable, pd.DataFrame]:
    """Randomised Tukey HSD p-values between the measures of each family, over the taus.

    The members of a family are taken in the order of the columns of ``taus`` (the measure
    order), whatever their order in ``families``. Families of the same size share their
    permutations (the stream depends only on the shape), so they are stacked and tested in
    one pass; the p-values of a family equal ``randomised_tukey_hsd(taus[members], trials, seed)``.
    """
    position = {m: i for i, m in enumerate(taus.columns)}
    families = {group: sorted(members, key=position.__getitem__) for group, members in families.items()}
    out: dict[Hashable, pd.DataFrame] = {}
    by_size: dict[int, list[Hashable]] = {}
    for group, members in families.items():
        if len(members) < 2:
            out[group] = pd.DataFrame(1.0, index=members, columns=members)
        else:
            by_size.setdefault(len(members), []).append(group)
    for size, names in by_size.items():
        stack = np.stack([taus[families[g]].to_numpy() for g in names])       # (G, B, size)
        p = tukey.stack_p_values(stack, trials, seed, executor, progress=progress,
                                 what=f"Tukey HSD ({len(names)} families of {size})")
        for group, pairs in zip(names, p):
            members = families[group]
            out[group] = pd.DataFrame(tukey.to_square(pairs, size), index=members, columns=members)
    return {group: out[group] for group in families}


# -- result --------------------------------------------------------------------------------
@dataclass
class Consistency:
    """Consistency taus (trials x measures), their means and the Tukey HSD p-values per family."""

    taus: pd.DataFrame
    p_values: dict[Hashable, pd.DataFrame]
    groups: dict[Hashable, list[str]]
    alpha: float
    trials: int
    test_trials: int
    seed: Any
    degenerate: pd.Series
    labels: dict[str, str] = field(default_factory=dict)
    #: the statistic in ``taus`` (``'tau'``: Kendall's tau-b; ``'tau_ap'``, ``'rbo'``: see
    #: :mod:`ir_cwla.meta.agreement`)
    agreement: str = "tau"

    @property
    def mean_tau(self) -> pd.Series:
        """The mean Kendall's tau of every measure over the splits."""
        return self.taus.mean(axis=0)

    def outperforms(self) -> dict[str, list[str]]:
        """For each measure, the measures of its family it significantly beats (higher mean tau, p < alpha)."""
        mean = self.mean_tau
        out = {}
        for group, members in self.groups.items():
            p = self.p_values[group]
            for a in members:
                out[a] = [b for b in members if b != a and mean[a] > mean[b] and p.at[a, b] < self.alpha]
        return out

    def table(self) -> pd.DataFrame:
        """Measures sorted by mean tau within each family (Table 3), with how many they outperform.

        ``outperforms`` is the paper's mark: the measure is significantly (Tukey HSD,
        p < alpha) better than that many measures of its family, i.e. the worst ones.
        """
        beats = self.outperforms()
        mean, sd = self.mean_tau, self.taus.std(axis=0, ddof=1)
        rows = []
        for group, members in self.groups.items():
            for m in sorted(members, key=lambda m: -mean[m]):
                rows.append({"group": group, "measure": self.labels.get(m, m),
                             "canonical": naming.is_canonical(m), "mean_tau": mean[m], "sd": sd[m],
                             "outperforms": len(beats[m]),
                             "better_than": ", ".join(self.labels.get(b, b) for b in beats[m])})
        return pd.DataFrame(rows)

    def p_value_matrix(self, group: Optional[Hashable] = None) -> pd.DataFrame:
        """Tukey HSD p-values between the measures of one family (the only family by default)."""
        if group is None:
            if len(self.p_values) != 1:
                raise ParameterError(f"several families ({list(self.p_values)}): name one")
            group = next(iter(self.p_values))
        return self.p_values[group]

    def plot(self, **kwargs):
        """Box plots of the consistency taus, one panel per family. Returns the Figure."""
        from ir_cwla.meta.plots import plot_consistency

        return plot_consistency(self, **kwargs)


def consistency(per_query: pd.DataFrame, trials: int = 1000, seed: streams.Seed = 0, *,
                test_trials: int = 2000, alpha: float = 0.05, groups: Groups = None,
                topics: TopicPolicy = "strict", labels: naming.Labels = None,
                agreement: agreements.Agreement = "tau", persistence: float = agreements.PERSISTENCE,
                executor: Any = None, n_jobs: Optional[int] = None,
                scheduler: Optional[str] = None, progress: bool = True) -> Consistency:
    """System ranking consistency of every measure over ``trials`` random topic splits.

    Parameters
    ----------
    per_query
        ``pt.Experiment(..., perquery=True)`` frame (``name, qid, measure, value``).
    trials
        Number B of random splits (the paper: 1000). The B x |M| taus are kept (with two
        copies), so B is refused up front beyond
        :data:`ir_cwla.analysis.montecarlo.MAX_RESULT_BYTES` (2 GiB: 9 million splits of 10 measures).
    seed
        Int or ``SeedSequence``; splits and test are exactly reproducible from it.
    test_trials
        Permutations of the randomised Tukey HSD test over the B x |M| taus (2000).
    alpha
        Significance level of the test.
    groups
        Families compared by the test (the paper: aggregations within a browsing model,
        ``groups=meta.browsing_model``); default one family of all measures.
    topics
        ``'strict'`` or ``'intersection'``.
    agreement
        What compares the two halves' rankings: ``'tau'`` (Kendall's tau-b, the paper's,
        default), ``'tau_ap'`` (averaged over both directions, as neither half is the truth)
        or ``'rbo'`` (RBO_ext with ``persistence``); :mod:`ir_cwla.meta.agreement`.
    executor, n_jobs, scheduler
        Where the chunks of splits and of test trials run (default
        in-process; see :func:`ir_cwla.meta.get_executor`). The test's trials are only
        counted, chunk by chunk (memory independent of ``test_trials``); either phase
        estimated to take longer than :data:`ir_cwla.analysis.montecarlo.WARN_AFTER_SECONDS` says
        so with a warning after its first task.
    progress
        Show tqdm progress bars (in trials).
    """
    trials = streams.check_trials(trials)
    test_trials = streams.check_trials(test_trials, "test_trials")
    alpha = check_alpha(alpha)
    agreement, persistence = agreements.check_agreement(agreement, persistence)
    cube = to_cube(per_query, topics, min_measures=2)
    n_m, n_t, n_s = cube.values.shape
    # the taus are kept (trials x measures floats), with a copy each for the frame and the tests
    montecarlo.check_result_memory("consistency", trials, 3 * 8 * n_m, f"taus ({n_m} measures, float64)")
    workers = get_executor(executor, n_jobs=n_jobs, scheduler=scheduler)
    root = streams.as_seed_sequence(seed)

    taus = split_matrix(cube.values, trials, root, workers, agreement, persistence, progress=progress)
    undefined = np.isnan(taus)
    degenerate = pd.Series(undefined.sum(axis=0), index=list(cube.measures), name="degenerate")
    if undefined.any():
        worst = degenerate.idxmax()
        warnings.warn(f"{int(undefined.sum())} (split, measure) cases with one half tying all systems count as "
                      f"tau = 0 (most: {worst}, {int(degenerate.max())} of {trials} splits)", UndefinedStatisticWarning,
                      stacklevel=2)
        taus = np.where(undefined, 0.0, taus)
    frame = pd.DataFrame(taus, columns=list(cube.measures))
    frame.index.name = "trial"

    families = resolve_groups(cube.measures, groups)
    p_values = family_tests(frame, families, test_trials, streams.derive(root, streams.CONSISTENCY_TEST_STREAM),
                            workers, progress)
    return Consistency(taus=frame, p_values=p_values, groups=families, alpha=alpha, trials=trials,
                       test_trials=test_trials, seed=seed, degenerate=degenerate,
                       labels=naming.resolve_labels(list(cube.measures), labels), agreement=agreement)


# -- the criterion ------------------------------------------------------------------------------

def _section(result: Consistency, summary: pd.DataFrame) -> list:
    return [criteria.Text(f"{result.trials} random splits of the topics into two halves; for each, tau between the "
                          "system rankings on the two halves. Higher is more consistent. 'outperforms': the number "
                          f"of measures of the family it beats significantly (randomised Tukey HSD, "
                          f"{result.test_trials} trials, alpha = {result.alpha:g})."),
            criteria.Figure(result.plot, "tau between topic halves, per measure", "consistency.png"),
            criteria.Table(summary, "consistency (sorted by mean tau within each family)", "consistency.csv")]


CRITERION = criteria.register_criterion(criteria.Criterion(
    "consistency", "system ranking consistency",
    "Does a measure rank the systems the same way on two random halves of the topics?",
    compute=lambda inputs, trials, test_trials: consistency(
        inputs.per_query, trials=trials, test_trials=test_trials, **criteria.shared_settings(inputs)),
    summary=lambda result, inputs, **options: result.table().drop(columns=["better_than"]),
    section=_section,
    options=(criteria.Option("trials", 1000, "random splits of the topics into two halves", check=streams.check_trials),
             criteria.Option("test_trials", 2000, "permutations of the randomised Tukey HSD tests",
                             check=streams.check_trials)), best=("mean_tau", True), order=20), replace=True)
