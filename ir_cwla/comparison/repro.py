"""How well a reproduction reproduces: Breuer et al.'s measures, with bootstrap intervals over topics.

A reproducibility study (the ECIR and SIGIR reproducibility tracks) runs a published system
again, on the same collection, and asks at three levels how close its reproduction comes
(Breuer, Ferro, Fuhr, Maistro, Sakai, Schaer & Soboroff 2020, "How to Measure the
Reproducibility of System-oriented IR Experiments", SIGIR, Sec. 3; their repro_eval implements
them without intervals). For an original run ``o`` and its reproduction ``r`` over the topics
``t = 1..T``:

- **Order of documents** (needs the runs): *Kendall's tau Union*, ``KTU_t`` -- the documents of
  both top-``k`` lists numbered by their place in the sorted union of the two, and Kendall's
  tau-b (``scipy.stats.kendalltau``) between the two lists of numbers rank by rank, as
  repro_eval computes it (``k = depth``, 1,000 by default; where the two lists of a topic differ
  in length both are cut to the shorter, where repro_eval fails; a topic with fewer than two
  documents in one of them has no KTU and is left out of the mean, with a warning);
  *rank-biased overlap*, ``RBO_t = sum_{d=1..k} p^(d-1) |O_d| / d / sum_{d=1..k} p^(d-1)`` with
  ``O_d`` the documents both have in their top ``d`` (the normalised truncated RBO of Clarke et
  al. 2021 that repro_eval uses; ``p = 0.95``). Both are averaged over topics; 1 is a perfect
  reproduction (RBO normalises over ``depth``: a ranking shorter than ``depth`` stays below 1
  even against itself, as in repro_eval).
- **Effectiveness**: ``RMSE = sqrt(mean_t (x_t(o) - x_t(r))^2)`` per measure (0 is perfect), and
  ``nRMSE`` = RMSE over its largest value for the original's scores, ``sqrt(mean_t max(x_t(o),
  1 - x_t(o))^2)`` (for measures in [0, 1], as repro_eval's nRMSE).
- **Overall effects** (an advanced run ``a`` against a baseline ``b``, both reproduced): the
  *effect ratio* ``ER = mean_t (x_t(a_r) - x_t(b_r)) / mean_t (x_t(a_o) - x_t(b_o))`` (1 is a
  perfect reproduction of the improvement; 0 none of it) and the *delta relative improvement*
  ``DRI = RI_o - RI_r`` with ``RI = (mean(a) - mean(b)) / mean(b)`` (0 is perfect).

Each statistic comes with a percentile bootstrap interval over topics: the ``T`` topics are
drawn with replacement ``R`` times (the same resamples for every statistic, system and measure;
original and reproduction resampled together, as they share their topics), the statistic is
computed on every resample from the resampled topics' values, and the ``(1 - L)/2`` and
``(1 + L)/2`` quantiles are the interval at level ``L``, each bound with its Monte-Carlo sd
(:func:`ir_cwla.analysis.pvalues.quantile_sd`). Stream ``REPRODUCIBILITY_STREAM`` of
:mod:`ir_cwla.analysis.streams`: exactly reproducible from ``seed``.
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional, Union

import numpy as np
import pandas as pd

from ir_cwla.analysis import naming, pvalues, streams
from ir_cwla.analysis.frame import TopicPolicy, to_cube
from ir_cwla.analysis.montecarlo import _caller_level
from ir_cwla.analysis.paired import resample_counts
from ir_cwla.errors import (
    ArgumentTypeError,
    DataError,
    NotFoundError,
    ParameterError,
    UndefinedStatisticWarning,
)

#: The statistics, and the value of each for a perfect reproduction.
PERFECT = {"KTU": 1.0, "RBO": 1.0, "RMSE": 0.0, "nRMSE": 0.0, "ER": 1.0, "DRI": 0.0}
#: The columns of :meth:`Reproducibility.table`.
COLUMNS = ("statistic", "measure", "system", "baseline", "value", "low", "high", "low_mc_sd", "high_mc_sd",
           "perfect", "topics")


# -- the per-topic statistics of the order of documents --------------------------------------------

def ktu(original: Sequence[str], reproduced: Sequence[str]) -> float:
    """Kendall's tau Union of two rankings of the same length (module docstring), as repro_eval computes it."""
    from scipy import stats

    if len(original) != len(reproduced):
        raise DataError(f"KTU compares rankings of the same length, got {len(original)} and {len(reproduced)} "
                        "documents (pass depth= at most the shorter length)")
    union = {doc: k for k, doc in enumerate(sorted(set(original) | set(reproduced)))}
    x = np.array([union[d] for d in original])
    y = np.array([union[d] for d in reproduced])
    if len(x) < 2:
        return 1.0 if list(original) == list(reproduced) else float("nan")
    return float(round(stats.kendalltau(x, y).statistic, 14))


