"""The browsing models of cwl_eval that :mod:`ir_cwla.measures._browsing` does not define.

The browsing models of cwl_eval that :mod:`ir_cwla.measures._browsing` does not define, registered
like the built-in ones, so that every aggregation (and both tails) works with them.

cwl_eval (Azzopardi, Thomas & Moffat, "cwl_eval: An Evaluation Tool for Information
Retrieval", SIGIR 2019) implements each metric as a continuation vector C(i) over a ranking
cut or padded to 1000 documents and reports its expected utility EU = sum_i W(i) r_i, which
is ``CWLA(C=..., A='ERG')@1000`` under ``tail='stop'`` (TrAP: under ``tail='pad'``). The
models here are those C(i), as pure functions of the (topics x ranks) gain matrix and, for
the models marked *costs*, of the matrix of document costs c_i (:mod:`ir_cwla.measures._costs`; 1
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

Tails (the ranks past the ranking: under tail='pad', or a cutoff deeper than the ranking): NPV,
NERR10 and TBG are geometric (RBP's closed form), NERR11 is INSQ's, NERR8 P's, IFTgoal
geometric with a per-topic ratio; NERR9 and SET have closed forms (V ~ 1/i, V ~ w(i)), U falls
linearly to 0 and BPM, BPMD are flat until a budget runs out (everyone stops within a number of
ranks known in advance), IFTrate and IFT converge to a geometric decay and are summed rank by
rank until V is negligible. None builds a matrix as wide as the cutoff: a cutoff of 10^9 costs
what the ranking costs.
"""
from __future__ import annotations

import math
from typing import Optional, Union

import numpy as np

from ir_cwla.errors import KernelError
from ir_cwla.measures._browsing import MAX_T, TARGET, register_browsing_model
from ir_cwla.measures._params import Param, Params
from ir_cwla.measures._tails import (
    BrowsingInput,
    TailInput,
    TailSums,
    ap_like_tail,
    flat_tail,
    insq_tail,
    lerch_phi_1,
    precision_tail,
    ranks,
    rbp_tail,
)


def _cutoff_mask(gains: np.ndarray, params: Params) -> np.ndarray:
    """True for ranks i < k (the model may go on), False from rank k on."""
    return (ranks(gains.shape[1]) < int(params["cutoff"]))[None, :]


#: Below this q = 1 - C, geometric tails take their sums from q itself, not from 1 - q.
SMALL_Q = 1e-3


def _per_topic_geometric_tail(inp: TailInput, q: np.ndarray) -> TailSums:
    """A geometric tail per topic past E, C = 1 - q[t], with q given exactly.

    Past E, C = 1 - q[t] for topic t (a geometric tail per topic), with q given exactly
    (it may be far below the spacing of floats near 1): RBP's closed form for the sums over
    L, and the expected depth from q itself, sum V = V(E+1) (1 - (1-q)^h) / q (h ranks; V(E+1)
    / q under 'pad'); for small q, sum L(i) / i = V(E+1) q Phi(1-q, 1, E+1) (minus its part from
    a last rank b on, plus V(b) / b) with Lerch's Phi computed from q (even where 1 - q rounds to 1).
    """
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
                inv = rbp_tail(sub, {"p": 1.0 - float(value)}).inverse_rank
        else:                                        # 1 - q is not precise enough: Phi from q itself
            b = n + h - 1
            left = np.exp((h - 1) * np.log1p(-value))
            phi_n = lerch_phi_1(1.0 - value, n, q=float(value))
            phi_b = lerch_phi_1(1.0 - value, np.maximum(b, 1.0), q=float(value))
            inv = np.where(bounded, np.where(some, v * value * (phi_n - left * phi_b) + v * left / np.maximum(b, 1.0),
                                             0.0), v * value * phi_n)
        stop = np.where(bounded & ~some, 0.0, v)
        with np.errstate(divide="ignore", invalid="ignore"):     # q = 1: (1 - q)^h = 0
            depth = np.where(bounded, np.where(some, v * -np.expm1(h * np.log1p(-value)) / value, 0.0), v / value)
        for part, got in zip(parts, (stop, depth, inv, sub.depth * stop + depth)):
            part[rows] = got
    return TailSums(*parts)


