"""ir_datasets ids (``irds:ID``): the one place that knows them.

A run or qrels argument written ``irds:ID`` (PyTerrier's spelling) names an ir_datasets
dataset: its qrels, or its scored documents as a run. :func:`register` tells the readers of
:mod:`ir_cwla.io` about the prefix (``import ir_cwla`` does it), so every path that reads
runs and qrels (the provider, :mod:`ir_cwla.meta`, the command line) accepts any id that
provides them, and none of them parses the prefix itself. ``irds:cranfield`` is served from
the package with the Cranfield grade conventions of :mod:`ir_cwla.datasets.cranfield`.

A download that fails (offline, a moved file) is reported in one line, a
:class:`DownloadError` naming the dataset, the file that could not be fetched and what to
do offline: pass a TREC file instead, or place the file where ir_datasets looks for it
(the path is in the message). ir_datasets' own log lines of a failed attempt are not shown;
those of a successful load are, once it has succeeded.
"""
from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterable, Iterator
from types import TracebackType
from typing import Any, Optional

import pandas as pd

from ir_cwla import io
from ir_cwla.datasets import cranfield
from ir_cwla.errors import DownloadError, InputError, NotFoundError

IRDS_PREFIX = "irds:"
"""Prefix marking an ir_datasets id where a file path could also be given (as in PyTerrier)."""


def dataset_id(spec: str) -> Optional[str]:
    """The ir_datasets id of an ``irds:`` spec (``'irds:cranfield'`` -> ``'cranfield'``), else None."""
    return spec[len(IRDS_PREFIX):] if isinstance(spec, str) and spec.startswith(IRDS_PREFIX) else None


def is_cranfield(dataset: str) -> bool:
    """True for the bundled collection's id (``cranfield``, ``irds:cranfield``)."""
    return (dataset_id(dataset) or dataset) == cranfield.CRANFIELD


def load(dataset: str) -> Any:
    """``ir_datasets.load`` that makes the bundled Cranfield available first.

    ``dataset`` is an ir_datasets id, with or without the ``irds:`` prefix. An unknown id
    raises :class:`KeyError` with ir_datasets' message.
    """
    import ir_datasets

    dataset = dataset_id(dataset) or dataset
    if dataset.split("/")[0] == cranfield.CRANFIELD:
        cranfield.ensure_cranfield()
    return ir_datasets.load(dataset)


def load_qrels(spec: str, minus_one: cranfield.MinusOne = "nonrel") -> pd.DataFrame:
    """Qrels of an ``irds:`` id, or of any other qrels spec, as a frame.

    Qrels of an ``irds:`` id, or of any other qrels spec (a TREC file: :func:`ir_cwla.io.as_qrels_frame`),
    as ``query_id, doc_id, relevance``.

    ``irds:cranfield`` gets the Cranfield conventions of
    :func:`ir_cwla.datasets.cranfield.cranfield_qrels` (with the chosen ``minus_one``).
    """
    if dataset_id(spec) is not None and is_cranfield(spec):
        return cranfield.cranfield_qrels(minus_one)
    return io.as_qrels_frame(spec)          # irds: ids through the registered source, checked as every qrels


def load_run(spec: str) -> pd.DataFrame:
    """The scored documents of an ``irds:`` id as a run (``query_id, doc_id, score``)."""
    return read_source(spec, "run")


@contextlib.contextmanager
def _held_log() -> Iterator[list[logging.LogRecord]]:
    """Holds ir_datasets' log lines back while a dataset loads.

    Shown once the load has succeeded, dropped if it failed (the error then says
    it all, in one line).
    """
    from ir_datasets import log

    held: list[logging.LogRecord] = []
    emit = log.TqdmHandler.emit
    log.TqdmHandler.emit = lambda handler, record: held.append(record)   # type: ignore[method-assign]
    failed = True
    try:
        yield held
        failed = False
    finally:
        log.TqdmHandler.emit = emit                                          # type: ignore[method-assign]
        if not failed:
            handler = log.TqdmHandler()
            handler.setFormatter(logging.Formatter("[%(levelname)s] %(message)s"))
            for record in held:
                handler.emit(record)


def _failed_download(tb: Optional[TracebackType]) -> Optional[Any]:
    """The ir_datasets download object whose fetch raised, found on the traceback (innermost)."""
    from ir_datasets.util import download

    found = None
    while tb is not None:
        owner = tb.tb_frame.f_locals.get("self")
        if isinstance(owner, (download.Download, download.BaseDownload)) and tb.tb_frame.f_code.co_name == "path":
            found = owner
        tb = tb.tb_next
    return found


