"""The C/W/L/A kernel: M = sum_i L(i) A(i), for every topic at once (pure numpy).

Input is a (topics x ranks) gain matrix and the depth D of each topic's ranking (the
cutoff, or the ranking's length). :func:`browse` turns a browsing model into
V(i) = prod_{j<i} C(j), L(i) = (1 - C(i)) V(i) and the expected depth V+;
:func:`aggregate` combines them with an aggregation. Measures that share a browsing model
share one :class:`Browsing` (see :mod:`ir_cwla.provider`).

``tail='stop'``: the user stops at rank D at the latest, C(D) := 0, so sum L = 1.
``tail='pad'``: ranks past D hold non-relevant documents forever and M is the exact
infinite sum: the part within D plus the model's closed-form tail sums
(:class:`ir_cwla.browsing.TailSums`) times the aggregation's tail A(i) = const + coef / i.
A matrix need not be as wide as the cutoff: ranks past its width W hold zero gains, and
the tail sums cover them too (a finite stretch up to D under 'stop').
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Optional

import numpy as np

from ir_cwla.aggregation import Aggregation, AggregationInput
from ir_cwla.browsing import BrowsingModel, Params, TailInput, TailSums

TAILS = ("stop", "pad")


class KernelError(ValueError):
    """A browsing model produced an invalid C (outside [0, 1], or NaN)."""


@dataclass
class Browsing:
    """C, V and L of one browsing model over one gain matrix, ready for any aggregation."""

    gains: np.ndarray
    depth: np.ndarray
    L: np.ndarray              # (n, W), 0 past D
    V: np.ndarray              # (n, W), 0 past D
    tail: str
    tail_sums: Optional[TailSums]

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


def _numeric_tail(model: BrowsingModel, gains: np.ndarray, depth: np.ndarray, params: Params,
                  tol: float = 1e-13, limit: int = 1 << 20) -> TailSums:
    """Sums a model's zero-gain tail numerically, for models registered without a tail."""
    n, w = gains.shape
    extra = 1024
    while True:
        ext = np.concatenate([gains, np.zeros((n, extra))], axis=1)
        c = np.asarray(model.continuation(ext, params), dtype=np.float64)
        _check_continuation(c, model, None)
        v = _exclusive_cumprod(c)
        past = np.arange(1, ext.shape[1] + 1)[None, :] > depth[:, None]
        v_in, c_in = v[:, :-1], c
        if (v[:, -1] <= tol).all() or (c[:, -1] >= 1).all():
            lv = np.where(past, v_in * (1 - c_in), 0.0)
            ranks = np.arange(1, ext.shape[1] + 1, dtype=np.float64)
            never = v[:, -1] > tol
            depth_sum = np.where(never, np.inf, np.where(past, v_in, 0.0).sum(axis=1))
            return TailSums(lv.sum(axis=1), depth_sum, (lv / ranks[None, :]).sum(axis=1))
        if extra >= limit:
            raise KernelError(f"browsing model {model.name!r}: its tail does not converge within {limit} ranks; "
                              "register it with a closed-form tail or use tail='stop'")
        extra *= 2


def browse(gains: np.ndarray, depth: np.ndarray, model: BrowsingModel, params: Params, tail: str = "stop",
           total_gain: Optional[np.ndarray] = None, topics: Optional[np.ndarray] = None) -> Browsing:
    """C -> V -> L for a gain matrix whose row t is looked at down to rank ``depth[t]``.

    Gains past ``depth[t]`` must be 0. ``depth`` may exceed the matrix's width W (a cutoff
    deeper than every ranking of the matrix): the ranks past W hold zero gains, summed by the
    model's closed-form tail (models registered with ``finite_tail``), so they cost nothing.
    ``total_gain`` (R per topic) is needed by AP under 'pad'. ``topics`` only serves error
    messages.
    """
    gains = np.asarray(gains, dtype=np.float64)
    depth = np.asarray(depth, dtype=np.int64)
    n, w = gains.shape
    c = np.asarray(model.continuation(gains, params), dtype=np.float64)
    ranks = np.arange(1, w + 1)
    within = ranks[None, :] <= depth[:, None]
    _check_continuation(np.where(within, c, 0.0), model, topics)
    if tail not in TAILS:
        raise ValueError(f"unknown tail={tail!r}; valid: {', '.join(TAILS)}")
    beyond = depth > w                       # the cutoff lies past the matrix: a finite zero-gain stretch
    if beyond.any() and not model.finite_tail:
        raise KernelError(f"browsing model {model.name!r} has no finite tail: give it a matrix as wide as "
                          "the cutoff (or register it with finite_tail=True)")
    if tail == "stop" and not beyond.any():
        c = np.where(ranks[None, :] < depth[:, None], c, 0.0)     # C(D) := 0
        v = np.where(within, _exclusive_cumprod(c)[:, :-1], 0.0)
        return Browsing(gains, depth, v * (1 - c), v, tail, None)
    end = np.minimum(depth, w)               # E: the last rank of the matrix looked at
    if tail == "stop":
        c = np.where(ranks[None, :] < depth[:, None], c, 0.0)     # C(D) := 0 where D lies within
    c = np.where(within, c, 0.0)
    v_ext = _exclusive_cumprod(np.where(within, c, 1.0))
    v_next = v_ext[np.arange(n), end]
    v = np.where(within, v_ext[:, :-1], 0.0)
    lv = np.where(within, v * (1 - c), 0.0)
    horizon = np.where(beyond, depth - end, 0).astype(np.float64) if tail == "stop" else np.full(n, np.inf)
    if model.tail is None:
        sums = _numeric_tail(model, gains, depth, params)
    else:
        cg = gains.sum(axis=1)
        inp = TailInput(gains, end, v_next, v.sum(axis=1), cg,
                        total_gain if total_gain is not None else np.full(n, np.nan), horizon)
        sums = model.tail(inp, params)
    return Browsing(gains, depth, lv, v, tail, sums)


def aggregate(b: Browsing, agg: Aggregation, params: Params) -> np.ndarray:
    """M = sum_i L(i) A(i) per topic (plus the zero-gain tail past the matrix, if any)."""
    n, w = b.gains.shape
    cg, running_max = b.cg, b.running_max
    ranks = np.arange(1, w + 1, dtype=np.float64)
    vplus = b.vplus if agg.needs_vplus else None
    a = agg.fn(AggregationInput(b.gains, cg, running_max, ranks, vplus), params)
    with np.errstate(invalid="ignore"):
        m = np.where(b.L > 0, b.L * a, 0.0).sum(axis=1)
    if b.tail_sums is not None:
        if agg.tail is None:
            raise ValueError(f"aggregation {agg.name!r} defines no tail, so it cannot sum the ranks past the "
                             "matrix (tail='pad', or a cutoff deeper than the ranking); register it with tail=")
        cg_d = cg[:, -1] if w else np.zeros(n)
        max_d = running_max[:, -1] if w else np.zeros(n)
        const, coef = agg.tail(cg_d, max_d, vplus, params)
        s = b.tail_sums
        m = m + np.where(s.stop > 0, const * s.stop, 0.0) + np.where(s.inverse_rank > 0, coef * s.inverse_rank, 0.0)
    return m


def score(gains: np.ndarray, depth: np.ndarray, model: BrowsingModel, agg: Aggregation, params: Params,
          tail: str = "stop", total_gain: Optional[np.ndarray] = None) -> np.ndarray:
    """One measure's per-topic scores: :func:`aggregate` of :func:`browse`."""
    return aggregate(browse(gains, depth, model, params, tail, total_gain), agg, params)
