"""Costs and the expectations cwl_eval reports next to the expected utility.

EC, ETC, EI (as aggregations; EU is ERG and ETU is ETG), from unit, per-grade,
per-element-type (cwl_eval's cost file) and per-document costs. Checked per topic against
cwl_eval's Python API and against the slow loop reference of ``tests/reference.py``, under
both tails, on DL19 runs.
"""
from __future__ import annotations

import math
from io import StringIO

import numpy as np
import pandas as pd
import pytest

import ir_cwla
from ir_cwla import CWLA
from tests import reference as ref
from tests.cwl_reference import cwl_eval_rows

#: measures here read cost files the tests write (a measure names a file only with an opt-in)
pytestmark = pytest.mark.usefixtures("allow_tmp_cost_files")
RUNS = ["bm25base_p", "UNH_bm25", "runid5", "runid2", "test1", "ICT-BERT2", "idst_bert_p1", "srchvrs_ps_run2"]
TYPE_COSTS = {"a": 1.0, "b": 2.5, "c": 0.5}


def typed(run: pd.DataFrame) -> pd.DataFrame:
    """The run with a synthetic element type per document ('a', 'b' or 'c', from its doc_id)."""
    return run.assign(element_type=np.array(list("abc"))[run["doc_id"].astype(np.int64) % 3])


@pytest.fixture(scope="module")
def qrels(dl19_qrels_path):
    return ir_cwla.io.read_trec_qrels(dl19_qrels_path)


@pytest.fixture(scope="module")
def qrels_py(dl19_qrels_path):
    return ref.read_qrels(dl19_qrels_path)


@pytest.fixture(scope="module")
def cost_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("costs") / "types.txt"
    path.write_text("".join(f"{t} {c}\n" for t, c in TYPE_COSTS.items()))
    return str(path)


def per_topic(measures, qrels, run):
    topics, scores = ir_cwla.CwlaEvaluator(measures, qrels).score(run)
    return {(m, q): v for m in measures for q, v in zip(topics, scores[m])}


# ---------------------------------------------------------------------------------- cwl_eval

def _cwl_metrics():
    from cwl.ruler.measures.cwl_ap import APCWLMetric
    from cwl.ruler.measures.cwl_dcg import NDCGCWLMetric
    from cwl.ruler.measures.cwl_insq import INSQCWLMetric
    from cwl.ruler.measures.cwl_inst import INSTCWLMetric
    from cwl.ruler.measures.cwl_precision import PrecisionCWLMetric
    from cwl.ruler.measures.cwl_rbp import RBPCWLMetric
    from cwl.ruler.measures.cwl_rr import RRCWLMetric

    # (cwl_eval metric, our measure with its EU form, does C(1000) = 0 (no truncation of ETU/ETC)?)
    return {
        "P@10": (lambda: PrecisionCWLMetric(10), CWLA(C="P")@10, True),
        "NDCG@10": (lambda: NDCGCWLMetric(10), CWLA(C="DCG")@10, True),
        "RBP@0.8": (lambda: RBPCWLMetric(0.8), CWLA(C="RBP", p=0.8)@1000, True),     # 0.8^1000: nothing left
        "INST": (lambda: INSTCWLMetric(2.25), CWLA(C="INST", T=2.25)@1000, False),
        "INSQ": (lambda: INSQCWLMetric(1.0), CWLA(C="INSQ", T=1.0)@1000, False),
        "AP": (lambda: APCWLMetric(), CWLA(C="AP")@1000, True),
        "RR": (lambda: RRCWLMetric(), CWLA(C="RR")@1000, False),
    }