# ------------------------------------------------------------------------------ finite tails
#
# Past E (the last rank a row's matrix holds) every gain is 0 and every document costs
# ``pad_cost``; ``horizon`` ranks are looked at (inf under tail='pad'; D - E under 'stop', the
# user stopping at D at the latest). The models below reach a closed form there (NERR9, SET,
# U), or everybody stops within a number of ranks known in advance (BPM, BPMD: a flat tail), or
# C converges geometrically and is summed rank by rank until V is negligible (IFTrate, IFT):
# the work depends on the rankings, never on the cutoff.

#: Up to this many ranks, the sums of a stretch are taken term by term (no cancellation).
DIRECT_SPAN = 256


def _span_terms(a: np.ndarray, n: np.ndarray, f) -> np.ndarray:
    """sum_{j=a..a+n-1} f(j) per row, term by term (n <= DIRECT_SPAN)."""
    m = np.arange(DIRECT_SPAN, dtype=np.float64)[None, :]
    j = a[:, None] + m
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(m < n[:, None], f(np.maximum(j, 1.0)), 0.0)
    return terms.sum(axis=1)


def _psi_diff(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """psi(y) - psi(x) for y >= x >= 1 (digamma).

    scipy's where x <= 50, else the asymptotic expansion of the difference (log1p and
    inverse powers, no cancellation of large logs).
    """
    from scipy import special  # here, not at the top: ``import ir_cwla`` loads no scipy

    out = np.empty_like(x)
    small = x <= 50
    out[small] = special.digamma(y[small]) - special.digamma(x[small])
    xb, yb = x[~small], y[~small]
    series = 0.0
    for k, coef in ((1, 0.5), (2, 1 / 12), (4, -1 / 120), (6, 1 / 252)):
        series = series + coef * (xb ** -k - yb ** -k)
    out[~small] = np.log1p((yb - xb) / xb) + series
    return out


def _harmonic_span(a: np.ndarray, n: np.ndarray) -> np.ndarray:
    """sum_{j=a..a+n-1} 1 / j (0 for n = 0)."""
    direct = n <= DIRECT_SPAN
    out = np.zeros_like(a)
    if direct.any():
        out[direct] = _span_terms(a[direct], n[direct], lambda j: 1.0 / j)
    if (~direct).any():
        out[~direct] = _psi_diff(a[~direct], a[~direct] + n[~direct])
    return out


def _inv_sq_tail(a: np.ndarray) -> np.ndarray:
    """sum_{j>=a} 1 / (j^2 (j+1)) = psi1(a) - 1/a (its asymptotic series beyond a = 100)."""
    from scipy import special

    out = np.empty_like(a)
    small = a <= 100
    out[small] = special.polygamma(1, a[small]) - 1.0 / a[small]
    ab = a[~small]
    out[~small] = 1 / (2 * ab**2) + 1 / (6 * ab**3) - 1 / (30 * ab**5) + 1 / (42 * ab**7) - 1 / (30 * ab**9)
    return out


def _horizon(inp: TailInput, limit: Optional[np.ndarray] = None) -> np.ndarray:
    """Ranks looked at past E (at most ``limit``, e.g. up to a model's own cutoff), >= 0."""
    h = inp.horizon if limit is None else np.minimum(inp.horizon, limit)
    return np.maximum(h, 0.0)


def _spent(inp: TailInput) -> np.ndarray:
    """CC(E), the cost of the E documents each row's matrix holds (1 each without costs)."""
    e = inp.depth.astype(np.int64)
    if inp.costs is None or not inp.costs.shape[1]:
        return e.astype(np.float64) if inp.costs is None else np.zeros(len(e))
    cc = np.cumsum(inp.costs, axis=1)
    return np.where(e > 0, cc[np.arange(len(e)), np.maximum(e - 1, 0)], 0.0)


def _nerr9_tail(inp: TailInput, params: Params) -> TailSums:
    """NERR9 past E.

    C(j) = j / (j+1) below k, so V(j) = V(a) a / j for j = a..b (a = E+1, b = min(k, E +
    horizon)), where everyone left stops. sum V = V(a) a (H_b - H_{a-1}); sum L(j) / j = V(a) a
    [sum_{j=a}^{b-1} 1 / (j^2 (j+1)) + 1 / b^2] (L(j) = V(a) a / (j (j+1)) below b).
    """
    k = float(params["cutoff"])
    h = np.floor(_horizon(inp, k - inp.depth))
    v = inp.v_next
    active = (h >= 1) & (v > 0)
    z = np.zeros_like(v)
    stop, depth, inv = z.copy(), z.copy(), z.copy()
    if active.any():
        a = inp.depth[active].astype(np.float64) + 1
        n = h[active]
        b = a + n - 1
        va = v[active]
        near = n - 1 <= DIRECT_SPAN
        s2 = np.empty_like(a)
        s2[near] = _span_terms(a[near], n[near] - 1, lambda j: 1.0 / (j * j * (j + 1)))
        s2[~near] = _inv_sq_tail(a[~near]) - _inv_sq_tail(b[~near])
        stop[active] = va
        depth[active] = va * a * _harmonic_span(a, n)
        inv[active] = va * a * (s2 + 1.0 / b**2)
    return TailSums(stop, depth, inv)


def _set_w(x, e: float):
    """w(x) = (x+1)^e - x^e of SET, as x^e expm1(e log1p(1/x)) (no cancellation for large x)."""
    return x ** e * np.expm1(e * np.log1p(1.0 / x))


def _set_tail(inp: TailInput, params: Params) -> TailSums:
    """SET past E.

    V(j) = V(a) w(j) / w(a) for j = a..b (a = E+1, b = min(k, E + horizon)), where everyone left
    stops. sum V telescopes: V(a) ((b+1)^e - a^e) / w(a); sum L(j) / j = V(a) / a -
    sum_{j=a+1..b} V(j) / (j (j-1)) (summation by parts, as DCG's), summed by :func:`range_sum`
    (term by term for the first 65,536 ranks, then Euler-Maclaurin).
    """
    from ir_cwla.measures._tails import range_sum

    k = float(params["cutoff"])
    e = float(params["exponent"])
    h = np.floor(_horizon(inp, k - inp.depth))
    v = inp.v_next
    active = (h >= 1) & (v > 0)
    z = np.zeros_like(v)
    stop, depth, inv = z.copy(), z.copy(), z.copy()
    if active.any():
        a = inp.depth[active].astype(np.float64) + 1
        b = a + h[active] - 1
        va = v[active]
        wa = _set_w(a, e)

        def f(x):
            return _set_w(x, e) / (x * (x - 1.0))

        def df(x):
            dw = e * x ** (e - 1) * np.expm1((e - 1) * np.log1p(1.0 / x))    # w'(x) = e ((x+1)^(e-1) - x^(e-1))
            return (dw * (x * x - x) - _set_w(x, e) * (2 * x - 1)) / (x * x - x) ** 2

        pairs, where = np.unique(np.stack([a, b]), axis=1, return_inverse=True)
        sums = np.array([range_sum(f, df, int(pa) + 1, int(pb)) for pa, pb in pairs.T])[where.ravel()]
        stop[active] = va
        depth[active] = va * a ** e * np.expm1(e * np.log1p((b + 1 - a) / a)) / wa
        inv[active] = va / a - va / wa * sums
    return TailSums(stop, depth, inv)


def _u_tail(inp: TailInput, params: Params) -> TailSums:
    """U past E.

    V(E+1+m) = u(CC(E) + m c) = V(E+1) - m c / L (c the padding cost) while > 0, so V falls
    linearly to 0 within M = ceil(V(E+1) L / c) ranks (or the horizon): n ranks with sum V = n
    V(E+1) - (c/L) n (n-1) / 2, L(j) = c/L but at the last rank (V there), so sum L(j)/j = (c/L)
    sum_{j=a}^{a+n-2} 1/j + V_last / (a+n-1); everyone stops within them.
    """
    slope = inp.pad_cost / float(params["L"])
    v = inp.v_next
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        natural = np.where(v > 0, np.ceil(v / slope), 0.0)
    n = np.floor(np.minimum(_horizon(inp), natural))
    active = (n >= 1) & (v > 0)
    z = np.zeros_like(v)
    stop, depth, inv = z.copy(), z.copy(), z.copy()
    if active.any():
        a = inp.depth[active].astype(np.float64) + 1
        na, va = n[active], v[active]
        last = va - (na - 1) * slope
        stop[active] = va
        depth[active] = na * va - slope * na * (na - 1) / 2
        inv[active] = slope * _harmonic_span(a, na - 1) + last / (a + na - 1)
    return TailSums(stop, depth, inv)


def _first_failure(budget: np.ndarray, slope: np.ndarray) -> np.ndarray:
    """The smallest m >= 1 with m * slope >= budget (inf if there is none)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        m = np.where(slope > 0, np.maximum(1.0, np.ceil(budget / np.where(slope > 0, slope, 1.0))),
                     np.where(slope >= budget, 1.0, np.inf))
    return m


def _budget_tail(inp: TailInput, T: float, K: float, hb: float, hc: float, gain_med: float) -> TailSums:
    """BPM(D) past E.

    CG stays CG(E) and each padding document costs c, and both budgets move by -h gain_med per
    rank (BPMD; h = 0 for BPM): C = 1 while CG(E) < T_{E+m} and CC(E) + m c < K_{E+m}, both linear
    in m, so everyone left stops at the first rank m* that breaks one (a flat tail of m* ranks),
    or never, where neither budget ever runs out (V+ infinite under 'pad').
    """
    cg, cc = inp.cg, _spent(inp)
    e = inp.depth.astype(np.float64)
    t_next = T + hb * (cg - gain_med * e)          # T_{E+1}, K_{E+1}: each rank moved them by h (r - gain_med)
    k_next = K + hc * (cg - gain_med * e)
    # CG(E) < T_{E+1} - hb gm (m-1)  <=>  (m-1) hb gm < T_{E+1} - CG(E)
    goal = 1 + _first_failure(t_next - cg, np.full_like(cg, hb * gain_med))
    goal = np.where(t_next - cg <= 0, 1.0, goal)
    # CC(E) + m c < K_{E+1} - hc gm (m-1)  <=>  m (c + hc gm) < K_{E+1} - CC(E) + hc gm
    cost = _first_failure(k_next - cc + hc * gain_med, np.full_like(cg, inp.pad_cost + hc * gain_med))
    ends = np.minimum(goal, cost)
    h = _horizon(inp)
    never = np.isinf(ends) & np.isinf(h) & (inp.v_next > 0)
    flat = flat_tail(inp, np.where(never, 0.0, np.minimum(h, ends)), inp.v_next)
    if not never.any():
        return flat
    z = np.zeros_like(cg)
    rank = e * flat.stop + flat.depth
    return TailSums(np.where(never, z, flat.stop), np.where(never, np.inf, flat.depth),
                    np.where(never, z, flat.inverse_rank), np.where(never, z, rank))


def _bpm_tail(inp: TailInput, params: Params) -> TailSums:
    return _budget_tail(inp, float(params["T"]), float(params["K"]), 0.0, 0.0, 0.0)


def _bpmd_tail(inp: TailInput, params: Params) -> TailSums:
    return _budget_tail(inp, float(params["T"]), float(params["K"]), float(params["hb"]), float(params["hc"]),
                        float(params["gain_med"]))


#: Ranks summed at a time by :func:`_streamed_tail`, and the most it sums past a ranking.
STREAM_CHUNK = 4096
STREAM_LIMIT = 1 << 22
#: V past which the rest of a tail is negligible: its sum is below this share of V+.
STREAM_TOL = 2.0 ** -60


def _streamed_tail(inp: TailInput, continuation, name: str, rows: Optional[np.ndarray] = None) -> TailSums:
    """The sums past E of a model whose continuation tends to a limit below 1, rank by rank.

    The sums past E of a model whose C there, ``continuation(rows, m)`` for the m-th rank past E
    (m >= 1, an array of columns), does not grow with m and tends to a limit below 1: rank by
    rank, a chunk of ranks at a time and only for the rows still going, until the rest is below
    :data:`STREAM_TOL` of V+ (bounded by V / (1 - C), as C does not grow) or the horizon ends
    (C(D) := 0). Memory is rows x :data:`STREAM_CHUNK`; time follows how fast V falls, not the
    cutoff. A tail that has not converged after :data:`STREAM_LIMIT` ranks is a KernelError.
    ``rows`` (a boolean mask) limits the work to some rows (the others get zeros).
    """
    n = len(inp.v_next)
    stop, depth, inv, rank = (np.zeros(n) for _ in range(4))
    v = inp.v_next.astype(np.float64).copy()
    h = _horizon(inp)
    e = inp.depth.astype(np.float64)
    going = np.flatnonzero((v > 0) & (h >= 1) & (True if rows is None else rows))
    start = 1
    while len(going):
        if start > STREAM_LIMIT:
            raise KernelError(f"browsing model {name!r}: its tail past the ranking does not converge within "
                              f"{STREAM_LIMIT} ranks (C stays close to 1); use a smaller cutoff or tail='stop', "
                              "or parameters under which users stop sooner")
        m = np.arange(start, start + STREAM_CHUNK, dtype=np.float64)[None, :]
        c = np.asarray(continuation(going, m), dtype=np.float64)
        c = np.where(m >= h[going, None], 0.0, c)                     # the user stops at D at the latest
        within = m <= h[going, None]
        vv = v[going, None] * np.concatenate([np.ones((len(going), 1)), np.cumprod(c, axis=1)[:, :-1]], axis=1)
        vv = np.where(within, vv, 0.0)
        ll = vv * (1 - c)
        j = e[going, None] + m
        stop[going] += ll.sum(axis=1)
        depth[going] += vv.sum(axis=1)
        inv[going] += (ll / j).sum(axis=1)
        rank[going] += (ll * j).sum(axis=1)
        v_next = vv[:, -1] * c[:, -1]
        v[going] = v_next
        last_c = c[:, -1]
        with np.errstate(divide="ignore"):
            rest = np.where(last_c < 1, v_next / (1 - last_c), np.inf)
        keep = (v_next > 0) & (rest > STREAM_TOL * depth[going]) & (h[going] > start + STREAM_CHUNK - 1)
        going = going[keep]
        start += STREAM_CHUNK
    return TailSums(stop, depth, inv, rank)


def _ift_tail(inp: TailInput, params: Params, goal: bool) -> TailSums:
    """IFTrate / IFT past E.

    The rate CG(E) / (CC(E) + m c) falls towards 0, so C2 falls towards 1 / (1 + b2 e^(R2 rate))
    < 1, and C1 (IFT's goal term) stays at its value at E: summed by :func:`_streamed_tail`
    (geometric decay at the limit's rate). Where C is constant past E (no gain gathered, CG(E) =
    0, or R2 = 0) the tail is geometric, with q = 1 - C1 C2 = expit(-x1) + C1 expit(x2) computed
    without cancellation (:func:`_per_topic_geometric_tail`).
    """
    cg, cc, c = inp.cg, _spent(inp), inp.pad_cost
    r2, rate, lb2 = float(params["R2"]), float(params["rate"]), math.log(float(params["b2"]))
    x1 = float(params["R1"]) * (float(params["T"]) - cg) + math.log(float(params["b1"])) if goal else None
    c1 = _logistic(x1) if x1 is not None else np.ones_like(cg)

    def continuation(rows: np.ndarray, m: np.ndarray) -> np.ndarray:
        ratio = cg[rows, None] / (cc[rows, None] + m * c)
        return c1[rows, None] * _logistic(-(r2 * (rate - ratio) + lb2))

    constant = (cg == 0) | (r2 == 0)
    streamed = _streamed_tail(inp, continuation, "IFT" if goal else "IFTrate", rows=~constant)
    if not constant.any():
        return streamed
    x2 = r2 * (rate - np.where(cc + c > 0, cg / np.maximum(cc + c, 1e-300), 0.0)) + lb2
    q = _logistic(x2) * c1 + (_logistic(-x1) if x1 is not None else 0.0)
    geometric = _per_topic_geometric_tail(inp, np.where(constant, q, 0.5))
    rank = geometric.rank if geometric.rank is not None else inp.depth * geometric.stop + geometric.depth
    assert streamed.rank is not None
    return TailSums(*(np.where(constant, g, t) for g, t in zip(
        (geometric.stop, geometric.depth, geometric.inverse_rank, rank),
        (streamed.stop, streamed.depth, streamed.inverse_rank, streamed.rank))))


# ------------------------------------------------------------------------------ gain-only models

def npv(inp: BrowsingInput, params: Params) -> np.ndarray:
    """NPV (cwl_eval).

    C(i) = 1 / (1 + discount), the net present value of a list whose future is
    discounted at that rate; RBP with p = 1 / (1 + discount).
    """
    gains = inp.gains
    return np.full(gains.shape, 1.0 / (1.0 + float(params["discount"])))


def nerr8(inp: BrowsingInput, params: Params) -> np.ndarray:
    """NERR, Eq. 8 (Azzopardi, Mackenzie & Moffat, "ERR is not C/W/L", ICTIR 2021).

    C(i) = 1 - r_i for i < k, else 0.
    """
    gains = inp.gains
    return np.where(_cutoff_mask(gains, params), 1.0 - gains, 0.0)


def nerr9(inp: BrowsingInput, params: Params) -> np.ndarray:
    """NERR, Eq. 9: C(i) = i / (i + 1) (1 - r_i) for i < k, else 0."""
    gains = inp.gains
    i = inp.ranks[None, :]
    return np.where(_cutoff_mask(gains, params), i / (i + 1.0) * (1.0 - gains), 0.0)


def nerr10(inp: BrowsingInput, params: Params) -> np.ndarray:
    """NERR, Eq. 10: C(i) = phi (1 - r_i), to full depth (akin to RBP)."""
    gains = inp.gains
    return float(params["phi"]) * (1.0 - gains)


def nerr11(inp: BrowsingInput, params: Params) -> np.ndarray:
    """NERR, Eq. 11: C(i) = ((i + 2T - 1) / (i + 2T))^2 (1 - r_i), to full depth (akin to INSQ)."""
    gains = inp.gains
    T = float(params["T"])
    i = inp.ranks[None, :]
    return ((i + 2 * T - 1) / (i + 2 * T)) ** 2 * (1.0 - gains)


def _set_weight(i: np.ndarray, e: float) -> np.ndarray:
    return (i + 1.0) ** e - i ** e


def search_economic(inp: BrowsingInput, params: Params) -> np.ndarray:
    """SET (Azzopardi 2014, economic models of search; cwl_eval).

    C(i) = w(i+1) / w(i) for i < k, else 0, with w(i) = (i+1)^e - i^e, so V(i) = w(i) /
    w(1): diminishing returns of exponent e (e = 1 is P@k).
    """
    gains = inp.gains
    e = float(params["exponent"])
    i = inp.ranks
    c = np.where(i < int(params["cutoff"]), _set_weight(i + 1, e) / _set_weight(i, e), 0.0)
    return np.broadcast_to(c, gains.shape).copy()


def _logistic(x: np.ndarray) -> np.ndarray:
    """1 / (1 + e^-x), without overflow."""
    from scipy import special  # here, not at the top: ``import ir_cwla`` loads no scipy

    return special.expit(x)


def ift_goal(inp: BrowsingInput, params: Params) -> np.ndarray:
    """IFT, goal (C1; Azzopardi, Thomas & Craswell, SIGIR 2018).

    C(i) = 1 - 1 / (1 + b1 e^{R1 (T - CG(i))}), the user goes on while the gain gathered is
    below the goal T (R1: how strictly; b1: the intercept).
    """
    gains = inp.gains
    x = float(params["R1"]) * (float(params["T"]) - np.cumsum(gains, axis=1)) + math.log(float(params["b1"]))
    return _logistic(x)


def _ift_goal_tail(inp: TailInput, params: Params) -> TailSums:
    """Past E, CG stays CG(E).

    C is constant per topic, 1 - q with q = 1 / (1 + b1 e^{R1 (T - CG(E))})
    computed directly (a geometric tail).
    """
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


def ift_rate(inp: BrowsingInput, params: Params) -> np.ndarray:
    """IFT, rate (C2).

    C(i) = 1 / (1 + b2 e^{R2 (rate - CG(i)/CC(i))}), the user goes on while the
    rate of gain per unit of cost stays above ``rate``.
    """
    gains = inp.gains
    costs = inp.costs
    return _rate_term(gains, params, costs)


def ift(inp: BrowsingInput, params: Params) -> np.ndarray:
    """IFT, goal and rate (C1 C2; the most accurate variant in Azzopardi et al. 2018)."""
    gains = inp.gains
    costs = inp.costs
    return ift_goal(inp, params) * _rate_term(gains, params, costs)


def time_biased_gain(inp: BrowsingInput, params: Params) -> np.ndarray:
    """TBG (Smucker & Clarke 2012).

    The chance of still reading decays with the time spent, V(i) = 2^(-CC(i-1) / H), so
    C(i) = 2^(-c_i / H) (H: the half-life, in the costs' unit).
    """
    return np.exp2(-inp.costs / float(params["halflife"]))


def _tbg_tail(inp: TailInput, params: Params) -> TailSums:
    """Past E every document costs ``pad_cost``: RBP's tail with p = 2^(-pad_cost / H)."""
    return rbp_tail(inp, {"p": 2.0 ** (-inp.pad_cost / float(params["halflife"]))})


def u_measure(inp: BrowsingInput, params: Params) -> np.ndarray:
    """U-measure (Sakai & Dou 2013).

    A document starting at position CC(i-1) of the text read is reached with weight
    u(CC(i-1)) = max(0, 1 - CC(i-1)/L), so C(i) = u(CC(i)) / u(CC(i-1)) (0 once the
    weight is 0). Costs are lengths (characters) or reading times.
    """
    costs = inp.costs
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


def bpm_static(inp: BrowsingInput, params: Params) -> np.ndarray:
    """BPM, static (Zhang et al., "Evaluating Web Search with a Bejeweled Player Model", SIGIR 2017).

    C(i) = 1 while the gain gathered CG(i) < T and the cost spent CC(i) < K.
    """
    gains = inp.gains
    costs = inp.costs
    return _budgets_met(gains, costs, float(params["T"]), float(params["K"]))


def bpm_dynamic(inp: BrowsingInput, params: Params) -> np.ndarray:
    """BPM, dynamic.

    As static, but each document moves both budgets by how far its gain is from ``gain_med``:
    T_{i+1} = T_i + hb (r_i - gain_med), K_{i+1} = K_i + hc (r_i - gain_med) (T_1 = T, K_1 =
    K); C(i) = 1 while CG(j) < T_j and CC(j) < K_j for every j <= i.
    """
    gains = inp.gains
    costs = inp.costs
    step = gains - float(params["gain_med"])
    n = gains.shape[0]

    def budget(start: float, h: float) -> np.ndarray:
        # summed left to right, as a loop T = T + h (r_i - gain_med) would
        first = np.full((n, 1), start)
        return np.cumsum(np.concatenate([first, h * step[:, :-1]], axis=1), axis=1)

    return _budgets_met(gains, costs, budget(float(params["T"]), float(params["hb"])),
                        budget(float(params["K"]), float(params["hc"])))


def trap(inp: BrowsingInput, params: Params) -> np.ndarray:
    """TrAP (Harman 1992, as in cwl_eval).

    AP's continuation with the cost spent CC(j) in place of the rank j: C(i) = S_{i+1} /
    S_i, S_i = sum_{j>=i} r_j / CC(j) (0 where S_i = 0).
    """
    gains = inp.gains
    costs = inp.costs
    w = gains / np.cumsum(costs, axis=1)
    s = np.cumsum(w[:, ::-1], axis=1)[:, ::-1]
    nxt = np.concatenate([s[:, 1:], np.zeros((s.shape[0], 1))], axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(s > 0, nxt / np.where(s > 0, s, 1.0), 0.0)


def _trap_tail(inp: TailInput, params: Params) -> TailSums:
    """AP's tail (:func:`ir_cwla.measures._browsing._ap_like_tail`) with S_1 = sum_i r_i / CC(i).

    Under 'pad' V+ = R / S_1, R the number of relevant documents of the topic (as cwl_eval
    counts it).
    """
    costs = np.ones_like(inp.gains) if inp.costs is None else inp.costs
    return ap_like_tail(inp, (inp.gains / np.cumsum(costs, axis=1)).sum(axis=1))


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
                        tail=lambda inp, params: rbp_tail(inp, {"p": 1.0 / (1.0 + float(params["discount"]))}))
register_browsing_model("NERR8", nerr8, requires_cutoff=True, tail=precision_tail, finite_tail=True)
register_browsing_model("NERR9", nerr9, requires_cutoff=True, tail=_nerr9_tail, finite_tail=True)
register_browsing_model("NERR10", nerr10, params={"phi": Param(0.9, bounds=(0.0, 1.0), closed="neither",
                                                               doc="persistence of NERR10")},
                        finite_tail=True, tail=lambda inp, params: rbp_tail(inp, {"p": float(params["phi"])}))
register_browsing_model("NERR11", nerr11, params={"T": TARGET}, tail=insq_tail, finite_tail=True)
register_browsing_model("SET", search_economic, requires_cutoff=True, gain_dependent=False,
                        tail=_set_tail, finite_tail=True, params={"exponent": Param(0.5, bounds=(0.0, 1.0), closed="right",
                                                  doc="diminishing returns e (above 1, C(i) > 1)")})
register_browsing_model("IFTgoal", ift_goal, params=_GOAL, tail=_ift_goal_tail, finite_tail=True, check=_check_goal)
register_browsing_model("IFTrate", ift_rate, params=_RATE, uses_costs=True, finite_tail=True,
                        tail=lambda inp, params: _ift_tail(inp, params, goal=False))
register_browsing_model("IFT", ift, params={**_GOAL, **_RATE}, uses_costs=True, check=_check_goal, finite_tail=True,
                        tail=lambda inp, params: _ift_tail(inp, params, goal=True))
register_browsing_model("TBG", time_biased_gain, params={"halflife": _positive_param(224.0, "half-life H, in the "
                                                                                              "costs' unit")},
                        gain_dependent=False, uses_costs=True, tail=_tbg_tail, finite_tail=True)
register_browsing_model("U", u_measure, params={"L": _positive_param(1000.0, "patience L, in the costs' unit")},
                        gain_dependent=False, uses_costs=True, tail=_u_tail, finite_tail=True)
register_browsing_model("BPM", bpm_static, params={"T": _GAIN_BUDGET, "K": _COST_BUDGET}, uses_costs=True,
                        tail=_bpm_tail, finite_tail=True)
register_browsing_model("BPMD", bpm_dynamic, uses_costs=True, tail=_bpmd_tail, finite_tail=True,
                        params={"T": _GAIN_BUDGET, "K": _COST_BUDGET,
                                "hb": Param(1.0, doc="BPMD: how far a document moves the gain budget"),
                                "hc": Param(1.0, doc="BPMD: how far a document moves the cost budget"),
                                "gain_med": Param(0.5, bounds=(0.0, 1.0), doc="BPMD: the gain that moves no budget")})
register_browsing_model("TrAP", trap, uses_costs=True, tail=_trap_tail, finite_tail=True, reads_total="count")
