"""trec_eval's measures that ir-measures has no measure for, as ir-measures measures.

Each is registered with ``ir_measures`` (so ``ir_measures.parse_measure('RprecMult@0.2')``
reads it) and computed by the provider of :mod:`ir_cwla.provider._trec_provider` with the kernels of
:mod:`ir_cwla.scoring._trec_kernels`, as trec_eval computes the measure named in the last column:

======================================  =================================  ========================
measure                                 what it is                         trec_eval
======================================  =================================  ========================
``GMAP``                                AP per topic, geometric mean       ``gm_map``
``GMBpref``                             bpref per topic, geometric mean    ``gm_bpref``
``RprecMult@x``                         P at rank x R                      ``Rprec_mult_x``
``Utility(a=1,b=-1,c=0,d=0,docs=0)``    linear utility                     ``utility``
``IPrecAvg``                            mean interpolated precision        ``11pt_avg``
``BinG``                                binary G                           ``binG``
``G(gains={...})``                      Sakai's G                          ``G``
``nDCGRel(gains={...})``                nDCG averaged over relevant docs   ``ndcg_rel``
``RnDCG(gains={...})``                  nDCG averaged where gain changes   ``Rndcg``
``RelP@k``                              relevant in top k / min(k, R)      ``relative_P_k``
``NumNonRelJudgedRet``                  judged non-relevant retrieved      ``num_nonrel_judged_ret``
``Unjudged@k``                          unjudged in top k / k              ``unj_k``
``RBPResidual(p=0.8)``                  RBP's residual                     ``rbp_resid``
======================================  =================================  ========================

(trec_eval's ``rbp`` is ir-measures' graded ``RBP(p=0.9)``, computed by the same provider.)
Every measure with ``rel`` reads it as trec_eval's relevance level (``-l``). A geometric mean
floors each topic's value at 0.00001 (trec_eval's MIN_GEO_MEAN); the per-topic value is the
plain AP (bpref), which trec_eval does not print.
"""
from __future__ import annotations

import math
from typing import Any

import ir_measures
from ir_measures import measures
from ir_measures.measures.base import Agg, SumAgg

from ir_cwla.errors import MeasureError

#: The recall points of ``11pt_avg`` (trec_eval's default), as IPrecAvg's ``points`` writes them.
ELEVEN_POINTS = "0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0"

MIN_GEO_MEAN = 0.00001
"""The floor of a topic's value in trec_eval's geometric means (its MIN_GEO_MEAN)."""


class GeometricMeanAgg(Agg):
    """trec_eval's geometric mean: exp of the mean of log(max(v, 0.00001)), the logs summed in order."""

    def __init__(self) -> None:
        self.total = 0.0
        self.count = 0

    def add(self, value: float) -> None:
        """Adds one topic's value."""
        self.total += math.log(max(float(value), MIN_GEO_MEAN))
        self.count += 1

    def result(self) -> float:
        """The geometric mean (NaN without any value, as ir-measures' mean)."""
        return math.exp(self.total / self.count) if self.count else float("nan")


def _rel(desc: str = "minimum relevance score to be considered relevant (inclusive): trec_eval's -l") -> Any:
    return measures.ParamInfo(dtype=int, default=1, desc=desc)


def _gains() -> Any:
    return measures.ParamInfo(dtype=dict, required=False,
                              desc="gain of each grade ({grade: gain}; a grade not named has gain = grade)")


class _GMAP(measures.Measure):
    """Geometric mean of the topics' average precision (trec_eval's ``gm_map``; Robertson 2006)."""

    __name__ = "GMAP"
    NAME = __name__
    PRETTY_NAME = "Geometric Mean Average Precision"
    SHORT_DESC = "AP per topic, averaged over topics by the geometric mean (each topic at least 0.00001)."
    SUPPORTED_PARAMS = {"rel": _rel()}

    def aggregator(self) -> Agg:
        """The geometric mean of trec_eval (:class:`GeometricMeanAgg`)."""
        return GeometricMeanAgg()


