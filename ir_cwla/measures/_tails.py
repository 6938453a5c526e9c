"""The closed forms of the browsing models' zero-gain tails, in one module.

Past E, the last rank the gain matrix holds for a topic, every gain is 0; a browsing model's
tail (``register_browsing_model(tail=...)``) sums what its users do there, exactly: the share
who stop (sum L), their contribution to the expected depth (sum V), sum L(i) / i and sum L(i) i,
as a :class:`TailSums`, from what the kernel knows at E (:class:`TailInput`). ``horizon`` of
those ranks are looked at: ``inf`` under tail='pad'; under tail='stop' the ranks up to the cutoff
D = E + horizon, when the cutoff is deeper than the ranking (C(D) := 0).

Everything here is public so that a model of one's own (in a script, a plugin or
:mod:`ir_cwla.measures._cwl_models`) builds its tail from the same closed forms as the built-in
ones: :func:`rbp_tail` (geometric), :func:`lerch_phi_1` (sum p^m / (n + m)),
:func:`flat_tail` (V constant up to a rank where everyone stops), :func:`ap_like_tail`,
:func:`inst_tail_sums` (V telescoping as 1 / (i + c)^2), :func:`range_sum` (Euler-Maclaurin).
(scipy.special is imported by the tails that use it, so that ``import ir_cwla`` loads no scipy.)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from ir_cwla.measures._params import Params


class BrowsingInput:
    """What a browsing model's continuation reads: ``continuation(inp, params) -> C``.

    ``gains``: the (topics x ranks) float matrix of gains r_i in [0, 1]; ``ranks``: the ranks
    1..W (float, shape (W,)); ``costs``: the (topics x ranks) matrix of document costs c_i
    (:mod:`ir_cwla.measures._costs`), ones when the measure names no ``costs=`` (made only if
    read). A model that reads ``costs`` is registered with ``uses_costs=True`` (so that
    ``costs=`` is accepted and cached for it); the call is the same for every model.
    """

    __slots__ = ("gains", "_ranks", "_costs")

    def __init__(self, gains: np.ndarray, costs: Optional[np.ndarray] = None, ranks: Optional[np.ndarray] = None):
        self.gains = gains
        self._costs, self._ranks = costs, ranks

    @property
    def ranks(self) -> np.ndarray:
        """The ranks 1..W, as floats (shape (W,))."""
        if self._ranks is None:
            self._ranks = np.arange(1, self.gains.shape[1] + 1, dtype=np.float64)
        return self._ranks

    @property
    def costs(self) -> np.ndarray:
        """The document costs c_i (n x W): 1 each unless the measure names ``costs=``."""
        if self._costs is None:
            self._costs = np.ones_like(self.gains, dtype=np.float64)
        return self._costs


@dataclass(frozen=True)
class TailInput:
    """What a tail needs about each topic at E, the last rank the gain matrix holds for it.

    What a tail needs about each topic at E, the last rank the gain matrix holds for it
    (arrays over topics). Past E every gain is 0.

    ``horizon``: how many zero-gain ranks past E are looked at: ``inf`` under tail='pad';
    under tail='stop' (only when the cutoff D is deeper than the ranking) D - E, and the user
    stops at rank D at the latest (C(D) := 0). Only models registered with
    ``finite_tail=True`` are ever given a finite horizon.
    """

    gains: np.ndarray        # (n, W) gains within the matrix (0 beyond E)
    depth: np.ndarray        # E per topic
    v_next: np.ndarray       # V(E+1) = prod_{j<=E} C(j), the chance of going past E
    v_sum: np.ndarray        # sum_{i<=E} V(i)
    cg: np.ndarray           # CG(E)
    total_gain: np.ndarray   # R: total gain of the topic's judged documents (or their number, see reads_total)
    horizon: np.ndarray = None  # type: ignore[assignment]   # None: inf for every topic (__post_init__)
    costs: Optional[np.ndarray] = None      # (n, W) costs within the matrix (models with uses_costs)
    pad_cost: float = 1.0                   # the cost of every rank past E

    def __post_init__(self) -> None:
        if self.horizon is None:
            object.__setattr__(self, "horizon", np.full(len(self.v_next), np.inf))


@dataclass(frozen=True)
class TailSums:
    """Sums over the ranks i > D of the infinite zero-gain tail (``tail='pad'``).

    ``stop``: sum L(i) (users who stop somewhere in the tail); ``depth``: sum V(i) (their
    contribution to the expected depth V+; may be inf); ``inverse_rank``: sum L(i) / i;
    ``rank``: sum L(i) i (for aggregations that grow with the rank, such as the expected
    total cost). Users who never stop contribute to none but ``depth``. ``rank`` defaults to
    E sum L + sum V (summation by parts), exact whenever V(i) i -> 0 (every user stops).
    """

    stop: np.ndarray
    depth: np.ndarray
    inverse_rank: np.ndarray
    rank: Optional[np.ndarray] = None


def ranks(width: int) -> np.ndarray:
    return np.arange(1, width + 1, dtype=np.float64)


# ---------------------------------------------------------------------------------------------
# The zero-gain tails (closed forms)
#
# A tail sums the ranks past E (the last rank the gain matrix holds for a topic), where every
# gain is 0: ``horizon`` of them (``inf`` under tail='pad'; under tail='stop' the ranks up to
# the cutoff D = E + horizon, when the cutoff is deeper than the ranking, with C(D) := 0).

def finite_horizon(inp: TailInput) -> np.ndarray:
    return np.isfinite(inp.horizon)


def stretch(inp: TailInput, limit: np.ndarray) -> np.ndarray:
    """Zero-gain ranks looked at past E, at most ``limit`` (e.g. up to a model's own cutoff)."""
    return np.minimum(inp.horizon, limit)


def flat_tail(inp: TailInput, h: np.ndarray, v: np.ndarray) -> TailSums:
    """V stays v over the h ranks past E and everyone left stops at the last of them."""
    h = np.maximum(h, 0.0)
    some = (h >= 1) & (v > 0)
    end = inp.depth.astype(np.float64) + np.where(some, h, 1.0)
    z = np.zeros_like(v)
    return TailSums(np.where(some, v, z), np.where(some, h * v, z), np.where(some, v / end, z))


def precision_tail(inp: TailInput, params: Params) -> TailSums:
    """P@k: C = 1 below k, so V = V(E+1) up to rank k, where everyone stops."""
    k = float(params["cutoff"])
    return flat_tail(inp, stretch(inp, k - inp.depth), inp.v_next)


#: Direct summation for the first ranks of a long sum (see :func:`range_sum`).
RANGE_DIRECT = 1 << 16


def range_sum(f, df, a: int, b: int, integral=None) -> float:
    """sum_{i=a..b} f(i) for a smooth, slowly varying f.

    Directly for the first :data:`RANGE_DIRECT` terms, then by Euler-Maclaurin (integral,
    end points, the B2 term; the next term is below 1e-20 relative there). ``integral(m,
    b)`` defaults to quad.
    """
    if b < a:
        return 0.0
    m = min(b, a + RANGE_DIRECT - 1)
    total = float(f(np.arange(a, m + 1, dtype=np.float64)).sum())
    if m == b:
        return total
    m += 1
    if integral is None:
        from scipy import integrate

        def integral(lo: float, hi: float) -> float:   # over log x: smooth and short, however far hi is
            return integrate.quad(lambda t: float(f(np.exp(t)) * np.exp(t)), np.log(lo), np.log(hi),
                                  limit=200, epsabs=0, epsrel=1e-13)[0]
    fm, fb = float(f(np.float64(m))), float(f(np.float64(b)))
    return total + integral(m, b) + (fm + fb) / 2 + (float(df(np.float64(b))) - float(df(np.float64(m)))) / 12


def _inv_log2(x):
    return np.log(2.0) / np.log(x + 1.0)


def _inv_log2_d(x):
    return -np.log(2.0) / ((x + 1.0) * np.log(x + 1.0) ** 2)


def _inv_log2_integral(lo, hi):
    # int 1/log2(x+1) dx = ln 2 * li(x+1), li(y) = Ei(ln y)
    from scipy import special

    return float(np.log(2.0) * (special.expi(np.log(hi + 1.0)) - special.expi(np.log(lo + 1.0))))


def _dcg_stretch(a: int, b: int) -> tuple[float, float]:
    """(sum_{i=a..b} 1/log2(i+1), sum_{i=a+1..b} 1/(i (i-1) log2(i+1)))."""
    s1 = range_sum(_inv_log2, _inv_log2_d, a, b, _inv_log2_integral)
    s2 = range_sum(lambda x: _inv_log2(x) / (x * (x - 1.0)), lambda x: 0.0 * x, a + 1, b)
    return s1, s2


def dcg_tail(inp: TailInput, params: Params) -> TailSums:
    """DCG@k's tail past E.

    DCG@k: past E, V(i) = V(E+1) log2(E+2) / log2(i+1) up to rank b = min(k, E + horizon),
    where everyone stops. sum L = V(E+1); sum V and sum L(i)/i = V(a)/a - sum_{i=a+1..b}
    V(i) / (i (i-1)) (summation by parts, a = E+1) from :func:`_dcg_stretch`.
    """
    k = float(params["cutoff"])
    h = np.maximum(stretch(inp, k - inp.depth), 0.0)
    z = np.zeros_like(inp.v_next)
    stop, depth, inv = z.copy(), z.copy(), z.copy()
    active = (h >= 1) & (inp.v_next > 0)
    if active.any():
        e = inp.depth[active].astype(np.int64)
        hb = h[active].astype(np.int64)
        pairs, where = np.unique(np.stack([e, hb]), axis=1, return_inverse=True)
        sums = np.array([_dcg_stretch(int(ea) + 1, int(ea + ha)) for ea, ha in pairs.T])
        s1, s2 = sums[where.ravel(), 0], sums[where.ravel(), 1]
        v = inp.v_next[active]
        scale = v * np.log2(e + 2.0)
        stop[active] = v
        depth[active] = scale * s1
        inv[active] = v / (e + 1.0) - scale * s2
    return TailSums(stop, depth, inv)


#: Up to this many terms, Phi(p, 1, n) is summed directly (p up to about 0.99).
LERCH_DIRECT_TERMS = 4096
#: Terms summed directly before the Euler-Maclaurin remainder of :func:`lerch_phi_1`.
LERCH_HEAD = 64
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30)      # B_2, B_4, B_6, B_8


