"""Reading runs and qrels: TREC files and streams, DataFrames, dicts, namedtuples, named sources.

Everything that enters ir_cwla passes through here and leaves as a pandas DataFrame with
the ir-measures column names (``query_id, doc_id, score`` for a run, ``query_id, doc_id,
relevance`` for qrels), checked and deduplicated by one set of rules, before any backend
(ours or trec_eval through ir-measures) sees it:

* **One read.** A TREC input is a path, ``-`` (stdin), ``/dev/stdin``, a process
  substitution or a FIFO, plain or compressed (gzip, bzip2, xz: recognised from its first
  bytes, not its name). It is read exactly once, as a stream, in blocks of lines
  (:mod:`ir_cwla.io._textstream`) parsed by pandas' C reader; an error names the file
  (``<stdin>`` for ``-``) and the line.
* **Lines.** The rules of a TREC line (its fields, its topic id, its score or grade) are
  :mod:`ir_cwla.io._rules`' table, which every reader here asks: Arrow's CSV reader and
  pandas' C reader ask it of a whole block (:func:`ir_cwla.io._rules.is_clean`) and hand a
  suspect block to the line scan (:func:`_scan_block`), which asks it of each line and names
  the first that breaks a rule. Text is UTF-8. A run's second field (``Q0``, the element type
  cwl_eval's cost files price) is kept only when asked for (``element_type``). Topic ids of
  tables and frames are checked by :func:`check_topic_ids`, grades by :func:`grades_as_int64`.
* **Duplicates, one policy for every backend.** A doc_id listed twice for a topic in a run
  keeps its best-scored line (score compared in float32 as trec_eval does, then the larger
  float64 score, then the earlier line), with one warning naming the run, the count and the
  first case (:func:`drop_duplicate_docs`). A (topic, doc_id) judged twice keeps its last
  line, as trec_eval does; judgments that disagree get one warning naming the qrels
  (:func:`drop_duplicate_judgments`).
* **Named sources.** ``irds:ID`` and other prefixes are read by the readers registered with
  :func:`register_source`; qrels checks that only a data set knows about (e.g. the raw
  Cranfield grades) are registered with :func:`register_qrels_check`. The engine itself
  knows no data set.
* **Without pandas.** :mod:`ir_cwla.io._trec_text` reads a file no rule here has anything to say
  about (clean text, no comment, no duplicate) into checked columns, for the command line; it
  hands every other file to these readers, so each rule is applied here alone.
* **trec_eval's grade limit.** trec_eval's time and memory grow with the largest grade, so
  grades above :data:`TREC_EVAL_MAX_GRADE` are refused when a measure computed by trec_eval
  (pytrec_eval) is asked for (:func:`check_grades_for_backends`); C/W/L/A measures take any
  int64 grade.
"""
from __future__ import annotations

import csv
import ctypes
import io
import os
import re
import warnings
import weakref
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional, Union

import numpy as np
import pandas as pd

from ir_cwla._text import shown
from ir_cwla.errors import DuplicateWarning, InputError, MissingDependencyError, ParameterError
from ir_cwla.io import _rules
from ir_cwla.io._columns import METADATA_ATTR, RUN_TAG_ATTR, SOURCE_ATTR
from ir_cwla.io._ordering import compared_scores, float32_scores, rank_score_values, trec_order
from ir_cwla.io._sources import QRELS_CHECKS, source_of
from ir_cwla.io._textstream import BLOCK_BYTES, TABLE_FORMATS, check_utf8, input_name, line_blocks, open_input

RUN_COLUMNS = ("query_id", "doc_id", "score")
"""The columns of a checked run frame, ir-measures' names (PyTerrier's ``qid, docno, score`` are read too)."""
ELEMENT_TYPE = "element_type"
"""A TREC run's second column (``Q0``): the type of each ranked element, which cwl_eval's
cost files price; kept only when asked for (``element_type=True``)."""
QREL_COLUMNS = ("query_id", "doc_id", "relevance")
"""The columns of a checked qrels frame, ir-measures' names (PyTerrier's ``qid, docno, label`` are read too)."""
PathLike = Union[str, "os.PathLike[str]"]

def source_name(run: Any, default: str = "run") -> str:
    """How messages name a run given without a name.

    The path of a file (``<stdin>`` for ``-``), the file a frame was read from
    (:data:`SOURCE_ATTR`) while it is unedited (:func:`is_checked_frame`: an edited frame
    is no longer the file's), else ``default``.
    """
    if isinstance(run, (str, os.PathLike)):
        return input_name(run)
    if not isinstance(run, pd.DataFrame) or not is_checked_frame(run):
        return default
    return _file_name(run, default)


def _file_name(frame: pd.DataFrame, default: str) -> str:
    """The file a checked frame was read from (:data:`SOURCE_ATTR`), else ``default``."""
    name = frame.attrs.get(SOURCE_ATTR)
    return str(name) if name else default


# ------------------------------------------------------------------------- TREC tables

@dataclass(frozen=True)
class _Format:
    kind: str                   # 'run' or 'qrels'
    fields: int                 # the fields of a line (the rules' :data:`ir_cwla.io._rules.FIELDS`)
    dtypes: dict[int, Any]      # of every field, for pandas' C reader
    keep: tuple[int, ...]       # the fields kept after the checks


# fields read as categories become strings once per distinct value, not once per line
_RUN = _Format("run", _rules.FIELDS["run"], {0: object, 1: "category", 2: object, 3: "category", 4: np.float64, 5: "category"},
               (0, 2, 4))
#: The same, keeping the second field (the element type cwl_eval's cost files price).
_RUN_TYPED = _Format("run", _RUN.fields, _RUN.dtypes, (0, 1, 2, 4))
_QRELS = _Format("qrels", _rules.FIELDS["qrels"], {0: object, 1: object, 2: object, 3: object}, (0, 2, 3))


