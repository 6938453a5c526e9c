"""The TREC readers.

The readers: one read of any stream, errors that name file and line, one duplicate policy,
grades and topic ids validated once (each defect of the fuzzing pass in issue 9 has a case).
"""
from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import threading
import warnings
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest

import ir_cwla
from ir_cwla import CWLA
from ir_cwla import io as cio
from ir_cwla.errors import InputError

RUN = "1 Q0 a 1 2.5 tagA\n1 Q0 b 2 1.0 tagA\n2 Q0 c 1 3.0 tagA\n"
QRELS = "1 0 a 2\n1 0 b 0\n2 0 c 1\n"
EXPECTED_RUN = [("1", "a", 2.5), ("1", "b", 1.0), ("2", "c", 3.0)]
COMPRESS = {"plain": lambda b: b, "gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}


def _rows(df: pd.DataFrame) -> list[tuple]:
    return list(df.itertuples(index=False, name=None))


@pytest.mark.parametrize("codec", list(COMPRESS))
def test_every_compression_is_recognised_from_the_bytes_not_the_name(tmp_path, codec):
    path = tmp_path / "run.txt"             # the name says nothing about the compression
    path.write_bytes(COMPRESS[codec](RUN.encode()))
    run = cio.read_trec_run(path)
    assert _rows(run) == EXPECTED_RUN and run.attrs["run_tag"] == "tagA"
    qpath = tmp_path / "qrels.bin"
    qpath.write_bytes(COMPRESS[codec](QRELS.encode()))
    assert _rows(cio.read_trec_qrels(qpath)) == [("1", "a", 2), ("1", "b", 0), ("2", "c", 1)]


def test_a_fifo_is_read_once(tmp_path):
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)

    def write():
        with open(fifo, "wb") as f:
            f.write(bz2.compress(RUN.encode()))

    writer = threading.Thread(target=write)
    writer.start()
    run = cio.read_trec_run(fifo)
    writer.join(10)
    assert _rows(run) == EXPECTED_RUN


def test_a_pipe_that_delivers_a_byte_at_a_time(tmp_path):
    """The compression is sniffed from the first bytes however the pipe delivers them."""
    class Trickle(io.RawIOBase):
        def __init__(self, data: bytes):
            self.data = data

        def readable(self):
            return True

        def readinto(self, b):
            if not self.data:
                return 0
            b[:1], self.data = self.data[:1], self.data[1:]
            return 1

    run = cio.read_trec_run(Trickle(lzma.compress(RUN.encode())))
    assert _rows(run) == EXPECTED_RUN


def test_stdin_is_named_in_errors(monkeypatch):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"1 Q0 a 1 2.5 t\n1 Q0 b 2 high t\n")))
    with pytest.raises(InputError, match=r"^malformed run file: <stdin>:2: field 5 \(score\) is not a number: 'high'$"):
        cio.read_trec_run("-")


def test_large_blocks_keep_line_numbers(tmp_path, monkeypatch):
    """Lines are read in blocks; an error deep in a later block still names its line."""
    monkeypatch.setattr(ir_cwla.io._textstream, "BLOCK_BYTES", 64)
    lines = [f"{q} Q0 d{i} {i} {100 - i} t" for q in range(1, 4) for i in range(30)]
    lines[77] = lines[77].replace(" t", "")
    path = tmp_path / "run.gz"
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    with pytest.raises(InputError, match=rf"{path}:78: expected 6 whitespace-separated fields, found 5"):
        cio.read_trec_run(path)
    lines[77] = lines[78]                  # repaired: a duplicate now, across two blocks
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    with pytest.warns(ir_cwla.DuplicateWarning, match="1 duplicate line"):
        assert len(cio.read_trec_run(path)) == 89


