"""The browsing models of cwl_eval that :mod:`ir_cwla.browsing` does not define, registered
like the built-in ones, so that every aggregation (and both tails) works with them.

cwl_eval (Azzopardi, Thomas & Moffat, "cwl_eval: An Evaluation Tool for Information
Retrieval", SIGIR 2019) implements each metric as a continuation vector C(i) over a ranking
cut or padded to 1000 documents and reports its expected utility EU = sum_i W(i) r_i, which
is ``CWLA(C=..., A='ERG')@1000`` under ``tail='stop'`` (TrAP: under ``tail='pad'``). The
models here are those C(i), as pure functions of the (topics x ranks) gain matrix and, for
the models marked *costs*, of the matrix of document costs c_i (:mod:`ir_cwla.costs`; 1
per document unless the measure names ``costs=``), with CG(i) = sum_{j<=i} r_j and
CC(i) = sum_{j<=i} c_j:

=========  ====================================================================  ==============
name       C(i)                                                                  parameters
=========  ====================================================================  ==============
``NPV``    1 / (1 + discount)  (net present value; RBP with p = 1/(1+discount))   discount=0.1
``NERR8``  1 - r_i for i < k, else 0  (Azzopardi et al. 2021, Eq. 8)              cutoff k
``NERR9``  i / (i + 1) (1 - r_i) for i < k, else 0  (Eq. 9)                       cutoff k
``NERR10`` phi (1 - r_i)  (Eq. 10)                                                phi=0.9
``NERR11`` ((i + 2T - 1) / (i + 2T))^2 (1 - r_i)  (Eq. 11)                        T
``SET``    w(i+1) / w(i) for i < k, else 0, w(i) = (i+1)^e - i^e (Azzopardi 2014) exponent=0.5, k
``TBG``    2^(-c_i / H)  (time-biased gain, Smucker & Clarke 2012; *costs*)       halflife=224
``U``      u(CC(i)) / u(CC(i-1)), u(x) = max(0, 1 - x/L) (Sakai & Dou 2013;      L=1000
           *costs*; 0 once u(CC(i-1)) = 0)
``IFTgoal``   1 - 1 / (1 + b1 e^{R1 (T - CG(i))})  (Azzopardi et al. 2018, C1)   T, b1=0.9, R1=10
``IFTrate``   1 / (1 + b2 e^{R2 (rate - CG(i)/CC(i))})  (C2; *costs*)            rate=0.2, b2=0.9, R2=10
``IFT``       C1 C2, goal and rate  (*costs*)                                    all six
``BPM``    1 while CG(i) < T and CC(i) < K, then 0 (Zhang et al. 2017, static;   T, K=10
           *costs*)
``BPMD``   1 while CG(j) < T_j and CC(j) < K_j for every j <= i, then 0          T, K, hb=1, hc=1,
           (dynamic), T_j = T + hb sum_{l<j} (r_l - gain_med), K_j likewise      gain_med=0.5
           with hc (*costs*)
``TrAP``   S_{i+1} / S_i, S_i = sum_{j>=i} r_j / CC(j) (0 where S_i = 0)          -
           (Harman's AP with costs as positions; *costs*)
=========  ====================================================================  ==============

cwl_eval's other metrics are the built-in models: ``PrecisionCWLMetric(k)`` is ``P@k``,
``RBPCWLMetric(p)`` ``RBP``, ``NDCGCWLMetric(k)`` ``DCG@k``, ``RRCWLMetric`` ``RR``,
``APCWLMetric`` ``AP``, ``INSTCWLMetric(T)`` ``INST``, ``INSQCWLMetric(T)`` ``INSQ``.

Where cwl_eval differs (``ir-cwla cwl`` documents each):

- BPMD: cwl_eval's cost loop updates T instead of K (``T = T + self.hc * ...``), so its K
  never moves; here K_j moves with hc as in Zhang et al. The two agree when hc = 0.
- TrAP: cwl_eval reports sum_i W(i) r_i with W(i) = CG(i) / CC(i) / R (leading zero CG(i)
  read as 1), an unnormalised W whose ratios can exceed 1; its EU is Harman's AP with
  R = the number of relevant documents of the topic, which is ``CWLA(C='TrAP', A='ERG',
  tail='pad')``: under 'pad' V+ = R / S_1 (R counted in documents, as in cwl_eval), as for
  AP. Its other quantities have no C/W/L reading and differ.
- U: cwl_eval sets the weight of its last rank (1000) to 0; ``ir-cwla cwl`` evaluates the
  U-measure at depth 999 to match.

Tails: NPV, NERR10 and TBG past the ranking are geometric (RBP's closed form), NERR11 is
INSQ's, NERR8 P's, IFTgoal geometric with a per-topic ratio; the others are summed
numerically (their matrices are padded to a cutoff deeper than the ranking).
"""
from __future__ import annotations

