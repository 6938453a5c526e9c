"""Scoring every run again under many subsets of its qrels, without ranking it again.

The robustness analyses (:mod:`ir_cwla.meta.incompleteness`, :mod:`ir_cwla.meta.pooling`)
score the same runs under hundreds of variants of the qrels, each a subset of the
judgments. :func:`prepare` reads the qrels once (judgments numbered ``0..J-1`` by
:class:`ir_cwla.gains.Qrels`) and ranks every run once (:func:`ir_cwla.gains.rank_run`),
stacking the rows of all runs into one ranked run; a variant is a boolean mask over the
judgments, and :meth:`Collection.cube` re-grades the stacked rows under it
(:meth:`ir_cwla.gains.Rankings.regrade`, linear in the cells) and scores all C/W/L/A
measures in one call. The result equals evaluating from scratch with the smaller qrels
(x_max and R come from the judgments in force; ``tests/test_meta_robustness.py`` checks it
on DL19). Measures that are not C/W/L/A (e.g. ``nDCG@10``) are scored by ir-measures on the
reduced qrels frame, run by run (slower, same results as :func:`ir_cwla.meta.evaluate`).

Like :func:`ir_cwla.meta.evaluate`, every run is scored on every topic of the qrels (the
measure's default, 0, where it returns nothing for one), and means are taken over all of
them; as there, a run that shares no topic with the qrels is refused and one that misses
some gets a :class:`~ir_cwla.errors.MissingTopicsWarning` (:func:`ir_cwla.io.topic_coverage`).
Systems are sorted by name, topics by id, measures in the measure order
(:func:`ir_cwla.analysis.naming.order_key`), and judgments have one order (by topic,
then doc_id) that random draws follow, so nothing depends on the row order of the inputs.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Optional, Union

import ir_measures
import numpy as np
import pandas as pd

from ir_cwla import io
from ir_cwla.analysis import naming
from ir_cwla.errors import InputError, ParameterError
from ir_cwla.measures import is_cwla, needs_element_types
from ir_cwla.meta.evaluation import Runs, as_measures, as_run_mapping, read_qrels
from ir_cwla.scoring import Qrels, Rankings, Scorer, rank_run


@dataclass
class Collection:
    """Runs ranked once against qrels, ready to be scored under any subset of the judgments.

    ``measures``: names in the measure order (the frame names of :func:`ir_cwla.meta.evaluate`);
    ``systems``: run names, sorted; ``topics``: the qrels topics, sorted (``qrels.topics``);
    ``ranked``: the rows of every run stacked (``row_system[i]`` is the system of row ``i``);
    ``depth``: ranks kept per row (None: whole rankings).
    """

    measures: tuple[str, ...]
    parsed: tuple[Any, ...]
    systems: tuple[str, ...]
    qrels: Qrels
    ranked: Rankings
    row_system: np.ndarray
    depth: Optional[int]
    scorer: Optional[Scorer]
    judgment_docs: np.ndarray
    #: for the measures that are not C/W/L/A: ``{depth: runs cut at that depth}``, the measures
    #: with a cutoff under their deepest one, those without under ``None`` (whole runs)
    runs: dict[Optional[int], dict[str, pd.DataFrame]] = field(default_factory=dict)

    @property
    def topics(self) -> np.ndarray:
        """The topic ids of the qrels."""
        return self.qrels.topics

    @property
    def n_judgments(self) -> int:
        """The number of judgments of the qrels."""
        return len(self.qrels.grades)

    @cached_property
    def cell_system(self) -> np.ndarray:
        """The system (position in ``systems``) of every cell of ``ranked``."""
        return np.repeat(self.row_system, self.ranked.kept)

    @cached_property
    def cell_rank(self) -> np.ndarray:
        """The rank (0-based) of every cell of ``ranked``."""
        return np.arange(len(self.ranked.judgments)) - np.repeat(self.ranked.offsets[:-1], self.ranked.kept)

    @property
    def cwla(self) -> list[int]:
        """Positions of the C/W/L/A measures (scored by the engine)."""
        return [i for i, m in enumerate(self.parsed) if is_cwla(m)]

    @property
    def others(self) -> list[int]:
        """Positions of the other measures (scored by ir-measures)."""
        return [i for i, m in enumerate(self.parsed) if not is_cwla(m)]

    def judgment_order(self) -> np.ndarray:
        """Judgment ids sorted by topic, then doc_id: the order random draws follow."""
        codes = pd.factorize(self.judgment_docs, sort=True)[0]
        return np.lexsort((codes, self.qrels.judgment_topic))

    def cube(self, mask: Optional[np.ndarray] = None, systems: Optional[Sequence[int]] = None, *,
             qrels: Optional[Qrels] = None, topics: Optional[Union[Sequence[int], np.ndarray]] = None) -> np.ndarray:
        """Per-topic scores ``(measures, topics, systems)``.

        mask: only the judgments of ``mask`` in force (None: all).
        systems: the systems at these positions of ``systems`` (sorted; None: all).
        qrels: grade with this variant of :attr:`qrels` instead (the same judgment numbering:
            :meth:`ir_cwla.gains.Qrels.subset` or :meth:`ir_cwla.gains.Qrels.regraded`, e.g. another
            assessor's grades of the same pairs); ``mask`` then applies on top of it.
        topics: the topics at these positions of :attr:`topics` (sorted; None: all).
        """
        chosen = np.arange(len(self.systems)) if systems is None else np.asarray(systems, dtype=np.int64)
        wanted = np.arange(len(self.topics)) if topics is None else np.asarray(topics, dtype=np.int64)
        out = np.zeros((len(self.measures), len(wanted), len(chosen)))
        graded = self.qrels if qrels is None else qrels
        if mask is not None:
            graded = graded.subset(mask)
        if self.cwla:
            column_of = np.full(len(self.topics), -1, dtype=np.int64)
            column_of[wanted] = np.arange(len(wanted))
            if systems is None and topics is None:
                rows = np.arange(len(self.row_system))
                ranked = self.ranked
            else:
                rows = np.flatnonzero(np.isin(self.row_system, chosen) & (column_of[self.ranked.topic_rows] >= 0))
                ranked = self.ranked.select(rows)
            if graded is not self.qrels:
                ranked = ranked.regrade(graded)
            assert self.scorer is not None     # the C/W/L/A measures have one
            scores = self.scorer.score(ranked)
            column = np.searchsorted(chosen, self.row_system[rows])
            topic = column_of[ranked.topic_rows]
            for i in self.cwla:
                out[i, topic, column] = scores[self.parsed[i]]
        if self.others:
            self._score_others(out, graded, chosen, wanted)
        return out

    def means(self, mask: Optional[np.ndarray] = None, systems: Optional[Sequence[int]] = None, *,
              qrels: Optional[Qrels] = None, topics: Optional[Union[Sequence[int], np.ndarray]] = None) -> np.ndarray:
        """Mean scores ``(measures, systems)`` over the topics.

        Mean scores ``(measures, systems)`` over the topics (as ``ScoreCube.means``; the
        arguments are those of :meth:`cube`).
        """
        return self.cube(mask, systems, qrels=qrels, topics=topics).mean(axis=1)

    def pool(self, depth: int, exclude: Optional[int] = None) -> np.ndarray:
        """The judgments of documents ranked within ``depth`` by at least one run, as a mask.

        The judgments of documents ranked within ``depth`` by at least one run (leaving out
        the run at position ``exclude``): a boolean mask over judgment ids.
        """
        if self.depth is not None and depth > self.depth:
            raise ParameterError(f"pool depth {depth} is deeper than the {self.depth} ranks kept per run")
        cells = (self.cell_rank < depth) & (self.ranked.judgments >= 0)
        if exclude is not None:
            cells &= self.cell_system != exclude
        mask = np.zeros(self.n_judgments, dtype=bool)
        mask[self.ranked.judgments[cells]] = True
        return mask

    def qrels_frame(self, mask: Optional[np.ndarray] = None, qrels: Optional[Qrels] = None) -> pd.DataFrame:
        """The judgments in force as a qrels frame (``query_id, doc_id, relevance``).

        Those of ``qrels`` (a variant of :attr:`qrels`, see :meth:`cube`; default :attr:`qrels`),
        with only ``mask`` on top of it (None: all).
        """
        source = self.qrels if qrels is None else qrels
        keep = np.ones(self.n_judgments, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
        if source.mask is not None:
            keep = keep & source.mask
        grades = source.grades[keep]
        as_int = grades.astype(np.int64)
        return pd.DataFrame({"query_id": self.topics[source.judgment_topic[keep]],
                             "doc_id": self.judgment_docs[keep],
                             "relevance": as_int if (as_int == grades).all() else grades})

    def _score_others(self, out: np.ndarray, qrels: Qrels, chosen: np.ndarray, wanted: np.ndarray) -> None:
        frame = self.qrels_frame(qrels=qrels)
        topic_index = pd.Index(self.topics[wanted])
        if len(wanted) != len(self.topics):
            frame = frame[topic_index.get_indexer(frame["query_id"]) >= 0]
        for i in self.others:
            out[i] = self.parsed[i].DEFAULT
        if not len(frame):
            return
        for depth, runs in self.runs.items():
            positions = [i for i in self.others if _depth_group(self.parsed[i], self.runs) == depth]
            measures = [self.parsed[i] for i in positions]
            where = dict(zip(measures, positions))
            evaluator = ir_measures.evaluator(measures, frame)
            for column, s in enumerate(chosen):
                for metric in evaluator.iter_calc(runs[self.systems[s]]):
                    out[where[metric.measure], topic_index.get_loc(metric.query_id), column] = metric.value


def _depth_group(measure: Any, groups: Mapping[Optional[int], Any]) -> Optional[int]:
    """The depth the runs of a measure that is not C/W/L/A are cut at.

    The deepest cutoff among the measures with one (the only key that is not None), None for
    a measure without cutoff.
    """
    if measure.params.get("cutoff") is None:
        return None
    return next(k for k in groups if k is not None)


def stack(rankings: Sequence[Rankings], qrels: Qrels) -> tuple[Rankings, np.ndarray]:
    """The rows of several ranked runs as one ranked run, and the run index of every row."""
    owner = np.repeat(np.arange(len(rankings)), [len(r.topics) for r in rankings])
    return Rankings.concat(rankings, qrels), owner


def prepare(runs: Runs, qrels: Any, measures: Sequence[Any], depth: int = 0) -> Collection:
    """Reads the qrels and ranks every run once.

    depth: ranks each run must keep beyond what the measures look at (the deepest pool of
        the analysis); runs are cut at ``max(depth, deepest cutoff)``, or kept whole if a
        measure has no cutoff.
    """
    parsed, names = as_measures(measures)
    order = naming.measure_order(names)
    position = {n: i for i, n in enumerate(names)}
    parsed = [parsed[position[n]] for n in order]
    named = as_run_mapping(runs)
    systems = tuple(sorted(named))
    frame = read_qrels(qrels, parsed)
    if not len(frame):
        raise InputError("qrels: no judgments")
    cwla = [m for m in parsed if is_cwla(m)]
    scorer = Scorer(cwla, frame) if cwla else None
    prepared = scorer.qrels if scorer is not None else Qrels(frame)
    if scorer is not None and scorer.depth is None:
        keep: Optional[int] = None
    else:
        keep = max(depth, scorer.depth if scorer is not None and scorer.depth is not None else 0)
    run_frames = {name: io.as_run_frame(named[name], name, element_type=needs_element_types(parsed))
                  for name in systems}
    topics = set(pd.unique(frame["query_id"]).astype(str).tolist())
    for name in systems:           # no silent zero, as in evaluate (InputError, or one warning)
        io.check_topics(name, run_frames[name], topics, stacklevel=3)
    doc_ids = scorer is not None and scorer.doc_ids
    ranked, owner = stack([rank_run(run_frames[name], prepared, keep, name, doc_ids=doc_ids) for name in systems],
                          prepared)
    # the doc_id of every judgment id, read back through the public lookup
    topic_idx = prepared.topic_index.get_indexer(frame["query_id"].astype(str))
    docs = frame["doc_id"].astype(str).to_numpy()
    ids = prepared.judgment_ids(topic_idx, docs)
    judgment_docs = np.empty(len(prepared.grades), dtype=object)
    judgment_docs[ids] = docs
    # measures that are not C/W/L/A are scored by ir-measures from the runs: those with a cutoff
    # from the runs cut at the deepest of them (ties kept), the others from the whole runs
    other_runs: dict[Optional[int], dict[str, pd.DataFrame]] = {}
    cutoffs = [m.params.get("cutoff") for m in parsed if not is_cwla(m)]
    if any(c is not None for c in cutoffs):
        deepest = max(c for c in cutoffs if c is not None)
        other_runs[deepest] = {name: top_of_run(frame, deepest) for name, frame in run_frames.items()}
    if any(c is None for c in cutoffs):
        other_runs[None] = run_frames
    return Collection(tuple(order), tuple(parsed), systems, prepared, ranked, owner, keep, scorer,
                      judgment_docs, other_runs)


def top_of_run(run: pd.DataFrame, depth: Optional[int]) -> pd.DataFrame:
    """The lines of a run that a measure cut at ``depth`` can look at, whatever the evaluator's tie-breaking.

    Per topic, every document scored at least the ``depth``-th best score (compared in float32,
    as trec_eval does, so a tie at the boundary is kept whole), with all lines of such a
    document. ``None`` keeps the whole run. Scoring the cut run equals scoring the run, and
    ir-measures then converts tens, not thousands, of lines per topic.
    """
    if depth is None or not len(run):
        return run
    qids = run["query_id"].astype(str).to_numpy()
    scores = run["score"].to_numpy(dtype=np.float64).astype(np.float32)
    topic, _ = pd.factorize(qids)
    order = np.lexsort((-scores, topic))
    t_sorted = topic[order]
    first = np.r_[0, np.flatnonzero(t_sorted[1:] != t_sorted[:-1]) + 1]
    count = np.diff(np.r_[first, len(order)])
    threshold = scores[order[first + np.minimum(count, depth) - 1]]          # the depth-th best (or last)
    keep = scores >= threshold[np.searchsorted(t_sorted[first], topic)]
    docs = run["doc_id"].astype(str).to_numpy()
    kept_docs = pd.MultiIndex.from_arrays([qids[keep], docs[keep]])
    keep |= pd.MultiIndex.from_arrays([qids, docs]).isin(kept_docs)            # every line of a kept doc
    return run[keep].reset_index(drop=True)
