"""The TREC readers as they were before the columnar fast path (main at a308e0f: ir_cwla/io.py
and ir_cwla/textstream.py, the reading functions verbatim, frozen here), the reference that
tests/test_readers.py compares the new readers with, frame for frame. Do not edit: it is the
old behaviour, not the package's.

(Generated from ``git show a308e0f:ir_cwla/io.py`` and ``...:ir_cwla/textstream.py``: the
functions a read goes through, without the glibc heap trimming, which changes no value.)
"""
# ruff: noqa
# mypy: ignore-errors
from __future__ import annotations

import bz2
import csv
import gzip
import io
import lzma
import os
import re
import sys
import warnings
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, BinaryIO, Optional

import numpy as np
import pandas as pd

from ir_cwla.errors import DuplicateWarning, InputError

RUN_COLUMNS = ("query_id", "doc_id", "score")
ELEMENT_TYPE = "element_type"
SUMMARY_QID = "all"
RUN_TAG_ATTR = "run_tag"
_CHECKED_ATTR = "ir_cwla_checked_rows"

STDIN = "-"
"""The input spec that reads standard input (named ``<stdin>`` in messages)."""

BLOCK_BYTES = 8 << 20
"""About how many bytes :func:`line_blocks` hands over at once (whole lines). pandas parses
8 MB as fast per byte as a whole file; a block's transient strings and buffers are part of the
peak memory of reading a run, so blocks stay this small."""

MAX_LINE_BYTES = 1 << 20
"""A longer line is an error (a binary file without newlines is not held in memory)."""


#: (magic bytes, name, opener of a decompressing binary stream)
_COMPRESSIONS: tuple[tuple[bytes, str, Callable[[BinaryIO], Any]], ...] = (
    (b"\x1f\x8b", "gzip", lambda f: gzip.GzipFile(fileobj=f, mode="rb")),
    (b"BZh", "bzip2", lambda f: bz2.BZ2File(f)),
    (b"\xfd7zXZ\x00", "xz", lambda f: lzma.LZMAFile(f)))
_UNSUPPORTED = ((b"\x28\xb5\x2f\xfd", "zstd-compressed", "zstd -dc FILE | ir-cwla ... -"),
                (b"PK\x03\x04", "a zip archive", "unzip -p FILE | ir-cwla ... -"))
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def input_name(spec: Any) -> str:
    """How messages name an input: ``<stdin>`` for ``-``, else the path as given."""
    return "<stdin>" if spec == STDIN else str(spec)


class _Rewound(io.RawIOBase):
    """A raw stream that yields ``head`` (bytes already read to sniff the format), then ``rest``."""

    def __init__(self, head: bytes, rest: BinaryIO):
        self._head = head
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._rest.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)


def _open_error(ex: OSError, path: str, kind: str) -> Exception:
    if isinstance(ex, FileNotFoundError):
        if os.path.islink(path):
            return InputError(f"{kind} file {path} is a broken symbolic link (to {os.readlink(path)})")
        return FileNotFoundError(f"{kind} file not found: {path}")
    if isinstance(ex, IsADirectoryError):
        return InputError(f"{kind} path is a directory, not a file: {path}")
    return InputError(f"cannot open {kind} file {path}: {ex.strerror or ex}")


@contextmanager
def open_input(spec: Any, kind: str = "input") -> Iterator[tuple[BinaryIO, str, str]]:
    """Opens a TREC input once, for one pass: ``(binary stream of its text, name, compression)``.

    ``spec`` is a path, ``-`` (stdin) or an open binary file. The compression (``'gzip'``,
    ``'bzip2'``, ``'xz'`` or ``'none'``) is recognised from the first bytes, which are read
    and then given back to the stream, so pipes and FIFOs work like files.
    """
    name = input_name(spec)
    close = None
    if spec == STDIN:
        raw = sys.stdin.buffer
    elif hasattr(spec, "read"):
        raw, name = getattr(spec, "buffer", spec), str(getattr(spec, "name", "<stream>"))
        if isinstance(spec, io.TextIOBase) and raw is spec:
            raise InputError(f"{kind} stream {name} is text without a byte buffer: open it in binary mode ('rb')")
    else:
        path = os.fspath(spec)
        try:
            raw = close = open(path, "rb")
        except OSError as ex:
            raise _open_error(ex, path, kind) from None
    try:
        try:
            head = raw.read(6)
            while len(head) < 6:           # a pipe may deliver fewer bytes than asked
                more = raw.read(6 - len(head))
                if not more:
                    break
                head += more
        except IsADirectoryError:
            raise InputError(f"{kind} path is a directory, not a file: {name}") from None
        for magic, what, hint in _UNSUPPORTED:
            if head.startswith(magic):
                raise InputError(f"{kind} file {name} is {what}, which ir_cwla does not read: {hint}")
        stream: BinaryIO = io.BufferedReader(_Rewound(head, raw))  # type: ignore[assignment]
        compression = "none"
        for magic, what, opener in _COMPRESSIONS:
            if head.startswith(magic):
                stream, compression = opener(stream), what
                break
        yield stream, name, compression
    finally:
        if close is not None:
            close.close()


