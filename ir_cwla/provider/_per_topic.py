"""Per-topic values of one checked run under C/W/L/A and ir-measures measures together.

The unit of work of :func:`ir_cwla.meta.evaluate` and of ``ir-cwla eval``, on checked columns
(:class:`~ir_cwla.io.RunColumns`), so that the command line scores a file without pandas:

- C/W/L/A measures are scored by :class:`ir_cwla.Scorer`, on every qrels topic: the topics the
  run answers in the order of the qrels' topics, then the others, sorted, with the measure's
  default (0), as the ir-measures provider does;
- the other measures by an ir-measures evaluator, given the run as its backends read it
  (:func:`backend_run`).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from ir_cwla.io import _hashing as hashing
from ir_cwla.io._columns import RunColumns, run_dict
from ir_cwla.io._ordering import rank_score_values
from ir_cwla.scoring._gains import Rankings
from ir_cwla.scoring._scoring import Scorer


def backend_run(run: RunColumns, ties: str = "float32") -> dict[str, dict[str, float]]:
    """A checked run as ir-measures' backends read it (``{query_id: {doc_id: score}}``).

    Those backends compare scores in float32: under ``ties='float64'`` they are given the
    ranks of the float64 order as scores (:func:`ir_cwla.io.rank_score_values`), which
    they rank alike.
    """
    if ties == "float64" and len(run):
        codes, _ = hashing.factorize(run.query_id)
        return run_dict(run, rank_score_values(codes, run.score, run.doc_id, ties))
    return run_dict(run)


def ranked_values(ranked: Rankings, scorer: Scorer,
                  names: Mapping[Any, str]) -> tuple[list[str], list[str], list[float]]:
    """``(qids, measure names, values)`` of a run ranked by ``scorer`` (:meth:`Scorer.rank`) under its measures.

    Every qrels topic: those the run answers, in the order of the qrels' topics, then the
    others, sorted, with the measure's default (0). The C/W/L/A part of :func:`run_values`,
    for a caller that lets the run's columns go once it is ranked (:func:`ir_cwla.meta.evaluate`
    with C/W/L/A measures only: a run's doc ids are most of its memory, and scoring needs none).
    """
    qids: list[str] = []
    measures: list[str] = []
    values: list[float] = []
    scores = scorer.score(ranked)
    answered = ranked.topics.tolist()
    missing = sorted(set(scorer.qrels.topics.tolist()) - set(answered))
    for measure, v in scores.items():
        qids.extend(answered + missing)
        measures.extend([names[measure]] * (len(answered) + len(missing)))
        values.extend(v.tolist() + [float(measure.DEFAULT)] * len(missing))
    return qids, measures, values


def run_values(run: RunColumns, name: str, scorer: Optional[Scorer], others: Any,
               names: Mapping[Any, str], ties: str = "float32") -> tuple[list[str], list[str], list[float]]:
    """``(qids, measure names, values)`` of ``run``: the C/W/L/A measures of ``scorer``, then those of ``others``.

    ``others``: an ir-measures evaluator (``ir_measures.evaluator``) of the other measures, or
    None; ``names``: the name each measure is reported under.
    """
    qids: list[str] = []
    measures: list[str] = []
    values: list[float] = []
    if scorer is not None:
        qids, measures, values = ranked_values(scorer.rank(run, name), scorer, names)
    if others is not None:
        for metric in others.iter_calc(backend_run(run, ties)):
            qids.append(metric.query_id)
            measures.append(names[metric.measure])
            values.append(float(metric.value))
    return qids, measures, values

