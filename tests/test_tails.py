"""Tails in O(1).

RBP with p -> 1, and cutoffs deeper than the ranking, against mpmath and the
slow loop reference (tests/reference.py).
"""
from __future__ import annotations

import math
import tracemalloc

import mpmath
import numpy as np
import pandas as pd
import pytest

import ir_cwla
from ir_cwla import CWLA
from ir_cwla.measures._tails import lerch_phi_1 as _lerch_phi_1
from tests import reference as ref

AGGS = ("ERG", "ETG", "avg", "max", "fin", "PE", "ERR")


@pytest.mark.parametrize("p", [0.5, 0.8, 0.99, 0.995, 0.999999, 0.99999999, 0.9999999999])
def test_lerch_phi_matches_mpmath(p):
    n = np.array([1.0, 2.0, 11.0, 65.0, 1001.0, 1e6 + 1, 3e9])
    got = _lerch_phi_1(p, n)
    with mpmath.workdps(40):
        expected = [float(mpmath.lerchphi(mpmath.mpf(p), 1, mpmath.mpf(x))) for x in n]
    np.testing.assert_allclose(got, expected, rtol=1e-13, atol=0)


def _frame(rows):
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


def _qrels(rows):
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])


#: three topics: graded, binary-ish and one with nothing relevant; rankings of 3-6 documents
RUN = _frame([("q1", f"d{i}", 10.0 - i) for i in range(6)] + [("q2", f"e{i}", 5.0 - i) for i in range(3)]
             + [("q3", f"f{i}", 1.0 - i) for i in range(4)])
QRELS = _qrels([("q1", "d0", 2), ("q1", "d2", 3), ("q1", "d5", 1), ("q1", "dx", 3), ("q2", "e1", 1),
                ("q2", "ey", 2), ("q3", "fz", 1), ("q3", "f0", 0)])
RUN_PY = {q: dict(zip(g["doc_id"], g["score"])) for q, g in RUN.groupby("query_id")}
QRELS_PY = {q: dict(zip(g["doc_id"], g["relevance"])) for q, g in QRELS.groupby("query_id")}


def _reference(measure):
    x_max = max(g for q in QRELS_PY.values() for g in q.values())
    spec = measure.gain_spec()
    k = measure.params.get("cutoff")
    out = {}
    for qid, docs in RUN_PY.items():
        r = ref.ranked_gains(docs, QRELS_PY[qid], spec.kind, x_max, spec.rel or 1.0)
        total = sum(ref.gain_of(g, spec.kind, x_max, spec.rel or 1.0) for g in QRELS_PY[qid].values())
        out[qid] = ref.score(r, measure["C"], measure["A"], k if k is not None else len(r), measure["tail"], k=k,
                             total_gain=total, p=measure["p"], T=measure["T"], beta=measure["beta"])
    return out


def _scores(measures):
    ev = ir_cwla.CwlaEvaluator(measures, QRELS)
    topics, scores = ev.score(RUN)
    return {m: dict(zip(topics, scores[m])) for m in measures}


DEEP = [CWLA(C=c, A=a, tail=t) @ k for c in ("P", "DCG", "RBP", "INST", "INSQ", "AP", "ERR", "RR") for a in AGGS
        for t in ("stop", "pad") for k in (9, 40)
        if not (a == "ERR" and c in ("P", "DCG", "RBP", "INSQ"))
        and not (t == "pad" and a == "ERG" and c in ("ERR", "RR"))]


def test_cutoffs_deeper_than_every_ranking_match_the_reference():
    """Every model and aggregation, both tails, @9 and @40 on rankings of 3-6 documents.

    The ranks past the ranking are summed in closed form, the reference loops over
    them.
    """
    got = _scores(DEEP)
    for m in DEEP:
        for qid, value in _reference(m).items():
            assert got[m][qid] == pytest.approx(value, abs=1e-12, rel=1e-12), (ir_cwla.short_name(m), qid)


@pytest.mark.parametrize("model", ["P", "DCG"])
def test_deep_stretch_past_direct_summation_matches_the_reference(model):
    """@70,000: DCG's zero-gain stretch is summed directly for 65,536 ranks, then by Euler-Maclaurin."""
    measures = [CWLA(C=model, A=a) @ 70000 for a in ("ERG", "ETG", "avg", "max", "fin")]
    got = _scores(measures)
    for m in measures:
        for qid, value in _reference(m).items():
            assert got[m][qid] == pytest.approx(value, abs=1e-13, rel=1e-12), (ir_cwla.short_name(m), qid)