def _exp_e1(z: np.ndarray) -> np.ndarray:
    """e^z E1(z) for z > 0 (scipy's exp1, or its asymptotic series where e^z would overflow)."""
    from scipy import special

    z = np.asarray(z, dtype=np.float64)
    out = np.empty_like(z)
    small = z < 50
    out[small] = np.exp(z[small]) * special.exp1(z[small])
    if (~small).any():
        zb = z[~small]
        term = 1.0 / zb
        total = term.copy()
        for k in range(1, 60):
            term = term * (-k / zb)
            total += term
            if (np.abs(term) < 1e-18 * total).all():
                break
        out[~small] = total
    return out


def lerch_phi_1(p: float, n: np.ndarray, q: Optional[float] = None) -> np.ndarray:
    """Phi(p, 1, n) = sum_{m>=0} p^m / (n + m), in O(1) per distinct n.

    For p up to about 0.99 (at most :data:`LERCH_DIRECT_TERMS` terms until they fall below
    1e-18) the sum is direct. Closer to 1, the first :data:`LERCH_HEAD` terms are summed and
    the rest, p^N sum_{m>=0} g(m) with g(x) = e^{-lambda x} / (b + x), lambda = -ln p and
    b = n + N, by Euler-Maclaurin: int_0^inf g = e^{lambda b} E1(lambda b), plus g(0)/2, minus
    sum_k B_2k / (2k)! g^(2k-1)(0) for k = 1..4 (lambda < 0.011 and b > 64 bound the next
    term below 1e-20 relative). ``q`` = 1 - p, when known more precisely than 1 - p (p within
    a few float spacings of 1), is used for lambda and the powers of p.
    """
    uniq, inv = np.unique(np.asarray(n, dtype=np.float64), return_inverse=True)
    log_p = np.log(p) if q is None else np.log1p(-q)
    terms = int(np.ceil(np.log(1e-18) / log_p)) + 1
    if terms <= LERCH_DIRECT_TERMS:
        m = np.arange(terms, dtype=np.float64)
        powers = p ** m if q is None else np.exp(m * log_p)
        vals = (powers[None, :] / (uniq[:, None] + m[None, :])).sum(axis=1)
        return vals[inv]
    lam = -np.log1p(-(1.0 - p)) if q is None else -log_p
    m = np.arange(LERCH_HEAD, dtype=np.float64)
    powers = p ** m if q is None else np.exp(m * log_p)
    head = (powers[None, :] / (uniq[:, None] + m[None, :])).sum(axis=1)
    b = uniq + LERCH_HEAD
    rest = _exp_e1(lam * b) + 0.5 / b
    from math import comb, factorial

    for k, bern in enumerate(_BERNOULLI, start=1):
        order = 2 * k - 1      # g^(n)(0) = sum_j C(n, j) (-lam)^(n-j) (-1)^j j! / b^(j+1)
        deriv = sum(comb(order, j) * (-lam) ** (order - j) * (-1) ** j * factorial(j) / b ** (j + 1)
                    for j in range(order + 1))
        rest = rest - bern / factorial(2 * k) * deriv
    return (head + (p ** LERCH_HEAD if q is None else np.exp(LERCH_HEAD * log_p)) * rest)[inv]


