"""The ir-measures provider: a thin adapter from ir-measures' calls to :mod:`ir_cwla.scoring`.

As ir-measures' own providers do, it converts its inputs once (the qrels when the evaluator
is made, each run when it is scored), hands them to the computation
(:class:`ir_cwla.scoring.Scorer`) and yields ``Metric(query_id, measure, value)``.

Order. ir-measures' pipeline (``ir_measures.DefaultPipeline``, a ``FallbackProvider``) hands
each provider its measures as a ``set``, and a set of measures iterates in the order of their
hashes, ``hash(repr(measure))``, which Python seeds afresh in every process
(``PYTHONHASHSEED``). So that the columns of ``pt.Experiment`` and the keys of
``ir_measures.calc_aggregate`` come in the order the user gave the measures, in every run of
a script, :func:`register` makes the pipeline remember that order when a C/W/L/A measure is
among them (:class:`OrderedEvaluator`); measures given as a set are taken in the order of
their names (``repr``). Pipelines of ir-measures measures alone are left as they are.
"""
from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Optional

import ir_measures
import numpy as np
from ir_measures import providers
from ir_measures.measures.base import Measure
from ir_measures.providers.base import Any as AnyParam
from ir_measures.util import CalcResults, Metric

from ir_cwla.measures._measure import _CWLA, CWLA, is_cwla
from ir_cwla.measures._names import register_aliases


def in_given_order(measures: Iterable[Measure]) -> list[Measure]:
    """``measures`` without repeats, in the order given.

    A set (which has no order of its own, and iterates in an order Python's hash seed
    decides) in the order of the measures' names.
    """
    if isinstance(measures, (set, frozenset)):
        return sorted(measures, key=repr)
    return list(dict.fromkeys(measures))


class CwlaEvaluator(providers.Evaluator):
    """Scores many runs against one set of qrels for a set of CWLA measures.

    Scores many runs against one set of qrels (read once) for a set of CWLA measures
    (yielded and aggregated in the order given, :func:`in_given_order`).
    """

    def __init__(self, measures: Iterable[Measure], qrels: Any, trec_eval: Optional[int] = None):
        from ir_cwla.scoring._scoring import Scorer  # (the readers, when the provider is first used)

        self.scorer = Scorer(in_given_order(measures), qrels, trec_eval=trec_eval)
        super().__init__(self.scorer.measures, set(self.scorer.qrels.topics.tolist()))

    def score(self, run: Any, name: Optional[str] = None) -> tuple[np.ndarray, dict[Measure, np.ndarray]]:
        """Per-topic scores of one run: (topic ids present in both run and qrels, {measure: scores}).

        ``name`` names the run in warnings (default: its file, :func:`ir_cwla.io.source_name`).
        """
        return self.scorer.score_run(run, name)     # (named by the scorer: the run checked once)

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


class OrderedEvaluator(providers.Evaluator):
    """An ir-measures evaluator that yields the measures in the order given.

    An evaluator of ir-measures' pipeline whose metrics and aggregates come in the order the
    measures were given (the pipeline itself groups them by provider, each group a set).

    ``iter_calc`` yields the metrics of one measure after another, in that order (each
    measure's topics in the order its provider yields them); ``calc_aggregate`` and ``calc``
    return their dicts in that order.
    """

    def __init__(self, inner: providers.Evaluator, measures: Sequence[Measure]):
        super().__init__(list(measures), inner.qrel_qids)
        self.inner = inner

    def iter_calc(self, run: Any) -> Iterator[Metric]:
        """The per-query metrics of ``run``, in the order the measures were given."""
        by_measure: dict[Measure, list[Metric]] = {m: [] for m in self.measures}
        for metric in self.inner.iter_calc(run):
            by_measure.setdefault(metric.measure, []).append(metric)
        for metrics in by_measure.values():
            yield from metrics

    def calc_aggregate(self, run: Any) -> dict[Measure, Any]:
        """The aggregated values of ``run``, in the order the measures were given."""
        return self._ordered(self.inner.calc_aggregate(run))

    def _ordered(self, values: dict) -> dict:
        out = {m: values[m] for m in self.measures if m in values}
        out.update((m, v) for m, v in values.items() if m not in out)
        return out

    def calc(self, run: Any) -> Any:
        """The aggregated values and per-query metrics of ``run``, in the order the measures were given."""
        aggregated, metrics = self.inner.calc(run)
        rank = {m: i for i, m in enumerate(self.measures)}
        metrics = sorted(metrics, key=lambda metric: rank.get(metric.measure, len(rank)))    # stable
        return CalcResults(self._ordered(dict(aggregated)), metrics)   # type: ignore[arg-type]


