"""``ir-cwla eval`` and ``ir-cwla measures`` as trustworthy as trec_eval and ir_measures.

Real pipes, process substitutions, FIFOs and compressed streams give the numbers
ir_measures' own command line gives on the same DL19 files (byte for byte where the output
formats are the same); nothing scores silently to zero; every warning is shown once; the
per-query output reads back into ``meta`` with the same tables as the run files.
"""
from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import json
import lzma
import os
import shlex
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import ir_measures
import pandas as pd
import pytest

import ir_cwla
from ir_cwla import meta
from ir_cwla.app.cli import main
from tests.offline import ROOT

PY = shlex.quote(sys.executable)
CWLA_CLI = f"{PY} -m ir_cwla"
IRM_CLI = f"{PY} -m ir_measures"


def _main(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _sh(command: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONHASHSEED="0")
    return subprocess.run(["bash", "-c", command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def ict(dl19_dir) -> Path:
    return dl19_dir / "runs" / "input.ICT-BERT2.gz"


def test_ir_measures_reference_value(ict, dl19_qrels_path):
    """The number the issue quotes, from ir_measures' own command line."""
    proc = _sh(f"{IRM_CLI} {dl19_qrels_path} {ict} nDCG@10")
    assert proc.stdout == "nDCG@10\t0.6650\n", proc.stderr


@pytest.mark.slow   # a shell and a Python process per form
@pytest.mark.parametrize("form", ["pipe-dev-stdin", "pipe-dash", "process-substitution", "qrels-from-stdin",
                                  "both-substituted", "bz2-file", "xz-pipe"])
def test_stream_forms_give_ir_measures_numbers(tmp_path, ict, dl19_qrels_path, form):
    for tool in ("bash", "zcat", "gzip", "xz"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    q, r = shlex.quote(str(dl19_qrels_path)), shlex.quote(str(ict))
    bz = tmp_path / "run.trec"                        # bzip2 data under a name that says nothing
    bz.write_bytes(bz2.compress(gzip.decompress(ict.read_bytes())))
    command = {
        "pipe-dev-stdin": f"zcat {r} | {CWLA_CLI} eval {q} /dev/stdin -m nDCG@10",
        "pipe-dash": f"zcat {r} | {CWLA_CLI} eval {q} - -m nDCG@10",
        "process-substitution": f"{CWLA_CLI} eval {q} <(zcat {r}) -m nDCG@10",
        "qrels-from-stdin": f"gzip -c {q} | {CWLA_CLI} eval - {r} -m nDCG@10",
        "both-substituted": f"{CWLA_CLI} eval <(cat {q}) <(zcat {r}) -m nDCG@10",
        "bz2-file": f"{CWLA_CLI} eval {q} {bz} -m nDCG@10",
        "xz-pipe": f"zcat {r} | xz -c | {CWLA_CLI} eval {q} - -m nDCG@10",
    }[form]
    proc = _sh(command)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    name = "run" if form == "bz2-file" else "ICT-BERT2"    # a stream is named by its run tag
    assert proc.stdout == f"runid                 \tall\t{name}\nnDCG@10               \tall\t0.6650\n"


def test_a_fifo(tmp_path, capsys, ict, dl19_qrels_path):
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(lzma.compress(gzip.decompress(ict.read_bytes()))))
    writer.start()
    code, out, err = _main(capsys, "eval", dl19_qrels_path, fifo, "-m", "nDCG@10")
    writer.join(10)
    assert (code, err) == (0, "") and out.endswith("nDCG@10               \tall\t0.6650\n")


def test_stdin_can_be_read_once(capsys, dl19_qrels_path):
    code, out, err = _main(capsys, "eval", "-", "/dev/stdin")
    assert code == 1 and err == "ir-cwla eval: error: standard input can be read only once, but 2 arguments read " \
                                "it (-, /dev/stdin)\n"


# ------------------------------------------------------------------------- ir_measures' command line

MEASURE_ARGS = [
    ["nDCG@10", "P@10", "AP(rel=2)", "RR(rel=2)@10"],
    ["-q", "nDCG@10", "P(rel=2)@5", "R(rel=2)@100", "Judged@10"],
    ["-q", "-n", "nDCG@10 AP"],
    ["-o", "jsonl", "-q", "nDCG@10", "AP"],
    ["-p", "6", "nDCG@10", "ERR@20"],
    ["--provider", "pytrec_eval", "-q", "P@10"],
    ["-q", "CWLA(C='RBP',A='max')@10", "RBP_ERG@10", "nDCG@10"],      # ir_measures splits on spaces
    ["--provider", "ir_cwla", "INST_PE(beta=0.3)@10", "RBP_max(p=0.9)@10"],
]


def _ir_measures_main(argv: list[str]) -> str:
    from ir_measures.__main__ import main_cli

    out = io.StringIO()
    old = sys.argv
    sys.argv = ["ir_measures", *argv]
    try:
        with contextlib.redirect_stdout(out):
            main_cli()
    finally:
        sys.argv = old
    return out.getvalue()


@pytest.mark.slow   # all 37 DL19 runs, twice
def test_measures_is_byte_identical_to_ir_measures_on_every_dl19_run(capsys, dl19_run_paths, dl19_qrels_path):
    """``ir-cwla measures`` prints the bytes of ir_measures' own main on every DL19 run.

    ir_measures' own main (CWLA names readable there because ir_cwla is imported in this
    process) and ``ir-cwla measures`` on all 37 runs: the same bytes.
    """
    assert len(dl19_run_paths) == 37
    for i, run in enumerate(dl19_run_paths):
        args = MEASURE_ARGS[i % len(MEASURE_ARGS)]
        expected = _ir_measures_main([str(dl19_qrels_path), str(run), *args])
        code, out, err = _main(capsys, "measures", dl19_qrels_path, run, *args)
        assert code == 0, err
        assert out == expected, (run.name, args)


@pytest.mark.slow   # two Python processes
def test_measures_command_line_against_ir_measures_process(dl19_dir, dl19_qrels_path):
    """Across processes, as a user runs them (PYTHONHASHSEED fixed: ir_measures orders measures by a set)."""
    run = shlex.quote(str(dl19_dir / "runs" / "input.UNH_bm25.gz"))
    args = f"{shlex.quote(str(dl19_qrels_path))} {run} -q nDCG@10 'P(rel=2)@10' 'AP(rel=2)'"
    theirs, ours = _sh(f"{IRM_CLI} {args}"), _sh(f"{CWLA_CLI} measures {args}")
    assert theirs.returncode == ours.returncode == 0, ours.stderr
    assert ours.stdout == theirs.stdout and len(ours.stdout.splitlines()) == 3 * 44
    cwla = _sh(f"{CWLA_CLI} measures {shlex.quote(str(dl19_qrels_path))} {run} \"CWLA(C='RBP', A='max')@10\"")
    assert cwla.returncode == 0 and cwla.stdout.startswith("CWLA(C='RBP',A='max')@10\t0.")


def test_measures_usage_like_ir_measures(capsys, dl19_qrels_path, ict):
    code, _, err = _main(capsys, "measures", dl19_qrels_path, ict, "-n", "nDCG@10")
    assert code == 1 and "--no_summary (-n) only supported with --by_query (-q)" in err


# ------------------------------------------------------------------------- no silent zero

@pytest.fixture()
def small(tmp_path) -> dict[str, Path]:
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1\n1 0 b 0\n2 0 c 2\n3 0 d 1\n")
    files = {"qrels": qrels}
    for name, text in {"full": "1 Q0 a 1 3 full\n2 Q0 c 1 2 full\n3 Q0 x 1 1 full\n3 Q0 d 2 0.5 full\n",
                       "partial": "1 Q0 a 1 3 p\n1 Q0 b 2 2 p\n",
                       "disjoint": "7 Q0 a 1 3 d\n8 Q0 c 1 2 d\n",
                       "empty": "",
                       "dups": "1 Q0 a 1 3 u\n1 Q0 a 2 2 u\n1 Q0 b 3 1 u\n2 Q0 c 1 1 u\n3 Q0 d 1 1 u\n"}.items():
        files[name] = tmp_path / f"{name}.run"
        files[name].write_text(text)
    return files


def test_empty_and_disjoint_runs_are_errors_naming_the_run(capsys, small):
    code, out, err = _main(capsys, "eval", small["qrels"], small["full"], small["empty"], "-m", "P@1")
    assert (code, out) == (1, "") and err == "ir-cwla eval: error: run empty is empty: no ranked documents\n"
    code, out, err = _main(capsys, "eval", small["qrels"], small["disjoint"], "-m", "P@1")
    assert (code, out) == (1, "") and err == ("ir-cwla eval: error: run disjoint shares no topic with the qrels "
                                              "(run topics: 7, 8; qrels topics: 1, 2, 3)\n")
    code, out, err = _main(capsys, "measures", small["qrels"], small["empty"], "P@1")
    assert code == 1 and "is empty" in err


def test_missing_topics_warn_once_and_averaging_is_a_flag(capsys, small):
    code, out, err = _main(capsys, "eval", small["qrels"], small["partial"], "-m", "P@1 RBP_max@1", "-q")
    assert code == 0
    assert err == ("ir-cwla eval: warning: run partial answers 1 of the 3 qrels topics; the other 2 (2, 3) count "
                   "as 0 in the means (--answered-only averages over the answered topics)\n")
    rows = [line.split("\t") for line in out.splitlines()[1:]]
    # RBP_max@1: the gain of rank 1, grade 1 of x_max = 2
    assert [(q, v) for m, q, v in rows] == [("1", "1.0000"), ("1", "0.5000"), ("2", "0.0000"), ("2", "0.0000"),
                                            ("3", "0.0000"), ("3", "0.0000"), ("all", "0.3333"), ("all", "0.1667")]
    code, out, err = _main(capsys, "eval", small["qrels"], small["partial"], "-m", "P@1 RBP_max@1", "-q", "-a")
    assert code == 0 and "are left out of the means" in err
    rows = [line.split("\t") for line in out.splitlines()[1:]]
    assert [(q, v) for m, q, v in rows] == [("1", "1.0000"), ("1", "0.5000"), ("all", "1.0000"), ("all", "0.5000")]


def test_answered_only_is_trec_eval_without_c(capsys, tmp_path, dl19_qrels_path, dl19_dir):
    """trec_eval without -c averages over the topics in both the run and the qrels.

    The mean of ir_measures' per-query values over the topics the run kept.
    """
    run = ir_cwla.io.read_trec_run(dl19_dir / "runs" / "input.bm25base_p.gz")
    kept = sorted(run.query_id.unique())[::2]
    part = run[run.query_id.isin(kept)]
    path = tmp_path / "part.run"
    part.assign(q0="Q0", rank=1, tag="t")[["query_id", "q0", "doc_id", "rank", "score", "tag"]].to_csv(
        path, sep=" ", header=False, index=False)
    qrels = ir_cwla.io.read_trec_qrels(dl19_qrels_path)
    values = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.nDCG @ 10], qrels, part)}
    answered = [v for q, v in values.items() if q in set(part.query_id)]
    assert 0 < len(answered) < len(values)
    code, out, err = _main(capsys, "eval", dl19_qrels_path, path, "-m", "nDCG@10", "-a", "--format", "json")
    assert code == 0 and "are left out of the means" in err
    assert json.loads(out)[0]["value"] == pytest.approx(sum(answered) / len(answered), abs=1e-12)
    code, out, err = _main(capsys, "eval", dl19_qrels_path, path, "-m", "nDCG@10", "--format", "json")
    assert json.loads(out)[0]["value"] == pytest.approx(sum(values.values()) / len(values), abs=1e-12)


