"""Doc ids held compact (an ASCII bytes array) rank and score as the same ids held as str (issue 28).

:func:`ir_cwla.meta.evaluate` ranks a run of C/W/L/A measures only with its doc ids compact
(:func:`ir_cwla.io._columns.compacted`), so that the frame's str objects are freed before it is
ranked. These tests hold every consumer to the same values, rankings and labels as the str form:
ties broken by doc id (ids of different lengths, one a prefix of another), lookups against the
qrels' str keys (a bytes id that missed them would make every document unjudged), labels, the
dicts pytrec_eval reads, and ids the compact form cannot hold (non-ASCII, NUL, not str).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir_cwla import CWLA, io, meta
from ir_cwla.app import evaluate as app_evaluate
from ir_cwla.io import _hashing as hashing
from ir_cwla.io._columns import RunColumns, compacted, run_dict
from ir_cwla.meta import evaluation
from ir_cwla.scoring import Qrels, Scorer, rank_run
from ir_cwla.scoring._gains import UNJUDGED, run_columns

MEASURES = [CWLA(C="RBP", A="ERG"), CWLA(C="AP", A="ERG"), CWLA(C="INST", A="ERG"), (CWLA(C="P", A="ERG") @ 10)]


def _collection(ids: list[str], seed: int = 0, topics: int = 4) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A run over ``ids`` per topic with many tied scores (so doc ids break the ties), and qrels judging half."""
    rng = np.random.default_rng(seed)
    # (ids shuffled as a list: a numpy str array would drop a trailing NUL)
    rows = [(f"q{t}", ids[i], float(rng.integers(0, 3))) for t in range(topics) for i in rng.permutation(len(ids))]
    run = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    judged = run.sample(frac=0.5, random_state=seed)
    qrels = pd.DataFrame({"query_id": judged["query_id"], "doc_id": judged["doc_id"],
                          "relevance": rng.integers(0, 4, len(judged))})
    return run, qrels


LENGTHS = ["d1", "d10", "d100", "d9", "d99", "d", "e", "d0", "D1", "d1a", "a" * 30, "~", "d1 ", "x!y"]


def _compact_columns(run: pd.DataFrame):
    strs = run_columns(run)
    compact = compacted(strs)
    assert hashing.is_compact(compact.doc_keys), "the ids of these tests are ASCII: they must be compact"
    return strs, compact


def test_compact_ids_rank_label_and_score_as_the_str_ids_bit_for_bit():
    run, qrels_frame = _collection(LENGTHS)
    qrels = Qrels(qrels_frame)
    strs, compact = _compact_columns(run)
    scorer = Scorer(MEASURES, qrels)
    by_str, by_bytes = rank_run(strs, qrels, doc_ids=True), rank_run(compact, qrels, doc_ids=True)
    for field in ("topics", "topic_rows", "lengths", "offsets", "judgments"):
        assert np.array_equal(getattr(by_str, field), getattr(by_bytes, field)), field
    # labels: the same codes, and the names str (not bytes)
    assert by_bytes.doc_ids.codes.tolist() == by_str.doc_ids.codes.tolist()
    assert by_bytes.doc_ids.names.dtype == object
    assert by_bytes.doc_ids.names.tolist() == by_str.doc_ids.names.tolist()
    assert all(type(n) is str for n in by_bytes.doc_ids.names.tolist())
    # the order is trec_eval's, ties by doc id descending as str (d9 > d100 > d10 > d1 > d)
    ranked = [by_str.doc_ids.names[c] for c in by_str.doc_ids.codes.tolist()]
    frame_order = run.assign(score=run["score"].astype(np.float32)).sort_values(
        ["query_id", "score", "doc_id"], ascending=[True, False, False], kind="stable")
    assert ranked == frame_order["doc_id"].tolist()
    a, b = scorer.score(by_str), scorer.score(by_bytes)
    for m in MEASURES:
        assert a[m].tobytes() == b[m].tobytes(), m
    assert scorer.score(rank_run(run, qrels))[MEASURES[0]].tobytes() == a[MEASURES[0]].tobytes()


