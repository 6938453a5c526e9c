"""One table of reading rules (issue 28): every reader asks ``ir_cwla/io/_rules.py`` and restates nothing.

The readers of TREC text: Arrow's CSV reader (space- or tab-separated blocks), pandas' C reader
(any whitespace; Arrow absent), the line scan (what both hand over), the pandas-free reader of
the command line (:mod:`ir_cwla.io._trec_text`, which takes a file or returns None) and the
command line itself (``ir-cwla eval``, which tries that reader first). Each is driven here on
its own, the others switched off, so that a rule a reader did not consult would let a bad file
through that reader.
"""
from __future__ import annotations

import inspect
import warnings
from pathlib import Path
from typing import Callable, Optional

import numpy as np
import pandas as pd
import pytest

import ir_cwla
from ir_cwla import io as cio
from ir_cwla.app.cli import main
from ir_cwla.errors import InputError
from ir_cwla.io import _frames, _rules, _trec_text

RUN = "1 Q0 a 1 2.5 tagA\n1 Q0 b 2 1.0 tagA\n2 Q0 c 1 3.0 tagA\n"
QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 2\n"


def _arrow(monkeypatch) -> None:
    """Arrow reads every block (a block it hands on is a failure: the line scan is not reached by pandas)."""
    def refuse(block, first_line, name, fmt):
        raise AssertionError("Arrow handed the block on")
    monkeypatch.setattr(_frames, "_pandas_block", lambda *a: _frames._scan_block(*a) if _suspect(*a) else refuse(*a))


def _suspect(block, first_line, name, fmt) -> bool:
    """Arrow may hand on only a block that breaks a rule (or any, for a rule without a block check)."""
    return any(rule.clean is None for rule in _rules.RULES) or any(_rules.line_problem([f.decode() for f in line.split()], fmt.kind)
               for line in block.split(b"\n") if line.split())


def _pandas(monkeypatch) -> None:
    monkeypatch.setattr(_frames, "_ARROW", False)


def _scan(monkeypatch) -> None:
    monkeypatch.setattr(_frames, "_ARROW", False)
    monkeypatch.setattr(_frames, "_pandas_block", _frames._scan_block)


GENERAL = {"arrow": _arrow, "pandas": _pandas, "line scan": _scan}
"""The readers of :func:`ir_cwla.io.read_trec_run`, each made the only one that reads a block."""


def _message(read: Callable[[], object]) -> Optional[str]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ir_cwla.DuplicateWarning)
            read()
    except InputError as ex:
        return str(ex)
    return None


def messages(monkeypatch, capsys, path: Path, kind: str, good_other: Path) -> dict[str, Optional[str]]:
    """The error each reader gives for ``path`` (None: it read the file), and what the command line says."""
    read = cio.read_trec_run if kind == "run" else cio.read_trec_qrels
    out: dict[str, Optional[str]] = {}
    for name, only in GENERAL.items():
        with monkeypatch.context() as m:
            only(m)
            out[name] = _message(lambda: read(path))
    fast = _trec_text.read_run(str(path)) if kind == "run" else _trec_text.read_qrels(str(path))
    out["trec_text takes it"] = None if fast is None else "taken"
    qrels, run = (good_other, path) if kind == "run" else (path, good_other)
    code = main(["eval", str(qrels), str(run), "-m", "P@1"])
    err = capsys.readouterr().err.strip()
    out["command line"] = err.removeprefix("ir-cwla eval: error: ") if code else None
    return out


# ------------------------------------------------------------------------- every rule's message, every reader

BAD = [
    ("run", "2 Q0 c 1 3.0\n", "expected 6 whitespace-separated fields, found 5: '2 Q0 c 1 3.0'"),
    ("run", "all Q0 c 1 3.0 t\n", "topic id 'all' is reserved for summary lines (trec_eval, ir-measures); "
                                  "rename the topic"),
    ("run", "2 Q0 c 1 high t\n", "field 5 (score) is not a number: 'high'"),
    ("run", "2 Q0 c 1 nan t\n", "score 'nan' of topic '2', document 'c' is not a finite number"),
    ("run", "2 Q0 c 1 -Infinity t\n", "score '-Infinity' of topic '2', document 'c' is not a finite number"),
    ("run", "2 Q0 c 1 1e400 t\n", "score '1e400' of topic '2' overflows a float64"),
    ("qrels", "2 0 c 1.5\n", "field 4 (grade) is not an integer: '1.5'"),
    ("qrels", "2 0 c 99999999999999999999\n", "field 4 (grade) 99999999999999999999 is out of the int64 range "
                                              "(|grade| < 2^63)"),
    ("qrels", "2 0 c 1 x\n", "expected 4 whitespace-separated fields, found 5: '2 0 c 1 x'"),
    ("qrels", "all 0 c 1\n", "topic id 'all' is reserved for summary lines (trec_eval, ir-measures); rename the topic"),
]


@pytest.fixture
def files(tmp_path):
    (tmp_path / "good.run").write_text(RUN)
    (tmp_path / "good.qrels").write_text(QRELS)
    return tmp_path


