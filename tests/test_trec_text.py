"""Clean TREC files read without pandas (``ir_cwla.trec_text``) and ``ir-cwla eval`` on them (issue 23).

The reader must take a file only where the general reader (:mod:`ir_cwla.io`) would read it
without a word (no error, warning or repair) and to the same values; anything else it must
hand over (None). Each case here is read by both: where ``trec_text`` takes a file, its columns
equal the frame's, value for value and in order; where it refuses one, the general reader
still reads it (or raises its own error). The command's path without pandas gives the bytes
the general path gives, on generated collections and on DL19.
"""
from __future__ import annotations

import bz2
import gzip
import json
import lzma
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir_cwla import io
from ir_cwla.app import cli
from ir_cwla.errors import InputError
from ir_cwla.io import _hashing as hashing
from ir_cwla.io import _trec_text as trec_text
from tests import synthetic
from tests.offline import ROOT

RUN_LINES = "1 Q0 d1 1 3.5 tag\n1 Q0 d2 2 2 tag\n2 Q0 d1 1 -1e-3 tag\n"
QRELS_LINES = "1 0 d1 2\n1 0 d3 0\n2 0 d1 1\n"


def _same_run(columns, frame: pd.DataFrame) -> None:
    assert columns.query_id.tolist() == frame["query_id"].astype(str).tolist()
    assert columns.doc_id.tolist() == frame["doc_id"].astype(str).tolist()
    assert columns.score.dtype == np.float64
    assert np.array_equal(columns.score, frame["score"].to_numpy(dtype=np.float64))
    assert columns.score.tobytes() == frame["score"].to_numpy(dtype=np.float64).tobytes()   # -0.0 too
    assert columns.attrs[io.RUN_TAG_ATTR] == frame.attrs[io.RUN_TAG_ATTR]
    assert columns.attrs[io.SOURCE_ATTR] == frame.attrs[io.SOURCE_ATTR]
    if columns.element_type is not None:
        assert columns.element_type.tolist() == frame[io.ELEMENT_TYPE].astype(str).tolist()


def _same_qrels(columns, frame: pd.DataFrame) -> None:
    assert columns.query_id.tolist() == frame["query_id"].astype(str).tolist()
    assert columns.doc_id.tolist() == frame["doc_id"].astype(str).tolist()
    assert columns.relevance.dtype == np.int64
    assert columns.relevance.tolist() == frame["relevance"].tolist()