def rbp_tail(inp: TailInput, params: Params) -> TailSums:
    """Geometric tail: V(E+1+m) = V(E+1) p^m.

    Under 'pad' sum V = V(E+1)/(1-p), sum L = V(E+1), sum L(i)/i = V(E+1) (1-p) Phi(p, 1, E+1); up to a
    finite rank b = E + h (users stop there), sum V = V(E+1) (1 - p^h)/(1-p) and sum L(i)/i = V(E+1) [(1-p)
    (Phi(p,1,E+1) - p^(h-1) Phi(p,1,b)) + p^(h-1) / b].
    """
    p = float(params["p"])
    n = inp.depth.astype(np.float64) + 1
    v = inp.v_next
    finite = finite_horizon(inp)
    if not finite.any():
        return TailSums(v.copy(), v / (1 - p), v * (1 - p) * lerch_phi_1(p, n))
    h = np.where(finite, np.maximum(inp.horizon, 0.0), 0.0)
    ph = p ** np.maximum(h - 1, 0.0)
    b = n + h - 1
    phi_n = lerch_phi_1(p, n)
    inf_inv = (1 - p) * phi_n
    fin_inv = (1 - p) * (phi_n - ph * lerch_phi_1(p, b)) + ph / b
    some = h >= 1
    depth = np.where(finite, np.where(some, v * (1 - p ** h) / (1 - p), 0.0), v / (1 - p))
    inv_rank = np.where(finite, np.where(some, v * fin_inv, 0.0), v * inf_inv)
    stop = np.where(finite & ~some, 0.0, v)
    return TailSums(stop, depth, inv_rank)