@pytest.mark.parametrize("run, priced", [(r, i % 2 == 1) for i, r in enumerate(RUNS)])
def test_expectations_equal_cwl_eval(run, priced, qrels, dl19_dir, cost_file):
    """EU (ERG), EC, EI per topic.

    ETU (ETG) and ETC where C(1000) = 0 (elsewhere cwl_eval drops the users who would go
    on past rank 1000 from them; ``ir-cwla cwl`` reproduces that).
    """
    frame = ir_cwla.io.read_trec_run(dl19_dir / "runs" / f"input.{run}.gz")
    if priced:
        frame = typed(frame)
    metrics = _cwl_metrics()
    theirs = cwl_eval_rows(qrels, frame, {k: v[0] for k, v in metrics.items()},
                           cost_dict=TYPE_COSTS if priced else None)
    costs = {"costs": f"type:{cost_file}"} if priced else {}
    ours_m = {}
    for name, (_, m, untruncated) in metrics.items():
        forms = {"EU": m, "EC": m(A="EC", **costs), "EI": m(A="EI")}
        if untruncated:
            forms.update(ETU=m(A="ETG"), ETC=m(A="ETC", **costs))
        ours_m[name] = forms
    ours = per_topic([x for forms in ours_m.values() for x in forms.values()], qrels, frame)
    checked = 0
    for (name, q), row in theirs.items():
        for i, quantity in enumerate(("EU", "ETU", "EC", "ETC", "EI")):
            if quantity in ours_m[name]:
                assert ours[(ours_m[name][quantity], q)] == pytest.approx(row[i], abs=1e-9, rel=1e-12), \
                    (name, quantity, q)
                checked += 1
    assert checked == 43 * sum(len(f) for f in ours_m.values())


# ---------------------------------------------------------------------------------- reference

def _ref_scores(measure, run_py, qrels_py, doc_cost, pad_cost=1.0, topics=None):
    x_max = max(g for q in qrels_py.values() for g in q.values())
    spec = measure.gain_spec()
    k = measure.params.get("cutoff")
    out = {}
    for qid, docs in run_py.items():
        if qid not in qrels_py or (topics is not None and qid not in topics):
            continue
        ordered = ref.trec_order(docs)
        r = [ref.gain_of(qrels_py[qid].get(d, 0), spec.kind, x_max, spec.rel or 1.0) for d in ordered]
        costs = [doc_cost(qid, d) for d in ordered]
        total = sum(ref.gain_of(g, spec.kind, x_max, spec.rel or 1.0) for g in qrels_py[qid].values())
        out[qid] = ref.score(r, measure["C"], measure["A"], k if k is not None else len(r), measure["tail"], k=k,
                             p=measure["p"], T=measure["T"], beta=measure["beta"], total_gain=total, costs=costs,
                             pad_cost=pad_cost)
    return out


MODELS = [CWLA(C="P")@10, CWLA(C="DCG")@10, CWLA(C="RBP")@10, CWLA(C="INST")@10, CWLA(C="INSQ")@20, CWLA(C="AP")@10,
          CWLA(C="ERR")@10, CWLA(C="RR")@10, CWLA(C="RBP", p=0.95), CWLA(C="INST", T=1.0), CWLA(C="AP")]


@pytest.mark.parametrize("run", ["bm25base_p", "ICT-BERT2"])
@pytest.mark.parametrize("tail", ["stop", "pad"])
def test_expectations_match_reference(run, tail, qrels, qrels_py, dl19_dir, cost_file):
    """EC, ETC and EI match the reference with unit and per-type costs, both tails.

    EC, ETC and EI with unit and per-type costs, both tails (cutoffs deeper than ICT-BERT2's
    20 documents: padding costs 1, the cost file prices no '*'), on 10 topics.
    """
    frame = typed(ir_cwla.io.read_trec_run(dl19_dir / "runs" / f"input.{run}.gz"))
    kinds = dict(zip(frame["doc_id"], frame["element_type"]))
    measures = []
    for m in MODELS:
        if m["C"] in ("ERR", "RR") and tail == "pad":
            continue
        measures += [m(A=a, tail=tail, **c) for a in ("EC", "ETC") for c in ({}, {"costs": f"type:{cost_file}"})]
        measures.append(m(A="EI", tail=tail))
    measures += [CWLA(C="INST", A="ETC", tail=tail, costs=f"type:{cost_file}")@50]
    run_py = ref.read_run(dl19_dir / "runs" / f"input.{run}.gz")
    got = per_topic(measures, qrels, frame)
    topics = set(sorted(qrels_py)[:10])
    for m in measures:
        priced = "costs" in m.params
        expected = _ref_scores(m, run_py, qrels_py, lambda q, d, priced=priced: TYPE_COSTS[kinds[d]] if priced
                               else 1.0, topics=topics)
        for qid, value in expected.items():
            assert math.isfinite(got[(m, qid)])
            assert got[(m, qid)] == pytest.approx(value, abs=1e-9, rel=1e-12), (ir_cwla.short_name(m), qid)