BAD_RUNS = {
    "five fields (no tag)": (b"1 Q0 a 1 2.0\n", r":1: expected 6 whitespace-separated fields, found 5"),
    "no Q0": (b"1 a 1 2.0 t\n", r":1: expected 6 whitespace-separated fields, found 5"),
    "five fields later": (b"1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0\n", r":2: expected 6 .* found 5"),
    "score a word": (b"1 Q0 a 1 2.0 t\n\n1 Q0 b 2 high t\n", r":3: field 5 \(score\) is not a number: 'high'"),
    "score nan": (b"1 Q0 a 1 nan t\n", r":1: score 'nan' of topic '1', document 'a' is not a finite number"),
    "score inf": (b"1 Q0 a 1 -inf t\n", r":1: score '-inf' .* is not a finite number"),
    "score overflows": (b"1 Q0 a 1 1e400 t\n", r":1: score '1e400' of topic '1' overflows a float64"),
    "topic all": (b"all Q0 a 1 1 t\n", r":1: topic id 'all' is reserved for summary lines"),
    "latin-1": (b"caf\xe9 Q0 a 1 1 t\n", r":1: not UTF-8 text \(byte 0xe9 at column 4\)"),
    "utf-16": ("1 Q0 a 1 1 t\n".encode("utf-16"), r":1: UTF-16 text; TREC run files are UTF-8"),
    "binary": (b"\x7fELF\x02\x01\x01\x00\x00\x00", r":1: binary data \(a NUL byte\)"),
    "truncated gzip": (gzip.compress(RUN.encode() * 50)[:60], r"gzip data is truncated or corrupt"),
    "corrupt bzip2": (b"BZh9" + b"\x00" * 40, r"bzip2 data is truncated or corrupt"),
    "zstd": (b"\x28\xb5\x2f\xfd\x00\x00", r"is zstd-compressed, which ir_cwla does not read: zstd -dc"),
}


BAD_QRELS = {
    "fractional grade": (b"1 0 a 1.5\n", r":1: field 4 \(grade\) is not an integer: '1.5'"),
    "float-spelled grade": (b"1 0 a 2\n1 0 b 2.0\n", r":2: field 4 \(grade\) is not an integer: '2.0'"),
    "exponent grade": (b"1 0 a 3e+09\n", r":1: field 4 \(grade\) is not an integer: '3e\+09'"),
    "overflowing grade": (b"1 0 a 99999999999999999999\n", r":1: field 4 \(grade\) 99999999999999999999 is out "
                                                            r"of the int64 range"),
    "run as qrels": (RUN.encode(), r":1: expected 4 whitespace-separated fields, found 6"),
    "empty": (b"", r"hold no judgments"),
    "blank lines only": (b"\n  \n", r"hold no judgments"),
}


@pytest.mark.parametrize("kind, case", [("run", c) for c in BAD_RUNS] + [("qrels", c) for c in BAD_QRELS])
def test_bad_inputs_name_file_and_line(tmp_path, kind, case):
    data, message = (BAD_RUNS if kind == "run" else BAD_QRELS)[case]
    path = tmp_path / f"bad.{kind}"
    path.write_bytes(data)
    reader = cio.read_trec_run if kind == "run" else cio.read_trec_qrels
    with pytest.raises(InputError, match=str(path).replace(".", r"\.") + ".*" + message):
        reader(path)


def test_open_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="run file not found: .*missing.run"):
        cio.read_trec_run(tmp_path / "missing.run")
    with pytest.raises(InputError, match="run path is a directory, not a file"):
        cio.read_trec_run(tmp_path)
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    with pytest.raises(InputError, match=r"dangling is a broken symbolic link \(to .*nowhere\)"):
        cio.read_trec_run(tmp_path / "dangling")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    with pytest.raises(InputError, match="cannot open run file .*loop: Too many levels of symbolic links"):
        cio.read_trec_run(tmp_path / "loop")


def test_crlf_bom_and_blank_lines_are_read(tmp_path):
    path = tmp_path / "run"
    path.write_bytes(b"\xef\xbb\xbf" + RUN.replace("\n", "\r\n\r\n").encode())
    assert _rows(cio.read_trec_run(path)) == EXPECTED_RUN


def test_same_values_as_ir_measures_reader(dl19_run_paths, dl19_qrels_path):
    for path in dl19_run_paths[:5]:
        ours = cio.read_trec_run(path)
        theirs = [(r.query_id, r.doc_id, r.score) for r in ir_measures.read_trec_run(str(path))]
        assert _rows(ours) == theirs
    theirs = [(r.query_id, r.doc_id, r.relevance) for r in ir_measures.read_trec_qrels(str(dl19_qrels_path))]
    assert _rows(cio.read_trec_qrels(dl19_qrels_path)) == theirs


# ------------------------------------------------------------------------- duplicates: one policy