@pytest.mark.parametrize("kind, line, problem", BAD, ids=[p for _, _, p in BAD])
@pytest.mark.parametrize("separator", [" ", "\t"])
def test_every_reader_names_the_same_file_line_and_problem(files, monkeypatch, capsys, kind, line, problem, separator):
    """Line 3 of a file breaks one rule: every reader says so in the same words (the table's), naming file and line."""
    good = RUN if kind == "run" else QRELS
    path = files / f"bad.{kind}"
    path.write_text("".join(good.splitlines(keepends=True)[:2] + [line]).replace(" ", separator))
    fields = line.split()
    assert _rules.line_problem(fields, kind) == problem            # the message is the table's
    expected = f"malformed {kind} file: {path}:3: {problem}"
    got = messages(monkeypatch, capsys, path, kind, files / ("good.qrels" if kind == "run" else "good.run"))
    assert got == {"arrow": expected, "pandas": expected, "line scan": expected, "trec_text takes it": None,
                   "command line": expected}


def test_good_files_are_read_alike_by_every_reader(files, monkeypatch):
    frames = {}
    for name, only in GENERAL.items():
        with monkeypatch.context() as m:
            only(m)
            frames[name] = (cio.read_trec_run(files / "good.run"), cio.read_trec_qrels(files / "good.qrels"))
    for run, qrels in frames.values():
        pd.testing.assert_frame_equal(run, frames["arrow"][0])
        pd.testing.assert_frame_equal(qrels, frames["arrow"][1])
        assert run.attrs == frames["arrow"][0].attrs
    fast = _trec_text.read_run(str(files / "good.run"))
    assert fast is not None and fast.doc_id.tolist() == frames["arrow"][0]["doc_id"].tolist()
    assert np.array_equal(fast.score, frames["arrow"][0]["score"].to_numpy())


# ------------------------------------------------------------------------- a new rule is one edit

def _no_doc_nil(fields, kind) -> Optional[str]:
    return f"doc id {fields[2]!r} of topic {fields[0]!r} is reserved" if fields[2] == "NIL" else None


@pytest.mark.parametrize("clean", [lambda block: "NIL" not in block.docs, None], ids=["with a block check",
                                                                                    "line by line"])
@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_a_rule_added_to_the_table_reaches_every_reader(files, monkeypatch, capsys, clean, kind):
    """One entry of ``_rules.RULES`` (the one edit a new rule is): every reader refuses its line, in its words.

    With a block check (the fast readers ask it of a whole block) and without one (every block
    then goes to the line scan): the same message either way, and good files still read.
    """
    monkeypatch.setattr(_rules, "RULES", (*_rules.RULES, _rules.Rule("no NIL", ("run", "qrels"), _no_doc_nil, clean)))
    good = files / ("good.qrels" if kind == "run" else "good.run")
    path = files / f"bad.{kind}"
    text = RUN if kind == "run" else QRELS
    path.write_text(text.replace(" c ", " NIL "))
    expected = f"malformed {kind} file: {path}:3: doc id 'NIL' of topic '2' is reserved"
    assert messages(monkeypatch, capsys, path, kind, good) == {
        "arrow": expected, "pandas": expected, "line scan": expected, "trec_text takes it": None,
        "command line": expected}
    clean_file = files / f"clean.{kind}"
    clean_file.write_text(text)
    assert set(messages(monkeypatch, capsys, clean_file, kind, good).values()) == \
        ({None, "taken"} if clean is not None else {None})


def test_the_readers_restate_no_rule():
    """The rules' constants and checks appear in ``_rules`` alone: the readers ask the table."""
    for module in (_frames, _trec_text):
        source = inspect.getsource(module)
        assert "SUMMARY_QID" not in source and '"all"' not in source
        assert r"\d+\.?\d*" not in source                                 # the score's regular expression
        assert "reserved for summary" not in source and "whitespace-separated fields" not in source
        assert "is not an integer:" not in source


# ------------------------------------------------------------------------- fields after the sixth (trec_eval's rule)

@pytest.mark.parametrize("only", list(GENERAL))
def test_run_fields_after_the_sixth_are_ignored(files, monkeypatch, only):
    """trec_eval reads a run line up to its sixth field: the rest is ignored, by every reader; the tag is the sixth."""
    path = files / "extra.run"
    path.write_text("1 Q0 a 1 2.5 tagA more junk\n1\tQ0\tb\t2\t  1.0\ttagA  x\n2 Q0 c 1 3.0 tagA\n")
    with monkeypatch.context() as m:
        if only != "arrow":
            GENERAL[only](m)
        got = cio.read_trec_run(path, element_type=True)
    want = cio.read_trec_run(files / "good.run", element_type=True)
    pd.testing.assert_frame_equal(got, want)
    assert got.attrs[cio.RUN_TAG_ATTR] == "tagA"
    assert _trec_text.read_run(str(path)) is None        # the pandas-free reader leaves such files to these


def test_extra_fields_reach_the_scores(files, capsys):
    """A run with extra fields scores as the same run without them."""
    extra = files / "extra.run"
    extra.write_text("".join(line.rstrip("\n") + " x y\n" for line in RUN.splitlines(keepends=True)))
    outs = []
    for run in (files / "good.run", extra):
        assert main(["eval", str(files / "good.qrels"), str(run), "-m", "P@2", "-m", "nDCG@10"]) == 0
        outs.append([line for line in capsys.readouterr().out.splitlines() if not line.startswith("runid")])
    assert outs[0] == outs[1] and len(outs[0]) == 2


def test_qrels_keep_exactly_four_fields(files):
    """trec_eval's get_qrels calls a qrels line with a fifth field malformed; so does ir_cwla."""
    path = files / "five.qrels"
    path.write_text("1 0 a 1\n1 0 b 0 note\n")
    with pytest.raises(InputError, match=r"five.qrels:2: expected 4 whitespace-separated fields, found 5"):
        cio.read_trec_qrels(path)
