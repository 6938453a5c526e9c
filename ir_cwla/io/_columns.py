"""Runs and qrels as checked columns (numpy arrays, no pandas), and the topics a run answers.

:mod:`ir_cwla.io` reads every input into a pandas frame; the engine itself reads columns.
:class:`RunColumns` and :class:`QrelsColumns` are such columns once every rule of
:mod:`ir_cwla.io` holds (topic ids valid, finite scores, int64 grades, each (topic, doc_id)
once): what :mod:`ir_cwla.io._trec_text` reads from a clean TREC file, and what
:class:`ir_cwla.scoring.Qrels`, :func:`ir_cwla.scoring.rank_run` and :class:`ir_cwla.Scorer` take
besides frames, so that a command line scores a file without importing pandas.

:func:`topic_coverage` is the rule of no silent zero, for frames, columns and topic ids alike.
"""
from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from ir_cwla.errors import InputError, MissingTopicsWarning
from ir_cwla.io import _hashing as hashing
from ir_cwla.io._textstream import natural_key

RUN_TAG_ATTR = "run_tag"
"""``frame.attrs`` key of a TREC run's tag (the sixth field of its first line)."""

METADATA_ATTR = "metadata"
"""``frame.attrs`` key of the text of a TREC file's comment lines (a run's metadata, by the
ir_metadata convention), one line each, in file order; absent if the file has none."""

SOURCE_ATTR = "source"
"""``frame.attrs`` key of the name of the file a run was read from (its path as given, or
``<stdin>``), which warnings about the run name when no other name is given (:func:`ir_cwla.io.source_name`)."""


@dataclass(frozen=True, eq=False, init=False)
class RunColumns:
    """A checked run: ``query_id`` (object array of str), its doc ids, ``score`` (float64).

    ``RunColumns(query_id, doc_id, score, element_type=None, attrs=None)``. The doc ids are kept
    as given in :attr:`doc_keys`: an object array of str or compact
    (:func:`ir_cwla.io._hashing.compact`: an ASCII bytes array, 9 MB in place of 72 MB for a run
    of 1.1 million lines); the engine's lookups (:mod:`ir_cwla.io._hashing`) take either.
    :attr:`doc_id` gives them as str, whatever the form: what anything else reads (a
    ``dict`` of str keys, a frame, a label). ``element_type``: the run's second field (object
    array of str), when kept; ``attrs``: as a frame's (:data:`RUN_TAG_ATTR`,
    :data:`METADATA_ATTR`, :data:`SOURCE_ATTR`).
    """

    query_id: np.ndarray
    doc_keys: np.ndarray
    score: np.ndarray
    element_type: Optional[np.ndarray] = None
    attrs: dict = field(default_factory=dict)

    def __init__(self, query_id: np.ndarray, doc_id: np.ndarray, score: np.ndarray,
                 element_type: Optional[np.ndarray] = None, attrs: Optional[dict] = None):
        for name, value in (("query_id", query_id), ("doc_keys", doc_id), ("score", score),
                            ("element_type", element_type), ("attrs", {} if attrs is None else attrs)):
            object.__setattr__(self, name, value)

    def __len__(self) -> int:
        return len(self.query_id)

    @property
    def doc_id(self) -> np.ndarray:
        """The doc ids as an object array of str (decoded, a new array, if :attr:`doc_keys` is compact)."""
        return hashing.strings(self.doc_keys)


@dataclass(frozen=True, eq=False)
class QrelsColumns:
    """Checked qrels: ``query_id`` and ``doc_id`` (object arrays of str), ``relevance`` (int64), each pair once."""

    query_id: np.ndarray
    doc_id: np.ndarray
    relevance: np.ndarray
    attrs: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.query_id)


def compacted(run: RunColumns) -> RunColumns:
    """The run with its doc ids compact where they can be (:func:`ir_cwla.io._hashing.compact`), the rest shared.

    For a caller about to let go of every other reference to the str objects (the frame they
    came from, the columns given): they are then freed, 63 MB of them for a run of 1.1 million
    lines, before the run is ranked (``benchmarks/bench_reading_memory.py``, issue 28).
    """
    return RunColumns(run.query_id, hashing.compact(run.doc_keys), run.score, run.element_type, run.attrs)


def run_dict(run: RunColumns, scores: Optional[np.ndarray] = None) -> dict[str, dict[str, float]]:
    """A checked run as ``{query_id: {doc_id: score}}``, what pytrec_eval reads (``scores`` in place of its own)."""
    return _dict_of_dict(run.query_id, run.doc_id, (run.score if scores is None else scores).tolist())


