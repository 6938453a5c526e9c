"""``ir-cwla cwl``: cwl_eval's command on the ir_cwla engine. Its table equals cwl_eval's
Python API per topic to 1e-9 (EU, ETU, EC, ETC, ED and their residuals, default metrics and
the zoo, unit costs and a cost file), and its printed output equals cwl_eval's command line
to cwl_eval's precision on real DL19 runs written in trec_eval order."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ir_cwla
from ir_cwla.app import cwl
from ir_cwla.app.cli import main
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


@pytest.fixture(scope="module")
def qrels(dl19_qrels_path):
    return ir_cwla.io.read_trec_qrels(dl19_qrels_path)


@pytest.fixture(scope="module")
def files(qrels, tmp_path_factory):
    """The gain file (grades / x_max), the zoo's metrics file and a cost file."""
    root = tmp_path_factory.mktemp("cwl")
    x_max = qrels["relevance"].max()
    gains = qrels.assign(it="0", gain=qrels["relevance"].clip(lower=0) / x_max)
    gains[["query_id", "it", "doc_id", "gain"]].to_csv(root / "gains.txt", sep=" ", header=False, index=False)
    (root / "metrics.txt").write_text(ZOO_FILE)
    (root / "costs.txt").write_text("".join(f"{t} {c}\n" for t, c in TYPE_COSTS.items() if t != "c"))
    return root


def write_run(frame: pd.DataFrame, path: Path) -> Path:
    """A TREC run file in trec_eval order (the order cwl_eval reads as the ranking)."""
    ordered = trec_sorted(frame)
    if "element_type" not in ordered.columns:
        ordered = ordered.assign(element_type="Q0")
    ordered = ordered.assign(rank=ordered.groupby("query_id").cumcount() + 1, run="r")
    ordered[["query_id", "element_type", "doc_id", "rank", "score", "run"]].to_csv(path, sep=" ", header=False,
                                                                                  index=False)
    return path


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


@pytest.mark.parametrize("run, priced", [("bm25base_p", False), ("ICT-BERT2", True), ("runid5", True),
                                         ("srchvrs_ps_run2", False)])
def test_table_equals_cwl_eval_api(run, priced, qrels, files, dl19_dir, tmp_path):
    """Default metrics and the zoo, with residuals, per topic to 1e-9 (TrAP: EU and its residual;
    its other columns are the C/W/L model's, see ir_cwla.app.cwl)."""
    frame = ir_cwla.io.read_trec_run(dl19_dir / "runs" / f"input.{run}.gz")
    if priced:
        frame = typed(frame)
    path = write_run(frame, tmp_path / "run.txt")
    lines = ["PrecisionCWLMetric(1)", "PrecisionCWLMetric(10)", "RBPCWLMetric(0.2)", "RBPCWLMetric(0.8)",
             "NDCGCWLMetric(5)", "INSTCWLMetric(3.0)"] + ZOO_FILE.splitlines()
    metrics = [cwl.parse_metric(line) for line in lines]
    cost_file = str(files / "costs.txt") if priced else None
    ours = cwl.evaluate(str(files / "gains.txt"), str(path), metrics, cost_file=cost_file, residuals=True)
    cost_dict = {t: c for t, c in TYPE_COSTS.items() if t != "c"} if priced else None
    theirs = cwl_eval_rows(qrels, frame, _their_factories(lines), cost_dict=cost_dict, residuals=True)
    assert len(ours) == len(theirs) == 43 * len(metrics)
    columns = list(cwl.QUANTITIES) + [f"Res{q}" for q in cwl.QUANTITIES]
    for row in ours.itertuples(index=False):
        expected = theirs[(row.Metric, row.Topic)]
        got = row[2:]
        check = [0, 5] if row.Metric == "TrAP" else range(10)
        for i in check:
            assert got[i] == pytest.approx(expected[i], abs=1e-9, rel=1e-9), (row.Metric, row.Topic, columns[i])