def test_help_says_which_averaging_is_in_force(capsys):
    with pytest.raises(SystemExit):
        main(["eval", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "averaging in force: every qrels topic counts, 0 where a run has none (the default" in out
    assert "-a, --answered-only" in out


def test_duplicate_lines_warn_once_even_through_every_layer(capsys, small):
    code, out, err = _main(capsys, "eval", small["qrels"], small["dups"], "-m", "P@1 CWLA(C='P',A='ERG',rel=1)@1")
    assert code == 0
    assert err == (f"ir-cwla eval: warning: {small['dups']}: 1 duplicate line(s) of a (topic, doc_id) dropped, "
                   "the best-scored occurrence kept (first: topic '1', doc_id 'a')\n")
    values = [line.split("\t")[2] for line in out.splitlines()[1:]]
    assert values == ["1.0000", "1.0000"]                         # trec_eval's P and its CWLA form agree


# ------------------------------------------------------------------------- trec_eval's habits

def test_version_and_traceback_anywhere(capsys, small):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0 and capsys.readouterr().out == f"ir-cwla {ir_cwla.__version__}\n"
    with pytest.raises(FileNotFoundError):
        main(["eval", str(small["qrels"]), "missing.run", "--traceback"])
    with pytest.raises(FileNotFoundError):
        main(["eval", "--traceback", str(small["qrels"]), "missing.run"])


def test_runid_depth_and_level(capsys, dl19_qrels_path, dl19_dir):
    path = dl19_dir / "runs" / "input.UNH_bm25.gz"
    code, out, _ = _main(capsys, "eval", dl19_qrels_path, path, "--runid", "-m", "P@10")
    tag = gzip.open(path, "rt").readline().split()[5]
    assert code == 0 and out.splitlines()[0] == f"runid                 \tall\t{tag}"
    # -M 10: AP over the first 10 documents is trec_eval's map_cut_10 (AP@10), ties included
    code, out, _ = _main(capsys, "eval", dl19_qrels_path, path, "-M", "10", "-m", "AP(rel=2)", "--format", "csv")
    expected = ir_measures.calc_aggregate([ir_measures.AP(rel=2) @ 10], ir_cwla.io.read_trec_qrels(dl19_qrels_path),
                                          ir_cwla.io.read_trec_run(path))
    assert pd.read_csv(io.StringIO(out)).value[0] == pytest.approx(expected[ir_measures.AP(rel=2) @ 10], abs=1e-12)
    # -l 2: binary measures count grades >= 2 (P, CWLA with binary gains); nDCG is graded, unchanged
    code, out, _ = _main(capsys, "eval", dl19_qrels_path, path, "-l", "2", "-m", "P@10 nDCG@10",
                         "CWLA(C='P', A='ERG', gain='bin')@10", "--format", "csv")
    got = pd.read_csv(io.StringIO(out))
    assert got.measure.tolist() == ["P(rel=2)@10", "nDCG@10", "CWLA(C='P',A='ERG',rel=2.0)@10"]
    reference = ir_measures.calc_aggregate([ir_measures.P(rel=2) @ 10], ir_cwla.io.read_trec_qrels(dl19_qrels_path),
                                           ir_cwla.io.read_trec_run(path))
    assert got.value[0] == got.value[2] == pytest.approx(reference[ir_measures.P(rel=2) @ 10], abs=1e-12)


def test_formats_and_no_summary(capsys, small):
    code, out, _ = _main(capsys, "eval", small["qrels"], small["full"], "-m", "P@1", "-q", "-n", "--format", "jsonl")
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["qid"] for r in records] == ["1", "2", "3"]
    assert records[0] == {"name": "full", "qid": "1", "measure": "P@1", "value": 1.0, "short": "P@1"}
    code, out, err = _main(capsys, "eval", small["qrels"], small["full"], "-n")
    assert code == 1 and "-n/--no-summary needs -q/--per-query" in err


def test_hostile_run_names_cannot_forge_output_lines(capsys, small, tmp_path):
    forged = tmp_path / "x\nP@1                   \tall\t1.0000"
    forged.write_text(small["partial"].read_text())
    code, out, _ = _main(capsys, "eval", small["qrels"], forged, "-m", "P@1")
    assert code == 0 and len(out.splitlines()) == 2
    assert out.splitlines()[0] == "runid                 \tall\tx\\nP@1                   \\tall\\t1.0000"


def test_the_same_run_twice_is_an_error(capsys, small):
    code, _, err = _main(capsys, "eval", small["qrels"], small["full"], small["full"])
    assert code == 1 and err == f"ir-cwla eval: error: run {small['full']} is given twice\n"


def test_a_symlink_loop_is_not_reported_as_missing(capsys, small, tmp_path):
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    code, _, err = _main(capsys, "eval", small["qrels"], tmp_path / "loop")
    assert code == 1 and "Too many levels of symbolic links" in err and "irds:" not in err


# ------------------------------------------------------------------------- round trip into meta

@pytest.mark.slow   # evaluates and meta-evaluates DL19 runs
def test_per_query_output_round_trips_into_meta(capsys, tmp_path, dl19_dir, dl19_qrels_path):
    """Per-query output of ``eval -q`` read back gives the tables of the run files.

    ``eval -q --format csv|json|jsonl`` read back (pd.read_csv, or ``ir-cwla meta FILE``)
    gives the same tables as the run files; summary rows never become a 44th topic.
    """
    measures = ir_cwla.table1()
    runs = sorted((dl19_dir / "runs").glob("input.*.gz"))
    code, out, err = _main(capsys, "eval", dl19_qrels_path, *runs, "-q", "--format", "csv",
                           "-m", *[ir_cwla.short_name(m) for m in measures])
    assert code == 0, err
    csv_path = tmp_path / "per_query.csv"
    csv_path.write_text(out)
    from_csv = pd.read_csv(csv_path)
    assert (from_csv.qid.astype(str) == "all").sum() == 37 * 39
    from_runs = meta.evaluate(dl19_dir / "runs", dl19_qrels_path, measures, progress=False)
    kwargs = {"groups": meta.browsing_model}
    for frame in (from_csv, from_runs):
        assert meta.to_cube(frame).values.shape == (39, 43, 37)
    pd.testing.assert_frame_equal(meta.similarity(from_csv, **kwargs).table(),
                                  meta.similarity(from_runs, **kwargs).table())
    pd.testing.assert_frame_equal(meta.consistency(from_csv, trials=30, test_trials=50, seed=3, progress=False,
                                                   **kwargs).table(),
                                  meta.consistency(from_runs, trials=30, test_trials=50, seed=3, progress=False,
                                                   **kwargs).table())
    disc = [meta.discriminative_power(f, trials=200, seed=3, progress=False, **kwargs).table()
            for f in (from_csv, from_runs)]
    pd.testing.assert_frame_equal(*disc)
    assert disc[0]["significant"].sum() > 0
    # CSV, JSON and JSON lines read back to the same frame
    from ir_cwla.app.evaluate import read_per_query

    frames = []
    for fmt in ("csv", "json", "jsonl"):
        code, out, _ = _main(capsys, "eval", dl19_qrels_path, *runs[:3], "-q", "--format", fmt,
                             "-m", "RBP_max@10 nDCG@10")
        path = tmp_path / f"pq.{fmt}"
        path.write_text(out)
        frames.append(read_per_query(str(path)))
    assert len(frames[0]) == 3 * 43 * 2 and set(frames[0].measure) == {"CWLA(C='RBP',A='max')@10", "nDCG@10"}
    for frame in frames[1:]:
        pd.testing.assert_frame_equal(frame, frames[0])


def test_meta_command_accepts_a_per_query_file(capsys, tmp_path, dl19_dir, dl19_qrels_path):
    runs = [dl19_dir / "runs" / f"input.{n}.gz" for n in ("bm25base_p", "UNH_bm25", "ICT-BERT2", "p_bert",
                                                          "idst_bert_p1")]
    rundir = tmp_path / "runs"
    rundir.mkdir()
    for r in runs:
        (rundir / r.name).symlink_to(r)
    measures = ["RBP_ERG@10 RBP_max@10 ERR_ERR@10 ERR_max@10"]
    code, out, err = _main(capsys, "eval", dl19_qrels_path, *runs, "-q", "--format", "csv", "-m", *measures)
    per_query = tmp_path / "pq.csv"
    per_query.write_text(out)
    args = ["-m", *measures, "--trials", "30", "--test-trials", "40"]
    code_a, out_a, err_a = _main(capsys, "meta", dl19_qrels_path, rundir, *args, "--out", tmp_path / "a",
                                 "--criteria", "similarity,consistency,discriminative_power,topic_set_size")
    code_b, out_b, err_b = _main(capsys, "meta", per_query, *args, "--out", tmp_path / "b")
    assert code_a == code_b == 0, err_b
    assert out_a.split("\nstep ")[0] == out_b.split("\nstep ")[0]       # the same tables (times differ)
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "a" / "per_query.csv"),
                                  pd.read_csv(tmp_path / "b" / "per_query.csv"))
    code, _, err = _main(capsys, "meta", per_query, "-m", "nDCG@10", "--out", tmp_path / "c")
    assert code == 1 and "per-query file has no scores for nDCG@10" in err
    code, _, err = _main(capsys, "meta", per_query, "--criteria", "consistency,pooling_bias", "--out", tmp_path / "d")
    assert code == 1 and "--criteria pooling_bias needs runs and qrels: give QRELS and run files" in err


