"""Many judges at once: their label files read (ids mapped), and the judges ranked with intervals.

The LLMJudge challenge (TREC 2024) published 33 LLM label sets of the same 4,423 DL 2023 pairs,
with topic and passage ids renamed ``q0, q1, ...`` and ``p0, p1, ...`` and two map files back to
DL 2023's ids. :func:`read_judges` reads such a set of files (one judge each, named by the file),
mapping their ids with :func:`read_id_map` / :func:`map_ids` when asked; an id the map lacks is an
:class:`~ir_cwla.errors.InputError` naming the file and the ids, never a silent drop.

:func:`judge_ranking` ranks the judges of a :func:`ir_cwla.meta.label_agreement` (by a label
statistic: Cohen's kappa, weighted kappa, Krippendorff's alpha, exact agreement) or of a
:func:`ir_cwla.meta.assessor_variation` (by the tau of one measure's system ranking) with
intervals:

* the statistic's percentile interval over a **joint** cluster bootstrap of the topics: every
  judge is resampled on the same topic draws (label agreement: the recipe of
  :mod:`ir_cwla.meta.labels`, part 0, over the sorted union of the judges' topics, a topic a judge
  did not judge adding no pair to it; assessor variation: its own replicates, which are joint
  when the alternatives judge the same topics, and otherwise give no rank interval);
* each judge's rank (1 = best; ties share the best rank) on every replicate, and its percentile
  interval (``numpy.quantile``, ``method='inverted_cdf'``, so the bounds are ranks);
* which judges are **tied with the best**: the simultaneous bootstrap max-|t| test of
  :func:`ir_cwla.meta.assessors.simultaneous_p_values` (Westfall & Young 1993) over the same
  replicates; ``p_vs_best`` is the adjusted p-value of the difference from the nominal best, and
  a judge with ``p_vs_best >= alpha`` is not distinguishable from it.
"""
from __future__ import annotations

import glob
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np
import pandas as pd

from ir_cwla.analysis import streams
from ir_cwla.errors import DataError, InputError, ParameterError
from ir_cwla.io import as_qrels_frame, open_input
from ir_cwla.meta import criteria
from ir_cwla.meta import labels as label_module
from ir_cwla.meta.assessors import GRADE_MAP, AssessorVariation, simultaneous_p_values
from ir_cwla.meta.labels import LabelAgreement, bootstrap_topics

JudgeFiles = Union[str, os.PathLike, Sequence[Union[str, os.PathLike]], Mapping[str, Any]]
#: Extensions taken off a label file's name to name its judge.
EXTENSIONS = (".gz", ".bz2", ".xz", ".txt", ".qrels", ".tsv")


# -- ids ------------------------------------------------------------------------------------------------
def read_id_map(source: Any, original_first: bool = True) -> dict[str, str]:
    """``{short id: original id}`` from a two-column id map file (``2040064<TAB>q0`` per line).

    ``original_first``: the original id is the first column (the LLMJudge files' layout); else
    the second. A line without exactly two fields, or an id mapped twice to different ids (either
    way), is an :class:`~ir_cwla.errors.InputError` naming the file and line.
    """
    out: dict[str, str] = {}
    back: dict[str, str] = {}
    with open_input(source, "id map") as (stream, name, _):
        for number, raw in enumerate(stream, start=1):
            fields = raw.decode("utf-8", errors="replace").split()
            if not fields:
                continue
            if len(fields) != 2:
                raise InputError(f"id map {name}, line {number}: expected 2 fields (original id, short id), got "
                                 f"{len(fields)}")
            original, short = fields if original_first else fields[::-1]
            if out.get(short, original) != original:
                raise InputError(f"id map {name}, line {number}: {short!r} maps to {out[short]!r} and to {original!r}")
            if back.get(original, short) != short:
                raise InputError(f"id map {name}, line {number}: {original!r} has two short ids, {back[original]!r} "
                                 f"and {short!r}")
            out[short], back[original] = original, short
    if not out:
        raise InputError(f"id map {name} is empty")
    return out