def test_run_duplicates_keep_the_best_scored_line_with_one_warning():
    run = pd.DataFrame({"query_id": ["1", "1", "1", "1", "2"], "doc_id": ["a", "b", "a", "a", "a"],
                        "score": [1.0, 5.0, 3.0, 2.0, 1.0]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = cio.as_run_frame(run, name="myrun")
        again = cio.as_run_frame(out, name="myrun")          # a checked frame is not checked twice
    assert [str(w.message) for w in caught] == [
        "myrun: 2 duplicate line(s) of a (topic, doc_id) dropped, the best-scored occurrence kept "
        "(first: topic '1', doc_id 'a')"]
    assert _rows(out) == [("1", "b", 5.0), ("1", "a", 3.0), ("2", "a", 1.0)]
    assert again is out


def test_float32_ties_between_duplicates_keep_the_larger_float64_score():
    run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "a"], "score": [1.0, 1.0 + 1e-12]})
    with pytest.warns(ir_cwla.DuplicateWarning):
        assert _rows(cio.as_run_frame(run)) == [("1", "a", 1.0 + 1e-12)]


def test_qrels_duplicates_keep_the_last_line_and_warn_on_conflicts_only(tmp_path):
    path = tmp_path / "qrels"
    path.write_text("1 0 a 2\n1 0 b 1\n1 0 a 0\n1 0 b 1\n1 0 c 3\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        qrels = cio.read_trec_qrels(path)
    assert [str(w.message) for w in caught] == [
        f"qrels {path}: 1 (topic, doc_id) pair(s) judged more than once with different grades; the last line "
        "kept, as trec_eval does (first: topic '1', doc_id 'a', grades 2, 0)"]
    assert _rows(qrels) == [("1", "a", 0), ("1", "b", 1), ("1", "c", 3)]    # each at its last line


def test_trec_eval_and_cwla_agree_on_a_run_with_duplicates(tmp_path):
    """The issue's case: P@10 (trec_eval) and its CWLA form disagreed (0.5 vs 0.7) on one table."""
    qrels = pd.DataFrame({"query_id": ["1"] * 7, "doc_id": list("abcdefg"), "relevance": [1] * 7})
    docs = list("abcdefghij")
    lines = [f"1 Q0 {d} {i + 1} {20 - i} r" for i, d in enumerate(docs)]
    lines += [f"1 Q0 {d} {11 + i} {-i} r" for i, d in enumerate("abcdefgh")]      # worse duplicates, later
    path = tmp_path / "dup.run"
    path.write_text("\n".join(lines) + "\n")
    with pytest.warns(ir_cwla.DuplicateWarning, match="8 duplicate"):
        got = ir_cwla.meta.evaluate({"dup": path}, qrels, ["P@10", CWLA(C="P", A="ERG", gain="bin") @ 10],
                                    progress=False)
    assert got["value"].tolist() == [0.7, 0.7]


# ------------------------------------------------------------------------- grades and topic ids

@pytest.mark.parametrize("grades, message", [
    ([2, 1.5], r"grade of topic '1', document 'b' 1.5 is not an integer"),
    ([2, np.nan], r"grade of topic '1', document 'b' is not a finite number"),
    ([2, 2.0 ** 64], r"grade of topic '1', document 'b' 1.8446744073709552e\+19 is out of the int64 range"),
    (["2", "x"], r"grade of topic '1', document 'b' is not an integer: 'x'"),
    ([2, "1.5"], r"is not an integer: '1.5'"),
    (np.array([2, 2 ** 63], dtype=np.uint64), r"9223372036854775808 is out of the int64 range"),
])
def test_frame_grades_are_validated_too(grades, message):
    qrels = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": grades})
    with pytest.raises(InputError, match=message):
        cio.as_qrels_frame(qrels)


def test_integral_grades_become_int64_and_huge_ones_are_kept():
    qrels = cio.as_qrels_frame(pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "label": [2.0, 2.0 ** 62]}))
    assert qrels["relevance"].dtype == np.int64 and qrels["relevance"].tolist() == [2, 2 ** 62]


