"""Browsing models: the continuation probability C(i) of the C/W/L/A framework.

A browsing model says how likely a user who has just looked at rank i is to look at rank
i+1. From C follow V(i) = prod_{j<i} C(j) (the chance of reaching rank i) and
L(i) = (1 - C(i)) V(i) (the chance of stopping at rank i); see :mod:`ir_cwla.kernel`.

Every model is a pure function over the topics x ranks gain matrix (Moffat et al. 2022;
Chen & Sakai, "A Meta-Evaluation of C/W/L/A Metrics", Eqs. 3-8; exact details in
``docs/semantics.md``). Under ``tail='pad'`` a model also says what happens past the last
ranked document (where every gain is 0): its :class:`TailSums`. Add your own with
:func:`register_browsing_model`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Optional

import numpy as np
from scipy import special

Params = Mapping[str, object]


@dataclass(frozen=True)
class TailInput:
    """What a tail needs about each topic at its last looked-at rank D (arrays over topics)."""

    gains: np.ndarray        # (n, W) gains within the matrix (0 beyond D)
    depth: np.ndarray        # D per topic
    v_next: np.ndarray       # V(D+1) = prod_{j<=D} C(j), the chance of going past D
    v_sum: np.ndarray        # sum_{i<=D} V(i)
    cg: np.ndarray           # CG(D)
    total_gain: np.ndarray   # R: total gain of the topic's judged documents


@dataclass(frozen=True)
class TailSums:
    """Sums over the ranks i > D of the infinite zero-gain tail (``tail='pad'``).

    ``stop``: sum L(i) (users who stop somewhere in the tail); ``depth``: sum V(i) (their
    contribution to the expected depth V+; may be inf); ``inverse_rank``: sum L(i) / i.
    Users who never stop contribute to none of the three.
    """

    stop: np.ndarray
    depth: np.ndarray
    inverse_rank: np.ndarray


@dataclass(frozen=True)
class BrowsingModel:
    """A registered browsing model.

    ``continuation(gains, params) -> C`` maps the (topics x ranks) gain matrix to the
    matrix of C(i). ``params`` names the CWLA parameters it reads (``p``, ``T``, ``cutoff``).
    ``gain_dependent=False`` marks models whose C ignores the gains (A = ERR is then a
    constant and rejected); ``never_stops_on_zero`` marks models with C = 1 on zero gains
    (V+ infinite under 'pad', so A = ERG is rejected there).
    """

    name: str
    continuation: Callable[[np.ndarray, Params], np.ndarray]
    params: tuple = ()
    requires_cutoff: bool = False
    gain_dependent: bool = True
    default_gain: str = "lin"
    never_stops_on_zero: bool = False
    tail: Optional[Callable[[TailInput, Params], TailSums]] = None


BROWSING_MODELS: dict[str, BrowsingModel] = {}


def register_browsing_model(name: str, continuation: Callable[[np.ndarray, Params], np.ndarray], *,
                            params: tuple = (), requires_cutoff: bool = False, gain_dependent: bool = True,
                            default_gain: str = "lin", never_stops_on_zero: bool = False,
                            tail: Optional[Callable[[TailInput, Params], TailSums]] = None,
                            replace: bool = False) -> BrowsingModel:
    """Registers a browsing model so that ``CWLA(C=name, ...)`` works everywhere.

    ``continuation(gains, params)`` receives the (topics x ranks) float matrix of gains in
    [0, 1] and the measure's parameters (``p``, ``T``, ``beta``, ``cutoff``) and returns
    C(i) for every cell, in [0, 1]. Without ``tail``, ``tail='pad'`` sums the zero-gain
    tail numerically (exact for geometrically decaying V).
    """
    if name in BROWSING_MODELS and not replace:
        raise ValueError(f"browsing model {name!r} is already registered (pass replace=True)")
    model = BrowsingModel(name, continuation, tuple(params), requires_cutoff, gain_dependent, default_gain,
                          never_stops_on_zero, tail)
    BROWSING_MODELS[name] = model
    return model


def get_browsing_model(name: str) -> BrowsingModel:
    try:
        return BROWSING_MODELS[name]
    except KeyError:
        raise ValueError(f"unknown browsing model C={name!r}; valid: {', '.join(BROWSING_MODELS)}") from None


def _ranks(width: int) -> np.ndarray:
    return np.arange(1, width + 1, dtype=np.float64)


# ---------------------------------------------------------------------------------------------
# The zero-gain tails (closed forms)

def _no_tail(inp: TailInput, params: Params) -> TailSums:
    """C reaches 0 at or before D: nobody goes past D."""
    z = np.zeros_like(inp.v_next)
    return TailSums(z, z, z)


def _lerch_phi_1(p: float, n: np.ndarray) -> np.ndarray:
    """Phi(p, 1, n) = sum_{m>=0} p^m / (n + m), summed until the terms are below 1e-18."""
    terms = int(np.ceil(np.log(1e-18) / np.log(p))) + 1
    m = np.arange(terms, dtype=np.float64)
    uniq, inv = np.unique(n, return_inverse=True)
    vals = ((p ** m)[None, :] / (uniq[:, None] + m[None, :])).sum(axis=1)
    return vals[inv]


def _rbp_tail(inp: TailInput, params: Params) -> TailSums:
    """Geometric tail: V(D+1+m) = V(D+1) p^m, so sum V = V(D+1)/(1-p), sum L = V(D+1),
    sum L(i)/i = V(D+1) (1-p) Phi(p, 1, D+1)."""
    p = float(params["p"])
    n = inp.depth.astype(np.float64) + 1
    return TailSums(inp.v_next.copy(), inp.v_next / (1 - p), inp.v_next * (1 - p) * _lerch_phi_1(p, n))


def _h(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """h(x, N) = sum_{i>=N} 1 / (i (i+x)^2), for x > -N.

    |x| < N/2: the convergent series sum_k (k+1) (-x)^k zeta(k+3, N) (Hurwitz zeta);
    otherwise partial fractions: (psi(N+x) - psi(N)) / x^2 - psi1(N+x) / x.
    """
    x = np.asarray(x, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    small = np.abs(x) < n / 2
    out = np.empty(np.broadcast(x, n).shape)
    if small.any():
        xs, ns = x[small], n[small]
        k = np.arange(64, dtype=np.float64)[:, None]
        out[small] = ((k + 1) * (-xs[None, :]) ** k * special.zeta(k + 3, ns[None, :])).sum(axis=0)
    big = ~small
    if big.any():
        xb, nb = x[big], n[big]
        out[big] = (special.digamma(nb + xb) - special.digamma(nb)) / xb**2 - special.polygamma(1, nb + xb) / xb
    return out


def _inst_tail_sums(inp: TailInput, T: float, cg: np.ndarray) -> TailSums:
    """Past D, C(i) = ((i + c) / (i + 1 + c))^2 with c = 2T - CG(D) - 1, so V telescopes:
    V(i) = K / (i + c)^2 with K = V(D+1) (D+1+c)^2. Then sum V = K psi1(D+1+c),
    sum L = V(D+1), and sum L(i)/i = K (h(c, D+1) - h(c+1, D+1)) (see :func:`_h`)."""
    n = inp.depth.astype(np.float64) + 1
    c = 2 * T - cg - 1
    k = inp.v_next * (n + c) ** 2
    active = inp.v_next > 0
    depth = np.zeros_like(k)
    inv = np.zeros_like(k)
    if active.any():
        ka, na, ca = k[active], n[active], c[active]
        depth[active] = ka * special.polygamma(1, na + ca)
        inv[active] = ka * (_h(ca, na) - _h(ca + 1, na))
    return TailSums(inp.v_next.copy(), depth, inv)


def _inst_tail(inp: TailInput, params: Params) -> TailSums:
    return _inst_tail_sums(inp, float(params["T"]), inp.cg)


def _insq_tail(inp: TailInput, params: Params) -> TailSums:
    return _inst_tail_sums(inp, float(params["T"]), np.zeros_like(inp.cg))


def _ap_tail(inp: TailInput, params: Params) -> TailSums:
    """The relevant documents not retrieved lie beyond every rank: L is unchanged (nobody
    stops in the tail) and V+ = R / S with S = sum_{i<=D} r_i / i (inf where S = 0)."""
    s = (inp.gains / _ranks(inp.gains.shape[1])[None, :]).sum(axis=1)
    z = np.zeros_like(inp.v_next)
    with np.errstate(divide="ignore", invalid="ignore"):
        vplus = np.where(s > 0, inp.total_gain / np.where(s > 0, s, 1.0), np.inf)
    return TailSums(z, vplus - inp.v_sum, z)


def _never_stopping_tail(inp: TailInput, params: Params) -> TailSums:
    """C = 1 on every zero-gain document: users who pass D never stop and contribute
    nothing, but make V+ infinite."""
    z = np.zeros_like(inp.v_next)
    return TailSums(z, np.where(inp.v_next > 0, np.inf, 0.0), z)


# ---------------------------------------------------------------------------------------------
# The built-in models

def precision(gains: np.ndarray, params: Params) -> np.ndarray:
    """Precision@k (Eq. 3): C(i) = 1 for i < k, else 0."""
    k = int(params["cutoff"])
    return np.broadcast_to((_ranks(gains.shape[1]) < k).astype(np.float64), gains.shape).copy()


def dcg(gains: np.ndarray, params: Params) -> np.ndarray:
    """DCG@k (Järvelin & Kekäläinen 2002; Eq. 4): C(i) = log2(i+1) / log2(i+2) for i < k,
    else 0, so V(i) = 1 / log2(i+1), the DCG discount."""
    k = int(params["cutoff"])
    i = _ranks(gains.shape[1])
    c = np.where(i < k, np.log2(i + 1) / np.log2(i + 2), 0.0)
    return np.broadcast_to(c, gains.shape).copy()


def rbp(gains: np.ndarray, params: Params) -> np.ndarray:
    """RBP (Moffat & Zobel 2008; Eq. 5): C(i) = p."""
    return np.full(gains.shape, float(params["p"]))


def inst(gains: np.ndarray, params: Params) -> np.ndarray:
    """INST (Bailey et al. 2015; Moffat et al. 2015; Eq. 6):
    C(i) = ((i - 1 + T + T_i) / (i + T + T_i))^2 with T_i = T - sum_{j<=i} r_j."""
    T = float(params["T"])
    i = _ranks(gains.shape[1])[None, :]
    a = 2 * T - np.cumsum(gains, axis=1)
    return ((i - 1 + a) / (i + a)) ** 2


def insq(gains: np.ndarray, params: Params) -> np.ndarray:
    """INSQ (Moffat et al. 2012): C(i) = ((i + 2T - 1) / (i + 2T))^2."""
    T = float(params["T"])
    i = _ranks(gains.shape[1])
    return np.broadcast_to(((i + 2 * T - 1) / (i + 2 * T)) ** 2, gains.shape).copy()


def average_precision(gains: np.ndarray, params: Params) -> np.ndarray:
    """AP (Moffat et al. 2017; Eq. 7): C(i) = sum_{j>i} r_j/j / sum_{j>=i} r_j/j over the
    ranked documents (0 where the denominator is 0), so V(i) = S_i / S_1 and the user stops
    at the last relevant document retrieved."""
    w = gains / _ranks(gains.shape[1])[None, :]
    s = np.cumsum(w[:, ::-1], axis=1)[:, ::-1]          # S_i = sum_{j>=i} r_j / j
    nxt = np.concatenate([s[:, 1:], np.zeros((s.shape[0], 1))], axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(s > 0, nxt / np.where(s > 0, s, 1.0), 0.0)


def expected_reciprocal_rank(gains: np.ndarray, params: Params) -> np.ndarray:
    """ERR (Chapelle et al. 2009; Eq. 8): C(i) = 1 - r_i."""
    return 1.0 - gains


def reciprocal_rank(gains: np.ndarray, params: Params) -> np.ndarray:
    """RR: C(i) = 1 if r_i = 0, else 0 (the user stops at the first document with gain)."""
    return (gains == 0).astype(np.float64)


register_browsing_model("P", precision, params=("cutoff",), requires_cutoff=True, gain_dependent=False,
                        tail=_no_tail)
register_browsing_model("DCG", dcg, params=("cutoff",), requires_cutoff=True, gain_dependent=False,
                        tail=_no_tail)
register_browsing_model("RBP", rbp, params=("p",), gain_dependent=False, tail=_rbp_tail)
register_browsing_model("INST", inst, params=("T",), tail=_inst_tail)
register_browsing_model("INSQ", insq, params=("T",), gain_dependent=False, tail=_insq_tail)
register_browsing_model("AP", average_precision, tail=_ap_tail)
register_browsing_model("ERR", expected_reciprocal_rank, default_gain="exp", never_stops_on_zero=True,
                        tail=_never_stopping_tail)
register_browsing_model("RR", reciprocal_rank, never_stops_on_zero=True, tail=_never_stopping_tail)
