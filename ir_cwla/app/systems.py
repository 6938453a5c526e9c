"""Real retrieval systems on Cranfield: pyterrier-pisa and bm25s, as PyTerrier transformers.

Fifteen lexical systems, none of which needs Java: PISA's BM25, DPH, PL2 and QLD with a few
parameter settings (pyterrier-pisa), and the five BM25 variants of bm25s (Lucene,
Robertson, ATIRE, BM25L, BM25+), wrapped by :class:`BM25sRetriever`. Every system is a
``pt.Transformer`` from topics (``qid, query``) to results (``qid, query, docno, score,
rank``), so it drops into ``pt.Experiment`` and into :mod:`ir_cwla.leaderboard` as is.

Text processing. PISA indexes ``title + text`` with its Porter2 stemmer and the Terrier
stopword list (one index with stemming, one without). bm25s scores the same text, lower-
cased and split by PISA's tokenizer, without the English stopwords of bm25s, and stemmed
with PISA's Porter2 stemmer unless the system name ends in ``-nostem``. Both engines use one
thread and return at most ``num_results`` (default 1000) documents per query; bm25s rows with
a score of 0 (documents that match no query term) are left out, as PISA leaves them out.
Where documents tie at the ``num_results``-th score, bm25s keeps whichever its top-k selection
(numpy's partition or numba's) happens to return, which changes with their versions:
:class:`BM25sRetriever` scores every document and keeps the first ``num_results`` in
trec_eval's order (score descending, then docno descending), so a run is the same everywhere.

Install with ``pip install ir-cwla[systems]`` (pyterrier-pisa, bm25s).
"""
from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Union

import numpy as np
import pandas as pd
import pyterrier as pt

from ir_cwla.errors import ParameterError

PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class SystemSpec:
    """One system: its engine, retrieval model, parameters and whether the text is stemmed."""

    name: str
    engine: str
    model: str
    params: Mapping[str, float] = field(default_factory=dict)
    stem: bool = True

    @property
    def description(self) -> str:
        """Human-readable summary, e.g. ``'PISA BM25 (k1=1.2, b=0.75), porter2'``."""
        params = ", ".join(f"{k}={v:g}" for k, v in self.params.items())
        engine = {"pisa": "PISA", "bm25s": "bm25s"}[self.engine]
        return f"{engine} {self.model}" + (f" ({params})" if params else "") + (", porter2" if self.stem else ", no stemming")


SYSTEMS: tuple[SystemSpec, ...] = (
    SystemSpec("PISA-BM25", "pisa", "BM25", {"k1": 0.9, "b": 0.4}),
    SystemSpec("PISA-BM25-k1.2-b0.75", "pisa", "BM25", {"k1": 1.2, "b": 0.75}),
    SystemSpec("PISA-BM25-k2-b0.9", "pisa", "BM25", {"k1": 2.0, "b": 0.9}),
    SystemSpec("PISA-BM25-nostem", "pisa", "BM25", {"k1": 0.9, "b": 0.4}, stem=False),
    SystemSpec("PISA-DPH", "pisa", "DPH"),
    SystemSpec("PISA-PL2-c1", "pisa", "PL2", {"c": 1.0}),
    SystemSpec("PISA-PL2-c7", "pisa", "PL2", {"c": 7.0}),
    SystemSpec("PISA-QLD-mu1000", "pisa", "QLD", {"mu": 1000.0}),
    SystemSpec("PISA-QLD-mu100", "pisa", "QLD", {"mu": 100.0}),
    SystemSpec("bm25s-lucene", "bm25s", "lucene", {"k1": 1.5, "b": 0.75}),
    SystemSpec("bm25s-robertson", "bm25s", "robertson", {"k1": 1.5, "b": 0.75}),
    SystemSpec("bm25s-atire", "bm25s", "atire", {"k1": 1.5, "b": 0.75}),
    SystemSpec("bm25s-bm25l", "bm25s", "bm25l", {"k1": 1.5, "b": 0.75, "delta": 0.5}),
    SystemSpec("bm25s-bm25+", "bm25s", "bm25+", {"k1": 1.5, "b": 0.75, "delta": 0.5}),
    SystemSpec("bm25s-lucene-nostem", "bm25s", "lucene", {"k1": 1.5, "b": 0.75}, stem=False),
)
"""Every system :func:`cranfield_systems` can build, in report order."""