def test_meta_run_directories_do_not_lose_systems_silently(capsys, tmp_path, small):
    rundir = tmp_path / "runs"
    rundir.mkdir()
    for name in ("full", "partial"):
        (rundir / f"{name}.run").write_text(small[name].read_text())
    (rundir / ".hidden").write_text("x")
    (rundir / "dangling").symlink_to(tmp_path / "nowhere")
    with pytest.raises(ValueError, match="dangling is a broken symbolic link"):
        meta.evaluation.as_run_mapping(rundir)
    (rundir / "dangling").unlink()
    os.mkfifo(rundir / "fifo")
    with pytest.raises(ValueError, match="fifo is not a regular file"):
        meta.evaluation.as_run_mapping(rundir)
    (rundir / "fifo").unlink()
    with pytest.warns(UserWarning, match=r"skipped 1 entry of .*runs \(hidden or directories\): .hidden"):
        assert list(meta.evaluation.as_run_mapping(rundir)) == ["full", "partial"]


def test_run_tags_that_print_alike_are_refused():
    """Two run tags that print as the same name are refused.

    Two run tags that print as the same name (a control character is printed escaped) would
    make one run's lines hide the other's: refused, as two equal tags are.
    """
    from ir_cwla import io
    from ir_cwla.app.evaluate import run_tag_names

    runs = [pd.DataFrame(), pd.DataFrame()]
    runs[0].attrs[io.RUN_TAG_ATTR], runs[1].attrs[io.RUN_TAG_ATTR] = "a\x01", "a\\x01"
    with pytest.raises(ValueError, match=r"two runs have the run tag 'a\\\\x01' \(the second is r2\)"):
        run_tag_names(["r1", "r2"], runs)
    runs[1].attrs[io.RUN_TAG_ATTR] = "b"
    assert run_tag_names(["r1", "r2"], runs) == ["a\\x01", "b"]


