"""trec_eval's own test suite, and edge cases answered by trec_eval 10.0, run through ``ir-cwla eval``.

Every case of the ``quicktest`` target of trec_eval 10.0's Makefile (usnistgov/trec_eval, tag
v10.0; its files in tests/data/trec_eval, with NIST's notice) is run as ``ir-cwla eval
<trec_eval's arguments> --trec-eval 10 --format trec_eval`` and its output compared with
trec_eval's expected file, line by line at trec_eval's printed precision (the output must be
byte-identical); so is each edge case of tests/data/trec_eval/edge (made by its
``make_edge_cases.py``, answered by trec_eval 10.0 built from its source). The cases ir-cwla
does not support (preference judgments, judgment groups, z-scores) must be refused with one
line saying why.

The table of the docs page "trec_eval conformance" (cases, lines identical, unsupported and
why) is ``tests/data/trec_eval/conformance.json``, which :func:`test_the_conformance_table_is_the_one_the_docs_show`
checks against what the cases give here (``IR_CWLA_WRITE_CONFORMANCE=1`` writes it).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import pytest

from ir_cwla.app.cli import main

DATA = Path(__file__).resolve().parent / "data" / "trec_eval"
TABLE = DATA / "conformance.json"
OPTIONS = ["--trec-eval", "10", "--format", "trec_eval"]


@dataclass(frozen=True)
class Case:
    """One trec_eval command line and what trec_eval answers (its expected file)."""

    name: str
    args: tuple[str, ...]
    expected: Optional[str]            # file under DATA with trec_eval's output; None: refused by ir-cwla
    source: str                        # "quicktest" or "edge"
    line: str = ""                     # the Makefile line, or what the edge case checks
    stdin: Optional[str] = None
    needs: Optional[str] = None        # why ir-cwla cannot run it yet (an xfail reason)
    refused: Optional[str] = None      # why ir-cwla refuses it: the text its error must contain
    why: str = ""
    item: str = field(default="")


def _quicktest() -> list[Case]:
    """The quicktest of trec_eval 10.0's Makefile, in its order (its ``test/`` is our DATA)."""
    make = [
        ("out.test", "qrels.test results.test", None),
        ("out.test", "qrels.test.with-comments results.test", None),
        ("out.comment.test", "qrels.comment.test.gz results.comment.test.gz", None),
        ("out.test.a", "-m all_trec qrels.test results.test", None),
        ("out.test.aq", "-m all_trec -q qrels.test results.test", None),
        ("out.test.aqc", "-m all_trec -q -c qrels.test results.trunc", None),
        ("out.test.aqcM", "-m all_trec -q -c -M100 qrels.test results.trunc", None),
        ("out.test.aql", "-m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test", None),
        ("out.test.prefs", "-m all_prefs -q -R prefs prefs.test prefs.results.test", None),
        ("out.test.prefs", "-m all_prefs -q -R prefs prefs.comment.test prefs.results.test", None),
        ("out.test.qrels_prefs", "-m all_prefs -q -R qrels_prefs qrels.test results.test", None),
        ("out.test.qrels_jg", "-m qrels_jg -q -R qrels_jg  qrels.123 results.test", None),
        ("out.test.qrels_jg", "-m qrels_jg -q -R qrels_jg  qrels.comments.123 results.test", None),
        ("out.test.meas_params", "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 "
         "-m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 -mndcg.1=3,2=9,4=4.5 "
         "-mndcg_cut.10,20,23.4 -msuccess.2,5,20 qrels.test results.test", None),
        ("out.test.aqZ", "-q -m all_trec -Z zscores_file qrels.test results.test", None),
    ]
    refusals = {"-R prefs": ("-R prefs", "preference judgments (-R prefs): ir-cwla reads TREC qrels only"),
                "-R qrels_prefs": ("-R qrels_prefs", "preference judgments from qrels (-R qrels_prefs): ir-cwla "
                                                     "computes no preference measures"),
                "-R qrels_jg": ("-R qrels_jg", "judgment groups (-R qrels_jg): ir-cwla reads TREC qrels only"),
                "-Z": ("-Z", "z-scores against a file of means (-Z): not available")}
    out = []
    for i, (expected, args, needs) in enumerate(make, start=1):
        refused = next((v for k, v in refusals.items() if k in args), None)
        shown = args.replace(".gz", "")
        out.append(Case(f"quicktest-{i:02d}", tuple(args.split()), None if refused else expected, "quicktest",
                        f"./trec_eval {shown} | diff - test/{expected}", needs=needs,
                        refused=refused[0] if refused else None, why=refused[1] if refused else ""))
    return out