import math
from typing import Optional, Union

import numpy as np

from ir_cwla.browsing import (
    MAX_T,
    TARGET,
    TailInput,
    TailSums,
    _ap_like_tail,
    _insq_tail,
    _lerch_phi_1,
    _precision_tail,
    _ranks,
    _rbp_tail,
    register_browsing_model,
)
from ir_cwla.params import Param, Params


def _cutoff_mask(gains: np.ndarray, params: Params) -> np.ndarray:
    """True for ranks i < k (the model may go on), False from rank k on."""
    return (_ranks(gains.shape[1]) < int(params["cutoff"]))[None, :]


#: Below this q = 1 - C, geometric tails take their sums from q itself, not from 1 - q.
SMALL_Q = 1e-3


def _per_topic_geometric_tail(inp: TailInput, q: np.ndarray) -> TailSums:
    """Past E, C = 1 - q[t] for topic t (a geometric tail per topic), with q given exactly
    (it may be far below the spacing of floats near 1): RBP's closed form for the sums over
    L, and the expected depth from q itself, sum V = V(E+1) (1 - (1-q)^h) / q (h ranks; V(E+1)
    / q under 'pad'); for small q, sum L(i) / i = V(E+1) q Phi(1-q, 1, E+1) (minus its part from
    a last rank b on, plus V(b) / b) with Lerch's Phi computed from q (even where 1 - q rounds to 1)."""
    parts = [np.zeros_like(inp.v_next) for _ in range(4)]
    for value in np.unique(q):
        rows = q == value
        sub = TailInput(inp.gains[rows], inp.depth[rows], inp.v_next[rows], inp.v_sum[rows], inp.cg[rows],
                        inp.total_gain[rows], inp.horizon[rows])
        bounded = np.isfinite(sub.horizon)
        h = np.where(bounded, np.maximum(sub.horizon, 0.0), 0.0)
        some = bounded & (h >= 1)
        v = sub.v_next
        n = sub.depth + 1.0
        if value > SMALL_Q:
            with np.errstate(divide="ignore"):      # q = 1: everyone stops at E + 1
                inv = _rbp_tail(sub, {"p": 1.0 - float(value)}).inverse_rank
        else:                                        # 1 - q is not precise enough: Phi from q itself
            b = n + h - 1
            left = np.exp((h - 1) * np.log1p(-value))
            phi_n = _lerch_phi_1(1.0 - value, n, q=float(value))
            phi_b = _lerch_phi_1(1.0 - value, np.maximum(b, 1.0), q=float(value))
            inv = np.where(bounded, np.where(some, v * value * (phi_n - left * phi_b) + v * left / np.maximum(b, 1.0),
                                             0.0), v * value * phi_n)
        stop = np.where(bounded & ~some, 0.0, v)
        with np.errstate(divide="ignore", invalid="ignore"):     # q = 1: (1 - q)^h = 0
            depth = np.where(bounded, np.where(some, v * -np.expm1(h * np.log1p(-value)) / value, 0.0), v / value)
        for part, got in zip(parts, (stop, depth, inv, sub.depth * stop + depth)):
            part[rows] = got
    return TailSums(*parts)


# ------------------------------------------------------------------------------ gain-only models

def npv(gains: np.ndarray, params: Params) -> np.ndarray:
    """NPV (cwl_eval): C(i) = 1 / (1 + discount), the net present value of a list whose
    future is discounted at that rate; RBP with p = 1 / (1 + discount)."""
    return np.full(gains.shape, 1.0 / (1.0 + float(params["discount"])))


def nerr8(gains: np.ndarray, params: Params) -> np.ndarray:
    """NERR, Eq. 8 (Azzopardi, Mackenzie & Moffat, "ERR is not C/W/L", ICTIR 2021):
    C(i) = 1 - r_i for i < k, else 0."""
    return np.where(_cutoff_mask(gains, params), 1.0 - gains, 0.0)