def map_ids(qrels: Any, topics: Optional[Mapping[str, str]] = None, docs: Optional[Mapping[str, str]] = None,
            name: Optional[str] = None) -> pd.DataFrame:
    """A qrels frame with its topic and doc ids mapped (``{short: original}``, :func:`read_id_map`).

    Every id must be in its map: the ids that are not are an :class:`~ir_cwla.errors.InputError`
    naming the qrels, how many and the first few.
    """
    if name is None:
        name = os.fspath(qrels) if isinstance(qrels, (str, os.PathLike)) else "qrels"
    frame = as_qrels_frame(qrels, name=name)
    out = frame.copy()
    for column, mapping, what in (("query_id", topics, "topic"), ("doc_id", docs, "doc")):
        if mapping is None:
            continue
        values = frame[column].astype(str)
        mapped = values.map(mapping)
        lacking = values[mapped.isna()]
        if len(lacking):
            unique = list(pd.unique(lacking))
            raise InputError(f"{name}: {len(unique)} {what} id(s) are not in the {what} id map, e.g. "
                             f"{', '.join(map(repr, unique[:5]))}: is it the map of these files?")
        out[column] = mapped.to_numpy(dtype=object)
    return as_qrels_frame(out, name=name)


def judge_name(path: Union[str, os.PathLike]) -> str:
    """A label file's name without its extensions (``Olz-gpt4o.txt`` -> ``Olz-gpt4o``)."""
    name = Path(path).name
    for ext in EXTENSIONS:
        if name.endswith(ext) and len(name) > len(ext):
            name = name[: -len(ext)]
    return name


def read_judges(files: JudgeFiles, topics: Optional[Mapping[str, str]] = None,
                docs: Optional[Mapping[str, str]] = None) -> dict[str, pd.DataFrame]:
    """Label files of many judges as ``{judge: qrels frame}``, ids mapped when maps are given.

    ``files``: a directory (its files, sorted, hidden ones skipped), a glob, a list of files (each
    judge named by its file name without extensions) or a mapping ``{judge: qrels}``.
    """
    if isinstance(files, Mapping):
        items = [(str(k), v) for k, v in files.items()]
    else:
        if isinstance(files, (str, os.PathLike)):
            path = Path(files)
            if path.is_dir():
                paths = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
            elif any(ch in str(files) for ch in "*?["):
                paths = [Path(p) for p in sorted(glob.glob(str(files)))]
            else:
                paths = [path]
        else:
            paths = [Path(p) for p in files]
        if not paths:
            raise InputError(f"judges: no label file in {files}")
        items = []
        for p in paths:
            n = judge_name(p)
            if n in dict(items):
                raise InputError(f"judges: two files name the judge {n!r} ({dict(items)[n]} and {p})")
            items.append((n, p))
    out = {}
    for n, q in items:
        frame = map_ids(q, topics, docs, name=str(q) if isinstance(q, (str, os.PathLike)) else n)
        if isinstance(q, (str, os.PathLike)):
            frame.attrs["source"] = str(q)          # errors about its grades name the file
        out[n] = frame
    return out


# -- ranking ----------------------------------------------------------------------------------------------
@dataclass
class JudgeRanking:
    """The judges ranked by one statistic, with intervals (module docstring).

    ``ranking``: one row per judge, best first: ``rank``, ``alternative``, the statistic with
    ``low``/``high``, ``rank_low``/``rank_high``, ``p_vs_best``, ``tied_best``; ``replicates``:
    ``(B, judges)`` bootstrap values of the statistic (judges in the order of ``ranking``).
    """

    ranking: pd.DataFrame
    replicates: np.ndarray
    statistic: str
    measure: Optional[str]
    reference: str
    level: float
    trials: int
    seed: Any
    source: Any

    def table(self) -> pd.DataFrame:
        """One row per judge, best first."""
        return self.ranking.copy()

    def plot(self, **kwargs: Any):
        """The judges ranked with intervals (and, for label agreement, their confusion of grades)."""
        from ir_cwla.meta.judges_plots import plot_judge_ranking

        return plot_judge_ranking(self, **kwargs)


def _ranks(values: np.ndarray) -> np.ndarray:
    """Rank of every column in each row (1 = highest; ties share the best; NaN ranks last)."""
    filled = np.where(np.isnan(values), -np.inf, values)
    return 1 + (filled[..., None, :] > filled[..., :, None]).sum(axis=-1)


