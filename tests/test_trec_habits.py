"""trec_eval's habits: the precision scores tie in (``--ties float32|float64``) and ``-J``.

trec_eval up to 9.0.8 (and pytrec_eval, ir-measures) holds scores as C floats, so scores equal
in float32 tie and are ordered by doc_id descending; trec_eval 10.0 compares doubles. The
synthetic run ``float32_ties`` has groups of scores equal in float32 whose float64 order is the
reverse of the doc_id order, with documents of different grades in a group, so the two orders
give different scores. The references are slow loops over the definitions, in each order.
"""
from __future__ import annotations

import math
import warnings
from io import StringIO

import numpy as np
import pandas as pd
import pytest
from ir_measures import P, nDCG

import ir_cwla
from ir_cwla import CWLA, io, meta
from ir_cwla.app import cli
from ir_cwla.errors import ParameterError
from tests import synthetic

RUN = "float32_ties"


def _ranked(run: pd.DataFrame, ties: str) -> dict[str, list[str]]:
    """Each topic's doc_ids in trec_eval's order, sorted by Python on (score, doc_id), both descending."""
    out = {}
    for qid, rows in synthetic.deduplicated(run).groupby("query_id"):
        key = (lambda s: float(np.float32(s))) if ties == "float32" else float
        pairs = sorted(zip(rows["score"], rows["doc_id"]), key=lambda sd: (key(sd[0]), sd[1]), reverse=True)
        out[str(qid)] = [d for _, d in pairs]
    return out


def _grades(qrels: pd.DataFrame) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for q, d, r in qrels[["query_id", "doc_id", "relevance"]].itertuples(index=False):
        out.setdefault(str(q), {})[d] = max(int(r), 0)
    return out


def _slow(ranked, grades, k):
    """P@k with grades >= 1 relevant and trec_eval's nDCG@k (gain = grade, 1 / log2(i + 1)), per topic."""
    p, ndcg = {}, {}
    for q, judged in grades.items():
        docs = ranked.get(q, [])[:k]
        p[q] = sum(judged.get(d, 0) >= 1 for d in docs) / k
        dcg = sum(judged.get(d, 0) / math.log2(i + 2) for i, d in enumerate(docs))
        ideal = sum(g / math.log2(i + 2) for i, g in enumerate(sorted(judged.values(), reverse=True)[:k]))
        ndcg[q] = dcg / ideal if ideal > 0 else 0.0
    return p, ndcg


@pytest.fixture(scope="module")
def coll():
    return synthetic.make_collection()


@pytest.mark.parametrize("ties", ["float32", "float64"])
def test_both_tie_precisions_against_slow_loops_for_every_measure(coll, ties):
    run = coll.runs[RUN]
    grades = _grades(coll.qrels)
    want_p, want_ndcg = _slow(_ranked(run, ties), grades, 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ir_cwla.IrCwlaWarning)
        frame = meta.evaluate({RUN: run}, coll.qrels, [CWLA(C="P", A="ERG", rel=1) @ 10, P @ 10, nDCG @ 10],
                              progress=False, ties=ties)
    got = {m: dict(zip(g["qid"], g["value"])) for m, g in frame.groupby("measure")}
    for q in grades:
        assert got["CWLA(C='P',A='ERG',rel=1.0)@10"][q] == pytest.approx(want_p[q], abs=1e-12), q
        assert got["P@10"][q] == pytest.approx(want_p[q], abs=1e-12), q            # trec_eval, given the ranks
        assert got["nDCG@10"][q] == pytest.approx(want_ndcg[q], abs=1e-9), q


def test_the_run_ties_in_float32_but_not_in_float64(coll):
    run = coll.runs[RUN]
    s32, s64 = _slow(_ranked(run, "float32"), _grades(coll.qrels), 10), _slow(_ranked(run, "float64"),
                                                                              _grades(coll.qrels), 10)
    assert s32[1] != s64[1]                          # the two orders give other nDCG@10 on some topics
    m = CWLA(C="DCG", A="ERG") @ 10
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ir_cwla.IrCwlaWarning)
        by32 = ir_cwla.Scorer([m], coll.qrels).score_run(run)[1][m]
        by64 = ir_cwla.Scorer([m], coll.qrels, ties="float64").score_run(run)[1][m]
        default = ir_cwla.Scorer([m], coll.qrels).score_run(run)[1][m]
    assert np.array_equal(by32, default) and not np.array_equal(by32, by64)


def test_the_rankings_follow_the_precision_asked():
    run = pd.DataFrame({"query_id": ["1"] * 3, "doc_id": ["a", "b", "c"],
                        "score": [1.0, 1.0 + 2 ** -30, 1.0 + 2 ** -29]})        # equal in float32
    qrels = ir_cwla.scoring.Qrels(pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1]}))
    ranked32 = ir_cwla.scoring.rank_run(run, qrels)
    ranked64 = ir_cwla.scoring.rank_run(run, qrels, ties="float64")
    # float32: a tie, doc_id descending (c, b, a): 'a' last; float64: by score (c, b, a) too: use a reversed case
    assert ranked32.judgments.tolist() == ranked64.judgments.tolist() == [-1, -1, 0]
    reverse = run.assign(score=run["score"].to_numpy()[::-1])                 # a highest in float64
    assert ir_cwla.scoring.rank_run(reverse, qrels).judgments.tolist() == [-1, -1, 0]
    assert ir_cwla.scoring.rank_run(reverse, qrels, ties="float64").judgments.tolist() == [0, -1, -1]
    assert io.top_ranked(reverse, 1)["doc_id"].tolist() == ["c"]
    assert io.top_ranked(reverse, 1, ties="float64")["doc_id"].tolist() == ["a"]
    ranks = io.rank_scores(reverse)
    assert ranks["score"].tolist() == [3.0, 2.0, 1.0]
    with pytest.raises(ParameterError, match="ties must be one of 'float32', 'float64'"):
        ir_cwla.Scorer([CWLA(C="P") @ 10], pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1]}),
                       ties="double")