def line_blocks(stream: BinaryIO, name: str, compression: str, kind: str) -> Iterator[tuple[int, bytes]]:
    """Blocks of whole lines of the stream (about :data:`BLOCK_BYTES` each), with the number of
    each block's first line; a truncated or corrupt compressed stream is an :class:`InputError`
    that says after how many lines."""
    line, rest = 1, b""
    while True:
        try:
            data = stream.read(BLOCK_BYTES)
        except (EOFError, OSError, zlib.error, lzma.LZMAError) as ex:
            whole = line - 1 + rest.count(b"\n")
            raise InputError(f"{kind} file {name}: {compression} data is truncated or corrupt after {whole} "
                             f"complete line(s) ({ex})") from None
        if not data:
            break
        data = rest + data if rest else data
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            rest = data
            if len(rest) > MAX_LINE_BYTES:
                raise InputError(f"{name}:{line}: a line longer than {MAX_LINE_BYTES >> 20} MiB: "
                                 f"not a {kind} file?")
            continue
        block, rest = data[:cut], data[cut:]
        yield line, block
        line += block.count(b"\n")
    if rest:
        yield line, rest


def check_utf8(block: bytes, first_line: int, name: str, what: str) -> None:
    """:class:`InputError` naming the line of the first NUL byte or invalid UTF-8 sequence
    of a block (UTF-16 text is recognised by its byte-order mark)."""
    if first_line == 1 and block.startswith(_UTF16_BOMS):
        raise InputError(f"{name}:1: UTF-16 text; {what} files are UTF-8 (convert with iconv -f UTF-16 -t UTF-8)")
    nul = block.find(b"\x00")
    if nul >= 0:
        lineno = first_line + block.count(b"\n", 0, nul)
        raise InputError(f"{name}:{lineno}: binary data (a NUL byte); not a {what} file")
    try:
        block.decode("utf-8")
    except UnicodeDecodeError as ex:
        lineno = first_line + block.count(b"\n", 0, ex.start)
        column = ex.start - (block.rfind(b"\n", 0, ex.start) + 1) + 1
        raise InputError(f"{name}:{lineno}: not UTF-8 text (byte 0x{block[ex.start]:02x} at column {column}); "
                         f"{what} files are UTF-8") from None


@dataclass(frozen=True)
class _Format:
    kind: str                   # 'run' or 'qrels'
    fields: int                 # whitespace-separated fields per line
    dtypes: dict[int, Any]      # of every field, for pandas' C reader
    keep: tuple[int, ...]       # the fields kept after the checks


# fields read as categories become strings once per distinct value, not once per line
_RUN = _Format("run", 6, {0: object, 1: "category", 2: object, 3: "category", 4: np.float64, 5: "category"},
               (0, 2, 4))