class _GMBpref(measures.Measure):
    """Geometric mean of the topics' bpref (trec_eval's ``gm_bpref``)."""

    __name__ = "GMBpref"
    NAME = __name__
    PRETTY_NAME = "Geometric Mean bpref"
    SHORT_DESC = "bpref per topic, averaged over topics by the geometric mean (each topic at least 0.00001)."
    SUPPORTED_PARAMS = {"rel": _rel()}

    def aggregator(self) -> Agg:
        """The geometric mean of trec_eval (:class:`GeometricMeanAgg`)."""
        return GeometricMeanAgg()


class _RprecMult(measures.Measure):
    """Precision at rank c = (long)(mult R + 0.9), R the relevant documents (trec_eval's ``Rprec_mult``)."""

    __name__ = "RprecMult"
    NAME = __name__
    AT_PARAM = "mult"
    PRETTY_NAME = "Precision at a multiple of R"
    SHORT_DESC = "Precision at rank mult x R (num_rel_ret / rank beyond the ranking)."
    SUPPORTED_PARAMS = {"mult": measures.ParamInfo(dtype=float, required=True, desc="the multiple of R"),
                        "rel": _rel()}


class _Utility(measures.Measure):
    """Linear utility a R' + b (n - R') + c (R - R') + d (N + R' - n - R) (trec_eval's ``utility``).

    n retrieved, R relevant, R' relevant retrieved, N = ``docs`` the collection's size (trec_eval's -N).
    """

    __name__ = "Utility"
    NAME = __name__
    PRETTY_NAME = "Linear Utility"
    SHORT_DESC = "Gain of the relevant retrieved minus cost of the non-relevant retrieved (and of the missed)."
    SUPPORTED_PARAMS = {
        "a": measures.ParamInfo(dtype=float, default=1.0, desc="worth of a relevant document retrieved"),
        "b": measures.ParamInfo(dtype=float, default=-1.0, desc="worth of a non-relevant document retrieved"),
        "c": measures.ParamInfo(dtype=float, default=0.0, desc="worth of a relevant document not retrieved"),
        "d": measures.ParamInfo(dtype=float, default=0.0, desc="worth of a non-relevant document not retrieved"),
        "docs": measures.ParamInfo(dtype=int, default=0, desc="documents in the collection (trec_eval's -N)"),
        "rel": _rel(),
    }


class _IPrecAvg(measures.Measure):
    """Interpolated precision averaged over recall points (trec_eval's ``11pt_avg``)."""

    __name__ = "IPrecAvg"
    NAME = __name__
    PRETTY_NAME = "Interpolated Precision averaged over recall points"
    SHORT_DESC = "The mean of IPrec at the recall points (by default the 11 of 0.0, 0.1, ..., 1.0)."
    SUPPORTED_PARAMS = {
        "points": measures.ParamInfo(dtype=str, default=ELEVEN_POINTS, desc="recall points, comma-separated"),
        "rel": _rel(),
    }


class _BinG(measures.Measure):
    """Binary G: sum over relevant documents of 1 / log2(2 + non-relevant above it), over R (``binG``)."""

    __name__ = "BinG"
    NAME = __name__
    PRETTY_NAME = "Binary G"
    SHORT_DESC = "Sakai's G with binary gains and unit costs."
    SUPPORTED_PARAMS = {"rel": _rel()}


class _G(measures.Measure):
    """Sakai's normalised cumulative gain with costs (trec_eval's ``G``)."""

    __name__ = "G"
    NAME = __name__
    PRETTY_NAME = "G"
    SHORT_DESC = "Cumulative gain discounted by log2(2 + cost - gain so far), over the ideal gain."
    SUPPORTED_PARAMS = {"gains": _gains()}


class _nDCGRel(measures.Measure):
    """nDCG averaged over the relevant documents (trec_eval's ``ndcg_rel``)."""

    __name__ = "nDCGRel"
    NAME = __name__
    PRETTY_NAME = "nDCG averaged over relevant documents"
    SHORT_DESC = "DCG@i / IDCG@i at each relevant document, those not retrieved at the ranking's end."
    SUPPORTED_PARAMS = {"gains": _gains()}


