"""Bad input: a clear error that names the parameter, file, line, query or document."""
from __future__ import annotations

import gzip

import ir_measures
import numpy as np
import pandas as pd
import pytest

import ir_cwla
from ir_cwla import CWLA

QRELS = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"], "relevance": [2, 0, 1]})
RUN = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]})


def calc(measure, run=RUN, qrels=QRELS):
    return ir_measures.calc_aggregate([measure], qrels, run)


@pytest.mark.parametrize("measure, message", [
    (lambda: CWLA(C="XYZ", A="ERG")@10, r"unknown browsing model C='XYZ'; valid: P, DCG, RBP, INST, INSQ, AP, ERR, RR"),
    (lambda: CWLA(C="RBP", A="mean")@10, r"unknown aggregation A='mean'; valid: ERG, ETG, avg, max, fin, PE, ERR"),
    (lambda: CWLA(C="RBP", p=1.0), r"p must lie in \(0, 1\) \(got p=1.0\)"),
    (lambda: CWLA(C="RBP", p=0), r"p must lie in \(0, 1\)"),
    (lambda: CWLA(C="INST", T=0), r"T must lie in \(0, 1e\+12\] \(got T=0.0\)"),
    (lambda: CWLA(C="INST", T=-2), r"T must lie in \(0, 1e\+12\]"),
    (lambda: CWLA(C="INST", T=float("inf")), r"T must lie in \(0, 1e\+12\]"),
    (lambda: CWLA(C="INST", T=float("nan")), r"T must lie in \(0, 1e\+12\]"),
    (lambda: CWLA(C="RBP", p=float("nan")), r"p must lie in \(0, 1\)"),
    (lambda: CWLA(A="PE", beta=float("nan")), r"beta must lie in \[0, 1\]"),
    (lambda: CWLA(max_rel=float("inf")), r"max_rel must be a finite number > 0"),
    (lambda: CWLA(rel=float("inf")), r"rel must be a finite number > 0"),
    (lambda: CWLA(C="RBP") @ (2**62 + 1), r"cutoff must be at most 2\^62"),
    (lambda: CWLA(A="PE", beta=1.5), r"beta must lie in \[0, 1\] \(got beta=1.5\)"),
    (lambda: CWLA(C="RBP")@0, r"cutoff must be >= 1 \(got @0\)"),
    (lambda: CWLA(C="P", A="ERG"), r"C='P' needs a cutoff"),
    (lambda: CWLA(C="DCG", A="max"), r"C='DCG' needs a cutoff"),
    (lambda: CWLA(C="P", A="ERR")@10, r"same score for every ranking"),
    (lambda: CWLA(C="RBP", A="ERR")@10, r"same score for every ranking"),
    (lambda: CWLA(C="INSQ", A="ERR")@10, r"same score for every ranking"),
    (lambda: CWLA(C="ERR", A="ERG", tail="pad")@10, r"infinite expected depth V\+.*use tail='stop'"),
    (lambda: CWLA(C="RBP", tail="both"), r"unknown tail='both'; valid: stop, pad"),
    (lambda: CWLA(C="RBP", gain="log"), r"unknown gain='log'; valid: lin, exp, bin"),
    (lambda: CWLA(C="RBP", unjudged="min"), r"unknown unjudged='min'; valid: zero, max, condense, residual"),
    (lambda: CWLA(C="RBP", gain="lin", rel=2), r"rel=2 only applies to gain='bin'"),
    (lambda: CWLA(C="RBP", rel=0), r"rel must be a finite number > 0"),
    (lambda: CWLA(C="RBP", max_rel=1), r"max_rel=1 is below the largest grade in the qrels \(2\)"),
    (lambda: CWLA(C="RBP", foo=1), r"unknown parameter\(s\) \['foo'\]"),
    (lambda: CWLA(C="INST", p=0.9), r"p=0.9 has no effect with C='INST' and A='ERG' \(their parameters: T\)"),
    (lambda: CWLA(C="RBP", A="max", beta=0.3), r"beta=0.3 has no effect with C='RBP' and A='max'"),
    (lambda: CWLA(C="RBP", rel=2, max_rel=3), r"max_rel has no effect with binary gains"),
])
def test_bad_parameters(measure, message):
    """Each is refused before a score (most when the measure is made: tests/test_measure_checks.py)."""
    with pytest.raises(ValueError, match=message):
        calc(measure())


def test_nan_and_infinite_scores_name_query_and_doc():
    for bad in (np.nan, np.inf):
        run = RUN.assign(score=[2.0, bad, 1.0])
        with pytest.raises(ValueError, match=r"not finite for query '1', document 'b'"):
            calc(CWLA(C="RBP")@10, run)


def test_malformed_trec_lines_name_file_and_line(tmp_path):
    good = "1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n"
    cases = {"fields.txt": good + "2 Q0 c 1\n", "score.txt": good + "2 Q0 c 1 high r\n",
             "tagless.txt": good + "2 Q0 c 1 1.0\n"}
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text)
        with pytest.raises(ValueError, match=rf"{name}:3: "):
            ir_cwla.io.read_trec_run(path)
    gz = tmp_path / "run.gz"
    with gzip.open(gz, "wt") as f:
        f.write(good + "2 Q0 c 1 nan r\n")
    with pytest.raises(ValueError, match=r"run.gz:3: score 'nan' of topic '2', document 'c' is not a finite number"):
        ir_cwla.io.read_trec_run(gz)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a 1\n1 0 b x\n")
    with pytest.raises(ValueError, match=r"qrels.txt:2: field 4 \(grade\) is not an integer: 'x'"):
        ir_cwla.io.read_trec_qrels(qrels)
    with pytest.raises(FileNotFoundError, match="run file not found"):
        ir_cwla.io.read_trec_run(tmp_path / "missing.txt")


def test_invalid_continuation_is_reported_with_topic():
    """INST with T < 1/4 can give C > 1 (a user who 'continues' with probability > 1).

    Refused when the measure is built; a registered model that does it is caught by the
    kernel.
    """
    run = pd.DataFrame({"query_id": ["1"] * 3, "doc_id": ["a", "x", "y"], "score": [3.0, 2.0, 1.0]})
    with pytest.raises(ValueError, match=r"C='INST': T=0.1 lets C\(i\) exceed 1 \(INST needs T >= 0.25\)"):
        calc(CWLA(C="INST", A="ERG", T=0.1)@3, run)
    ir_cwla.register_browsing_model("too_eager", lambda inp, params: 1.0 + inp.gains)
    try:
        with pytest.raises(ValueError, match=r"'too_eager' gives C\(1\) = .* for topic '1'; continuation "
                                             r"probabilities must lie in \[0, 1\]"):
            calc(CWLA(C="too_eager", A="ERG")@3, run)
    finally:
        ir_cwla.BROWSING_MODELS.pop("too_eager")


def test_zero_max_grade_scores_zero_not_nan():
    qrels = QRELS.assign(relevance=[0, 0, -1])
    res = ir_measures.calc_aggregate(ir_cwla.table1(), qrels, RUN)
    assert all(np.isfinite(v) for v in res.values())
    # all gains 0: every aggregation of gain is 0; A = ERR (1/i) is not about gain
    assert all(v == 0 for m, v in res.items() if m["A"] != "ERR")
    assert res[CWLA(C="ERR", A="ERR")@10] == pytest.approx(0.1)     # never satisfied: stops at D = 10
