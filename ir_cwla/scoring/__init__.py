"""Scoring: prepared qrels + ranked runs + measures -> per-topic values (pure numpy).

The engine's third room (above :mod:`ir_cwla.measures`, whose measures it scores, and
:mod:`ir_cwla.io`, whose checked inputs it reads). One scoring API, :class:`Scorer`, that every
path goes through (the ir-measures provider, :func:`ir_cwla.meta.evaluate`, the robustness
analyses' re-scoring, ``ir-cwla eval`` and ``ir-cwla cwl``)::

    scorer = Scorer(measures, qrels)           # validates the measures, reads the qrels once
    ranked = scorer.rank(run, "bm25")          # ranks a run once, as deep as the measures look
    scores = scorer.score(ranked)              # {measure: per-row values}, rows = ranked.topics

Beneath it: qrels prepared once (:class:`Qrels`), a run ranked in trec_eval's order and looked up
in a ragged layout (:func:`rank_run`, :class:`Rankings`, cut into dense :class:`Group` s of
similar length), and the C/W/L/A kernel (:func:`browse`, :func:`aggregate`: M = sum_i L(i) A(i)
for every topic at once). :func:`score_matrix` scores gain matrices built elsewhere.
:func:`trec_eval_semantics` is the switch between trec_eval 9 and 10 (the version's measures and
the precision its ranking compares scores in), which every path reads.

Imported on first use (``import ir_cwla`` does not load it).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ir_cwla import _facade

if TYPE_CHECKING:
    from ir_cwla.scoring._gains import Group, Qrels, Rankings, group_widths, rank_run
    from ir_cwla.scoring._kernel import Browsing
    from ir_cwla.scoring._scoring import Scorer, aggregate, browse, ranking_depth, score_matrix
    from ir_cwla.scoring._trec_kernels import trec_eval_semantics

#: Every name, imported on first use: name -> module.
_LAZY = {
    **dict.fromkeys(("Scorer", "ranking_depth", "browse", "aggregate", "score_matrix"), "ir_cwla.scoring._scoring"),
    **dict.fromkeys(("Qrels", "Rankings", "Group", "rank_run", "group_widths"), "ir_cwla.scoring._gains"),
    "Browsing": "ir_cwla.scoring._kernel",
    "trec_eval_semantics": "ir_cwla.scoring._trec_kernels",
}


def __getattr__(name: str) -> Any:
    return _facade.attribute(__name__, name, _LAZY)


__all__ = ["Scorer", "ranking_depth", "score_matrix", "browse", "aggregate", "Browsing", "Qrels", "Rankings", "Group",
           "rank_run", "group_widths", "trec_eval_semantics"]