def rbo(original: Sequence[str], reproduced: Sequence[str], p: float = 0.95, depth: int = 1000) -> float:
    """Normalised truncated rank-biased overlap to ``depth`` (module docstring), as repro_eval computes it."""
    first_o = {doc: k for k, doc in reversed(list(enumerate(original[:depth])))}
    first_r = {doc: k for k, doc in reversed(list(enumerate(reproduced[:depth])))}
    # the depth d (0-based) from which a document is in both top-d lists: the later of its two ranks
    joins = np.zeros(depth, dtype=np.int64)
    for doc, k in first_o.items():
        if doc in first_r:
            joins[max(k, first_r[doc])] += 1
    overlap = np.cumsum(joins)
    d = np.arange(depth)
    weight = p ** d.astype(np.float64)
    return float((weight * overlap / (d + 1)).sum() / weight.sum())


def rankings(run: Any, depth: int, name: str) -> dict[str, list[str]]:
    """Every topic's top ``depth`` documents of a run (any run ``ir_cwla.io.as_run_frame`` takes), in trec_eval's order."""
    from ir_cwla import io
    from ir_cwla.io import _hashing as hashing
    from ir_cwla.io import compared_scores, trec_order

    frame = io.as_run_frame(run, name=name)
    topics = frame["query_id"].astype(str).to_numpy()
    docs = frame["doc_id"].astype(str).to_numpy()
    codes, labels = hashing.factorize(topics, sort=True)
    order = trec_order(codes, compared_scores(frame["score"].to_numpy(dtype=np.float64), name=name), docs)
    out: dict[str, list[str]] = {}
    for code, doc in zip(codes[order], docs[order]):
        ranked = out.setdefault(str(labels[code]), [])
        if len(ranked) < depth:
            ranked.append(str(doc))
    return out


# -- the result -------------------------------------------------------------------------------------

@dataclass
class Reproducibility:
    """Breuer et al.'s reproducibility measures of every reproduced system, with bootstrap intervals.

    ``rows`` holds one row per statistic, measure (``None`` for KTU and RBO, which compare the
    order of documents) and system (``baseline`` the baseline of ER and DRI); ``per_topic`` the
    per-topic KTU and RBO.
    """

    rows: pd.DataFrame
    per_topic: pd.DataFrame
    level: float
    resamples: int
    seed: Any
    n_topics: int
    depth: int
    rbo_p: float

    def table(self) -> pd.DataFrame:
        """The columns of :data:`COLUMNS`: each statistic's value, interval at ``level`` and their Monte-Carlo sd."""
        return self.rows[list(COLUMNS)].copy()

    def caption(self) -> str:
        """What the table shows, in a sentence."""
        return (f"Reproducibility measures (Breuer et al. 2020) over {self.n_topics} topics, with {self.level:g} "
                f"percentile bootstrap intervals over topics ({self.resamples:,} resamples): KTU and RBO (p = "
                f"{self.rbo_p:g}) of the top {self.depth:,} documents (1 is perfect), RMSE (0), ER (1) and DRI (0) "
                "of each measure.")


# -- the computation --------------------------------------------------------------------------------

Pairs = Union[None, Sequence[str], Mapping[str, str]]


def _systems(systems: Pairs, original: Sequence[str], reproduced: Sequence[str]) -> dict[str, str]:
    if systems is None:
        common = [s for s in original if s in set(reproduced)]
        if not common:
            raise DataError(f"the original and the reproduced frames name no system alike (original: "
                            f"{', '.join(list(original)[:5])}; reproduced: {', '.join(list(reproduced)[:5])}); "
                            "pass systems={original_name: reproduced_name}")
        return {s: s for s in common}
    pairs = dict(systems) if isinstance(systems, Mapping) else {str(s): str(s) for s in systems}
    for o, r in pairs.items():
        if o not in original:
            raise NotFoundError(f"system {o!r} is not in the original frame (systems: {', '.join(original[:8])})")
        if r not in reproduced:
            raise NotFoundError(f"system {r!r} is not in the reproduced frame (systems: {', '.join(reproduced[:8])})")
    return pairs