def test_grade_and_document_costs_match_reference(qrels, qrels_py, dl19_dir, tmp_path):
    """Per-grade and per-document costs match the reference.

    Per-grade costs (an unjudged document costs what grade 0 costs; under 'max' what the top
    grade costs) and per-document costs with a '*' line (which also prices padding).
    """
    run = "ICT-BERT2"
    frame = ir_cwla.io.read_trec_run(dl19_dir / "runs" / f"input.{run}.gz")
    lengths = {d: 10.0 + int(d) % 97 for d in frame["doc_id"].unique()[::2]}
    doc_file = tmp_path / "lengths.txt"
    doc_file.write_text("".join(f"{d} {c:g}\n" for d, c in lengths.items()) + "* 55\n")
    grade_costs = {0: 1.0, 1: 2.0, 2: 3.0, 3: 5.0}
    grade = "grade:" + ";".join(f"{g}:{c:g}" for g, c in grade_costs.items())
    measures = [CWLA(C="RBP", A=a, costs=grade, tail=t)@k for a in ("EC", "ETC") for t in ("stop", "pad")
                for k in (10, 30)]
    measures += [CWLA(C="INST", A="ETC", costs=f"doc:{doc_file}", tail=t)@k for t in ("stop", "pad") for k in (10, 30)]
    got = per_topic(measures, qrels, frame)
    run_py = ref.read_run(dl19_dir / "runs" / f"input.{run}.gz")
    topics = set(sorted(qrels_py)[:12])
    for m in measures:
        if m["costs"].startswith("grade"):
            cost, pad = (lambda q, d: grade_costs[qrels_py[q].get(d, 0)]), 1.0
        else:
            cost, pad = (lambda q, d: lengths.get(d, 55.0)), 55.0
        for qid, value in _ref_scores(m, run_py, qrels_py, cost, pad, topics).items():
            assert got[(m, qid)] == pytest.approx(value, abs=1e-9, rel=1e-12), (ir_cwla.short_name(m), qid)
    # the residual of ETC moves with the cost of unjudged documents (grade 0 -> grade 3)
    res = per_topic([CWLA(C="RBP", A="ETC", costs=grade, unjudged="residual")@30], qrels, frame)
    assert max(res.values()) > 0


def test_ei_is_the_expected_depth_and_etc_with_unit_costs_is_ei(qrels, dl19_dir):
    from ir_cwla.measures._browsing import get_browsing_model
    from ir_cwla.scoring import Qrels, rank_run
    from ir_cwla.scoring import _kernel as kernel

    frame = ir_cwla.io.read_trec_run(dl19_dir / "runs" / "input.bm25base_p.gz")
    ms = [CWLA(C=c, A=a, tail=t)@k for c in ("RBP", "INST", "DCG") for a in ("EI", "ETC")
          for t in ("stop", "pad") for k in (10, 2000)]
    got = per_topic(ms, qrels, frame)
    ranked = rank_run(frame, Qrels(qrels))
    for m in ms:
        for g in ranked.groups(m["cutoff"]):
            b = kernel.browse(g.gains(m.gain_spec(), ranked.qrels.x_max), np.full(len(g.rows), m["cutoff"]),
                              get_browsing_model(m["C"]), m.model_params(), m["tail"])
            np.testing.assert_allclose([got[(m, q)] for q in ranked.topics[g.rows]], b.vplus, rtol=1e-12)


