"""``ir_cwla.compare``: is system A better than B, by how much, and how sure are we.

The pandas adapter over the statistical tests of :mod:`ir_cwla.analysis.significance` (the
registry every part of ir_cwla reads), :mod:`.multiplicity` and :mod:`.effects`: it validates the
per-query frame (:func:`ir_cwla.analysis.frame.to_cube`), forms the pairs and the family of
hypotheses, runs the test, adjusts the p-values, puts the Monte-Carlo error of every randomised
number beside it (:mod:`ir_cwla.analysis.pvalues`), adds trials and resamples up to
``max_trials`` / ``max_resamples`` while a decision could flip within that error, and puts every
number of a pair on one row of a :class:`~ir_cwla.comparison.result.Comparison`.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any, Optional, Union

import numpy as np
import pandas as pd

from ir_cwla._text import shown
from ir_cwla.analysis import anova, montecarlo, naming, paired, pvalues, significance, streams, tukey
from ir_cwla.analysis.executors import get_executor
from ir_cwla.analysis.frame import ScoreCube, TopicPolicy, centred, check_alpha, to_cube
from ir_cwla.analysis.montecarlo import _caller_level
from ir_cwla.analysis.significance import StatisticalTest
from ir_cwla.comparison import effects, multiplicity
from ir_cwla.comparison.result import Comparison
from ir_cwla.errors import (
    ArgumentTypeError,
    DataError,
    NotFoundError,
    ParameterError,
    UndefinedStatisticWarning,
)

#: The tests ``compare`` takes: every registered test of these kinds (:data:`ir_cwla.analysis.significance.TESTS`).
KINDS = ("paired", "all-pairs")
CORRECTIONS = multiplicity.CORRECTIONS
CORRECTION_ALIASES = {"fdr_bh": "bh", "benjamini-hochberg": "bh", "fdr_by": "by", "benjamini-yekutieli": "by",
                      "westfall-young": "maxt-stepdown", "maxt-step-down": "maxt-stepdown", "stepdown": "maxt-stepdown"}
FAMILIES = ("all", "measure")
#: The corrections that permute the scores (Westfall & Young), with tests whose statistic is the paired t.
MAXT_CORRECTIONS = ("maxt", "maxt-stepdown")


def tests() -> list[str]:
    """The names of the tests ``compare(test=...)`` and ``ir-cwla compare --test`` take, in order."""
    return significance.names(KINDS)


Names = Union[None, str, Sequence[str]]


def _choice(value: Any, what: str, valid: Sequence[str], aliases: dict[str, str]) -> str:
    if not isinstance(value, str):
        raise ArgumentTypeError(f"{what} must be a string, one of {', '.join(valid)}; got {value!r}")
    key = value.strip().lower()
    key = aliases.get(key, key)
    if key not in valid:
        raise ParameterError(f"unknown {what} {value!r}: valid ones are {', '.join(valid)}")
    return key


def check_level(level: float) -> float:
    """``level`` (of the intervals) as a float in (0, 1), or a clear error."""
    if isinstance(level, bool) or not isinstance(level, (int, float, np.floating)) or not 0 < level < 1:
        raise ParameterError(f"level must lie in (0, 1), got {shown(level)} (e.g. 0.95 for 95% intervals)")
    return float(level)


def _names(value: Names, what: str) -> Optional[list[str]]:
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    if not isinstance(value, Sequence) or isinstance(value, bytes):
        raise ArgumentTypeError(f"{what} must be a name or a list of names, got {type(value).__name__}")
    out = [str(v) for v in value]
    if len(set(out)) != len(out):
        raise ParameterError(f"{what} names a system or measure twice: {out}")
    return out


def _resolve_measures(cube: ScoreCube, wanted: Optional[Sequence[Any]]) -> list[str]:
    """The measures of the frame that ``wanted`` names, in the order given (default all, in canonical order)."""
    if wanted is None:
        return list(cube.measures)
    if isinstance(wanted, str) or not isinstance(wanted, Sequence):
        wanted = [wanted]
    by_label = {naming.label(m): m for m in cube.measures}
    out = []
    for item in wanted:
        name = str(item)
        if name in cube.measures:
            out.append(name)
        elif name in by_label:
            out.append(by_label[name])
        else:
            parsed = naming.parse(name)
            match = [m for m in cube.measures if parsed is not None and naming.parse(m) == parsed]
            if not match:
                raise NotFoundError(f"measure {name!r} is not in the per-query frame; it has "
                                    f"{', '.join(naming.label(m) for m in cube.measures[:8])}"
                                    f"{', ...' if len(cube.measures) > 8 else ''}")
            out.append(match[0])
    if len(set(out)) != len(out):
        raise ParameterError(f"measures names a measure twice: {[naming.label(m) for m in out]}")
    return out


def _check_systems(names: list[str], known: Sequence[str], what: str) -> None:
    unknown = [n for n in names if n not in known]
    if unknown:
        shown = ", ".join(list(known)[:8]) + (", ..." if len(known) > 8 else "")
        raise NotFoundError(f"{what} {', '.join(map(repr, unknown))} not in the per-query frame (systems: {shown})")


def pairs_of(systems: Sequence[str], baselines: Optional[Sequence[str]]) -> list[tuple[int, int]]:
    """``(baseline, system)`` index pairs into ``systems``.

    All pairs ``a < b`` (in the order of ``systems``) without baselines; else every baseline
    (in the order given) against every other system (in the order of ``systems``), each
    unordered pair once (against the first baseline that names it).
    """
    n = len(systems)
    if baselines is None:
        return [(a, b) for a in range(n) for b in range(a + 1, n)]
    out, seen = [], set()
    for base in baselines:
        i = list(systems).index(base)
        for j in range(n):
            if j != i and frozenset((i, j)) not in seen:
                seen.add(frozenset((i, j)))
                out.append((i, j))
    return out


def _warn_constant(flat: np.ndarray, diffs_mean: np.ndarray, tol: float, measure: str,
                   pairs: list[tuple[int, int]], systems: Sequence[str], test: str) -> None:
    idx = np.flatnonzero(flat)
    if not len(idx):
        return
    zero = [j for j in idx if abs(diffs_mean[j]) <= tol]
    shown = "; ".join(f"{systems[pairs[j][1]]} vs {systems[pairs[j][0]]}" for j in idx[:3])
    what = CONSTANT_DIFFERENCES.get(test, "the test gives p = 1 where every difference is 0")
    warnings.warn(f"{measure}: {len(idx)} pair(s) have the same difference on every topic ({len(zero)} of them 0), "
                  f"e.g. {shown}; {what}", UndefinedStatisticWarning, stacklevel=_caller_level())


#: What a test does with a pair whose difference is the same on every topic (the warning says it).
CONSTANT_DIFFERENCES = {
    "t": "the t statistic is undefined: p = 1 where every difference is 0, p = 0 where it is the same non-zero value "
         "on every topic",
    "wilcoxon": "the signed-rank test has nothing to rank where every difference is 0 (p = 1)",
    "sign": "the sign test gives p = 1 where every topic ties",
    "bootstrap": "every resample has the same t statistic (p = 1 for zero differences, the smallest p otherwise)",
}


def _check_max(value: Optional[int], floor: int, what: str, base: str) -> int:
    if value is None:
        return floor
    value = streams.check_trials(value, what)
    if value < floor:
        raise ParameterError(f"{what} ({value:,}) must be at least {base} ({floor:,}): it bounds how far {base} grow "
                             "while a decision could flip within its Monte-Carlo error")
    return value


def _ordered(given: Optional[Sequence[str]], known: Sequence[str]) -> list[str]:
    return list(given) if given is not None else list(known)


def compare(per_query: pd.DataFrame, baseline: Names = None, *, measures: Optional[Sequence[Any]] = None,
            systems: Optional[Sequence[str]] = None, test: Union[str, Callable[..., Any], StatisticalTest] = "t",
            correction: Optional[str] = None, family: str = "all", alpha: float = 0.05, level: float = 0.95,
            trials: int = 10000, resamples: int = 2000, seed: streams.Seed = 0, topics: TopicPolicy = "strict",
            max_trials: Optional[int] = None, max_resamples: Optional[int] = None,
            executor: Any = None, n_jobs: Optional[int] = None, progress: bool = False) -> Comparison:
    """Compares systems pair by pair over the topics: tests, adjusted p-values, effect sizes.

    Parameters
    ----------
    per_query : long per-query frame, columns ``name, qid, measure, value``
        (``pt.Experiment(..., perquery=True)``, :func:`ir_cwla.meta.evaluate`, or
        ``ir-cwla eval -q --format csv`` read by :func:`ir_cwla.app.evaluate.read_per_query`).
    baseline : ``None`` (all pairs of systems), a system name (every other system against it), or
        a list of names (several baselines: each against every other system, each unordered pair
        once). Differences are *system minus baseline*; for all pairs, ``system_b - system_a``
        with ``system_a`` before ``system_b`` in the order of ``systems``.
    measures : measures to compare (``str(measure)``, the short name, or a measure); default all,
        in the measures' canonical order. The tables keep the order given.
    systems : systems to compare (default all of the frame, by name). The tables keep the order
        given; no number depends on it (the random streams see the systems by name).
    test : a registered test's name or alias (:data:`ir_cwla.analysis.significance.TESTS`: the
        paired ``'t'`` (Student's paired t-test, the default), ``'wilcoxon'``, ``'sign'``,
        ``'randomisation'`` (Fisher's, ``trials`` sign flips), ``'bootstrap'`` (Sakai's, ``trials``
        resamples), and the all-pairs ``'randomised-tukey-hsd'`` (two-way, ``trials``
        permutations), ``'tukey-hsd'`` (after a two-way ANOVA), ``'tukey-hsd-one-way'`` (ranx's and
        scipy's one-way test)); a :class:`~ir_cwla.analysis.significance.StatisticalTest`; or a
        function ``fn(baseline_scores, system_scores) -> (statistic, p_value)`` called per pair, as
        ``pt.Experiment(test=...)`` takes it (e.g. ``scipy.stats.ttest_rel``). All two-sided.
    correction : ``'none'``, ``'bonferroni'``, ``'holm'`` (the default for paired tests),
        ``'bh'``, ``'by'``, ``'maxt'`` or ``'maxt-stepdown'`` (Westfall & Young's permutation
        procedures, ``trials`` permutations, with tests whose statistic is the paired t: ``'t'``,
        ``'randomisation'``); see :mod:`ir_cwla.comparison.multiplicity`. All-pairs tests adjust
        over the pairs of each measure themselves (their ``correction`` is ``None`` or ``'none'``:
        no further adjustment over measures).
    family : ``'all'`` (default: every pair under every measure is one family, adjusted
        together) or ``'measure'`` (the pairs of each measure are a family of their own, as
        ``pt.Experiment(correction=...)`` adjusts). Stated in the result (``family``, caption).
    alpha : significance level for ``significant`` and the table marks.
    level : level of the intervals (t and bootstrap).
    trials : permutations / resamples of the randomised tests and of MaxT.
    resamples : bootstrap resamples of the topics for the bootstrap intervals.
    seed : int or ``numpy.random.SeedSequence``; every randomised number is exactly reproducible
        from it, whatever the executor and the row order of ``per_query``.
    topics : ``'strict'`` (every system scored on the same topics, else an error naming them) or
        ``'intersection'`` (the topics every system has).
    max_trials, max_resamples : while a decision could flip within the Monte-Carlo error
        (adjusted ``p < alpha``; a bootstrap interval excluding 0; see
        :mod:`ir_cwla.analysis.pvalues`), double the trials (the resamples), up to these
        bounds. The numbers are then exactly those of a single run of the final count with the
        same seed (the extra trials continue the same streams). Default: no more than ``trials``
        and ``resamples``.
    executor, n_jobs : where the chunks of permutations run (:func:`ir_cwla.analysis.executors.get_executor`).
    progress : show progress bars of the randomised parts.

    Returns
    -------
    :class:`~ir_cwla.comparison.result.Comparison` (``.table()``, ``.to_markdown()``, ``.to_latex()``,
    ``.plot_differences()``).
    """
    alpha = check_alpha(alpha)
    level = check_level(level)
    chosen_test = significance.get_test(test, KINDS)
    all_pairs = chosen_test.kind == "all-pairs"
    if correction is None:
        correction = "none" if all_pairs else "holm"
    correction = _choice(correction, "correction", CORRECTIONS, CORRECTION_ALIASES)
    family = _choice(family, "family", FAMILIES, {})
    if all_pairs and correction != "none":
        raise ParameterError(f"test {chosen_test.name!r} adjusts the p-values over all pairs of each measure itself; "
                             f"pass correction='none' (or leave it out), or a paired test "
                             f"({', '.join(significance.names(('paired',)))}) with correction={correction!r}")
    if correction in MAXT_CORRECTIONS and not chosen_test.permutes_t:
        fits = [t.name for t in significance.TESTS.values() if t.permutes_t and t.kind in KINDS]
        raise ParameterError(f"correction {correction!r} permutes the paired t statistic: use it with "
                             f"{' or '.join(f'test={n!r}' for n in fits)}, not {chosen_test.name!r}")
    trials = streams.check_trials(trials)
    resamples = streams.check_trials(resamples, "resamples")
    max_trials = _check_max(max_trials, trials, "max_trials", "trials")
    max_resamples = _check_max(max_resamples, resamples, "max_resamples", "resamples")
    root = streams.as_seed_sequence(seed)
    baselines = _names(baseline, "baseline")
    wanted_systems = _names(systems, "systems")

    cube = to_cube(per_query, topics)
    if wanted_systems is not None:
        _check_systems(wanted_systems, cube.systems, "systems")
        if len(wanted_systems) < 2:
            raise DataError(f"need at least 2 systems to compare, got {wanted_systems}")
    shown_systems = _ordered(wanted_systems, cube.systems)            # the tables' order
    if baselines is not None:
        _check_systems(baselines, shown_systems, "baseline")
    shown_measures = _resolve_measures(cube, measures)
    chosen = naming.measure_order(shown_measures)                      # the cube's order: no number depends
    keep = sorted(shown_systems)                                       # on the order given
    values = cube.select(chosen).values[:, :, [cube.systems.index(s) for s in keep]]
    cube = ScoreCube(values, tuple(chosen), cube.topics, tuple(keep))
    n_m, n_t, n_s = values.shape
    named = pairs_of(shown_systems, baselines)                        # (baseline, system) by the tables' order
    column = {s: k for k, s in enumerate(keep)}
    pairs = [(column[shown_systems[i]], column[shown_systems[j]]) for i, j in named]
    base = np.array([p[0] for p in pairs], dtype=np.intp)
    other = np.array([p[1] for p in pairs], dtype=np.intp)
    n_p = len(pairs)
    workers = get_executor(executor, n_jobs=n_jobs)

    diffs = values[:, :, other] - values[:, :, base]                       # (M, T, P)
    tols = np.array([tukey.tolerance(centred(values[m])) for m in range(n_m)])
    for m in range(n_m):
        _warn_constant(paired.constant(diffs[m], tols[m]), diffs[m].mean(axis=0), tols[m], naming.label(chosen[m]),
                       pairs, keep, chosen_test.name)
    sample = significance.Sample(values, base, other, tols, trials, root, workers, progress=progress)
    tested = significance.run(chosen_test, sample)

    if all_pairs:
        families = [np.arange(m * n_p, (m + 1) * n_p) for m in range(n_m)]
    elif family == "all":
        families = [np.arange(n_m * n_p)]
    else:
        families = [np.arange(m * n_p, (m + 1) * n_p) for m in range(n_m)]
    permuted = None
    if correction in MAXT_CORRECTIONS:
        t_obs = np.stack([paired.t_statistics(diffs[m], tols[m]) for m in range(n_m)])
        involved = sorted(set(base.tolist()) | set(other.tolist()))
        where = {s: k for k, s in enumerate(involved)}
        permuted = _MaxT(values[:, :, involved], np.array([where[s] for s in base]),
                         np.array([where[s] for s in other]), np.repeat(np.arange(n_m), n_p),
                         np.tile(np.arange(n_p), n_m), np.abs(t_obs).ravel(), families, root, workers, progress)
        permuted.extend(trials)

    adjusted = _adjust(tested, correction, families, alpha, permuted)
    used_trials = trials
    while adjusted.could_flip.any() and used_trials < max_trials:       # add trials while a decision could flip
        used_trials = min(2 * used_trials, max_trials)
        tested = significance.extend(tested, sample, used_trials)
        if permuted is not None:
            permuted.extend(used_trials)
        adjusted = _adjust(tested, correction, families, alpha, permuted)

    means = values.mean(axis=1)                                            # (M, S)
    ci_low, ci_high = np.empty((n_m, n_p)), np.empty((n_m, n_p))
    d_z, es = np.empty((n_m, n_p)), np.empty((n_m, n_p))
    wins, ties, losses = (np.empty((n_m, n_p), dtype=np.int64) for _ in range(3))
    intervals = _BootstrapIntervals(centred(values), base, other, level, root)
    intervals.extend(resamples)
    while intervals.could_flip().any() and intervals.resamples < max_resamples:
        intervals.extend(min(2 * intervals.resamples, max_resamples))
    for m in range(n_m):
        ci_low[m], ci_high[m] = effects.t_interval(diffs[m], level)
        d_z[m] = effects.cohen_dz(diffs[m], tols[m])
        v_e, _ = anova.residual_variance(values[m])
        with np.errstate(divide="ignore", invalid="ignore"):
            es[m] = diffs[m].mean(axis=0) / np.sqrt(v_e) if v_e > 0 else np.sign(diffs[m].mean(axis=0)) * np.inf
        wins[m], ties[m], losses[m] = paired.win_tie_loss(diffs[m], tols[m])
    names = np.asarray(keep, dtype=object)
    rows = pd.DataFrame({
        "measure": np.repeat(np.asarray(chosen, dtype=object), n_p),
        "baseline": np.tile(names[base], n_m), "system": np.tile(names[other], n_m),
        "mean_baseline": means[:, base].ravel(), "mean_system": means[:, other].ravel(),
        "delta": diffs.mean(axis=1).ravel(), "ci_low": ci_low.ravel(), "ci_high": ci_high.ravel(),
        "boot_low": intervals.low.ravel(), "boot_high": intervals.high.ravel(),
        "boot_low_mc_sd": intervals.low_sd.ravel(), "boot_high_mc_sd": intervals.high_sd.ravel(),
        "d_z": d_z.ravel(), "es_e2": es.ravel(), "wins": wins.ravel(), "ties": ties.ravel(), "losses": losses.ravel(),
        "statistic": tested.statistic.ravel(), "p_value": tested.p_value.ravel(), "p_value_mc_sd": tested.mc_sd.ravel(),
        "p_adjusted": adjusted.p, "p_adjusted_mc_sd": adjusted.sd,
    })
    rows["significant"] = rows["p_adjusted"] < alpha
    rows["significance_could_flip"] = adjusted.could_flip
    rows["interval_could_flip"] = intervals.could_flip().ravel()
    order_m = {m: k for k, m in enumerate(shown_measures)}
    order_b = {b: k for k, b in enumerate(baselines if baselines is not None else shown_systems)}
    order_s = {s: k for k, s in enumerate(shown_systems)}
    rows = rows.assign(_m=rows["measure"].map(order_m), _b=rows["baseline"].map(order_b),
                       _s=rows["system"].map(order_s))
    rows = rows.sort_values(["_m", "_b", "_s"], kind="stable").drop(columns=["_m", "_b", "_s"]).reset_index(drop=True)
    family_text = describe_family(chosen_test, correction, family, n_m, n_p, keep, baselines)
    return Comparison(pairs=rows, cube=cube, test=chosen_test.name, correction=correction, family_kind=family,
                      family=family_text, alpha=alpha, level=level, trials=used_trials, resamples=intervals.resamples,
                      seed=seed, baselines=tuple(baselines) if baselines is not None else None,
                      statistical_test=chosen_test, measure_order=tuple(shown_measures),
                      system_order=tuple(shown_systems), requested_trials=trials, requested_resamples=resamples)


class _MaxT:
    """Westfall & Young's permutation counts, continued trial by trial (:func:`multiplicity.maxt_counts`)."""

    def __init__(self, values: np.ndarray, a: np.ndarray, b: np.ndarray, measure: np.ndarray, pair: np.ndarray,
                 observed: np.ndarray, families: list[np.ndarray], seed: np.random.SeedSequence, executor: Any,
                 progress: bool):
        self.args = (values, a, b, measure, pair, observed, families)
        self.seed, self.executor, self.progress = seed, executor, progress
        self.trials = 0
        self.single = np.zeros(len(observed), dtype=np.int64)
        self.step = np.zeros(len(observed), dtype=np.int64)

    def extend(self, trials: int) -> None:
        if trials <= self.trials:
            return
        single, step = multiplicity.maxt_counts(*self.args, trials - self.trials, self.seed, self.executor,
                                                start=self.trials, progress=self.progress)
        self.single += single
        self.step += step
        self.trials = trials

    def p_values(self, correction: str) -> np.ndarray:
        observed, families = self.args[5], self.args[6]
        single, step = multiplicity.maxt_p_values(self.single, self.step, observed, families, self.trials)
        return single if correction == "maxt" else step


class _Adjusted:
    """Adjusted p-values with their Monte-Carlo sd, and which decisions could flip within it."""

    def __init__(self, p: np.ndarray, sd: np.ndarray, could_flip: np.ndarray):
        self.p, self.sd, self.could_flip = p, sd, could_flip


def _adjust(tested: significance.TestResult, correction: str, families: list[np.ndarray], alpha: float,
            permuted: Optional[_MaxT]) -> _Adjusted:
    """The adjusted p-values of every hypothesis (flat, measure-major) and their Monte-Carlo error.

    MaxT's adjusted p-values are Monte-Carlo estimates of their own (binomial sd). A correction
    of the p-values is monotone in each of them: the adjusted p-values of the p-values moved by
    ``-+ z sd`` (:data:`ir_cwla.analysis.pvalues.FLIP_Z`) bound those of every seed but the
    unlucky ones, and half the change of ``-+ 1 sd`` is the adjusted p-value's sd (the delta method).
    """
    z = pvalues.FLIP_Z
    if permuted is not None:
        p = permuted.p_values(correction)
        sd = pvalues.monte_carlo_sd(p, permuted.trials)
        return _Adjusted(p, sd, pvalues.could_flip(p - z * sd, p + z * sd, alpha))
    flat, sd = tested.p_value.ravel(), tested.mc_sd.ravel()
    method = "none" if tested.test.kind == "all-pairs" else correction
    floor = 1.0 / (tested.trials + 1) if tested.trials else 0.0

    def adjusted(values: np.ndarray) -> np.ndarray:
        out = np.empty_like(values)
        for members in families:
            out[members] = multiplicity.adjust(values[members], method)
        return out

    p = adjusted(flat)
    if not tested.trials:
        return _Adjusted(p, np.zeros_like(p), np.zeros(len(p), dtype=bool))
    moved = [adjusted(np.clip(flat + k * sd, floor, 1.0)) for k in (-z, -1.0, 1.0, z)]
    return _Adjusted(p, (moved[2] - moved[1]) / 2.0, pvalues.could_flip(moved[0], moved[3], alpha))


class _BootstrapIntervals:
    """Percentile bootstrap intervals of every pair's mean difference, continued resample by resample."""

    def __init__(self, values: np.ndarray, base: np.ndarray, other: np.ndarray, level: float,
                 seed: np.random.SeedSequence):
        self.values, self.base, self.other, self.level, self.seed = values, base, other, level, seed
        self.samples = np.empty((values.shape[0], 0, len(base)))        # (M, R, P) resampled mean differences
        self.resamples = 0

    def extend(self, resamples: int) -> None:
        if resamples <= self.resamples:
            return
        n_m, n_p = self.values.shape[0], len(self.base)
        montecarlo.check_result_memory("bootstrap intervals", resamples, 8 * n_m * max(n_p, self.values.shape[2]),
                                       f"resampled means ({n_m} measures)", name="resamples")
        boot = effects.bootstrap_means(self.values, resamples - self.resamples, self.seed, start=self.resamples)
        more = (boot[:, :, self.other] - boot[:, :, self.base]).transpose(1, 0, 2)
        self.samples = np.concatenate([self.samples, more], axis=1)
        self.resamples = resamples
        lo_q, hi_q = (1.0 - self.level) / 2.0, (1.0 + self.level) / 2.0
        self.low, self.high = effects.percentile_interval(self.samples, self.level, axis=1)
        self.low_sd = pvalues.quantile_sd(self.samples, lo_q, axis=1)
        self.high_sd = pvalues.quantile_sd(self.samples, hi_q, axis=1)

    def could_flip(self) -> np.ndarray:
        return pvalues.interval_could_flip(self.low, self.high, self.low_sd, self.high_sd)


def describe_family(test: StatisticalTest, correction: str, family: str, n_m: int, n_p: int, systems: Sequence[str],
                    baselines: Optional[Sequence[str]]) -> str:
    """The family of hypotheses in words (the ``family`` field and the caption)."""
    if baselines is None:
        which = f"all {n_p} pairs of the {len(systems)} systems"
    elif len(baselines) == 1:
        which = f"the {n_p} systems against the baseline {baselines[0]}"
    else:
        which = f"the {n_p} pairs of the {len(baselines)} baselines ({', '.join(baselines)}) with the other systems"
    measures = f"{n_m} measure{'s' if n_m != 1 else ''}"
    if test.kind == "all-pairs":
        return (f"{which}, under each of the {measures} separately: {test.label} adjusts over all "
                f"{len(systems) * (len(systems) - 1) // 2} pairs of each measure; measures are not adjusted for")
    if correction == "none":
        return f"{which} under {measures}; no adjustment for multiple comparisons"
    if family == "all" or n_m == 1:
        return f"{which} under {measures}: {n_m * n_p:,} hypotheses adjusted together"
    return f"{which}, each of the {measures} a family of its own ({n_p} hypotheses each)"
