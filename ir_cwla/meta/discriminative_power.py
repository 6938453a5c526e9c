"""Discriminative power (Sakai 2006; Chen & Sakai, Section 6; Figure 4).

For each measure, test every pair of systems on the topics x systems score matrix and count
the pairs whose difference is significant at ``alpha``. The default test is the randomised
Tukey HSD test (Carterette 2012; Sakai's Discpower tool), which compares every pair against
the distribution of the largest difference among all systems (:mod:`ir_cwla.meta.tukey`);
the per-pair paired randomisation test and the paired t-test are offered for comparison
(:mod:`ir_cwla.meta.pairwise`). The sorted p-values of a measure are its achieved
significance level (ASL) curve: the closer to the origin, the more discriminative.

All measures use the same permutations (common random numbers), so a measure's p-values do
not depend on which other measures are analysed with it.
"""
from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Optional

import numpy as np
import pandas as pd

from ir_cwla.meta import naming, pairwise, streams, tukey
from ir_cwla.meta.executors import get_executor, item_blocks
from ir_cwla.meta.frame import Groups, TopicPolicy, check_alpha, resolve_groups, to_cube

Test = Literal["tukey", "randomisation", "t-test"]
TESTS = ("tukey", "randomisation", "t-test")

def _tukey_task(values: np.ndarray, task: tuple[Any, Sequence[int], int, int]) -> np.ndarray:
    seed, measures, index, size = task
    return tukey.chunk_ranges(values[list(measures)], seed, index, size)


def _randomisation_task(values: np.ndarray, task: tuple[Any, Sequence[int], int, int]) -> np.ndarray:
    seed, measures, index, size = task
    a, b = pairwise.pair_indices(values.shape[2])
    return np.stack([pairwise.chunk_exceedances(values[m][:, a] - values[m][:, b], seed, index, size)
                     for m in measures])


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
        return list(dict.fromkeys(self.pairs["measure"]))

    def p_values(self, measure: str) -> pd.DataFrame:
        """The systems x systems p-value matrix of one measure (diagonal 1)."""
        rows = self.pairs[self.pairs["measure"] == measure]
        systems = sorted(set(rows["system_a"]) | set(rows["system_b"]))
        out = pd.DataFrame(1.0, index=systems, columns=systems)
        for a, b, p in zip(rows["system_a"], rows["system_b"], rows["p_value"]):
            out.at[a, b] = out.at[b, a] = p
        return out

    def table(self) -> pd.DataFrame:
        """Per measure (sorted by discriminative power within each family): the number and share of
        system pairs with p < alpha, and the smallest significant difference in mean score."""
        sig = self.pairs["p_value"] < self.alpha
        rows = []
        for group, members in self.groups.items():
            part = []
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
        """ASL curves: the sorted p-values of each measure (rows: pair rank 1..P; columns: measures)."""
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
    per_query: ``pt.Experiment(..., perquery=True)`` frame (``name, qid, measure, value``).
    trials: permutations of the randomised tests (the paper: 2000); ignored by the t-test.
    alpha: significance level.
    seed: int or ``SeedSequence``; exactly reproducible.
    test: ``'tukey'`` (randomised Tukey HSD, the paper's), ``'randomisation'`` (paired
        randomisation test per pair) or ``'t-test'`` (paired t-test per pair).
    groups: families for the table and the ASL panels (e.g. ``meta.browsing_model``).
    topics: ``'strict'`` or ``'intersection'``.
    executor, n_jobs, scheduler: where the (measure block, trial chunk) tasks run (default
        in-process; see :func:`ir_cwla.meta.get_executor`).
    progress: show a tqdm progress bar.
    """
    alpha = check_alpha(alpha)
    if test not in TESTS:
        raise ValueError(f"test must be one of {TESTS}, got {test!r}")
    trials = streams.check_trials(trials)
    cube = to_cube(per_query, topics)
    values = cube.values
    n_m, n_t, n_s = values.shape
    a, b = pairwise.pair_indices(n_s)
    run = get_executor(executor, n_jobs=n_jobs, scheduler=scheduler)
    root = streams.as_seed_sequence(seed)

    sizes = streams.chunk_sizes(trials, streams.trial_chunk(n_t * n_s) if test == "tukey" else streams.CHUNK)
    blocks = item_blocks(n_m, len(sizes), run.parallelism, tasks_per_worker=4)
    tasks = [(root, block, i, n) for block in blocks for i, n in enumerate(sizes)]
    p = np.empty((n_m, len(a)))
    if test == "tukey":
        parts = run.map(_tukey_task, values, tasks, desc="Tukey HSD", progress=progress)
        ranges = np.empty((n_m, trials))
        starts = np.cumsum([0] + sizes)
        for (_, block, i, _n), part in zip(tasks, parts):
            ranges[list(block), starts[i]:starts[i + 1]] = part
        for m in range(n_m):
            p[m] = tukey.p_values_from_ranges(values[m], ranges[m])[a, b]
    elif test == "randomisation":
        parts = run.map(_randomisation_task, values, tasks, desc="randomisation test", progress=progress)
        counts = np.zeros((n_m, len(a)))
        for (_, block, _i, _n), part in zip(tasks, parts):
            counts[list(block)] += part
        p = counts / trials
    else:
        for m in range(n_m):
            p[m] = pairwise.paired_t_test(values[m])[a, b]

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
