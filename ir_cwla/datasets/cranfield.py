"""The bundled Cranfield collection, offline, and its two grading pitfalls.

Cranfield 1400 (1,400 aerodynamics abstracts, 225 queries, 1,837 graded judgments) ships
inside the package as ``ir_cwla/data/cran.tar.gz``, the exact archive ir_datasets serves
under the id ``cranfield``. :func:`ensure_cranfield` copies it into the ir_datasets cache
(``$IR_DATASETS_HOME/cranfield/cran.tar.gz``, default ``~/.ir_datasets``) when it is not
there yet, after which ``ir_datasets.load('cranfield')`` and
``pt.get_dataset('irds:cranfield')`` work offline (ir_datasets does not re-check the
checksum of a file already in its cache, so it never tries to download).

Note that ir_datasets reads ``IR_DATASETS_HOME`` once, when it is imported; set it before.

Two pitfalls of the Cranfield judgments, both of which change reported numbers:

1. **Grade direction.** Cleverdon's scale (``cranqrel.readme``) runs the wrong way for
   graded measures: 1 = "a complete answer to the question", 2 = "a high degree of
   relevance", 3 = "useful", 4 = "minimum interest" (5 = "no interest" is never listed).
   ir_datasets passes the raw values through (and its grade labels assume the opposite
   direction). :func:`cranfield_qrels` remaps ``grade -> 5 - grade`` (1->4, 2->3, 3->2,
   4->1) so that a larger grade means more relevant, as every graded measure assumes.
   Binary relevance (grade >= 1) is unchanged by the remap.
2. **Grade -1.** Every query has exactly one judgment with grade -1, which the readme does
   not explain. It appears to mark the paper the query was written from (BM25 ranks it
   first for 90 of the 225 queries), so counting it as relevant would reward retrieving
   the source of the question's wording. The convention here (``minus_one='nonrel'``, the
   default) keeps it as a *judged non-relevant* document (grade 0), which is also what
   ir_datasets and ir-measures do with the raw grades, so binary measures agree with them.
   ``minus_one='drop'`` removes those judgments (the documents become unjudged) and
   ``minus_one='max'`` counts them as complete answers (grade 4).
"""
from __future__ import annotations

import os
import shutil
import tempfile
import warnings
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Literal, Optional

import pandas as pd

from ir_cwla.errors import InputError, ParameterError, RawCranfieldWarning
from ir_cwla.measures import is_cwla

CRANFIELD = "cranfield"
"""The ir_datasets id of the bundled collection."""

CRANFIELD_GRADE_REMAP = {1: 4, 2: 3, 3: 2, 4: 1}
"""Cleverdon's grades (1 = complete answer ... 4 = minimum interest) to larger-is-better."""

CONVENTIONS_NOTE = ("irds:cranfield grades remapped 1->4, 2->3, 3->2, 4->1 (larger is more relevant); "
                    "grade -1 counts as judged non-relevant (see ir_cwla.datasets.cranfield)")
"""What ``ir-cwla`` says on stderr when it reads ``irds:cranfield``."""

MinusOne = Literal["nonrel", "drop", "max"]
MINUS_ONE_CONVENTIONS: dict[str, str] = {
    "nonrel": "grade -1 (the query's source paper) is judged non-relevant: grade 0",
    "drop": "grade -1 judgments are removed: those documents are unjudged",
    "max": "grade -1 documents count as complete answers: grade 4",
}


def bundled_cranfield_archive() -> Path:
    """Path of the Cranfield archive shipped as package data (``ir_cwla/data/cran.tar.gz``)."""
    return Path(str(resources.files("ir_cwla") / "data" / "cran.tar.gz"))


def cranfield_cache_path() -> Path:
    """Where ir_datasets looks for ``cran.tar.gz`` in its cache.

    This is ``$IR_DATASETS_HOME/cranfield/cran.tar.gz`` as ir_datasets resolved it when it
    was imported (it reads the variable only then), taken from the dataset itself.
    """
    import ir_datasets

    docs = ir_datasets.registry[CRANFIELD].docs_handler()
    return Path(docs.docs_path(force=False)).parent / "cran.tar.gz"


def ensure_cranfield() -> Path:
    """Places the bundled archive in the ir_datasets cache unless a copy is already there.

    Returns the path of the cached archive. Safe to call from several processes at once:
    the copy is written to a temporary file beside the target and renamed into place.
    """
    target = cranfield_cache_path()
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".cran.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        shutil.copyfile(bundled_cranfield_archive(), tmp)
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return target


def dataset() -> Any:
    """``ir_datasets.load('cranfield')``, with the bundled archive placed in its cache first."""
    import ir_datasets

    ensure_cranfield()
    return ir_datasets.load(CRANFIELD)


