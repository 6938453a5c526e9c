"""From a run and qrels to the topics x ranks gain matrix that every measure reads.

The semantics (``docs/semantics.md``, sections 3-5):

- documents of a topic are ranked by score descending, ties broken by doc_id descending
  (trec_eval's order; like trec_eval, which stores scores as single-precision floats,
  scores are compared in float32, so scores equal to 7 significant digits are ties); a doc_id repeated within a topic keeps its best-scored occurrence,
  with a warning naming the run, topic and doc_id;
- unjudged documents and negative grades have grade 0;
- the gain r in [0, 1] of grade x is ``'lin'``: x / x_max, ``'exp'``: (2^x - 1) / 2^x_max,
  or ``'bin'``: 1 if x >= rel else 0; x_max defaults to the largest grade in the qrels.

The run is turned into a matrix of *grades* once (:class:`Rankings`); each gain mapping is
then one vectorised expression over it (:meth:`Rankings.gains`).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Optional

import numpy as np
import pandas as pd

GAIN_NAMES = ("lin", "exp", "bin")


@dataclass(frozen=True)
class GainSpec:
    """How grades become gains in [0, 1]: ``kind`` in lin/exp/bin, ``rel`` for bin, ``max_rel``."""

    kind: str
    rel: Optional[float] = None
    max_rel: Optional[float] = None

    def apply(self, grades: np.ndarray, x_max: float) -> np.ndarray:
        """Maps grades (negative already clipped to 0) to gains; pure numpy."""
        if self.kind == "bin":
            return (grades >= self.rel).astype(np.float64)
        x_max = self.max_rel if self.max_rel is not None else x_max
        if x_max <= 0:
            return np.zeros_like(grades, dtype=np.float64)
        if self.kind == "lin":
            return grades / x_max
        if self.kind == "exp":
            return (np.exp2(grades) - 1.0) / np.exp2(x_max)
        raise ValueError(f"unknown gain {self.kind!r}; valid: {', '.join(GAIN_NAMES)}")


class Qrels:
    """Qrels prepared once for many runs: topic index, judged-document lookup, grades."""

    def __init__(self, qrels: pd.DataFrame):
        qids = qrels["query_id"].astype(str).to_numpy()
        docs = qrels["doc_id"].astype(str).to_numpy()
        grades = qrels["relevance"].to_numpy(dtype=np.float64)
        self.topics = np.array(sorted(set(qids.tolist())), dtype=object)
        self.topic_index = pd.Index(self.topics)
        self.x_max = float(grades.max()) if len(grades) else 0.0
        if self.x_max < 0:
            self.x_max = 0.0
        t = self.topic_index.get_indexer(qids)
        self.doc_index = pd.Index(pd.unique(docs))
        d = self.doc_index.get_indexer(docs)
        key = t.astype(np.int64) * len(self.doc_index) + d
        order = np.argsort(key, kind="stable")
        key, grades_sorted = key[order], np.maximum(grades[order], 0.0)
        # a (topic, doc) pair judged twice keeps its last line, as trec_eval does
        last = np.r_[key[1:] != key[:-1], True]
        self._keys = key[last]
        self._grades = grades_sorted[last]
        self._key_topic = (self._keys // max(len(self.doc_index), 1)).astype(np.int64)
        self._gain_totals: dict[GainSpec, np.ndarray] = {}

    def check_max_rel(self, max_rel: float) -> None:
        if self.x_max > max_rel:
            raise ValueError(f"max_rel={max_rel:g} is below the largest grade in the qrels ({self.x_max:g}); "
                             "raise max_rel or leave it unset to use the qrels' maximum")

    def total_gain(self, spec: GainSpec) -> np.ndarray:
        """R per topic: the total gain of the topic's judged documents (used by AP under 'pad')."""
        if spec not in self._gain_totals:
            g = spec.apply(self._grades, self.x_max)
            self._gain_totals[spec] = np.bincount(self._key_topic, weights=g, minlength=len(self.topics))
        return self._gain_totals[spec]

    def lookup(self, topic_idx: np.ndarray, doc_ids: np.ndarray) -> np.ndarray:
        """Grades (>= 0) of (topic, doc) pairs; 0 for unjudged documents (qrels not empty)."""
        d = self.doc_index.get_indexer(doc_ids)
        key = topic_idx.astype(np.int64) * len(self.doc_index) + d
        pos = np.minimum(np.searchsorted(self._keys, key), len(self._keys) - 1)
        hit = (d >= 0) & (self._keys[pos] == key)
        return np.where(hit, self._grades[pos], 0.0)