def _scan_block(block: bytes, first_line: int, name: str, fmt: _Format) -> Optional[tuple[dict[int, Any], list]]:
    """The line scan: each line split at ASCII whitespace and asked the rules (:mod:`ir_cwla.io._rules`).

    The reader of the blocks the columnar parsers cannot take or that a rule's block check
    finds suspect: the first line that breaks a rule is an :class:`InputError` naming the file
    and line; otherwise the kept fields, as :func:`_pandas_block` returns them (None for a block
    of blank lines). Python, line by line: slow, and only for such blocks.
    """
    width = _rules.FIELDS[fmt.kind]
    rows: list[list[str]] = []
    first: Optional[list[str]] = None
    for offset, line in enumerate(block.split(b"\n")):
        fields = [f.decode("utf-8") for f in line.split()]
        if not fields:
            continue
        problem = _rules.line_problem(fields, fmt.kind)
        if problem:
            raise InputError(f"malformed {fmt.kind} file: {name}:{first_line + offset}: {problem}")
        first = fields if first is None else first
        rows.append(list(_rules.kept(fields, fmt.kind)))
    if first is None:
        return None
    by_field = {i: [row[i] for row in rows] for i in (0, *fmt.keep)}
    numbers: dict[str, int] = {}
    codes = np.fromiter((numbers.setdefault(t, len(numbers)) for t in by_field[0]), dtype=np.int64, count=len(rows))
    names = list(numbers)
    columns: dict[int, Any] = {0: _objects(names)[codes], _CODES: (codes, names), 2: _objects(by_field[2])}
    if 1 in fmt.keep:
        columns[1] = pd.Categorical(by_field[1])
    if 4 in fmt.keep:
        columns[4] = np.array([float(v) for v in by_field[4]], dtype=np.float64)
    if 3 in fmt.keep:
        columns[3] = _objects(by_field[3])
    assert len(first) >= width
    return columns, first


def _objects(items: list[str]) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


def _first_fields(block: bytes, first_line: int) -> int:
    """Number of fields of the block's first non-blank line (the width pandas infers)."""
    start = 0
    while start < len(block):
        end = block.find(b"\n", start)
        end = len(block) if end < 0 else end
        line = block[start:end]
        if first_line == 1 and start == 0 and line.startswith(b"\xef\xbb\xbf"):
            line = line[3:]
        fields = line.split()
        if fields:
            return len(fields)
        start = end + 1
    return 0


def _pandas_block(block: bytes, first_line: int, name: str, fmt: _Format) -> Optional[tuple[dict[int, Any], list]]:
    """One block of lines by pandas' C reader: the kept fields, topic ids one string per distinct value.

    The general path, which takes any whitespace; a block it cannot parse, or that the rules'
    block checks find suspect, goes to the line scan (:func:`_scan_block`), which names the
    line that breaks a rule. None for a block of blank lines.
    """
    width = _first_fields(block, first_line)
    if width == 0:
        return None
    df = None
    if width == fmt.fields:   # pandas takes the first line's width and refuses longer lines
        try:
            df = pd.read_csv(io.BytesIO(block), sep=r"\s+", header=None, dtype=fmt.dtypes, na_filter=False,
                             engine="c", quoting=csv.QUOTE_NONE, skip_blank_lines=True)
        except (ValueError, pd.errors.ParserError):
            df = None
    # pandas split lines where the rules do not (a lone carriage return), or a line was short
    if df is None or df.shape[1] != fmt.fields or (df[fmt.fields - 1] == "").any():
        return _scan_block(block, first_line, name, fmt)
    # one string object per distinct topic id of the block, not one per line
    codes, topics = pd.factorize(df[0])
    names = topics.to_numpy(dtype=object)
    frame = df
    view = _rules.Block(fmt.kind, fmt.fields, topics=lambda: names.tolist(), docs=lambda: frame[2].tolist(),
                        scores=lambda: frame[4].to_numpy() if fmt.kind == "run" else None,
                        grades=lambda: pd.unique(frame[3]).tolist() if fmt.kind == "qrels" else None)
    if not _rules.is_clean(view):
        return _scan_block(block, first_line, name, fmt)
    first = df.iloc[0].tolist()
    columns = {i: (df[i].array if i == 1 else df[i].to_numpy()) for i in fmt.keep}
    columns[0] = names[codes]
    columns[_CODES] = (codes, names.tolist())
    return columns, first


def release_freed_memory(read: Optional[int] = None) -> None:
    """Hands the C heap's freed memory back to the system (glibc's ``malloc_trim``; nothing elsewhere).

    pandas' parser frees a block's transient buffers and strings to the heap, which glibc keeps; without
    this, a large run's peak memory grows with every block. ``read``: the text a reader has read of its
    input so far, nothing handed back below :data:`TRIM_AFTER_BYTES` (None: handed back in any case).
    """
    if _MALLOC_TRIM is not None and (read is None or read >= TRIM_AFTER_BYTES):
        _MALLOC_TRIM(0)


TRIM_AFTER_BYTES = BLOCK_BYTES
"""The text a reader reads before it hands freed memory back (:func:`release_freed_memory`) after each
block: an input of one block leaves at most one block's transients in the heap, which the next read
reuses, where handing them back costs that read the page faults of taking them again (20% of the time
of the 39 Table-1 measures on the 37 DL19 runs, 2 MB each: 1.03 s against 1.27 s, medians of 8)."""


def _malloc_trim() -> Any:
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


_MALLOC_TRIM = _malloc_trim()


# -- the columnar path: Arrow's CSV reader, for the blocks it reads as the rules do

_ARROW: Any = None          # (pyarrow, pyarrow.csv, pyarrow.compute) once imported, False without pyarrow
ARROW_CHUNK_BYTES = 1 << 20
"""The size of the pieces Arrow's CSV reader parses a block in, one after the other.

In the calling thread (``use_threads=False``): with Arrow's thread pool, a process that exited
right after a block Arrow refused (a malformed file, then named by the general path) was now
and then aborted while the interpreter shut down ("terminate called without an active
exception", exit status 134 instead of 1: 1 of 450 runs of ``ir-cwla eval qrels qrels`` on a
loaded machine, none of 450 without the pool; apache/arrow#34314). Reading the skewed run of
``benchmarks/bench_reading_memory.py`` through this path takes 4% longer, within its spread."""


def _arrow() -> Any:
    global _ARROW
    if _ARROW is None:
        try:
            import pyarrow
            import pyarrow.compute
            import pyarrow.csv
        except ImportError:             # the general path reads everything, only slower
            _ARROW = False
        else:
            _ARROW = (pyarrow, pyarrow.csv, pyarrow.compute)
    return _ARROW


def _delimiter(block: bytes) -> Optional[str]:
    r"""The one character that separates the fields of a block Arrow's CSV reader can split, or None.

    The one character that may separate the fields of a block Arrow's CSV reader splits as
    the whitespace rule does: a tab or a space, never both, with ``\n`` or ``\r\n`` line
    ends and no other whitespace (``\x0b``, ``\x0c``); None for any other block (the general
    path reads it). A doubled separator, or one at the start or end of a line, makes an empty
    field, which :func:`_arrow_block` refuses.
    """
    tab, space = b"\t" in block, b" " in block
    if tab == space or b"\x0b" in block or b"\x0c" in block:
        return None
    if b"\r" in block and block.count(b"\r") != block.count(b"\r\n"):
        return None
    return "\t" if tab else " "


