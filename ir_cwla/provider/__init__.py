"""The ir-measures provider: C/W/L/A measures in ``ir_measures`` and ``pt.Experiment``.

The engine's last room, its adapter to ir-measures: the provider (:data:`PROVIDER`, a thin
adapter from ir-measures' calls to :class:`ir_cwla.scoring.Scorer`), :func:`register` (which
``import ir_cwla`` calls: ``CWLA`` and the short names ``MODEL_AGG`` become ir-measures measures,
the provider joins ``ir_measures.DefaultPipeline``, and the pipeline keeps the order of the
measures given to it), what ir-measures' other backends can take (trec_eval's limits on
grades and relevance levels, :func:`check_grades_for_backends`), and trec_eval's measures that
ir-measures lacks (:class:`TrecEvalProvider`, ``trec_eval9`` in the pipeline and ``trec_eval10``
in ``ir_measures.providers.registry``; :func:`trec_eval_evaluator`, the switch between trec_eval
9 and 10 where ir-cwla scores them).
"""
from __future__ import annotations

from typing import Any

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

#: Names imported on first use (none: the provider is registered when ir_cwla is imported).
_LAZY: dict[str, str] = {}


def __getattr__(name: str) -> Any:
    return _facade.attribute(__name__, name, _LAZY)


__all__ = ["PROVIDER", "CwlaProvider", "CwlaEvaluator", "OrderedEvaluator", "in_given_order", "register",
           "check_grades_for_backends", "backend_of", "TREC_EVAL_MAX_GRADE", "TREC_EVAL_MAX_LEVEL",
           "TrecEvalProvider", "trec_eval_evaluator"]