# ------------------------------------------------------------------------- issue 19: small defects

def test_judged_given_twice_is_printed_once_and_reads_back(capsys, small):
    from ir_cwla.analysis.frame import to_cube
    from ir_cwla.app.evaluate import read_per_query

    code, out, err = _main(capsys, "eval", small["qrels"], small["full"], "-m", "P@1", "--judged", "1",
                           "--judged", "1", "--judged", "2", "-q", "--format", "csv")
    assert code == 0, err
    frame = pd.read_csv(io.StringIO(out), dtype=str)
    assert frame.groupby(["name", "qid", "measure"]).size().max() == 1
    assert list(dict.fromkeys(frame["measure"])) == ["P@1", "Judged@1", "Judged@2"]
    path = small["qrels"].parent / "pq.csv"
    path.write_text(out)
    cube = to_cube(read_per_query(str(path)), "strict", min_systems=1, min_topics=1, min_measures=1)
    assert sorted(cube.measures) == ["Judged@1", "Judged@2", "P@1"]          # measure order: by name


def test_streams_with_one_run_tag_are_named_tag_tag_2():
    """Two `<(...)` streams of runs with the same tag: bm25, bm25-2 (not bm25 and the descriptor 62)."""
    from ir_cwla import io as cio
    from ir_cwla.app.evaluate import stream_names, unique_run_names

    specs = ["/dev/fd/62", "/dev/fd/63", "/dev/fd/64", "bm25-2.run"]
    runs = [pd.DataFrame() for _ in specs]
    for run, tag in zip(runs, ["bm25", "bm25", "bm25", "x"]):
        run.attrs[cio.RUN_TAG_ATTR] = tag
    names = stream_names(specs, runs, unique_run_names(specs))
    assert names == ["bm25", "bm25-3", "bm25-4", "bm25-2"]            # a file keeps its name; streams yield
    assert stream_names(specs[:2], runs[:2], unique_run_names(specs[:2])) == ["bm25", "bm25-2"]


