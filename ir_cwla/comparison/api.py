"""``ir_cwla.compare``: is system A better than B, by how much, and how sure are we.

The pandas adapter over the kernels of :mod:`.paired`, :mod:`.anova`, :mod:`.multiplicity`
and :mod:`.effects`: it validates the per-query frame (:func:`ir_cwla.meta.to_cube`), forms
the pairs and the family of hypotheses, runs the test, adjusts the p-values and puts every
number of a pair on one row of a :class:`~ir_cwla.comparison.result.Comparison`.
"""
from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, Optional, Union

import numpy as np
import pandas as pd

from ir_cwla.analysis import anova, naming, pairwise, streams, tukey
from ir_cwla.analysis.executors import get_executor
from ir_cwla.analysis.frame import ScoreCube, TopicPolicy, check_alpha, to_cube
from ir_cwla.analysis.montecarlo import _caller_level
from ir_cwla.comparison import effects, multiplicity, paired
from ir_cwla.comparison.result import Comparison
from ir_cwla.errors import (
    ArgumentTypeError,
    DataError,
    NotFoundError,
    ParameterError,
    UndefinedStatisticWarning,
)
from ir_cwla.text import shown

TESTS = ("t", "wilcoxon", "sign", "randomisation", "bootstrap", "tukey", "tukey-hsd")
#: Tests over all pairs at once, whose p-values are adjusted over the pairs of a measure by the test itself.
ALL_PAIRS_TESTS = ("tukey", "tukey-hsd")
TEST_ALIASES = {"t-test": "t", "student": "t", "ttest": "t", "fisher": "randomisation", "permutation": "randomisation",
                "randomization": "randomisation", "wilcoxon-signed-rank": "wilcoxon", "randomised-tukey": "tukey",
                "tukey_hsd": "tukey-hsd"}
CORRECTIONS = multiplicity.CORRECTIONS
CORRECTION_ALIASES = {"fdr_bh": "bh", "benjamini-hochberg": "bh", "fdr_by": "by", "benjamini-yekutieli": "by",
                      "westfall-young": "maxt-stepdown", "maxt-step-down": "maxt-stepdown", "stepdown": "maxt-stepdown"}
FAMILIES = ("all", "measure")
#: Tests whose statistic is the paired t statistic, which MaxT permutes.
MAXT_TESTS = ("t", "randomisation")

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
    return naming.measure_order(out)


def _check_systems(names: list[str], known: Sequence[str], what: str) -> None:
    unknown = [n for n in names if n not in known]
    if unknown:
        shown = ", ".join(list(known)[:8]) + (", ..." if len(known) > 8 else "")
        raise NotFoundError(f"{what} {', '.join(map(repr, unknown))} not in the per-query frame (systems: {shown})")