@pytest.mark.parametrize("measure, message", [
    (lambda: CWLA(C="RBP", A="ERG", costs="grade:0:1"), r"costs='grade:0:1' has no effect with C='RBP' and A='ERG' "
                                                r"\(costs are read by EC, ETC"),
    (lambda: CWLA(C="RBP", A="EC", costs="grade"), r"write 'grade:0:1;1:2;...', 'type:PATH'"),
    (lambda: CWLA(C="RBP", A="EC", costs="grade:0:1;x:2"), r"expected GRADE:COST pairs separated by ';', got 'x:2'"),
    (lambda: CWLA(C="RBP", A="EC", costs="grade:0:0"), r"a cost must be a finite number > 0 \(got 0\)"),
    (lambda: CWLA(C="RBP", A="EC", costs="type:/no/such/file"), r"cost file /no/such/file is named inside a measure, and "
                                                        r"a measure string may read a file only with an opt-in"),
    (lambda: CWLA(C="RBP", A="EC", costs="type:a,b"), r", cannot appear in a costs spec"),
    (lambda: CWLA(C="ERR", A="ETC", tail="pad"), r"is infinite \(users past the last relevant document never stop"),
    (lambda: CWLA(C="RR", A="EI", tail="pad"), r"is infinite"),
])
def test_bad_costs(measure, message):
    with pytest.raises(ValueError, match=message):
        measure().validate_params()