@pytest.mark.slow   # a shell and a Python process
def test_two_process_substitutions_with_one_tag(small):
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    q, r = shlex.quote(str(small["qrels"])), shlex.quote(str(small["full"]))
    proc = _sh(f"{CWLA_CLI} eval {q} <(cat {r}) <(cat {r}) -m P@1")
    assert proc.returncode == 0, proc.stderr
    assert [line.split("\t")[2] for line in proc.stdout.splitlines() if line.startswith("runid")] == ["full", "full-2"]


def test_csv_output_escapes_formula_names_and_reads_them_back(capsys, small, tmp_path):
    from ir_cwla.app.evaluate import read_per_query

    runs = []
    for name in ("=cmd()", "@SUM(A1)", "'=quoted", "plain"):
        path = tmp_path / f"{name}.run"
        path.write_text(small["full"].read_text())
        runs.append(path)
    code, out, err = _main(capsys, "eval", small["qrels"], *runs, "-m", "P@1", "-q", "--format", "csv")
    assert code == 0, err
    cells = {line.split(",")[0] for line in out.splitlines()[1:]}
    assert cells == {"'=cmd()", "'@SUM(A1)", "''=quoted", "plain"}      # as the report CSVs (text.csv_safe)
    (tmp_path / "pq.csv").write_text(out)
    assert set(read_per_query(str(tmp_path / "pq.csv"))["name"]) == {"=cmd()", "@SUM(A1)", "'=quoted", "plain"}


