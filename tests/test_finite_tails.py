"""Every browsing model sums the ranks past the ranking without a matrix as wide as the cutoff.

NERR9, SET, U, BPM, BPMD, IFTrate and IFT used to be padded with zeros up to the cutoff
(``U_ERG@10000000`` on one DL19 run allocated 3.2 GiB); now their tails are closed forms (NERR9,
SET, U), flat until a budget runs out (BPM, BPMD) or summed rank by rank until V is negligible
(IFTrate, IFT). Checked against the padded matrix (the old computation) at small cutoffs, against
the slow loop reference of ``tests/test_cwl_models.py`` on the synthetic collection, against
mpmath for cutoffs of 10^9, and for memory at those cutoffs.
"""
from __future__ import annotations

import tracemalloc
import warnings

import mpmath
import numpy as np
import pytest

import ir_cwla
from ir_cwla import CWLA
from ir_cwla.errors import KernelError
from ir_cwla.measures import BROWSING_MODELS, TailInput
from ir_cwla.measures._aggregation import get_aggregation
from ir_cwla.measures._browsing import get_browsing_model
from ir_cwla.scoring import _kernel as kernel
from tests import synthetic
from tests.test_cwl_models import reference_score

PARAMS = dict(L=9.0, T=1.5, K=6.0, hb=0.7, hc=0.3, gain_med=0.4, rate=0.3, b2=0.8, R2=4.0, b1=0.9, R1=3.0,
              exponent=0.6, phi=0.85, discount=0.2, halflife=6.0)
AGGS = ("ERG", "ETG", "avg", "max", "fin", "PE", "ERR", "EC", "ETC", "EI")
NEW = ("NERR9", "SET", "U", "BPM", "BPMD", "IFTrate", "IFT")


def _measure(model: str, agg: str, tail: str, cutoff: int, **extra):
    own = {k: v for k, v in {**PARAMS, **extra}.items() if k in BROWSING_MODELS[model].params}
    try:
        m = CWLA(C=model, A=agg, tail=tail, **own) @ cutoff
        m.validate_params()
    except ValueError:
        return None
    return m


def _matrices(seed: int = 1, n: int = 8, w: int = 12):
    rng = np.random.default_rng(seed)
    gains = rng.choice([0, 0, 0.25, 0.5, 1.0], (n, w))
    kept = np.array([w, w, 5, 3, 1, 0, 8, 2])[:n]
    for i, k in enumerate(kept):
        gains[i, k:] = 0
    costs = rng.choice([0.5, 1.0, 2.0, 3.0], (n, w))
    return gains, kept, costs


def _both(m, gains, kept, costs, cutoff, pad_cost, width):
    """A tail's scores, and the scores of the same ranking padded out under 'stop'.

    (the tail's scores over a matrix of the ranking's width, the scores over a matrix padded
    with zero gains and padding costs to ``width`` ranks, looked at to its end under 'stop').
    """
    n, w = gains.shape
    model, agg, params = get_browsing_model(m["C"]), get_aggregation(m["A"]), m.model_params()
    cst = np.where(np.arange(w)[None, :] < kept[:, None], costs, pad_cost)
    b = kernel.browse(gains, np.full(n, cutoff), model, params, m["tail"], costs=cst, pad_cost=pad_cost)
    got = kernel.aggregate(b, agg, params, cst if agg.needs_costs else None, pad_cost)
    g2 = np.zeros((n, width))
    g2[:, :w] = gains
    c2 = np.full((n, width), pad_cost)
    c2[:, :w] = cst
    b2 = kernel.browse(g2, np.full(n, width if m["tail"] == "pad" else cutoff), model, params, "stop", costs=c2,
                       pad_cost=pad_cost)
    return got, kernel.aggregate(b2, agg, params, c2 if agg.needs_costs else None, pad_cost)


def test_every_model_has_a_finite_tail():
    assert [name for name, model in BROWSING_MODELS.items() if not model.finite_tail] == []


