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
import pandas as pd
from ir_measures import providers
from ir_measures.measures.base import Measure
from ir_measures.providers.base import Any as AnyParam
from ir_measures.util import Metric

from ir_cwla import kernel
from ir_cwla.aggregation import Aggregation, get_aggregation
from ir_cwla.browsing import BrowsingModel, get_browsing_model
from ir_cwla.costs import CostSpec
from ir_cwla.errors import DataError, InputError, MeasureError
from ir_cwla.gains import GainSpec, Qrels, Rankings, rank_run
from ir_cwla.io import ELEMENT_TYPE, as_qrels_frame, as_run_frame
from ir_cwla.measure import _CWLA, CWLA, is_cwla, needs_element_types
from ir_cwla.names import register_aliases, short_name
from ir_cwla.params import Params


def ranking_depth(measures: Iterable[Measure]) -> Optional[int]:
    """How deep runs must be ranked for ``measures``: the deepest cutoff, or None (whole
    rankings) if a measure has no cutoff, condenses its lists, or counts the unjudged documents
    of whole rankings (R of AP under 'pad' with unjudged='max' or 'residual')."""
    depth = 0
    for m in measures:
        cutoff = m.params.get("cutoff")
        whole = m["unjudged"] == "condense" or (
            m["unjudged"] in ("max", "residual") and m["tail"] == "pad" and get_browsing_model(m["C"]).reads_total)
        if cutoff is None or whole:
            return None
        depth = max(depth, cutoff)
    return depth


class _Plan(NamedTuple):
    """How one measure is computed under one unjudged policy ('zero', 'max' or 'condense'),
    and the cache keys of the steps it shares with others."""

    measure: _CWLA
    policy: str
    spec: GainSpec
    cutoff: Optional[int]
    padded: bool
    model: BrowsingModel
    agg: Aggregation
    params: Params
    costs: Optional[CostSpec]
    layout: tuple
    gkey: tuple
    ckey: Optional[tuple]
    bkey: tuple

    @property
    def condensed(self) -> bool:
        return self.policy == "condense"

    @property
    def zero_bkey(self) -> tuple:
        """The browsing of the same measure under 'zero', which a 'max' one of a model whose C
        reads neither gains nor costs shares (the same V and L; only the gains differ)."""
        gkey = ("gains", self.spec, self.layout, "zero")
        return self.bkey[:3] + (gkey,) + self.bkey[4:]


def _score_key(m: _CWLA, policy: str) -> tuple:
    """Measures that differ only in their unjudged policy share the score of each policy."""
    return tuple((k, v) for k, v in m.params.items() if k != "unjudged") + (policy,)


def _plan(m: _CWLA, policy: str) -> _Plan:
    spec = m.gain_spec()
    cutoff = m.params.get("cutoff")
    model = get_browsing_model(m["C"])
    agg = get_aggregation(m["A"])
    # a cutoff deeper than a group's rankings is summed in closed form, if the model and the
    # aggregation can; otherwise the matrix is padded with zeros up to the cutoff
    padded = cutoff is not None and not (model.finite_tail and agg.tail is not None)
    params = m.model_params()
    gains_policy = "max" if policy == "max" else "zero"    # a condensed list has no unjudged document
    costs = m.cost_spec() if (agg.needs_costs or model.uses_costs) else None
    layout = ("layout", policy == "condense", cutoff, padded)
    gkey = ("gains", spec, layout, gains_policy)
    ckey = None if costs is None else ("costs", costs, layout, gains_policy)
    bkey = ("browse", model.name, tuple(params[k] for k in model.params), gkey, m["tail"],
            ckey if model.uses_costs else None)
    return _Plan(m, policy, spec, cutoff, padded, model, agg, params, costs, layout, gkey, ckey, bkey)