def _arrow_block(block: bytes, fmt: _Format) -> Optional[tuple[dict[int, Any], list[str]]]:
    """A block parsed by Arrow's CSV reader, or None where the general path must read it.

    The kept fields of a block parsed by Arrow's CSV reader, topic ids already one string per
    distinct value, and the first line's fields; None where the block is not one Arrow reads as
    the rules do, or where a line breaks a rule (the general path then reads the block, or names
    the line).
    """
    arrow = _arrow()
    delimiter = _delimiter(block) if arrow else None
    if delimiter is None:
        return None
    pa, pacsv, pac = arrow
    names = [f"f{i}" for i in range(fmt.fields)]
    keep = {names[i] for i in fmt.keep}
    # every field read (the unkept as bytes), so that an empty one is seen: each line must have
    # exactly fmt.fields non-empty fields; quotes and backslashes are text
    types = {n: pa.string() if n in keep else pa.binary() for n in names}
    if fmt.kind == "run":
        types["f4"] = pa.float64()
    try:
        table = pacsv.read_csv(
            pa.BufferReader(block),
            read_options=pacsv.ReadOptions(column_names=names, block_size=ARROW_CHUNK_BYTES, use_threads=False),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False, escape_char=False,
                                             double_quote=False, newlines_in_values=False, ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(column_types=types, null_values=[], true_values=[], false_values=[],
                                                 strings_can_be_null=False, quoted_strings_can_be_null=False),
            memory_pool=pa.system_memory_pool())
    except pa.ArrowException:
        return None
    if table.num_rows == 0 or any(pac.min(pac.binary_length(table.column(n))).as_py() == 0
                                  for n in names if types[n] != pa.float64()):
        return None
    topics = pac.dictionary_encode(table.column("f0").combine_chunks())
    topic_names = topics.dictionary.to_pylist()
    scores = grades = None
    if fmt.kind == "run":
        scores = np.array(table.column("f4").to_numpy(), dtype=np.float64)
    else:
        grades = pac.dictionary_encode(table.column("f3").combine_chunks())
    view = _rules.Block(fmt.kind, fmt.fields, topics=topic_names, scores=scores, docs=lambda: table.column("f2").to_pylist(),
                        grades=lambda: grades.dictionary.to_pylist() if grades is not None else None)
    if not _rules.is_clean(view):
        return None
    codes = topics.indices.to_numpy()
    columns: dict[int, Any] = {0: np.array(topic_names, dtype=object)[codes], _CODES: (codes, topic_names)}
    if 1 in fmt.keep:      # as pandas' reader makes a category column: sorted categories
        types_ = pac.dictionary_encode(table.column("f1").combine_chunks())
        values = types_.dictionary.to_pylist()
        order = np.argsort(np.array(values, dtype=object), kind="stable")
        recode = np.empty(len(values), dtype=np.int64)
        recode[order] = np.arange(len(values))
        columns[1] = pd.Categorical.from_codes(recode[types_.indices.to_numpy()],
                                               categories=[values[i] for i in order])
    columns[2] = table.column("f2").to_numpy()
    if scores is not None:
        columns[4] = scores
    if grades is not None:
        columns[3] = np.array(grades.dictionary.to_pylist(), dtype=object)[grades.indices.to_numpy()]
    return columns, [f.decode("utf-8") for f in _first_line(block).split()]


def _first_line(block: bytes) -> bytes:
    start = 0
    while start < len(block):
        end = block.find(b"\n", start)
        end = len(block) if end < 0 else end
        if block[start:end].strip():
            return block[start:end]
        start = end + 1
    return b""


# -- comments

_COMMENT = re.compile(rb"(?m)^[ \t]*#[^\n]*")


def _take_comments(block: bytes, comments: list[str]) -> bytes:
    """The block with its comment lines made blank, their text kept in ``comments``.

    The block with its comment lines (first non-blank character ``#``, as trec_eval 10
    allows) made blank, so that line numbers stay those of the file; their text goes to
    ``comments``.
    """
    if b"#" not in block:
        return block
    found: list[str] = []

    def blank(match: re.Match) -> bytes:
        found.append(match.group(0).rstrip(b"\r").decode("utf-8"))
        return b""

    out = _COMMENT.sub(blank, block)
    comments.extend(found)
    return out


# -- one read of a whole input

@dataclass
class _Read:
    """What :func:`_read_table` read.

    The kept fields of every line, by field number (or a table read from a Parquet or Arrow
    file), the input's name, the first line's fields, and the text of its comment lines.
    """

    columns: Optional[dict[int, Any]]
    name: str
    first: Optional[list[Any]] = None
    comments: Optional[list[str]] = None
    table: Optional[pd.DataFrame] = None


def _concat(parts: list[Any]) -> Any:
    if len(parts) == 1:
        return parts[0]
    if isinstance(parts[0], pd.Categorical):    # as pd.concat joins category columns
        return pd.concat([pd.Series(p) for p in parts], ignore_index=True).array
    return np.concatenate(parts)


def _read_table(source: Any, fmt: _Format) -> _Read:
    """Every line of a TREC input, checked (or the table of a Parquet or Arrow file)."""
    parts: list[dict[int, Any]] = []
    first: Optional[list[Any]] = None
    comments: list[str] = []
    read = 0
    with open_input(source, fmt.kind) as (stream, name, compression):
        if compression in TABLE_FORMATS:
            return _Read(None, name, table=_read_table_file(stream, name, compression, fmt.kind))
        for first_line, block in line_blocks(stream, name, compression, fmt.kind):
            check_utf8(block, first_line, name, f"TREC {fmt.kind}")
            if first_line == 1 and block.startswith(_UTF8_BOM):
                block = block[len(_UTF8_BOM):]
            block = _take_comments(block, comments)
            parsed = _arrow_block(block, fmt)
            if parsed is None:
                parsed = _pandas_block(block, first_line, name, fmt)
            if parsed is not None:
                parts.append(parsed[0])
                first = parsed[1] if first is None else first
            read += len(block)
            release_freed_memory(read)
    # each field joined in turn, its blocks' arrays let go as it is (not every field's twice at once)
    columns = {i: _concat([p.pop(i) for p in parts]) if parts else np.zeros(0, dtype=object) for i in fmt.keep}
    if not parts and 4 in columns:
        columns[4] = np.zeros(0, dtype=np.float64)
    # one code per distinct topic id of the whole input (for the duplicate check)
    numbers: dict[str, int] = {}
    columns[_CODES] = _concat([np.array([numbers.setdefault(t, len(numbers)) for t in names], dtype=np.int64)[codes]
                               for codes, names in (p[_CODES] for p in parts)]) if parts else np.zeros(0, np.int64)
    del parts
    release_freed_memory(read)      # the blocks' arrays, joined, let go: not kept by the heap beside what follows
    return _Read(columns, name, first, comments)


