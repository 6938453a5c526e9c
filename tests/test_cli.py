"""The ``ir-cwla`` command line on real files: eval against ir-measures, one-line errors, meta, leaderboard."""
from __future__ import annotations

import gzip
import io
import json
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest

import ir_cwla
from ir_cwla import leaderboard as lb
from ir_cwla.app import report
from ir_cwla.app.cli import main
from ir_cwla.app.commands.leaderboard import parse_weights
from ir_cwla.app.commands.options import measures_arg
from ir_cwla.measures import parse_measures
from ir_cwla.measures._names import split_measure_list as split_measures
from tests.html_checks import external_references, parse_tags
from tests.offline import ROOT, run_offline_code

RUNS = ("bm25base_p", "UNH_bm25", "ICT-BERT2")          # UNH_bm25 has tied scores, ICT-BERT2 depth 20
STANDARD = ("nDCG@10", "P(rel=2)@10", "AP(rel=2)", "RR(rel=2)@10", "R(rel=2)@100", "Judged@10")
EQUIVALENT = {"CWLA(C='P', A='ERG', gain='bin', rel=2)@10": "P(rel=2)@10",
              "CWLA(C='AP', A='ERG', gain='bin', rel=2, tail='pad')": "AP(rel=2)"}


def _run_paths(dl19_dir: Path) -> list[Path]:
    return [dl19_dir / "runs" / f"input.{name}.gz" for name in RUNS]


def _main(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(map(str, argv)))
    out, err = capsys.readouterr()
    return code, out, err


def _short(text: str) -> str:
    return ir_cwla.short_name(ir_measures.parse_measure(text))


@pytest.fixture(scope="module")
def reference(dl19_dir, dl19_qrels_path) -> dict[str, dict]:
    """ir-measures on the same files, read by ir-measures' own readers: {run: {(qid, measure): value}}."""
    qrels = list(ir_measures.read_trec_qrels(str(dl19_qrels_path)))
    measures = [ir_measures.parse_measure(m) for m in STANDARD]
    out = {}
    for name, path in zip(RUNS, _run_paths(dl19_dir)):
        run = list(ir_measures.read_trec_run(str(path)))
        values = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(measures, qrels, run)}
        values.update({("all", str(m)): v for m, v in ir_measures.calc_aggregate(measures, qrels, run).items()})
        out[name] = values
    return out


def test_eval_matches_ir_measures_per_query_and_mean(capsys, dl19_dir, dl19_qrels_path, reference):
    code, out, err = _main(capsys, "eval", dl19_qrels_path, *_run_paths(dl19_dir), "-m", " ".join(STANDARD),
                           "-m", *EQUIVALENT, "-q", "--format", "csv")
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out), dtype={"qid": str})
    assert list(got.columns) == ["name", "qid", "measure", "value", "short"]
    assert list(dict.fromkeys(got["name"])) == list(RUNS)
    n_topics = 43
    assert len(got) == len(RUNS) * (n_topics + 1) * (len(STANDARD) + len(EQUIVALENT))
    by_str = {str(ir_measures.parse_measure(k)): v for k, v in EQUIVALENT.items()}
    for name, qid, measure, value, short in got.itertuples(index=False):
        assert short == _short(measure)
        target = by_str.get(measure, measure)
        assert value == pytest.approx(reference[name][(qid, target)], abs=1e-9), (name, qid, measure)
    # topics in natural order, the mean last
    qids = got[(got.name == "bm25base_p") & (got.measure == "nDCG@10")].qid.tolist()
    assert qids[-1] == "all" and qids[:-1] == sorted(qids[:-1], key=int)


