"""``ir-cwla cwl``: cwl_eval's command, printing cwl_eval's table byte for byte.

Checked against cwl_eval itself (1.0.12, installed with the test extras): its command line
``cwl-eval`` on real DL19 runs written in float64 score order (every metric class, default
metrics and the zoo, with and without ``-r``, with a cost file) and on small files that
exercise its reading rules (line order, repeated doc_ids, topics in several blocks, topics
the gain file does not judge); its Python API per topic (exact equality of every column); and
the C/W/L measures of the engine (the EU, EC and ED columns, to 1e-9). Every input form
(``-``, ``/dev/stdin``, a FIFO, process substitution, gzip) goes through the command line in a
subprocess.
"""
from __future__ import annotations

import gzip
import os
import re
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ir_cwla
from ir_cwla.app import cwl
from ir_cwla.app.cli import main
from ir_cwla.errors import DuplicateWarning, InputWarning, LineOrderWarning
from tests.cwl_reference import cwl_eval_rows
from tests.test_costs import TYPE_COSTS, typed
from tests.test_equivalences import trec_sorted

ZOO_FILE = """PrecisionCWLMetric(20)
RBPCWLMetric(0.9)
RBPCWLMetric(0.99)
NDCGCWLMetric(10)
RRCWLMetric()
APCWLMetric()
TrAPCWLMetric()
INSTCWLMetric(1)
INSQCWLMetric(2.25)
BPMCWLMetric(1,1000)
BPMCWLMetric(1.2,10)
BPMDCWLMetric(1.2,10,1.0,0.0)
UMeasureCWLMetric(50)
UMeasureCWLMetric(1000)
TBGCWLMetric(22)
IFTGoalCWLMetric(2.0, 0.9, 10)
IFTRateCWLMetric(0.2, 0.9, 10)
IFTGoalRateCWLMetric(2.0,0.9,10, 0.2, 0.9, 10)
NERReq8CWLMetric(10)
NERReq9CWLMetric(10)
NERReq10CWLMetric(0.9)
NERReq11CWLMetric(2.0)
NPVCWLMetric(0.1)
SETCWLMetric(0.5, 10)
"""
#: More of cwl_eval's parameters: BPM-Dynamic with hc != 0 (cwl_eval keeps K fixed, and so does
#: ir-cwla cwl: the table is cwl_eval's), TBG with cost-dependent decay, short cutoffs.
MORE_METRICS = """BPMDCWLMetric(1.2,10,1.0,1.0)
BPMDCWLMetric(1,4,0.5,2.0,0.3)
TBGCWLMetric(3.5)
INSQCWLMetric(1)
NERReq8CWLMetric(3)
SETCWLMetric(0.3,20)
PrecisionCWLMetric(3)
"""


