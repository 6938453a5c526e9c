"""Reading runs and qrels: TREC files, DataFrames, dicts, namedtuples, ir_datasets ids.

Everything that enters ir_cwla passes through here and leaves as a pandas DataFrame with
the ir-measures column names (``query_id, doc_id, score`` for a run, ``query_id, doc_id,
relevance`` for qrels). Named sources (``irds:ID``) are read by the readers registered with
:func:`register_source`. Bad input fails loudly: a malformed TREC line names its file and
line number, a NaN or infinite score names its query and document.
"""
from __future__ import annotations

import gzip
import io
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np
import pandas as pd

RUN_COLUMNS = ("query_id", "doc_id", "score")
#: A TREC run's second column (``Q0``): the type of each ranked element, which cwl_eval's
#: cost files price; kept only when asked for (``element_type=True``).
ELEMENT_TYPE = "element_type"
QREL_COLUMNS = ("query_id", "doc_id", "relevance")
PathLike = Union[str, "os.PathLike[str]"]


class InputError(ValueError):
    """A run or qrels input that cannot be read as it is (the message says where)."""


def _open_text(path: Path):
    with open(path, "rb") as f:
        magic = f.read(2)
    if magic == b"\x1f\x8b":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8")
    return open(path, encoding="utf-8")


def _first_bad_line(path: Path, n_fields: int, numeric: dict[int, type]) -> Optional[str]:
    """Slow scan used only after the fast reader failed: find and describe the first bad line."""
    with _open_text(path) as f:
        for lineno, line in enumerate(f, start=1):
            parts = line.split()
            if not parts:
                return f"{path}:{lineno}: empty line"
            if len(parts) != n_fields:
                return f"{path}:{lineno}: expected {n_fields} whitespace-separated fields, found {len(parts)}: {line.strip()[:120]!r}"
            for col, typ in numeric.items():
                try:
                    typ(parts[col])
                except ValueError:
                    return f"{path}:{lineno}: field {col + 1} is not a number: {parts[col]!r}"
    return None


def _read_table(path: PathLike, names: list[str], dtypes: dict[str, Any], numeric: dict[int, type],
                kind: str) -> pd.DataFrame:
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{kind} file not found: {path}")
    if path.is_dir():
        raise InputError(f"{kind} path is a directory, not a file: {path}")
    def read(types):
        with _open_text(path) as f:
            return pd.read_csv(f, sep=r"\s+", header=None, names=names, dtype=types,
                               engine="c", skip_blank_lines=False, na_filter=False)

    try:
        return read(dtypes)
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError) as ex:
        problem = _first_bad_line(path, len(names), numeric)
        if problem is not None:
            raise InputError(f"malformed {kind} file: {problem}") from ex
    # every line is well-formed but some number is spelled 'nan', 'inf', ...: read it as such
    df = read(str)
    for col in numeric:
        df[names[col]] = df[names[col]].astype(float)
    return df


def read_trec_run(path: PathLike, check: bool = True, element_type: bool = False) -> pd.DataFrame:
    """Reads a TREC run file (6 columns ``qid Q0 docno rank score runid``; gzip or plain).

    Returns a DataFrame with columns ``query_id, doc_id, score`` in file order (and
    ``element_type``, the second column, if ``element_type``). The rank column is ignored
    (the ranking is by score, as in trec_eval).
    """
    names = ["query_id", "q0", "doc_id", "rank", "score", "run_id"]
    df = _read_table(path, names, {"query_id": str, "q0": str, "doc_id": str, "rank": str,
                                   "score": np.float64, "run_id": str},
                     {4: float}, "run")
    df = df.rename(columns={"q0": ELEMENT_TYPE})[list(RUN_COLUMNS) + ([ELEMENT_TYPE] if element_type else [])]
    if check:
        check_run(df, source=str(path))
    return df


def read_trec_qrels(path: PathLike) -> pd.DataFrame:
    """Reads a TREC qrels file (4 columns ``qid iter docno grade``; gzip or plain).

    Returns a DataFrame with columns ``query_id, doc_id, relevance`` (relevance as int64).
    """
    names = ["query_id", "iteration", "doc_id", "relevance"]
    df = _read_table(path, names, {"query_id": str, "iteration": str, "doc_id": str,
                                   "relevance": np.int64}, {3: int}, "qrels")
    return df[list(QREL_COLUMNS)]