def _quiet(read, path):
    """The general reader's result, and whether it said anything (a warning)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = read(path)
    return out, caught


def _check_run(path: Path, element_type: bool = False):
    columns = trec_text.read_run(str(path), element_type=element_type)
    try:
        frame, said = _quiet(lambda p: io.read_trec_run(p, element_type=element_type), str(path))
    except InputError:
        assert columns is None, "trec_text took a file the general reader refuses"
        return None
    if columns is not None:
        assert not said, f"trec_text took a file the general reader warns about: {said[0].message}"
        assert not frame.attrs.get(io.METADATA_ATTR)
        _same_run(columns, frame)
    return columns


def _check_qrels(path: Path):
    columns = trec_text.read_qrels(str(path))
    try:
        frame, said = _quiet(io.read_trec_qrels, str(path))
    except InputError:
        assert columns is None, "trec_text took qrels the general reader refuses"
        return None
    if columns is not None:
        assert not said, f"trec_text took qrels the general reader warns about: {said[0].message}"
        _same_qrels(columns, frame)
    return columns


# ------------------------------------------------------------------------- what is taken, what is handed over

CLEAN_RUNS = {
    "spaces": RUN_LINES,
    "tabs": RUN_LINES.replace(" ", "\t"),
    "tabs and spaces by field": RUN_LINES.replace(" Q0 ", "\tQ0\t"),
    "no final newline": RUN_LINES.rstrip("\n"),
    "number forms": "1 Q0 a 1 +.5 t\n1 Q0 b 2 5. t\n1 Q0 c 3 -0 t\n1 Q0 d 4 1E+300 t\n1 Q0 e 5 007 t\n"
                    "1 Q0 f 6 4.9406564584124654e-324 t\n1 Q0 g 7 0.1000000000000000055511151231257827 t\n",
    "topics not contiguous": "1 Q0 a 1 3 t\n2 Q0 a 1 3 t\n1 Q0 b 2 2 t\n",
    "one line": "7 Q0 x 1 1 run\n",
    "one line, no newline": "7 Q0 x 1 1 run",
    "punctuation in ids": "q-1 Q0 doc/1\"' 1 1 t\nq-1 Q0 ~d@c$ 2 0 t\n",
}

HANDED_OVER_RUNS = {
    "comment": "# ir_metadata\n" + RUN_LINES,
    "CRLF": RUN_LINES.replace("\n", "\r\n"),
    "BOM": "\ufeff" + RUN_LINES,
    "double space": RUN_LINES.replace(" Q0", "  Q0"),
    "leading space": " " + RUN_LINES,
    "trailing space": RUN_LINES.replace("tag\n", "tag \n"),
    "blank line": RUN_LINES.replace("\n", "\n\n", 1),
    "5 fields": RUN_LINES + "3 Q0 d1 1 tag\n",
    "5 and 7 fields": "1 Q0 d1 1 3 tag\n1 Q0 d2 2 2 tag x\n1 Q0 d3 3 1\n",
    "topic all": RUN_LINES + "all Q0 d1 1 3 tag\n",
    "nan": RUN_LINES + "3 Q0 d1 1 nan tag\n",
    "inf": RUN_LINES + "3 Q0 d1 1 inf tag\n",
    "overflow": RUN_LINES + "3 Q0 d1 1 1e999 tag\n",
    "underscore": RUN_LINES + "3 Q0 d1 1 1_0 tag\n",
    "hex": RUN_LINES + "3 Q0 d1 1 0x10 tag\n",
    "e alone": RUN_LINES + "3 Q0 d1 1 1e tag\n",
    "two signs": RUN_LINES + "3 Q0 d1 1 +-1 tag\n",
    "duplicate doc": RUN_LINES + "1 Q0 d1 9 0.5 tag\n",
    "duplicate doc, topic split": "1 Q0 a 1 3 t\n2 Q0 a 1 3 t\n1 Q0 a 2 2 t\n",
    "non-ASCII": RUN_LINES + "3 Q0 d\u00e9 1 1 tag\n",
    "NUL": RUN_LINES + "3 Q0 d\x001 1 1 tag\n",
    "vertical tab": RUN_LINES.replace(" Q0", "\x0bQ0", 1),
    "unit separator": RUN_LINES.replace(" Q0", "\x1fQ0", 1),
    "empty": "",
}


@pytest.mark.parametrize("case", sorted(CLEAN_RUNS))
def test_clean_runs_are_taken_with_the_general_readers_values(case, tmp_path):
    path = tmp_path / "run.txt"
    path.write_text(CLEAN_RUNS[case], encoding="utf-8")
    assert _check_run(path) is not None
    assert _check_run(path, element_type=True) is not None


@pytest.mark.parametrize("case", sorted(HANDED_OVER_RUNS))
def test_runs_a_rule_acts_on_are_handed_over(case, tmp_path):
    path = tmp_path / "run.txt"
    path.write_bytes(HANDED_OVER_RUNS[case].encode("utf-8"))
    assert trec_text.read_run(str(path)) is None
    _check_run(path)                      # the general reader reads it or refuses it, on its own


def test_check_false_keeps_every_line_of_a_run(tmp_path):
    """``check=False`` (``ir-cwla cwl`` in file order) takes duplicates, every line kept, as ``io`` does."""
    path = tmp_path / "run.txt"
    path.write_text(HANDED_OVER_RUNS["duplicate doc"])
    columns = trec_text.read_run(str(path), check=False)
    _same_run(columns, io.read_trec_run(str(path), check=False))
    assert len(columns) == 4


CLEAN_QRELS = {"spaces": QRELS_LINES, "tabs": QRELS_LINES.replace(" ", "\t"),
               "18 digits": QRELS_LINES + "3 0 d 999999999999999999\n", "leading zeros": QRELS_LINES + "3 0 d 007\n",
               "iteration text": "1 Q0 d1 1\n"}
HANDED_OVER_QRELS = {
    "negative grade": QRELS_LINES + "3 0 d -1\n",   # (the raw-Cranfield check looks at those)
    "plus sign": QRELS_LINES + "3 0 d +1\n",
    "19 digits": QRELS_LINES + "3 0 d 1000000000000000000\n",
    "beyond int64": QRELS_LINES + "3 0 d 9223372036854775808\n",
    "float grade": QRELS_LINES + "3 0 d 1.0\n",
    "judged twice": QRELS_LINES + "1 0 d1 0\n",
    "3 fields": QRELS_LINES + "3 0 d\n",
    "comment": "# judged by NIST\n" + QRELS_LINES,
    "topic all": QRELS_LINES + "all 0 d 1\n",
    "empty": "",
}


@pytest.mark.parametrize("case", sorted(CLEAN_QRELS))
def test_clean_qrels_are_taken_with_the_general_readers_values(case, tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text(CLEAN_QRELS[case])
    assert _check_qrels(path) is not None


@pytest.mark.parametrize("case", sorted(HANDED_OVER_QRELS))
def test_qrels_a_rule_acts_on_are_handed_over(case, tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text(HANDED_OVER_QRELS[case])
    assert trec_text.read_qrels(str(path)) is None
    _check_qrels(path)


@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress, lzma.compress])
def test_compressed_files_are_read_like_plain_ones(compress, tmp_path):
    path = tmp_path / "run.gz"
    path.write_bytes(compress(RUN_LINES.encode()))
    assert _check_run(path) is not None
    truncated = tmp_path / "truncated"
    truncated.write_bytes(compress(RUN_LINES.encode() * 2000)[:-40])
    assert trec_text.read_run(str(truncated)) is None          # the general reader says where it stops


def test_streams_directories_missing_files_and_tables_are_handed_over(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text(RUN_LINES)
    for spec in ("-", "/dev/stdin", str(tmp_path), str(tmp_path / "absent"), "irds:cranfield", path):
        assert trec_text.read_run(spec) is None         # (a Path is the general reader's too: str only)
    parquet = tmp_path / "run.parquet"
    io.read_trec_run(str(path)).to_parquet(parquet)
    assert trec_text.read_run(str(parquet)) is None


def test_text_split_in_blocks_gives_the_fields_of_the_whole(tmp_path, monkeypatch):
    """Blocks of a few lines (:data:`trec_text.SPLIT_CHARS` small) give the columns of one split."""
    path = tmp_path / "run.txt"
    path.write_text("".join(f"{q} Q0 d{i} {i} {i / 7!r} run{q}\n" for q in (3, 1, 2) for i in range(50)))
    whole = trec_text.read_run(str(path), element_type=True)
    for size in (1, 7, 100, 1000):
        monkeypatch.setattr(trec_text, "SPLIT_CHARS", size)
        part = trec_text.read_run(str(path), element_type=True)
        assert part.query_id.tolist() == whole.query_id.tolist() and part.doc_id.tolist() == whole.doc_id.tolist()
        assert part.score.tobytes() == whole.score.tobytes() and part.attrs == whole.attrs == {
            io.RUN_TAG_ATTR: "run3", io.SOURCE_ATTR: str(path)}
    _check_run(path)


def test_a_file_beyond_the_size_limit_is_handed_over(tmp_path, monkeypatch):
    path = tmp_path / "run.txt"
    path.write_text(RUN_LINES)
    monkeypatch.setattr(trec_text, "MAX_BYTES", len(RUN_LINES) - 1)
    assert trec_text.read_run(str(path)) is None
    monkeypatch.setattr(trec_text, "MAX_BYTES", len(RUN_LINES))
    assert trec_text.read_run(str(path)) is not None


# a line of tokens over an alphabet that holds every delimiter, sign and letter the rules look at
_TOKEN = st.text(alphabet="01239.eE+-_naifx#dq \t\r", min_size=0, max_size=5)
_LINE = st.lists(_TOKEN, min_size=3, max_size=7).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(_LINE, min_size=1, max_size=6), end=st.sampled_from(["", "\n"]))
def test_random_runs_agree_with_the_general_reader(tmp_path_factory, lines, end):
    path = tmp_path_factory.mktemp("random") / "run.txt"
    path.write_text("\n".join(lines) + end)
    _check_run(path)


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(_LINE, min_size=1, max_size=6))
def test_random_qrels_agree_with_the_general_reader(tmp_path_factory, lines):
    path = tmp_path_factory.mktemp("random") / "qrels.txt"
    path.write_text("\n".join(lines) + "\n")
    _check_qrels(path)


@settings(max_examples=200, deadline=None)
@given(scores=st.lists(st.one_of(st.floats(allow_nan=False, allow_infinity=False).map(repr),
                                 st.floats(allow_nan=False, allow_infinity=False).map(lambda v: f"{v:.30e}"),
                                 st.integers(-10 ** 30, 10 ** 30).map(str)), min_size=1, max_size=30))
def test_scores_are_the_general_readers_to_the_bit(tmp_path_factory, scores):
    """Every decimal form a float takes, read to the same double as the general reader's parser."""
    path = tmp_path_factory.mktemp("scores") / "run.txt"
    path.write_text("".join(f"1 Q0 d{i} {i} {s} t\n" for i, s in enumerate(scores)))
    assert _check_run(path) is not None


