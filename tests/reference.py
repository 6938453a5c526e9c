"""A slow, loop-based reference for C/W/L/A, written straight from the formulas.

It shares no code with ir_cwla: plain Python loops over ranks for the ranked part, and
mpmath's nsum for the infinite zero-gain tail under tail='pad'. Used only by the tests.
"""
from __future__ import annotations

import functools
import gzip
import math

import mpmath
import numpy as np


def trec_order(docs: dict[str, float]) -> list[str]:
    """Doc ids sorted in trec_eval's order.

    Doc ids sorted by score descending, ties by doc_id descending (trec_eval, which keeps
    scores as single-precision C floats).
    """
    return [d for d, _ in sorted(docs.items(), key=lambda kv: (float(np.float32(kv[1])), kv[0]), reverse=True)]


def gain_of(grade: float, kind: str, x_max: float, rel: float = 1.0) -> float:
    x = max(grade, 0.0)
    if kind == "bin":
        return 1.0 if x >= rel else 0.0
    if x_max <= 0:
        return 0.0
    if kind == "lin":
        return x / x_max
    return (2.0 ** x - 1.0) / 2.0 ** x_max


def continuations(model: str, r: list[float], k, p: float, T: float) -> list[float]:
    """C(1..len(r)) over the gain list r (r[i-1] is the gain at rank i), one rank at a time."""
    out = []
    # S_i = sum_{j>=i} r_j / j, by a backward loop (for AP)
    S = [0.0] * (len(r) + 2)
    for j in range(len(r), 0, -1):
        S[j] = S[j + 1] + r[j - 1] / j
    cg = 0.0
    for i in range(1, len(r) + 1):
        ri = r[i - 1]
        cg += ri
        if model == "P":
            c = 1.0 if i < k else 0.0
        elif model == "DCG":
            c = math.log2(i + 1) / math.log2(i + 2) if i < k else 0.0
        elif model == "RBP":
            c = p
        elif model == "INST":
            Ti = T - cg
            c = ((i - 1 + T + Ti) / (i + T + Ti)) ** 2
        elif model == "INSQ":
            c = ((i + 2 * T - 1) / (i + 2 * T)) ** 2
        elif model == "AP":
            c = S[i + 1] / S[i] if S[i] > 0 else 0.0
        elif model == "ERR":
            c = 1.0 - ri
        elif model == "RR":
            c = 1.0 if ri == 0 else 0.0
        else:
            raise KeyError(model)
        out.append(c)
    return out


def agg_values(agg: str, r: list[float], vplus: float, beta: float, costs=None) -> list[float]:
    """A(1..len(r)), one rank at a time (``costs``: the cost of each rank, 1 if None)."""
    out, cg, mx, cc = [], 0.0, 0.0, 0.0
    for i, ri in enumerate(r, start=1):
        cg += ri
        mx = max(mx, ri)
        cc += 1.0 if costs is None else costs[i - 1]
        out.append(agg_value(agg, i, ri, cg, mx, vplus, beta, cc))
    return out


def agg_value(agg: str, i: int, ri: float, cg: float, mx: float, vplus: float, beta: float, cc: float = 0.0) -> float:
    if agg == "EC":
        return cc / vplus
    if agg == "ETC":
        return cc
    if agg == "EI":
        return float(i)
    if agg == "ERG":
        return cg / vplus if vplus != math.inf else 0.0
    if agg == "ETG":
        return cg
    if agg == "avg":
        return cg / i
    if agg == "max":
        return mx
    if agg == "fin":
        return ri
    if agg == "PE":
        return beta * mx + (1 - beta) * ri
    if agg == "ERR":
        return 1.0 / i
    raise KeyError(agg)


