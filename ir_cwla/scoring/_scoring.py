"""One scoring API: prepared qrels + ranked runs + measures -> per-topic values.

Every path that scores C/W/L/A measures goes through here: the ir-measures provider
(:mod:`ir_cwla.provider`, which only adapts its inputs and outputs), :func:`ir_cwla.meta.evaluate`,
the robustness analyses' re-scoring under reduced qrels (:mod:`ir_cwla.meta.rescoring`) and
``ir-cwla cwl`` (:mod:`ir_cwla.app.cwl`)::

    scorer = Scorer(measures, qrels)           # validates the measures, reads the qrels once
    ranked = scorer.rank(run, "bm25")          # ranks a run once, as deep as the measures look
    scores = scorer.score(ranked)              # {measure: per-row values}, rows = ranked.topics

A :class:`Scorer` makes one plan per (measure, unjudged policy) and scores a ranked run group
by group (:meth:`ir_cwla.scoring.Rankings.groups`): measures that share a gain mapping and cutoff
share the gain matrices, measures that also share a browsing model share its C, V and L, and
each cached step is freed after the last plan that needs it, so peak memory is that of the
widest single step. :func:`score_matrix` does the same for gain matrices built elsewhere.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple, Optional

import numpy as np
from ir_measures.measures.base import Measure

from ir_cwla.errors import DataError, InputError, MeasureError
from ir_cwla.io._columns import QrelsColumns, RunColumns
from ir_cwla.io._ordering import check_ties
from ir_cwla.measures._aggregation import Aggregation
from ir_cwla.measures._browsing import BrowsingModel
from ir_cwla.measures._costs import CostSpec
from ir_cwla.measures._gains import GainSpec
from ir_cwla.measures._measure import _CWLA, is_cwla, needs_element_types
from ir_cwla.measures._names import short_name
from ir_cwla.measures._params import Params
from ir_cwla.scoring import _kernel as kernel
from ir_cwla.scoring._cell_costs import cell_costs
from ir_cwla.scoring._gains import Qrels, Rankings, checked_columns, rank_run


def ranking_depth(measures: Iterable[_CWLA]) -> Optional[int]:
    """How deep runs must be ranked for ``measures``.

    The deepest cutoff, or None (whole rankings) if a measure has no cutoff, condenses its
    lists, or counts the unjudged documents of whole rankings (R of AP under 'pad' with
    unjudged='max' or 'residual').
    """
    depth = 0
    for m in measures:
        cutoff = m.params.get("cutoff")
        whole = m["unjudged"] == "condense" or (
            m["unjudged"] in ("max", "residual") and m["tail"] == "pad" and m.browsing_model.reads_total)
        if cutoff is None or whole:
            return None
        depth = max(depth, cutoff)
    return depth


class _Plan(NamedTuple):
    """How one measure is computed under one unjudged policy.

    How one measure is computed under one unjudged policy ('zero', 'max' or 'condense'),
    and the cache keys of the steps it shares with others.
    """

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
        """The 'zero' browsing that a 'max' measure can share.

        The browsing of the same measure under 'zero', which a 'max' one of a model whose C
        reads neither gains nor costs shares (the same V and L; only the gains differ).
        """
        gkey = ("gains", self.spec, self.layout, "zero")
        return self.bkey[:3] + (gkey,) + self.bkey[4:]


def _costs_of(m: _CWLA, given: Optional[CostSpec]) -> CostSpec:
    """The costs a measure reads: its own ``costs=``, else ``given`` (the scorer's), else unit costs."""
    return m.cost_spec() if "costs" in m.params or given is None else given


def _score_key(m: _CWLA, policy: str) -> tuple:
    """Measures that differ only in their unjudged policy share the score of each policy."""
    return tuple((k, v) for k, v in m.params.items() if k != "unjudged") + (policy,)


def _plan(m: _CWLA, policy: str, costs_given: Optional[CostSpec] = None) -> _Plan:
    spec = m.gain_spec()
    cutoff = m.params.get("cutoff")
    model, agg = m.browsing_model, m.aggregation
    # a cutoff deeper than a group's rankings is summed in closed form, if the model and the
    # aggregation can; otherwise the matrix is padded with zeros up to the cutoff
    padded = cutoff is not None and not (model.finite_tail and agg.tail is not None)
    params = m.model_params()
    gains_policy = "max" if policy == "max" else "zero"    # a condensed list has no unjudged document
    costs = _costs_of(m, costs_given) if (agg.needs_costs or model.uses_costs) else None
    layout = ("layout", policy == "condense", cutoff, padded)
    gkey = ("gains", spec, layout, gains_policy)
    ckey = None if costs is None else ("costs", costs, layout, gains_policy)
    bkey = ("browse", model.name, tuple(params[k] for k in model.params), gkey, m["tail"],
            ckey if model.uses_costs else None)
    return _Plan(m, policy, spec, cutoff, padded, model, agg, params, costs, layout, gkey, ckey, bkey)


class Scorer:
    """Scores ranked runs against one set of qrels (read once) for a set of C/W/L/A measures.

    Parameters
    ----------
    measures : iterable of CWLA measures
        Validated here (:class:`~ir_cwla.errors.MeasureError` says what to change).
    qrels : qrels input or Qrels
        Anything :func:`ir_cwla.io.as_qrels_frame` reads, or prepared :class:`ir_cwla.scoring.Qrels`.
    ties : {'float32', 'float64'}, optional
        The precision scores are compared in when runs are ranked: float32, as trec_eval up to
        9.0.8, pytrec_eval and ir-measures; float64 as trec_eval 10.0
        (:func:`ir_cwla.io.compared_scores`). Default: that of ``trec_eval``.
    trec_eval : {9, 10}, optional
        Rank as trec_eval 9.0.8 (the default: float32) or 10.0 (float64) ranks
        (:func:`ir_cwla.scoring.trec_eval_semantics`, the switch of every path).
    costs : CostSpec, optional
        The costs of the measures that read costs and name no ``costs=`` of their own (default:
        1 per document); :func:`ir_cwla.score_gains` gives each rank of a page its cost so.

    Attributes
    ----------
    qrels : Qrels
        The prepared qrels (judgments numbered once; :meth:`Qrels.subset` shares the numbering).
    depth : int or None
        How deep runs are ranked (:func:`ranking_depth`; None: whole rankings).
    doc_ids, element_types : bool
        Whether rankings keep each cell's doc_id (costs per doc_id) and element type (costs per
        element type, the run's second column).
    """

    measures: list[_CWLA]

    def __init__(self, measures: Iterable[Measure], qrels: Any, *, ties: Optional[str] = None,
                 trec_eval: Optional[int] = None, costs: Optional[CostSpec] = None):
        from ir_cwla.scoring._trec_kernels import trec_eval_semantics

        self.ties = check_ties(trec_eval_semantics(trec_eval, ties)[1])
        self.costs = costs
        given = list(measures)
        others = [str(m) for m in given if not is_cwla(m)]
        if others:
            raise MeasureError(f"ir_cwla scores C/W/L/A measures only, not {', '.join(others)} "
                               "(ir_measures.evaluator mixes them with other measures)")
        self.measures = [m for m in given if is_cwla(m)]
        for m in self.measures:
            m.validate_params()
        measures = self.measures
        if isinstance(qrels, (Qrels, QrelsColumns)):
            self.qrels = qrels if isinstance(qrels, Qrels) else Qrels(qrels)
        else:
            from ir_cwla.io._frames import as_qrels_frame

            self.qrels = Qrels(as_qrels_frame(qrels))
        for m in measures:
            if "max_rel" in m.params:
                self.qrels.check_max_rel(m["max_rel"])
        self.depth: Optional[int] = ranking_depth(measures)
        specs = [_costs_of(m, costs) for m in measures if "costs" in m.params or costs is not None]
        self.doc_ids = any(c.needs_doc_ids for c in specs)
        self.element_types = needs_element_types(measures)
        self._plan_cache: Optional[dict[tuple, _Plan]] = None

    def rank(self, run: Any, name: Optional[str] = None) -> Rankings:
        """``run`` ranked as the measures need.

        ``run``: any run input of :func:`ir_cwla.io.as_run_frame`, or checked
        :class:`~ir_cwla.io.RunColumns`. ``name`` names it in messages (default: its file,
        :func:`ir_cwla.io.source_name`).
        """
        if isinstance(run, RunColumns):
            if self.element_types and run.element_type is None:
                raise InputError(f"{name or 'run'}: {self._priced()} prices element types, but the run has no "
                                 "element types (read it with its second column kept)")
            return rank_run(run, self.qrels, self.depth, name or "run", doc_ids=self.doc_ids, ties=self.ties)
        from ir_cwla.io._frames import ELEMENT_TYPE, checked_run_frame, source_name

        if self.element_types and hasattr(run, "columns") and ELEMENT_TYPE not in run.columns:
            raise InputError(f"{name or source_name(run)}: {self._priced()} prices element types, but the run has no {ELEMENT_TYPE!r} column "
                             "(a TREC run's second column: give the file's path, or read it with "
                             "ir_cwla.io.read_trec_run(path, element_type=True))")
        # (a frame a reader returned: its fingerprint computed once, for its name and its rules)
        frame, name = checked_run_frame(run, name, element_type=self.element_types)
        return rank_run(checked_columns(frame), self.qrels, self.depth, name, doc_ids=self.doc_ids, ties=self.ties)

    def _priced(self) -> str:
        """The first measure that prices element types (for a message)."""
        return next(short_name(m) for m in self.measures if "costs" in m.params and m.cost_spec().needs_element_types)

    def score_run(self, run: Any, name: Optional[str] = None) -> tuple[np.ndarray, dict[Measure, np.ndarray]]:
        """Per-topic scores of one run: (topic ids present in both run and qrels, {measure: scores})."""
        ranked = self.rank(run, name)
        return ranked.topics, self.score(ranked)

    def layouts(self, ranked: Rankings) -> dict[tuple, tuple[np.ndarray, Optional[int]]]:
        """The matrices :meth:`score` lays ``ranked`` out in.

        For each layout its plans share, the ranks each row holds there (its kept ranks cut to
        the cutoff; of the condensed list for condensed plans) and the width every matrix is
        padded to (None: as wide as its longest row). :func:`ir_cwla.scoring.group_widths` of these
        over a whole run gives each row the width it is scored at, which :meth:`score` takes
        (``widths``) to score a shard of the run bit for bit as the whole run is scored.
        """
        out: dict[tuple, tuple[np.ndarray, Optional[int]]] = {}
        condensed = None
        for plan in self._plans().values():
            if plan.layout in out:
                continue
            rows = ranked
            if plan.condensed:
                condensed = ranked.condensed() if condensed is None else condensed
                rows = condensed
            kept = rows.kept if plan.cutoff is None else np.minimum(rows.kept, plan.cutoff)
            out[plan.layout] = (kept, plan.cutoff if plan.padded else None)
        return out

    def score(self, ranked: Rankings, widths: Optional[dict[tuple, np.ndarray]] = None) -> dict[Measure, np.ndarray]:
        """Per-topic scores (in the order of ``ranked.topics``) of every measure.

        ``widths``: for each layout of :meth:`layouts`, the width of the matrix each row is to be
        scored in (default: the widths ``ranked``'s own rows give, :meth:`Rankings.groups`).

        The rows are scored group by group (:meth:`Rankings.groups`); measures that share a
        gain mapping and cutoff share the gain matrices, and measures that also share a
        browsing model share its C, V and L. ``ranked`` may be graded by a subset of the
        scorer's qrels (:meth:`Rankings.regrade`): its own qrels give x_max and R.
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
            scores[key] = self._score(ranked, plan, cache, None if widths is None else widths[plan.layout])
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
        """One plan per (measure, unjudged policy) to compute, made once per scorer."""
        if self._plan_cache is None:
            plans: dict[tuple, _Plan] = {}
            for m in self.measures:
                policy = m["unjudged"]
                for p in (("zero", "max") if policy == "residual" else (policy,)):
                    plans.setdefault(_score_key(m, p), _plan(m, p, self.costs))
            self._plan_cache = plans
        return self._plan_cache

    @staticmethod
    def _shares_zero(plan: _Plan) -> bool:
        return not plan.model.gain_dependent and not plan.model.uses_costs

    def _score(self, ranked: Rankings, plan: _Plan, cache: dict, widths: Optional[np.ndarray] = None) -> np.ndarray:
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
            cache[plan.layout] = rankings.groups(plan.cutoff, pad_to=plan.cutoff if plan.padded else None,
                                                 widths=widths)
        groups = cache[plan.layout]
        if plan.gkey not in cache:
            cache[plan.gkey] = [g.gains(plan.spec, qrels.x_max, gains_policy) for g in groups]
        costs, pad_cost = [None] * len(groups), 1.0
        if plan.costs is not None:
            # under 'max' an unjudged document costs what the largest grade costs
            top = plan.spec.max_rel if plan.spec.max_rel is not None else qrels.x_max
            if plan.ckey not in cache:
                cache[plan.ckey] = [cell_costs(plan.costs, rankings, g, gains_policy, top) for g in groups]
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


def browse(measure: Measure, gains: np.ndarray, depth: np.ndarray, *, costs: Optional[np.ndarray] = None,
           pad_cost: float = 1.0, total_gain: Optional[np.ndarray] = None,
           topics: Optional[np.ndarray] = None) -> kernel.Browsing:
    """C, V and L of a measure's browsing model over a gain matrix built elsewhere.

    C, V and L of a measure's browsing model over a gain matrix built elsewhere
    (:func:`ir_cwla.scoring._kernel.browse` with the measure's model, parameters and tail).

    Parameters
    ----------
    measure : CWLA measure
        Its gain mapping, cutoff and unjudged policy are not applied: ``gains`` is what it reads.
    gains : (rows, ranks) array
        Gains in [0, 1], 0 past each row's depth.
    depth : (rows,) int array
        The rank each row is looked at down to (may exceed the matrix's width).
    costs : (rows, ranks) array, optional
        Document costs (1 each if None) for cost-aware models; ``pad_cost`` past the matrix.
    total_gain : (rows,) array, optional
        R per row, read by models whose tail reads it (AP, TrAP) under ``tail='pad'``.
    topics : (rows,) array, optional
        Row labels for error messages.
    """
    if not is_cwla(measure):
        raise MeasureError(f"ir_cwla scores C/W/L/A measures only, not {measure}")
    measure.validate_params()
    model = measure.browsing_model
    return kernel.browse(gains, depth, model, measure.model_params(), measure["tail"],
                         total_gain if model.reads_total else None, topics,
                         costs if model.uses_costs else None, pad_cost)


def aggregate(measure: _CWLA, browsing: kernel.Browsing, *, costs: Optional[np.ndarray] = None,
              pad_cost: float = 1.0) -> np.ndarray:
    """Per-row values of ``measure`` from a :func:`browse` of its model (:func:`ir_cwla.scoring._kernel.aggregate`)."""
    return kernel.aggregate(browsing, measure.aggregation, measure.model_params(), costs, pad_cost)


def score_matrix(measures: Sequence[Measure], gains: np.ndarray, depth: np.ndarray, *,
                 costs: Optional[np.ndarray] = None, pad_cost: float = 1.0,
                 total_gain: Optional[np.ndarray] = None, topics: Optional[np.ndarray] = None
                 ) -> dict[Measure, np.ndarray]:
    """Per-row values of C/W/L/A measures over a gain matrix built elsewhere.

    :func:`browse` once per browsing model (with its parameters and tail),
    :func:`aggregate` per measure. The arguments are those of :func:`browse`.
    """
    out: dict[Measure, np.ndarray] = {}
    browsed: dict[tuple, kernel.Browsing] = {}
    for m in measures:
        if not is_cwla(m):
            raise MeasureError(f"ir_cwla scores C/W/L/A measures only, not {m}")
        model = m.browsing_model
        params = m.model_params()
        key = (model.name, tuple(params[k] for k in model.params), m["tail"])
        if key not in browsed:
            browsed[key] = browse(m, gains, depth, costs=costs, pad_cost=pad_cost, total_gain=total_gain,
                                  topics=topics)
        out[m] = aggregate(m, browsed[key], costs=costs, pad_cost=pad_cost)
    return out


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
    """R per row (read by AP under 'pad').

    The total gain of the topic's judged documents (for a model with
    ``reads_total='count'``, their number with a gain > 0); under ``unjudged='max'`` plus
    the largest gain (one) for every unjudged document the run ranks (they are relevant
    documents of the topic under that bound), which needs whole rankings.
    """
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