class CwlaEvaluator(providers.Evaluator):
    """Scores many runs against one set of qrels (read once) for a set of CWLA measures."""

    measures: list[_CWLA]

    def __init__(self, measures: Iterable[Measure], qrels: Any):
        measures = list(measures)
        for m in measures:
            m.validate_params()
        others = [str(m) for m in measures if not is_cwla(m)]
        if others:
            raise MeasureError(f"CwlaEvaluator scores C/W/L/A measures only, not {', '.join(others)} "
                             "(ir_measures.evaluator mixes them with other measures)")
        self.prepared_qrels = Qrels(as_qrels_frame(qrels))
        for m in measures:
            if "max_rel" in m.params:
                self.prepared_qrels.check_max_rel(m["max_rel"])
        self.max_depth: Optional[int] = ranking_depth(measures)
        specs = [m.cost_spec() for m in measures if is_cwla(m) and "costs" in m.params]
        self.doc_ids = any(c.needs_doc_ids for c in specs)               # rank keeping each cell's doc_id
        self.element_types = needs_element_types(measures)                # read the run's second column
        super().__init__(measures, set(self.prepared_qrels.topics.tolist()))

    def score(self, run: Any, name: str = "run") -> tuple[np.ndarray, dict[Measure, np.ndarray]]:
        """Per-topic scores of one run: (topic ids present in both run and qrels, {measure: scores})."""
        if self.element_types and isinstance(run, pd.DataFrame) and ELEMENT_TYPE not in run.columns:
            priced = next(short_name(m) for m in self.measures if "costs" in m.params
                          and m.cost_spec().needs_element_types)
            raise InputError(f"{name}: {priced} prices element types, but the run has no {ELEMENT_TYPE!r} column "
                             "(a TREC run's second column: give the file's path, or read it with "
                             "ir_cwla.io.read_trec_run(path, element_type=True))")
        frame = as_run_frame(run, name, element_type=self.element_types)
        ranked = rank_run(frame, self.prepared_qrels, self.max_depth, name, doc_ids=self.doc_ids)
        return ranked.topics, self.score_rankings(ranked)

    def score_rankings(self, ranked: Rankings) -> dict[Measure, np.ndarray]:
        """Per-topic scores (in the order of ``ranked.topics``) of every measure.

        The rows are scored group by group (:meth:`Rankings.groups`); measures that share a
        gain mapping and cutoff share the gain matrices, and measures that also share a
        browsing model share its C, V and L. ``ranked`` may be graded by a subset of the
        evaluator's qrels (:meth:`Rankings.regrade`): its own qrels give x_max and R.
        A residual is the score under ``unjudged='max'`` minus the score under 'zero' (each
        computed once, whichever measures ask for it).
        """
        plans = self._plans()
        # how many plans still need each cached step: freed after the last one, so peak memory is
        # that of the widest single step, not of all measures
        uses: Counter = Counter()
        seen: set = set()
        steps_of: dict[tuple, list[Any]] = {}
        for key, plan in plans.items():
            steps: list[Any] = [plan.layout, plan.gkey, plan.bkey] + ([plan.ckey] if plan.ckey else [])
            if plan.condensed:
                steps.append("condensed")
            if plan.policy == "max" and self._shares_zero(plan) and plan.zero_bkey in seen:
                steps.append(plan.zero_bkey)
            seen.add(plan.bkey)
            steps_of[key] = list(dict.fromkeys(steps))          # each step counted once per plan
            uses.update(steps_of[key])
        cache: dict[Any, Any] = {}
        scores: dict[tuple, np.ndarray] = {}
        for key, plan in plans.items():
            scores[key] = self._score(ranked, plan, cache)
            for step in steps_of[key]:
                uses[step] -= 1
                if not uses[step]:
                    del uses[step]
                    cache.pop(step, None)
        out: dict[Measure, np.ndarray] = {}
        for m in self.measures:
            policy = m["unjudged"]
            if policy == "residual":
                out[m] = scores[_score_key(m, "max")] - scores[_score_key(m, "zero")]
            else:
                out[m] = scores[_score_key(m, policy)]
        return out

    def _plans(self) -> dict[tuple, _Plan]:
        """One plan per (measure, unjudged policy) to compute, made once per evaluator."""
        if getattr(self, "_plan_cache", None) is None:
            plans: dict[tuple, _Plan] = {}
            for m in self.measures:
                policy = m["unjudged"]
                for p in (("zero", "max") if policy == "residual" else (policy,)):
                    plans.setdefault(_score_key(m, p), _plan(m, p))
            self._plan_cache = plans
        return self._plan_cache

    @staticmethod
    def _shares_zero(plan: _Plan) -> bool:
        return not plan.model.gain_dependent and not plan.model.uses_costs

    def _score(self, ranked: Rankings, plan: _Plan, cache: dict) -> np.ndarray:
        """Per-row scores of one plan, its steps taken from (or put in) ``cache``."""
        if plan.condensed:
            if "condensed" not in cache:
                cache["condensed"] = ranked.condensed()
            rankings = cache["condensed"]
            _check_whole(rankings, plan.cutoff, plan.measure, ranked.kept)
        else:
            rankings = ranked
        qrels = rankings.qrels
        gains_policy = plan.gkey[-1]
        if plan.layout not in cache:
            cache[plan.layout] = rankings.groups(plan.cutoff, pad_to=plan.cutoff if plan.padded else None)
        groups = cache[plan.layout]
        if plan.gkey not in cache:
            cache[plan.gkey] = [g.gains(plan.spec, qrels.x_max, gains_policy) for g in groups]
        costs, pad_cost = [None] * len(groups), 1.0
        if plan.costs is not None:
            # under 'max' an unjudged document costs what the largest grade costs
            top = plan.spec.max_rel if plan.spec.max_rel is not None else qrels.x_max
            if plan.ckey not in cache:
                cache[plan.ckey] = [plan.costs.cell_costs(rankings, g, gains_policy, top) for g in groups]
            costs, pad_cost = cache[plan.ckey], plan.costs.pad_cost(gains_policy)
        if plan.bkey not in cache:
            if plan.policy == "max" and self._shares_zero(plan) and plan.zero_bkey in cache:
                cache[plan.bkey] = [b.with_gains(gains) for b, gains in zip(cache[plan.zero_bkey], cache[plan.gkey])]
            else:
                tail = plan.bkey[4]
                total = _total_gain(rankings, plan.spec, gains_policy, plan.model, plan.measure) \
                    if tail == "pad" else None
                cache[plan.bkey] = [
                    kernel.browse(gains, np.full(len(g.rows), plan.cutoff, dtype=np.int64)
                                  if plan.cutoff is not None else g.kept, plan.model, plan.params, tail,
                                  None if total is None else total[g.rows], rankings.topics[g.rows],
                                  cst if plan.model.uses_costs else None, pad_cost)
                    for g, gains, cst in zip(groups, cache[plan.gkey], costs)]
        scores = np.zeros(len(rankings.topic_rows))
        for g, b, cst in zip(groups, cache[plan.bkey], costs):
            scores[g.rows] = kernel.aggregate(b, plan.agg, plan.params, cst, pad_cost)
        return scores

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
        n = len(self.prepared_qrels.topics)
        return {m: (float(v.sum()) / n if n else float("nan")) for m, v in scores.items()}


