"""The ir-measures provider: a thin adapter from runs and qrels to the numpy kernel.

The evaluator reads the qrels once; each run is ranked once into a grade matrix
(:func:`ir_cwla.gains.rank_run`), and every requested measure is computed from it, measures
that share a browsing model sharing its C, V and L.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple, Optional

import ir_measures
import numpy as np
from ir_measures import providers
from ir_measures.measures.base import Measure
from ir_measures.providers.base import Any as AnyParam
from ir_measures.util import Metric

from ir_cwla import kernel
from ir_cwla.aggregation import Aggregation, get_aggregation
from ir_cwla.browsing import BrowsingModel, get_browsing_model
from ir_cwla.gains import GainSpec, Qrels, Rankings, rank_run
from ir_cwla.io import as_qrels_frame, as_run_frame
from ir_cwla.measure import _CWLA, CWLA, is_cwla
from ir_cwla.names import register_aliases


class _Plan(NamedTuple):
    """How one measure is computed, and the cache keys of the steps it shares with others."""

    spec: GainSpec
    cutoff: Optional[int]
    padded: bool
    model: BrowsingModel
    agg: Aggregation
    params: dict
    layout: tuple
    gkey: tuple
    bkey: tuple


class CwlaEvaluator(providers.Evaluator):
    """Scores many runs against one set of qrels (read once) for a set of CWLA measures."""

    def __init__(self, measures: Iterable[Measure], qrels: Any):
        measures = list(measures)
        for m in measures:
            m.validate_params()
        self.prepared_qrels = Qrels(as_qrels_frame(qrels))
        for m in measures:
            if "max_rel" in m.params:
                self.prepared_qrels.check_max_rel(m["max_rel"])
        cutoffs = [m.params.get("cutoff") for m in measures]
        self.max_depth: Optional[int] = None if any(c is None for c in cutoffs) else max(cutoffs, default=0)
        super().__init__(measures, set(self.prepared_qrels.topics.tolist()))

    def score(self, run: Any, name: str = "run") -> tuple[np.ndarray, dict[Measure, np.ndarray]]:
        """Per-topic scores of one run: (topic ids present in both run and qrels, {measure: scores})."""
        ranked = rank_run(as_run_frame(run, name), self.prepared_qrels, self.max_depth, name)
        return ranked.topics, self.score_rankings(ranked)

    def score_rankings(self, ranked: Rankings) -> dict[Measure, np.ndarray]:
        """Per-topic scores (in the order of ``ranked.topics``) of every measure.

        The rows are scored group by group (:meth:`Rankings.groups`); measures that share a
        gain mapping and cutoff share the gain matrices, and measures that also share a
        browsing model share its C, V and L. ``ranked`` may be graded by a subset of the
        evaluator's qrels (:meth:`Rankings.regrade`): its own qrels give x_max and R.
        """
        qrels = ranked.qrels
        rows = ranked.topic_rows
        n = len(rows)
        plans = [self._plan(m) for m in self.measures]
        # how many measures still need each cached layout, gain matrix and browsing: freed after
        # the last one, so peak memory is that of the widest single step, not of all measures
        uses: Counter = Counter()
        for plan in plans:
            uses.update([plan.layout, plan.gkey, plan.bkey])
        cache: dict[Any, Any] = {}
        out: dict[Measure, np.ndarray] = {}
        for m, plan in zip(self.measures, plans):
            if plan.layout not in cache:
                cache[plan.layout] = ranked.groups(plan.cutoff, pad_to=plan.cutoff if plan.padded else None)
            groups = cache[plan.layout]
            if plan.gkey not in cache:
                cache[plan.gkey] = [plan.spec.apply(g.grades, qrels.x_max) for g in groups]
            if plan.bkey not in cache:
                total = qrels.total_gain(plan.spec)[rows] if m["tail"] == "pad" else None
                cache[plan.bkey] = [
                    kernel.browse(gains, np.full(len(g.rows), plan.cutoff, dtype=np.int64)
                                  if plan.cutoff is not None else g.kept, plan.model, plan.params, m["tail"],
                                  None if total is None else total[g.rows], ranked.topics[g.rows])
                    for g, gains in zip(groups, cache[plan.gkey])]
            scores = np.zeros(n)
            for g, b in zip(groups, cache[plan.bkey]):
                scores[g.rows] = kernel.aggregate(b, plan.agg, plan.params)
            out[m] = scores
            for key in (plan.layout, plan.gkey, plan.bkey):
                uses[key] -= 1
                if not uses[key]:
                    del cache[key]
        return out

    @staticmethod
    def _plan(m: Measure) -> _Plan:
        spec = m.gain_spec()
        cutoff = m.params.get("cutoff")
        model = get_browsing_model(m["C"])
        agg = get_aggregation(m["A"])
        # a cutoff deeper than a group's rankings is summed in closed form, if the model and the
        # aggregation can; otherwise the matrix is padded with zeros up to the cutoff
        padded = cutoff is not None and not (model.finite_tail and agg.tail is not None)
        params = m.model_params()
        layout = ("layout", cutoff, padded)
        gkey = ("gains", spec, layout)
        bkey = ("browse", model.name, tuple(params[k] for k in model.params), gkey, m["tail"])
        return _Plan(spec, cutoff, padded, model, agg, params, layout, gkey, bkey)

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
        n = len(self.qrel_qids)
        return {m: (float(v.sum()) / n if n else float("nan")) for m, v in scores.items()}


class CwlaProvider(providers.Provider):
    """ir_cwla: every C/W/L/A browsing model x aggregation pair (measure ``CWLA``)."""

    NAME = "ir_cwla"
    SUPPORTED_MEASURES = [_CWLA(**{k: AnyParam() for k in _CWLA.SUPPORTED_PARAMS})]

    def supports(self, measure: Measure) -> bool:
        if not is_cwla(measure):
            return False
        measure.validate_params()   # a clear ValueError for bad parameters
        return True

    def _evaluator(self, measures: Iterable[Measure], qrels: Any) -> CwlaEvaluator:
        return CwlaEvaluator(measures, qrels)


PROVIDER = CwlaProvider()


def register() -> None:
    """Registers ``CWLA`` with ir-measures and appends the provider to its DefaultPipeline.

    Also registers the plain short names ``MODEL_AGG`` of the models and aggregations known
    now (:func:`ir_cwla.names.register_aliases`). Idempotent and safe under
    ``importlib.reload``: an earlier registration is replaced.
    """
    ir_measures.measures.registry[CWLA.NAME] = CWLA
    register_aliases()
    ir_measures.providers.registry[PROVIDER.NAME] = PROVIDER
    pipeline = ir_measures.DefaultPipeline
    pipeline.providers[:] = [p for p in pipeline.providers if getattr(p, "NAME", None) != PROVIDER.NAME]
    pipeline.providers.append(PROVIDER)