def test_compact_ids_find_the_judgments_of_str_keyed_qrels():
    # every document judged relevant: a bytes id looked up among str keys would be unjudged, and score 0
    run, _ = _collection(LENGTHS, topics=2)
    qrels = Qrels(run[["query_id", "doc_id"]].assign(relevance=1))
    _, compact = _compact_columns(run)
    ranked = rank_run(compact, qrels)
    assert not (ranked.judgments == UNJUDGED).any()
    assert (Scorer([(CWLA(C="P", A="ERG") @ 10)], qrels).score(ranked)[(CWLA(C="P", A="ERG") @ 10)] == 1.0).all()
    index = hashing.StringIndex(np.array(["d1", "d10", "x"], dtype=object))
    assert index.get_indexer(hashing.compact(np.array(["d10", "d1", "d100", "x"], dtype=object))).tolist() == \
        [1, 0, -1, 2]


def test_the_str_view_of_compact_columns_is_what_every_other_reader_gets():
    run, qrels_frame = _collection(LENGTHS)
    strs, compact = _compact_columns(run)
    assert compact.doc_id.dtype == object and compact.doc_id.tolist() == strs.doc_id.tolist()
    assert all(type(d) is str for d in compact.doc_id.tolist())
    # pytrec_eval's dicts: str keys, the same values
    assert run_dict(compact) == run_dict(strs)
    assert all(type(d) is str for docs in run_dict(compact).values() for d in docs)
    # trec_eval's -J (the judged rows) and the run it keeps
    assert app_evaluate.judged_rows(compact, qrels_frame).tolist() == app_evaluate.judged_rows(strs, qrels_frame).tolist()
    assert app_evaluate.keep_judged(compact, qrels_frame).doc_id.tolist() == \
        app_evaluate.keep_judged(strs, qrels_frame).doc_id.tolist()


@pytest.mark.parametrize("ids", [
    ["d\u00e9", "d1", "d10", "\u4e2d"],               # not ASCII
    ["d1", "d1\x00", "d10"],                          # a trailing NUL ('S' would drop it: d1 twice)
    ["d1", "d\x001", "d10"],                          # a NUL inside
], ids=["non-ascii", "trailing-nul", "inner-nul"])
def test_ids_the_compact_form_cannot_hold_stay_str_and_score_alike(ids):
    run, qrels_frame = _collection(ids)
    qrels = Qrels(qrels_frame)
    strs = run_columns(run)
    kept = compacted(strs)
    assert not hashing.is_compact(kept.doc_keys) and kept.doc_keys is strs.doc_keys
    scorer = Scorer(MEASURES, qrels)
    a, b = scorer.score(rank_run(strs, qrels, doc_ids=True)), scorer.score(rank_run(kept, qrels, doc_ids=True))
    for m in MEASURES:
        assert a[m].tobytes() == b[m].tobytes()


def test_compact_refuses_what_it_would_not_give_back_exactly():
    def obj(values):
        out = np.empty(len(values), dtype=object)
        out[:] = values
        return out

    for values in (obj([1, 2]), obj([b"d1", b"d2"]), obj(["d1", 2]), obj(["a\x00"]), obj(["\u00e9"]),
                   obj(["x"] * 1000 + ["y" * 10_000])):      # one long id: the fixed width would cost more
        assert hashing.compact(values) is values
    assert hashing.compact(obj([])).dtype == object
    assert hashing.compact(np.array(["a", "b"])).dtype.kind == "U"           # only object arrays are compacted
    # the widest id past the first block, and empty ids
    wide = obj(["d1"] * (hashing.COMPACT_BLOCK + 5) + ["d" * 40])
    assert hashing.strings(hashing.compact(wide)).tolist() == wide.tolist()
    assert hashing.strings(hashing.compact(obj(["", "a", ""]))).tolist() == ["", "a", ""]


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.text(alphabet="ab01 ~\x7f\u00e9\x00", max_size=4), max_size=40),
       probe=st.lists(st.text(alphabet="ab01 ~\x7f", max_size=4), max_size=10))
