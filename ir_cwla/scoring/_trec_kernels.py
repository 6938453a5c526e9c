"""trec_eval's measures as numpy kernels: the ones ir-measures lacks, and those trec_eval 10 changed.

Pure functions, numpy in and numpy out, over :class:`ResRels`: trec_eval's ``res_rels`` (its
``form_res_rels.c``) for every topic at once, the relevance value of each retrieved document
in trec_eval's ranking order. Each kernel repeats trec_eval's arithmetic (the same operations
in the same order, sums taken left to right), so that its values print as trec_eval's:

==========================  =====================================  =========================
kernel                      trec_eval measure (source file)         version differences
==========================  =====================================  =========================
:func:`iprec_at_recall`     ``iprec_at_recall`` (m_iprec_at_recall)  recall cut-offs rounded
:func:`ipr_avg`             ``11pt_avg`` (m_11pt_avg)                recall cut-offs rounded
:func:`rprec_mult`          ``Rprec_mult`` (m_Rprec_mult)
:func:`utility`             ``utility`` (m_utility)
:func:`average_precision`   ``map``, per topic of ``gm_map``
:func:`bpref`               ``bpref``, per topic of ``gm_bpref``
:func:`ndcg`                ``ndcg`` with gains (m_ndcg)
:func:`bin_g`               ``binG`` (m_binG)
:func:`g`                   ``G`` (m_G)
:func:`ndcg_rel`            ``ndcg_rel`` (m_ndcg_rel)
:func:`rndcg`               ``Rndcg`` (m_Rndcg)
:func:`relative_p`          ``relative_P`` (m_rel_P)
:func:`unjudged`            ``unj`` (m_unjudged, trec_eval 10)
:func:`rbp`                 ``rbp`` (m_rbp, trec_eval 10)
:func:`rbp_residual`        ``rbp_resid`` (m_rbp_resid, trec_eval 10)
:func:`relstring`           ``relstring`` (m_relstring)
:meth:`ResRels.counts`      ``num_ret``, ``num_rel``, ``num_rel_ret``, ``num_nonrel_judged_ret``
:func:`geometric_mean`      the mean of ``gm_map``, ``gm_bpref`` (meas_avg.c)
==========================  =====================================  =========================

Relevance values (trec_eval's ``RELVALUE_*``): a document the qrels grade ``g >= 0`` has ``g``;
one the qrels do not list has :data:`NONPOOL` (-1); one the qrels list with a negative grade
(in the pool, not judged: trec_eval's reading of a negative grade) has :data:`UNJUDGED` (-2).
``level`` is trec_eval's ``-l``: a document is relevant when its value is ``>= level`` (>= 1).

Where trec_eval 9.0.8 and 10.0 differ, a kernel takes ``version`` (9 or 10): 9 turns a recall
fraction x into a number of relevant documents as ``(long)(x * R + 0.9)``, 10 as
``lround(x * R)`` (commit
2a9e214 of usnistgov/trec_eval; the reason of the 0.3885 vs 0.3884 of ``iprec_at_recall_0.10``
in its own test files), both in double precision. (Its other difference, scores compared in
double rather than single precision, is the ranking's: ``ties`` of :func:`res_rels`.)
"""
from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ir_cwla.errors import ParameterError
from ir_cwla.io import _hashing as hashing
from ir_cwla.io import check_ties, compared_scores, trec_order
from ir_cwla.scoring._gains import group_rows

NONPOOL = -1
"""Relevance value of a retrieved document the qrels do not list (trec_eval's RELVALUE_NONPOOL)."""
UNJUDGED = -2
"""Relevance value of a retrieved document the qrels list with a negative grade (RELVALUE_UNJUDGED)."""
MIN_GEO_MEAN = 0.00001
"""The floor of a topic's value in trec_eval's geometric means (``gm_map``, ``gm_bpref``)."""
VERSIONS = (9, 10)
"""The trec_eval versions whose semantics the kernels know: 9.0.8 (pytrec_eval's) and 10.0."""

_PAD = np.iinfo(np.int64).min      # a cell past a ranking's end in a dense matrix


def check_version(version: int) -> int:
    """``version`` if it is one of :data:`VERSIONS`, else a :class:`ParameterError`."""
    if version not in VERSIONS or isinstance(version, bool):
        raise ParameterError(f"trec_eval version must be 9 (9.0.8, as pytrec_eval and ir-measures) or 10 (10.0), "
                             f"got {version!r}")
    return int(version)


def ties_of(version: int) -> str:
    """The precision trec_eval ``version`` compares scores in: ``'float32'`` (9.0.8), ``'float64'`` (10.0)."""
    return "float64" if check_version(version) == 10 else "float32"


def trec_eval_semantics(trec_eval: Optional[int] = None, ties: Optional[str] = None) -> tuple[int, str]:
    """``(version, ties)``: whose trec_eval's measures, and the precision runs are ranked in.

    ``trec_eval`` 9 (trec_eval 9.0.8, pytrec_eval and ir-measures; the default) or 10 (10.0);
    ``ties`` ``'float32'`` or ``'float64'``, by default the version's (float32 for 9, float64
    for 10). 9 with ``ties='float64'`` is 9's measures with 10's ranking (``--ties float64``
    before the switch existed); 10 with ``ties='float32'`` contradicts itself and is refused.
    """
    version = check_version(9 if trec_eval is None else trec_eval)
    if ties is None:
        return version, ties_of(version)
    check_ties(ties)
    if version == 10 and ties != "float64":
        raise ParameterError(f"ties={ties!r} contradicts trec_eval={version} (trec_eval {version} compares scores "
                             f"in {ties_of(version)}); give one of them")
    return version, ties



