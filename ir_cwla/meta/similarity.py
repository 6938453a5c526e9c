"""System ranking similarity between measures (Chen & Sakai, Section 4; Figure 2).

Each measure ranks the systems by their mean score over the topics; two measures are
compared by Kendall's tau-b between their rankings (ties handled), with a confidence
interval from Fisher's z-transform and the variance ``0.437 / (n - 4)`` of Fieller, Hartley
and Pearson (1957), ``n`` the number of systems (see :mod:`ir_cwla.meta.kendall`).
"""
from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
import pandas as pd

from ir_cwla.analysis import naming
from ir_cwla.analysis.frame import Groups, TopicPolicy, resolve_groups, to_cube
from ir_cwla.errors import DataError, ParameterError, UndefinedStatisticWarning
from ir_cwla.meta import agreement as agreements
from ir_cwla.meta import criteria, kendall


@dataclass
class Similarity:
    """Kendall's tau-b between the system rankings of every two measures.

    ``tau``, ``ci_low``, ``ci_high``: measures x measures frames (indexed by measure name);
    ``means``: systems x measures mean scores; ``groups``: the families shown by
    :meth:`table` and :meth:`plot`.
    """

    tau: pd.DataFrame
    ci_low: pd.DataFrame
    ci_high: pd.DataFrame
    means: pd.DataFrame
    level: float
    groups: dict[Hashable, list[str]]
    labels: dict[str, str] = field(default_factory=dict)
    #: the statistic in ``tau`` (``'tau'``: Kendall's tau-b; ``'tau_ap'``, ``'rbo'``: see
    #: :mod:`ir_cwla.meta.agreement`; for those ``ci_low``/``ci_high`` are NaN)
    agreement: str = "tau"

    @property
    def n_systems(self) -> int:
        """The number of systems ranked."""
        return len(self.means)

    def single_families(self) -> list[Hashable]:
        """The families that hold one measure.

        Nothing to compare within them (left out of :meth:`table` and
        :meth:`plot`).
        """
        return [g for g, members in self.groups.items() if len(members) < 2]

    def note(self) -> str:
        """What :meth:`table` and :meth:`plot` leave out, and why, in a sentence ('' if nothing)."""
        alone = self.single_families()
        if not alone:
            return ""
        shown = ", ".join(self.labels.get(self.groups[g][0], self.groups[g][0]) for g in alone)
        if len(alone) == len(self.groups):
            return (f"nothing to compare: every family holds one measure ({shown}); compare every measure with "
                    "every other with groups=None (ir-cwla meta --groups all)")
        return f"left out: {shown} (famil{'ies' if len(alone) > 1 else 'y'} of one measure, nothing to compare within)"

    def table(self, within_groups: bool = True) -> pd.DataFrame:
        """One row per pair of measures (within each family unless ``within_groups=False``).

        Families of one measure have no pair: :meth:`note` (also in ``table().attrs['note']``)
        names them.
        """
        rows = []
        families = self.groups.items() if within_groups else [("all", list(self.tau.index))]
        for group, members in families:
            for i, a in enumerate(members):
                for b in members[i + 1:]:
                    rows.append({"group": group, "measure_a": self.labels.get(a, a),
                                 "measure_b": self.labels.get(b, b), "tau": self.tau.at[a, b],
                                 "ci_low": self.ci_low.at[a, b], "ci_high": self.ci_high.at[a, b]})
        out = pd.DataFrame(rows, columns=["group", "measure_a", "measure_b", "tau", "ci_low", "ci_high"])
        if within_groups and self.note():
            out.attrs["note"] = self.note()
        return out

    def matrix(self, group: Optional[Hashable] = None, digits: int = 3) -> pd.DataFrame:
        """Lower-triangular text matrix ``tau (low, high)`` of one family (as in Figure 2)."""
        members = list(self.tau.index) if group is None else self.groups[group]
        names = [self.labels.get(m, m) for m in members]
        out = pd.DataFrame("", index=names, columns=names)
        for i, a in enumerate(members):
            for j, b in enumerate(members[: i + 1]):
                if i == j:
                    out.iat[i, j] = f"{1:.{digits}f}"
                else:
                    out.iat[i, j] = (f"{self.tau.at[a, b]:.{digits}f} "
                                     f"({self.ci_low.at[a, b]:.{digits}f}, {self.ci_high.at[a, b]:.{digits}f})")
        return out

    def plot(self, **kwargs):
        """Heat-maps of tau with the CIs, one panel per family (Figure 2). Returns the Figure."""
        from ir_cwla.meta.plots import plot_similarity

        return plot_similarity(self, **kwargs)


