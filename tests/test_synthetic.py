"""The synthetic collection holds every case it claims, reproducibly.

The synthetic collection (tests/synthetic.py) holds every case it claims, reproducibly, and
each awkward case changes a score if it is handled the wrong way.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ir_cwla
from tests import reference as ref
from tests import synthetic


def _grades_at_top(docs: list, qrels_topic: dict, k: int = 10) -> list:
    return [max(qrels_topic.get(d, 0), 0) for d in docs[:k]]


def _topics_where_order_matters(run: pd.DataFrame, qrels: pd.DataFrame, wrong_order) -> int:
    """Topics whose top-10 grades differ between trec_eval's order and ``wrong_order``."""
    judged = {q: dict(zip(g["doc_id"], g["relevance"])) for q, g in qrels.groupby("query_id")}
    n = 0
    for q, g in run.groupby("query_id"):
        if q in judged:
            docs = dict(zip(g["doc_id"], g["score"]))
            n += _grades_at_top(ref.trec_order(docs), judged[q]) != _grades_at_top(wrong_order(docs), judged[q])
    return n


def test_same_seed_same_collection():
    a, b, c = (synthetic.make_collection(seed, n_topics=12, max_depth=30) for seed in (7, 7, 8))
    assert a.qrels.equals(b.qrels) and a.topics.equals(b.topics)
    assert all(a.runs[k].equals(b.runs[k]) for k in synthetic.RUN_KINDS)
    assert not a.qrels.equals(c.qrels)


def test_qrels_cover_grades_and_edge_topics(synthetic_collection):
    qrels = synthetic_collection.qrels
    assert set(qrels["relevance"]) == {-1, 0, 1, 2, 3, 4}
    per_topic = qrels.groupby("query_id")["relevance"]
    assert 30 <= per_topic.ngroups <= 50
    assert (per_topic.max() <= 0).any()            # a topic without a relevant document
    assert (per_topic.size() == 1).any()           # a topic judged on one document
    assert not qrels.duplicated(["query_id", "doc_id"]).any()


def test_every_run_has_missing_and_unjudged_topics_unjudged_docs_and_lengths_that_vary(synthetic_collection):
    qrels = synthetic_collection.qrels
    judged_topics = set(qrels["query_id"])
    assert list(synthetic_collection.runs) == list(synthetic.RUN_KINDS)
    for name, run in synthetic_collection.runs.items():
        topics = set(run["query_id"])
        assert judged_topics - topics, name                       # qrels topics the run does not answer
        assert len(topics - judged_topics) == 2, name             # topics absent from the qrels
        merged = run.merge(qrels, on=["query_id", "doc_id"], how="left")
        assert 0.1 < merged["relevance"].isna().mean() < 0.9, name   # unjudged documents next to judged ones
        lengths = run.groupby("query_id").size()
        if name == "short":
            assert lengths.max() <= 4 and (lengths == 1).any()
        elif name == "deep":
            assert lengths.min() >= 120 and lengths.max() > 200
        else:
            assert lengths.min() < 10 and lengths.max() > 100, name
        # line order is not score order: the ranking must be computed
        assert not run["score"].is_monotonic_decreasing


def test_exact_ties_are_broken_by_doc_id_and_that_matters(synthetic_collection):
    run = synthetic_collection.runs["ties"]
    assert run.duplicated(["query_id", "score"]).mean() > 0.5
    ascending = lambda docs: sorted(docs, key=lambda d: (-np.float32(docs[d]), d))  # noqa: E731
    assert _topics_where_order_matters(run, synthetic_collection.qrels, ascending) >= 5


def test_float32_ties_are_distinct_in_float64_and_that_matters(synthetic_collection):
    run = synthetic_collection.runs["float32_ties"]
    assert not run.duplicated(["query_id", "score"]).any()
    assert run.assign(s=run["score"].astype(np.float32)).duplicated(["query_id", "s"]).mean() > 0.4
    by_float64 = lambda docs: sorted(docs, key=lambda d: (docs[d], d), reverse=True)  # noqa: E731
    assert _topics_where_order_matters(run, synthetic_collection.qrels, by_float64) >= 5


def test_duplicates_where_the_best_line_is_not_the_last_and_that_matters(synthetic_collection):
    run = synthetic_collection.runs["duplicates"]
    repeated = run[run.duplicated(["query_id", "doc_id"], keep=False)]
    assert repeated.groupby(["query_id", "doc_id"]).size().eq(2).all() and len(repeated) >= 40
    last = run.drop_duplicates(["query_id", "doc_id"], keep="last")
    best = synthetic.deduplicated(run)
    assert len(best) == len(last) < len(run)
    merged = best.merge(last, on=["query_id", "doc_id"], suffixes=("_best", "_last"))
    assert (merged["score_best"] > merged["score_last"]).any()
    assert best.groupby("query_id").size().equals(last.groupby("query_id").size())
    measure = ir_cwla.CWLA(C="RBP", A="ERG")@10
    ev = ir_cwla.CwlaEvaluator([measure], synthetic_collection.qrels)
    assert not np.allclose(ev.score(best)[1][measure], ev.score(last)[1][measure])


def test_files_read_back_as_the_frames(synthetic_collection, synthetic_files):
    assert {p.suffix == ".gz" for p in synthetic_files.runs.values()} == {True, False}
    # values compared exactly (scores too); the string dtype of an id column is the reader's choice
    pd.testing.assert_frame_equal(ir_cwla.io.read_trec_qrels(synthetic_files.qrels), synthetic_collection.qrels,
                                  check_dtype=False)
    for name, path in synthetic_files.runs.items():
        run = synthetic_collection.runs[name]
        raw = ir_cwla.io.read_trec_run(path, check=False)      # every line, repeated doc_ids too
        pd.testing.assert_frame_equal(raw, run, check_exact=True, check_dtype=False)
        assert raw["score"].dtype == np.float64
        by_hand = ref.read_run(path)                     # the reference's own reader: best score kept
        best = synthetic.deduplicated(run)
        assert by_hand == {q: dict(zip(g["doc_id"], g["score"])) for q, g in best.groupby("query_id")}
    topics = pd.read_csv(synthetic_files.topics, sep="\t", header=None, names=["qid", "query"], dtype=str)
    pd.testing.assert_frame_equal(topics, synthetic_collection.topics)


@pytest.mark.parametrize("tie_block", [1, 2, 3, 1 << 17])
def test_trec_order_compares_neighbours_block_by_block_as_the_reference_ranks(monkeypatch, tie_block):
    """trec_order's tie check, a block of rows at a time (issue 28), orders as tests.reference does."""
    from ir_cwla.io import _ordering

    monkeypatch.setattr(_ordering, "TIE_BLOCK", tie_block)
    rng = np.random.default_rng(28)
    n = 400
    topics = rng.integers(0, 5, n)
    scores = rng.integers(0, 30, n) / 4.0                 # many ties, within and across topics
    docs = np.array([f"d{i}" for i in rng.permutation(n)], dtype=object)
    got = _ordering.trec_order(topics, _ordering.float32_scores(scores), docs)
    want = [i for t in range(5)
            for i in (int(d[1:]) for d in ref.trec_order({docs[j]: scores[j] for j in np.flatnonzero(topics == t)}))]
    by_doc = {int(d[1:]): j for j, d in enumerate(docs)}
    assert got.tolist() == [by_doc[i] for i in want]