def nerr9(gains: np.ndarray, params: Params) -> np.ndarray:
    """NERR, Eq. 9: C(i) = i / (i + 1) (1 - r_i) for i < k, else 0."""
    i = _ranks(gains.shape[1])[None, :]
    return np.where(_cutoff_mask(gains, params), i / (i + 1.0) * (1.0 - gains), 0.0)


def nerr10(gains: np.ndarray, params: Params) -> np.ndarray:
    """NERR, Eq. 10: C(i) = phi (1 - r_i), to full depth (akin to RBP)."""
    return float(params["phi"]) * (1.0 - gains)


def nerr11(gains: np.ndarray, params: Params) -> np.ndarray:
    """NERR, Eq. 11: C(i) = ((i + 2T - 1) / (i + 2T))^2 (1 - r_i), to full depth (akin to INSQ)."""
    T = float(params["T"])
    i = _ranks(gains.shape[1])[None, :]
    return ((i + 2 * T - 1) / (i + 2 * T)) ** 2 * (1.0 - gains)


def _set_weight(i: np.ndarray, e: float) -> np.ndarray:
    return (i + 1.0) ** e - i ** e


def search_economic(gains: np.ndarray, params: Params) -> np.ndarray:
    """SET (Azzopardi 2014, economic models of search; cwl_eval): C(i) = w(i+1) / w(i) for
    i < k, else 0, with w(i) = (i+1)^e - i^e, so V(i) = w(i) / w(1): diminishing returns of
    exponent e (e = 1 is P@k)."""
    e = float(params["exponent"])
    i = _ranks(gains.shape[1])
    c = np.where(i < int(params["cutoff"]), _set_weight(i + 1, e) / _set_weight(i, e), 0.0)
    return np.broadcast_to(c, gains.shape).copy()


def _logistic(x: np.ndarray) -> np.ndarray:
    """1 / (1 + e^-x), without overflow."""
    from scipy import special  # here, not at the top: ``import ir_cwla`` loads no scipy

    return special.expit(x)


def ift_goal(gains: np.ndarray, params: Params) -> np.ndarray:
    """IFT, goal (C1; Azzopardi, Thomas & Craswell, SIGIR 2018):
    C(i) = 1 - 1 / (1 + b1 e^{R1 (T - CG(i))}), the user goes on while the gain gathered is
    below the goal T (R1: how strictly; b1: the intercept)."""
    x = float(params["R1"]) * (float(params["T"]) - np.cumsum(gains, axis=1)) + math.log(float(params["b1"]))
    return _logistic(x)


def _ift_goal_tail(inp: TailInput, params: Params) -> TailSums:
    """Past E, CG stays CG(E): C is constant per topic, 1 - q with q = 1 / (1 + b1 e^{R1 (T -
    CG(E))}) computed directly (a geometric tail)."""
    x = float(params["R1"]) * (float(params["T"]) - inp.cg) + math.log(float(params["b1"]))
    return _per_topic_geometric_tail(inp, _logistic(-x))


def _check_goal(params: Params) -> Optional[str]:
    """C1 must stay below 1 in floating point where no gain was gathered: R1 T + ln b1 <= 700."""
    x = float(params["R1"]) * float(params["T"]) + math.log(float(params["b1"]))
    if x > 700:
        return (f"R1 T + ln b1 = {x:g} makes C = 1 to machine precision before any gain (users who never stop); "
                "lower R1 or T (R1 T + ln b1 <= 700)")
    return None


# ------------------------------------------------------------------------------ models that read costs

def _rate_term(gains: np.ndarray, params: Params, costs: np.ndarray) -> np.ndarray:
    rate = np.cumsum(gains, axis=1) / np.cumsum(costs, axis=1)
    return _logistic(-(float(params["R2"]) * (float(params["rate"]) - rate) + math.log(float(params["b2"]))))


def ift_rate(gains: np.ndarray, params: Params, costs: np.ndarray) -> np.ndarray:
    """IFT, rate (C2): C(i) = 1 / (1 + b2 e^{R2 (rate - CG(i)/CC(i))}), the user goes on while
    the rate of gain per unit of cost stays above ``rate``."""
    return _rate_term(gains, params, costs)


