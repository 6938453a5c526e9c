"""The ir-measures provider: C/W/L/A measures in ``ir_measures`` and ``pt.Experiment``.

The engine's last room, its adapter to ir-measures: the provider (:data:`PROVIDER`, a thin
adapter from ir-measures' calls to :class:`ir_cwla.scoring.Scorer`), :func:`register` (which
``import ir_cwla`` calls: ``CWLA`` and the short names ``MODEL_AGG`` become ir-measures measures,
the provider joins ``ir_measures.DefaultPipeline``, and the pipeline keeps the order of the
measures given to it), what ir-measures' other backends can take (trec_eval's limits on
grades and relevance levels, :func:`check_grades_for_backends`), trec_eval's measures that
ir-measures lacks (:class:`TrecEvalProvider`, ``trec_eval9`` in the pipeline and ``trec_eval10``
in ``ir_measures.providers.registry``; :func:`trec_eval_evaluator`, the switch between trec_eval
9 and 10 where ir-cwla scores them); and the scores of result pages given as ranked gains
(:func:`score_gains`: a user study's pages, through the same path as runs).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ir_cwla import _facade
from ir_cwla.provider._backends import (
    TREC_EVAL_MAX_GRADE,
    TREC_EVAL_MAX_LEVEL,
    backend_of,
    check_grades_for_backends,
)
from ir_cwla.provider._provider import (
    PROVIDER,
    CwlaEvaluator,
    CwlaProvider,
    OrderedEvaluator,
    in_given_order,
    register,
)
from ir_cwla.provider._trec_provider import TrecEvalProvider
from ir_cwla.provider._trec_provider import evaluator as trec_eval_evaluator

if TYPE_CHECKING:
    from ir_cwla.provider._pages import PAGE_MEASURES, check_pages, reads_beyond_page, score_gains

#: Names imported on first use (the provider itself is registered when ir_cwla is imported).
_LAZY: dict[str, str] = {"score_gains": "ir_cwla.provider._pages", "check_pages": "ir_cwla.provider._pages",
                         "reads_beyond_page": "ir_cwla.provider._pages", "PAGE_MEASURES": "ir_cwla.provider._pages"}


def __getattr__(name: str) -> Any:
    return _facade.attribute(__name__, name, _LAZY)


__all__ = ["PROVIDER", "CwlaProvider", "CwlaEvaluator", "OrderedEvaluator", "in_given_order", "register",
           "check_grades_for_backends", "backend_of", "TREC_EVAL_MAX_GRADE", "TREC_EVAL_MAX_LEVEL",
           "score_gains", "check_pages", "reads_beyond_page", "PAGE_MEASURES",
           "TrecEvalProvider", "trec_eval_evaluator"]