def test_negative_places_are_a_usage_error(capsys, small):
    with pytest.raises(SystemExit) as exit_:
        main(["eval", str(small["qrels"]), str(small["full"]), "-p", "-3"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "expected a number of decimal places >= 0, got '-3'" in err
    code, out, _ = _main(capsys, "eval", small["qrels"], small["full"], "-m", "P@1", "-p", "0")
    assert code == 0 and out.splitlines()[1].endswith("\t1")


def _per_query_csv(path: Path, measures: list[str], systems: int = 6, topics: int = 10) -> Path:
    import numpy as np

    rng = np.random.default_rng(2)
    rows = [(f"s{s}", f"q{t}", m, float(np.clip(s / systems + rng.normal(0, 0.2), 0, 1)))
            for m in measures for s in range(systems) for t in range(topics)]
    pd.DataFrame(rows, columns=["name", "qid", "measure", "value"]).to_csv(path, index=False)
    return path


def test_meta_says_each_step_on_stderr_and_when_there_is_nothing_to_compare(capsys, tmp_path):
    """``ir-cwla meta`` says each step on stderr, and when there is nothing to compare (issue 19).

    Issue 19: one line per step on stderr (the criterion, and what it will do) although stderr is
    not a terminal here; similarity of families of one measure says so instead of a bare header.
    """
    path = _per_query_csv(tmp_path / "pq.csv", ["nDCG@10", "AP"])
    code, out, err = _main(capsys, "meta", path, "--criteria", "similarity,consistency", "--groups", "model",
                           "--trials", "7", "--test-trials", "9", "--out", tmp_path / "r")
    assert code == 0, err
    steps = [line for line in err.splitlines() if line.startswith("ir-cwla meta: ") and "warning" not in line]
    assert steps == [f"ir-cwla meta: reading the per-query file {path}",
                     "ir-cwla meta: criterion 1/2, system ranking similarity",
                     "ir-cwla meta: criterion 2/2, system ranking consistency: --trials 7 (random splits of the "
                     "topics into two halves), --test-trials 9 (permutations of the randomised Tukey HSD tests)",
                     f"ir-cwla meta: writing the report to {tmp_path / 'r'}"]
    assert out.startswith("system ranking similarity:\n  nothing to compare: every family holds one measure "
                          "(AP, nDCG@10); compare every measure with every other with groups=None "
                          "(ir-cwla meta --groups all)\n\nsystem ranking consistency:\n")
    page = (tmp_path / "r" / "index.html").read_text(encoding="utf-8")
    assert "Nothing to compare: every family holds one measure (AP, nDCG@10)" in page
    assert not (tmp_path / "r" / "similarity.png").exists()
