"""Discriminative power (Sakai 2006; Chen & Sakai, Section 6; Figure 4).

For each measure, test every pair of systems on the topics x systems score matrix and count
the pairs whose difference is significant at ``alpha``. The default test is the randomised
Tukey HSD test (Carterette 2012; Sakai's Discpower tool), which compares every pair against
the distribution of the largest difference among all systems (:mod:`ir_cwla.analysis.tukey`);
the per-pair paired randomisation test and the paired t-test are offered for comparison
(:mod:`ir_cwla.analysis.pairwise`). The sorted p-values of a measure are its achieved
significance level (ASL) curve: the closer to the origin, the more discriminative.

All measures use the same permutations (common random numbers), so a measure's p-values do
not depend on which other measures are analysed with it.
"""
from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any, Literal, Optional

import numpy as np
import pandas as pd

from ir_cwla.analysis import naming, pairwise, streams, tukey
from ir_cwla.analysis.executors import get_executor
from ir_cwla.analysis.frame import Groups, TopicPolicy, check_alpha, resolve_groups, to_cube
from ir_cwla.errors import ParameterError
from ir_cwla.meta import criteria

Test = Literal["tukey", "randomisation", "t-test"]
TESTS = ("tukey", "randomisation", "t-test")


@dataclass
class DiscriminativePower:
    """p-values of every system pair under every measure, and their summaries."""

    pairs: pd.DataFrame
    alpha: float
    test: str
    trials: int
    seed: Any
    n_topics: int
    groups: dict[Hashable, list[str]]
    labels: dict[str, str] = field(default_factory=dict)

    @property
    def measures(self) -> list[str]:
        """The measures, in the order of the table."""
        return list(dict.fromkeys(self.pairs["measure"]))

    def p_values(self, measure: str) -> pd.DataFrame:
        """The systems x systems p-value matrix of one measure (its name or its label; diagonal 1)."""
        by_label = {label: m for m, label in self.labels.items()}
        measure = measure if measure in self.measures else by_label.get(measure, measure)
        rows = self.pairs[self.pairs["measure"] == measure]
        systems = sorted(set(rows["system_a"]) | set(rows["system_b"]))
        out = pd.DataFrame(1.0, index=systems, columns=systems)
        for a, b, p in zip(rows["system_a"], rows["system_b"], rows["p_value"]):
            out.at[a, b] = out.at[b, a] = p
        return out

    def table(self) -> pd.DataFrame:
        """Per measure (sorted by discriminative power within each family).

        The number and share of system pairs with p < alpha, and the smallest significant
        difference in mean score.
        """
        sig = self.pairs["p_value"] < self.alpha
        rows = []
        for group, members in self.groups.items():
            part: list[dict[str, Any]] = []
            for m in members:
                mask = (self.pairs["measure"] == m).to_numpy()
                n = int(mask.sum())
                hits = int(sig[mask].sum())
                deltas = self.pairs.loc[mask & sig.to_numpy(), "delta"].abs()
                part.append({"group": group, "measure": self.labels.get(m, m), "canonical": naming.is_canonical(m),
                             "pairs": n, "significant": hits, "share": hits / n,
                             "min_delta": float(deltas.min()) if hits else float("nan")})
            rows.extend(sorted(part, key=lambda r: -r["significant"]))
        return pd.DataFrame(rows)

    def asl(self) -> pd.DataFrame:
        """ASL curves.

        The sorted p-values of each measure (rows: pair rank 1..P; columns: the
        measures, named by their labels as in every table).
        """
        curves = self.curves()
        return curves.set_axis([self.labels.get(m, m) for m in curves.columns], axis=1)

    def curves(self) -> pd.DataFrame:
        """:meth:`asl` with the columns named as the per-query frame names the measures (``str(measure)``)."""
        curves = {m: np.sort(self.pairs.loc[self.pairs["measure"] == m, "p_value"].to_numpy())
                  for m in self.measures}
        out = pd.DataFrame(curves)
        out.index = pd.RangeIndex(1, len(out) + 1, name="pair_rank")
        return out

    def plot_asl(self, **kwargs):
        """ASL curves, one panel per family (Figure 4). Returns the Figure."""
        from ir_cwla.meta.plots import plot_asl

        return plot_asl(self, **kwargs)