class _RnDCG(measures.Measure):
    """nDCG averaged over the ranks where the ideal gain changes (trec_eval's ``Rndcg``)."""

    __name__ = "RnDCG"
    NAME = __name__
    PRETTY_NAME = "nDCG averaged over the ideal's gain boundaries"
    SHORT_DESC = "nDCG sampled where the ideal ranking's gain changes and at the ranking's end, averaged."
    SUPPORTED_PARAMS = {"gains": _gains(), "rel": _rel("a topic without a relevant document at this level scores 0")}


class _RelP(measures.Measure):
    """Relevant documents in the top k divided by min(k, R) (trec_eval's ``relative_P``)."""

    __name__ = "RelP"
    NAME = __name__
    PRETTY_NAME = "Relative Precision at k"
    SHORT_DESC = "Precision at k relative to the best possible, min(k, R) / k."
    SUPPORTED_PARAMS = {"cutoff": measures.ParamInfo(dtype=int, required=True, desc="ranking cutoff threshold"),
                        "rel": _rel()}


class _NumNonRelJudgedRet(measures.Measure):
    """Retrieved documents judged non-relevant (trec_eval's ``num_nonrel_judged_ret``); summed over topics."""

    __name__ = "NumNonRelJudgedRet"
    NAME = __name__
    PRETTY_NAME = "Number of judged non-relevant documents retrieved"
    SHORT_DESC = "Retrieved documents the qrels grade below the relevance level."
    SUPPORTED_PARAMS = {"rel": _rel()}

    def aggregator(self) -> Agg:
        """The sum over topics, as trec_eval's counts."""
        return SumAgg()


class _Unjudged(measures.Measure):
    """The share of the top k that the qrels do not grade, divided by k (trec_eval 10's ``unj``)."""

    __name__ = "Unjudged"
    NAME = __name__
    PRETTY_NAME = "Unjudged at k"
    SHORT_DESC = "Documents in the top k the qrels do not list (or list with a negative grade), over k."
    SUPPORTED_PARAMS = {"cutoff": measures.ParamInfo(dtype=int, required=True, desc="ranking cutoff threshold")}


class _RBPResidual(measures.Measure):
    """The most RBP could gain were every unjudged document retrieved of gain 1 (trec_eval 10's ``rbp_resid``)."""

    __name__ = "RBPResidual"
    NAME = __name__
    PRETTY_NAME = "RBP residual"
    SHORT_DESC = "p^n + (1 - p) sum over the unjudged retrieved of p^(i-1), where there is one; else 0."
    SUPPORTED_PARAMS = {"p": measures.ParamInfo(dtype=float, default=0.8, desc="persistence")}


GMAP = _GMAP()
GMBpref = _GMBpref()
RprecMult = _RprecMult()
Utility = _Utility()
IPrecAvg = _IPrecAvg()
BinG = _BinG()
G = _G()
nDCGRel = _nDCGRel()
RnDCG = _RnDCG()
RelP = _RelP()
NumNonRelJudgedRet = _NumNonRelJudgedRet()
Unjudged = _Unjudged()
RBPResidual = _RBPResidual()

MEASURES = (GMAP, GMBpref, RprecMult, Utility, IPrecAvg, BinG, G, nDCGRel, RnDCG, RelP, NumNonRelJudgedRet,
            Unjudged, RBPResidual)
"""The measures of this module (one instance each, as ir-measures registers them)."""


def register() -> None:
    """Registers the measures of this module with ir-measures (idempotent)."""
    for measure in MEASURES:
        ir_measures.measures.registry[measure.NAME] = measure


def points(measure: Any) -> list[float]:
    """IPrecAvg's recall points as numbers (``'0.25,.5'`` -> [0.25, 0.5])."""
    text = str(measure["points"])
    try:
        values = [float(x) for x in text.split(",")]
    except ValueError:
        raise MeasureError(f"{measure}: points must be numbers separated by commas, got {text!r}") from None
    return values
