"""The columnar readers, checked frames, comment lines, Parquet and Arrow inputs.

The columnar readers against the readers they replace, checked frames that cannot be edited
into skipping the rules, comment lines, Parquet and Arrow inputs (issues 19 and 23).
"""
from __future__ import annotations

import gzip
import math
import warnings

import ir_measures
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.feather
import pyarrow.parquet
import pytest
from ir_measures import AP

import ir_cwla
from ir_cwla import CWLA
from ir_cwla import io as cio
from ir_cwla.errors import InputError
from ir_cwla.io import _frames
from tests import old_reader, synthetic

PYTHON_STR = pd.StringDtype("python", na_value=np.nan)


def _as_main(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame main returns, with the one deliberate change.

    Topic ids held as Python strings also where pyarrow is installed (main's became
    Arrow-backed there, as pandas' default ``str`` does).
    """
    frame = frame.copy()
    if isinstance(frame["query_id"].dtype, pd.StringDtype):
        frame["query_id"] = frame["query_id"].astype(PYTHON_STR)
    return frame


def _same(new: pd.DataFrame, old: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(new, _as_main(old), check_exact=True)
    assert new["score" if "score" in new else "relevance"].to_numpy().tobytes() == \
        old["score" if "score" in old else "relevance"].to_numpy().tobytes()          # bit for bit
    # the one attribute added since: the file a run was read from, which names it in warnings
    assert {k: v for k, v in new.attrs.items() if k != cio.SOURCE_ATTR} == \
        {k: v for k, v in old.attrs.items() if k != "ir_cwla_checked_rows"}


def _compare_files(paths, qrels_path, variants: bool = True) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ir_cwla.DuplicateWarning)
        for path in paths:
            _same(cio.read_trec_run(path), old_reader.read_trec_run(path))
            if variants:
                _same(cio.read_trec_run(path, element_type=True), old_reader.read_trec_run(path, element_type=True))
                _same(cio.read_trec_run(path, check=False), old_reader.read_trec_run(path, check=False))
        _same(cio.read_trec_qrels(qrels_path), old_reader.read_trec_qrels(qrels_path))


@pytest.fixture
def arrow_only(monkeypatch):
    """Fails a read that falls back to the general (pandas) path: the columnar path is tested."""
    def refuse(*args):
        raise AssertionError("the block took the general path")
    monkeypatch.setattr(_frames, "_pandas_block", refuse)


# ------------------------------------------------------------------------- bit-identical to the old reader

def test_synthetic_collection_reads_as_with_the_old_reader(synthetic_files, arrow_only):
    _compare_files(list(synthetic_files.runs.values()), synthetic_files.qrels)


@pytest.mark.slow
def test_dl19_reads_as_with_the_old_reader_gzipped_and_plain(dl19_run_paths, dl19_qrels_path, tmp_path, arrow_only):
    plain = []
    for path in dl19_run_paths:
        plain.append(tmp_path / path.stem)
        plain[-1].write_bytes(gzip.decompress(path.read_bytes()))
    _compare_files(dl19_run_paths, dl19_qrels_path)
    _compare_files(plain, dl19_qrels_path, variants=False)


def test_dl19_values_are_ir_measures_values(dl19_run_paths):
    """An independent reader (ir-measures': Python's float(), split()) on every DL19 run."""
    for path in dl19_run_paths:
        ours = cio.read_trec_run(path)
        theirs = pd.DataFrame(list(ir_measures.read_trec_run(str(path))))
        assert ours["query_id"].tolist() == theirs["query_id"].tolist()
        assert ours["doc_id"].tolist() == theirs["doc_id"].tolist()
        assert ours["score"].to_numpy().tobytes() == theirs["score"].to_numpy(dtype=np.float64).tobytes()


LAYOUTS = {
    "tabs": lambda t: t.replace(" ", "\t"),
    "spaces": lambda t: t,
    "crlf": lambda t: t.replace("\n", "\r\n"),
    "blank lines": lambda t: t.replace("\n", "\n\n"),
    "bom": lambda t: "\ufeff" + t,
    "runs of whitespace": lambda t: t.replace(" ", " \t  "),           # the general path
    "trailing space": lambda t: t.replace("\n", " \n"),                 # the general path
    "leading tab": lambda t: t.replace("\n", "\n\t"),                   # the general path
    "non-ascii ids": lambda t: t.replace("D1", "Dé1"),
    "quotes and backslashes": lambda t: t.replace("D2", '"D2\\'),
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("block_bytes", [4096, 8 << 20])
def test_every_layout_reads_as_with_the_old_reader(synthetic_collection, tmp_path, monkeypatch, layout, block_bytes):
    """Both paths, many blocks or one: whatever the fast path takes, it reads as the old reader."""
    monkeypatch.setattr(ir_cwla.io._textstream, "BLOCK_BYTES", block_bytes)
    monkeypatch.setattr(old_reader, "BLOCK_BYTES", block_bytes)
    run_path, qrels_path = tmp_path / "run", tmp_path / "qrels"
    synthetic.write_trec_run(synthetic_collection.runs["duplicates"], run_path)
    synthetic.write_trec_qrels(synthetic_collection.qrels, qrels_path)
    for path in (run_path, qrels_path):
        path.write_bytes(LAYOUTS[layout](path.read_text()).encode())
    _compare_files([run_path], qrels_path)


RUN = "1 Q0 a 1 2.5 tagA\n1 Q0 b 2 1.0 tagA\n2 Q0 c 1 3.0 tagA\n"


@pytest.mark.parametrize("line, message", [
    ("1\tQ0\t\tb\t2\t1.0", r":2: expected 6 whitespace-separated fields, found 5"),     # an empty field
    ("1\tQ0\tb c\tx\t1.0", r":2: field 5 \(score\) is not a number: 'x'"),     # a space among tabs
    ("1\tQ0\tb\t2\tnan\tt", r":2: score 'nan' of topic '1', document 'b' is not a finite number"),
    ("1\tQ0\tb\t2\t0x1p3\tt", r":2: field 5 \(score\) is not a number: '0x1p3'"),
    ("all\tQ0\tb\t2\t1\tt", r":2: topic id 'all' is reserved"),
    ("1\tQ0\tb\t2\t1", r":2: expected 6 .* found 5"),
])
def test_tab_separated_errors_name_the_line(tmp_path, line, message):
    """Lines the columnar path takes apart like the old one.

    What it refuses is named by the line scan, with the old message.
    """
    path = tmp_path / "run.tsv"
    path.write_text("1\tQ0\ta\t1\t2.0\tt\n" + line + "\n")
    with pytest.raises(InputError, match=message):
        cio.read_trec_run(path)
    with pytest.raises(InputError, match=message):
        old_reader.read_trec_run(path)


@pytest.mark.parametrize("grade, ok", [("+2", True), ("0x10", False), ("2.0", False), ("٣", True), ("-0", True),
                                       ("9223372036854775808", False)])
def test_grades_the_columnar_parser_reads_otherwise_keep_the_old_rule(tmp_path, grade, ok):
    """Arrow reads '0x10' as 16; the rule (and the old reader) does not take it."""
    path = tmp_path / "qrels"
    path.write_text(f"1\t0\ta\t1\n1\t0\tb\t{grade}\n")
    if ok:
        _same(cio.read_trec_qrels(path), old_reader.read_trec_qrels(path))
    else:
        with pytest.raises(InputError, match=r"qrels:2: field 4 \(grade\)"):
            cio.read_trec_qrels(path)


# ------------------------------------------------------------------------- issue 19: edited frames are checked again

def _passage_to_document(frame: pd.DataFrame) -> pd.Series:
    """The issue's edit: many passages map to one document, so duplicates appear."""
    return frame["doc_id"].map({d: f"doc{int(d[1:]) // 7}" if d.startswith("D") else d
                                for d in pd.unique(frame["doc_id"])})


def _edits(run: pd.DataFrame):
    """The edits of issue 19, each of a frame read by read_trec_run: (name, edited frame)."""
    copied = run.copy()
    same_topic = np.flatnonzero((run["query_id"] == run["query_id"].iloc[0]).to_numpy())[1]
    copied.loc[same_topic, "doc_id"] = copied["doc_id"].iloc[0]        # a duplicate of row 0
    yield "copy then .loc", copied
    yield ".assign", run.assign(doc_id=_passage_to_document(run))
    mapped = run.copy(deep=True)
    mapped["doc_id"] = _passage_to_document(mapped)
    yield "column replaced", mapped


def _reference(run: pd.DataFrame, qrels: pd.DataFrame, measures) -> dict:
    """The measures on the run deduplicated by the test's own rule (best score, then file order)."""
    return ir_measures.calc_aggregate(measures, qrels, synthetic.deduplicated(run))


def _qrels_by_document(qrels: pd.DataFrame) -> pd.DataFrame:
    docs = qrels.assign(doc_id=_passage_to_document(qrels))
    return docs.groupby(["query_id", "doc_id"], as_index=False, sort=False)["relevance"].max()


MEASURES = [AP(rel=1), CWLA(C="AP", A="ERG", gain="bin"), CWLA(C="RBP", A="ERG", p=0.8) @ 20]


@pytest.mark.parametrize("edit", ["copy then .loc", ".assign", "column replaced"])
def test_edited_frames_with_duplicates_are_deduplicated(synthetic_files, edit):
    qrels = _qrels_by_document(cio.read_trec_qrels(synthetic_files.qrels))
    run = cio.read_trec_run(synthetic_files.runs["graded"])
    edited = dict(_edits(run))[edit]
    assert edited.duplicated(["query_id", "doc_id"]).any()
    want = _reference(edited, qrels, MEASURES)
    with pytest.warns(ir_cwla.DuplicateWarning, match="duplicate line"):
        got = ir_measures.calc_aggregate(MEASURES[1:], qrels, edited)          # through ir_cwla's provider
    for m in MEASURES[1:]:
        assert got[m] == pytest.approx(want[m], abs=1e-12)
    with pytest.warns(ir_cwla.DuplicateWarning, match="myrun: .* duplicate line"):
            per_query = ir_cwla.meta.evaluate({"myrun": edited}, qrels, MEASURES, progress=False,
                                          missing_topics="ignore")
    means = per_query.groupby("measure", sort=False)["value"].mean()
    for m, value in zip(MEASURES, means):                     # the measures in the order given
        assert value == pytest.approx(want[m], abs=1e-12), m


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_a_score_edited_in_place_is_refused(synthetic_files, bad):
    qrels = cio.read_trec_qrels(synthetic_files.qrels)
    run = cio.read_trec_run(synthetic_files.runs["graded"])
    assert cio.is_checked_run(run)
    run.loc[5, "score"] = bad                                           # in place, the same frame object
    assert not cio.is_checked_run(run)
    q, d = run["query_id"].iloc[5], run["doc_id"].iloc[5]
    with pytest.raises(InputError, match=rf"^run: score {bad} is not finite for query '{q}', document '{d}'"):
        ir_measures.calc_aggregate([AP, CWLA(C="RBP") @ 10], qrels, run)
    with pytest.raises(InputError, match=rf"myrun: score {bad} is not finite for query '{q}', document '{d}'"):
        ir_cwla.meta.evaluate({"myrun": run}, qrels, [AP, CWLA(C="RBP") @ 10], progress=False)


def test_the_provider_names_the_run_it_was_given(synthetic_files):
    run = cio.read_trec_run(synthetic_files.runs["graded"])
    run.loc[0, "score"] = math.nan
    with pytest.raises(InputError, match=r"^run: score nan is not finite"):
        ir_measures.calc_aggregate([CWLA(C="RBP") @ 10], cio.read_trec_qrels(synthetic_files.qrels), run)


def test_dl19_passages_mapped_to_documents(dl19_files):
    """The issue's case on DL19: doc ids edited so that duplicates appear, AP deduplicated."""
    qrels = cio.read_trec_qrels(dl19_files.qrels)
    run = cio.read_trec_run(dl19_files.runs["bm25base_p"])
    run["doc_id"] = run["doc_id"].map(lambda d: str(int(d) // 10))
    qrels = qrels.assign(doc_id=qrels["doc_id"].map(lambda d: str(int(d) // 10)))
    qrels = qrels.groupby(["query_id", "doc_id"], as_index=False, sort=False)["relevance"].max()
    measure = CWLA(C="AP", A="ERG", gain="bin", rel=2)
    want = _reference(run, qrels, [measure])
    with pytest.warns(ir_cwla.DuplicateWarning):
        got = ir_measures.calc_aggregate([measure], qrels, run)
    assert got[measure] == pytest.approx(want[measure], abs=1e-12)


def test_unedited_frames_are_not_checked_twice(synthetic_files):
    with pytest.warns(ir_cwla.DuplicateWarning):
        run = cio.read_trec_run(synthetic_files.runs["duplicates"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cio.as_run_frame(run) is run
        shallow = run[run["score"] > -np.inf]                      # a new frame: checked again, nothing to say
        again = cio.as_run_frame(shallow)
        assert again is not run and cio.as_run_frame(again) is again
    qrels = cio.as_qrels_frame(synthetic_files.qrels)
    assert cio.as_qrels_frame(qrels) is qrels
    edited = cio.as_qrels_frame(synthetic_files.qrels)
    edited.loc[1, "doc_id"] = edited["doc_id"].iloc[0]
    edited.loc[1, "query_id"] = edited["query_id"].iloc[0]
    edited.loc[1, "relevance"] = edited["relevance"].iloc[0] + 1
    with pytest.warns(ir_cwla.DuplicateWarning, match="judged more than once"):
        assert len(cio.as_qrels_frame(edited)) == len(edited) - 1


def test_scoring_a_read_frame_checks_it_once_and_names_its_file(synthetic_files, monkeypatch):
    """A frame a reader returned, scored: its fingerprint computed once (was three times), its file named."""
    qrels = cio.read_trec_qrels(synthetic_files.qrels)
    path = synthetic_files.runs["graded"]
    run = cio.read_trec_run(path)
    measure = CWLA(C="RBP") @ 10
    want = ir_measures.calc_aggregate([measure], qrels, run)
    calls = []
    real = _frames._fingerprint
    monkeypatch.setattr(_frames, "_fingerprint", lambda frame: calls.append(frame is run) or real(frame))
    ev = ir_measures.evaluator([measure], qrels)
    assert ev.calc_aggregate(run) == want
    assert sum(calls) == 1
    scorer = ir_cwla.scoring.Scorer([measure], qrels)
    frame, name = _frames.checked_run_frame(run)
    assert frame is run and name == _frames.source_name(run) == str(run.attrs[cio.SOURCE_ATTR])
    assert name.endswith(path.name)
    edited = run.copy()
    assert _frames.checked_run_frame(edited)[1] == "run"            # no longer the file's
    assert _frames.checked_run_frame(str(path))[1] == str(path)
    assert scorer.rank(run).topics.tolist() == scorer.rank(str(path)).topics.tolist()


def test_checked_frames_pickle_and_write_parquet(synthetic_files, tmp_path):
    """Nothing of the check is kept in attrs: frames pickle, and write Parquet, as any frame."""
    import pickle

    run = cio.read_trec_run(synthetic_files.runs["graded"])
    back = pickle.loads(pickle.dumps(run))
    assert not cio.is_checked_run(back)
    _same_values(cio.as_run_frame(back), run)
    run.to_parquet(tmp_path / "r.parquet")
    _same_values(cio.read_trec_run(tmp_path / "r.parquet"), run)


# ------------------------------------------------------------------------- comment lines

HEADER = "# ir_metadata.start\n#  tag: bm25\n# ir_metadata.end\n"


def test_comment_lines_are_the_runs_metadata(tmp_path):
    path = tmp_path / "run"
    path.write_text(HEADER + RUN.replace("1 Q0 b", "   # a note\n1 Q0 b").replace("2 Q0 c 1", "2 Q0 c#1 1"))
    plain = tmp_path / "plain"
    plain.write_text(RUN.replace("2 Q0 c 1", "2 Q0 c#1 1"))
    got = cio.read_trec_run(path)
    assert got.attrs["metadata"] == "# ir_metadata.start\n#  tag: bm25\n# ir_metadata.end\n   # a note"
    pd.testing.assert_frame_equal(got, cio.read_trec_run(plain))
    assert got["doc_id"].tolist() == ["a", "b", "c#1"]          # '#' within a line is text
    assert "metadata" not in cio.read_trec_run(plain).attrs
    qrels = tmp_path / "qrels"
    qrels.write_text("# judged by NIST\n1 0 a 2\n#\n1 0 b 0\n")
    assert cio.read_trec_qrels(qrels)["relevance"].tolist() == [2, 0]


@pytest.mark.parametrize("separator", [" ", "\t", " \t "])        # the columnar path and the general one
def test_line_numbers_count_comment_lines(tmp_path, separator):
    path = tmp_path / "run"
    lines = HEADER + "1 Q0 a 1 2.0 t\n# more\n\n1 Q0 b 2 high t\n"
    path.write_text(lines.replace(" ", separator).replace("#" + separator, "# "))
    with pytest.raises(InputError, match=r"run:7: field 5 \(score\) is not a number: 'high'"):
        cio.read_trec_run(path)


def test_a_file_of_comments_holds_no_judgments(tmp_path):
    path = tmp_path / "qrels"
    path.write_text("# nothing yet\n")
    with pytest.raises(InputError, match="hold no judgments"):
        cio.read_trec_qrels(path)


# ------------------------------------------------------------------------- Parquet and Arrow inputs

def _same_values(got: pd.DataFrame, want: pd.DataFrame) -> None:
    for c in want.columns:
        assert got[c].tolist() == want[c].tolist(), c
    assert got["query_id"].map(type).eq(str).all() and got["doc_id"].map(type).eq(str).all()


WRITERS = {
    "parquet": lambda t, p: pyarrow.parquet.write_table(t, p),
    "feather": lambda t, p: pyarrow.feather.write_feather(t, p),
    "feather v1": lambda t, p: pyarrow.feather.write_feather(t, p, version=1),
    "arrow stream": lambda t, p: _write_stream(t, p),
}


def _write_stream(table, path) -> None:
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)


@pytest.mark.parametrize("fmt", list(WRITERS))
@pytest.mark.parametrize("names", ["ir-measures", "PyTerrier"])
def test_parquet_and_arrow_runs_and_qrels(synthetic_files, tmp_path, fmt, names):
    with pytest.warns(ir_cwla.DuplicateWarning):
        want = cio.read_trec_run(synthetic_files.runs["duplicates"])
    raw = cio.read_trec_run(synthetic_files.runs["duplicates"], check=False)
    qrels = cio.read_trec_qrels(synthetic_files.qrels)
    renames = {"query_id": "qid", "doc_id": "docno", "relevance": "label"} if names == "PyTerrier" else {}
    run_path, qrels_path = tmp_path / "run.bin", tmp_path / "qrels.bin"       # recognised by their bytes
    WRITERS[fmt](pa.Table.from_pandas(raw.rename(columns=renames), preserve_index=False), run_path)
    WRITERS[fmt](pa.Table.from_pandas(qrels.rename(columns=renames).assign(iteration="0"), preserve_index=False),
                 qrels_path)
    with pytest.warns(ir_cwla.DuplicateWarning, match=f"{run_path}: .* duplicate line"):
        got = cio.read_trec_run(run_path)
    _same_values(got, want)
    _same_values(cio.read_trec_qrels(qrels_path), qrels)
    assert cio.is_checked_run(got)
    with pytest.warns(ir_cwla.DuplicateWarning):
        values = ir_cwla.meta.evaluate({"r": run_path}, qrels_path, ["P@10", "RBP_ERG@10"], progress=False,
                                       missing_topics="ignore")
    with pytest.warns(ir_cwla.DuplicateWarning):
        trec = ir_cwla.meta.evaluate({"r": synthetic_files.runs["duplicates"]}, synthetic_files.qrels,
                                     ["P@10", "RBP_ERG@10"], progress=False, missing_topics="ignore")
    pd.testing.assert_frame_equal(values, trec)


def _table_file(tmp_path, frame: pd.DataFrame):
    path = tmp_path / "t.parquet"
    frame.to_parquet(path, index=False)
    return path


@pytest.mark.parametrize("frame, reader, message", [
    (pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"], "score": [1.0, np.nan, 2.0]}), "run",
     r"run file .*t.parquet, row 2: score nan is not finite for topic '1', document 'b' \(1 such rows\)"),
    (pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"], "score": [1.0, 2.0, np.inf]}), "run",
     r"row 3: score inf is not finite"),
    (pd.DataFrame({"query_id": ["1", "all"], "doc_id": ["a", "b"], "score": [1.0, 2.0]}), "run",
     r"run file .*t.parquet, row 2: topic id 'all' is reserved"),
    (pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", None], "score": [1.0, 2.0]}), "run",
     r"run file .*t.parquet, row 2: doc_id is missing \(null\)"),
    (pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "score": ["high"]}), "run",
     r"run file .*t.parquet: column 'score' holds .*, not numbers"),
    (pd.DataFrame({"query_id": ["1"], "docid": ["a"], "score": [1.0]}), "run",
     r"run file .*t.parquet lacks columns \['doc_id'\] .* qid, docno, score \(PyTerrier\)"),
    (pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [2.0, 1.5]}), "qrels",
     r"qrels file .*t.parquet, row 2: grade of topic '1', document 'b' 1.5 is not an integer"),
    (pd.DataFrame({"query_id": ["1", "x y"], "doc_id": ["a", "b"], "relevance": [2, 1]}), "qrels",
     r"qrels file .*t.parquet, row 2: topic id 'x y' is empty or contains whitespace"),
    (pd.DataFrame({"query_id": pd.Series([], dtype=str), "doc_id": pd.Series([], dtype=str),
                   "relevance": pd.Series([], dtype=int)}), "qrels", r"hold no judgments"),
])
def test_table_errors_name_the_file_and_row(tmp_path, frame, reader, message):
    path = _table_file(tmp_path, frame)
    with pytest.raises(InputError, match=message):
        (cio.as_run_frame if reader == "run" else cio.as_qrels_frame)(path)


def test_a_table_from_stdin_and_integer_ids(tmp_path, monkeypatch):
    import io as _io

    frame = pd.DataFrame({"qid": [1, 1, 2], "docno": [10, 11, 10], "score": [3, 2, 1]})
    path = _table_file(tmp_path, frame)
    monkeypatch.setattr("sys.stdin", _io.TextIOWrapper(_io.BytesIO(path.read_bytes())))
    got = cio.read_trec_run("-")
    assert got["query_id"].tolist() == ["1", "1", "2"] and got["doc_id"].tolist() == ["10", "11", "10"]
    assert got["score"].dtype == np.float64


# ------------------------------------------------------------------------- gzip through ISA-L or zlib

@pytest.fixture(params=["isal", "zlib"])
def inflater(request, monkeypatch):
    import zlib

    if request.param == "isal":
        from isal import isal_zlib

        monkeypatch.setattr(ir_cwla.io._textstream, "_INFLATE", isal_zlib)
        monkeypatch.setattr(ir_cwla.io._textstream, "_INFLATE_ERRORS", ir_cwla.io._textstream._INFLATE_ERRORS + [isal_zlib.error])
    else:
        monkeypatch.setattr(ir_cwla.io._textstream, "_INFLATE", zlib)
    return request.param


def test_gzip_members_padding_and_damage(tmp_path, inflater, synthetic_files):
    text = synthetic_files.runs["graded"].read_bytes()
    text = gzip.decompress(text) if text[:2] == b"\x1f\x8b" else text
    cut = text.index(b"\n", len(text) // 3) + 1
    path = tmp_path / "run.gz"
    path.write_bytes(gzip.compress(text[:cut]) + b"\0\0" + gzip.compress(text[cut:]) + b"\0")   # as `cat a.gz b.gz`
    plain = tmp_path / "run"
    plain.write_bytes(text)
    pd.testing.assert_frame_equal(cio.read_trec_run(path), cio.read_trec_run(plain))
    damaged = bytearray(gzip.compress(text))
    damaged[-6] ^= 1                                                             # the CRC
    path.write_bytes(bytes(damaged))
    with pytest.raises(InputError, match=r"run file .*run.gz: gzip data is truncated or corrupt after \d+ complete"):
        cio.read_trec_run(path)
    path.write_bytes(gzip.compress(text)[:-100])
    with pytest.raises(InputError, match=r"gzip data is truncated or corrupt after \d+ complete line\(s\) "
                                         r"\(compressed file ended"):
        cio.read_trec_run(path)


def test_arrow_parses_in_the_calling_thread(synthetic_files, monkeypatch, arrow_only):
    """Arrow's CSV reader runs without its thread pool.

    With it, a process that exited right after a block Arrow refused was now and then aborted at
    shutdown (exit status 134; ir_cwla/io/_frames.py, ARROW_CHUNK_BYTES).
    """
    import pyarrow.csv as pacsv

    seen = []
    read_csv = pacsv.read_csv

    def recording(*args, read_options=None, **kwargs):
        seen.append(read_options.use_threads)
        return read_csv(*args, read_options=read_options, **kwargs)

    monkeypatch.setattr(pacsv, "read_csv", recording)
    cio.read_trec_run(next(iter(synthetic_files.runs.values())))
    assert seen and not any(seen)


def test_freed_memory_is_handed_back_only_after_a_large_input(synthetic_files, monkeypatch):
    """An input of less than TRIM_AFTER_BYTES leaves its freed memory to the next read; a larger one trims."""
    trims = []
    monkeypatch.setattr(_frames, "_MALLOC_TRIM", lambda pad: trims.append(pad))
    path = synthetic_files.runs["graded"]
    size = len(gzip.decompress(path.read_bytes())) if str(path).endswith(".gz") else path.stat().st_size
    small = cio.read_trec_run(path)
    assert size < _frames.TRIM_AFTER_BYTES and trims == []
    monkeypatch.setattr(_frames, "TRIM_AFTER_BYTES", size // 2)
    large = cio.read_trec_run(path)
    assert len(trims) >= 2              # after the block that passed the threshold, and after joining the blocks
    _same_values(large, small)