def _download_message(spec: str, kind: str, ex: BaseException, dl: Any) -> str:
    from ir_datasets.util import download

    what = "qrels" if kind == "qrels" else "scored documents"
    if isinstance(dl, download.LocalDownload):
        hint = f" ({' '.join(str(dl._message).split())})" if getattr(dl, "_message", None) else ""
        return (f"{spec}: ir_datasets needs a local file for the {what} of {dataset_id(spec)!r}: place it at "
                f"{dl._path}{hint}, or pass a TREC {kind} file instead of {spec}")
    urls = [str(getattr(m, "url", m)) for m in getattr(dl, "mirrors", [])]
    causes = ex.args[1] if len(ex.args) > 1 and isinstance(ex.args[1], list) else [(None, ex)]
    reasons = sorted({type(cause).__name__ for _, cause in causes})
    cache = getattr(dl, "_cache_path", None)
    place = (f", or place the file at {cache} (ir_datasets then reads it without downloading)"
             if cache else "")
    return (f"{spec}: ir_datasets could not download the {what} of {dataset_id(spec)!r} from "
            f"{urls[0] if urls else 'its source'} ({', '.join(reasons)}). Offline, pass a TREC {kind} file "
            f"instead of {spec}{place}")


def write_document_lengths(dataset: str, doc_ids: Iterable[str], path: str, field: Optional[str] = None) -> int:
    """Writes the length of each document of an ir_datasets docstore to a cost file.

    Writes ``doc_id length`` lines (the length in characters of each document's text, from
    the dataset's ir_datasets docstore) to ``path``: a per-document cost file for
    ``CWLA(costs='doc:PATH')``, the U-measure's reading positions and TBG's reading times
    (scale them to seconds first). ``field`` names the text field (default: the document's
    ``default_text()``). Returns the number of documents written; an unknown doc_id is an error.
    """
    store = load(dataset).docs_store()
    ids = list(dict.fromkeys(str(d) for d in doc_ids))
    docs = store.get_many(ids)
    missing = [d for d in ids if d not in docs]
    if missing:
        raise NotFoundError(f"{dataset}: the docstore has no document {missing[0]!r} ({len(missing)} missing)")
    with open(path, "w", encoding="utf-8") as f:
        for d in ids:
            doc = docs[d]
            text = getattr(doc, field) if field is not None else doc.default_text()
            f.write(f"{d} {max(len(text), 1)}\n")
    return len(ids)


def _checked(spec: str, kind: str) -> Any:
    """The dataset of ``spec``, which must exist and provide ``kind`` (qrels or a run)."""
    dataset = dataset_id(spec) or spec
    try:
        ds = load(dataset)
    except KeyError:
        raise InputError(f"unknown ir_datasets id {dataset!r} (in {spec!r})") from None
    has = ds.has_qrels() if kind == "qrels" else ds.has_scoreddocs()
    if not has:
        raise InputError(f"ir_datasets id {dataset!r} provides no {'qrels' if kind == 'qrels' else 'scored documents'}")
    return ds


def read_source(spec: str, kind: str) -> pd.DataFrame:
    """The qrels (``kind='qrels'``) or scored documents (``'run'``) of an ``irds:ID`` spec, as a frame."""
    try:
        with _held_log():
            ds = _checked(spec, kind)
            if kind == "qrels":
                return cranfield.cranfield_qrels() if is_cranfield(spec) else pd.DataFrame(ds.qrels_iter())
            return pd.DataFrame(ds.scoreddocs_iter())
    except Exception as ex:
        dl = _failed_download(ex.__traceback__)
        if dl is None:
            raise
        raise DownloadError(_download_message(spec, kind, ex, dl)) from None


def conventions_note(qrels_spec: Any) -> Optional[str]:
    """A note on the grade conventions a qrels spec is read with (Cranfield's), or None."""
    if isinstance(qrels_spec, str) and dataset_id(qrels_spec) is not None and is_cranfield(qrels_spec):
        return cranfield.CONVENTIONS_NOTE
    return None


def register() -> None:
    """Lets :mod:`ir_cwla.io` read ``irds:ID`` and check qrels for the raw Cranfield grades.

    Lets :mod:`ir_cwla.io` read ``irds:ID`` wherever a run or qrels is accepted, and check
    every qrels for the raw Cranfield grades (:func:`ir_cwla.datasets.cranfield.warn_if_raw_grades`).
    Idempotent.
    """
    io.register_source(IRDS_PREFIX, "ir_cwla.datasets.irds:read_source")
    io.register_qrels_check("ir_cwla.datasets.cranfield:warn_if_raw_grades")