SMOKE_SYSTEMS: tuple[str, ...] = ("PISA-BM25", "PISA-DPH", "PISA-QLD-mu1000", "bm25s-lucene", "bm25s-bm25l")
"""A reduced set (both engines, four models) for smoke tests and quick runs."""


def system_specs(names: Sequence[str] | None = None) -> list[SystemSpec]:
    """The specs of ``names`` (all of :data:`SYSTEMS` when None), in the order given."""
    by_name = {s.name: s for s in SYSTEMS}
    if names is None:
        return list(SYSTEMS)
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise ParameterError(f"unknown system(s) {unknown}; known: {', '.join(by_name)}")
    return [by_name[n] for n in names]


def systems_table(names: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per system: ``name, engine, model, params, stemming``."""
    return pd.DataFrame([{"name": s.name, "engine": s.engine, "model": s.model,
                          "params": ", ".join(f"{k}={v:g}" for k, v in s.params.items()),
                          "stemming": "porter2" if s.stem else "none"} for s in system_specs(names)])


@contextlib.contextmanager
def silenced_output() -> Iterator[None]:
    """Sends file descriptors 1 and 2 to /dev/null (PISA's C++ logs and progress bars)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    saved = [os.dup(1), os.dup(2)]
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, devnull):
            os.close(fd)


def tokenizer(stem: bool = True) -> Callable[[str], list[str]]:
    """The text processing of the bm25s systems.

    PISA's tokenizer (lower-cased words), the English stopwords of bm25s removed,
    then PISA's Porter2 stemmer when ``stem``.
    """
    from bm25s.stopwords import STOPWORDS_EN
    from pyterrier_pisa import tokenize

    stops = frozenset(STOPWORDS_EN)

    def tokens(text: str) -> list[str]:
        words = " ".join(w for w in tokenize(text, "none") if w not in stops)
        return tokenize(words, "porter2") if stem else words.split()

    return tokens


class BM25sRetriever(pt.Transformer):
    """A bm25s index as a PyTerrier retriever (topics ``qid, query`` -> ranked results).

    ``model`` is an indexed ``bm25s.BM25``; ``docnos[i]`` is the docno of its document i;
    ``tokenize`` turns a query into the tokens the index was built from. Returns the top
    ``num_results`` documents with a positive score, ranked from 0 as PyTerrier does.
    """

    def __init__(self, model: Any, docnos: Sequence[str], tokenize: Callable[[str], list[str]],
                 num_results: int = 1000, name: str = "bm25s"):
        self.model = model
        self.docnos = np.asarray(docnos, dtype=object)
        self.tokenize = tokenize
        self.num_results = num_results
        self.name = name
        # each document's place in docno order: the tie-break of the cut (transform)
        self._docno_order = np.argsort(np.argsort(self.docnos.astype(str), kind="stable"), kind="stable")

    def __repr__(self) -> str:
        return f"BM25sRetriever({self.name!r}, num_results={self.num_results})"

    def transform(self, topics: pd.DataFrame) -> pd.DataFrame:
        """The top ``num_results`` documents of every query, as a PyTerrier results frame."""
        pt.validate.query_frame(topics, extra_columns=["query"])
        k = min(self.num_results, len(self.docnos))
        if not len(topics):
            return topics.assign(docno=pd.Series(dtype=object), score=pd.Series(dtype=float),
                                 rank=pd.Series(dtype=int))
        tokens = [self.tokenize(q) for q in topics["query"]]
        # every document scored, then the first k in trec_eval's order (score descending, docno
        # descending): bm25s' own top-k keeps an arbitrary subset of the documents tied at the k-th score
        every, scores = self.model.retrieve(tokens, k=len(self.docnos), show_progress=False, n_threads=1)
        order = np.lexsort((-self._docno_order[every], -scores.astype(np.float64)), axis=1)[:, :k]
        docs, scores = np.take_along_axis(every, order, axis=1), np.take_along_axis(scores, order, axis=1)
        keep = scores > 0
        rows = np.repeat(np.arange(len(topics)), k).reshape(docs.shape)[keep]
        out = topics.iloc[rows].reset_index(drop=True)
        out["docno"] = self.docnos[docs[keep]]
        out["score"] = scores[keep].astype(np.float64)
        out["rank"] = (np.cumsum(keep, axis=1) - 1)[keep]
        return out


def cranfield_corpus() -> list[dict[str, str]]:
    """The 1,400 Cranfield documents as PyTerrier dicts: ``docno`` and ``text`` (title + text)."""
    from ir_cwla.datasets import cranfield

    return [{"docno": d.doc_id, "text": d.default_text()} for d in cranfield.dataset().docs_iter()]


def _pisa_system(spec: SystemSpec, index: Any, num_results: int) -> pt.Transformer:
    p = spec.params
    if spec.model == "BM25":
        return index.bm25(k1=p["k1"], b=p["b"], num_results=num_results, threads=1)
    if spec.model == "DPH":
        return index.dph(num_results=num_results, threads=1)
    if spec.model == "PL2":
        return index.pl2(c=p["c"], num_results=num_results, threads=1)
    if spec.model == "QLD":
        return index.qld(mu=p["mu"], num_results=num_results, threads=1)
    raise ParameterError(f"{spec.name}: PISA has no model {spec.model!r}")


def build_systems(corpus: Iterable[Mapping[str, str]], workdir: PathLike, names: Sequence[str] | None = None,
                  num_results: int = 1000) -> dict[str, pt.Transformer]:
    """Indexes ``corpus`` (dicts with ``docno`` and ``text``) and returns the named systems.

    PISA indexes are written under ``workdir`` (one per stemming setting that a chosen
    system needs); bm25s indexes live in memory. Returns ``{name: transformer}`` in the
    order of ``names`` (default: all of :data:`SYSTEMS`).
    """
    import bm25s
    from pyterrier_pisa import PisaIndex

    specs = system_specs(names)
    docs = list(corpus)
    docnos = [d["docno"] for d in docs]
    pisa_indexes: dict[bool, Any] = {}
    bm25s_tokens: dict[bool, list[list[str]]] = {}
    systems: dict[str, pt.Transformer] = {}
    for spec in specs:
        if spec.engine == "pisa":
            if spec.stem not in pisa_indexes:
                path = Path(workdir) / f"pisa-{'porter2' if spec.stem else 'none'}"
                index = PisaIndex(str(path), stemmer="porter2" if spec.stem else "none", overwrite=True)
                with silenced_output():
                    index.index(docs)
                pisa_indexes[spec.stem] = index
            with silenced_output():  # PISA compresses the index for each model on first use
                systems[spec.name] = _pisa_system(spec, pisa_indexes[spec.stem], num_results)
        elif spec.engine == "bm25s":
            tokenize = tokenizer(spec.stem)
            if spec.stem not in bm25s_tokens:
                bm25s_tokens[spec.stem] = [tokenize(d["text"]) for d in docs]
            model = bm25s.BM25(method=spec.model, **spec.params)
            model.index(bm25s_tokens[spec.stem], show_progress=False)
            systems[spec.name] = BM25sRetriever(model, docnos, tokenize, num_results, spec.name)
        else:
            raise ParameterError(f"{spec.name}: unknown engine {spec.engine!r}")
    return systems


def cranfield_systems(workdir: PathLike, names: Sequence[str] | None = None,
                      num_results: int = 1000) -> dict[str, pt.Transformer]:
    """The named systems (default all 15 of :data:`SYSTEMS`), indexed on the bundled Cranfield.

    ``workdir`` receives the PISA indexes (a few MB). Works offline: the collection comes
    from the package (see :mod:`ir_cwla.datasets`).
    """
    return build_systems(cranfield_corpus(), workdir, names, num_results)
