"""Do the measures agree with the users? Correlation of each measure's scores with users' ratings.

Sakai (2021) asks of a good measure that it stands in for what users feel; Moffat, Mackenzie,
Thomas & Azzopardi (2022, "A flexible framework for offline effectiveness metrics", SIGIR) meta-
evaluated the C/W/L/A aggregations by their correlation with users' satisfaction.
:func:`user_agreement` gives, for every measure of a per-query frame, the correlation of its
scores with the users' ratings (:mod:`ir_cwla.meta.ratings` pairs them: one unit per rated query,
or per session), with bootstrap intervals, and says which measures agree significantly better
than which:

- Pearson's r, Spearman's rho and Kendall's tau-b (:mod:`ir_cwla.meta.correlation`), each with a
  percentile bootstrap interval (``numpy.nanquantile``, linear) over ``trials`` replicates. The
  bootstrap resamples the units, or, where the ratings say who gave them (a ``user`` column), the
  users with all their units (a cluster bootstrap: one user's ratings are not independent);
- comparisons of two measures' correlations with the same ratings (one ``statistic``): the
  difference with the percentile interval of its paired bootstrap replicates (the same
  replicates for both measures) and a two-sided bootstrap p-value,
  ``min(1, 2 min((#{d* <= 0} + 1), (#{d* >= 0} + 1)) / (B + 1))`` over the ``B`` replicates on
  which both are defined (never 0, Phipson & Smyth 2010); and Williams' t (Steiger 1980) for
  Pearson's r (for Spearman's rho on the ranks, an approximation; none for Kendall's tau), which
  assumes independent units (it ignores users). ``test`` chooses which p-value is adjusted by
  Holm's correction over all the pairs compared (every pair within each family of ``groups``).

Replicates are drawn in the chunks of :mod:`ir_cwla.analysis.streams`: chunk ``c`` draws
``Generator.integers(0, G, size=(chunk, G))`` cluster indices from
``default_rng(SeedSequence(seed, spawn_key=(USER_AGREEMENT_STREAM, c)))`` for the ``G`` clusters
in sorted order of their ids, so a result depends on the seed and the data only (not on the
rows' order). A replicate on which a statistic is undefined (a measure or the ratings constant
over the units drawn) is left out of its interval (``defined`` says how many counted).
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np
import pandas as pd

from ir_cwla.analysis import naming, pvalues, streams
from ir_cwla.analysis.adjust import adjust
from ir_cwla.analysis.frame import Groups, check_alpha, resolve_groups
from ir_cwla.errors import DataError, ParameterError, UndefinedStatisticWarning
from ir_cwla.meta import correlation, criteria, ratings

#: ``test=`` values: which p-value of a comparison of two measures is Holm-adjusted.
TESTS = ("bootstrap", "williams")


def cluster_counts(n_clusters: int, rng: np.random.Generator, size: int) -> np.ndarray:
    """(size, G): how often each cluster is drawn in ``size`` bootstrap replicates (G draws each)."""
    idx = rng.integers(0, n_clusters, size=(size, n_clusters))
    counts = np.bincount((idx + n_clusters * np.arange(size)[:, None]).ravel(), minlength=size * n_clusters)
    return counts.reshape(size, n_clusters).astype(np.float64)


def bootstrap(scores: np.ndarray, y: np.ndarray, clusters: np.ndarray, trials: int, seed: streams.Seed,
              statistics: Sequence[str] = correlation.STATISTICS, stream: int = streams.USER_AGREEMENT_STREAM,
              part: Optional[int] = None) -> dict[str, np.ndarray]:
    """``{statistic: (trials, M)}`` replicates of the correlations of ``scores`` (n, M) with ``y``."""
    n_clusters = int(clusters.max()) + 1
    out: dict[str, list[np.ndarray]] = {s: [] for s in statistics}
    key = (stream,) if part is None else (stream, part)
    for c, size in enumerate(streams.chunk_sizes(trials)):
        rng = np.random.default_rng(streams.derive(seed, *key, c))
        for s, values in correlation.clustered(cluster_counts(n_clusters, rng, size), clusters, scores, y,
                                               statistics).items():
            out[s].append(values)
    return {s: np.concatenate(v, axis=0) for s, v in out.items()}


def percentile_interval(replicates: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per column: the percentile interval of the defined replicates, and how many were defined."""
    defined = np.isfinite(replicates).sum(axis=0)
    q = [(1 - level) / 2, (1 + level) / 2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)            # an all-NaN column: NaN bounds
        low, high = np.nanquantile(replicates, q, axis=0)
    return low, high, defined


