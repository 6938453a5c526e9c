"""trec_eval's ranking order: scores compared in float32 (or float64), ties broken by doc_id.

The rules every path ranks a run by (the engine, :func:`ir_cwla.io.top_ranked`,
``ties='float64'`` handed to ir-measures, ``ir-cwla cwl``), numpy in, numpy out; re-exported
by :mod:`ir_cwla.io`.
"""
from __future__ import annotations

import warnings

import numpy as np

from ir_cwla.errors import InputError, ParameterError, ScoreOverflowWarning
from ir_cwla.io import _hashing as hashing


def float32_scores(scores: np.ndarray, name: str = "run", warn: bool = True) -> np.ndarray:
    """Scores as trec_eval holds them, C floats (single precision): scores equal in float32 are ties.

    Finite scores beyond float32's range become +-inf (ties among themselves), said in one warning naming
    the run and the count (unless ``warn`` is false).
    """
    with np.errstate(over="ignore"):
        narrow = scores.astype(np.float32)
    if warn:
        overflow = int((np.isinf(narrow) & np.isfinite(scores)).sum())
        if overflow:
            warnings.warn(f"{name}: {overflow} score(s) beyond the float32 range (|score| > 3.4e38) compare as "
                          "equal to +-inf, as in trec_eval, which holds scores as single-precision floats; "
                          "rescale the scores to rank them apart", ScoreOverflowWarning, stacklevel=3)
    return narrow


TIES = ("float32", "float64")
"""The precisions scores may be compared in (``ties=``, ``ir-cwla eval --ties``): ``'float32'``
as trec_eval up to 9.0.8, pytrec_eval and ir-measures (scores equal to about 7 significant
digits tie), ``'float64'`` as trec_eval 10.0 (scores tie only when equal as doubles)."""


def check_ties(ties: str) -> str:
    """``ties`` if it is one of :data:`TIES`, else a :class:`ParameterError` listing them."""
    if ties not in TIES:
        raise ParameterError(f"ties must be one of {', '.join(map(repr, TIES))} (the precision scores are compared "
                             f"in: trec_eval up to 9.0.8 float32, trec_eval 10 float64), got {ties!r}")
    return ties


def compared_scores(scores: np.ndarray, ties: str = "float32", name: str = "run", warn: bool = True) -> np.ndarray:
    """Scores as they are compared when ranking.

    :func:`float32_scores` (``ties='float32'``, the default, as trec_eval up to 9.0.8 and
    ir-measures), or as they are (``'float64'``, as trec_eval 10.0).
    """
    if check_ties(ties) == "float64":
        return np.asarray(scores, dtype=np.float64)
    return float32_scores(scores, name, warn)


#: Rows of a ranking :func:`trec_order` compares with their neighbours at once.
TIE_BLOCK = 1 << 17


def trec_order(topics: np.ndarray, scores: np.ndarray, docs: np.ndarray) -> np.ndarray:
    """The permutation sorting rows in trec_eval's order.

    The permutation sorting rows by topic code ascending, score descending, doc_id
    descending (string order): trec_eval's order, given :func:`compared_scores` (float32 by
    default, :func:`float32_scores`; float64 as trec_eval 10).

    Sorts on the numbers first and compares doc_id strings only within runs of tied scores.
    ``docs``: an object array of str or compact (:func:`ir_cwla.io._hashing.compact`), which
    sorts as its str.
    """
    order = np.lexsort((-scores, topics))
    # neighbours compared a block of rows at a time: no sorted copy of the keys as long as the run
    # (peak memory, issue 28)
    tied = np.empty(max(len(order) - 1, 0), dtype=bool)
    for a in range(0, len(tied), TIE_BLOCK):
        rows = order[a:a + TIE_BLOCK + 1]
        ts, ss = topics[rows], scores[rows]
        tied[a:a + len(rows) - 1] = (ts[1:] == ts[:-1]) & (ss[1:] == ss[:-1])
    if tied.any():
        in_tie = np.r_[tied, False] | np.r_[False, tied]
        pos = np.flatnonzero(in_tie)
        block = np.cumsum(np.r_[True, ~tied])[pos]        # id of each tie block
        codes, _ = hashing.factorize(docs[order[pos]], sort=True)
        order[pos] = order[pos][np.lexsort((-codes, block))]
    return order


def rank_score_values(topics: np.ndarray, scores: np.ndarray, docs: np.ndarray, ties: str = "float64") -> np.ndarray:
    """Each row's ``n - rank``: scores that pass trec_eval's ranking on (:func:`ir_cwla.io.rank_scores`).

    ``topics``: a code per row; ``n`` is the number of documents of the row's topic, ranked in
    trec_eval's order (:func:`trec_order`) with scores compared as ``ties`` says. A backend that
    compares scores in float32 (trec_eval through pytrec_eval) ranks the documents in that order
    given these: how ``ties='float64'`` reaches the measures of ir-measures. Exact up to 2^24
    documents per topic (integers a float32 holds); rows keep their order.
    """
    order = trec_order(topics, compared_scores(scores, ties, warn=False), docs)
    sq = topics[order]
    starts = np.r_[0, np.flatnonzero(sq[1:] != sq[:-1]) + 1]
    counts = np.diff(np.r_[starts, len(order)])
    if counts.max() > 2 ** 24:
        raise InputError(f"a topic ranks {int(counts.max())} documents: beyond 2^24 ranks a float32 cannot tell "
                         "apart, so ties='float64' cannot reach trec_eval's measures")
    rank = np.arange(len(order)) - np.repeat(starts, counts)
    out = np.empty(len(order), dtype=np.float64)
    out[order] = (np.repeat(counts, counts) - rank).astype(np.float64)
    return out