def _edge() -> list[Case]:
    cases = json.loads((DATA / "edge" / "cases.json").read_text())
    return [Case(c["name"], tuple(c["args"]), f"edge/{c['name']}.out", "edge", c["checks"], c.get("stdin"),
                 c.get("needs"), item=c["item"]) for c in cases]


CASES = _quicktest() + _edge()


@dataclass
class Outcome:
    code: int
    out: str
    err: str


def _eval(capsys, *argv: str) -> Outcome:
    """``ir-cwla`` with ``argv`` in this process, in DATA."""
    here = os.getcwd()
    os.chdir(DATA)
    try:
        code = main(list(argv))
    finally:
        os.chdir(here)
    out, err = capsys.readouterr()
    return Outcome(code, out, err)


def _run(case: Case, capsys: Optional[pytest.CaptureFixture] = None) -> Outcome:
    """``ir-cwla eval`` on the case, in DATA (in this process; in a subprocess for a run on stdin)."""
    argv = ["eval", *case.args, *OPTIONS]
    if case.stdin is not None:
        done = subprocess.run([sys.executable, "-m", "ir_cwla", *argv], cwd=DATA, input=(DATA / case.stdin).read_text(),
                              capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
        return Outcome(done.returncode, done.stdout, done.stderr)
    assert capsys is not None
    return _eval(capsys, *argv)


def identical_lines(expected: str, got: str) -> int:
    """How many of trec_eval's lines ir-cwla prints identically (same measure, topic and printed value)."""
    mine = {tuple(line.split("\t")[:2]): line for line in got.splitlines()}
    return sum(1 for line in expected.splitlines() if mine.get(tuple(line.split("\t")[:2])) == line)


_OUTCOMES: dict[str, Outcome] = {}


def outcome(case: Case, capsys: pytest.CaptureFixture) -> Outcome:
    if case.name not in _OUTCOMES:
        _OUTCOMES[case.name] = _run(case, capsys)
    return _OUTCOMES[case.name]


def _param(case: Case):
    marks = [pytest.mark.xfail(strict=True, reason=case.needs)] if case.needs else []
    return pytest.param(case, id=case.name, marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES if c.expected is not None])
def test_the_output_is_trec_evals_byte_for_byte(case, capsys):
    """Every supported case: ir-cwla's output is trec_eval 10.0's expected file, byte for byte."""
    got = outcome(case, capsys)
    expected = (DATA / case.expected).read_text()
    assert got.code == 0, got.err
    assert identical_lines(expected, got.out) == len(expected.splitlines()), got.out
    assert got.out == expected


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CASES if c.refused is not None])
def test_what_ir_cwla_cannot_run_is_refused_in_one_line(case, capsys):
    """The quicktest cases of preference judgments, judgment groups and z-scores: one line of stderr, why."""
    got = outcome(case, capsys)
    assert got.code != 0 and got.out == ""
    lines = got.err.strip().splitlines()
    assert len(lines) == 1 and case.refused in lines[0] and "ir-cwla eval" in lines[0], got.err


def table(capsys: pytest.CaptureFixture) -> list[dict]:
    """The docs page's table: each case, its command, lines identical of trec_eval's, and why where unsupported."""
    rows = []
    for case in CASES:
        row = {"case": case.name, "source": case.source, "command": case.line if case.source == "quicktest" else
               "trec_eval " + " ".join(case.args) + (f" < {case.stdin}" if case.stdin else ""),
               "checks": case.line if case.source == "edge" else "", "item": case.item}
        if case.expected is None:
            row.update(lines=None, identical=None, status="unsupported", why=case.why)
        else:
            got = outcome(case, capsys)
            expected = (DATA / case.expected).read_text()
            same = identical_lines(expected, got.out) if got.code == 0 else 0
            n = len(expected.splitlines())
            status = "identical" if got.code == 0 and got.out == expected else "differs"
            row.update(lines=n, identical=same, status=status, why=case.needs or "")
        rows.append(row)
    return rows