def ift(gains: np.ndarray, params: Params, costs: np.ndarray) -> np.ndarray:
    """IFT, goal and rate (C1 C2; the most accurate variant in Azzopardi et al. 2018)."""
    return ift_goal(gains, params) * _rate_term(gains, params, costs)


def time_biased_gain(gains: np.ndarray, params: Params, costs: np.ndarray) -> np.ndarray:
    """TBG (Smucker & Clarke 2012): the chance of still reading decays with the time spent,
    V(i) = 2^(-CC(i-1) / H), so C(i) = 2^(-c_i / H) (H: the half-life, in the costs' unit)."""
    return np.exp2(-costs / float(params["halflife"]))


def _tbg_tail(inp: TailInput, params: Params) -> TailSums:
    """Past E every document costs ``pad_cost``: RBP's tail with p = 2^(-pad_cost / H)."""
    return _rbp_tail(inp, {"p": 2.0 ** (-inp.pad_cost / float(params["halflife"]))})


def u_measure(gains: np.ndarray, params: Params, costs: np.ndarray) -> np.ndarray:
    """U-measure (Sakai & Dou 2013): a document starting at position CC(i-1) of the text read
    is reached with weight u(CC(i-1)) = max(0, 1 - CC(i-1)/L), so C(i) = u(CC(i)) /
    u(CC(i-1)) (0 once the weight is 0). Costs are lengths (characters) or reading times."""
    L = float(params["L"])
    cc = np.cumsum(costs, axis=1)
    after = np.maximum(0.0, 1.0 - cc / L)
    before = np.concatenate([np.ones((cc.shape[0], 1)), after[:, :-1]], axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(before > 0, after / np.where(before > 0, before, 1.0), 0.0)


def _budgets_met(gains: np.ndarray, costs: np.ndarray, T: Union[float, np.ndarray],
                 K: Union[float, np.ndarray]) -> np.ndarray:
    ok = (np.cumsum(gains, axis=1) < T) & (np.cumsum(costs, axis=1) < K)
    return np.logical_and.accumulate(ok, axis=1).astype(np.float64)


def bpm_static(gains: np.ndarray, params: Params, costs: np.ndarray) -> np.ndarray:
    """BPM, static (Zhang et al., "Evaluating Web Search with a Bejeweled Player Model",
    SIGIR 2017): C(i) = 1 while the gain gathered CG(i) < T and the cost spent CC(i) < K."""
    return _budgets_met(gains, costs, float(params["T"]), float(params["K"]))


def bpm_dynamic(gains: np.ndarray, params: Params, costs: np.ndarray) -> np.ndarray:
    """BPM, dynamic: as static, but each document moves both budgets by how far its gain is
    from ``gain_med``: T_{i+1} = T_i + hb (r_i - gain_med), K_{i+1} = K_i + hc (r_i - gain_med)
    (T_1 = T, K_1 = K); C(i) = 1 while CG(j) < T_j and CC(j) < K_j for every j <= i."""
    step = gains - float(params["gain_med"])
    n = gains.shape[0]

    def budget(start: float, h: float) -> np.ndarray:
        # summed left to right, as a loop T = T + h (r_i - gain_med) would
        first = np.full((n, 1), start)
        return np.cumsum(np.concatenate([first, h * step[:, :-1]], axis=1), axis=1)

    return _budgets_met(gains, costs, budget(float(params["T"]), float(params["hb"])),
                        budget(float(params["K"]), float(params["hc"])))


def trap(gains: np.ndarray, params: Params, costs: np.ndarray) -> np.ndarray:
    """TrAP (Harman 1992, as in cwl_eval): AP's continuation with the cost spent CC(j) in place
    of the rank j: C(i) = S_{i+1} / S_i, S_i = sum_{j>=i} r_j / CC(j) (0 where S_i = 0)."""
    w = gains / np.cumsum(costs, axis=1)
    s = np.cumsum(w[:, ::-1], axis=1)[:, ::-1]
    nxt = np.concatenate([s[:, 1:], np.zeros((s.shape[0], 1))], axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(s > 0, nxt / np.where(s > 0, s, 1.0), 0.0)


def _trap_tail(inp: TailInput, params: Params) -> TailSums:
    """AP's tail (:func:`ir_cwla.browsing._ap_like_tail`) with S_1 = sum_i r_i / CC(i): under
    'pad' V+ = R / S_1, R the number of relevant documents of the topic (as cwl_eval counts it)."""
    costs = np.ones_like(inp.gains) if inp.costs is None else inp.costs
    return _ap_like_tail(inp, (inp.gains / np.cumsum(costs, axis=1)).sum(axis=1))


# ------------------------------------------------------------------------------ parameters

def _positive_param(default: float, doc: str) -> Param:
    return Param(default, bounds=(0.0, math.inf), closed="neither", doc=doc)


def _nonnegative_param(default: float, doc: str) -> Param:
    return Param(default, bounds=(0.0, math.inf), closed="left", doc=doc)


_GOAL = {"T": Param(2.25, bounds=(0.0, MAX_T), closed="right", doc="IFT: the goal, the gain the user wants"),
         "b1": _positive_param(0.9, "IFT goal intercept"),
         "R1": _nonnegative_param(10.0, "IFT goal rationality")}
_RATE = {"rate": Param(0.2, doc="IFT: the expected rate of gain per unit of cost"),
         "b2": _positive_param(0.9, "IFT rate intercept"),
         "R2": _nonnegative_param(10.0, "IFT rate rationality")}
#: BPM's budgets: T of gain, K of cost (documents, with unit costs)
_GAIN_BUDGET = Param(2.25, bounds=(0.0, MAX_T), closed="right", doc="BPM: the gain budget T")
_COST_BUDGET = _positive_param(10.0, "BPM: the cost budget K (documents, with unit costs)")

register_browsing_model("NPV", npv, params={"discount": _positive_param(0.1, "discount rate: C = 1 / (1 + discount)")},
                        gain_dependent=False, finite_tail=True,
                        tail=lambda inp, params: _rbp_tail(inp, {"p": 1.0 / (1.0 + float(params["discount"]))}))
register_browsing_model("NERR8", nerr8, requires_cutoff=True, tail=_precision_tail, finite_tail=True)
register_browsing_model("NERR9", nerr9, requires_cutoff=True)
register_browsing_model("NERR10", nerr10, params={"phi": Param(0.9, bounds=(0.0, 1.0), closed="neither",
                                                               doc="persistence of NERR10")},
                        finite_tail=True, tail=lambda inp, params: _rbp_tail(inp, {"p": float(params["phi"])}))
register_browsing_model("NERR11", nerr11, params={"T": TARGET}, tail=_insq_tail, finite_tail=True)
register_browsing_model("SET", search_economic, requires_cutoff=True, gain_dependent=False,
                        params={"exponent": Param(0.5, bounds=(0.0, 1.0), closed="right",
                                                  doc="diminishing returns e (above 1, C(i) > 1)")})
register_browsing_model("IFTgoal", ift_goal, params=_GOAL, tail=_ift_goal_tail, finite_tail=True, check=_check_goal)
register_browsing_model("IFTrate", ift_rate, params=_RATE, uses_costs=True)
register_browsing_model("IFT", ift, params={**_GOAL, **_RATE}, uses_costs=True, check=_check_goal)
register_browsing_model("TBG", time_biased_gain, params={"halflife": _positive_param(224.0, "half-life H, in the "
                                                                                              "costs' unit")},
                        gain_dependent=False, uses_costs=True, tail=_tbg_tail, finite_tail=True)
register_browsing_model("U", u_measure, params={"L": _positive_param(1000.0, "patience L, in the costs' unit")},
                        gain_dependent=False, uses_costs=True)
register_browsing_model("BPM", bpm_static, params={"T": _GAIN_BUDGET, "K": _COST_BUDGET}, uses_costs=True)
register_browsing_model("BPMD", bpm_dynamic, uses_costs=True,
                        params={"T": _GAIN_BUDGET, "K": _COST_BUDGET,
                                "hb": Param(1.0, doc="BPMD: how far a document moves the gain budget"),
                                "hc": Param(1.0, doc="BPMD: how far a document moves the cost budget"),
                                "gain_med": Param(0.5, bounds=(0.0, 1.0), doc="BPMD: the gain that moves no budget")})
register_browsing_model("TrAP", trap, uses_costs=True, tail=_trap_tail, finite_tail=True, reads_total="count")
