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
sums, one BLAS ``ddot`` per ranking, as ``np.dot`` of two vectors), elementwise +, -, *, /
(exact in IEEE arithmetic, so vectorising them changes nothing) and, for pow, exp and log,
Python's own functions (``math.pow``, ``x ** y``: the C library's) on every argument (numpy's
vectorised ``power`` and ``log`` round differently from the C library on some CPUs, and
``x ** 2.0`` is not ``x * x``).

What is computed once and shared (it is the same value every time, so sharing it changes no
bit): per case (:class:`Case`: the gains and costs of a chunk of rankings in the worst or the
best case) the cumulated gains and costs and the terms two metrics have in common (IFT's C1 and
C2, for IFTGoal, IFTRate and IFTGoalRate with the same parameters); for a metric whose C(i) is
the same for every ranking (P, RBP, NPV, NDCG, INSQ, SET), C, W and L are computed on one
vector. The dot products of all rankings are one ``np.vecdot`` (numpy >= 2: the same ``ddot``
per ranking, one call from Python), and the C library's functions are mapped over the cells
from C (``map``) instead of a Python loop.

Each function takes a :class:`Case` (the worst or the best case: unjudged and missing documents
already replaced, as cwl_eval's ``Ranking`` does, and ``rels``, per ranking the R that TrAP
divides by). Pure numpy in, numpy out; the command's reading, checking and printing are in
:mod:`ir_cwla.app.cwl`.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from itertools import repeat
from typing import Any, Optional

import numpy as np
from numpy.lib.stride_tricks import as_strided

#: cwl_eval's metric classes that refuse gains outside [0, 1] (their ``MINGAIN``, ``MAXGAIN``).
UNIT_GAIN_CLASSES = frozenset({"INSTCWLMetric", "NERReq8CWLMetric", "NERReq9CWLMetric", "NERReq10CWLMetric",
                               "NERReq11CWLMetric"})

_LN2 = math.log(2.0, math.e)        # TBG's integral_decay divides by it


class Case:
    """The rankings of one case, worst or best, and what the metrics computed on them share.

    ``gains`` and ``costs`` are (rankings x n) matrices, unjudged and missing documents already
    replaced (cwl_eval's ``Ranking.get_gain_vector`` / ``get_cost_vector`` of each ranking);
    ``rels`` is per ranking the R that TrAP divides by. :meth:`shared` computes a value once
    per case (the cumulated gains and costs, IFT's terms), which every metric then reads;
    :meth:`shared_by_costs` a value that depends on the costs only, once for every case of
    the same costs (``like``: another case of the same rankings, whose costs are compared: the
    worst and the best case have the same costs wherever --min_cost = --max_cost, or the cost
    file's ``*`` prices the missing and unpriced documents).
    """

    def __init__(self, gains: np.ndarray, costs: np.ndarray, rels: Optional[np.ndarray] = None,
                 like: Optional[Case] = None):
        self.gains = np.ascontiguousarray(gains, dtype=np.float64)
        self.costs = np.ascontiguousarray(costs, dtype=np.float64)
        self.rels = np.zeros(len(self.gains)) if rels is None else np.asarray(rels, dtype=np.float64)
        self._shared: dict[Any, Any] = {}
        same_costs = like is not None and like.costs.shape == self.costs.shape and \
            bool((like.costs == self.costs).all())
        self._by_costs: dict[Any, Any] = like._by_costs if same_costs and like is not None else {}

    @property
    def shape(self) -> tuple[int, int]:
        """(rankings, n)."""
        return self.gains.shape

    def shared(self, key: Any, make: Callable[[], Any]) -> Any:
        """``make()``, computed the first time ``key`` is asked for in this case (do not modify it)."""
        if key not in self._shared:
            self._shared[key] = make()
        return self._shared[key]

    def shared_by_costs(self, key: Any, make: Callable[[], Any]) -> Any:
        """:meth:`shared` of a value ``make`` computes from the costs alone, shared with the cases of equal costs."""
        if key not in self._by_costs:
            self._by_costs[key] = make()
        return self._by_costs[key]

    @property
    def cum_gains(self) -> np.ndarray:
        """CG(i) of every ranking (``np.cumsum`` of its gains, as cwl_eval)."""
        return self.shared("cum_gains", lambda: np.cumsum(self.gains, axis=1))

    @property
    def cum_costs(self) -> np.ndarray:
        """CC(i) of every ranking (``np.cumsum`` of its costs)."""
        return self.shared_by_costs("cum_costs", lambda: np.cumsum(self.costs, axis=1))