@pytest.mark.realdata
def test_every_dl19_file_is_taken_with_the_general_readers_values(dl19_run_paths, dl19_qrels_path):
    for path in dl19_run_paths:
        columns = _check_run(path)
        assert columns is not None, path
    assert _check_qrels(dl19_qrels_path) is not None


# ------------------------------------------------------------------------- hashing: pandas' numbering

@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.text(alphabet="ab01\u00e9\x00", max_size=3), max_size=40))
def test_factorize_and_the_index_number_values_as_pandas_does(values):
    # an object array, a list and a fixed-width str array (each taken its own way) number alike
    array = np.array(values, dtype=object)
    for given_as in (array, list(values)):
        for sort in (False, True):
            codes, uniques = hashing.factorize(given_as, sort=sort)
            want_codes, want_uniques = pd.factorize(pd.Series(values, dtype=object), sort=sort)
            assert codes.dtype == np.int64 and uniques.dtype == object
            assert codes.tolist() == want_codes.tolist() and uniques.tolist() == list(want_uniques)
    assert hashing.unique(array).tolist() == list(pd.unique(pd.Series(values, dtype=object)))
    index = hashing.StringIndex(hashing.unique(array))
    probe = values + ["zz", "a"]
    want = pd.Index(pd.unique(pd.Series(values, dtype=object))).get_indexer(probe).tolist()
    assert index.get_indexer(probe).tolist() == want
    assert index.get_indexer(np.array(probe, dtype=object)).tolist() == want


