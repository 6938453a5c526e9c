"""Real systems on the bundled Cranfield: well-formed runs, the BM25 formula, sane effectiveness.

The systems are built and run once, in an offline child process with a temporary
ir_datasets cache (pyterrier-pisa imports ir_datasets, see ``tests/offline.py``); the child
writes the runs, the qrels and the bm25s tokens, and the tests check them here against
independent computations: the Lucene BM25 formula in numpy and ir-measures.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest

from ir_cwla.app import systems
from tests.offline import run_offline_code

pytestmark = pytest.mark.slow   # indexes Cranfield with PISA and bm25s in a child process

BUILT = ("PISA-BM25", "PISA-BM25-nostem", "PISA-DPH", "PISA-PL2-c1", "PISA-QLD-mu1000",
         "bm25s-lucene", "bm25s-bm25l", "bm25s-lucene-nostem")

PROBE = r"""
import json, sys, tempfile
from pathlib import Path
out = Path(sys.argv[1])
names = sys.argv[2].split(",")
from ir_cwla import datasets
from ir_cwla.app import systems
topics = datasets.cranfield_topics()
datasets.cranfield_qrels().to_csv(out / "qrels.csv", index=False)
with tempfile.TemporaryDirectory() as wd:
    print("building", flush=True)
    built = systems.cranfield_systems(wd, names, num_results=100)
    print("retrieving", flush=True)
    for name, system in built.items():
        system(topics)[["qid", "docno", "score", "rank"]].to_csv(out / f"{name}.csv", index=False)
    print("done", flush=True)
tok = systems.tokenizer(stem=True)
json.dump({"docs": {d["docno"]: tok(d["text"]) for d in systems.cranfield_corpus()},
           "queries": {q: tok(t) for q, t in zip(topics.qid, topics["query"])}}, open(out / "tokens.json", "w"))