def bootstrap_p(differences: np.ndarray) -> np.ndarray:
    """Two-sided bootstrap p-values of differences (trials, P): never 0 (Phipson & Smyth 2010)."""
    defined = np.isfinite(differences)
    b = defined.sum(axis=0)
    below = ((differences <= 0) & defined).sum(axis=0)
    above = ((differences >= 0) & defined).sum(axis=0)
    # the one Monte-Carlo rule, (count + 1) / (trials + 1) (ir_cwla.analysis.pvalues), doubled for two sides
    p = np.minimum(1.0, 2.0 * pvalues.monte_carlo_p(np.minimum(below, above), b))
    return np.where(b > 0, p, np.nan)


def point_estimates(scores: np.ndarray, y: np.ndarray) -> dict[str, np.ndarray]:
    """The statistics of the data itself, from scipy (``pearsonr``, ``spearmanr``, ``kendalltau``, tau-b)."""
    from scipy import stats

    out = {s: np.full(scores.shape[1], np.nan) for s in correlation.STATISTICS}
    for m in range(scores.shape[1]):
        x = scores[:, m]
        if np.all(x == x[0]):
            continue
        out["pearson"][m] = stats.pearsonr(x, y).statistic
        out["spearman"][m] = stats.spearmanr(x, y).statistic
        out["kendall"][m] = stats.kendalltau(x, y, variant="b").statistic
    return out