@pytest.mark.parametrize("model", NEW)
@pytest.mark.parametrize("tail", ["stop", "pad"])
def test_tails_equal_the_padded_matrix(model, tail):
    """Cutoffs 13, 30 and 200 past rankings of 0-12 documents, costs 0.5-3 and padding 1.5.

    Under 'pad' against a matrix 6,000 ranks deeper (every user of these parameters stops well
    before).
    """
    gains, kept, costs = _matrices()
    checked = 0
    for agg in AGGS:
        for cutoff in (13, 30, 200):
            m = _measure(model, agg, tail, cutoff)
            if m is None:
                continue
            got, padded = _both(m, gains, kept, costs, cutoff, 1.5, cutoff if tail == "stop" else cutoff + 6000)
            np.testing.assert_allclose(got, padded, rtol=1e-12, atol=1e-13, err_msg=ir_cwla.short_name(m))
            checked += 1
    assert checked >= 15


@pytest.mark.parametrize("extra", [dict(T=50.0, K=100.0, hb=0.0, hc=-3.0),
                                   dict(T=50.0, K=100.0, hb=-1.0, hc=-1.0, gain_med=1.0)])
def test_bpmd_budgets_that_never_run_out(extra):
    """Budgets that never run out: hc gain_med <= -padding cost and hb gain_med <= 0.

    The budgets grow as fast as what is spent, so users who pass the ranking never stop: finite
    under 'stop' (equal to the padded matrix), V+ infinite under 'pad'.
    """
    gains, kept, costs = _matrices(seed=4)
    for agg in ("ERG", "ETG", "EI"):
        m = _measure("BPMD", agg, "stop", 400, **extra)
        got, padded = _both(m, gains, kept, costs, 400, 1.0, 400)
        np.testing.assert_allclose(got, padded, rtol=1e-12, atol=1e-13)
    m = _measure("BPMD", "ETG", "pad", 400, **extra)
    model = get_browsing_model("BPMD")
    b = kernel.browse(gains, np.full(len(gains), 400), model, m.model_params(), "pad",
                      costs=np.where(np.arange(12)[None, :] < kept[:, None], costs, 1.0))
    assert np.isinf(b.vplus).all()


def test_tails_against_the_slow_reference_on_the_synthetic_collection():
    """Cutoffs 150 and 2,000 past every ranking of the 'short' and 'graded' runs (unit costs)."""
    coll = synthetic.make_collection(n_topics=10, max_depth=60)
    qrels = coll.qrels
    x_max = float(qrels["relevance"].max())
    grade = {(q, d): max(g, 0) for q, d, g in qrels.itertuples(index=False)}
    measures = [m for c in NEW for a in ("ERG", "ETG", "avg", "ETC", "EI") for t in ("stop", "pad")
                for k in (150, 2000) if (m := _measure(c, a, t, k)) is not None]
    measures = [m(costs="grade:0:1;1:1;2:1;3:1;4:1") if m["A"] in ("EC", "ETC") or
                get_browsing_model(m["C"]).uses_costs else m for m in measures]
    from tests.test_equivalences import trec_sorted

    for name in ("short", "graded"):
        run = synthetic.deduplicated(coll.runs[name])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ir_cwla.IrCwlaWarning)
            topics, scores = ir_cwla.CwlaEvaluator(measures, qrels).score(run)
        ordered = trec_sorted(run)
        for t, q in enumerate(topics[:4]):
            docs = ordered[ordered["query_id"] == q]["doc_id"]
            r = [grade.get((q, d), 0) / x_max for d in docs]
            for m in measures:
                p = dict(PARAMS, k=m["cutoff"])
                want = reference_score(m["C"], m["A"], r, [1.0] * len(r), m["cutoff"], m["tail"], p,
                                       extra=3000)
                assert scores[m][t] == pytest.approx(want, rel=1e-10, abs=1e-12), (ir_cwla.short_name(m), q)


def _tail_input(depth, v_next, horizon, cg=None):
    n = len(depth)
    return TailInput(np.zeros((n, 0)), np.asarray(depth), np.asarray(v_next, dtype=float), np.zeros(n),
                     np.zeros(n) if cg is None else np.asarray(cg, dtype=float), np.full(n, np.nan),
                     np.asarray(horizon, dtype=float))