"""


@pytest.fixture(scope="module")
def probe(tmp_path_factory) -> tuple[Path, str, str]:
    tmp = tmp_path_factory.mktemp("systems-offline")
    out = tmp / "out"
    out.mkdir()
    proc = run_offline_code(PROBE, tmp, str(out), ",".join(BUILT))
    return out, proc.stdout, proc.stderr


def _run(out: Path, name: str) -> pd.DataFrame:
    return pd.read_csv(out / f"{name}.csv", dtype={"qid": str, "docno": str})


def _qrels(out: Path) -> pd.DataFrame:
    return pd.read_csv(out / "qrels.csv", dtype={"query_id": str, "doc_id": str})


def test_catalogue_has_at_least_twelve_systems_on_both_engines():
    specs = systems.system_specs()
    assert len(specs) >= 12 and len({s.name for s in specs}) == len(specs)
    pisa = Counter(s.model for s in specs if s.engine == "pisa")
    assert set(pisa) == {"BM25", "DPH", "PL2", "QLD"}
    assert pisa["BM25"] >= 2 and pisa["PL2"] >= 2 and pisa["QLD"] >= 2      # parameter settings
    assert {s.model for s in specs if s.engine == "bm25s"} == {"lucene", "robertson", "atire", "bm25l", "bm25+"}
    assert set(systems.SMOKE_SYSTEMS) <= {s.name for s in specs}
    table = systems.systems_table()
    assert list(table.columns) == ["name", "engine", "model", "params", "stemming"] and len(table) == len(specs)
    assert systems.system_specs(["PISA-PL2-c7"])[0].description == "PISA PL2 (c=7), porter2"
    with pytest.raises(ValueError, match=r"unknown system\(s\) \['BM42'\]"):
        systems.system_specs(["PISA-DPH", "BM42"])


def test_pisa_logs_and_progress_bars_are_silenced(probe):
    _, stdout, stderr = probe
    assert stdout.split() == ["building", "retrieving", "done"]
    assert "Create index" not in stderr and "[info]" not in stderr


@pytest.mark.parametrize("name", BUILT)
def test_runs_are_well_formed(probe, name):
    out, _, _ = probe
    run = _run(out, name)
    docnos = set(json.loads((out / "tokens.json").read_text())["docs"])
    assert run.qid.nunique() == 225
    assert set(run.docno) <= docnos
    assert not run.duplicated(["qid", "docno"]).any()
    assert (run.score > 0).all() and np.isfinite(run.score).all()
    for _, group in run.groupby("qid"):
        assert len(group) <= 100                           # num_results
        ordered = group.sort_values("rank")
        assert ordered["rank"].tolist() == list(range(len(group)))
        assert (np.diff(ordered.score.to_numpy()) <= 1e-9).all()


def test_bm25s_lucene_matches_the_formula(probe):
    """The bm25s Lucene formula, term by term.

    idf = ln(1 + (N - df + .5) / (df + .5)); tf part = tf / (tf + k1 (1 - b + b dl / avgdl)).
    """
    out, _, _ = probe
    tokens = json.loads((out / "tokens.json").read_text())
    docnos = list(tokens["docs"])
    vocab = {t: i for i, t in enumerate(sorted({t for d in docnos for t in tokens["docs"][d]}))}
    tf = np.zeros((len(vocab), len(docnos)))
    for j, d in enumerate(docnos):
        for t, c in Counter(tokens["docs"][d]).items():
            tf[vocab[t], j] = c
    df = (tf > 0).sum(axis=1)
    n, k1, b = len(docnos), 1.5, 0.75
    lengths = tf.sum(axis=0)
    norm = k1 * (1 - b + b * lengths / lengths.mean())
    idf = np.log(1 + (n - df + 0.5) / (df + 0.5))
    run = _run(out, "bm25s-lucene")
    for qid, q in tokens["queries"].items():
        rows = [vocab[t] for t in q if t in vocab]          # a repeated query term counts twice
        scores = (idf[rows, None] * tf[rows] / (tf[rows] + norm)).sum(axis=0)
        top = run[run.qid == qid].sort_values("rank").head(10)
        expected = dict(zip(docnos, scores))
        np.testing.assert_allclose(top.score.to_numpy(), [expected[d] for d in top.docno], rtol=1e-5)
        assert top.score.iloc[0] == pytest.approx(scores.max(), rel=1e-5)
    assert run.qid.nunique() == len(tokens["queries"]) == 225


def test_effectiveness_is_far_above_chance_and_stemming_helps(probe):
    out, _, _ = probe
    qrels = _qrels(out)
    measures = [ir_measures.P(rel=1) @ 10, ir_measures.AP(rel=1) @ 100, ir_measures.nDCG @ 10]
    scores = {}
    for name in BUILT:
        run = _run(out, name).rename(columns={"qid": "query_id", "docno": "doc_id"})
        scores[name] = ir_measures.calc_aggregate(measures, qrels, run[["query_id", "doc_id", "score"]])
    # a random ranking finds 1612 / 225 / 1400 relevant documents per slot: P@10 ~ 0.005
    for name, s in scores.items():
        assert s[measures[0]] > 0.15, name
        assert 0.2 < s[measures[2]] < 0.6, name
    ap = {name: s[measures[1]] for name, s in scores.items()}
    assert ap["PISA-BM25"] > ap["PISA-BM25-nostem"]
    assert ap["bm25s-lucene"] > ap["bm25s-lucene-nostem"]


def test_bm25s_retriever_on_real_tokens(probe):
    """In-process: the transformer keeps positive scores only, ranks from 0, maps docnos."""
    import bm25s

    out, _, _ = probe
    tokens = json.loads((out / "tokens.json").read_text())
    docnos = list(tokens["docs"])[:200]
    model = bm25s.BM25()
    model.index([tokens["docs"][d] for d in docnos], show_progress=False)
    retriever = systems.BM25sRetriever(model, docnos, str.split, num_results=50)
    topics = pd.DataFrame({"qid": ["1", "2", "x"], "query": [" ".join(tokens["queries"]["1"]),
                                                            " ".join(tokens["queries"]["2"]), "zzzqqq"]})
    res = retriever(topics)
    assert set(res.qid) <= {"1", "2"}                      # the query matching nothing has no rows
    assert (res.groupby("qid")["rank"].min() == 0).all() and (res.score > 0).all()
    assert set(res.docno) <= set(docnos) and res.groupby("qid").size().max() <= 50
    empty = retriever(topics.iloc[:0])
    assert list(empty.columns) == ["qid", "query", "docno", "score", "rank"] and len(empty) == 0


def test_bm25s_retriever_cuts_ties_in_trec_evals_order():
    """Documents tied at the k-th score: the first k in trec_eval's order (score desc, docno desc), not bm25s' pick.

    Six copies of one text tie; with num_results=4 the retriever keeps the one better document and
    the three copies with the largest docnos, whatever order the index holds them in.
    """
    import bm25s

    texts = {"d1": "wing lift", "d2": "wing", "d3": "wing", "d4": "wing", "d5": "wing", "d6": "wing",
             "d7": "wing", "d8": "body drag"}
    for order in (list(texts), list(reversed(texts)), ["d4", "d8", "d2", "d7", "d1", "d6", "d3", "d5"]):
        model = bm25s.BM25()
        model.index([texts[d].split() for d in order], show_progress=False)
        retriever = systems.BM25sRetriever(model, order, str.split, num_results=4)
        res = retriever(pd.DataFrame({"qid": ["q"], "query": ["wing lift"]}))
        assert res["docno"].tolist() == ["d1", "d7", "d6", "d5"], order
        assert res["rank"].tolist() == [0, 1, 2, 3]