def williams(scores: np.ndarray, y: np.ndarray, a: np.ndarray, b: np.ndarray, statistic: str
             ) -> tuple[np.ndarray, np.ndarray]:
    """Williams' t and p of the pairs ``(a, b)`` of columns (Pearson's r; Spearman's on the ranks; NaN for Kendall)."""
    if statistic == "kendall" or not len(a):
        return np.full(len(a), np.nan), np.full(len(a), np.nan)
    from scipy import stats

    data = np.column_stack([y, scores])
    if statistic == "spearman":
        data = stats.rankdata(data, axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.corrcoef(data, rowvar=False)
    t, p = correlation.williams_t(r[0, a + 1], r[0, b + 1], r[a + 1, b + 1], len(y))
    # Two measures whose scores are a positive affine map of each other (P_ERG = P_avg = P_ETG / 10
    # at a cutoff; RBP_ERG = RBP_ETG / V+) have the same correlation with the ratings: their
    # difference is 0 exactly, but rounding leaves r_a - r_b and Williams' denominator (|R| and
    # 1 - r_ab, both 0) at ~1e-16, and their ratio would be any t at all (a "significant"
    # difference between one measure and itself, changing with the BLAS and numpy's summation).
    # Such a pair has r_ab = 1 (on the ranks for Spearman's), which is what is tested.
    alike = r[a + 1, b + 1] >= 1 - 1e-12
    return np.where(alike, 0.0, t), np.where(alike, 1.0, p)


@dataclass
class UserAgreement:
    """What :func:`user_agreement` found.

    ``estimates``: measures x (``pearson``, ``pearson_low``, ``pearson_high``, ``pearson_defined``,
    the same for ``spearman`` and ``kendall``); ``replicates``: ``{statistic: (trials, M)}``;
    ``comparisons``: one row per pair of measures compared (:meth:`comparisons_table`);
    ``units``: the paired data (:class:`ir_cwla.meta.ratings.Units`).
    """

    estimates: pd.DataFrame
    replicates: dict[str, np.ndarray]
    comparisons: pd.DataFrame
    units: ratings.Units
    groups: dict[Hashable, list[str]]
    labels: dict[str, str]
    level: float
    trials: int
    statistic: str
    test: str
    alpha: float
    notes: list[str] = field(default_factory=list)

    @property
    def measures(self) -> list[str]:
        """The measures, in the frame's measure order."""
        return list(self.estimates.index)

    def describe(self) -> str:
        """What was correlated with what, and how it was resampled, in one sentence."""
        u = self.units
        what = f"{len(u.ratings)} rated {u.unit if len(u.ratings) == 1 else ratings.PLURAL[u.unit]}"
        if u.cluster == "users":
            how = f"a cluster bootstrap over {u.n_clusters} users ({self.trials} replicates)"
        else:
            how = f"a bootstrap over the {u.cluster} ({self.trials} replicates)"
        return f"{what}; {self.level:.0%} percentile intervals from {how}"

    def table(self) -> pd.DataFrame:
        """One row per measure: ``measure``, ``group`` (its family), ``pearson``, ``pearson_low``, ``pearson_high``, ... ``kendall_high``, ``units``."""
        rows = []
        family = {m: g for g, members in self.groups.items() for m in members}
        for m in self.measures:
            row: dict[str, Any] = {"measure": self.labels.get(m, m), "group": family.get(m)}
            for s in correlation.STATISTICS:
                row[s] = self.estimates.at[m, s]
                row[f"{s}_low"] = self.estimates.at[m, f"{s}_low"]
                row[f"{s}_high"] = self.estimates.at[m, f"{s}_high"]
            row["units"] = len(self.units.ratings)
            rows.append(row)
        out = pd.DataFrame(rows)
        out.attrs["note"] = "; ".join([self.describe()] + self.notes)
        return out

    def comparisons_table(self, significant_only: bool = False) -> pd.DataFrame:
        """One row per pair of measures compared (within a family).

        ``measure_a``, ``measure_b``, the difference of their ``statistic`` with its interval,
        ``p_bootstrap``, ``p_williams``, ``p_holm`` (of ``test``), ``significant`` (``p_holm < alpha``)
        and ``better`` (the measure that agrees better, where significant).
        """
        out = self.comparisons.assign(measure_a=lambda f: f["measure_a"].map(lambda m: self.labels.get(m, m)),
                                      measure_b=lambda f: f["measure_b"].map(lambda m: self.labels.get(m, m)),
                                      better=lambda f: f["better"].map(lambda m: self.labels.get(m, m) if m else ""))
        if significant_only:
            out = out[out["significant"]]
        out = out.reset_index(drop=True)
        out.attrs["note"] = "; ".join([f"{self.statistic} compared; {self.test} p-values Holm-adjusted over "
                                       f"{len(self.comparisons)} pairs; alpha {self.alpha:g}"]
                                      + ([self.resolution()] if self.resolution() else []))
        return out

    def resolution(self) -> str:
        """Why no bootstrap comparison can be significant, where that is so ('' otherwise).

        The smallest bootstrap p-value is ``2 / (B + 1)``; Holm over ``H`` pairs multiplies the
        smallest by ``H``, so it can fall below ``alpha`` only with ``B >= 2H / alpha - 1``.
        """
        pairs = len(self.comparisons)
        need = math.ceil(2 * pairs / self.alpha - 1)
        if self.test != "bootstrap" or not pairs or self.trials >= need:
            return ""
        return (f"with {self.trials} replicates the smallest bootstrap p-value is 2/{self.trials + 1}: Holm over "
                f"{pairs} pairs can find a difference only with at least {need} replicates (or use test='williams')")

    def plot(self, statistic: Optional[str] = None, **kwargs: Any):
        """The correlations with their intervals, one panel per family (:func:`ir_cwla.meta.users_plots.plot_user_agreement`)."""
        from ir_cwla.meta.users_plots import plot_user_agreement

        return plot_user_agreement(self, statistic, **kwargs)


def _check(statistic: str, test: str, level: float) -> None:
    if statistic not in correlation.STATISTICS:
        raise ParameterError(f"statistic={statistic!r}; choose from {', '.join(correlation.STATISTICS)}")
    if test not in TESTS:
        raise ParameterError(f"test={test!r}; choose from {', '.join(TESTS)}")
    if test == "williams" and statistic == "kendall":
        raise ParameterError("test='williams' compares Pearson's r (or Spearman's rho on the ranks), not Kendall's "
                             "tau: use test='bootstrap' or another statistic")
    if not (isinstance(level, float) and 0 < level < 1):
        raise ParameterError(f"level={level!r} must be a number in (0, 1)")


def user_agreement(per_query: pd.DataFrame, satisfaction: Any, *, measures: Optional[Sequence[str]] = None,
                   trials: int = 2000, level: float = 0.95, seed: streams.Seed = 0, statistic: str = "pearson",
                   test: str = "bootstrap", alpha: float = 0.05, groups: Groups = None,
                   session_score: Optional[str] = None, bq: float = 4.0, clusters: str = "auto",
                   labels: Any = None) -> UserAgreement:
    """How well each measure's scores agree with the users' ratings (see the module docstring).

    Parameters
    ----------
    per_query : DataFrame
        ``name, qid, measure, value``: :func:`ir_cwla.score_gains`, :func:`ir_cwla.meta.evaluate`
        or ``pt.Experiment(..., perquery=True)``.
    satisfaction : DataFrame or path
        The ratings (:func:`ir_cwla.meta.ratings.read_ratings`): ``qid, rating`` and optionally
        ``user``, ``task``, ``session``, ``position``, ``name``.
    measures : list of str, optional
        The measures of ``per_query`` to correlate (default: all).
    trials, level, seed
        Bootstrap replicates, interval level, seed (:mod:`ir_cwla.analysis.streams`).
    statistic : {'pearson', 'spearman', 'kendall'}
        The correlation the comparisons of measures compare.
    test : {'bootstrap', 'williams'}
        The p-value Holm's correction adjusts (both are reported where defined).
    alpha : float
        Level of significance of the adjusted p-values.
    groups
        The families compared within (:func:`ir_cwla.meta.browsing_model`: the aggregations of
        each browsing model; None: every pair of measures).
    session_score, bq
        Sessions as units (:mod:`ir_cwla.meta.ratings`): ``'mean'``, ``'sum'``, ``'last'``,
        ``'sdcg'`` (with base ``bq``); None: queries are the units.
    clusters : {'auto', 'users', 'units'}
        What the bootstrap resamples (``'auto'``: users where the ratings name them).
    """
    trials = streams.check_trials(trials)
    _check(statistic, test, level)
    check_alpha(alpha)
    table = ratings.read_ratings(satisfaction)
    units = ratings.join(per_query, table, measures, session_score=session_score, bq=bq, clusters=clusters)
    names = naming.measure_order(units.measures)
    order = [units.measures.index(m) for m in names]
    units.scores, units.measures = units.scores[:, order], names
    notes = [units.note] if units.note else []
    constant = [m for m, x in zip(names, units.scores.T) if np.all(x == x[0])]
    if constant:
        notes.append(f"undefined for {', '.join(constant[:3])}{' ...' if len(constant) > 3 else ''} "
                     "(the same score on every unit)")
        warnings.warn(f"{notes[-1]}", UndefinedStatisticWarning, stacklevel=2)
    points = point_estimates(units.scores, units.ratings)
    reps = bootstrap(units.scores, units.ratings, units.clusters, trials, seed)
    columns: dict[str, np.ndarray] = {}
    for s in correlation.STATISTICS:
        low, high, defined = percentile_interval(reps[s], level)
        columns.update({s: points[s], f"{s}_low": low, f"{s}_high": high, f"{s}_defined": defined})
    estimates = pd.DataFrame(columns, index=pd.Index(names, name="measure"))
    families = resolve_groups(names, groups)
    comparisons = _compare(units, names, families, reps[statistic], points[statistic], statistic, test, alpha, level)
    return UserAgreement(estimates, reps, comparisons, units, families, naming.resolve_labels(names, labels), level,
                         trials, statistic, test, alpha, notes)


def _compare(units: ratings.Units, names: list[str], families: dict[Hashable, list[str]], reps: np.ndarray,
             points: np.ndarray, statistic: str, test: str, alpha: float, level: float) -> pd.DataFrame:
    """The pairs of measures within each family: differences, intervals, p-values, Holm."""
    index = {m: i for i, m in enumerate(names)}
    pairs = [(g, index[a], index[b]) for g, members in families.items()
             for k, a in enumerate(members) for b in members[k + 1:]]
    a = np.array([p[1] for p in pairs], dtype=np.int64)
    b = np.array([p[2] for p in pairs], dtype=np.int64)
    diffs = reps[:, a] - reps[:, b]
    low, high, _ = percentile_interval(diffs, level) if len(pairs) else (np.zeros(0), np.zeros(0), None)
    p_boot = bootstrap_p(diffs) if len(pairs) else np.zeros(0)
    t, p_williams = williams(units.scores, units.ratings, a, b, statistic)
    chosen = p_boot if test == "bootstrap" else p_williams
    finite = np.isfinite(chosen)
    holm = np.full(len(pairs), np.nan)
    holm[finite] = adjust(chosen[finite], "holm")
    significant = np.where(np.isfinite(holm), holm < alpha, False)
    difference = points[a] - points[b]
    better = [(names[i] if d > 0 else names[j]) if s else "" for i, j, d, s in zip(a, b, difference, significant)]
    return pd.DataFrame({"group": [p[0] for p in pairs], "measure_a": [names[i] for i in a],
                         "measure_b": [names[j] for j in b], "statistic": statistic, "a": points[a], "b": points[b],
                         "difference": difference, "low": low, "high": high, "p_bootstrap": p_boot,
                         "williams_t": t, "p_williams": p_williams, "p_holm": holm,
                         "significant": significant.astype(bool), "better": better})


# -- the criterion ------------------------------------------------------------------------------

def _summary(result: UserAgreement, inputs: criteria.Inputs, **options: Any) -> pd.DataFrame:
    return result.table()


def _section(result: UserAgreement, summary: pd.DataFrame) -> list:
    shown = result.comparisons_table(significant_only=True)
    blocks: list = [criteria.Text(f"Correlation of each measure's per-{result.units.unit} scores with the users' "
                                  f"ratings: {result.describe()}." + (" " + "; ".join(result.notes) + "."
                                                                       if result.notes else "")),
                    criteria.Figure(result.plot, "Pearson's r, Spearman's rho and Kendall's tau-b of each measure "
                                    "with the ratings, with their bootstrap intervals", "user_agreement.png"),
                    criteria.Table(summary, "correlation with the users' ratings", "user_agreement.csv")]
    text = (f"{len(shown)} of {len(result.comparisons)} pairs of measures within a family differ significantly in "
            f"{result.statistic} ({result.test} p-values, Holm-adjusted, alpha {result.alpha:g})"
            + (f"; {result.resolution()}" if result.resolution() else ""))
    blocks.append(criteria.Text(text + ("." if len(shown) else "; none shown.")))
    if len(shown):
        blocks.append(criteria.Table(shown, "pairs of measures whose agreement with the users differs significantly",
                                     "user_agreement_pairs.csv"))
    return blocks


def _compute(inputs: criteria.Inputs, trials: int, statistic: str, test: str, session_score: Optional[str],
             level: float) -> UserAgreement:
    if inputs.satisfaction is None:
        raise DataError("user agreement needs the users' ratings (satisfaction)")
    return user_agreement(inputs.per_query, inputs.satisfaction, trials=trials, seed=inputs.seed, statistic=statistic,
                          test=test, alpha=inputs.alpha, groups=inputs.groups, session_score=session_score,
                          level=level)


def _choice(values: Sequence[str], what: str):
    def check(value: Any, where: str) -> Any:
        if value not in values:
            raise ParameterError(f"{where}: {value!r}; choose from {', '.join(map(str, values))}")
        return value
    check.__name__ = f"check_{what}"
    return check


def _session_choice(value: Any, where: str) -> Any:
    if value in (None, "", "none"):
        return None
    return _choice(ratings.SESSION_SCORES, "session_score")(value, where)


def _trials(value: Any, where: str) -> int:
    return streams.check_trials(value, where)


def _level(value: Any, where: str) -> float:
    if not (isinstance(value, float) and 0 < value < 1):
        raise ParameterError(f"{where}: {value!r} must be a number in (0, 1)")
    return value


CRITERION = criteria.register_criterion(criteria.Criterion(
    "user_agreement", "agreement with users' satisfaction",
    "How well do the measures' scores correlate with what the users said (Pearson, Spearman, Kendall)?",
    compute=_compute, summary=_summary, section=_section, needs=("satisfaction",), best=("pearson", True),
    options=(criteria.Option("trials", 2000, "bootstrap replicates (the user criteria)", cli="user_trials",
                             check=_trials, metavar="N"),
             criteria.Option("statistic", "pearson", "the correlation compared and fitted (pearson, spearman, "
                             "kendall; the user criteria)", cli="user_statistic",
                             check=_choice(correlation.STATISTICS, "statistic")),
             criteria.Option("test", "bootstrap", "the p-value of a comparison of two measures "
                             "(bootstrap, williams), Holm-adjusted", cli="user_test", check=_choice(TESTS, "test")),
             criteria.Option("session_score", None, "sessions as units, scored by mean, sum, last or "
                             "sdcg of their queries (none: queries)", cli="session_score", parse=str,
                             check=_session_choice),
             criteria.Option("level", 0.95, "level of the bootstrap intervals (the user criteria)", cli="user_level",
                             check=_level)),
    precision=3, order=80), replace=True)