#: The same, keeping the second field (the element type cwl_eval's cost files price).
_RUN_TYPED = _Format("run", 6, _RUN.dtypes, (0, 1, 2, 4))
_QRELS = _Format("qrels", 4, {0: object, 1: object, 2: object, 3: object}, (0, 2, 3))
_NUMBER = re.compile(rb"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_INTEGER = re.compile(r"[+-]?\d+")
_INT64 = (-(2 ** 63), 2 ** 63 - 1)


def _line_problem(fields: list[bytes], fmt: _Format) -> Optional[str]:
    """What is wrong with one non-blank line (None if nothing): the rules of the fast reader."""
    if len(fields) != fmt.fields:
        shown = b" ".join(fields).decode("utf-8", "replace")[:120]
        return f"expected {fmt.fields} whitespace-separated fields, found {len(fields)}: {shown!r}"
    qid = fields[0].decode("utf-8", "replace")
    if qid == SUMMARY_QID:
        return f"topic id {SUMMARY_QID!r} is reserved for summary lines (trec_eval, ir-measures); rename the topic"
    if fmt.kind == "run":
        score = fields[4]
        if not _NUMBER.fullmatch(score):
            low = score.lower().lstrip(b"+-")
            if low in (b"nan", b"inf", b"infinity"):
                return f"score {score.decode()!r} of topic {qid!r}, document {fields[2].decode('utf-8', 'replace')!r} " \
                       "is not a finite number"
            return f"field 5 (score) is not a number: {score.decode('utf-8', 'replace')!r}"
        if not np.isfinite(float(score)):
            return f"score {score.decode()!r} of topic {qid!r} overflows a float64"
    else:
        problem = _grade_problem(fields[3].decode("utf-8", "replace"))
        if problem:
            return f"field 4 (grade) {problem}"
    return None


def _grade_problem(text: str) -> Optional[str]:
    if not _INTEGER.fullmatch(text):
        return f"is not an integer: {text!r}"
    if not _INT64[0] <= int(text) <= _INT64[1]:
        return f"{text} is out of the int64 range (|grade| < 2^63)"
    return None


def _first_bad_line(block: bytes, first_line: int, fmt: _Format) -> Optional[tuple[int, str]]:
    """Slow scan of one block, used only after the fast reader refused it: the first bad line."""
    for offset, line in enumerate(block.split(b"\n")):
        if first_line == 1 and offset == 0 and line.startswith(b"\xef\xbb\xbf"):
            line = line[3:]
        fields = line.split()
        if fields:
            problem = _line_problem(fields, fmt)
            if problem:
                return first_line + offset, problem
    return None


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


def _parse_block(block: bytes, first_line: int, name: str, fmt: _Format) -> Optional[pd.DataFrame]:
    """One block of lines as a frame of the kept columns (None if it holds only blank lines)."""
    check_utf8(block, first_line, name, f"TREC {fmt.kind}")
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
    if df is not None and _block_is_valid(df, block, fmt):
        return df
    bad = _first_bad_line(block, first_line, fmt)
    if bad is None:   # the fast reader and the rules disagree: say where, without guessing
        last_line = first_line + block.count(b"\n")
        raise InputError(f"malformed {fmt.kind} file: {name}, lines {first_line}-{last_line}: cannot be parsed")
    raise InputError(f"malformed {fmt.kind} file: {name}:{bad[0]}: {bad[1]}")


def _block_is_valid(df: pd.DataFrame, block: bytes, fmt: _Format) -> bool:
    """The vectorised form of :func:`_line_problem` on a block pandas could parse."""
    if (df[fmt.fields - 1] == "").any():                                    # a short line
        return False
    if SUMMARY_QID.encode() in block and (df[0] == SUMMARY_QID).any():
        return False
    if fmt.kind == "run":
        return bool(np.isfinite(df[4].to_numpy()).all())
    return all(_grade_problem(g) is None for g in pd.unique(df[3]))




def _read_table(source: Any, fmt: _Format) -> tuple[pd.DataFrame, str, Optional[list[Any]]]:
    """The kept columns of every line, the input's name, and the parsed fields of its first line."""
    frames, first = [], None
    with open_input(source, fmt.kind) as (stream, name, compression):
        for first_line, block in line_blocks(stream, name, compression, fmt.kind):
            df = _parse_block(block, first_line, name, fmt)
            if df is not None:
                if first is None:
                    first = df.iloc[0].tolist()
                df = df[list(fmt.keep)]
                # one string object per distinct topic id of the block, not one per line
                codes, topics = pd.factorize(df[0])
                df[0] = topics.to_numpy(dtype=object)[codes]
                frames.append(df)
    if not frames:
        return pd.DataFrame({c: pd.Series([], dtype=object) for c in fmt.keep}), name, None
    return (frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)), name, first


def read_trec_run(source: Any, check: bool = True, name: Optional[str] = None,
                  element_type: bool = False) -> pd.DataFrame:
    """Reads a TREC run (6 fields ``qid Q0 docno rank score tag``) from a path, ``-`` or a stream.

    Returns a DataFrame with columns ``query_id, doc_id, score`` in file order (and
    ``element_type``, the second field, if ``element_type``), with each doc_id once per
    topic (:func:`drop_duplicate_docs`, unless ``check=False``); the rank field is ignored
    (the ranking is by score, as in trec_eval) and the tag of the first line is kept in
    ``frame.attrs['run_tag']``. ``name`` names the run in warnings (default: the path,
    ``<stdin>`` for ``-``).
    """
    df, shown, first = _read_table(source, _RUN_TYPED if element_type else _RUN)
    tag = str(first[-1]) if first else None
    df = df.rename(columns={0: "query_id", 1: ELEMENT_TYPE, 2: "doc_id", 4: "score"})[
        list(RUN_COLUMNS) + ([ELEMENT_TYPE] if element_type else [])]
    df["score"] = df["score"].astype(np.float64)
    if check:
        df = drop_duplicate_docs(df, name or shown)
        df.attrs[_CHECKED_ATTR] = len(df)
    df.attrs[RUN_TAG_ATTR] = tag
    return df