def test_eval_trec_and_json_formats(capsys, dl19_dir, dl19_qrels_path, reference):
    paths = _run_paths(dl19_dir)
    code, out, _ = _main(capsys, "eval", dl19_qrels_path, *paths, "-m", "nDCG@10 AP(rel=2)")
    assert code == 0
    lines = [line.split("\t") for line in out.splitlines()]
    assert [parts[2] for parts in lines if parts[0].strip() == "runid"] == list(RUNS)
    assert all(len(parts) == 3 and parts[1] == "all" for parts in lines)
    values = [(name, parts) for name in RUNS for parts in lines[RUNS.index(name) * 3 + 1: RUNS.index(name) * 3 + 3]]
    for name, (measure, _, value) in values:
        assert len(measure) == 22                                  # trec_eval pads measure names
        assert value == f"{reference[name][('all', measure.strip())]:.4f}"

    code, out, _ = _main(capsys, "eval", dl19_qrels_path, paths[0], "-m", "nDCG@10", "-q", "--format", "json")
    records = json.loads(out)
    assert {r["qid"] for r in records} == {q for q, _ in reference["bm25base_p"]}
    for r in records:
        assert r["name"] == "bm25base_p" and r["value"] == pytest.approx(reference["bm25base_p"][(r["qid"], "nDCG@10")],
                                                                         abs=1e-12)


def test_eval_defaults_to_the_canonical_six(capsys, dl19_dir, dl19_qrels_path):
    code, out, _ = _main(capsys, "eval", dl19_qrels_path, _run_paths(dl19_dir)[0], "--format", "csv")
    assert code == 0
    got = pd.read_csv(io.StringIO(out))
    assert got.measure.tolist() == [str(m) for m in ir_cwla.canonical()]
    assert got.short.tolist() == ["P_ERG@10", "DCG_ERG@10", "RBP_ERG@10", "INST_ERG@10", "AP_ERG@10", "ERR_ERR@10"]
    assert (got.qid == "all").all() and got.value.between(0, 1).all() and got.value.gt(0).all()


def _malformed_run(dl19_dir: Path, tmp_path: Path) -> Path:
    lines = gzip.open(_run_paths(dl19_dir)[0], "rt").read().splitlines()[:5]
    parts = lines[2].split()
    lines[2] = " ".join(parts[:4] + ["high"] + parts[5:])
    path = tmp_path / "bad.run"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("case, expected", [
    ("missing-qrels", "qrels file not found: nope/qrels.txt"),
    ("missing-run", "run file not found: missing.run"),
    ("bare-id", "run file not found: cranfield (an ir_datasets id is written irds:cranfield)"),
    ("run-is-dir", "run path is a directory"),
    ("qrels-as-run", "malformed run file: {qrels}:1: expected 6 whitespace-separated fields, found 4"),
    ("run-as-qrels", "malformed qrels file: {run}:1: expected 4 whitespace-separated fields, found 6"),
    ("bad-score", "malformed run file: {tmp}/bad.run:3: field 5 (score) is not a number: 'high'"),
    ("unknown-measure", "unknown measure 'nDGC@10'"),
    ("constant-cell", "measure \"CWLA(C='RBP', A='ERR')@10\": CWLA: C='RBP' with A='ERR' gives the same score"),
    ("bad-parameter", "measure 'CWLA(p=1.5)@10': CWLA: C='RBP': p must lie in (0, 1) (got p=1.5)"),
    ("bad-format", None),
])
def test_eval_errors_are_one_line(capsys, tmp_path, dl19_dir, dl19_qrels_path, case, expected):
    run, qrels = _run_paths(dl19_dir)[0], dl19_qrels_path
    argv = {
        "missing-qrels": ["nope/qrels.txt", run],
        "missing-run": [qrels, run, "missing.run"],
        "bare-id": [qrels, "cranfield"],
        "run-is-dir": [qrels, dl19_dir / "runs"],
        "qrels-as-run": [qrels, qrels],
        "run-as-qrels": [run, run],
        "bad-score": [qrels, _malformed_run(dl19_dir, tmp_path)],
        "unknown-measure": [qrels, run, "-m", "nDGC@10"],
        "constant-cell": [qrels, run, "-m", "CWLA(C='RBP', A='ERR')@10"],
        "bad-parameter": [qrels, run, "-m", "CWLA(p=1.5)@10"],
        "bad-format": [qrels, run, "--format", "xml"],
    }[case]
    if expected is None:                                     # a usage error: argparse's status 2
        with pytest.raises(SystemExit) as exit_info:
            main(["eval", *map(str, argv)])
        assert exit_info.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "invalid choice: 'xml'" in err and "(see ir-cwla eval --help)" in err
        return
    code, out, err = _main(capsys, "eval", *argv)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and err.startswith("ir-cwla eval: error: "), err
    assert expected.format(qrels=qrels, run=run, tmp=tmp_path) in err