def similarity(per_query: pd.DataFrame, *, level: float = 0.95, groups: Groups = None,
               topics: TopicPolicy = "strict", labels: naming.Labels = None,
               agreement: agreements.Agreement = "tau",
               persistence: float = agreements.PERSISTENCE) -> Similarity:
    """Kendall's tau-b between the system rankings (by mean score) of every two measures.

    Parameters
    ----------
    per_query
        ``pt.Experiment(..., perquery=True)`` frame (``name, qid, measure, value``).
    level
        Confidence level of the intervals (Fisher z, Fieller-Hartley-Pearson variance).
    groups
        Families for :meth:`Similarity.table` / :meth:`Similarity.plot` (e.g.
        :func:`ir_cwla.meta.browsing_model`); tau is computed for all pairs regardless.
    topics
        ``'strict'`` or ``'intersection'`` (see :func:`ir_cwla.analysis.frame.to_cube`).
    labels
        Display names (default: :func:`ir_cwla.short_name`).
    agreement
        ``'tau'`` (Kendall's tau-b, the paper's, default), or the top-weighted
        ``'tau_ap'`` (averaged over both directions, as neither measure is the truth) or
        ``'rbo'`` (RBO_ext with ``persistence``); :mod:`ir_cwla.meta.agreement`. The
        confidence intervals exist for tau only (NaN otherwise).

    Raises
    ------
    ParameterError
        ``level`` outside (0, 1).
    DataError
        Fewer than 2 systems, topics or measures, or a measure that gives every system the
        same mean score (its ranking, hence tau, is undefined).
    """
    if not 0 < level < 1:
        raise ParameterError(f"level must lie in (0, 1), got {level}")
    agreement, persistence = agreements.check_agreement(agreement, persistence)
    cube = to_cube(per_query, topics, min_measures=2)
    means = cube.means()
    tau = kendall.tau_b_matrix(means.to_numpy())
    constant = [m for m, ok in zip(cube.measures, np.isfinite(np.diag(tau))) if not ok]
    if constant:
        raise DataError(f"measures {constant} give every system the same mean score: their system ranking is "
                         "a single tie and Kendall's tau is undefined; drop them")
    n = len(cube.systems)
    if agreement != "tau":                    # tau_AP and RBO come without confidence intervals
        tau = agreements.matrix(agreement, means.to_numpy(), persistence)
        low, high = np.full_like(tau, np.nan), np.full_like(tau, np.nan)
    else:
        if n < 5:
            import warnings

            warnings.warn(f"only {n} systems: the confidence intervals of tau (which need n > 4) are NaN",
                          UndefinedStatisticWarning, stacklevel=2)
        low, high = kendall.fieller_ci(tau, n, level)

    def frame(a: np.ndarray) -> pd.DataFrame:
        return pd.DataFrame(a, index=list(cube.measures), columns=list(cube.measures))

    return Similarity(tau=frame(tau), ci_low=frame(low), ci_high=frame(high), means=means, level=level,
                      groups=resolve_groups(cube.measures, groups),
                      labels=naming.resolve_labels(list(cube.measures), labels), agreement=agreement)


# -- the criterion ------------------------------------------------------------------------------

def _section(result: Similarity, summary: pd.DataFrame) -> list:
    intro = criteria.Text(f"Kendall's tau-b between the system rankings ({result.n_systems} systems, by mean score) "
                          f"of every two measures of a family, with {result.level:.0%} confidence intervals.")
    note = result.note()
    if len(result.single_families()) == len(result.groups):
        return [intro, criteria.Text(note[0].upper() + note[1:] + ".")]
    left_out = f" ({note})" if note else ""
    return [intro,
            criteria.Figure(result.plot, "Kendall's tau between the rankings of the measures of each family"
                            + left_out, "similarity.png"),
            criteria.Table(summary, "tau for every pair of measures within a family" + left_out, "similarity.csv")]


CRITERION = criteria.register_criterion(criteria.Criterion(
    "similarity", "system ranking similarity",
    "How alike do two measures rank the systems (Kendall's tau-b between their rankings)?",
    compute=lambda inputs: similarity(inputs.per_query, groups=inputs.groups),
    summary=lambda result, inputs: result.table(), section=_section, per_measure=False, order=10), replace=True)