def score(r: list[float], model: str, agg: str, depth: int, tail: str = "stop", k=None,
          p: float = 0.8, T: float = 2.25, beta: float = 0.5, total_gain: float = 0.0,
          costs=None, pad_cost: float = 1.0) -> float:
    """M = sum_i L(i) A(i) for one topic, by brute force.

    M = sum_i L(i) A(i) for one topic whose gain list r is looked at down to ``depth``
    (``costs``: of each ranked document, for EC and ETC; ``pad_cost`` past the ranking).
    """
    costs = [1.0] * len(r) if costs is None else list(costs)
    costs = costs[:depth] + [pad_cost] * max(0, depth - len(costs))
    r = list(r[:depth]) + [0.0] * max(0, depth - len(r))
    C = continuations(model, r, k, p, T)
    if tail == "stop":
        C[depth - 1] = 0.0
    V = [1.0]
    for i in range(1, depth + 1):
        V.append(V[-1] * C[i - 1])          # V[i] = V(i+1)
    L = [V[i - 1] * (1 - C[i - 1]) for i in range(1, depth + 1)]
    vplus = sum(V[:depth])
    tail_stop = tail_depth = tail_inv = tail_rank = 0.0
    if tail == "pad":
        v_next = V[depth]
        tail_stop, tail_depth, tail_inv, tail_rank = pad_tail(model, tuple(r), depth, v_next, p, T, total_gain,
                                                              vplus, agg in ("EI", "ETC", "EC"))
        vplus += tail_depth
    A = agg_values(agg, r, vplus, beta, costs)
    m = sum(L[i] * A[i] for i in range(depth) if L[i] != 0)
    if tail == "pad":
        cg = sum(r)
        mx = max(r) if r else 0.0
        cc = sum(costs)
        # past D: A(i) = const + coef / i + slope * i
        const = {"ERG": (cg / vplus if vplus != math.inf else 0.0), "ETG": cg, "avg": 0.0, "max": mx,
                 "fin": 0.0, "PE": beta * mx, "ERR": 0.0, "EI": 0.0, "ETC": cc - pad_cost * depth,
                 "EC": (cc - pad_cost * depth) / vplus}[agg]
        coef = {"avg": cg, "ERR": 1.0}.get(agg, 0.0)
        slope = {"EI": 1.0, "ETC": pad_cost, "EC": pad_cost / vplus}.get(agg, 0.0)
        m += const * tail_stop + coef * tail_inv + slope * tail_rank
    return m


@functools.cache
def pad_tail(model: str, r: tuple, depth: int, v_next: float, p: float, T: float,
             total_gain: float, vsum: float, with_rank: bool = False) -> tuple[float, float, float, float]:
    """(sum L, sum V, sum L/i, sum L i) over ranks i > depth, where every gain is 0."""
    n = depth + 1
    if model in ("P", "DCG") or v_next == 0 and model not in ("AP",):
        return 0.0, 0.0, 0.0, 0.0
    if model == "RBP":
        return _summed_tail("RBP", n, v_next, p, with_rank)
    if model in ("INST", "INSQ"):
        # past D: C(i) = ((i - 1 + a) / (i + a))^2 with a = 2T - CG(D); the product telescopes
        return _summed_tail("INST", n, v_next, 2 * T - (sum(r) if model == "INST" else 0.0), with_rank)
    if model == "AP":
        s = sum(r[i - 1] / i for i in range(1, depth + 1))
        vplus = total_gain / s if s > 0 else math.inf
        return 0.0, vplus - vsum, 0.0, 0.0
    if model in ("ERR", "RR"):
        return 0.0, math.inf, 0.0, 0.0
    raise KeyError(model)