def _cli(*args, cwd):
    exe = Path(sys.executable).with_name("cwl-eval")
    done = subprocess.run([str(exe), *map(str, args)], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout


def _compare_outputs(ours: str, theirs: str, table: pd.DataFrame, skip=()):
    """Same lines, same names, the same numbers to 4 decimals: a printed digit may differ only
    where the exact value lies on a rounding tie (x.xxxx5, cwl_eval and ir_cwla summing in
    different orders); returns how many do."""
    a, b = ours.splitlines(), theirs.splitlines()
    assert len(a) == len(b) == len(table) + 1 > 1
    assert a[0] == b[0]          # the header
    ties = 0
    for x, y, row in zip(a[1:], b[1:], table.itertuples(index=False)):
        fx, fy = x.split("\t"), y.split("\t")
        assert fx[:2] == fy[:2]
        for i, (u, v) in enumerate(zip(fx[2:], fy[2:])):
            if fx[1] in skip and i not in (0, 5):
                continue
            if u != v and abs(float(u)) + abs(float(v)) > 0:
                frac = abs(row[2 + i]) * 1e4 % 1
                assert abs(frac - 0.5) < 1e-6 and abs(float(u) - float(v)) <= 1.0001e-4, (fx[:2], i, u, v, row[2 + i])
                ties += 1
    return ties


@pytest.mark.parametrize("run", ["bm25base_p", "ICT-BERT2"])
def test_command_line_equals_cwl_eval_default_metrics(run, files, dl19_dir, tmp_path, capsys):
    path = write_run(ir_cwla.io.read_trec_run(dl19_dir / "runs" / f"input.{run}.gz"), tmp_path / "run.txt")
    theirs = _cli(files / "gains.txt", path, "-n", "-r", cwd=tmp_path)
    assert main(["cwl", str(files / "gains.txt"), str(path), "-n", "-r"]) == 0
    ours = capsys.readouterr().out
    table = cwl.evaluate(str(files / "gains.txt"), str(path), cwl.DEFAULT_METRICS, residuals=True)
    assert _compare_outputs(ours, theirs, table) <= 3


def test_command_line_equals_cwl_eval_zoo_with_costs(files, dl19_dir, tmp_path, capsys):
    frame = typed(ir_cwla.io.read_trec_run(dl19_dir / "runs" / "input.runid2.gz"))
    path = write_run(frame, tmp_path / "run.txt")
    args = [files / "gains.txt", path, "-m", files / "metrics.txt", "-c", files / "costs.txt", "-n", "-r",
            "--max_depth", "500"]
    theirs = _cli(*args, cwd=tmp_path)
    assert main(["cwl", *map(str, args)]) == 0
    table = cwl.evaluate(str(files / "gains.txt"), str(path), cwl.read_metrics_file(str(files / "metrics.txt")),
                         cost_file=str(files / "costs.txt"), residuals=True, max_depth=500)
    assert _compare_outputs(capsys.readouterr().out, theirs, table, skip=("TrAP",)) <= 20


def test_topics_the_gain_file_does_not_judge_are_reported(tmp_path, capsys):
    (tmp_path / "g.txt").write_text("1 0 a 1\n1 0 b 0.5\n")
    (tmp_path / "r.txt").write_text("2 Q0 x 1 5 r\n2 Q0 y 2 4 r\n1 Q0 b 1 3 r\n1 Q0 z 2 2 r\n1 Q0 a 3 1 r\n")
    (tmp_path / "m.txt").write_text("RBPCWLMetric(0.5)\nAPCWLMetric()\nINSTCWLMetric(1)\n")
    args = [tmp_path / "g.txt", tmp_path / "r.txt", "-m", tmp_path / "m.txt", "-r", "--max_depth", "4"]
    theirs = _cli(*args, cwd=tmp_path)
    assert main(["cwl", *map(str, args)]) == 0
    ours = capsys.readouterr().out
    assert [line.split("\t")[0] for line in ours.splitlines()] == ["2"] * 3 + ["1"] * 3
    a = np.array([[float(v) for v in line.split("\t")[2:]] for line in ours.splitlines()])
    b = np.array([[float(v) for v in line.split("\t")[2:]] for line in theirs.splitlines()])
    np.testing.assert_allclose(a, b, atol=1.0001e-4)
    assert a[:, 5].max() > 0.5        # topic 2 is all unknown: its residuals are large


@pytest.mark.parametrize("content, metrics, extra, message", [
    ("1 0 a 2\n", "RBPCWLMetric(0.5)\n", [], r"g.txt:1: gain 2 lies outside \[0, 1\] \(--min_gain, --max_gain\)"),
    ("1 0 a x\n", "RBPCWLMetric(0.5)\n", [], r"g.txt:1: gain 'x' is not a number"),
    ("1 a 1\n", "RBPCWLMetric(0.5)\n", [], r"g.txt:1: expected 4 fields"),
    ("1 0 a 1\n", "RBPMetric(0.5)\n", [], r"m.txt:1: unknown metric class 'RBPMetric'; known: PrecisionCWLMetric"),
    ("1 0 a 1\n", "RBPCWLMetric(0.5, 3)\n", [], r"m.txt:1: RBPCWLMetric takes \(theta=0.9\), got 2 argument\(s\)"),
    ("1 0 a 1\n", "RBPCWLMetric(x)\n", [], r"m.txt:1: argument 'x' is not a number"),
    ("1 0 a 1\n", "RBPCWLMetric\n", [], r"m.txt:1: expected ClassName\(arg, ...\), got 'RBPCWLMetric'"),
    ("1 0 a 1\n", "RBPCWLMetric(1.5)\n", [], r"p must lie in \(0, 1\)"),
    ("1 0 a 1\n", "RBPCWLMetric(0.5)\n", ["--min_gain", "-1"], r"need 0 <= min_gain <= max_gain"),
    ("1 0 a 1\n", "RBPCWLMetric(0.5)\n", ["--max_cost", "0"], r"need 0 < min_cost <= max_cost"),
    ("1 0 a 1\n", "RBPCWLMetric(0.5)\n", ["-c", "nope.txt"], r"cost file not found: nope.txt"),
])
def test_errors_name_the_file_line_and_problem(content, metrics, extra, message, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("g.txt").write_text(content)
    Path("m.txt").write_text(metrics)
    Path("r.txt").write_text("1 Q0 a 1 2 r\n")
    assert main(["cwl", "g.txt", "r.txt", "-m", "m.txt", *extra]) == 1
    err = capsys.readouterr().err
    import re
    assert re.search(message, err), err


def test_bib_file(tmp_path, capsys):
    (tmp_path / "g.txt").write_text("1 0 a 1\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 2 r\n")
    bib = tmp_path / "refs.bib"
    assert main(["cwl", str(tmp_path / "g.txt"), str(tmp_path / "r.txt"), "-b", str(bib)]) == 0
    text = bib.read_text()
    assert text.count("@") == 7 and "azzopardi2019cwl" in text and "Moffat:2015:IAM" in text


def test_eu_ec_ed_columns_are_the_cwla_measures(qrels, files, dl19_dir, tmp_path):
    """The worst-case EU, EC and ED of every metric are ``metric.measure(A=...)`` scored by the
    provider (ETU and ETC too where cwl_eval drops nobody past the last rank)."""
    frame = typed(ir_cwla.io.read_trec_run(dl19_dir / "runs" / "input.ICT-BERT2.gz"))
    path = write_run(frame, tmp_path / "run.txt")
    metrics = [cwl.parse_metric(line) for line in ZOO_FILE.splitlines()]
    table = cwl.evaluate(str(files / "gains.txt"), str(path), metrics, cost_file=str(files / "costs.txt"))
    cost_file = tmp_path / "all.txt"
    cost_file.write_text(Path(files / "costs.txt").read_text() + "* 1\n")      # unpriced: --max_cost
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
