"""The ir-measures provider: a thin adapter from ir-measures' calls to :mod:`ir_cwla.scoring`.

As ir-measures' own providers do, it converts its inputs once (the qrels when the evaluator
is made, each run when it is scored), hands them to the computation
(:class:`ir_cwla.scoring.Scorer`) and yields ``Metric(query_id, measure, value)``.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import ir_measures
import numpy as np
from ir_measures import providers
from ir_measures.measures.base import Measure
from ir_measures.providers.base import Any as AnyParam
from ir_measures.util import Metric

from ir_cwla.measure import _CWLA, CWLA, is_cwla
from ir_cwla.names import register_aliases


class CwlaEvaluator(providers.Evaluator):
    """Scores many runs against one set of qrels (read once) for a set of CWLA measures."""

    def __init__(self, measures: Iterable[Measure], qrels: Any):
        from ir_cwla.scoring import Scorer  # (pandas and the readers, when the provider is first used)

        self.scorer = Scorer(measures, qrels)
        super().__init__(self.scorer.measures, set(self.scorer.qrels.topics.tolist()))

    def score(self, run: Any, name: str = "run") -> tuple[np.ndarray, dict[Measure, np.ndarray]]:
        """Per-topic scores of one run: (topic ids present in both run and qrels, {measure: scores})."""
        return self.scorer.score_run(run, name)

    def iter_calc(self, run: Any) -> Iterator[Metric]:
        """Per-topic metrics for every qrels topic (0 for topics the run does not answer)."""
        topics, scores = self.score(run)
        missing = sorted(set(self.qrel_qids) - set(topics.tolist()))
        for measure, values in scores.items():
            for qid, value in zip(topics.tolist(), values.tolist()):
                yield Metric(query_id=qid, measure=measure, value=value)
            for qid in missing:
                yield Metric(query_id=qid, measure=measure, value=measure.DEFAULT)

    def calc_aggregate(self, run: Any) -> dict[Measure, float]:
        """Mean over every qrels topic (0 for topics the run does not answer), as ir-measures."""
        _, scores = self.score(run)
        n = len(self.scorer.qrels.topics)
        return {m: (float(v.sum()) / n if n else float("nan")) for m, v in scores.items()}


class CwlaProvider(providers.Provider):
    """ir_cwla: every C/W/L/A browsing model x aggregation pair (measure ``CWLA``)."""

    NAME = "ir_cwla"

    @property
    def SUPPORTED_MEASURES(self) -> list[Measure]:  # type: ignore[override]  # noqa: N802  (ir-measures' name)
        """``CWLA`` with any value of every parameter the registries declare (built when asked)."""
        return [_CWLA(**{k: AnyParam() for k in _CWLA.SUPPORTED_PARAMS})]

    def supports(self, measure: Measure) -> bool:
        if not is_cwla(measure):
            return False
        measure.validate_params()   # a clear MeasureError for bad parameters
        return True

    def _evaluator(self, measures: Iterable[Measure], qrels: Any) -> CwlaEvaluator:
        return CwlaEvaluator(measures, qrels)


PROVIDER = CwlaProvider()


def register() -> None:
    """Registers ``CWLA`` with ir-measures and appends the provider to its DefaultPipeline.

    Also registers the plain short names ``MODEL_AGG`` of the models and aggregations
    (:func:`ir_cwla.names.register_aliases`; kept in step with later registrations).
    Idempotent and safe under ``importlib.reload``: an earlier registration is replaced.
    """
    ir_measures.measures.registry[CWLA.NAME] = CWLA
    register_aliases()
    ir_measures.providers.registry[PROVIDER.NAME] = PROVIDER
    pipeline = ir_measures.DefaultPipeline
    pipeline.providers[:] = [p for p in pipeline.providers if getattr(p, "NAME", None) != PROVIDER.NAME]
    pipeline.providers.append(PROVIDER)