@functools.cache
def _summed_tail(kind: str, n: int, v_next: float, x: float, with_rank: bool = False
                 ) -> tuple[float, float, float, float]:
    """The tail sums from rank n on, by mpmath's nsum.

    V(i) = v_next p^(i-n) ('RBP', x = p) or v_next ((n-1+a) / (i-1+a))^2 ('INST', x = a).
    Cached on what the sums depend on, so that topics with the same depth and V(D+1) (every
    RBP topic at a cutoff) share one sum. ``with_rank`` also sums L(i) i (0 otherwise).
    """
    if kind == "RBP":
        v = lambda i: v_next * mpmath.power(x, i - n)  # noqa: E731
    else:
        v = lambda i: v_next * ((n - 1 + x) / (i - 1 + mpmath.mpf(x))) ** 2  # noqa: E731
    l_ = lambda i: v(i) - v(i + 1)  # noqa: E731
    # V decays geometrically for RBP (Richardson/Shanks converge) but only as 1/i^2 for
    # INST/INSQ, where the Euler-Maclaurin formula is needed for 1e-12
    method = "r+s" if kind == "RBP" else "euler-maclaurin"
    with mpmath.workdps(30):
        stop = mpmath.nsum(l_, [n, mpmath.inf], method=method)
        dep = mpmath.nsum(v, [n, mpmath.inf], method=method)
        inv = mpmath.nsum(lambda i: l_(i) / i, [n, mpmath.inf], method=method)
        rank = mpmath.nsum(lambda i: l_(i) * i, [n, mpmath.inf], method=method) if with_rank else 0
    return float(stop), float(dep), float(inv), float(rank)


def read_run(path) -> dict[str, dict[str, float]]:
    """{qid: {docno: score}} from a TREC run file, by hand (duplicates keep the best score)."""
    opener = gzip.open if str(path).endswith(".gz") else open
    run: dict[str, dict[str, float]] = {}
    with opener(path, "rt") as f:
        for line in f:
            qid, _, doc, _, sc, _ = line.split()
            d = run.setdefault(qid, {})
            d[doc] = max(float(sc), d.get(doc, -math.inf))
    return run


def read_qrels(path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with open(path) as f:
        for line in f:
            qid, _, doc, grade = line.split()
            qrels.setdefault(qid, {})[doc] = int(grade)
    return qrels


def ranked_gains(run_topic: dict[str, float], qrels_topic: dict[str, int], kind: str, x_max: float,
                 rel: float = 1.0) -> list[float]:
    return [gain_of(qrels_topic.get(d, 0), kind, x_max, rel) for d in trec_order(run_topic)]


def policy_gains(run_topic: dict[str, float], qrels_topic: dict[str, int], kind: str, x_max: float,
                 policy: str, rel: float = 1.0, max_rel=None) -> tuple[list[float], float]:
    """(ranked gain list, R) of one topic with unjudged documents treated by ``policy``.

    'zero' gain 0; 'max' the largest gain (that of grade max_rel or x_max, 1 for bin), and R
    counts them as relevant documents of the topic; 'condense' removed from the ranking.
    """
    top_grade = max_rel if max_rel is not None else x_max
    scale = max_rel if max_rel is not None else x_max
    top = gain_of(top_grade, kind, scale, rel)
    gains, total = [], sum(gain_of(g, kind, scale, rel) for g in qrels_topic.values())
    for d in trec_order(run_topic):
        if d in qrels_topic:
            gains.append(gain_of(qrels_topic[d], kind, scale, rel))
        elif policy == "max":
            gains.append(top)
            total += top
        elif policy == "zero":
            gains.append(0.0)
        elif policy != "condense":
            raise KeyError(policy)
    return gains, total


def assert_scores_agree(measures, topics, scores, expected_of) -> int:
    """Every topic's score of every measure equals the reference's to 1e-9.

    Every topic's score of every measure (``scores[m]`` in the order of ``topics``) equals the
    reference's ``expected_of(m)`` (``{qid: value}``) to 1e-9 and is finite; returns how many
    reference values are not ~0 (so that a caller can check the comparison was not vacuous).
    """
    import pytest

    from ir_cwla import short_name

    nonzero = 0
    for m in measures:
        got = dict(zip(topics, scores[m]))
        for qid, value in expected_of(m).items():
            assert math.isfinite(got[qid])
            assert got[qid] == pytest.approx(value, abs=1e-9, rel=0), (short_name(m), qid)
            nonzero += abs(value) > 1e-6
    return nonzero
