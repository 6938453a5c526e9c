"""Reading runs and qrels: TREC files and streams, DataFrames, dicts, namedtuples, named sources.

Everything that enters ir_cwla passes through here and leaves as a pandas DataFrame with
the ir-measures column names (``query_id, doc_id, score`` for a run, ``query_id, doc_id,
relevance`` for qrels), checked and deduplicated by one set of rules, before any backend
(ours or trec_eval through ir-measures) sees it:

* **One read.** A TREC input is a path, ``-`` (stdin), ``/dev/stdin``, a process
  substitution or a FIFO, plain or compressed (gzip, bzip2, xz: recognised from its first
  bytes, not its name). It is read exactly once, as a stream, in blocks of lines
  (:mod:`ir_cwla.textstream`) parsed by pandas' C reader; an error names the file
  (``<stdin>`` for ``-``) and the line.
* **Lines.** A run line has exactly 6 whitespace-separated fields ``qid Q0 docno rank score
  tag``, a qrels line exactly 4 ``qid iter docno grade`` (the format of trec_eval and
  ir-measures); blank lines are skipped; text is UTF-8. Scores are finite numbers, grades
  integers in the int64 range (:func:`grades_as_int64`). A run's second field (``Q0``, the
  element type cwl_eval's cost files price) is kept only when asked for (``element_type``). Topic ids are non-empty, contain no
  whitespace and are not ``all``, the summary row of trec_eval and ir-measures
  (:func:`check_topic_ids`).
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
* **trec_eval's grade limit.** trec_eval's time and memory grow with the largest grade, so
  grades above :data:`TREC_EVAL_MAX_GRADE` are refused when a measure computed by trec_eval
  (pytrec_eval) is asked for (:func:`check_grades_for_backends`); C/W/L/A measures take any
  int64 grade.
"""
from __future__ import annotations

import csv
import io
import os
import re
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional, Union

import numpy as np
import pandas as pd

from ir_cwla.errors import DuplicateWarning, InputError, ParameterError, ScoreOverflowWarning
from ir_cwla.textstream import STDIN, check_utf8, input_name, line_blocks, open_input  # noqa: F401

RUN_COLUMNS = ("query_id", "doc_id", "score")
#: A TREC run's second column (``Q0``): the type of each ranked element, which cwl_eval's
#: cost files price; kept only when asked for (``element_type=True``).
ELEMENT_TYPE = "element_type"
QREL_COLUMNS = ("query_id", "doc_id", "relevance")
PathLike = Union[str, "os.PathLike[str]"]

SUMMARY_QID = "all"
"""The topic id of summary rows in trec_eval's and ir-measures' output: refused as a topic id."""

TREC_EVAL_MAX_GRADE = 2 ** 16
"""The largest grade handed to trec_eval (pytrec_eval). trec_eval allocates and scans arrays
as long as the largest grade for every topic: a grade of 16,777,216 took 3.4 s and 155 MB
for 50 topics, one of 10^9 made an evaluation grow to 22 GB. C/W/L/A measures take any
int64 grade."""

RUN_TAG_ATTR = "run_tag"
"""``frame.attrs`` key of a TREC run's tag (the sixth field of its first line)."""

_CHECKED_ATTR = "ir_cwla_checked_rows"


# ------------------------------------------------------------------------- TREC tables

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


def release_freed_memory() -> None:
    """Hands the C heap's freed memory back to the system (glibc's ``malloc_trim``; nothing
    elsewhere). pandas' parser frees a block's transient buffers and strings to the heap,
    which glibc keeps; without this, a large run's peak memory grows with every block."""
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)


def _malloc_trim() -> Any:
    try:
        import ctypes

        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


_MALLOC_TRIM = _malloc_trim()


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
                release_freed_memory()
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
    release_freed_memory()
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


# ------------------------------------------------------------------------- named sources and checks

Source = Callable[[str, str], pd.DataFrame]
SOURCES: dict[str, Source] = {}
"""Readers of named sources, by prefix: ``SOURCES['irds:'](spec, kind)`` with kind 'run' or 'qrels'."""

QrelsCheck = Callable[[pd.DataFrame, str, Optional[Sequence[Any]]], None]
QRELS_CHECKS: dict[str, QrelsCheck] = {}
"""Checks run on every qrels frame, by name (see :func:`register_qrels_check`)."""


