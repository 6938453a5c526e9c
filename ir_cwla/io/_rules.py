"""The reading rules of TREC text, each declared once: its check and its message together.

Every reader of :mod:`ir_cwla.io` splits text its own way (Arrow's CSV reader, pandas' C
reader, the line scan, the pandas-free reader of :mod:`ir_cwla.io._trec_text`) and then asks
this table; none of them restates a rule. A :class:`Rule` carries

* ``check``: what is wrong with one line, given its fields (the message, or None). The line
  scan asks it of every line of a block, so every error names the same file, line and words
  whichever reader found the block suspect;
* ``clean``: the same rule asked of a whole block at once (:class:`Block`: what a reader split,
  by column), True only if no line of the block breaks it. A reader that gets False hands the
  block to the line scan (or returns None: :mod:`ir_cwla.io._trec_text`), which names the
  line; a rule without ``clean`` sends every block there (correct, only slower).

Adding a rule is one entry of :data:`RULES`; the readers find it there at each read. The
policies that are not errors (duplicate lines, :func:`duplicate_docs_warning` and
:func:`conflicting_judgments_warning`) and the topic-id rule of tables and frames
(:func:`topic_id_problem`) are declared here too, for the frame readers of :mod:`ir_cwla.io`.

This module needs numpy only (no pandas): the command line's reader consults it too.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

SUMMARY_QID = "all"
"""The topic id of summary rows in trec_eval's and ir-measures' output: refused as a topic id
(re-exported as ``ir_cwla.io.SUMMARY_QID``)."""

FIELDS = {"run": 6, "qrels": 4}
"""The whitespace-separated fields of a line: ``qid Q0 docno rank score tag`` of a run,
``qid iter docno grade`` of qrels."""

EXTRA_FIELDS = {"run": True, "qrels": False}
"""Whether fields after the last are read (and ignored): trec_eval reads a run line up to its
sixth field and skips the rest of the line (its own test data, ``results.trunc``, has such
lines); a qrels line with a fifth field is malformed to trec_eval (``get_qrels``), and here."""

NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
"""A score: a decimal number (no ``nan``, ``inf``, ``0x``, ``_``)."""
_NUMBER = re.compile(NUMBER)
_INTEGER = re.compile(r"[+-]?\d+")
INT64 = (-(2 ** 63), 2 ** 63 - 1)
"""The range of a grade."""


class Block:
    """What a reader split of a block of lines, by column, for the rules' ``clean`` checks.

    ``width``: the fields of every line (a reader that splits to a fixed width sets it only
    when every line had exactly that many); ``topics``: the distinct topic ids; ``scores``: a
    run's scores as float64, converted by a reader that reads every :data:`NUMBER` exactly
    and anything else as NaN, an infinity or not at all; ``grades``: the distinct grade texts
    of qrels; ``docs``: the doc ids. Each value may be given as a function of no argument,
    called the first time a rule asks for it.
    """

    def __init__(self, kind: str, width: int, **columns: Any):
        self.kind = kind
        self.width = width
        self._columns = columns

    def __getattr__(self, name: str) -> Any:
        columns = self.__dict__.get("_columns", {})
        if name not in columns:
            raise AttributeError(name)
        value = columns[name]
        if callable(value):
            value = columns[name] = value()
        return value


@dataclass(frozen=True)
class Rule:
    """One reading rule: which files it is about, a line's check (its message) and a block's."""

    name: str
    kinds: tuple[str, ...]
    check: Callable[[Sequence[str], str], Optional[str]]
    """``(fields, kind) -> message or None``: what is wrong with one non-blank line."""
    clean: Optional[Callable[[Block], bool]] = None
    """``block -> bool``: True only if no line of the block breaks the rule (None: ask every line)."""


# ------------------------------------------------------------------------- the rules

def _field_count(fields: Sequence[str], kind: str) -> Optional[str]:
    n = FIELDS[kind]
    if len(fields) < n or (len(fields) > n and not EXTRA_FIELDS[kind]):
        return f"expected {n} whitespace-separated fields, found {len(fields)}: {' '.join(fields)[:120]!r}"
    return None


def reserved_topic(unit: str) -> str:
    """The message of the reserved topic id (``unit``: ``lines`` of a text file, ``rows`` of a table)."""
    return f"topic id {SUMMARY_QID!r} is reserved for summary {unit} (trec_eval, ir-measures); rename the topic"


def _topic(fields: Sequence[str], kind: str) -> Optional[str]:
    return reserved_topic("lines") if fields[0] == SUMMARY_QID else None


def _score(fields: Sequence[str], kind: str) -> Optional[str]:
    score = fields[4]
    if not _NUMBER.fullmatch(score):
        if score.lower().lstrip("+-") in ("nan", "inf", "infinity"):
            return f"score {score!r} of topic {fields[0]!r}, document {fields[2]!r} is not a finite number"
        return f"field 5 (score) is not a number: {score!r}"
    if not np.isfinite(float(score)):
        return f"score {score!r} of topic {fields[0]!r} overflows a float64"
    return None


def grade_problem(text: str) -> Optional[str]:
    """What is wrong with a grade's text (None if nothing): an integer in the int64 range."""
    if not _INTEGER.fullmatch(text):
        return f"is not an integer: {text!r}"
    if not INT64[0] <= int(text) <= INT64[1]:
        return f"{text} is out of the int64 range (|grade| < 2^63)"
    return None