def _ordered_evaluator(pipeline: providers.FallbackProvider, measures: Iterable[Measure], qrels: Any
                       ) -> providers.Evaluator:
    """``pipeline``'s own evaluator, ordered when a C/W/L/A measure is among ``measures``.

    ``pipeline``'s own evaluator, wrapped in an :class:`OrderedEvaluator` when a C/W/L/A
    measure is among ``measures`` (see the module docstring).
    """
    given = in_given_order(measures)
    inner = type(pipeline)._evaluator(pipeline, given, qrels)
    if not any(is_cwla(m) for m in given):
        return inner
    return OrderedEvaluator(inner, given)


class CwlaProvider(providers.Provider):
    """ir_cwla: every C/W/L/A browsing model x aggregation pair (measure ``CWLA``).

    ``trec_eval``: rank the runs as trec_eval 9.0.8 (the default; scores compared in float32)
    or 10.0 (float64) ranks them (:func:`ir_cwla.scoring.trec_eval_semantics`):
    ``CwlaProvider(trec_eval=10).calc_aggregate(measures, qrels, run)``.
    """

    NAME = "ir_cwla"

    def __init__(self, trec_eval: Optional[int] = None):
        super().__init__()
        self.trec_eval = trec_eval

    @property
    def SUPPORTED_MEASURES(self) -> list[Measure]:  # type: ignore[override]  # noqa: N802  (ir-measures' name)
        """``CWLA`` with any value of every parameter the registries declare (built when asked)."""
        return [_CWLA(**{k: AnyParam() for k in _CWLA.SUPPORTED_PARAMS})]

    def supports(self, measure: Measure) -> bool:
        """True for a CWLA measure; its parameters are validated (a clear :class:`MeasureError`)."""
        if not is_cwla(measure):
            return False
        measure.validate_params()   # a clear MeasureError for bad parameters
        return True

    def _evaluator(self, measures: Iterable[Measure], qrels: Any) -> CwlaEvaluator:
        return CwlaEvaluator(measures, qrels, self.trec_eval)


PROVIDER = CwlaProvider()
"""The provider ``import ir_cwla`` registers with ir-measures (``ir_measures.providers.registry['ir_cwla']``)
and appends to ``ir_measures.DefaultPipeline`` (:func:`register`)."""


def register() -> None:
    """Registers ``CWLA`` with ir-measures and appends the provider to its DefaultPipeline.

    Also registers the plain short names ``MODEL_AGG`` of the models and aggregations
    (:func:`ir_cwla.measures._names.register_aliases`; kept in step with later registrations).
    Makes the pipeline keep the order of the measures given to it (:class:`OrderedEvaluator`).
    Idempotent and safe under ``importlib.reload``: an earlier registration is replaced.
    """
    ir_measures.measures.registry[CWLA.NAME] = CWLA
    register_aliases()
    ir_measures.providers.registry[PROVIDER.NAME] = PROVIDER
    pipeline = ir_measures.DefaultPipeline
    pipeline.providers[:] = [p for p in pipeline.providers if getattr(p, "NAME", None) != PROVIDER.NAME]
    pipeline.providers.append(PROVIDER)
    pipeline._evaluator = functools.partial(_ordered_evaluator, pipeline)   # type: ignore[method-assign]
