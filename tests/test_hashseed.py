"""Outputs do not depend on Python's hash seed, and measures come in the order the user gave.

ir-measures' pipeline hands each provider its measures as a ``set``, whose order follows
``hash(repr(measure))``, seeded afresh in every process (``PYTHONHASHSEED``): without
:class:`ir_cwla.provider.OrderedEvaluator` the columns of ``pt.Experiment`` and the keys of
``ir_measures.calc_aggregate`` changed from one run of a script to the next. The slow test runs
one script under three seeds and compares the bytes of everything it writes; the fast ones check
the order in-process against the order given.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import ir_measures
import pandas as pd
import pytest
from ir_measures import AP, P, nDCG

import ir_cwla
from ir_cwla.provider import in_given_order
from tests import synthetic

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = r'''
import contextlib, io, sys
from pathlib import Path
import ir_measures
import pandas as pd
import pyterrier as pt
import ir_cwla
from ir_cwla import meta
from ir_cwla.app import cli
from tests import synthetic

out = Path(sys.argv[1])
files = synthetic.make_collection(n_topics=12, max_depth=40).write(out / "data")
measures = list(ir_cwla.canonical()) + ["nDCG@10", "RBP(p=0.9)_max@10", "P(rel=2)@10", "INST_PE(beta=0.3)@10"]
runs = {name: str(path) for name, path in files.runs.items()}
per_query = meta.evaluate(runs, files.qrels, measures, progress=False)
per_query.to_csv(out / "meta_evaluate.csv", index=False)
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    cli.main(["eval", str(files.qrels), *runs.values(), "-q", "--format", "csv", "-m", *map(str, measures)])
(out / "eval.csv").write_text(buf.getvalue())
qrels = ir_cwla.io.read_trec_qrels(files.qrels)
run = ir_cwla.io.read_trec_run(files.runs["graded"])
parsed = ir_cwla.parse_measures(measures)
lines = [" ".join(map(str, ir_measures.calc_aggregate(list(ir_cwla.canonical()), qrels, run))),
         " ".join(f"{m}={v!r}" for m, v in ir_measures.calc_aggregate(parsed, qrels, run).items()),
         " ".join(f"{m.measure}/{m.query_id}" for m in ir_measures.iter_calc(parsed, qrels, run))]
systems = [pt.Transformer.from_df(ir_cwla.io.read_trec_run(p).rename(columns={"query_id": "qid", "doc_id": "docno"}),
                                  uniform=True) for p in runs.values()]
topics = pd.read_csv(files.topics, sep="\t", header=None, names=["qid", "query"], dtype=str)
topics = topics[topics["qid"].isin(set(qrels["query_id"]))]
pt_qrels = qrels.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
for metrics in (list(ir_cwla.canonical()), parsed):
    res = pt.Experiment(systems, topics, pt_qrels, eval_metrics=metrics, names=list(runs))
    lines.append(" | ".join(res.columns))
    res.to_csv(out / f"experiment_{len(lines)}.csv", index=False)
perq = pt.Experiment(systems, topics, pt_qrels, eval_metrics=parsed, names=list(runs), perquery=True)
perq.to_csv(out / "experiment_perquery.csv", index=False)
meta.similarity(per_query).table().to_csv(out / "similarity.csv")
meta.consistency(per_query, trials=20, seed=1).table().to_csv(out / "consistency.csv")
(out / "lines.txt").write_text("\n".join(lines) + "\n")
'''


@pytest.mark.slow
def test_outputs_are_byte_identical_under_three_hash_seeds(tmp_path):
    outputs = []
    for seed in (1, 2, 3):
        out = tmp_path / f"seed{seed}"
        out.mkdir()
        env = {**os.environ, "PYTHONHASHSEED": str(seed), "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
        done = subprocess.run([sys.executable, "-c", SCRIPT, str(out)], cwd=ROOT, env=env, capture_output=True,
                              text=True)
        assert done.returncode == 0, done.stderr[-3000:]
        outputs.append({p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()})
    assert len(outputs[0]) == 8
    for other in outputs[1:]:
        assert other.keys() == outputs[0].keys()
        for name in outputs[0]:
            assert other[name] == outputs[0][name], name
    lines = outputs[0]["lines.txt"].decode().splitlines()
    canonical = list(ir_cwla.canonical())
    assert lines[0] == " ".join(map(str, canonical))                 # the order given, not the seed's
    assert lines[3].split(" | ")[1:] == [str(m) for m in canonical]
    given = ir_cwla.parse_measures(list(canonical) + ["nDCG@10", "RBP(p=0.9)_max@10", "P(rel=2)@10",
                                                      "INST_PE(beta=0.3)@10"])
    assert lines[4].split(" | ")[1:] == [str(m) for m in given]


@pytest.fixture(scope="module")
def small():
    return synthetic.make_collection(n_topics=8, max_depth=30)


MIXED = [P@5, ir_cwla.CWLA(C="RBP", A="max")@10, nDCG@10, ir_cwla.CWLA(C="AP", A="ERG")@10, AP,
         ir_cwla.CWLA(C="INST", A="ERG")]


@pytest.mark.parametrize("order", [list(range(6)), [5, 4, 3, 2, 1, 0], [2, 0, 5, 1, 3, 4]])
def test_calc_aggregate_iter_calc_and_calc_keep_the_order_given(small, order):
    measures = [MIXED[i] for i in order]
    run = small.runs["graded"]
    agg = ir_measures.calc_aggregate(measures, small.qrels, run)
    assert list(agg) == measures
    streamed = list(dict.fromkeys(m.measure for m in ir_measures.iter_calc(measures, small.qrels, run)))
    assert streamed == measures
    both = ir_measures.calc(measures, small.qrels, run)
    assert list(both.aggregated) == measures
    assert list(dict.fromkeys(m.measure for m in both.per_query)) == measures
    # the values are those of each measure evaluated alone
    for m in measures:
        assert agg[m] == pytest.approx(ir_measures.calc_aggregate([m], small.qrels, run)[m], abs=1e-12)


def test_cwla_measures_alone_come_in_the_order_given_whatever_the_set_order(small):
    canonical = list(ir_cwla.canonical())
    run = small.runs["graded"]
    for measures in (canonical, canonical[::-1]):
        assert list(ir_measures.calc_aggregate(measures, small.qrels, run)) == measures
        evaluator = ir_measures.evaluator(measures, small.qrels)
        assert isinstance(evaluator, ir_cwla.provider.OrderedEvaluator)   # (the module may have been reloaded)
        assert list(evaluator.calc_aggregate(run)) == measures
    # a set has no order: its measures are taken in the order of their names, whatever the seed
    assert in_given_order(set(canonical)) == sorted(canonical, key=repr)
    provider = ir_cwla.PROVIDER.evaluator(set(canonical), small.qrels)
    assert provider.measures == sorted(canonical, key=repr)


def test_pipelines_without_cwla_measures_are_left_alone(small):
    evaluator = ir_measures.evaluator([P@5, nDCG@10], small.qrels)
    assert not isinstance(evaluator, ir_cwla.provider.OrderedEvaluator)


def test_pyterrier_columns_follow_the_order_given(small, tmp_path):
    import pyterrier as pt

    files = small.write(tmp_path)
    run = ir_cwla.io.read_trec_run(files.runs["graded"])
    system = pt.Transformer.from_df(run.rename(columns={"query_id": "qid", "doc_id": "docno"}), uniform=True)
    topics = small.topics[small.topics["qid"].isin(set(small.qrels["query_id"]))]
    qrels = small.qrels.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    for measures in (MIXED, MIXED[::-1]):
        res = pt.Experiment([system], topics, qrels, eval_metrics=measures, names=["graded"])
        assert list(res.columns[1:]) == [str(m) for m in measures]
        perq = pt.Experiment([system], topics, qrels, eval_metrics=measures, names=["graded"], perquery=True)
        assert list(pd.unique(perq["measure"])) == [str(m) for m in measures]
    assert pt.java.started() is False