def qrels_dict(qrels: QrelsColumns) -> dict[str, dict[str, int]]:
    """Checked qrels as ``{query_id: {doc_id: grade}}``, what pytrec_eval reads."""
    return _dict_of_dict(qrels.query_id, qrels.doc_id, qrels.relevance.tolist())


def _dict_of_dict(topics: np.ndarray, docs: np.ndarray, values: list) -> dict[str, dict[str, Any]]:
    """``{topic: {doc: value}}`` of rows with each (topic, doc) once, built a block of one topic's rows at a time."""
    out: dict[str, dict[str, Any]] = {}
    if not len(topics):
        return out
    starts = [0, *(np.flatnonzero(topics[1:] != topics[:-1]) + 1).tolist()]
    doc_list = docs.tolist()
    for a, b in zip(starts, [*starts[1:], len(doc_list)]):
        block = dict(zip(doc_list[a:b], values[a:b]))
        topic = topics[a]
        if topic in out:                 # a topic whose lines are not contiguous
            out[topic].update(block)
        else:
            out[topic] = block
    return out


# ------------------------------------------------------------------------- the topics a run answers

def some_topics(items: Iterable[Any], n: int = 3) -> str:
    """The first ``n`` of ``items`` in natural order, for a message (``1, 2, 10, ...``)."""
    ordered = sorted(map(str, items), key=natural_key)
    return ", ".join(ordered[:n]) + (", ..." if len(ordered) > n else "")


def topic_set(source: Any) -> set:
    """The topic ids of a frame or columns (their ``query_id``), or of an iterable of ids, as strings."""
    if isinstance(source, (RunColumns, QrelsColumns)):        # (their topic ids are str already)
        return _distinct(source.query_id)
    if hasattr(source, "columns") and hasattr(source, "loc"):          # a pandas frame
        return set(map(str, _distinct(source["query_id"].to_numpy(dtype=object))))
    return set(map(str, source))


def _distinct(values: np.ndarray) -> set:
    """The distinct values of an array: those where it changes, and its first.

    Every distinct value starts a run of equal neighbours, so no hash table of every row is
    built (a frame's ``unique()`` sizes one by its length: 60 MB at the peak of scoring a run of
    1.1 million lines, ``benchmarks/bench_reading_memory.py``); TREC runs hold each topic's
    lines together, so the runs are few.
    """
    if not len(values):
        return set()
    return {values[0], *values[1:][values[1:] != values[:-1]].tolist()}


MISSING_COUNTED = "count as 0 (the measures' default, as in ir-measures and pt.Experiment)"
"""How the means treat the topics a run does not answer, unless said otherwise (ir-measures,
``pt.Experiment``, :func:`ir_cwla.meta.evaluate`: the measure's default, 0, on every qrels topic)."""


def topic_coverage(name: str, run: Any, qrels: Any, counted: str = MISSING_COUNTED) -> Optional[str]:
    """No silent zero, the one rule of every command and of :func:`ir_cwla.meta.evaluate`.

    Raises :class:`InputError` for an empty run and for a run that shares no topic with the
    qrels (the message names the run and shows some topic ids of both, e.g. ``001`` against
    ``1``); returns the text of the warning for a run that misses some qrels topics (with
    their count and a few of them, ``counted`` saying how the means treat them), None if it
    answers every one. ``run`` and ``qrels``: frames or columns with a ``query_id`` column, or
    topic ids.
    """
    qrels_topics = topic_set(qrels)
    topics = topic_set(run)
    if not topics:
        raise InputError(f"run {name} is empty: no ranked documents")
    answered = topics & qrels_topics
    if not answered:
        hint = ""
        if {t.lstrip("0") for t in topics} & {t.lstrip("0") for t in qrels_topics}:
            hint = "; topic ids are compared as text, so '001' is not '1': write them alike"
        raise InputError(f"run {name} shares no topic with the qrels (run topics: {some_topics(topics)}; "
                         f"qrels topics: {some_topics(qrels_topics)}){hint}")
    missing = qrels_topics - answered
    if not missing:
        return None
    return (f"run {name} answers {len(answered)} of the {len(qrels_topics)} qrels topics; the other "
            f"{len(missing)} ({some_topics(missing)}) {counted}")


def check_topics(name: str, run: Any, qrels: Any, counted: str = MISSING_COUNTED, stacklevel: int = 2) -> None:
    """:func:`topic_coverage`, its warning issued (one :class:`MissingTopicsWarning`)."""
    note = topic_coverage(name, run, qrels, counted)
    if note is not None:
        warnings.warn(note, MissingTopicsWarning, stacklevel=stacklevel + 1)