def discriminative_power(per_query: pd.DataFrame, trials: int = 2000, alpha: float = 0.05,
                         seed: streams.Seed = 0, *, test: Test = "tukey", groups: Groups = None,
                         topics: TopicPolicy = "strict", labels: naming.Labels = None,
                         executor: Any = None, n_jobs: Optional[int] = None,
                         scheduler: Optional[str] = None, progress: bool = True) -> DiscriminativePower:
    """p-values of every system pair under every measure, with the count of significant pairs.

    Parameters
    ----------
    per_query
        ``pt.Experiment(..., perquery=True)`` frame (``name, qid, measure, value``).
    trials
        Permutations of the randomised tests (the paper: 2000); ignored by the t-test.
    alpha
        Significance level.
    seed
        Int or ``SeedSequence``; exactly reproducible.
    test
        ``'tukey'`` (randomised Tukey HSD, the paper's), ``'randomisation'`` (paired
        randomisation test per pair) or ``'t-test'`` (paired t-test per pair).
    groups
        Families for the table and the ASL panels (e.g. ``meta.browsing_model``).
    topics
        ``'strict'`` or ``'intersection'``.
    executor, n_jobs, scheduler
        Where the (measure block, trial chunks) tasks run (default
        in-process; see :func:`ir_cwla.meta.get_executor`). Trials are only counted, chunk by
        chunk, so memory does not grow with ``trials``; a run estimated to take longer than
        :data:`ir_cwla.analysis.montecarlo.WARN_AFTER_SECONDS` says so with a warning after its
        first task.
    progress
        Show a tqdm progress bar (in trials).
    """
    alpha = check_alpha(alpha)
    if test not in TESTS:
        raise ParameterError(f"test must be one of {TESTS}, got {test!r}")
    trials = streams.check_trials(trials)
    root = streams.as_seed_sequence(seed)
    cube = to_cube(per_query, topics)
    values = cube.values
    n_m, n_t, n_s = values.shape
    a, b = pairwise.pair_indices(n_s)
    workers = get_executor(executor, n_jobs=n_jobs, scheduler=scheduler)
    if test == "tukey":
        p = tukey.stack_p_values(values, trials, root, workers, what="Tukey HSD", progress=progress)
    elif test == "randomisation":
        p = pairwise.stack_p_values(values, trials, root, workers, what="randomisation test", progress=progress)
    else:
        p = np.stack([pairwise.paired_t_test(matrix)[a, b] for matrix in values])

    means = values.mean(axis=1)                          # (M, S)
    systems = np.asarray(cube.systems, dtype=object)
    pairs = pd.DataFrame({
        "measure": np.repeat(np.asarray(cube.measures, dtype=object), len(a)),
        "system_a": np.tile(systems[a], n_m), "system_b": np.tile(systems[b], n_m),
        "mean_a": means[:, a].ravel(), "mean_b": means[:, b].ravel(),
        "delta": (means[:, a] - means[:, b]).ravel(), "p_value": p.ravel()})
    return DiscriminativePower(pairs=pairs, alpha=alpha, test=test, trials=trials, seed=seed, n_topics=n_t,
                               groups=resolve_groups(cube.measures, groups),
                               labels=naming.resolve_labels(list(cube.measures), labels))


# -- the criterion ------------------------------------------------------------------------------

def _section(result: DiscriminativePower, summary: pd.DataFrame) -> list:
    return [criteria.Text(f"p-values of all system pairs ({result.test}, {result.trials} trials) over "
                          f"{result.n_topics} topics; a measure is more discriminative when more pairs differ "
                          f"significantly at alpha = {result.alpha:g}."),
            criteria.Figure(result.plot_asl, "achieved significance level (ASL) curves", "discriminative_power.png"),
            criteria.Table(summary, "significant system pairs per measure", "discriminative_power.csv", precision=4)]


CRITERION = criteria.register_criterion(criteria.Criterion(
    "discriminative_power", "discriminative power",
    "How many system pairs does a measure tell apart significantly (randomised Tukey HSD)?",
    compute=lambda inputs, trials: discriminative_power(inputs.per_query, trials=trials,
                                                        **criteria.shared_settings(inputs)),
    summary=lambda result, inputs, **options: result.table(), section=_section, precision=4,
    options=(criteria.Option("trials", 2000, "permutations of the randomised Tukey HSD tests", cli="test_trials",
                             check=streams.check_trials),), order=30), replace=True)