def pairs_of(systems: Sequence[str], baselines: Optional[Sequence[str]]) -> list[tuple[int, int]]:
    """``(baseline, system)`` column pairs.

    All pairs ``a < b`` (by name) without baselines; else every baseline (in the order
    given) against every other system (by name), each unordered pair once (against the first
    baseline that names it).
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
    what = {"t": "the t statistic is undefined: p = 1 where every difference is 0, p = 0 where it is the same "
                 "non-zero value on every topic",
            "wilcoxon": "the signed-rank test has nothing to rank where every difference is 0 (p = 1)",
            "sign": "the sign test gives p = 1 where every topic ties",
            "bootstrap": "every resample has the same t statistic (p = 1 for zero differences, 0 otherwise)",
            }.get(test, "the test gives p = 1 where every difference is 0")
    warnings.warn(f"{measure}: {len(idx)} pair(s) have the same difference on every topic ({len(zero)} of them 0), "
                  f"e.g. {shown}; {what}", UndefinedStatisticWarning, stacklevel=_caller_level())


def compare(per_query: pd.DataFrame, baseline: Names = None, *, measures: Optional[Sequence[Any]] = None,
            systems: Optional[Sequence[str]] = None, test: str = "t", correction: Optional[str] = None,
            family: str = "all", alpha: float = 0.05, level: float = 0.95, trials: int = 10000,
            resamples: int = 2000, seed: streams.Seed = 0, topics: TopicPolicy = "strict",
            executor: Any = None, n_jobs: Optional[int] = None, progress: bool = False) -> Comparison:
    """Compares systems pair by pair over the topics: tests, adjusted p-values, effect sizes.

    Parameters
    ----------
    per_query : long per-query frame, columns ``name, qid, measure, value``
        (``pt.Experiment(..., perquery=True)``, :func:`ir_cwla.meta.evaluate`, or
        ``ir-cwla eval -q --format csv`` read by :func:`ir_cwla.app.evaluate.read_per_query`).
    baseline : ``None`` (all pairs of systems), a system name (every other system against it), or
        a list of names (several baselines: each against every other system, each unordered pair
        once). Differences are *system minus baseline*; for all pairs, the second system by name
        minus the first.
    measures : measures to compare (``str(measure)``, the short name, or a measure); default all.
    systems : systems to compare (default all of the frame).
    test : ``'t'`` (Student's paired t-test), ``'wilcoxon'`` (signed-rank), ``'sign'``,
        ``'randomisation'`` (Fisher's paired randomisation test, ``trials`` sign flips),
        ``'bootstrap'`` (Sakai's paired bootstrap test, ``trials`` resamples), or for all pairs at
        once ``'tukey'`` (randomised Tukey HSD, ``trials`` permutations) and ``'tukey-hsd'``
        (Tukey's HSD after a two-way ANOVA without replication). All two-sided.
    correction : ``'none'``, ``'bonferroni'``, ``'holm'`` (the default for per-pair tests),
        ``'bh'``, ``'by'``, ``'maxt'`` or ``'maxt-stepdown'`` (Westfall & Young's permutation
        procedures, ``trials`` permutations, with ``test='t'`` or ``'randomisation'``); see
        :mod:`ir_cwla.comparison.multiplicity`. The Tukey tests adjust over the pairs of each measure
        themselves (their ``correction`` is ``None`` or ``'none'``: no further adjustment over
        measures).
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
    executor, n_jobs : where the chunks of permutations run (:func:`ir_cwla.meta.get_executor`).
    progress : show progress bars of the randomised parts.

    Returns
    -------
    :class:`~ir_cwla.comparison.result.Comparison` (``.table()``, ``.to_markdown()``, ``.to_latex()``,
    ``.plot_differences()``).
    """
    alpha = check_alpha(alpha)
    level = check_level(level)
    test = _choice(test, "test", TESTS, TEST_ALIASES)
    if correction is None:
        correction = "none" if test in ALL_PAIRS_TESTS else "holm"
    correction = _choice(correction, "correction", CORRECTIONS, CORRECTION_ALIASES)
    family = _choice(family, "family", FAMILIES, {})
    if test in ALL_PAIRS_TESTS and correction != "none":
        raise ParameterError(f"test {test!r} adjusts the p-values over all pairs of each measure itself; pass "
                             f"correction='none' (or leave it out), or a per-pair test ({', '.join(TESTS[:5])}) "
                             f"with correction={correction!r}")
    if correction in ("maxt", "maxt-stepdown") and test not in MAXT_TESTS:
        raise ParameterError(f"correction {correction!r} permutes the paired t statistic: use it with test='t' or "
                             f"'randomisation', not {test!r}")
    trials = streams.check_trials(trials)
    resamples = streams.check_trials(resamples, "resamples")
    root = streams.as_seed_sequence(seed)
    baselines = _names(baseline, "baseline")
    wanted_systems = _names(systems, "systems")

    cube = to_cube(per_query, topics)
    keep = list(cube.systems)
    if wanted_systems is not None:
        _check_systems(wanted_systems, cube.systems, "systems")
        keep = sorted(wanted_systems)
        if len(keep) < 2:
            raise DataError(f"need at least 2 systems to compare, got {keep}")
    if baselines is not None:
        _check_systems(baselines, keep, "baseline")
    chosen = _resolve_measures(cube, measures)
    idx_s = [cube.systems.index(s) for s in keep]
    values = cube.select(chosen).values[:, :, idx_s]
    cube = ScoreCube(values, tuple(chosen), cube.topics, tuple(keep))
    n_m, n_t, n_s = values.shape
    pairs = pairs_of(keep, baselines)
    base = np.array([p[0] for p in pairs], dtype=np.intp)
    other = np.array([p[1] for p in pairs], dtype=np.intp)
    n_p = len(pairs)
    workers = get_executor(executor, n_jobs=n_jobs)

    diffs = values[:, :, other] - values[:, :, base]                       # (M, T, P)
    tols = np.array([tukey.tolerance(values[m]) for m in range(n_m)])
    stat = np.empty((n_m, n_p))
    p = np.empty((n_m, n_p))
    t_obs = np.stack([paired.t_statistics(diffs[m], tols[m]) for m in range(n_m)])
    for m in range(n_m):
        _warn_constant(paired.constant(diffs[m], tols[m]), diffs[m].mean(axis=0), tols[m], naming.label(chosen[m]),
                       pairs, keep, test)
    tri = {pair: k for k, pair in enumerate(zip(*tukey.pair_indices(n_s)))}
    lookup = np.array([tri[(min(i, j), max(i, j))] for i, j in pairs], dtype=np.intp)
    if test == "t":
        for m in range(n_m):
            stat[m], p[m] = paired.t_test(diffs[m], tols[m])
    elif test == "wilcoxon":
        for m in range(n_m):
            stat[m], p[m] = paired.wilcoxon_test(diffs[m], tols[m])
    elif test == "sign":
        for m in range(n_m):
            stat[m], p[m] = paired.sign_test(diffs[m], tols[m])
    elif test == "randomisation":
        p = pairwise.stack_p_values(values, trials, root, workers, what="randomisation test", progress=progress)[:, lookup]
        stat = diffs.mean(axis=1)
    elif test == "bootstrap":
        tol = float(tols.max())
        p = paired.bootstrap_test(diffs, trials, root, workers, tol=tol, progress=progress)
        stat = t_obs
    elif test == "tukey":
        p = tukey.stack_p_values(values, trials, root, workers, what="Tukey HSD", progress=progress)[:, lookup]
        stat = diffs.mean(axis=1)
    else:
        for m in range(n_m):
            q, pp = anova.tukey_hsd(values[m])
            stat[m], p[m] = q[lookup], pp[lookup]

    if test in ALL_PAIRS_TESTS:
        families = [np.arange(m * n_p, (m + 1) * n_p) for m in range(n_m)]
    elif family == "all":
        families = [np.arange(n_m * n_p)]
    else:
        families = [np.arange(m * n_p, (m + 1) * n_p) for m in range(n_m)]
    flat_p = p.ravel()
    if test in ALL_PAIRS_TESTS or correction in multiplicity.P_VALUE_CORRECTIONS:
        adjusted = np.empty_like(flat_p)
        for members in families:
            adjusted[members] = multiplicity.adjust(flat_p[members], correction)
    else:
        measure_of = np.repeat(np.arange(n_m), n_p)
        pair_of = np.tile(np.arange(n_p), n_m)
        involved = sorted(set(base.tolist()) | set(other.tolist()))
        where = {s: k for k, s in enumerate(involved)}
        single, step = multiplicity.maxt(values[:, :, involved], np.array([where[s] for s in base]),
                                         np.array([where[s] for s in other]), measure_of, pair_of,
                                         np.abs(t_obs).ravel(), families, trials, root, workers, progress=progress)
        adjusted = single if correction == "maxt" else step

    means = values.mean(axis=1)                                            # (M, S)
    ci_low, ci_high = np.empty((n_m, n_p)), np.empty((n_m, n_p))
    d_z, es = np.empty((n_m, n_p)), np.empty((n_m, n_p))
    wins, ties, losses = (np.empty((n_m, n_p), dtype=np.int64) for _ in range(3))
    boot = effects.bootstrap_means(values, resamples, root)                # (R, M, S)
    boot_low, boot_high = np.empty((n_m, n_p)), np.empty((n_m, n_p))
    for m in range(n_m):                                                   # (R, P) at a time
        boot_low[m], boot_high[m] = effects.percentile_interval(boot[:, m, other] - boot[:, m, base], level, axis=0)
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
        "boot_low": boot_low.ravel(), "boot_high": boot_high.ravel(), "d_z": d_z.ravel(), "es_e2": es.ravel(),
        "wins": wins.ravel(), "ties": ties.ravel(), "losses": losses.ravel(),
        "statistic": stat.ravel(), "p_value": flat_p, "p_adjusted": adjusted,
    })
    rows["significant"] = rows["p_adjusted"] < alpha
    order_b = {b: k for k, b in enumerate(baselines)} if baselines is not None else {s: k for k, s in enumerate(keep)}
    rows = rows.assign(_m=np.repeat(np.arange(n_m), n_p), _b=rows["baseline"].map(order_b),
                       _s=rows["system"].map({s: k for k, s in enumerate(keep)}))
    rows = rows.sort_values(["_m", "_b", "_s"], kind="stable").drop(columns=["_m", "_b", "_s"]).reset_index(drop=True)
    family_text = describe_family(test, correction, family, n_m, n_p, keep, baselines)
    return Comparison(pairs=rows, cube=cube, test=test, correction=correction, family_kind=family,
                      family=family_text, alpha=alpha, level=level, trials=trials, resamples=resamples, seed=seed,
                      baselines=tuple(baselines) if baselines is not None else None)


def describe_family(test: str, correction: str, family: str, n_m: int, n_p: int, systems: Sequence[str],
                    baselines: Optional[Sequence[str]]) -> str:
    """The family of hypotheses in words (the ``family`` field and the caption)."""
    if baselines is None:
        which = f"all {n_p} pairs of the {len(systems)} systems"
    elif len(baselines) == 1:
        which = f"the {n_p} systems against the baseline {baselines[0]}"
    else:
        which = f"the {n_p} pairs of the {len(baselines)} baselines ({', '.join(baselines)}) with the other systems"
    measures = f"{n_m} measure{'s' if n_m != 1 else ''}"
    if test in ALL_PAIRS_TESTS:
        return (f"{which}, under each of the {measures} separately: the Tukey HSD test adjusts over all "
                f"{len(systems) * (len(systems) - 1) // 2} pairs of each measure; measures are not adjusted for")
    if correction == "none":
        return f"{which} under {measures}; no adjustment for multiple comparisons"
    if family == "all" or n_m == 1:
        return f"{which} under {measures}: {n_m * n_p:,} hypotheses adjusted together"
    return f"{which}, each of the {measures} a family of its own ({n_p} hypotheses each)"
