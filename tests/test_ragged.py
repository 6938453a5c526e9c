"""The ragged layout of ranked runs.

Memory follows the lines of the run, not its worst topic; re-grading a ranked run under a
subset of the qrels, or under other grades of the same pairs (another assessor's), equals
evaluating with those qrels.
"""
from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pandas as pd
import pytest

import ir_cwla
from ir_cwla import CWLA
from ir_cwla.errors import DataError, ParameterError
from ir_cwla.scoring import Qrels, rank_run
from ir_cwla.scoring._gains import GROUP_PADDING, GROUP_SLACK
from tests import reference as ref


def skewed(big: int = 300_000, small: int = 100, n_small: int = 99, seed: int = 0):
    """One topic with ``big`` documents among ``n_small`` topics of ``small``; graded qrels."""
    rng = np.random.default_rng(seed)
    qids = np.repeat(["big"] + [f"q{i}" for i in range(n_small)], [big] + [small] * n_small)
    docs = np.concatenate([np.arange(big)] + [np.arange(small)] * n_small).astype(str)
    run = pd.DataFrame({"query_id": qids, "doc_id": np.char.add("d", docs),
                        "score": rng.random(len(qids))})
    judged = run.sample(frac=0.02, random_state=seed)
    qrels = pd.DataFrame({"query_id": judged["query_id"], "doc_id": judged["doc_id"],
                          "relevance": rng.integers(0, 4, len(judged))})
    return run, qrels


def test_groups_bound_the_padding_and_never_exceed_the_longest_ranking():
    run, qrels = skewed()
    ranked = rank_run(run, Qrels(qrels))
    groups = ranked.groups()
    assert sorted(int(r) for g in groups for r in g.rows) == list(range(len(ranked.topics)))
    for g in groups:
        assert g.width == int(g.kept.max())
        assert g.grades.size <= (1 + GROUP_PADDING) * g.kept.sum() + GROUP_SLACK
    assert max(g.width for g in groups) == 300_000 and len(groups) == 2
    # a cutoff deeper than every ranking does not widen anything
    assert max(g.width for g in ranked.groups(10**9)) == 300_000
    assert max(g.width for g in ranked.groups(10)) == 10


@pytest.mark.slow   # scores a run with a 300,000-document ranking under tracemalloc
def test_skewed_run_is_exact_in_memory_proportional_to_its_lines():
    run, qrels = skewed()
    measures = [CWLA(C=c, A=a, tail="pad") for c in ("RBP", "INST", "AP") for a in ("ERG", "avg")]
    ev = ir_cwla.CwlaEvaluator(measures, qrels)
    tracemalloc.start()
    topics, scores = ev.score(run)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    lines = len(run)
    # a dense topics x longest-ranking matrix would be 100 x 300,000 x 8 B = 240 MB per array
    assert peak < 60 * 8 * lines, peak
    qrels_py = {q: dict(zip(g["doc_id"], g["relevance"])) for q, g in qrels.groupby("query_id")}
    x_max = float(qrels["relevance"].max())
    for qid in ("q0", "q7", "big"):
        docs = dict(zip(run.loc[run["query_id"] == qid, "doc_id"], run.loc[run["query_id"] == qid, "score"]))
        r = ref.ranked_gains(docs, qrels_py.get(qid, {}), "lin", x_max)
        total = sum(g / x_max for g in qrels_py.get(qid, {}).values())
        t = list(topics).index(qid)
        for m in measures[:2] if qid == "big" else measures:
            expected = ref.score(r, m["C"], m["A"], len(r), "pad", total_gain=total)
            assert scores[m][t] == pytest.approx(expected, rel=1e-11, abs=1e-14), (ir_cwla.short_name(m), qid)


@pytest.fixture(scope="module")
def dl19(dl19_qrels_path, dl19_dir):
    return (ir_cwla.io.read_trec_qrels(dl19_qrels_path),
            ir_cwla.io.read_trec_run(dl19_dir / "runs" / "input.runid2.gz"))