@dataclass
class Rankings:
    """A run as a dense matrix of grades: one row per qrels topic present in the run.

    ``grades[t, i]`` is the grade of the document at rank i+1 of topic ``topics[t]`` (0
    beyond the end of the ranking); ``lengths[t]`` is the length of that ranking.
    """

    topics: np.ndarray
    topic_rows: np.ndarray      # index of each row's topic in Qrels.topics
    grades: np.ndarray          # (n_topics, width) float64
    lengths: np.ndarray         # (n_topics,) int64

    def gains(self, spec: GainSpec, x_max: float, width: int) -> np.ndarray:
        """The (n_topics, width) gain matrix for ``spec``, cut or zero-padded to ``width``."""
        g = spec.apply(self.grades[:, :width], x_max)
        if g.shape[1] < width:
            g = np.pad(g, ((0, 0), (0, width - g.shape[1])))
        return g


def _trec_order(t: np.ndarray, scores: np.ndarray, doc_codes: np.ndarray, doc_uniques: np.ndarray) -> np.ndarray:
    """Permutation sorting rows by topic asc, score desc, doc_id desc (string order).

    Sorts on the numbers first and compares doc_id strings only within runs of tied scores.
    """
    order = np.lexsort((-scores, t))
    ts, ss = t[order], scores[order]
    tied = (ts[1:] == ts[:-1]) & (ss[1:] == ss[:-1])
    if tied.any():
        in_tie = np.r_[tied, False] | np.r_[False, tied]
        pos = np.flatnonzero(in_tie)
        block = np.cumsum(np.r_[True, ~tied])[pos]        # id of each tie block
        codes, _ = pd.factorize(doc_uniques[doc_codes[order[pos]]], sort=True)
        order[pos] = order[pos][np.lexsort((-codes, block))]
    return order


def rank_run(run: pd.DataFrame, qrels: Qrels, max_depth: Optional[int] = None,
             name: str = "run") -> Rankings:
    """Ranks a run (``query_id, doc_id, score``) in trec_eval order and looks up its grades.

    Topics absent from the qrels are ignored. ``max_depth`` keeps only the first ranks
    (None keeps whole rankings).
    """
    qids = run["query_id"].astype(str).to_numpy()
    t = qrels.topic_index.get_indexer(qids)
    keep = t >= 0
    if not keep.all():
        run, t, qids = run[keep], t[keep], qids[keep]
    if len(run) == 0:
        return Rankings(np.array([], dtype=object), np.array([], dtype=np.int64),
                        np.zeros((0, max_depth or 0)), np.zeros(0, dtype=np.int64))
    docs = run["doc_id"].astype(str).to_numpy()
    # trec_eval holds scores as C floats (single precision): scores equal in float32 are ties
    scores = run["score"].to_numpy(dtype=np.float64).astype(np.float32)
    doc_codes, doc_uniques = pd.factorize(docs)
    pair = t.astype(np.int64) * (len(doc_uniques) + 1) + doc_codes
    duplicated = pd.Index(pair).has_duplicates
    order = _trec_order(t, scores, doc_codes, doc_uniques)
    t, doc_codes = t[order], doc_codes[order]
    if duplicated:   # keep the first occurrence in trec_eval order: the best-scored one
        first = ~pd.Index(pair[order]).duplicated(keep="first")
        i = int(np.flatnonzero(~first)[0])
        warnings.warn(f"{name}: {int((~first).sum())} duplicate doc_id(s) within a topic, the best-scored "
                      f"occurrence kept (first: topic {qrels.topics[t[i]]!r}, doc_id {doc_uniques[doc_codes[i]]!r})",
                      stacklevel=3)
        t, doc_codes = t[first], doc_codes[first]
    # rank within topic
    starts = np.flatnonzero(np.r_[True, t[1:] != t[:-1]])
    counts = np.diff(np.r_[starts, len(t)])
    row_of = np.repeat(np.arange(len(starts)), counts)
    rank = np.arange(len(t)) - np.repeat(starts, counts)
    topic_rows = t[starts]
    width = int(counts.max())
    if max_depth is not None and max_depth < width:
        width = max_depth
        sel = rank < width
        row_of, rank, t, doc_codes = row_of[sel], rank[sel], t[sel], doc_codes[sel]
    grades = qrels.lookup(t, doc_uniques[doc_codes])   # only for the ranks looked at
    mat = np.zeros((len(starts), width), dtype=np.float64)
    mat[row_of, rank] = grades
    return Rankings(qrels.topics[topic_rows], topic_rows, mat, counts.astype(np.int64))