def _scaled_zeta(s: np.ndarray, n: np.ndarray) -> np.ndarray:
    """N^(s-1) zeta(s, N) (Hurwitz), about 1/(s-1) for large N.

    Directly where neither factor overflows (N <= 1e4), else by its Euler-Maclaurin
    expansion 1/(s-1) + 1/(2N) + s/(12 N^2) - s(s+1)(s+2)/(720 N^4) (next term below 1e-15
    relative).
    """
    from scipy import special

    s, n = np.broadcast_arrays(np.asarray(s, dtype=np.float64), np.asarray(n, dtype=np.float64))
    out = np.empty(s.shape)
    near = n <= 1e4
    out[near] = n[near] ** (s[near] - 1) * special.zeta(s[near], n[near])
    sf, nf = s[~near], n[~near]
    out[~near] = 1 / (sf - 1) + 1 / (2 * nf) + sf / (12 * nf**2) - sf * (sf + 1) * (sf + 2) / (720 * nf**4)
    return out


def _sum_terms(terms: np.ndarray) -> np.ndarray:
    """The column sums of ``terms`` (terms x values), term after term.

    The order numpy's ``sum(axis=0)`` takes for two columns or more, also for one (which numpy
    sums pairwise), so that a topic's tail does not depend on how many other topics are summed
    beside it (a shard of a run is scored bit for bit as the whole run).
    """
    out = terms[0].copy()
    for row in terms[1:]:
        out += row
    return out