def check_run(run: pd.DataFrame, source: str = "run") -> None:
    """Raises :class:`InputError` naming the query and document of any NaN or infinite score."""
    scores = run["score"].to_numpy(dtype=np.float64, copy=False)
    bad = ~np.isfinite(scores)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        row = run.iloc[i]
        raise InputError(f"{source}: score {scores[i]} is not finite for query {row['query_id']!r}, "
                         f"document {row['doc_id']!r} ({int(bad.sum())} such rows)")


Source = Callable[[str, str], pd.DataFrame]
SOURCES: dict[str, Source] = {}
"""Readers of named sources, by prefix: ``SOURCES['irds:'](spec, kind)`` with kind 'run' or 'qrels'."""


def register_source(prefix: str, reader: Source) -> None:
    """Lets every run and qrels argument be a string ``PREFIX...`` read by ``reader(spec, kind)``.

    ``kind`` is ``'run'`` or ``'qrels'``; the reader returns a DataFrame with ir-measures (or
    PyTerrier) column names. :mod:`ir_cwla.datasets` registers ``irds:`` this way, so the
    engine never needs to know about ir_datasets.
    """
    SOURCES[prefix] = reader


def is_named_source(spec: Any) -> bool:
    """True if ``spec`` is a string read by a registered source (e.g. ``irds:ID``), not a file."""
    return isinstance(spec, str) and _source_of(spec) is not None


def _source_of(spec: str) -> Optional[Source]:
    for prefix, reader in SOURCES.items():
        if spec.startswith(prefix):
            return reader
    return None


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
        out = out.astype({"query_id": str, "doc_id": str})
    return out


def _as_frame(obj: Any, columns: tuple[str, ...], kind: str, reader) -> pd.DataFrame:
    """The shared conversion of a run or qrels input to a DataFrame with ``columns``."""
    if isinstance(obj, (str, os.PathLike)):
        source = _source_of(str(obj)) if isinstance(obj, str) else None
        if source is None:
            return reader(obj)
        df = _normalise_frame(source(obj, kind), columns, kind)
    elif isinstance(obj, pd.DataFrame):
        df = _normalise_frame(obj, columns, kind)
    elif isinstance(obj, Mapping):
        df = _from_dict_of_dict(obj, columns)
    elif isinstance(obj, Iterable):
        df = _from_records(obj, columns)
    else:
        raise InputError(f"cannot read {kind} from {type(obj).__name__}")
    value = columns[-1]
    if len(df) and df[value].dtype.kind not in "fiu":
        try:
            df = df.assign(**{value: pd.to_numeric(df[value])})
        except (ValueError, TypeError) as ex:
            raise InputError(f"{kind}: column {value!r} is not numeric ({ex})") from ex
    return df


def as_run_frame(run: Any, name: str = "run", element_type: bool = False) -> pd.DataFrame:
    """Any run that ir-measures accepts (and a TREC file path or a named source) as a DataFrame.

    Accepted: a DataFrame with ``query_id, doc_id, score`` (or PyTerrier's ``qid, docno,
    score``); a dict ``{qid: {docid: score}}``; an iterable of ``ScoredDoc`` namedtuples or
    dicts; a path to a TREC run file; a registered source such as an ``irds:`` id of a dataset
    that provides scored docs (:func:`register_source`). With ``element_type``, the frame also
    has the run's ``element_type`` column (a TREC file's second column; a DataFrame must have
    one).
    """
    if element_type:
        if not isinstance(run, (str, os.PathLike, pd.DataFrame)):
            raise InputError(f"{name}: element types come from a TREC run file's second column or a DataFrame's "
                             f"{ELEMENT_TYPE!r} column, not from a {type(run).__name__}")
        columns = ("query_id", "doc_id", ELEMENT_TYPE, "score")     # the value column last
        df = _as_frame(run, columns, "run", lambda path: read_trec_run(path, element_type=True))
        check_run(df, source=name)
        return df
    df = _as_frame(run, RUN_COLUMNS, "run", read_trec_run)
    check_run(df, source=name)
    return df


def as_qrels_frame(qrels: Any) -> pd.DataFrame:
    """Any qrels that ir-measures accepts (and a TREC file path or a registered source such as
    an ``irds:`` id, see :func:`register_source`) as a DataFrame."""
    df = _as_frame(qrels, QREL_COLUMNS, "qrels", read_trec_qrels)
    if len(df) and not np.isfinite(df["relevance"].to_numpy(dtype=np.float64)).all():
        raise InputError("qrels: relevance grades must be finite numbers")
    return df