_UTF8_BOM = b"\xef\xbb\xbf"
_CODES = -1         # the key, among a block's fields, of its topic codes and the topic ids they number
# (whether pandas infers a string dtype, asked of pandas itself: reading the option
# future.infer_string warns in pandas 3)
_TOPIC_DTYPE: Any = pd.StringDtype("python", na_value=np.nan) if isinstance(pd.Series(["a"]).dtype, pd.StringDtype) \
    else None
"""The dtype of the readers' topic ids: pandas' default string dtype (``str`` in pandas 3),
held as Python strings (its ``'python'`` storage) also where pyarrow is installed, since
ranking looks topic ids up as Python strings, which an Arrow-backed column rebuilds at each
access; object where pandas does not infer strings (pandas 2)."""


def _topic_column(values: np.ndarray) -> Any:
    return values if _TOPIC_DTYPE is None else pd.array(values, dtype=_TOPIC_DTYPE)


def _object_column(values: Any) -> pd.Series:
    return pd.Series(values, dtype=object, copy=False)


def read_trec_run(source: Any, check: bool = True, name: Optional[str] = None,
                  element_type: bool = False) -> pd.DataFrame:
    """Reads a TREC run (6 fields ``qid Q0 docno rank score tag``) from a path, ``-`` or a stream.

    Returns a DataFrame with columns ``query_id, doc_id, score`` in file order (and
    ``element_type``, the second field, if ``element_type``), with each doc_id once per
    topic (:func:`drop_duplicate_docs`, unless ``check=False``); the rank field is ignored
    (the ranking is by score, as in trec_eval) and the tag of the first line is kept in
    ``frame.attrs['run_tag']``. ``name`` names the run in warnings (default: the path,
    ``<stdin>`` for ``-``).

    Comment lines (whose first non-blank character is ``#``, as trec_eval 10 reads them) are
    skipped, and their text, in file order and one line each, is kept in
    ``frame.attrs['metadata']`` (the ir_metadata convention keeps a run's metadata there,
    as YAML between ``# ir_metadata.start`` and ``# ir_metadata.end``); the key is absent
    if the file has no comment. A Parquet or Arrow (IPC, Feather) file, recognised by its
    first bytes, is read as a table with ir-measures' columns ``query_id, doc_id, score``
    (or PyTerrier's ``qid, docno, score``), checked by the rules of a DataFrame (errors name
    the file and the row, counted from 1).
    """
    read = _read_table(source, _RUN_TYPED if element_type else _RUN)
    shown = name or read.name
    if read.table is not None:
        df = _checked_run_table(read.table, shown, element_type, dedup=check)
        df.attrs[RUN_TAG_ATTR] = None
    else:
        cols = read.columns
        assert cols is not None
        lines = len(cols[0]) > 0
        # the columns handed over (popped: the read's arrays let go as the frame takes them, not copied)
        topics = cols.pop(0)
        frame = {"query_id": _topic_column(topics) if lines else _object_column(topics),
                 "doc_id": _object_column(cols.pop(2)), "score": np.asarray(cols.pop(4), dtype=np.float64)}
        del topics
        if element_type:
            types = cols.pop(1)
            frame[ELEMENT_TYPE] = types if lines else _object_column(types)
        df = pd.DataFrame(frame, copy=False)
        del frame
        if check:        # (one sorted array of 64-bit keys: 5 MB and 0.2 s for 1.1 million lines, where a
            # set of each topic's doc ids took 46 MB and numbering them by Arrow's hash table 220 MB)
            df = drop_duplicate_docs(df, shown, cols[_CODES])
        df.attrs[RUN_TAG_ATTR] = str(read.first[5]) if read.first else None     # (fields after the sixth ignored)
        if read.comments:
            df.attrs[METADATA_ATTR] = "\n".join(read.comments)
    df.attrs[SOURCE_ATTR] = shown
    if check:
        _mark_checked(df)
    return df


def read_trec_qrels(source: Any, name: Optional[str] = None) -> pd.DataFrame:
    """Reads TREC qrels (4 fields ``qid iter docno grade``) from a path, ``-`` or a stream.

    Returns a DataFrame with columns ``query_id, doc_id, relevance`` (int64), each (topic,
    doc_id) once (:func:`drop_duplicate_judgments`: the last line wins). Comment lines are
    skipped and kept in ``frame.attrs['metadata']``, and Parquet and Arrow files read, as by
    :func:`read_trec_run` (columns ``query_id, doc_id, relevance`` or ``qid, docno, label``).
    """
    read = _read_table(source, _QRELS)
    source_name = name or read.name
    if read.table is not None:
        return _checked_qrels_table(read.table, source_name)
    cols = read.columns
    assert cols is not None
    if len(cols[0]) == 0:
        raise InputError(f"qrels {source_name} hold no judgments")
    grades = grades_as_int64(cols[3], source_name)
    df = pd.DataFrame({"query_id": _topic_column(cols[0]), "doc_id": _object_column(cols[2]), "relevance": grades})
    if read.comments:
        df.attrs[METADATA_ATTR] = "\n".join(read.comments)
    return drop_duplicate_judgments(df, source_name)


# ------------------------------------------------------------------------- rules shared by every input