# ------------------------------------------------------------------------- the command without pandas

@pytest.fixture(scope="module")
def clean_files(synthetic_collection, tmp_path_factory) -> dict:
    """The synthetic collection as clean files (grades >= 0); its shuffled runs keep topics split."""
    folder = tmp_path_factory.mktemp("clean")
    qrels = synthetic_collection.qrels.assign(relevance=synthetic_collection.qrels["relevance"].clip(lower=0))
    synthetic.write_trec_qrels(qrels, folder / "qrels.txt")
    runs = {}
    for name, run in synthetic_collection.runs.items():
        path = folder / (f"{name}.gz" if len(runs) % 2 else f"{name}.txt")
        synthetic.write_trec_run(run, path.with_suffix(".tmp"), name)
        data = path.with_suffix(".tmp").read_bytes()
        path.write_bytes(gzip.compress(data) if path.suffix == ".gz" else data)
        runs[name] = path
    # the command takes its path without pandas on these (else the comparisons below compare nothing)
    assert trec_text.read_qrels(str(folder / "qrels.txt")) is not None
    assert [name for name, path in runs.items() if trec_text.read_run(str(path)) is None] == ["duplicates"]
    return {"qrels": folder / "qrels.txt", "runs": runs}


def _cli(capsys, argv, general: bool, monkeypatch) -> tuple[int, str, str]:
    with monkeypatch.context() as patch:
        if general:
            patch.setattr(trec_text, "read_run", lambda *a, **k: None)
        code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