def _label_replicates(result: LabelAgreement, statistic: str) -> np.ndarray:
    """``(trials, judges)``: the statistic on the joint topic resamples of every judge."""
    union = sorted({t for alt in result.alternatives for t in result.topics[alt]})
    column = label_module.STATISTICS.index(statistic)
    out = np.empty((result.trials, len(result.alternatives)))
    for j, alt in enumerate(result.alternatives):
        conf = result.confusions[alt]
        padded = np.zeros((len(union),) + conf.shape[1:], dtype=conf.dtype)
        padded[[union.index(t) for t in result.topics[alt]]] = conf
        values = np.asarray(result.categories[alt], dtype=np.float64)
        out[:, j] = bootstrap_topics(padded, values, result.trials, result.seed)[:, column]
    return out


def judge_ranking(result: Union[LabelAgreement, AssessorVariation], statistic: Optional[str] = None,
                  measure: Optional[str] = None, alpha: Optional[float] = None) -> JudgeRanking:
    """The judges of a label agreement or an assessor variation, ranked with intervals.

    Parameters
    ----------
    result : a :class:`~ir_cwla.meta.LabelAgreement` or :class:`~ir_cwla.meta.AssessorVariation`.
    statistic : label agreement: one of :data:`ir_cwla.meta.labels.STATISTICS` (default
        ``'kappa_quadratic'``); assessor variation: ``'tau'`` (the default and only choice).
    measure : assessor variation: the measure whose system ranking is compared (its label or name).
    alpha : the test of ties with the best (default: ``1 - level`` of the result).
    """
    if isinstance(result, LabelAgreement):
        statistic = statistic or "kappa_quadratic"
        if statistic not in label_module.STATISTICS:
            raise ParameterError(f"statistic must be one of {label_module.STATISTICS}, got {statistic!r}")
        if measure is not None:
            raise ParameterError("measure ranks the judges of an assessor variation; a label agreement has none")
        names = list(result.alternatives)
        overall = result.statistics[(result.statistics["query_id"] == label_module.OVERALL)
                                    & (result.statistics["statistic"] == statistic)].set_index("alternative")
        observed = overall.loc[names, "value"].to_numpy(np.float64)
        replicates = _label_replicates(result, statistic)
        level, trials, seed, reference = result.level, result.trials, result.seed, result.reference
        shared = result.coverage[result.coverage["query_id"] == label_module.OVERALL].set_index("alternative")
        extra = {"judged_both": shared.loc[names, "judged_both"].to_numpy(np.int64)}
        joint = True
    elif isinstance(result, AssessorVariation):
        statistic = statistic or "tau"
        if statistic != "tau":
            raise ParameterError("an assessor variation ranks the judges by tau (its bootstrap is of tau)")
        if measure is None:
            raise ParameterError(f"name the measure whose ranking is compared, one of "
                                 f"{[result.labels.get(m, m) for m in result.measures]}")
        key = result._measure(measure)
        names = list(result.alternatives)
        table = result.agreement[result.agreement["measure"] == key].set_index("alternative")
        observed = table.loc[names, "tau"].to_numpy(np.float64)
        index = result.measures.index(key)
        replicates = np.stack([result.replicates[a][:, index] for a in names], axis=1)
        level, trials, seed, reference = result.level, result.bootstrap, result.seed, result.reference
        extra = {"topics": table.loc[names, "topics"].to_numpy(np.int64)}
        counts = result.coverage.set_index("alternative").loc[names, "topics"]
        joint = counts.nunique() == 1 and len({tuple(result.topics.get(a, ())) for a in names}) == 1
        measure = result.labels.get(key, key)
    else:
        raise ParameterError(f"judge_ranking ranks the judges of a LabelAgreement or an AssessorVariation, got "
                             f"{type(result).__name__}")
    if not names:
        raise DataError("ranking judges needs at least one")
    alpha_ = (1.0 - level) if alpha is None else float(alpha)
    with np.errstate(invalid="ignore"):
        low, high = np.nanquantile(replicates, [(1 - level) / 2, (1 + level) / 2], axis=0)
    ranks = _ranks(observed)
    if joint:
        boot_ranks = _ranks(replicates)
        rank_low, rank_high = np.quantile(boot_ranks, [(1 - level) / 2, (1 + level) / 2], axis=0,
                                          method="inverted_cdf")
        p = simultaneous_p_values(np.where(np.isnan(replicates), np.nanmean(replicates, axis=0), replicates), observed)
    else:
        rank_low = rank_high = np.full(len(names), np.nan)
        p = np.full((len(names), len(names)), np.nan)
    best = int(np.nanargmax(observed))
    p_best = p[best]
    frame = pd.DataFrame({"rank": ranks, "alternative": names, statistic: observed, f"{statistic}_low": low,
                          f"{statistic}_high": high, "rank_low": rank_low, "rank_high": rank_high,
                          "p_vs_best": np.where(np.arange(len(names)) == best, 1.0, p_best),
                          "tied_best": (p_best >= alpha_) | (np.arange(len(names)) == best), **extra})
    order = np.lexsort((frame["alternative"].to_numpy(), -np.nan_to_num(observed, nan=-np.inf)))
    frame = frame.iloc[order].reset_index(drop=True)
    return JudgeRanking(ranking=frame, replicates=replicates[:, order], statistic=statistic, measure=measure,
                        reference=reference, level=level, trials=trials, seed=seed, source=result)


