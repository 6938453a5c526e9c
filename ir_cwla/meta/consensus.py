"""One qrels from several assessors: majority, mean or median grade, or the first that judged.

:func:`combine_qrels` builds a consensus qrels from several qrels of the same topics (e.g.
NIST's and two re-annotations), so that a user can ask whether the consensus changes how a
measure ranks the systems. Each (topic, doc_id) pair gets one grade from the grades of the
qrels that judged it (with ``pairs='union'``, the default, every pair judged by at least one;
with ``pairs='intersection'``, only the pairs every qrels judged):

``'majority'``
    the grade given most often; a tie between grades is broken by ``ties``: ``'lower'`` (the
    lowest tied grade, the default: a document is not made more relevant than a majority
    says), ``'higher'`` (the highest), or ``'first'`` (the tied grade given by the qrels
    that comes first in the list, e.g. the reference's if it is listed first).
``'mean'``
    the mean grade rounded to the nearest integer; a mean exactly halfway between two grades
    (two assessors giving 1 and 2) is rounded by ``ties``: ``'lower'`` (the default) or
    ``'higher'``. The rounding is done in integer arithmetic, so it is exact for any int64 grade.
``'median'``
    the median grade; with an even number of grades it is the mean of the two middle ones,
    rounded as ``'mean'`` (so for two assessors ``'median'`` equals ``'mean'``).
``'first'``
    the grade of the first qrels in the list that judged the pair: ``[nist, a, b]`` is NIST's
    qrels (a and b fill in only pairs NIST did not judge), ``[a, b, nist]`` is the
    re-annotation where there is one and NIST's grade elsewhere.

The result is a checked qrels frame (``query_id, doc_id, relevance`` int64, as
:func:`ir_cwla.io.as_qrels_frame` returns), sorted by topic id and doc_id (as strings), so it
does not depend on the row order of the inputs.
"""
from __future__ import annotations

import warnings
from typing import Any, Literal

import numpy as np
import pandas as pd

from ir_cwla.errors import DataError, InputWarning, ParameterError
from ir_cwla.io import as_qrels_frame
from ir_cwla.meta.labels import as_qrels_mapping

Method = Literal["majority", "mean", "median", "first"]
METHODS = ("majority", "mean", "median", "first")
TIES = ("lower", "higher", "first")
PAIRS = ("union", "intersection")


# ------------------------------------------------------------------------- kernels (numpy in, numpy out)
# Every kernel takes the judgments as parallel arrays: ``pair`` (int code of the (topic, doc_id)
# pair, in [0, n_pairs)), ``grade`` (int64) and ``source`` (position of the qrels in the list),
# and returns the grade of every pair, int64 of length n_pairs (every pair judged at least once).

def _pair_starts(pair: np.ndarray, n_pairs: int) -> np.ndarray:
    return np.searchsorted(pair, np.arange(n_pairs))


def majority_grade(pair: np.ndarray, grade: np.ndarray, source: np.ndarray, n_pairs: int,
                   ties: str = "lower") -> np.ndarray:
    """The most frequent grade of each pair.

    Ties broken by ``ties`` (``'lower'``, ``'higher'``, ``'first'``: the tied
    grade of the earliest source).
    """
    order = np.lexsort((source, grade, pair))
    p, g, s = pair[order], grade[order], source[order]
    new = np.ones(len(p), dtype=bool)
    new[1:] = (p[1:] != p[:-1]) | (g[1:] != g[:-1])
    starts = np.flatnonzero(new)                           # one (pair, grade) group each
    counts = np.diff(np.append(starts, len(p)))
    gp, gg, gfirst = p[starts], g[starts], s[starts]      # sources sorted within a group: its earliest
    if ties == "lower":
        key = gg
    elif ties == "higher":
        key = -gg
    else:
        key = gfirst
    best = np.lexsort((key, -counts, gp))                  # per pair: most votes, then the tie rule
    first = np.ones(len(best), dtype=bool)
    first[1:] = gp[best][1:] != gp[best][:-1]
    return gg[best][first]


def rounded_ratio(numerator: np.ndarray, denominator: np.ndarray, ties: str = "lower") -> np.ndarray:
    """``numerator / denominator`` rounded to the nearest integer in exact integer arithmetic.

    A ratio halfway between two integers goes to the lower (``ties='lower'``) or the
    higher one.
    """
    q, r = numerator // denominator, numerator % denominator   # floor division: 0 <= r < denominator
    twice = 2 * r
    up = (twice > denominator) | ((twice == denominator) & (ties == "higher"))
    return q + up.astype(np.int64)


def mean_grade(pair: np.ndarray, grade: np.ndarray, n_pairs: int, ties: str = "lower") -> np.ndarray:
    """The mean grade of each pair, rounded by :func:`rounded_ratio`."""
    order = np.argsort(pair, kind="stable")
    p, g = pair[order], grade[order]
    starts = _pair_starts(p, n_pairs)
    counts = np.diff(np.append(starts, len(p)))
    bound = max(int(g.max()), -int(g.min())) if len(g) else 0
    if bound * int(counts.max(initial=1)) >= 2 ** 63:     # an int64 sum could overflow: Python ints
        sums = np.add.reduceat(g.astype(object), starts)
        return np.array(rounded_ratio(sums, counts.astype(object), ties).tolist(), dtype=np.int64)
    return rounded_ratio(np.add.reduceat(g, starts), counts, ties)