def _grade(fields: Sequence[str], kind: str) -> Optional[str]:
    problem = grade_problem(fields[3])
    return f"field 4 (grade) {problem}" if problem else None


RULES: tuple[Rule, ...] = (
    Rule("fields", ("run", "qrels"), _field_count, lambda b: b.width == FIELDS[b.kind]),
    Rule("reserved topic id", ("run", "qrels"), _topic, lambda b: SUMMARY_QID not in b.topics),
    Rule("score", ("run",), _score, lambda b: bool(np.isfinite(b.scores).all())),
    Rule("grade", ("qrels",), _grade, lambda b: all(grade_problem(g) is None for g in b.grades)),
)
"""The rules of TREC lines, in the order a line is asked them (its first broken rule is its message).
The readers look this name up at each read: a rule added here reaches every one of them."""


def line_problem(fields: Sequence[str], kind: str) -> Optional[str]:
    """What is wrong with one non-blank line of a ``kind`` file, by the first rule it breaks (None if none)."""
    if len(fields) < FIELDS[kind]:           # the other rules read fields by number
        return _field_count(fields, kind)
    for rule in RULES:
        if kind in rule.kinds:
            problem = rule.check(fields, kind)
            if problem:
                return problem
    return None


def is_clean(block: Block) -> bool:
    """True only if no line of the block breaks a rule, by the rules' ``clean`` checks."""
    return all(rule.clean is not None and rule.clean(block) for rule in RULES if block.kind in rule.kinds)


def kept(fields: Sequence[str], kind: str) -> Sequence[str]:
    """A valid line's fields without those the rules ignore (:data:`EXTRA_FIELDS`)."""
    return fields[:FIELDS[kind]]


# ------------------------------------------------------------------------- topic ids of tables and frames

def topic_id_problem(text: str, unit: str = "rows") -> Optional[str]:
    """What is wrong with a topic id of a table or frame: reserved, empty or holding whitespace."""
    if text == SUMMARY_QID:
        return reserved_topic(unit)
    if not text or any(ch.isspace() for ch in text):
        return f"topic id {text!r} is empty or contains whitespace, which no TREC file or output line can hold"
    return None


# ------------------------------------------------------------------------- duplicates (a warning, not an error)

def pairs_once(topics: np.ndarray, docs: Sequence[str], distinct: int) -> bool:
    """True if no (topic, doc_id) occurs twice (``distinct``: the number of topics).

    Where each topic's lines are contiguous (as in every TREC file), the doc ids of each block
    are compared; otherwise every pair at once.
    """
    starts = (np.flatnonzero(topics[1:] != topics[:-1]) + 1).tolist()
    if len(starts) + 1 != distinct:               # a topic in several blocks
        return len(set(zip(topics.tolist(), docs))) == len(docs)
    bounds = [0, *starts, len(docs)]
    return all(len(set(docs[a:b])) == b - a for a, b in zip(bounds, bounds[1:]))


def duplicate_docs_warning(source: str, dropped: int, topic: Any, doc: Any) -> str:
    """A run listing a doc_id twice for a topic: its best-scored line is kept (trec_eval's order)."""
    return (f"{source}: {dropped} duplicate line(s) of a (topic, doc_id) dropped, the best-scored occurrence kept "
            f"(first: topic {topic!r}, doc_id {doc!r})")


def conflicting_judgments_warning(source: str, pairs: int, topic: Any, doc: Any, grades: Sequence[Any]) -> str:
    """Qrels judging a (topic, doc_id) twice with different grades: the last line is kept (as trec_eval)."""
    return (f"qrels {source}: {pairs} (topic, doc_id) pair(s) judged more than once with different grades; the last "
            f"line kept, as trec_eval does (first: topic {topic!r}, doc_id {doc!r}, grades "
            f"{', '.join(map(str, grades))})")
