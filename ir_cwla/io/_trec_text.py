r"""Clean TREC run and qrels files read straight into checked columns, without pandas.

A command such as ``ir-cwla eval QRELS RUN -m nDCG@10`` spends more time importing pandas
(0.4-0.5 s) than ir_measures spends on its whole command. This reader lets it score files
without pandas: it reads a file only when *no rule of* :mod:`ir_cwla.io` *has anything to
say about it*, and returns None otherwise, so that the general reader reads it and applies
the rule (its error, warning or repair). It never raises for a file's content and never
decides anything :mod:`ir_cwla.io` decides otherwise; the tests read every file it takes
with both readers and compare the values.

A file is taken when all of this holds (anything else is None):

* a regular file (not ``-``, ``/dev/...``, a pipe or a named source), plain or compressed as
  :func:`ir_cwla.io.open_input` recognises, at most :data:`MAX_BYTES` of text;
* ASCII text without control characters other than tab and newline (so no ``\r``, no
  BOM, no NUL), no ``#`` (comment lines are the general reader's), at least one line;
* every line has exactly the fields of its kind (6 for a run, 4 for qrels), separated by
  one space or one tab, no blank line, no leading or trailing whitespace;
* run scores are spelled with digits, signs, ``.`` and ``e`` only, grades with digits only
  (what this reader converts exactly);
* no rule of :mod:`ir_cwla.io._rules` finds anything to say about the columns (:func:`ir_cwla.io._rules.is_clean`:
  no topic id ``all``, finite scores, ...); it asks the table, as every reader does, and
  restates none of them;
* each (topic, doc_id) once (:func:`ir_cwla.io._rules.pairs_once`).

Then the columns are what :func:`ir_cwla.io.read_trec_run` / :func:`ir_cwla.io.read_trec_qrels`
would hold: file order, the run tag of the first line, ``source`` the file's name.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ir_cwla.io import _rules
from ir_cwla.io._columns import RUN_TAG_ATTR, SOURCE_ATTR, QrelsColumns, RunColumns
from ir_cwla.io._textstream import STDIN, open_input

MAX_BYTES = 32 << 20
"""The largest text (after decompression) read here; beyond it the general reader's parser,
which runs on several threads, is the faster."""

SPLIT_CHARS = 1 << 17
"""The text :func:`_fields` splits at a time (whole lines: up to the line end past this many characters)."""

_SCORE_CHARS = b"0123456789+-.eE\n"
_GRADE_CHARS = b"0123456789\n"
#: bytes of clean text: printable ASCII, tab, newline
_CLEAN = bytes([9, 10, *range(0x20, 0x7F)])
_FORBIDDEN = b"#"
#: 1 for a field separator (space, tab), 2 for a line end, 0 for any other byte
_DELIMITER = np.zeros(256, dtype=np.uint8)
_DELIMITER[[9, 32]] = 1
_DELIMITER[10] = 2


def _text(spec: Any, kind: str) -> Optional[tuple[bytes, str]]:
    """``(text, name)`` of a regular file that may be clean (ASCII, no control byte, no ``#``), else None."""
    if not isinstance(spec, str) or spec == STDIN or spec.startswith(("/dev/", "/proc/")):
        return None                 # (a stream, read once, may look like a regular file: /dev/stdin < file)
    import os
    import stat

    try:
        if not stat.S_ISREG(os.stat(spec).st_mode):
            return None
    except (OSError, ValueError):
        return None
    with open_input(spec, kind) as (stream, name, compression):
        if compression not in ("none", "gzip", "bzip2", "xz"):
            return None
        try:
            data = stream.read(MAX_BYTES + 1)
        except Exception:          # corrupt or truncated: the general reader says where
            return None
    if not data or len(data) > MAX_BYTES or data.translate(None, _CLEAN) or _FORBIDDEN in data:
        return None
    return data, name


def _fields(data: bytes, width: int, wanted: tuple[int, ...]) -> Optional[dict[int, list[str]]]:
    """The fields ``wanted`` (numbered from 0) of every line, or None unless each line has exactly ``width``.

    Clean text (:func:`_text`) has no byte below 33 but tab, newline and space, so those are
    the delimiters: in order they must be ``width - 1`` separators and a line end, line after
    line (the last line end may be missing), and no two may touch (an empty field, a blank
    line, leading or trailing whitespace). The text is split a block of lines at a time
    (:data:`SPLIT_CHARS`), so that the fields not wanted are freed as it goes (10 MB less and a
    fifth less time for a DL19 run than one split of the whole text).
    """
    codes = np.frombuffer(data, dtype=np.uint8)
    delimiter = codes <= 32
    if delimiter[0] or (delimiter[-1] and codes[-1] != 10) or (delimiter[1:] & delimiter[:-1]).any():
        return None
    ends = codes[delimiter] == 10
    if codes[-1] != 10:                       # the last line without its line end
        ends = np.r_[ends, True]
    if len(ends) % width:
        return None
    table = ends.reshape(-1, width)
    if not table[:, -1].all() or table[:, :-1].any():
        return None
    text = data.decode("ascii")
    out: dict[int, list[str]] = {k: [] for k in wanted}
    start = 0
    while start < len(text):
        end = text.find("\n", start + SPLIT_CHARS) + 1 or len(text)
        fields = text[start:end].split()
        for k in wanted:
            out[k] += fields[k::width]
        start = end
    return out


def _objects(items: list[str]) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


def read_run(spec: Any, element_type: bool = False, check: bool = True) -> Optional[RunColumns]:
    """A clean TREC run file (6 fields) as checked columns, or None (the general reader's).

    ``element_type`` keeps the second field; ``check=False`` takes a file that lists a doc_id
    twice for a topic too, every line kept (as :func:`ir_cwla.io.read_trec_run` with
    ``check=False``: ``ir-cwla cwl`` scores lines in file order, as cwl_eval does).
    """
    read = _text(spec, "run")
    if read is None:
        return None
    data, name = read
    fields = _fields(data, _rules.FIELDS["run"], (0, 1, 2, 4) if element_type else (0, 2, 4))
    if fields is None:
        return None
    topics, docs, scores = fields[0], fields[2], fields[4]
    distinct = set(topics)
    # with only these characters, float() reads exactly the decimal numbers of the score rule
    if "\n".join(scores).encode("ascii").translate(None, _SCORE_CHARS):
        return None
    try:
        values = np.array(list(map(float, scores)), dtype=np.float64)
    except ValueError:
        return None
    if not _rules.is_clean(_rules.Block("run", _rules.FIELDS["run"], topics=distinct, scores=values, docs=docs)):
        return None
    topic_ids = _objects(topics)
    if check and not _rules.pairs_once(topic_ids, docs, len(distinct)):
        return None
    return RunColumns(topic_ids, _objects(docs), values, _objects(fields[1]) if element_type else None,
                      {RUN_TAG_ATTR: data.split(b"\n", 1)[0].split()[5].decode("ascii"), SOURCE_ATTR: name})


def read_qrels(spec: Any) -> Optional[QrelsColumns]:
    """A clean TREC qrels file (4 fields) as checked columns, or None (the general reader's)."""
    read = _text(spec, "qrels")
    if read is None:
        return None
    data, name = read
    fields = _fields(data, _rules.FIELDS["qrels"], (0, 2, 3))
    if fields is None:
        return None
    topics, docs, grades = fields[0], fields[2], fields[3]
    distinct, topic_ids = set(topics), _objects(topics)
    if "\n".join(grades).encode("ascii").translate(None, _GRADE_CHARS) or max(map(len, grades)) > 18:
        return None                  # (digits only, fewer than 19: what int64 holds exactly)
    if not _rules.is_clean(_rules.Block("qrels", _rules.FIELDS["qrels"], topics=distinct, grades=lambda: sorted(set(grades)), docs=docs)) \
            or not _rules.pairs_once(topic_ids, docs, len(distinct)):
        return None
    return QrelsColumns(topic_ids, _objects(docs), np.array(grades, dtype=np.int64), {SOURCE_ATTR: name})