def read_trec_qrels(source: Any, name: Optional[str] = None) -> pd.DataFrame:
    """Reads TREC qrels (4 fields ``qid iter docno grade``) from a path, ``-`` or a stream.

    Returns a DataFrame with columns ``query_id, doc_id, relevance`` (int64), each (topic,
    doc_id) once (:func:`drop_duplicate_judgments`: the last line wins).
    """
    df, shown, _ = _read_table(source, _QRELS)
    source_name = name or shown
    if len(df) == 0:
        raise InputError(f"qrels {source_name} hold no judgments")
    grades = grades_as_int64(df[3], source_name)
    df = pd.DataFrame({"query_id": df[0], "doc_id": df[2], "relevance": grades})
    return drop_duplicate_judgments(df, source_name)


# ------------------------------------------------------------------------- rules shared by every input

def grades_as_int64(values: Any, source: str, rows: Optional[pd.DataFrame] = None) -> np.ndarray:
    """Relevance grades as int64, or :class:`InputError` naming the first bad one.

    Integers (any integer dtype, integral floats, or integer literals such as ``'2'`` and
    ``'-1'``) in the int64 range are accepted; ``1.5``, ``'2.0'``, ``'3e+09'``, NaN,
    infinities and ``2^63`` are not. ``rows`` (the frame the values come from) lets the
    error name the topic and document.
    """
    series = pd.Series(values)
    arr = series.to_numpy()

    def fail(i: int, problem: str) -> InputError:
        where = ""
        if rows is not None:
            where = f" of topic {rows['query_id'].iloc[i]!r}, document {rows['doc_id'].iloc[i]!r}"
        return InputError(f"qrels {source}: grade{where} {problem}")

    if arr.dtype.kind == "b":
        return arr.astype(np.int64)
    if arr.dtype.kind == "i":
        return arr.astype(np.int64)
    if arr.dtype.kind == "u":
        big = np.flatnonzero(arr > np.uint64(_INT64[1]))
        if len(big):
            raise fail(int(big[0]), f"{arr[big[0]]} is out of the int64 range (|grade| < 2^63)")
        return arr.astype(np.int64)
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr) | (np.floor(arr) != arr) | (np.abs(arr) >= 2.0 ** 63)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            value = float(arr[i])
            problem = "is not a finite number" if not np.isfinite(value) else (
                f"{value!r} is not an integer" if not value.is_integer() else
                f"{value!r} is out of the int64 range (|grade| < 2^63)")
            raise fail(i, problem)
        return arr.astype(np.int64)
    codes, uniques = pd.factorize(series, use_na_sentinel=False)
    converted = np.zeros(len(uniques), dtype=np.int64)
    for j, u in enumerate(uniques):
        if isinstance(u, (float, np.floating)) and np.isfinite(u) and float(u).is_integer():
            u = int(u)
        if isinstance(u, (int, np.integer)) and not isinstance(u, (bool, np.bool_)):
            u = str(int(u))
        wrong = _grade_problem(u.strip()) if isinstance(u, str) else f"{u!r} is not an integer"
        if wrong:
            raise fail(int(np.flatnonzero(codes == j)[0]), wrong)
        converted[j] = int(u)
    return converted[codes]


def check_topic_ids(frame: pd.DataFrame, kind: str, source: str) -> None:
    """Topic ids must be non-empty, without whitespace, and not ``all`` (the summary row of
    trec_eval and ir-measures output); :class:`InputError` names the first offender."""
    for qid in pd.unique(frame["query_id"]):
        text = str(qid)
        if text == SUMMARY_QID:
            raise InputError(f"{kind} {source}: topic id {SUMMARY_QID!r} is reserved for summary rows "
                             "(trec_eval, ir-measures); rename the topic")
        if not text or any(ch.isspace() for ch in text):
            raise InputError(f"{kind} {source}: topic id {text!r} is empty or contains whitespace, "
                             "which no TREC file or output line can hold")