def grades_as_int64(values: Any, source: str, rows: Optional[pd.DataFrame] = None,
                    row_numbers: bool = False) -> np.ndarray:
    """Relevance grades as int64, or :class:`InputError` naming the first bad one.

    Integers (any integer dtype, integral floats, or integer literals such as ``'2'`` and
    ``'-1'``) in the int64 range are accepted; ``1.5``, ``'2.0'``, ``'3e+09'``, NaN,
    infinities and ``2^63`` are not. ``rows`` (the frame the values come from) lets the
    error name the topic and document, and ``row_numbers`` the row (counted from 1: a table
    read from a file).
    """
    series = pd.Series(values)
    arr = series.to_numpy()

    def fail(i: int, problem: str) -> InputError:
        where = ""
        if rows is not None:
            where = f" of topic {rows['query_id'].iloc[i]!r}, document {rows['doc_id'].iloc[i]!r}"
        return InputError(f"qrels {source}{f', row {i + 1}' if row_numbers else ''}: grade{where} {problem}")

    if arr.dtype.kind == "b":
        return arr.astype(np.int64)
    if arr.dtype.kind == "i":
        return arr.astype(np.int64)
    if arr.dtype.kind == "u":
        big = np.flatnonzero(arr > np.uint64(_rules.INT64[1]))
        if len(big):
            raise fail(int(big[0]), f"{arr[big[0]]} is out of the int64 range (|grade| < 2^63)")
        return arr.astype(np.int64)
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr) | (np.floor(arr) != arr) | (np.abs(arr) >= 2.0 ** 63)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            value = float(arr[i])
            problem = "is not a finite number" if not np.isfinite(value) else (
                f"{shown(value)} is not an integer" if not value.is_integer() else
                f"{shown(value)} is out of the int64 range (|grade| < 2^63)")
            raise fail(i, problem)
        return arr.astype(np.int64)
    codes, uniques = pd.factorize(series, use_na_sentinel=False)
    converted = np.zeros(len(uniques), dtype=np.int64)
    for j, u in enumerate(uniques):
        if isinstance(u, (float, np.floating)) and np.isfinite(u) and float(u).is_integer():
            u = int(u)
        if isinstance(u, (int, np.integer)) and not isinstance(u, (bool, np.bool_)):
            u = str(int(u))
        wrong = _rules.grade_problem(u.strip()) if isinstance(u, str) else f"{shown(u)} is not an integer"
        if wrong:
            raise fail(int(np.flatnonzero(codes == j)[0]), wrong)
        converted[j] = int(u)
    return converted[codes]


def check_topic_ids(frame: pd.DataFrame, kind: str, source: str, rows: bool = False) -> None:
    """Checks the topic ids: non-empty, without whitespace, and not ``all``.

    Topic ids must be non-empty, without whitespace, and not ``all`` (the summary row of
    trec_eval and ir-measures output); :class:`InputError` names the first offender (and its
    first row, counted from 1, if ``rows``: a table read from a file).
    """
    for qid in pd.unique(frame["query_id"]):
        problem = _rules.topic_id_problem(str(qid))
        if problem:
            where = f"{kind} {source}"
            if rows:
                where += f", row {int(np.flatnonzero((frame['query_id'] == qid).to_numpy())[0]) + 1}"
            raise InputError(f"{where}: {problem}")


def check_run(run: pd.DataFrame, source: str = "run") -> None:
    """Raises :class:`InputError` naming the query and document of any NaN or infinite score."""
    scores = run["score"].to_numpy(dtype=np.float64, copy=False)
    bad = ~np.isfinite(scores)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        row = run.iloc[i]
        raise InputError(f"{source}: score {scores[i]} is not finite for query {row['query_id']!r}, "
                         f"document {row['doc_id']!r} ({int(bad.sum())} such rows)")


def _pair_keys(frame: pd.DataFrame, topic_codes: Optional[np.ndarray] = None) -> np.ndarray:
    """A 64-bit hash of each row's (query_id, doc_id).

    Equal pairs have equal keys (Python's own string hash, cached in each string: no
    copy of the ids, unlike pandas' hash_array). ``topic_codes`` (equal codes for equal
    topic ids, as a reader found them) spares factorising the topic ids.
    """
    docs = frame["doc_id"].to_numpy(dtype=object)
    keys = np.fromiter(map(hash, docs), dtype=np.int64, count=len(docs)).view(np.uint64)
    topics = pd.factorize(frame["query_id"])[0] if topic_codes is None else topic_codes
    step = 1 << 16                  # a slice at a time: no second array of the run's length
    for a in range(0, len(keys), step):
        keys[a:a + step] ^= topics[a:a + step].astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    return keys


def _repeated_rows(frame: pd.DataFrame, topic_codes: Optional[np.ndarray] = None) -> np.ndarray:
    """Positions of the rows whose (query_id, doc_id) occurs more than once (hash, then exact).

    Works in place on one array of keys, so a check of a run costs little memory beyond it.
    """
    if len(frame) < 2:
        return np.zeros(0, dtype=np.int64)
    sorted_keys = _pair_keys(frame, topic_codes)
    sorted_keys.sort()
    same = sorted_keys[1:] == sorted_keys[:-1]
    if not same.any():
        return np.zeros(0, dtype=np.int64)
    repeated = pd.Index(np.unique(sorted_keys[1:][same]))
    del sorted_keys
    candidates = np.flatnonzero(repeated.get_indexer(_pair_keys(frame, topic_codes)) >= 0)
    exact = frame.iloc[candidates].duplicated(["query_id", "doc_id"], keep=False).to_numpy()
    return candidates[exact]


def drop_duplicate_docs(run: pd.DataFrame, source: str = "run", _topic_codes: Optional[np.ndarray] = None
                        ) -> pd.DataFrame:
    """The run with each (topic, doc_id) once.

    Its best-scored line, i.e. the first in trec_eval's order (score descending
    compared in float32, then the larger float64 score, then file order). One warning
    names the run, the count and the first case.
    """
    rows = _repeated_rows(run, _topic_codes)
    if len(rows) == 0:
        return run
    sub = run.iloc[rows]
    ranked = sub.assign(_s32=float32_scores(sub["score"].to_numpy(dtype=np.float64), warn=False), _pos=rows)
    ranked = ranked.sort_values(["query_id", "doc_id", "_s32", "score", "_pos"],
                                ascending=[True, True, False, False, True], kind="stable")
    losers = ranked["_pos"].to_numpy()[ranked.duplicated(["query_id", "doc_id"], keep="first").to_numpy()]
    first = run.iloc[int(rows[0])]
    warnings.warn(_rules.duplicate_docs_warning(source, len(losers), first['query_id'], first['doc_id']),
                  DuplicateWarning, stacklevel=3)
    keep = np.ones(len(run), dtype=bool)
    keep[losers] = False
    out = run[keep].reset_index(drop=True)
    out.attrs = dict(run.attrs)
    return out