def test_the_conformance_table_is_the_one_the_docs_show(capsys):
    """The data file of the docs page (docs/trec-eval.md) is what the cases give now."""
    rows = table(capsys)
    if os.environ.get("IR_CWLA_WRITE_CONFORMANCE"):
        TABLE.write_text(json.dumps(rows, indent=1) + "\n")
    assert json.loads(TABLE.read_text()) == rows, \
        "the conformance table changed: run IR_CWLA_WRITE_CONFORMANCE=1 pytest tests/test_trec_eval_conformance.py"


def test_the_cases_are_the_makefiles_and_the_edge_cases():
    """Fifteen quicktest lines (trec_eval 10.0's Makefile), 21 edge cases with trec_eval's answer each."""
    assert sum(c.source == "quicktest" for c in CASES) == 15
    edge = [c for c in CASES if c.source == "edge"]
    assert len(edge) == 21 and all((DATA / c.expected).is_file() for c in edge if c.expected)
    assert not list((DATA / "edge").glob("*.err")), "every edge case has an answer of trec_eval 10.0"


# -- the command lines of issue 28 ----------------------------------------------------------------

def test_all_trec_before_the_files_computes_trec_evals_98_values_and_says_nothing_into_stdout(capsys):
    """``-m all_trec QRELS RUN``: -m leaves the files alone; 98 values (runid aside), nothing about measures skipped."""
    got = _eval(capsys, "eval", "-m", "all_trec", "qrels.test", "results.test")
    assert got.code == 0, got.err
    lines = got.out.splitlines()
    assert lines[0].startswith("runid") and len(lines) == 1 + 98
    assert "skipped" not in got.out and "skipped" not in got.err
    assert {line.split("\t")[0].strip() for line in lines} >= {"RBP(p=0.9)", "RBPResidual(p=0.9)", "Unjudged@5",
                                                              "IPrecAvg", "GMAP", "G", "RnDCG", "RelP@5"}


def test_c_is_accepted_and_contradicts_a(capsys):
    assert _eval(capsys, "eval", "-c", "-m", "map", "qrels.test", "results.test").code == 0
    got = _eval(capsys, "eval", "-c", "-a", "-m", "map", "qrels.test", "results.test")
    assert got.code == 1 and "-c" in got.err and "-a" in got.err


@pytest.mark.parametrize("command", ["eval", "measures"])
def test_iprec_at_a_recall_is_read_by_both_commands(capsys, command):
    """``IPrec@0.1``, the name ir-cwla prints, in ir-measures syntax, on ``eval -m`` and on ``measures``."""
    argv = (["eval", "qrels.test", "results.test", "-m", "IPrec@0.1"] if command == "eval" else
            ["measures", "qrels.test", "results.test", "IPrec@0.1"])
    got = _eval(capsys, *argv)
    assert got.code == 0, got.err
    assert got.out.splitlines()[-1].split("\t")[-1].strip() == "0.3884"            # trec_eval 9.0.8's, the default


def test_trec_evals_long_options_and_glued_forms(capsys):
    got = _eval(capsys, "eval", "--query_eval_wanted", "--meas=map", "-M100", "-l2", "qrels.rel_level", "results.test",
                "--trec-eval", "10", "--format", "trec_eval")
    assert got.code == 0 and [line.split("\t")[1] for line in got.out.splitlines()] == ["301", "302", "303", "all"]


@pytest.mark.parametrize("argv, says", [
    (["-R", "prefs"], "-R prefs"), (["-R", "qrels_jg"], "-R qrels_jg"), (["-Z", "zscores_file"], "-Z"),
    (["-D", "1"], "-D"), (["-T", "other"], "-T other"), (["-o"], "-o"),
])
def test_what_trec_eval_offers_and_ir_cwla_does_not_is_refused_in_one_line(capsys, argv, says):
    got = _eval(capsys, "eval", *argv, "-m", "map", "qrels.test", "results.test")
    assert got.code == 1 and got.out == "" and len(got.err.strip().splitlines()) == 1 and says in got.err


def test_relstring_outside_trec_evals_format_is_said_once_on_stderr(capsys):
    got = _eval(capsys, "eval", "-q", "-m", "relstring.20", "-m", "map", "qrels.test", "results.test", "--format",
                "jsonl")
    assert got.code == 0 and got.err.count("relstring") == 1 and "relstring" not in got.out