MEASURES = ["nDCG@10", "P@5", "AP", "RR", "R@100", "Judged@10", "CWLA(C='RBP',A='max')@10", "RBP_ERG(p=0.8)",
            "CWLA(C='AP',A='ERG',gain='lin')", "CWLA(C='INST',A='PE',unjudged='residual')@20",
            "CWLA(C='P',A='ERG',rel=2)@10", "CWLA(C='DCG',A='ERG',unjudged='condense')@10"]
OPTIONS = [[], ["-q"], ["-q", "-n"], ["--answered-only", "-q"], ["-J"], ["-l", "2"], ["--ties", "float64", "-q"],
           ["--runid"], ["--format", "json", "-q"], ["--format", "jsonl"], ["--format", "csv", "-q"], ["-p", "6"]]


@pytest.mark.slow
@pytest.mark.parametrize("options", OPTIONS, ids=" ".join)
def test_the_path_without_pandas_prints_the_general_paths_bytes(clean_files, capsys, monkeypatch, options):
    """Every option, every kind of measure, runs with ties and split topics: the same bytes and warnings."""
    measures = [m for m in MEASURES if not (options == ["-J"] and m.startswith(("Judged", "CWLA(C='INST'")))]
    runs = [p for name, p in clean_files["runs"].items() if name != "duplicates"]
    argv = ["eval", clean_files["qrels"], *runs, *[a for m in measures for a in ("-m", m)], *options]
    fast = _cli(capsys, argv, False, monkeypatch)
    general = _cli(capsys, argv, True, monkeypatch)
    assert fast == general
    assert fast[0] == 0 and "answers" in fast[2]           # (the runs miss topics: the warning is there)


@pytest.mark.slow
def test_an_unclean_run_sends_the_command_to_the_general_path(clean_files, capsys, monkeypatch):
    argv = ["eval", clean_files["qrels"], *clean_files["runs"].values(), "-m", "nDCG@10", "-m", "RBP_max@10"]
    fast = _cli(capsys, argv, False, monkeypatch)
    assert "listed twice" in fast[2] or "duplicate" in fast[2].lower()      # the general reader's warning
    assert fast == _cli(capsys, argv, True, monkeypatch)


def _modules_after(argv: list[str]) -> tuple[set[str], str]:
    code = ("import json, sys\nfrom ir_cwla.app.cli import main\nmain(sys.argv[1:])\n"
            "print(json.dumps(sorted(sys.modules)), file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code, *argv], cwd=ROOT, capture_output=True, text=True,
                          timeout=900, check=True)
    return set(json.loads(proc.stderr.strip().splitlines()[-1])), proc.stdout


@pytest.mark.slow
def test_clean_files_are_scored_without_importing_pandas(clean_files):
    runs = [str(p) for name, p in clean_files["runs"].items() if name != "duplicates"]
    modules, out = _modules_after(["eval", str(clean_files["qrels"]), *runs, "-m", "nDCG@10", "-m", "RBP_max@10"])
    assert not {m.split(".")[0] for m in modules} & {"pandas", "pyarrow", "scipy", "matplotlib"}
    assert out.startswith("runid")
    modules, _ = _modules_after(["eval", str(clean_files["qrels"]), *runs, "-m", "nDCG@10", "--format", "csv"])
    assert "pandas" in modules                      # (CSV is written by pandas: the general path)


@pytest.mark.realdata
@pytest.mark.slow
def test_dl19_runs_without_pandas_print_the_general_paths_bytes(dl19_qrels_path, dl19_run_paths, capsys,
                                                                  monkeypatch):
    argv = ["eval", dl19_qrels_path, *dl19_run_paths[:6], "-q", "-m", "nDCG@10", "-m", "AP", "-m", "P(rel=2)@10",
            "-m", "CWLA(C='RBP',A='max')@10", "-m", "CWLA(C='INST',A='ERG',gain='exp')"]
    fast = _cli(capsys, argv, False, monkeypatch)
    assert fast == _cli(capsys, argv, True, monkeypatch)
    assert fast[0] == 0 and fast[1].count("runid") == 6