def drop_duplicate_judgments(qrels: pd.DataFrame, source: str = "qrels") -> pd.DataFrame:
    """The qrels with each (topic, doc_id) once: its last line, as trec_eval keeps it.

    Repeated identical judgments are merged silently; judgments that disagree get one
    warning naming the qrels, the count and the first case.
    """
    rows = _repeated_rows(qrels)
    if len(rows) == 0:
        return qrels
    sub = qrels.iloc[rows]
    grades = sub.groupby(["query_id", "doc_id"], sort=False)["relevance"]
    conflicting = grades.nunique()
    conflicting = conflicting[conflicting > 1]
    if len(conflicting):
        q, d = conflicting.index[0]
        seen = sub[(sub["query_id"] == q) & (sub["doc_id"] == d)]["relevance"].tolist()
        warnings.warn(_rules.conflicting_judgments_warning(source, len(conflicting), q, d, seen),
                      DuplicateWarning, stacklevel=3)
    keep = ~qrels.duplicated(["query_id", "doc_id"], keep="last").to_numpy()
    out = qrels[keep].reset_index(drop=True)
    out.attrs = dict(qrels.attrs)
    return out


# ------------------------------------------------------------------------- the topics a run answers

# ------------------------------------------------------------------------- Parquet and Arrow files

def _read_table_file(stream: Any, name: str, fmt: str, kind: str) -> pd.DataFrame:
    """The table of a Parquet, Arrow IPC (file or stream) or Feather file, read once, whole."""
    arrow = _arrow()
    if not arrow:
        raise MissingDependencyError(f"{kind} file {name} is {TABLE_FORMATS[fmt]}, which needs pyarrow: "
                                     "pip install pyarrow")
    pa = arrow[0]
    data = pa.py_buffer(stream.read())
    try:
        if fmt == "parquet":
            import pyarrow.parquet

            table = pyarrow.parquet.read_table(pa.BufferReader(data))
        elif fmt == "arrow-stream":
            table = pa.ipc.open_stream(data).read_all()
        elif fmt == "feather-v1":
            import pyarrow.feather

            table = pyarrow.feather.read_table(pa.BufferReader(data))
        else:
            table = pa.ipc.open_file(data).read_all()
    except (pa.ArrowException, OSError) as ex:
        raise InputError(f"{kind} file {name}: cannot read it as {TABLE_FORMATS[fmt]} ({ex})") from None
    return table.to_pandas()


def _table_columns(df: pd.DataFrame, columns: tuple[str, ...], kind: str, name: str) -> pd.DataFrame:
    """The table's columns under ir-measures' names, ids as strings.

    The table's columns under ir-measures' names (PyTerrier's accepted), ids as strings,
    a null id an error naming the row.
    """
    renames = {"qid": "query_id", "docno": "doc_id", "label": "relevance"}
    df = df.rename(columns={k: v for k, v in renames.items() if k in df.columns and v not in df.columns})
    missing = [c for c in columns if c not in df.columns]
    if missing:
        theirs = ", ".join(columns).replace("query_id", "qid").replace("doc_id", "docno").replace("relevance", "label")
        raise InputError(f"{kind} file {name} lacks columns {missing} (found {list(df.columns)}); a {kind} table "
                         f"has the columns {', '.join(columns)} (ir-measures) or {theirs} (PyTerrier)")
    out = {}
    for c in columns:
        col = df[c]
        if c in ("query_id", "doc_id", ELEMENT_TYPE):
            nulls = col.isna().to_numpy()
            if nulls.any():
                raise InputError(f"{kind} file {name}, row {int(np.flatnonzero(nulls)[0]) + 1}: {c} is missing "
                                 f"(null) ({int(nulls.sum())} such rows)")
            col = col.astype(str).astype(object)
        out[c] = col.to_numpy()
    frame = pd.DataFrame({c: _object_column(v) if v.dtype == object else v for c, v in out.items()})
    return frame


def _checked_run_table(table: pd.DataFrame, name: str, element_type: bool, dedup: bool = True) -> pd.DataFrame:
    """A run read from a Parquet or Arrow file, by the rules of a run DataFrame.

    Errors name the file and the row.
    """
    df = _table_columns(table, RUN_COLUMNS + ((ELEMENT_TYPE,) if element_type else ()), "run", name)
    if df["score"].dtype.kind not in "fiub":
        raise InputError(f"run file {name}: column 'score' holds {df['score'].dtype}, not numbers")
    scores = df["score"].to_numpy(dtype=np.float64)
    bad = ~np.isfinite(scores)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"run file {name}, row {i + 1}: score {scores[i]} is not finite for topic "
                         f"{df['query_id'].iloc[i]!r}, document {df['doc_id'].iloc[i]!r} ({int(bad.sum())} such rows)")
    df["score"] = scores
    check_topic_ids(df, "run file", name, rows=True)
    return drop_duplicate_docs(df, name) if dedup else df


def _checked_qrels_table(table: pd.DataFrame, name: str) -> pd.DataFrame:
    """Qrels read from a Parquet or Arrow file, by the rules of a qrels DataFrame."""
    df = _table_columns(table, QREL_COLUMNS, "qrels", name)
    if len(df) == 0:
        raise InputError(f"qrels {name} hold no judgments")
    df["relevance"] = grades_as_int64(df["relevance"], f"file {name}", rows=df, row_numbers=True)
    check_topic_ids(df, "qrels file", name, rows=True)
    return drop_duplicate_judgments(df, name)


# ------------------------------------------------------------------------- checked frames

_CHECKED: dict[int, tuple[Any, tuple]] = {}
"""The frames the readers returned checked: ``id(frame) -> (weak reference, fingerprint)``."""


def _buffer_digest(values: np.ndarray) -> tuple:
    """Two checksums of an array's memory: a word sum and a CRC-32.

    Two checksums of an array's memory (for an object array: its pointers, so a changed
    element, a new string object, changes them): the sum of its 64-bit words (modulo 2^64),
    which any change of one element changes, and its CRC-32, which moved elements change.
    """
    values = np.ascontiguousarray(values)
    if values.nbytes == 0:
        return (values.dtype.str, 0, 0, 0)
    memory = (ctypes.c_char * values.nbytes).from_address(values.ctypes.data)
    words = np.frombuffer(memoryview(memory), dtype=np.uint64 if values.nbytes % 8 == 0 else np.uint8)
    return (values.dtype.str, len(values), int(words.sum(dtype=np.uint64)), zlib.crc32(memory))


def _column_digest(column: pd.Series) -> Optional[tuple]:
    """A fingerprint of one column's values that any edit changes, or None.

    A fingerprint of one column's values that any edit changes, or None for a kind of
    column it cannot take (the frame is then checked again).
    """
    dtype = column.dtype
    if isinstance(dtype, np.dtype):
        return _buffer_digest(column.to_numpy())
    if isinstance(dtype, pd.CategoricalDtype):
        return ("category", _buffer_digest(column.array.codes), tuple(dtype.categories), dtype.ordered)
    if isinstance(dtype, pd.StringDtype) and dtype.storage == "python":
        return ("str", _buffer_digest(column.to_numpy()))        # the strings themselves, not a copy
    return None