def test_regrading_equals_evaluating_with_the_smaller_qrels(dl19):
    qrels, run = dl19
    measures = list(ir_cwla.table1()) + [CWLA(C="AP", A="ERG", tail="pad"), CWLA(C="RBP", A="avg", tail="pad")]
    ev = ir_cwla.Scorer(measures, qrels)
    prepared = ev.qrels
    rng = np.random.default_rng(3)
    mask = rng.random(len(prepared.grades)) < 0.4
    # keep at least one judgment of every topic, so both evaluators see the same topics
    first = np.unique(prepared.judgment_topic, return_index=True)[1]
    mask[first] = True
    ranked = rank_run(run, prepared)
    got = ev.score(ranked.regrade(prepared.subset(mask)))

    # the same judgments as a qrels frame, evaluated from scratch
    keys = prepared._keys[mask]
    n_docs = len(prepared.doc_index)
    smaller = pd.DataFrame({"query_id": prepared.topics[keys // n_docs],
                            "doc_id": prepared.doc_index[keys % n_docs], "relevance": prepared.grades[mask]})
    topics, expected = ir_cwla.CwlaEvaluator(measures, smaller).score(run)
    assert list(topics) == list(ranked.topics)
    for m in measures:
        np.testing.assert_array_equal(got[m], expected[m], err_msg=str(m))
    # and a subset changes the scores (the test can fail)
    full = ev.score(ranked)
    assert any((full[m] != got[m]).any() for m in measures)


#: every unjudged policy, both tails, AP's R, binary and exponential gains, an explicit max_rel
REGRADE_MEASURES = list(ir_cwla.table1()) + [
    CWLA(C="AP", A="ERG", tail="pad"), CWLA(C="RBP", A="avg", tail="pad") @ 20,
    CWLA(C="AP", A="ERG", rel=2, tail="pad", unjudged="residual") @ 30,
    CWLA(C="RBP", A="ERG", gain="exp", max_rel=5, unjudged="max", tail="pad") @ 20,
    CWLA(C="INST", A="avg", unjudged="condense") @ 10, CWLA(C="ERR", A="ERR", unjudged="max") @ 10]


def test_regraded_qrels_score_as_scored_from_scratch(synthetic_collection):
    """Regraded qrels score as qrels scored from scratch.

    Qrels.regraded: another assessor's grades of (some of) the same pairs, and pairs only one
    of them judged, over the union's numbering; a run ranked once against the union and re-graded
    scores bit for bit as the Scorer scores it with that assessor's qrels alone.
    """
    qrels = synthetic_collection.qrels
    rng = np.random.default_rng(5)
    # the other assessor: 60% of the pairs with new grades (0-3, some -1), plus documents the runs
    # rank that the reference never judged, on all topics but two
    keep = rng.random(len(qrels)) < 0.6
    other = qrels[keep].assign(relevance=rng.integers(-1, 4, int(keep.sum())))
    extra = pd.concat(synthetic_collection.runs.values()).drop_duplicates(["query_id", "doc_id"])
    extra = extra[extra["query_id"].isin(qrels["query_id"])].sample(200, random_state=1)
    extra = extra.merge(qrels[["query_id", "doc_id"]], how="left", indicator=True)
    extra = extra[extra["_merge"] == "left_only"]
    other = pd.concat([other, pd.DataFrame({"query_id": extra["query_id"], "doc_id": extra["doc_id"],
                                            "relevance": rng.integers(0, 3, len(extra))})])
    dropped = sorted(set(other["query_id"]))[:2]
    other = ir_cwla.io.as_qrels_frame(other[~other["query_id"].isin(dropped)].reset_index(drop=True))
    union_frame = pd.concat([qrels, other]).drop_duplicates(["query_id", "doc_id"])
    scorer = ir_cwla.Scorer(REGRADE_MEASURES, union_frame)
    union = scorer.qrels
    for frame in (other, ir_cwla.io.as_qrels_frame(qrels)):
        regraded = union.regraded(*union.grades_from(frame))
        fresh = ir_cwla.Scorer(REGRADE_MEASURES, frame)
        for name, run in synthetic_collection.runs.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ir_cwla.DuplicateWarning)     # the run with duplicate lines
                ranked = scorer.rank(run, name)
                topics, expected = fresh.score_run(run, name)
            rows = np.flatnonzero(np.isin(ranked.topics, fresh.qrels.topics))
            got = scorer.score(ranked.select(rows).regrade(regraded))
            assert list(topics) == list(ranked.topics[rows])
            for m in REGRADE_MEASURES:
                np.testing.assert_array_equal(got[m], expected[m], err_msg=f"{name} {ir_cwla.short_name(m)}")
    # the grades matter (the test can fail): the reference's grades score otherwise
    ranked = scorer.rank(synthetic_collection.runs["graded"], "graded")
    a = scorer.score(ranked.regrade(union.regraded(*union.grades_from(other))))
    b = scorer.score(ranked.regrade(union.regraded(*union.grades_from(ir_cwla.io.as_qrels_frame(qrels)))))
    assert all((a[m] != b[m]).any() for m in REGRADE_MEASURES[:5])


def test_regraded_refuses_what_it_cannot_number(synthetic_collection):
    qrels = ir_cwla.io.as_qrels_frame(synthetic_collection.qrels)
    prepared = ir_cwla.Scorer([CWLA(C="P", A="ERG") @ 10], qrels.iloc[:-5]).qrels
    with pytest.raises(DataError, match="do not number: build them from the union"):
        prepared.grades_from(qrels)
    with pytest.raises(ParameterError, match="grades has shape"):
        prepared.regraded(np.zeros(3))
    with pytest.raises(ParameterError, match="NaN is no grade"):
        prepared.regraded(np.full(len(prepared.grades), np.nan))
    # negative grades count as 0, and the mask combines with a subset's
    grades = -np.ones(len(prepared.grades))
    assert prepared.regraded(grades).x_max == 0.0 and (prepared.regraded(grades).grades == 0).all()
    half = prepared.subset(np.arange(len(prepared.grades)) % 2 == 0)
    both = half.regraded(prepared.grades, np.arange(len(prepared.grades)) % 3 == 0)
    np.testing.assert_array_equal(both.mask, np.arange(len(prepared.grades)) % 6 == 0)