def _lazy(target: Union[str, Callable[..., Any]]) -> Callable[..., Any]:
    """``target``, or for a ``'module:function'`` string a function that imports it on first call
    (so registering a hook imports nothing: ``import ir_cwla`` does not load ``ir_cwla.datasets``)."""
    if not isinstance(target, str):
        return target
    module, _, name = target.partition(":")
    loaded: list[Callable[..., Any]] = []

    def call(*args: Any) -> Any:
        if not loaded:
            import importlib

            loaded.append(getattr(importlib.import_module(module), name))
        return loaded[0](*args)

    call.__module__, call.__qualname__ = module, name
    return call


def register_source(prefix: str, reader: Union[str, Source]) -> None:
    """Lets every run and qrels argument be a string ``PREFIX...`` read by ``reader(spec, kind)``.

    ``kind`` is ``'run'`` or ``'qrels'``; the reader returns a DataFrame with ir-measures (or
    PyTerrier) column names. ``reader`` may be a ``'module:function'`` string, imported when a
    spec is first read. ``import ir_cwla`` registers ``irds:`` this way
    (``'ir_cwla.datasets.irds:read_source'``), so the engine never needs to know about ir_datasets.
    """
    SOURCES[prefix] = _lazy(reader)


def register_qrels_check(check: Union[str, QrelsCheck]) -> None:
    """Runs ``check(qrels, source, measures)`` on every qrels read (after the rules above).

    ``qrels`` is the checked frame, ``source`` names it, ``measures`` are the measures it
    will be used with (None where unknown, e.g. inside the ir-measures provider). A check
    may warn or raise; it may be a ``'module:function'`` string, imported on the first qrels
    read. Registered under its qualified name, so registering again (or after
    ``importlib.reload``) replaces it. ``import ir_cwla`` registers the raw-Cranfield check
    this way.
    """
    check = _lazy(check)
    QRELS_CHECKS[f"{check.__module__}.{check.__qualname__}"] = check


def is_named_source(spec: Any) -> bool:
    """True if ``spec`` is a string read by a registered source (e.g. ``irds:ID``), not a file."""
    return isinstance(spec, str) and _source_of(spec) is not None


def _source_of(spec: str) -> Optional[Source]:
    for prefix, reader in SOURCES.items():
        if spec.startswith(prefix):
            return reader
    return None


# ------------------------------------------------------------------------- conversion of any input