def check_run(run: pd.DataFrame, source: str = "run") -> None:
    """Raises :class:`InputError` naming the query and document of any NaN or infinite score."""
    scores = run["score"].to_numpy(dtype=np.float64, copy=False)
    bad = ~np.isfinite(scores)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        row = run.iloc[i]
        raise InputError(f"{source}: score {scores[i]} is not finite for query {row['query_id']!r}, "
                         f"document {row['doc_id']!r} ({int(bad.sum())} such rows)")


def _pair_keys(frame: pd.DataFrame) -> np.ndarray:
    """A 64-bit hash of each row's (query_id, doc_id); equal pairs have equal keys (Python's own
    string hash, cached in each string: no copy of the ids, unlike pandas' hash_array)."""
    docs = frame["doc_id"].to_numpy(dtype=object)
    keys = np.fromiter(map(hash, docs), dtype=np.int64, count=len(docs)).view(np.uint64)
    topics = pd.factorize(frame["query_id"])[0].astype(np.uint64)
    topics *= np.uint64(0x9E3779B97F4A7C15)
    keys ^= topics
    return keys


def _repeated_rows(frame: pd.DataFrame) -> np.ndarray:
    """Positions of the rows whose (query_id, doc_id) occurs more than once (hash, then exact).

    Works in place on one array of keys, so a check of a run costs little memory beyond it."""
    if len(frame) < 2:
        return np.zeros(0, dtype=np.int64)
    sorted_keys = _pair_keys(frame)
    sorted_keys.sort()
    same = sorted_keys[1:] == sorted_keys[:-1]
    if not same.any():
        return np.zeros(0, dtype=np.int64)
    repeated = pd.Index(np.unique(sorted_keys[1:][same]))
    del sorted_keys
    candidates = np.flatnonzero(repeated.get_indexer(_pair_keys(frame)) >= 0)
    exact = frame.iloc[candidates].duplicated(["query_id", "doc_id"], keep=False).to_numpy()
    return candidates[exact]


def drop_duplicate_docs(run: pd.DataFrame, source: str = "run") -> pd.DataFrame:
    """The run with each (topic, doc_id) once: its best-scored line, i.e. the first in
    trec_eval's order (score descending compared in float32, then the larger float64
    score, then file order). One warning names the run, the count and the first case."""
    rows = _repeated_rows(run)
    if len(rows) == 0:
        return run
    sub = run.iloc[rows]
    ranked = sub.assign(_s32=float32_scores(sub["score"].to_numpy(dtype=np.float64), warn=False), _pos=rows)
    ranked = ranked.sort_values(["query_id", "doc_id", "_s32", "score", "_pos"],
                                ascending=[True, True, False, False, True], kind="stable")
    losers = ranked["_pos"].to_numpy()[ranked.duplicated(["query_id", "doc_id"], keep="first").to_numpy()]
    first = run.iloc[int(rows[0])]
    warnings.warn(f"{source}: {len(losers)} duplicate line(s) of a (topic, doc_id) dropped, the best-scored "
                  f"occurrence kept (first: topic {first['query_id']!r}, doc_id {first['doc_id']!r})",
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
        warnings.warn(f"qrels {source}: {len(conflicting)} (topic, doc_id) pair(s) judged more than once with "
                      f"different grades; the last line kept, as trec_eval does (first: topic {q!r}, doc_id {d!r}, "
                      f"grades {', '.join(map(str, seen))})", DuplicateWarning, stacklevel=3)
    keep = ~qrels.duplicated(["query_id", "doc_id"], keep="last").to_numpy()
    out = qrels[keep].reset_index(drop=True)
    out.attrs = dict(qrels.attrs)
    return out



def float32_scores(scores: np.ndarray, name: str = "run", warn: bool = True) -> np.ndarray:
    """Scores as trec_eval holds them, C floats (single precision): scores equal in float32 are
    ties. Finite scores beyond float32's range become +-inf (ties among themselves), said in
    one warning naming the run and the count (unless ``warn`` is false)."""
    with np.errstate(over="ignore"):
        narrow = scores.astype(np.float32)
    if warn:
        overflow = int((np.isinf(narrow) & np.isfinite(scores)).sum())
        if overflow:
            warnings.warn(f"{name}: {overflow} score(s) beyond the float32 range (|score| > 3.4e38) compare as "
                          "equal to +-inf, as in trec_eval, which holds scores as single-precision floats; "
                          "rescale the scores to rank them apart", UserWarning, stacklevel=3)
    return narrow
