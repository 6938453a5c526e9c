"""The ir-measures provider: a thin adapter from runs and qrels to the numpy kernel.

The evaluator reads the qrels once; each run is ranked once into a grade matrix
(:func:`ir_cwla.gains.rank_run`), and every requested measure is computed from it, measures
that share a browsing model sharing its C, V and L.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Optional

import ir_measures
import numpy as np
import pandas as pd
from ir_measures import providers
from ir_measures.measures.base import Measure
from ir_measures.providers.base import Any as AnyParam
from ir_measures.util import Metric

from ir_cwla import kernel
from ir_cwla.aggregation import get_aggregation
from ir_cwla.browsing import get_browsing_model
from ir_cwla.costs import CostSpec
from ir_cwla.gains import GainSpec, Group, Qrels, Rankings, rank_run
from ir_cwla.io import ELEMENT_TYPE, as_qrels_frame, as_run_frame
from ir_cwla.measure import _CWLA, CWLA, is_cwla
from ir_cwla.names import register_aliases, short_name


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
        self.max_depth: Optional[int] = ranking_depth(measures)
        specs = [m.cost_spec() for m in measures if "costs" in m.params]
        self.doc_ids = any(c.needs_doc_ids for c in specs)               # rank keeping each cell's doc_id
        self.element_types = any(c.needs_element_types for c in specs)   # read the run's second column
        super().__init__(measures, set(self.prepared_qrels.topics.tolist()))

    def score(self, run: Any, name: str = "run") -> tuple[np.ndarray, dict[Measure, np.ndarray]]:
        """Per-topic scores of one run: (topic ids present in both run and qrels, {measure: scores})."""
        if self.element_types and isinstance(run, pd.DataFrame) and ELEMENT_TYPE not in run.columns:
            priced = next(short_name(m) for m in self.measures if "costs" in m.params
                          and m.cost_spec().needs_element_types)
            raise ValueError(f"{name}: {priced} prices element types, but the run has no {ELEMENT_TYPE!r} column "
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
        scorer = _Scorer(ranked)
        out: dict[Measure, np.ndarray] = {}
        for m in self.measures:
            policy = m["unjudged"]
            if policy == "residual":
                out[m] = scorer.score(m, "max") - scorer.score(m, "zero")
            else:
                out[m] = scorer.score(m, policy)
        return out

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


class _Scorer:
    """Scores measures on one ranked run, caching what measures share: the condensed lists,
    the groups of each layout, the gain matrices of each gain mapping and unjudged policy,
    and the browsing (C, V, L) of each model; the score of each (measure, policy)."""

    def __init__(self, ranked: Rankings):
        self.ranked = ranked
        self._condensed: Optional[Rankings] = None
        self.groups_cache: dict[Any, list[Group]] = {}
        self.gains_cache: dict[tuple, list[np.ndarray]] = {}
        self.browse_cache: dict[tuple, list[kernel.Browsing]] = {}
        self.costs_cache: dict[tuple, list[Optional[np.ndarray]]] = {}
        self.scores: dict[tuple, np.ndarray] = {}

    def rankings(self, condensed: bool) -> Rankings:
        if not condensed:
            return self.ranked
        if self._condensed is None:
            self._condensed = self.ranked.condensed()
        return self._condensed

    def score(self, m: Measure, policy: str) -> np.ndarray:
        """Per-topic scores of ``m`` with unjudged documents treated by ``policy`` (zero, max
        or condense)."""
        key = (tuple((k, v) for k, v in m.params.items() if k != "unjudged"), policy)
        if key not in self.scores:
            self.scores[key] = self._score(m, policy)
        return self.scores[key]

    def _score(self, m: Measure, policy: str) -> np.ndarray:
        condensed = policy == "condense"
        ranked = self.rankings(condensed)
        qrels = ranked.qrels
        rows = ranked.topic_rows
        spec = m.gain_spec()
        cutoff = m.params.get("cutoff")
        model = get_browsing_model(m["C"])
        agg = get_aggregation(m["A"])
        tail = m["tail"]
        if condensed:
            _check_whole(ranked, cutoff, m, self.ranked.kept)
        # a cutoff deeper than a group's rankings is summed in closed form, if the model and the
        # aggregation can; otherwise the matrix is padded with zeros up to the cutoff
        padded = cutoff is not None and not (model.finite_tail and agg.tail is not None)
        layout = (condensed, cutoff, padded)
        if layout not in self.groups_cache:
            self.groups_cache[layout] = ranked.groups(cutoff, pad_to=cutoff if padded else None)
        groups = self.groups_cache[layout]
        gains_policy = "max" if policy == "max" else "zero"    # a condensed list has no unjudged document
        gkey = (spec, layout, gains_policy)
        if gkey not in self.gains_cache:
            self.gains_cache[gkey] = [g.gains(spec, qrels.x_max, gains_policy) for g in groups]
        params = m.model_params()
        costs_spec = m.cost_spec() if (agg.needs_costs or model.uses_costs) else None
        costs, pad_cost = self._costs(costs_spec, ranked, groups, layout, gains_policy, spec)
        model_costs = costs_spec if model.uses_costs else None
        bkey = (model.name, tuple(params[k] for k in model.params), gkey, tail, model_costs)
        if bkey not in self.browse_cache:
            total = _total_gain(ranked, spec, gains_policy, model, m) if tail == "pad" else None
            zero_key = (model.name, tuple(params[k] for k in model.params), (spec, layout, "zero"), tail, model_costs)
            if gains_policy == "max" and not model.gain_dependent and not model.uses_costs \
                    and zero_key in self.browse_cache:
                # C ignores the gains: the same V and L, only the gains differ
                self.browse_cache[bkey] = [b.with_gains(gains) for b, gains in
                                           zip(self.browse_cache[zero_key], self.gains_cache[gkey])]
            else:
                self.browse_cache[bkey] = [
                    kernel.browse(gains, np.full(len(g.rows), cutoff, dtype=np.int64) if cutoff is not None
                                  else g.kept, model, params, tail,
                                  None if total is None else total[g.rows], ranked.topics[g.rows],
                                  cst if model.uses_costs else None, pad_cost)
                    for g, gains, cst in zip(groups, self.gains_cache[gkey], costs)]
        scores = np.zeros(len(rows))
        for g, b, cst in zip(groups, self.browse_cache[bkey], costs):
            scores[g.rows] = kernel.aggregate(b, agg, params, cst, pad_cost)
        return scores

    def _costs(self, costs_spec: Optional[CostSpec], ranked: Rankings, groups: list[Group], layout: tuple,
               policy: str, spec: GainSpec) -> tuple[list[Optional[np.ndarray]], float]:
        """The cost matrix of every group (None: unit costs) and the cost of a padding document."""
        if costs_spec is None:
            return [None] * len(groups), 1.0
        # under 'max' an unjudged document costs what the largest grade costs
        top = spec.max_rel if spec.max_rel is not None else ranked.qrels.x_max
        key = (costs_spec, layout, policy, top if costs_spec.kind == "grade" else None)
        if key not in self.costs_cache:
            self.costs_cache[key] = [costs_spec.cell_costs(ranked, g, policy, top) for g in groups]
        return self.costs_cache[key], costs_spec.pad_cost(policy)


def _incomplete(ranked: Rankings, depth: Optional[int]) -> np.ndarray:
    """Rows cut short of what ``depth`` ranks (None: the whole ranking) need."""
    cut = ranked.kept < ranked.lengths
    return cut if depth is None else cut & (ranked.kept < depth)


def _check_whole(condensed: Rankings, cutoff: Optional[int], m: Measure, ranked_depth: np.ndarray) -> None:
    bad = _incomplete(condensed, cutoff)
    if bad.any():
        t = int(np.argmax(bad))
        raise ValueError(f"{short_name(m)}: topic {condensed.topics[t]!r} was ranked only to depth "
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
        raise ValueError(f"{short_name(m)}: topic {ranked.topics[np.argmax(bad)]!r} was ranked only to depth "
                         f"{int(ranked.kept[np.argmax(bad)])}; under unjudged='max' the total gain R counts every "
                         "unjudged document ranked, which needs whole rankings (rank the run with max_depth=None)")
    top = spec.largest(qrels.x_max)
    return total + (float(top > 0) if counted else top) * ranked.unjudged_counts()


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
