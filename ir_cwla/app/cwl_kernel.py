"""cwl_eval's arithmetic, vectorised over rankings: the numbers ``ir-cwla cwl`` prints.

cwl_eval (Azzopardi, Thomas & Moffat, "cwl_eval: An Evaluation Tool for Information
Retrieval", SIGIR 2019; version 1.0.12) computes, for each ranking of n = ``--max_depth``
documents with gains r_i and costs c_i (cumulated: CG(i), CC(i)), a continuation vector C(i)
per metric (or, for TBG, U-measure and TrAP, the weights W(i) directly) and then::

    W(1) = 1 / sum_{i=1..n} prod_{j<i} C(j),   W(i) = W(1) prod_{j<i} C(j)
    L(i) = prod_{j<i} C(j) (1 - C(i))
    EU = W . r   ETU = L . CG   EC = W . c   ETC = L . CC   ED = 1 / W(1)

(``.`` a dot product). The values are those of the C/W/L measures of :mod:`ir_cwla.cwl_models`
(``ir-cwla cwl``'s tests check each column against them to 1e-9), but a printed digit of
cwl_eval's four-decimal table also depends on its floating-point rounding: a residual whose
exact value is 0 (EC with unit costs is 1 in both cases) prints ``0.0000`` or ``-0.0000``
by the sign of the rounding error, as does a value whose exact decimal expansion ends in
a 5 at the fifth place. So this module repeats cwl_eval's operations one for one, in the
same order: the same numpy reductions (``np.cumsum``, ``np.cumprod``, ``np.sum``'s pairwise
sums, one ``np.dot`` per ranking, which is BLAS' ``ddot``), elementwise +, -, *, / (exact in
IEEE arithmetic, so vectorising them changes nothing) and, for pow, exp and log, Python's
``math`` functions on each distinct argument (numpy's vectorised ``power`` and ``log`` round
differently from the C library on some CPUs, and ``x ** 2.0`` is not ``x * x``).

Each function takes (rankings x n) matrices ``gains`` and ``costs`` (the worst or the best
case: unjudged and missing documents already replaced, as cwl_eval's ``Ranking`` does) and
``rels``, per ranking the R that TrAP divides by. Pure numpy in, numpy out; the command's
reading, checking and printing are in :mod:`ir_cwla.app.cwl`.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from typing import Optional

import numpy as np

#: cwl_eval's metric classes that refuse gains outside [0, 1] (their ``MINGAIN``, ``MAXGAIN``).
UNIT_GAIN_CLASSES = frozenset({"INSTCWLMetric", "NERReq8CWLMetric", "NERReq9CWLMetric", "NERReq10CWLMetric",
                               "NERReq11CWLMetric"})

_LN2 = math.log(2.0, math.e)        # TBG's integral_decay divides by it


def _each(fn: Callable[[float], float], values: np.ndarray) -> np.ndarray:
    """``fn`` of every cell, computed once per distinct value.

    ``fn`` (on Python floats, as cwl_eval calls ``math`` functions) of every cell, computed
    once per distinct value.
    """
    distinct, inverse = np.unique(values, return_inverse=True)
    out = np.array([fn(v) for v in distinct.tolist()], dtype=np.float64)
    return out[inverse].reshape(values.shape)


def _pow_e(x: float) -> float:
    """cwl_eval's IFT exponential ``math.pow(math.e, x)``.

    ``math.pow(math.e, x)``, cwl_eval's IFT exponential (inf where it overflows, where
    cwl_eval stops with OverflowError).
    """
    try:
        return math.pow(math.e, x)
    except OverflowError:
        return math.inf


def _one_plus(b: float, p: float) -> float:
    return 1.0 + (b * p if b != 0.0 else 0.0)     # b = 0: 1, also where p overflowed


def _prefix(mask: np.ndarray) -> np.ndarray:
    """1 up to the first False of each row (cwl_eval's ``while ... : c[i] = 1``), then 0."""
    return np.logical_and.accumulate(mask, axis=1).astype(np.float64)


def _rows(vector: np.ndarray, shape: tuple) -> np.ndarray:
    return np.broadcast_to(vector, shape)


# ----------------------------------------------------------------------- C(i) of each class
# each: (args, gains, costs, rels) -> (C, W or None); W None: the generic W of C

def _precision(args: tuple, g: np.ndarray, c: np.ndarray, rels: np.ndarray) -> tuple:
    (k,) = args
    cvec = np.zeros(g.shape[1])
    cvec[:k - 1] = 1.0
    return _rows(cvec, g.shape), None


def _rbp(args: tuple, g: np.ndarray, c: np.ndarray, rels: np.ndarray) -> tuple:
    theta = args[0] if args else 0.9
    return _rows(np.dot(np.ones(g.shape[1]), theta), g.shape), None


def _npv(args: tuple, g: np.ndarray, c: np.ndarray, rels: np.ndarray) -> tuple:
    rate = args[0] if args else 0.1
    return _rows(np.dot(np.ones(g.shape[1]), (1.0 / (1.0 + rate))), g.shape), None


def _rr(args: tuple, g: np.ndarray, c: np.ndarray, rels: np.ndarray) -> tuple:
    return _prefix(~(g > 0)), None


@lru_cache(maxsize=64)
def _dcg_c(k: int, n: int) -> np.ndarray:
    return np.array([math.log(i + 1, 2.0) / math.log(i + 2, 2.0) if i < k else 0.0 for i in range(1, n + 1)])


def _ndcg(args: tuple, g: np.ndarray, c: np.ndarray, rels: np.ndarray) -> tuple:
    return _rows(_dcg_c(args[0], g.shape[1]), g.shape), None


def _ap(args: tuple, g: np.ndarray, c: np.ndarray, rels: np.ndarray) -> tuple:
    """AP's continuation as cwl_eval computes it, vectorised over rankings.

    C(i) = S(i+1) / S(i), S(i) = sum_{j>=i} r_j / j, each S a fresh pairwise ``np.sum``
    of the suffix (as cwl_eval's loop), vectorised over rankings.
    """
    rows, n = g.shape
    rii = g / np.arange(1, n + 1)
    nonzero = np.flatnonzero((rii != 0).any(axis=0))
    last = int(nonzero[-1]) + 1 if len(nonzero) else 0       # suffixes past it sum to 0
    sums = np.zeros((rows, n + 1))
    for i in range(min(last, n)):
        sums[:, i] = np.sum(rii[:, i:n], axis=1)
    cvec = np.zeros((rows, n))
    top, bot = sums[:, 1:n], sums[:, :n - 1]
    positive = top > 0.0
    np.divide(top, bot, out=cvec[:, :n - 1], where=positive)
    return cvec, None


def _trap(args: tuple, g: np.ndarray, c: np.ndarray, rels: np.ndarray) -> tuple:
    """TrAP's weights as cwl_eval computes them.

    W(i) = CG(i) / CC(i) / R (R > 0), leading CG(i) = 0 read as 1 but the last; C(i) = W(i+1) / W(i).
    """
    c_costs = np.cumsum(c, axis=1)
    c_gains = np.cumsum(g, axis=1)
    lead = c_gains == 0
    lead[:, -1] = False
    c_gains[lead] = 1.0
    w = np.divide(c_gains, c_costs)
    scaled = rels > 0
    w[scaled] = w[scaled] / rels[scaled][:, None]
    return _ratio_c(w), w


def _ratio_c(w: np.ndarray) -> np.ndarray:
    """C(i) = W(i+1) / W(i) where W(i) > 0, else 0; C(n) = 0 (TrAP, TBG, U)."""
    cvec = np.zeros(w.shape)
    np.divide(w[:, 1:], w[:, :-1], out=cvec[:, :-1], where=w[:, :-1] > 0.0)
    return cvec


def _inst(args: tuple, g: np.ndarray, c: np.ndarray, rels: np.ndarray) -> tuple:
    T = args[0] if args else 1.0
    c_gains = np.cumsum(g, axis=1)
    ti = T - c_gains
    i1 = np.arange(g.shape[1]) + 1.0
    base = (((i1 + T) + ti) - 1.0) / ((i1 + T) + ti)
    return _each(lambda x: x ** 2.0, base), None


@lru_cache(maxsize=64)
def _insq_c(T: float, n: int) -> np.ndarray:
    return np.array([(((i + 1.0) + (2.0 * T) - 1.0) / ((i + 1.0) + (2.0 * T))) ** 2.0 for i in range(n)])


def _insq(args: tuple, g: np.ndarray, c: np.ndarray, rels: np.ndarray) -> tuple:
    return _rows(_insq_c(args[0] if args else 1.0, g.shape[1]), g.shape), None


def _tbg(args: tuple, g: np.ndarray, c: np.ndarray, rels: np.ndarray) -> tuple:
    """W(i) = D(CC(i-1)) / sum_j D(CC(j-1)), D(x) = h 2^(-x/h) / ln 2 (CC(0) = 0)."""
    h = args[0] if args else 224
    c_costs = np.cumsum(c, axis=1)
    decay = np.empty(g.shape)
    decay[:, 0] = (h * (2.0 ** (-0.0 / h))) / _LN2
    decay[:, 1:] = (h * _each(lambda x: 2.0 ** x, -c_costs[:, :-1] / h)) / _LN2
    norm = np.cumsum(decay, axis=1)[:, -1]
    w = np.divide(decay, norm[:, None])
    return _ratio_c(w), w


def _umeasure(args: tuple, g: np.ndarray, c: np.ndarray, rels: np.ndarray) -> tuple:
    """W(i) = max(0, 1 - CC(i-1) / L) / norm for i < n, W(n) = 0 (CC(0) = 0)."""
    L = args[0] if args else 1000
    c_costs = np.cumsum(c, axis=1)
    weight = np.zeros(g.shape)
    weight[:, 0] = max(0.0, (1.0 - (0 / L)))
    decay = 1.0 - (c_costs[:, :-2] / L)
    weight[:, 1:-1] = np.where(decay > 0.0, decay, 0.0)
    norm = np.cumsum(weight[:, :-1], axis=1)[:, -1]
    w = np.divide(weight, norm[:, None])
    return _ratio_c(w), w


def _bpm(args: tuple, g: np.ndarray, c: np.ndarray, rels: np.ndarray) -> tuple:
    T, K = (list(args) + [1.0, 10][len(args):])[:2]
    return _prefix(np.cumsum(g, axis=1) < T) * _prefix(np.cumsum(c, axis=1) < K), None


def _bpmd(args: tuple, g: np.ndarray, c: np.ndarray, rels: np.ndarray) -> tuple:
    """The gain budget moves, T(i+1) = T(i) + hb (r_i - gain_med).

    The cost budget K does not (cwl_eval's cost loop updates T instead of K, so
    hc has no effect).
    """
    T, K, hb, hc, med = (list(args) + [1, 10, 1.0, 1.0, 0.5][len(args):])[:5]
    steps = hb * (g - med)
    budget = np.cumsum(np.concatenate([np.full((g.shape[0], 1), T), steps[:, :-1]], axis=1), axis=1)
    return _prefix(np.cumsum(g, axis=1) < budget) * _prefix(np.cumsum(c, axis=1) < K), None


def _c1(T: float, b1: float, R1: float, g: np.ndarray) -> np.ndarray:
    return _each(lambda x: 1.0 - math.pow(_one_plus(b1, _pow_e(x)), -1.0), (T - np.cumsum(g, axis=1)) * R1)


def _c2(A: float, b2: float, R2: float, g: np.ndarray, c: np.ndarray) -> np.ndarray:
    rate = np.cumsum(g, axis=1) / np.cumsum(c, axis=1)
    return _each(lambda x: math.pow(_one_plus(b2, _pow_e(x)), -1.0), (A - rate) * R2)


def _ift_goal(args: tuple, g: np.ndarray, c: np.ndarray, rels: np.ndarray) -> tuple:
    T, b1, R1 = args
    return _c1(T, b1, R1, g), None


def _ift_rate(args: tuple, g: np.ndarray, c: np.ndarray, rels: np.ndarray) -> tuple:
    A, b2, R2 = args
    return _c2(A, b2, R2, g, c), None


def _ift(args: tuple, g: np.ndarray, c: np.ndarray, rels: np.ndarray) -> tuple:
    T, b1, R1, A, b2, R2 = args
    return _c1(T, b1, R1, g) * _c2(A, b2, R2, g, c), None


def _nerr8(args: tuple, g: np.ndarray, c: np.ndarray, rels: np.ndarray) -> tuple:
    (k,) = args
    cvec = np.zeros(g.shape)
    m = max(min(g.shape[1], k - 1), 0)
    cvec[:, :m] = 1 - g[:, :m]
    return cvec, None


def _nerr9(args: tuple, g: np.ndarray, c: np.ndarray, rels: np.ndarray) -> tuple:
    (k,) = args
    cvec = np.zeros(g.shape)
    m = max(min(g.shape[1], k - 1), 0)
    rank = np.arange(1, m + 1)
    cvec[:, :m] = ((1.0 * rank) / (rank + 1.0)) * (1.0 - g[:, :m])
    return cvec, None


def _nerr10(args: tuple, g: np.ndarray, c: np.ndarray, rels: np.ndarray) -> tuple:
    phi = args[0] if args else 0.9
    return phi * (1 - g), None


@lru_cache(maxsize=64)
def _nerr11_c(T: float, n: int) -> np.ndarray:
    return np.array([((rank + (2.0 * T) - 1.0) / (rank + (2.0 * T))) ** 2.0 for rank in range(1, n + 1)])


def _nerr11(args: tuple, g: np.ndarray, c: np.ndarray, rels: np.ndarray) -> tuple:
    return _nerr11_c(args[0] if args else 1.0, g.shape[1]) * (1.0 - g), None


@lru_cache(maxsize=64)
def _set_c(beta: float, k: int, n: int) -> np.ndarray:
    def weight(i: int) -> float:
        return math.pow(i + 1, beta) - math.pow(i, beta)

    return np.array([weight(i + 1) / weight(i) if i < k else 0.0 for i in range(1, n + 1)])


def _set(args: tuple, g: np.ndarray, c: np.ndarray, rels: np.ndarray) -> tuple:
    beta, k = (list(args) + [0.5, 10][len(args):])[:2]
    return _rows(_set_c(beta, k, g.shape[1]), g.shape), None


CONTINUATIONS: dict[str, Callable[..., tuple]] = {
    "PrecisionCWLMetric": _precision, "RBPCWLMetric": _rbp, "NDCGCWLMetric": _ndcg, "RRCWLMetric": _rr,
    "APCWLMetric": _ap, "TrAPCWLMetric": _trap, "INSTCWLMetric": _inst, "INSQCWLMetric": _insq,
    "TBGCWLMetric": _tbg, "UMeasureCWLMetric": _umeasure, "BPMCWLMetric": _bpm, "BPMDCWLMetric": _bpmd,
    "IFTGoalCWLMetric": _ift_goal, "IFTRateCWLMetric": _ift_rate, "IFTGoalRateCWLMetric": _ift,
    "NERReq8CWLMetric": _nerr8, "NERReq9CWLMetric": _nerr9, "NERReq10CWLMetric": _nerr10,
    "NERReq11CWLMetric": _nerr11, "NPVCWLMetric": _npv, "SETCWLMetric": _set,
}
"""cwl_eval's ``c_vector`` (and ``w_vector`` where a class defines its own) of each metric class."""


def _rowdot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """One ``np.dot`` per row, as cwl_eval's per-ranking dot products.

    One ``np.dot`` per row (BLAS ``ddot``, as cwl_eval's per-ranking dot products; a
    matrix product would sum in another order).
    """
    return np.array([np.dot(x, y) for x, y in zip(a, b)], dtype=np.float64).reshape(len(a))


def expectations(cls: str, args: tuple, gains: np.ndarray, costs: np.ndarray,
                 rels: Optional[np.ndarray] = None) -> np.ndarray:
    """EU, ETU, EC, ETC and ED of a cwl_eval metric, to the last bit.

    EU, ETU, EC, ETC and ED (rankings x 5) of cwl_eval's metric ``cls(*args)``, computed
    as cwl_eval computes them (``CWLMetric._do_score``), to the last bit.

    Parameters
    ----------
    cls : str
        A key of :data:`CONTINUATIONS` (cwl_eval's class name).
    args : tuple
        The class's positional arguments, as cwl_eval's metrics file casts them (int or float).
    gains, costs : (rankings, n) float arrays
        Each ranking's gain and cost vectors, padded or cut to n.
    rels : (rankings,) array, optional
        The R of TrAP (relevant documents of the topic).
    """
    gains = np.ascontiguousarray(gains, dtype=np.float64)
    costs = np.ascontiguousarray(costs, dtype=np.float64)
    rels = np.zeros(len(gains)) if rels is None else np.asarray(rels, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        cvec, w = CONTINUATIONS[cls](tuple(args), gains, costs, rels)
        cvec = np.ascontiguousarray(cvec)
        n = gains.shape[1]
        prod = np.ones(cvec.shape)
        prod[:, 1:] = np.cumprod(cvec[:, :n - 1], axis=1)     # prod_{j<i} C(j)
        if w is None:
            w1 = np.divide(1.0, np.sum(prod, axis=1))
            w = np.multiply(prod, w1[:, None])
            w[:, 0] = w1
        lvec = np.multiply(prod, np.subtract(1.0, cvec))
        out = np.empty((len(gains), 5))
        out[:, 0] = _rowdot(w, gains)
        out[:, 1] = _rowdot(lvec, np.cumsum(gains, axis=1))
        out[:, 2] = _rowdot(w, costs)
        out[:, 3] = _rowdot(lvec, np.cumsum(costs, axis=1))
        out[:, 4] = 1.0 / w[:, 0]
    return out


def check_args(cls: str, args: tuple, n: int) -> Optional[str]:
    """Why cwl_eval cannot evaluate ``cls(*args)`` on rankings of n documents, or None.

    Why cwl_eval cannot evaluate ``cls(*args)`` on rankings of n documents (it would stop
    with a numpy error), or None.
    """
    if cls == "PrecisionCWLMetric" and not 1 <= args[0] <= n + 1:
        return f"k must lie in [1, --max_depth + 1 = {n + 1}]"
    if cls == "UMeasureCWLMetric" and n < 2:
        return "the U-measure needs --max_depth >= 2 (cwl_eval gives its last rank no weight)"
    return None


def unit_gain_problem(cls: str, gains: np.ndarray) -> Optional[float]:
    """The first gain outside [0, 1] of a class that refuses them, or None.

    The first gain outside [0, 1] of a class that refuses them (cwl_eval's
    ``validate_gain_range``), or None.
    """
    if cls not in UNIT_GAIN_CLASSES or gains.size == 0:
        return None
    bad = (gains < 0.0) | (gains > 1.0)
    return float(gains[bad][0]) if bad.any() else None
