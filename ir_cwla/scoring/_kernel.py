"""The C/W/L/A kernel: M = sum_i L(i) A(i), for every topic at once (pure numpy).

Input is a (topics x ranks) gain matrix and the depth D of each topic's ranking (the
cutoff, or the ranking's length). :func:`browse` turns a browsing model into
V(i) = prod_{j<i} C(j), L(i) = (1 - C(i)) V(i) and the expected depth V+;
:func:`aggregate` combines them with an aggregation. Measures that share a browsing model
share one :class:`Browsing` (see :mod:`ir_cwla.provider`).

``tail='stop'``: the user stops at rank D at the latest, C(D) := 0, so sum L = 1.
``tail='pad'``: ranks past D hold non-relevant documents forever and M is the exact
infinite sum: the part within D plus the model's closed-form tail sums
(:class:`ir_cwla.measures.TailSums`) times the aggregation's tail A(i) = const + coef / i.
A matrix need not be as wide as the cutoff: ranks past its width W hold zero gains, and
the tail sums cover them too (a finite stretch up to D under 'stop'). An aggregation without
a closed-form tail has those ranks summed numerically (:func:`_numeric_aggregation_tail`).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Optional

import numpy as np

from ir_cwla.errors import KernelError, MeasureError
from ir_cwla.measures._aggregation import Aggregation, AggregationInput, AggregationTailInput
from ir_cwla.measures._browsing import TAILS, BrowsingModel, TailInput, TailSums
from ir_cwla.measures._params import Params
from ir_cwla.measures._tails import BrowsingInput


@dataclass
class Browsing:
    """C, V and L of one browsing model over one gain matrix, ready for any aggregation."""

    gains: np.ndarray
    depth: np.ndarray
    L: np.ndarray              # (n, W), 0 past D
    V: np.ndarray              # (n, W), 0 past D
    tail: str
    tail_sums: Optional[TailSums]
    # what made it, for an aggregation without a closed-form tail (summed with the model's own C)
    model: Optional[BrowsingModel] = None
    params: Optional[Params] = None
    costs: Optional[np.ndarray] = None      # the costs the model read (None: 1 each; pad_cost past D)
    pad_cost: float = 1.0

    def with_gains(self, gains: np.ndarray) -> Browsing:
        """The same browsing over other gains, for a model whose C (and tail) ignore the gains."""
        return replace(self, gains=gains)

    # computed once, on first use, for all the aggregations that share this browsing model
    @cached_property
    def vplus(self) -> np.ndarray:
        """V+ = sum_i V(i): within D, plus the tail's share under 'pad'."""
        v = self.V.sum(axis=1)
        return v + self.tail_sums.depth if self.tail_sums is not None else v

    @cached_property
    def cg(self) -> np.ndarray:
        """CG(i) = sum_{j<=i} r_j."""
        return np.cumsum(self.gains, axis=1)

    @cached_property
    def running_max(self) -> np.ndarray:
        """max_{j<=i} r_j."""
        return np.maximum.accumulate(self.gains, axis=1) if self.gains.shape[1] else self.gains


def _exclusive_cumprod(c: np.ndarray) -> np.ndarray:
    """V(i) = prod_{j<i} C(j) for i = 1..W+1 (one column more than C)."""
    v = np.ones((c.shape[0], c.shape[1] + 1))
    np.cumprod(c, axis=1, out=v[:, 1:])
    return v


def _check_continuation(c: np.ndarray, model: BrowsingModel, topics: Optional[np.ndarray]) -> None:
    bad = ~((c >= 0) & (c <= 1))
    if bad.any():
        t, i = np.argwhere(bad)[0]
        where = f"topic {topics[t]!r}" if topics is not None else f"row {t}"
        raise KernelError(f"browsing model {model.name!r} gives C({i + 1}) = {c[t, i]!r} for {where}; "
                          "continuation probabilities must lie in [0, 1] (check its parameters)")


def _continuation(model: BrowsingModel, gains: np.ndarray, params: Params, costs: Optional[np.ndarray]) -> np.ndarray:
    """C = ``model.continuation(BrowsingInput(gains, costs), params)`` (costs None: 1 each, made if read)."""
    return np.asarray(model.continuation(BrowsingInput(gains, costs), params), dtype=np.float64)