def test_unpriced_elements_are_errors(qrels, dl19_dir, tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("a 1\nb 2\n")
    frame = typed(ir_cwla.io.read_trec_run(dl19_dir / "runs" / "input.ICT-BERT2.gz"))
    m = CWLA(C="RBP", A="EC", costs=f"type:{path}")@10
    with pytest.raises(ValueError, match=rf"cost file {path} prices no element type 'c' \(topic '\d+', rank \d+\); "
                                         r"add it, or a line '\* COST'"):
        per_topic([m], qrels, frame)
    with pytest.raises(ValueError, match=r"run: RBP_EC\[costs=type:.*\]@10 prices element types, but the run has no "
                                         r"'element_type' column \(a TREC run's second column"):
        per_topic([m], qrels, frame.drop(columns="element_type"))
    ev = ir_cwla.Scorer([m], qrels)
    from ir_cwla.scoring import rank_run
    with pytest.raises(ValueError, match=r"prices element types .* but the ranked run has none"):
        ev.score(rank_run(frame.drop(columns="element_type"), ev.qrels))
    grade = CWLA(C="RBP", A="EC", costs="grade:0:1;1:2")@10
    with pytest.raises(ValueError, match=r"prices grades 0, 1, not grade 2"):
        per_topic([grade], qrels, frame)
    bad = tmp_path / "bad.txt"
    bad.write_text("a 1\nb 2 3\n")
    with pytest.raises(ValueError, match=rf"{bad}:2: expected 2 fields \(label cost\), found 3"):
        per_topic([CWLA(C="RBP", A="EC", costs=f"type:{bad}")@10], qrels, frame)


def test_document_lengths_from_an_ir_datasets_docstore(tmp_path):
    """``write_document_lengths`` (bundled Cranfield, offline) writes a 'doc:' cost file."""
    qrels = ir_cwla.datasets.cranfield_qrels()
    q = qrels["query_id"].iloc[0]
    docs = [str(d) for d in range(1, 31)]
    run = pd.DataFrame({"query_id": q, "doc_id": docs, "score": np.arange(30, 0, -1.0)})
    path = tmp_path / "lengths.txt"
    assert ir_cwla.datasets.write_document_lengths("irds:cranfield", docs, str(path)) == 30
    lengths = dict(line.split() for line in path.read_text().splitlines())
    store = ir_cwla.datasets.load("cranfield").docs_store()
    assert int(lengths["3"]) == len(store.get("3").default_text()) > 0
    m = CWLA(C="P", A="ETC", costs=f"doc:{path}")@10
    _, s = ir_cwla.CwlaEvaluator([m], qrels).score(run)
    assert s[m][0] == pytest.approx(sum(float(lengths[d]) for d in docs[:10]))
    with pytest.raises(KeyError, match="the docstore has no document 'nope'"):
        ir_cwla.datasets.write_document_lengths("irds:cranfield", ["1", "nope"], str(path))


def test_element_type_costs_through_every_path(qrels, dl19_dir, cost_file, tmp_path, capsys):
    """A measure that prices element types reads the run's second column wherever runs are read.

    The evaluator, ir-cwla eval, meta.evaluate and the re-scoring of the robustness
    analyses (Rankings.select/concat keep the labels) give the same numbers.
    """
    from ir_cwla import meta
    from ir_cwla.app.cli import main
    from ir_cwla.scoring import Qrels, Rankings, rank_run

    runs = {}
    for name in ("bm25base_p", "ICT-BERT2"):
        frame = typed(ir_cwla.io.read_trec_run(dl19_dir / "runs" / f"input.{name}.gz"))
        path = tmp_path / f"input.{name}"
        path.write_text("".join(f"{q} {t} {d} 0 {s!r} tag\n" for q, t, d, s in
                                frame[["query_id", "element_type", "doc_id", "score"]].itertuples(index=False)))
        runs[name] = (frame, path)
    m = CWLA(C="RBP", A="EC", costs=f"type:{cost_file}") @ 10
    plain = CWLA(C="RBP", A="EC") @ 10
    direct = {name: per_topic([m], qrels, frame) for name, (frame, _) in runs.items()}
    assert any(v != 1.0 for d in direct.values() for v in d.values())      # the types change the cost
    # meta.evaluate from the files (no element_type column given: read from the second field)
    per_query = meta.evaluate({n: p for n, (_, p) in runs.items()}, qrels, [m, plain], progress=False)
    for name in runs:
        got = per_query[(per_query.name == name) & (per_query.measure == str(m))].set_index("qid")["value"]
        assert got.to_dict() == pytest.approx({q: v for (_, q), v in direct[name].items()}, rel=1e-12)
    # ir-cwla eval
    qrels_path = tmp_path / "qrels.txt"
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels.itertuples(index=False)))
    code = main(["eval", str(qrels_path), str(runs["ICT-BERT2"][1]), "-m", str(m), "-q", "--format", "csv"])
    out = pd.read_csv(StringIO(capsys.readouterr().out), dtype={"qid": str})
    assert code == 0
    got = out[out.qid != "all"].set_index("qid")["value"].to_dict()
    assert got == pytest.approx({q: v for (_, q), v in direct["ICT-BERT2"].items()}, rel=1e-12)
    # re-scoring: select and concat keep every cell's element type
    prepared = Qrels(qrels)
    ranked = [rank_run(frame, prepared) for frame, _ in runs.values()]
    both = Rankings.concat(ranked, prepared)
    ev = ir_cwla.Scorer([m], qrels)
    first = ev.score(both.select(np.arange(len(ranked[0].topics))))[m]
    np.testing.assert_array_equal(first, ev.score(ranked[0])[m])
    # the robustness analyses' re-scoring reads the types too, whatever form the measures take
    # (a name, one measure object), and scores as meta.evaluate does
    from ir_cwla.meta import rescoring
    files = {n: p for n, (_, p) in runs.items()}
    for given in (str(m), m, [str(m), plain]):
        collection = rescoring.prepare(files, qrels, given)
        means = collection.means()[collection.measures.index(str(m))]
        expected = per_query[per_query.measure == str(m)].groupby("name")["value"].mean()
        np.testing.assert_allclose(means, expected[list(collection.systems)].to_numpy(), rtol=1e-12)
