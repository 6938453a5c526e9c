"""Discriminative power (Sakai 2006; Chen & Sakai, Section 6; Figure 4).

For each measure, test every pair of systems on the topics x systems score matrix and count
the pairs whose difference is significant at ``alpha``. The default test is the randomised
Tukey HSD test, two-way (Carterette 2012; Sakai's Discpower tool), which compares every pair
against the distribution of the largest difference among all systems permuted within each
topic (:mod:`ir_cwla.analysis.tukey`); every other test of the registry
(:data:`ir_cwla.analysis.significance.TESTS`: the paired randomisation test, the t-test, ...,
or one registered later) can be asked for by name, the paired ones without correction for
multiple comparisons. The sorted p-values of a measure are its achieved significance level
(ASL) curve: the closer to the origin, the more discriminative. A randomised test's p-values are
``(count + 1) / (trials + 1)`` (never 0) and carry their Monte-Carlo sd (``p_mc_sd``).

All measures use the same permutations (common random numbers), so a measure's p-values do
not depend on which other measures are analysed with it.
"""
from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any, Optional, Union

import numpy as np
import pandas as pd

from ir_cwla.analysis import naming, pairwise, significance, streams, tukey
from ir_cwla.analysis.executors import get_executor
from ir_cwla.analysis.frame import Groups, TopicPolicy, centred, check_alpha, resolve_groups, to_cube
from ir_cwla.meta import criteria

#: The tests discriminative power takes: every registered test of these kinds.
KINDS = ("all-pairs", "paired")
#: Its default test: the paper's randomised Tukey HSD test (two-way).
DEFAULT_TEST = "randomised-tukey-hsd"
Test = Union[str, significance.StatisticalTest]


def check_test(value: Any, what: str = "test") -> str:
    """The registered test's name ``value`` names (name or alias), or a clear error."""
    return significance.get_test(value, KINDS, what=what).name


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

    @property
    def declaration(self) -> significance.StatisticalTest:
        """The test's declaration in the registry."""
        return significance.get_test(self.test)

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
                         seed: streams.Seed = 0, *, test: Test = DEFAULT_TEST, groups: Groups = None,
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
        A registered test's name or alias (:data:`ir_cwla.analysis.significance.TESTS`):
        ``'randomised-tukey-hsd'`` (alias ``'tukey'``: the randomised Tukey HSD test, two-way, the
        paper's), ``'randomisation'`` (paired randomisation test per pair), ``'t'`` (alias
        ``'t-test'``: paired t-test per pair), ... or a test registered since; per-pair tests are
        not corrected for multiple comparisons.
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
    chosen = significance.get_test(test, KINDS)
    trials = streams.check_trials(trials)
    root = streams.as_seed_sequence(seed)
    cube = to_cube(per_query, topics)
    values = cube.values
    n_m, n_t, n_s = values.shape
    a, b = pairwise.pair_indices(n_s)
    workers = get_executor(executor, n_jobs=n_jobs, scheduler=scheduler)
    tols = np.array([tukey.tolerance(centred(matrix)) for matrix in values])
    sample = significance.Sample(values, np.asarray(b, dtype=np.intp), np.asarray(a, dtype=np.intp), tols, trials,
                                 root, workers, progress=progress)
    result = significance.run(chosen, sample)
    p = result.p_value

    means = values.mean(axis=1)                          # (M, S)
    systems = np.asarray(cube.systems, dtype=object)
    pairs = pd.DataFrame({
        "measure": np.repeat(np.asarray(cube.measures, dtype=object), len(a)),
        "system_a": np.tile(systems[a], n_m), "system_b": np.tile(systems[b], n_m),
        "mean_a": means[:, a].ravel(), "mean_b": means[:, b].ravel(),
        "delta": (means[:, a] - means[:, b]).ravel(), "p_value": p.ravel(), "p_mc_sd": result.mc_sd.ravel()})
    return DiscriminativePower(pairs=pairs, alpha=alpha, test=chosen.name, trials=trials, seed=seed, n_topics=n_t,
                               groups=resolve_groups(cube.measures, groups),
                               labels=naming.resolve_labels(list(cube.measures), labels))


# -- the criterion ------------------------------------------------------------------------------

def _section(result: DiscriminativePower, summary: pd.DataFrame) -> list:
    test = result.declaration
    trials = f", {result.trials:,} trials" if test.randomised else ""
    return [criteria.Text(f"p-values of all system pairs ({test.label}{trials}) over "
                          f"{result.n_topics} topics; a measure is more discriminative when more pairs differ "
                          f"significantly at alpha = {result.alpha:g}."),
            criteria.Figure(result.plot_asl, "achieved significance level (ASL) curves", "discriminative_power.png"),
            criteria.Table(summary, "significant system pairs per measure", "discriminative_power.csv", precision=4)]


CRITERION = criteria.register_criterion(criteria.Criterion(
    "discriminative_power", "discriminative power",
    "How many system pairs does a measure tell apart significantly (randomised Tukey HSD, two-way)?",
    compute=lambda inputs, trials, test: discriminative_power(inputs.per_query, trials=trials, test=test,
                                                              **criteria.shared_settings(inputs)),
    summary=lambda result, inputs, **options: result.table(), section=_section, precision=4,
    options=(criteria.Option("trials", 2000, "permutations of the randomised Tukey HSD tests", cli="test_trials",
                             check=streams.check_trials),
             criteria.Option("test", DEFAULT_TEST, "discriminative power's test: a registered test's name "
                             "(ir_cwla.analysis.significance.TESTS; default the randomised Tukey HSD test, two-way)",
                             cli="discriminative_power_test", check=check_test, metavar="TEST")), best=("significant", True), order=30),
    replace=True)
