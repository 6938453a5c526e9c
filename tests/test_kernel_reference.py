"""All 39 Table-1 measures, both tails, against the slow loop-based reference on real runs."""
from __future__ import annotations

import math

import numpy as np
import pytest

import ir_cwla
from ir_cwla import CWLA, table1
from tests import reference as ref

# five real DL19 runs: plain, heavily tied scores (UNH_bm25; runid2 ties only in float32), depth 20
# (ICT-BERT2), neural
RUNS = ["bm25base_p", "UNH_bm25", "runid2", "ICT-BERT2", "idst_bert_p1"]


@pytest.fixture(scope="module")
def qrels_py(dl19_qrels_path):
    return ref.read_qrels(dl19_qrels_path)


@pytest.fixture(scope="module")
def evaluator_factory(dl19_qrels_path):
    qrels = ir_cwla.io.read_trec_qrels(dl19_qrels_path)
    return lambda measures: ir_cwla.CwlaEvaluator(measures, qrels)


def _reference_scores(measure, run_py, qrels_py, topics=None):
    x_max = max(g for q in qrels_py.values() for g in q.values())
    spec = measure.gain_spec()
    params = dict(p=measure["p"], T=measure["T"], beta=measure["beta"])
    k = measure.params.get("cutoff")
    out = {}
    for qid, docs in run_py.items():
        if qid not in qrels_py or (topics is not None and qid not in topics):
            continue
        r = ref.ranked_gains(docs, qrels_py[qid], spec.kind, x_max, spec.rel or 1.0)
        total = sum(ref.gain_of(g, spec.kind, x_max, spec.rel or 1.0) for g in qrels_py[qid].values())
        depth = k if k is not None else len(r)
        out[qid] = ref.score(r, measure["C"], measure["A"], depth, measure["tail"], k=k, total_gain=total, **params)
    return out


def _compare(measures, run_path, qrels_py, evaluator_factory, n_topics=None):
    run_py = ref.read_run(run_path)
    ev = evaluator_factory(measures)
    topics, scores = ev.score(ir_cwla.io.read_trec_run(run_path))
    assert set(topics) == set(run_py) & set(qrels_py)
    assert len(topics) == 43
    subset = None if n_topics is None else set(sorted(topics)[:n_topics])
    for m in measures:
        expected = _reference_scores(m, run_py, qrels_py, subset)
        got = dict(zip(topics, scores[m]))
        for qid, value in expected.items():
            assert math.isfinite(got[qid])
            assert got[qid] == pytest.approx(value, abs=1e-9, rel=0), (ir_cwla.short_name(m), qid)


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("tail", ["stop", "pad"])
def test_table1_matches_reference(run, tail, dl19_dir, qrels_py, evaluator_factory):
    measures = [m(tail=tail) for m in table1()]
    assert len(measures) == 39
    if tail == "pad":   # ERR_ERG has an infinite V+ under 'pad' (semantics): rejected, checked in test_errors
        measures = [m for m in measures if not (m["C"] == "ERR" and m["A"] == "ERG")]
    _compare(measures, dl19_dir / "runs" / f"input.{run}.gz", qrels_py, evaluator_factory)


FULL_DEPTH = [CWLA(C=c, A=a, tail=t) for c in ("RBP", "INST", "INSQ", "AP", "ERR", "RR")
              for a in ("ERG", "ETG", "avg", "max", "fin", "PE", "ERR") for t in ("stop", "pad")
              if not (a == "ERR" and c in ("RBP", "INSQ")) and not (t == "pad" and a == "ERG" and c in ("ERR", "RR"))]


@pytest.mark.parametrize("run", ["bm25base_p", "ICT-BERT2"])
def test_whole_ranking_and_other_models_match_reference(run, dl19_dir, qrels_py, evaluator_factory):
    """No cutoff (depth = the ranking's length, up to 1000), INSQ and RR too, odd parameters
    (on 12 topics: the reference is slow at depth 1000)."""
    measures = FULL_DEPTH + [CWLA(C="RBP", A="avg", p=0.95, tail="pad"), CWLA(C="INST", A="PE", T=0.3, beta=0.2)@20,
                             CWLA(C="INST", A="avg", T=1.0, tail="pad")@5, CWLA(C="ERR", A="max", gain="lin")@7,
                             CWLA(C="AP", A="ERG", gain="bin", rel=2, tail="pad")@30]
    _compare(measures, dl19_dir / "runs" / f"input.{run}.gz", qrels_py, evaluator_factory, n_topics=12)


def test_reference_itself_on_a_hand_computed_case():
    """ERR@3 of gains (0.5, 0, 1): L = (0.5, 0, 0.5), A_ERR = (1, 1/2, 1/3) -> 0.5 + 0.5/3."""
    assert ref.score([0.5, 0.0, 1.0], "ERR", "ERR", 3, k=3) == pytest.approx(0.5 + 0.5 / 3)
    # RBP_ETG with p=0.5 under pad on gains (1): sum_i L(i) CG(i) = 1 (everyone sees rank 1)
    assert ref.score([1.0], "RBP", "ETG", 1, tail="pad", p=0.5) == pytest.approx(1.0)
    assert ref.score([1.0], "RBP", "ERG", 1, tail="pad", p=0.5) == pytest.approx(0.5)   # V+ = 2


def test_kernel_on_a_hand_computed_case():
    from ir_cwla import kernel
    from ir_cwla.aggregation import get_aggregation
    from ir_cwla.browsing import get_browsing_model

    g = np.array([[0.5, 0.0, 1.0]])
    m = kernel.score(g, np.array([3]), get_browsing_model("ERR"), get_aggregation("ERR"), {"cutoff": 3})
    assert m[0] == pytest.approx(0.5 + 0.5 / 3)