def _from_records(records: Iterable[Any], columns: tuple[str, ...]) -> pd.DataFrame:
    rows = []
    for rec in records:
        if isinstance(rec, Mapping):
            rows.append(tuple(rec[c] for c in columns))
        else:
            rows.append(tuple(getattr(rec, c) for c in columns))
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
        source = _source_of(obj) if isinstance(obj, str) else None
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
        df = _normalise_frame(_from_records(obj, columns), columns, kind)
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
    from: its path or ``<stdin>``). A frame this function
    returned is not checked again. With ``element_type``, the frame also has the run's
    ``element_type`` column (a TREC file's second field; a DataFrame must have one).
    """
    columns = RUN_COLUMNS + ((ELEMENT_TYPE,) if element_type else ())
    if element_type and not (isinstance(run, (str, os.PathLike, pd.DataFrame)) or hasattr(run, "read")):
        raise InputError(f"{name}: element types come from a TREC run's second field or a DataFrame's "
                         f"{ELEMENT_TYPE!r} column, not from a {type(run).__name__}")
    if isinstance(run, pd.DataFrame) and is_checked_run(run) and list(run.columns) == list(columns):
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
    df.attrs[_CHECKED_ATTR] = len(df)
    return df


def is_checked_run(run: pd.DataFrame) -> bool:
    """True for a frame :func:`as_run_frame` (or the file reader) returned: every rule applied,
    each (topic, doc_id) once, string ids."""
    return run.attrs.get(_CHECKED_ATTR) == len(run) and list(run.columns[:3]) == list(RUN_COLUMNS)


def as_qrels_frame(qrels: Any, name: Optional[str] = None, measures: Optional[Sequence[Any]] = None) -> pd.DataFrame:
    """Any qrels that ir-measures accepts (and a TREC file, ``-`` or a registered source such
    as an ``irds:`` id, see :func:`register_source`) as a checked DataFrame.

    Grades become int64 (:func:`grades_as_int64`), each (topic, doc_id) is kept once (its
    last line, :func:`drop_duplicate_judgments`), topic ids are checked, and the registered
    qrels checks run (:func:`register_qrels_check`; ``measures``, if known, tells them what
    the qrels will be used for). ``name`` names the qrels in messages. A frame this
    function returned is not checked again.
    """
    if isinstance(qrels, pd.DataFrame) and qrels.attrs.get(_CHECKED_ATTR) == len(qrels) \
            and list(qrels.columns) == list(QREL_COLUMNS):
        return qrels
    source = name or (input_name(qrels) if isinstance(qrels, (str, os.PathLike)) else f"<{type(qrels).__name__}>")
    df, from_file = _as_frame(qrels, QREL_COLUMNS, "qrels")
    if not from_file:
        if len(df) == 0:
            raise InputError(f"qrels {source} hold no judgments")
        df = df.assign(relevance=grades_as_int64(df["relevance"], source, rows=df))
        df = drop_duplicate_judgments(df, source)
        check_topic_ids(df, "qrels", source)
    for check in QRELS_CHECKS.values():
        check(df, source, measures)
    df.attrs[_CHECKED_ATTR] = len(df)
    return df


# ------------------------------------------------------------------------- what backends can take

def backend_of(measure: Any) -> Optional[str]:
    """The ir-measures provider that computes ``measure`` in ``ir_measures.DefaultPipeline``
    (the first available one that supports it, as the pipeline chooses), or None."""
    import ir_measures

    for provider in ir_measures.DefaultPipeline.providers:
        try:
            if provider.is_available() and provider.supports(measure):
                return provider.NAME
        except Exception:   # a provider that cannot judge the measure does not compute it
            continue
    return None


def check_grades_for_backends(qrels: pd.DataFrame, measures: Sequence[Any], source: str = "qrels") -> None:
    """Refuses grades above :data:`TREC_EVAL_MAX_GRADE` when a measure computed by trec_eval
    (pytrec_eval) is asked for; C/W/L/A measures and other providers take any int64 grade."""
    if not len(qrels):
        return
    top = int(qrels["relevance"].max())
    if top <= TREC_EVAL_MAX_GRADE:
        return
    by_trec_eval = [str(m) for m in measures if backend_of(m) == "pytrec_eval"]
    if by_trec_eval:
        raise InputError(f"qrels {source}: grade {top} is above {TREC_EVAL_MAX_GRADE}, the largest grade ir_cwla "
                         f"gives trec_eval, whose time and memory grow with the largest grade; measures computed by "
                         f"trec_eval here: {', '.join(by_trec_eval[:5])}. Rescale the grades, or use C/W/L/A "
                         "measures (e.g. CWLA(C='P', A='ERG', rel=1)@10 for P@10), which take any int64 grade")


# ------------------------------------------------------------------------- depth

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
                          "rescale the scores to rank them apart", ScoreOverflowWarning, stacklevel=3)
    return narrow


def trec_order(topics: np.ndarray, scores: np.ndarray, docs: np.ndarray) -> np.ndarray:
    """The permutation sorting rows by topic code ascending, score descending, doc_id
    descending (string order): trec_eval's order, given :func:`float32_scores`.

    Sorts on the numbers first and compares doc_id strings only within runs of tied scores.
    """
    order = np.lexsort((-scores, topics))
    ts, ss = topics[order], scores[order]
    tied = (ts[1:] == ts[:-1]) & (ss[1:] == ss[:-1])
    if tied.any():
        in_tie = np.r_[tied, False] | np.r_[False, tied]
        pos = np.flatnonzero(in_tie)
        block = np.cumsum(np.r_[True, ~tied])[pos]        # id of each tie block
        codes, _ = pd.factorize(docs[order[pos]], sort=True)
        order[pos] = order[pos][np.lexsort((-codes, block))]
    return order


def top_ranked(run: pd.DataFrame, depth: int) -> pd.DataFrame:
    """The first ``depth`` documents of every topic in trec_eval's order (:func:`trec_order`):
    trec_eval's ``-M``. Rows keep their order. (Scores beyond float32's range are not warned
    about here: the scoring that follows says so, naming the run.)
    """
    if depth < 1:
        raise ParameterError(f"depth must be >= 1, got {depth}")
    q_codes, _ = pd.factorize(run["query_id"])
    order = trec_order(q_codes, float32_scores(run["score"].to_numpy(dtype=np.float64), warn=False),
                       run["doc_id"].to_numpy(dtype=object))
    sq = q_codes[order]
    starts = np.r_[0, np.flatnonzero(sq[1:] != sq[:-1]) + 1]
    counts = np.diff(np.r_[starts, len(order)])
    rank = np.arange(len(order)) - np.repeat(starts, counts)
    keep = np.zeros(len(run), dtype=bool)
    keep[order[rank < depth]] = True
    out = run[keep].reset_index(drop=True)
    out.attrs = dict(run.attrs)
    if run.attrs.get(_CHECKED_ATTR) == len(run):     # part of a checked run is checked
        out.attrs[_CHECKED_ATTR] = len(out)
    return out