# ------------------------------------------------------------------------- res_rels

@dataclass(frozen=True, eq=False)
class ResRels:
    """trec_eval's ``res_rels`` of every topic: the relevance value of each retrieved document, in rank order.

    Attributes
    ----------
    topics : numpy.ndarray
        The topics (object array of str), in trec_eval's order (the qrels' topics sorted as
        ``strcmp`` sorts them).
    offsets : numpy.ndarray
        ``(T + 1,)`` int64: topic ``t``'s documents are ``rel[offsets[t]:offsets[t + 1]]``.
    rel : numpy.ndarray
        ``(N,)`` int64 relevance value of each retrieved document (a grade >= 0, :data:`NONPOOL`
        or :data:`UNJUDGED`), topic by topic, in trec_eval's ranking order.
    judged_offsets : numpy.ndarray
        ``(T + 1,)`` int64 into ``judged``.
    judged : numpy.ndarray
        ``(J,)`` int64: the non-negative grades of each topic's qrels (trec_eval's ``rel_levels``
        are their counts), ascending within a topic.
    """

    topics: np.ndarray
    offsets: np.ndarray
    rel: np.ndarray
    judged_offsets: np.ndarray
    judged: np.ndarray

    @property
    def num_ret(self) -> np.ndarray:
        """Documents retrieved per topic (int64)."""
        return np.diff(self.offsets)

    def num_rel(self, level: int = 1) -> np.ndarray:
        """Per topic, the qrels documents with a grade >= ``level`` (trec_eval's ``num_rel``)."""
        return _segment_counts(self.judged >= level, self.judged_offsets)

    def num_nonrel(self, level: int = 1) -> np.ndarray:
        """Per topic, the qrels documents with a grade in [0, ``level``) (bpref's non-relevant)."""
        return _segment_counts(self.judged < level, self.judged_offsets)

    def counts(self, level: int = 1) -> dict[str, np.ndarray]:
        """trec_eval's counts per topic (int64 arrays by name).

        ``num_ret``, ``num_rel``, ``num_rel_ret``, ``num_nonpool``, ``num_unjudged_in_pool`` and
        ``num_nonrel_judged_ret`` (= num_ret - nonpool - unjudged - num_rel_ret).
        """
        nonpool = _segment_counts(self.rel == NONPOOL, self.offsets)
        unjudged = _segment_counts(self.rel == UNJUDGED, self.offsets)
        rel_ret = _segment_counts((self.rel >= 0) & (self.rel >= level), self.offsets)
        ret = self.num_ret
        return {"num_ret": ret, "num_rel": self.num_rel(level), "num_rel_ret": rel_ret, "num_nonpool": nonpool,
                "num_unjudged_in_pool": unjudged, "num_nonrel_judged_ret": ret - nonpool - unjudged - rel_ret}

    def judged_only(self) -> ResRels:
        """trec_eval's ``-J``: every retrieved document without a grade >= 0 removed, the others in their order."""
        keep = self.rel >= 0
        counts = _segment_counts(keep, self.offsets)
        return ResRels(self.topics, np.r_[0, np.cumsum(counts)].astype(np.int64), self.rel[keep],
                       self.judged_offsets, self.judged)

    def top(self, depth: int) -> ResRels:
        """trec_eval's ``-M``: each topic's first ``depth`` documents."""
        n = np.minimum(self.num_ret, depth)
        keep = np.repeat(n, self.num_ret) > _positions(self.offsets)
        return ResRels(self.topics, np.r_[0, np.cumsum(n)].astype(np.int64), self.rel[keep],
                       self.judged_offsets, self.judged)

    def levels(self, t: int) -> tuple[np.ndarray, np.ndarray]:
        """Topic ``t``'s grades 0 .. its largest and how many qrels documents have each (``rel_levels``)."""
        grades = self.judged[self.judged_offsets[t]:self.judged_offsets[t + 1]]
        top = int(grades.max()) + 1 if len(grades) else 0
        return np.arange(top, dtype=np.int64), np.bincount(grades, minlength=top).astype(np.int64)


