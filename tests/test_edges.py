"""The edges of issue 33 ("Other edges"): each unusual input gets a clear answer, before any work where it can.

Small TREC files are written per test; the commands run in-process (:func:`ir_cwla.app.cli.main`)
unless a test needs a process of its own (stdin, resource limits).
"""
from __future__ import annotations

import math
import os
import random
import re
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

from ir_cwla.app.cli import main
from ir_cwla.app.commands import compare as compare_command
from ir_cwla.app.commands import meta as meta_command
from ir_cwla.errors import DataError, ParameterError
from ir_cwla.meta import topic_set_size as tss

ROOT = Path(__file__).resolve().parents[1]


def _main(capsys, *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture()
def files(tmp_path: Path) -> Path:
    """``qrels.txt`` and three runs (``runs/run_a.txt`` ...) over 10 topics of 20 documents."""
    rng = random.Random(1)
    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 d{d} {rng.choice([0, 0, 1, 2])}\n"
                                                for q in range(1, 11) for d in range(20)))
    (tmp_path / "runs").mkdir()
    for name in "abc":
        lines = []
        for q in range(1, 11):
            docs = list(range(20))
            rng.shuffle(docs)
            lines += [f"{q} Q0 d{d} {r} {100 - r} {name}\n" for r, d in enumerate(docs, 1)]
        (tmp_path / "runs" / f"run_{name}.txt").write_text("".join(lines))
    return tmp_path


def _no_work(monkeypatch, module) -> None:
    def boom(plan):     # noqa: ARG001
        raise AssertionError("the command started its work")

    monkeypatch.setattr(module, "execute", boom)


# -- Monte-Carlo counts and seeds: bounded before any work ------------------------------------------

@pytest.mark.parametrize("option", ["--trials", "--resamples", "--max-trials", "--max-resamples"])
def test_compare_bounds_its_counts_before_any_work(capsys, monkeypatch, files, option):
    _no_work(monkeypatch, compare_command)
    code, out, err = _main(capsys, "compare", files / "qrels.txt", files / "runs/run_a.txt", files / "runs/run_b.txt",
                           option, "1000000000000")
    assert (code, out) == (1, "")
    assert err == (f"ir-cwla compare: error: {option} must be at most 1,000,000,000 "
                   "(ir_cwla.analysis.streams.MAX_TRIALS), got 1,000,000,000,000\n")


@pytest.mark.parametrize("option", ["--trials", "--test-trials", "--fraction-trials", "--alt-bootstrap"])
def test_meta_bounds_its_counts_before_any_work(capsys, monkeypatch, files, option):
    _no_work(monkeypatch, meta_command)
    code, out, err = _main(capsys, "meta", files / "qrels.txt", files / "runs", "--alt-qrels", files / "qrels.txt",
                           option, "1000000000000")
    assert (code, out) == (1, "")
    assert err.endswith(f"ir-cwla meta: error: {option} must be at most 1,000,000,000 "
                        "(ir_cwla.analysis.streams.MAX_TRIALS), got 1,000,000,000,000\n"), err


def test_meta_fraction_trials_1_says_why_it_is_too_few(capsys, monkeypatch, files):
    _no_work(monkeypatch, meta_command)
    code, out, err = _main(capsys, "meta", files / "qrels.txt", files / "runs", "--fraction-trials", "1")
    assert code == 1 and "topics" not in err
    assert err.endswith("ir-cwla meta: error: --fraction-trials must be >= 2: the randomised Tukey HSD test compares "
                        "the measures over the trials (paired by trial), got 1\n"), err


