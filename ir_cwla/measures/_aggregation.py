"""Aggregations: A(i), what a user who stops at rank i takes away from the ranking.

Moffat et al. (2022) and Chen & Sakai, "A Meta-Evaluation of C/W/L/A Metrics", Eqs. 9-15.
With CG(i) = sum_{j<=i} r_j and V+ = sum_{i>=1} prod_{j<i} C(j) (the expected depth):

========  ==========================================  ============================
name      A(i)                                        past the ranking (r = 0)
========  ==========================================  ============================
``ERG``   CG(i) / V+   (expected rate of gain)        CG(D) / V+
``ETG``   CG(i)        (expected total gain)          CG(D)
``avg``   CG(i) / i    (average relevance)            CG(D) / i
``max``   max_{j<=i} r_j                              max_{j<=D} r_j
``fin``   r_i          (last relevance)               0
``PE``    beta max_{j<=i} r_j + (1 - beta) r_i        beta max_{j<=D} r_j
``ERR``   1 / i                                       1 / i
========  ==========================================  ============================

The last column is each aggregation's *tail*: for i > D, A(i) = const + coef / i, which is
what ``tail='pad'`` needs to sum the infinite ranking exactly. Add your own with
:func:`register_aggregation`; one registered without ``tail=`` is summed past the ranking
numerically (:func:`ir_cwla.scoring._kernel.aggregate`): each topic's row extended with zero
gains, C from the model's own continuation, A from ``fn``, until V(next) <= 1e-13 (at most 2^20
ranks, else a :class:`~ir_cwla.errors.KernelError`; models whose tail reads R, AP and TrAP, are
refused, and the extension is checked against the model's closed-form tail; docs/semantics.md,
section 6).

The other expectations cwl_eval reports (Azzopardi, Thomas & Moffat 2019; Moffat et al.
2013, "Users versus models") are aggregations too, over the document costs c_i
(:mod:`ir_cwla.measures._costs`, 1 per document by default) with CC(i) = sum_{j<=i} c_j: the expected
utility EU is ``ERG`` and the expected total utility ETU is ``ETG``;

========  ==========================================  ============================
``EC``    CC(i) / V+   (expected cost per document)   (CC(E) + c (i - E)) / V+
``ETC``   CC(i)        (expected total cost)          CC(E) + c (i - E)
``EI``    i            (expected items inspected)     i
========  ==========================================  ============================

with c the cost of a padding document past E. When every user stops (always under
``tail='stop'``), EC = sum_i V(i) c_i / V+, ETC = sum_i V(i) c_i and EI = V+, cwl_eval's
numbers; users who never stop would make them infinite, so these three are rejected under
'pad' for models that never stop on a non-relevant document (ERR, RR). Under 'pad', AP's
V+ = R/S counts relevant documents never retrieved, while EI counts the documents its users
inspect.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Union

import numpy as np

from ir_cwla.errors import MeasureError, RegistrationError
from ir_cwla.measures import _registry as registry
from ir_cwla.measures._browsing import PLUGINS_HELP
from ir_cwla.measures._params import Param, Params, as_declarations


class AggregationInput:
    """What an aggregation may read.

    Gains (n x W), CG, running max, ranks (1..W), V+ (n,); for aggregations registered with
    ``needs_costs``, the document costs (0 past D) and their cumulative sums CC(i) =
    sum_{j<=i} c_j.

    ``cg`` and ``running_max`` are computed on first use (``source``, when given, is an object
    whose ``cg`` and ``running_max`` attributes are shared with other aggregations), so an
    aggregation that reads neither costs no matrix for them.
    """

    def __init__(self, gains: np.ndarray, cg: Optional[np.ndarray] = None, running_max: Optional[np.ndarray] = None,
                 ranks: Optional[np.ndarray] = None, vplus: Optional[np.ndarray] = None, source: Any = None,
                 costs: Optional[np.ndarray] = None, cc: Optional[np.ndarray] = None):
        self.gains = gains
        self.ranks = ranks if ranks is not None else np.arange(1, gains.shape[1] + 1, dtype=np.float64)
        self._vplus, self._costs, self._cc = vplus, costs, cc
        self._cg, self._running_max, self._source = cg, running_max, source

    @property
    def vplus(self) -> np.ndarray:
        """V+ per topic, for aggregations registered with ``needs_vplus=True``."""
        if self._vplus is None:
            raise RegistrationError("this aggregation reads V+: register it with needs_vplus=True")
        return self._vplus

    @property
    def costs(self) -> np.ndarray:
        """The document costs (n x W), for aggregations registered with ``needs_costs=True``."""
        if self._costs is None:
            raise RegistrationError("this aggregation reads costs: register it with needs_costs=True")
        return self._costs

    @property
    def cc(self) -> np.ndarray:
        """CC(i) = sum_{j<=i} c_j, for aggregations registered with ``needs_costs=True``."""
        if self._cc is None:
            raise RegistrationError("this aggregation reads costs: register it with needs_costs=True")
        return self._cc

    @property
    def cg(self) -> np.ndarray:
        """CG(i) = sum_{j<=i} r_j."""
        if self._cg is None:
            self._cg = self._source.cg if self._source is not None else np.cumsum(self.gains, axis=1)
        return self._cg

    @property
    def running_max(self) -> np.ndarray:
        """max_{j<=i} r_j."""
        if self._running_max is None:
            if self._source is not None:
                self._running_max = self._source.running_max
            else:
                g = self.gains
                self._running_max = np.maximum.accumulate(g, axis=1) if g.shape[1] else g
        return self._running_max


@dataclass(frozen=True)
class AggregationTailInput:
    """What an aggregation's tail reads about each topic at E, the last rank the matrix holds (arrays over topics).

    ``cg``: CG(E); ``max_gain``: max_{j<=E} r_j; ``end``: E; ``vplus``: V+ (aggregations
    registered with ``needs_vplus``, else None); ``cc``: CC(E) (aggregations registered with
    ``needs_costs``, else None); ``pad_cost``: the cost of every rank past E.
    """

    cg: np.ndarray
    max_gain: np.ndarray
    end: np.ndarray
    vplus: Optional[np.ndarray] = None
    cc: Optional[np.ndarray] = None
    pad_cost: float = 1.0


@dataclass(frozen=True)
class AggregationTail:
    """An aggregation past the ranking: A(i) = const + coef / i + slope i for i > E (arrays over topics).

    ``slope`` (None: 0) is for aggregations that grow with the depth inspected (the expected
    total cost, the items inspected).
    """

    const: np.ndarray
    coef: np.ndarray
    slope: Optional[np.ndarray] = None


#: ``tail(AggregationTailInput, params) -> AggregationTail``: an aggregation's closed form past the ranking.
AggregationTailFn = Callable[[AggregationTailInput, Params], AggregationTail]


@dataclass(frozen=True)
class Aggregation:
    """A registered aggregation: ``fn(inp, params) -> A`` over the (topics x ranks) matrix.

    ``tail(AggregationTailInput, params) -> AggregationTail`` gives A(i) = const + coef / i +
    slope i past the last ranked document. ``needs_vplus`` asks the kernel for V+; ``unbounded`` marks
    aggregations that grow without bound with the depth inspected (costs, items): users who
    never stop would make them infinite, so they are rejected under 'pad' for such models.
    ``params`` declares the parameters ``fn`` reads (:class:`ir_cwla.Param`).
    """

    name: str
    fn: Callable[[AggregationInput, Params], np.ndarray]
    tail: Optional[AggregationTailFn] = None
    params: Mapping[str, Param] = field(default_factory=dict)
    needs_vplus: bool = False
    needs_costs: bool = False
    unbounded: bool = False
    doc: str = ""

    @property
    def summary(self) -> str:
        """The first line of :attr:`doc` (the function's docstring by default)."""
        return self.doc.strip().split("\n")[0].strip() if self.doc else ""


AGGREGATIONS: dict[str, Aggregation] = {}
"""Every registered aggregation by name (``CWLA(A=name)``), in registration order; add one with
:func:`register_aggregation`."""


def register_aggregation(name: str, fn: Callable[[AggregationInput, Params], np.ndarray], *,
                         tail: Optional[AggregationTailFn] = None,
                         params: Union[Mapping[str, Param], Sequence[str]] = (),
                         needs_vplus: bool = False, needs_costs: bool = False, unbounded: bool = False,
                         doc: Optional[str] = None, replace: bool = False) -> Aggregation:
    """Registers an aggregation so that ``CWLA(A=name, ...)`` works everywhere.

    Parameters
    ----------
    name : str
        The aggregation's name (an identifier): ``CWLA(A=name)``, short names ``RBP_name@10``.
    fn : callable
        ``fn(inp, params)`` receives an :class:`AggregationInput` and the measure's parameters
        and returns A(i) for every cell.
    tail : callable, optional
        The closed form past the ranking (``tail='pad'``, cutoffs deeper than the ranking):
        ``tail(AggregationTailInput, params)`` returns an :class:`AggregationTail`, the arrays
        over topics with A(i) = const + coef / i + slope i for the ranks past the end. Without
        it those ranks are summed numerically: each topic's row is extended with zero gains,
        the browsing model's own continuation gives L there and ``fn`` A, until V <= 1e-13;
        a model whose users have not stopped within 2^20 ranks (INST, INSQ, NERR11, IFTgoal),
        whose tail reads R (AP, TrAP), or whose continuation disagrees with its closed-form
        tail is refused with a message. A scorer pads the matrix to a cutoff instead.
    params : mapping of str to Param, or sequence of str
        The parameters ``fn`` reads, each declared as :class:`ir_cwla.Param`; a name already
        declared by a registered aggregation may be given alone.
    needs_vplus : bool
        ``fn`` reads V+ (``inp.vplus``).
    needs_costs : bool
        ``fn`` reads the document costs (``inp.costs``, ``inp.cc``).
    unbounded : bool
        A grows without bound with the depth inspected (rejected under 'pad' for models that
        never stop).
    doc : str, optional
        What the aggregation is, for the reference tables (default: ``fn``'s docstring).
    replace : bool
        Replace an aggregation registered under ``name``.

    Returns
    -------
    Aggregation
        The registered aggregation.
    """
    declared = as_declarations(f"aggregation {name!r}", params, [AGGREGATIONS])
    agg = Aggregation(name, fn, tail, declared, needs_vplus, needs_costs, unbounded,
                      fn.__doc__ or "" if doc is None else doc)
    return registry.add(AGGREGATIONS, "aggregation", name, agg, replace)


def get_aggregation(name: str) -> Aggregation:
    """The aggregation registered as ``name``, else a :class:`MeasureError` naming the valid ones."""
    try:
        return AGGREGATIONS[name]
    except KeyError:
        raise MeasureError(f"unknown aggregation A={name!r}; valid: {', '.join(AGGREGATIONS)}; "
                           f"{PLUGINS_HELP}") from None


def expected_rate_of_gain(inp: AggregationInput, params: Params) -> np.ndarray:
    """ERG (Eq. 9): A(i) = CG(i) / V+, the C/W/L expected utility per document inspected."""
    return inp.cg / inp.vplus[:, None]


def expected_total_gain(inp: AggregationInput, params: Params) -> np.ndarray:
    """ETG (Eq. 10): A(i) = CG(i)."""
    return inp.cg


def average_relevance(inp: AggregationInput, params: Params) -> np.ndarray:
    """Average relevance, avg (Eq. 11): A(i) = CG(i) / i."""
    return inp.cg / inp.ranks[None, :]


def maximum_relevance(inp: AggregationInput, params: Params) -> np.ndarray:
    """Maximum relevance, max (Eq. 12): A(i) = max_{j<=i} r_j."""
    return inp.running_max


def final_relevance(inp: AggregationInput, params: Params) -> np.ndarray:
    """Final relevance, fin (Eq. 13): A(i) = r_i."""
    return inp.gains


def peak_end(inp: AggregationInput, params: Params) -> np.ndarray:
    """PE (Eq. 14; Fredrickson & Kahneman 1993): A(i) = beta max_{j<=i} r_j + (1 - beta) r_i."""
    beta = float(params["beta"])
    return beta * inp.running_max + (1 - beta) * inp.gains


def err_aggregation(inp: AggregationInput, params: Params) -> np.ndarray:
    """ERR (Eq. 15): A(i) = 1 / i, whatever was seen."""
    return np.broadcast_to(1.0 / inp.ranks[None, :], inp.gains.shape)


def _zeros(x):
    return np.zeros_like(x)


def _erg_tail(t: AggregationTailInput, params: Params) -> AggregationTail:
    """CG(E) / V+."""
    assert t.vplus is not None          # (registered with needs_vplus)
    return AggregationTail(t.cg / t.vplus, _zeros(t.cg))


register_aggregation("ERG", expected_rate_of_gain, needs_vplus=True, tail=_erg_tail)
register_aggregation("ETG", expected_total_gain, tail=lambda t, params: AggregationTail(t.cg, _zeros(t.cg)))
register_aggregation("avg", average_relevance, tail=lambda t, params: AggregationTail(_zeros(t.cg), t.cg))
register_aggregation("max", maximum_relevance, tail=lambda t, params: AggregationTail(t.max_gain, _zeros(t.cg)))
register_aggregation("fin", final_relevance, tail=lambda t, params: AggregationTail(_zeros(t.cg), _zeros(t.cg)))
register_aggregation("PE", peak_end, params={"beta": Param(0.5, bounds=(0.0, 1.0),
                                                          doc="peak-end weight of the largest gain seen")},
                     tail=lambda t, params: AggregationTail(float(params["beta"]) * t.max_gain, _zeros(t.cg)))
register_aggregation("ERR", err_aggregation, tail=lambda t, params: AggregationTail(_zeros(t.cg), np.ones_like(t.cg)))


def expected_cost(inp: AggregationInput, params: Params) -> np.ndarray:
    """EC: A(i) = CC(i) / V+, so M = sum_i V(i) c_i / V+, the C/W/L expected cost per document."""
    return inp.cc / inp.vplus[:, None]


def expected_total_cost(inp: AggregationInput, params: Params) -> np.ndarray:
    """ETC: A(i) = CC(i), the cost a user who stops at rank i has spent."""
    return inp.cc


def expected_items(inp: AggregationInput, params: Params) -> np.ndarray:
    """EI: A(i) = i, the number of documents a user who stops at rank i has inspected."""
    return np.broadcast_to(inp.ranks[None, :], inp.gains.shape)


def _cost_tail(t: AggregationTailInput, params: Params) -> AggregationTail:
    """Past E, CC(i) = CC(E) + c (i - E)."""
    assert t.cc is not None             # (registered with needs_costs)
    return AggregationTail(t.cc - t.pad_cost * t.end, _zeros(t.cc), np.full(t.cc.shape, float(t.pad_cost)))


def _expected_cost_tail(t: AggregationTailInput, params: Params) -> AggregationTail:
    """(CC(E) + c (i - E)) / V+."""
    assert t.vplus is not None
    cost = _cost_tail(t, params)
    assert cost.slope is not None
    return AggregationTail(cost.const / t.vplus, cost.coef / t.vplus, cost.slope / t.vplus)


register_aggregation("EC", expected_cost, needs_vplus=True, needs_costs=True, unbounded=True, tail=_expected_cost_tail)
register_aggregation("ETC", expected_total_cost, needs_costs=True, unbounded=True, tail=_cost_tail)
register_aggregation("EI", expected_items, unbounded=True,
                     tail=lambda t, params: AggregationTail(_zeros(t.cg), _zeros(t.cg), np.ones_like(t.cg)))