def _interval(samples: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Percentile interval of ``samples (R, ...)`` and the Monte-Carlo sd of its bounds (NaN resamples left out)."""
    lo_q, hi_q = (1.0 - level) / 2.0, (1.0 + level) / 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        low, high = np.nanquantile(samples, [lo_q, hi_q], axis=0)
    return low, high, pvalues.quantile_sd(samples, lo_q, axis=0), pvalues.quantile_sd(samples, hi_q, axis=0)


def reproducibility(original: pd.DataFrame, reproduced: pd.DataFrame, baseline: Optional[str] = None, *,
                    measures: Optional[Sequence[Any]] = None, systems: Pairs = None,
                    runs: Optional[tuple[Mapping[str, Any], Mapping[str, Any]]] = None, depth: int = 1000,
                    rbo_p: float = 0.95, level: float = 0.95, resamples: int = 2000, seed: streams.Seed = 0,
                    topics: TopicPolicy = "strict") -> Reproducibility:
    """Breuer et al.'s reproducibility measures of reproduced systems, with bootstrap intervals (module docstring).

    Parameters
    ----------
    original, reproduced : per-query frames (``name, qid, measure, value``: ``pt.Experiment(perquery=True)``,
        :func:`ir_cwla.meta.evaluate`, ``ir-cwla eval -q``) of the original runs and of their
        reproductions, on the same topics.
    baseline : the baseline system (its original name): ER and DRI of every other system against it.
        Without one, only KTU, RBO and RMSE.
    measures : the measures of RMSE, ER and DRI (default every measure both frames have).
    systems : which reproduced system reproduces which original one: ``{original: reproduced}``,
        or a list of names both frames use (default: every name both frames have).
    runs : ``(original_runs, reproduced_runs)``, each ``{name: run}`` (a TREC file, a DataFrame,
        anything :func:`ir_cwla.io.as_run_frame` reads), for KTU and RBO (left out without runs).
    depth : how many top documents KTU and RBO compare (repro_eval's 1,000).
    rbo_p : RBO's persistence ``p``.
    level, resamples, seed : the bootstrap intervals' level, resamples of the topics, and seed.
    topics : ``'strict'`` (both frames and every system on the same topics) or ``'intersection'``.

    Returns
    -------
    :class:`Reproducibility` (``.table()``, ``.caption()``).
    """
    from ir_cwla.comparison.api import check_level

    level = check_level(level)
    resamples = streams.check_trials(resamples, "resamples")
    depth = streams.check_trials(depth, "depth")
    if isinstance(rbo_p, bool) or not isinstance(rbo_p, (int, float)) or not 0 < rbo_p < 1:
        raise ParameterError(f"rbo_p must lie in (0, 1), got {rbo_p!r}")
    cube_o = to_cube(original, topics, min_systems=1)
    cube_r = to_cube(reproduced, topics, min_systems=1)
    pairs = _systems(systems, cube_o.systems, cube_r.systems)
    if baseline is not None and baseline not in pairs:
        raise NotFoundError(f"baseline {baseline!r} is not among the reproduced systems ({', '.join(pairs)})")
    common_topics = [t for t in cube_o.topics if t in set(cube_r.topics)]
    if set(common_topics) != set(cube_o.topics) or set(common_topics) != set(cube_r.topics):
        if topics == "strict":
            only_o = sorted(set(cube_o.topics) - set(cube_r.topics))[:5]
            only_r = sorted(set(cube_r.topics) - set(cube_o.topics))[:5]
            raise DataError(f"the original and the reproduction are scored on different topics (only in the original: "
                            f"{only_o}; only in the reproduction: {only_r}); pass topics='intersection'")
    if len(common_topics) < 2:
        raise DataError(f"need at least 2 topics both frames have, got {len(common_topics)}")
    wanted = [str(m) for m in measures] if measures is not None else \
        [m for m in cube_o.measures if m in set(cube_r.measures)]
    by_label = {naming.label(m): m for m in cube_o.measures}
    wanted = [by_label.get(m, m) for m in wanted]
    for m in wanted:
        if m not in cube_o.measures or m not in cube_r.measures:
            raise NotFoundError(f"measure {m!r} is not in both frames")
    names = list(pairs)
    ti_o = [cube_o.topics.index(t) for t in common_topics]
    ti_r = [cube_r.topics.index(t) for t in common_topics]
    x_o = np.stack([cube_o.matrix(m)[ti_o][:, [cube_o.systems.index(s) for s in names]] for m in wanted])
    x_r = np.stack([cube_r.matrix(m)[ti_r][:, [cube_r.systems.index(pairs[s]) for s in names]] for m in wanted])
    n_t = len(common_topics)
    weights = np.concatenate([resample_counts(streams.chunk_rng(seed, streams.REPRODUCIBILITY_STREAM, c), size, n_t)
                              for c, size in enumerate(streams.chunk_sizes(resamples))])     # (R, T)

    def resampled_mean(per_topic: np.ndarray) -> np.ndarray:
        """Mean over topics of every resample: ``(T, ...)`` -> ``(R, ...)``."""
        flat = per_topic.reshape(n_t, -1)
        return (weights @ flat).reshape((resamples,) + per_topic.shape[1:]) / n_t

    rows: list[dict[str, Any]] = []

    def add(statistic: str, measure: Optional[str], system: str, value: float, samples: np.ndarray,
            against: Optional[str] = None) -> None:
        low, high, low_sd, high_sd = _interval(samples, level)
        rows.append({"statistic": statistic, "measure": naming.label(measure) if measure is not None else None,
                     "system": system, "baseline": against, "value": float(value), "low": float(low),
                     "high": float(high), "low_mc_sd": float(low_sd), "high_mc_sd": float(high_sd),
                     "perfect": PERFECT[statistic], "topics": n_t})

    per_topic = pd.DataFrame(columns=["system", "qid", "KTU", "RBO"])
    if runs is not None:
        if not (isinstance(runs, tuple) and len(runs) == 2 and all(isinstance(r, Mapping) for r in runs)):
            raise ArgumentTypeError("runs must be (original_runs, reproduced_runs), each a {name: run} mapping")
        records = []
        for s in names:
            if s not in runs[0] or pairs[s] not in runs[1]:
                raise NotFoundError(f"runs= lacks the run of {s!r} (original) or {pairs[s]!r} (reproduced)")
            ranked_o = rankings(runs[0][s], depth, f"{s} (original)")
            ranked_r = rankings(runs[1][pairs[s]], depth, f"{pairs[s]} (reproduced)")
            for t in common_topics:
                a, b = ranked_o.get(t, []), ranked_r.get(t, [])
                k = min(len(a), len(b))
                tau = ktu(a[:k], b[:k]) if k >= 2 else float("nan")
                records.append({"system": s, "qid": t, "KTU": tau, "RBO": rbo(a, b, rbo_p, depth)})
        per_topic = pd.DataFrame(records)
        for s in names:
            mine = per_topic[per_topic["system"] == s].set_index("qid").loc[common_topics]
            for statistic in ("KTU", "RBO"):
                v = mine[statistic].to_numpy(dtype=np.float64)
                valid = ~np.isnan(v)
                if not valid.all():
                    warnings.warn(f"{s}: {int((~valid).sum())} topic(s) with fewer than 2 documents in the original "
                                  f"or the reproduction have no {statistic}; its mean is over the other "
                                  f"{int(valid.sum())}", UndefinedStatisticWarning, stacklevel=_caller_level())
                with np.errstate(invalid="ignore", divide="ignore"):
                    samples = (weights @ np.where(valid, v, 0.0)) / (weights @ valid.astype(np.float64))
                add(statistic, None, s, float(np.mean(v[valid])) if valid.any() else float("nan"), samples)

    sq = (x_o - x_r) ** 2                                            # (M, T, S)
    mean_sq = resampled_mean(sq.transpose(1, 0, 2))                  # (R, M, S)
    worst = np.maximum(x_o, 1.0 - x_o) ** 2
    mean_worst = resampled_mean(worst.transpose(1, 0, 2))
    for k, m in enumerate(wanted):
        for j, s in enumerate(names):
            rmse = float(np.sqrt(sq[k, :, j].mean()))
            add("RMSE", m, s, rmse, np.sqrt(mean_sq[:, k, j]))
            with np.errstate(divide="ignore", invalid="ignore"):
                add("nRMSE", m, s, rmse / float(np.sqrt(worst[k, :, j].mean())),
                    np.sqrt(mean_sq[:, k, j]) / np.sqrt(mean_worst[:, k, j]))
    if baseline is not None:
        base = names.index(baseline)
        means_o = resampled_mean(x_o.transpose(1, 0, 2))             # (R, M, S)
        means_r = resampled_mean(x_r.transpose(1, 0, 2))
        for k, m in enumerate(wanted):
            for j, s in enumerate(names):
                if j == base:
                    continue
                gain_o = x_o[k, :, j].mean() - x_o[k, :, base].mean()
                gain_r = x_r[k, :, j].mean() - x_r[k, :, base].mean()
                with np.errstate(divide="ignore", invalid="ignore"):
                    er = gain_r / gain_o
                    er_samples = (means_r[:, k, j] - means_r[:, k, base]) / (means_o[:, k, j] - means_o[:, k, base])
                    dri = gain_o / x_o[k, :, base].mean() - gain_r / x_r[k, :, base].mean()
                    dri_samples = ((means_o[:, k, j] - means_o[:, k, base]) / means_o[:, k, base]
                                   - (means_r[:, k, j] - means_r[:, k, base]) / means_r[:, k, base])
                if gain_o == 0 or x_o[k, :, base].mean() == 0 or x_r[k, :, base].mean() == 0:
                    warnings.warn(f"{naming.label(m)}: {s} vs {baseline}: the original improvement or a baseline "
                                  "mean is 0, so ER or DRI is undefined (inf or NaN)", UndefinedStatisticWarning,
                                  stacklevel=_caller_level())
                add("ER", m, s, er, er_samples, baseline)
                add("DRI", m, s, dri, dri_samples, baseline)
    table = pd.DataFrame(rows, columns=list(COLUMNS))
    return Reproducibility(table, per_topic, level, resamples, seed, n_t, depth, float(rbo_p))