def res_rels(qrels_topics: np.ndarray, qrels_docs: np.ndarray, qrels_grades: np.ndarray, run_topics: np.ndarray,
             run_docs: np.ndarray, run_scores: np.ndarray, ties: str = "float64",
             topics: Optional[Sequence[str]] = None) -> ResRels:
    """The :class:`ResRels` of a run against qrels, as trec_eval forms them.

    Each topic's documents are ranked in trec_eval's order (:func:`ir_cwla.io.trec_order`:
    score descending, compared as ``ties`` says, then doc_id descending) and given their
    relevance value. The topics are the qrels' (or ``topics``, a subset of them), sorted; a
    topic the run does not answer has no documents; run topics the qrels do not judge are
    ignored. Each (topic, doc_id) is expected once in the run and in the qrels (the readers'
    rules see to it).
    """
    qt = np.asarray(qrels_topics, dtype=object)
    grades = np.asarray(qrels_grades).astype(np.int64)
    if topics is None:
        topics = sorted(set(qt.tolist()))
    else:
        topics = sorted(topics)
    topic_index = hashing.StringIndex(topics)
    q_topic = topic_index.get_indexer(qt)
    r_topic = topic_index.get_indexer(np.asarray(run_topics, dtype=object))
    keep_q, keep_r = q_topic >= 0, r_topic >= 0
    docs = np.concatenate([np.asarray(qrels_docs, dtype=object)[keep_q], np.asarray(run_docs, dtype=object)[keep_r]])
    doc_codes, doc_names = hashing.factorize(docs)
    n_docs = max(len(doc_names), 1)
    q_key = q_topic[keep_q] * n_docs + doc_codes[:int(keep_q.sum())]
    q_grades = grades[keep_q]
    order = np.argsort(q_key, kind="stable")
    q_key, q_grades = q_key[order], q_grades[order]
    last = np.r_[q_key[1:] != q_key[:-1], True] if len(q_key) else np.zeros(0, dtype=bool)
    q_key, q_grades, q_top = q_key[last], q_grades[last], (q_key[last] // n_docs)
    # the judged grades (>= 0) of each topic, ascending
    judged_mask = q_grades >= 0
    j_topic, j_grade = q_top[judged_mask], q_grades[judged_mask]
    j_order = np.lexsort((j_grade, j_topic))
    judged = j_grade[j_order]
    judged_offsets = np.r_[0, np.cumsum(np.bincount(j_topic, minlength=len(topics)))].astype(np.int64)
    # the run ranked, each document looked up in the qrels
    r_t = r_topic[keep_r]
    r_docs = np.asarray(run_docs, dtype=object)[keep_r]
    scores = compared_scores(np.asarray(run_scores, dtype=np.float64)[keep_r], ties, warn=False)
    rank = trec_order(r_t, scores, r_docs)
    r_key = (r_t * n_docs + doc_codes[int(keep_q.sum()):])[rank]
    at = np.searchsorted(q_key, r_key)
    found = at < len(q_key)
    found[found] = q_key[at[found]] == r_key[found]
    rel = np.full(len(r_key), NONPOOL, dtype=np.int64)
    rel[found] = q_grades[at[found]]
    rel[found & (rel < 0)] = UNJUDGED
    offsets = np.r_[0, np.cumsum(np.bincount(r_t, minlength=len(topics)))].astype(np.int64)
    return ResRels(hashing.unique(topics), offsets, rel, judged_offsets, judged)


# ------------------------------------------------------------------------- helpers

def _segment_counts(mask: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    csum = np.r_[0, np.cumsum(mask, dtype=np.int64)]
    return csum[offsets[1:]] - csum[offsets[:-1]]


def _positions(offsets: np.ndarray) -> np.ndarray:
    """Each cell's 0-based rank within its topic."""
    lengths = np.diff(offsets)
    return np.arange(int(offsets[-1]), dtype=np.int64) - np.repeat(offsets[:-1], lengths)


@dataclass(frozen=True)
class _Group:
    rows: np.ndarray        # topic positions
    rel: np.ndarray         # (len(rows), width) relevance values, _PAD past each ranking's end
    n: np.ndarray           # (len(rows),) num_ret

    @property
    def valid(self) -> np.ndarray:
        return self.rel != _PAD

    @property
    def rank(self) -> np.ndarray:
        """1-based ranks of the columns, as float64 (what trec_eval divides by)."""
        return np.arange(1, self.rel.shape[1] + 1, dtype=np.float64)


def _groups(rr: ResRels, width: Optional[int] = None) -> Iterator[_Group]:
    """The topics as dense matrices of similar lengths (:func:`ir_cwla.scoring._gains.group_rows`).

    Rows are summed left to right along axis 1 (``cumsum``), as trec_eval's loops sum. ``width``:
    every matrix at least that wide (cut-offs beyond a ranking's end).
    """
    lengths = rr.num_ret
    for rows in group_rows(lengths):
        w = max(int(lengths[rows].max()) if len(rows) else 0, width or 0, 1)
        mat = np.full((len(rows), w), _PAD, dtype=np.int64)
        n = lengths[rows]
        cols = np.arange(w)[None, :]
        mask = cols < n[:, None]
        idx = (rr.offsets[rows][:, None] + cols)[mask]
        mat[mask] = rr.rel[idx]
        yield _Group(rows, mat, n)


def _last(cumulative: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Each row's running value at its last document (0 for an empty row)."""
    out = np.zeros(len(n))
    has = n > 0
    out[has] = cumulative[has, n[has] - 1]
    return out


def _at(matrix: np.ndarray, k: np.ndarray, fill: float = 0.0) -> np.ndarray:
    """``matrix[row, k[row] - 1]`` (the value after the first k documents); ``fill`` where k <= 0."""
    out = np.full(len(k), fill, dtype=np.float64)
    has = k > 0
    out[has] = matrix[has, np.minimum(k[has], matrix.shape[1]) - 1]
    return out


def _divide(a: np.ndarray | float, b: np.ndarray | float) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(a, dtype=np.float64) / np.asarray(b, dtype=np.float64)


def _lround(x: np.ndarray) -> np.ndarray:
    """C's ``lround``: to the nearest integer, halves away from zero (numpy's ``round`` halves to even)."""
    a = np.abs(x)
    fl = np.floor(a)
    r = np.where(a - fl >= 0.5, fl + 1, fl)
    return (np.sign(x) * r).astype(np.int64)


def relevant_counts(fractions: Sequence[float], num_rel: np.ndarray, version: int, rounding: str) -> np.ndarray:
    """Recall fractions as numbers of relevant documents, ``(T, K)`` int64, as trec_eval computes them.

    ``rounding='lround'``: trec_eval 10's ``lround(x * R)`` for iprec_at_recall and 11pt_avg
    (9: ``(long)(x * R + 0.9)``); ``'plus0.9'``: ``(long)(x * R + 0.9)`` in both (Rprec_mult).
    All in double precision (9.0.8's "float" measures hold doubles; only its scores are floats).
    """
    x = np.asarray(fractions, dtype=np.float64)[None, :]
    r = np.asarray(num_rel, dtype=np.int64)[:, None]
    if rounding == "lround" and check_version(version) == 10:
        return _lround(x * r)
    return np.trunc(x * r + 0.9).astype(np.int64)


# ------------------------------------------------------------------------- interpolated precision

def _interpolated(rr: ResRels, level: int) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """Per topic, the interpolated precision at each relevant document retrieved, and the final one.

    Returns ``(int_prec, final, num_rel_ret)``: ``int_prec[t][j - 1]`` is max(m / p_m, m >= j)
    over the ranks p_m of the relevant documents (trec_eval's ``int_precis`` when it passes the
    j-th), ``final[t]`` the value its loop ends with (int_prec[t][0], or num_rel_ret / num_ret =
    0 where nothing relevant is retrieved, NaN where nothing is).
    """
    per_topic: list[np.ndarray] = [np.zeros(0)] * len(rr.topics)
    final = np.zeros(len(rr.topics))
    rel_ret = np.zeros(len(rr.topics), dtype=np.int64)
    for grp in _groups(rr):
        is_rel = grp.valid & (grp.rel >= level)
        count = np.cumsum(is_rel, axis=1)
        prec = np.where(is_rel, _divide(count, grp.rank[None, :]), -np.inf)
        interp = np.maximum.accumulate(prec[:, ::-1], axis=1)[:, ::-1]
        r_count = count[:, -1]
        for i, t in enumerate(grp.rows.tolist()):
            per_topic[t] = interp[i][is_rel[i]]
        rel_ret[grp.rows] = r_count
        with np.errstate(divide="ignore", invalid="ignore"):
            final[grp.rows] = np.where(r_count > 0, np.where(is_rel.any(axis=1), interp[:, 0], 0.0),
                                       r_count / grp.n.astype(np.float64))
    for t, values in enumerate(per_topic):
        if len(values):
            final[t] = values[0]
    return per_topic, final, rel_ret


def _iprec_sequence(rr: ResRels, level: int, cuts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """trec_eval's loop over cut-offs (numbers of relevant documents) from the last to the first.

    Returns ``(values, assigned)``, both ``(T, K)``: the value each cut-off gets and whether
    it gets one (the cut-offs above num_rel_ret at the end of the list are skipped and keep 0).
    Follows m_iprec_at_recall.c / m_11pt_avg.c for cut-offs in any order: a cut-off c is taken
    when the loop passes the c-th relevant document; one it can no longer pass (0, or above the
    last one taken) stops the loop's taking, and it and every later one get the final value.
    """
    int_prec, final, rel_ret = _interpolated(rr, level)
    n_topics, k = cuts.shape
    values = np.zeros((n_topics, k))
    assigned = np.zeros((n_topics, k), dtype=bool)
    for t in range(n_topics):
        r = int(rel_ret[t])
        c = cuts[t]
        cur = k - 1
        while cur >= 0 and c[cur] > r:
            cur -= 1
        frontier = r
        stuck = False
        while cur >= 0:
            cc = int(c[cur])
            if not stuck and 1 <= cc <= frontier:
                values[t, cur] = int_prec[t][cc - 1]
                frontier = cc
            else:
                stuck = True
                values[t, cur] = final[t]
            assigned[t, cur] = True
            cur -= 1
    return values, assigned


def iprec_at_recall(rr: ResRels, recalls: Sequence[float], level: int = 1, version: int = 10) -> np.ndarray:
    """``iprec_at_recall``: interpolated precision at each recall fraction, ``(T, K)``.

    IPrec(x) = max over the ranks i at or after the one where the ceil-like count c(x) of
    relevant documents is reached of P@i (max_{m >= c} m / p_m), with c(x) = lround(x R) in
    trec_eval 10 and (long)(x R + 0.9) in 9 (:func:`relevant_counts`); 0 where c(x) exceeds the
    relevant documents retrieved. ``recalls`` ascending and distinct, as trec_eval sorts and
    checks them. Source: m_iprec_at_recall.c.
    """
    cuts = relevant_counts(recalls, rr.num_rel(level), version, "lround")
    return _iprec_sequence(rr, level, cuts)[0]


def ipr_avg(rr: ResRels, recalls: Sequence[float], level: int = 1, version: int = 10) -> np.ndarray:
    """``11pt_avg``: the interpolated precisions at ``recalls`` summed in trec_eval's order, divided by their number.

    The recall points in the order given (trec_eval does not sort them here). Source: m_11pt_avg.c.
    """
    if not len(recalls):
        raise ParameterError("11pt_avg needs at least one recall point")
    cuts = relevant_counts(recalls, rr.num_rel(level), version, "lround")
    values, assigned = _iprec_sequence(rr, level, cuts)
    total = np.zeros(len(rr.topics))
    for j in range(len(recalls) - 1, -1, -1):         # the order the C loop adds them in
        total = np.where(assigned[:, j], total + values[:, j], total)
    return total / float(len(recalls))


def rprec_mult(rr: ResRels, multiples: Sequence[float], level: int = 1, version: int = 10) -> np.ndarray:
    """``Rprec_mult``: precision at rank c = (long)(x R + 0.9) for each multiple x of R, ``(T, K)``.

    P@c = (relevant in the top c) / c; where c is beyond the ranking, num_rel_ret / c; 0 for c <= 0.
    Source: m_Rprec_mult.c (the same in trec_eval 9 and 10).
    """
    cuts = relevant_counts(multiples, rr.num_rel(level), version, "plus0.9")
    out = np.zeros(cuts.shape)
    for grp in _groups(rr):
        count = np.cumsum(grp.valid & (grp.rel >= level), axis=1)
        c = cuts[grp.rows]
        n = grp.n[:, None]
        inside = (c >= 1) & (c <= n)
        at = np.take_along_axis(count, np.clip(c - 1, 0, count.shape[1] - 1), axis=1)
        total = count[:, -1][:, None]
        out[grp.rows] = np.where(inside, _divide(at, c), np.where(c > n, _divide(total, c), 0.0))
    return out


def utility(rr: ResRels, coefficients: Sequence[float], level: int = 1, num_docs: int = 0) -> np.ndarray:
    """``utility``: a R' + b (n - R') + c (R - R') + d (N + R' - n - R), summed left to right.

    n retrieved, R relevant, R' relevant retrieved, N the collection's size (trec_eval's ``-N``,
    0 by default). Source: m_utility.c.
    """
    if len(coefficients) != 4:
        raise ParameterError(f"utility takes 4 coefficients, got {len(coefficients)}")
    a, b, c, d = (float(x) for x in coefficients)
    k = rr.counts(level)
    n, r, rr_ = (k[key].astype(np.float64) for key in ("num_ret", "num_rel", "num_rel_ret"))
    return a * rr_ + b * (n - rr_) + c * (r - rr_) + d * (float(num_docs) + rr_ - n - r)


# ------------------------------------------------------------------------- AP, bpref and their geometric means

def average_precision(rr: ResRels, level: int = 1) -> np.ndarray:
    """``map`` per topic: sum of j / p_j over the relevant documents retrieved, divided by R. Source: m_map.c."""
    out = np.zeros(len(rr.topics))
    num_rel = rr.num_rel(level).astype(np.float64)
    for grp in _groups(rr):
        is_rel = grp.valid & (grp.rel >= level)
        count = np.cumsum(is_rel, axis=1)
        terms = np.where(is_rel, _divide(count, grp.rank[None, :]), 0.0)
        total = np.cumsum(terms, axis=1)[:, -1]
        has = count[:, -1] > 0
        out[grp.rows] = np.where(has, _divide(total, num_rel[grp.rows]), 0.0)
    return out


def bpref(rr: ResRels, level: int = 1) -> np.ndarray:
    """``bpref`` per topic (Buckley & Voorhees 2004, as m_bpref.c / m_gm_bpref.c compute it).

    Over the judged relevant documents retrieved: 1 - min(nonrel above, R) / min(N, R) (1 where no
    judged non-relevant is above), summed and divided by R; N the judged non-relevant documents.
    Documents the qrels do not grade are skipped.
    """
    out = np.zeros(len(rr.topics))
    num_rel = rr.num_rel(level)
    num_nonrel = rr.num_nonrel(level)
    for grp in _groups(rr):
        judged = grp.valid & (grp.rel >= 0)
        nonrel = judged & (grp.rel < level)
        is_rel = judged & ~nonrel
        above = np.cumsum(nonrel, axis=1)           # nonrel up to and including the cell (it is not one)
        r = num_rel[grp.rows][:, None].astype(np.float64)
        denom = np.minimum(num_nonrel[grp.rows][:, None], num_rel[grp.rows][:, None]).astype(np.float64)
        terms = np.where(above > 0, 1.0 - _divide(np.minimum(above, r), denom), 1.0)
        total = np.cumsum(np.where(is_rel, terms, 0.0), axis=1)[:, -1]
        out[grp.rows] = np.where(num_rel[grp.rows] > 0, _divide(total, num_rel[grp.rows]), total)
    return out


def geometric_mean(values: np.ndarray, n_topics: Optional[int] = None) -> float:
    """trec_eval's geometric mean: exp of the mean of log(max(v, :data:`MIN_GEO_MEAN`)), summed in order.

    ``n_topics`` (trec_eval's ``-c``): the mean divides by that many topics, each one not among
    ``values`` counted as log(MIN_GEO_MEAN). Source: meas_avg.c (te_calc_avg_meas_s_gm).
    """
    logs = [math.log(max(v, MIN_GEO_MEAN)) for v in np.asarray(values, dtype=np.float64).tolist()]  # libm's, as C
    total = 0.0
    for v in logs:                       # left to right, as trec_eval accumulates the topics
        total += v
    n = len(logs) if n_topics is None else int(n_topics)
    if n <= 0:
        return 0.0
    total += (n - len(logs)) * math.log(MIN_GEO_MEAN)
    return math.exp(total / n)


# ------------------------------------------------------------------------- gains (G, binG, ndcg_rel, Rndcg, rbp)

def _sort_gains(levels: list[tuple[int, float, int]]) -> list[tuple[int, float, int]]:
    """trec_eval's sort of (level, gain, count) by gain: its comparator truncates the difference to an int.

    (comp_rel_gain in gain_init.c returns ``(int)(g1 - g2)``: gains less than 1 apart compare
    equal and keep their order.)
    """
    def compare(a: tuple[int, float, int], b: tuple[int, float, int]) -> int:
        return int(a[1] - b[1])
    return sorted(levels, key=functools.cmp_to_key(compare))


def gain_table(rr: ResRels, t: int, pairs: Optional[Mapping[int, float]] = None) -> list[tuple[int, float, int]]:
    """trec_eval's ``setup_gains`` for topic ``t``: (level, gain, count) sorted by gain ascending.

    The levels named in ``pairs`` (``ndcg.1=3,2=9``) with their gains, then every grade 0 .. the
    topic's largest not named, with gain = grade; count = the topic's qrels documents of that grade.
    """
    levels, counts = rr.levels(t)
    table: list[tuple[int, float, int]] = [(int(lv), float(g), 0) for lv, g in (pairs or {}).items()]
    named = {lv for lv, _, _ in table}
    for lv, cnt in zip(levels.tolist(), counts.tolist()):
        if lv in named:
            i = next(i for i, x in enumerate(table) if x[0] == lv)
            table[i] = (lv, table[i][1], cnt)
        else:
            table.append((lv, float(lv), cnt))
    return _sort_gains(table)


def _topic_gains(rel: np.ndarray, table: list[tuple[int, float, int]]) -> np.ndarray:
    """Each document's gain (``get_gain``: 0 for a value no level of the table has)."""
    out = np.zeros(len(rel))
    for lv, gain, _ in table:
        out[rel == lv] = gain
    return out


def _ideal(table: list[tuple[int, float, int]]) -> tuple[float, np.ndarray]:
    """The ideal ranking's gains (highest level first, each level ``count`` times) up to the first gain <= 0.

    Returns (the gain trec_eval's loops start with: the top level's, whatever its count; the
    sequence, the positions where the ideal gain is > 0, followed by the first non-positive one
    if the levels go on, or 0.0).
    """
    start = table[-1][1] if table else 0.0
    seq: list[float] = []
    for _, gain, count in reversed(table):
        if count <= 0:
            continue
        if gain <= 0.0:
            seq.append(gain)
            break
        seq.extend([gain] * count)
    else:
        seq.append(0.0)
    return start, np.asarray(seq, dtype=np.float64)


def _per_topic(rr: ResRels) -> Iterator[tuple[int, np.ndarray]]:
    for t in range(len(rr.topics)):
        yield t, rr.rel[rr.offsets[t]:rr.offsets[t + 1]]


@dataclass(frozen=True)
class _TopicGains:
    """One topic's gains as trec_eval's gain-based measures set them up."""

    table: list[tuple[int, float, int]]     # gain_table
    start: float                           # the ideal gain trec_eval's loops start with
    ideal: np.ndarray                      # _ideal's sequence
    positive: np.ndarray                   # its positive gains (the ideal ranking's documents)
    gains: np.ndarray                      # each retrieved document's gain


def _gains_of(rr: ResRels, t: int, rel: np.ndarray, pairs: Optional[Mapping[int, float]]) -> _TopicGains:
    table = gain_table(rr, t, pairs)
    start, ideal = _ideal(table)
    positive = ideal[ideal > 0.0] if start > 0.0 else ideal[:0]
    return _TopicGains(table, start, ideal, positive, _topic_gains(rel, table))


def _log2_rank(n: int) -> np.ndarray:
    """log2(i + 2) for 0-based positions i < n (trec_eval's discount of rank i + 1)."""
    return np.log2(np.arange(2, n + 2, dtype=np.float64))


def bin_g(rr: ResRels, level: int = 1) -> np.ndarray:
    """``binG``: sum over relevant documents of 1 / log2(2 + non-relevant above it), divided by R. Source: m_binG.c."""
    out = np.zeros(len(rr.topics))
    num_rel = rr.num_rel(level)
    for grp in _groups(rr):
        is_rel = grp.valid & (grp.rel >= level)
        count = np.cumsum(is_rel, axis=1)
        i = np.arange(grp.rel.shape[1])[None, :]
        terms = np.where(is_rel, _divide(1.0, np.log2((3 + i - count).astype(np.float64))), 0.0)
        total = np.cumsum(terms, axis=1)[:, -1]
        out[grp.rows] = np.where(count[:, -1] > 0, _divide(total, num_rel[grp.rows]), 0.0)
    return out


def g(rr: ResRels, pairs: Optional[Mapping[int, float]] = None) -> np.ndarray:
    """``G``: Sakai's normalised cumulative gain with costs, as m_G.c computes it.

    At rank i the cost grows by the ideal gain there (at least 1), the results' gain by the
    document's; a document with gain r adds r / log2(2 + cost - gain so far); the sum is divided
    by the ideal ranking's total gain.
    """
    out = np.zeros(len(rr.topics))
    for t, rel in _per_topic(rr):
        tg = _gains_of(rr, t, rel, pairs)
        gains, n = tg.gains, len(rel)
        ideal_at = np.zeros(n)
        if tg.start > 0.0:
            k = min(n, len(tg.ideal))
            ideal_at[:k] = tg.ideal[:k]
        cost = np.where(ideal_at >= 1.0, ideal_at, 1.0)
        sum_cost = np.cumsum(cost)
        sum_results = np.cumsum(gains)
        terms = np.where(gains != 0, _divide(gains, np.log2(2.0 + sum_cost - sum_results)), 0.0)
        results_g = float(np.cumsum(terms)[-1]) if n else 0.0
        sum_ideal = float(np.cumsum(tg.positive)[-1]) if len(tg.positive) else 0.0
        if sum_ideal > 0.0:
            out[t] = results_g / sum_ideal
    return out


def ndcg(rr: ResRels, pairs: Optional[Mapping[int, float]] = None) -> np.ndarray:
    """``ndcg`` with trec_eval's gains: DCG / IDCG, DCG = sum_i gain_i / log2(i + 1) over the whole ranking (m_ndcg.c).

    The gains of ``pairs`` (``ndcg.1=3,2=9,4=4.5``, any real numbers), a grade not named
    gaining its grade; the ideal ranking of the topic's qrels by gain; 0 where IDCG is 0.
    """
    out = np.zeros(len(rr.topics))
    for t, rel in _per_topic(rr):
        tg = _gains_of(rr, t, rel, pairs)
        positive, gains, n = tg.positive, tg.gains, len(rel)
        disc = _log2_rank(max(n, len(positive)))
        dcg = float(np.cumsum(np.where(gains != 0, _divide(gains, disc[:n]), 0.0))[-1]) if n else 0.0
        idcg = float(np.cumsum(_divide(positive, disc[:len(positive)]))[-1]) if len(positive) else 0.0
        if idcg > 0.0:
            out[t] = dcg / idcg
    return out


def ndcg_rel(rr: ResRels, pairs: Optional[Mapping[int, float]] = None) -> np.ndarray:
    """``ndcg_rel``: nDCG averaged over the relevant documents, as m_ndcg_rel.c computes it.

    At each retrieved document with gain > 0, DCG@i / IDCG@i; each relevant document not
    retrieved counts DCG / IDCG of the whole ranking; the sum divided by the number of
    documents with a positive gain (0 unless the sum is > 0).
    """
    out = np.zeros(len(rr.topics))
    for t, rel in _per_topic(rr):
        tg = _gains_of(rr, t, rel, pairs)
        positive, gains, n = tg.positive, tg.gains, len(rel)
        width = max(n, len(positive))
        disc = _log2_rank(width)
        results = np.cumsum(np.where(gains != 0, _divide(gains, disc[:n]), 0.0))
        ideal_gain = np.zeros(width)
        ideal_gain[:len(positive)] = positive
        idcg = np.cumsum(np.where(ideal_gain > 0.0, _divide(ideal_gain, disc), 0.0))
        hit = gains > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(hit, results / idcg[:n], 0.0)
            total = float(np.cumsum(terms)[-1]) if n else 0.0
            num_rel, num_rel_ret = len(positive), int(hit.sum())
            final_results = float(results[-1]) if n else 0.0
            final_ideal = float(idcg[-1]) if width else 0.0
            total += float(np.float64(num_rel - num_rel_ret) * final_results / np.float64(final_ideal))
        if total > 0.0:
            out[t] = total / num_rel
    return out


def rndcg(rr: ResRels, pairs: Optional[Mapping[int, float]] = None, level: int = 1) -> np.ndarray:
    """``Rndcg``: nDCG sampled where the ideal gain changes (and at the ranking's end), averaged (m_Rndcg.c).

    0 for a topic without relevant documents (at ``level``).
    """
    out = np.zeros(len(rr.topics))
    num_rel = rr.num_rel(level)
    for t, rel in _per_topic(rr):
        if num_rel[t] == 0:
            continue
        tg = _gains_of(rr, t, rel, pairs)
        start, gains, n = tg.start, tg.gains, len(rel)
        seq = tg.ideal if start > 0.0 else np.zeros(0)
        exhaust = len(seq) - 1 if len(seq) else -1        # the position the ideal gain first is <= 0
        width = max(n, exhaust + 1, 1)
        disc = _log2_rank(width)
        results = np.cumsum(np.where(gains != 0, _divide(gains, disc[:n]), 0.0))
        ideal_gain = np.zeros(width)
        ideal_gain[:len(seq)] = seq
        idcg = np.cumsum(np.where(ideal_gain > 0.0, _divide(ideal_gain, disc), 0.0))
        samples: list[float] = []
        previous = start
        for b in range(exhaust + 1):                      # boundaries, phases 1 and 3 of the C loops
            current = float(seq[b])
            if current != previous:
                if b >= 1 and idcg[b - 1] > 0.0:
                    r = results[min(b - 1, n - 1)] if n else 0.0
                    samples.append(float(r / idcg[b - 1]))
                previous = current
        if exhaust + 1 < n and idcg[max(exhaust, 0)] > 0.0:     # phase 2: the rest of the ranking
            samples.append(float(results[-1] / idcg[max(exhaust, 0)]))
        total = float(np.cumsum(samples)[-1]) if samples else 0.0
        with np.errstate(divide="ignore", invalid="ignore"):
            out[t] = np.float64(total) / np.float64(len(samples))
    return out


def rbp(rr: ResRels, p: float = 0.9, pairs: Optional[Mapping[int, float]] = None) -> np.ndarray:
    """``rbp``: rank-biased precision (1 - p) sum_i gain_i p^(i-1) (Moffat & Zobel 2008), as m_rbp.c.

    Gains are the grades (or ``pairs``), rescaled to [0, 1] by (g - min) / (max - min) over the
    topic's gain levels when any lies outside it; p^(i-1) by repeated multiplication.
    """
    out = np.zeros(len(rr.topics))
    for t, rel in _per_topic(rr):
        table = gain_table(rr, t, pairs)
        values = [gain for _, gain, _ in table]
        lo, hi = (min(values), max(values)) if values else (0.0, 0.0)
        if lo < 0 or hi > 1:
            table = [(lv, (gain - lo) / (hi - lo), cnt) for lv, gain, cnt in table]
        gains = _topic_gains(rel, table)
        weights = _powers(p, len(rel))
        terms = np.where(gains != 0, gains * weights[:len(rel)], 0.0)
        total = float(np.cumsum(terms)[-1]) if len(rel) else 0.0
        out[t] = (1.0 - p) * total
    return out


def rbp_residual(rr: ResRels, p: float = 0.9) -> np.ndarray:
    """``rbp_resid``: what RBP could gain were every unjudged document retrieved of gain 1 (m_rbp_resid.c).

    p^n + (1 - p) sum over unjudged documents of p^(i-1), where the ranking holds one; else 0.
    """
    out = np.zeros(len(rr.topics))
    for t, rel in _per_topic(rr):
        weights = _powers(p, len(rel))
        unj = rel < 0
        if unj.any():
            total = float(np.cumsum(np.where(unj, weights[:len(rel)], 0.0))[-1])
            out[t] = weights[len(rel)] + (1 - p) * total
    return out


def _powers(p: float, n: int) -> np.ndarray:
    """1, p, p*p, ... (n + 1 values) by repeated multiplication, as trec_eval's ``cur_p = cur_p * p``."""
    steps = np.full(n + 1, float(p))
    steps[0] = 1.0
    return np.multiply.accumulate(steps)


# ------------------------------------------------------------------------- cut-off counts and relstring

def relative_p(rr: ResRels, cutoffs: Sequence[int], level: int = 1) -> np.ndarray:
    """``relative_P``: relevant in the top k divided by min(k, R), ``(T, K)``; 0 where R = 0. Source: m_rel_P.c."""
    ks = np.asarray(cutoffs, dtype=np.int64)[None, :]
    r = rr.num_rel(level)[:, None]
    count = _cut_counts(rr, rr.rel >= level, ks)
    return np.where(r > 0, _divide(count, np.where(ks > r, r, ks)), 0.0)


def unjudged(rr: ResRels, cutoffs: Sequence[int]) -> np.ndarray:
    """``unj``: the share of documents in the top k the qrels do not grade (divided by k), ``(T, K)``. Source: m_unjudged.c."""
    ks = np.asarray(cutoffs, dtype=np.int64)[None, :]
    return _divide(_cut_counts(rr, rr.rel < 0, ks), ks)


def _cut_counts(rr: ResRels, mask: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """Per topic and cut-off k, how many of its first min(k, num_ret) documents ``mask`` holds."""
    csum = np.r_[0, np.cumsum(mask, dtype=np.int64)]
    n = rr.num_ret[:, None]
    ends = rr.offsets[:-1, None] + np.minimum(np.maximum(ks, 0), n)
    return csum[ends] - csum[rr.offsets[:-1, None]]


def relstring(rr: ResRels, length: int = 10) -> list[str]:
    """``relstring``: the relevance values of the first ``length`` documents, one character each (m_relstring.c).

    0-9 the grade, ``>`` above 9, ``-`` not in the qrels, ``.`` in the qrels but not judged.
    """
    out = []
    for _, rel in _per_topic(rr):
        chars = []
        for v in rel[:max(int(length), 0)].tolist():
            chars.append(">" if v > 9 else str(v) if v >= 0 else "-" if v == NONPOOL else "." if v == UNJUDGED
                         else "<")
        out.append("".join(chars))
    return out