@pytest.mark.slow   # starts a Python process (seconds of imports)
def test_module_entry_point_reports_errors_without_traceback(dl19_qrels_path, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "ir_cwla", "eval", str(dl19_qrels_path), str(tmp_path / "x.run")],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == f"ir-cwla eval: error: run file not found: {tmp_path / 'x.run'}\n"
    proc = subprocess.run([sys.executable, "-m", "ir_cwla", "--help"], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0 and all(verb in proc.stdout for verb in ("eval", "meta", "leaderboard", "demo"))


@pytest.mark.slow   # starts a Python process (seconds of imports)
def test_console_script_is_installed():
    script = Path(sys.executable).parent / "ir-cwla"
    if not script.exists():
        pytest.skip("ir-cwla is not installed in this environment (pip install -e .)")
    proc = subprocess.run([str(script), "eval", "--help"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and "--per-query" in proc.stdout


CRANFIELD_EVAL = r"""
import contextlib, io, json, sys
from ir_cwla.app.cli import main
results = []
for argv in (["eval", "irds:cranfield", sys.argv[1], "-m", "P@10", "-m", "CWLA(C='P', A='ERG')@10", "-q",
              "--format", "csv"],
             ["eval", "irds:cranfield", "irds:cranfield"],
             ["eval", "irds:no-such-dataset", sys.argv[1]]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    results.append({"code": code, "out": out.getvalue(), "err": err.getvalue()})
print(json.dumps(results))
"""


@pytest.mark.slow   # starts a Python process (seconds of imports)
def test_eval_on_bundled_cranfield_offline(tmp_path, cranfield_dir):
    """A run built from the raw judgments.

    Each query's grade -1 document first, then its judged documents from grade 1
    (complete answer) to 4. With the conventions, the -1 document is non-relevant and
    grades count 4..1.
    """
    judged: dict[str, list[tuple[str, int]]] = {}
    for line in (cranfield_dir / "cranqrel").read_text().split("\n"):
        if line.strip():
            q, d, g = line.split()
            judged.setdefault(q, []).append((d, int(g)))
    lines, expected = [], {}
    for q, docs in judged.items():
        ranked = sorted(docs, key=lambda dg: (dg[1] != -1, dg[1], -int(dg[0])))
        lines += [f"{q} Q0 {d} {i + 1} {100 - i} test" for i, (d, _) in enumerate(ranked)]
        top = [0 if g == -1 else 5 - g for _, g in ranked[:10]]
        expected[(q, "P@10")] = sum(x >= 1 for x in top) / 10
        expected[(q, "P_ERG@10")] = sum(top) / 4 / 10            # linear gains x / x_max, x_max = 4
    run = tmp_path / "cranfield.run"
    run.write_text("\n".join(lines) + "\n")
    results = json.loads(run_offline_code(CRANFIELD_EVAL, tmp_path, str(run)).stdout)

    ok, not_a_run, unknown = results
    assert ok["code"] == 0 and "irds:cranfield grades remapped 1->4, 2->3, 3->2, 4->1" in ok["err"]
    got = pd.read_csv(io.StringIO(ok["out"]), dtype={"qid": str})
    per_query = got[got.qid != "all"]
    assert len(per_query) == 2 * 225
    for _, qid, _, value, measure in per_query.itertuples(index=False):
        assert value == pytest.approx(expected[(qid, measure)], abs=1e-12), (qid, measure)
    assert not_a_run["code"] == 1 and not_a_run["err"] == \
        "ir-cwla eval: error: ir_datasets id 'cranfield' provides no scored documents\n"
    assert unknown["code"] == 1 and unknown["err"] == \
        "ir-cwla eval: error: unknown ir_datasets id 'no-such-dataset' (in 'irds:no-such-dataset')\n"


def test_measures_by_short_and_trec_names():
    """The short names eval prints read back as the same measures; trec_eval names work too."""
    table1 = list(ir_cwla.table1())
    assert parse_measures([" ".join(ir_cwla.short_name(m) for m in table1)]) == table1
    assert parse_measures(["ndcg_cut_10", "map P_5"]) == [ir_measures.nDCG @ 10, ir_measures.AP, ir_measures.P @ 5]
    assert parse_measures(["RBP_max RBP_max"]) == [ir_cwla.CWLA(C="RBP", A="max")]   # once, no cutoff
    assert measures_arg(None, ir_cwla.canonical()) == list(ir_cwla.canonical())


def test_split_measures_keeps_parenthesised_spaces():
    assert split_measures("nDCG@10  CWLA(C='RBP', A='max')@10 AP(rel=2)") == \
        ["nDCG@10", "CWLA(C='RBP', A='max')@10", "AP(rel=2)"]
    assert split_measures("CWLA(C='a b', A=\"x)\")@3") == ["CWLA(C='a b', A=\"x)\")@3"]


HOSTILE_RUNS = {"<script>": "bm25base_p", "<img src=x onerror=alert(1)>": "ICT-BERT2",
                "UNH_bm25": "UNH_bm25", "idst_bert_p1": "idst_bert_p1", "p_bert": "p_bert"}


def test_meta_writes_tables_figures_and_an_escaped_report(capsys, tmp_path, dl19_dir, dl19_qrels_path):
    rundir = tmp_path / "runs"
    rundir.mkdir()
    for name, source in HOSTILE_RUNS.items():
        shutil.copy(dl19_dir / "runs" / f"input.{source}.gz", rundir / f"input.{name}.gz")
    measures = ["CWLA(C='RBP', A='ERG')@10 CWLA(C='RBP', A='max')@10", "CWLA(C='ERR', A='ERR')@10",
                "CWLA(C='ERR', A='max')@10"]
    out_dir = tmp_path / "meta-report"
    code, out, err = _main(capsys, "meta", dl19_qrels_path, rundir, "-m", *measures, "--trials", "40",
                           "--test-trials", "60", "--fraction-trials", "2", "--out", out_dir)
    assert code == 0, err
    assert f"report: {out_dir / 'index.html'}" in out and "RBP_max@10" in out
    figures = ("similarity", "consistency", "discriminative_power", "topic_set_size", "incompleteness",
               "incompleteness_depth", "pooling_bias")
    for name in figures:
        assert (out_dir / f"{name}.png").read_bytes().startswith(b"\x89PNG")
    for name in ("similarity", "consistency", "discriminative_power", "topic_set_size", "incompleteness",
                 "pooling_bias", "timings"):
        assert len(pd.read_csv(out_dir / f"{name}.csv")) > 0
    per_query = pd.read_csv(out_dir / "per_query.csv", dtype={"qid": str})
    assert set(per_query.name) == set(HOSTILE_RUNS) and len(per_query) == 5 * 43 * 4
    page = (out_dir / "index.html").read_text(encoding="utf-8")
    assert not external_references(page)
    tags = parse_tags(page)
    assert "script" not in {tag for tag, _ in tags}
    assert [attrs["src"][:22] for tag, attrs in tags if tag == "img"] == ["data:image/png;base64,"] * len(figures)
    assert "<td>&lt;script&gt;</td>" in page and "<td>&lt;img src=x onerror=alert(1)&gt;</td>" in page
    assert "at least one relevant kept), 2 trials per share;" in page
    means = pd.read_csv(out_dir / "means.csv", index_col="run")
    rbp = per_query[per_query.measure == "CWLA(C='RBP',A='ERG')@10"].groupby("name").value.mean()
    assert means.loc[list(HOSTILE_RUNS), "RBP_ERG@10"].tolist() == pytest.approx(rbp[list(HOSTILE_RUNS)].tolist())


def test_leaderboard_from_csv(capsys, tmp_path):
    table = pd.DataFrame({"name": ["BM25", "<script>x</script>", "SPLADE", "ColBERTv2"],
                          "accuracy": [0.187, 0.344, 0.383, 0.397], "latency": [4.0, 38.0, 220.0, 96.0],
                          "cost": [0.05, 0.9, 2.4, 1.6]})
    csv = tmp_path / "board.csv"
    table.to_csv(csv, index=False)
    weights = "accuracy=0.6,latency=0.2,cost=0.2"
    out_dir = tmp_path / "board"
    code, out, err = _main(capsys, "leaderboard", csv, "--weights", weights, "--max-latency", "100",
                           "--out", out_dir)
    assert code == 0, err
    expected = lb.Leaderboard.from_frame(table, name="name").table(parse_weights(weights))
    lines = out.splitlines()
    assert lines[0].split() == ["system", "accuracy", "dynascore", "rank", "latency", "cost"]
    ranking = [line.split()[0] for line in lines[1:1 + len(table)]]
    assert ranking == list(expected.index)
    for line, (_, row) in zip(lines[1:], expected.iterrows()):     # one precision per column
        acc, score, rank, latency, cost = line.split()[1:]
        assert (acc, score, rank) == (f"{row['accuracy']:.4f}", f"{row['dynascore']:.4f}", str(int(row["rank"])))
        money = report.money_decimals(table["cost"])               # dollars: cents, 3 decimals for 0.05
        assert (latency, cost) == (f"{row['latency']:.3f}", f"{row['cost']:.{money}f}") and money == 3
    budget = out.split("within budget (latency <= 100), by accuracy:\n")[1].split("\n\n")[0].splitlines()
    assert [line.split()[0] for line in budget[1:]] == ["ColBERTv2", "<script>x</script>", "BM25"]  # not SPLADE
    page = (out_dir / "index.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;x&lt;/script&gt;" in page and "<script" not in page and not external_references(page)
    assert (out_dir / "frontier.png").exists() and (out_dir / "weight_map.png").exists()


@pytest.mark.parametrize("argv, expected", [
    (["missing.csv"], "CSV file not found: missing.csv"),
    (["{csv}", "--weights", "accuracy=high"], "bad weight 'accuracy=high'"),
    (["{csv}", "--weights", "accuracy=1e308,latency=-1"], "weights must be finite and non-negative"),
    (["{csv}", "--latency", "p99"], "no column 'p99' for latency"),
    (["{nolatency}"], "no latency column (looked for 'latency', 'latency_p50_ms', 'latency_ms'; columns: name, "
                      "accuracy, speed, cost); name it with --latency COLUMN"),
    (["{nan}"], "accuracy of system 'b' is nan; every metric needs a finite number"),
    (["{csv}", "--max-latency", "nan"], "--max-latency must be a finite number"),
    (["{csv}", "--out", "{csv}"], "is a file"),
    (["{csv}", "--out", "{dir}"], "contains the input"),
    (["{negative}"], "latency of system 'b' is -2; latency, cost, memory and throughput cannot be negative"),
    (["{duplicate}"], "system names must be unique: ['a']"),
    (["{huge}", "--out", "{dir}/report"], "the Dynascore overflows"),
])
def test_leaderboard_errors_are_one_line_and_leave_nothing(capsys, tmp_path, argv, expected):
    frame = pd.DataFrame({"name": ["a", "b", "c"], "accuracy": [0.3, 0.4, 0.5], "latency": [1.0, 2.0, 4.0],
                          "cost": [1.0, 3.0, 2.0]})
    paths = {"csv": frame, "negative": frame.assign(latency=[1.0, -2.0, 3.0]),
             "duplicate": frame.assign(name=["a", "a", "b"]), "huge": frame.assign(accuracy=[1e308, 0.3, 0.4]),
             "nolatency": frame.rename(columns={"latency": "speed"}), "nan": frame.assign(accuracy=[0.3, None, 0.5])}
    for key, table in paths.items():
        table.to_csv(tmp_path / f"{key}.csv", index=False)
    before = sorted(p.name for p in tmp_path.iterdir())
    filled = [a.format(dir=tmp_path, **{k: tmp_path / f"{k}.csv" for k in paths}) for a in argv]
    code, out, err = _main(capsys, "leaderboard", *filled)
    assert code == 1 and err.count("\n") == 1 and err.startswith("ir-cwla leaderboard: error: ")
    assert expected in err, err
    assert out == "" and sorted(p.name for p in tmp_path.iterdir()) == before      # nothing printed or written


def test_leaderboard_writes_whole_reports_on_awkward_input(capsys, tmp_path):
    """Inputs that used to fail halfway through writing.

    A constant metric, a name matplotlib reads as math, many systems (label
    placement).
    """
    rng = np.random.default_rng(0)
    n = 2000
    frame = pd.DataFrame({"name": ["$\\frac{1}{$", "=1+1"] + [f"s{i}" for i in range(n - 2)],
                          "accuracy": rng.random(n), "latency": 10 ** rng.uniform(-1, 3, n), "cost": np.full(n, 2.0)})
    csv = tmp_path / "board.csv"
    frame.to_csv(csv, index=False)
    code, out, err = _main(capsys, "leaderboard", csv, "--out", tmp_path / "report")
    assert code == 0, err
    assert "warning: 'cost' has the same value for every system" in err
    page = (tmp_path / "report" / "index.html").read_text(encoding="utf-8")
    assert "No winner map: cost is the same for every system" in page and "$\\frac{1}{$" in page
    assert (tmp_path / "report" / "frontier.png").exists() and not (tmp_path / "report" / "weight_map.png").exists()
    written = pd.read_csv(tmp_path / "report" / "leaderboard.csv", index_col="system")
    assert "'=1+1" in written.index and len(written) == n
    code, out, err = _main(capsys, "leaderboard", csv, "--out", tmp_path / "report")   # replaces its own report
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["board.csv", "report"]


@pytest.mark.parametrize("argv, expected", [
    (["--trials", "0"], "--trials must be >= 1"),
    (["--test-trials", "-1"], "--test-trials must be >= 1"),
    (["--alpha", "1.5"], "alpha must lie in (0, 1), got 1.5"),
    (["--out", "{file}"], "is a file"),
    (["--out", "{rundir}"], "contains the input"),
    (["--out", "{full}"], "holds other files"),
    (["--criteria", "consistency,speed"], "--criteria: unknown 'speed'; choose from similarity, consistency"),
    (["--fractions", "0.5,1.5"], "fractions"),
    (["--fraction-trials", "0"], "--fraction-trials must be >= 1"),
    (["--bias-depths", "0"], "depth"),
])
def test_meta_arguments_are_checked_before_any_work(capsys, monkeypatch, tmp_path, dl19_dir, dl19_qrels_path,
                                                      argv, expected):
    from ir_cwla import meta

    def evaluate(*args, **kwargs):
        raise AssertionError("runs were evaluated before the arguments were checked")

    monkeypatch.setattr(meta, "evaluate", evaluate)
    rundir = tmp_path / "runs"
    rundir.mkdir()
    shutil.copy(dl19_dir / "runs" / "input.bm25base_p.gz", rundir)
    (tmp_path / "file").write_text("x")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("x")
    before = sorted(p.name for p in tmp_path.iterdir())
    filled = [a.format(file=tmp_path / "file", rundir=rundir, full=tmp_path / "full") for a in argv]
    code, out, err = _main(capsys, "meta", dl19_qrels_path, rundir, *filled)
    assert code == 1 and err.startswith("ir-cwla meta: error: ") and expected in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_leaderboard_keeps_names_columns_and_one_precision(capsys, tmp_path):
    """Leaderboards keep names, columns and one precision (issue 19).

    Issue 19: system names that look like numbers or NA markers stay as written (1.10 and 1.1 are
    two systems); a latency_ms column is found; a fourth weighted metric is printed; a budget no
    system meets says so; and one column has one number of decimals in every table.
    """
    table = pd.DataFrame({"name": ["1.10", "1.1", "NA", "+3", "nan"], "MRR@10": [0.3001, 0.35, 0.4, 0.2, 0.30012],
                          "latency_ms": [10.0, 20.0, 40.0, 5.0, 30.0], "usd": [1.0, 2.0, 3.0, 0.5, 2.5],
                          "memory_gib": [5.0, 3.0, 1.0, 2.0, 4.0]})
    csv = tmp_path / "board.csv"
    csv.write_text(table.to_csv(index=False))
    code, out, err = _main(capsys, "leaderboard", csv, "--weights", "accuracy=0.4,latency=0.2,cost=0.2,memory_gib=0.2",
                           "--max-latency", "35", "--min-accuracy", "0.3")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["system", "MRR@10", "dynascore", "rank", "latency_ms", "usd", "memory_gib"]
    expected = lb.Leaderboard.from_frame(table, accuracy="MRR@10", latency="latency_ms", cost="usd", name="name")
    with warnings.catch_warnings():          # the command printed them (ties); not what this test checks
        warnings.simplefilter("ignore", lb.RankingWarning)
        ranking = expected.table({"accuracy": 0.4, "latency": 0.2, "cost": 0.2, "memory_gib": 0.2})
    assert [line.split()[0] for line in lines[1:6]] == list(ranking.index)
    assert sorted(ranking.index) == sorted(["1.10", "1.1", "NA", "+3", "nan"])
    budget = out.split("within budget (latency <= 35), by accuracy:\n")[1].split("\n\n")[0].splitlines()
    above = out.split("accuracy >= 0.3, cheapest first:\n")[1].splitlines()
    assert [line.split()[0] for line in budget[1:]] == ["1.1", "nan", "1.10", "+3"]     # 0.30012 > 0.3001
    decimals = {len(line.split()[1].split(".")[1]) for line in lines[1:6] + budget[1:] + above[1:]}
    assert decimals == {5}          # the budget's ranking needs 5 decimals: every table shows 5 (was 4 and 5)
    code, out, err = _main(capsys, "leaderboard", csv, "--max-latency", "1")
    assert code == 0 and "within budget (latency <= 1), by accuracy:\nno system is within the budget (latency <= 1)" in out


def test_leaderboard_names_survive_a_save_and_read(tmp_path):
    table = pd.DataFrame({"name": ["+3", "=cmd", "1.10", "1.1", "NA"], "accuracy": [0.1, 0.2, 0.3, 0.4, 0.5],
                          "latency": [1.0, 2.0, 3.0, 4.0, 5.0], "cost": [5.0, 4.0, 3.0, 2.0, 1.0]})
    board = lb.Leaderboard.from_frame(table, name="name")
    board.save(str(tmp_path))
    assert "'=cmd" in (tmp_path / "results.csv").read_text()     # escaped for spreadsheets ...
    again = lb.Leaderboard.read_csv(tmp_path / "results.csv")
    assert list(again.results.index) == ["+3", "=cmd", "1.10", "1.1", "NA"]     # ... and read back as written
    (tmp_path / "empty.csv").write_text("name,accuracy,latency,cost\na,0.1,1,1\n,0.2,2,2\n")
    with pytest.raises(ValueError, match="empty.csv:3: empty system name"):
        lb.Leaderboard.read_csv(tmp_path / "empty.csv")
