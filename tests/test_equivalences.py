"""The canonical equivalences of docs/semantics.md, to 1e-9, on every topic.

Against ir-measures' own P, AP, AP@k (trec_eval, through pytrec_eval) and RBP (cwl_eval), an
independent loop for Chapelle's ERR@k, and cwl_eval's Python API for SDCG@k, INST(T) and RBP(p).
On every clone on the runs of the synthetic collection (tests/synthetic.py), where the real
data is present also on eight real DL19 runs (and P@10, AP on all 37).

Duplicated doc_ids: trec_eval keeps the last line of a repeated doc_id, ir_cwla the best-scored
one (docs/semantics.md); every comparison with another tool gives both sides the same
deduplicated run (:func:`tests.synthetic.deduplicated`), so that it checks the measures and not
the duplicate policy, whatever that policy is.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import ir_measures
import numpy as np
import pandas as pd
import pytest
from ir_measures import AP, RBP, P

import ir_cwla
from ir_cwla import CWLA
from tests import synthetic

SYNTHETIC_RUNS = list(synthetic.RUN_KINDS)
DL19_RUNS = ["bm25base_p", "UNH_bm25", "runid5", "runid2", "test1", "ICT-BERT2", "idst_bert_p1", "srchvrs_ps_run2"]
DL19_FAST = ("UNH_bm25", "runid2")     # exact ties, ties only in float32: also in make test-fast


@dataclass
class Case:
    """One run and its qrels, with the topics the run answers."""

    qrels: pd.DataFrame
    run: pd.DataFrame

    @property
    def answered(self) -> set:
        return set(self.run["query_id"]) & set(self.qrels["query_id"])


@functools.cache
def _read_qrels(path) -> pd.DataFrame:
    return ir_cwla.io.read_trec_qrels(path)


@pytest.fixture(scope="module", params=[pytest.param(("synthetic", r), id=f"synthetic-{r}") for r in SYNTHETIC_RUNS]
                + [pytest.param(("dl19", r), id=f"dl19-{r}",
                                marks=[pytest.mark.realdata] + ([] if r in DL19_FAST else [pytest.mark.slow]))
                   for r in DL19_RUNS])
def case(request) -> Case:
    source, name = request.param
    files = request.getfixturevalue(f"{source}_files")
    run = synthetic.deduplicated(ir_cwla.io.read_trec_run(files.runs[name], check=False))
    return Case(_read_qrels(files.qrels), run)


def trec_sorted(run: pd.DataFrame, cutoff=None) -> pd.DataFrame:
    """The run re-written in trec_eval order, optionally cut.

    The run re-written in trec_eval order (score desc, doc_id desc), optionally cut, its
    scores rounded to float32 as trec_eval holds them.

    For cwl_eval, which ranks by line order: ir-measures hands it the lines sorted by score
    (a stable sort), so scores tied in float32 but not in float64 must be equal here too,
    or they would be re-ordered by their float64 values.
    """
    out = run.assign(score=run["score"].astype(np.float32).astype(np.float64))
    out = out.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False], kind="stable")
    if cutoff is not None:
        out = out.groupby("query_id", sort=False).head(cutoff)
    return out.reset_index(drop=True)


def per_query(measures, qrels, run, provider=None):
    calc = provider.iter_calc if provider is not None else ir_measures.iter_calc
    out = {}
    for metric in calc(measures, qrels, run):
        out[(metric.measure, metric.query_id)] = metric.value
    return out


def assert_same(case: Case, ours: dict, theirs: dict, pairs):
    """Each (ours, theirs) measure pair agrees to 1e-9 on every topic the run answers.

    A qrels topic the run does not answer scores 0 on both sides.
    """
    topics, answered = set(case.qrels["query_id"]), case.answered
    assert {q for (_, q) in ours} == topics
    assert len(answered) >= 30
    for mine, other in pairs:
        for q in topics:
            expected = theirs[(other, q)] if q in answered else 0.0
            assert ours[(mine, q)] == pytest.approx(expected, abs=1e-9, rel=0), (str(mine), str(other), q)


def test_precision_equals_trec_eval(case):
    pairs = [(CWLA(C="P", A=agg, gain="bin", rel=r, tail=t)@k, P(rel=r)@k)
             for r in (1, 2, 3) for k in (5, 10, 20) for t in ("stop", "pad") for agg in ("ERG", "avg")]
    ours = per_query([p[0] for p in pairs], case.qrels, case.run, ir_cwla.PROVIDER)
    theirs = per_query({p[1] for p in pairs}, case.qrels, case.run, ir_measures.pytrec_eval)
    assert_same(case, ours, theirs, pairs)


def test_average_precision_equals_trec_eval(case):
    pairs = [(CWLA(C="AP", A="ERG", gain="bin", rel=r, tail="pad"), AP(rel=r)) for r in (1, 2, 3)]
    pairs += [(CWLA(C="AP", A="ERG", gain="bin", rel=r, tail="pad")@k, AP(rel=r)@k) for r in (1, 2) for k in (10, 100)]
    ours = per_query([p[0] for p in pairs], case.qrels, case.run, ir_cwla.PROVIDER)
    theirs = per_query({p[1] for p in pairs}, case.qrels, case.run, ir_measures.pytrec_eval)
    assert_same(case, ours, theirs, pairs)


def test_rbp_equals_ir_measures_rbp(case):
    """cwl_eval ranks by line order: give it the run in trec_eval order (:func:`trec_sorted`)."""
    pairs = [(CWLA(C="RBP", A="ERG", p=p, gain="bin", rel=r, tail="pad"), RBP(rel=r, p=p))
             for r in (1, 2) for p in (0.5, 0.8, 0.95)]
    ours = per_query([q[0] for q in pairs], case.qrels, case.run, ir_cwla.PROVIDER)
    theirs = per_query({q[1] for q in pairs}, case.qrels, trec_sorted(case.run), ir_measures.cwl_eval)
    assert_same(case, ours, theirs, pairs)


def test_rbp_stop_at_k_is_rbp_at_k_over_one_minus_p_to_the_k(case):
    for k, p in ((10, 0.8), (5, 0.5)):
        mine = CWLA(C="RBP", A="ERG", p=p, gain="bin", rel=1)@k
        ours = per_query([mine], case.qrels, case.run, ir_cwla.PROVIDER)
        theirs = per_query([RBP(rel=1, p=p)], case.qrels, trec_sorted(case.run, cutoff=k), ir_measures.cwl_eval)
        theirs = {(mine, q): v / (1 - p ** k) for (_, q), v in theirs.items()}
        assert_same(case, ours, theirs, [(mine, mine)])


def chapelle_err(gains: list, k: int) -> float:
    """ERR@k = sum_{i<=k} (r_i / i) prod_{j<i} (1 - r_j) (Chapelle et al. 2009)."""
    total, still = 0.0, 1.0
    for i, r in enumerate(gains[:k], start=1):
        total += still * r / i
        still *= 1 - r
    return total


def test_err_equals_chapelle(case):
    x_max = case.qrels["relevance"].max()
    grade = {(q, d): g for q, d, g in case.qrels.itertuples(index=False)}
    ks = (5, 10, 20)
    measures = [CWLA(C="ERR", A="ERR", tail="pad")@k for k in ks]
    ours = per_query(measures, case.qrels, case.run, ir_cwla.PROVIDER)
    theirs = {}
    for q, docs in trec_sorted(case.run).groupby("query_id")["doc_id"]:
        gains = [(2.0 ** max(grade.get((q, d), 0), 0) - 1) / 2.0 ** x_max for d in docs]
        theirs.update({(m, q): chapelle_err(gains, k) for m, k in zip(measures, ks)})
    assert_same(case, ours, theirs, [(m, m) for m in measures])


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


def test_sdcg_inst_rbp_equal_cwl_eval(case):
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
    theirs = cwl_eval_scores(case.qrels, case.run, pairs)
    ours = per_query(list(pairs), case.qrels, case.run, ir_cwla.PROVIDER)
    assert_same(case, ours, theirs, [(m, m) for m in pairs])


@pytest.mark.parametrize("source", ["synthetic", pytest.param("dl19", marks=[pytest.mark.realdata, pytest.mark.slow])])
def test_all_runs_precision_and_ap_match_trec_eval(source, request):
    """Every run (the 6 synthetic ones; the 37 of DL19).

    P@10 and AP (binary, rel=2), the mean over the qrels topics as ir-measures gives it (0
    for a topic the run does not answer).
    """
    files = request.getfixturevalue(f"{source}_files")
    assert len(files.runs) == {"synthetic": len(SYNTHETIC_RUNS), "dl19": 37}[source]
    qrels = _read_qrels(files.qrels)
    ours_m = [CWLA(C="P", A="ERG", gain="bin", rel=2)@10, CWLA(C="AP", A="ERG", gain="bin", rel=2, tail="pad")]
    ev_ours = ir_cwla.PROVIDER.evaluator(ours_m, qrels)
    ev_theirs = ir_measures.pytrec_eval.evaluator([P(rel=2)@10, AP(rel=2)], qrels)
    for path in files.runs.values():
        run = synthetic.deduplicated(ir_cwla.io.read_trec_run(path, check=False))
        a = ev_ours.calc_aggregate(run)
        b = ev_theirs.calc_aggregate(run)
        np.testing.assert_allclose([a[m] for m in ours_m], [b[P(rel=2)@10], b[AP(rel=2)]], atol=1e-12, rtol=0)
