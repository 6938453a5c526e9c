"""The canonical equivalences of cwla-semantics.md, to 1e-9, on every topic of real DL19 runs.

Against ir-measures' own P, AP, AP@k (trec_eval) and RBP (cwl_eval), an independent loop for
Chapelle's ERR@k, and cwl_eval's Python API for SDCG@k, INST(T) and RBP(p).
"""
from __future__ import annotations

import ir_measures
import numpy as np
import pandas as pd
import pytest
from ir_measures import AP, RBP, P

import ir_cwla
from ir_cwla import CWLA

RUNS = ["bm25base_p", "UNH_bm25", "runid5", "runid2", "test1", "ICT-BERT2", "idst_bert_p1", "srchvrs_ps_run2"]


@pytest.fixture(scope="module")
def qrels(dl19_qrels_path):
    return ir_cwla.io.read_trec_qrels(dl19_qrels_path)


@pytest.fixture(scope="module", params=RUNS)
def run(request, dl19_dir):
    return ir_cwla.io.read_trec_run(dl19_dir / "runs" / f"input.{request.param}.gz")


def trec_sorted(run: pd.DataFrame, cutoff=None) -> pd.DataFrame:
    """The run re-written in trec_eval order (score desc, doc_id desc), optionally cut."""
    out = run.assign(score32=run["score"].astype(np.float32))
    out = out.sort_values(["query_id", "score32", "doc_id"], ascending=[True, False, False], kind="stable")
    out = out.drop_duplicates(["query_id", "doc_id"])
    if cutoff is not None:
        out = out.groupby("query_id", sort=False).head(cutoff)
    return out.reset_index(drop=True)


def per_query(measures, qrels, run, provider=None):
    calc = provider.iter_calc if provider is not None else ir_measures.iter_calc
    out = {}
    for metric in calc(measures, qrels, run):
        out[(metric.measure, metric.query_id)] = metric.value
    return out


def assert_same(a: dict, b: dict, pairs):
    """Each (ours, theirs) measure pair agrees on every topic to 1e-9."""
    topics = {q for (_, q) in a}
    assert len(topics) == 43
    for ours, theirs in pairs:
        for q in topics:
            assert a[(ours, q)] == pytest.approx(b[(theirs, q)], abs=1e-9, rel=0), (str(ours), str(theirs), q)


def test_precision_equals_trec_eval(qrels, run):
    pairs = [(CWLA(C="P", A=agg, gain="bin", rel=r, tail=t)@k, P(rel=r)@k)
             for r in (1, 2) for k in (5, 10, 20) for t in ("stop", "pad") for agg in ("ERG", "avg")]
    ours = per_query([p[0] for p in pairs], qrels, run, ir_cwla.PROVIDER)
    theirs = per_query({p[1] for p in pairs}, qrels, run, ir_measures.pytrec_eval)
    assert_same(ours, theirs, pairs)


def test_average_precision_equals_trec_eval(qrels, run):
    pairs = [(CWLA(C="AP", A="ERG", gain="bin", rel=r, tail="pad"), AP(rel=r)) for r in (1, 2)]
    pairs += [(CWLA(C="AP", A="ERG", gain="bin", rel=r, tail="pad")@k, AP(rel=r)@k) for r in (1, 2) for k in (10, 100)]
    ours = per_query([p[0] for p in pairs], qrels, run, ir_cwla.PROVIDER)
    theirs = per_query({p[1] for p in pairs}, qrels, run, ir_measures.pytrec_eval)
    assert_same(ours, theirs, pairs)


def test_rbp_equals_ir_measures_rbp(qrels, run):
    """cwl_eval takes the file's line order: give it the run in trec_eval order."""
    ordered = trec_sorted(run)
    pairs = [(CWLA(C="RBP", A="ERG", p=p, gain="bin", rel=r, tail="pad"), RBP(rel=r, p=p))
             for r in (1, 2) for p in (0.5, 0.8, 0.95)]
    ours = per_query([q[0] for q in pairs], qrels, run, ir_cwla.PROVIDER)
    theirs = per_query({q[1] for q in pairs}, qrels, ordered, ir_measures.cwl_eval)
    assert_same(ours, theirs, pairs)


def test_rbp_stop_at_k_is_rbp_at_k_over_one_minus_p_to_the_k(qrels, run):
    for k, p in ((10, 0.8), (5, 0.5)):
        ours = per_query([CWLA(C="RBP", A="ERG", p=p, gain="bin", rel=1)@k], qrels, run, ir_cwla.PROVIDER)
        theirs = per_query([RBP(rel=1, p=p)], qrels, trec_sorted(run, cutoff=k), ir_measures.cwl_eval)
        for q in {q for (_, q) in ours}:
            expected = theirs[(RBP(rel=1, p=p), q)] / (1 - p ** k)
            assert ours[(CWLA(C="RBP", A="ERG", p=p, gain="bin", rel=1)@k, q)] == pytest.approx(expected, abs=1e-9, rel=0)