# -- the criterion ---------------------------------------------------------------------------------------
@dataclass
class Judges:
    """The criterion's result: the label agreement of every judge and their ranking."""

    agreement: LabelAgreement
    ranking: JudgeRanking

    def table(self) -> pd.DataFrame:
        """The judges ranked (:meth:`JudgeRanking.table`)."""
        return self.ranking.table()

    def plot(self, **kwargs: Any):
        """The judges ranked, with their confusion of grades (:meth:`JudgeRanking.plot`)."""
        return self.ranking.plot(**kwargs)


def check_statistic(value: Any, what: str = "statistic") -> str:
    """A label statistic of :data:`ir_cwla.meta.labels.STATISTICS`."""
    if value not in label_module.STATISTICS:
        raise ParameterError(f"{what} must be one of {label_module.STATISTICS}, got {value!r}")
    return str(value)


def _compute(inputs: Any, trials: int, statistic: str, grade_map: Any) -> Judges:
    agreement = label_module.label_agreement(inputs.qrels, dict(inputs.alternatives), level=1.0 - inputs.alpha,
                                             trials=trials, seed=inputs.seed, reference_name="reference",
                                             grade_map=grade_map)
    return Judges(agreement, judge_ranking(agreement, statistic))


def _section(result: Judges, summary: pd.DataFrame) -> list:
    agreement = result.agreement
    return [criteria.Text(f"The grades of every other assessor ({len(agreement.alternatives)}) compared with the "
                          "reference's on the (topic, doc_id) pairs both judged: exact agreement, Cohen's kappa "
                          "(unweighted, linear and quadratic weights) and Krippendorff's alpha, with "
                          f"{agreement.level:.0%} percentile intervals of a bootstrap over topics ({agreement.trials} "
                          f"resamples, seed {agreement.seed}); the judges ranked by {result.ranking.statistic}, with "
                          "rank intervals from the same (joint) resamples and the judges not distinguishable from "
                          "the best by a simultaneous bootstrap test."),
            criteria.Figure(result.plot, "the judges ranked, with their confusion of grades", "judges.png"),
            criteria.Table(summary, "the judges ranked, with intervals", "judges.csv"),
            criteria.Table(agreement.table("all"), "label agreement with the reference, per judge",
                           "label_agreement.csv")]


CRITERION = criteria.register_criterion(criteria.Criterion(
    "label_agreement", "label agreement of other assessors (judges)",
    "How alike do other assessors (people, crowds, LLM judges) grade the pairs the reference judged, and which "
    "agree most?",
    compute=_compute, summary=lambda result, inputs, **options: result.table(), section=_section,
    needs=("qrels", "alternatives"), per_measure=False,
    options=(criteria.Option("trials", 1000, "label agreement: bootstrap resamples", cli="label_trials",
                             check=streams.check_trials),
             criteria.Option("statistic", "kappa_quadratic", "label agreement: the statistic the judges are ranked by",
                             cli="judge_statistic", check=check_statistic, metavar="STATISTIC"),
             GRADE_MAP), order=59), replace=True)