@pytest.mark.parametrize("exponent", [0.3, 0.6, 1.0])
def test_set_and_nerr9_tails_at_a_billion_against_mpmath(exponent):
    from ir_cwla.measures._cwl_models import _nerr9_tail, _set_tail

    d = 10 ** 9
    depth = np.array([0, 3, 40, 999])
    inp = _tail_input(depth, [1.0, 0.4, 0.1, 0.02], d - depth)
    set_sums = _set_tail(inp, {"cutoff": d, "exponent": exponent})
    nerr_sums = _nerr9_tail(inp, {"cutoff": d})
    with mpmath.workdps(30):
        for i, e in enumerate(depth.tolist()):
            a, v = e + 1, float(inp.v_next[i])

            def w(x):
                return (x + 1) ** mpmath.mpf(exponent) - x ** mpmath.mpf(exponent)

            depth_set = v / w(a) * ((d + 1) ** mpmath.mpf(exponent) - a ** mpmath.mpf(exponent))
            # the first 2,000 terms one by one, the rest (smooth, far from 0) by Euler-Maclaurin
            head = mpmath.fsum(w(j) / (j * (j - 1)) for j in range(a + 1, a + 2001))
            rest = mpmath.sumem(lambda j: w(j) / (j * (j - 1)), [a + 2001, d])
            inv_set = v / a - v / w(a) * (head + rest)
            assert set_sums.depth[i] == pytest.approx(float(depth_set), rel=1e-12)
            assert set_sums.inverse_rank[i] == pytest.approx(float(inv_set), rel=1e-11)
            depth_nerr = v * a * (mpmath.harmonic(d) - mpmath.harmonic(a - 1))
            # sum_{j=a}^{d-1} 1 / (j^2 (j+1)) = psi1(a) - psi1(d) - (1/a - 1/d), at 30 digits
            s2 = mpmath.psi(1, a) - mpmath.psi(1, d) - (mpmath.mpf(1) / a - mpmath.mpf(1) / d)
            inv_nerr = v * a * (s2 + mpmath.mpf(1) / d**2)
            assert nerr_sums.depth[i] == pytest.approx(float(depth_nerr), rel=1e-12)
            assert nerr_sums.inverse_rank[i] == pytest.approx(float(inv_nerr), rel=1e-11)
            assert set_sums.stop[i] == nerr_sums.stop[i] == v


def test_a_cutoff_of_a_billion_costs_nothing_for_every_model():
    coll = synthetic.make_collection(n_topics=12, max_depth=80)
    d = 10 ** 9
    measures = [m for c in NEW for a in ("ERG", "ETG", "EI") if (m := _measure(c, a, "stop", d)) is not None]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ir_cwla.IrCwlaWarning)
        scorer = ir_cwla.Scorer(measures, coll.qrels)
        tracemalloc.start()
        try:
            _, scores = scorer.score_run(coll.runs["graded"])
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        # models whose users all stop within a few thousand ranks: the same as at a cutoff of 20,000
        _, shallow = ir_cwla.Scorer([m(cutoff=20000) for m in measures], coll.qrels).score_run(coll.runs["graded"])
    assert peak < 50 * 2 ** 20, peak
    for m in measures:
        assert np.isfinite(scores[m]).all(), ir_cwla.short_name(m)
        if m["C"] in ("U", "BPM", "BPMD", "IFTrate", "IFT"):
            np.testing.assert_allclose(scores[m], shallow[m(cutoff=20000)], rtol=1e-12, atol=1e-14,
                                       err_msg=ir_cwla.short_name(m))


def test_a_tail_that_does_not_converge_is_a_clear_error():
    """A tail that does not converge is a clear error.

    IFTrate with C -> 1 - 1e-9 past the ranking (a rate no list can fall below) would need
    billions of ranks under 'pad': refused, not summed for hours or padded into memory.
    """
    m = _measure("IFTrate", "ETG", "pad", 10, rate=-3.0, R2=7.0, b2=1.0)
    gains, kept, costs = _matrices()
    cst = np.where(np.arange(12)[None, :] < kept[:, None], costs, 1.0)
    with pytest.raises(KernelError, match="does not converge"):
        kernel.browse(gains, np.full(len(gains), 10), get_browsing_model("IFTrate"), m.model_params(), "pad",
                      costs=cst)