def hurwitz_h(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """h(x, N) = sum_{i>=N} 1 / (i (i+x)^2), for x > -N.

    |x| < N/2: the convergent series sum_k (k+1) (-x)^k zeta(k+3, N) (Hurwitz zeta), written
    as sum_k (k+1) (-x/N)^k N^(k+2) zeta(k+3, N) / N^2 where (-x)^k or zeta would overflow;
    otherwise partial fractions: (psi(N+x) - psi(N)) / x^2 - psi1(N+x) / x.
    """
    from scipy import special

    x = np.asarray(x, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    small = np.abs(x) < n / 2
    out = np.empty(np.broadcast(x, n).shape)
    k = np.arange(64, dtype=np.float64)[:, None]
    plain = small & (np.abs(x) <= 1e3) & (n <= 1e4)
    if plain.any():
        xs, ns = x[plain], n[plain]
        out[plain] = _sum_terms((k + 1) * (-xs[None, :]) ** k * special.zeta(k + 3, ns[None, :]))
    scaled = small & ~plain
    if scaled.any():
        xs, ns = x[scaled], n[scaled]
        out[scaled] = _sum_terms((k + 1) * (-xs[None, :] / ns[None, :]) ** k
                                 * _scaled_zeta(k + 3, ns[None, :])) / ns**2
    big = ~small
    if big.any():
        xb, nb = x[big], n[big]
        out[big] = (special.digamma(nb + xb) - special.digamma(nb)) / xb**2 - special.polygamma(1, nb + xb) / xb
    return out


def inst_tail_sums(inp: TailInput, T: float, cg: np.ndarray) -> TailSums:
    """Past E, C(i) = ((i + c) / (i + 1 + c))^2 with c = 2T - CG(E) - 1, so V telescopes.

    V(i) = K / (i + c)^2 with K = V(E+1) (E+1+c)^2. Then sum V = K psi1(E+1+c), sum L =
    V(E+1), and sum L(i)/i = K (h(c, E+1) - h(c+1, E+1)) (see :func:`hurwitz_h`); up to a finite
    rank b (users stop there) the same sums minus their part from b on, plus V(b)/b.
    """
    from scipy import special

    n = inp.depth.astype(np.float64) + 1
    c = 2 * T - cg - 1
    k = inp.v_next * (n + c) ** 2
    active = inp.v_next > 0
    depth = np.zeros_like(k)
    inv = np.zeros_like(k)
    stop = inp.v_next.copy()
    finite = finite_horizon(inp)
    if active.any():
        ka, na, ca = k[active], n[active], c[active]
        depth[active] = ka * special.polygamma(1, na + ca)
        inv[active] = ka * (hurwitz_h(ca, na) - hurwitz_h(ca + 1, na))
    fin = active & finite
    if fin.any():
        h = np.maximum(inp.horizon[fin], 0.0)
        some = h >= 1
        kf, nf, cf = k[fin], n[fin], c[fin]
        b = nf + np.where(some, h, 1.0) - 1
        depth[fin] = np.where(some, depth[fin] - kf * special.polygamma(1, b + 1 + cf), 0.0)
        inv[fin] = np.where(some, inv[fin] - kf * (hurwitz_h(cf, b) - hurwitz_h(cf + 1, b)) + kf / (b + cf) ** 2 / b, 0.0)
        stop[fin] = np.where(some, stop[fin], 0.0)
    return TailSums(stop, depth, inv)


def inst_tail(inp: TailInput, params: Params) -> TailSums:
    return inst_tail_sums(inp, float(params["T"]), inp.cg)


def insq_tail(inp: TailInput, params: Params) -> TailSums:
    return inst_tail_sums(inp, float(params["T"]), np.zeros_like(inp.cg))


def ap_tail(inp: TailInput, params: Params) -> TailSums:
    """The relevant documents not retrieved lie beyond every rank.

    L is unchanged (nobody stops in the tail) and V+ = R / S with S = sum_{i<=D} r_i / i
    (inf where S = 0). Under 'stop', C = 0 past the last relevant document ranked: nothing
    past E.
    """
    s = (inp.gains / ranks(inp.gains.shape[1])[None, :]).sum(axis=1)
    return ap_like_tail(inp, s)


def ap_like_tail(inp: TailInput, s: np.ndarray) -> TailSums:
    """The tail of AP-like models.

    C = 0 at the last relevant document ranked, so nobody goes past E, except from an empty
    ranking (E = 0, a condensed list with no judged document): its users look at rank 1 and
    stop there (C(1) = 0 as S = 0). Under 'pad' the expected depth is V+ = R / S (inf where
    S = 0).
    """
    first = inp.depth + 1.0
    reach = np.where(np.isfinite(inp.horizon) & (inp.horizon < 1), 0.0, inp.v_next)
    stop, inv, rank = reach, reach / first, reach * first
    if finite_horizon(inp).all():
        return TailSums(stop, reach, inv, rank)
    with np.errstate(divide="ignore", invalid="ignore"):
        vplus = np.where(s > 0, inp.total_gain / np.where(s > 0, s, 1.0), np.inf)
    depth = np.where(finite_horizon(inp), reach, vplus - inp.v_sum)
    return TailSums(stop, depth, inv, rank)


def never_stopping_tail(inp: TailInput, params: Params) -> TailSums:
    """C = 1 on every zero-gain document.

    Under 'pad' users who pass E never stop and contribute nothing, but make V+
    infinite; up to a finite rank they all stop there.
    """
    finite = finite_horizon(inp)
    if finite.any():
        flat = flat_tail(inp, np.where(finite, inp.horizon, 0.0), inp.v_next)
    z = np.zeros_like(inp.v_next)
    if finite.all():
        return flat
    never = TailSums(z, np.where(inp.v_next > 0, np.inf, 0.0), z, z)
    if not finite.any():
        return never
    flat_rank = inp.depth * flat.stop + flat.depth
    return TailSums(*(np.where(finite, f, g) for f, g in zip((flat.stop, flat.depth, flat.inverse_rank, flat_rank),
                                                              (never.stop, never.depth, never.inverse_rank, z))))