@pytest.mark.parametrize("command", ["meta", "compare", "leaderboard", "demo"])
def test_a_negative_seed_is_refused_before_any_work(capsys, command):
    with pytest.raises(SystemExit) as exit_:
        main([command, "x", "y", "--seed", "-1"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"ir-cwla {command}: error: argument --seed: expected a seed, an int >= 0, got '-1'" in err


# -- topic set size: no overflow ------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [dict(min_d=1e-9), dict(min_d=1e-200), dict(min_d=0.1, beta=1e-300)])
def test_a_design_beyond_max_topics_is_a_clear_error(kwargs):
    for design in (lambda: tss.topics_for_t_test(0.01, **kwargs),
                   lambda: tss.topics_for_anova(0.01, m=5, **kwargs)):
        with pytest.raises(DataError, match=r"more than 10,000,000 topics would be needed"):
            design()
    if "beta" not in kwargs:
        with pytest.raises(DataError, match=r"an interval of expected width .*more than 10,000,000 topics"):
            tss.topics_for_ci(0.01, width=kwargs["min_d"])


def test_designs_below_max_topics_are_unchanged():
    # the normal approximation's n for the t-test (z_a + z_b)^2 / minDt^2 + z_a^2 / 2, searched exactly
    n = tss.topics_for_t_test(0.01, 0.01)
    z = 1.959963984540054 + 0.8416212335729143
    approx = (z / (0.01 / math.sqrt(0.02))) ** 2 + 1.959963984540054 ** 2 / 2
    assert abs(n - approx) <= 2 and tss.t_test_power(n, 0.01 / math.sqrt(0.02), 0.05) >= 0.8 \
        > tss.t_test_power(n - 1, 0.01 / math.sqrt(0.02), 0.05)


def test_meta_min_diff_tiny_is_one_line(capsys, files):
    code, out, err = _main(capsys, "meta", files / "qrels.txt", files / "runs", "-m", "RBP_ERG@10", "P@10",
                           "--criteria", "topic_set_size", "--min-diff", "1e-9", "--out", files / "report")
    assert code == 1, err
    assert err.splitlines()[-1] == ("ir-cwla meta: error: a paired t-test detecting minD = 1e-09 at alpha = 0.05 "
                                    "with power 1 - 0.2: more than 10,000,000 topics would be needed "
                                    "(ir_cwla.meta.topic_set_size.MAX_TOPICS)")


def test_check_trials_in_the_api():
    from ir_cwla.analysis import streams

    assert streams.check_trials(streams.MAX_TRIALS) == 10 ** 9
    with pytest.raises(ParameterError, match="at most 1,000,000,000"):
        streams.check_trials(streams.MAX_TRIALS + 1)


# -- standard input: read once, whatever its name; closed -----------------------------------------

def _command(*args: object, cwd: Path, **kwargs: Any) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), IR_CWLA_NO_PLUGINS="1")
    return subprocess.run([sys.executable, "-m", "ir_cwla", *map(str, args)], cwd=cwd, env=env, capture_output=True,
                          timeout=600, **kwargs)


@pytest.mark.parametrize("names", [("/dev/fd/0", "/proc/self/fd/0"), ("-", "link"), ("/dev/stdin", "/dev/fd/0"),
                                   ("-", "/proc/self/fd/0")])
@pytest.mark.parametrize("command", ["eval", "compare"])
def test_stdin_is_read_once_whatever_it_is_called(files, names, command):
    (files / "link").symlink_to("/dev/stdin")
    done = _command(command, *names, "runs/run_b.txt", cwd=files, input=(files / "qrels.txt").read_bytes())
    assert done.returncode == 1 and done.stdout == b"", done.stderr
    assert done.stderr.decode() == (f"ir-cwla {command}: error: standard input can be read only once, but 2 "
                                    f"arguments read it ({names[0]}, {names[1]})\n")


def test_a_regular_file_as_stdin_may_also_be_named(files):
    with open(files / "runs/run_a.txt", "rb") as stdin:
        done = _command("eval", "qrels.txt", "-", "runs/run_a.txt", cwd=files, stdin=stdin)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("name", ["-", "/dev/stdin", "/dev/fd/0"])