@pytest.mark.parametrize("qid", ["all", "a b", "x\ty", "", "line\nbreak"])
def test_topic_ids_that_collide_with_output_are_refused(qid):
    run = pd.DataFrame({"query_id": ["1", qid], "doc_id": ["a", "b"], "score": [1.0, 2.0]})
    with pytest.raises(InputError, match="topic id"):
        cio.as_run_frame(run)
    with pytest.raises(InputError, match="topic id"):
        cio.as_qrels_frame(run.rename(columns={"score": "relevance"}).astype({"relevance": int}))


def test_trec_eval_grade_bound_applies_only_to_trec_eval_measures(tmp_path):
    qrels = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"],
                          "relevance": [2 ** 62, 1, ir_cwla.provider.TREC_EVAL_MAX_GRADE + 1]})
    run = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]})
    with pytest.raises(InputError, match=r"grade 4611686018427387904 is above 65536, .* trec_eval here: P@10"):
        ir_cwla.meta.evaluate({"r": run}, qrels, ["P@10", "RBP_ERG@10"], progress=False)
    two = {"r": run, "s": run.assign(score=[1.0, 2.0, 1.0])}
    for analysis in (ir_cwla.meta.incompleteness, ir_cwla.meta.pooling_bias):   # the same rule when re-scoring
        with pytest.raises(InputError, match=r"grade 4611686018427387904 is above 65536, .* trec_eval here: P@10"):
            analysis(two, qrels, ["P@10", "RBP_ERG@10"], progress=False)
    got = ir_cwla.meta.evaluate({"r": run}, qrels, ["RBP_ERG@10", "CWLA(C='P', A='ERG', rel=1)@10"], progress=False)
    assert np.isfinite(got["value"]).all() and (got["value"] > 0).all()
    ok = qrels.assign(relevance=[ir_cwla.provider.TREC_EVAL_MAX_GRADE, 1, 1])
    assert len(ir_cwla.meta.evaluate({"r": run}, ok, ["P@10"], progress=False)) == 2


# ------------------------------------------------------------------------- depth

def test_top_ranked_is_trec_eval_minus_M(dl19_qrels_path, dl19_dir):
    """-M 10 then AP equals trec_eval's map_cut_10 (AP@10), ties (UNH_bm25) included."""
    qrels = cio.read_trec_qrels(dl19_qrels_path)
    for name in ("UNH_bm25", "bm25base_p", "ICT-BERT2"):
        run = cio.read_trec_run(dl19_dir / "runs" / f"input.{name}.gz")
        cut = cio.top_ranked(run, 10)
        assert cut.groupby("query_id").size().max() == 10
        full = ir_measures.calc_aggregate([ir_measures.AP(rel=2) @ 10], qrels, run)
        truncated = ir_measures.calc_aggregate([ir_measures.AP(rel=2)], qrels, cut)
        assert truncated[ir_measures.AP(rel=2)] == pytest.approx(full[ir_measures.AP(rel=2) @ 10], abs=1e-12)


def test_top_ranked_breaks_ties_by_doc_id_descending():
    run = pd.DataFrame({"query_id": ["1"] * 4, "doc_id": ["a", "c", "b", "d"], "score": [1.0, 1.0, 1.0, 0.5]})
    assert sorted(cio.top_ranked(run, 2)["doc_id"]) == ["b", "c"]


def test_readers_take_paths_as_path_objects(tmp_path: Path):
    (tmp_path / "r").write_text(RUN)
    assert _rows(cio.as_run_frame(tmp_path / "r")) == EXPECTED_RUN


def test_ranking_a_frame_applies_the_readers_rules():
    """Ranking a frame applies the readers' rules.

    gains.rank_run given a frame that io did not check refuses what io refuses (a NaN score
    is not silently ranked last) and keeps each (topic, doc_id) once, as every other path.
    """
    from ir_cwla.scoring import Qrels, rank_run

    qrels = Qrels(pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [1, 2]}))
    with pytest.raises(InputError, match="score"):
        rank_run(pd.DataFrame({"query_id": ["1"] * 3, "doc_id": ["a", "b", "c"], "score": [np.nan, 1.0, 0.5]}),
                 qrels, name="r")
    with pytest.warns(UserWarning, match="duplicate"):
        ranked = rank_run(pd.DataFrame({"query_id": ["1"] * 3, "doc_id": ["a", "b", "a"], "score": [0.1, 1.0, 2.0]}),
                          qrels, name="r")
    assert ranked.judgments.tolist() == [0, 1]      # a (best score 2.0) first, then b