def test_compact_ids_number_sort_and_look_up_as_str(values, probe):
    array = np.empty(len(values), dtype=object)
    array[:] = values
    compact = hashing.compact(array)
    holdable = all(v.isascii() and "\x00" not in v for v in values)
    assert hashing.is_compact(compact) == (holdable and bool(values))
    assert hashing.strings(compact).tolist() == values
    for sort in (False, True):
        codes, uniques = hashing.factorize(compact, sort=sort)
        want_codes, want_uniques = hashing.factorize(array, sort=sort)
        assert codes.tolist() == want_codes.tolist() and uniques.tolist() == want_uniques.tolist()
        assert uniques.dtype == object and all(type(u) is str for u in uniques.tolist())
    assert hashing.unique(compact).tolist() == hashing.unique(array).tolist()
    index = hashing.StringIndex(hashing.unique(compact))
    assert all(type(v) is str for v in index.values.tolist())
    asked = np.empty(len(values + probe), dtype=object)
    asked[:] = values + probe
    want = hashing.StringIndex(hashing.unique(array)).get_indexer(asked).tolist()
    assert index.get_indexer(hashing.compact(asked)).tolist() == want


def test_meta_evaluate_compacts_and_scores_as_the_scorer_on_the_frame(tmp_path, monkeypatch):
    run, qrels_frame = _collection([d for d in LENGTHS if " " not in d] + [f"x{i}" for i in range(200)], topics=5)
    run_path, qrels_path = tmp_path / "r.run", tmp_path / "q.qrels"
    run.assign(q0="Q0", rank=np.arange(len(run)), tag="t")[["query_id", "q0", "doc_id", "rank", "score", "tag"]] \
        .to_csv(run_path, sep=" ", header=False, index=False)
    qrels_frame.assign(it=0)[["query_id", "it", "doc_id", "relevance"]].to_csv(qrels_path, sep=" ", header=False,
                                                                               index=False)
    seen = []

    def spy(run):
        out = compacted(run)
        seen.append(hashing.is_compact(out.doc_keys))
        return out

    monkeypatch.setattr(evaluation, "compacted", spy)
    got = meta.evaluate({"r": str(run_path)}, str(qrels_path), MEASURES, progress=False)
    assert seen == [True]
    frame, qrels = io.read_trec_run(str(run_path)), Qrels(io.read_trec_qrels(str(qrels_path)))
    scorer = Scorer(MEASURES, qrels)
    want = scorer.score(rank_run(frame, qrels))
    for m in MEASURES:
        values = got[got["measure"] == str(m)].set_index("qid")["value"].reindex(qrels.topics)
        assert values.to_numpy().tobytes() == want[m].tobytes(), m


def test_the_frame_reader_still_gives_str_doc_ids(tmp_path):
    path = tmp_path / "r.run"
    path.write_text("1 Q0 d10 1 2 t\n1 Q0 d9 2 2 t\n")
    frame = io.read_trec_run(str(path))
    assert all(type(d) is str for d in frame["doc_id"].tolist())


def test_meta_evaluate_leaves_a_given_frame_s_ids_as_they_are(monkeypatch):
    # the caller's frame keeps its str objects alive: compact ids beside them would only cost memory
    run, qrels_frame = _collection(LENGTHS)
    monkeypatch.setattr(evaluation, "compacted", lambda run: pytest.fail("a given frame was compacted"))
    got = meta.evaluate({"r": run}, qrels_frame, MEASURES[:1], progress=False)
    qrels = Qrels(io.as_qrels_frame(qrels_frame))
    want = Scorer(MEASURES[:1], qrels).score(rank_run(run, qrels))[MEASURES[0]]
    assert got.set_index("qid")["value"].reindex(qrels.topics).to_numpy().tobytes() == want.tobytes()


def test_run_columns_are_built_with_doc_id_as_before_and_keep_the_form_given():
    q, d = np.array(["1", "1"], dtype=object), np.array(["d2", "d10"], dtype=object)
    by_keyword = RunColumns(query_id=q, doc_id=d, score=np.array([1.0, 2.0]))
    assert by_keyword.doc_keys is d and by_keyword.attrs == {} and by_keyword.element_type is None
    packed = compacted(by_keyword)
    assert packed.doc_keys.dtype.kind == "S" and list(packed.doc_id) == ["d2", "d10"]
    assert packed.query_id is q and packed.score is by_keyword.score