def test_eval_ties_option(coll, tmp_path, capsys):
    files = coll.write(tmp_path)
    args = ["eval", str(files.qrels), str(files.runs[RUN]), "-m", "nDCG@10", "DCG_ERG@10", "--format", "csv"]
    assert cli.main(args) == 0
    default = capsys.readouterr().out
    assert cli.main(args + ["--ties", "float32"]) == 0
    assert capsys.readouterr().out == default
    assert cli.main(args + ["--ties", "float64"]) == 0
    doubles = capsys.readouterr().out
    assert doubles != default
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ir_cwla.IrCwlaWarning)
        lib = meta.evaluate({RUN: str(files.runs[RUN])}, files.qrels, ["nDCG@10", "DCG_ERG@10"], progress=False,
                            ties="float64")
    means = lib.groupby("measure", sort=False)["value"].mean()
    rows = pd.read_csv(pd.io.common.StringIO(doubles))
    summary = rows[rows["qid"] == "all"].set_index("short")["value"]
    assert summary.to_dict() == pytest.approx(means.to_dict(), abs=1e-12)
    with pytest.raises(SystemExit):
        cli.main(args + ["--ties", "double"])


# -- -J ------------------------------------------------------------------------------------------

def test_judged_only_is_trec_evals_judged_only_for_every_kind_of_measure(coll, tmp_path, capsys):
    """trec_eval's ``-J`` for every kind of measure.

    -J: CWLA P@10 with condensed lists equals trec_eval's P@10 -J (pytrec_eval), and trec_eval's
    own measures get judged_only=True.
    """
    files = coll.write(tmp_path)
    args = ["eval", str(files.qrels), str(files.runs["deep"]), "-q", "--format", "csv", "-J",
            "-m", "P_ERG[bin]@10", "P@10", "nDCG@10"]
    assert cli.main(args) == 0
    rows = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out), dtype={"qid": str})
    by = {m: dict(zip(g["qid"], g["value"])) for m, g in rows.groupby("short")}
    assert set(by) == {"P_ERG[bin>=1,condense]@10", "P(judged_only=True)@10", "nDCG(judged_only=True)@10"}
    assert by["P_ERG[bin>=1,condense]@10"] == pytest.approx(by["P(judged_only=True)@10"], abs=1e-12)
    # and the slow loop: the unjudged documents removed, then the first 10
    grades = _grades(coll.qrels)
    ranked = {q: [d for d in docs if d in grades.get(q, {})] for q, docs in _ranked(coll.runs["deep"], "float32").items()}
    want_p, want_ndcg = _slow(ranked, grades, 10)
    for q in grades:
        assert by["P(judged_only=True)@10"][q] == pytest.approx(want_p[q], abs=1e-12)
        assert by["nDCG(judged_only=True)@10"][q] == pytest.approx(want_ndcg[q], abs=1e-9)
    assert any(by["P(judged_only=True)@10"][q] != want for q, want in _slow(
        _ranked(coll.runs["deep"], "float32"), grades, 10)[0].items())      # -J changed something


def test_judged_only_refuses_measures_it_cannot_apply_to():
    """-J names the measures that can say so; every other keeps its name (the run is what changes).

    Only a C/W/L/A measure that asks what unjudged documents are worth (max, residual) is refused.
    """
    from ir_cwla.app.evaluate import with_judged_only

    assert with_judged_only([CWLA(C="RBP") @ 10]) == [CWLA(C="RBP", unjudged="condense") @ 10]
    assert with_judged_only([P @ 5], judged_only=False) == [P @ 5]
    judged, bpref = ir_cwla.parse_measure("Judged@10"), ir_cwla.parse_measure("Bpref")
    assert with_judged_only([judged, bpref]) == [judged, bpref]
    for m, why in ((CWLA(C="RBP", unjudged="max") @ 10, "unjudged='max'"),
                   (CWLA(C="RBP", unjudged="residual") @ 10, "unjudged='residual'")):
        with pytest.raises(ParameterError, match=why):
            with_judged_only([m])


def test_judged_only_drops_negative_grades_for_every_kind_of_measure(tmp_path, capsys):
    """trec_eval -J: a document graded -1 is unjudged, so AP over d1 (relevant), d2 (-1) is 1 for both kinds."""
    (tmp_path / "q").write_text("1 0 d1 1\n1 0 d2 -1\n1 0 d3 1\n")
    (tmp_path / "r").write_text("1 Q0 d2 1 3 x\n1 Q0 d1 2 2 x\n1 Q0 d3 3 1 x\n")
    assert cli.main(["eval", str(tmp_path / "q"), str(tmp_path / "r"), "-J", "-m", "AP", "AP_ERG[bin,pad]",
                     "Bpref", "NumRet", "--format", "csv"]) == 0
    by = pd.read_csv(StringIO(capsys.readouterr().out)).set_index("short")["value"]
    assert by["AP(judged_only=True)"] == by["AP_ERG[bin>=1,pad,condense]"] == 1.0
    assert by["NumRet"] == 2 and by["Bpref"] == 1.0