def _incomplete(ranked: Rankings, depth: Optional[int]) -> np.ndarray:
    """Rows cut short of what ``depth`` ranks (None: the whole ranking) need."""
    cut = ranked.kept < ranked.lengths
    return cut if depth is None else cut & (ranked.kept < depth)


def _check_whole(condensed: Rankings, cutoff: Optional[int], m: Measure, ranked_depth: np.ndarray) -> None:
    bad = _incomplete(condensed, cutoff)
    if bad.any():
        t = int(np.argmax(bad))
        raise DataError(f"{short_name(m)}: topic {condensed.topics[t]!r} was ranked only to depth "
                         f"{int(ranked_depth[t])} ({int(condensed.kept[t])} judged documents there); condensed lists "
                         "need whole rankings (rank the run with max_depth=None)")


def _total_gain(ranked: Rankings, spec, policy: str, model, m: Measure) -> np.ndarray:
    """R per row (read by AP under 'pad'): the total gain of the topic's judged documents (for
    a model with ``reads_total='count'``, their number with a gain > 0); under
    ``unjudged='max'`` plus the largest gain (one) for every unjudged document the run ranks
    (they are relevant documents of the topic under that bound), which needs whole rankings."""
    qrels = ranked.qrels
    counted = model.reads_total == "count"
    total = (qrels.relevant_count(spec) if counted else qrels.total_gain(spec))[ranked.topic_rows]
    if policy != "max" or not model.reads_total:
        return total
    bad = _incomplete(ranked, None)
    if bad.any():
        raise DataError(f"{short_name(m)}: topic {ranked.topics[np.argmax(bad)]!r} was ranked only to depth "
                         f"{int(ranked.kept[np.argmax(bad)])}; under unjudged='max' the total gain R counts every "
                         "unjudged document ranked, which needs whole rankings (rank the run with max_depth=None)")
    top = spec.largest(qrels.x_max)
    return total + (float(top > 0) if counted else top) * ranked.unjudged_counts()


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