def _fingerprint(frame: pd.DataFrame) -> Optional[tuple]:
    parts: list[Any] = [len(frame), tuple(frame.columns)]
    for i in range(frame.shape[1]):
        digest = _column_digest(frame.iloc[:, i])
        if digest is None:
            return None
        parts.append(digest)
    return tuple(parts)


def _mark_checked(frame: pd.DataFrame) -> pd.DataFrame:
    """Records that ``frame`` passed every rule, as it is now (:func:`is_checked_frame`)."""
    fingerprint = _fingerprint(frame)
    if fingerprint is not None:
        key = id(frame)

        def forget(_: Any, key: int = key) -> None:
            _CHECKED.pop(key, None)

        _CHECKED[key] = (weakref.ref(frame, forget), fingerprint)
    return frame


def is_checked_frame(frame: Any) -> bool:
    """True only for a frame a reader of this module checked and that nobody changed since.

    True only for a frame that a reader of this module returned checked (:func:`read_trec_run`,
    :func:`as_run_frame`, :func:`read_trec_qrels`, :func:`as_qrels_frame`) and that is still
    the same object holding the same values: a copy (``.copy()``, ``.assign()``, slicing), a
    column replaced or any value edited in place (``.loc[i, 'score'] = nan``) is checked again.

    The readers do not mark frames in ``frame.attrs`` (pandas copies ``attrs`` into every
    derived frame): they record each returned frame's identity (a weak reference) and a
    fingerprint of its columns (two checksums of each column's memory: the float bytes, or
    the string objects' addresses), compared here. Computing it reads each column twice at
    memory speed (about 3 ms per million rows and column), far less than the rules themselves.
    """
    entry = _CHECKED.get(id(frame))
    return entry is not None and entry[0]() is frame and entry[1] == _fingerprint(frame)


# ------------------------------------------------------------------------- conversion of any input

def _from_records(records: Iterable[Any], columns: tuple[str, ...], kind: str = "run") -> pd.DataFrame:
    """Records (namedtuples, objects or dicts with the fields ``columns``) as a frame.

    A record without one of them (a plain tuple, whose fields have no names) is an
    :class:`InputError` naming it and the fields, as ir-measures reads records by name.
    """
    rows = []
    for i, rec in enumerate(records):
        try:
            if isinstance(rec, Mapping):
                rows.append(tuple(rec[c] for c in columns))
            else:
                rows.append(tuple(getattr(rec, c) for c in columns))
        except (KeyError, AttributeError):
            shown = repr(rec) if len(repr(rec)) <= 80 else repr(rec)[:77] + "..."
            hint = (f" (a plain {type(rec).__name__} has no field names: make each record a namedtuple such as "
                    f"ir_measures.{'ScoredDoc' if kind == 'run' else 'Qrel'}, a dict, or pass a DataFrame)"
                    if isinstance(rec, (tuple, list)) and not hasattr(rec, "_fields") else "")
            raise InputError(f"{kind} record {i} lacks the fields {', '.join(columns)}: {shown}{hint}") from None
    return pd.DataFrame.from_records(rows, columns=list(columns))


def _from_dict_of_dict(d: Mapping, columns: tuple[str, ...]) -> pd.DataFrame:
    q, docs, vals = [], [], []
    for qid, inner in d.items():
        for did, v in inner.items():
            q.append(qid)
            docs.append(did)
            vals.append(v)
    return pd.DataFrame({columns[0]: q, columns[1]: docs, columns[2]: vals})


def _normalise_frame(df: pd.DataFrame, columns: tuple[str, ...], kind: str) -> pd.DataFrame:
    renames = {"qid": "query_id", "docno": "doc_id", "label": "relevance"}
    missing = [c for c in columns if c not in df.columns]
    if missing:
        df = df.rename(columns={k: v for k, v in renames.items() if v in missing and k in df.columns})
        missing = [c for c in columns if c not in df.columns]
    if missing:
        raise InputError(f"{kind} DataFrame lacks columns {missing} (found {list(df.columns)})")
    out = df[list(columns)]
    if out["query_id"].dtype != object or out["doc_id"].dtype != object:
        out = out.astype({"query_id": str, "doc_id": str}).astype({"query_id": object, "doc_id": object})
    return out


def _as_frame(obj: Any, columns: tuple[str, ...], kind: str, element_type: bool = False) -> tuple[pd.DataFrame, bool]:
    """A run or qrels input as a frame with ``columns``; True if it was read from a TREC file."""
    if isinstance(obj, (str, os.PathLike)) or hasattr(obj, "read"):
        source = source_of(obj) if isinstance(obj, str) else None
        if source is None:
            if kind == "run":
                return read_trec_run(obj, element_type=element_type), True
            return read_trec_qrels(obj), True
        df = _normalise_frame(source(obj, kind), columns, kind)
    elif isinstance(obj, pd.DataFrame):
        df = _normalise_frame(obj, columns, kind)
    elif isinstance(obj, Mapping):
        df = _normalise_frame(_from_dict_of_dict(obj, columns), columns, kind)
    elif isinstance(obj, Iterable):
        df = _normalise_frame(_from_records(obj, columns, kind), columns, kind)
    else:
        raise InputError(f"cannot read {kind} from {type(obj).__name__}")
    return df, False


def as_run_frame(run: Any, name: str = "run", element_type: bool = False) -> pd.DataFrame:
    """Any run that ir-measures accepts (and a TREC file, ``-`` or a named source) as a checked DataFrame.

    Accepted: a DataFrame with ``query_id, doc_id, score`` (or PyTerrier's ``qid, docno,
    score``); a dict ``{qid: {docid: score}}``; an iterable of ``ScoredDoc`` namedtuples or
    dicts; a TREC run file path, ``-`` or an open binary file; a registered source such as
    an ``irds:`` id of a dataset that provides scored docs (:func:`register_source`).
    The result has finite float64 scores, valid topic ids and each (topic, doc_id) once
    (:func:`drop_duplicate_docs`, warning once, naming ``name``, or the file a TREC run was read
    from: its path or ``<stdin>``). A frame this function (or a reader) returned is not
    checked again while it is the same object with the same values (:func:`is_checked_frame`):
    an edited frame or a copy of one is. With ``element_type``, the frame also has the run's
    ``element_type`` column (a TREC file's second field; a DataFrame must have one).
    """
    columns = _run_frame_columns(element_type)
    if element_type and not (isinstance(run, (str, os.PathLike, pd.DataFrame)) or hasattr(run, "read")):
        raise InputError(f"{name}: element types come from a TREC run's second field or a DataFrame's "
                         f"{ELEMENT_TYPE!r} column, not from a {type(run).__name__}")
    if _checked_as(run, columns):
        return run
    df, from_file = _as_frame(run, columns, "run", element_type)
    if from_file:                  # the file reader applied every rule, line by line
        return df
    if df["score"].dtype.kind != "f":
        try:
            df = df.assign(score=pd.to_numeric(df["score"]).astype(np.float64))
        except (ValueError, TypeError) as ex:
            raise InputError(f"run {name}: column 'score' is not numeric ({ex})") from ex
    check_run(df, source=name)
    check_topic_ids(df, "run", name)
    df = drop_duplicate_docs(df, name)
    if df is run:               # a frame of the caller's, already valid: marked on a frame of our own
        df = df.copy(deep=False)
    return _mark_checked(df)