def median_grade(pair: np.ndarray, grade: np.ndarray, n_pairs: int, ties: str = "lower") -> np.ndarray:
    """The median grade of each pair.

    The median grade of each pair (the mean of the two middle grades for an even count,
    rounded by :func:`rounded_ratio`).
    """
    order = np.lexsort((grade, pair))
    p, g = pair[order], grade[order]
    starts = _pair_starts(p, n_pairs)
    counts = np.diff(np.append(starts, len(p)))
    low, high = g[starts + (counts - 1) // 2], g[starts + counts // 2]
    # low + high could overflow int64 for huge grades: halve each (floor) and add back the carry
    return low // 2 + high // 2 + rounded_ratio(low % 2 + high % 2, np.full(n_pairs, 2), ties)


def first_grade(pair: np.ndarray, grade: np.ndarray, source: np.ndarray, n_pairs: int) -> np.ndarray:
    """The grade of the earliest source that judged each pair."""
    order = np.lexsort((source, pair))
    return grade[order][_pair_starts(pair[order], n_pairs)]


# ------------------------------------------------------------------------- the adapter

def combine_qrels(qrels: Any, method: Method = "majority", *, ties: str = "lower",
                  pairs: str = "union") -> pd.DataFrame:
    """One qrels from several: the majority, mean or median grade of each pair, or the first qrels'.

    Parameters
    ----------
    qrels
        A list (or tuple) of qrels, or a mapping name -> qrels, in order of precedence
        (``'first'``, ``ties='first'``); each anything :func:`ir_cwla.io.as_qrels_frame`
        reads (TREC files, ``-``, DataFrames, ``irds:`` ids).
    method
        ``'majority'``, ``'mean'``, ``'median'`` or ``'first'`` (module docstring).
    ties
        How a tie is broken: ``'lower'`` (default) or ``'higher'`` grade; ``'first'``
        (majority only): the tied grade of the qrels that comes first.
    pairs
        ``'union'`` (every pair some qrels judged, combined over the qrels that judged it) or
        ``'intersection'`` (only the pairs every qrels judged).

    Returns
    -------
    Checked qrels frame ``query_id, doc_id, relevance`` (int64), sorted by topic id, then
    doc_id (as strings).

    Raises
    ------
    ParameterError: an unknown ``method``, ``ties`` or ``pairs``, ``ties='first'`` with a method
        other than majority, or no qrels at all.
    DataError: ``pairs='intersection'`` and no pair judged by every qrels.
    InputError: a qrels that cannot be read.
    """
    if method not in METHODS:
        raise ParameterError(f"method must be one of {METHODS}, got {method!r}")
    if ties not in TIES:
        raise ParameterError(f"ties must be one of {TIES}, got {ties!r}")
    if ties == "first" and method != "majority":
        raise ParameterError(f"ties='first' breaks ties of the majority vote; method {method!r} takes "
                             "ties='lower' or 'higher' (how a mean halfway between two grades is rounded)")
    if pairs not in PAIRS:
        raise ParameterError(f"pairs must be one of {PAIRS}, got {pairs!r}")
    frames = as_qrels_mapping(qrels, "qrels")
    if not frames:
        raise ParameterError("combine_qrels needs at least one qrels")
    stacked = pd.concat([f.assign(_source=i) for i, f in enumerate(frames.values())], ignore_index=True)
    topics = stacked["query_id"].astype(str).to_numpy(dtype=object)
    docs = stacked["doc_id"].astype(str).to_numpy(dtype=object)
    keys = pd.MultiIndex.from_arrays([topics, docs])
    codes, uniques = pd.factorize(keys, sort=True)             # pairs in (topic, doc_id) order
    pair = codes.astype(np.int64)
    grade = stacked["relevance"].to_numpy(np.int64)
    source = stacked["_source"].to_numpy(np.int64)
    n_pairs = len(uniques)
    keep = np.ones(n_pairs, dtype=bool)
    if pairs == "intersection":
        judged_by = np.bincount(pair, minlength=n_pairs)      # each qrels judges a pair at most once
        keep = judged_by == len(frames)
        if not keep.any():
            raise DataError(f"no (topic, doc_id) pair is judged by all of {list(frames)}: nothing to combine "
                            "with pairs='intersection' (pairs='union' combines the grades each pair has)")
    if method == "majority":
        out = majority_grade(pair, grade, source, n_pairs, ties)
    elif method == "mean":
        out = mean_grade(pair, grade, n_pairs, ties)
    elif method == "median":
        out = median_grade(pair, grade, n_pairs, ties)
    else:
        out = first_grade(pair, grade, source, n_pairs)
    query_ids = np.asarray(uniques.get_level_values(0), dtype=object)
    doc_ids = np.asarray(uniques.get_level_values(1), dtype=object)
    combined = pd.DataFrame({"query_id": query_ids[keep], "doc_id": doc_ids[keep],
                             "relevance": out[keep].astype(np.int64)})
    with warnings.catch_warnings():      # the inputs were checked (and warned about) when read
        warnings.simplefilter("ignore", InputWarning)
        return as_qrels_frame(combined, name=f"combine_qrels({method})")

