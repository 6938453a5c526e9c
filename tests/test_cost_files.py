"""Cost files named inside measure strings, and costs whose sums could overflow.

Cost files named inside a measure string are read only with an opt-in, errors about them
never quote a line, and costs whose sums over a ranking could overflow are refused
(:mod:`ir_cwla.costs`). On the synthetic collection; each number checked against a loop over
the definition (EC of P@k with one cost per grade: the sum of the first k costs / k).
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings

import ir_measures
import numpy as np
import pytest

import ir_cwla
from ir_cwla import CWLA
from ir_cwla.app.cli import main
from ir_cwla.errors import CostError, InputError, MeasureError
from ir_cwla.io import MAX_COST, MIN_COST
from ir_cwla.measures import CostSpec
from ir_cwla.measures._costs import COST_FILES_ENV, cost_file_allowed

SECRET = "xyzzy-s3cret-value"


@pytest.fixture(autouse=True)
def no_allowance(monkeypatch):
    """Every test starts with no cost file allowed, and a secret in the environment."""
    monkeypatch.delenv(COST_FILES_ENV, raising=False)
    monkeypatch.setenv("IR_CWLA_TEST_SECRET", SECRET)


@pytest.fixture
def frames(synthetic_collection):
    run = next(iter(synthetic_collection.runs.values()))
    return synthetic_collection.qrels, run.assign(element_type="Q0")


def _score(measure, qrels, run):
    topics, scores = ir_cwla.CwlaEvaluator([measure], qrels).score(run)
    return scores[measure]


@pytest.mark.parametrize("spec", ["doc:/proc/self/environ", "type:/etc/passwd", "doc:../../x.txt"])
def test_a_measure_string_cannot_read_a_file_without_an_opt_in(spec, frames):
    """A measure string cannot read a file without an opt-in.

    Validation (parse_measures, the provider, the Scorer) refuses the measure before anything
    is opened, naming the file and the two ways to allow it, never its content.
    """
    qrels, run = frames
    m = CWLA(C="U", A="ERG", costs=spec) @ 10
    path = spec.partition(":")[2]
    expected = (rf"cost file {path} is named inside a measure, and a measure string may read a file only with an "
                rf"opt-in .*ir_cwla.allow_cost_files\('{path}'\) .*or set {COST_FILES_ENV}")
    for attempt in (m.validate_params, lambda: ir_cwla.parse_measures(str(m)), lambda: _score(m, qrels, run),
                    lambda: ir_measures.calc_aggregate([m], qrels, run)):
        with pytest.raises(MeasureError, match=expected) as caught:
            attempt()
        assert SECRET not in str(caught.value) and "root:" not in str(caught.value)


def test_the_reader_itself_is_gated(tmp_path):
    """A CostSpec built without validation (a plugin, a pickled measure) cannot read either."""
    path = tmp_path / "c.txt"
    path.write_text("Q0 2\n")
    with pytest.raises(CostError, match="is named inside a measure"):
        CostSpec("type", path=str(path)).pad_cost()
    with ir_cwla.allow_cost_files(path):
        assert CostSpec("type", path=str(path)).pad_cost() == 1.0


def test_allowed_files_and_directories(frames, tmp_path, monkeypatch):
    """A file, or every file under a directory.

    Symbolic links resolved (a link in an allowed directory to a file outside it is
    refused); the context form restores what was allowed.
    """
    qrels, run = frames
    inside, outside = tmp_path / "allowed", tmp_path / "elsewhere"
    inside.mkdir()
    outside.mkdir()
    for d in (inside, outside):
        (d / "c.txt").write_text("Q0 2.5\n* 2.5\n")       # '*': the padding of short rankings too
    (inside / "link.txt").symlink_to(outside / "c.txt")
    m = CWLA(C="P", A="EC", costs=f"type:{inside / 'c.txt'}") @ 5
    with ir_cwla.allow_cost_files(inside):
        np.testing.assert_array_equal(_score(m, qrels, run), 2.5)
        assert cost_file_allowed(inside / "c.txt") and cost_file_allowed(inside / "sub" / "x")
        assert not cost_file_allowed(inside / "link.txt") and not cost_file_allowed(outside / "c.txt")
        assert not cost_file_allowed(str(inside) + "-other/c.txt")
        with ir_cwla.allow_cost_files(outside / "c.txt"):
            assert cost_file_allowed(inside / "link.txt")
        assert not cost_file_allowed(inside / "link.txt")
    assert COST_FILES_ENV not in os.environ
    with pytest.raises(CostError, match="is named inside a measure"):     # validated before: the reader refuses
        _score(m, qrels, run)
    with pytest.raises(MeasureError, match="is named inside a measure"):
        (CWLA(C="P", A="EC", costs=f"type:{inside / 'c.txt'}") @ 6).validate_params()
    monkeypatch.setenv(COST_FILES_ENV, os.pathsep.join(["/nonexistent", str(inside)]))
    np.testing.assert_array_equal(_score(m, qrels, run), 2.5)
    with pytest.raises(ir_cwla.ParameterError, match="must be non-empty and not contain"):
        ir_cwla.allow_cost_files(f"a{os.pathsep}b")


def test_worker_processes_inherit_the_allowance(tmp_path):
    """allow_cost_files records the paths in the environment.

    A process started afterwards reads the file (as ir_cwla.meta's local
    executors' workers do).
    """
    path = tmp_path / "c.txt"
    path.write_text("Q0 2\n")
    code = f"import ir_cwla; ir_cwla.CWLA(C='RBP', A='EC', costs='type:{path}').validate_params(); print('ok')"
    before = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert before.returncode == 1 and "is named inside a measure" in before.stderr
    with ir_cwla.allow_cost_files(tmp_path):
        after = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert after.returncode == 0 and after.stdout == "ok\n", after.stderr


@pytest.mark.parametrize("content, message", [
    (f"HOME=/root {SECRET} PATH=/bin\n", r"c.txt:1: expected 2 fields \(label cost\), found 3$"),
    (f"Q0 1\npassword {SECRET}\n", r"c.txt:2: cost \(field 2\) is not a number$"),
    ("Q0 1\nQ0 1e308\n", r"c.txt:2: a cost must lie in \[9.09e-13, 1.1e\+12\], so that sums of costs over a "
                         r"ranking and their inverses stay finite$"),
    ("Q0 0\n", r"c.txt:1: a cost must be a finite number > 0$"),
    (f"{SECRET}\0 1\n", r"c.txt:1: binary data \(a NUL byte\); not a cost file$"),
])
def test_errors_about_an_allowed_file_never_quote_it(content, message, frames, tmp_path):
    qrels, run = frames
    path = tmp_path / "c.txt"
    path.write_text(content)
    with ir_cwla.allow_cost_files(path), pytest.raises(InputError) as caught:
        _score(CWLA(C="RBP", A="EC", costs=f"type:{path}") @ 10, qrels, run)
    assert re.search(message, str(caught.value)), str(caught.value)
    assert SECRET not in str(caught.value)


@pytest.mark.skipif(not os.path.exists("/proc/self/environ"), reason="no /proc/self/environ here")
def test_proc_environ_allowed_still_never_quoted(frames):
    """Even allowed, the process's environment file is not quoted: no variable of it is in the error."""
    qrels, run = frames
    with open("/proc/self/environ", "rb") as f:
        entries = [e.decode("utf-8", "replace") for e in f.read().split(b"\0") if len(e) >= 6]
    with ir_cwla.allow_cost_files("/proc/self/environ"), pytest.raises(InputError) as caught:
        _score(CWLA(C="U", A="ERG", costs="doc:/proc/self/environ") @ 10, qrels, run)
    text = str(caught.value)
    assert text.startswith("/proc/self/environ:1: ") and entries
    values = [e.partition("=")[2][:12] for e in entries if len(e.partition("=")[2]) >= 4]
    assert not [e for e in entries if e in text] and not [v for v in values if v in text.partition(": ")[2]]


def test_the_command_line_allows_the_files_its_user_names(synthetic_files, tmp_path, capsys):
    """``ir-cwla eval -m`` reads a cost file named in a measure on its own command line.

    The allowance ends with the command.
    """
    path = tmp_path / "c.txt"
    path.write_text("Q0 2\n* 2\n")
    run = next(iter(synthetic_files.runs.values()))
    code = main(["eval", str(synthetic_files.qrels), str(run), "-q", "-n", "--answered-only", "-m",
                 f"CWLA(C='P',A='EC',costs='type:{path}')@5"])
    out, err = capsys.readouterr()
    assert code == 0, err
    values = {line.split("\t")[-1] for line in out.splitlines()[1:]}
    assert values == {"2.0000"} and len(out.splitlines()) > 30
    assert COST_FILES_ENV not in os.environ


# ------------------------------------------------------------------------- overflow

@pytest.mark.parametrize("costs", ["grade:0:1e308;1:1e308;2:1e308;3:1e308", "grade:0:1;1:1e300", "grade:0:1e-300",
                                   "grade:0:1;1:2e12"])
def test_costs_whose_sums_could_overflow_are_refused(costs):
    """Each cost lies in [MIN_COST, MAX_COST] = [2^-40, 2^40].

    A sum over a ranking of up to 2^64 documents, and the inverse of a cumulated cost, stay
    finite (before: inf, nan, JSON null or a 300-digit number, exit 0).
    """
    with pytest.raises(CostError, match=r"a cost must lie in \[9.09e-13, 1.1e\+12\]"):
        (CWLA(C="RBP", A="ETC", costs=costs) @ 1000).validate_params()


def test_costs_at_the_bounds_give_finite_numbers(frames):
    """At the cost bounds, every cost-reading measure gives finite numbers.

    At MAX_COST every cost-reading measure is finite, on rankings padded to 1000 and beyond
    (tail='pad'), and at MIN_COST under 'stop' (under 'pad' the U-measure's tail would need
    10^15 ranks: a KernelError says so); EC of P@k with one cost c is c.
    """
    qrels, run = frames
    assert MAX_COST * 2.0 ** 64 * MAX_COST * 2.0 ** 64 < sys.float_info.max and MIN_COST == 1 / MAX_COST
    grades = sorted(g for g in qrels["relevance"].unique() if g >= 0)        # (a negative grade counts as 0)
    for c in (MAX_COST, MIN_COST):
        spec = "grade:" + ";".join(f"{g}:{c!r}" for g in grades)
        combos = [dict(C=model, A=a, costs=spec, tail=tail) for model in ("P", "RBP", "TBG", "U", "TrAP")
                  for a in ("EC", "ETC", "ERG") for tail in ("stop", "pad")
                  if not (tail == "pad" and (model == "P" or c == MIN_COST))]
        valid = []
        for combo in combos:
            try:
                m = CWLA(**combo) @ 1000
                m.validate_params()
            except MeasureError:
                continue
            valid.append(m)
        assert len(valid) >= 13
        with warnings.catch_warnings():      # TBG at 2^40: C = 0, whose log numpy warns about
            warnings.simplefilter("ignore", RuntimeWarning)
            topics, scores = ir_cwla.CwlaEvaluator(valid, qrels).score(run)
        for m in valid:
            assert np.isfinite(scores[m]).all(), m
        ec = CWLA(C="P", A="EC", costs=spec) @ 1000
        np.testing.assert_allclose(ir_cwla.CwlaEvaluator([ec], qrels).score(run)[1][ec], c, rtol=1e-12)


def test_eval_refuses_an_overflowing_cost_on_the_command_line(synthetic_files, capsys):
    run = next(iter(synthetic_files.runs.values()))
    code = main(["eval", str(synthetic_files.qrels), str(run), "-m",
                 "CWLA(C='RBP',A='ETC',costs='grade:0:1e308;1:1e308;2:1e308;3:1e308')@1000", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 1 and out == "" and "a cost must lie in [9.09e-13, 1.1e+12]" in err