def checked_run_frame(run: Any, name: Optional[str] = None, element_type: bool = False) -> tuple[pd.DataFrame, str]:
    """:func:`as_run_frame` of ``run`` and the name messages give it (``name``, else :func:`source_name`).

    The same frame and name as ``as_run_frame(run, name or source_name(run), element_type)``, with a
    frame a reader returned checked once (its fingerprint computed once, :func:`is_checked_frame`),
    not once for its name and once for its rules.
    """
    if _checked_as(run, _run_frame_columns(element_type)):
        return run, name if name is not None else _file_name(run, "run")
    if name is None:
        name = source_name(run)
    return as_run_frame(run, name, element_type), name


def _run_frame_columns(element_type: bool) -> tuple[str, ...]:
    """The columns of the frame :func:`as_run_frame` returns."""
    return RUN_COLUMNS + ((ELEMENT_TYPE,) if element_type else ())


def _checked_as(run: Any, columns: tuple[str, ...]) -> bool:
    """True for a checked run frame (:func:`is_checked_run`) with exactly ``columns``: :func:`as_run_frame` returns it as it is."""
    return isinstance(run, pd.DataFrame) and list(run.columns) == list(columns) and is_checked_run(run)


def is_checked_run(run: pd.DataFrame) -> bool:
    """True for a checked run frame that nobody edited since.

    True for a frame :func:`as_run_frame` (or the file reader) returned and nobody edited
    since (:func:`is_checked_frame`): every rule applied, each (topic, doc_id) once, string ids.
    """
    return list(run.columns[:3]) == list(RUN_COLUMNS) and is_checked_frame(run)


def as_qrels_frame(qrels: Any, name: Optional[str] = None, measures: Optional[Sequence[Any]] = None) -> pd.DataFrame:
    """Any qrels that ir-measures accepts as a checked DataFrame.

    Any qrels that ir-measures accepts (and a TREC file, ``-`` or a registered source such
    as an ``irds:`` id, see :func:`register_source`) as a checked DataFrame.

    Grades become int64 (:func:`grades_as_int64`), each (topic, doc_id) is kept once (its
    last line, :func:`drop_duplicate_judgments`), topic ids are checked, and the registered
    qrels checks run (:func:`register_qrels_check`; ``measures``, if known, tells them what
    the qrels will be used for). ``name`` names the qrels in messages. A frame this
    function returned is not checked again while it is unchanged (:func:`is_checked_frame`).
    """
    if isinstance(qrels, pd.DataFrame) and list(qrels.columns) == list(QREL_COLUMNS) and is_checked_frame(qrels):
        return qrels
    source = name or (input_name(qrels) if isinstance(qrels, (str, os.PathLike)) else f"<{type(qrels).__name__}>")
    df, from_file = _as_frame(qrels, QREL_COLUMNS, "qrels")
    if not from_file:
        if len(df) == 0:
            raise InputError(f"qrels {source} hold no judgments")
        df = df.assign(relevance=grades_as_int64(df["relevance"], source, rows=df))
        df = drop_duplicate_judgments(df, source)
        check_topic_ids(df, "qrels", source)
    if df is qrels:
        df = df.copy(deep=False)
    for check in QRELS_CHECKS.values():
        check(df, source, measures)
    return _mark_checked(df)


# ------------------------------------------------------------------------- what backends can take

# ------------------------------------------------------------------------- depth

def rank_scores(run: pd.DataFrame, ties: str = "float64") -> pd.DataFrame:
    """The run with each score replaced by ``n - rank``, to pass trec_eval's ranking on.

    The run with each score replaced by ``n - rank`` (its topic's ``n`` documents ranked in
    trec_eval's order with scores compared as ``ties`` says), so that a backend that compares
    scores in float32 (trec_eval through pytrec_eval) ranks the documents in that order: how
    ``ties='float64'`` reaches the measures of ir-measures. Exact up to 2^24 documents per topic
    (integers a float32 holds); rows keep their order.
    """
    if not len(run):
        return run
    q_codes, _ = pd.factorize(run["query_id"])
    scores = rank_score_values(q_codes, run["score"].to_numpy(dtype=np.float64), run["doc_id"].to_numpy(dtype=object),
                               ties)
    out = run.assign(score=scores)
    out.attrs = dict(run.attrs)
    return _mark_checked(out) if is_checked_run(run) else out


def top_ranked(run: pd.DataFrame, depth: int, ties: str = "float32") -> pd.DataFrame:
    """The first ``depth`` documents of every topic in trec_eval's order (trec_eval's ``-M``).

    The first ``depth`` documents of every topic in trec_eval's order (:func:`trec_order`,
    scores compared as ``ties`` says): trec_eval's ``-M``. Rows keep their order. (Scores
    beyond float32's range are not warned about here: the scoring that follows says so,
    naming the run.)
    """
    if depth < 1:
        raise ParameterError(f"depth must be >= 1, got {depth}")
    q_codes, _ = pd.factorize(run["query_id"])
    order = trec_order(q_codes, compared_scores(run["score"].to_numpy(dtype=np.float64), ties, warn=False),
                       run["doc_id"].to_numpy(dtype=object))
    sq = q_codes[order]
    starts = np.r_[0, np.flatnonzero(sq[1:] != sq[:-1]) + 1]
    counts = np.diff(np.r_[starts, len(order)])
    rank = np.arange(len(order)) - np.repeat(starts, counts)
    keep = np.zeros(len(run), dtype=bool)
    keep[order[rank < depth]] = True
    out = run[keep].reset_index(drop=True)
    out.attrs = dict(run.attrs)
    if is_checked_run(run):     # part of a checked run is checked
        _mark_checked(out)
    return out