def _cwl_eval(*args, cwd) -> str:
    """cwl_eval's command line (its ``cwl-eval`` script, next to this Python)."""
    exe = Path(sys.executable).with_name("cwl-eval")
    done = subprocess.run([str(exe), *map(str, args)], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout


def _ours(capsys, *args) -> tuple[int, str, str]:
    code = main(["cwl", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def _sh(command: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True)


@pytest.fixture(scope="module")
def qrels(dl19_qrels_path):
    return ir_cwla.io.read_trec_qrels(dl19_qrels_path)


@pytest.fixture(scope="module")
def files(qrels, tmp_path_factory):
    """The gain, metrics and cost files of the cwl_eval comparisons.

    The gain file (grades / x_max, as cwl_eval's gains are in [0, 1]), the zoo's metrics
    files and a cost file (types 'a' and 'b'; 'c' is unpriced).
    """
    root = tmp_path_factory.mktemp("cwl")
    x_max = qrels["relevance"].max()
    gains = qrels.assign(it="0", gain=qrels["relevance"].clip(lower=0) / x_max)
    gains[["query_id", "it", "doc_id", "gain"]].to_csv(root / "gains.txt", sep=" ", header=False, index=False)
    (root / "metrics.txt").write_text(ZOO_FILE)
    (root / "zoo.txt").write_text(ZOO_FILE + MORE_METRICS)
    (root / "costs.txt").write_text("".join(f"{t} {c}\n" for t, c in TYPE_COSTS.items() if t != "c"))
    return root


def _write(frame: pd.DataFrame, path: Path) -> Path:
    if "element_type" not in frame.columns:
        frame = frame.assign(element_type="Q0")
    frame = frame.assign(rank=frame.groupby("query_id", sort=False).cumcount() + 1, run="r",
                         score=[repr(float(s)) for s in frame["score"]])
    frame[["query_id", "element_type", "doc_id", "rank", "score", "run"]].to_csv(path, sep=" ", header=False,
                                                                                index=False)
    return path


def write_run(frame: pd.DataFrame, path: Path) -> Path:
    """A TREC run file in trec_eval order (score desc in float32, doc_id desc)."""
    return _write(trec_sorted(frame), path)


def write_float64_order(frame: pd.DataFrame, path: Path) -> Path:
    """The run re-written in float64 score order.

    Each topic's lines (topics in file order) sorted by float64 score descending, a stable
    sort. Where scores tie in float32 but not in float64, this order differs from
    trec_eval's.
    """
    topic = pd.factorize(frame["query_id"])[0]
    order = np.lexsort((-frame["score"].to_numpy(), topic))
    return _write(frame.iloc[order].reset_index(drop=True), path)


# ------------------------------------------------------------------------- cwl_eval's output, byte for byte

@pytest.mark.slow     # cwl_eval's command takes 7-10 s per run
@pytest.mark.parametrize("run", ["bm25base_p", "runid2", "ICT-BERT2"])
def test_output_is_cwl_evals_byte_for_byte(run, files, dl19_dir, tmp_path, capsys):
    """The output of ``ir-cwla cwl`` is cwl_eval's byte for byte on real DL19 runs.

    Real DL19 runs written in float64 score order (their line order is not trec_eval's
    order in 20, 43 and 0 topics): default metrics with -r and -n; every metric class (the zoo,
    BPM-Dynamic with hc != 0 included) with a cost file and -r; the zoo without -r. Every
    byte equal: the rankings follow the line order, and each printed digit, the sign of a zero
    (``-0.0000`` where cwl_eval's rounding leaves a residual below 0) and TrAP's columns are
    cwl_eval's. No metric is left out.
    """
    frame = typed(ir_cwla.io.read_trec_run(dl19_dir / "runs" / f"input.{run}.gz"))
    path = write_float64_order(frame, tmp_path / "run.txt")
    configs = [["-r", "-n"], ["-m", files / "zoo.txt", "-c", files / "costs.txt", "-r"]]
    if run == "bm25base_p":
        configs.append(["-m", files / "zoo.txt"])
    negative_zeros = 0
    for extra in configs:
        args = [files / "gains.txt", path, *extra]
        theirs = _cwl_eval(*args, cwd=tmp_path)
        code, ours, err = _ours(capsys, *args)
        assert code == 0 and "LineOrderWarning" not in err and "score order" not in err, err
        assert len(ours.splitlines()) > 43 * 16
        assert ours == theirs, next((a, b) for a, b in zip(ours.splitlines(), theirs.splitlines()) if a != b)
        negative_zeros += theirs.count("-0.0000")
    assert negative_zeros > 0        # the rounding of exact zeros is reproduced, not avoided


def test_float64_order_differs_from_trec_order_on_dl19(dl19_dir, tmp_path):
    """The byte-for-byte runs above are not all in trec_eval's order: ``--order file`` matters."""
    frame = ir_cwla.io.read_trec_run(dl19_dir / "runs" / "input.bm25base_p.gz")
    path = write_float64_order(frame, tmp_path / "run.txt")
    metrics = [cwl.parse_metric("IFTRateCWLMetric(0.2, 0.9, 10)")]
    gains = tmp_path / "g.txt"
    qrels = ir_cwla.io.read_trec_qrels(dl19_dir / "qrels.dl19-passage.txt")
    qrels.assign(it=0, g=qrels["relevance"].clip(lower=0) / 3)[["query_id", "it", "doc_id", "g"]].to_csv(
        gains, sep=" ", header=False, index=False)
    by_file = cwl.evaluate(gains, path, metrics)
    by_score = cwl.evaluate(gains, path, metrics, order="trec")
    assert (by_file["Topic"] == by_score["Topic"]).all()
    assert (by_file["EU"] != by_score["EU"]).sum() > 0       # 2 topics (IFT-C2's EU 0.4274 vs 0.4276, ...)


@pytest.mark.parametrize("run, priced", [("bm25base_p", False), ("ICT-BERT2", True), ("runid5", True),
                                         ("srchvrs_ps_run2", False)])
def test_table_equals_cwl_eval_api(run, priced, qrels, files, dl19_dir, tmp_path):
    """Default metrics and the zoo, with residuals.

    Every column of every topic equal to cwl_eval's Python API (RankingMaker and
    the metric classes) exactly, TrAP's included.
    """
    frame = ir_cwla.io.read_trec_run(dl19_dir / "runs" / f"input.{run}.gz")
    if priced:
        frame = typed(frame)
    path = write_run(frame, tmp_path / "run.txt")
    lines = ["PrecisionCWLMetric(1)", "PrecisionCWLMetric(10)", "RBPCWLMetric(0.2)", "RBPCWLMetric(0.8)",
             "NDCGCWLMetric(5)", "INSTCWLMetric(3.0)"] + ZOO_FILE.splitlines() + MORE_METRICS.splitlines()
    metrics = [cwl.parse_metric(line) for line in lines]
    cost_file = str(files / "costs.txt") if priced else None
    with pytest.warns(InputWarning, match="BPM-Dynamic-T=1.2-K=10-hb=1.0-hc=1.0: cwl_eval's BPM-Dynamic keeps"):
        ours = cwl.evaluate(str(files / "gains.txt"), str(path), metrics, cost_file=cost_file, residuals=True)
    cost_dict = {t: c for t, c in TYPE_COSTS.items() if t != "c"} if priced else None
    theirs = cwl_eval_rows(qrels, frame, _their_factories(lines), cost_dict=cost_dict, residuals=True)
    assert len(ours) == len(theirs) == 43 * len(metrics)
    for row in ours.itertuples(index=False):
        expected = np.array(theirs[(row.Metric, row.Topic)], dtype=np.float64)
        np.testing.assert_array_equal(np.array(row[2:]), expected, err_msg=f"{row.Metric} {row.Topic}")


def _cwl_classes():
    import cwl.ruler.cwl_ruler as ruler

    return {name: getattr(ruler, name) for name in cwl.METRIC_CLASSES if hasattr(ruler, name)} | \
        {"TrAPCWLMetric": __import__("cwl.ruler.measures.cwl_ap", fromlist=["x"]).TrAPCWLMetric,
         "NPVCWLMetric": __import__("cwl.ruler.measures.cwl_npv", fromlist=["x"]).NPVCWLMetric,
         "SETCWLMetric": __import__("cwl.ruler.measures.cwl_set", fromlist=["x"]).SETCWLMetric}


def _their_factories(lines):
    classes = _cwl_classes()
    out = {}
    for line in lines:
        name, _, body = line.partition("(")
        args = [cwl._cast(a.strip(), "test") for a in body.rstrip(")").split(",") if a.strip()]
        out[cwl.parse_metric(line).name] = (lambda c=classes[name], a=tuple(args): c(*a))
    return out


def test_eu_ec_ed_columns_are_the_cwla_measures(qrels, files, dl19_dir, tmp_path, allow_tmp_cost_files):
    """The worst-case EU, EC and ED columns are the CWLA measures scored by the engine.

    The worst-case EU, EC and ED of every metric are ``metric.measure(A=...)`` scored by the
    engine (ETU and ETC too where cwl_eval drops nobody past the last rank; TrAP: EU), to 1e-9:
    the table printed with cwl_eval's rounding is the C/W/L measures'.
    """
    frame = typed(ir_cwla.io.read_trec_run(dl19_dir / "runs" / "input.ICT-BERT2.gz"))
    path = write_run(frame, tmp_path / "run.txt")
    metrics = [cwl.parse_metric(line) for line in ZOO_FILE.splitlines() + MORE_METRICS.splitlines()]
    with pytest.warns(InputWarning, match="BPM-Dynamic"):
        table = cwl.evaluate(str(files / "gains.txt"), str(path), metrics, cost_file=str(files / "costs.txt"))
    cost_file = tmp_path / "all.txt"
    cost_file.write_text(Path(files / "costs.txt").read_text() + "c 1\n")      # unpriced: --max_cost
    for metric in metrics:
        columns = {"EU": "ERG", "EC": "EC", "ED": "EI"}
        if metric.model in ("P", "DCG", "AP", "TBG", "U", "NERR8", "NERR9", "SET"):
            columns.update(ETU="ETG", ETC="ETC")
        if metric.model == "TrAP":
            columns = {"EU": "ERG"}
        measures = {}
        for column, agg in columns.items():
            m = metric.measure(A=agg)
            if agg in ("EC", "ETC") or ir_cwla.BROWSING_MODELS[metric.model].uses_costs:
                m = m(costs=f"type:{cost_file}")
            measures[column] = m
        # grades / x_max, as the gain file holds them: CWLA's linear gains
        topics, scores = ir_cwla.CwlaEvaluator(list(measures.values()), qrels).score(frame)
        rows = table[table["Metric"] == metric.name].set_index("Topic")
        for column, m in measures.items():
            np.testing.assert_allclose(scores[m], rows.loc[topics, column].to_numpy(), rtol=1e-9, atol=1e-9,
                                       err_msg=f"{metric.name} {column}")


# ------------------------------------------------------------------------- how the result file is read

#: Topic 1's lines are not in score order and repeat doc 'a'; topic 2 comes in two blocks;
#: topic 3 has scores that tie in float32 (listed in float64 order, not trec_eval's doc_id order).
MESSY_RUN = """1 Q0 b 1 3.0 r
1 Q0 a 2 5.0 r
1 Q0 z 3 1.0 r
1 Q0 a 4 0.5 r
2 Q0 x 1 2.0 r
2 Q0 y 2 1.0 r
1 Q0 c 5 0.2 r
2 Q0 w 3 0.5 r
3 Q0 p 1 1.00000002 r
3 Q0 q 2 1.00000001 r
3 Q0 s 3 0.3 r
"""
GAINS = "1 0 a 1\n1 0 b 0.5\n1 0 c 0.25\n2 0 w 1\n2 0 x 0.5\n3 0 q 1\n3 0 s 0.5\n"
SMALL_METRICS = "RBPCWLMetric(0.5)\nAPCWLMetric()\nTrAPCWLMetric()\nINSTCWLMetric(1)\nUMeasureCWLMetric(3)\n"


@pytest.fixture
def small(tmp_path):
    (tmp_path / "g.txt").write_text(GAINS)
    (tmp_path / "r.txt").write_text(MESSY_RUN)
    (tmp_path / "m.txt").write_text(SMALL_METRICS)
    return tmp_path


def test_rankings_follow_the_line_order_as_in_cwl_eval(small, capsys):
    """Rankings follow the line order as in cwl_eval.

    Line order, a doc_id listed twice (ranked and counted twice), a topic in two blocks
    (two rankings, each reported where it starts): cwl_eval's output, byte for byte, with one
    LineOrderWarning naming the file and one InputWarning for the repeated doc_id.
    """
    args = [small / "g.txt", small / "r.txt", "-m", small / "m.txt", "-r", "--max_depth", "6"]
    theirs = _cwl_eval(*args, cwd=small)
    code, ours, err = _ours(capsys, *args)
    assert code == 0 and ours == theirs
    assert [line.split("\t")[0] for line in ours.splitlines()][::5] == ["1", "2", "1", "2", "3"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cwl.evaluate(small / "g.txt", small / "r.txt", cwl.read_metrics_file(small / "m.txt"), max_depth=6)
    kinds = [type(w.message) for w in caught]
    assert kinds.count(LineOrderWarning) == 1 and kinds.count(InputWarning) == 1, [str(w.message) for w in caught]
    order = next(str(w.message) for w in caught if w.category is LineOrderWarning)
    assert order.startswith(f"{small / 'r.txt'}: the lines of 1 ranking(s) are not in score order (first: topic '1', "
                            "document 'a' at rank 2 scores 5")
    assert "2 topic(s) come in several blocks of lines (first: '1')" in order and "--order trec" in order
    repeated = next(str(w.message) for w in caught if w.category is InputWarning)
    assert "1 line(s) repeat a doc_id of their ranking (first: topic '1', document 'a')" in repeated
    assert err.count("warning:") == 2


def test_order_trec_ranks_by_score(small, tmp_path, capsys):
    """``--order trec`` ranks by score.

    ``--order trec``: each topic once, ranked by score (float32, ties by doc_id desc), a
    repeated doc_id keeping its best-scored line: cwl_eval's output on the file re-written in
    trec_eval's order; no LineOrderWarning.
    """
    with pytest.warns(DuplicateWarning, match="1 duplicate line"):
        run = ir_cwla.io.read_trec_run(small / "r.txt", element_type=True)
    sorted_path = write_run(run, tmp_path / "sorted.txt")
    lines = sorted_path.read_text().splitlines()
    assert lines[:3] == ["1 Q0 a 1 5.0 r", "1 Q0 b 2 3.0 r", "1 Q0 z 3 1.0 r"]
    assert lines[7:9] == ["3 Q0 q 1 1.0 r", "3 Q0 p 2 1.0 r"]     # tied in float32: doc_id desc
    metrics = ["-m", small / "m.txt", "-r", "--max_depth", "6"]
    theirs = _cwl_eval(small / "g.txt", sorted_path, *metrics, cwd=tmp_path)
    code, ours, err = _ours(capsys, small / "g.txt", small / "r.txt", *metrics, "--order", "trec")
    assert code == 0 and ours == theirs
    assert "score order" not in err and "1 duplicate line(s)" in err
    assert [line.split("\t")[0] for line in ours.splitlines()][::5] == ["1", "2", "3"]


def test_no_line_order_warning_for_a_file_in_score_order(small, tmp_path):
    """Float64 score order (topic 3: tied in float32, not in trec_eval's doc_id order) is score order."""
    path = tmp_path / "ok.txt"
    path.write_text("".join(line + "\n" for line in MESSY_RUN.splitlines()[8:]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = cwl.evaluate(small / "g.txt", path, [cwl.parse_metric("RRCWLMetric()")])
    assert table["EU"].tolist() == [0.5]        # q (relevant) at rank 2, as listed


def test_topics_the_gain_file_does_not_judge_are_reported(tmp_path, capsys):
    (tmp_path / "g.txt").write_text("1 0 a 1\n1 0 b 0.5\n")
    (tmp_path / "r.txt").write_text("2 Q0 x 1 5 r\n2 Q0 y 2 4 r\n1 Q0 b 1 3 r\n1 Q0 z 2 2 r\n1 Q0 a 3 1 r\n")
    (tmp_path / "m.txt").write_text("RBPCWLMetric(0.5)\nAPCWLMetric()\nINSTCWLMetric(1)\nTrAPCWLMetric()\n")
    args = [tmp_path / "g.txt", tmp_path / "r.txt", "-m", tmp_path / "m.txt", "-r", "--max_depth", "4"]
    theirs = _cwl_eval(*args, cwd=tmp_path)
    code, ours, _ = _ours(capsys, *args)
    assert code == 0 and ours == theirs
    assert [line.split("\t")[0] for line in ours.splitlines()] == ["2"] * 4 + ["1"] * 4


def test_trap_for_a_topic_without_a_relevant_document(tmp_path, capsys):
    """TrAP for a topic without a relevant document is cwl_eval's, and finite.

    TrAP's ED (and every other column) is cwl_eval's, finite, for a topic whose ranking holds
    no relevant document (W(1) = 1 / (c_1 R), or 1 / c_1 if R = 0), with -r.
    """
    (tmp_path / "g.txt").write_text("1 0 a 0\n1 0 b 0\n1 0 c 1\n2 0 x 0\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n2 Q0 x 1 1 r\n3 Q0 u 1 1 r\n")
    (tmp_path / "m.txt").write_text("TrAPCWLMetric()\n")
    args = [tmp_path / "g.txt", tmp_path / "r.txt", "-m", tmp_path / "m.txt", "-r", "--max_depth", "5"]
    theirs = _cwl_eval(*args, cwd=tmp_path)
    code, ours, _ = _ours(capsys, *args)
    assert code == 0 and ours == theirs
    assert "inf" not in ours and "nan" not in ours
    assert ours.splitlines()[0].split("\t")[6] == "1.0000"       # ED = c_1 R = 1 (R = 1: document c)


def test_bpm_dynamic_keeps_cwl_evals_fixed_cost_budget(tmp_path):
    """cwl_eval's BPM-Dynamic moves T and never K (its cost loop updates T).

    Hc changes the name, not the numbers, as in cwl_eval, with one InputWarning.
    """
    (tmp_path / "g.txt").write_text(GAINS)
    (tmp_path / "r.txt").write_text("".join(f"{t} Q0 {d} {i} {9 - i} r\n" for t in "123" for i, d in enumerate("abcwxqs")))
    metrics = [cwl.parse_metric("BPMDCWLMetric(1.2,3,1.0,0.0)"), cwl.parse_metric("BPMDCWLMetric(1.2,3,1.0,2.5)")]
    with pytest.warns(InputWarning, match=r"BPM-Dynamic-T=1.2-K=3-hb=1.0-hc=2.5: cwl_eval's BPM-Dynamic keeps its "
                                          r"cost budget K fixed .* CWLA\(C='BPMD', hc=...\)"):
        table = cwl.evaluate(tmp_path / "g.txt", tmp_path / "r.txt", metrics, residuals=True, max_depth=8)
    fixed, moving = (table[table["Metric"] == m.name].iloc[:, 2:].to_numpy() for m in metrics)
    np.testing.assert_array_equal(fixed, moving)


def test_star_line_of_a_cost_file(tmp_path, capsys):
    """``-c`` honours a cost file's ``* COST`` line.

    Element types the file does not list and the documents missing past a ranking's end cost
    COST in both cases, whatever --max_cost and --min_cost say. Checked against cwl_eval on the
    run with those types renamed to one the file prices COST, and --max_cost = --min_cost = COST
    (cwl_eval reads '*' as one more type).
    """
    (tmp_path / "g.txt").write_text("1 0 d1 1\n1 0 d4 0.5\n1 0 d7 0\n2 0 d2 1\n3 0 d0 0.3\n3 0 d9 1\n")
    run = "".join(f"{t} {'abc'[i % 3]} d{i} {i} {10 - i / 10} r\n" for t in (1, 2, 3) for i in range(7 + t))
    (tmp_path / "r.txt").write_text(run)
    (tmp_path / "c.txt").write_text("a 1\nb 2.5\n* 0.7\n")
    (tmp_path / "r2.txt").write_text(run.replace(" c ", " z "))
    (tmp_path / "c2.txt").write_text("a 1\nb 2.5\nz 0.7\n")
    (tmp_path / "m.txt").write_text(SMALL_METRICS + "TBGCWLMetric(2)\nIFTRateCWLMetric(0.2, 0.9, 10)\n")
    common = ["-m", tmp_path / "m.txt", "-r", "--max_depth", "12"]
    theirs = _cwl_eval(tmp_path / "g.txt", tmp_path / "r2.txt", "-c", tmp_path / "c2.txt", *common,
                       "--max_cost", "0.7", "--min_cost", "0.7", cwd=tmp_path)
    code, ours, _ = _ours(capsys, tmp_path / "g.txt", tmp_path / "r.txt", "-c", tmp_path / "c.txt", *common,
                          "--max_cost", "3", "--min_cost", "0.5")
    assert code == 0 and ours == theirs
    code, without_star, _ = _ours(capsys, tmp_path / "g.txt", tmp_path / "r2.txt", "-c", tmp_path / "c2.txt",
                                  *common, "--max_cost", "3", "--min_cost", "0.5")
    assert without_star != ours          # padding costs --max_cost / --min_cost without a '*' line


# ------------------------------------------------------------------------- streams

@pytest.mark.parametrize("form", ["pipe-dash", "pipe-dev-stdin", "gain-from-stdin", "process-substitution",
                                  "gzip-files", "fifos"])
def test_every_input_form(form, small, tmp_path):
    """Every input form of ``ir-cwla cwl`` gives the output of the same files.

    The gain, result, cost and metrics files through every form the other commands accept,
    end to end in a subprocess: the output of the same files read as files.
    """
    g, r, m = small / "g.txt", small / "r.txt", small / "m.txt"
    c = small / "c.txt"
    c.write_text("Q0 2\n")
    for path in (g, r, m, c):
        (small / (path.name + ".gz")).write_bytes(gzip.compress(path.read_bytes()))
    py = f"{sys.executable} -m ir_cwla cwl"
    opts = "-r --max_depth 6"
    reference = _sh(f"{py} {g} {r} -m {m} -c {c} {opts}", small)
    assert reference.returncode == 0 and reference.stdout.count("\n") == 25, reference.stderr
    if form == "fifos":
        fifos = {}
        for path in (g, r, m, c):
            fifo = tmp_path / f"{path.stem}.fifo"
            os.mkfifo(fifo)
            fifos[path] = fifo
        writers = [threading.Thread(target=lambda p=p, f=f: f.write_bytes(p.read_bytes())) for p, f in fifos.items()]
        for w in writers:
            w.start()
        command = f"{py} {fifos[g]} {fifos[r]} -m {fifos[m]} -c {fifos[c]} {opts}"
    else:
        command = {
            "pipe-dash": f"cat {r} | {py} {g} - -m {m} -c {c} {opts}",
            "pipe-dev-stdin": f"gzip -c {r} | {py} {g} /dev/stdin -m {m} -c {c} {opts}",
            "gain-from-stdin": f"cat {g} | {py} - {r} -m {m} -c {c} {opts}",
            "process-substitution": f"{py} <(cat {g}) <(gzip -c {r}) -m <(cat {m}) -c <(cat {c}) {opts}",
            "gzip-files": f"{py} {g}.gz {r}.gz -m {m}.gz -c {c}.gz {opts}",
        }[form]
    done = _sh(command, small)
    if form == "fifos":
        for fifo, w in zip(fifos.values(), writers):
            if w.is_alive():          # the command failed before opening it: release the writer
                fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
                w.join(5)
                os.close(fd)
            w.join()
    assert done.returncode == 0, done.stderr
    assert done.stdout == reference.stdout


def test_standard_input_is_read_once(small, capsys):
    code, _, err = _ours(capsys, "-", "/dev/stdin")
    assert code == 1 and "standard input can be read only once, but 2 arguments read it (-, /dev/stdin)" in err


# ------------------------------------------------------------------------- errors

@pytest.mark.parametrize("content, run, metrics, extra, message", [
    ("1 0 a 2\n", None, "RBPCWLMetric(0.5)\n", [], r"g.txt:1: gain 2 lies outside \[0, 1\] \(--min_gain, --max_gain\)"),
    ("1 0 a x\n", None, "RBPCWLMetric(0.5)\n", [], r"g.txt:1: gain 'x' is not a number"),
    ("1 a 1\n", None, "RBPCWLMetric(0.5)\n", [], r"g.txt:1: expected 4 fields \(topic unused doc_id gain\), found 3$"),
    ("1 0 a 1\n", None, "RBPMetric(0.5)\n", [], r"m.txt:1: unknown metric class 'RBPMetric'; known: PrecisionCWLMetric"),
    ("1 0 a 1\n", None, "RBPCWLMetric(0.5, 3)\n", [], r"m.txt:1: RBPCWLMetric takes \(theta=0.9\), got 2 argument\(s\)"),
    ("1 0 a 1\n", None, "RBPCWLMetric(x)\n", [], r"m.txt:1: argument 'x' is not a number"),
    ("1 0 a 1\n", None, "RBPCWLMetric\n", [], r"m.txt:1: expected ClassName\(arg, ...\), got 'RBPCWLMetric'"),
    ("1 0 a 1\n", None, "RBPCWLMetric(1.5)\n", [], r"p must lie in \(0, 1\)"),
    ("1 0 a 1\n", None, "RBPCWLMetric(0.5)\n", ["--min_gain", "-1"], r"need 0 <= min_gain <= max_gain"),
    ("1 0 a 1\n", None, "RBPCWLMetric(0.5)\n", ["--max_cost", "0"], r"need 0 < min_cost <= max_cost"),
    ("1 0 a 1\n", None, "RBPCWLMetric(0.5)\n", ["-c", "nope.txt"], r"cost file not found: nope.txt"),
    # empty inputs: an error naming the file (cwl_eval: zeros for an empty gain file, an
    # AttributeError for an empty result file)
    ("", None, "RBPCWLMetric(0.5)\n", [], r"error: gain file g.txt holds no judgments$"),
    ("\n \n", None, "RBPCWLMetric(0.5)\n", [], r"error: gain file g.txt holds no judgments$"),
    ("1 0 a 1\n", "", "RBPCWLMetric(0.5)\n", [], r"error: result file r.txt is empty: no ranked documents$"),
    ("1 0 a 1\n", None, "\n# nothing\n", [], r"error: metrics file m.txt: no metric$"),
    ("1 0 a 1\n", "1 Q0 a 1 x r\n", "RBPCWLMetric(0.5)\n", [], r"r.txt:1: field 5 \(score\) is not a number"),
    # what cwl_eval stops on with a numpy error
    ("1 0 a 1\n", None, "PrecisionCWLMetric(12)\n", ["--max_depth", "10"],
     r"error: P@12: k must lie in \[1, --max_depth \+ 1 = 11\]$"),
    ("1 0 a 1\n", None, "UMeasureCWLMetric(5)\n", ["--max_depth", "1"], r"U-L@5: the U-measure needs --max_depth >= 2"),
    ("1 0 a 1\n", None, "INSTCWLMetric(1)\n", ["--max_gain", "2", "-r"],
     r"INST-T=1: cwl_eval's INSTCWLMetric takes gains in \[0, 1\], not 2 \(the best case of -r gives unjudged "
     r"documents --max_gain\)"),
    # a cost file's errors name the file and line, never the line's content
    ("1 0 a 1\n", None, "RBPCWLMetric(0.5)\n", ["-c", "c.txt"], r"error: c.txt:2: expected 2 fields \(label cost\), "
                                                                 r"found 3$"),
])
def test_errors_name_the_file_line_and_problem(content, run, metrics, extra, message, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("g.txt").write_text(content)
    Path("m.txt").write_text(metrics)
    Path("r.txt").write_text("1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n" if run is None else run)
    Path("c.txt").write_text("Q0 1\nsecret hunter2 x\n")
    code, _, err = _ours(capsys, "g.txt", "r.txt", "-m", "m.txt", *extra)
    assert code == 1 and err.count("\n") == 1
    assert re.search(message, err.strip()), err
    assert "hunter2" not in err


@pytest.mark.parametrize("line, option, message", [
    ("Q0 1e308\n", [], r"c.txt:1: a cost must lie in \[9.09e-13, 1.1e\+12\], so that sums of costs over a "
                       r"ranking and their inverses stay finite$"),
    ("Q0 1e-300\n", [], r"c.txt:1: a cost must lie in \[9.09e-13, 1.1e\+12\]"),
    ("Q0 inf\n", [], r"c.txt:1: a cost must be a finite number > 0$"),
    ("Q0 x\n", [], r"c.txt:1: cost \(field 2\) is not a number$"),
    ("Q0 1\n", ["--max_cost", "1e308"], r"--max_cost 1e\+308: a cost must lie in \[9.09e-13, 1.1e\+12\]"),
    ("Q0 1\n", ["--min_cost", "1e-300", "--max_cost", "1"], r"--min_cost 1e-300: a cost must lie in"),
])
def test_costs_whose_sums_could_overflow_are_refused(line, option, message, tmp_path, capsys, monkeypatch):
    """cwl_eval prints ``inf`` or ``nan`` (exit 0) for costs like 1e308, whose sums over a ranking overflow.

    Each cost (and --max_cost, --min_cost) lies in [MIN_COST, MAX_COST].
    """
    monkeypatch.chdir(tmp_path)
    Path("g.txt").write_text(GAINS)
    Path("r.txt").write_text(MESSY_RUN)
    Path("c.txt").write_text(line)
    code, _, err = _ours(capsys, "g.txt", "r.txt", "-c", "c.txt", *option)
    assert code == 1 and re.search(message, err.strip()), err


def test_the_largest_costs_give_finite_numbers(tmp_path, capsys, monkeypatch):
    """Costs at the bound, over rankings of 100,000 documents: every number printed is finite."""
    monkeypatch.chdir(tmp_path)
    Path("g.txt").write_text(GAINS)
    Path("r.txt").write_text(MESSY_RUN)
    Path("c.txt").write_text(f"Q0 {ir_cwla.io.MAX_COST!r}\n")
    Path("m.txt").write_text("RBPCWLMetric(0.99)\nINSTCWLMetric(1)\nTBGCWLMetric(22)\nTrAPCWLMetric()\n")
    code, out, err = _ours(capsys, "g.txt", "r.txt", "-c", "c.txt", "-m", "m.txt", "-r", "--max_depth", "100000",
                           "--max_cost", repr(ir_cwla.io.MAX_COST))
    assert code == 0, err
    values = np.array([float(v) for line in out.splitlines() for v in line.split("\t")[2:]])
    assert np.isfinite(values).all() and values.max() > 1e16


# ------------------------------------------------------------------------- the rest of the command

def test_help_says_the_default_order(capsys):
    with pytest.raises(SystemExit):
        main(["cwl", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--order {file,trec}" in text and "'file' (default), each topic's lines in the order they come" in text
    assert "``--order file`` (the default) takes the result file's line order" in cwl.__doc__


def test_bib_file(tmp_path, capsys):
    (tmp_path / "g.txt").write_text("1 0 a 1\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 2 r\n")
    bib = tmp_path / "refs.bib"
    assert main(["cwl", str(tmp_path / "g.txt"), str(tmp_path / "r.txt"), "-b", str(bib)]) == 0
    text = bib.read_text()
    assert text.count("@") == 7 and "azzopardi2019cwl" in text and "Moffat:2015:IAM" in text