def test_a_cutoff_of_a_billion_costs_nothing_and_is_exact():
    measures = [CWLA(C=c, A=a) @ 1_000_000_000 for c in ("P", "DCG", "RBP", "INST", "ERR")
                for a in ("ERG", "ETG", "avg") if not (c == "P" and a == "avg")]
    tracemalloc.start()
    got = _scores(measures)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 50e6
    x_max = 3.0
    r1 = [2 / x_max, 0.0, 3 / x_max, 0.0, 0.0, 1 / x_max]               # q1's gains, lin
    d = 1_000_000_000
    # P@D: CG / D, for every aggregation that is a rate of gain
    assert got[CWLA(C="P", A="ERG") @ d]["q1"] == pytest.approx(sum(r1) / d, rel=1e-14)
    assert got[CWLA(C="P", A="ETG") @ d]["q1"] == pytest.approx(sum(r1), rel=1e-14)
    # DCG@D: ERG = sum r_i / log2(i+1) / sum_{i<=D} 1/log2(i+1), V+ summed by mpmath's Euler-Maclaurin
    with mpmath.workdps(30):
        vplus = mpmath.sumem(lambda i: 1 / mpmath.log(i + 1, 2), [1, d])
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(r1))
    assert got[CWLA(C="DCG", A="ERG") @ d]["q1"] == pytest.approx(float(dcg / vplus), rel=1e-12)
    # RBP@D with D huge: the stopping at D is p^D ~ 0, so it equals RBP under 'pad'
    pad = _scores([CWLA(C="RBP", A=a, tail="pad") for a in ("ERG", "ETG", "avg")])
    for a in ("ERG", "ETG", "avg"):
        assert got[CWLA(C="RBP", A=a) @ d]["q1"] == pytest.approx(pad[CWLA(C="RBP", A=a, tail="pad")]["q1"],
                                                                   rel=1e-14)
    # ERR@D on q2 (exp gains 0, 1/8, 0): 1/8 of the users stop at rank 2, the other 7/8 (C = 1 on
    # zero gains) at D; all of them have seen CG = 1/8
    assert got[CWLA(C="ERR", A="ETG") @ d]["q2"] == pytest.approx(1 / 8, rel=1e-14)
    assert got[CWLA(C="ERR", A="avg") @ d]["q2"] == pytest.approx(1 / 8 * (1 / 8) / 2 + 7 / 8 * (1 / 8) / d,
                                                                   rel=1e-12)


@pytest.mark.parametrize("p", [0.999999, 0.9999999999])
def test_rbp_pad_with_p_close_to_one_is_exact_and_small(p, dl19_qrels_path, dl19_dir):
    """Under 'pad' RBP's tail is V(D+1) [1/(1-p), 1, (1-p) Phi(p, 1, D+1)].

    Exact at p -> 1 (mpmath's lerchphi), in O(1) memory (the old series needed log(1e-18)/log(p)
    terms: 3 TiB at 1 - 1e-10).
    """
    measures = [CWLA(C="RBP", A=a, p=p, tail="pad") for a in ("ERG", "ETG", "avg", "max", "fin", "PE")]
    qrels = ir_cwla.io.read_trec_qrels(dl19_qrels_path)
    run = ir_cwla.io.read_trec_run(dl19_dir / "runs" / "input.ICT-BERT2.gz")
    tracemalloc.start()
    topics, scores = ir_cwla.CwlaEvaluator(measures, qrels).score(run)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 100e6
    qrels_py = ref.read_qrels(dl19_qrels_path)
    run_py = ref.read_run(dl19_dir / "runs" / "input.ICT-BERT2.gz")
    x_max = 3.0
    for t in range(0, len(topics), 8):
        qid = topics[t]
        r = ref.ranked_gains(run_py[qid], qrels_py[qid], "lin", x_max)
        n = len(r) + 1
        with mpmath.workdps(40):
            pm = mpmath.mpf(p)
            v_next = pm ** len(r)
            tail = (v_next, v_next / (1 - pm), v_next * (1 - pm) * mpmath.lerchphi(pm, 1, n))
            inside = [(pm ** (i - 1) * (1 - pm), pm ** (i - 1)) for i in range(1, n)]      # (L, V)
            vplus = sum(v for _, v in inside) + tail[1]
            cg = sum(r)
            for m in measures:
                a = ref.agg_values(m["A"], r, float(vplus), 0.5)
                value = sum(L * A for (L, _), A in zip(inside, a))
                const = {"ERG": cg / vplus, "ETG": cg, "avg": 0, "max": max(r), "fin": 0, "PE": 0.5 * max(r)}[m["A"]]
                value += const * tail[0] + (cg * tail[2] if m["A"] == "avg" else 0)
                assert scores[m][t] == pytest.approx(float(value), rel=1e-12, abs=1e-15), (m["A"], qid)


@pytest.mark.parametrize("x, n", [(2.5, 11.0), (-0.5, 1.0), (1e3, 1e4 + 1), (5e3, 2e4), (1e5, 1e9), (1e11, 1e12),
                                  (3.0, 1e18), (-3.0, 2.0**62), (40.0, 3.0)])
def test_inst_tail_series_h_matches_mpmath(x, n):
    """The INST tail series h matches mpmath.

    h(x, N) = sum_{i>=N} 1/(i (i+x)^2) (INST/INSQ tails), including N and x where the plain
    Hurwitz series would overflow (finite horizons up to 2^62 ranks, T up to 1e12).
    """
    from ir_cwla.measures._tails import hurwitz_h as _h

    def f(i):
        return 1 / (i * (i + mpmath.mpf(x)) ** 2)

    with mpmath.workdps(50):   # the first 2,000 terms directly, the rest by Euler-Maclaurin
        head = mpmath.fsum(f(mpmath.mpf(n) + j) for j in range(2000))
        expected = head + mpmath.sumem(f, [mpmath.mpf(n) + 2000, mpmath.inf])
    assert _h(np.array([x]), np.array([n]))[0] == pytest.approx(float(expected), rel=1e-14)