def _padded_costs(costs: Optional[np.ndarray], w: int, past: np.ndarray, pad_cost: float) -> np.ndarray:
    """The costs of rows extended past their ``w`` matrix columns (the numeric tails).

    ``costs`` (None: 1 each) within the matrix, ``pad_cost`` in the cells of ``past`` (past each
    row's end) and past the matrix.
    """
    out = np.full(past.shape, pad_cost)
    out[:, :w] = 1.0 if costs is None else costs
    out[past] = pad_cost
    return out


def _padded_continuation(model: BrowsingModel, gains: np.ndarray, params: Params, costs: Optional[np.ndarray],
                         pad_cost: float, end: np.ndarray, extra: int
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """C over the rows of ``gains`` extended by ``extra`` zero-gain ranks (the numeric tails).

    Past ``end`` (per row) every gain is 0 and every document costs ``pad_cost``; ``costs`` (None:
    1 each) are the model's within the matrix, read by models registered with ``uses_costs``.
    Returns the ranks 1..W+extra (float), the cells past ``end``, the extended gains and C.
    """
    n, w = gains.shape
    ranks = np.arange(1, w + extra + 1, dtype=np.float64)
    past = ranks[None, :] > end[:, None]
    ext = np.zeros((n, w + extra))
    ext[:, :w] = gains
    ext[past] = 0.0
    ext_costs = None
    if model.uses_costs and (costs is not None or pad_cost != 1.0):
        ext_costs = _padded_costs(costs, w, past, pad_cost)
    return ranks, past, ext, _continuation(model, ext, params, ext_costs)


def _numeric_tail(model: BrowsingModel, gains: np.ndarray, depth: np.ndarray, params: Params,
                  costs: Optional[np.ndarray] = None, pad_cost: float = 1.0,
                  tol: float = 1e-13, limit: int = 1 << 20) -> TailSums:
    """Sums a model's zero-gain tail numerically, for models registered without a tail."""
    extra = 1024
    while True:
        ranks, past, _, c = _padded_continuation(model, gains, params, costs, pad_cost, depth, extra)
        _check_continuation(c, model, None)
        v = _exclusive_cumprod(c)
        v_in, c_in = v[:, :-1], c
        if (v[:, -1] <= tol).all() or (c[:, -1] >= 1).all():
            lv = np.where(past, v_in * (1 - c_in), 0.0)
            never = v[:, -1] > tol
            depth_sum = np.where(never, np.inf, np.where(past, v_in, 0.0).sum(axis=1))
            return TailSums(lv.sum(axis=1), depth_sum, (lv / ranks[None, :]).sum(axis=1),
                            (lv * ranks[None, :]).sum(axis=1))
        if extra >= limit:
            raise KernelError(f"browsing model {model.name!r}: its tail does not converge within {limit} ranks; "
                              "register it with a closed-form tail or use tail='stop'")
        extra *= 2


def browse(gains: np.ndarray, depth: np.ndarray, model: BrowsingModel, params: Params, tail: str = "stop",
           total_gain: Optional[np.ndarray] = None, topics: Optional[np.ndarray] = None,
           costs: Optional[np.ndarray] = None, pad_cost: float = 1.0) -> Browsing:
    """C -> V -> L for a gain matrix whose row t is looked at down to rank ``depth[t]``.

    Gains past ``depth[t]`` must be 0. ``depth`` may exceed the matrix's width W (a cutoff
    deeper than every ranking of the matrix): the ranks past W hold zero gains, summed by the
    model's closed-form tail (models registered with ``finite_tail``), so they cost nothing.
    ``total_gain`` (R per topic) is needed by AP under 'pad'. ``costs`` (None: 1 per
    document) are read by models registered with ``uses_costs``; past ``depth`` every
    document costs ``pad_cost``. ``topics`` only serves error messages.
    """
    gains = np.asarray(gains, dtype=np.float64)
    depth = np.asarray(depth, dtype=np.int64)
    n, w = gains.shape
    ranks = np.arange(1, w + 1)
    within = ranks[None, :] <= depth[:, None]
    if model.uses_costs and (costs is not None or pad_cost != 1.0):
        base = np.ones_like(gains) if costs is None else np.asarray(costs, dtype=np.float64)
        costs = np.where(within, base, pad_cost)          # past D: padding documents
    c = _continuation(model, gains, params, costs if model.uses_costs else None)
    _check_continuation(np.where(within, c, 0.0), model, topics)
    if tail not in TAILS:
        raise MeasureError(f"unknown tail={tail!r}; valid: {', '.join(TAILS)}")
    beyond = depth > w                       # the cutoff lies past the matrix: a finite zero-gain stretch
    if beyond.any() and not model.finite_tail:
        raise KernelError(f"browsing model {model.name!r} has no finite tail: give it a matrix as wide as "
                          "the cutoff (or register it with finite_tail=True)")
    # (in place where a copy is not needed: peak memory is a few matrices, whatever the model)
    if tail == "stop" and not beyond.any():
        c = np.where(ranks[None, :] < depth[:, None], c, 0.0)     # C(D) := 0
        v = _exclusive_cumprod(c)[:, :-1]
        v[~within] = 0.0
        lv = 1 - c
        del c
        lv *= v
        return Browsing(gains, depth, lv, v, tail, None, model, params, costs if model.uses_costs else None, pad_cost)
    end = np.minimum(depth, w)               # E: the last rank of the matrix looked at
    if tail == "stop":
        c = np.where(ranks[None, :] < depth[:, None], c, 0.0)     # C(D) := 0 where D lies within
    outside = ~within
    c = np.where(outside, 1.0, c)
    v_ext = _exclusive_cumprod(c)
    c[outside] = 0.0
    v_next = v_ext[np.arange(n), end]
    v = v_ext[:, :-1]
    v[outside] = 0.0
    lv = 1 - c
    del c
    lv *= v
    lv[outside] = 0.0
    horizon = np.where(beyond, depth - end, 0).astype(np.float64) if tail == "stop" else np.full(n, np.inf)
    if model.tail is None:
        sums = _numeric_tail(model, gains, depth, params, costs if model.uses_costs else None, pad_cost)
    else:
        cg = gains.sum(axis=1)
        inp = TailInput(gains, end, v_next, v.sum(axis=1), cg,
                        total_gain if total_gain is not None else np.full(n, np.nan), horizon,
                        costs if model.uses_costs else None, pad_cost)
        sums = model.tail(inp, params)
    return Browsing(gains, depth, lv, v, tail, sums, model, params, costs if model.uses_costs else None, pad_cost)


#: Past E the numeric aggregation tail stops once V(next) is at most this (the rest is negligible).
AGG_TAIL_TOL = 1e-13
#: The most zero-gain ranks it extends a row by, and the cells it builds at once (8 bytes each).
AGG_TAIL_LIMIT = 1 << 20
AGG_TAIL_CELLS = 1 << 18
#: How closely the extension's sum L and sum L / i past E must agree with the model's closed-form tail.
AGG_TAIL_CHECK = 1e-9


def _numeric_aggregation_tail(b: Browsing, agg: Aggregation, params: Params, costs: Optional[np.ndarray],
                              vplus: Optional[np.ndarray], pad_cost: float = 1.0) -> np.ndarray:
    """sum_{i>E} L(i) A(i) per topic, for an aggregation registered without a closed-form tail.

    Each row is extended with zero-gain ranks (costing ``pad_cost``; 1024 of them, doubling)
    and the model's own continuation gives C, V and L on the extended row, the aggregation's
    ``fn`` A over it (its V+ the browsing's, tail included), until V(next) <= 1e-13 (under
    'stop' with a cutoff D deeper than the matrix: exactly up to D, C(D) := 0) or 2^20 ranks,
    past which the model's tail is too slow and a :class:`KernelError` says so. Models that
    never stop on zero gains (ERR, RR) have L = 0 there: the sum is 0. The extension must be the
    tail the model's closed form sums: models whose tail reads R (AP, TrAP: it places the
    relevant documents never retrieved) are refused, and the extension's sum L and sum L / i
    past E are checked against the closed form (:class:`TailSums` ``stop``, ``inverse_rank``)
    to 1e-9. Rows are done a few at a time (at most 2^18 cells): memory stays a few MB.
    """
    model, s = b.model, b.tail_sums
    assert s is not None
    advice = "register the aggregation with tail= or use tail='stop'"
    if model is None or b.params is None:
        raise MeasureError(f"aggregation {agg.name!r} defines no tail and this browsing does not say which model "
                           f"made it, so the ranks past the matrix cannot be summed; {advice}")
    if model.reads_total:
        raise MeasureError(f"aggregation {agg.name!r} defines no tail, and browsing model {model.name!r}'s tail past "
                           "the ranking places the relevant documents it never retrieved (it reads R), which its "
                           f"continuation over zero gains does not: the ranks past the matrix cannot be summed; {advice}")
    n, w = b.gains.shape
    out = np.zeros(n)
    end = np.minimum(b.depth, w)
    horizon = np.full(n, np.inf) if b.tail == "pad" else np.maximum(b.depth - end, 0).astype(np.float64)
    pending = np.flatnonzero(horizon > 0)
    if b.tail == "pad" and model.never_stops_on_zero:      # C = 1 on every zero gain: nobody stops past E
        return out
    check_stop, check_inv = np.zeros(n), np.zeros(n)
    extra = 1024
    while len(pending):
        extra_now = int(min(extra, np.max(horizon[pending])))
        width = w + extra_now
        done = []
        step = max(1, AGG_TAIL_CELLS // width)
        for lo in range(0, len(pending), step):
            rows = pending[lo:lo + step]
            part, l_sum, l_inv, converged = _extend(b, agg, params, costs, vplus, pad_cost, rows, end[rows],
                                                    horizon[rows], extra_now)
            out[rows[converged]] = part[converged]
            check_stop[rows[converged]] = l_sum[converged]
            check_inv[rows[converged]] = l_inv[converged]
            done.append(rows[converged])
        pending = np.setdiff1d(pending, np.concatenate(done))
        if len(pending):
            if extra >= AGG_TAIL_LIMIT:
                raise KernelError(f"aggregation {agg.name!r} defines no tail, and browsing model {model.name!r}'s "
                                  f"users have not stopped within {AGG_TAIL_LIMIT} zero-gain ranks past the ranking "
                                  f"(V still above {AGG_TAIL_TOL:g}), so it cannot be summed numerically; {advice}")
            extra *= 2
    for name, num, closed in (("sum L", check_stop, s.stop), ("sum L / i", check_inv, s.inverse_rank)):
        bad = ~(np.abs(num - closed) <= AGG_TAIL_CHECK)
        if bad.any():
            t = int(np.argmax(bad))
            raise MeasureError(f"aggregation {agg.name!r} defines no tail, and browsing model {model.name!r}'s "
                               f"continuation over zero gains disagrees with its closed-form tail past the ranking "
                               f"(row {t}: {name} = {num[t]!r} from the continuation, {closed[t]!r} from the tail), "
                               f"so the ranks past the matrix cannot be summed with it; {advice}")
    return out


def _extend(b: Browsing, agg: Aggregation, params: Params, costs: Optional[np.ndarray],
            vplus: Optional[np.ndarray], pad_cost: float, rows: np.ndarray, end: np.ndarray, horizon: np.ndarray,
            extra: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One try of :func:`_numeric_aggregation_tail` for some rows: extended by ``extra`` zero-gain ranks.

    Returns sum_{i>E} L(i) A(i), sum_{i>E} L(i), sum_{i>E} L(i) / i and whether each row is done
    (V(next) <= tol, or its horizon reached).
    """
    assert b.model is not None and b.params is not None
    w = b.gains.shape[1]
    width = w + extra
    col, past, gains, c = _padded_continuation(b.model, b.gains[rows], b.params,
                                               None if b.costs is None else b.costs[rows], b.pad_cost, end, extra)
    last = end + horizon                            # D under 'stop' (inf under 'pad')
    c = np.where(col[None, :] >= last[:, None], 0.0, c)                # C(D) := 0
    looked = past & (col[None, :] <= last[:, None])
    _check_continuation(np.where(looked, c, 0.0), b.model, None)
    v = _exclusive_cumprod(c)
    converged = (v[:, -1] <= AGG_TAIL_TOL) | (last <= width)
    lv = (1 - c) * v[:, :-1]
    lv[~looked] = 0.0
    agg_costs = cc = None
    if agg.needs_costs:
        agg_costs = _padded_costs(None if costs is None else costs[rows], w, past, pad_cost)   # pad_cost past E
        cc = np.cumsum(agg_costs, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = agg.fn(AggregationInput(gains, ranks=col, vplus=None if vplus is None else vplus[rows], costs=agg_costs,
                                    cc=cc), params)
        weighted = lv * a
    weighted[~(lv > 0)] = 0.0
    return weighted.sum(axis=1), lv.sum(axis=1), (lv / col[None, :]).sum(axis=1), converged


def aggregate(b: Browsing, agg: Aggregation, params: Params, costs: Optional[np.ndarray] = None,
              pad_cost: float = 1.0) -> np.ndarray:
    """M = sum_i L(i) A(i) per topic (plus the zero-gain tail past the matrix, if any).

    ``costs`` (None: 1 per document) and ``pad_cost`` (past the matrix) are read by the
    aggregations registered with ``needs_costs`` (EC, ETC).
    """
    n, w = b.gains.shape
    ranks = np.arange(1, w + 1, dtype=np.float64)
    vplus = b.vplus if agg.needs_vplus else None
    end = np.minimum(b.depth, w)
    cc = None
    if agg.needs_costs:
        within = ranks[None, :] <= b.depth[:, None]
        costs = np.where(within, 1.0 if costs is None else costs, 0.0)
        cc = np.cumsum(costs, axis=1)
    # V+ is 0 only for a topic that looks at nothing (an empty condensed list, no cutoff, 'stop'):
    # its A = CG / V+ is 0/0, but its L is 0 everywhere, so it never counts
    with np.errstate(divide="ignore", invalid="ignore"):
        a = agg.fn(AggregationInput(b.gains, ranks=ranks, vplus=vplus, source=b, costs=costs, cc=cc), params)
        shared = [b.gains, b.L, b.V, costs, cc] + [b.__dict__.get(k) for k in ("cg", "running_max")]
        if isinstance(a, np.ndarray) and a.shape == b.L.shape and a.flags.writeable and \
                not any(x is not None and np.may_share_memory(a, x) for x in shared):
            weighted = np.multiply(b.L, a, out=a)       # a new matrix of the aggregation's: reuse it
        else:
            weighted = b.L * a
    weighted[~(b.L > 0)] = 0.0          # users who never stop there add nothing (not 0 * inf)
    m = weighted.sum(axis=1)
    del weighted
    if b.tail_sums is not None:
        if agg.tail is None:
            return m + _numeric_aggregation_tail(b, agg, params, costs, vplus, pad_cost)
        cg_d = b.cg[:, -1] if w else np.zeros(n)
        # the last column of the running max is the row's max: no matrix for it unless one exists
        running = b.__dict__.get("running_max")
        max_d = (running[:, -1] if running is not None else b.gains.max(axis=1)) if w else np.zeros(n)
        cc_e = None if cc is None else (cc[:, -1] if w else np.zeros(n))
        part = agg.tail(AggregationTailInput(cg_d, max_d, end.astype(np.float64), vplus, cc_e, pad_cost), params)
        s = b.tail_sums
        m = m + np.where(s.stop > 0, part.const * s.stop, 0.0) + \
            np.where(s.inverse_rank > 0, part.coef * s.inverse_rank, 0.0)
        if part.slope is not None:
            rank = s.rank if s.rank is not None else end * s.stop + s.depth
            with np.errstate(invalid="ignore"):
                m = m + np.where(part.slope != 0, part.slope * rank, 0.0)
    return m


def score(gains: np.ndarray, depth: np.ndarray, model: BrowsingModel, agg: Aggregation, params: Params,
          tail: str = "stop", total_gain: Optional[np.ndarray] = None, costs: Optional[np.ndarray] = None,
          pad_cost: float = 1.0) -> np.ndarray:
    """One measure's per-topic scores: :func:`aggregate` of :func:`browse`."""
    return aggregate(browse(gains, depth, model, params, tail, total_gain, costs=costs, pad_cost=pad_cost),
                     agg, params, costs, pad_cost)