def remap_cranfield_grades(qrels: pd.DataFrame, minus_one: MinusOne = "nonrel") -> pd.DataFrame:
    """Cranfield qrels with larger-is-better grades and the grade -1 convention applied.

    ``qrels`` has a ``relevance`` column of raw Cranfield grades (-1, 1..4); the result is a
    copy with grades 1..4 mapped by :data:`CRANFIELD_GRADE_REMAP` and grade -1 handled as
    ``minus_one`` says (see :data:`MINUS_ONE_CONVENTIONS`). Any other grade is an error.
    """
    if minus_one not in MINUS_ONE_CONVENTIONS:
        raise ParameterError(f"minus_one must be one of {sorted(MINUS_ONE_CONVENTIONS)}, got {minus_one!r}")
    raw = qrels["relevance"]
    unknown = sorted(set(raw.unique().tolist()) - set(CRANFIELD_GRADE_REMAP) - {-1})
    if unknown:
        raise InputError(f"not Cranfield grades (expected -1, 1, 2, 3, 4): {unknown}")
    minus_one_grade = {"nonrel": 0, "drop": 0, "max": max(CRANFIELD_GRADE_REMAP.values())}[minus_one]
    out = qrels.assign(relevance=raw.map({**CRANFIELD_GRADE_REMAP, -1: minus_one_grade}).astype("int64"))
    if minus_one == "drop":
        out = out[raw.to_numpy() != -1]
    return out.reset_index(drop=True)


def cranfield_qrels(minus_one: MinusOne = "nonrel") -> pd.DataFrame:
    """The Cranfield qrels, remapped (1->4, 2->3, 3->2, 4->1) with the grade -1 convention.

    Columns ``query_id, doc_id, relevance`` (ir-measures names; query ids are ir_datasets'
    1..225). See the module docstring for why, and :func:`as_pyterrier_qrels` for PyTerrier.
    """
    raw = pd.DataFrame(dataset().qrels_iter())
    return remap_cranfield_grades(raw[["query_id", "doc_id", "relevance"]], minus_one)


def cranfield_topics() -> pd.DataFrame:
    """The 225 Cranfield queries as PyTerrier topics (columns ``qid, query``)."""
    df = pd.DataFrame(dataset().queries_iter())
    return df.rename(columns={"query_id": "qid", "text": "query"})[["qid", "query"]]


def as_pyterrier_qrels(qrels: pd.DataFrame) -> pd.DataFrame:
    """ir-measures qrels (``query_id, doc_id, relevance``) with PyTerrier's ``qid, docno, label``."""
    return qrels.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})


def _graded(measure: Any) -> bool:
    """True if a measure reads grades beyond relevant / not relevant (so the grade direction matters)."""
    if is_cwla(measure):
        return measure.gain_spec().kind != "bin"
    return "rel" not in getattr(measure, "SUPPORTED_PARAMS", {"rel": None})


def looks_raw(qrels: pd.DataFrame) -> bool:
    """True for qrels with the raw Cranfield signature.

    Grades within {-1, 1, 2, 3, 4}, and exactly one grade -1 in every topic (the
    query's source paper).
    """
    grades = qrels["relevance"]
    minus_one = grades.to_numpy() == -1
    if not minus_one.any() or not set(pd.unique(grades).tolist()) <= {-1, *CRANFIELD_GRADE_REMAP}:
        return False
    per_topic = pd.Series(minus_one).groupby(qrels["query_id"].to_numpy()).sum()
    return bool((per_topic == 1).all())


def warn_if_raw_grades(qrels: pd.DataFrame, source: str, measures: Optional[Sequence[Any]] = None) -> None:
    """Warns when qrels that look like the raw Cranfield judgments meet graded measures.

    Warns when qrels that look like the raw Cranfield judgments (:func:`looks_raw`, e.g.
    ``pt.get_dataset('irds:cranfield').get_qrels()``) are used with graded measures (or with
    measures not known here): those grades run the wrong way. Registered with
    :func:`ir_cwla.io.register_qrels_check` by :func:`ir_cwla.datasets.register`.
    """
    if measures is not None and not any(_graded(m) for m in measures):
        return
    if looks_raw(qrels):
        warnings.warn(f"qrels {source} look like the raw Cranfield judgments (grade -1 once per topic; 1 = complete "
                      "answer ... 4 = minimum interest), so graded measures count the least relevant documents "
                      "most; use ir_cwla.datasets.cranfield_qrels() (or 'irds:cranfield' through ir_cwla), which "
                      "remaps 1->4, 2->3, 3->2, 4->1 and makes -1 judged non-relevant", RawCranfieldWarning,
                      stacklevel=4)
