"""Unjudged documents (``CWLA(unjudged=...)``).

The optimistic bound 'max', the residual ('max' minus 'zero') and Sakai's condensed
lists, against the slow loop reference of ``tests/reference.py`` on real DL19 runs,
under both tails.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ir_cwla
from ir_cwla import CWLA, table1
from tests import reference as ref

# DL19 passage is judged to depth 10 for every official run (one exception: UNH_exDL_bm25), so
# residuals are checked deeper: at 100 and over whole rankings; ICT-CKNRM_B50 ranks 50 per topic
RUNS = ["bm25base_p", "UNH_exDL_bm25", "ICT-CKNRM_B50"]


@pytest.fixture(scope="module")
def qrels_py(dl19_qrels_path):
    return ref.read_qrels(dl19_qrels_path)


@pytest.fixture(scope="module")
def qrels(dl19_qrels_path):
    return ir_cwla.io.read_trec_qrels(dl19_qrels_path)


def reference_scores(measure, run_py, qrels_py, topics=None):
    """Per-topic reference scores of ``measure``, its unjudged policy applied by hand."""
    x_max = max(g for q in qrels_py.values() for g in q.values())
    spec = measure.gain_spec()
    k = measure.params.get("cutoff")
    policy = measure["unjudged"]
    params = dict(p=measure["p"], T=measure["T"], beta=measure["beta"])

    def one(docs, judged, pol):
        r, total = ref.policy_gains(docs, judged, spec.kind, x_max, pol, spec.rel or 1.0, spec.max_rel)
        depth = k if k is not None else len(r)
        if depth == 0:
            return 0.0
        return ref.score(r, measure["C"], measure["A"], depth, measure["tail"], k=k, total_gain=total, **params)

    out = {}
    for qid, docs in run_py.items():
        if qid not in qrels_py or (topics is not None and qid not in topics):
            continue
        if policy == "residual":
            out[qid] = one(docs, qrels_py[qid], "max") - one(docs, qrels_py[qid], "zero")
        else:
            out[qid] = one(docs, qrels_py[qid], policy)
    return out


def compare(measures, run_path, qrels_py, qrels, n_topics=None):
    run_py = ref.read_run(run_path)
    topics, scores = ir_cwla.CwlaEvaluator(measures, qrels).score(ir_cwla.io.read_trec_run(run_path))
    assert len(topics) == 43
    subset = None if n_topics is None else set(sorted(topics)[:n_topics])
    return ref.assert_scores_agree(measures, topics, scores, lambda m: reference_scores(m, run_py, qrels_py, subset))


def _table1(cutoff, tail, policy):
    return [m(tail=tail, unjudged=policy) for m in table1(cutoff)
            if not (tail == "pad" and m["C"] == "ERR" and m["A"] == "ERG")]


@pytest.mark.parametrize("run, policy", [(r, "residual") for r in RUNS] + [(r, "condense") for r in RUNS[1:]])
@pytest.mark.parametrize("tail", ["stop", "pad"])
def test_table1_at_100_matches_reference(run, tail, policy, dl19_dir, qrels_py, qrels):
    nonzero = compare(_table1(100, tail, policy), dl19_dir / "runs" / f"input.{run}.gz", qrels_py, qrels)
    assert nonzero > 100     # the residuals are not all zero: the test can fail


WHOLE = [CWLA(C=c, A=a, tail=t, unjudged=u) for c in ("RBP", "INST", "AP", "ERR")
         for a in ("ERG", "ETG", "avg", "max", "fin", "PE", "ERR") for t in ("stop", "pad")
         for u in ("max", "residual", "condense")
         if not (a == "ERR" and c == "RBP") and not (t == "pad" and a == "ERG" and c == "ERR")]


@pytest.mark.parametrize("run", ["bm25base_p", "ICT-BERT2"])
def test_whole_rankings_match_reference(run, dl19_dir, qrels_py, qrels):
    """No cutoff: R of AP under 'pad' counts every unjudged document ranked (on 8 topics)."""
    extra = [CWLA(C="AP", A="ERG", rel=2, tail="pad", unjudged="residual")@30,
             CWLA(C="RBP", A="ERG", gain="exp", max_rel=5, unjudged="max", tail="pad")@20,
             CWLA(C="P", A="ERG", rel=2, unjudged="condense")@10]
    compare(WHOLE + extra, dl19_dir / "runs" / f"input.{run}.gz", qrels_py, qrels, n_topics=8)


def test_residual_of_binary_precision_is_the_unjudged_share():
    """P@k with binary gains: 'max' counts every unjudged document among the top k as relevant."""
    qrels = pd.DataFrame({"query_id": ["1"] * 3, "doc_id": ["a", "b", "c"], "relevance": [1, 0, 2]})
    run = pd.DataFrame({"query_id": ["1"] * 5, "doc_id": ["a", "x", "b", "y", "c"], "score": [5, 4, 3, 2, 1.0]})
    m = CWLA(C="P", A="ERG", rel=1)
    ev = ir_cwla.CwlaEvaluator([m@4, m(unjudged="max")@4, m(unjudged="residual")@4, m(unjudged="condense")@4], qrels)
    _, s = ev.score(run)
    assert [s[x][0] for x in ev.measures] == [0.25, 0.75, 0.5, 0.5]   # condensed: a b c + padding


def test_condensed_lists_need_whole_rankings(qrels, dl19_dir):
    from ir_cwla.scoring import rank_run

    ev = ir_cwla.Scorer([CWLA(C="RBP", unjudged="condense")@10], qrels)
    assert ev.depth is None
    ranked = rank_run(ir_cwla.io.read_trec_run(dl19_dir / "runs" / "input.UNH_exDL_bm25.gz"), ev.qrels, 10)
    with pytest.raises(ValueError, match=r"topic '\d+' was ranked only to depth 10 \(9 judged documents there\); condensed lists need whole"):
        ev.score(ranked)


def test_residual_shares_the_zero_score(qrels, dl19_dir):
    """A residual shares the browsing of its 'zero' score.

    A residual next to its measure costs one more browsing, and 'max' of a model whose C
    ignores the gains reuses the browsing of 'zero' (the same V and L).
    """
    run = ir_cwla.io.read_trec_run(dl19_dir / "runs" / "input.UNH_exDL_bm25.gz")
    plain = [CWLA(C="RBP")@10, CWLA(C="INST")@10]
    both = plain + [m(unjudged="residual") for m in plain] + [m(unjudged="max") for m in plain]
    _, a = ir_cwla.CwlaEvaluator(both, qrels).score(run)
    for m in plain:
        np.testing.assert_array_equal(a[m(unjudged="residual")], a[m(unjudged="max")] - a[m])
        assert (a[m(unjudged="residual")] >= 0).all() and a[m(unjudged="residual")].max() > 0


@pytest.mark.parametrize("run", ["UNH_exDL_bm25", "TUA1-1"])
def test_judged_share_equals_ir_measures_judged(run, qrels, dl19_dir):
    """Judged@k per topic is ir-measures' own.

    On the run re-written in trec_eval order with distinct scores (ir-measures breaks ties by
    doc_id ascending in float64), Judged@k per topic is ir-measures' own.
    """
    import ir_measures

    from ir_cwla.app.coverage import coverage_frame
    from tests.test_equivalences import trec_sorted

    ordered = trec_sorted(ir_cwla.io.read_trec_run(dl19_dir / "runs" / f"input.{run}.gz"))
    ordered["score"] = -ordered.groupby("query_id").cumcount().astype(float)
    ours = coverage_frame({run: ordered}, qrels, [10, 100, 1000])
    theirs = {(str(m.measure), m.query_id): m.value
              for m in ir_measures.iter_calc([ir_measures.Judged @ k for k in (10, 100, 1000)], qrels, ordered)}
    per_query = ours[ours["qid"] != "all"]
    assert len(per_query) == 3 * 43
    for qid, measure, value in per_query[["qid", "measure", "value"]].itertuples(index=False):
        assert value == pytest.approx(theirs[(measure, qid)], abs=1e-12)
    assert per_query["value"].min() < 0.5


def test_eval_prints_judged_share(dl19_qrels_path, dl19_dir, capsys):
    from ir_cwla.app.cli import main

    run = str(dl19_dir / "runs" / "input.UNH_exDL_bm25.gz")
    assert main(["eval", str(dl19_qrels_path), run, "-m", "RBP_ERG[residual]@100", "--judged", "10",
                 "--judged", "100"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[0].strip() for line in lines] == ["runid", "RBP_ERG[residual]@100", "Judged@10",
                                                               "Judged@100"]
    assert lines[2].endswith("0.9977") and lines[3].endswith("0.1872")


def test_a_condensed_list_may_be_empty():
    """A topic whose ranked documents are all unjudged condenses to nothing.

    With a cutoff the user looks at padding (AP's user stops at rank 1: AP_ERR = 1,
    AP_ERG = 0, as when no relevant document is ranked); without one, under 'stop',
    nothing is looked at.
    """
    import warnings

    qrels = pd.DataFrame({"query_id": ["1", "2"], "doc_id": ["a", "c"], "relevance": [1, 1]})
    run = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["x", "y", "c"], "score": [2.0, 1.0, 1.0]})
    ms = [CWLA(C="AP", A="ERR", unjudged="condense")@5, CWLA(C="AP", A="ERG", unjudged="condense", tail="pad"),
          CWLA(C="RBP", A="EI", unjudged="condense")@5, CWLA(C="RBP", unjudged="condense"),
          CWLA(C="INST", A="ETC", unjudged="condense", tail="pad")]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, s = ir_cwla.CwlaEvaluator(ms, qrels).score(run)
    assert [s[m][0] for m in ms[:4]] == [1.0, 0.0, pytest.approx(sum(0.8 ** i for i in range(5))), 0.0]
    assert s[ms[1]][1] == 1.0 and s[ms[4]][0] > 0