# ----------------------------------------------------------------------- the C library's functions, cell by cell

def _cells(values: np.ndarray, fast: Callable[[list], Any], slow: Callable[[float], float]) -> np.ndarray:
    """A function of every cell of ``values``, each computed by the C library as cwl_eval computes it.

    ``fast`` maps a list of Python floats to an iterator of the results (``map`` over a builtin:
    no Python frame per cell); where it raises (an overflow, a domain error), every cell is
    computed by ``slow`` instead, one Python call each, which returns what cwl_eval's arithmetic
    leads to or raises its error. Both compute the same function of each cell.
    """
    flat = values.ravel().tolist()
    try:
        out = np.fromiter(fast(flat), dtype=np.float64, count=len(flat))
    except (OverflowError, ValueError, ZeroDivisionError):
        out = np.array([slow(v) for v in flat], dtype=np.float64)
    return out.reshape(values.shape)


def _runs(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first cell of each run of equal cells (row by row, then across rows) and each cell's run.

    A function of ``values`` computed on the first cells and spread by the run numbers is the
    function of every cell (CG(i) stays the same between judged relevant documents, so
    functions of CG(i) have few runs).
    """
    flat = values.ravel()
    change = np.empty(flat.size, dtype=bool)
    change[:1] = True
    np.not_equal(flat[1:], flat[:-1], out=change[1:])
    return flat[change], np.cumsum(change) - 1


def _square(values: np.ndarray) -> np.ndarray:
    """``x ** 2.0`` of every cell (Python's float power: the C library's ``pow``, not ``x * x``).

    Computed once per run of equal cells (:func:`_runs`: INST's base repeats along a ranking
    wherever each document adds a gain of 1, as unjudged ones do in the best case).
    """
    heads, run = _runs(values)
    return _cells(heads, lambda xs: map(pow, xs, repeat(2.0)), lambda x: x ** 2.0)[run].reshape(values.shape)


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


def _ift_term(b: float, x: np.ndarray, goal: bool) -> np.ndarray:
    """IFT's C1 (``goal``: 1 - (1 + b e^x)^-1) or C2 ((1 + b e^x)^-1) of every cell of x.

    As cwl_eval's ``c1_func`` / ``c2_func``: ``math.pow(math.e, x)``, ``1.0 + b * p`` and
    ``math.pow(ex, -1.0)`` on Python floats, here stage by stage over every cell (the
    products and sums in numpy, the same IEEE operations). Cells are computed once per run of
    equal values (:func:`_runs`).
    """
    heads, run = _runs(x)

    def slow(v: float) -> float:
        q = math.pow(_one_plus(b, _pow_e(v)), -1.0)
        return 1.0 - q if goal else q

    try:
        count = len(heads)
        p = np.fromiter(map(math.pow, repeat(math.e), heads.tolist()), dtype=np.float64, count=count)
        bf = float(b)
        ex = 1.0 + bf * p if bf != 0.0 else np.ones(count)
        q = np.fromiter(map(math.pow, ex.tolist(), repeat(-1.0)), dtype=np.float64, count=count)
        out = 1.0 - q if goal else q
    except (OverflowError, ValueError, ZeroDivisionError):
        out = np.array([slow(v) for v in heads.tolist()], dtype=np.float64)
    return out[run].reshape(x.shape)


def _prefix(mask: np.ndarray) -> np.ndarray:
    """1 up to the first False of each row (cwl_eval's ``while ... : c[i] = 1``), then 0."""
    return np.logical_and.accumulate(mask, axis=1).astype(np.float64)


# ----------------------------------------------------------------------- C(i) of each class
# each: (args, case) -> (C, W or None); W None: the generic W of C. A 1-d C is the C of every
# ranking (it does not depend on the gains or costs).

def _precision(args: tuple, case: Case) -> tuple:
    (k,) = args
    cvec = np.zeros(case.shape[1])
    cvec[:int(k) - 1] = 1.0          # (k is whole, ir_cwla.app.cwl._whole: 10.0 is read as 10)
    return cvec, None


def _rbp(args: tuple, case: Case) -> tuple:
    theta = args[0] if args else 0.9
    return np.dot(np.ones(case.shape[1]), theta), None


def _npv(args: tuple, case: Case) -> tuple:
    rate = args[0] if args else 0.1
    return np.dot(np.ones(case.shape[1]), (1.0 / (1.0 + rate))), None


def _rr(args: tuple, case: Case) -> tuple:
    return _prefix(~(case.gains > 0)), None


@lru_cache(maxsize=64)
def _dcg_c(k: int, n: int) -> np.ndarray:
    return np.array([math.log(i + 1, 2.0) / math.log(i + 2, 2.0) if i < k else 0.0 for i in range(1, n + 1)])


def _ndcg(args: tuple, case: Case) -> tuple:
    return _dcg_c(args[0], case.shape[1]), None


def _ap(args: tuple, case: Case) -> tuple:
    """AP's continuation as cwl_eval computes it, vectorised over rankings.

    C(i) = S(i+1) / S(i), S(i) = sum_{j>=i} r_j / j, each S the pairwise ``np.sum`` of the
    suffix (as cwl_eval's loop: :func:`_suffix_sums`), vectorised over rankings.
    """
    g = case.gains
    rows, n = g.shape
    rii = g / np.arange(1, n + 1)
    nonzero = np.flatnonzero((rii != 0).any(axis=0))
    last = int(nonzero[-1]) + 1 if len(nonzero) else 0       # suffixes past it sum to 0
    sums = _suffix_sums(rii, last)
    cvec = np.zeros((rows, n))
    top, bot = sums[:, 1:n], sums[:, :n - 1]
    positive = top > 0.0
    np.divide(top, bot, out=cvec[:, :n - 1], where=positive)
    return cvec, None


#: numpy's pairwise summation sums blocks of up to this many numbers directly, longer runs as two halves.
_PAIRWISE_BLOCK = 128


def _suffix_sums(a: np.ndarray, last: int) -> np.ndarray:
    """S[:, i] = ``np.sum(a[:, i:n], axis=1)`` for every i < ``last`` (0 from there on; ``a`` is 0 past ``last``).

    The same numbers as one ``np.sum`` per suffix, with half the additions: numpy sums a run of
    m > 128 numbers (pairwise summation) as the sum of its first h and of its last m - h, h = m//2
    rounded down to a multiple of 8, and the last m - h are the suffix S[:, i + h] computed
    before, so S[:, i] = ``np.sum(a[:, i:i+h], axis=1)`` + S[:, i + h], exactly. The 16
    consecutive suffixes that share an h are summed in one call (a strided view of their first
    h numbers). Where numpy is found to sum otherwise (:func:`_pairwise_splits`), one
    ``np.sum`` per suffix.
    """
    rows, n = a.shape
    sums = np.zeros((rows, n + 1))
    stop = min(last, n)
    if not _pairwise_splits():
        for i in range(stop):
            sums[:, i] = np.sum(a[:, i:n], axis=1)
        return sums
    tail = max(n - _PAIRWISE_BLOCK, 0)          # suffixes of at most 128 numbers: summed whole
    for i in range(stop - 1, tail - 1, -1):
        sums[:, i] = np.sum(a[:, i:n], axis=1)
    i = min(stop, tail) - 1
    row_stride, stride = a.strides
    while i >= 0:
        m = n - i
        h = m // 2 - (m // 2) % 8
        first = max(n - 2 * h - 15, 0)          # the suffixes of 2h .. 2h + 15 numbers share h
        heads = as_strided(a[:, first:], shape=(rows, i - first + 1, h), strides=(row_stride, stride, stride))
        sums[:, first:i + 1] = np.sum(heads, axis=2) + sums[:, first + h:i + 1 + h]
        i = first - 1
    return sums


@lru_cache(maxsize=1)
def _pairwise_splits() -> bool:
    """True if numpy sums as :func:`_suffix_sums` relies on (checked once, on numbers whose sums round).

    A run of m > 128 numbers sums to the sum of its first h (m//2 rounded down to a multiple of
    8) plus the sum of the rest, and ``np.sum`` over the last axis of a strided view of windows
    is one pairwise sum per window.
    """
    n = 1100
    a = np.vstack([(np.arange(n) * 0.6180339887498949) % 1.0, (np.arange(n) * 0.41421356237309515) % 1.0]) / 7.0
    for m in (129, 136, 143, 255, 256, 700, 1000, n):
        h = m // 2 - (m // 2) % 8
        suffix = a[:, n - m:]
        if not (np.sum(suffix, axis=1) == np.sum(suffix[:, :h], axis=1) + np.sum(suffix[:, h:], axis=1)).all():
            return False
    heads = as_strided(a, shape=(2, 16, 300), strides=(a.strides[0], a.strides[1], a.strides[1]))
    each = np.array([[np.sum(a[r, b:b + 300]) for b in range(16)] for r in range(2)])
    return bool((np.sum(heads, axis=2) == each).all())


def _trap(args: tuple, case: Case) -> tuple:
    """TrAP's weights as cwl_eval computes them.

    W(i) = CG(i) / CC(i) / R (R > 0), leading CG(i) = 0 read as 1 but the last; C(i) = W(i+1) / W(i).
    """
    c_costs = case.cum_costs
    c_gains = case.cum_gains.copy()
    lead = c_gains == 0
    lead[:, -1] = False
    c_gains[lead] = 1.0
    w = np.divide(c_gains, c_costs)
    rels = case.rels
    scaled = rels > 0
    w[scaled] = w[scaled] / rels[scaled][:, None]
    return _ratio_c(w), w


def _ratio_c(w: np.ndarray) -> np.ndarray:
    """C(i) = W(i+1) / W(i) where W(i) > 0, else 0; C(n) = 0 (TrAP, TBG, U)."""
    cvec = np.zeros(w.shape)
    np.divide(w[:, 1:], w[:, :-1], out=cvec[:, :-1], where=w[:, :-1] > 0.0)
    return cvec


def _inst(args: tuple, case: Case) -> tuple:
    T = args[0] if args else 1.0
    ti = T - case.cum_gains
    i1 = np.arange(case.shape[1]) + 1.0
    base = (((i1 + T) + ti) - 1.0) / ((i1 + T) + ti)
    return _square(base), None


@lru_cache(maxsize=64)
def _insq_c(T: float, n: int) -> np.ndarray:
    return np.array([(((i + 1.0) + (2.0 * T) - 1.0) / ((i + 1.0) + (2.0 * T))) ** 2.0 for i in range(n)])


def _insq(args: tuple, case: Case) -> tuple:
    return _insq_c(args[0] if args else 1.0, case.shape[1]), None


def _tbg(args: tuple, case: Case) -> tuple:
    """W(i) = D(CC(i-1)) / sum_j D(CC(j-1)), D(x) = h 2^(-x/h) / ln 2 (CC(0) = 0): the costs' alone."""
    h = args[0] if args else 224
    return case.shared_by_costs(("TBG", h), lambda: _tbg_weights(h, case.cum_costs))


def _tbg_weights(h: float, c_costs: np.ndarray) -> tuple:
    decay = np.empty(c_costs.shape)
    decay[:, 0] = (h * (2.0 ** (-0.0 / h))) / _LN2
    powers = _cells(-c_costs[:, :-1] / h, lambda xs: map(pow, repeat(2.0), xs), lambda x: 2.0 ** x)
    decay[:, 1:] = (h * powers) / _LN2
    norm = np.cumsum(decay, axis=1)[:, -1]
    w = np.divide(decay, norm[:, None])
    return _ratio_c(w), w


def _umeasure(args: tuple, case: Case) -> tuple:
    """W(i) = max(0, 1 - CC(i-1) / L) / norm for i < n, W(n) = 0 (CC(0) = 0): the costs' alone."""
    L = args[0] if args else 1000
    return case.shared_by_costs(("U", L), lambda: _u_weights(L, case.cum_costs))


def _u_weights(L: float, c_costs: np.ndarray) -> tuple:
    weight = np.zeros(c_costs.shape)
    weight[:, 0] = max(0.0, (1.0 - (0 / L)))
    decay = 1.0 - (c_costs[:, :-2] / L)
    weight[:, 1:-1] = np.where(decay > 0.0, decay, 0.0)
    norm = np.cumsum(weight[:, :-1], axis=1)[:, -1]
    w = np.divide(weight, norm[:, None])
    return _ratio_c(w), w


def _bpm(args: tuple, case: Case) -> tuple:
    T, K = (list(args) + [1.0, 10][len(args):])[:2]
    return _prefix(case.cum_gains < T) * _prefix(case.cum_costs < K), None


def _bpmd(args: tuple, case: Case) -> tuple:
    """The gain budget moves, T(i+1) = T(i) + hb (r_i - gain_med).

    The cost budget K does not (cwl_eval's cost loop updates T instead of K, so
    hc has no effect).
    """
    T, K, hb, hc, med = (list(args) + [1, 10, 1.0, 1.0, 0.5][len(args):])[:5]
    g = case.gains
    steps = hb * (g - med)
    budget = np.cumsum(np.concatenate([np.full((g.shape[0], 1), T), steps[:, :-1]], axis=1), axis=1)
    return _prefix(case.cum_gains < budget) * _prefix(case.cum_costs < K), None


def _c1(T: float, b1: float, R1: float, case: Case) -> np.ndarray:
    return case.shared(("IFT C1", T, b1, R1), lambda: _ift_term(b1, (T - case.cum_gains) * R1, goal=True))


def _c2(A: float, b2: float, R2: float, case: Case) -> np.ndarray:
    def make() -> np.ndarray:
        rate = case.shared("gain rate", lambda: case.cum_gains / case.cum_costs)
        return _ift_term(b2, (A - rate) * R2, goal=False)

    return case.shared(("IFT C2", A, b2, R2), make)


def _ift_goal(args: tuple, case: Case) -> tuple:
    T, b1, R1 = args
    return _c1(T, b1, R1, case), None


def _ift_rate(args: tuple, case: Case) -> tuple:
    A, b2, R2 = args
    return _c2(A, b2, R2, case), None


def _ift(args: tuple, case: Case) -> tuple:
    T, b1, R1, A, b2, R2 = args
    return _c1(T, b1, R1, case) * _c2(A, b2, R2, case), None


def _nerr8(args: tuple, case: Case) -> tuple:
    (k,) = args
    g = case.gains
    cvec = np.zeros(g.shape)
    m = max(min(g.shape[1], k - 1), 0)
    cvec[:, :m] = 1 - g[:, :m]
    return cvec, None


def _nerr9(args: tuple, case: Case) -> tuple:
    (k,) = args
    g = case.gains
    cvec = np.zeros(g.shape)
    m = max(min(g.shape[1], k - 1), 0)
    rank = np.arange(1, m + 1)
    cvec[:, :m] = ((1.0 * rank) / (rank + 1.0)) * (1.0 - g[:, :m])
    return cvec, None


def _nerr10(args: tuple, case: Case) -> tuple:
    phi = args[0] if args else 0.9
    return phi * (1 - case.gains), None


@lru_cache(maxsize=64)
def _nerr11_c(T: float, n: int) -> np.ndarray:
    return np.array([((rank + (2.0 * T) - 1.0) / (rank + (2.0 * T))) ** 2.0 for rank in range(1, n + 1)])


def _nerr11(args: tuple, case: Case) -> tuple:
    return _nerr11_c(args[0] if args else 1.0, case.shape[1]) * (1.0 - case.gains), None


@lru_cache(maxsize=64)
def _set_c(beta: float, k: int, n: int) -> np.ndarray:
    def weight(i: int) -> float:
        return math.pow(i + 1, beta) - math.pow(i, beta)

    return np.array([weight(i + 1) / weight(i) if i < k else 0.0 for i in range(1, n + 1)])


def _set(args: tuple, case: Case) -> tuple:
    beta, k = (list(args) + [0.5, 10][len(args):])[:2]
    return _set_c(beta, k, case.shape[1]), None


CONTINUATIONS: dict[str, Callable[..., tuple]] = {
    "PrecisionCWLMetric": _precision, "RBPCWLMetric": _rbp, "NDCGCWLMetric": _ndcg, "RRCWLMetric": _rr,
    "APCWLMetric": _ap, "TrAPCWLMetric": _trap, "INSTCWLMetric": _inst, "INSQCWLMetric": _insq,
    "TBGCWLMetric": _tbg, "UMeasureCWLMetric": _umeasure, "BPMCWLMetric": _bpm, "BPMDCWLMetric": _bpmd,
    "IFTGoalCWLMetric": _ift_goal, "IFTRateCWLMetric": _ift_rate, "IFTGoalRateCWLMetric": _ift,
    "NERReq8CWLMetric": _nerr8, "NERReq9CWLMetric": _nerr9, "NERReq10CWLMetric": _nerr10,
    "NERReq11CWLMetric": _nerr11, "NPVCWLMetric": _npv, "SETCWLMetric": _set,
}
"""cwl_eval's ``c_vector`` (and ``w_vector`` where a class defines its own) of each metric class."""


def _rowdot_loop(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """One ``np.dot`` per row (a 1-d ``a`` with every row of ``b``): BLAS ``ddot``, as cwl_eval's."""
    rows = np.broadcast_to(a, b.shape)
    return np.array([np.dot(x, y) for x, y in zip(rows, b)], dtype=np.float64).reshape(len(b))


def _rowdot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The dot product of each row of ``a`` (or of a 1-d ``a``) with each row of ``b``, as cwl_eval's.

    cwl_eval takes one ``np.dot`` of two vectors per ranking, which is BLAS ``ddot`` (a matrix
    product would sum in another order). ``np.vecdot`` (numpy >= 2) calls the same ``ddot`` on
    each row of contiguous float64 rows, in one call from Python; older numpy loops.
    """
    if _VECDOT is None:
        return _rowdot_loop(a, b)
    return _VECDOT(np.ascontiguousarray(a, dtype=np.float64), np.ascontiguousarray(b, dtype=np.float64))


_VECDOT: Optional[Callable[..., np.ndarray]] = getattr(np, "vecdot", None)


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
    return case_expectations(cls, args, Case(gains, costs, rels))


def case_expectations(cls: str, args: tuple, case: Case) -> np.ndarray:
    """:func:`expectations` of the rankings of a :class:`Case`, sharing what its other metrics compute too."""
    gains, costs = case.gains, case.costs
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        cvec, w = CONTINUATIONS[cls](tuple(args), case)
        cvec = np.ascontiguousarray(cvec, dtype=np.float64)
        n = gains.shape[1]
        prod = np.ones(cvec.shape)
        prod[..., 1:] = np.cumprod(cvec[..., :n - 1], axis=-1)     # prod_{j<i} C(j)
        if w is None:
            w1 = np.divide(1.0, np.sum(prod, axis=-1))
            w = np.multiply(prod, w1[..., None])
            w[..., 0] = w1
        lvec = np.multiply(prod, np.subtract(1.0, cvec))
        out = np.empty((len(gains), 5))
        out[:, 0] = _rowdot(w, gains)
        out[:, 1] = _rowdot(lvec, case.cum_gains)
        out[:, 2] = _rowdot(w, costs)
        out[:, 3] = _rowdot(lvec, case.cum_costs)
        out[:, 4] = 1.0 / w[..., 0]
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