def test_a_closed_stdin_is_named(files, name):
    code = ("import os, sys; os.close(0); sys.stdin = None; from ir_cwla.app.cli import main; "
            f"sys.exit(main(['eval', 'qrels.txt', {name!r}]))")
    done = subprocess.run([sys.executable, "-c", code], cwd=files, capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 1 and done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith("ir-cwla eval: error: run ") and "standard input is closed" in line, line


# -- compare: --out checked before any work; its coverage warning --------------------------------------

@pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs /proc")
def test_compare_out_where_no_directory_can_be_made_is_refused_before_any_work(capsys, monkeypatch, files):
    _no_work(monkeypatch, compare_command)
    code, out, err = _main(capsys, "compare", files / "qrels.txt", files / "runs/run_a.txt", files / "runs/run_b.txt",
                           "--out", "/proc/report")
    assert (code, out) == (1, "")
    assert err.startswith("ir-cwla compare: error: --out /proc/report: cannot create a directory in /proc ("), err


def test_compare_says_what_a_missing_topic_means_there(capsys, files):
    run = files / "runs/run_b.txt"
    (files / "b9.txt").write_text("".join(line for line in run.read_text().splitlines(True)
                                          if not line.startswith("10 ")))
    code, out, err = _main(capsys, "compare", files / "qrels.txt", files / "runs/run_a.txt", files / "b9.txt",
                           "-m", "RBP_ERG@10")
    assert code == 0, err
    assert err == ("ir-cwla compare: warning: run b9 answers 9 of the 10 qrels topics; the other 1 (10) score 0 on "
                   "every measure\n")
    assert "--answered-only" not in err


# -- leaderboard: extreme latencies, names with newlines, a directory, a bad environment.json -------

BOARD = "name,nDCG@10,latency_ms,usd_per_1M\n"


@pytest.mark.parametrize("latencies", [(1e-300, 1e300, 5.0), (1e-300, 1e-299, 1e-298), (0.0, 1e300, 5.0)])
def test_leaderboard_out_draws_latencies_at_the_floats_ends(capsys, tmp_path, latencies):
    (tmp_path / "board.csv").write_text(BOARD + "".join(f"{n},{a},{lat!r},{c}\n" for n, a, lat, c in
                                                        zip("abc", (0.5, 0.6, 0.4), latencies, (1, 2, 3))))
    code, out, err = _main(capsys, "leaderboard", tmp_path / "board.csv", "--accuracy", "nDCG@10", "--latency",
                           "latency_ms", "--cost", "usd_per_1M", "--out", tmp_path / "report")
    assert code == 0, err
    assert all(line.startswith("report: ") for line in err.splitlines()), err      # no overflow warning either
    assert (tmp_path / "report" / "frontier.png").stat().st_size > 1000


def test_a_frontier_keeps_every_point_inside_finite_limits():
    import matplotlib.pyplot as plt
    import pandas as pd

    from ir_cwla.leaderboard import plots

    for xs in ([1e-300, 1e300, 5.0], [1.0, 2.0, 3.0], [1e307, 1.7e308, 1e308]):
        ax = plots.plot_frontier(pd.DataFrame({"latency": xs, "accuracy": [0.5, 0.6, 0.4]}, index=list("abc")))
        lo, hi = ax.get_xlim()
        assert math.isfinite(lo) and math.isfinite(hi) and lo < min(xs) and max(xs) <= hi
        plt.close(ax.figure)


def test_a_newline_in_a_system_name_stays_on_its_row(capsys, tmp_path):
    (tmp_path / "board.csv").write_text(BOARD + '"a\nx",0.5,3,1\nb,0.6,1,2\n"c\td",0.4,2,2\n')
    code, out, err = _main(capsys, "leaderboard", tmp_path / "board.csv", "--accuracy", "nDCG@10", "--latency",
                           "latency_ms", "--cost", "usd_per_1M")
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 4 and lines[0].startswith("system")
    assert {line.split()[0] for line in lines[1:]} == {"b", "a\\nx", "c\\td"}


def test_a_directory_given_to_leaderboard_is_named_so(capsys, tmp_path):
    code, out, err = _main(capsys, "leaderboard", tmp_path)
    assert (code, out) == (1, "") and err == f"ir-cwla leaderboard: error: {tmp_path} is a directory, not a CSV file\n"
    (tmp_path / "results.csv").write_text(BOARD + "a,0.5,3,1\n")
    code, out, err = _main(capsys, "leaderboard", tmp_path)
    assert err == (f"ir-cwla leaderboard: error: {tmp_path} is a directory, not a CSV file (board.save() wrote "
                   "results.csv inside it: give that)\n")


@pytest.mark.parametrize("content, says", [
    (b"[1, 2]", "holds a JSON list, not an object"), (b'{"columns": "x"}', "'columns' must map roles to column names"),
    (b'{"per_query": 3}', "'per_query' must be a file name"), (b"{bad", "is not JSON ("),
    (b"\xe9", "is not UTF-8 text (byte 0xe9 at offset 0)")])
def test_a_bad_environment_json_says_what_is_wrong(capsys, tmp_path, content, says):
    (tmp_path / "results.csv").write_text(BOARD + "a,0.5,3,1\nb,0.6,1,2\n")
    (tmp_path / "environment.json").write_bytes(content)
    code, out, err = _main(capsys, "leaderboard", tmp_path / "results.csv", "--accuracy", "nDCG@10")
    assert (code, out) == (1, "")
    assert err.startswith(f"ir-cwla leaderboard: error: {tmp_path / 'environment.json'}") and says in err, err
    assert err.rstrip().endswith("expected what Leaderboard.save() writes beside results.csv; fix it or move it away")


# -- the API: cost.instance(None), a run of plain tuples ---------------------------------------------

@pytest.mark.parametrize("name", [None, 3, ""])
def test_instance_takes_a_name(name):
    from ir_cwla.leaderboard import cost

    with pytest.raises(ParameterError, match=r"instance takes the name of an instance type \(a string"):
        cost.instance(name)


def test_a_run_of_plain_tuples_says_how_to_name_its_fields():
    import ir_measures

    from ir_cwla import io
    from ir_cwla.errors import InputError

    with pytest.raises(InputError, match=r"run record 0 lacks the fields query_id, doc_id, score: \('1', 'd1', 1.0\) "
                                         r"\(a plain tuple has no field names: make each record a namedtuple such as "
                                         r"ir_measures.ScoredDoc"):
        io.as_run_frame([("1", "d1", 1.0)])
    with pytest.raises(InputError, match=r"qrels record 1 lacks the fields .* ir_measures.Qrel"):
        io.as_qrels_frame([ir_measures.Qrel("1", "d1", 1), ("1", "d2", 0)])
    named = io.as_run_frame([ir_measures.ScoredDoc("1", "d1", 1.0), {"query_id": "1", "doc_id": "d2", "score": 0.5}])
    assert named[["query_id", "doc_id", "score"]].values.tolist() == [["1", "d1", 1.0], ["1", "d2", 0.5]]


# -- eval: -m Judged@10 --judged 10 ---------------------------------------------------------------

def test_judged_named_twice_is_one_row(capsys, files):
    code, out, err = _main(capsys, "eval", files / "qrels.txt", files / "runs/run_a.txt", "-m", "Judged@10", "P@5",
                           "--judged", "10", "--judged", "5")
    assert code == 0, err
    assert [line.split()[0] for line in out.splitlines()] == ["runid", "Judged@10", "P@5", "Judged@5"]


# -- cwl: --max_depth, -b DIR before the table -----------------------------------------------------

@pytest.fixture()
def cwl_files(files) -> Path:
    lines = (files / "qrels.txt").read_text().split("\n")
    (files / "gains.txt").write_text("".join(f"{q} 0 {d} {min(int(g), 1)}\n" for q, _, d, g in
                                             (line.split() for line in lines if line)))
    return files


def test_cwl_bounds_max_depth(capsys, cwl_files):
    code, out, err = _main(capsys, "cwl", cwl_files / "gains.txt", cwl_files / "runs/run_a.txt", "--max_depth",
                           "1000000000")
    assert (code, out) == (1, "")
    assert err == ("ir-cwla cwl: error: --max_depth must be at most 10,000,000 (every ranking is padded to it; "
                   "ir_cwla.app.cwl.MAX_DEPTH), got 1,000,000,000\n")


@pytest.mark.parametrize("where, says", [("dir", "is a directory; give the file to write the BibTeX to"),
                                         ("nowhere/x.bib", "there is no directory")])
def test_cwl_bib_file_is_checked_before_the_table(capsys, cwl_files, where, says):
    (cwl_files / "dir").mkdir()
    code, out, err = _main(capsys, "cwl", cwl_files / "gains.txt", cwl_files / "runs/run_a.txt", "-b",
                           cwl_files / where)
    assert (code, out) == (1, "")                   # no table first
    assert err.startswith(f"ir-cwla cwl: error: -b {cwl_files / where}") and says in err, err


# -- grade costs: each key a grade, once -----------------------------------------------------------

@pytest.mark.parametrize("table, says", [("0:1;1:2;1:3", "grade 1 is priced twice, 2 and 3"),
                                         ("0:1;1:2;1.0:3", "grade 1.0 is priced twice, 2 and 3"),
                                         ("0:1;-1:2", "grade -1 is not a grade: grades are integers >= 0"),
                                         ("0:1;1.5:2", "grade 1.5 is not a grade"),
                                         ("0:1;inf:2", "grade inf is not a grade")])
def test_grade_cost_keys_are_grades_once(table, says):
    from ir_cwla.errors import MeasureError
    from ir_cwla.measures import CostSpec

    with pytest.raises(MeasureError, match=re.escape(says)):
        CostSpec.parse(f"grade:{table}")
    assert CostSpec.parse("grade:0:1;1.0:2;2:4;1:2").table == ((0.0, 1.0), (1.0, 2.0), (2.0, 4.0))   # same price twice


# -- a non-UTF-8 per-query file; a 5000-digit cutoff -------------------------------------------------

@pytest.mark.parametrize("command", ["meta", "compare"])
def test_a_per_query_file_not_in_utf8_is_named_with_its_line(capsys, files, command):
    assert main(["eval", str(files / "qrels.txt"), str(files / "runs/run_a.txt"), str(files / "runs/run_b.txt"),
                 "-q", "--format", "csv"]) == 0
    text = capsys.readouterr().out
    (files / "pq.csv").write_bytes(text.encode() + "caf\xe9,1,RBP_ERG@10,0.5\n".encode("latin-1"))
    code, out, err = _main(capsys, command, files / "pq.csv")
    line = text.count("\n") + 1
    assert (code, out) == (1, "")
    assert err.splitlines()[-1] == (f"ir-cwla {command}: error: per-query file {files / 'pq.csv'}:{line}: not UTF-8 "
                                    "(byte 0xe9); write it with ir-cwla eval -q --format csv, or convert it to UTF-8")


@pytest.mark.parametrize("name", ["P@", "RBP_ERG@", "CWLA(C='RBP')@", "nDCG(judged_only=True)@"])
def test_a_cutoff_of_thousands_of_digits_is_one_short_line(name):
    import ir_cwla
    from ir_cwla.errors import MeasureSyntaxError

    with pytest.raises(MeasureSyntaxError) as raised:
        ir_cwla.parse_measure(name + "9" * 5000)
    assert str(raised.value).endswith("the cutoff @999999... (5,000 digits) exceeds 2^62, the largest cutoff")
    assert len(str(raised.value)) < 150
    assert str(ir_cwla.parse_measure("P@" + "9" * 19)) == "P@" + "9" * 19       # ir-measures' P takes it


# -- --out LINK: the report where the link points, the link kept ------------------------------------

def test_out_a_link_to_an_empty_directory_writes_there_and_keeps_the_link(capsys, files, recwarn):
    (files / "target").mkdir()
    (files / "link").symlink_to(files / "target", target_is_directory=True)
    for _ in range(2):                          # new, then rewritten
        code, out, err = _main(capsys, "compare", files / "qrels.txt", files / "runs/run_a.txt",
                               files / "runs/run_b.txt", "-m", "RBP_ERG@10", "--out", files / "link")
        assert code == 0 and "warning" not in err, err
        assert (files / "link").is_symlink() and (files / "target" / "index.html").is_file()
    assert sorted(p.name for p in files.iterdir()) == ["link", "qrels.txt", "runs", "target"]   # nothing left beside


# -- label_agreement(...).table(): the alphas its docstring promises ----------------------------------

def test_label_agreement_table_has_every_alpha_with_its_interval():
    import pandas as pd

    from ir_cwla import meta
    from ir_cwla.errors import UndefinedStatisticWarning

    ref = pd.DataFrame({"query_id": list("1111222233"), "doc_id": list("abcdabcdab"),
                        "relevance": [0, 1, 2, 1, 0, 0, 2, 1, 1, 0]})
    other = ref.assign(relevance=[0, 1, 1, 1, 0, 2, 2, 1, 0, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)     # (a replicate of one grade: left out)
        result = meta.label_agreement(ref, other, trials=200)
    table = result.table()
    for s in ("alpha_ordinal", "alpha_interval", "alpha_nominal"):
        assert {s, f"{s}_low", f"{s}_high"} <= set(table.columns)
        assert table[f"{s}_low"].iloc[0] <= table[s].iloc[0] <= table[f"{s}_high"].iloc[0]
    pd.testing.assert_frame_equal(table, result.table("all"))
    # nominal alpha, by hand (Krippendorff 2011): 1 - D_o / D_e over the 10 pairs' coincidence matrix
    a, b = ref["relevance"].to_numpy(), other["relevance"].to_numpy()
    values = list(a) + list(b)
    n = len(values)
    d_o = sum(x != y for x, y in zip(a, b)) * 2 / n
    counts = {v: values.count(v) for v in set(values)}
    d_e = (n * n - sum(c * c for c in counts.values())) / (n * (n - 1))
    assert table["alpha_nominal"].iloc[0] == pytest.approx(1 - d_o / d_e)


# -- meta --alt-qrels with ids written differently: the error first, no wrong warning ----------------

def test_alt_qrels_with_differently_written_ids_is_one_error_without_a_wrong_warning(capsys, files):
    (files / "alt.txt").write_text("".join("0" + line + "\n" for line in (files / "qrels.txt").read_text().split("\n")
                                           if line))
    code, out, err = _main(capsys, "meta", files / "qrels.txt", files / "runs", "-m", "RBP_ERG@10", "P@10",
                           "--alt-qrels", files / "alt.txt", "--criteria", "assessor_variation", "--out",
                           files / "report")
    assert code == 1
    assert "warning" not in err, err                # (it said each run answers 10 of 20 qrels topics)
    assert err.splitlines()[-1] == (
        "ir-cwla meta: error: qrels reference and alt share no judged (topic, doc_id) pair: there is nothing to "
        "compare (their topic ids are written differently: '1' in reference, '01' in alt; map them with "
        "--alt-topic-map)")


# -- a report's staging directory left by a process that died --------------------------------------

def test_a_staging_directory_left_by_a_dead_process_goes_with_the_next_report(capsys, files):
    import warnings as warnings_

    from ir_cwla.app import report
    from ir_cwla.errors import OutputWarning

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(dead.stdout)                              # (ended: no process has that id now, or hardly)
    left = files / f".report.{pid}.abc123.tmp"
    left.mkdir()
    (left / "index.html").write_text("half a report")
    alive = files / f".report.{os.getpid()}.def456.tmp"            # this process's: kept
    alive.mkdir()
    with warnings_.catch_warnings(record=True) as caught:
        warnings_.simplefilter("always")
        with report.staged(files / "report") as directory:
            (directory / "index.html").write_text("a report")
    assert not left.exists() and alive.is_dir() and (files / "report" / "index.html").read_text() == "a report"
    [warning] = [w for w in caught if issubclass(w.category, OutputWarning)]
    assert str(warning.message) == (f"removed {left}, the staging directory of a report to {files / 'report'} whose "
                                    f"process (pid {pid}) ended without finishing it")
    assert sorted(p.name for p in files.iterdir() if p.name.startswith(".")) == [alive.name]


def test_under_an_address_space_limit_blas_runs_in_one_thread_and_memory_errors_say_so():
    """``ulimit -v``: OpenBLAS's threads hung ``meta --out``; ir_cwla asks BLAS for one thread then (unless set).

    And the command line says "out of memory" naming the limit, not a bare ``MemoryError:``.
    """
    import resource
    import subprocess
    import sys

    code = "import os, ir_cwla; print(os.environ.get('OPENBLAS_NUM_THREADS'))"
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (4 * 2**30, resource.getrlimit(resource.RLIMIT_AS)[1]))

    free = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    capped = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, preexec_fn=limited)
    chosen = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env={**env, "OPENBLAS_NUM_THREADS": "2"}, preexec_fn=limited)
    assert (free.stdout.strip(), capped.stdout.strip(), chosen.stdout.strip()) == ("None", "1", "2"), \
        (free.stderr, capped.stderr, chosen.stderr)
    from ir_cwla.app import cli

    assert cli._one_line(MemoryError()).startswith("out of memory: the process could not get the memory it needed")
    mapped = ImportError("/x/_rotation.so: failed to map segment from shared object")
    assert cli._one_line(mapped).endswith("ImportError: /x/_rotation.so: failed to map segment from shared object")