def chapelle_err(gains: list, k: int) -> float:
    """ERR@k = sum_{i<=k} (r_i / i) prod_{j<i} (1 - r_j) (Chapelle et al. 2009)."""
    total, still = 0.0, 1.0
    for i, r in enumerate(gains[:k], start=1):
        total += still * r / i
        still *= 1 - r
    return total


def test_err_equals_chapelle(qrels, run):
    x_max = qrels["relevance"].max()
    grade = {(q, d): g for q, d, g in qrels.itertuples(index=False)}
    ordered = trec_sorted(run)
    ks = (5, 10, 20)
    ours = per_query([CWLA(C="ERR", A="ERR", tail="pad")@k for k in ks], qrels, run, ir_cwla.PROVIDER)
    for q, docs in ordered.groupby("query_id")["doc_id"]:
        if q not in set(qrels["query_id"]):
            continue
        gains = [(2.0 ** max(grade.get((q, d), 0), 0) - 1) / 2.0 ** x_max for d in docs]
        for k in ks:
            assert ours[(CWLA(C="ERR", A="ERR", tail="pad")@k, q)] == pytest.approx(chapelle_err(gains, k), abs=1e-9, rel=0)


def cwl_eval_scores(qrels: pd.DataFrame, run: pd.DataFrame, metric_factories: dict) -> dict:
    """Scores through cwl_eval's own Python API (ranking built in trec_eval order, gains x/x_max)."""
    from cwl.cwl_eval import RankingMaker
    from ir_measures.providers.cwl_eval import IrmQrelHandler

    x_max = int(qrels["relevance"].max())
    handler = IrmQrelHandler(None, 0, x_max)
    for q, d, g in qrels.itertuples(index=False):
        handler.put_value(q, d, max(int(g), 0))
    out = {}
    for q, docs in trec_sorted(run).groupby("query_id")["doc_id"]:
        if q not in set(qrels["query_id"]):
            continue
        maker = RankingMaker(q, handler, min_gain=0.0, max_gain=1.0, cost_dict=None, max_cost=1.0, min_cost=1.0,
                             max_n=1000)
        for d in docs:
            maker.add(d, "_")
        ranking = maker.get_ranking()
        for name, factory in metric_factories.items():
            out[(name, q)] = factory().measure(ranking)
    return out


def test_sdcg_inst_rbp_equal_cwl_eval(qrels, run):
    import logging

    from cwl.ruler.measures.cwl_dcg import NDCGCWLMetric
    from cwl.ruler.measures.cwl_inst import INSTCWLMetric
    from cwl.ruler.measures.cwl_rbp import RBPCWLMetric

    logging.getLogger("cwl").disabled = True
    pairs = {
        CWLA(C="DCG", A="ERG")@10: lambda: NDCGCWLMetric(10),
        CWLA(C="DCG", A="ERG", tail="pad")@5: lambda: NDCGCWLMetric(5),
        CWLA(C="INST", A="ERG", T=2.25)@1000: lambda: INSTCWLMetric(2.25),
        CWLA(C="INST", A="ERG", T=1.0)@1000: lambda: INSTCWLMetric(1.0),
        CWLA(C="RBP", A="ERG", p=0.8)@1000: lambda: RBPCWLMetric(0.8),
        CWLA(C="RBP", A="ERG", p=0.95)@1000: lambda: RBPCWLMetric(0.95),
    }
    theirs = cwl_eval_scores(qrels, run, pairs)
    ours = per_query(list(pairs), qrels, run, ir_cwla.PROVIDER)
    assert_same(ours, theirs, [(m, m) for m in pairs])


def test_all_runs_precision_and_ap_match_trec_eval(qrels, dl19_run_paths):
    """Every one of the 37 runs: P@10 and AP (binary, rel=2) as trec_eval gives them."""
    assert len(dl19_run_paths) == 37
    ours_m = [CWLA(C="P", A="ERG", gain="bin", rel=2)@10, CWLA(C="AP", A="ERG", gain="bin", rel=2, tail="pad")]
    ev_ours = ir_cwla.PROVIDER.evaluator(ours_m, qrels)
    ev_theirs = ir_measures.pytrec_eval.evaluator([P(rel=2)@10, AP(rel=2)], qrels)
    for path in dl19_run_paths:
        run = ir_cwla.io.read_trec_run(path)
        a = ev_ours.calc_aggregate(run)
        b = ev_theirs.calc_aggregate(run)
        np.testing.assert_allclose([a[m] for m in ours_m], [b[P(rel=2)@10], b[AP(rel=2)]], atol=1e-12, rtol=0)
